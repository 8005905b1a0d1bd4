"""What the trainer does with its ``schedulers=`` argument: classify, compile, scale, and decide stepping.

Entries (docs/stepping.md, docs/trainer.md):

* a Cadence schedule (a :class:`schedulers.Schedule`, or any two-parameter ``(state, ssr)`` callable) is
  compiled by the trainer; several on the same hyperparameter multiply (one write per step);
* a ``torch.optim.lr_scheduler.LRScheduler`` is used as it is (scaled by ``scale_schedule_ratio``);
* any other one-parameter callable is a factory ``optimizer -> LRScheduler`` (Cerebras style);
* a dict ``{"schedule": ..., "hyperparameter": "lr", "param_group_tags": None}`` targets another key or
  tagged param groups.

Everything Cadence builds, Cerebras's and SambaFlow's schedulers included, is one kind: a
:class:`~schedulers.core.torch_scheduler.GroupWriter` (a
:class:`~schedulers.core.torch_scheduler.CompiledScheduler`, or for the front ends that count optimizer steps a
:class:`~schedulers.core.torch_scheduler.StepCountingScheduler`),
attached to the trainer's clock and ratio with ``attach_state``. By default it steps once per batch, and a torch
scheduler the user built steps per epoch unless ``step_schedulers_every_batch=True`` (Composer's default). With
``step_schedulers_every_batch=False``, a Cadence schedule is evaluated at each epoch boundary and held for the
epoch (Composer's staircase), and a Cerebras or SambaFlow scheduler (which counts optimizer steps) is a ValueError
naming it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import attrs
import torch
from torch.optim.lr_scheduler import LRScheduler, ReduceLROnPlateau

from schedulers import Product, compile_scheduler, scale_pytorch_scheduler
from schedulers.core.clock import EpochStartView
from schedulers.core.epoch_stepping import moved_milestones, moved_milestones_message
from schedulers.core.listening import EvaluationListener, ReduceLROnPlateauListener
from schedulers.core.plateau import plateaus_in
from schedulers.core.run import MissingDataloaderLenError, Run
from schedulers.core.schedule import CallableKind, callable_kind
from schedulers.core.torch_scheduler import (
    CompiledScheduler,
    GroupWriter,
    StepCountingScheduler,
    matches,
    normalize_tags,
)

__all__ = ["ScheduledRun", "build_schedulers"]


@attrs.define
class ScheduledRun:
    """The schedulers of a run, split by when they step: what :func:`build_schedulers` returns.

    Args:
        per_batch: The schedulers stepped after each batch.
        per_epoch: The schedulers stepped after each epoch.
        keys: The hyperparameters something schedules, for monitors and loggers.
        schedules: ``(label, Cadence schedule, hyperparameter)`` for each Cadence schedule, for the report.
        others: ``(label, scheduler, hyperparameter)`` for each torch, Cerebras or SambaFlow scheduler.
        on_eval: torch's plateau schedulers, each with its monitor: stepped with the metric at evaluations.
        monitored: ``(who, monitor)``: each listener's name and the metric it reads, for the preview's note.

    Returns:
        The record; :attr:`evaluation_listeners` is what hears the run's evaluations, by the one protocol
        (:mod:`schedulers.core.listening`).

    Example:
        >>> import torch
        >>> from schedulers import LinearScheduler, SchedulerState
        >>> from schedulers.core.run import Run
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
        >>> run = Run("10ba")
        >>> scheduled = build_schedulers([LinearScheduler()], opt, SchedulerState("10ba"), run, True)
        >>> len(scheduled.per_batch), len(scheduled.per_epoch), scheduled.keys
        (1, 0, ['lr'])
    """

    per_batch: list[LRScheduler]
    per_epoch: list[LRScheduler]
    keys: list[str]
    schedules: list[tuple[str, Any, str]] = attrs.field(factory=list, converter=list)
    others: list[tuple[str, LRScheduler, str]] = attrs.field(factory=list, converter=list)
    on_eval: list[ReduceLROnPlateauListener] = attrs.field(factory=list, converter=list)
    monitored: list[tuple[str, str]] = attrs.field(factory=list, converter=list)
    evaluation_listeners: list[EvaluationListener] = attrs.field(init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        everything = self.per_batch + self.per_epoch
        self.evaluation_listeners = [
            s for s in everything if isinstance(s, EvaluationListener) and s.needs_evaluations
        ] + self.on_eval

    @property
    def time_readers(self) -> list[LRScheduler]:
        """The per-batch schedulers whose values are a function of the clock's time (compiled Cadence schedules,
        not torch's, Cerebras's or SambaFlow's, which count their steps): stepping one again re-reads the time."""
        return [scheduler for scheduler in self.per_batch if isinstance(scheduler, CompiledScheduler)]

    @property
    def all(self) -> list[LRScheduler]:
        """Every scheduler of the run: per batch, per epoch, then torch's plateau schedulers."""
        return self.per_batch + self.per_epoch + [listener.scheduler for listener in self.on_eval]


