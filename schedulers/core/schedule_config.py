"""Config round-trips: a schedule as ``{Name: {arguments}}`` and back, and the one check of a call's
arguments against its signature.

A schedule as a plain config and back: ``{ClassName: {argument: value, ...}}``, YAML- and JSON-safe.

A schedule class is a frozen attrs class, so its arguments are its fields (:func:`attrs.fields`): the config
writes each in constructor order, times as time strings, nested schedules as nested configs.

Reading the layout happens once, here: :func:`read_schedule_config` looks each name up in the registry
(:func:`schedulers.core.names.get_scheduler`), checks the arguments against the signature
(:func:`schedulers.core.schedule_config.call_problem`) and reads nested items, without building anything; the
:class:`ScheduleSpec` it returns builds the schedule, or the scheduler on an optimizer. ``Schedule.from_config``,
the trainer's ``trainer.init.schedulers`` (docs/trainer-config.md) and the SambaFlow flags all read through it.
``Schedule.to_config()``/``Schedule.from_config()`` are this module's :func:`schedule_to_config` and
:func:`schedule_from_config` (docs/schedules.md, "Saving a schedule"). A schedule *is* its class plus its config:
:func:`schedules_equal` compares exactly that.

This module does not import the schedule base class: :class:`Configurable` is the base class of
:class:`~schedulers.core.schedule.Schedule` that gives it ``to_config``/``from_config``, and what is a schedule here
is what is :class:`Configurable`.

A call checked against its signature before it is made: the one check of the keyword arguments a config
gives a class or function (a schedule, a scheduler built on an optimizer, a model or data factory).

A mistake is an :class:`ArgumentProblem`: the argument it is about (``None`` when it is about the call as a
whole) and one message, so a misspelt argument reads the same wherever a config names a callable, in Python's
own words with the closest accepted name (:func:`schedulers.core.names.did_you_mean`) and the signature:

>>> def make_model(in_features: int = 4, out_features: int = 1) -> None: ...
>>> print(call_problem(make_model, {"in_feature": 3}, name="make_model").message)
make_model got an unexpected keyword argument 'in_feature' (did you mean 'in_features'?); accepted:
make_model(in_features=4, out_features=1)
>>> call_problem(make_model, {"in_features": 3}, name="make_model") is None
True
"""

from __future__ import annotations

import enum
import inspect
import math
import numbers
import operator
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

import attrs

from schedulers.core.names import UnknownSchedulerError, did_you_mean, get_scheduler, registered_schedulers
from timeunits import Time

__all__ = [
    "CHILD_ARGUMENTS",
    "Configurable",
    "Kind",
    "ScheduleConfigError",
    "ScheduleNotSerializableError",
    "ScheduleSpec",
    "kind_of",
    "name_and_arguments",
    "read_schedule_config",
    "schedule_from_config",
    "schedule_to_config",
    "schedules_equal",
    "ArgumentProblem",
    "call_problem",
    "nonfinite_argument",
    "signature_of",
    "signature_text",
    "unknown_name_message",
]


_NAMED = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


@attrs.frozen
class ArgumentProblem:
    """What is wrong with a call's arguments: ``argument`` (the keyword it is about, or None for the call as a
    whole, e.g. a missing argument) and ``message`` (one line, without a key path).

    Args:
        argument: the keyword argument at fault, or None.
        message: what is wrong and what is accepted.

    Returns:
        The problem, for the caller to raise with its key path.

    Example:
        >>> ArgumentProblem("gama", "StepScheduler got an unexpected keyword argument 'gama'").argument
        'gama'
    """

    argument: str | None
    message: str


def signature_of(target: Callable[..., Any]) -> inspect.Signature | None:
    """``inspect.signature(target)``, or None for a callable that has none (some builtins).

    Args:
        target: a class or function.

    Returns:
        Its signature (a class: its constructor's, ``self`` left out), or None when Python cannot read one,
        so a caller that shows or checks parameters can skip the check instead of failing.

    Example:
        >>> str(signature_of(lambda x, y=1: None))
        '(x, y=1)'
    """
    try:
        return inspect.signature(target)
    except (TypeError, ValueError):
        return None


def signature_text(name: str, target: Callable[..., Any], *, hidden: Collection[str] = ()) -> str:
    """``Name(a, b=1, *, c=None)``: how ``target`` is called, without annotations, ``self`` or the ``hidden``
    parameters (those Cadence fills in itself, such as a Cerebras scheduler's ``state``).

    Args:
        name: the name to show (a registry name, or ``module:function`` as the config wrote it).
        target: the class or function.
        hidden: parameter names left out.

    Returns:
        The call's text; ``Name(...)`` when ``target`` has no signature.

    Example:
        >>> def scheduler(optimizer, total_iters, gamma=0.5, *, state=None): ...
        >>> signature_text("StepLR", scheduler, hidden=("state",))
        'StepLR(optimizer, total_iters, gamma=0.5)'
    """
    signature = signature_of(target)
    if signature is None:
        return f"{name}(...)"
    parts, star = [], False
    for parameter in signature.parameters.values():
        if parameter.name == "self" or (parameter.name in hidden and parameter.kind is not parameter.VAR_KEYWORD):
            continue
        if parameter.kind is parameter.VAR_POSITIONAL:
            parts.append(f"*{parameter.name}")
            star = True
        elif parameter.kind is parameter.VAR_KEYWORD:
            parts.append(f"**{parameter.name}")
        else:
            if parameter.kind is parameter.KEYWORD_ONLY and not star:
                parts.append("*")
                star = True
            default = parameter.default
            parts.append(parameter.name if default is parameter.empty else f"{parameter.name}={default!r}")
    return f"{name}({', '.join(parts)})"


