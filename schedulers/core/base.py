"""The schedule base class: resolve times once per run, then evaluate a closed form per step."""

from __future__ import annotations

import inspect
import warnings
from typing import Any, Callable

from schedulers.core.resolution import RunContext, check_ssr, same_unit
from timeunits import Time, Timestamp, TimeUnit

__all__ = ["Curve", "FunctionSchedule", "Schedule", "as_schedule"]

_UNSET = object()


class Curve:
    """A schedule resolved for one run: the multiplier as a closed form of the count ``x`` in ``unit``.

    ``curve(x)`` takes a number (the per-step path) or a float64 tensor of counts (whole-run evaluation,
    traceable by ``torch.compile(fullgraph=True)``). ``times`` maps each time argument to its resolved count.
    """

    __slots__ = ("unit", "fn", "times")

    def __init__(self, unit: TimeUnit, fn: Callable[[Any], Any], times: dict[str, Time]) -> None:
        self.unit = unit
        self.fn = fn
        self.times = times

    def __call__(self, x):
        return self.fn(x)

    def __repr__(self) -> str:
        times = ", ".join(f"{name}={time}" for name, time in self.times.items())
        return f"Curve(unit={self.unit.value}, {times})"


class Schedule:
    """Base class of Cadence's time-aware schedules: ``schedule(state, ssr=1.0) -> float``.

    A subclass keeps its constructor arguments as attributes of the same names and implements
    :meth:`_resolve`, which turns its times into counts for one run (via :class:`RunContext`) and returns a
    :class:`Curve`. Resolution happens once per ``(max_duration, dataloader_len, ssr)`` and again only when
    one of them changes, so a step costs one closed-form evaluation.
    """

    _seen_max_duration: object = _UNSET
    _seen_dataloader_len: object = _UNSET
    _seen_ssr: object = _UNSET
    _resolved_key: object = _UNSET

    def __setattr__(self, name: str, value: object) -> None:
        object.__setattr__(self, name, value)
        if not name.startswith("_"):
            object.__setattr__(self, "_resolved_key", _UNSET)  # an argument changed: resolve again
            object.__setattr__(self, "_seen_ssr", _UNSET)

    def __call__(self, state, ssr: float = 1.0) -> float:
        """The multiplier α of the base value at ``state.timestamp``."""
        if (
            state.max_duration is not self._seen_max_duration
            or state.dataloader_len is not self._seen_dataloader_len
            or ssr != self._seen_ssr
        ):
            self._refresh(state.max_duration, state.dataloader_len, ssr)
        return self._fn(self._count(state.timestamp))

    def _refresh(self, max_duration: object, dataloader_len: object, ssr: object) -> None:
        run = RunContext(max_duration, dataloader_len, check_ssr(ssr))
        if run.key() != self._resolved_key:
            curve = self._resolve(run)
            self._fn = curve.fn
            self._count = Timestamp.counter(curve.unit)
            self._resolved_key = run.key()
        # remember the objects themselves: the next step then checks identity, not value
        self._seen_max_duration, self._seen_dataloader_len, self._seen_ssr = max_duration, dataloader_len, ssr

    def resolve(self, max_duration: Time | str, dataloader_len: int | Time | None = None, ssr: float = 1.0) -> Curve:
        """This schedule resolved for a run: a :class:`Curve` of the count in one unit.

        >>> from schedulers import CosineAnnealingWithWarmupScheduler
        >>> curve = CosineAnnealingWithWarmupScheduler(t_warmup="0.1dur").resolve("100ba")
        >>> curve.times["t_warmup"], curve(5), curve(10)
        (Time(10, TimeUnit.BATCH), 0.5, 1.0)
        """
        return self._resolve(RunContext(max_duration, dataloader_len, ssr))

    def _resolve(self, run: RunContext) -> Curve:
        raise NotImplementedError(f"{type(self).__name__} must implement _resolve(run) -> Curve")

    def to_config(self, *, include_defaults: bool = True) -> dict:
        """This schedule as ``{ClassName: {argument: value}}``; YAML round-trips it (docs/schedules.md)."""
        from schedulers.tools.serialization import schedule_to_config  # serialization imports this module

        return schedule_to_config(self, include_defaults=include_defaults)

    @classmethod
    def from_config(cls, config: dict | str) -> Schedule:
        """The schedule a ``{Name: {argument: value}}`` config describes (on a subclass: of that class)."""
        from schedulers.tools.serialization import schedule_from_config

        return schedule_from_config(config, expected=None if cls is Schedule else cls)

    def _resolve_times(
        self, run: RunContext, given: dict[str, Time], unscaled: tuple[str, ...] = ()
    ) -> dict[str, Time]:
        """Resolve ``given`` times (those named in ``unscaled`` without ssr) and check they share one unit."""
        resolved = {name: run.count(name, time, scale=name not in unscaled) for name, time in given.items()}
        for name, time in given.items():
            if time.value < 0:
                raise ValueError(f"{name}={time} is negative: a time in a schedule must be >= 0")
        if resolved:
            same_unit({name: (given[name], resolved[name]) for name in given})
        return resolved

    def _arguments(self, *names: str) -> dict[str, Time]:
        """The time attributes ``names`` of this schedule, by name."""
        return {name: getattr(self, name) for name in names}

    def _warn_once(self, key: str, message: str) -> None:
        warned = self.__dict__.setdefault("_warned", set())
        if key not in warned:
            warned.add(key)
            warnings.warn(message, UserWarning, stacklevel=4)

    def __repr__(self) -> str:
        arguments = [
            f"{name}={_argument_repr(self.__dict__[name])}"
            for name in inspect.signature(type(self).__init__).parameters
            if name != "self" and name in self.__dict__
        ]
        return f"{type(self).__name__}({', '.join(arguments)})"


def _argument_repr(value: object) -> str:
    """Arguments as a user writes them: times as time strings, lists element by element."""
    if isinstance(value, Time):
        return repr(str(value))
    if isinstance(value, list):
        return f"[{', '.join(_argument_repr(item) for item in value)}]"
    return repr(value)


class FunctionSchedule(Schedule):
    """A schedule from a plain function of the state, ``fn(state) -> float`` (see :func:`as_schedule`).

    It has no closed form: it is called on every step, cannot apply a scale schedule ratio other than 1,
    and whole-run evaluation steps a state through the run to read it.
    """

    def __init__(self, fn: Callable[[Any], float]) -> None:
        if not callable(fn):
            raise TypeError(f"as_schedule() needs a callable fn(state) -> float, got {fn!r}")
        self.fn = fn

    def __call__(self, state, ssr: float = 1.0) -> float:
        if ssr != 1.0:
            raise ValueError(
                f"{self.fn!r} is a function of the state only, so it cannot apply scale_schedule_ratio={ssr}; "
                "write the schedule as a Cadence schedule (times in ba/ep/dur) to scale it"
            )
        return self.fn(state)

    def _resolve(self, run: RunContext) -> Curve:
        raise TypeError(f"{self.fn!r} is a function of the state: it has no closed form to resolve")

    def __repr__(self) -> str:
        return f"as_schedule({self.fn!r})"


def as_schedule(fn: Callable[[Any], float]) -> FunctionSchedule:
    """Wrap a one-parameter function of the state as a Cadence schedule (for the trainer and compile).

    >>> from schedulers import SchedulerState
    >>> half_after_ten = as_schedule(lambda state: 0.5 if state.timestamp.batch >= 10 else 1.0)
    >>> half_after_ten(SchedulerState("20ba"))
    1.0
    """
    return FunctionSchedule(fn)
