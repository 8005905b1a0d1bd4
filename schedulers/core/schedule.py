"""Schedules: the base class every schedule is, and the one rule of what a callable handed to Cadence is.

The schedule base class: resolve times once per run, then evaluate a closed form per step.

Schedules are immutable values: every schedule class is a frozen attrs class (``@attrs.frozen``), so equality,
hashing and repr follow its arguments, and a changed schedule is a new one, ``attrs.evolve(schedule, gamma=0.1)``.
What a schedule resolved for a run is cached on the instance beside its fields (not a field: not part of
equality, hash or repr), keyed by what a curve depends on (:attr:`~schedulers.core.run.Run.resolution_key`),
so a schedule resolves once per run and a step costs one closed-form evaluation.

The one rule that says what a callable is: a schedule, a state function, or a scheduler factory.

Cadence accepts three kinds of callables, and everything that takes one (``compile_scheduler``, the
trainer's ``schedulers=``) decides with :func:`callable_kind`:

* a **schedule** ``(state, ssr) -> α``: a :class:`schedulers.Schedule`, or a callable with exactly two
  positional parameters (``def f(state, ssr=1.0)``, ``lambda s, r: ...``), or ``*args`` and at most two
  required ones. A callable whose signature cannot be read (a builtin) is taken to follow this, the
  documented protocol;
* a **one-argument** callable ``f(x)`` (any other callable that takes one positional argument, e.g.
  ``def f(optimizer, gamma=0.5, last_epoch=-1)``): what ``x`` is depends on the caller. ``compile_scheduler`` reads it
  as a function of the state (it works when ``ssr`` is 1); the trainer reads it as a factory
  ``optimizer -> LRScheduler`` (Cerebras style), so a function of the state given to the trainer must be
  wrapped with :func:`schedulers.as_schedule`. A class (``functools.partial`` of one included) is one too;
* anything else is **not a schedule** (a callable needing three positional arguments, a non-callable).

>>> from schedulers import LinearScheduler
>>> callable_kind(LinearScheduler()), callable_kind(lambda state, ssr=1.0: 1.0), callable_kind(lambda x: x)
(<CallableKind.SCHEDULE: 'schedule'>, <CallableKind.SCHEDULE: 'schedule'>, <CallableKind.ONE_ARGUMENT: 'one-argument'>)
"""

from __future__ import annotations

import enum
import functools
import inspect
import math
import operator
import warnings
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

import attrs

from schedulers.core.run import Run, StateLike, as_run, same_unit
from schedulers.core.schedule_arguments import FrozenScheduleError, evolve_hint
from schedulers.core.schedule_config import Configurable
from timeunits import Time, Timestamp, TimeUnit

__all__ = [
    "Curve",
    "FrozenScheduleError",
    "FunctionSchedule",
    "Schedule",
    "as_schedule",
    "fraction_curve",
    "CallableKind",
    "callable_kind",
]


_UNSET = object()
S = TypeVar("S", bound="Schedule")


# how many runs' curves one schedule keeps (a plot of a few ratios, a report beside the run; the oldest goes)
_CURVES_KEPT = 16


@attrs.frozen(eq=False, repr=False)  # a curve holds a function: it is equal only to itself, as any function
class Curve:
    """A schedule resolved for one run: the multiplier as a closed form of the count ``x`` in ``unit``.

    ``curve(x)`` takes a number (the per-step path) or a float64 tensor of counts (whole-run evaluation,
    traceable by ``torch.compile(fullgraph=True)``).

    Args:
        unit: The unit the curve counts in (``ba``, ``sp`` or ``tok``).
        fn: The closed form, ``x -> α``, for a float or a tensor ``x``.
        times: Each time argument (by name) resolved to its count.
        plateaus: The plateaus inside, each placed where it is in use
            (:class:`~schedulers.core.plateau.PlacedPlateau`);
            empty for a schedule that only follows time.
        origins: For a time counted on a clock that starts later (a ``Sequence`` child's, from its segment's
            start), by name, the count of this curve where that clock starts; a time not named here is counted
            from this curve's 0. Where a time acts in the run is ``times[name].value + origins.get(name, 0)``.

    Returns:
        The curve; calling it returns ``fn(x)``.

    >>> from schedulers import LinearScheduler
    >>> curve = LinearScheduler().resolve("100ba")
    >>> curve, curve(25)
    (Curve(unit=ba, t_max=100ba), 0.75)
    """

    unit: TimeUnit
    fn: Callable[[Any], Any]
    times: dict[str, Time]
    plateaus: tuple = ()
    origins: dict[str, int] = attrs.field(factory=dict)

    def __call__(self, x: Any) -> Any:
        """The multiplier α at count ``x`` (in :attr:`unit`): ``fn(x)``.

        Args:
            x: The count since the run's start, a number or a float64 tensor of counts.

        Returns:
            α at ``x``: a float for a number, a tensor of the same shape for a tensor.
        """
        return self.fn(x)

    def __repr__(self) -> str:
        times = ", ".join(f"{name}={time}" for name, time in self.times.items())
        return f"Curve(unit={self.unit.value}, {times})"


