r"""The forms of the Cerebras schedules: what the learning-rate and weight-decay class of a schedule share.

A form is a generic signature (Cerebras 2.x's weight-decay names: ``val``, ``initial_val``, ``end_val``, ...),
the checks of its arguments, and its translation into the curve Cadence's engine evaluates: ``_value(t)``, the
closed form of the step ``t`` through :mod:`schedulers.core.kernels` (one implementation for floats and
tensors), once the step-count arguments are resolved for the run. The classes users call declare their
signatures on these forms (:mod:`schedulers.cerebras.lr_scheduler` with the learning-rate names,
:mod:`schedulers.cerebras.weight_decay_scheduler` with these), and their docstrings give the formulas.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch.optim import Optimizer

from schedulers.cerebras import _arguments
from schedulers.cerebras.scheduler import HyperparameterScheduler, StepCount, Tags, is_step_count
from schedulers.core import kernels
from schedulers.core._ops import ops
from schedulers.core.state import ScheduleState

__all__ = [
    "ConstantForm",
    "CosineAnnealingForm",
    "CosineAnnealingWarmRestartsForm",
    "CosineDecayForm",
    "CyclicForm",
    "ExponentialForm",
    "InverseExponentialTimeDecayForm",
    "InverseSquareRootDecayForm",
    "LambdaForm",
    "LinearForm",
    "MultiStepForm",
    "MultiplicativeForm",
    "OneCycleForm",
    "PiecewiseConstantForm",
    "PolynomialForm",
    "StepForm",
]

# warm restarts with T_mult > 1: interval ends up to this step (the lengths grow geometrically, so a few dozen)
_RESTART_HORIZON = 2**50


class ConstantForm(HyperparameterScheduler):
    """The generic arguments, their checks and the closed form of
    :class:`~schedulers.cerebras.lr_scheduler.ConstantLR` (whose docstring has the formula) and
    :class:`~schedulers.cerebras.weight_decay_scheduler.ConstantWD`.

    Args:
        optimizer: The optimizer whose targeted param groups get the value.
        val: The value held at every step.
        total_iters: How many steps the schedule lasts: a number or a time string (``"1000ba"``, ``"2ep"``,
            ``"0.1dur"``) (None: no end; it only says how long, e.g. in a sequence).
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        Not built directly (a form writes no param-group key): the learning-rate and weight-decay classes
        of the schedule subclass it, and their instances are the schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.ConstantLR(opt, 0.1, total_iters=4).values_at(range(5)).tolist()]
    [0.1, 0.1, 0.1, 0.1, 0.1]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        val: float,
        total_iters: StepCount | None = None,
        param_group_tags: Tags = None,
        *,
        state: ScheduleState | None = None,
    ) -> None:
        self.val = self._value_argument("val", val)
        super().__init__(optimizer, total_iters, param_group_tags=param_group_tags, state=state)

    def _check_steps(self) -> None:
        self._positive_steps("total_iters", optional=True)

    def _value(self, t: Any) -> Any:
        return kernels.constant(t, self.val)


class PolynomialForm(HyperparameterScheduler):
    """The generic arguments, their checks and the closed form of
    :class:`~schedulers.cerebras.lr_scheduler.PolynomialLR` (whose docstring has the formula) and
    :class:`~schedulers.cerebras.weight_decay_scheduler.PolynomialWD`.

    Args:
        optimizer: The optimizer whose targeted param groups get the value.
        initial_val: The value at step 0.
        end_val: The value at step ``total_iters`` and after.
        total_iters: How many steps the schedule lasts: a number or a time string (``"1000ba"``, ``"2ep"``,
            ``"0.1dur"``).
        power: The exponent of the polynomial decay (1: linear).
        cycle: Restart the decay after ``total_iters`` with a horizon a multiple of it (TensorFlow's ``cycle``).
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        Not built directly (a form writes no param-group key): the learning-rate and weight-decay classes
        of the schedule subclass it, and their instances are the schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.PolynomialLR(opt, 0.1, 0.01, total_iters=4, power=2.0).values_at(range(5)).tolist()]
    [0.1, 0.060625, 0.0325, 0.015625, 0.01]
    """

    _periods = ("total_iters",)

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float,
        end_val: float,
        total_iters: StepCount,
        power: float = 1.0,
        cycle: bool = False,
        param_group_tags: Tags = None,
        *,
        state: ScheduleState | None = None,
    ) -> None:
        self.initial_val = self._value_argument("initial_val", initial_val)
        self.end_val = self._value_argument("end_val", end_val)
        self.power = _arguments.number("power", power, low=0.0)
        self.cycle = _arguments.boolean("cycle", cycle)
        super().__init__(optimizer, total_iters, param_group_tags=param_group_tags, state=state)

    def _value(self, t: Any) -> Any:
        horizon = self.total_iters
        if self.cycle:
            o = ops(t)
            horizon = horizon * o.maximum(-o.floor(-t / horizon), 1.0)  # T * ceil(t / T), T at t = 0
        return kernels.polynomial(t / horizon, self.power, self.initial_val, self.end_val)