def call_problem(
    target: Callable[..., Any],
    arguments: Mapping[Any, Any],
    *,
    name: str,
    leading: int = 0,
    filled: Mapping[str, str] | None = None,
    later: Collection[str] = (),
    positional: int = 0,
) -> ArgumentProblem | None:
    """What is wrong with calling ``target(<leading positional values>, **arguments)``, or None when it binds.

    Checked in this order: argument names that are not strings; an argument Cadence fills in itself
    (``filled``: name -> what fills it); more positional values than ``target`` takes; the first argument
    ``target`` does not take (with the closest name it takes); an argument given both by position and by name;
    then every required argument not given (``later`` names are given by the caller afterwards). Every door
    (YAML, ``--set``, ``Schedule.from_config``, schedule expressions) checks here: one mistake, one message.

    Args:
        target: the class or function to be called.
        arguments: the keyword arguments a config gives.
        name: how messages name ``target``.
        leading: how many leading positional parameters the caller passes itself (1: an optimizer).
        filled: parameters the caller fills in, which a config must not give, with what fills them.
        later: required parameters the caller supplies when the config does not.
        positional: how many values the text itself gives by position, after the ``leading`` ones (a schedule
            expression's ``cosine_with_warmup('500ba')``).

    Returns:
        The first :class:`ArgumentProblem`, or None.

    Example:
        >>> def step(step_size, gamma=0.1): ...
        >>> call_problem(step, {"gamma": 0.5}, name="StepScheduler").message
        "StepScheduler is missing required argument 'step_size'; accepted: StepScheduler(step_size, gamma=0.1)"
        >>> call_problem(step, {"step_size": "5ba"}, name="StepScheduler", positional=1).message
        "StepScheduler got multiple values for argument 'step_size'; accepted: StepScheduler(step_size, gamma=0.1)"
    """
    signature = signature_of(target)
    if signature is None:
        return None
    filled = dict(filled or {})
    passed, named, required, takes_any = _parameters(signature, leading, filled)
    for key in arguments:
        if not isinstance(key, str):
            return ArgumentProblem(None, f"argument names must be strings, got {key!r}")
        if key in filled or key in passed:
            return ArgumentProblem(key, f"is filled in by Cadence ({filled.get(key, 'the call')}); remove it")
    by_position, extra = _by_position(signature, leading, positional) if positional else ([], False)
    unexpected = None if takes_any else next((key for key in arguments if key not in named), None)
    repeated = next((key for key in arguments if key in by_position), None) if by_position else None
    missing = [key for key in required if key not in arguments and key not in later and key not in by_position]
    if unexpected is None and repeated is None and not missing and not extra:
        return None
    accepted = signature_text(name, target, hidden=[key for key in filled if key not in passed])
    if extra:
        given = f"{len(by_position)} positional argument{'s' * (len(by_position) != 1)} but {positional} were given"
        return ArgumentProblem(None, f"{name} takes {given}; accepted: {accepted}")
    return _keyword_problem(name, accepted, unexpected, named, repeated, missing)


def _keyword_problem(
    name: str, accepted: str, unexpected: str | None, named: list[str], repeated: str | None, missing: list[str]
) -> ArgumentProblem:
    """The problem of a call whose keywords do not bind: the first unexpected one (with the closest name it
    takes), then one given by position too, then the required ones missing."""
    if unexpected is not None:
        hint = did_you_mean(unexpected, named, n=1, quote=True)
        return ArgumentProblem(
            unexpected, f"{name} got an unexpected keyword argument {unexpected!r}{hint}; accepted: {accepted}"
        )
    if repeated is not None:
        return ArgumentProblem(repeated, f"{name} got multiple values for argument {repeated!r}; accepted: {accepted}")
    listed = f"argument{'s' * (len(missing) > 1)} {', '.join(map(repr, missing))}"
    return ArgumentProblem(None, f"{name} is missing required {listed}; accepted: {accepted}")


def _by_position(signature: inspect.Signature, leading: int, positional: int) -> tuple[list[str], bool]:
    """The parameters the ``positional`` values after the ``leading`` ones fill, and whether values are left
    over (more than the signature takes by position, without ``*args``)."""
    slots = [p for p in signature.parameters.values() if p.name != "self" and p.kind in _POSITIONAL][leading:]
    takes_rest = any(p.kind is p.VAR_POSITIONAL for p in signature.parameters.values())
    return [p.name for p in slots[:positional]], positional > len(slots) and not takes_rest


