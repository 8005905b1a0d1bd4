"""MosaicML Composer's 13 schedulers: same names, arguments, defaults, formulas and boundary values.

Each class is a :class:`~schedulers.core.schedule.Schedule`: ``scheduler(state, ssr=1.0)`` returns the multiplier α
of the base learning rate. Times are resolved as in :mod:`schedulers.core.run`; ``x`` below is the
run's count in the resolved unit (batches, samples or tokens) and ``τ`` a fraction of a resolved time.
Where Cadence deliberately departs from Composer it says so (docs/composer-deviations.md).
"""

from __future__ import annotations

import attrs

from schedulers.core import kernels
from schedulers.core.composition import Sequence, sequence_curve
from schedulers.core.kernels import ops
from schedulers.core.names import register_scheduler
from schedulers.core.run import WHOLE_RUN, Run
from schedulers.core.schedule import Curve, Schedule, fraction_curve
from schedulers.core.schedule_arguments import (
    FrozenList,
    argument_repr,
    flag_field,
    multiplier_field,
    number_field,
    positive_count,
    to_time,
    to_times,
)
from timeunits import Time, Timestamp, TimeUnit  # noqa: F401  (Timestamp: doctests)

__all__ = [
    "ConstantScheduler",
    "ConstantWithWarmupScheduler",
    "CosineAnnealingScheduler",
    "CosineAnnealingWarmRestartsScheduler",
    "CosineAnnealingWithWarmupScheduler",
    "ExponentialScheduler",
    "LinearScheduler",
    "LinearWithWarmupScheduler",
    "MultiStepScheduler",
    "MultiStepWithWarmupScheduler",
    "PolynomialScheduler",
    "PolynomialWithWarmupScheduler",
    "StepScheduler",
]


def _run_unit(run: Run) -> TimeUnit:
    """The unit a ``dur`` resolves to in this run (max_duration's, with epochs as batches)."""
    return TimeUnit.BATCH if run.length.unit is TimeUnit.EPOCH else run.length.unit


def _run_count(run: Run, unit: TimeUnit) -> int | None:
    """The run's length in ``unit`` (ba, sp or tok), or None when it cannot be said."""
    try:
        length = run.count("max_duration", WHOLE_RUN)
    except ValueError:
        return None
    return length.value if length.unit is unit else None


# -- schedules without warmup ------------------------------------------------------------------------


@register_scheduler(aliases=("step",), family="composer")
@attrs.frozen
class StepScheduler(Schedule):
    r"""Decay by ``gamma`` every ``step_size``.

    .. math:: \alpha(x) = \gamma^{\lfloor x / \mathrm{step\_size} \rfloor}

    Args:
        step_size: The period, a time in any unit (``dur``: of the run).
        gamma: The factor per period, a finite number >= 0.

    Returns:
        Called as ``schedule(state, ssr=1.0)``: the multiplier α at ``state.timestamp``; ``resolve(...)`` gives
        the curve for a run (docs/schedules.md).

    Raises:
        ValueError: A bad argument, naming it, when the schedule is built.
        ValueError: ``step_size`` resolving to 0 for a run (a short time, a small ratio), naming it.

    >>> from schedulers import SchedulerState
    >>> StepScheduler("10ba", gamma=0.5)(SchedulerState("100ba", Timestamp(batch=25)))
    0.25
    """

    step_size: Time = attrs.field(converter=to_time, repr=argument_repr)
    gamma: float = number_field(0.1, low=0.0)

    def _resolve(self, run: Run) -> Curve:
        times = self._resolve_times(run, self._arguments("step_size"))
        step_size, gamma = positive_count("step_size", times["step_size"], self.step_size), self.gamma
        return Curve(times["step_size"].unit, lambda x: kernels.step(x, step_size, gamma), times)


