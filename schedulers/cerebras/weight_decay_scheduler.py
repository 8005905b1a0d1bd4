r"""Cerebras 2.x's weight-decay schedulers (``cerebras.pytorch.optim.weight_decay_scheduler``).

The same closed forms as the learning-rate classes (:mod:`schedulers.cerebras.closed_forms`), with
Cerebras 2.x's generic argument names (``val``, ``initial_val``, ``end_val``, ``vals``, ``base_val``,
``max_val``), writing ``"weight_decay"`` into every targeted param group. With ``param_group_tags``
they touch only the tagged groups (typically: decay the weights, not the biases and norms).

>>> import torch
>>> from schedulers.cerebras import CosineDecayWD
>>> w, b = torch.zeros(2, requires_grad=True), torch.zeros(1, requires_grad=True)
>>> optimizer = torch.optim.AdamW(
...     [{"params": [w], "tags": "decay"}, {"params": [b], "weight_decay": 0.0}], weight_decay=0.1
... )
>>> scheduler = CosineDecayWD(optimizer, initial_val=0.1, end_val=0.0, total_iters=10, param_group_tags="decay")
>>> for _ in range(5):
...     optimizer.step()
...     scheduler.step()
>>> [round(group["weight_decay"], 6) for group in optimizer.param_groups]
[0.05, 0.0]
"""

from __future__ import annotations

from schedulers.cerebras.closed_forms import (
    ConstantForm,
    CosineAnnealingForm,
    CosineAnnealingWarmRestartsForm,
    CosineDecayForm,
    CyclicForm,
    ExponentialForm,
    InverseExponentialTimeDecayForm,
    InverseSquareRootDecayForm,
    LambdaForm,
    LinearForm,
    MultiplicativeForm,
    MultiStepForm,
    OneCycleForm,
    PiecewiseConstantForm,
    PolynomialForm,
    StepForm,
)
from schedulers.cerebras.composites import ChainedForm, ScalePerParamForm, SequentialForm
from schedulers.cerebras.scheduler import HyperparameterScheduler
from schedulers.core.registry import register_scheduler

__all__ = [
    "ChainedWD",
    "ConstantWD",
    "CosineAnnealingWD",
    "CosineAnnealingWarmRestartsWD",
    "CosineDecayWD",
    "CyclicWD",
    "ExponentialWD",
    "InverseExponentialTimeDecayWD",
    "InverseSquareRootDecayWD",
    "LambdaWD",
    "LinearWD",
    "MultiStepWD",
    "MultiplicativeWD",
    "OneCycleWD",
    "PiecewiseConstantWD",
    "PolynomialWD",
    "ScalePerParamWD",
    "SequentialWD",
    "StepWD",
    "WDScheduler",
    "WeightDecayScheduler",
]


def _register(cls):
    return register_scheduler(cls, family="cerebras")


class WeightDecayScheduler(HyperparameterScheduler):
    """Base of the weight-decay schedulers: writes ``"weight_decay"``. Subclass it like ``LRScheduler``."""

    param_group_key = "weight_decay"


#: Cerebras's later name for :class:`WeightDecayScheduler`
WDScheduler = WeightDecayScheduler


@_register
class ConstantWD(WeightDecayScheduler, ConstantForm):
    """A constant weight decay ``val`` (``total_iters``, optional, is how long)."""


@_register
class PolynomialWD(WeightDecayScheduler, PolynomialForm):
    """Polynomial decay from ``initial_val`` to ``end_val`` over ``total_iters`` steps (``cycle``: TF's cycling)."""


@_register
class LinearWD(WeightDecayScheduler, LinearForm):
    """Linear decay from ``initial_val`` to ``end_val`` over ``total_iters`` steps."""


@_register
class ExponentialWD(WeightDecayScheduler, ExponentialForm):
    """``initial_val · decay_rate ** (t / total_iters)`` (``staircase``: a whole exponent)."""


@_register
class InverseExponentialTimeDecayWD(WeightDecayScheduler, InverseExponentialTimeDecayForm):
    """``initial_val / (1 + decay_rate · t ** step_exponent / total_iters)``."""


@_register
class InverseSquareRootDecayWD(WeightDecayScheduler, InverseSquareRootDecayForm):
    """``initial_val · scale / sqrt(max(t, warmup_steps))``."""


@_register
class CosineDecayWD(WeightDecayScheduler, CosineDecayForm):
    """Half a cosine from ``initial_val`` to ``end_val`` over ``total_iters`` steps, then held."""


@_register
class SequentialWD(WeightDecayScheduler, SequentialForm):
    """``schedulers[i]`` from ``milestones[i-1]`` until ``milestones[i]``, each seeing the steps since its start."""


@_register
class PiecewiseConstantWD(WeightDecayScheduler, PiecewiseConstantForm):
    """``vals[i]`` between ``milestones[i-1]`` and ``milestones[i]`` (one more value than milestones)."""


@_register
class MultiStepWD(WeightDecayScheduler, MultiStepForm):
    """``initial_val · gamma ** (milestones reached)``."""


@_register
class StepWD(WeightDecayScheduler, StepForm):
    """``initial_val · gamma ** floor(t / step_size)``."""


@_register
class CosineAnnealingWD(WeightDecayScheduler, CosineAnnealingForm):
    """Cosine annealing from ``initial_val`` to ``eta_min`` over ``T_max`` steps and back."""


@_register
class LambdaWD(WeightDecayScheduler, LambdaForm):
    """``initial_val`` times the functions ``set_value_lambda()`` returns: a base class to subclass."""


@_register
class CosineAnnealingWarmRestartsWD(WeightDecayScheduler, CosineAnnealingWarmRestartsForm):
    """SGDR cosine annealing from ``initial_val`` to ``eta_min`` with restarts (``T_0``, integer ``T_mult``)."""


@_register
class MultiplicativeWD(WeightDecayScheduler, MultiplicativeForm):
    """``initial_val · coefficient ** t``."""


@_register
class ChainedWD(WeightDecayScheduler, ChainedForm):
    """The product of ``schedulers`` (the first one's value times each later one's value relative to its start)."""


@_register
class CyclicWD(WeightDecayScheduler, CyclicForm):
    """Cyclical weight decay between ``base_val`` and ``max_val``."""


@_register
class OneCycleWD(WeightDecayScheduler, OneCycleForm):
    """The 1cycle policy from ``initial_val`` up to ``max_val`` and down to ``initial_val / final_div_factor``."""


@_register
class ScalePerParamWD(WeightDecayScheduler, ScalePerParamForm):
    """``scheduler``'s value times each param group's ``adjust_learning_rate`` (or ``adjust_val``) entry."""
