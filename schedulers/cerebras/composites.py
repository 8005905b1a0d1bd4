r"""Schedulers made of schedulers: a sequence switching at milestones, a product, a per-group scaling.

Each composes its children's schedules into one (:class:`~schedulers.families.cerebras.Sequential`,
:class:`~schedulers.families.cerebras.Chained`, :class:`~schedulers.families.cerebras.ScalePerParam`): the
composite alone steps and writes, and resolves the whole schedule for the run at once; its children follow the
run through their ``attach_state``. The children are kept for Cerebras's checkpoint format (``_schedulers``: each
child's state at the step it sees).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch.optim import Optimizer

from schedulers.cerebras.scheduler import HyperparameterScheduler, StepCount, Tags, UserClosedForm
from schedulers.core.run import StateLike
from schedulers.core.schedule_arguments import number_argument
from schedulers.families import cerebras as forms

__all__ = ["ChainedBase", "ScalePerParamBase", "SequentialBase"]


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


class _Composite(HyperparameterScheduler):
    def _adopt(self) -> None:
        """Check the children write what this composite writes, and adopt their tags when it has none."""
        owner = type(self).__name__
        common = {child.param_group_tags for child in self._schedulers}
        if self.param_group_tags is None and len(common) == 1:
            self.param_group_tags = common.pop()
        if self.state is None:  # a composite runs in its children's run
            self.state = next((child.state for child in self._schedulers if child.state is not None), None)
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

    def curve_for(self, state: StateLike | None, ssr: float) -> Callable[[float], float]:
        """The composed schedule for the run (see the base class); each child then follows the same run, taking its
        part of the composed schedule as resolved (so its step counts read as resolved for that run, without being
        resolved again).

        Args:
            state: The run's state (None: no run).
            ssr: The scale schedule ratio.

        Returns:
            The resolved composed schedule's value, a function of the step count.
        """
        curve = super().curve_for(state, ssr)  # first: a run the composite refuses changes no child
        self._follow(self._form, state, ssr)  # type: ignore[arg-type]  (set by curve_for)
        return curve

    def _follow(self, form: forms.StepSchedule, state: StateLike | None, ssr: float) -> None:
        super()._follow(form, state, ssr)
        composed = form.inner if isinstance(form, UserClosedForm) else form  # a subclass's closed form around it
        for child, part in zip(self._schedulers, composed.schedules, strict=True):  # type: ignore[union-attr]
            child._follow(part, state, ssr)

    def _labels(self) -> tuple[str, ...]:
        return tuple(type(child).__name__ for child in self._schedulers)

    def _local_steps(self, t: torch.Tensor) -> list[torch.Tensor]:
        """The step each child sees when this scheduler is at step ``t``."""
        return [t] * len(self._schedulers)

    def state_dict(self) -> dict:
        """The composite's state, each child's at the step it sees under ``_schedulers`` (Cerebras's layout; the
        children themselves are left as they are).

        Returns:
            The state, loadable with ``torch.load(weights_only=True)``.
        """
        state = super().state_dict()
        for saved, step in zip(state["_schedulers"], self._local_steps(self.last_epoch), strict=True):
            saved["last_epoch"] = step.clone()
        return state


class SequentialBase(_Composite):
    """What ``SequentialLR`` and ``SequentialWD`` are: each child from its milestone on, seeing the steps since.

    Args:
        optimizer: The optimizer whose targeted param groups get the value.
        schedulers: The Cerebras-style schedulers composed, on the same optimizer, param-group key and tags.
        milestones: The steps where the next one starts (numbers or time strings), increasing (None: the running
            sum of every child's ``total_iters`` but the last's).
        last_epoch: The step to start after (-1: a fresh run).
        param_group_tags: Write only into the param groups with one of these tags (None: the children's).
        state: The run's state, needed only to resolve ``"ep"``/``"dur"`` time strings.

    Returns:
        The base of the two classes; their instances are the schedulers.

    Raises:
        ValueError: ``schedulers`` or ``milestones`` not lists of the right lengths, or children that write
            another optimizer, key or groups.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    >>> parts = [cs.LinearLR(opt, 0.0, 0.1, 2), cs.CosineDecayLR(opt, 0.1, 0.0, 2)]
    >>> [round(v, 6) for v in cs.SequentialLR(opt, parts, milestones=[2]).values_at(range(5)).tolist()]
    [0.0, 0.05, 0.1, 0.05, 0.0]
    """

    composes = forms.Sequential

    def __init__(
        self,
        optimizer: Optimizer,
        schedulers: Sequence[HyperparameterScheduler],
        milestones: Sequence[StepCount] | None = None,
        last_epoch: int = -1,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._schedulers = _children(type(self).__name__, schedulers)
        parts = tuple(child.schedule for child in self._schedulers)
        schedule = self._naming_errors(forms.Sequential, parts, milestones, labels=self._labels())
        self._setup(optimizer, schedule, last_epoch, param_group_tags, state)
        self._adopt()

    def _local_steps(self, t: torch.Tensor) -> list[torch.Tensor]:
        return self._ready_form().local_steps(t)


class ChainedBase(_Composite):
    """What ``ChainedLR`` and ``ChainedWD`` are: the first child's value times each other's relative to its start.

    Args:
        schedulers: The Cerebras-style schedulers composed, on the same optimizer, param-group key and tags.
        param_group_tags: Write only into the param groups with one of these tags (None: the children's).
        state: The run's state, needed only to resolve ``"ep"``/``"dur"`` time strings.

    Returns:
        The base of the two classes; their instances are the schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    >>> scheduler = cs.ChainedLR([cs.LinearLR(opt, 0.1, 0.0, 4), cs.StepLR(opt, 1.0, 2, 0.5)])
    >>> [round(v, 6) for v in scheduler.values_at(range(5)).tolist()]
    [0.1, 0.075, 0.025, 0.0125, 0.0]
    """

    composes = forms.Chained

    def __init__(
        self,
        schedulers: Sequence[HyperparameterScheduler],
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._schedulers = _children(type(self).__name__, schedulers)
        schedule = forms.Chained(tuple(c.schedule for c in self._schedulers), labels=self._labels())
        self._setup(self._schedulers[0].optimizer, schedule, -1, param_group_tags, state)
        self._adopt()


class ScalePerParamBase(_Composite):
    """What ``ScalePerParamLR`` and ``ScalePerParamWD`` are: one child's value times each param group's
    ``adjust_learning_rate`` (``adjust_val``; 1 when absent).

    Args:
        optimizer: The optimizer whose targeted param groups get the value.
        scheduler: The Cerebras-style scheduler whose value each group gets, times its factor.
        param_group_tags: Write only into the param groups with one of these tags (None: the child's).
        state: The run's state, needed only to resolve ``"ep"``/``"dur"`` time strings.

    Returns:
        The base of the two classes; their instances are the schedulers.

    Raises:
        ValueError: A group's factor that is not a finite number >= 0.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([{"params": [torch.zeros(1, requires_grad=True)], "adjust_learning_rate": 0.5}], lr=0.1)
    >>> scheduler = cs.ScalePerParamLR(opt, cs.ConstantLR(opt, 0.1))
    >>> opt.param_groups[0]["lr"]
    0.05
    """

    composes = forms.ScalePerParam

    def __init__(
        self,
        optimizer: Optimizer,
        scheduler: HyperparameterScheduler,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._schedulers = _children(type(self).__name__, [scheduler])
        try:  # a negative factor would write a negative value into its group
            self.adjustment_scalars = [
                number_argument(
                    f"param_groups[{i}]['adjust_learning_rate']",
                    group.get("adjust_learning_rate", group.get("adjust_val", 1.0)),
                    low=0.0,
                )
                for i, group in enumerate(getattr(optimizer, "param_groups", []))
            ]
        except ValueError as error:
            raise ValueError(f"{type(self).__name__}: {error}") from None
        labels = (type(self).__name__,)  # a ratio its form cannot take is this scheduler's to refuse
        self._setup(optimizer, forms.ScalePerParam((scheduler.schedule,), labels=labels), -1, param_group_tags, state)
        self._adopt()

    def _group_scale(self, index: int) -> float:
        scalars = self.adjustment_scalars
        return scalars[index] if index < len(scalars) else 1.0

    def _arguments(self) -> dict[str, Any]:
        return {**super()._arguments(), "adjustment_scalars": list(self.adjustment_scalars)}
