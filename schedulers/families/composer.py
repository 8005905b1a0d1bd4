"""MosaicML Composer's 13 schedulers: same names, arguments, defaults, formulas and boundary values.

Each class is a :class:`~schedulers.core.base.Schedule`: ``scheduler(state, ssr=1.0)`` returns the multiplier α
of the base learning rate. Times are resolved as in :mod:`schedulers.core.resolution`; ``x`` below is the
run's count in the resolved unit (batches, samples or tokens) and ``τ`` a fraction of a resolved time.
Where Cadence deliberately departs from Composer it says so (docs/composer-deviations.md).
"""

from __future__ import annotations

import attrs

from schedulers.core import kernels
from schedulers.core._ops import ops
from schedulers.core.base import Curve, Schedule
from schedulers.core.composition import warmup_ramp
from schedulers.core.registry import register_scheduler
from schedulers.core.run import Run
from schedulers.core.schedule_arguments import (
    flag_field,
    milestones_field,
    multiplier_field,
    number_field,
    positive_count,
    time_field,
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
        length = run.count("max_duration", Time(1.0, TimeUnit.DURATION))
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

    step_size: Time = time_field()
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

    milestones: tuple[Time, ...] = milestones_field()
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
    t_max: Time = time_field("1dur")

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
    t_max: Time = time_field("1dur")

    def _resolve(self, run: Run) -> Curve:
        times = self._resolve_times(run, self._arguments("t_max"))
        t_max, a_i, a_f = positive_count("t_max", times["t_max"], self.t_max), self.alpha_i, self.alpha_f
        return Curve(times["t_max"].unit, lambda x: kernels.linear(x / t_max, a_i, a_f), times)


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
    decay_period: Time = time_field("1ep")

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

    t_max: Time = time_field("1dur")
    alpha_f: float = multiplier_field(0.0, final=True)

    def _resolve(self, run: Run) -> Curve:
        times = self._resolve_times(run, self._arguments("t_max"))
        t_max, a_f = positive_count("t_max", times["t_max"], self.t_max), self.alpha_f
        return Curve(times["t_max"].unit, lambda x: kernels.cosine(x / t_max, 1.0, a_f), times)


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

    t_0: Time = time_field()
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
    t_max: Time = time_field("1dur")
    alpha_f: float = multiplier_field(0.0, final=True)

    def _resolve(self, run: Run) -> Curve:
        times = self._resolve_times(run, self._arguments("t_max"))
        t_max, power, a_f = positive_count("t_max", times["t_max"], self.t_max), self.power, self.alpha_f
        return Curve(times["t_max"].unit, lambda x: kernels.polynomial(x / t_max, power, 1.0, a_f), times)


# -- schedules with warmup -------------------------------------------------------------------------------


class _WarmupSchedule(Schedule):
    """Shared machinery of the ``*WithWarmupScheduler`` classes.

    During warmup, :math:`x < t_w`, α ramps linearly from 0 to ``warmup_target``; from :math:`t_w` on the
    subclass's main curve applies. With ``scale_warmup=False`` the warmup is resolved without ssr; with
    ``scale_warmup=True`` the whole warmup (its end and its ramp) is scaled — Composer scales only the ramp
    (deviation 1).
    """

    #: whether t_max must cover max_duration (Composer checks this for the decaying schedules)
    _checks_t_max = True

    def _warmup(self, run: Run, main_times: dict[str, Time]) -> tuple[dict[str, Time], int]:
        """Resolve ``t_warmup`` with ``main_times``; warn once on a zero warmup; check t_max covers the run."""
        unscaled = () if self.scale_warmup else ("t_warmup",)
        times = self._resolve_times(run, {"t_warmup": self.t_warmup, **main_times}, unscaled=unscaled)
        t_warmup = times["t_warmup"].value
        if t_warmup <= 0:
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
        return times, max(t_warmup, 0)


def _after_warmup(t_warmup: int, t_max: int):
    """``x -> (x − t_w)/(t_max − t_w)``, the progress after warmup, which the kernels clamp to [0, 1].

    When ``t_max <= t_w`` it is 0 throughout (Composer: no decay at all).
    """
    if t_max <= t_warmup:
        return lambda x: x * 0.0
    span = t_max - t_warmup
    return lambda x: (x - t_warmup) / span


@register_scheduler(aliases=("multistep_with_warmup",), family="composer")
@attrs.frozen
class MultiStepWithWarmupScheduler(_WarmupSchedule):
    r"""Linear warmup from 0 to 1 over ``t_warmup``, then :class:`MultiStepScheduler`.

    .. math:: \alpha(x) = x / t_w \;(x < t_w), \qquad \gamma^{\#\{i : x \ge m_i\}} \;(x \ge t_w)

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

    t_warmup: Time = time_field()
    milestones: tuple[Time, ...] = milestones_field()
    gamma: float = number_field(0.1, low=0.0)
    scale_warmup: bool = flag_field()

    def _resolve(self, run: Run) -> Curve:
        times, t_warmup = self._warmup(run, _milestone_arguments(self.milestones))
        points, gamma = _points(times), self.gamma
        fn = warmup_ramp(t_warmup, 1.0, lambda x: kernels.multistep(x, points, gamma))
        return Curve(times["t_warmup"].unit, fn, times)


@register_scheduler(aliases=("linear_with_warmup",), family="composer")
@attrs.frozen
class LinearWithWarmupScheduler(_WarmupSchedule):
    r"""Linear warmup from 0 to ``alpha_i``, then linear from ``alpha_i`` to ``alpha_f`` at ``t_max``.

    .. math:: \alpha(x) = \alpha_i x / t_w \;(x < t_w), \qquad
              \alpha_i + (\alpha_f - \alpha_i)\min\!\left(1, \tfrac{x - t_w}{t_{max} - t_w}\right) \;(x \ge t_w)

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

    t_warmup: Time = time_field()
    alpha_i: float = multiplier_field(1.0)
    alpha_f: float = multiplier_field(0.0, final=True)
    t_max: Time = time_field("1dur")
    scale_warmup: bool = flag_field()

    def _resolve(self, run: Run) -> Curve:
        return _linear_with_warmup(self, run, self.alpha_i, self.alpha_f)


def _linear_with_warmup(schedule: _WarmupSchedule, run: Run, a_i: float, a_f: float) -> Curve:
    """The warmup-then-linear curve of :class:`LinearWithWarmupScheduler` and :class:`ConstantWithWarmupScheduler`."""
    times, t_warmup = schedule._warmup(run, schedule._arguments("t_max"))
    progress = _after_warmup(t_warmup, times["t_max"].value)

    def main(x):
        return kernels.linear(progress(x), a_i, a_f)

    return Curve(times["t_max"].unit, warmup_ramp(t_warmup, a_i, main), times)


@register_scheduler(aliases=("constant_with_warmup",), family="composer")
@attrs.frozen
class ConstantWithWarmupScheduler(_WarmupSchedule):
    r"""Linear warmup from 0 to ``alpha``, then hold ``alpha`` (Composer: a linear warmup schedule with equal ends).

    .. math:: \alpha(x) = \alpha\, x / t_w \;(x < t_w), \qquad \alpha \;(x \ge t_w)

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

    t_warmup: Time = time_field()
    alpha: float = multiplier_field(1.0)
    t_max: Time = time_field("1dur")
    scale_warmup: bool = flag_field()

    def _resolve(self, run: Run) -> Curve:
        return _linear_with_warmup(self, run, self.alpha, self.alpha)


@register_scheduler(aliases=("cosine_with_warmup",), family="composer")
@attrs.frozen
class CosineAnnealingWithWarmupScheduler(_WarmupSchedule):
    r"""Linear warmup from 0 to 1, then half a cosine from 1 to ``alpha_f`` at ``t_max``.

    .. math:: \alpha(x) = x / t_w \;(x < t_w), \qquad
              \alpha_f + (1 - \alpha_f)\frac{1 + \cos(\pi \tau)}{2},\;
              \tau = \min\!\left(1, \tfrac{x - t_w}{t_{max} - t_w}\right) \;(x \ge t_w)

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

    t_warmup: Time = time_field()
    t_max: Time = time_field("1dur")
    alpha_f: float = multiplier_field(0.0, final=True)
    scale_warmup: bool = flag_field()

    def _resolve(self, run: Run) -> Curve:
        times, t_warmup = self._warmup(run, self._arguments("t_max"))
        progress, a_f = _after_warmup(t_warmup, times["t_max"].value), self.alpha_f

        def main(x):
            return kernels.cosine(progress(x), 1.0, a_f)

        return Curve(times["t_max"].unit, warmup_ramp(t_warmup, 1.0, main), times)


@register_scheduler(aliases=("polynomial_with_warmup",), family="composer")
@attrs.frozen
class PolynomialWithWarmupScheduler(_WarmupSchedule):
    r"""Linear warmup from 0 to 1, then polynomial decay to ``alpha_f`` at ``t_max``.

    .. math:: \alpha(x) = x / t_w \;(x < t_w), \qquad
              \alpha_f + (1 - \alpha_f)(1 - \tau)^{\mathrm{power}},\;
              \tau = \min\!\left(1, \tfrac{x - t_w}{t_{max} - t_w}\right) \;(x \ge t_w)

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

    t_warmup: Time = time_field()
    power: float = number_field(2.0, low=0.0)
    t_max: Time = time_field("1dur")
    alpha_f: float = multiplier_field(0.0, final=True)
    scale_warmup: bool = flag_field()

    def _resolve(self, run: Run) -> Curve:
        times, t_warmup = self._warmup(run, self._arguments("t_max"))
        progress, power, a_f = _after_warmup(t_warmup, times["t_max"].value), self.power, self.alpha_f

        def main(x):
            return kernels.polynomial(progress(x), power, 1.0, a_f)

        return Curve(times["t_max"].unit, warmup_ramp(t_warmup, 1.0, main), times)
