"""Checking schedule arguments: each bad value is a ValueError naming the argument and what is accepted."""

from __future__ import annotations

import math
from typing import Sequence as Seq

from timeunits import Time

__all__ = ["choice_argument", "milestones_argument", "number_argument", "positive_count", "time_argument"]


def time_argument(name: str, value: object) -> Time:
    """A schedule's time argument as a Time, or a ValueError naming the argument."""
    try:
        return Time.from_input(value)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name}={value!r} is not a time: {error}") from None


def number_argument(name: str, value: object, *, low: float | None = None, low_open: bool = False) -> float:
    """A finite real (int, float, numpy or 0-d tensor) as a float, optionally bounded below; else a ValueError."""
    if isinstance(value, (bool, str)) or value is None:
        raise ValueError(f"{name}={value!r} must be a number")
    try:
        result = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={value!r} must be a number") from None
    if not math.isfinite(result):
        raise ValueError(f"{name}={value!r} must be a finite number")
    if low is not None and (result < low or (low_open and result == low)):
        raise ValueError(f"{name}={value!r} must be {'>' if low_open else '>='} {low}")
    return result


def positive_count(name: str, count: Time, given: Time) -> int:
    """A resolved period that must be at least one whole count (deviation 3: never a ZeroDivisionError)."""
    if count.value <= 0:
        raise ValueError(
            f"{name}={given} resolves to {count} for this run: it must be at least 1{count.unit.value} "
            "(a longer time, or a larger scale_schedule_ratio)"
        )
    return count.value


def milestones_argument(value: object) -> list[Time]:
    if isinstance(value, (str, Time)) or not isinstance(value, Seq):
        raise ValueError(f"milestones={value!r} must be a list of times, e.g. ['30ep', '0.8dur']")
    return [time_argument(f"milestones[{i}]", m) for i, m in enumerate(value)]


def choice_argument(name: str, value: object, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ValueError(f"{name}={value!r} must be one of {', '.join(repr(c) for c in choices)}")
    return value
