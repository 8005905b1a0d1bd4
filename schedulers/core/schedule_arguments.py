"""Checking schedule arguments: each bad value is a ValueError naming the argument and what is accepted.

The ``*_argument`` functions check one value; the ``*_field`` functions declare an argument of a frozen attrs
schedule class with that check as its converter (the argument's name comes from the field), and ``to_time``,
``to_optional_time``, ``to_times`` are the converters of time arguments, given to ``attrs.field`` directly so
that a type checker sees that they accept time strings. A schedule class lists its arguments once, in
constructor order, with their defaults:

>>> import attrs
>>> @attrs.frozen
... class Example:
...     t_max: Time = attrs.field(default="1dur", converter=to_time, repr=argument_repr)
...     alpha_f: float = multiplier_field(0.0, final=True)
>>> Example("10ba")
Example(t_max='10ba', alpha_f=0.0)
>>> Example(alpha_f=-0.5)
Traceback (most recent call last):
...
ValueError: alpha_f=-0.5 must be >= 0: a negative multiplier would write a negative learning rate
"""

from __future__ import annotations

import argparse
import math
import operator
import warnings
from collections.abc import Callable, Iterable
from collections.abc import Sequence as Seq
from typing import TYPE_CHECKING, Any

import attrs

from timeunits import Time, TimeUnit, is_number
from timeunits.errors import argument_error
from timeunits.suggestions import did_you_mean

__all__ = [
    "FrozenList",
    "FrozenScheduleError",
    "argument_repr",
    "evolve_hint",
    "choice_argument",
    "choice_problem",
    "choice_field",
    "count_flag",
    "flag_field",
    "flag_type",
    "integer_argument",
    "integer_problem",
    "milestones_argument",
    "multiplier_field",
    "named_converter",
    "number_argument",
    "number_field",
    "number_flag",
    "number_problem",
    "number_text",
    "positive_count",
    "same_value",
    "time_argument",
    "to_optional_time",
    "to_time",
    "to_times",
]


class FrozenScheduleError(attrs.exceptions.FrozenInstanceError):
    """Changing a schedule in place: schedules are immutable values; the message says how to change one.

    An ``attrs.exceptions.FrozenInstanceError`` (so an ``AttributeError``), as attrs raises for any frozen class.

    Args:
        message: What was changed and the ``attrs.evolve`` call that makes a changed copy instead.

    Returns:
        The error, raised by setting or deleting a schedule's attribute or changing a list argument in place.

    >>> from schedulers import CosineAnnealingScheduler
    >>> schedule = CosineAnnealingScheduler()
    >>> try:
    ...     schedule.t_max = "3ba"
    ... except FrozenScheduleError as error:
    ...     print(error)
    cannot set t_max of CosineAnnealingScheduler: schedules are immutable values;
    make a changed copy with attrs.evolve(schedule, t_max='3ba')
    """

    def __init__(self, message: str) -> None:
        AttributeError.__init__(self, message)
        self.msg = message


def evolve_hint(name: str, value: object = ...) -> str:
    """How to change argument ``name`` of a schedule: make a changed copy with ``attrs.evolve``.

    Args:
        name: The argument.
        value: The value the user tried to set (left out, or long: shown as ``...``).

    Returns:
        The hint, to end an error message with.

    >>> evolve_hint("gamma", 0.1)
    'schedules are immutable values; make a changed copy with attrs.evolve(schedule, gamma=0.1)'
    """
    shown = "..." if value is ... or len(repr(value)) > 40 else repr(value)
    return f"schedules are immutable values; make a changed copy with attrs.evolve(schedule, {name}={shown})"


class FrozenList(tuple):
    """A list argument of a schedule, kept as a tuple: its list methods say how to change the schedule instead.

    It equals (and hashes as) the plain tuple of its items.

    Args:
        items: The items.
        argument: The argument's name, for the messages.

    Returns:
        The tuple; ``append``, ``sort``, item assignment, ... raise :class:`FrozenScheduleError`.

    >>> milestones = FrozenList(["10ba", "20ba"], "milestones")
    >>> milestones == ("10ba", "20ba")
    True
    >>> milestones.append("30ba")
    Traceback (most recent call last):
    ...
    schedulers.core.schedule_arguments.FrozenScheduleError: milestones of a schedule is a tuple and cannot change in
    place: schedules are immutable values; make a changed copy with attrs.evolve(schedule, milestones=...)
    """

    def __new__(cls, items: Iterable[object], argument: str = "...") -> FrozenList:
        self = super().__new__(cls, items)
        self.argument = argument
        return self

    def __reduce__(self) -> tuple:
        return type(self), (tuple(self), self.argument)

    def _frozen(self, *args: object) -> None:
        """Refused: a schedule's list argument does not change in place (see :func:`evolve_hint`).

        Raises:
            FrozenScheduleError: Always, saying how to make a changed copy.
        """
        raise FrozenScheduleError(
            f"{self.argument} of a schedule is a tuple and cannot change in place: {evolve_hint(self.argument)}"
        )

    append = extend = insert = remove = pop = clear = sort = reverse = __setitem__ = __delitem__ = _frozen


