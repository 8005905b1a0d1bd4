"""What the trainer tells (rank 0, on stderr): where a run resumed, where its checkpoints go, and the schedule
report of every scheduler of the run (:mod:`schedulers.tools.report`), with a warning for each time argument
that lies beyond the end of the run."""

from __future__ import annotations

import contextlib
import re
import sys
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

from schedulers import Schedule
from schedulers.core.clock import TrainerState
from schedulers.core.plateau import preview_note
from schedulers.core.run import Run
from schedulers.tools.report import (
    render_report,
    resolved_times_report,
    schedule_report_rows,
    times_beyond_the_run,
)
from schedulers.tools.stepped import run_steps, stepped_report_rows
from trainer.callbacks import CallbackList, ProgressBar
from trainer.distributed import World
from trainer.scheduled_run import ScheduledRun

__all__ = ["Reported", "announce", "close_progress_bars", "reductions_summary", "say", "schedule_report_and_warnings"]

_SHOWN_REDUCTIONS = 4  # of more, the end line shows the first ones and the last (each had its own line)


class Reported(Protocol):
    """What the report and the run's messages read on the trainer (a :class:`~trainer.Trainer` is one): the
    interface this module uses.

    >>> import types
    >>> say(types.SimpleNamespace(is_rank_zero=False), "not shown")  # says from rank 0 only: none here
    """

    run: Run
    state: TrainerState
    scheduled: ScheduledRun
    train_dataloader: Iterable
    grad_accum: int
    world: World
    get_num_samples: Callable[[Any], int]
    is_rank_zero: bool
    save_folder: Path | None
    print_schedule_report: bool

    def base_value(self, key: str, group: int = 0) -> float:
        """The base value of a hyperparameter the schedules scale (see :meth:`trainer.Trainer.base_value`).

        Args:
            key: The param group entry (``"lr"``, ``"weight_decay"``, ...).
            group: The param group's index.

        Returns:
            The value the group held before any schedule scaled it.
        """
        ...


def say(trainer: Reported, message: str) -> None:
    """One line on stderr, from rank 0 (what happened, not a problem: not a warning).

    Args:
        trainer: The trainer (only rank 0 speaks).
        message: The line.

    Example:
        >>> import contextlib, io, types
        >>> with contextlib.redirect_stderr(io.StringIO()) as stderr:
        ...     say(types.SimpleNamespace(is_rank_zero=True), "checkpoints in runs/x")
        >>> stderr.getvalue().strip()
        'checkpoints in runs/x'
    """
    if trainer.is_rank_zero:
        print(message, file=sys.stderr, flush=True)


def reductions_summary(decisions: Sequence[str]) -> str | None:
    """The plateau reductions of a run (the trainer's ``decisions``), for the run's end line: how many, and each
    one's change and time by what decided it, without its reason (said in the line printed when it happened).

    Args:
        decisions: The lines of the listeners' decisions that did not stop the run (``trainer.decisions``),
            each ``"<who>: <hyperparameter> <before> -> <after> at <time> (<why>)"``.

    Returns:
        ``"<n> reduction(s): <who>: lr a -> b at <time>, ...; <who>: ..."`` (of more than four by one listener,
        its first three and its last), or None when there were none.

    Example:
        >>> print(reductions_summary([
        ...     "schedulers[0] (Warmup): lr 0.2 -> 0.1 at 12ba (eval/loss has not improved (best 0.3): x1 -> x0.5)",
        ...     "ReduceLROnPlateau: lr 0.1 -> 0.05 at 20ba (eval/loss best 0.29)",
        ...     "schedulers[0] (Warmup): lr 0.1 -> 0.05 at 30ba (eval/loss has not improved (best 0.3): x0.5 -> x0.25)",
        ... ]))
        3 reductions: schedulers[0] (Warmup): lr 0.2 -> 0.1 at 12ba, lr 0.1 -> 0.05 at 30ba; ReduceLROnPlateau: lr
        0.1 -> 0.05 at 20ba
        >>> reductions_summary([]) is None
        True
    """
    if not decisions:
        return None
    by_who: dict[str, list[str]] = {}
    for line in decisions:
        who, _, what = line.partition(": ")
        by_who.setdefault(who, []).append(re.sub(r"^(.*? at \S+) \(.*\)$", r"\1", what))
    for changes in by_who.values():
        if len(changes) > _SHOWN_REDUCTIONS:
            changes[_SHOWN_REDUCTIONS - 1 :] = ["...", changes[-1]]
    listed = "; ".join(f"{who}: {', '.join(changes)}" for who, changes in by_who.items())
    return f"{len(decisions)} reduction{'s' if len(decisions) != 1 else ''}: {listed}"


