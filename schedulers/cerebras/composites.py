r"""Schedulers made of schedulers: a sequence switching at milestones, a product, a per-group scaling.

The composite owns its children: it alone steps and writes; each child is evaluated as a closed form
of the step it would see (children of a sequence see the steps since their segment began).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch.optim import Optimizer

from schedulers.cerebras import _arguments
from schedulers.cerebras.scheduler import HyperparameterScheduler, StepCount, Tags, is_step_count
from schedulers.cerebras.steps import PENDING
from schedulers.core._ops import ops
from schedulers.core.state import ScheduleState

__all__ = ["ChainedForm", "ScalePerParamForm", "SequentialForm"]


def _children(owner: str, schedulers: object) -> list[HyperparameterScheduler]:
    if isinstance(schedulers, HyperparameterScheduler) or not isinstance(schedulers, (list, tuple)):
        raise ValueError(f"{owner}: schedulers={schedulers!r} must be a list of Cerebras-style schedulers")
    children = list(schedulers)
    if not children:
        raise ValueError(f"{owner}: schedulers must not be empty")
    for i, child in enumerate(children):
        if not isinstance(child, HyperparameterScheduler):
            raise ValueError(
                f"{owner}: schedulers[{i}] is a {type(child).__name__}, not a schedulers.cerebras scheduler "
                "(torch schedulers cannot be composed with these: they are not closed forms of the step)"
            )
    return children


def running_milestones(schedulers: list, missing: Callable[[int, HyperparameterScheduler], Exception]) -> list:
    """A sequence's milestones when none are given: the running sum of every scheduler's ``total_iters`` but
    the last's. ``missing(i, scheduler)`` is the error raised for the first that has no step count (None, or a
    time string not resolved yet)."""
    milestones, total = [], 0
    for i, scheduler in enumerate(schedulers[:-1]):
        steps = scheduler.total_iters
        if steps is None or steps is PENDING or isinstance(steps, str):
            raise missing(i, scheduler)
        total += steps
        milestones.append(total)
    return milestones


class _Composite(HyperparameterScheduler):
    def _children(self) -> list[HyperparameterScheduler]:
        return self._schedulers

    def _setup_children(self) -> None:
        owner = type(self).__name__
        common = {child.param_group_tags for child in self._schedulers}
        if self.param_group_tags is None and len(common) == 1:
            self.param_group_tags = common.pop()  # adopt the children's tags
        for i, child in enumerate(self._schedulers):
            if child.optimizer is not self.optimizer:
                raise ValueError(f"{owner}: schedulers[{i}] schedules another optimizer than this {owner}")
            if child.param_group_key != self.param_group_key:
                raise ValueError(
                    f"{owner} schedules {self.param_group_key!r} but schedulers[{i}] ({type(child).__name__}) "
                    f"schedules {child.param_group_key!r}"
                )
            if child.param_group_tags != self.param_group_tags:
                shown = sorted(child.param_group_tags) if child.param_group_tags is not None else None
                mine = sorted(self.param_group_tags) if self.param_group_tags is not None else None
                raise ValueError(
                    f"{owner}: schedulers[{i}] has param_group_tags={shown} but this {owner} has {mine}: "
                    "all must target the same param groups"
                )
            if child.state is None and self.state is not None:
                child.state, child.ssr = self.state, self.ssr

    def _local_steps(self, t: torch.Tensor) -> list[torch.Tensor]:
        """The step each child sees when this scheduler is at step ``t``."""
        return [t] * len(self._schedulers)

    def _sync_children(self) -> None:
        """Set each child's ``last_epoch`` to the step it sees (for inspection and checkpoints; not per step)."""
        for child, step in zip(self._schedulers, self._local_steps(self.last_epoch), strict=True):
            child.last_epoch = step.clone()

    def state_dict(self) -> dict:
        self._sync_children()
        return super().state_dict()