def unknown_name_message(reason: str, schedule_names: Iterable[str]) -> str:
    """The one message for a name that is not registered, whichever door read it (YAML, ``--set``,
    ``Schedule.from_config``, a schedule expression): the registry's reason (with its close names), then the
    schedule names every door takes, then where every registered name is listed.

    Args:
        reason: :attr:`UnknownSchedulerError.reason <schedulers.core.names.UnknownSchedulerError>`, e.g.
            ``"unknown schedule 'cosinne' (did you mean cosine?)"``.
        schedule_names: the full names of the registered Cadence schedule classes.

    Returns:
        The message, without a location prefix.

    Example:
        >>> unknown_name_message("unknown schedule 'stepp' (did you mean step?)", ["LinearScheduler", "StepScheduler"])
        "unknown schedule 'stepp' (did you mean step?); schedule names: LinearScheduler, StepScheduler (every \
registered name: schedulers.registered_schedulers())"
    """
    names = ", ".join(sorted(schedule_names))
    return f"{reason}; schedule names: {names} (every registered name: schedulers.registered_schedulers())"


def _parameters(
    signature: inspect.Signature, leading: int, filled: Mapping[str, str]
) -> tuple[set[str], list[str], list[str], bool]:
    """``(passed, named, required, takes_any)``: the leading positional parameters the caller passes, the
    parameters a config may give by name, the required ones a config must give, and whether ``**kwargs``
    takes any name."""
    passed: set[str] = set()
    named: list[str] = []
    required: list[str] = []
    takes_any = False
    for parameter in signature.parameters.values():
        if parameter.name == "self" or parameter.kind is parameter.VAR_POSITIONAL:
            continue
        if parameter.kind is parameter.VAR_KEYWORD:
            takes_any = True
        elif parameter.kind in _POSITIONAL and len(passed) < leading:
            passed.add(parameter.name)
        elif parameter.name not in filled:
            if parameter.kind in _NAMED:
                named.append(parameter.name)
            if parameter.default is parameter.empty:
                required.append(parameter.name)
    return passed, named, required, takes_any


def nonfinite_argument(arguments: Mapping[Any, Any]) -> ArgumentProblem | None:
    """The first value of ``arguments`` that is a float nan or inf (YAML ``.nan``, ``.inf``), as a problem: read
    as a time it would make nonsense such as ``nanep``, so a config's reader rejects it before anything reads it.

    Args:
        arguments: a mapping of a config (a schedule's arguments, a section of the trainer's config).

    Returns:
        The :class:`ArgumentProblem` of the first non-finite value, or None.

    Example:
        >>> nonfinite_argument({"t_warmup": float("nan")})
        ArgumentProblem(argument='t_warmup', message='nan is not a number (YAML .nan/.inf): give a finite value')
    """
    for key, item in arguments.items():
        if isinstance(item, float) and not math.isfinite(item):
            return ArgumentProblem(str(key), f"{item} is not a number (YAML .nan/.inf): give a finite value")
    return None


class ScheduleNotSerializableError(TypeError, ValueError):
    """A schedule (or one of its arguments) that has no config: a function of the state, an unregistered
    class, or an argument value that is not a time, number, bool, string, None, list or schedule.

    Args:
        *args: the message, naming the schedule or the argument and why it has no config.

    Returns:
        The error (a ``TypeError`` and a ``ValueError``), raised by :func:`schedule_to_config`.

    Example:
        >>> from schedulers import as_schedule
        >>> try:
        ...     schedule_to_config(as_schedule(lambda state: 1.0))
        ... except ScheduleNotSerializableError as error:
        ...     print(type(error).__mro__[1].__name__, "is a function of the state" in str(error))
        TypeError True
    """


class ScheduleConfigError(ValueError):
    """A config that does not describe a schedule; ``key_path`` says where (``Sequence.schedules[1].cosine``).

    Args:
        key_path: where the mistake is, prefixed to the message (``""``: the config as a whole).
        message: what is wrong and what is accepted.

    Returns:
        The error (a ``ValueError``), raised when a config (``Schedule.from_config``, the trainer's YAML, the
        CLI) does not describe a schedule; ``.key_path`` and ``.message`` keep its two parts.

    Example:
        >>> error = ScheduleConfigError("cosine.t_mx", "CosineAnnealingScheduler got an unexpected keyword argument")
        >>> error.key_path, str(error).split(":")[0]
        ('cosine.t_mx', 'cosine.t_mx')
        >>> from schedulers import Schedule
        >>> try:
        ...     Schedule.from_config({"cosine": {"t_mx": "10ba"}})
        ... except ScheduleConfigError as error:
        ...     print(error.key_path)
        cosine.t_mx
    """

    def __init__(self, key_path: str, message: str) -> None:
        super().__init__(f"{key_path}: {message}" if key_path else message)
        self.key_path = key_path
        self.message = message

    def __reduce__(self) -> tuple:
        return type(self), (self.key_path, self.message)


