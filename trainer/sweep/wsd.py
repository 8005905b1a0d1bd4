r"""Warmup-stable-decay branching: which runs can share their stable phase, where each decay starts, and the
callback that saves the main run's checkpoint there.

A :class:`~schedulers.WarmupStableDecayScheduler` resolved for a run of length :math:`B` is

.. math::
    \alpha_B(x) = \mathrm{clamp}(x / t_w, 0, 1)\,\bigl(\alpha_f + (1 - \alpha_f)\,g(p_B)\bigr), \quad
    p_B = \mathrm{clamp}\bigl((x - s_B) / d_B, 0, 1\bigr), \quad s_B = t_{max}(B) - d_B

so :math:`\alpha_B(x) = \alpha_L(x)` for every :math:`x \le s_B` when :math:`t_w` does not depend on the run
(``ba``, ``ep``, ``sp`` or ``tok``, or 0) and :math:`s_B \le s_L`. That holds when ``t_max`` is a fraction
of the run (``m·dur``, default ``1dur``) and ``t_decay`` is either a fraction (:math:`d_B = f·B`,
:math:`s_B = (m - f)·B`) or an absolute time (:math:`s_B = m·B - d`): both grow with :math:`B`. A run of
length :math:`B` therefore equals the run of length :math:`L \ge B` up to the first batch boundary
:math:`T_B` whose count reaches :math:`s_B` (every batch before it trained with :math:`x < s_B`), and from
:math:`T_B` on it is a short branch resuming the longer run's checkpoint at :math:`T_B`.

Refused, with the reason: a run with any other scheduler (a torch, Cerebras or SambaFlow scheduler, or a
Cadence schedule that is not WSD), a ``t_warmup`` in ``dur`` (the warmup would differ per budget), a
``t_max`` that is not in ``dur`` (the decay would not follow the budget), and several WSD schedules whose
decay starts resolve to different units.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs

from schedulers import WarmupStableDecayScheduler
from timeunits import Time, Timestamp, TimeUnit
from trainer.callbacks import Callback
from trainer.checkpoint_files import LATEST, list_checkpoints, point_latest, save_checkpoint

__all__ = ["BranchingError", "DecayStartCheckpoints", "decay_starts", "wsd_schedules"]

NEEDS = (
    "branching needs every schedule of the run to be a WarmupStableDecayScheduler (wsd) whose t_warmup is "
    "absolute (ba, ep, sp or tok) and whose t_max is a fraction of the run (the default 1dur); t_decay may be "
    "a fraction (0.2dur) or absolute"
)


class BranchingError(ValueError):
    """A run whose schedules cannot branch from a shared stable phase (the message says which and why).

    Returns:
        The error :func:`wsd_schedules` and :func:`decay_starts` raise; ``cadence sweep --branch-from-stable``
        prints its one line and exits 2.

    >>> str(BranchingError("the run has no schedule"))
    'the run has no schedule'
    """


def wsd_schedules(trainer: Any) -> list[tuple[str, WarmupStableDecayScheduler]]:
    """The run's WSD schedules, when every schedule of the run can branch from a shared stable phase.

    Args:
        trainer: The run's trainer (its ``scheduled`` schedules are read).

    Returns:
        ``(label, schedule)`` for each of the run's schedules, all :class:`WarmupStableDecayScheduler`.

    Raises:
        BranchingError: A schedule that listens, steps by itself, is not WSD, warms up for a fraction of the run
            or ends at an absolute ``t_max``; or the run has no schedule.

    >>> import torch
    >>> from schedulers import LinearScheduler, WarmupStableDecayScheduler
    >>> from trainer import Trainer
    >>> def trainer_with(schedule):
    ...     model = torch.nn.Linear(2, 1)
    ...     return Trainer(model, [torch.ones(4, 2)] * 10, "10ba", torch.optim.SGD(model.parameters(), lr=0.1),
    ...                    loss_fn=None, schedulers=schedule, progress_bar=False)
    >>> [label for label, _ in wsd_schedules(trainer_with(WarmupStableDecayScheduler("2ba", t_decay="0.2dur")))]
    ['schedulers[0]']
    >>> wsd_schedules(trainer_with(LinearScheduler()))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    trainer.sweep.wsd.BranchingError: schedulers[0] (LinearScheduler on lr) is not warmup-stable-decay: ...
    """
    scheduled = trainer.scheduled
    for who, monitor in scheduled.monitored:  # a plateau's curve depends on each branch's own metric
        raise BranchingError(
            f"{who} reduces at evaluations when {monitor} stops improving, so no two budgets share a stable phase: "
            "branching needs schedules of time alone (docs/plateau.md)"
        )
    if scheduled.others:
        label, scheduler, key = scheduled.others[0]
        raise BranchingError(f"{label} ({type(scheduler).__name__} on {key}) steps by itself: {NEEDS}")
    if not scheduled.schedules:
        raise BranchingError(f"the run has no schedule: {NEEDS}")
    found = []
    for label, schedule, key in scheduled.schedules:
        if not isinstance(schedule, WarmupStableDecayScheduler):
            raise BranchingError(f"{label} ({type(schedule).__name__} on {key}) is not warmup-stable-decay: {NEEDS}")
        if schedule.t_warmup.unit is TimeUnit.DURATION and schedule.t_warmup.value != 0:
            raise BranchingError(
                f"{label}: t_warmup={schedule.t_warmup} is a fraction of the run, so every budget would warm up "
                f"differently; give it in ba, ep, sp or tok ({NEEDS})"
            )
        if schedule.t_max.unit is not TimeUnit.DURATION:
            raise BranchingError(
                f"{label}: t_max={schedule.t_max} is absolute, so the decay would not follow the budget; "
                f"use a fraction of the run such as 1dur ({NEEDS})"
            )
        found.append((label, schedule))
    return found


def decay_starts(trainer: Any, budgets: Iterable[Time]) -> dict[Time, Time]:
    """Each budget's decay start :math:`s_B = t_{max} - t_{decay}` (the earliest over the run's WSD schedules).

    Args:
        trainer: The run's trainer; each budget is a run like its run, of that length.
        budgets: The budgets' lengths.

    Returns:
        Budget -> its decay start, in the unit the schedules resolve to (``ba``, ``sp`` or ``tok``).

    Raises:
        BranchingError: The run cannot branch (see :func:`wsd_schedules`), a schedule cannot resolve for a
            budget, or its schedules' decays start in different units.

    >>> import torch
    >>> from schedulers import LinearScheduler, WarmupStableDecayScheduler
    >>> from trainer import Trainer
    >>> def trainer_with(schedule):
    ...     model = torch.nn.Linear(2, 1)
    ...     return Trainer(model, [torch.ones(4, 2)] * 10, "10ba", torch.optim.SGD(model.parameters(), lr=0.1),
    ...                    loss_fn=None, schedulers=schedule, progress_bar=False)
    >>> from timeunits import Time
    >>> decay_starts(trainer_with(WarmupStableDecayScheduler("2ba", t_decay="0.2dur")), [Time(10, "ba")])
    {Time(10, TimeUnit.BATCH): Time(8, TimeUnit.BATCH)}
    """
    schedules = wsd_schedules(trainer)
    state = trainer.state
    starts = {}
    for budget in budgets:
        run = attrs.evolve(state.run, max_duration=budget)  # the trainer's run, of length `budget`
        times = []
        for label, schedule in schedules:
            try:
                curve = schedule.curve(run)
            except ValueError as error:
                raise BranchingError(f"budget {budget}: {label}: {error}") from None
            stable_end = curve.times["t_max"].value - curve.times["t_decay"].value
            times.append(Time(stable_end, curve.times["t_max"].unit))
        units = sorted({time.unit.value for time in times})
        if len(units) > 1:
            raise BranchingError(f"budget {budget}: the WSD schedules' decays start in different units ({units})")
        starts[budget] = min(times, key=lambda time: time.value)
    return starts


class DecayStartCheckpoints(Callback):
    """Saves a checkpoint at the first batch boundary whose count reaches each decay start.

    ``starts`` maps a time (``"120ba"``, ``"7680sp"``) to a folder; the checkpoint goes there (``ba00000120.pt``
    and ``latest``), apart from the run's own ``save_folder``, so ``save_num_checkpoints_to_keep`` never
    deletes it and a branch can name it before the main run has trained. It holds exactly what the trainer's
    own checkpoints hold (``trainer.state_dict()``), taken as the batch ends. Every rank gathers; rank 0 writes.

    The folder's ``latest`` link, which a branch loads and which ``cadence sweep`` waits for before it starts
    the branch, comes once the run's records of that batch (its row, its evaluation) are on disk: at the next
    batch start, at the trainer's next checkpoint or at fit end, after ``on_before_checkpoint`` (the rule of
    docs/resume.md, "Rows reach the disk before the checkpoint that claims them"). A run resumed past a decay
    start whose link is missing (it was killed in between) sets it at fit start: its own checkpoint claimed
    those rows.

    Args:
        starts: Decay-start time (in ``ba``, ``sp`` or ``tok``) -> the folder its checkpoint goes to.

    Returns:
        The callback to give the main run's trainer.

    Raises:
        ValueError: ``starts`` is empty or not a mapping, or a time is in ``dur`` or ``ep``.

    >>> len(DecayStartCheckpoints({"8ba": "runs/8ba", "16ba": "runs/16ba"}).starts)
    2
    """

    def __init__(self, starts: dict[str, str]) -> None:
        if not isinstance(starts, dict) or not starts:
            raise ValueError(f"starts={starts!r} must map decay-start times to folders, e.g. {{'120ba': 'runs/120ba'}}")
        self.starts = []
        for time, folder in starts.items():
            parsed = Time.from_input(time)
            if parsed.unit in (TimeUnit.DURATION, TimeUnit.EPOCH):
                raise ValueError(f"decay start {time!r} must be in ba, sp or tok")
            self.starts.append((Timestamp.counter(parsed.unit), parsed.value, Path(folder)))
        self._before: Timestamp | None = None
        self._unpublished: list[Path] = []  # saved files whose `latest` waits for the records

    def on_fit_start(self, trainer: Any) -> None:
        if not trainer.is_rank_zero:
            return
        now = trainer.state.timestamp
        for count, at, folder in self.starts:
            saved = list_checkpoints(folder)
            if count(now) >= at and saved and not (folder / LATEST).exists():
                point_latest(saved[-1])

    def on_batch_start(self, trainer: Any) -> None:
        self._before = trainer.state.timestamp
        if self._unpublished:
            self._publish(trainer, flush=True)

    def on_batch_end(self, trainer: Any, loss: float) -> None:
        before, now = self._before, trainer.state.timestamp
        due = [folder for count, at, folder in self.starts if count(before) < at <= count(now)]
        if not due:
            return
        payload = trainer.state_dict()  # a collective under DDP: every rank calls it
        if trainer.is_rank_zero:
            for folder in due:
                self._unpublished.append(save_checkpoint(folder, now.batch.value, payload, latest=False))

    def on_checkpoint(self, trainer: Any, path: Any) -> None:
        if self._unpublished:  # the trainer has just put the records on disk
            self._publish(trainer, flush=False)

    def on_fit_end(self, trainer: Any) -> None:
        if self._unpublished:
            self._publish(trainer, flush=True)

    def _publish(self, trainer: Any, *, flush: bool) -> None:
        if flush:
            trainer.callbacks.on_before_checkpoint(trainer)
        for path in self._unpublished:
            point_latest(path)
        self._unpublished = []
