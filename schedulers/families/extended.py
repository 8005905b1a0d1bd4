"""Schedules Composer lacks, in time units: warmup-stable-decay, inverse square root, one-cycle, cyclic.

Every time argument takes any unit (``"0.1dur"``, ``"2ep"``, ``"500ba"``, ``"1_000_000tok"``) and resolves like
Composer's (:mod:`schedulers.core.run`). Each returns a multiplier of the base lr, which is the peak.
"""

from __future__ import annotations

import math

import attrs

from schedulers.core import kernels
from schedulers.core.composition import piecewise
from schedulers.core.names import register_scheduler
from schedulers.core.run import Run
from schedulers.core.schedule import Curve, Schedule
from schedulers.core.schedule_arguments import (
    argument_repr,
    choice_field,
    flag_field,
    multiplier_field,
    number_field,
    positive_count,
    to_optional_time,
    to_time,
)
from timeunits import Time

__all__ = ["CyclicScheduler", "InverseSquareRootScheduler", "OneCycleScheduler", "WarmupStableDecayScheduler"]


@register_scheduler(aliases=("wsd", "warmup_stable_decay"), family="cadence")
@attrs.frozen
class WarmupStableDecayScheduler(Schedule):
    r"""Warmup, a long stable phase at the peak, then a decay over the last ``t_decay`` of ``t_max``.

    With :math:`t_s = t_{max} - t_{decay}` and :math:`p = \mathrm{clamp}((x - t_s)/t_{decay}, 0, 1)`:

    .. math::
        \alpha(x) = \min(1, x / t_w)\,\bigl(\alpha_f + (1 - \alpha_f)\,g(p)\bigr), \quad
        g = 1 - p \;(\text{linear}),\; \tfrac{1 + \cos \pi p}{2} \;(\text{cosine}),\; 1 - \sqrt{p} \;(\text{1-sqrt})

    Args:
        t_warmup: The warmup's length, a time in any unit (``dur``: of the run); unscaled unless ``scale_warmup``.
        t_decay: The decay's length, a time in any unit (``dur``: of the run).
        alpha_f: The end multiplier, >= 0.
        decay_shape: ``linear``, ``cosine`` or ``1-sqrt``.
        t_max: Where the decay ends, a time in any unit (``dur``: of the run).
        scale_warmup: Whether the ratio scales the warmup too.

    Returns:
        Called as ``schedule(state, ssr=1.0)``: the multiplier α at ``state.timestamp``; ``resolve(...)`` gives
        the curve for a run (docs/schedules.md).

    Raises:
        ValueError: A bad argument, naming it, when the schedule is built.
        ValueError: A warmup that ends after the decay starts, or ``t_decay`` resolving to 0.

    >>> curve = WarmupStableDecayScheduler("10ba", t_decay="20ba", alpha_f=0.1).resolve("100ba")
    >>> curve(5), curve(50), curve(90), curve(100)
    (0.5, 1.0, 0.55, 0.1)
    """

    t_warmup: Time = attrs.field(converter=to_time, repr=argument_repr)
    t_decay: Time = attrs.field(default="0.2dur", converter=to_time, repr=argument_repr)
    alpha_f: float = multiplier_field(0.0, final=True)
    decay_shape: str = choice_field("linear", kernels.DECAY_SHAPES)
    t_max: Time = attrs.field(default="1dur", converter=to_time, repr=argument_repr)
    scale_warmup: bool = flag_field()

    def _resolve(self, run: Run) -> Curve:
        unscaled = () if self.scale_warmup else ("t_warmup",)
        times = self._resolve_times(run, self._arguments("t_warmup", "t_decay", "t_max"), unscaled=unscaled)
        warmup, t_max = times["t_warmup"].value, times["t_max"].value
        decay = positive_count("t_decay", times["t_decay"], self.t_decay)
        stable_end = t_max - decay
        if not 0 <= warmup <= stable_end:
            raise ValueError(
                f"t_warmup={self.t_warmup} ({times['t_warmup']}) must end before the decay starts at t_max - t_decay "
                f"= {stable_end}{times['t_max'].unit.value} (t_max={self.t_max}, t_decay={self.t_decay})"
            )
        a_f, shape = self.alpha_f, self.decay_shape
        return Curve(
            times["t_max"].unit,
            lambda x: kernels.warmup_stable_decay(x, warmup, stable_end, t_max, a_f, shape),
            times,
        )


@register_scheduler(aliases=("inverse_sqrt", "rsqrt"), family="cadence")
@attrs.frozen
class InverseSquareRootScheduler(Schedule):
    r"""Linear warmup to 1 over ``t_warmup``, then decay as the inverse square root of time.

    .. math:: \alpha(x) = x / t_w \;(x < t_w), \qquad \sqrt{t_w / x} \;(x \ge t_w)

    Args:
        t_warmup: The warmup's length and the decay's timescale, a time in any unit (``dur``: of the run).
        scale_warmup: Whether the ratio scales the warmup too.

    Returns:
        Called as ``schedule(state, ssr=1.0)``: the multiplier α at ``state.timestamp``; ``resolve(...)`` gives
        the curve for a run (docs/schedules.md).

    Raises:
        ValueError: A bad argument, naming it, when the schedule is built.
        ValueError: ``t_warmup`` resolving to 0 for a run.

    >>> curve = InverseSquareRootScheduler("100ba").resolve("10000ba")
    >>> curve(50), curve(100), curve(400)
    (0.5, 1.0, 0.5)
    """

    t_warmup: Time = attrs.field(converter=to_time, repr=argument_repr)
    scale_warmup: bool = flag_field()

    def _resolve(self, run: Run) -> Curve:
        unscaled = () if self.scale_warmup else ("t_warmup",)
        times = self._resolve_times(run, self._arguments("t_warmup"), unscaled=unscaled)
        warmup = positive_count("t_warmup", times["t_warmup"], self.t_warmup)  # it is also the decay's timescale
        scale = math.sqrt(warmup)
        pieces = (lambda x: x / warmup, lambda x: kernels.inverse_sqrt(x, scale, warmup))
        return Curve(times["t_warmup"].unit, piecewise((warmup,), pieces), times)