@register_scheduler(aliases=("multistep",), family="composer")
@attrs.frozen
class MultiStepScheduler(Schedule):
    r"""Decay by ``gamma`` at each milestone reached.

    .. math:: \alpha(x) = \gamma^{\#\{i \,:\, x \ge m_i\}}

    Args:
        milestones: The times of the decays, each a time in any unit (``dur``: of the run).
        gamma: The factor per milestone, >= 0.

    Returns:
        Called as ``schedule(state, ssr=1.0)``: the multiplier α at ``state.timestamp``; ``resolve(...)`` gives
        the curve for a run (docs/schedules.md).

    Raises:
        ValueError: A bad argument, naming it, when the schedule is built.
        ValueError: Milestones resolving to different units.

    >>> from schedulers import SchedulerState
    >>> MultiStepScheduler(["10ba", "0.5dur"], gamma=0.5)(SchedulerState("100ba", Timestamp(batch=60)))
    0.25
    """

    milestones: tuple[Time, ...] = attrs.field(converter=to_times, repr=argument_repr)
    gamma: float = number_field(0.1, low=0.0)

    def _resolve(self, run: Run) -> Curve:
        times = self._resolve_times(run, _milestone_arguments(self.milestones))
        points, gamma = _points(times), self.gamma
        unit = next(iter(times.values())).unit if times else _run_unit(run)
        return Curve(unit, lambda x: kernels.multistep(x, points, gamma), times)


def _milestone_arguments(milestones: list[Time]) -> dict[str, Time]:
    return {f"milestones[{i}]": milestone for i, milestone in enumerate(milestones)}


def _points(times: dict[str, Time]) -> tuple[int, ...]:
    return tuple(sorted(t.value for name, t in times.items() if name.startswith("milestones")))


@register_scheduler(aliases=("constant",), family="composer")
@attrs.frozen
class ConstantScheduler(Schedule):
    r"""Hold ``alpha`` until ``t_max``, then 1.

    .. math:: \alpha(x) = \alpha \text{ if } x < t_{max} \text{ else } 1

    Args:
        alpha: The multiplier held until ``t_max``, a finite number >= 0.
        t_max: When it ends, a time in any unit (``dur``: of the run).

    Returns:
        Called as ``schedule(state, ssr=1.0)``: the multiplier α at ``state.timestamp``; ``resolve(...)`` gives
        the curve for a run (docs/schedules.md).

    Raises:
        ValueError: A bad argument, naming it, when the schedule is built.

    >>> from schedulers import SchedulerState
    >>> ConstantScheduler(0.5, t_max="10ba")(SchedulerState("100ba", Timestamp(batch=5)))
    0.5
    """

    alpha: float = multiplier_field(1.0)
    t_max: Time = attrs.field(default="1dur", converter=to_time, repr=argument_repr)

    def _resolve(self, run: Run) -> Curve:
        times = self._resolve_times(run, self._arguments("t_max"))
        t_max, alpha = times["t_max"].value, self.alpha
        return Curve(times["t_max"].unit, lambda x: ops(x).where(x < t_max, alpha, 1.0), times)


@register_scheduler(aliases=("linear",), family="composer")
@attrs.frozen
class LinearScheduler(Schedule):
    r"""Move linearly from ``alpha_i`` to ``alpha_f`` over ``t_max``, then hold ``alpha_f``.

    .. math:: \alpha(x) = \alpha_i + (\alpha_f - \alpha_i)\,\min(1, x / t_{max})

    Args:
        alpha_i: The start multiplier, >= 0.
        alpha_f: The end multiplier, >= 0 (above 1 warns).
        t_max: The length of the ramp, a time in any unit (``dur``: of the run).

    Returns:
        Called as ``schedule(state, ssr=1.0)``: the multiplier α at ``state.timestamp``; ``resolve(...)`` gives
        the curve for a run (docs/schedules.md).

    Raises:
        ValueError: A bad argument, naming it, when the schedule is built.
        ValueError: ``t_max`` resolving to 0 for a run.

    >>> from schedulers import SchedulerState
    >>> LinearScheduler()(SchedulerState("100ba", Timestamp(batch=25)))
    0.75
    """

    alpha_i: float = multiplier_field(1.0)
    alpha_f: float = multiplier_field(0.0, final=True)
    t_max: Time = attrs.field(default="1dur", converter=to_time, repr=argument_repr)

    def _resolve(self, run: Run) -> Curve:
        times = self._resolve_times(run, self._arguments("t_max"))
        t_max, a_i, a_f = positive_count("t_max", times["t_max"], self.t_max), self.alpha_i, self.alpha_f
        return Curve(times["t_max"].unit, fraction_curve(kernels.linear, t_max, a_i, a_f), times)


