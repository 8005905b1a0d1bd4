"""``Time``: an amount of training time in one unit, and its rounding rule for a product that is a count
(:func:`whole_count`: ``100 * 0.29`` batches are 29, not 28)."""

from __future__ import annotations

import math
import operator

from timeunits.errors import MissingTimeUnitError, NonIntegralTimeError, NotATimeError, TimeUnitMismatchError
from timeunits.parsing import parse_timestring
from timeunits.units import TimeUnit

__all__ = ["Time", "TimeLike", "is_number", "whole_count"]

_DURATION = TimeUnit.DURATION
# Exact-value lookup first: TimeUnit(...) costs several hundred ns and Time() is built often.
_UNIT_BY_VALUE = {unit.value: unit for unit in TimeUnit}
_new = object.__new__


class Time:
    """An amount of training time: a value and a :class:`TimeUnit`. Immutable and hashable.

    ``dur`` values are floats (a fraction of the run); ``ep``, ``ba``, ``sp`` and ``tok`` values are ints
    (a float value, even an integral one, is a :class:`NonIntegralTimeError`).

    >>> Time.from_timestring("0.3dur"), Time(10, "ep")
    (Time(0.3, TimeUnit.DURATION), Time(10, TimeUnit.EPOCH))
    >>> Time(10, "ep") * 0.75                    # scaling keeps the unit, truncating int units
    Time(7, TimeUnit.EPOCH)
    >>> Time(10, "ep") * Time(0.5, "dur")        # a fraction of a time, as a whole count
    Time(5, TimeUnit.EPOCH)
    >>> Time(100, "ba") * Time(0.29, "dur")      # 28.999999999999996 is 29 (see whole_count)
    Time(29, TimeUnit.BATCH)
    >>> Time(3, "ba") / Time(4, "ba")            # a ratio of two times is a duration
    Time(0.75, TimeUnit.DURATION)
    >>> str(Time(10, "ep") + "5ep")
    '15ep'

    Mixing units raises :class:`TimeUnitMismatchError`, except ``==``/``!=``, which answer ``False``/``True``.
    Numbers and strings on the other side of an operator are read with ``Time.from_input(x, self.unit)``.

    Args:
        value: The amount: a whole number for ``ep``, ``ba``, ``sp``, ``tok``; any finite number for ``dur``.
        unit: A :class:`TimeUnit` or its text (``"ep"``, ``"batch"``, ... in any case).

    Returns:
        The time ``value`` in ``unit``; Time arithmetic and comparison keep or check the unit.

    Raises:
        NonIntegralTimeError: ``value`` is not a whole number of an integer unit (``Time(1.5, "ba")``).
        TypeError: ``value`` is not a number (a string is parsed by :meth:`from_timestring` instead).
        ValueError: ``unit`` is not a time unit, or a ``dur`` value is not finite.
    """

    # Hand-written __slots__, not attrs: built on the per-step path (docs/architecture.md, "One way to write a
    # small value class"), and timeunits imports only the standard library. ``value`` and ``unit`` are the slots
    # themselves, read without a call (resolving a schedule reads them dozens of times); they are written once,
    # through the slots' own setters, and ``__setattr__`` refuses every later write.
    __slots__ = ("value", "unit")
    value: int | float
    unit: TimeUnit

    def __init__(self, value: int | float, unit: TimeUnit | str) -> None:
        unit = _UNIT_BY_VALUE.get(unit) or TimeUnit(unit)
        _set_value(self, value if type(value) is int and unit is not _DURATION else _checked_value(value, unit))
        _set_unit(self, unit)

    # -- construction -----------------------------------------------------------------------------
    @classmethod
    def from_timestring(cls, timestring: str) -> Time:
        """Parse ``"<number><unit>"``; see :func:`timeunits.parsing.parse_timestring` for the grammar.

        Args:
            timestring: A number followed by a unit: ``"0.3dur"``, ``"4_000tok"``, ``"10ep"``.

        Returns:
            The time the text writes, its value an int unless the unit is ``dur``.

        Raises:
            TypeError: ``timestring`` is not a str.
            TimeParseError: The text is not a number followed by a unit.
            NonIntegralTimeError: The number is not whole and the unit is an integer unit (``"1.5ba"``).

        >>> Time.from_timestring("4_000tok")
        Time(4000, TimeUnit.TOKEN)
        """
        if not isinstance(timestring, str):
            raise TypeError(f"a time string must be a str, got {timestring!r} of type {type(timestring).__name__}")
        value, unit = parse_timestring(timestring)
        return _make(value, unit)

    @classmethod
    def from_input(cls, value: TimeLike, default_int_unit: TimeUnit | str | None = None) -> Time:
        """A Time from a Time (returned as is), a time string, another library's time, or a number in
        ``default_int_unit``.

        Another library's time is anything with ``.value`` and a ``.unit`` whose ``.value`` is a unit string:
        Composer's ``Time(3, TimeUnit.EPOCH)`` reads as ``Time(3, "ep")``, so a Cadence schedule reads Composer's
        ``State`` as it is (docs/migrating-composer.md). Nothing of that library is imported.

        Args:
            value: The time.
            default_int_unit: The unit of a bare number (None: a bare number is refused).

        Returns:
            ``value`` itself when it is a Time, else the time it writes.

        Raises:
            TimeParseError: A string that is not a time.
            NotATimeError: Neither a Time, a string, a time of another library nor a number.
            MissingTimeUnitError: A bare number without ``default_int_unit``.

        >>> from types import SimpleNamespace
        >>> Time.from_input("0.3dur"), Time.from_input(5, "ba")
        (Time(0.3, TimeUnit.DURATION), Time(5, TimeUnit.BATCH))
        >>> Time.from_input(SimpleNamespace(value=3, unit=SimpleNamespace(value="ep")))  # Composer's Time(3, "ep")
        Time(3, TimeUnit.EPOCH)
        """
        if isinstance(value, Time):
            return value
        if isinstance(value, str):
            return cls.from_timestring(value)
        if type(value) not in (int, float):  # another library's Time (Composer's), read by what it exposes
            unit = getattr(getattr(value, "unit", None), "value", None)
            if isinstance(unit, str) and hasattr(value, "value"):
                return cls(value.value, unit)
        if not is_number(value):
            raise NotATimeError(
                f"{value!r} of type {type(value).__name__} is not a time: expected a Time or a time string "
                "such as '10ep'",
                hint=", or a number with default_int_unit",
                argument_hint="",
            )
        if default_int_unit is None:
            raise MissingTimeUnitError(
                f"{value!r} is a bare number, not a time: write it with a unit (e.g. '{value}ep')",
                hint=" or pass default_int_unit",
                argument_hint="",
            )
        return cls(value, default_int_unit)

    @classmethod
    def from_epoch(cls, epoch: int) -> Time:
        """``Time(epoch, "ep")``.

        Args:
            epoch: A whole number of epochs.

        Returns:
            The time of ``epoch`` epochs.
        """
        return cls(epoch, TimeUnit.EPOCH)

    @classmethod
    def from_batch(cls, batch: int) -> Time:
        """``Time(batch, "ba")``.

        Args:
            batch: A whole number of batches (optimizer steps).

        Returns:
            The time of ``batch`` batches.
        """
        return cls(batch, TimeUnit.BATCH)

    @classmethod
    def from_sample(cls, sample: int) -> Time:
        """``Time(sample, "sp")``.

        Args:
            sample: A whole number of samples.

        Returns:
            The time of ``sample`` samples.
        """
        return cls(sample, TimeUnit.SAMPLE)

    @classmethod
    def from_token(cls, token: int) -> Time:
        """``Time(token, "tok")``.

        Args:
            token: A whole number of tokens.

        Returns:
            The time of ``token`` tokens.
        """
        return cls(token, TimeUnit.TOKEN)

    @classmethod
    def from_duration(cls, duration: float) -> Time:
        """``Time(duration, "dur")``.

        Args:
            duration: A fraction of the whole run (1.0 is the run's end).

        Returns:
            The time at that fraction of the run, its value a float.
        """
        return cls(duration, TimeUnit.DURATION)

    # -- reading --------------------------------------------------------------------------------
    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot set {name} of {self!r}: a Time is immutable; build another (e.g. Time(5, 'ep'))")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete {name} of {self!r}: a Time is immutable")

    def to_timestring(self) -> str:
        """``f"{value}{unit}"``, e.g. ``"0.3dur"``, ``"1.0dur"``, ``"10ep"``; parses back to an equal Time.

        Returns:
            The time as text, as :meth:`from_timestring` reads it back.
        """
        return f"{self.value}{self.unit.value}"

    __str__ = to_timestring

    def __repr__(self) -> str:
        return f"Time({self.value!r}, TimeUnit.{self.unit.name})"

    def __int__(self) -> int:
        return int(self.value)

    def __float__(self) -> float:
        return float(self.value)

    def __hash__(self) -> int:
        return hash(self.value)

    def __reduce__(self):
        return (Time, (self.value, self.unit.value))

    # -- arithmetic ------------------------------------------------------------------------------
    def _same_unit(self, other: object, verb: str) -> Time:
        """``other`` as a Time of this unit, or a :class:`TimeUnitMismatchError` naming both."""
        other = self._coerce(other)
        if other.unit is not self.unit:
            raise TimeUnitMismatchError(
                f"cannot {verb} {self} and {other}: they have different units ({self.unit.value} and "
                f"{other.unit.value}); convert one of them first"
            )
        return other

    def _coerce(self, other: object) -> Time:
        if isinstance(other, Time):
            return other
        if isinstance(other, str):
            return Time.from_timestring(other)
        return Time(other, self.unit)

    def __add__(self, other: TimeLike) -> Time:
        if not _is_operand(other):
            return NotImplemented
        return _make(self.value + self._same_unit(other, "add").value, self.unit)

    __radd__ = __add__

    def __sub__(self, other: TimeLike) -> Time:
        if not _is_operand(other):
            return NotImplemented
        return _make(self.value - self._same_unit(other, "subtract").value, self.unit)

    def __rsub__(self, other: TimeLike) -> Time:
        if not _is_operand(other):
            return NotImplemented
        return _make(self._same_unit(other, "subtract").value - self.value, self.unit)

    def __mod__(self, other: TimeLike) -> Time:
        if not _is_operand(other):
            return NotImplemented
        return _make(self.value % self._same_unit(other, "take the remainder of").value, self.unit)

    def __rmod__(self, other: TimeLike) -> Time:
        if not _is_operand(other):
            return NotImplemented
        return _make(self._same_unit(other, "take the remainder of").value % self.value, self.unit)

    def __neg__(self) -> Time:
        return _make(-self.value, self.unit)

    def __pos__(self) -> Time:
        return self

    def __abs__(self) -> Time:
        return _make(abs(self.value), self.unit)

    def __mul__(self, other: TimeLike | float) -> Time:
        """``Time * number`` keeps the unit (``int()`` truncation for int units); ``Time * Time`` needs one ``dur``."""
        if is_number(other):
            return _scaled(self, _finite_factor(other, "multiply", self), operator.mul)
        if not _is_operand(other):
            return NotImplemented
        other = self._coerce(other)
        if self.unit is _DURATION:
            unit = other.unit
        elif other.unit is _DURATION:
            unit = self.unit
        else:
            raise TimeUnitMismatchError(
                f"cannot multiply {self} by {other}: one of the two must be a dur fraction (e.g. {self} * 0.5dur)"
            )
        product = self.value * other.value
        return _make(float(product) if unit is _DURATION else whole_count(product), unit)

    __rmul__ = __mul__

    def __truediv__(self, other: TimeLike | float) -> Time:
        """``Time / number`` keeps the unit (truncating int units); ``Time / Time`` of one unit is a ``dur``."""
        if is_number(other):
            return _scaled(self, _finite_factor(other, "divide", self), _truncating_div)
        if not _is_operand(other):
            return NotImplemented
        return _make(self.value / self._same_unit(other, "divide").value, _DURATION)

    def __rtruediv__(self, other: TimeLike | float) -> Time:
        if not _is_operand(other):
            return NotImplemented
        return _make(self._same_unit(other, "divide").value / self.value, _DURATION)

    # -- comparison ------------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if isinstance(other, Time):
            return self.unit is other.unit and self.value == other.value
        if isinstance(other, str):
            try:
                other = Time.from_timestring(other)
            except ValueError:
                return False
            return self.unit is other.unit and self.value == other.value
        if is_number(other):
            return self.value == _plain_number(other)
        return NotImplemented

    def _compare_value(self, other: object) -> int | float:
        """``other``'s value for ordering: a number is read in this unit, so a float is no count of ``ep``."""
        if type(other) is int:
            return other
        if is_number(other):
            if self.unit is _DURATION:
                return _plain_number(other)
            count = _whole(other)
            if count is None:
                raise _not_a_count(other, self.unit, f"cannot compare {self} with {other!r}")
            return count
        return self._same_unit(other, "compare").value

    def __lt__(self, other: object) -> bool:
        return self.value < self._compare_value(other) if _is_operand(other) else NotImplemented

    def __le__(self, other: object) -> bool:
        return self.value <= self._compare_value(other) if _is_operand(other) else NotImplemented

    def __gt__(self, other: object) -> bool:
        return self.value > self._compare_value(other) if _is_operand(other) else NotImplemented

    def __ge__(self, other: object) -> bool:
        return self.value >= self._compare_value(other) if _is_operand(other) else NotImplemented