class Configurable:
    """What makes a schedule writable as a config: ``to_config()`` and ``from_config()``; the base class of
    :class:`~schedulers.core.schedule.Schedule`.

    A class whose instances have no config says why in ``_no_config`` (completing "<schedule> ...").

    Returns:
        A schedule (through its subclasses) that :meth:`to_config` writes and :meth:`from_config` reads.

    Example:
        >>> from schedulers import Schedule, StepScheduler
        >>> StepScheduler.from_config({"step": {"step_size": "10ba"}}).to_config(include_defaults=False)
        {'StepScheduler': {'step_size': '10ba'}}
    """

    _no_config: str | None = None

    def to_config(self, *, include_defaults: bool = True) -> dict:
        """This schedule as ``{ClassName: {argument: value}}``; YAML round-trips it (docs/schedules.md).

        Args:
            include_defaults: False writes only the arguments that differ from their defaults.

        Returns:
            The config (see :func:`schedule_to_config`).

        Raises:
            ScheduleNotSerializableError: the schedule, or an argument, has no config.

        Example:
            >>> from schedulers import CosineAnnealingScheduler
            >>> CosineAnnealingScheduler(alpha_f=0.1).to_config(include_defaults=False)
            {'CosineAnnealingScheduler': {'alpha_f': 0.1}}
        """
        return schedule_to_config(self, include_defaults=include_defaults)

    @classmethod
    def from_config(cls, config: dict | str) -> Configurable:
        """The schedule a ``{Name: {argument: value}}`` config describes (on a subclass: of that class).

        Args:
            config: the config, or a bare name (see :func:`schedule_from_config`).

        Returns:
            A new schedule built from the config; on a subclass, an instance of that class (a config naming
            another class is refused).

        Raises:
            ScheduleConfigError: a mistake in the config (its key path first), or a schedule of another class.

        Example:
            >>> from schedulers import Schedule
            >>> Schedule.from_config({"cosine_with_warmup": {"t_warmup": "0.3dur"}})
            CosineAnnealingWithWarmupScheduler(t_warmup='0.3dur', t_max='1.0dur', alpha_f=0.0, scale_warmup=False)
        """
        any_schedule = Configurable in cls.__bases__  # called on Schedule itself
        return schedule_from_config(config, expected=None if any_schedule else cls)


# -- schedule -> config -------------------------------------------------------------------------------


def schedule_to_config(schedule: Configurable, *, include_defaults: bool = True) -> dict[str, dict[str, Any]]:
    """``{ClassName: {argument: value, ...}}`` for ``schedule``; nested schedules become nested configs.

    Arguments are in the constructor's order. Times are written as time strings; numbers and bools as plain
    Python values (numpy scalars and 0-d tensors too); tuples as lists; so the result survives
    ``yaml.safe_dump``/``yaml.safe_load`` and JSON unchanged. With ``include_defaults=False`` only the
    arguments whose value differs from the constructor's default are written.

    Args:
        schedule: a registered Cadence schedule.
        include_defaults: False writes only the arguments that differ from their defaults (required ones always).

    Returns:
        A new dict of one key, the class name, mapping to the arguments written as plain YAML/JSON values;
        :func:`schedule_from_config` reads it back to an equal schedule.

    Raises:
        ScheduleNotSerializableError: a function of the state, an unregistered class, or an argument with no
            config form.

    Example:
    >>> from schedulers import MultiStepScheduler, Warmup
    >>> schedule_to_config(Warmup(MultiStepScheduler(["30ep", "0.8dur"]), "2ep"), include_defaults=False)
    {'Warmup': {'schedule': {'MultiStepScheduler': {'milestones': ['30ep', '0.8dur']}}, 't_warmup': '2ep'}}
    """
    path = type(schedule).__name__ if isinstance(schedule, Configurable) else "schedule"
    return _to_config(schedule, path, include_defaults)


def _to_config(schedule: object, path: str, include_defaults: bool) -> dict[str, dict[str, Any]]:
    if not isinstance(schedule, Configurable):
        raise ScheduleNotSerializableError(
            f"{path}: {schedule!r} of type {type(schedule).__name__} is not a Cadence schedule (a schedulers.Schedule)"
        )
    if schedule._no_config is not None:
        raise ScheduleNotSerializableError(f"{path}: {schedule!r} {schedule._no_config}")
    cls = type(schedule)
    _check_registered(cls, path)
    arguments: dict[str, Any] = {}
    for field in attrs.fields(cls) if attrs.has(cls) else ():
        if not field.init:
            continue
        value = _to_value(getattr(schedule, field.name), f"{path}.{field.alias}", include_defaults)
        if include_defaults or not _is_default(value, field.default):
            arguments[field.alias] = value
    return {cls.__name__: arguments}


def _check_registered(cls: type, path: str) -> None:
    try:
        registered = get_scheduler(cls.__name__)
    except UnknownSchedulerError:
        registered = None
    if registered is not cls:
        where = (
            "is not registered"
            if registered is None
            else f"is not the class registered under that name ({registered!r})"
        )
        raise ScheduleNotSerializableError(
            f"{path}: {cls.__module__}.{cls.__qualname__} {where}, so a config naming it could not be built again; "
            "decorate the class with @schedulers.register_scheduler"
        )


def _to_value(value: object, path: str, include_defaults: bool) -> Any:
    if isinstance(value, Time):
        return value.to_timestring()
    if isinstance(value, Configurable):
        return _to_config(value, f"{path}.{type(value).__name__}", include_defaults)
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_to_value(item, f"{path}[{i}]", include_defaults) for i, item in enumerate(value)]
    if isinstance(value, float):
        return float(value)  # a float subclass (numpy.float64) as a plain float
    if isinstance(value, int):
        return int(value)
    number = _plain_number(value)
    if number is not None:
        return number
    raise ScheduleNotSerializableError(
        f"{path}={value!r} of type {type(value).__name__} has no config form: a config holds times, numbers, "
        "bools, strings, None, lists and schedules"
    )


def _plain_number(value: object) -> bool | int | float | None:
    """A numpy scalar or 0-d tensor as a plain bool, int or float; None for anything else."""
    if getattr(value, "ndim", None) == 0 and str(getattr(value, "dtype", "")) in ("bool", "torch.bool"):
        return bool(value)
    if isinstance(value, numbers.Number) or getattr(value, "ndim", None) == 0:
        try:
            return operator.index(value)
        except TypeError:
            pass
        try:
            return float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            pass
    return None