class SequentialForm(_Composite):
    """The generic arguments, their checks and the closed form of
    :class:`~schedulers.cerebras.lr_scheduler.SequentialLR` (whose docstring has the formula) and
    :class:`~schedulers.cerebras.weight_decay_scheduler.SequentialWD`.

    Args:
        optimizer: The optimizer whose targeted param groups get the value.
        schedulers: The Cerebras-style schedulers composed, on the same optimizer, param-group key and tags.
        milestones: The steps where the next segment starts (numbers or time strings), increasing.
        last_epoch: The step to start after (-1: a fresh run).
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        Not built directly (a form writes no param-group key): the learning-rate and weight-decay classes
        of the schedule subclass it, and their instances are the schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> parts = [cs.LinearLR(opt, 0.0, 0.1, 2), cs.CosineDecayLR(opt, 0.1, 0.0, 2)]
    >>> scheduler = cs.SequentialLR(opt, parts, milestones=[2])
    >>> [round(v, 6) for v in scheduler.values_at(range(5)).tolist()]
    [0.0, 0.05, 0.1, 0.05, 0.0]
    """

    _step_arguments = ("milestones",)

    def __init__(
        self,
        optimizer: Optimizer,
        schedulers: Sequence[HyperparameterScheduler],
        milestones: Sequence[StepCount] | None = None,
        last_epoch: int = -1,
        param_group_tags: Tags = None,
        *,
        state: ScheduleState | None = None,
    ) -> None:
        owner = type(self).__name__
        self._schedulers = _children(owner, schedulers)
        if hasattr(milestones, "tolist") and not isinstance(milestones, list):
            milestones = milestones.tolist()  # numpy arrays, as Cerebras accepts
        if milestones is not None:
            if isinstance(milestones, (str, bytes)) or not isinstance(milestones, (list, tuple)):
                raise ValueError(f"{owner}: milestones={milestones!r} must be a list of step counts")
            if len(milestones) != len(self._schedulers) - 1:
                raise ValueError(
                    f"{owner} needs one milestone fewer than schedulers, got {len(self._schedulers)} schedulers and "
                    f"{len(milestones)} milestones"
                )
            milestones = list(milestones)
        self.milestones = milestones
        super().__init__(optimizer, None, last_epoch, param_group_tags, state=state)

    def _check_steps(self) -> None:
        owner = type(self).__name__
        if self.milestones is None:
            self.milestones = running_milestones(
                self._schedulers,
                lambda i, child: ValueError(
                    f"{owner} was given no milestones and schedulers[{i}] ({type(child).__name__}) has no "
                    "total_iters: give milestones, or total_iters to every scheduler but the last"
                ),
            )
        for i, value in enumerate(self.milestones):
            if not is_step_count(value):
                raise ValueError(f"{owner}: milestones[{i}]={value!r} must be a number of steps >= 0")
        if any(b < a for a, b in zip(self.milestones, self.milestones[1:], strict=False)):
            raise ValueError(f"{owner}: milestones={self.milestones!r} must be increasing")

    def _local_steps(self, t: torch.Tensor) -> list[torch.Tensor]:
        return [t] + [(t - m).clamp(min=0).to(t.dtype) for m in self.milestones]

    def _value(self, t: Any) -> Any:
        o = ops(t)
        value = self._schedulers[0]._closed_form_at(t)
        for milestone, child in zip(self.milestones, self._schedulers[1:], strict=True):
            value = o.where(t < milestone, value, child._closed_form_at(o.maximum(t - milestone, 0.0)))
        return value


class ChainedForm(_Composite):
    """The generic arguments, their checks and the closed form of
    :class:`~schedulers.cerebras.lr_scheduler.ChainedLR` (whose docstring has the formula) and
    :class:`~schedulers.cerebras.weight_decay_scheduler.ChainedWD`.

    Args:
        schedulers: The Cerebras-style schedulers composed, on the same optimizer, param-group key and tags.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        Not built directly (a form writes no param-group key): the learning-rate and weight-decay classes
        of the schedule subclass it, and their instances are the schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> scheduler = cs.ChainedLR([cs.LinearLR(opt, 0.1, 0.0, 4), cs.StepLR(opt, 1.0, 2, 0.5)])
    >>> [round(v, 6) for v in scheduler.values_at(range(5)).tolist()]
    [0.1, 0.075, 0.025, 0.0125, 0.0]
    """

    def __init__(
        self,
        schedulers: Sequence[HyperparameterScheduler],
        param_group_tags: Tags = None,
        *,
        state: ScheduleState | None = None,
    ) -> None:
        children = _children(type(self).__name__, schedulers)
        self._schedulers = children
        super().__init__(children[0].optimizer, None, param_group_tags=param_group_tags, state=state)

    def _check_steps(self) -> None:
        self._initials = []
        for i, child in enumerate(self._schedulers[1:], start=1):
            initial = float(child._closed_form_at(0))
            if initial == 0 or not math.isfinite(initial):
                raise ValueError(
                    f"{type(self).__name__}: schedulers[{i}] ({type(child).__name__}) starts at {initial!r}, so its "
                    "value relative to its start is undefined; a chained scheduler after the first must start non-zero"
                )
            self._initials.append(initial)

    def _value(self, t: Any) -> Any:
        value = self._schedulers[0]._closed_form_at(t)
        for child, initial in zip(self._schedulers[1:], self._initials, strict=True):
            value = value * (child._closed_form_at(t) / initial)
        return value


class ScalePerParamForm(_Composite):
    """The generic arguments, their checks and the closed form of
    :class:`~schedulers.cerebras.lr_scheduler.ScalePerParamLR` (whose docstring has the formula) and
    :class:`~schedulers.cerebras.weight_decay_scheduler.ScalePerParamWD`.

    Args:
        optimizer: The optimizer whose targeted param groups get the value.
        scheduler: The Cerebras-style scheduler whose value each group gets, times its ``adjust_learning_rate``.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        Not built directly (a form writes no param-group key): the learning-rate and weight-decay classes
        of the schedule subclass it, and their instances are the schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.ScalePerParamLR(opt, cs.LinearLR(opt, 0.1, 0.0, 4)).values_at(range(5)).tolist()]
    [0.1, 0.075, 0.05, 0.025, 0.0]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        scheduler: HyperparameterScheduler,
        param_group_tags: Tags = None,
        *,
        state: ScheduleState | None = None,
    ) -> None:
        self._schedulers = _children(type(self).__name__, [scheduler])
        try:  # a negative factor would write a negative value into its group
            self.adjustment_scalars = [
                _arguments.number(
                    f"param_groups[{i}]['adjust_learning_rate']",
                    group.get("adjust_learning_rate", group.get("adjust_val", 1.0)),
                    low=0.0,
                )
                for i, group in enumerate(optimizer.param_groups)
            ]
        except ValueError as error:
            raise ValueError(f"{type(self).__name__}: {error}") from None
        super().__init__(optimizer, None, param_group_tags=param_group_tags, state=state)

    def _group_scale(self, index: int) -> float:
        scalars = self.adjustment_scalars
        return scalars[index] if index < len(scalars) else 1.0

    def _value(self, t: Any) -> Any:
        return self._schedulers[0]._closed_form_at(t)