class Schedule(Configurable):
    """Base class of Cadence's time-aware schedules: ``schedule(state, ssr=1.0) -> float``.

    A subclass is a frozen attrs class whose fields are its constructor arguments, and implements
    :meth:`_resolve`, which turns its times into counts for one :class:`~schedulers.core.run.Run` (with
    ``run.count(name, time)``) and returns a :class:`Curve`. A schedule resolves once per run (:meth:`curve`),
    so a step costs one closed-form evaluation (docs/schedules.md, "Your own schedule").

    Args:
        (a subclass's fields): its arguments, each checked when the schedule is built.

    Returns:
        Called as ``schedule(state, ssr=1.0)``: the multiplier α of the base value at ``state.timestamp``.

    Raises:
        ValueError: On a call, a bad ``ssr`` or run on the state, or the schedule's checks for that run.

    >>> from schedulers import SchedulerState, StepScheduler
    >>> StepScheduler("10ba", gamma=0.5)(SchedulerState("100ba", Timestamp(batch=25)))
    0.25
    """

    # the schedule-call protocol's memo of the last run it read: instance entries beside the fields, never fields
    _seen_max_duration: ClassVar[object] = _UNSET
    _seen_dataloader_len: ClassVar[object] = _UNSET
    _seen_ssr: ClassVar[object] = _UNSET

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

    def __call__(self, state: StateLike, ssr: float = 1.0) -> float:
        """The multiplier α of the base value at ``state.timestamp`` (the schedule-call protocol).

        ``state.max_duration`` is the length the run trains, already scaled (Composer's protocol), and ``ssr``
        the ratio its times are scaled by: the run is :meth:`Run.of_state(state, ssr)
        <schedulers.core.run.Run.of_state>`, resolved once and again only when one of them changes.

        Args:
            state: What the schedule reads: ``.timestamp``, ``.max_duration`` and ``.dataloader_len``.
            ssr: The scale schedule ratio the schedule's times are scaled by.

        Returns:
            α at ``state.timestamp``, the factor the base value (the optimizer's initial lr) is multiplied by.
        """
        if (
            state.max_duration is not self._seen_max_duration
            or state.dataloader_len is not self._seen_dataloader_len
            or ssr != self._seen_ssr
        ):
            self._refresh(state.max_duration, state.dataloader_len, ssr, state.timestamp)
        return self._fn(self._count(state.timestamp))

    def _refresh(self, max_duration: object, dataloader_len: object, ssr: object, timestamp: object) -> None:
        curve = self.curve(Run(max_duration, dataloader_len, ssr=ssr, scaled=True))  # the protocol: already scaled
        count = Timestamp.counter(curve.unit)
        if not isinstance(timestamp, Timestamp):  # another library's (Composer's): its counts are times with a .value
            count = operator.attrgetter(f"{curve.unit.name.lower()}.value")  # docs/migrating-composer.md
        # not fields: written beside them, past the frozen __setattr__; the objects themselves are remembered,
        # so the next step checks identity, not value
        _beside_fields(
            self,
            _fn=curve.fn,
            _count=count,
            _seen_max_duration=max_duration,
            _seen_dataloader_len=dataloader_len,
            _seen_ssr=ssr,
        )

    def curve(self, run: Run) -> Curve:
        """This schedule's curve for ``run``, resolved once per run (every later call returns the same Curve).

        The trainer, :func:`~schedulers.compile_scheduler`, :func:`~schedulers.evaluate_run`, the plots and the
        report all take a schedule's curve from here, so one run resolves each schedule once. The cache is keyed
        by :attr:`Run.resolution_key <schedulers.core.run.Run.resolution_key>`; a schedule is frozen, so a
        cached curve never goes stale.

        Args:
            run: The run (see :class:`~schedulers.core.run.Run` for what its parts mean).

        Returns:
            The :class:`Curve` of this schedule on ``run``: ``curve(x)`` is α at count ``x`` in ``curve.unit``.

        Raises:
            ValueError: The schedule's own checks for this run (a period that resolves to 0, a ``t_max`` short of
                the run, times in two units, ...), naming the argument.
            MissingDataloaderLenError: A time in epochs without ``dataloader_len``.
            TypeError: A schedule without a closed form (:class:`FunctionSchedule`).

        >>> from schedulers import CosineAnnealingScheduler
        >>> from schedulers.core.run import Run
        >>> cosine, run = CosineAnnealingScheduler(), Run("100ba", ssr=0.5)
        >>> cosine.curve(run).times["t_max"], cosine.curve(run) is cosine.curve(Run("100ba", ssr=0.5))
        (Time(50, TimeUnit.BATCH), True)
        """
        curves = getattr(self, "_curves", None)
        if curves is None:
            curves = {}
            _beside_fields(self, _curves=curves)
        key = run.resolution_key
        curve = curves.get(key)
        if curve is None:
            curve = self._resolve(run)
            if len(curves) >= _CURVES_KEPT:
                del curves[next(iter(curves))]
            curves[key] = curve
        return curve

    def bind(self, run: Run) -> Callable[[StateLike], float]:
        """α as a function of a state whose clock runs ``run`` (the trainer's path): ``state -> α(state.timestamp)``.

        The curve is resolved once, now (:meth:`curve`); the function reads only ``state.timestamp``. A schedule
        class that defines its own ``__call__`` is called as written, with ``run.ssr``.

        Args:
            run: The run the state's clock counts.

        Returns:
            A function of the state.

        Raises:
            The errors of :meth:`curve`.

        >>> from schedulers import LinearScheduler, SchedulerState
        >>> from schedulers.core.run import Run
        >>> alpha = LinearScheduler().bind(Run("100ba", ssr=0.5))
        >>> alpha(SchedulerState("50ba", Timestamp(batch=25)))
        0.5
        """
        if type(self).__call__ is not Schedule.__call__:
            ssr = run.ssr
            return lambda state: self(state, ssr)
        curve = self.curve(run)
        return _of_timestamp(curve.fn, curve.unit)

    def resolve(
        self, max_duration: Time | str | Run, dataloader_len: int | Time | None = None, ssr: float = 1.0
    ) -> Curve:
        """This schedule resolved for a run, anew: a :class:`Curve` of the count in one unit.

        ``(max_duration, dataloader_len, ssr)`` mean what they mean to the trainer: ``max_duration`` as written,
        scaled by ``ssr`` into the length the run trains (``resolve("100ba", ssr=0.5)`` is the run
        ``Trainer(max_duration="100ba", scale_schedule_ratio=0.5)`` trains, 50 batches). A
        :class:`~schedulers.core.run.Run` may be given instead; :meth:`Run.of_state
        <schedulers.core.run.Run.of_state>` is the run a state reads in the schedule-call protocol.
        Unlike :meth:`curve`, every call resolves (and checks, and warns) again.

        Args:
            max_duration: The run's length as written, or a Run.
            dataloader_len: Batches per epoch (without a Run).
            ssr: The scale schedule ratio (without a Run).

        Returns:
            The :class:`Curve`: ``curve(x)`` is α at count ``x``; ``curve.times`` each time argument resolved.

        Raises:
            ValueError: A bad run, or the schedule's own checks for it, naming the argument.
            MissingDataloaderLenError: A time in epochs without ``dataloader_len``.
            TypeError: A Run together with other parts of a run; a schedule without a closed form.

        >>> from schedulers import CosineAnnealingWithWarmupScheduler
        >>> curve = CosineAnnealingWithWarmupScheduler(t_warmup="0.1dur").resolve("100ba")
        >>> curve.times["t_warmup"], curve(5), curve(10)
        (Time(10, TimeUnit.BATCH), 0.5, 1.0)
        >>> CosineAnnealingWithWarmupScheduler(t_warmup="0.1dur").resolve("100ba", ssr=0.5).times["t_max"]
        Time(50, TimeUnit.BATCH)
        """
        return self._resolve(as_run(max_duration, dataloader_len, ssr=ssr))

    def _resolve(self, run: Run) -> Curve:
        raise NotImplementedError(f"{type(self).__name__} must implement _resolve(run) -> Curve")

    @classmethod
    def _of_checked(cls: type[S], **fields: Any) -> S:
        """An instance of this class from values its checks have already passed, each as its converter returns it
        (a Time, a float, a tuple of Times): a part a composition builds for a run from its own checked fields and
        the counts it resolved, which ``cls(...)`` would check, and warn about, again (as ``Time._make`` skips
        ``Time.__init__``). Equal to ``cls(**fields)``; every field is given; a class that checks more after its
        converters (an ``__attrs_post_init__``, a validator) is refused."""
        declared = attrs.fields(cls)
        names = {field.name for field in declared}
        if fields.keys() != names or hasattr(cls, "__attrs_post_init__") or any(f.validator for f in declared):
            raise TypeError(
                f"{cls.__name__}._of_checked needs exactly {sorted(names)}, and a class checked by its converters alone"
            )
        schedule = object.__new__(cls)
        for name, value in fields.items():
            object.__setattr__(schedule, name, value)
        return schedule

    def _resolve_times(self, run: Run, given: dict[str, Time], unscaled: tuple[str, ...] = ()) -> dict[str, Time]:
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
        warned = getattr(self, "_warned", None)
        if warned is None:
            warned = set()
            _beside_fields(self, _warned=warned)
        if key not in warned:
            warned.add(key)
            warnings.warn(message, UserWarning, stacklevel=4)