@register_scheduler(aliases=("exponential",), family="composer")
@attrs.frozen
class ExponentialScheduler(Schedule):
    r"""Decay by ``gamma`` per ``decay_period``, continuously.

    .. math:: \alpha(x) = \gamma^{x / \mathrm{decay\_period}}

    Args:
        gamma: The factor per period, >= 0.
        decay_period: The period, a time in any unit (``dur``: of the run).

    Returns:
        Called as ``schedule(state, ssr=1.0)``: the multiplier α at ``state.timestamp``; ``resolve(...)`` gives
        the curve for a run (docs/schedules.md).

    Raises:
        ValueError: A bad argument, naming it, when the schedule is built.
        ValueError: ``decay_period`` resolving to 0 for a run.
        MissingDataloaderLenError: The default ``1ep`` without ``dataloader_len``.

    >>> from schedulers import SchedulerState
    >>> ExponentialScheduler(0.5, decay_period="10ba")(SchedulerState("100ba", Timestamp(batch=20)))
    0.25
    """

    gamma: float = number_field(low=0.0)
    decay_period: Time = attrs.field(default="1ep", converter=to_time, repr=argument_repr)

    def _resolve(self, run: Run) -> Curve:
        times = self._resolve_times(run, self._arguments("decay_period"))
        period, gamma = positive_count("decay_period", times["decay_period"], self.decay_period), self.gamma
        return Curve(times["decay_period"].unit, lambda x: kernels.exponential(x, gamma, period), times)


@register_scheduler(aliases=("cosine",), family="composer")
@attrs.frozen
class CosineAnnealingScheduler(Schedule):
    r"""Half a cosine from 1 to ``alpha_f`` over ``t_max``.

    .. math:: \alpha(x) = \alpha_f + (1 - \alpha_f)\,\frac{1 + \cos(\pi \min(1, x / t_{max}))}{2}

    Args:
        t_max: The length of the half cosine, a time in any unit (``dur``: of the run).
        alpha_f: The end multiplier, >= 0.

    Returns:
        Called as ``schedule(state, ssr=1.0)``: the multiplier α at ``state.timestamp``; ``resolve(...)`` gives
        the curve for a run (docs/schedules.md).

    Raises:
        ValueError: A bad argument, naming it, when the schedule is built.
        ValueError: ``t_max`` resolving to 0 for a run.

    >>> from schedulers import SchedulerState
    >>> CosineAnnealingScheduler()(SchedulerState("100ba", Timestamp(batch=50)))
    0.5
    """

    t_max: Time = attrs.field(default="1dur", converter=to_time, repr=argument_repr)
    alpha_f: float = multiplier_field(0.0, final=True)

    def _resolve(self, run: Run) -> Curve:
        times = self._resolve_times(run, self._arguments("t_max"))
        t_max, a_f = positive_count("t_max", times["t_max"], self.t_max), self.alpha_f
        return Curve(times["t_max"].unit, fraction_curve(kernels.cosine, t_max, 1.0, a_f), times)


