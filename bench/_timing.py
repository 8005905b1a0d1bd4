"""Shared timing helper for the benchmark scripts: median of interleaved rounds, in one process."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def per_call_ns(fn: Callable[[], object], number: int, timer: Callable[[], int] = time.perf_counter_ns) -> float:
    """Nanoseconds per call of ``fn`` over ``number`` calls (loop overhead included), read on ``timer``."""
    start = timer()
    for _ in range(number):
        fn()
    return (timer() - start) / number


def compare(
    cases: dict[str, Callable[[], object]],
    number: int = 200_000,
    rounds: int = 5,
    timer: Callable[[], int] = time.perf_counter_ns,
) -> dict[str, float]:
    """Median ns per call of each case, measured in interleaved rounds so drift hits all cases alike.

    ``timer`` is the wall clock by default; ``time.process_time_ns`` counts only the CPU time of this process,
    so that on a shared machine the time other processes hold the core is not counted (single-threaded cases).
    """
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, fn in cases.items():
            samples[name].append(per_call_ns(fn, number, timer))
    return {name: statistics.median(values) for name, values in samples.items()}


def report(title: str, medians: dict[str, float], baseline: str) -> None:
    """Print each case's median cost and its ratio to ``baseline``."""
    print(title)
    base = medians[baseline]
    width = max(len(name) for name in medians)
    for name, ns in medians.items():
        print(f"  {name:<{width}}  {ns:9.1f} ns/call  {ns / base:6.2f}x {baseline}")