def _is_default(value: Any, default: object) -> bool:
    """Whether the written ``value`` equals the written form of the field's ``default`` (none: never)."""
    if default is attrs.NOTHING or isinstance(default, attrs.Factory):  # type: ignore[arg-type]
        return False
    if isinstance(value, str) and isinstance(default, (str, Time)):
        try:
            return Time.from_input(default).to_timestring() == value or default == value
        except (TypeError, ValueError):
            return default == value
    if isinstance(value, bool) or isinstance(default, bool):
        return type(value) is type(default) and value == default
    if isinstance(value, float) and isinstance(default, (int, float)):
        return value == default and math.copysign(1.0, value) == math.copysign(1.0, default)
    try:
        return value == _to_value(default, "default", True)
    except ScheduleNotSerializableError:
        return False


# -- config -> schedule: the one reader of the {Name: {arguments}} layout ------------------------------------

# The arguments whose values are child configs even as bare names (``Warmup.schedule: cosine``,
# ``SequentialLR.schedulers: [...]``); a mapping is a child config in any argument.
CHILD_ARGUMENTS = ("schedule", "schedules", "scheduler", "schedulers")


# What a scheduler built on an optimizer gets from whoever builds it, never from its config.
_FILLED = {"optimizer": "the optimizer it is built on", "state": "the run's state"}


class Kind(enum.Enum):
    """How a named class or function is built: alone into a Cadence schedule, on an optimizer into a torch
    scheduler (Cerebras classes, SambaFlow functions, ``torch.optim.lr_scheduler`` classes), or from schedulers
    built on an optimizer (Cerebras ``ChainedLR``, torch ``ChainedScheduler``).

    Args:
        value: The kind's description (``Kind("a Cadence schedule")`` is ``Kind.SCHEDULE``).

    Returns:
        One of the three kinds; :func:`kind_of` tells a target's.

    Example:
        >>> from schedulers import CosineAnnealingScheduler
        >>> kind_of(CosineAnnealingScheduler), Kind.SCHEDULE.on_optimizer
        (<Kind.SCHEDULE: 'a Cadence schedule'>, False)
    """

    SCHEDULE = "a Cadence schedule"
    ON_OPTIMIZER = "a scheduler built on an optimizer"
    OF_SCHEDULERS = "a scheduler made of schedulers built on an optimizer"

    @property
    def on_optimizer(self) -> bool:
        """Whether this kind is built on an optimizer (itself, or through the schedulers it is made of)."""
        return self is not Kind.SCHEDULE


def kind_of(target: object) -> Kind | None:
    """How ``target`` is built (its :class:`Kind`), or None when it cannot be named in a config.

    A :class:`Configurable` class is a Cadence schedule; a callable whose first positional parameter is
    ``optimizer`` is built on an optimizer; one whose first is ``schedulers`` (or ``scheduler``) is made of such
    schedulers; any other callable is a function returning a Cadence schedule.

    Args:
        target: a class or function.

    Returns:
        Its kind, or None for a non-callable (or a callable without a signature).

    Example:
        >>> import torch
        >>> kind_of(torch.optim.lr_scheduler.StepLR).name, kind_of(torch.optim.lr_scheduler.ChainedScheduler).name
        ('ON_OPTIMIZER', 'OF_SCHEDULERS')
    """
    if inspect.isclass(target) and issubclass(target, Configurable):
        return Kind.SCHEDULE
    signature = signature_of(target) if callable(target) else None
    if signature is None:
        return None
    positional = [p.name for p in signature.parameters.values() if p.kind in _POSITIONAL and p.name != "self"]
    first = positional[0] if positional else None
    if first == "optimizer":
        return Kind.ON_OPTIMIZER
    if first in ("schedulers", "scheduler"):
        return Kind.OF_SCHEDULERS
    return Kind.SCHEDULE