def _beside_fields(schedule: Schedule, **values: object) -> None:
    """Keep ``values`` on ``schedule`` beside its fields (caches, not part of equality, hash or repr), past the
    frozen ``__setattr__``. Never through ``schedule.__dict__``: reading that once makes every later attribute
    read of the instance a dict lookup, slower on the per-step path."""
    for name, value in values.items():
        object.__setattr__(schedule, name, value)


def _of_timestamp(fn: Callable[[int], float], unit: TimeUnit) -> Callable[[StateLike], float]:
    """``state -> fn(count)``, the count of ``unit`` in ``state.timestamp``: the per-step path of a bound schedule.

    A count of batches (the trainer's usual unit) is read from the timestamp's slot, not through
    ``Timestamp.counter`` (one call less); a curve of two pieces (a warmup and what follows it, from
    :func:`~schedulers.core.composition.piecewise`, which marks it with ``split``) picks its piece here too, so
    a step makes one call less again; so does a kernel of a fraction (:func:`fraction_curve`), alone or as the second
    piece. Other units read their count with ``Timestamp.counter``.
    """
    split = getattr(fn, "split", None)
    if unit is not TimeUnit.BATCH:
        count = Timestamp.counter(unit)
        return lambda state: fn(count(state.timestamp))
    if split is None:
        form = getattr(fn, "fraction", None)
        if form is not None:  # a kernel of a fraction alone (fraction_curve): called here, one call less
            kernel, period, begin, end = form
            return lambda state: kernel(state.timestamp._batch / period, begin, end)
        return lambda state: fn(state.timestamp._batch)
    boundary, first, second, start = split
    form = getattr(second, "fraction", None)
    if form is not None:  # the second piece is a kernel of a fraction (fraction_curve): called here, shift and all
        kernel, period, begin, end = form

        def two_pieces_kernel(state: StateLike) -> float:
            x = state.timestamp._batch
            return first(x) if x < boundary else kernel((x - start) / period, begin, end)

        return two_pieces_kernel

    def two_pieces(state: StateLike) -> float:
        x = state.timestamp._batch
        return first(x) if x < boundary else second(x - start)

    return two_pieces


