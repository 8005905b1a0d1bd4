"""The code stays lint-clean and formatted (ruff, configured in pyproject.toml)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff() -> list[str]:
    try:
        import ruff  # noqa: F401
    except ImportError:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("ruff is missing: pip install -e '.[test]'")
        pytest.skip("ruff is not installed")
    return [sys.executable, "-m", "ruff"] if shutil.which("ruff") is None else ["ruff"]


@pytest.mark.parametrize("command", [["check", "."], ["format", "--check", "."]], ids=["check", "format"])
def test_ruff(command):
    result = subprocess.run([*_ruff(), *command], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_rule_set_keeps_bugbear_pyupgrade_and_complexity():
    """The lint runs flake8-bugbear (B), pyupgrade (UP) and mccabe (C90) with a complexity limit of 12."""
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11

    lint = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert {"E", "F", "W", "I", "B", "UP", "C90"} <= set(lint["select"])
    assert lint["mccabe"]["max-complexity"] == 12
