"""A schedule as a plain config and back: ``{ClassName: {argument: value, ...}}``, YAML- and JSON-safe.

A schedule class is a frozen attrs class, so its arguments are its fields (:func:`attrs.fields`): the config
writes each in constructor order, times as time strings, nested schedules as nested configs. Reading a config
looks the name up in the registry (:func:`schedulers.core.registry.get_scheduler`) and calls the class.
:mod:`schedulers.tools.serialization` is the public face of this module (docs/schedules.md, "Saving a schedule").

This module does not import the schedule base class: :class:`Configurable` is the base class of
:class:`~schedulers.core.base.Schedule` that gives it ``to_config``/``from_config``, and what is a schedule here
is what is :class:`Configurable`.
"""

from __future__ import annotations

import inspect
import math
import numbers
import operator
import re
from collections.abc import Mapping
from typing import Any

import attrs

from schedulers.core.names import did_you_mean
from schedulers.core.registry import UnknownSchedulerError, get_scheduler, registered_schedulers
from timeunits import Time

__all__ = [
    "Configurable",
    "ScheduleConfigError",
    "ScheduleNotSerializableError",
    "schedule_from_config",
    "schedule_to_config",
]

# argument names whose string values are schedule names (as in the trainer's YAML), not plain strings
_CHILD_ARGUMENTS = ("schedule", "schedules")


class ScheduleNotSerializableError(TypeError, ValueError):
    """A schedule (or one of its arguments) that has no config: a function of the state, an unregistered
    class, or an argument value that is not a time, number, bool, string, None, list or schedule."""


class ScheduleConfigError(ValueError):
    """A config that does not describe a schedule; ``key_path`` says where (``Sequence.schedules[1].cosine``)."""

    def __init__(self, key_path: str, message: str) -> None:
        super().__init__(f"{key_path}: {message}" if key_path else message)
        self.key_path = key_path
        self.message = message

    def __reduce__(self):
        return type(self), (self.key_path, self.message)


class Configurable:
    """What makes a schedule writable as a config: ``to_config()`` and ``from_config()``.

    A class whose instances have no config says why in ``_no_config`` (completing "<schedule> ...").
    """

    _no_config: str | None = None

    def to_config(self, *, include_defaults: bool = True) -> dict:
        """This schedule as ``{ClassName: {argument: value}}``; YAML round-trips it (docs/schedules.md)."""
        return schedule_to_config(self, include_defaults=include_defaults)

    @classmethod
    def from_config(cls, config: dict | str) -> Configurable:
        """The schedule a ``{Name: {argument: value}}`` config describes (on a subclass: of that class)."""
        any_schedule = Configurable in cls.__bases__  # called on Schedule itself
        return schedule_from_config(config, expected=None if any_schedule else cls)


# -- schedule -> config -------------------------------------------------------------------------------