@register_scheduler(aliases=("cosine_warm_restarts",), family="composer")
@attrs.frozen
class CosineAnnealingWarmRestartsScheduler(Schedule):
    r"""Cosine annealing from 1 to ``alpha_f`` that restarts; each interval is ``t_mult`` times the last.

    Interval lengths :math:`L_0 = t_0`, :math:`L_{k+1} = \lfloor t_{mult} L_k \rfloor`; within an interval
    starting at :math:`s`: :math:`\alpha = \alpha_f + (1 - \alpha_f)(1 + \cos(\pi (x - s) / L_k))/2`.
    The lengths go on past the end of the run (docs/schedules.md); shrinking ones must not reach 0 within it.

    Args:
        t_0: The first interval, a time in any unit (``dur``: of the run).
        t_mult: Each interval's factor on the last, >= 0.
        alpha_f: The multiplier at each interval's end, >= 0.

    Returns:
        Called as ``schedule(state, ssr=1.0)``: the multiplier α at ``state.timestamp``; ``resolve(...)`` gives
        the curve for a run (docs/schedules.md).

    Raises:
        ValueError: A bad argument, naming it, when the schedule is built.
        ValueError: ``t_0`` resolving to 0, or shrinking intervals that reach 0 within the run.

    >>> from schedulers import SchedulerState
    >>> CosineAnnealingWarmRestartsScheduler("10ba")(SchedulerState("100ba", Timestamp(batch=15)))
    0.5
    """

    t_0: Time = attrs.field(converter=to_time, repr=argument_repr)
    t_mult: float = number_field(1.0, low=0.0)
    alpha_f: float = multiplier_field(0.0, final=True)

    def _resolve(self, run: Run) -> Curve:
        times = self._resolve_times(run, self._arguments("t_0"))
        t_0 = positive_count("t_0", times["t_0"], self.t_0)
        # growing (or steady) periods are followed as far as a count can go; shrinking ones must
        # last the run (deviation 3: fail at resolution, not when the run gets there)
        run_length = _run_count(run, times["t_0"].unit)
        if self.t_mult < 1 and run_length is None:
            raise ValueError(
                f"t_mult={self.t_mult} shrinks the interval between restarts until it is 0, so Cadence checks that "
                f"the intervals cover the run; t_0={self.t_0} resolves to {times['t_0']} but the run "
                f"(max_duration={run.length}) cannot be counted in {times['t_0'].unit.value}: give t_0 in "
                "max_duration's unit (or dur)"
            )
        horizon = run_length if self.t_mult < 1 else 2**53
        try:
            ends = kernels.restart_boundaries(t_0, self.t_mult, horizon)
        except ValueError as error:
            raise ValueError(f"t_0={self.t_0}, t_mult={self.t_mult}: {error}") from None
        a_f = self.alpha_f
        return Curve(times["t_0"].unit, lambda x: kernels.warm_restarts(x, ends, a_f), times)


@register_scheduler(aliases=("polynomial",), family="composer")
@attrs.frozen
class PolynomialScheduler(Schedule):
    r"""Decay as a power of the fraction of ``t_max`` left.

    .. math:: \alpha(x) = \alpha_f + (1 - \alpha_f)\,(1 - \min(1, x / t_{max}))^{\mathrm{power}}

    Args:
        power: The exponent, >= 0.
        t_max: The length of the decay, a time in any unit (``dur``: of the run).
        alpha_f: The end multiplier, >= 0.

    Returns:
        Called as ``schedule(state, ssr=1.0)``: the multiplier α at ``state.timestamp``; ``resolve(...)`` gives
        the curve for a run (docs/schedules.md).

    Raises:
        ValueError: A bad argument, naming it, when the schedule is built.
        ValueError: ``t_max`` resolving to 0 for a run.

    >>> from schedulers import SchedulerState
    >>> PolynomialScheduler(power=2.0)(SchedulerState("100ba", Timestamp(batch=50)))
    0.25
    """

    power: float = number_field(low=0.0)
    t_max: Time = attrs.field(default="1dur", converter=to_time, repr=argument_repr)
    alpha_f: float = multiplier_field(0.0, final=True)

    def _resolve(self, run: Run) -> Curve:
        times = self._resolve_times(run, self._arguments("t_max"))
        t_max, power, a_f = positive_count("t_max", times["t_max"], self.t_max), self.power, self.alpha_f
        return Curve(times["t_max"].unit, lambda x: kernels.polynomial(x / t_max, power, 1.0, a_f), times)


# -- schedules with warmup -------------------------------------------------------------------------------