def time_argument(name: str, value: object) -> Time:
    """A schedule's time argument as a Time.

    Args:
        name: The argument's name, which the error starts with.
        value: A Time or a time string (``"10ba"``, ``"0.3dur"``).

    Returns:
        ``value`` parsed (a Time given is returned as is), its unit kept: a ``"0.5dur"`` stays a fraction of
        the run, resolved later against the run's length.

    Raises:
        ValueError: timeunits' error for a value that is not a time, naming the argument; a negative time (a
            length or a point of a run is never before its start: ``t_warmup="-5ba"`` is refused when the
            schedule is built, where Composer would compute its decay from ``t_warmup = -5``).

    >>> time_argument("t_max", "0.5dur")
    Time(0.5, TimeUnit.DURATION)
    >>> time_argument("t_warmup", "-5ba")
    Traceback (most recent call last):
    ...
    ValueError: t_warmup='-5ba' is negative: a time must be >= 0 (e.g. '0ba', '100ba', '0.05dur')
    """
    try:
        time = Time.from_input(value)
    except ValueError as error:
        raise argument_error(name, value, error) from None
    if time.value < 0:
        raise ValueError(f"{name}={value!r} is negative: a time must be >= 0 (e.g. '0ba', '100ba', '0.05dur')")
    return time


def number_argument(
    name: str,
    value: object,
    *,
    low: float | None = None,
    low_open: bool = False,
    optional: bool = False,
    text: bool = False,
) -> float | None:
    """The one check of a number argument: a finite real as a float, optionally bounded below.

    Every number Cadence takes goes through it: a schedule's ``gamma``, the scale schedule ratio
    (``low=0, low_open=True``), the trainer's ``max_grad_norm`` (``optional=True``), a plot's ``base_value``.
    What is a number is :func:`timeunits.is_number`'s rule: a bool, a string, bytes or a Time is not.

    Args:
        name: The argument's name, which every error starts with (``ssr=0 must be ...``).
        value: The value given (an int, float, numpy or 0-d tensor scalar).
        low: The lower bound, or None for none.
        low_open: Whether ``low`` itself is refused (``> low`` instead of ``>= low``). Such a bound is
            stated in every error, since "must be a number" would not tell that ``low`` is refused.
        optional: Whether None is accepted (and returned); the errors then say so.
        text: Whether a string that spells a number is read as one (:func:`number_text`: a CLI flag, a
            Cerebras ``learning_rate``); errors show the value as given.

    Returns:
        The value as a float (None for None when ``optional``).

    Raises:
        ValueError: ``{name}={value!r} must be a number`` / ``a finite number`` / ``>= {low}``, or, with
            ``low_open``, ``{name}={value!r} must be a finite number > {low}``; ``, or None`` ends each
            message when ``optional``.

    >>> number_argument("gamma", 0.5), number_argument("max_grad_norm", None, low=0, low_open=True, optional=True)
    (0.5, None)
    >>> number_argument("ssr", 0, low=0, low_open=True)
    Traceback (most recent call last):
    ...
    ValueError: ssr=0 must be a finite number > 0
    """
    number = number_text(value) if text else value
    problem = number_problem(number, low=low, low_open=low_open, optional=optional)
    if problem is not None:
        raise ValueError(f"{name}={value!r} {problem}")
    return None if number is None else float(number)