@attrs.frozen(eq=False)
class ScheduleSpec:
    """One ``{Name: {arguments}}`` item, read and checked but not built: :meth:`build` makes it.

    Args:
        path: The key path of its name (``trainer.init.schedulers[0].SequentialLR``).
        name: How messages name it.
        target: The class or function.
        kind: Its :class:`Kind`.
        arguments: The checked keyword arguments (child items as specs, or lists of them).
        options: What a top-level item gave next to its name (the trainer's ``hyperparameter`` and
            ``param_group_tags``).

    Returns:
        The frozen item; :func:`read_schedule_config` makes it.

    Example:
        >>> spec = read_schedule_config({"Warmup": {"schedule": "cosine", "t_warmup": "2ba"}})
        >>> spec.path, spec.arguments["schedule"].path
        ('Warmup', 'Warmup.schedule.cosine')
        >>> spec.build()
        Warmup(schedule=CosineAnnealingScheduler(t_max='1.0dur', alpha_f=0.0), t_warmup='2ba', scale_warmup=False)
    """

    path: str
    name: str
    target: Callable[..., Any]
    kind: Kind
    arguments: dict[str, Any]
    options: dict[str, Any] = attrs.field(factory=dict)

    def nested(self) -> list[ScheduleSpec]:
        """This item and every item inside it, outermost first.

        Returns:
            The specs, this one first.

        Example:
            >>> spec = read_schedule_config({"Sequence": {"schedules": ["linear", "cosine"], "milestones": ["1ba"]}})
            >>> [item.name for item in spec.nested()]
            ['Sequence', 'LinearScheduler', 'CosineAnnealingScheduler']
        """
        found = [self]
        for value in self.arguments.values():
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, ScheduleSpec):
                    found += item.nested()
        return found

    def supplied(self, **arguments: Any) -> ScheduleSpec:
        """This item with more arguments (those its reader was told are supplied later).

        Args:
            **arguments: the arguments to add.

        Returns:
            A new spec.

        Example:
            >>> spec = read_schedule_config({"cosine_schedule_with_warmup": {"num_warmup_steps": 2}},
            ...                             expected=None, supplied_later=("num_training_steps",))
            >>> spec.supplied(num_training_steps=10).arguments
            {'num_warmup_steps': 2, 'num_training_steps': 10}
        """
        return attrs.evolve(self, arguments={**self.arguments, **arguments})

    def build(self, optimizer: Any = None) -> Any:
        """The schedule (or the scheduler on ``optimizer``) this item describes, its children built first.

        Args:
            optimizer: the optimizer a scheduler built on an optimizer gets (unused by a Cadence schedule).

        Returns:
            A Cadence schedule, or a torch ``LRScheduler``.

        Raises:
            ScheduleConfigError: the constructor rejected an argument (the key path names it when the message
                does, ``StepScheduler.gamma``), or built something of another kind.

        Example:
            >>> read_schedule_config({"step": {"step_size": "5ba", "gamma": -1}}).build()
            Traceback (most recent call last):
            ...
            schedulers.core.schedule_config.ScheduleConfigError: step.gamma: gamma=-1 must be >= 0
        """
        kwargs = {key: _built(value, optimizer) for key, value in self.arguments.items()}
        try:
            if self.kind is Kind.ON_OPTIMIZER:
                made = self.target(optimizer, **kwargs)
            else:
                made = self.target(**kwargs)
        except ScheduleConfigError:
            raise
        except (TypeError, ValueError) as error:
            text = str(error)
            message = text[len(self.name) + 2 :] if text.startswith(f"{self.name}: ") else text
            raise ScheduleConfigError(_argument_path(self.path, message, self.arguments), message) from None
        _check_made(self, made)
        return made


def _built(value: Any, optimizer: Any) -> Any:
    """An argument for the constructor: items built, lists and mappings fresh (a constructor may keep and change
    them; the config stays as written), objects as given (a schedule passed in a config is used as it is)."""
    if isinstance(value, ScheduleSpec):
        return value.build(optimizer)
    if isinstance(value, (list, tuple)):
        return type(value)(_built(item, optimizer) for item in value)
    if isinstance(value, dict):
        return {key: _built(item, optimizer) for key, item in value.items()}
    return value


def _check_made(spec: ScheduleSpec, made: object) -> None:
    if spec.kind is Kind.SCHEDULE:
        if not (isinstance(made, Configurable) or callable(made)):
            raise ScheduleConfigError(spec.path, f"{spec.name} returned {type(made).__name__}, not a schedule")
        return
    from torch.optim.lr_scheduler import LRScheduler  # only a scheduler built on an optimizer needs torch

    if not isinstance(made, LRScheduler):
        raise ScheduleConfigError(spec.path, f"{spec.name} returned {type(made).__name__}, not a torch LRScheduler")


def read_schedule_config(
    config: Mapping[str, Any] | str,
    key_path: str = "",
    *,
    expected: Kind | None = Kind.SCHEDULE,
    import_object: Callable[[str, str], Any] | None = None,
    options: tuple[str, ...] = (),
    supplied_later: tuple[str, ...] = (),
) -> ScheduleSpec:
    """Read one ``{Name: {arguments}}`` item (or a bare ``"Name"``) and everything nested in it, without
    building anything: names looked up, arguments checked against the signatures, children read in turn.

    This is the one reader of the layout: :func:`schedule_from_config` (``Schedule.from_config``), the trainer's
    ``trainer.init.schedulers`` and the SambaFlow flags all read through it, so one mistake has one message.
    A child item is an argument's mapping, or a name string in a ``schedule``, ``schedules``, ``scheduler`` or
    ``schedulers`` argument (also as list items). The children of a Cadence schedule are Cadence schedules; those
    of a scheduler built on an optimizer are built on the same optimizer.

    Args:
        config: the item.
        key_path: the key path of the item, which every message starts with (``trainer.init.schedulers[0]``).
        expected: the kind the item must be (:attr:`Kind.ON_OPTIMIZER` accepts both kinds built on an
            optimizer), or None for any; a name is looked up among the registered entries of that kind.
        import_object: reads a ``module:Class`` name (``(name, key path) -> object``); None: names are registry
            names only.
        options: keys a top-level item may give next to its name (kept in :attr:`ScheduleSpec.options`).
        supplied_later: required arguments of a scheduler built on an optimizer that the caller supplies with
            :meth:`ScheduleSpec.supplied` when the config does not give them.

    Returns:
        The checked :class:`ScheduleSpec`.

    Raises:
        ScheduleConfigError: the message starts with the key path of the mistake.

    Example:
        >>> read_schedule_config({"cosine": {"alpha_ff": 0.1}}, "schedulers[0]")
        Traceback (most recent call last):
        ...
        schedulers.core.schedule_config.ScheduleConfigError: schedulers[0].cosine.alpha_ff: CosineAnnealingScheduler
        got an unexpected keyword argument 'alpha_ff' (did you mean 'alpha_f'?); accepted:
        CosineAnnealingScheduler(t_max='1dur', alpha_f=0.0)
    """
    rules = _Rules(import_object, options, supplied_later)
    return _read(config, key_path, expected, None, rules, top=True)