class _WarmupSchedule(Schedule):
    """What Composer's five ``*WithWarmupScheduler`` classes share: each is a linear warmup in front of one of the
    schedules above, and resolves for a run to the composition a user writes with the public pieces
    (:meth:`composed`, docs/schedules.md "Composition"), its times the run's counts:

    ``Sequence([LinearScheduler(0.0, peak, t_max=t_w), after], milestones=[t_w])``

    a ramp from 0 to the peak over the warmup (Composer's own warmup is this ``LinearScheduler``), then the
    schedule after it, which starts at ``t_w`` (a :class:`~schedulers.Sequence` segment sees the time since it
    began, so a decay runs from ``t_w`` to ``t_max`` as Composer's does). ``Warmup`` would not be exact here: its
    schedule runs on the run's own clock and its ramp ends at that schedule's value. With ``scale_warmup=False``
    the warmup is resolved without ssr; with ``True`` the whole warmup (its end and its ramp) is scaled — Composer
    scales only the ramp (deviation 1).
    """

    #: whether t_max must cover max_duration (Composer checks this for the decaying schedules)
    _checks_t_max = True

    def _main_times(self) -> dict[str, Time]:
        """The time arguments besides ``t_warmup``, by name."""
        return {"t_max": self.t_max}

    def _peak(self) -> float:
        """Where the warmup's ramp ends."""
        return 1.0

    def _after(self, t_max: Time) -> Schedule:
        """The schedule after the warmup, a decay over ``t_max`` (``t_max - t_warmup`` counts of the run)."""
        raise NotImplementedError

    def _after_warmup(self, times: dict[str, Time], t_warmup: int) -> Schedule:
        """The schedule after the warmup for the resolved ``times``; when ``t_max <= t_warmup`` it holds its start
        (Composer: no decay at all)."""
        unit = times["t_max"].unit
        span = times["t_max"].value - t_warmup
        if span > 0:
            return self._after(Time(span, unit))
        start = float(self._after(Time(1, unit))._resolve(_WRITTEN_AS_COUNTS.part(Time(1, unit)))(0.0))
        return LinearScheduler._of_checked(alpha_i=start, alpha_f=start, t_max=Time(1, unit))

    def composed(self, run: Run) -> Schedule:
        """This schedule for ``run``, written with the public pieces (the schedule it resolves to).

        Args:
            run: The run (see :class:`~schedulers.core.run.Run`).

        Returns:
            A :class:`~schedulers.Sequence` of Composer's warmup (a ``LinearScheduler``) and the schedule after it,
            with ``run``'s counts for times; the schedule after the warmup alone when the warmup resolves to 0.

        Raises:
            ValueError: Times of two units, or ``t_max`` short of the run, naming them.

        >>> from schedulers import CosineAnnealingWithWarmupScheduler
        >>> CosineAnnealingWithWarmupScheduler("10ba", alpha_f=0.1).composed(Run("100ba"))
        ... # doctest: +NORMALIZE_WHITESPACE
        Sequence(schedules=[LinearScheduler(alpha_i=0.0, alpha_f=1.0, t_max='10ba'),
                            CosineAnnealingScheduler(t_max='90ba', alpha_f=0.1)], milestones=['10ba'])
        """
        times = self._warmup_times(run)
        schedules, edges = self._parts(times)
        return schedules[0] if len(schedules) == 1 else Sequence(schedules, [Time(edges[1], times["t_warmup"].unit)])

    def _resolve(self, run: Run) -> Curve:
        # the parts of composed(run), resolved on their segments as that Sequence resolves them, from the counts
        # resolved and checked once here: no Sequence is built and no milestone resolved again
        times = self._warmup_times(run)
        schedules, edges = self._parts(times)
        unit = times["t_warmup"].unit
        return Curve(unit, sequence_curve(_WRITTEN_AS_COUNTS, unit, edges, schedules, {}).fn, times)

    def _parts(self, times: dict[str, Time]) -> tuple[list[Schedule], list[int]]:
        """The schedules of :meth:`composed` for the resolved ``times``, and the edges of their segments in counts
        (the last segment is one count long: its schedule's times are counts, so its length does not matter)."""
        t_warmup, unit = max(times["t_warmup"].value, 0), times["t_warmup"].unit
        after = self._after_warmup(times, t_warmup)
        if t_warmup == 0:
            return [after], [0, 1]
        ramp = LinearScheduler._of_checked(alpha_i=0.0, alpha_f=self._peak(), t_max=Time(t_warmup, unit))
        return [ramp, after], [0, t_warmup, t_warmup + 1]

    def _warmup_times(self, run: Run) -> dict[str, Time]:
        """Resolve ``t_warmup`` with the main times; warn once on a zero warmup; check t_max covers the run."""
        unscaled = () if self.scale_warmup else ("t_warmup",)
        times = self._resolve_times(run, {"t_warmup": self.t_warmup, **self._main_times()}, unscaled=unscaled)
        if times["t_warmup"].value <= 0:
            self._warn_once(
                "zero-warmup",
                f"{type(self).__name__}: t_warmup={self.t_warmup} resolves to 0 for max_duration="
                f"{run.length}, so there is no warmup (a dur warmup is a fraction of max_duration, "
                "counted in max_duration's unit)",
            )
        if "t_max" in times and self._checks_t_max:
            length = _run_count(run, times["t_max"].unit)
            if length is not None and times["t_max"].value < length:
                raise ValueError(
                    f"t_max={self.t_max} resolves to {times['t_max']}, but it must be greater than or equal to "
                    f"max_duration={run.length} ({length}{times['t_max'].unit.value}); otherwise the "
                    "schedule is not defined for the whole run"
                )
        return times


