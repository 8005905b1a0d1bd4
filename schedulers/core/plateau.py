r"""A schedule that listens: :class:`PlateauScheduler` multiplies by ``factor`` when a metric stops improving.

The schedule itself is a frozen value and a pure function of time, like every schedule: its ``reductions``
(the times of its own clock at which a run reduced) make it

.. math:: \alpha(x) = \ell_{\#\{i \,:\, r_i \le x\}}, \qquad \ell_0 = 1,\quad
          \ell_k = \max(\ell_{k-1} \cdot \mathrm{factor},\ \mathrm{min\_factor})

so with none (as written in a config) it is the constant 1: the curve a preview shows. The decisions are
torch's ``ReduceLROnPlateau``'s, made by a :class:`PlateauState` that the compiled scheduler owns and feeds at
each evaluation (:meth:`~schedulers.core.torch_scheduler.CompiledScheduler.observe`); each reduction gives the
scheduler the same schedule with one more time in ``reductions``, and the state goes into the trainer's
checkpoint (docs/plateau.md). The compiled scheduler finds a schedule's plateaus with :meth:`Plateaus.of`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs

from schedulers.core import kernels
from schedulers.core.names import register_scheduler
from schedulers.core.run import Run, StateLike
from schedulers.core.schedule import Curve, Schedule
from schedulers.core.schedule_arguments import (
    argument_repr,
    choice_field,
    named_converter,
    number_argument,
    number_field,
    time_argument,
    to_times,
)
from timeunits import Time, Timestamp

__all__ = [
    "PlacedPlateau",
    "Plateaus",
    "PlateauScheduler",
    "PlateauState",
    "evaluations_or_time",
    "improves",
    "plateaus_in",
    "plateau_levels",
    "preview_note",
    "with_reductions",
]


def evaluations_or_time(name: str, value: object) -> int | Time:
    """A patience or a cooldown: a count of evaluations (an int >= 0) or a time (``"2ep"``, ``"0.05dur"``).

    The one check of it, for a plateau's ``patience``/``cooldown`` and ``EarlyStopping``'s ``patience``.

    Args:
        name: The argument's name, which an error starts with.
        value: What was given.

    Returns:
        An int counts evaluations; a :class:`~timeunits.Time` (a time string parsed) is measured on the
        schedule's clock once resolved for a run.

    Raises:
        ValueError: A negative count or time, a bool, or something that is neither, naming ``name``.

    >>> evaluations_or_time("patience", 0), evaluations_or_time("patience", "2ep")
    (0, Time(2, TimeUnit.EPOCH))
    """
    if isinstance(value, bool):
        raise ValueError(f"{name}={value!r} must be a count of evaluations (an int >= 0) or a time such as '2ep'")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"{name}={value!r} must be >= 0 (a count of evaluations) or a time such as '2ep'")
        return value
    return time_argument(name, value)


def _factor(name: str, value: object) -> float:
    factor = number_argument(name, value, low=0.0)
    if factor >= 1.0:
        raise ValueError(f"{name}={value!r} must be < 1 (torch's ReduceLROnPlateau: 'Factor should be < 1.0')")
    return factor


def improves(value: float, best: float, mode: str, threshold: float, threshold_mode: str) -> bool:
    r"""Whether ``value`` improves on ``best``: the one rule of a plateau and of early stopping (torch's
    ``is_better``; Lightning's ``min_delta`` is ``threshold_mode="abs"``).

    .. math:: v < b(1 - t) \;(\text{min, rel}),\quad v < b - t \;(\text{min, abs}),\quad
              v > b(1 + t) \;(\text{max, rel}),\quad v > b + t \;(\text{max, abs})

    Args:
        value: The new value.
        best: The best so far (``inf`` for ``min``, ``-inf`` for ``max`` before any).
        mode: ``"min"`` or ``"max"``.
        threshold: The margin.
        threshold_mode: ``"rel"`` or ``"abs"``.

    Returns:
        True when it improves.

    >>> improves(0.95, 1.0, "min", 0.1, "rel"), improves(0.95, 1.0, "min", 0.01, "abs")
    (False, True)
    """
    if mode == "min":
        return value < best * (1.0 - threshold) if threshold_mode == "rel" else value < best - threshold
    return value > best * (threshold + 1.0) if threshold_mode == "rel" else value > best + threshold


def plateau_levels(count: int, factor: float, min_factor: float) -> tuple[float, ...]:
    r"""The multiplier after each of ``count`` reductions: :math:`\ell_k = \max(\ell_{k-1} f, m)`, from 1.

    Computed step by step, as torch's ``ReduceLROnPlateau`` multiplies the lr it finds.

    Args:
        count: The number of reductions.
        factor: The factor of each.
        min_factor: The floor.

    Returns:
        ``count + 1`` levels, the first 1.0.

    >>> plateau_levels(3, 0.5, 0.2)
    (1.0, 0.5, 0.25, 0.2)
    """
    levels = [1.0]
    for _ in range(count):
        levels.append(max(levels[-1] * factor, min_factor))
    return tuple(levels)


@register_scheduler(aliases=("plateau", "reduce_lr_on_plateau"), family="cadence")
@attrs.frozen
class PlateauScheduler(Schedule):
    r"""Multiply by ``factor`` when ``monitor`` has not improved for ``patience`` (torch's ``ReduceLROnPlateau``).

    .. math:: \alpha(x) = \ell_{\#\{i : r_i \le x\}}, \qquad \ell_0 = 1,\;
              \ell_k = \max(\ell_{k-1}\,\mathrm{factor},\ \mathrm{min\_factor})

    where :math:`r_i` are the ``reductions``. An evaluation's value :math:`v` improves on the best :math:`b`
    when :math:`v < b(1 - \mathrm{threshold})` (``mode="min"``, ``threshold_mode="rel"``),
    :math:`v < b - \mathrm{threshold}` (``"abs"``), or :math:`v > b(1 + \mathrm{threshold})` /
    :math:`v > b + \mathrm{threshold}` (``mode="max"``); after more than ``patience`` without one the
    multiplier is reduced, unless that changes it by ``eps`` or less, and the next ``cooldown`` is ignored.
    ``patience`` and ``cooldown`` are counts of evaluations (ints, as torch's) or times of this schedule's
    own clock (``"2ep"``, ``"0.05dur"``), resolved like every time of a schedule. The trainer decides; a
    preview, having no metric, shows ``reductions`` as given (none: the constant 1) (docs/plateau.md).

    Args:
        monitor: The metric it listens to (``"eval/loss"``).
        mode: ``"min"`` (lower is better) or ``"max"``.
        factor: The multiplier of each reduction, in [0, 1).
        patience: Evaluations (an int) or a time without improvement before a reduction.
        threshold: How much better a value must be to count as an improvement.
        threshold_mode: ``"rel"`` (a fraction of the best) or ``"abs"``.
        cooldown: Evaluations (an int) or a time after a reduction during which nothing is counted.
        min_factor: The lowest multiplier (torch's ``min_lr`` over the base lr).
        eps: A reduction that changes the multiplier by ``eps`` or less is skipped (torch's ``eps``).
        reductions: The times (of this schedule's clock) at which a run reduced, increasing: a logged run, to
            plot. A time given twice is two reductions then (a run stepped per epoch logs each reduction at its
            epoch's start).

    Returns:
        Called as ``schedule(state, ssr=1.0)``: the multiplier α at ``state.timestamp``.

    Raises:
        ValueError: A bad argument, naming it, when the schedule is built.

    >>> plateau = PlateauScheduler(factor=0.5, patience=2)
    >>> plateau.resolve("100ba")(99)
    1.0
    >>> PlateauScheduler(factor=0.5, reductions=["40ba", "70ba"]).resolve("100ba")(75)
    0.25
    """

    monitor: str = attrs.field(default="eval/loss")
    mode: str = choice_field("min", ("min", "max"))
    factor: float = attrs.field(default=0.1, converter=named_converter(_factor))
    patience: int | Time = attrs.field(default=10, converter=named_converter(evaluations_or_time), repr=argument_repr)
    threshold: float = number_field(1e-4, low=0.0)
    threshold_mode: str = choice_field("rel", ("rel", "abs"))
    cooldown: int | Time = attrs.field(default=0, converter=named_converter(evaluations_or_time), repr=argument_repr)
    min_factor: float = number_field(0.0, low=0.0)
    eps: float = number_field(1e-8, low=0.0)
    reductions: tuple[Time, ...] = attrs.field(default=(), converter=to_times, repr=argument_repr)

    @monitor.validator
    def _check_monitor(self, attribute: attrs.Attribute, value: object) -> None:
        if not isinstance(value, str) or not value:
            raise ValueError(f"monitor={value!r} must be the name of a metric the run logs, such as 'eval/loss'")

    def _resolve(self, run: Run) -> Curve:
        logged = {f"reductions[{i}]": r for i, r in enumerate(self.reductions)}  # times of a run: never scaled
        given = {"max_duration": Time(1.0, "dur"), **logged}
        given.update({name: time for name in ("patience", "cooldown") if isinstance(time := getattr(self, name), Time)})
        times = self._resolve_times(run, given, unscaled=tuple(logged))
        unit = times.pop("max_duration").unit
        logged_times = tuple(times[f"reductions[{i}]"].value for i in range(len(self.reductions)))
        if any(b < a for a, b in zip(logged_times, logged_times[1:], strict=False)):
            raise ValueError(f"reductions={argument_repr(self.reductions)} must be increasing times")
        # a time repeated is several reductions at that time: stepped per epoch, every evaluation inside an
        # epoch reduces at the epoch's start, as torch's ReduceLROnPlateau reduces at each (docs/plateau.md)
        reduced_by = {time: i + 1 for i, time in enumerate(logged_times)}  # the reductions made by each time
        boundaries = tuple(reduced_by)
        every_level = plateau_levels(len(logged_times), self.factor, self.min_factor)
        levels = (1.0, *(every_level[reduced_by[b]] for b in boundaries))
        fn = (lambda x: 1.0) if not boundaries else (lambda x: kernels.piecewise_constant(x, boundaries, levels))
        # a time resolved is a float count (the clock of time); an int counts evaluations
        limits = tuple(
            float(times[name].value) if name in times else getattr(self, name) for name in ("patience", "cooldown")
        )
        return Curve(unit, fn, times, (PlacedPlateau(self, _always, *limits),))


def _always(x: float) -> float:
    return x


class PlacedPlateau:
    """A plateau placed in a resolved schedule: which :class:`PlateauScheduler`, its own clock, its limits.

    ``local(x)`` is the plateau's own count at the outer count ``x`` (a :class:`~schedulers.core.composition.Sequence`
    shifts it), or None where its value is not in use (before a warmup ends, outside its segment): it listens
    only while it is in use. ``patience``/``cooldown`` are an int (evaluations) or a float (a count of the
    curve's unit, the time resolved for the run).

    Args:
        plateau: The plateau schedule.
        local: Outer count -> the plateau's count, or None.
        patience: Resolved patience.
        cooldown: Resolved cooldown.

    Returns:
        The placed plateau (:attr:`Curve.plateaus <schedulers.core.schedule.Curve>` holds them).

    >>> placed = PlateauScheduler(patience="5ba").resolve("100ba").plateaus[0]
    >>> placed.patience, placed.local(7.0)
    (5.0, 7.0)
    """

    __slots__ = ("plateau", "local", "patience", "cooldown")

    def __init__(
        self,
        plateau: PlateauScheduler,
        local: Callable[[float], float | None],
        patience: int | float,
        cooldown: int | float,
    ) -> None:
        self.plateau, self.local, self.patience, self.cooldown = plateau, local, patience, cooldown

    def within(self, outer: Callable[[float], float | None]) -> PlacedPlateau:
        """This plateau placed in a schedule around it (a warmup, a sequence's segment).

        Args:
            outer: The outer schedule's count -> this schedule's count, or None where this one is not in use.

        Returns:
            A new placed plateau of the same plateau whose ``local`` takes the outer count: ``local(outer(x))``,
            None where either is None.

        >>> placed = PlateauScheduler().resolve("100ba").plateaus[0]
        >>> shifted = placed.within(lambda x: x - 10 if x >= 10 else None)
        >>> shifted.local(25.0), shifted.local(5.0)
        (15.0, None)
        """
        local = self.local

        def composed(x: float) -> float | None:
            inner = outer(x)
            return None if inner is None else local(inner)

        return PlacedPlateau(self.plateau, composed, self.patience, self.cooldown)


class PlateauState:
    """The mutable part of a plateau: torch's ``ReduceLROnPlateau`` counters, kept by the compiled scheduler.

    :meth:`observe` is torch's ``step(metrics)``, written over one clock: with ``patience``/``cooldown`` in
    evaluations the clock counts evaluations, with a time it is the plateau's own count. A value improves
    on ``best`` by :meth:`is_better`; the time since the last improvement (or reduction, or evaluation in
    cooldown) beyond ``patience`` reduces; an evaluation within ``cooldown`` after a reduction counts nothing.

    Args:
        plateau: The schedule whose criteria it applies.
        patience: Its patience resolved (an int of evaluations, or a float count of time).
        cooldown: Its cooldown resolved (same).

    Returns:
        A state that has seen no evaluation.

    >>> state = PlateauState(PlateauScheduler(factor=0.5, patience=1), 1, 0)
    >>> [state.observe(v, t) for t, v in enumerate([3.0, 2.0, 2.0, 2.0], 1)]
    [False, False, False, True]
    >>> state.reductions, state.level
    ([4], 0.5)
    """

    def __init__(self, plateau: PlateauScheduler, patience: float, cooldown: float) -> None:
        self.plateau, self.patience, self.cooldown = plateau, patience, cooldown
        self.best = math.inf if plateau.mode == "min" else -math.inf
        self.evaluations = 0
        self.reset_at = (0, 0.0)  # (evaluations, time) of the last improvement, reduction or cooldown evaluation
        self.reduced_at: tuple[int, float] | None = None
        self.reductions: list[int | float] = []  # the plateau's counts at which the multiplier changed
        self.level = 1.0

    def is_better(self, value: float) -> bool:
        """torch's ``is_better``: whether ``value`` beats ``best`` by the threshold, in the plateau's mode.

        Args:
            value: A value of the monitored metric.

        Returns:
            True when ``value`` improves on :attr:`best` (see :func:`improves`).
        """
        p = self.plateau
        return improves(value, self.best, p.mode, p.threshold, p.threshold_mode)

    def _since(self, mark: tuple[int, float], limit: float, now: float) -> float:
        """What has passed since ``mark``, on the clock ``limit`` is counted in (evaluations for an int)."""
        return self.evaluations - mark[0] if isinstance(limit, int) else now - mark[1]

    def observe(self, value: float, now: float) -> bool:
        """Count one evaluation: torch's ``step(metrics)`` on the plateau's clock.

        Args:
            value: The monitored metric's value at the evaluation.
            now: The plateau's own count at the evaluation (what a patience in time is measured on).

        Returns:
            True when it reduced the multiplier (:attr:`level`, with ``now`` appended to :attr:`reductions`).
        """
        self.evaluations += 1
        value = float(value)
        here = (self.evaluations, float(now))
        if self.is_better(value):
            self.best = value
            self.reset_at = here
        if self.reduced_at is not None and 0 < self._since(self.reduced_at, self.cooldown, now) <= self.cooldown:
            self.reset_at = here  # in cooldown: bad evaluations are ignored
        if self._since(self.reset_at, self.patience, now) <= self.patience:
            return False
        self.reset_at = self.reduced_at = here
        p = self.plateau
        level = max(self.level * p.factor, p.min_factor)
        if self.level - level <= p.eps:
            return False
        self.level = level
        self.reductions.append(_count(now))
        return True

    def state_dict(self) -> dict[str, Any]:
        """The counters, for a checkpoint.

        Returns:
            A dict of plain numbers and lists (``torch.load(weights_only=True)`` reads it) that
            :meth:`load_state_dict` restores.
        """
        return {
            "best": self.best,
            "evaluations": self.evaluations,
            "reset_at": list(self.reset_at),
            "reduced_at": None if self.reduced_at is None else list(self.reduced_at),
            "reductions": list(self.reductions),
            "level": self.level,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` gave.

        Args:
            state: A :meth:`state_dict` result.
        """
        self.best, self.evaluations, self.level = float(state["best"]), int(state["evaluations"]), float(state["level"])
        self.reset_at = (int(state["reset_at"][0]), float(state["reset_at"][1]))
        reduced = state["reduced_at"]
        self.reduced_at = None if reduced is None else (int(reduced[0]), float(reduced[1]))
        self.reductions = [_count(r) for r in state["reductions"]]


def _count(value: float) -> int | float:
    """A count as a Time takes it: an int when whole (a count of batches, samples or tokens)."""
    return int(value) if float(value).is_integer() else float(value)


def _children(schedule: Schedule) -> Iterator[tuple[str, Any]]:
    """The fields of a composite that hold schedules (one, or a tuple), in field order."""
    if not attrs.has(type(schedule)):
        return
    for field in attrs.fields(type(schedule)):
        value = getattr(schedule, field.name)
        if isinstance(value, Schedule) or (isinstance(value, tuple) and any(isinstance(v, Schedule) for v in value)):
            yield field.name, value


def plateaus_in(schedule: Any) -> list[PlateauScheduler]:
    """Every :class:`PlateauScheduler` inside ``schedule`` (itself included), in field order.

    Args:
        schedule: A schedule (or any callable: none inside).

    Returns:
        The plateaus, outermost first.

    >>> from schedulers import Warmup
    >>> [plateau.monitor for plateau in plateaus_in(Warmup(PlateauScheduler(monitor="eval/acc"), "5ba"))]
    ['eval/acc']
    """
    if isinstance(schedule, PlateauScheduler):
        return [schedule]
    found: list[PlateauScheduler] = []
    if isinstance(schedule, Schedule):
        for _, value in _children(schedule):
            for child in value if isinstance(value, tuple) else (value,):
                found += plateaus_in(child)
    return found


def with_reductions(schedule: Schedule, reductions: list[tuple[Time, ...]]) -> Schedule:
    """``schedule`` with the ``reductions`` of each of its plateaus (in :func:`plateaus_in`'s order) replaced.

    Args:
        schedule: A schedule holding plateaus.
        reductions: One tuple of times per plateau.

    Returns:
        The same schedule, its plateaus evolved (a new value; ``schedule`` is unchanged).

    >>> from schedulers import Warmup
    >>> with_reductions(Warmup(PlateauScheduler(), "5ba"), [(Time(9, "ba"),)]).schedule.reductions
    (Time(9, TimeUnit.BATCH),)
    """
    queue = list(reductions)

    def rebuild(node: Any) -> Any:
        if isinstance(node, PlateauScheduler):
            return attrs.evolve(node, reductions=queue.pop(0))
        if not isinstance(node, Schedule) or not plateaus_in(node):
            return node
        changes = {
            name.lstrip("_"): tuple(rebuild(v) for v in value) if isinstance(value, tuple) else rebuild(value)
            for name, value in _children(node)
        }
        return attrs.evolve(node, **changes)

    return rebuild(schedule)


class Plateaus:
    """The plateaus of one compiled schedule, each placed (:class:`PlacedPlateau`) with its :class:`PlateauState`:
    what a compiled scheduler feeds at each evaluation, and saves.

    Args:
        given: The schedule as given (its plateaus without reductions).
        curve: Its curve for the run (where each plateau is in use).

    Returns:
        The plateaus' states, none observed yet.

    >>> from schedulers import SchedulerState
    >>> plateaus = Plateaus.of(PlateauScheduler(patience=0), SchedulerState("10ba"), 1.0, None)
    >>> plateaus.observe(SchedulerState("10ba"), {"eval/loss": 1.0}), plateaus.monitors
    ([], ['eval/loss'])
    >>> plateaus.observe(SchedulerState("10ba"), {"eval/loss": 1.0})
    ['eval/loss has not improved (best 1): multiplier 1 -> 0.1']
    """

    def __init__(self, given: Schedule, curve: Curve) -> None:
        self.given = given
        self.unit = curve.unit
        self.placed = curve.plateaus
        self.states = [PlateauState(item.plateau, item.patience, item.cooldown) for item in curve.plateaus]

    @classmethod
    def of(cls, schedule: Any, state: StateLike, ssr: float, run: Run | None) -> Plateaus | None:
        """The plateaus of ``schedule`` for the run, as its compiled scheduler feeds them.

        Args:
            schedule: A schedule, or any callable (none has plateaus).
            state: The state it reads (the run's length and batches per epoch, when ``run`` is None).
            ssr: The scale schedule ratio.
            run: The :class:`~schedulers.core.run.Run`, or None to read it from ``state`` and ``ssr``.

        Returns:
            A new :class:`Plateaus` of its plateaus, none observed yet; None when ``schedule`` holds none.

        Raises:
            ValueError: A plateau given ``reductions`` (a run decides its own), or one inside a schedule
                without a closed form.
        """
        plateaus = plateaus_in(schedule)
        if not plateaus:
            return None
        if any(p.reductions for p in plateaus):
            raise ValueError(
                "a PlateauScheduler given reductions= is a logged run, to plot; a run decides its own reductions "
                "(leave reductions out)"
            )
        return cls(schedule, _curve_with_plateaus(schedule, state, ssr, run))

    @property
    def monitors(self) -> list[str]:
        """The metrics the plateaus listen to, each once."""
        return list(dict.fromkeys(item.plateau.monitor for item in self.placed))

    def refresh(self, state: StateLike, ssr: float, run: Run | None) -> None:
        """Resolve again for another run (its times in use and its patience and cooldown); the counters stay.

        Args:
            state: The state the schedule reads.
            ssr: The scale schedule ratio.
            run: The :class:`~schedulers.core.run.Run`, or None to read it from ``state`` and ``ssr``.
        """
        curve = _curve_with_plateaus(self.given, state, ssr, run)
        self.unit, self.placed = curve.unit, curve.plateaus
        for item, plateau_state in zip(self.placed, self.states, strict=True):
            plateau_state.patience, plateau_state.cooldown = item.patience, item.cooldown

    def observe(self, state: StateLike, metrics: Mapping[str, float]) -> list[str]:
        """Feed each plateau in use at ``state.timestamp`` its metric.

        Args:
            state: The state at the evaluation.
            metrics: The evaluation's metrics, by name.

        Returns:
            One phrase per multiplier that changed, naming the metric, its best value and the multiplier
            before and after; empty when none did.

        Raises:
            KeyError: A monitored metric is missing from ``metrics``.
        """
        outer = Timestamp.counter(self.unit)(state.timestamp)
        changes = []
        for item, plateau_state in zip(self.placed, self.states, strict=True):
            now = item.local(outer)
            if now is None:
                continue
            monitor = item.plateau.monitor
            if monitor not in metrics:
                raise KeyError(f"monitor={monitor!r} is not among this evaluation's metrics {sorted(metrics)}")
            before = plateau_state.level
            if plateau_state.observe(metrics[monitor], now):
                changes.append(
                    f"{monitor} has not improved (best {plateau_state.best:.6g}): multiplier {before:.6g} -> "
                    f"{plateau_state.level:.6g}"
                )
        return changes

    def schedule(self) -> Schedule:
        """The schedule as it now runs.

        Returns:
            The given schedule with every reduction so far written into its plateaus (a new value), for the
            scheduler to evaluate.
        """
        reductions = [tuple(Time(r, self.unit) for r in s.reductions) for s in self.states]
        return with_reductions(self.given, reductions)

    def state_dict(self) -> list[dict[str, Any]]:
        """What a checkpoint saves of the plateaus.

        Returns:
            One :meth:`PlateauState.state_dict` per plateau (plain numbers), in :func:`plateaus_in`'s order.
        """
        return [s.state_dict() for s in self.states]

    def load_state_dict(self, saved: list[dict[str, Any]]) -> Schedule:
        """Restore each plateau's state.

        Args:
            saved: A :meth:`state_dict` result.

        Returns:
            The schedule with the saved reductions (as :meth:`schedule` gives it), for the scheduler to run.

        Raises:
            ValueError: A state saved for another number of plateaus.
        """
        if len(saved) != len(self.states):
            raise ValueError(f"this state_dict has {len(saved)} plateau states, the schedule has {len(self.states)}")
        for plateau_state, item in zip(self.states, saved, strict=True):
            plateau_state.load_state_dict(item)
        return self.schedule()


def _curve_with_plateaus(schedule: Schedule, state: StateLike, ssr: float, run: Run | None) -> Curve:
    try:
        return schedule.curve(run if run is not None else Run.of_state(state, ssr))
    except TypeError as error:
        raise ValueError(
            f"{type(schedule).__name__} holds a PlateauScheduler, so it needs a closed form (Cadence schedules in "
            f"one unit around it): {error}"
        ) from None


def preview_note(monitored: list[tuple[str, str]], schedules: list[Any] = ()) -> str | None:
    """The one note a preview (plot, report, ``--dry-run``) gives of a schedule that listens, or None.

    Args:
        monitored: ``(who, monitor)`` of what listens to evaluations (a plateau, torch's ``ReduceLROnPlateau``).
        schedules: The schedules shown, whose plateaus may carry the ``reductions`` a run logged.

    Returns:
        One line: the real curve depends on the metric, and where the shown reductions are (none, or those
        logged); None when nothing listens.

    >>> preview_note([("schedulers[0] (PlateauScheduler)", "eval/loss")]).split(", so")[0]
    'schedulers[0] (PlateauScheduler) reduces when eval/loss stops improving'
    """
    if not monitored:
        return None
    who = "; ".join(dict.fromkeys(f"{name} reduces when {monitor} stops improving" for name, monitor in monitored))
    logged = [str(r) for schedule in schedules for plateau in plateaus_in(schedule) for r in plateau.reductions]
    shown = (
        f"shown with the reductions a run logged, at {', '.join(logged)}"
        if logged
        else (
            "shown without a reduction (a run's reductions are in its lr log and checkpoint; "
            "reductions=[...] draws them)"
        )
    )
    return f"{who}, so the real curve depends on that metric: {shown} (docs/plateau.md)"