def fraction_curve(
    kernel: Callable[[Any, float, float], Any], period: int, start: float, end: float
) -> Callable[[Any], Any]:
    r"""A kernel of the fraction of a period, :math:`\alpha(x) = k(x / \rho, s, e)`, as a curve's closed form.

    It is ``lambda x: kernel(x / period, start, end)``, marked with its parts, so that a schedule bound to its
    run whose second piece it is calls the kernel directly (the shift folded in, one call less per step).

    Args:
        kernel: A kernel of :mod:`schedulers.core.kernels` taking ``(frac, start, end)`` (``cosine``, ``linear``).
        period: The count the fraction is of (> 0).
        start: The kernel's value at 0.
        end: The kernel's value at 1.

    Returns:
        The closed form, a function of a number or a tensor of counts.

    >>> from schedulers.core import kernels
    >>> curve = fraction_curve(kernels.linear, 100, 1.0, 0.0)
    >>> curve(25), curve.fraction == (kernels.linear, 100, 1.0, 0.0)
    (0.75, True)
    """
    fn = lambda x: kernel(x / period, start, end)  # noqa: E731  (a lambda: it carries the parts below)
    fn.fraction = (kernel, period, start, end)
    return fn


def _frozen_setattr(self: Schedule, name: str, value: object) -> None:
    raise FrozenScheduleError(f"cannot set {name} of {type(self).__qualname__}: {evolve_hint(name, value)}")


