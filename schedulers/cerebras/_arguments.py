"""Checks for the Cerebras schedulers' value arguments: each error names the argument as the user wrote it."""

from __future__ import annotations

from schedulers.core.schedule_arguments import choice_argument as choice
from schedulers.core.schedule_arguments import integer_argument as integer
from schedulers.core.schedule_arguments import number_argument as number

__all__ = ["boolean", "choice", "integer", "number", "numbers"]


def numbers(name: str, values: object) -> list[float]:
    """A non-empty list of finite numbers."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ValueError(f"{name}={values!r} must be a list of numbers")
    result = [number(f"{name}[{i}]", v) for i, v in enumerate(values)]
    if not result:
        raise ValueError(f"{name} must not be empty")
    return result


def boolean(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name}={value!r} must be True or False")
    return value