@attrs.frozen
class _Rules:
    """What one reading allows beyond registry names (see :func:`read_schedule_config`)."""

    import_object: Callable[[str, str], Any] | None
    options: tuple[str, ...]
    supplied_later: tuple[str, ...]


def _read(
    config: object, path: str, expected: Kind | None, parent: str | None, rules: _Rules, *, top: bool
) -> ScheduleSpec:
    name, arguments, options = _name_and_arguments(config, path, rules.options)
    if options and not top:
        raise ScheduleConfigError(_join(path, next(iter(options))), f"only a top-level item takes {', '.join(options)}")
    path = _join(path, name)
    target = _target(name, path, expected, parent, rules)
    kind = kind_of(target)
    if kind is None:
        raise ScheduleConfigError(path, f"{name} is not a schedule class or a function (optimizer -> scheduler)")
    shown = name if ":" in name else getattr(target, "__name__", name)
    mismatch = _mismatch(kind, expected, repr(name), target, parent)
    if mismatch is not None:
        raise ScheduleConfigError(path, mismatch)
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise ScheduleConfigError(
            path, f"the arguments of {shown} must be a mapping {{argument: value}}, got {arguments!r}"
        )
    problem = nonfinite_argument(arguments) or call_problem(
        target,
        arguments,
        name=shown,
        leading=1 if kind is Kind.ON_OPTIMIZER else 0,
        filled=_FILLED if kind.on_optimizer else None,
        later=rules.supplied_later if kind is Kind.ON_OPTIMIZER else (),
    )
    if problem is not None:
        raise ScheduleConfigError(_join(path, problem.argument) if problem.argument else path, problem.message)
    inner = Kind.ON_OPTIMIZER if kind.on_optimizer else Kind.SCHEDULE
    read = {key: _argument(key, value, _join(path, key), inner, shown, rules) for key, value in arguments.items()}
    return ScheduleSpec(path, shown, target, kind, read, options)


def _name_and_arguments(config: object, path: str, options: tuple[str, ...]) -> tuple[str, object, dict]:
    """``(name, arguments, options)`` of a ``{Name: arguments, <option>: value}`` mapping or a bare name."""
    if isinstance(config, str):
        return config, None, {}
    if not isinstance(config, Mapping):
        raise ScheduleConfigError(
            path,
            "a schedule config is {Name: {arguments}} or a schedule name, "
            f"got {config!r} of type {type(config).__name__}",
        )
    given = {key: config[key] for key in options if key in config}
    names = [key for key in config if key not in given]
    if len(names) != 1:
        found = ", ".join(repr(key) for key in names) or "none"
        extra = f", plus optional {', '.join(options)}" if options else ""
        raise ScheduleConfigError(
            path,
            f"a schedule config is a one-key mapping {{Name: {{arguments}}}} (one key, the schedule's name{extra}); "
            f"found {found}",
        )
    (name,) = names
    if not isinstance(name, str):
        raise ScheduleConfigError(path, f"a schedule name must be a string, got {name!r}")
    return name, config[name], given


def name_and_arguments(config: object, options: tuple[str, ...] = ()) -> tuple[str, object, dict] | None:
    """The name, arguments and options of an item of the layout, or None when it is not one (for a reader that
    looks for items before they are checked, such as the SambaFlow flags).

    Args:
        config: a candidate item.
        options: the keys an item may give next to its name.

    Returns:
        ``(name, arguments, options)``, or None.

    Example:
        >>> name_and_arguments({"fixed_lr": None, "hyperparameter": "lr"}, ("hyperparameter",))
        ('fixed_lr', None, {'hyperparameter': 'lr'})
    """
    try:
        return _name_and_arguments(config, "", options)
    except ScheduleConfigError:
        return None


def _target(name: str, path: str, expected: Kind | None, parent: str | None, rules: _Rules) -> Any:
    """The object ``name`` names: ``module:Class`` through ``rules.import_object``, else the registry's entry of
    the ``expected`` kind (an entry of another kind is a mismatch, not an unknown name)."""
    if ":" in name and rules.import_object is not None:
        return rules.import_object(name, path)
    where = None if expected is None else (lambda cls: _kind_fits(kind_of(cls), expected))
    try:
        return get_scheduler(name, where=where)
    except UnknownSchedulerError as error:
        unknown = error
    if expected is not None:
        try:
            found = get_scheduler(name)
        except UnknownSchedulerError:
            found = None
        mismatch = None if found is None else _mismatch(kind_of(found), expected, repr(name), found, parent)
        if mismatch is not None:
            raise ScheduleConfigError(path, mismatch)
    raise ScheduleConfigError(path, unknown_name_message(unknown.reason, _schedule_names()))


def _kind_fits(kind: Kind | None, expected: Kind) -> bool:
    return kind is not None and kind.on_optimizer == expected.on_optimizer