class LinearForm(PolynomialForm):
    """The generic arguments, their checks and the closed form of
    :class:`~schedulers.cerebras.lr_scheduler.LinearLR` (whose docstring has the formula) and
    :class:`~schedulers.cerebras.weight_decay_scheduler.LinearWD`.

    Args:
        optimizer: The optimizer whose targeted param groups get the value.
        initial_val: The value at step 0.
        end_val: The value at step ``total_iters`` and after.
        total_iters: How many steps the schedule lasts: a number or a time string (``"1000ba"``, ``"2ep"``,
            ``"0.1dur"``).
        cycle: Restart the decay after ``total_iters`` with a horizon a multiple of it (TensorFlow's ``cycle``).
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        Not built directly (a form writes no param-group key): the learning-rate and weight-decay classes
        of the schedule subclass it, and their instances are the schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.LinearLR(opt, 0.1, 0.0, total_iters=4).values_at(range(5)).tolist()]
    [0.1, 0.075, 0.05, 0.025, 0.0]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float,
        end_val: float,
        total_iters: StepCount,
        cycle: bool = False,
        param_group_tags: Tags = None,
        *,
        state: ScheduleState | None = None,
    ) -> None:
        super().__init__(
            optimizer,
            initial_val,
            end_val,
            total_iters,
            power=1.0,
            cycle=cycle,
            param_group_tags=param_group_tags,
            state=state,
        )


class ExponentialForm(HyperparameterScheduler):
    """The generic arguments, their checks and the closed form of
    :class:`~schedulers.cerebras.lr_scheduler.ExponentialLR` (whose docstring has the formula) and
    :class:`~schedulers.cerebras.weight_decay_scheduler.ExponentialWD`.

    Args:
        optimizer: The optimizer whose targeted param groups get the value.
        initial_val: The value at step 0.
        total_iters: How many steps the schedule lasts: a number or a time string (``"1000ba"``, ``"2ep"``,
            ``"0.1dur"``).
        decay_rate: The factor per ``total_iters`` steps.
        staircase: Decay in whole periods of ``total_iters`` steps (a staircase) rather than continuously.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        Not built directly (a form writes no param-group key): the learning-rate and weight-decay classes
        of the schedule subclass it, and their instances are the schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.ExponentialLR(opt, 0.1, total_iters=2, decay_rate=0.5).values_at(range(5)).tolist()]
    [0.1, 0.070711, 0.05, 0.035355, 0.025]
    """

    _periods = ("total_iters",)

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float,
        total_iters: StepCount,
        decay_rate: float,
        staircase: bool = False,
        param_group_tags: Tags = None,
        *,
        state: ScheduleState | None = None,
    ) -> None:
        self.initial_val = self._value_argument("initial_val", initial_val)
        self.decay_rate = _arguments.number("decay_rate", decay_rate, low=0.0)
        self.staircase = _arguments.boolean("staircase", staircase)
        super().__init__(optimizer, total_iters, param_group_tags=param_group_tags, state=state)

    def _value(self, t: Any) -> Any:
        if self.staircase:
            return self.initial_val * kernels.step(t, self.total_iters, self.decay_rate)
        return self.initial_val * kernels.exponential(t, self.decay_rate, self.total_iters)


class InverseExponentialTimeDecayForm(HyperparameterScheduler):
    """The generic arguments, their checks and the closed form of
    :class:`~schedulers.cerebras.lr_scheduler.InverseExponentialTimeDecayLR` (whose docstring has the formula) and
    :class:`~schedulers.cerebras.weight_decay_scheduler.InverseExponentialTimeDecayWD`.

    Args:
        optimizer: The optimizer whose targeted param groups get the value.
        initial_val: The value at step 0.
        step_exponent: The exponent of the step count in the denominator.
        total_iters: How many steps the schedule lasts: a number or a time string (``"1000ba"``, ``"2ep"``,
            ``"0.1dur"``).
        decay_rate: The factor per ``total_iters`` steps.
        staircase: Decay in whole periods of ``total_iters`` steps (a staircase) rather than continuously.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        Not built directly (a form writes no param-group key): the learning-rate and weight-decay classes
        of the schedule subclass it, and their instances are the schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> scheduler = cs.InverseExponentialTimeDecayLR(opt, 0.1, step_exponent=1, total_iters=2, decay_rate=0.5)
    >>> [round(v, 6) for v in scheduler.values_at(range(5)).tolist()]
    [0.1, 0.08, 0.066667, 0.057143, 0.05]
    """

    _periods = ("total_iters",)

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float,
        step_exponent: float,
        total_iters: StepCount,
        decay_rate: float,
        staircase: bool = False,
        param_group_tags: Tags = None,
        *,
        state: ScheduleState | None = None,
    ) -> None:
        self.initial_val = self._value_argument("initial_val", initial_val)
        self.step_exponent = _arguments.number("step_exponent", step_exponent, low=0.0)
        self.decay_rate = _arguments.number("decay_rate", decay_rate, low=0.0)
        self.staircase = _arguments.boolean("staircase", staircase)
        super().__init__(optimizer, total_iters, param_group_tags=param_group_tags, state=state)

    def _value(self, t: Any) -> Any:
        return self.initial_val * kernels.inverse_time(
            t, self.step_exponent, self.total_iters, self.decay_rate, self.staircase
        )


class InverseSquareRootDecayForm(HyperparameterScheduler):
    """The generic arguments, their checks and the closed form of
    :class:`~schedulers.cerebras.lr_scheduler.InverseSquareRootDecayLR` (whose docstring has the formula) and
    :class:`~schedulers.cerebras.weight_decay_scheduler.InverseSquareRootDecayWD`.

    Args:
        optimizer: The optimizer whose targeted param groups get the value.
        initial_val: The value at step 0.
        scale: The factor of the inverse square root of the step.
        warmup_steps: The step count the inverse square root starts from (a number or a time string).
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        Not built directly (a form writes no param-group key): the learning-rate and weight-decay classes
        of the schedule subclass it, and their instances are the schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> scheduler = cs.InverseSquareRootDecayLR(opt, 0.1, scale=1.0, warmup_steps=2)
    >>> [round(v, 6) for v in scheduler.values_at(range(5)).tolist()]
    [0.070711, 0.070711, 0.070711, 0.057735, 0.05]
    """

    _periods = ("warmup_steps",)
    _step_arguments = ("warmup_steps",)

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float = 1.0,
        scale: float = 1.0,
        warmup_steps: StepCount = 1.0,
        param_group_tags: Tags = None,
        *,
        state: ScheduleState | None = None,
    ) -> None:
        self.initial_val = self._value_argument("initial_val", initial_val)
        self.scale = self._value_argument("scale", scale)
        self.warmup_steps = warmup_steps
        super().__init__(optimizer, None, param_group_tags=param_group_tags, state=state)

    def _value(self, t: Any) -> Any:
        return self.initial_val * kernels.inverse_sqrt(t, self.scale, self.warmup_steps)


class CosineDecayForm(HyperparameterScheduler):
    """The generic arguments, their checks and the closed form of
    :class:`~schedulers.cerebras.lr_scheduler.CosineDecayLR` (whose docstring has the formula) and
    :class:`~schedulers.cerebras.weight_decay_scheduler.CosineDecayWD`.

    Args:
        optimizer: The optimizer whose targeted param groups get the value.
        initial_val: The value at step 0.
        end_val: The value at step ``total_iters`` and after.
        total_iters: How many steps the schedule lasts: a number or a time string (``"1000ba"``, ``"2ep"``,
            ``"0.1dur"``).
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        Not built directly (a form writes no param-group key): the learning-rate and weight-decay classes
        of the schedule subclass it, and their instances are the schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.CosineDecayLR(opt, 0.1, 0.0, total_iters=4).values_at(range(5)).tolist()]
    [0.1, 0.085355, 0.05, 0.014645, 0.0]
    """

    _periods = ("total_iters",)

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float,
        end_val: float,
        total_iters: StepCount,
        param_group_tags: Tags = None,
        *,
        state: ScheduleState | None = None,
    ) -> None:
        self.initial_val = self._value_argument("initial_val", initial_val)
        self.end_val = self._value_argument("end_val", end_val)
        super().__init__(optimizer, total_iters, param_group_tags=param_group_tags, state=state)

    def _value(self, t: Any) -> Any:
        return kernels.cosine(t / self.total_iters, self.initial_val, self.end_val)


def _as_list(values: object) -> object:
    """Milestones as given, with a tuple or an array (numpy, torch) turned into a list."""
    if isinstance(values, tuple):
        return list(values)
    if hasattr(values, "tolist") and not isinstance(values, (list, str)):
        return values.tolist()
    return values


def _milestone_tuple(owner: object, name: str, values: object, *, strict: bool) -> tuple:
    """Resolved milestones as a sorted tuple of step counts, or a ValueError naming ``name``."""
    if not isinstance(values, (list, tuple)):
        raise ValueError(f"{type(owner).__name__}: {name}={values!r} must be a list of step counts")
    for i, value in enumerate(values):
        if not is_step_count(value):
            raise ValueError(f"{type(owner).__name__}: {name}[{i}]={value!r} must be a number of steps >= 0")
    if strict and any(b <= a for a, b in zip(values, values[1:], strict=False)):
        raise ValueError(f"{type(owner).__name__}: {name}={list(values)!r} must be strictly increasing")
    return tuple(sorted(values))


class PiecewiseConstantForm(HyperparameterScheduler):
    """The generic arguments, their checks and the closed form of
    :class:`~schedulers.cerebras.lr_scheduler.PiecewiseConstantLR` (whose docstring has the formula) and
    :class:`~schedulers.cerebras.weight_decay_scheduler.PiecewiseConstantWD`.

    Args:
        optimizer: The optimizer whose targeted param groups get the value.
        vals: The values, one per segment (one more than ``milestones``).
        milestones: The steps where the next segment starts (numbers or time strings), increasing.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        Not built directly (a form writes no param-group key): the learning-rate and weight-decay classes
        of the schedule subclass it, and their instances are the schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> scheduler = cs.PiecewiseConstantLR(opt, [0.1, 0.05, 0.01], milestones=[1, 3])
    >>> [round(v, 6) for v in scheduler.values_at(range(5)).tolist()]
    [0.1, 0.05, 0.05, 0.01, 0.01]
    """

    _step_arguments = ("milestones",)

    def __init__(
        self,
        optimizer: Optimizer,
        vals: Sequence[float],
        milestones: Sequence[StepCount],
        param_group_tags: Tags = None,
        *,
        state: ScheduleState | None = None,
    ) -> None:
        self.vals = self._value_argument("vals", vals)
        self.milestones = _as_list(milestones)
        super().__init__(optimizer, None, param_group_tags=param_group_tags, state=state)

    def _check_steps(self) -> None:
        self._points = _milestone_tuple(self, "milestones", self.milestones, strict=True)
        if len(self.vals) != len(self._points) + 1:
            raise ValueError(
                f"{type(self).__name__}: {self._name('vals')} needs one more value than milestones "
                f"(a value before the first milestone and one after each), got {len(self.vals)} values and "
                f"{len(self._points)} milestones"
            )
        self._table = tuple(self.vals)

    def _value(self, t: Any) -> Any:
        return kernels.piecewise_constant(t, self._points, self._table)


class MultiStepForm(HyperparameterScheduler):
    """The generic arguments, their checks and the closed form of
    :class:`~schedulers.cerebras.lr_scheduler.MultiStepLR` (whose docstring has the formula) and
    :class:`~schedulers.cerebras.weight_decay_scheduler.MultiStepWD`.

    Args:
        optimizer: The optimizer whose targeted param groups get the value.
        initial_val: The value at step 0.
        gamma: The factor applied at each milestone / step boundary.
        milestones: The steps where the next segment starts (numbers or time strings), increasing.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        Not built directly (a form writes no param-group key): the learning-rate and weight-decay classes
        of the schedule subclass it, and their instances are the schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.MultiStepLR(opt, 0.1, gamma=0.5, milestones=[1, 3]).values_at(range(5)).tolist()]
    [0.1, 0.05, 0.05, 0.025, 0.025]
    """

    _step_arguments = ("milestones",)

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float,
        gamma: float,
        milestones: Sequence[StepCount],
        param_group_tags: Tags = None,
        *,
        state: ScheduleState | None = None,
    ) -> None:
        self.initial_val = self._value_argument("initial_val", initial_val)
        self.gamma = _arguments.number("gamma", gamma, low=0.0)
        self.milestones = _as_list(milestones)
        super().__init__(optimizer, None, param_group_tags=param_group_tags, state=state)

    def _check_steps(self) -> None:
        self._points = _milestone_tuple(self, "milestones", self.milestones, strict=False)

    def _value(self, t: Any) -> Any:
        return self.initial_val * kernels.multistep(t, self._points, self.gamma)


class StepForm(HyperparameterScheduler):
    """The generic arguments, their checks and the closed form of
    :class:`~schedulers.cerebras.lr_scheduler.StepLR` (whose docstring has the formula) and
    :class:`~schedulers.cerebras.weight_decay_scheduler.StepWD`.

    Args:
        optimizer: The optimizer whose targeted param groups get the value.
        initial_val: The value at step 0.
        step_size: The steps between two decays by ``gamma`` (a number or a time string).
        gamma: The factor applied at each milestone / step boundary.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        Not built directly (a form writes no param-group key): the learning-rate and weight-decay classes
        of the schedule subclass it, and their instances are the schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.StepLR(opt, 0.1, step_size=2, gamma=0.5).values_at(range(5)).tolist()]
    [0.1, 0.1, 0.05, 0.05, 0.025]
    """

    _periods = ("step_size",)
    _step_arguments = ("step_size",)

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float,
        step_size: StepCount,
        gamma: float,
        param_group_tags: Tags = None,
        *,
        state: ScheduleState | None = None,
    ) -> None:
        self.initial_val = self._value_argument("initial_val", initial_val)
        self.step_size = step_size
        self.gamma = _arguments.number("gamma", gamma, low=0.0)
        super().__init__(optimizer, None, param_group_tags=param_group_tags, state=state)

    def _value(self, t: Any) -> Any:
        return self.initial_val * kernels.step(t, self.step_size, self.gamma)


class CosineAnnealingForm(HyperparameterScheduler):
    """The generic arguments, their checks and the closed form of
    :class:`~schedulers.cerebras.lr_scheduler.CosineAnnealingLR` (whose docstring has the formula) and
    :class:`~schedulers.cerebras.weight_decay_scheduler.CosineAnnealingWD`.

    Args:
        optimizer: The optimizer whose targeted param groups get the value.
        initial_val: The value at step 0.
        T_max: The steps of a half cosine period (a number or a time string).
        eta_min: The lowest value, at the bottom of the cosine.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        Not built directly (a form writes no param-group key): the learning-rate and weight-decay classes
        of the schedule subclass it, and their instances are the schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.CosineAnnealingLR(opt, 0.1, T_max=4, eta_min=0.0).values_at(range(5)).tolist()]
    [0.1, 0.085355, 0.05, 0.014645, 0.0]
    """

    _periods = ("T_max",)
    _step_arguments = ("T_max",)

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float,
        T_max: StepCount,
        eta_min: float = 0.0,
        param_group_tags: Tags = None,
        *,
        state: ScheduleState | None = None,
    ) -> None:
        self.initial_val = self._value_argument("initial_val", initial_val)
        self.T_max = T_max
        self.eta_min = self._value_argument("eta_min", eta_min)
        super().__init__(optimizer, None, param_group_tags=param_group_tags, state=state)

    def _value(self, t: Any) -> Any:
        return kernels.cosine_wave(t / self.T_max, self.initial_val, self.eta_min)


class LambdaForm(HyperparameterScheduler):
    """The generic arguments, their checks and the closed form of
    :class:`~schedulers.cerebras.lr_scheduler.LambdaLR` (whose docstring has the formula) and
    :class:`~schedulers.cerebras.weight_decay_scheduler.LambdaWD`.

    Args:
        optimizer: The optimizer whose targeted param groups get the value.
        initial_val: The value the user's functions of the step multiply.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state, needed only to resolve ``"ep"``/``"dur"`` time strings.

    Returns:
        Not built directly (a form writes no param-group key): the learning-rate and weight-decay classes
        of the schedule subclass it, and their instances are the schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    >>> class Halving(cs.LambdaLR):
    ...     def set_lr_lambda(self):
    ...         return lambda step: 0.5**step
    >>> [round(v, 6) for v in Halving(opt, 0.1).values_at(range(3)).tolist()]
    [0.1, 0.05, 0.025]
    """

    _tensor_only = True
    _scalable = False  # the user's functions of the step cannot be rescaled

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float,
        param_group_tags: Tags = None,
        *,
        state: ScheduleState | None = None,
    ) -> None:
        self.initial_val = self._value_argument("initial_val", initial_val)
        super().__init__(optimizer, None, param_group_tags=param_group_tags, state=state)

    def set_value_lambda(self) -> Any:
        """The function(s) of the step to multiply the initial value by: override this."""
        raise NotImplementedError(
            f"{type(self).__name__} is a base class: subclass it and override "
            f"{self._lambda_hook()}() to return a function of the step (or a list of functions), "
            "written with torch ops"
        )

    def _lambda_hook(self) -> str:
        return "set_value_lambda"

    def _lambdas(self) -> list:
        found = getattr(self, self._lambda_hook())()
        return list(found) if isinstance(found, (list, tuple)) else [found]

    def _value(self, t: Any) -> Any:
        value = torch.full_like(t, self.initial_val)
        for function in self._lambdas():
            value = value * function(t)
        return value


class CosineAnnealingWarmRestartsForm(HyperparameterScheduler):
    """The generic arguments, their checks and the closed form of
    :class:`~schedulers.cerebras.lr_scheduler.CosineAnnealingWarmRestarts` (whose docstring has the formula) and
    :class:`~schedulers.cerebras.weight_decay_scheduler.CosineAnnealingWarmRestartsWD`.

    Args:
        optimizer: The optimizer whose targeted param groups get the value.
        initial_val: The value at step 0.
        T_0: The steps of the first cosine period (a number or a time string).
        T_mult: The factor each period's length grows by after a restart.
        eta_min: The lowest value, at the bottom of the cosine.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        Not built directly (a form writes no param-group key): the learning-rate and weight-decay classes
        of the schedule subclass it, and their instances are the schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> scheduler = cs.CosineAnnealingWarmRestarts(opt, 0.1, T_0=2, T_mult=1, eta_min=0.0)
    >>> [round(v, 6) for v in scheduler.values_at(range(5)).tolist()]
    [0.1, 0.05, 0.1, 0.05, 0.1]
    """

    _periods = ("T_0",)
    _step_arguments = ("T_0",)

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float,
        T_0: StepCount,
        T_mult: int = 1,
        eta_min: float = 0.0,
        param_group_tags: Tags = None,
        *,
        state: ScheduleState | None = None,
    ) -> None:
        self.initial_val = self._value_argument("initial_val", initial_val)
        self.T_0 = T_0
        self.T_mult = _arguments.integer("T_mult", T_mult, low=1)
        self.eta_min = self._value_argument("eta_min", eta_min)
        super().__init__(optimizer, None, param_group_tags=param_group_tags, state=state)

    def _check_steps(self) -> None:
        super()._check_steps()
        self.T_0 = _arguments.integer("T_0", self.T_0, low=1)
        self._ends = kernels.restart_boundaries(self.T_0, self.T_mult, _RESTART_HORIZON)

    def _value(self, t: Any) -> Any:
        return self.eta_min + (self.initial_val - self.eta_min) * kernels.warm_restarts(t, self._ends, 0.0)


class MultiplicativeForm(HyperparameterScheduler):
    """The generic arguments, their checks and the closed form of
    :class:`~schedulers.cerebras.lr_scheduler.MultiplicativeLR` (whose docstring has the formula) and
    :class:`~schedulers.cerebras.weight_decay_scheduler.MultiplicativeWD`.

    Args:
        optimizer: The optimizer whose targeted param groups get the value.
        initial_val: The value at step 0.
        coefficient: The factor the value is multiplied by at each step.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        Not built directly (a form writes no param-group key): the learning-rate and weight-decay classes
        of the schedule subclass it, and their instances are the schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.MultiplicativeLR(opt, 0.1, coefficient=0.5).values_at(range(5)).tolist()]
    [0.1, 0.05, 0.025, 0.0125, 0.00625]
    """

    _scalable = False  # a factor per step: no step-count argument to scale

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float,
        coefficient: float,
        param_group_tags: Tags = None,
        *,
        state: ScheduleState | None = None,
    ) -> None:
        self.initial_val = self._value_argument("initial_val", initial_val)
        self.coefficient = _arguments.number("coefficient", coefficient, low=0.0)
        super().__init__(optimizer, None, param_group_tags=param_group_tags, state=state)

    def set_value_lambda(self) -> Any:
        """The per-step factor as a function of the step (the constant ``coefficient``)."""
        return lambda step: self.coefficient

    def _lambda_hook(self) -> str:
        return "set_value_lambda"

    def _value(self, t: Any) -> Any:
        factor = getattr(self, self._lambda_hook())()(t)
        if isinstance(factor, torch.Tensor):
            return self.initial_val * torch.pow(factor, t)
        return self.initial_val * kernels.exponential(t, factor, 1.0)


class CyclicForm(HyperparameterScheduler):
    """The generic arguments, their checks and the closed form of
    :class:`~schedulers.cerebras.lr_scheduler.CyclicLR` (whose docstring has the formula) and
    :class:`~schedulers.cerebras.weight_decay_scheduler.CyclicWD`.

    Args:
        optimizer: The optimizer whose targeted param groups get the value.
        base_val: The value at the bottom of each cycle.
        max_val: The highest value (the top of a cycle, or the end of the warmup).
        step_size_up: The steps of a cycle's rising half (a number or a time string).
        step_size_down: The steps of a cycle's falling half (None: ``step_size_up``).
        mode: ``"triangular"``, ``"triangular2"`` (amplitude halved each cycle) or ``"exp_range"`` (times ``gamma``
            per step).
        gamma: The factor per step of the amplitude in ``mode="exp_range"``.
        scale_mode: What the amplitude scaling follows: ``"cycle"`` or ``"iterations"`` (None: the mode's).
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        Not built directly (a form writes no param-group key): the learning-rate and weight-decay classes
        of the schedule subclass it, and their instances are the schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.CyclicLR(opt, 0.01, 0.1, step_size_up=2).values_at(range(5)).tolist()]
    [0.01, 0.055, 0.1, 0.055, 0.01]
    """

    _periods = ("step_size_up",)
    _step_arguments = ("step_size_up", "step_size_down")

    def __init__(
        self,
        optimizer: Optimizer,
        base_val: float,
        max_val: float,
        step_size_up: StepCount = 2000,
        step_size_down: StepCount | None = None,
        mode: str = "triangular",
        gamma: float = 1.0,
        scale_mode: str = "cycle",
        param_group_tags: Tags = None,
        *,
        state: ScheduleState | None = None,
    ) -> None:
        self.base_val = self._value_argument("base_val", base_val)
        self.max_val = self._value_argument("max_val", max_val)
        self.step_size_up = step_size_up
        self.step_size_down = step_size_down
        self.mode = _arguments.choice("mode", mode, ("triangular", "triangular2", "exp_range"))
        self.gamma = _arguments.number("gamma", gamma, low=0.0, low_open=mode == "exp_range")
        self.scale_mode = _arguments.choice("scale_mode", scale_mode, ("cycle", "iterations"))
        super().__init__(optimizer, None, param_group_tags=param_group_tags, state=state)

    def _check_steps(self) -> None:
        super()._check_steps()
        down = self.step_size_down
        if down is not None and not is_step_count(down):
            raise ValueError(f"{type(self).__name__}: step_size_down={down!r} must be None or a number of steps >= 0")

    def _value(self, t: Any) -> Any:
        return kernels.cyclic(
            t, self.base_val, self.max_val, self.step_size_up, self.step_size_down, self.mode, self.gamma
        )


class OneCycleForm(HyperparameterScheduler):
    """The generic arguments, their checks and the closed form of
    :class:`~schedulers.cerebras.lr_scheduler.OneCycleLR` (whose docstring has the formula) and
    :class:`~schedulers.cerebras.weight_decay_scheduler.OneCycleWD`.

    Args:
        optimizer: The optimizer whose targeted param groups get the value.
        initial_val: The value at step 0.
        max_val: The highest value (the top of a cycle, or the end of the warmup).
        total_steps: The steps of the whole one-cycle schedule (a number or a time string).
        pct_start: The fraction of ``total_steps`` spent rising to the top.
        final_div_factor: The last value is ``initial`` divided by this.
        three_phase: Fall back to the initial value before the final annealing (torch's three phases).
        anneal_strategy: ``"cos"`` or ``"linear"``: the shape of the rise and fall.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        Not built directly (a form writes no param-group key): the learning-rate and weight-decay classes
        of the schedule subclass it, and their instances are the schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.OneCycleLR(opt, 0.004, 0.1, total_steps=4).values_at(range(5)).tolist()]
    [0.004, 0.081175, 0.028306, 0.0, 0.0]
    """

    _step_arguments = ("total_steps",)

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float,
        max_val: float,
        total_steps: StepCount = 1000,
        pct_start: float = 0.3,
        final_div_factor: float = 10000.0,
        three_phase: bool = False,
        anneal_strategy: str = "cos",
        param_group_tags: Tags = None,
        *,
        state: ScheduleState | None = None,
    ) -> None:
        self.initial_val = self._value_argument("initial_val", initial_val)
        self.max_val = self._value_argument("max_val", max_val)
        self.total_steps = total_steps
        self.pct_start = _arguments.number("pct_start", pct_start, low=0.0)
        self.final_div_factor = _arguments.number("final_div_factor", final_div_factor, low=0.0, low_open=True)
        self.three_phase = _arguments.boolean("three_phase", three_phase)
        self.anneal_strategy = _arguments.choice("anneal_strategy", anneal_strategy, ("cos", "linear"))
        super().__init__(optimizer, None, param_group_tags=param_group_tags, state=state)

    def _check_steps(self) -> None:
        self.total_steps = _arguments.integer("total_steps", self.total_steps, low=1)
        self._value(0.0)  # the kernel checks pct_start and total_steps together

    def _value(self, t: Any) -> Any:
        return kernels.one_cycle(
            t,
            self.total_steps,
            max_lr=self.max_val,
            initial_lr=self.initial_val,
            min_lr=self.initial_val / self.final_div_factor,
            pct_start=self.pct_start,
            anneal_strategy=self.anneal_strategy,
            three_phase=self.three_phase,
        )
