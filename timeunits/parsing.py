"""Parsing of time strings such as ``"0.3dur"``, ``"10ep"``, ``"3e10sp"`` or ``"4_000tok"``.

Grammar: optional whitespace, a Python float literal (sign, ``_`` between digits, exponent; ASCII digits
only), optional whitespace, a unit suffix in any case, optional whitespace. Integer units are parsed
exactly (through :class:`decimal.Decimal`, never through a float), so ``"9007199254740993ba"`` keeps its
last digit; their literal must denote a whole number (``"2.0ep"`` and ``"1.5e1ba"`` do, ``"1e-1ba"`` does not).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from functools import lru_cache

from timeunits.errors import NonIntegralTimeError, TimeParseError
from timeunits.suggestions import did_you_mean
from timeunits.units import _UNSUPPORTED, UNIT_VALUES, TimeUnit

__all__ = ["parse_timestring"]

_DIGITS = r"[0-9](?:_?[0-9])*"
_NUMBER = rf"[+-]?(?:{_DIGITS}(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})(?:[eE][+-]?{_DIGITS})?"
_TIME_RE = re.compile(rf"\s*({_NUMBER})\s*({'|'.join(UNIT_VALUES)})\s*", re.IGNORECASE | re.ASCII)
_NUMBER_RE = re.compile(_NUMBER, re.ASCII)
_TRAILING_LETTERS = re.compile(r"[A-Za-z]+\s*$")
_UNIT_SUFFIX = re.compile(rf"({'|'.join(UNIT_VALUES)})\s*$", re.IGNORECASE)

# An integer literal with this many digits or more is refused rather than expanded (``"1e999999999ba"``);
# Python cannot print an int of more than 4300 digits, so a longer one would not round-trip.
_MAX_INTEGER_DIGITS = 4300

_EXPECTED = "expected <number><unit> with unit in ep, ba, sp, tok, dur (e.g. '0.3dur', '10ep', '4_000tok')"


@lru_cache(maxsize=4096)  # configs repeat the same few strings; results are immutable
def parse_timestring(timestring: str) -> tuple[int | float, TimeUnit]:
    """Split a time string into its value and unit.

    >>> parse_timestring(" 4_000 TOK ")
    (4000, <TimeUnit.TOKEN: 'tok'>)
    >>> parse_timestring("0.3dur")
    (0.3, <TimeUnit.DURATION: 'dur'>)
    """
    match = _TIME_RE.fullmatch(timestring)
    if match is None:
        raise TimeParseError(f"{timestring!r} is not a time: {_diagnose(timestring)}; {_EXPECTED}")
    number, unit = match.group(1), TimeUnit(match.group(2).lower())
    if unit is TimeUnit.DURATION:
        value = float(number)
        if not math.isfinite(value):
            raise TimeParseError(f"{timestring!r} is not a time: {number} is out of the float range; {_EXPECTED}")
        return value, unit
    return _exact_integer(number, timestring, unit), unit


def _exact_integer(number: str, timestring: str, unit: TimeUnit) -> int:
    exact = Decimal(number.replace("_", ""))
    # Integrality first: a non-integral count is wrong whatever its size (Decimal compares it exactly).
    if exact != exact.to_integral_value():
        raise NonIntegralTimeError(
            f"{timestring!r} is not a time: {number} is not a whole number, and {unit.value} counts are integers",
            hint=" (use a whole number, or a dur fraction such as '0.3dur')",
        )
    if not exact.is_zero() and exact.adjusted() >= _MAX_INTEGER_DIGITS:
        raise TimeParseError(f"{timestring!r} is not a time: {number} has more than {_MAX_INTEGER_DIGITS} digits")
    return int(exact)


def _diagnose(timestring: str) -> str:
    """Say what is wrong with a string the grammar rejected."""
    text = timestring.strip()
    if not text:
        return "the string is empty"
    suffix = _UNIT_SUFFIX.search(text)
    if suffix is None:
        letters = _TRAILING_LETTERS.search(text)
        if letters is None:
            return "the unit is missing"
        unit = letters.group(0).strip()
        if unit.lower() in _UNSUPPORTED:
            return _UNSUPPORTED[unit.lower()]
        return f"unknown unit {unit!r}{_closest_time(text[: letters.start()].strip(), unit)}"
    number = text[: suffix.start()].strip()
    if not number:
        return "the number is missing"
    if number.lower().lstrip("+-") in ("nan", "inf", "infinity"):
        return f"{number} is not a finite number"
    if _NUMBER_RE.fullmatch(number) is None:
        return f"{number!r} is not a number (ASCII digits, optional sign, '.', exponent and '_' between digits)"
    return "unexpected characters"


def _closest_time(number: str, unit: str) -> str:
    """The " (did you mean '30ba'?)" of a time whose unit is misspelt: its number with the closest unit.

    A unit is compared with each unit's suffix and its name (``"epochs"`` is close to ``"epoch"``, so ``"3epochs"``
    suggests ``'3ep'``); a time the number cannot make (``"2.5ep"``) or a number that is not one is suggested not.
    """
    if _NUMBER_RE.fullmatch(number) is None:
        return ""
    spellings = {}
    for candidate in TimeUnit:
        try:
            parse_timestring(number + candidate.value)
        except (TimeParseError, NonIntegralTimeError):
            continue
        spellings[candidate.value] = spellings[candidate.name.lower()] = number + candidate.value
    return did_you_mean(unit, spellings, n=1, quote=True, meaning=spellings)
