"""The units of training time."""

from __future__ import annotations

from enum import Enum

from timeunits.suggestions import did_you_mean

__all__ = ["TimeUnit", "INTEGER_UNITS", "UNIT_VALUES"]

# Composer has these two as well; Cadence does not support them and says so by name.
_UNSUPPORTED = {
    "iter": "'iter' (Composer's iterations) is not supported by Cadence",
    "iteration": "'iteration' (Composer's iterations) is not supported by Cadence",
    "sec": "'sec' (wall-clock seconds) is not supported by Cadence",
    "second": "'second' (wall-clock seconds) is not supported by Cadence",
}


class TimeUnit(str, Enum):
    """A unit of training time.

    ``EPOCH="ep"``, ``BATCH="ba"`` (optimizer steps), ``SAMPLE="sp"``, ``TOKEN="tok"`` and
    ``DURATION="dur"`` (a fraction of the whole run). Lookup is case-insensitive by value or by name.

    Returns:
        The member ``TimeUnit(text)`` looks up; an unknown text (or Composer's ``iter``/``sec``) raises a
        ``ValueError`` listing the accepted units.

    >>> TimeUnit("EP") is TimeUnit("epoch") is TimeUnit.EPOCH
    True
    >>> str(TimeUnit.DURATION)
    'dur'
    >>> TimeUnit("epochs")
    Traceback (most recent call last):
    ...
    ValueError: 'epochs' is not a time unit (did you mean 'ep'?); expected one of ep, ba, sp, tok, dur ...
    """

    EPOCH = "ep"
    BATCH = "ba"
    SAMPLE = "sp"
    TOKEN = "tok"
    DURATION = "dur"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def _missing_(cls, value: object) -> TimeUnit:
        if isinstance(value, str):
            key = value.strip().lower()
            for unit in cls:
                if key in (unit.value, unit.name.lower()):
                    return unit
            if key in _UNSUPPORTED:
                raise ValueError(f"{value!r} is not a time unit: {_UNSUPPORTED[key]}; {_ACCEPTED}")
            spellings = {spelling: unit.value for unit in cls for spelling in (unit.value, unit.name.lower())}
            raise ValueError(
                f"{value!r} is not a time unit{did_you_mean(key, spellings, n=1, quote=True, meaning=spellings)}; "
                f"{_ACCEPTED}"
            )
        raise ValueError(f"{value!r} is not a time unit; {_ACCEPTED}")


_ACCEPTED = "expected one of ep, ba, sp, tok, dur (or epoch, batch, sample, token, duration)"

#: Units whose values are whole counts.
INTEGER_UNITS = frozenset({TimeUnit.EPOCH, TimeUnit.BATCH, TimeUnit.SAMPLE, TimeUnit.TOKEN})

#: Unit suffixes accepted in time strings, in the order error messages list them.
UNIT_VALUES = tuple(unit.value for unit in TimeUnit)
