"""Error classes of :mod:`timeunits`, and :func:`argument_error`, which names the argument an error is about.

Each class subclasses the built-in errors Composer raises in the same situation, so code written
against Composer (``except RuntimeError``, ``except TypeError``) keeps working. Each is also a
:class:`ValueError`, so a bad time given as an argument is a ``ValueError`` like any other bad value.
"""

from __future__ import annotations

__all__ = [
    "MissingTimeUnitError",
    "NonIntegralTimeError",
    "NotATimeError",
    "TimeParseError",
    "TimeUnitMismatchError",
    "argument_error",
]


class _Advised(Exception):
    """An error whose message may end with advice (``hint``) for the caller of :meth:`Time.from_input`.

    ``str(error)`` is ``message + hint``. :func:`argument_error` keeps ``argument_hint`` instead, the advice that
    still applies to someone writing an argument (a schedule's ``step_size`` cannot "pass default_int_unit").
    """

    def __init__(self, message: str = "", hint: str = "", argument_hint: str | None = None) -> None:
        super().__init__(message + hint)
        self.message = message
        self.hint = hint
        self.argument_hint = hint if argument_hint is None else argument_hint


class TimeUnitMismatchError(ValueError, RuntimeError):
    """Two times of different units met where one unit is required (``+``, ``-``, ``<``, ...).

    Composer raises :class:`RuntimeError` here; Cadence's error is also a :class:`ValueError`.

    Returns:
        The error :class:`~timeunits.Time` arithmetic and comparisons raise when the two units differ.

    >>> from timeunits import Time
    >>> try:
    ...     Time(1, "ep") + Time(3, "ba")
    ... except TimeUnitMismatchError as error:
    ...     isinstance(error, RuntimeError)
    True
    """


class NonIntegralTimeError(_Advised, ValueError, TypeError):
    """A non-integral (or float) value was given for an integer unit (``ep``, ``ba``, ``sp``, ``tok``).

    Args:
        message: What is wrong, beginning with the value read.
        hint: Advice for the caller of :meth:`Time.from_input`, appended to ``message`` in ``str(error)``.
        argument_hint: The advice that still applies to an argument's writer; None keeps ``hint``.

    Returns:
        The error :class:`~timeunits.Time` raises for ``Time(1.5, "ba")`` or ``"1.5ba"``; it is also a
        :class:`TypeError`, as Composer's.

    >>> from timeunits import Time
    >>> try:
    ...     Time.from_input("1.5ba")
    ... except NonIntegralTimeError as error:
    ...     str(error).split(",")[0]
    "'1.5ba' is not a time: 1.5 is not a whole number"
    """


class TimeParseError(ValueError):
    """A string is not a valid time string.

    Returns:
        The error :meth:`Time.from_timestring` raises for a text that is no number followed by a unit.

    >>> from timeunits import Time
    >>> try:
    ...     Time.from_timestring("ten epochs")
    ... except TimeParseError as error:
    ...     isinstance(error, ValueError)
    True
    """


class NotATimeError(_Advised, TypeError, ValueError, RuntimeError):
    """``Time.from_input`` got something that is neither a Time, a time string nor a number.

    Composer raises :class:`RuntimeError` here; Cadence's error is also a :class:`TypeError` and a
    :class:`ValueError`.

    Args:
        message: What is wrong, beginning with the value read.
        hint: Advice for the caller of :meth:`Time.from_input`, appended to ``message`` in ``str(error)``.
        argument_hint: The advice that still applies to an argument's writer; None keeps ``hint``.

    Returns:
        The error :meth:`Time.from_input` raises for a value of another type (a list, None, ...).

    >>> from timeunits import Time
    >>> try:
    ...     Time.from_input([3, "ep"])
    ... except NotATimeError as error:
    ...     isinstance(error, TypeError)
    True
    """


class MissingTimeUnitError(_Advised, ValueError, RuntimeError):
    """``Time.from_input`` got a bare number and no ``default_int_unit`` to read it in.

    Composer raises :class:`RuntimeError` here; Cadence's error is also a :class:`ValueError`.

    Args:
        message: What is wrong, beginning with the value read.
        hint: Advice for the caller of :meth:`Time.from_input`, appended to ``message`` in ``str(error)``.
        argument_hint: The advice that still applies to an argument's writer; None keeps ``hint``.

    Returns:
        The error :meth:`Time.from_input` raises for a bare number given without ``default_int_unit``.

    >>> from timeunits import Time
    >>> try:
    ...     Time.from_input(5)
    ... except MissingTimeUnitError as error:
    ...     isinstance(error, RuntimeError)
    True
    """


def argument_error(
    name: str, value: object, error: ValueError, *, sep: str = "=", hint: str | None = None
) -> ValueError:
    """``error``, raised while reading ``value``, as an error of the argument ``name``: same class, one message.

    Every error :meth:`timeunits.Time.from_input` raises begins with the value it read
    (``'1.5ba' is not a time: ...``), so the argument's name goes in front and nothing is said twice
    (``step_size='1.5ba' is not a time: ...``; ``sep=" "`` gives ``budget '1.5ba' is not a time: ...``).
    The class is kept: a non-integral count stays a
    :class:`NonIntegralTimeError` (a ``ValueError`` and a ``TypeError``). Advice meant for the caller of
    ``from_input`` ("pass default_int_unit") is dropped; ``hint`` replaces the advice that remains (a run's
    length cannot be a ``dur`` fraction, so ``max_duration`` passes its own).

    Args:
        name: The argument's name, put in front of the message.
        value: The value the argument was given (its ``repr`` begins the message unless the error's does).
        error: The error raised while reading ``value``.
        sep: What goes between ``name`` and the message: ``"="`` (``step_size='1.5ba'``) or ``" "``.
        hint: Advice that replaces the error's own; None keeps the advice meant for an argument's writer.

    Returns:
        A new error of ``error``'s class (to be raised by the caller) whose message names the argument.

    >>> from timeunits import Time
    >>> try:
    ...     Time.from_input("1.5ba")
    ... except ValueError as error:
    ...     named = argument_error("step_size", "1.5ba", error)
    >>> type(named).__name__, str(named).split(",")[0]
    ('NonIntegralTimeError', "step_size='1.5ba' is not a time: 1.5 is not a whole number")
    """
    advised = isinstance(error, _Advised)
    message, shown = (error.message if advised else str(error)), repr(value)
    if not message.startswith(shown):  # an error that does not name the value: say which value it is about
        message = f"{shown} is not a time: {message}"
    advice = (error.argument_hint if hint is None else hint) if advised else ""
    return type(error)(f"{name}{sep}{message}{advice}")
