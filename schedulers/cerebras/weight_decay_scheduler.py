r"""Cerebras 2.x's weight-decay schedulers (``cerebras.pytorch.optim.weight_decay_scheduler``).

The same closed forms as the learning-rate classes (:mod:`schedulers.cerebras.lr_scheduler`, whose docstrings
give the formulas), with Cerebras 2.x's generic argument names (``val``, ``initial_val``, ``end_val``, ``vals``,
``base_val``, ``max_val``): each class writes its form (a frozen value of :mod:`schedulers.families.cerebras`) into
``"weight_decay"`` of every targeted param group. With ``param_group_tags`` they touch only the tagged groups
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

from collections.abc import Callable, Sequence
from typing import Any

from torch.optim import Optimizer

from schedulers.cerebras.composites import ChainedBase, ScalePerParamBase, SequentialBase
from schedulers.cerebras.scheduler import HyperparameterScheduler, Tags
from schedulers.cerebras.table import register_family
from schedulers.core.run import StateLike
from schedulers.families import cerebras as forms
from schedulers.families.cerebras import StepCount


class WeightDecayScheduler(HyperparameterScheduler):
    """Base of the weight-decay schedulers: writes ``"weight_decay"``. Subclass it like ``LRScheduler``.

    Args:
        optimizer: The optimizer whose targeted param groups get the weight decay.
        total_iters: How many steps the schedule lasts: a number or a time string (``"1000ba"``, ``"2ep"``,
            ``"0.1dur"``).
        last_epoch: The step to start after (-1: a fresh run).
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``weight_decay`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> class Halving(cs.WeightDecayScheduler):
    ...     def _get_closed_form_lr(self):
    ...         return 0.1 * 0.5 ** self.last_epoch.double()
    >>> [round(v, 6) for v in Halving(opt, total_iters=None).values_at(range(4)).tolist()]
    [0.1, 0.05, 0.025, 0.0125]
    """

    param_group_key = "weight_decay"


#: Cerebras's later name for :class:`WeightDecayScheduler`
WDScheduler = WeightDecayScheduler


class ConstantWD(WeightDecayScheduler):
    r"""A constant weight decay ``val``; ``total_iters`` (optional) is how long, e.g. in a sequence.

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.ConstantLR`, on the weight decay. Here :math:`t` is
    the number of steps taken (``last_epoch``), :math:`v` is ``val``, :math:`T` is ``total_iters``.

    Args:
        optimizer: The optimizer whose targeted param groups get the weight decay.
        val: The weight decay held at every step.
        total_iters: How many steps the schedule lasts: a number or a time string (``"1000ba"``, ``"2ep"``,
            ``"0.1dur"``) (None: no end; it only says how long, e.g. in a sequence).
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``weight_decay`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.ConstantWD(opt, 0.1, total_iters=4).values_at(range(5)).tolist()]
    [0.1, 0.1, 0.1, 0.1, 0.1]
    """

    form = forms.Constant

    def __init__(
        self,
        optimizer: Optimizer,
        val: float,
        total_iters: StepCount | None = None,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (val, total_iters), param_group_tags, state)


class PolynomialWD(WeightDecayScheduler):
    r"""Polynomial decay from ``initial_val`` to ``end_val`` over ``total_iters`` steps, then held; ``cycle=True``
    restarts the decay with a longer horizon (TensorFlow's ``PolynomialDecay``).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.PolynomialLR`, on the weight decay. Here :math:`t`
    is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``, :math:`v_1` is ``end_val``,
    :math:`T` is ``total_iters``.

    Args:
        optimizer: The optimizer whose targeted param groups get the weight decay.
        initial_val: The weight decay at step 0.
        end_val: The weight decay at step ``total_iters`` and after.
        total_iters: How many steps the schedule lasts: a number or a time string (``"1000ba"``, ``"2ep"``,
            ``"0.1dur"``).
        power: The exponent of the polynomial decay (1: linear).
        cycle: Restart the decay after ``total_iters`` with a horizon a multiple of it (TensorFlow's ``cycle``).
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``weight_decay`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.PolynomialWD(opt, 0.1, 0.01, total_iters=4, power=2.0).values_at(range(5)).tolist()]
    [0.1, 0.060625, 0.0325, 0.015625, 0.01]
    """

    form = forms.Polynomial

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
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (initial_val, end_val, total_iters, power, cycle), param_group_tags, state)


class LinearWD(WeightDecayScheduler):
    r"""Linear decay from ``initial_val`` to ``end_val`` over ``total_iters`` steps (polynomial with power 1).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.LinearLR`, on the weight decay. Here :math:`t` is
    the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``, :math:`v_1` is ``end_val``,
    :math:`T` is ``total_iters``.

    Args:
        optimizer: The optimizer whose targeted param groups get the weight decay.
        initial_val: The weight decay at step 0.
        end_val: The weight decay at step ``total_iters`` and after.
        total_iters: How many steps the schedule lasts: a number or a time string (``"1000ba"``, ``"2ep"``,
            ``"0.1dur"``).
        cycle: Restart the decay after ``total_iters`` with a horizon a multiple of it (TensorFlow's ``cycle``).
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``weight_decay`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.LinearWD(opt, 0.1, 0.0, total_iters=4).values_at(range(5)).tolist()]
    [0.1, 0.075, 0.05, 0.025, 0.0]
    """

    form = forms.Linear

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float,
        end_val: float,
        total_iters: StepCount,
        cycle: bool = False,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (initial_val, end_val, total_iters, cycle), param_group_tags, state)


class ExponentialWD(WeightDecayScheduler):
    r"""``initial_val · decay_rate ** (t / total_iters)`` (``staircase``: a whole exponent).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.ExponentialLR`, on the weight decay. Here :math:`t`
    is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``, :math:`T` is ``total_iters``.

    Args:
        optimizer: The optimizer whose targeted param groups get the weight decay.
        initial_val: The weight decay at step 0.
        total_iters: How many steps the schedule lasts: a number or a time string (``"1000ba"``, ``"2ep"``,
            ``"0.1dur"``).
        decay_rate: The factor per ``total_iters`` steps.
        staircase: Decay in whole periods of ``total_iters`` steps (a staircase) rather than continuously.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``weight_decay`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.ExponentialWD(opt, 0.1, total_iters=2, decay_rate=0.5).values_at(range(5)).tolist()]
    [0.1, 0.070711, 0.05, 0.035355, 0.025]
    """

    form = forms.Exponential

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float,
        total_iters: StepCount,
        decay_rate: float,
        staircase: bool = False,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (initial_val, total_iters, decay_rate, staircase), param_group_tags, state)


class InverseExponentialTimeDecayWD(WeightDecayScheduler):
    r"""``initial_val / (1 + decay_rate · t ** step_exponent / total_iters)`` (Keras ``InverseTimeDecay``).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.InverseExponentialTimeDecayLR`, on the weight
    decay. Here :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``, :math:`T`
    is ``total_iters``.

    Args:
        optimizer: The optimizer whose targeted param groups get the weight decay.
        initial_val: The weight decay at step 0.
        step_exponent: The exponent of the step count in the denominator.
        total_iters: How many steps the schedule lasts: a number or a time string (``"1000ba"``, ``"2ep"``,
            ``"0.1dur"``).
        decay_rate: The factor per ``total_iters`` steps.
        staircase: Decay in whole periods of ``total_iters`` steps (a staircase) rather than continuously.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``weight_decay`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> scheduler = cs.InverseExponentialTimeDecayWD(opt, 0.1, step_exponent=1, total_iters=2, decay_rate=0.5)
    >>> [round(v, 6) for v in scheduler.values_at(range(5)).tolist()]
    [0.1, 0.08, 0.066667, 0.057143, 0.05]
    """

    form = forms.InverseExponentialTimeDecay

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
        state: StateLike | None = None,
    ) -> None:
        self._build(
            optimizer, (initial_val, step_exponent, total_iters, decay_rate, staircase), param_group_tags, state
        )


class InverseSquareRootDecayWD(WeightDecayScheduler):
    r"""``initial_val · scale / sqrt(max(t, warmup_steps))``.

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.InverseSquareRootDecayLR`, on the weight decay.
    Here :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``.

    Args:
        optimizer: The optimizer whose targeted param groups get the weight decay.
        initial_val: The weight decay at step 0.
        scale: The factor of the inverse square root of the step.
        warmup_steps: The step count the inverse square root starts from (a number or a time string).
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``weight_decay`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> scheduler = cs.InverseSquareRootDecayWD(opt, 0.1, scale=1.0, warmup_steps=2)
    >>> [round(v, 6) for v in scheduler.values_at(range(5)).tolist()]
    [0.070711, 0.070711, 0.070711, 0.057735, 0.05]
    """

    form = forms.InverseSquareRootDecay

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float = 1.0,
        scale: float = 1.0,
        warmup_steps: StepCount = 1.0,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (initial_val, scale, warmup_steps), param_group_tags, state)


class CosineDecayWD(WeightDecayScheduler):
    r"""Half a cosine from ``initial_val`` to ``end_val`` over ``total_iters`` steps, then held.

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.CosineDecayLR`, on the weight decay. Here :math:`t`
    is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``, :math:`v_1` is ``end_val``,
    :math:`T` is ``total_iters``.

    Args:
        optimizer: The optimizer whose targeted param groups get the weight decay.
        initial_val: The weight decay at step 0.
        end_val: The weight decay at step ``total_iters`` and after.
        total_iters: How many steps the schedule lasts: a number or a time string (``"1000ba"``, ``"2ep"``,
            ``"0.1dur"``).
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``weight_decay`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.CosineDecayWD(opt, 0.1, 0.0, total_iters=4).values_at(range(5)).tolist()]
    [0.1, 0.085355, 0.05, 0.014645, 0.0]
    """

    form = forms.CosineDecay

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float,
        end_val: float,
        total_iters: StepCount,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (initial_val, end_val, total_iters), param_group_tags, state)


class SequentialWD(WeightDecayScheduler, SequentialBase):
    r"""``schedulers[i]`` from ``milestones[i-1]`` until ``milestones[i]``, each seeing the steps since its start
    (without ``milestones``: each child lasts its ``total_iters``).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.SequentialLR`, on the weight decay. Here :math:`t`
    is the number of steps taken (``last_epoch``).

    Args:
        optimizer: The optimizer whose targeted param groups get the weight decay.
        schedulers: The Cerebras-style schedulers composed, on the same optimizer, param-group key and tags.
        milestones: The steps where the next segment starts (numbers or time strings), increasing.
        last_epoch: The step to start after (-1: a fresh run).
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``weight_decay`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> parts = [cs.LinearWD(opt, 0.0, 0.1, 2), cs.CosineDecayWD(opt, 0.1, 0.0, 2)]
    >>> scheduler = cs.SequentialWD(opt, parts, milestones=[2])
    >>> [round(v, 6) for v in scheduler.values_at(range(5)).tolist()]
    [0.0, 0.05, 0.1, 0.05, 0.0]
    """


class PiecewiseConstantWD(WeightDecayScheduler):
    r"""``vals[i]`` between ``milestones[i-1]`` and ``milestones[i]`` (one more value than milestones).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.PiecewiseConstantLR`, on the weight decay. Here
    :math:`t` is the number of steps taken (``last_epoch``), :math:`v_i` is ``vals`` (entry :math:`i`).

    Args:
        optimizer: The optimizer whose targeted param groups get the weight decay.
        vals: The weight decays, one per segment (one more than ``milestones``).
        milestones: The steps where the next segment starts (numbers or time strings), increasing.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``weight_decay`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> scheduler = cs.PiecewiseConstantWD(opt, [0.1, 0.05, 0.01], milestones=[1, 3])
    >>> [round(v, 6) for v in scheduler.values_at(range(5)).tolist()]
    [0.1, 0.05, 0.05, 0.01, 0.01]
    """

    form = forms.PiecewiseConstant

    def __init__(
        self,
        optimizer: Optimizer,
        vals: Sequence[float],
        milestones: Sequence[StepCount],
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (vals, milestones), param_group_tags, state)


class MultiStepWD(WeightDecayScheduler):
    r"""``initial_val · gamma ** (milestones reached)`` (torch's ``MultiStepLR``).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.MultiStepLR`, on the weight decay. Here :math:`t`
    is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``.

    Args:
        optimizer: The optimizer whose targeted param groups get the weight decay.
        initial_val: The weight decay at step 0.
        gamma: The factor applied at each milestone / step boundary.
        milestones: The steps where the next segment starts (numbers or time strings), increasing.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``weight_decay`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.MultiStepWD(opt, 0.1, gamma=0.5, milestones=[1, 3]).values_at(range(5)).tolist()]
    [0.1, 0.05, 0.05, 0.025, 0.025]
    """

    form = forms.MultiStep

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float,
        gamma: float,
        milestones: Sequence[StepCount],
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (initial_val, gamma, milestones), param_group_tags, state)


class StepWD(WeightDecayScheduler):
    r"""``initial_val · gamma ** floor(t / step_size)`` (torch's ``StepLR``).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.StepLR`, on the weight decay. Here :math:`t` is the
    number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``.

    Args:
        optimizer: The optimizer whose targeted param groups get the weight decay.
        initial_val: The weight decay at step 0.
        step_size: The steps between two decays by ``gamma`` (a number or a time string).
        gamma: The factor applied at each milestone / step boundary.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``weight_decay`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.StepWD(opt, 0.1, step_size=2, gamma=0.5).values_at(range(5)).tolist()]
    [0.1, 0.1, 0.05, 0.05, 0.025]
    """

    form = forms.Step

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float,
        step_size: StepCount,
        gamma: float,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (initial_val, step_size, gamma), param_group_tags, state)


class CosineAnnealingWD(WeightDecayScheduler):
    r"""Cosine annealing from ``initial_val`` to ``eta_min`` over ``T_max`` steps and back (torch's
    ``CosineAnnealingLR`` closed form).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.CosineAnnealingLR`, on the weight decay. Here
    :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``.

    Args:
        optimizer: The optimizer whose targeted param groups get the weight decay.
        initial_val: The weight decay at step 0.
        T_max: The steps of a half cosine period (a number or a time string).
        eta_min: The lowest weight decay, at the bottom of the cosine.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``weight_decay`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.CosineAnnealingWD(opt, 0.1, T_max=4, eta_min=0.0).values_at(range(5)).tolist()]
    [0.1, 0.085355, 0.05, 0.014645, 0.0]
    """

    form = forms.CosineAnnealing

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float,
        T_max: StepCount,
        eta_min: float = 0.0,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (initial_val, T_max, eta_min), param_group_tags, state)


class LambdaWD(WeightDecayScheduler):
    r"""``initial_val`` times the product of the functions of the step ``set_value_lambda()`` returns. A base class:
    subclass it and override ``set_value_lambda()`` to return a function of the step (a float64 tensor), or a list
    of them, written with torch ops.

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.LambdaLR`, on the weight decay. Here :math:`t` is
    the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``.

    Args:
        optimizer: The optimizer whose targeted param groups get the weight decay.
        initial_val: The weight decay at step 0.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``weight_decay`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> class Halving(cs.LambdaWD):
    ...     def set_value_lambda(self):
    ...         return lambda step: 0.5**step
    >>> [round(v, 6) for v in Halving(opt, 0.1).values_at(range(4)).tolist()]
    [0.1, 0.05, 0.025, 0.0125]
    """

    form = forms.Lambda

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (initial_val,), param_group_tags, state)


class CosineAnnealingWarmRestartsWD(WeightDecayScheduler):
    r"""SGDR: cosine annealing from ``initial_val`` to ``eta_min`` restarting after ``T_0`` steps, then every ``T_mult``
    times longer (an integer ``T_mult >= 1``; torch's ``CosineAnnealingWarmRestarts``).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.CosineAnnealingWarmRestarts`, on the weight decay.
    Here :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``.

    Args:
        optimizer: The optimizer whose targeted param groups get the weight decay.
        initial_val: The weight decay at step 0.
        T_0: The steps of the first cosine period (a number or a time string).
        T_mult: The factor each period's length grows by after a restart.
        eta_min: The lowest weight decay, at the bottom of the cosine.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``weight_decay`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> scheduler = cs.CosineAnnealingWarmRestartsWD(opt, 0.1, T_0=2, T_mult=1, eta_min=0.0)
    >>> [round(v, 6) for v in scheduler.values_at(range(5)).tolist()]
    [0.1, 0.05, 0.1, 0.05, 0.1]
    """

    form = forms.CosineAnnealingWarmRestarts

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float,
        T_0: StepCount,
        T_mult: int = 1,
        eta_min: float = 0.0,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (initial_val, T_0, T_mult, eta_min), param_group_tags, state)


class MultiplicativeWD(WeightDecayScheduler):
    r"""``initial_val · coefficient ** t``: the weight decay multiplied by ``coefficient`` every step.

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.MultiplicativeLR`, on the weight decay. Here
    :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``.

    Args:
        optimizer: The optimizer whose targeted param groups get the weight decay.
        initial_val: The weight decay at step 0.
        coefficient: The factor the weight decay is multiplied by at each step.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``weight_decay`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.MultiplicativeWD(opt, 0.1, coefficient=0.5).values_at(range(5)).tolist()]
    [0.1, 0.05, 0.025, 0.0125, 0.00625]
    """

    form = forms.Multiplicative

    def __init__(
        self,
        optimizer: Optimizer,
        initial_val: float,
        coefficient: float,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (initial_val, coefficient), param_group_tags, state)

    def set_value_lambda(self) -> Callable[[Any], Any]:
        """The factor per step as a function of the step: ``coefficient``; override it in a subclass to set your own.

        Returns:
            ``step -> coefficient``.
        """
        return lambda step: self.coefficient


class ChainedWD(WeightDecayScheduler, ChainedBase):
    r"""The product of ``schedulers``: the first one's weight decay times each later one's relative to its value at step
    0.

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.ChainedLR`, on the weight decay. Here :math:`t` is
    the number of steps taken (``last_epoch``).

    Args:
        schedulers: The Cerebras-style schedulers composed, on the same optimizer, param-group key and tags.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``weight_decay`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> scheduler = cs.ChainedWD([cs.LinearWD(opt, 0.1, 0.0, 4), cs.StepWD(opt, 1.0, 2, 0.5)])
    >>> [round(v, 6) for v in scheduler.values_at(range(5)).tolist()]
    [0.1, 0.075, 0.025, 0.0125, 0.0]
    """


class CyclicWD(WeightDecayScheduler):
    r"""Cyclical weight decay between ``base_val`` and ``max_val`` (torch's ``CyclicLR`` without momentum cycling).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.CyclicLR`, on the weight decay. Here :math:`t` is
    the number of steps taken (``last_epoch``).

    Args:
        optimizer: The optimizer whose targeted param groups get the weight decay.
        base_val: The weight decay at the bottom of each cycle.
        max_val: The highest weight decay (the top of a cycle, or the end of the warmup).
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
        A scheduler that writes the value at step 0 into ``weight_decay`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.CyclicWD(opt, 0.01, 0.1, step_size_up=2).values_at(range(5)).tolist()]
    [0.01, 0.055, 0.1, 0.055, 0.01]
    """

    form = forms.Cyclic

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
        state: StateLike | None = None,
    ) -> None:
        self._build(
            optimizer,
            (base_val, max_val, step_size_up, step_size_down, mode, gamma, scale_mode),
            param_group_tags,
            state,
        )


class OneCycleWD(WeightDecayScheduler):
    r"""The 1cycle policy from ``initial_val`` up to ``max_val`` and down to ``initial_val / final_div_factor`` over
    ``total_steps`` (torch's ``OneCycleLR``).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.OneCycleLR`, on the weight decay. Here :math:`t` is
    the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_val``.

    Args:
        optimizer: The optimizer whose targeted param groups get the weight decay.
        initial_val: The weight decay at step 0.
        max_val: The highest weight decay (the top of a cycle, or the end of the warmup).
        total_steps: The steps of the whole one-cycle schedule (a number or a time string).
        pct_start: The fraction of ``total_steps`` spent rising to the top.
        final_div_factor: The last weight decay is ``initial`` divided by this.
        three_phase: Fall back to the initial value before the final annealing (torch's three phases).
        anneal_strategy: ``"cos"`` or ``"linear"``: the shape of the rise and fall.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``weight_decay`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.OneCycleWD(opt, 0.004, 0.1, total_steps=4).values_at(range(5)).tolist()]
    [0.004, 0.081175, 0.028306, 0.0, 0.0]
    """

    form = forms.OneCycle

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
        state: StateLike | None = None,
    ) -> None:
        self._build(
            optimizer,
            (initial_val, max_val, total_steps, pct_start, final_div_factor, three_phase, anneal_strategy),
            param_group_tags,
            state,
        )


class ScalePerParamWD(WeightDecayScheduler, ScalePerParamBase):
    r"""``scheduler``'s weight decay times each param group's ``adjust_learning_rate`` entry (µP-style per-layer
    scaling).

    The closed form of :class:`~schedulers.cerebras.lr_scheduler.ScalePerParamLR`, on the weight decay. Here
    :math:`t` is the number of steps taken (``last_epoch``).

    Args:
        optimizer: The optimizer whose targeted param groups get the weight decay.
        scheduler: The Cerebras-style scheduler whose value each group gets, times its ``adjust_learning_rate``.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``weight_decay`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.ScalePerParamWD(opt, cs.LinearWD(opt, 0.1, 0.0, 4)).values_at(range(5)).tolist()]
    [0.1, 0.075, 0.05, 0.025, 0.0]
    """


register_family(vars(), learning_rate=False)

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
