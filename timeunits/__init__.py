"""Training time as values: :class:`TimeUnit`, :class:`Time` and :class:`Timestamp`.

``timeunits`` imports nothing heavier than the standard library, so any tool can read a time string.

>>> from timeunits import Time
>>> Time.from_timestring("0.3dur"), Time.from_timestring("4_000tok")
(Time(0.3, TimeUnit.DURATION), Time(4000, TimeUnit.TOKEN))
"""

from timeunits.errors import (
    MissingTimeUnitError,
    NonIntegralTimeError,
    NotATimeError,
    TimeParseError,
    TimeUnitMismatchError,
)
from timeunits.time import Time, TimeLike, is_number, whole_count
from timeunits.timestamp import Timestamp
from timeunits.units import TimeUnit

__all__ = [
    "MissingTimeUnitError",
    "NonIntegralTimeError",
    "NotATimeError",
    "Time",
    "TimeLike",
    "TimeParseError",
    "TimeUnit",
    "TimeUnitMismatchError",
    "Timestamp",
    "is_number",
    "whole_count",
]
