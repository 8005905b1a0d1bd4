"""Comparing a run's records with an uninterrupted run's (imported by the record and sweep tests; no tests here).

Counts are compared exactly; so are scheduled values (``lr/group0``, ``weight_decay/group1``: a schedule's value
is a function of time, so a resumed run writes the same float); trained floats (losses, the gradient norm) to a
relative 1e-6, since they come from training; throughput is timing, so only whether a row has it is compared.
"""

from __future__ import annotations

import math
from pathlib import Path

from trainer.records import COUNT_COLUMNS, read_table

TRAINED_REL = 1e-6
TIMING = ("throughput/",)


def same_value(name: str, got: str | float, want: str | float) -> bool:
    """Whether ``got`` stands for ``want`` in column (or TensorBoard tag) ``name`` (see the module docstring)."""
    if name in COUNT_COLUMNS or got == "" or want == "":
        return got == want
    if name.startswith(TIMING):
        return True
    if "/group" in name:  # a scheduled value
        return float(got) == float(want)
    return math.isclose(float(got), float(want), rel_tol=TRAINED_REL, abs_tol=1e-12)


def assert_same_csv(got: Path, want: Path) -> None:
    """``got`` has ``want``'s header and rows (one row per line, every cell compared by :func:`same_value`)."""
    got_header, got_rows = read_table(got)
    want_header, want_rows = read_table(want)
    assert got_header == want_header, f"{got}: header {got_header} != {want_header}"
    got_batches, want_batches = [row[0] for row in got_rows], [row[0] for row in want_rows]
    assert got_batches == want_batches, f"{got}: the batches of its rows differ from {want}'s"
    for got_row, want_row in zip(got_rows, want_rows, strict=True):
        for name, a, b in zip(want_header, got_row, want_row, strict=True):
            assert same_value(name, a, b), f"{got}: batch {got_row[0]}, {name}: {a} != {b}"


def scalars(log_dir: Path) -> dict[str, list[tuple[int, float]]]:
    """Every scalar tag of a TensorBoard folder as TensorBoard shows it (purged steps left out): (step, value)s."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    accumulator = EventAccumulator(str(log_dir), size_guidance={"scalars": 0})  # 0: keep every event
    accumulator.Reload()
    return {tag: [(e.step, e.value) for e in accumulator.Scalars(tag)] for tag in accumulator.Tags()["scalars"]}


def assert_same_scalars(got: Path, want: Path) -> None:
    """``got``'s TensorBoard scalars are ``want``'s: the same tags, steps and values (:func:`same_value`)."""
    got_scalars, want_scalars = scalars(got), scalars(want)
    assert sorted(got_scalars) == sorted(want_scalars), f"{got}: tags differ"
    for tag, want_events in want_scalars.items():
        got_events = got_scalars[tag]
        assert [step for step, _ in got_events] == [step for step, _ in want_events], f"{got}: steps of {tag} differ"
        for (step, a), (_, b) in zip(got_events, want_events, strict=True):
            assert same_value(tag, a, b), f"{got}: {tag} at step {step}: {a} != {b}"
