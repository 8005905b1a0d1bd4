"""docs/trainer-config.md shows real output: each ``text`` block marked ``<!-- output of: cadence ARGS -->`` is
what ``cadence ARGS`` prints (stdout, run from the repository root), so the page cannot go stale.

The output of a command that trains (``fit`` without ``--dry-run``) shows losses, whose last decimals differ
from one CPU to another: its decimal numbers compare to a relative 1e-3 (one unit in the 4th decimal of a
loss printed as ``0.1202``), every other character exactly. Other commands compute no trained float: exact.

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


_DECIMAL = re.compile(r"\d+\.\d+")


def _trains(args: str) -> bool:
    return shlex.split(args)[0] == "fit" and "--dry-run" not in shlex.split(args)


def _shows_the_same(ran: str, block: str, trains: bool) -> bool:
    """Whether ``ran`` shows what ``block`` shows: exactly, or for a training run, decimals within 1e-3."""
    if not trains:
        return ran == block
    numbers = [float(n) for n in _DECIMAL.findall(ran)], [float(n) for n in _DECIMAL.findall(block)]
    same_text = _DECIMAL.sub("#", ran) == _DECIMAL.sub("#", block)
    return same_text and numbers[0] == pytest.approx(numbers[1], rel=1e-3, abs=1e-4)


@pytest.mark.parametrize("args", [match["args"] for match in _blocks()])
def test_a_marked_block_is_the_commands_output(args):
    (block,) = [match["output"] for match in _blocks() if match["args"] == args]
    ran = _run(args)
    assert _shows_the_same(ran, block, _trains(args)), (
        f"docs/trainer-config.md is stale: run python {Path(__file__).relative_to(ROOT)}\n{ran}"
    )


def test_a_trained_block_tolerates_another_cpus_last_digit_not_another_run():
    block = "cadence: trained batches 0-300 (300 this run) of 300ba; loss 1.4840 (first batch) -> 0.1202 (last batch)\n"
    assert _trains("fit examples/classifier.yaml") and not _trains("fit examples/classifier.yaml --dry-run")
    assert _shows_the_same(block.replace("0.1202", "0.1201"), block, trains=True)  # a 5th decimal rounded over
    assert not _shows_the_same(block.replace("0.1202", "0.1302"), block, trains=True)  # another run
    assert not _shows_the_same(block.replace("0-300", "0-301"), block, trains=True)  # counts are exact
    assert not _shows_the_same(block.replace("0.1202", "0.1201"), block, trains=False)  # no training: exact


def _update() -> None:
    text = PAGE.read_text()
    text = _MARKED.sub(lambda m: f"<!-- output of: cadence {m['args']} -->\n```text\n{_run(m['args'])}```", text)
    write_atomically(PAGE, lambda stream: stream.write(text))  # the page is never left half-written


if __name__ == "__main__":
    _update()