TimeLike = Time | str | int | float


# the slots' own setters: the one way a Time's value and unit are written (past the refusing __setattr__)
_set_value = Time.value.__set__  # type: ignore[attr-defined]
_set_unit = Time.unit.__set__  # type: ignore[attr-defined]


def _make(value: int | float, unit: TimeUnit) -> Time:
    """Build a Time from an already valid value, skipping the checks of ``__init__`` (hot paths)."""
    time = _new(Time)
    _set_value(time, value)
    _set_unit(time, unit)
    return time


def is_number(value: object) -> bool:
    """Whether ``value`` is a real number: an int or float, a numpy or torch scalar, a Fraction or Decimal.

    A bool, a string, bytes and a Time are not numbers, although ``float()`` reads each of them; Cadence's
    number arguments all ask this one question (docs/time-units.md).

    >>> is_number(3), is_number(0.5), is_number(True), is_number("0.5"), is_number(b"0.5")
    (True, True, False, False, False)

    Args:
        value: Anything.

    Returns:
        True for an int or float (a bool aside), a numpy or torch scalar, a Fraction or a Decimal.
    """
    if isinstance(value, (bool, str, bytes, bytearray, Time)):  # float(b"0.5") works, but bytes are no number
        return False
    if isinstance(value, (int, float)):
        return True
    try:
        operator.index(value)
        return True
    except TypeError:
        pass
    try:
        float(value)  # numpy floats, 0-d tensors, Fractions, Decimals
    except (TypeError, ValueError):
        return False
    return True