def number_problem(
    value: object, *, low: float | None = None, low_open: bool = False, optional: bool = False
) -> str | None:
    """What is wrong with ``value`` as a number, for readers that name a value their own way (a config key path).

    The check behind :func:`number_argument`, with the same arguments but no name.

    Args:
        value: The value given.
        low: The lower bound, or None for none.
        low_open: Whether ``low`` itself is refused (``> low`` instead of ``>= low``).
        optional: Whether None is accepted.

    Returns:
        The end of an error message (``"must be a finite number > 0"``, with ``", or None"`` when
        ``optional``), to follow the caller's name for the value; None when ``value`` is fine.

    >>> number_problem(0.0, low=0, low_open=True), number_problem(2, low=0, low_open=True)
    ('must be a finite number > 0', None)
    """
    if optional and value is None:
        return None
    result = _finite_float(value)
    or_none = ", or None" if optional else ""
    if low_open:
        return f"must be a finite number > {low:g}{or_none}" if result is None or result <= low else None
    if result is None:
        return f"must be {'a finite number' if is_number(value) else 'a number'}{or_none}"
    if low is not None and result < low:
        return f"must be >= {low:g}{or_none}"
    return None


def number_text(value: object) -> object:
    """``value`` read as a number when it is text that spells one; anything else as given.

    The one reading of a number written as text: an optimizer argument, a Cerebras ``learning_rate`` or a
    SambaFlow flag from a config (``"1e-3"``, which YAML 1.1 loaders leave a string), a CLI flag. What it gives
    is then checked by :func:`number_problem` (``number_argument(..., text=True)`` does both), so ``"1e-2x"``
    (left a string) must be a number and ``"inf"`` (read) a finite one.

    Args:
        value: The value given.

    Returns:
        ``float(value)`` for a string Python reads as a float (surrounding spaces allowed), else ``value``.

    >>> number_text("1e-3"), number_text("1e-2x"), number_text(2)
    (0.001, '1e-2x', 2)
    """
    if not isinstance(value, str):
        return value
    try:
        return float(value)
    except ValueError:
        return value


def _finite_float(value: object) -> float | None:
    """``value`` as a finite float, or None when it is no number or not finite."""
    if not is_number(value):
        return None
    try:
        result = float(value)
    except (TypeError, ValueError):
        return None
    return result if math.isfinite(result) else None


def integer_argument(
    name: str,
    value: object,
    *,
    low: int | None = None,
    text: bool = False,
    optional: bool = False,
    why: str | None = None,
) -> int | None:
    """The one check of a whole-number argument: an int (or an integral float such as ``2.0``, which YAML's
    ``1e3`` is), optionally bounded below.

    Args:
        name: The argument's name, which the error starts with.
        value: The value given.
        low: The smallest accepted value, or None.
        text: Whether a string that spells a number is read as one (:func:`number_text`: ``"1_000"``, ``"1e3"``);
            errors show the value as given.
        optional: Whether None is accepted (and returned); the error then says so.
        why: What the count means, ending the error in parentheses (``"the points run at once"``).

    Returns:
        The value as an int (None for None when ``optional``).

    Raises:
        ValueError: ``{name}={value!r} must be an integer`` (``>= {low}`` with a bound, ``, or None`` when
            ``optional``, `` ({why})`` with a reason), naming the argument.

    >>> integer_argument("T_mult", 2.0), integer_argument("epoch", 3, low=0)
    (2, 3)
    >>> integer_argument("keep", 0, low=1, optional=True, why="None keeps every one")
    Traceback (most recent call last):
    ...
    ValueError: keep=0 must be an integer >= 1, or None (None keeps every one)
    """
    if optional and value is None:
        return None
    number = number_text(value) if text else value
    problem = integer_problem(number, low=low)
    if problem is not None:
        or_none = ", or None" if optional else ""
        because = f" ({why})" if why else ""
        raise ValueError(f"{name}={value!r} {problem}{or_none}{because}")
    return int(number)


def number_flag(flag: str, *, low: float | None = None, low_open: bool = False) -> Callable[[str], float]:
    """An ``argparse`` ``type=`` for a number flag: the text read and checked as every number argument is
    (:func:`number_argument` with ``text=True``), so a command line says what a config would.

    Args:
        flag: The flag (``"--base-lr"``), which the error starts with.
        low: The lower bound, or None for none.
        low_open: Whether ``low`` itself is refused.

    Returns:
        The parse function; it raises ``argparse.ArgumentTypeError`` with the check's words.

    >>> number_flag("--ssr", low=0, low_open=True)("0.25")
    0.25
    """
    return flag_type(flag, lambda text: number_argument(flag, text, low=low, low_open=low_open, text=True))