def _mismatch(kind: Kind | None, expected: Kind | None, name: str, target: Any, parent: str | None) -> str | None:
    """Why an item of ``kind`` cannot stand where ``expected`` is wanted (inside ``parent``), or None."""
    if kind is None or expected is None or _kind_fits(kind, expected):
        return None
    if expected is Kind.SCHEDULE:
        inside = f"{parent} composes Cadence schedules; " if parent else ""
        return (
            f"{name} names {target.__module__}.{target.__qualname__}, which is not a Cadence schedule (a "
            f"schedulers.Schedule class): it is built on an optimizer; {inside}use a Composer or Cadence schedule name"
        )
    return (
        f"{parent} composes schedulers built on the optimizer (Cerebras classes); {name} is a Cadence schedule: "
        "put it at the top level"
    )


def _argument(key: str, value: object, path: str, kind: Kind, parent: str, rules: _Rules) -> Any:
    """An argument's value with its child items read (a mapping anywhere; a name in a child argument)."""
    names_children = key in CHILD_ARGUMENTS

    def is_item(item: object) -> bool:
        return isinstance(item, Mapping) or (names_children and isinstance(item, str))

    if is_item(value):
        return _read(value, path, kind, parent, rules, top=False)
    if isinstance(value, (list, tuple)) and any(is_item(item) for item in value):
        return [
            _read(item, f"{path}[{i}]", kind, parent, rules, top=False) if is_item(item) else item
            for i, item in enumerate(value)
        ]
    return value


def schedule_from_config(
    config: Mapping[str, Any] | str | Configurable, *, key_path: str = "", expected: type | None = None
) -> Configurable:
    """The schedule a config describes: the inverse of :func:`schedule_to_config`.

    ``config`` is ``{Name: {argument: value, ...}}`` (``{Name: None}`` or a bare ``"Name"`` for all defaults);
    ``Name`` is anything the registry resolves to a Cadence schedule class (a full class name, an alias,
    any case). Values are passed to the constructor as they are, except nested configs (read as
    :func:`read_schedule_config` reads them). A schedule given in place of a config is returned as it is.

    Args:
        config: the config, or a schedule.
        key_path: prefixed to every message's key path (e.g. ``"trainer.init.schedulers[0]"``).
        expected: a class the result must be an instance of (``StepScheduler.from_config``).

    Returns:
        A new schedule built from the config (or ``config`` itself when it already is a schedule).

    Raises:
        ScheduleConfigError: a ``ValueError`` whose message starts with the key path of the mistake.

    Example:
        >>> schedule_from_config({"Sequence": {"schedules": ["linear", {"cosine": {"t_mx": "1dur"}}],
        ...                                    "milestones": ["0.1dur"]}})
        Traceback (most recent call last):
        ...
        schedulers.core.schedule_config.ScheduleConfigError: Sequence.schedules[1].cosine.t_mx: CosineAnnealingScheduler
        got an unexpected keyword argument 't_mx' (did you mean 't_max'?); accepted:
        CosineAnnealingScheduler(t_max='1dur', alpha_f=0.0)
    """
    schedule = config if isinstance(config, Configurable) else read_schedule_config(config, key_path).build()
    if expected is not None and not isinstance(schedule, expected):
        name = next(iter(config)) if isinstance(config, Mapping) and len(config) == 1 else None
        raise ScheduleConfigError(
            _join(key_path, name) if isinstance(name, str) else key_path,
            f"builds a {type(schedule).__name__}, not a {expected.__name__}",
        )
    return schedule


def schedules_equal(a: object, b: object) -> bool:
    """Whether two schedules are the same schedule: the same class and the same :func:`schedule_to_config`.

    For Cadence's frozen attrs schedule classes it agrees with ``==``.

    Args:
        a: A schedule.
        b: Another schedule.

    Returns:
        True when both are of one class and their configs are equal (arguments written differently but meaning
        the same time, ``"1dur"`` and ``"1.0dur"``, compare equal).

    Raises:
        ScheduleNotSerializableError: A schedule of a class the config cannot write.

    >>> from schedulers import CosineAnnealingScheduler
    >>> schedules_equal(CosineAnnealingScheduler("1dur"), CosineAnnealingScheduler(t_max="1.0dur"))
    True
    """
    if type(a) is not type(b):
        return False
    return schedule_to_config(a) == schedule_to_config(b)  # type: ignore[arg-type]


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _is_schedule_class(cls: object) -> bool:
    return inspect.isclass(cls) and issubclass(cls, Configurable)


def _schedule_names() -> list[str]:
    """The full names of the registered Cadence schedule classes (aliases work too, but are not listed)."""
    return sorted({cls.__name__ for cls in registered_schedulers(where=_is_schedule_class).values()})


_ARGUMENT_IN_MESSAGE = re.compile(r"^([A-Za-z_]\w*)((?:\[\d+\])*)=")


def _argument_path(path: str, message: str, arguments: Mapping[str, Any]) -> str:
    """Extend ``path`` by the argument a constructor's message starts with (``gamma=-1.0 must be ...``)."""
    match = _ARGUMENT_IN_MESSAGE.match(message)
    if not match or match.group(1) not in arguments:
        return path
    name, index = match.groups()
    if index and not isinstance(arguments[name], (list, tuple)):
        index = ""  # the constructor wrapped a single value in a list
    return _join(path, name + index)
