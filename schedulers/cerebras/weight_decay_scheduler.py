r"""Cerebras 2.x's weight-decay schedulers (``cerebras.pytorch.optim.weight_decay_scheduler``).

The same closed forms as the learning-rate classes (:mod:`schedulers.cerebras.lr_scheduler`, whose docstrings
give the formulas), with Cerebras 2.x's generic argument names (``val``, ``initial_val``, ``end_val``, ``vals``,
``base_val``, ``max_val``): each class is its form (:mod:`schedulers.cerebras.closed_forms`) writing
``"weight_decay"`` into every targeted param group. With ``param_group_tags`` they touch only the tagged groups
(typically: decay the weights, not the biases and norms).

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
from schedulers.cerebras.table import register_family


class WeightDecayScheduler(HyperparameterScheduler):
    """Base of the weight-decay schedulers: writes ``"weight_decay"``. Subclass it like ``LRScheduler``."""

    param_group_key = "weight_decay"


#: Cerebras's later name for :class:`WeightDecayScheduler`
WDScheduler = WeightDecayScheduler


class ConstantWD(WeightDecayScheduler, ConstantForm):
    r"""A constant weight decay ``val``; ``total_iters`` (optional) is how long, e.g. in a sequence.

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.ConstantLR`, on the weight decay. Here :math:`t` is
    the number of steps taken (``last_epoch``), :math:`v` is ``val``, :math:`T` is ``total_iters``.
    """


class PolynomialWD(WeightDecayScheduler, PolynomialForm):
    r"""Polynomial decay from ``initial_val`` to ``end_val`` over ``total_iters`` steps, then held; ``cycle=True``
    restarts the decay with a longer horizon (TensorFlow's ``PolynomialDecay``).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.PolynomialLR`, on the weight decay. Here :math:`t`
    is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``, :math:`v_1` is ``end_val``,
    :math:`T` is ``total_iters``.
    """


class LinearWD(WeightDecayScheduler, LinearForm):
    r"""Linear decay from ``initial_val`` to ``end_val`` over ``total_iters`` steps (polynomial with power 1).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.LinearLR`, on the weight decay. Here :math:`t` is
    the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``, :math:`v_1` is ``end_val``,
    :math:`T` is ``total_iters``.
    """


class ExponentialWD(WeightDecayScheduler, ExponentialForm):
    r"""``initial_val · decay_rate ** (t / total_iters)`` (``staircase``: a whole exponent).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.ExponentialLR`, on the weight decay. Here :math:`t`
    is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``, :math:`T` is ``total_iters``.
    """


class InverseExponentialTimeDecayWD(WeightDecayScheduler, InverseExponentialTimeDecayForm):
    r"""``initial_val / (1 + decay_rate · t ** step_exponent / total_iters)`` (Keras ``InverseTimeDecay``).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.InverseExponentialTimeDecayLR`, on the weight
    decay. Here :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``, :math:`T`
    is ``total_iters``.
    """


class InverseSquareRootDecayWD(WeightDecayScheduler, InverseSquareRootDecayForm):
    r"""``initial_val · scale / sqrt(max(t, warmup_steps))``.

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.InverseSquareRootDecayLR`, on the weight decay.
    Here :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``.
    """


class CosineDecayWD(WeightDecayScheduler, CosineDecayForm):
    r"""Half a cosine from ``initial_val`` to ``end_val`` over ``total_iters`` steps, then held.

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.CosineDecayLR`, on the weight decay. Here :math:`t`
    is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``, :math:`v_1` is ``end_val``,
    :math:`T` is ``total_iters``.
    """


class SequentialWD(WeightDecayScheduler, SequentialForm):
    r"""``schedulers[i]`` from ``milestones[i-1]`` until ``milestones[i]``, each seeing the steps since its start
    (without ``milestones``: each child lasts its ``total_iters``).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.SequentialLR`, on the weight decay. Here :math:`t`
    is the number of steps taken (``last_epoch``).
    """


class PiecewiseConstantWD(WeightDecayScheduler, PiecewiseConstantForm):
    r"""``vals[i]`` between ``milestones[i-1]`` and ``milestones[i]`` (one more value than milestones).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.PiecewiseConstantLR`, on the weight decay. Here
    :math:`t` is the number of steps taken (``last_epoch``), :math:`v_i` is ``vals`` (entry :math:`i`).
    """


class MultiStepWD(WeightDecayScheduler, MultiStepForm):
    r"""``initial_val · gamma ** (milestones reached)`` (torch's ``MultiStepLR``).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.MultiStepLR`, on the weight decay. Here :math:`t`
    is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``.
    """


class StepWD(WeightDecayScheduler, StepForm):
    r"""``initial_val · gamma ** floor(t / step_size)`` (torch's ``StepLR``).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.StepLR`, on the weight decay. Here :math:`t` is the
    number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``.
    """


class CosineAnnealingWD(WeightDecayScheduler, CosineAnnealingForm):
    r"""Cosine annealing from ``initial_val`` to ``eta_min`` over ``T_max`` steps and back (torch's
    ``CosineAnnealingLR`` closed form).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.CosineAnnealingLR`, on the weight decay. Here
    :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``.
    """


class LambdaWD(WeightDecayScheduler, LambdaForm):
    r"""``initial_val`` times the product of the functions of the step ``set_value_lambda()`` returns. A base class:
    subclass it and override ``set_value_lambda()`` to return a function of the step (a float64 tensor), or a list
    of them, written with torch ops.

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.LambdaLR`, on the weight decay. Here :math:`t` is
    the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``.
    """


class CosineAnnealingWarmRestartsWD(WeightDecayScheduler, CosineAnnealingWarmRestartsForm):
    r"""SGDR: cosine annealing from ``initial_val`` to ``eta_min`` restarting after ``T_0`` steps, then every ``T_mult``
    times longer (an integer ``T_mult >= 1``; torch's ``CosineAnnealingWarmRestarts``).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.CosineAnnealingWarmRestarts`, on the weight decay.
    Here :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``.
    """


class MultiplicativeWD(WeightDecayScheduler, MultiplicativeForm):
    r"""``initial_val · coefficient ** t``: the weight decay multiplied by ``coefficient`` every step.

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.MultiplicativeLR`, on the weight decay. Here
    :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``.
    """


class ChainedWD(WeightDecayScheduler, ChainedForm):
    r"""The product of ``schedulers``: the first one's weight decay times each later one's relative to its value at step
    0.

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.ChainedLR`, on the weight decay. Here :math:`t` is
    the number of steps taken (``last_epoch``).
    """


class CyclicWD(WeightDecayScheduler, CyclicForm):
    r"""Cyclical weight decay between ``base_val`` and ``max_val`` (torch's ``CyclicLR`` without momentum cycling).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.CyclicLR`, on the weight decay. Here :math:`t` is
    the number of steps taken (``last_epoch``).
    """


class OneCycleWD(WeightDecayScheduler, OneCycleForm):
    r"""The 1cycle policy from ``initial_val`` up to ``max_val`` and down to ``initial_val / final_div_factor`` over
    ``total_steps`` (torch's ``OneCycleLR``).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.OneCycleLR`, on the weight decay. Here :math:`t` is
    the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``.
    """


class ScalePerParamWD(WeightDecayScheduler, ScalePerParamForm):
    r"""``scheduler``'s weight decay times each param group's ``adjust_learning_rate`` entry (µP-style per-layer
    scaling).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.ScalePerParamLR`, on the weight decay. Here
    :math:`t` is the number of steps taken (``last_epoch``).
    """


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

register_family(__name__, learning_rate=False)
