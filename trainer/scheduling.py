"""What the trainer does with its ``schedulers=`` argument: classify, compile, scale, and decide stepping.

Entries (API clarifications 1–3, 10):

* a Cadence schedule (a :class:`schedulers.Schedule`, or any two-parameter ``(state, ssr)`` callable) is
  compiled by the trainer; several on the same hyperparameter multiply (one write per step);
* a ``torch.optim.lr_scheduler.LRScheduler`` is used as it is (scaled by ``scale_schedule_ratio``);
* any other one-parameter callable is a factory ``optimizer -> LRScheduler`` (Cerebras style);
* a dict ``{"schedule": ..., "hyperparameter": "lr", "param_group_tags": None}`` targets another key or
  tagged param groups.

Everything Cadence builds steps once per batch; a torch scheduler the user built steps per epoch unless
``step_schedulers_every_batch=True`` (Composer's default).
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

import torch
from torch.optim.lr_scheduler import LambdaLR, LRScheduler

from schedulers import CompiledScheduler, Schedule, compile_scheduler, scale_pytorch_scheduler
from schedulers.core.tags import matches, normalize_tags

__all__ = ["ScheduledRun", "build_schedulers"]


class ScheduledRun:
    """The schedulers of a run, split by when they step."""

    def __init__(
        self,
        per_batch: list[LRScheduler],
        per_epoch: list[LRScheduler],
        keys: list[str],
        schedules: list[tuple[str, Any, str]] = (),
        others: list[tuple[str, LRScheduler, str]] = (),
    ) -> None:
        self.per_batch = per_batch
        self.per_epoch = per_epoch
        self.keys = keys  # the hyperparameters something schedules, for monitors and loggers
        self.schedules = list(schedules)  # (label, Cadence schedule, hyperparameter): for the report
        self.others = list(others)  # (label, torch/Cerebras/SambaFlow scheduler, hyperparameter)

    @property
    def all(self) -> list[LRScheduler]:
        return self.per_batch + self.per_epoch


class _Entry:
    __slots__ = ("label", "schedule", "hyperparameter", "tags")

    def __init__(self, label: str, schedule: Any, hyperparameter: str, tags: frozenset[str] | None) -> None:
        self.label, self.schedule, self.hyperparameter, self.tags = label, schedule, hyperparameter, tags


class _ScheduleProduct:
    """``(state, ssr) -> Π sᵢ(state, ssr)``: several Cadence schedules on one hyperparameter."""

    def __init__(self, schedules: list[Callable[..., float]]) -> None:
        self.schedules = schedules

    def __call__(self, state, ssr: float = 1.0) -> float:
        alpha = 1.0
        for schedule in self.schedules:
            alpha *= schedule(state, ssr)
        return alpha

    def __repr__(self) -> str:
        return " * ".join(repr(s) for s in self.schedules)


def build_schedulers(
    entries: Any,
    optimizer: torch.optim.Optimizer,
    state: Any,
    ssr: float,
    step_every_batch: bool | None,
) -> ScheduledRun:
    """Compile, build and scale the trainer's ``schedulers=`` entries; errors name the list index."""
    cadence: list[_Entry] = []
    built: list[tuple[str, LRScheduler]] = []
    for label, entry in _entries(entries):
        if isinstance(entry.schedule, LRScheduler):
            built.append((label, entry.schedule))
        elif _is_cadence_schedule(entry.schedule):
            cadence.append(entry)
        elif callable(entry.schedule):
            built.append((label, _from_factory(label, entry.schedule, optimizer)))
        else:
            raise TypeError(
                f"{label}={entry.schedule!r} is not a schedule: expected a Cadence schedule, a (state, ssr) callable, "
                "a torch LRScheduler, or a callable optimizer -> LRScheduler"
            )

    writers: dict[str, list[tuple[str, bool]]] = {}  # key -> (who, whether it must write alone)
    per_batch: list[LRScheduler] = []
    per_epoch: list[LRScheduler] = []
    for label, scheduler in built:
        if scheduler.optimizer is not optimizer:
            raise ValueError(f"{label} ({type(scheduler).__name__}) was built on another optimizer than the trainer's")
        key = _written_key(scheduler)
        writers.setdefault(key, []).append((f"{label} ({type(scheduler).__name__})", True))
        _scale(label, scheduler, ssr, state)
        if _cadence_built(scheduler):
            if step_every_batch is False:
                raise ValueError(
                    f"step_schedulers_every_batch=False, but {label} ({type(scheduler).__name__}) is built by Cadence "
                    "and steps once per batch; per-epoch stepping is only for torch schedulers you built"
                )
            per_batch.append(scheduler)
        else:
            (per_batch if step_every_batch else per_epoch).append(scheduler)

    if cadence and step_every_batch is False:
        raise ValueError(
            f"step_schedulers_every_batch=False, but {cadence[0].label} is a Cadence schedule, which the trainer "
            "compiles to step once per batch; per-epoch stepping is only for torch schedulers you built"
        )
    for key, group_entries in _by_key(cadence).items():
        writers.setdefault(key, []).extend((e.label, False) for e in group_entries)
        per_batch.extend(_compile_key(key, group_entries, optimizer, state, ssr))

    for key, who in writers.items():
        if len(who) > 1 and any(alone for _, alone in who):
            raise ValueError(
                f"{' and '.join(name for name, _ in who)} all write {key!r}: a torch, Cerebras or SambaFlow scheduler "
                "must be the only writer of its hyperparameter (only Cadence schedules on one key multiply)"
            )
    schedules = [(entry.label, entry.schedule, entry.hyperparameter) for entry in cadence]
    others = [(label, scheduler, _written_key(scheduler)) for label, scheduler in built]
    return ScheduledRun(per_batch, per_epoch, sorted(writers), schedules, others)


