"""Checks for the Cerebras schedulers' value arguments: each error names the argument as the user wrote it."""

from __future__ import annotations

import math
import operator

__all__ = ["boolean", "choice", "integer", "number", "numbers"]


def number(name: str, value: object, *, low: float | None = None, low_open: bool = False) -> float:
    """A finite real (int, float, numpy or 0-d tensor) as a float, optionally bounded below."""
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


def numbers(name: str, values: object) -> list[float]:
    """A non-empty list of finite numbers."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ValueError(f"{name}={values!r} must be a list of numbers")
    result = [number(f"{name}[{i}]", v) for i, v in enumerate(values)]
    if not result:
        raise ValueError(f"{name} must not be empty")
    return result


def integer(name: str, value: object, *, low: int | None = None) -> int:
    """An int (or an integral float such as ``2.0``), optionally bounded below."""
    if isinstance(value, bool):
        raise ValueError(f"{name}={value!r} must be an integer")
    try:
        result = operator.index(value)
    except TypeError:
        if isinstance(value, float) and value.is_integer():
            result = int(value)
        else:
            raise ValueError(f"{name}={value!r} must be an integer") from None
    if low is not None and result < low:
        raise ValueError(f"{name}={value!r} must be an integer >= {low}")
    return result


def boolean(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name}={value!r} must be True or False")
    return value


def choice(name: str, value: object, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ValueError(f"{name}={value!r} must be one of {', '.join(repr(c) for c in choices)}")
    return value