# a run in which parts whose times are already counts resolve as written (ratio 1, no epochs): only their unit
# matters, which each part's own segment (Run.part) gives
_WRITTEN_AS_COUNTS = Run("1ba", scaled=True)


@register_scheduler(aliases=("multistep_with_warmup",), family="composer")
@attrs.frozen
class MultiStepWithWarmupScheduler(_WarmupSchedule):
    r"""Linear warmup from 0 to 1 over ``t_warmup``, then :class:`MultiStepScheduler`.

    .. math:: \alpha(x) = x / t_w \;(x < t_w), \qquad \gamma^{\#\{i : x \ge m_i\}} \;(x \ge t_w)

    For a run it is ``Sequence([LinearScheduler(0.0, 1.0, t_max=t_w), MultiStepScheduler([m - t_w, ...], gamma)],
    milestones=[t_w])`` in the run's counts, a milestone before ``t_w`` at 0 (:meth:`composed`).

    Args:
        t_warmup: The warmup's length, a time in any unit (``dur``: of the run); kept unscaled unless
            ``scale_warmup``.
        milestones: The times of the decays, each a time in any unit (``dur``: of the run).
        gamma: The factor per milestone, >= 0.
        scale_warmup: Whether the ratio scales the warmup too (its end and its ramp: deviation 1).

    Returns:
        Called as ``schedule(state, ssr=1.0)``: the multiplier α at ``state.timestamp``; ``resolve(...)`` gives
        the curve for a run (docs/schedules.md).

    Raises:
        ValueError: A bad argument, naming it, when the schedule is built.
        ValueError: Times of two units, or ``t_max`` short of the run, naming them.

    >>> from schedulers import SchedulerState
    >>> MultiStepWithWarmupScheduler("10ba", ["50ba"], gamma=0.5)(SchedulerState("100ba", Timestamp(batch=5)))
    0.5
    """

    _checks_t_max = False

    t_warmup: Time = attrs.field(converter=to_time, repr=argument_repr)
    milestones: tuple[Time, ...] = attrs.field(converter=to_times, repr=argument_repr)
    gamma: float = number_field(0.1, low=0.0)
    scale_warmup: bool = flag_field()

    def _main_times(self) -> dict[str, Time]:
        return _milestone_arguments(self.milestones)

    def _after_warmup(self, times: dict[str, Time], t_warmup: int) -> Schedule:
        # the milestones counted from the warmup's end (one already passed is at 0: passed when the segment starts)
        unit = times["t_warmup"].unit
        milestones = FrozenList((Time(max(m - t_warmup, 0), unit) for m in _points(times)), "milestones")
        return MultiStepScheduler._of_checked(milestones=milestones, gamma=self.gamma)