def count_flag(flag: str, *, low: int | None = None) -> Callable[[str], int]:
    """An ``argparse`` ``type=`` for a whole-number flag, read and checked as :func:`integer_argument` does with
    ``text=True`` (``1_000`` and ``1e3`` are counts; ``2.5`` says ``must be an integer``).

    Args:
        flag: The flag (``"--width"``), which the error starts with.
        low: The smallest accepted value, or None.

    Returns:
        The parse function; it raises ``argparse.ArgumentTypeError`` with the check's words.

    >>> count_flag("--jobs", low=1)("1e3")
    1000
    """
    return flag_type(flag, lambda text: integer_argument(flag, text, low=low, text=True))


def unit_flag(flag: str) -> Callable[[str], TimeUnit]:
    """An ``argparse`` ``type=`` for a time-unit flag, read as :class:`~timeunits.TimeUnit` reads a unit (its long
    names too), so a misspelt unit gets the unit's own "did you mean" at every command.

    Args:
        flag: The flag (``"--x"``), which the error starts with.

    Returns:
        The parse function; it raises ``argparse.ArgumentTypeError`` naming the flag and the accepted units.

    >>> unit_flag("--x")("epoch")
    <TimeUnit.EPOCH: 'ep'>
    """

    def read(text: str) -> TimeUnit:
        try:
            return TimeUnit(text.strip())
        except ValueError as error:
            said = str(error).removeprefix(f"{text.strip()!r} ")  # the unit's words, after the flag's name
            raise ValueError(f"{flag}={text!r} {said}") from None

    return flag_type(flag, read)