@attrs.frozen
class _Entry:
    """One Cadence schedule the trainer was given: its label, the schedule, the key it writes, its tags."""

    label: str
    schedule: Any
    hyperparameter: str
    tags: frozenset[str] | None


def build_schedulers(
    entries: Any,
    optimizer: torch.optim.Optimizer,
    state: Any,
    run: Run,
    step_every_batch: bool | None,
) -> ScheduledRun:
    """Compile, build and scale the trainer's ``schedulers=`` entries for ``run`` (whose clock ``state`` is);
    errors name the list index. Each Cadence schedule is resolved once, for ``run``.

    With ``step_every_batch=False`` every Cadence schedule reads the run from the start of the current epoch
    (:class:`~schedulers.core.clock.EpochStartView`) and steps at each epoch's end: Composer's staircase.

    Args:
        entries: The trainer's ``schedulers=``: one entry or a list (the kinds the module docstring lists).
        optimizer: The optimizer the schedulers drive.
        state: The run's clock (a :class:`~schedulers.SchedulerState`).
        run: The run the schedules resolve for.
        step_every_batch: ``step_schedulers_every_batch``: True, False, or None (Cadence's per batch, a torch
            scheduler per epoch).

    Returns:
        The run's schedulers split by when they step (per batch, per epoch, at evaluations), with the scheduled
        keys and the labelled schedules the report prints.

    Raises:
        ValueError: An entry that cannot be used, naming it: built on another optimizer, two schedulers writing
            one key that must write alone, tags that match no param group, a scheduler counting steps stepped
            per epoch, a schedule the run cannot resolve.
        TypeError: An entry of no known kind, naming its index.

    >>> from schedulers import LinearScheduler, SchedulerState
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
    >>> scheduled = build_schedulers(
    ...     {"schedule": LinearScheduler(), "hyperparameter": "momentum"}, opt, SchedulerState("4ba"), Run("4ba"), True
    ... )
    >>> scheduled.keys, opt.param_groups[0]["momentum"]  # written at construction: α = 1 at the start
    (['momentum'], 0.9)
    """
    cadence, built = _classify(entries, optimizer)
    monitors = {label: monitor for label, monitor in _monitors(entries)}
    per_epoch_clock = step_every_batch is False
    clock = EpochStartView(state) if per_epoch_clock else state
    per_batch, per_epoch, on_eval, evaluated, writers = _place_built(
        built, optimizer, monitors, step_every_batch, run, clock
    )
    monitored = [(f"{e.label} ({type(p).__name__})", p.monitor) for e in cadence for p in plateaus_in(e.schedule)]
    for key, group_entries in _by_key(cadence).items():
        writers.setdefault(key, []).extend((e.label, False) for e in group_entries)
        (per_epoch if per_epoch_clock else per_batch).extend(_compile_key(key, group_entries, optimizer, clock, run))
    _check_writers(writers)
    _check_monitors(monitors, built)
    if per_epoch_clock:
        compiled = [(label, s.scheduler) for label, s in built if isinstance(s, CompiledScheduler)]
        _warn_moved_milestones([(e.label, e.schedule) for e in cadence] + compiled, run)
    schedules = [(entry.label, entry.schedule, entry.hyperparameter) for entry in cadence]
    # what steps by itself (torch's ReduceLROnPlateau steps at evaluations, with a metric: not in time)
    others = [(label, s, _written_key(s)) for label, s in built if not isinstance(s, ReduceLROnPlateau)]
    return ScheduledRun(per_batch, per_epoch, sorted(writers), schedules, others, on_eval, monitored + evaluated)