def _entries(entries: Any):
    if entries is None:
        return
    items = entries if isinstance(entries, (list, tuple)) else [entries]
    for index, item in enumerate(items):
        label = f"schedulers[{index}]"
        if isinstance(item, dict):
            unknown = sorted(set(item) - {"schedule", "hyperparameter", "param_group_tags"})
            if "schedule" not in item or unknown:
                raise ValueError(
                    f"{label} is a dict, so it needs 'schedule' and may have 'hyperparameter' and 'param_group_tags'"
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


def _is_cadence_schedule(candidate: Any) -> bool:
    if isinstance(candidate, Schedule):
        return True
    if not callable(candidate) or isinstance(candidate, type):
        return False
    try:
        parameters = list(inspect.signature(candidate).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) == 2


def _from_factory(label: str, factory: Callable, optimizer: torch.optim.Optimizer) -> LRScheduler:
    scheduler = factory(optimizer)
    if not isinstance(scheduler, LRScheduler):
        raise TypeError(
            f"{label} is a one-parameter callable, so it is a factory optimizer -> LRScheduler, but it returned "
            f"{type(scheduler).__name__}; wrap a function of the state with schedulers.as_schedule(fn)"
        )
    return scheduler


def _written_key(scheduler: LRScheduler) -> str:
    return getattr(scheduler, "param_group_key", None) or getattr(scheduler, "hyperparameter", None) or "lr"


def _cadence_built(scheduler: LRScheduler) -> bool:
    if getattr(scheduler, "follows_state", False):  # compiled schedules, Cerebras's schedulers
        return True
    return isinstance(scheduler, LambdaLR) and all(hasattr(f, "scaled") for f in scheduler.lr_lambdas)


def _scale(label: str, scheduler: LRScheduler, ssr: float, state: Any) -> None:
    if getattr(scheduler, "follows_state", False):
        scheduler.attach_state(state, ssr)  # follow the trainer's clock (and scale by its ratio)
        return
    try:
        scale_pytorch_scheduler(scheduler, ssr)
    except ValueError as error:
        raise ValueError(f"{label}: {error}") from None


def _by_key(entries: list[_Entry]) -> dict[str, list[_Entry]]:
    grouped: dict[str, list[_Entry]] = {}
    for entry in entries:
        grouped.setdefault(entry.hyperparameter, []).append(entry)
    return grouped


def _compile_key(key: str, entries: list[_Entry], optimizer, state, ssr: float) -> list[CompiledScheduler]:
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
        combined = schedules[0] if len(schedules) == 1 else _ScheduleProduct(schedules)
        try:
            compiled.append(compile_scheduler(combined, optimizer, state, ssr, hyperparameter=key, param_groups=groups))
        except ValueError as error:
            labels = ", ".join(entries[i].label for i in driving)
            raise ValueError(f"{labels}: {error}") from None
    return compiled