def flag_type(flag: str, read: Callable[[str], Any]) -> Callable[[str], Any]:
    """``read`` as an ``argparse`` ``type=``: its ValueError becomes an ``ArgumentTypeError``, which argparse shows
    as written (``argument --jobs: --jobs='0' must be an integer >= 1``) instead of ``invalid value``.

    Args:
        flag: The flag, the parse function's name.
        read: The reading and check of the flag's text, raising a ValueError that names the flag.

    Returns:
        The parse function.

    >>> flag_type("--x", float)("0.5")
    0.5
    """

    def parse(text: str) -> Any:
        try:
            return read(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    parse.__name__ = flag
    return parse


def integer_problem(value: object, *, low: int | None = None) -> str | None:
    """What is wrong with ``value`` as a whole number, for readers that name a value their own way (a config key
    path); the check behind :func:`integer_argument`.

    Args:
        value: The value given: an int, a numpy or torch integer, or a float with no fraction (a bool is none).
        low: The smallest accepted value, or None.

    Returns:
        ``"must be an integer"`` (with ``" >= {low}"`` when bounded, so the message says what is accepted), or
        None when ``value`` is fine.

    >>> integer_problem(1.5, low=1), integer_problem(1e3, low=1)
    ('must be an integer >= 1', None)
    """
    wanted = "must be an integer" if low is None else f"must be an integer >= {low}"
    if isinstance(value, bool):
        return wanted
    try:
        whole = operator.index(value)
    except TypeError:
        if not (isinstance(value, float) and value.is_integer()):
            return wanted
        whole = int(value)
    return wanted if low is not None and whole < low else None


def positive_count(name: str, count: Time, given: Time) -> int:
    """A resolved period that must be at least one whole count (deviation 3: never a ZeroDivisionError).

    Args:
        name: The argument's name.
        count: The period resolved for the run (a Time of whole counts).
        given: The period as the schedule was given it, for the message.

    Returns:
        The count, an int >= 1.

    Raises:
        ValueError: The period resolves to less than one count for this run, naming the argument.

    >>> positive_count("step_size", Time(0, "ba"), Time(0.001, "dur"))
    Traceback (most recent call last):
    ...
    ValueError: step_size=0.001dur resolves to 0ba for this run: it must be at least 1ba (a longer time, or a larger
    scale_schedule_ratio)
    """
    if count.value <= 0:
        raise ValueError(
            f"{name}={given} resolves to {count} for this run: it must be at least 1{count.unit.value} "
            "(a longer time, or a larger scale_schedule_ratio)"
        )
    return count.value


def milestones_argument(name: str, value: object) -> FrozenList:
    """A list of times as a tuple of Times (immutable).

    Args:
        name: The argument's name.
        value: A list or tuple of times.

    Returns:
        The :class:`FrozenList` of Times.

    Raises:
        ValueError: Not a list, or an item that is not a time (timeunits' ``TimeParseError``), naming the
            argument or the item.

    >>> milestones_argument("milestones", ["10ba", "0.5dur"])
    (Time(10, TimeUnit.BATCH), Time(0.5, TimeUnit.DURATION))
    >>> milestones_argument("milestones", ["10ba", "soon"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    timeunits.errors.TimeParseError: milestones[1]='soon' is not a time: ...
    """
    if isinstance(value, (str, Time)) or not isinstance(value, Seq):
        raise ValueError(f"{name}={value!r} must be a list of times, e.g. ['30ep', '0.8dur']")
    return FrozenList((time_argument(f"{name}[{i}]", m) for i, m in enumerate(value)), name)


def choice_argument(name: str, value: object, choices: Iterable[str]) -> str:
    """The one check of a string argument that must be one of ``choices``.

    Args:
        name: The argument's name, which the error starts with.
        value: The value given.
        choices: The accepted values.

    Returns:
        ``value`` unchanged, once it is known to be one of ``choices``.

    Raises:
        ValueError: ``{name}={value!r}`` then :func:`choice_problem`'s words: the accepted values, and the closest of
            them when one is close.

    >>> choice_argument("mode", "max", ("min", "max"))
    'max'
    >>> choice_argument("anneal_strategy", "cosine", ("cos", "linear"))
    Traceback (most recent call last):
    ...
    ValueError: anneal_strategy='cosine' must be one of 'cos', 'linear' (did you mean 'cos'?)
    """
    problem = choice_problem(value, choices)
    if problem is not None:
        raise ValueError(f"{name}={value!r} {problem}")
    return value  # type: ignore[return-value]  (one of choices: a str)


def choice_problem(value: object, choices: Iterable[str]) -> str | None:
    """What is wrong with ``value`` as one of ``choices``, for readers that name a value their own way (a config
    key path, a command-line flag): the check behind :func:`choice_argument`, with no name.

    Args:
        value: The value given.
        choices: The accepted values.

    Returns:
        The end of an error message, ``"must be one of 'a', 'b'"`` with the one "did you mean"
        (:func:`timeunits.suggestions.did_you_mean`) when an accepted value is close; None when ``value`` is one.

    >>> choice_problem("wran", ("raise", "warn")), choice_problem("warn", ("raise", "warn"))
    ("must be one of 'raise', 'warn' (did you mean 'warn'?)", None)
    """
    accepted = tuple(choices)
    if isinstance(value, str) and value in accepted:
        return None
    hint = did_you_mean(value, accepted, quote=True) if isinstance(value, str) else ""
    return f"must be one of {', '.join(repr(c) for c in accepted)}{hint}"


def multiplier_argument(name: str, value: object, *, final: bool = False) -> float:
    """A multiplier α of the base value: a finite number >= 0 (a negative one would write a negative lr).

    Args:
        name: The argument's name, which the error and the warning start with.
        value: The value given.
        final: Whether it is the value a schedule ends at (``alpha_f``): above 1 the schedule rises, which is
            allowed with a ``UserWarning`` naming the argument.

    Returns:
        The multiplier as a float.

    Raises:
        ValueError: Not a finite number (:func:`number_argument`'s message), or a negative one.

    >>> multiplier_argument("alpha_f", 0)
    0.0
    >>> multiplier_argument("alpha_f", -0.1)
    Traceback (most recent call last):
    ...
    ValueError: alpha_f=-0.1 must be >= 0: a negative multiplier would write a negative learning rate
    """
    result = number_argument(name, value)
    if result < 0:
        raise ValueError(f"{name}={value!r} must be >= 0: a negative multiplier would write a negative learning rate")
    if final and result > 1:
        warnings.warn(
            f"{name}={value!r} > 1: the schedule ends above the base value (it rises); pass {name} <= 1 for a decay",
            UserWarning,
            stacklevel=4,
        )
    return result


def argument_repr(value: object) -> str:
    """An argument as a user writes it: times as time strings, tuples as lists, element by element.

    Args:
        value: The argument's value.

    Returns:
        Its text in a schedule's ``repr``.

    >>> argument_repr((Time(10, "ba"), Time(0.5, "dur")))
    "['10ba', '0.5dur']"
    """
    if isinstance(value, Time):
        return repr(str(value))
    if isinstance(value, (list, tuple)):
        return f"[{', '.join(argument_repr(item) for item in value)}]"
    return repr(value)


def same_value(a: object, b: object) -> bool:
    """Whether two values given for one argument are the same: by ``==``, elementwise for tensors and arrays
    (all elements equal); values that cannot be compared are the same only when they are one object.

    Args:
        a: One value.
        b: The other.

    Returns:
        True when they are equal.

    >>> import torch
    >>> same_value(torch.tensor(0.1), 0.1), same_value(torch.ones(2), torch.ones(2)), same_value(torch.ones(2), 1.5)
    (True, True, False)
    """
    if a is b:
        return True
    try:
        equal = a == b
        return bool(equal.all()) if hasattr(equal, "all") else bool(equal)
    except (TypeError, ValueError, RuntimeError):  # shapes that do not broadcast, types that refuse ==
        return False


# -- attrs fields: one argument of a frozen schedule class ------------------------------------------------


def named_converter(check: Callable[..., Any], **options: Any) -> attrs.Converter:
    """An attrs converter calling ``check(field_name, value, **options)``: errors name the field.

    Args:
        check: A check such as :func:`number_argument` (the argument's name first, then the value).
        **options: Passed on to ``check``.

    Returns:
        The converter, for ``attrs.field(converter=...)``.

    >>> @attrs.frozen
    ... class Example:
    ...     gamma: float = attrs.field(converter=named_converter(number_argument, low=0))
    >>> Example(gamma=-1)
    Traceback (most recent call last):
    ...
    ValueError: gamma=-1 must be >= 0
    """
    return attrs.Converter(lambda value, field: check(field.name, value, **options), takes_field=True)


def _optional_time_argument(name: str, value: object) -> Time | None:
    return None if value is None else time_argument(name, value)


# attrs' mypy plugin types a field's ``__init__`` parameter by its converter's first parameter, and sees only a
# named function given to ``attrs.field`` itself: so a type checker sees these three as the functions below,
# while at run time each is the named converter (its errors name the field).
if TYPE_CHECKING:

    def to_time(value: Time | str, /) -> Time:
        """A time argument: a Time or time string, kept as a Time."""

    def to_optional_time(value: Time | str | None, /) -> Time | None:
        """A time argument that may be None."""

    def to_times(value: Iterable[Time | str], /) -> FrozenList:
        """A list of times, kept as a :class:`FrozenList` of Times."""

else:
    to_time = named_converter(time_argument)
    to_optional_time = named_converter(_optional_time_argument)
    to_times = named_converter(milestones_argument)


def number_field(default: object = attrs.NOTHING, *, low: float | None = None, low_open: bool = False) -> Any:
    """Declare a number argument of a schedule class: a finite real, kept as a float, optionally bounded below.

    Args:
        default: The default, or none (the argument is required).
        low: The lower bound, or None.
        low_open: Whether ``low`` itself is refused.

    Returns:
        The attrs field (checked by :func:`number_argument`).

    >>> @attrs.frozen
    ... class Example:
    ...     gamma: float = number_field(0.1, low=0)
    >>> Example(1).gamma
    1.0
    """
    return attrs.field(default=default, converter=named_converter(number_argument, low=low, low_open=low_open))


def multiplier_field(default: object = attrs.NOTHING, *, final: bool = False) -> Any:
    """Declare a multiplier α >= 0 of the base value (a negative one would write a negative learning rate).

    Args:
        default: The default, or none (the argument is required).
        final: Whether it is the value a schedule ends at (``alpha_f``): above 1 warns that the schedule rises.

    Returns:
        The attrs field.

    >>> @attrs.frozen
    ... class Example:
    ...     alpha_f: float = multiplier_field(0.0, final=True)
    >>> Example(0.1).alpha_f
    0.1
    """
    return attrs.field(default=default, converter=named_converter(multiplier_argument, final=final))


def flag_field(default: bool = False) -> Any:
    """Declare a bool argument of a schedule class (any value is taken by its truth).

    Args:
        default: The default.

    Returns:
        The attrs field.

    >>> @attrs.frozen
    ... class Example:
    ...     scale_warmup: bool = flag_field()
    >>> Example(1).scale_warmup
    True
    """
    return attrs.field(default=default, converter=bool)


def choice_field(default: str, choices: tuple[str, ...]) -> Any:
    """Declare a string argument of a schedule class that must be one of ``choices``.

    Args:
        default: The default.
        choices: The accepted values.

    Returns:
        The attrs field (checked by :func:`choice_argument`).

    >>> @attrs.frozen
    ... class Example:
    ...     mode: str = choice_field("min", ("min", "max"))
    >>> Example("max").mode
    'max'
    """
    return attrs.field(default=default, converter=named_converter(choice_argument, choices=choices))
