"""Composition in time units: a warmup in front of any schedule, a sequence of schedules, a product.

All three are :class:`~schedulers.core.schedule.Schedule` objects themselves, so they nest, compile to torch and
evaluate over a whole run like any other schedule.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Iterable
from collections.abc import Sequence as Seq
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from schedulers.core import kernels
from schedulers.core.kernels import ops
from schedulers.core.names import register_scheduler
from schedulers.core.run import WHOLE_RUN, Run, StateLike
from schedulers.core.schedule import CallableKind, Curve, FunctionSchedule, Schedule, callable_kind
from schedulers.core.schedule_arguments import (
    FrozenList,
    argument_repr,
    flag_field,
    named_converter,
    to_time,
    to_times,
)
from timeunits import Time, TimeUnit

__all__ = ["Product", "Sequence", "Warmup", "piecewise", "sequence_curve", "warmup_ramp"]


def _schedules(name: str, value: object) -> FrozenList:
    """A non-empty list of schedules as a tuple, or a ValueError naming the argument (or the bad item)."""
    items = list(value) if isinstance(value, Iterable) and not isinstance(value, (str, Schedule)) else None
    if not items:
        raise ValueError(f"{name} must be a non-empty list of schedules, got {value!r}")
    for i, item in enumerate(items):
        if not isinstance(item, Schedule):
            raise ValueError(f"{name}[{i}]={item!r} is not a Cadence schedule (a schedulers.Schedule)")
    return FrozenList(items, name)


def _schedule(value: object) -> Schedule:
    if not isinstance(value, Schedule):
        raise ValueError(f"schedule={value!r} is not a Cadence schedule (a schedulers.Schedule)")
    return value


# Typed for attrs' mypy plugin as schedule_arguments.to_time is: a list of schedules is accepted.
if TYPE_CHECKING:

    def _to_schedules(value: Iterable[Schedule], /) -> FrozenList:
        """A non-empty list of schedules, kept as a :class:`FrozenList`."""

else:
    _to_schedules = named_converter(_schedules)


def warmup_ramp(t_warmup: int, peak: float, main: Callable[[Any], Any]) -> Callable[[Any], Any]:
    r"""``main`` with a linear warmup from 0 to ``peak`` in front: the one warmup ramp of Cadence.

    .. math:: \alpha(x) = \mathrm{peak} \cdot \mathrm{warmup}(x, t_w) \;(x < t_w), \qquad \mathrm{main}(x) \;(x \ge t_w)

    with :func:`schedulers.core.kernels.warmup` the ramp; no ramp at all when ``t_w = 0``.

    Args:
        t_warmup: The warmup's end, a count.
        peak: The value the ramp reaches.
        main: The curve from ``t_warmup`` on (a float or tensor function).

    Returns:
        The ramped curve.

    >>> ramped = warmup_ramp(10, 2.0, lambda x: 1.0)
    >>> ramped(0.0), ramped(5.0), ramped(10.0)
    (0.0, 1.0, 1.0)
    """
    if t_warmup <= 0:
        return main
    return piecewise((t_warmup,), (lambda x: peak * kernels.warmup(x, t_warmup), main))


def piecewise(
    boundaries: tuple[int, ...], pieces: tuple[Callable[[Any], Any], ...], starts: tuple[int, ...] | None = None
) -> Callable[[Any], Any]:
    r"""One curve of ``pieces``: piece :math:`i` holds from boundary :math:`b_{i-1}` (0 for the first) until
    :math:`b_i` and reads the count since its start.

    .. math:: \alpha(x) = p_i(x - s_i), \qquad i = \#\{j : b_j \le x\}

    On a Python number only the piece that holds is called, picked by comparing with the boundaries directly
    (the per-step path: no op namespace, no wrapper per piece); on a tensor every piece is evaluated
    (:meth:`TensorOps.piecewise <schedulers.core.kernels.TensorOps.piecewise>`).

    Args:
        boundaries: Where each piece after the first begins, a sorted tuple of counts.
        pieces: One function per interval, ``len(boundaries) + 1`` of them (float and tensor alike).
        starts: Each piece's origin :math:`s_i` (None: 0 for every piece, so each reads the run's own count).

    Returns:
        The curve, a function of a number or a tensor of counts.

    >>> curve = piecewise((10,), (lambda x: x / 10, lambda x: 1.0 - x / 100), starts=(0, 10))
    >>> curve(5), curve(10), curve(60)
    (0.5, 1.0, 0.5)
    """
    starts = (0,) * len(pieces) if starts is None else starts
    if len(pieces) == 1 and starts[0] == 0:  # one piece: the curve is that piece (its marks, fraction, kept)
        return pieces[0]
    shifted = tuple(_shifted(piece, start) for piece, start in zip(pieces, starts, strict=True))
    if len(pieces) == 2 and starts[0] == 0:  # a warmup and what follows it: one comparison
        (boundary,), (first, second), start = boundaries, pieces, starts[1]

        def two_pieces(x):
            kind = type(x)
            if kind is int or kind is float:
                return first(x) if x < boundary else second(x - start)
            return ops(x).piecewise(x, boundaries, shifted)

        two_pieces.split = (boundary, first, second, start)  # for a bound schedule's step (base._of_timestamp)
        return two_pieces

    def pieces_at(x):
        kind = type(x)
        if kind is int or kind is float:
            return shifted[bisect_right(boundaries, x)](x)
        return ops(x).piecewise(x, boundaries, shifted)

    return pieces_at


def _child_curve(run: Run, child: Schedule, label: str, unit) -> Curve:
    curve = child._resolve(run)
    if curve.unit is not unit:
        raise ValueError(
            f"{label} ({type(child).__name__}) resolves to {curve.unit.value} but the schedule around it counts in "
            f"{unit.value}: all times of one schedule must resolve to one unit"
        )
    return curve


@register_scheduler(family="cadence")
@attrs.frozen
class Warmup(Schedule):
    r"""A linear warmup in front of any schedule ``s``: from 0 to ``s(t_w)`` over ``t_warmup``, then ``s``.

    .. math:: \alpha(x) = s(t_w)\, x / t_w \;(x < t_w), \qquad s(x) \;(x \ge t_w)

    ``s`` sees the run's own time (it is not shifted by the warmup; use :class:`Sequence` for that).
    ``scale_warmup=True`` scales the warmup by ssr like every other time; by default it is not scaled.

    Args:
        schedule: The schedule after the warmup (a Cadence schedule).
        t_warmup: The warmup's length, a time in any unit (``dur``: of the run).
        scale_warmup: Whether the ratio scales the warmup too.

    Returns:
        Called as ``schedule(state, ssr=1.0)``: the multiplier α at ``state.timestamp``; ``resolve(...)`` gives
        the curve for a run (docs/schedules.md).

    Raises:
        ValueError: A bad argument, naming it, when the schedule is built.
        ValueError: A warmup that resolves to another unit than the schedule's.

    >>> from schedulers import StepScheduler
    >>> curve = Warmup(StepScheduler("50ba", gamma=0.5), t_warmup="10ba").resolve("100ba")
    >>> curve(0), curve(5), curve(10), curve(60)
    (0.0, 0.5, 1.0, 0.5)
    """

    schedule: Schedule = attrs.field(converter=_schedule)
    t_warmup: Time = attrs.field(converter=to_time, repr=argument_repr)
    scale_warmup: bool = flag_field()

    def _resolve(self, run: Run) -> Curve:
        inner = self.schedule._resolve(run)
        times = {"t_warmup": run.count("t_warmup", self.t_warmup, scale=self.scale_warmup)}
        w = times["t_warmup"].value
        if times["t_warmup"].unit is not inner.unit:
            raise ValueError(
                f"t_warmup={self.t_warmup} resolves to {times['t_warmup']} but the schedule counts in "
                f"{inner.unit.value}: all times of one schedule must resolve to one unit"
            )
        origins = _child_times("schedule", inner, 0, times)
        if w <= 0:
            self._warn_once("zero-warmup", f"Warmup: t_warmup={self.t_warmup} resolves to 0; there is no warmup")
            return Curve(inner.unit, inner.fn, times, inner.plateaus, origins)
        plateaus = tuple(placed.within(lambda x: None if x < w else x) for placed in inner.plateaus)
        return Curve(inner.unit, warmup_ramp(w, float(inner.fn(float(w))), inner.fn), times, plateaus, origins)


@register_scheduler(aliases=("sequential",), family="cadence")
@attrs.frozen
class Sequence(Schedule):
    r"""Schedules one after another, switching at ``milestones`` (times of the run).

    With :math:`m_0 = 0` and :math:`m_{n} =` the run's length, schedule :math:`i` applies on
    :math:`[m_i, m_{i+1})` and sees the time since its segment began, :math:`x - m_i`; a ``dur`` inside it is a
    fraction of its own segment.

    A subclass may set :attr:`segment_times` False for the rule of Cerebras's ``SequentialLR``
    (:class:`schedulers.families.cerebras.Sequential`, docs/cerebras.md): each schedule's times are times of the
    whole run, not of its segment, and a segment may be empty (equal milestones, or a milestone past the run's
    end); each schedule still sees the time since its segment began.

    Args:
        schedules: The schedules, one per segment (a non-empty list).
        milestones: Where each segment after the first starts, one fewer than ``schedules``.

    Returns:
        Called as ``schedule(state, ssr=1.0)``: the multiplier α at ``state.timestamp``; ``resolve(...)`` gives
        the curve for a run (docs/schedules.md).

    Raises:
        ValueError: A bad argument, naming it, when the schedule is built.
        ValueError: An empty segment, or parts in different units.

    >>> from schedulers import LinearScheduler, CosineAnnealingScheduler
    >>> warm_then_cosine = Sequence([LinearScheduler(0.0, 1.0), CosineAnnealingScheduler()], ["0.1dur"])
    >>> curve = warm_then_cosine.resolve("100ba")
    >>> curve(5), curve(10), curve(55), curve(100)
    (0.5, 1.0, 0.5, 0.0)
    """

    schedules: tuple[Schedule, ...] = attrs.field(converter=_to_schedules, repr=argument_repr)
    milestones: tuple[Time, ...] = attrs.field(converter=to_times, repr=argument_repr)
    #: True: a schedule's times are of its own segment, which may not be empty (Composer's rule); False: of the
    #: whole run, and a segment may be empty (Cerebras's ``SequentialLR``)
    segment_times: ClassVar[bool] = True

    def __attrs_post_init__(self) -> None:
        if len(self.milestones) != len(self.schedules) - 1:
            raise ValueError(
                f"{len(self.schedules)} schedules need {len(self.schedules) - 1} milestones, got {len(self.milestones)}"
            )

    def _resolve(self, run: Run) -> Curve:
        given = {f"milestones[{i}]": m for i, m in enumerate(self.milestones)}
        given["max_duration"] = WHOLE_RUN
        times = self._resolve_times(run, given)
        end = times.pop("max_duration")
        unit = end.unit
        edges = [0, *(t.value for t in times.values()), end.value]
        for i in range(len(edges) - 1 if self.segment_times else 0):
            if edges[i + 1] <= edges[i]:
                raise ValueError(
                    f"Sequence segment {i} is empty: it runs from {edges[i]}{unit.value} to {edges[i + 1]}{unit.value} "
                    f"(milestones {[str(m) for m in self.milestones]} within max_duration={run.length})"
                )
        return sequence_curve(run, unit, edges, self.schedules, times, segment_times=self.segment_times)


def sequence_curve(
    run: Run,
    unit: TimeUnit,
    edges: list[int],
    schedules: Seq[Schedule],
    times: dict[str, Time],
    *,
    segment_times: bool = True,
) -> Curve:
    r"""Schedules one after another as one curve: schedule :math:`i` resolved on its own segment
    :math:`[e_i, e_{i+1})` of ``run`` and reading the count since the segment began, :math:`x - e_i`.

    What a :class:`Sequence` resolves to once its milestones are counts, and what a composition of parts whose
    times it has already resolved and checked resolves to directly (Composer's warmup classes): the edges are
    not resolved or checked again, and no Sequence is built.

    Args:
        run: The run the segments are parts of (:meth:`Run.part <schedulers.core.run.Run.part>`).
        unit: The unit of the edges, which every schedule must resolve to.
        edges: ``0``, where each segment after the first starts, and the end of the last, increasing counts.
        schedules: One schedule per segment.
        times: The times resolved so far (a Sequence's milestones); each schedule's are added, by position.
        segment_times: Whether a schedule's times are of its segment (Composer's rule), else of the whole run
            (:attr:`Sequence.segment_times`).

    Returns:
        The curve: piecewise in the schedules' closed forms, their plateaus placed on their segments' clocks.

    Raises:
        ValueError: A schedule's own checks for its segment, or a schedule that resolves to another unit.

    >>> from schedulers import CosineAnnealingScheduler, LinearScheduler
    >>> parts = [LinearScheduler(0.0, 1.0, t_max="10ba"), CosineAnnealingScheduler(t_max="90ba")]
    >>> curve = sequence_curve(Run("100ba"), TimeUnit.BATCH, [0, 10, 100], parts, {})
    >>> curve(5), curve(10), curve(55)
    (0.5, 1.0, 0.5)
    """
    pieces, plateaus, origins = [], [], {}
    last = len(schedules) - 1
    for i, child in enumerate(schedules):
        start, length = edges[i], edges[i + 1] - edges[i]
        segment = run.part(Time(length, unit)) if segment_times else run
        curve = _child_curve(segment, child, f"schedules[{i}]", unit)
        origins.update(_child_times(f"schedules[{i}]", curve, start, times))  # its clock starts with its segment
        pieces.append(curve.fn)
        end = edges[i + 1] if i < last else math.inf
        plateaus += [placed.within(_segment_clock(start, end)) for placed in curve.plateaus]
    fn = piecewise(tuple(edges[1:-1]), tuple(pieces), tuple(edges[:-1]))
    return Curve(unit, fn, times, tuple(plateaus), origins)


def _child_times(prefix: str, curve: Curve, start: int, times: dict[str, Time]) -> dict[str, int]:
    """Add a child's resolved times to ``times``, each named ``prefix.name``; return where each one's clock starts
    in the parent's count (:attr:`Curve.origins <schedulers.core.schedule.Curve>`), for those not at 0."""
    times.update({f"{prefix}.{name}": time for name, time in curve.times.items()})
    starts = {name: start + curve.origins.get(name, 0) for name in curve.times}
    return {f"{prefix}.{name}": origin for name, origin in starts.items() if origin}


def _segment_clock(start: float, end: float) -> Callable[[float], float | None]:
    """A segment's own count at the run's count ``x`` (``x - start``), or None outside ``[start, end)``."""
    return lambda x: x - start if start <= x < end else None


def _shifted(fn, start: int):
    if start == 0:
        return fn
    return lambda x: fn(x - start)


def _factors(name: str, value: object) -> FrozenList:
    """A product's factors: a non-empty list of schedules, each a Cadence schedule or a ``(state, ssr)``
    callable (:mod:`schedulers.core.schedule`' rule), as a tuple; else a ValueError naming the bad item."""
    items = list(value) if isinstance(value, Iterable) and not isinstance(value, (str, Schedule)) else None
    if not items:
        raise ValueError(f"{name} must be a non-empty list of schedules, got {value!r}")
    for i, item in enumerate(items):
        if callable_kind(item) is not CallableKind.SCHEDULE:
            raise ValueError(
                f"{name}[{i}]={item!r} is not a schedule (a schedulers.Schedule or a (state, ssr) callable)"
            )
    return FrozenList(items, name)


@register_scheduler(family="cadence")
@attrs.frozen
class Product(Schedule):
    r"""The product of schedules: :math:`\alpha(x) = \prod_i s_i(x)`, e.g. a decay times a cyclic factor.

    Called on a state, it is the product of its factors' values, each factor resolved for the run on its own:
    so the factors may count in different units (one in batches, one in tokens), and a factor may be a function
    of the state (:func:`schedulers.as_schedule`, or any ``(state, ssr)`` callable). That is how the schedules
    the trainer drives on one hyperparameter multiply. Its closed form (:meth:`resolve`, whole-run evaluation)
    needs factors that are Cadence schedules resolving to one unit.

    Args:
        schedules: The factors (a non-empty list): Cadence schedules or ``(state, ssr)`` callables.

    Returns:
        Called as ``schedule(state, ssr=1.0)``: the product of the factors at ``state.timestamp``;
        ``resolve(...)`` gives the curve for a run (factors that are Cadence schedules in one unit).

    Raises:
        ValueError: A bad argument, naming it, when the schedule is built; factors in two units, when resolved.
        TypeError: Resolving a product with a factor that is a function of the state.

    >>> from schedulers import LinearScheduler, StepScheduler
    >>> curve = Product([LinearScheduler(), StepScheduler("50ba", gamma=0.5)]).resolve("100ba")
    >>> curve(25), curve(50)
    (0.75, 0.25)
    """

    schedules: tuple[Schedule, ...] = attrs.field(converter=named_converter(_factors), repr=argument_repr)

    def __attrs_post_init__(self) -> None:
        closed = all(isinstance(s, Schedule) and not isinstance(s, FunctionSchedule) for s in self.schedules)
        object.__setattr__(self, "_closed", closed)  # beside the fields, as the resolution cache (base.py)

    def __call__(self, state: StateLike, ssr: float = 1.0) -> float:
        alpha = 1.0
        for schedule in self.schedules:
            alpha = alpha * schedule(state, ssr)
        return alpha

    def bind(self, run: Run) -> Callable[[StateLike], float]:
        """The product of the factors, each bound to ``run`` (a Cadence schedule resolved once for it).

        Args:
            run: The run the state's clock counts.

        Returns:
            A function of the state: the product of the factors' values.

        Raises:
            ValueError: A factor's own checks for ``run``.

        >>> from schedulers import LinearScheduler, SchedulerState, StepScheduler
        >>> from timeunits import Timestamp
        >>> alpha = Product([LinearScheduler(), StepScheduler("50ba", gamma=0.5)]).bind(Run("100ba"))
        >>> alpha(SchedulerState("100ba", Timestamp(batch=50)))
        0.25
        """
        ssr = run.ssr
        alphas = tuple(
            factor.bind(run) if isinstance(factor, Schedule) else (lambda state, f=factor: f(state, ssr))
            for factor in self.schedules
        )

        def alpha(state: StateLike) -> float:
            result = 1.0
            for factor in alphas:
                result = result * factor(state)
            return result

        return alpha

    def _resolve(self, run: Run) -> Curve:
        if not self._closed:
            raise TypeError(f"{self!r} has a factor that is a function of the state: it has no closed form to resolve")
        curves = [self.schedules[0]._resolve(run)]
        unit = curves[0].unit
        curves += [_child_curve(run, child, f"schedules[{i}]", unit) for i, child in enumerate(self.schedules[1:], 1)]
        times: dict[str, Time] = {}
        origins: dict[str, int] = {}
        for i, curve in enumerate(curves):
            origins.update(_child_times(f"schedules[{i}]", curve, 0, times))
        fns = tuple(curve.fn for curve in curves)

        def fn(x):
            result = fns[0](x)
            for other in fns[1:]:
                result = result * other(x)
            return result

        return Curve(unit, fn, times, tuple(placed for curve in curves for placed in curve.plateaus), origins)
