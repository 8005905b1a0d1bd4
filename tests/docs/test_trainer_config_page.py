"""docs/trainer-config.md shows real output: each ``text`` block marked ``<!-- output of: cadence ARGS -->`` is
what ``cadence ARGS`` prints (stdout, run from the repository root), so the page cannot go stale.

``python tests/docs/test_trainer_config_page.py`` rewrites the marked blocks from fresh runs.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from schedulers.tools.files import write_atomically

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "trainer-config.md"
_MARKED = re.compile(r"<!-- output of: cadence (?P<args>[^\n]*?) -->\n```text\n(?P<output>.*?)```", re.S)


def _run(args: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    result = subprocess.run(
        [sys.executable, "-m", "trainer", *shlex.split(args)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def _blocks() -> list[re.Match]:
    return list(_MARKED.finditer(PAGE.read_text()))


def test_the_page_marks_the_run_summary_and_a_dry_run():
    commands = [match["args"] for match in _blocks()]
    assert "fit examples/classifier.yaml" in commands
    assert any("--dry-run" in command for command in commands)


@pytest.mark.parametrize("args", [match["args"] for match in _blocks()])
def test_a_marked_block_is_the_commands_output(args):
    (block,) = [match["output"] for match in _blocks() if match["args"] == args]
    assert block == _run(args), f"docs/trainer-config.md is stale: run python {Path(__file__).relative_to(ROOT)}"


def _update() -> None:
    text = PAGE.read_text()
    text = _MARKED.sub(lambda m: f"<!-- output of: cadence {m['args']} -->\n```text\n{_run(m['args'])}```", text)
    write_atomically(PAGE, lambda stream: stream.write(text))  # the page is never left half-written


if __name__ == "__main__":
    _update()
