"""The schedule base class: resolve times once per run, then evaluate a closed form per step.

Schedules are immutable values: every schedule class is a frozen attrs class (``@attrs.frozen``), so equality,
hashing and repr follow its arguments, and a changed schedule is a new one, ``attrs.evolve(schedule, gamma=0.1)``.
What a schedule resolved for a run is cached on the instance beside its fields (not a field: not part of
equality, hash or repr), so a step costs one closed-form evaluation.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, ClassVar

import attrs

from schedulers.core.arguments import FrozenScheduleError, evolve_hint
from schedulers.core.config import Configurable
from schedulers.core.resolution import RunContext, check_ssr, same_unit
from schedulers.core.state import ScheduleState
from timeunits import Time, Timestamp, TimeUnit

__all__ = ["Curve", "FrozenScheduleError", "FunctionSchedule", "Schedule", "as_schedule"]

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


class Schedule(Configurable):
    """Base class of Cadence's time-aware schedules: ``schedule(state, ssr=1.0) -> float``.

    A subclass is a frozen attrs class whose fields are its constructor arguments, and implements
    :meth:`_resolve`, which turns its times into counts for one run (via :class:`RunContext`) and returns a
    :class:`Curve`. Resolution happens once per ``(max_duration, dataloader_len, ssr)`` and again only when
    one of them changes, so a step costs one closed-form evaluation.
    """

    # the resolution cache: instance entries written with object.__setattr__, never fields
    _seen_max_duration: ClassVar[object] = _UNSET
    _seen_dataloader_len: ClassVar[object] = _UNSET
    _seen_ssr: ClassVar[object] = _UNSET
    _resolved_key: ClassVar[object] = _UNSET

    @classmethod
    def __attrs_init_subclass__(cls) -> None:
        """Each attrs subclass must be frozen; setting its attributes then says how to change a schedule."""
        if not attrs.inspect(cls).is_frozen:
            raise TypeError(
                f"{cls.__qualname__} is a mutable attrs class, but Cadence schedules are immutable values: "
                "decorate it with @attrs.frozen (attrs.define(frozen=True))"
            )
        cls.__setattr__ = _frozen_setattr  # type: ignore[method-assign]
        cls.__delattr__ = _frozen_delattr  # type: ignore[method-assign]

    def __setattr__(self, name: str, value: object) -> None:  # reached only by classes that are not attrs
        raise FrozenScheduleError(
            f"{type(self).__qualname__} is a plain class, but Cadence schedules are immutable values: decorate it "
            f"with @attrs.frozen and declare {name} as a field (`{name}: <type>` in the class body) instead of "
            f"setting self.{name} (docs/schedules.md, 'Your own schedule')"
        )

    def __delattr__(self, name: str) -> None:
        self.__setattr__(name, None)

    def __call__(self, state: ScheduleState, ssr: float = 1.0) -> float:
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
        cache = self.__dict__  # not fields: written beside them, past the frozen __setattr__
        if run.key() != cache.get("_resolved_key", _UNSET):
            curve = self._resolve(run)
            cache.update(_fn=curve.fn, _count=Timestamp.counter(curve.unit), _resolved_key=run.key())
        # remember the objects themselves: the next step then checks identity, not value
        cache.update(_seen_max_duration=max_duration, _seen_dataloader_len=dataloader_len, _seen_ssr=ssr)

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


def _frozen_setattr(self: Schedule, name: str, value: object) -> None:
    raise FrozenScheduleError(f"cannot set {name} of {type(self).__qualname__}: {evolve_hint(name, value)}")


def _frozen_delattr(self: Schedule, name: str) -> None:
    raise FrozenScheduleError(f"cannot delete {name} of {type(self).__qualname__}: {evolve_hint(name)}")


@attrs.frozen
class FunctionSchedule(Schedule):
    """A schedule from a plain function of the state, ``fn(state) -> float`` (see :func:`as_schedule`).

    It has no closed form: it is called on every step, cannot apply a scale schedule ratio other than 1,
    and whole-run evaluation steps a state through the run to read it. Two are equal when their functions are.
    """

    fn: Callable[[ScheduleState], float] = attrs.field()
    _no_config: ClassVar[str] = (
        "is a function of the state (as_schedule), which has no config; write it as a Cadence schedule class "
        "(register it with @register_scheduler) to save it as a config"
    )

    @fn.validator
    def _check(self, attribute: attrs.Attribute, fn: object) -> None:
        if not callable(fn):
            raise TypeError(f"as_schedule() needs a callable fn(state) -> float, got {fn!r}")

    def __call__(self, state: ScheduleState, ssr: float = 1.0) -> float:
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


def as_schedule(fn: Callable[[ScheduleState], float]) -> FunctionSchedule:
    """Wrap a one-parameter function of the state as a Cadence schedule (for the trainer and compile).

    >>> from schedulers import SchedulerState
    >>> half_after_ten = as_schedule(lambda state: 0.5 if state.timestamp.batch >= 10 else 1.0)
    >>> half_after_ten(SchedulerState("20ba"))
    1.0
    """
    return FunctionSchedule(fn)
