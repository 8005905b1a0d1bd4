"""A schedule stepped once per epoch: the milestones that stepping moves, found once when the run starts.

Stepped per epoch (Composer's staircase, ``step_schedulers_every_batch=False``: docs/stepping.md), a schedule is
read at each epoch's start and held for the epoch, so a milestone inside an epoch acts only where the next epoch
starts: ``t_warmup="5ba"`` at 10 batches an epoch holds the lr at α(0) = 0 for the whole first epoch, and
``StepScheduler("15ba")`` decays at batch 20. :func:`moved_milestones` finds them among the schedule's times
resolved for the run (:attr:`~schedulers.core.schedule.Curve.times`); :func:`moved_milestones_message` is the one
line every door that steps per epoch warns with.

>>> from schedulers import CosineAnnealingWithWarmupScheduler
>>> from schedulers.core.run import Run
>>> moved_milestones(CosineAnnealingWithWarmupScheduler("5ba"), Run("3ep", 10))
[MovedMilestone(name='t_warmup', at=Time(5, TimeUnit.BATCH), acts=Time(10, TimeUnit.BATCH), given=None)]
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import attrs

from schedulers.core.run import Run
from schedulers.core.schedule import Curve, Schedule
from timeunits import Time, TimeUnit

__all__ = ["MovedMilestone", "moved_milestones", "moved_milestones_message"]


@attrs.frozen
class MovedMilestone:
    """A milestone of a schedule stepped per epoch: where it is, and where it acts.

    Args:
        name: The time argument as the resolved curve names it (``"t_warmup"``, ``"milestones[1]"``,
            ``"schedule.step_size"``).
        at: Where the schedule changes, a count of the run in the curve's unit.
        acts: Where a per-epoch run first reads the change: the start of the next epoch (None when the run does
            not tell where its epochs end in that unit: samples or tokens of batches of unknown size).
        given: The time as its own clock counts it, when that clock starts after the run's (a ``Sequence``
            child's, from its segment's start); None when it is ``at``.

    Returns:
        The record :func:`moved_milestones` lists.

    >>> MovedMilestone("step_size", Time(15, "ba"), Time(20, "ba")).acts
    Time(20, TimeUnit.BATCH)
    """

    name: str
    at: Time
    acts: Time | None
    given: Time | None = None


def moved_milestones(schedule: Any, run: Run) -> list[MovedMilestone]:
    r"""The milestones of ``schedule`` inside an epoch of ``run``, which per-epoch stepping moves to the next
    epoch's start.

    A resolved time at count :math:`c` is a milestone when the curve jumps or bends there, its steps
    :math:`f(x) - f(x - 1)` changing at :math:`c` by over 8× what they change beside it: a warmup's end, a step, a
    restart.
    A time that is a length (``t_decay``, an exponential's ``decay_period``) is left out where the curve is smooth.
    A time of a ``Sequence``'s child counts from its segment's start :math:`s`: it is at :math:`c = s + t` of the
    run (:attr:`Curve.origins <schedulers.core.schedule.Curve>`). With :math:`E` counts an epoch, one at
    :math:`0 < c < N` (the run's length) and :math:`c \bmod E \ne 0` acts at :math:`\lceil c / E \rceil E`.

    Args:
        schedule: A Cadence schedule (anything else, e.g. a ``(state, ssr)`` function, has no times: ``[]``).
        run: The run it is stepped in (its ``dataloader_len`` and, for a curve in samples or tokens, a constant
            count per batch tell where epochs end; without ``dataloader_len``, ``[]``).

    Returns:
        One :class:`MovedMilestone` per count, in the order of the curve's times.

    >>> from schedulers import StepScheduler
    >>> moved_milestones(StepScheduler("15ba"), Run("40ba", 10))[0].acts
    Time(20, TimeUnit.BATCH)
    >>> moved_milestones(StepScheduler("20ba"), Run("40ba", 10))
    []
    """
    if not isinstance(schedule, Schedule) or run.dataloader_len is None:
        return []
    try:
        curve = schedule.curve(run)
    except TypeError:  # no closed form (a function of the state, as_schedule): no times to tell
        return []
    per_epoch = _epoch_length(run, curve.unit)
    length = _run_length(run, curve.unit, per_epoch)
    moved: dict[int, MovedMilestone] = {}
    for name, time in curve.times.items():
        origin = curve.origins.get(name, 0)
        c = time.value + origin  # where it acts in the run
        if c in moved or not 0 < c < length or (per_epoch is not None and c % per_epoch == 0):
            continue
        if _changes_at(curve, c):
            acts = None if per_epoch is None else Time(-(-c // per_epoch) * per_epoch, curve.unit)  # exact ceil
            moved[c] = MovedMilestone(name, Time(c, curve.unit), acts, time if origin else None)
    return list(moved.values())


def moved_milestones_message(moved: Iterable[tuple[str, MovedMilestone]], run: Run, how: str) -> str:
    """The one warning of a run stepped per epoch whose schedules have milestones inside an epoch.

    Args:
        moved: ``(who, milestone)``: the schedule's label (``"schedulers[0]"``) with each of its moved milestones.
        run: The run (its batches per epoch, named in the line).
        how: How to step per batch instead, as the door spells it (``"step_schedulers_every_batch=True ..."``).

    Returns:
        One line naming each milestone, where it is and where it acts, then ``how``.

    >>> from schedulers import StepScheduler
    >>> run = Run("40ba", 10)
    >>> moved = [("schedulers[0]", m) for m in moved_milestones(StepScheduler("15ba"), run)]
    >>> print(moved_milestones_message(moved, run, "step per batch"))  # doctest: +NORMALIZE_WHITESPACE
    stepped per epoch, a schedule is read at each epoch's start (every 10 batches) and held for the epoch, so a
    milestone inside an epoch acts only where the next epoch starts: schedulers[0] step_size=15ba acts at 20ba,
    not at 15ba (step per batch)
    """
    parts = [
        f"{who} {m.name}={m.at if m.given is None else f'{m.given} of its segment, at {m.at} of the run,'} acts at "
        f"{m.acts if m.acts is not None else 'the start of the epoch after it'}, not at {m.at}"
        for who, m in moved
    ]
    return (
        f"stepped per epoch, a schedule is read at each epoch's start (every {run.dataloader_len} batches) and held "
        f"for the epoch, so a milestone inside an epoch acts only where the next epoch starts: {'; '.join(parts)} "
        f"({how})"
    )


def _epoch_length(run: Run, unit: TimeUnit) -> int | None:
    """Counts of ``unit`` in one epoch: batches per epoch, or samples/tokens at a constant count per batch."""
    if unit is TimeUnit.BATCH:
        return run.dataloader_len
    per_batch = run.samples_per_batch if unit is TimeUnit.SAMPLE else run.tokens_per_batch
    return run.dataloader_len * per_batch if isinstance(per_batch, int) else None


def _run_length(run: Run, unit: TimeUnit, per_epoch: int | None) -> float:
    """The run's length in ``unit`` (infinite when its length is in another unit no count converts)."""
    if run.length.unit is unit:
        return run.length.value
    if run.length.unit is TimeUnit.EPOCH and per_epoch is not None:
        return run.length.value * per_epoch
    return math.inf


def _changes_at(curve: Curve, c: int) -> bool:
    """Whether the curve jumps or bends at count ``c``, from its steps :math:`d(x) = f(x) - f(x - 1)`.

    A jump at ``c``: :math:`d(c)` stands out from both neighbours, which agree. A bend at ``c``: the step changes
    between :math:`d(c)` and :math:`d(c + 1)`, while each side keeps its own (:math:`d(c - 1) = d(c)`,
    :math:`d(c + 1) = d(c + 2)`). "Agree" is within an eighth of the change; a smooth curve's steps change
    little from one to the next, and a milestone one count before or after is no milestone here.
    """
    f = {x: float(curve(x)) for x in range(max(c - 2, 0), c + 3)}
    d = {x: f[x] - f[x - 1] for x in range(c - 1, c + 3) if x - 1 in f}
    jump = min(abs(d[c] - d[c - 1]) if c - 1 in d else math.inf, abs(d[c] - d[c + 1]))
    if 1e-12 < jump < math.inf and (c - 1 not in d or abs(d[c + 1] - d[c - 1]) <= jump / 8):
        return True
    bend = abs(d[c + 1] - d[c])
    sides = [abs(d[c] - d[c - 1]) if c - 1 in d else 0.0, abs(d[c + 2] - d[c + 1])]
    return bend > 1e-12 and max(sides) <= bend / 8
