"""Error classes of :mod:`timeunits`.

Each one subclasses the built-in errors Composer raises in the same situation, so code written
against Composer (``except RuntimeError``, ``except TypeError``) keeps working.
"""

from __future__ import annotations

__all__ = ["MissingTimeUnitError", "NonIntegralTimeError", "NotATimeError", "TimeParseError", "TimeUnitMismatchError"]


class TimeUnitMismatchError(ValueError, RuntimeError):
    """Two times of different units met where one unit is required (``+``, ``-``, ``<``, ...).

    Composer raises :class:`RuntimeError` here; Cadence's error is also a :class:`ValueError`.
    """


class NonIntegralTimeError(ValueError, TypeError):
    """A non-integral (or float) value was given for an integer unit (``ep``, ``ba``, ``sp``, ``tok``)."""


class TimeParseError(ValueError):
    """A string is not a valid time string."""


class NotATimeError(TypeError, RuntimeError):
    """``Time.from_input`` got something that is neither a Time, a time string nor a number.

    Composer raises :class:`RuntimeError` here; Cadence's error is also a :class:`TypeError`.
    """


class MissingTimeUnitError(ValueError, RuntimeError):
    """``Time.from_input`` got a bare number and no ``default_int_unit`` to read it in.

    Composer raises :class:`RuntimeError` here; Cadence's error is also a :class:`ValueError`.
    """
