"""The examples run as their docstrings say (the trainer's YAML examples are run by tests/trainer/test_cli.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_schedule_demo_trains_with_the_previewed_lrs() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "schedule_demo.py")], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "200 batches trained; largest gap between the lrs trained with and the preview: 0.0e+00" in result.stdout
    assert "t_warmup = 20ba" in result.stdout