def announce(trainer: Reported, *, resumed_from: Path | None, finished: bool) -> None:
    """Before the first batch: where the run resumed, where checkpoints go, the schedule report (docs/trainer.md,
    "What the run tells"); a time argument beyond the end of the run is a UserWarning even without the report.

    Args:
        trainer: The trainer.
        resumed_from: The checkpoint the run resumed from, to tell once; None when it did not or told it already.
        finished: The run has nothing left to train (then only that is told).

    The time arguments beyond the run are warned (``UserWarning``), not raised, unless a warning filter says so.

    Example:
        >>> import contextlib, io
        >>> import torch
        >>> from schedulers import CosineAnnealingWithWarmupScheduler
        >>> from trainer import Trainer
        >>> model = torch.nn.Linear(2, 1)
        >>> trainer = Trainer(model, [(torch.ones(4, 2), torch.ones(4, 1))] * 5, "2ep",
        ...                   torch.optim.SGD(model.parameters(), lr=0.1), loss_fn=torch.nn.functional.mse_loss,
        ...                   schedulers=CosineAnnealingWithWarmupScheduler(t_warmup="1ep"), progress_bar=False)
        >>> with contextlib.redirect_stderr(io.StringIO()) as stderr:
        ...     announce(trainer, resumed_from=None, finished=True)
        >>> stderr.getvalue().strip()
        'the run already reached 2ep: nothing to train'
    """
    state = trainer.state
    if resumed_from is not None:
        say(trainer, f"resumed from {resumed_from} at {state.timestamp.batch}")
    if finished:
        say(trainer, f"the run already reached {state.max_duration}: nothing to train")
        return
    if trainer.save_folder is not None:
        say(trainer, f"checkpoints in {trainer.save_folder}")
    if trainer.is_rank_zero and trainer.scheduled.all:
        report, beyond = schedule_report_and_warnings(trainer)
        if trainer.print_schedule_report:
            print(report, file=sys.stderr, flush=True)
        for message in beyond:  # told even without the report: the run would not do what was written
            warnings.warn(message, UserWarning, stacklevel=3)


def close_progress_bars(callbacks: CallbackList) -> None:
    """End every progress bar's line, so that what is said next (a message, a traceback) starts on its own.

    Args:
        callbacks: The trainer's callbacks; those that are :class:`~trainer.ProgressBar` close.

    Example:
        >>> from trainer.callbacks import CallbackList, ProgressBar
        >>> close_progress_bars(CallbackList([ProgressBar()]))  # a bar that never opened closes quietly
    """
    for callback in callbacks:
        if isinstance(callback, ProgressBar):
            callback.close()


def schedule_report_and_warnings(trainer: Reported) -> tuple[str, list[str]]:
    """The report's text, and a message for each time argument that lies beyond the end of the run
    (both from one resolution, so the warning and the report never disagree).

    For a Cadence schedule the report gives its time arguments in batches, the run in every unit, and the
    values at the start, the end of warmup, each milestone and the end; for a torch, Cerebras or SambaFlow
    scheduler the values a copy of it takes at its step-count arguments (the live one is never stepped).

    Args:
        trainer: The trainer.

    Returns:
        ``(text, messages)``: the report, and one message per time argument beyond the end of the run.

    Example:
        >>> import torch
        >>> from schedulers import CosineAnnealingWithWarmupScheduler
        >>> from trainer import Trainer
        >>> model = torch.nn.Linear(2, 1)
        >>> trainer = Trainer(model, [(torch.ones(4, 2), torch.ones(4, 1))] * 5, "2ep",
        ...                   torch.optim.SGD(model.parameters(), lr=0.1), loss_fn=torch.nn.functional.mse_loss,
        ...                   schedulers=CosineAnnealingWithWarmupScheduler(t_warmup="1ep"), progress_bar=False)
        >>> text, beyond = schedule_report_and_warnings(trainer)
        >>> next(line.split() for line in text.splitlines() if line.strip().startswith("t_warmup")), beyond
        (['t_warmup', '1ep', '=', '5ba'], [])
    """
    rows, lines = _cadence_report(trainer)
    state = trainer.state
    scheduled = trainer.scheduled
    for index, (label, scheduler, key) in enumerate(scheduled.others, start=len(scheduled.schedules)):
        per_epoch = any(scheduler is other for other in scheduled.per_epoch)
        steps = run_steps(state.max_duration, state.dataloader_len, per_epoch=per_epoch)
        rows += stepped_report_rows(label, scheduler, key, steps=steps, per_epoch=per_epoch, index=index)
    if rows:
        lines.append(render_report(rows))
    note = preview_note(scheduled.monitored, [schedule for _, schedule, _ in scheduled.schedules])
    if note:
        lines.append(f"note: {note}")
    return "\n\n".join(lines), times_beyond_the_run(rows)


def _cadence_report(trainer: Reported) -> tuple[list[dict[str, Any]], list[str]]:
    """The Cadence schedules' report rows; or, when the samples or tokens per batch are not known before the
    data is read, no rows and a shorter text per schedule (each time argument resolved, in its own unit)."""
    reportable = [entry for entry in trainer.scheduled.schedules if isinstance(entry[1], Schedule)]
    if not reportable:
        return [], []
    base_values = {}
    for _, _, key in reportable:
        with contextlib.suppress(KeyError):  # group 0 without the key: the report shows multipliers only
            base_values[key] = trainer.base_value(key, 0)
    try:
        rows = schedule_report_rows(reportable, trainer.run, base_values=base_values)
    except (TypeError, ValueError):  # samples/tokens per batch unknown before the data is seen
        texts = [resolved_times_report(label, schedule, key, trainer.run) for label, schedule, key in reportable]
        return [], ["\n".join(texts)]
    return rows, []
