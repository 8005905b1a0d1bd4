"""Checks for the Cerebras schedulers' value arguments: each error names the argument as the user wrote it."""

from __future__ import annotations

import operator

from schedulers.core.arguments import choice_argument as choice
from schedulers.core.arguments import number_argument as number

__all__ = ["boolean", "choice", "integer", "number", "numbers"]


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