@register_scheduler(aliases=("one_cycle", "onecycle"), family="cadence")
@attrs.frozen
class OneCycleScheduler(Schedule):
    r"""The 1cycle policy (torch's ``OneCycleLR``) over ``t_max``, as a multiplier of the peak lr.

    From :math:`1/\mathrm{div\_factor}` up to 1 over ``pct_start`` of ``t_max``, then down to
    :math:`1/(\mathrm{div\_factor}\cdot\mathrm{final\_div\_factor})` (``three_phase``: back to the start
    value first), annealing by ``anneal_strategy`` (``"cos"`` or ``"linear"``); see
    :func:`schedulers.core.kernels.one_cycle` for the exact phase boundaries.

    Args:
        t_max: The cycle's length, a time in any unit (``dur``: of the run).
        pct_start: The rising part, in (0, 1).
        div_factor: Peak / start, > 0.
        final_div_factor: Start / end, > 0.
        anneal_strategy: ``cos`` or ``linear``.
        three_phase: Whether to come back to the start value before the final decay.

    Returns:
        Called as ``schedule(state, ssr=1.0)``: the multiplier α at ``state.timestamp``; ``resolve(...)`` gives
        the curve for a run (docs/schedules.md).

    Raises:
        ValueError: A bad argument, naming it, when the schedule is built.
        ValueError: ``t_max`` resolving to 0, or phases of no length.

    >>> curve = OneCycleScheduler(div_factor=4.0).resolve("100ba")
    >>> curve(0), curve(29)
    (0.25, 1.0)
    """

    t_max: Time = attrs.field(default="1dur", converter=to_time, repr=argument_repr)
    pct_start: float = number_field(0.3, low=0.0, low_open=True)
    div_factor: float = number_field(25.0, low=0.0, low_open=True)
    final_div_factor: float = number_field(1e4, low=0.0, low_open=True)
    anneal_strategy: str = choice_field("cos", kernels.ANNEAL_STRATEGIES)
    three_phase: bool = flag_field()

    def __attrs_post_init__(self) -> None:
        if self.pct_start >= 1:
            raise ValueError(f"pct_start={self.pct_start!r} must be in (0, 1)")

    def _resolve(self, run: Run) -> Curve:
        times = self._resolve_times(run, self._arguments("t_max"))
        total = positive_count("t_max", times["t_max"], self.t_max)
        start = 1.0 / self.div_factor
        floor = start / self.final_div_factor
        args = (total, 1.0, start, floor, self.pct_start, self.anneal_strategy, self.three_phase)
        kernels.one_cycle(0.0, *args)  # validate the phases now, not at the first step
        return Curve(times["t_max"].unit, lambda x: kernels.one_cycle(x, *args), times)


@register_scheduler(aliases=("cyclic", "clr"), family="cadence")
@attrs.frozen
class CyclicScheduler(Schedule):
    r"""Cyclical lr between ``base_ratio`` and 1 (torch's ``CyclicLR`` shape), with times in any unit.

    One cycle rises over ``t_up`` and falls over ``t_down`` (default ``t_up``); ``mode`` is ``"triangular"``,
    ``"triangular2"`` (the amplitude halves each cycle) or ``"exp_range"`` (the amplitude decays as
    :math:`\gamma^x`, with :math:`x` counted in the resolved unit). See :func:`schedulers.core.kernels.cyclic`.

    Args:
        t_up: The rising half of a cycle, a time in any unit (``dur``: of the run).
        t_down: The falling half (None: ``t_up``).
        base_ratio: The low multiplier, >= 0.
        mode: ``triangular``, ``triangular2`` or ``exp_range``.
        gamma: The amplitude's decay per count in ``exp_range``, > 0.

    Returns:
        Called as ``schedule(state, ssr=1.0)``: the multiplier α at ``state.timestamp``; ``resolve(...)`` gives
        the curve for a run (docs/schedules.md).

    Raises:
        ValueError: A bad argument, naming it, when the schedule is built.
        ValueError: ``t_up`` or ``t_down`` resolving to 0 for a run.

    >>> curve = CyclicScheduler("10ba", base_ratio=0.1).resolve("100ba")
    >>> curve(0), curve(10), curve(20)
    (0.1, 1.0, 0.1)
    """

    t_up: Time = attrs.field(converter=to_time, repr=argument_repr)
    t_down: Time | None = attrs.field(default=None, converter=to_optional_time, repr=argument_repr)
    base_ratio: float = multiplier_field(0.1)
    mode: str = choice_field("triangular", kernels.CYCLIC_MODES)
    gamma: float = number_field(1.0, low=0.0, low_open=True)

    def _resolve(self, run: Run) -> Curve:
        names = ("t_up",) if self.t_down is None else ("t_up", "t_down")
        times = self._resolve_times(run, self._arguments(*names))
        up = positive_count("t_up", times["t_up"], self.t_up)
        down = up if self.t_down is None else positive_count("t_down", times["t_down"], self.t_down)
        base, mode, gamma = self.base_ratio, self.mode, self.gamma
        return Curve(times["t_up"].unit, lambda x: kernels.cyclic(x, base, 1.0, up, down, mode, gamma), times)