def schedule_to_config(schedule: Configurable, *, include_defaults: bool = True) -> dict[str, dict[str, Any]]:
    """``{ClassName: {argument: value, ...}}`` for ``schedule``; nested schedules become nested configs.

    Arguments are in the constructor's order. Times are written as time strings; numbers and bools as plain
    Python values (numpy scalars and 0-d tensors too); tuples as lists; so the result survives
    ``yaml.safe_dump``/``yaml.safe_load`` and JSON unchanged. With ``include_defaults=False`` only the
    arguments whose value differs from the constructor's default are written.

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


# -- config -> schedule ------------------------------------------------------------------------------


def schedule_from_config(
    config: Mapping[str, Any] | str | Configurable, *, key_path: str = "", expected: type | None = None
) -> Configurable:
    """The schedule a config describes: the inverse of :func:`schedule_to_config`.

    ``config`` is ``{Name: {argument: value, ...}}`` (``{Name: None}`` or a bare ``"Name"`` for all defaults);
    ``Name`` is anything the registry resolves to a Cadence schedule class (a full class name, an alias,
    any case). Values are passed to the constructor as they are, except nested configs: a mapping
    anywhere among the arguments, and a name string in a ``schedule``/``schedules`` argument, is built as a
    schedule. A schedule given in place of a config is returned as it is.
    ``expected`` (a class) requires the result to be an instance of it (``StepScheduler.from_config``).

    Every problem is a :class:`ScheduleConfigError` (a ``ValueError``) whose message starts with the key path,
    prefixed by ``key_path`` (e.g. ``"trainer.init.schedulers[0]"``):

    >>> schedule_from_config({"Sequence": {"schedules": ["linear", {"cosine": {"t_mx": "1dur"}}],
    ...                                    "milestones": ["0.1dur"]}})
    Traceback (most recent call last):
    ...
    schedulers.core.config.ScheduleConfigError: Sequence.schedules[1].cosine.t_mx: CosineAnnealingScheduler has
    no argument 't_mx' (did you mean 't_max'?); its arguments: t_max='1dur', alpha_f=0.0
    """
    schedule = _from_config(config, key_path)
    if expected is not None and not isinstance(schedule, expected):
        name = next(iter(config)) if isinstance(config, Mapping) and len(config) == 1 else None
        raise ScheduleConfigError(
            _join(key_path, name) if isinstance(name, str) else key_path,
            f"builds a {type(schedule).__name__}, not a {expected.__name__}",
        )
    return schedule


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _from_config(config: object, path: str) -> Configurable:
    if isinstance(config, Configurable):
        return config
    name, arguments = _name_and_arguments(config, path)
    path = _join(path, name)
    cls = _schedule_class(name, path)
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise ScheduleConfigError(
            path, f"the arguments of {cls.__name__} must be a mapping {{argument: value}}, got {arguments!r}"
        )
    kwargs = _keyword_arguments(cls, arguments, path)
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as error:
        if isinstance(error, ScheduleConfigError):
            raise
        raise ScheduleConfigError(_argument_path(path, str(error), arguments), str(error)) from None


def _name_and_arguments(config: object, path: str) -> tuple[str, object]:
    """``(name, arguments)`` of a ``{Name: arguments}`` mapping or a bare name string."""
    if isinstance(config, str):
        return config, None
    if not isinstance(config, Mapping):
        raise ScheduleConfigError(
            path,
            "a schedule config is {Name: {arguments}} or a schedule name, "
            f"got {config!r} of type {type(config).__name__}",
        )
    if len(config) != 1:
        found = ", ".join(repr(key) for key in config) or "none"
        raise ScheduleConfigError(
            path,
            "a schedule config is a mapping with one key, the schedule's name ({Name: {arguments}}); "
            f"found {found}",
        )
    ((name, arguments),) = config.items()
    if not isinstance(name, str):
        raise ScheduleConfigError(path, f"a schedule name must be a string, got {name!r}")
    return name, arguments


def _keyword_arguments(cls: type, arguments: Mapping[Any, Any], path: str) -> dict[str, Any]:
    """The constructor's keyword arguments, nested configs built; unknown or missing names are errors."""
    signature = inspect.signature(cls)
    parameters = signature.parameters
    takes_any = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    kwargs: dict[str, Any] = {}
    for key, value in arguments.items():
        if not isinstance(key, str):
            raise ScheduleConfigError(path, f"argument names must be strings, got {key!r}")
        if key not in parameters and not takes_any:
            hint = did_you_mean(key, parameters, n=1, quote=True)
            raise ScheduleConfigError(
                _join(path, key),
                f"{cls.__name__} has no argument {key!r}{hint}; its arguments: {_describe(parameters)}",
            )
        kwargs[key] = _argument(key, value, _join(path, key))
    try:
        signature.bind(**kwargs)
    except TypeError as error:
        missing = [
            p.name
            for p in parameters.values()
            if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name not in kwargs
        ]
        detail = f"missing required argument {', '.join(map(repr, missing))}" if missing else str(error)
        raise ScheduleConfigError(path, f"{detail}; {cls.__name__} arguments: {_describe(parameters)}") from None
    return kwargs


def _argument(key: str, value: object, path: str) -> Any:
    """An argument value with nested schedule configs built."""
    if isinstance(value, Mapping) or (key in _CHILD_ARGUMENTS and isinstance(value, str)):
        return _from_config(value, path)
    if isinstance(value, (list, tuple)):
        child = key in _CHILD_ARGUMENTS
        return [
            _from_config(item, f"{path}[{i}]")
            if isinstance(item, Mapping) or (child and isinstance(item, str))
            else item
            for i, item in enumerate(value)
        ]
    return value


def _schedule_class(name: str, path: str) -> type:
    """The Cadence schedule class registered as ``name``, or a ScheduleConfigError at ``path``."""
    try:
        return get_scheduler(name, where=_is_schedule_class)  # among schedule classes only
    except UnknownSchedulerError as error:
        unknown = error
    try:
        cls = get_scheduler(name)
    except UnknownSchedulerError:
        raise ScheduleConfigError(path, f"{unknown.reason}; schedule names: {', '.join(_schedule_names())}") from None
    raise ScheduleConfigError(
        path,
        f"{name!r} names {cls.__module__}.{cls.__qualname__}, which is not a Cadence schedule (a "
        "schedulers.Schedule class): it is built on an optimizer, so it has no schedule config; use a Composer "
        "or Cadence schedule name",
    )


def _is_schedule_class(cls: object) -> bool:
    return inspect.isclass(cls) and issubclass(cls, Configurable)


def _schedule_names() -> list[str]:
    """The full names of the registered Cadence schedule classes (aliases work too, but are not listed)."""
    return sorted({cls.__name__ for cls in registered_schedulers(where=_is_schedule_class).values()})


def _describe(parameters: Mapping[str, inspect.Parameter]) -> str:
    shown = []
    for p in parameters.values():
        if p.kind is p.VAR_KEYWORD:
            shown.append(f"**{p.name}")
        elif p.kind is not p.VAR_POSITIONAL:
            shown.append(p.name if p.default is p.empty else f"{p.name}={p.default!r}")
    return ", ".join(shown) or "none"


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