def _place_built(
    built: list[tuple[str, LRScheduler]],
    optimizer: torch.optim.Optimizer,
    monitors: dict[str, str],
    step_every_batch: bool | None,
    run: Run,
    clock: Any,
) -> tuple[list, list, list, list, dict[str, list[tuple[str, bool]]]]:
    """Each scheduler built on the optimizer checked, scaled and placed: per batch, per epoch, or (torch's
    ``ReduceLROnPlateau``) at evaluations; also each listener's name and metric, and who writes each key."""
    per_batch: list[LRScheduler] = []
    per_epoch: list[LRScheduler] = []
    on_eval: list[ReduceLROnPlateauListener] = []
    monitored: list[tuple[str, str]] = []
    writers: dict[str, list[tuple[str, bool]]] = {}  # key -> (who, whether it must write alone)
    for label, scheduler in built:
        if scheduler.optimizer is not optimizer:
            raise ValueError(f"{label} ({type(scheduler).__name__}) was built on another optimizer than the trainer's")
        writers.setdefault(_written_key(scheduler), []).append((f"{label} ({type(scheduler).__name__})", True))
        if isinstance(scheduler, ReduceLROnPlateau):  # stepped with its metric at each evaluation, never in time
            monitor = monitors.get(label, "eval/loss")
            on_eval.append(ReduceLROnPlateauListener(scheduler, monitor, f"{label} (ReduceLROnPlateau)"))
            monitored.append((f"{label} (ReduceLROnPlateau)", monitor))
            continue
        _check_per_epoch(label, scheduler, step_every_batch)
        _scale(label, scheduler, run, clock)
        steps_per_batch = step_every_batch or (step_every_batch is None and isinstance(scheduler, GroupWriter))
        (per_batch if steps_per_batch else per_epoch).append(scheduler)
    return per_batch, per_epoch, on_eval, monitored, writers


def _warn_moved_milestones(schedules: list[tuple[str, Any]], run: Run) -> None:
    """Per epoch, a Cadence schedule's milestone inside an epoch acts at the next epoch's start: said once, here,
    naming each (schedulers.core.epoch_stepping; docs/stepping.md)."""
    moved = [(label, milestone) for label, schedule in schedules for milestone in moved_milestones(schedule, run)]
    if moved:
        how = "leave step_schedulers_every_batch unset or True to step each schedule at its batch"
        # stacklevel: the user's Trainer(...) line, past build_schedulers and Trainer._setup_schedules
        warnings.warn(f"step_schedulers_every_batch=False: {moved_milestones_message(moved, run, how)}", stacklevel=5)


def _check_monitors(monitors: dict[str, str], built: list[tuple[str, LRScheduler]]) -> None:
    """``monitor`` next to an entry is for torch's ``ReduceLROnPlateau`` only."""
    stray = sorted(set(monitors) - {label for label, s in built if isinstance(s, ReduceLROnPlateau)})
    if stray:
        raise ValueError(
            f"{stray[0]}: 'monitor' is for a torch ReduceLROnPlateau; a PlateauScheduler takes monitor= itself"
        )


def _monitors(entries: Any):
    """``(label, monitor)`` of each dict entry that names the metric a torch ``ReduceLROnPlateau`` listens to."""
    for label, item in _items(entries):
        if isinstance(item, dict) and "monitor" in item:
            yield label, item["monitor"]


def _classify(entries: Any, optimizer: torch.optim.Optimizer) -> tuple[list[_Entry], list[tuple[str, LRScheduler]]]:
    """Cadence schedules (to compile) apart from schedulers (built, or made by a factory now)."""
    cadence: list[_Entry] = []
    built: list[tuple[str, LRScheduler]] = []
    for label, entry in _entries(entries):
        kind = callable_kind(entry.schedule)  # the one rule of what a callable is (schedulers.core.schedule)
        if isinstance(entry.schedule, LRScheduler):
            built.append((label, entry.schedule))
        elif kind is CallableKind.SCHEDULE:
            cadence.append(entry)
        elif kind is CallableKind.ONE_ARGUMENT:
            built.append((label, _from_factory(label, entry.schedule, optimizer)))
        else:
            raise TypeError(
                f"{label}={entry.schedule!r} is not a schedule: expected a Cadence schedule, a (state, ssr) callable, "
                "a torch LRScheduler, or a callable optimizer -> LRScheduler"
            )
    return cadence, built


def _check_per_epoch(label: str, scheduler: LRScheduler, step_every_batch: bool | None) -> None:
    """Per-epoch stepping stretches a scheduler that counts optimizer steps (Cerebras, SambaFlow): refuse it."""
    if step_every_batch is False and isinstance(scheduler, StepCountingScheduler):
        raise ValueError(
            f"step_schedulers_every_batch=False, but {label} ({type(scheduler).__name__}) counts optimizer steps "
            "and must step once per batch; per-epoch stepping is for Cadence schedules (held for each epoch) "
            "and torch schedulers you built"
        )