def _plain_number(value: object) -> int | float:
    """A numpy/torch/other number as a Python int (when integer-like) or float."""
    if type(value) is int or type(value) is float:
        return value
    if isinstance(value, float):
        return float(value)  # numpy.float64 and other float subclasses
    try:
        return operator.index(value)
    except TypeError:
        return float(value)


def whole_count(x: float) -> int:
    r"""``x`` as a count: the nearest integer when within ``1e-9·max(1, |x|)`` of it, else ``trunc(x)``.

    Floating-point products such as ``0.29 * 100 = 28.999999999999996`` land a hair below the count they
    denote; Composer truncates them (28), Cadence takes the count meant (29). Anything farther from an
    integer is truncated toward zero, as ``int()`` does.

    Args:
        x: A count computed as a product (an int is returned as is).

    Returns:
        The whole count ``x`` denotes: :math:`\operatorname{round}(x)` if
        :math:`|x - \operatorname{round}(x)| \le 10^{-9} \max(1, |x|)`, else :math:`\operatorname{trunc}(x)`.

    >>> whole_count(0.29 * 100), whole_count(2.5), whole_count(-2.5), whole_count(7)
    (29, 2, -2, 7)
    """
    if isinstance(x, int):
        return x
    nearest = round(x)
    if abs(x - nearest) <= 1e-9 * max(1.0, abs(x)):
        return int(nearest)
    return int(x)