@register_scheduler(aliases=("linear_with_warmup",), family="composer")
@attrs.frozen
class LinearWithWarmupScheduler(_WarmupSchedule):
    r"""Linear warmup from 0 to ``alpha_i``, then linear from ``alpha_i`` to ``alpha_f`` at ``t_max``.

    .. math:: \alpha(x) = \alpha_i x / t_w \;(x < t_w), \qquad
              \alpha_i + (\alpha_f - \alpha_i)\min\!\left(1, \tfrac{x - t_w}{t_{max} - t_w}\right) \;(x \ge t_w)

    For a run it is ``Sequence([LinearScheduler(0.0, alpha_i, t_max=t_w), LinearScheduler(alpha_i, alpha_f,
    t_max=t_max - t_w)], milestones=[t_w])`` in the run's counts (:meth:`composed`).

    Args:
        t_warmup: The warmup's length, a time in any unit (``dur``: of the run); kept unscaled unless
            ``scale_warmup``.
        alpha_i: The multiplier at the warmup's end, >= 0.
        alpha_f: The end multiplier, >= 0.
        t_max: Where the linear part ends, a time in any unit (``dur``: of the run).
        scale_warmup: Whether the ratio scales the warmup too (its end and its ramp: deviation 1).

    Returns:
        Called as ``schedule(state, ssr=1.0)``: the multiplier α at ``state.timestamp``; ``resolve(...)`` gives
        the curve for a run (docs/schedules.md).

    Raises:
        ValueError: A bad argument, naming it, when the schedule is built.
        ValueError: Times of two units, or ``t_max`` short of the run, naming them.

    >>> from schedulers import SchedulerState
    >>> LinearWithWarmupScheduler("10ba")(SchedulerState("110ba", Timestamp(batch=60)))
    0.5
    """

    t_warmup: Time = attrs.field(converter=to_time, repr=argument_repr)
    alpha_i: float = multiplier_field(1.0)
    alpha_f: float = multiplier_field(0.0, final=True)
    t_max: Time = attrs.field(default="1dur", converter=to_time, repr=argument_repr)
    scale_warmup: bool = flag_field()

    def _peak(self) -> float:
        return self.alpha_i

    def _after(self, t_max: Time) -> Schedule:
        return LinearScheduler._of_checked(alpha_i=self.alpha_i, alpha_f=self.alpha_f, t_max=t_max)


@register_scheduler(aliases=("constant_with_warmup",), family="composer")
@attrs.frozen
class ConstantWithWarmupScheduler(_WarmupSchedule):
    r"""Linear warmup from 0 to ``alpha``, then hold ``alpha`` (Composer: a linear warmup schedule with equal ends).

    .. math:: \alpha(x) = \alpha\, x / t_w \;(x < t_w), \qquad \alpha \;(x \ge t_w)

    For a run it is ``Sequence([LinearScheduler(0.0, alpha, t_max=t_w), LinearScheduler(alpha, alpha,
    t_max=t_max - t_w)], milestones=[t_w])`` in the run's counts (:meth:`composed`).

    Args:
        t_warmup: The warmup's length, a time in any unit (``dur``: of the run); kept unscaled unless
            ``scale_warmup``.
        alpha: The multiplier after the warmup, >= 0.
        t_max: The run it covers, a time in any unit (``dur``: of the run).
        scale_warmup: Whether the ratio scales the warmup too (its end and its ramp: deviation 1).

    Returns:
        Called as ``schedule(state, ssr=1.0)``: the multiplier α at ``state.timestamp``; ``resolve(...)`` gives
        the curve for a run (docs/schedules.md).

    Raises:
        ValueError: A bad argument, naming it, when the schedule is built.
        ValueError: Times of two units, or ``t_max`` short of the run, naming them.

    >>> from schedulers import SchedulerState
    >>> ConstantWithWarmupScheduler("10ba", alpha=0.5)(SchedulerState("100ba", Timestamp(batch=5)))
    0.25
    """

    t_warmup: Time = attrs.field(converter=to_time, repr=argument_repr)
    alpha: float = multiplier_field(1.0)
    t_max: Time = attrs.field(default="1dur", converter=to_time, repr=argument_repr)
    scale_warmup: bool = flag_field()

    def _peak(self) -> float:
        return self.alpha

    def _after(self, t_max: Time) -> Schedule:
        return LinearScheduler._of_checked(alpha_i=self.alpha, alpha_f=self.alpha, t_max=t_max)