def _check_writers(writers: dict[str, list[tuple[str, bool]]]) -> None:
    for key, who in writers.items():
        if len(who) > 1 and any(alone for _, alone in who):
            raise ValueError(
                f"{' and '.join(name for name, _ in who)} all write {key!r}: a torch, Cerebras or SambaFlow scheduler "
                "must be the only writer of its hyperparameter (only Cadence schedules on one key multiply)"
            )


def _items(entries: Any):
    if entries is None:
        return
    items = entries if isinstance(entries, (list, tuple)) else [entries]
    for index, item in enumerate(items):
        yield f"schedulers[{index}]", item


def _entries(entries: Any):
    for label, item in _items(entries):
        if isinstance(item, dict):
            unknown = sorted(set(item) - {"schedule", "hyperparameter", "param_group_tags", "monitor"})
            if "schedule" not in item or unknown:
                raise ValueError(
                    f"{label} is a dict, so it needs 'schedule' and may have 'hyperparameter', 'param_group_tags' "
                    "and 'monitor' (the metric a torch ReduceLROnPlateau listens to)"
                    + (f"; unknown keys {unknown}" if unknown else "")
                )

            yield (
                label,
                _Entry(
                    label,
                    item["schedule"],
                    item.get("hyperparameter", "lr"),
                    normalize_tags(item.get("param_group_tags")),
                ),
            )
        else:
            yield label, _Entry(label, item, "lr", None)


def _from_factory(label: str, factory: Callable, optimizer: torch.optim.Optimizer) -> LRScheduler:
    scheduler = factory(optimizer)
    if not isinstance(scheduler, LRScheduler):
        raise TypeError(
            f"{label} is a one-parameter callable, so it is a factory optimizer -> LRScheduler, but it returned "
            f"{type(scheduler).__name__}; wrap a function of the state with schedulers.as_schedule(fn)"
        )
    return scheduler


def _written_key(scheduler: LRScheduler) -> str:
    return scheduler.hyperparameter if isinstance(scheduler, GroupWriter) else "lr"


def _scale(label: str, scheduler: LRScheduler, run: Run, state: Any) -> None:
    if isinstance(scheduler, GroupWriter):  # Cadence's, Cerebras's and SambaFlow's: one writer, two clocks
        scheduler.attach_state(state, run)  # follow the trainer's clock (and its run: its ratio, kept on resume)
        return
    try:
        scale_pytorch_scheduler(scheduler, run.ssr)
    except ValueError as error:
        raise ValueError(f"{label}: {error}") from None


def _by_key(entries: list[_Entry]) -> dict[str, list[_Entry]]:
    grouped: dict[str, list[_Entry]] = {}
    for entry in entries:
        grouped.setdefault(entry.hyperparameter, []).append(entry)
    return grouped


def _compile_key(key: str, entries: list[_Entry], optimizer, state, run: Run) -> list[CompiledScheduler]:
    """One compiled scheduler per distinct set of schedules driving a param group of ``key``."""
    by_schedules: dict[tuple[int, ...], list[int]] = {}
    for index, group in enumerate(optimizer.param_groups):
        driving = tuple(i for i, entry in enumerate(entries) if matches(entry.tags, group))
        if driving:
            by_schedules.setdefault(driving, []).append(index)
    for entry in entries:
        if entry.tags is not None and not any(matches(entry.tags, g) for g in optimizer.param_groups):
            raise ValueError(f"{entry.label}: param_group_tags={sorted(entry.tags)} match no param group")
    compiled = []
    for driving, groups in by_schedules.items():
        schedules = [entries[i].schedule for i in driving]
        combined = schedules[0] if len(schedules) == 1 else Product(schedules)
        labels = ", ".join(entries[i].label for i in driving)
        try:
            compiled.append(compile_scheduler(combined, optimizer, state, run, hyperparameter=key, param_groups=groups))
        except MissingDataloaderLenError as error:  # kept apart: the trainer says why there is no length
            raise MissingDataloaderLenError(f"{labels}: {error}") from None
        except ValueError as error:
            raise ValueError(f"{labels}: {error}") from None
        compiled[-1].listener_name = f"{labels} ({type(combined).__name__})"
    return compiled