def _frozen_delattr(self: Schedule, name: str) -> None:
    raise FrozenScheduleError(f"cannot delete {name} of {type(self).__qualname__}: {evolve_hint(name)}")


@attrs.frozen
class FunctionSchedule(Schedule):
    """A schedule from a plain function of the state, ``fn(state) -> float`` (see :func:`as_schedule`).

    It has no closed form: it is called on every step, cannot apply a scale schedule ratio other than 1,
    and whole-run evaluation steps a state through the run to read it. Two are equal when their functions are.

    Args:
        fn: A function of the state (anything with ``timestamp``, ``max_duration`` and ``dataloader_len``).

    Returns:
        Called as ``schedule(state)``: ``fn(state)``.

    Raises:
        TypeError: ``fn`` is not callable; :meth:`resolve` (there is no closed form to resolve).
        ValueError: A call (or a run) with a ratio other than 1.

    >>> from schedulers import SchedulerState
    >>> FunctionSchedule(lambda state: 0.5)(SchedulerState("10ba"))
    0.5
    """

    fn: Callable[[StateLike], float] = attrs.field()
    _no_config: ClassVar[str] = (
        "is a function of the state (as_schedule), which has no config; write it as a Cadence schedule class "
        "(register it with @register_scheduler) to save it as a config"
    )

    @fn.validator
    def _check(self, attribute: attrs.Attribute, fn: object) -> None:
        if not callable(fn):
            raise TypeError(f"as_schedule() needs a callable fn(state) -> float, got {fn!r}")

    def __call__(self, state: StateLike, ssr: float = 1.0) -> float:
        self._unscaled(ssr)
        return self.fn(state)

    def bind(self, run: Run) -> Callable[[StateLike], float]:
        """``fn`` itself, for a run at ratio 1 (a function of the state cannot be scaled).

        Args:
            run: The run the state's clock counts.

        Returns:
            ``fn``.

        Raises:
            ValueError: A run with a ratio other than 1.

        >>> from schedulers import SchedulerState
        >>> FunctionSchedule(lambda state: 0.5).bind(Run("10ba"))(SchedulerState("10ba"))
        0.5
        """
        self._unscaled(run.ssr)
        return self.fn

    def _unscaled(self, ssr: float) -> None:
        if ssr != 1.0:
            raise ValueError(
                f"{self.fn!r} is a function of the state only, so it cannot apply ssr={ssr:g} (a scale_schedule_ratio);"
                " write the schedule as a Cadence schedule (times in ba/ep/dur) to scale it"
            )

    def _resolve(self, run: Run) -> Curve:
        raise TypeError(f"{self.fn!r} is a function of the state: it has no closed form to resolve")

    def __repr__(self) -> str:
        return f"as_schedule({self.fn!r})"