@register_scheduler(aliases=("cosine_with_warmup",), family="composer")
@attrs.frozen
class CosineAnnealingWithWarmupScheduler(_WarmupSchedule):
    r"""Linear warmup from 0 to 1, then half a cosine from 1 to ``alpha_f`` at ``t_max``.

    .. math:: \alpha(x) = x / t_w \;(x < t_w), \qquad
              \alpha_f + (1 - \alpha_f)\frac{1 + \cos(\pi \tau)}{2},\;
              \tau = \min\!\left(1, \tfrac{x - t_w}{t_{max} - t_w}\right) \;(x \ge t_w)

    For a run it is ``Sequence([LinearScheduler(0.0, 1.0, t_max=t_w), CosineAnnealingScheduler(t_max=t_max - t_w,
    alpha_f=alpha_f)], milestones=[t_w])`` in the run's counts (:meth:`composed`).

    Args:
        t_warmup: The warmup's length, a time in any unit (``dur``: of the run); kept unscaled unless
            ``scale_warmup``.
        t_max: Where the cosine ends, a time in any unit (``dur``: of the run).
        alpha_f: The end multiplier, >= 0.
        scale_warmup: Whether the ratio scales the warmup too (its end and its ramp: deviation 1).

    Returns:
        Called as ``schedule(state, ssr=1.0)``: the multiplier α at ``state.timestamp``; ``resolve(...)`` gives
        the curve for a run (docs/schedules.md).

    Raises:
        ValueError: A bad argument, naming it, when the schedule is built.
        ValueError: Times of two units, or ``t_max`` short of the run, naming them.

    >>> from schedulers import SchedulerState
    >>> CosineAnnealingWithWarmupScheduler("10ba")(SchedulerState("110ba", Timestamp(batch=60)))
    0.5
    """

    t_warmup: Time = attrs.field(converter=to_time, repr=argument_repr)
    t_max: Time = attrs.field(default="1dur", converter=to_time, repr=argument_repr)
    alpha_f: float = multiplier_field(0.0, final=True)
    scale_warmup: bool = flag_field()

    def _after(self, t_max: Time) -> Schedule:
        return CosineAnnealingScheduler._of_checked(t_max=t_max, alpha_f=self.alpha_f)


@register_scheduler(aliases=("polynomial_with_warmup",), family="composer")
@attrs.frozen
class PolynomialWithWarmupScheduler(_WarmupSchedule):
    r"""Linear warmup from 0 to 1, then polynomial decay to ``alpha_f`` at ``t_max``.

    .. math:: \alpha(x) = x / t_w \;(x < t_w), \qquad
              \alpha_f + (1 - \alpha_f)(1 - \tau)^{\mathrm{power}},\;
              \tau = \min\!\left(1, \tfrac{x - t_w}{t_{max} - t_w}\right) \;(x \ge t_w)

    For a run it is ``Sequence([LinearScheduler(0.0, 1.0, t_max=t_w), PolynomialScheduler(power, t_max=t_max - t_w,
    alpha_f=alpha_f)], milestones=[t_w])`` in the run's counts (:meth:`composed`).

    Args:
        t_warmup: The warmup's length, a time in any unit (``dur``: of the run); kept unscaled unless
            ``scale_warmup``.
        power: The exponent, >= 0.
        t_max: Where the decay ends, a time in any unit (``dur``: of the run).
        alpha_f: The end multiplier, >= 0.
        scale_warmup: Whether the ratio scales the warmup too (its end and its ramp: deviation 1).

    Returns:
        Called as ``schedule(state, ssr=1.0)``: the multiplier α at ``state.timestamp``; ``resolve(...)`` gives
        the curve for a run (docs/schedules.md).

    Raises:
        ValueError: A bad argument, naming it, when the schedule is built.
        ValueError: Times of two units, or ``t_max`` short of the run, naming them.

    >>> from schedulers import SchedulerState
    >>> PolynomialWithWarmupScheduler("10ba")(SchedulerState("110ba", Timestamp(batch=60)))
    0.25
    """

    t_warmup: Time = attrs.field(converter=to_time, repr=argument_repr)
    power: float = number_field(2.0, low=0.0)
    t_max: Time = attrs.field(default="1dur", converter=to_time, repr=argument_repr)
    alpha_f: float = multiplier_field(0.0, final=True)
    scale_warmup: bool = flag_field()

    def _after(self, t_max: Time) -> Schedule:
        return PolynomialScheduler._of_checked(power=self.power, t_max=t_max, alpha_f=self.alpha_f)