def _is_operand(value: object) -> bool:
    return isinstance(value, (Time, str)) or is_number(value)


def _checked_value(value: object, unit: TimeUnit) -> int | float:
    if unit is not _DURATION:
        count = _whole(value)  # numpy and torch integers; the messages below are built only to raise
        if count is not None:
            return count
    if not is_number(value):
        hint = f" (to parse a string use Time.from_timestring({value!r}))" if isinstance(value, str) else ""
        raise TypeError(f"a Time value must be a number, got {value!r} of type {type(value).__name__}{hint}")
    if unit is _DURATION:
        result = float(value)
        if not math.isfinite(result):
            raise ValueError(f"a dur value must be a finite number, got {value!r}")
        return result
    raise _not_a_count(value, unit, f"Time({value!r}, {unit.value!r})")


def _whole(value: object) -> int | None:
    """``value`` as an int when it is an integer number (an int, a numpy or torch integer), else None.

    A bool is no number here and a float (even ``2.0``) no count, as :func:`is_number` and
    :func:`_not_a_count` say; a Time has no ``__index__``.
    """
    if isinstance(value, (bool, float)):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def _not_a_count(value: object, unit: TimeUnit, subject: str) -> NonIntegralTimeError:
    """The error for a number that is no count of the integer ``unit`` (a float, even ``2.0``, or a Fraction).

    ``subject`` names the value in the error (``"Time(2.5, 'ep')"``, ``"Timestamp batch"``).
    """
    if isinstance(value, float):
        return NonIntegralTimeError(
            f"{subject}: {unit.value} values must be ints, got the float {value!r}"
            + (f" (write {int(value)})" if value.is_integer() else "")
        )
    return NonIntegralTimeError(f"{subject}: {unit.value} values must be ints, got {type(value).__name__} {value!r}")


def _finite_factor(factor: object, verb: str, time: Time) -> int | float:
    if isinstance(factor, (int, float)):
        number = factor
    else:
        try:
            number = operator.index(factor)
        except TypeError:
            number = float(factor)
    if isinstance(number, float) and not math.isfinite(number):
        raise ValueError(f"cannot {verb} {time} by {factor!r}: the factor must be a finite number")
    return number


def _truncating_div(value: int | float, divisor: int | float) -> int | float:
    if isinstance(value, int) and isinstance(divisor, int):
        # Exact for ints beyond 2**53, truncating toward zero as int(value / divisor) would.
        quotient = abs(value) // abs(divisor)
        return quotient if (value < 0) == (divisor < 0) else -quotient
    return value / divisor


def _scaled(time: Time, factor: int | float, op) -> Time:
    result = op(time.value, factor)
    if time.unit is _DURATION:
        return _make(float(result), _DURATION)
    return _make(int(result), time.unit)