def as_schedule(fn: Callable[[StateLike], float]) -> FunctionSchedule:
    """Wrap a one-parameter function of the state as a Cadence schedule (for the trainer and compile).

    Args:
        fn: ``state -> α``, reading ``state.timestamp`` (and ``max_duration``, ``dataloader_len`` if it likes).

    Returns:
        A :class:`FunctionSchedule` that calls ``fn(state)``; it has no closed form, so it cannot be scaled by
        an ``ssr`` other than 1 nor compiled to a whole-run curve.

    Raises:
        TypeError: ``fn`` is not callable.

    >>> from schedulers import SchedulerState
    >>> half_after_ten = as_schedule(lambda state: 0.5 if state.timestamp.batch >= 10 else 1.0)
    >>> half_after_ten(SchedulerState("20ba"))
    1.0
    """
    return FunctionSchedule(fn)


class CallableKind(enum.Enum):
    """What :func:`callable_kind` found.

    ``SCHEDULE``: ``(state, ssr) -> α``; ``ONE_ARGUMENT``: a state function (for ``compile_scheduler``) or an
    optimizer factory (for the trainer); ``OTHER``: not callable, or not with one or two positional arguments.

    Returns:
        The member ``CallableKind(value)`` looks up (``"schedule"``, ``"one-argument"`` or ``"other"``).

    >>> CallableKind("one-argument")
    <CallableKind.ONE_ARGUMENT: 'one-argument'>
    """

    SCHEDULE = "schedule"  # (state, ssr) -> α
    ONE_ARGUMENT = "one-argument"  # a state function (compile_scheduler) or an optimizer factory (trainer)
    OTHER = "other"  # not callable, or not with one or two positional arguments


def callable_kind(candidate: Any) -> CallableKind:
    """Classify ``candidate`` by the rule of this module (a Schedule first, then its positional arity).

    Args:
        candidate: Anything a user passed where a schedule is expected.

    Returns:
        ``SCHEDULE`` for a :class:`~schedulers.Schedule`, a callable with two positional parameters (or
        ``*args``) or one whose signature cannot be read; ``ONE_ARGUMENT`` for a class or a callable taking one
        positional argument; ``OTHER`` otherwise.

    >>> callable_kind(lambda state, ssr, extra: 1.0), callable_kind(3.0)
    (<CallableKind.OTHER: 'other'>, <CallableKind.OTHER: 'other'>)
    """

    if isinstance(candidate, Schedule):
        return CallableKind.SCHEDULE
    if not callable(candidate):
        return CallableKind.OTHER
    if isinstance(_unwrap_partials(candidate), type):
        return CallableKind.ONE_ARGUMENT  # a class, or a partial of one: built from its one argument (an optimizer)
    arity = _positional_arity(candidate)
    if arity is None:
        return CallableKind.SCHEDULE  # builtins and C callables: assume the documented (state, ssr) protocol
    required, most = arity
    if required <= 2 and most in (2, math.inf):
        return CallableKind.SCHEDULE
    if required <= 1 <= most:
        return CallableKind.ONE_ARGUMENT
    return CallableKind.OTHER


def _unwrap_partials(candidate: Any) -> Any:
    """The callable under any nesting of ``functools.partial``."""
    while isinstance(candidate, functools.partial):
        candidate = candidate.func
    return candidate


def _positional_arity(candidate: Any) -> tuple[int, float] | None:
    """(required, most) positional arguments of ``candidate`` (``most`` is inf with ``*args``); None if unknown."""
    try:
        parameters = inspect.signature(candidate).parameters.values()
    except (TypeError, ValueError):
        return None
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = sum(1 for p in positional if p.default is p.empty)
    most = math.inf if any(p.kind is p.VAR_POSITIONAL for p in parameters) else len(positional)
    return required, most
