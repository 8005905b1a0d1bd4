r"""Cerebras's learning-rate schedulers (``cerebras.pytorch.optim.lr_scheduler``) with their exact signatures.

Each class writes an absolute learning rate into every targeted param group: the lr after ``k`` calls
to ``step()`` (one per optimizer step; construction is the first) is the closed form :math:`f(k)` of its
docstring. A class is its documented signature (Cerebras's argument names: ``initial_learning_rate``,
``end_learning_rate``, ``learning_rates``, ``base_lr``, ``max_lr``) over its form, a frozen value of
:mod:`schedulers.families.cerebras` (the generic arguments, their checks and the closed form, through
:mod:`schedulers.core.kernels`); the weight-decay class of the same form is in
:mod:`schedulers.cerebras.weight_decay_scheduler`. Every class also takes ``param_group_tags`` (Cerebras 2.x)
and a keyword-only ``state`` for time-string step counts (:func:`schedulers.families.cerebras.resolve_steps`).

>>> import torch
>>> from schedulers.cerebras import LinearLR
>>> optimizer = torch.optim.SGD([torch.zeros(2, requires_grad=True)], lr=0.1)
>>> scheduler = LinearLR(optimizer, initial_learning_rate=0.01, end_learning_rate=0.001, total_iters=3)
>>> lrs = []
>>> for _ in range(4):
...     lrs.append(round(optimizer.param_groups[0]["lr"], 6))
...     optimizer.step()
...     scheduler.step()
>>> lrs
[0.01, 0.007, 0.004, 0.001]
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


class LRScheduler(HyperparameterScheduler):
    """Cerebras's learning-rate scheduler base: ``LRScheduler(optimizer, total_iters, last_epoch=-1)``.

    Subclass it and override ``_get_closed_form_lr()`` (or ``_get_closed_form()``) to return the lr as a
    closed form of ``self.last_epoch`` (a 0-d int64 tensor) built from torch ops only — no Python
    branches on tensors (use ``torch.where``); loops and conditions on constants are fine. The value is
    written into ``"lr"`` of every targeted param group after each ``step()``.
    List extra step-count attributes in ``_step_arguments`` to let them take time strings too.

    Args:
        optimizer: The optimizer whose targeted param groups get the learning rate.
        total_iters: How many steps the schedule lasts: a number or a time string (``"1000ba"``, ``"2ep"``,
            ``"0.1dur"``).
        last_epoch: The step to start after (-1: a fresh run).
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``lr`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> class Halving(cs.LRScheduler):
    ...     def _get_closed_form_lr(self):
    ...         return 0.1 * 0.5 ** self.last_epoch.double()
    >>> [round(v, 6) for v in Halving(opt, total_iters=None).values_at(range(4)).tolist()]
    [0.1, 0.05, 0.025, 0.0125]
    """

    param_group_key = "lr"
    # Cerebras's learning-rate names of the forms' generic arguments (each class renames those its form has)
    _family_names = {
        "val": "learning_rate",
        "vals": "learning_rates",
        "initial_val": "initial_learning_rate",
        "end_val": "end_learning_rate",
        "base_val": "base_lr",
        "max_val": "max_lr",
    }
    _lambda_hooks = ("set_lr_lambda", "set_value_lambda")  # Cerebras 2.x's name works too


class ConstantLR(LRScheduler):
    r"""A constant learning rate ``learning_rate``; ``total_iters`` (optional) is how long, e.g. in a sequence.

    Hold one value: :math:`f(t) = v`. ``total_iters`` (optional) only says how long, e.g. for a sequence.

    Here :math:`t` is the number of steps taken (``last_epoch``), :math:`v` is ``learning_rate``, :math:`T` is
    ``total_iters``.

    Args:
        optimizer: The optimizer whose targeted param groups get the learning rate.
        learning_rate: The learning rate held at every step.
        total_iters: How many steps the schedule lasts: a number or a time string (``"1000ba"``, ``"2ep"``,
            ``"0.1dur"``) (None: no end; it only says how long, e.g. in a sequence).
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``lr`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.ConstantLR(opt, 0.1, total_iters=4).values_at(range(5)).tolist()]
    [0.1, 0.1, 0.1, 0.1, 0.1]
    """

    form = forms.Constant

    def __init__(
        self,
        optimizer: Optimizer,
        learning_rate: float,
        total_iters: StepCount | None = None,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (learning_rate, total_iters), param_group_tags, state)


class PolynomialLR(LRScheduler):
    r"""Polynomial decay from ``initial_learning_rate`` to ``end_learning_rate`` over ``total_iters`` steps, then held;
    ``cycle=True`` restarts the decay with a longer horizon (TensorFlow's ``PolynomialDecay``).

    Polynomial decay from :math:`v_0` to :math:`v_1` over :math:`T` steps, then :math:`v_1`.

    .. math:: f(t) = v_1 + (v_0 - v_1)\left(1 - \frac{\min(t, H)}{H}\right)^{p}

    with :math:`H = T`, or with ``cycle=True`` (TensorFlow's ``PolynomialDecay(cycle=True)``) :math:`H = T \lceil t
    / T \rceil` (:math:`H = T` at :math:`t = 0`): the decay restarts with a longer horizon.

    Here :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_learning_rate``,
    :math:`v_1` is ``end_learning_rate``, :math:`T` is ``total_iters``.

    Args:
        optimizer: The optimizer whose targeted param groups get the learning rate.
        initial_learning_rate: The learning rate at step 0.
        end_learning_rate: The learning rate at step ``total_iters`` and after.
        total_iters: How many steps the schedule lasts: a number or a time string (``"1000ba"``, ``"2ep"``,
            ``"0.1dur"``).
        power: The exponent of the polynomial decay (1: linear).
        cycle: Restart the decay after ``total_iters`` with a horizon a multiple of it (TensorFlow's ``cycle``).
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``lr`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.PolynomialLR(opt, 0.1, 0.01, total_iters=4, power=2.0).values_at(range(5)).tolist()]
    [0.1, 0.060625, 0.0325, 0.015625, 0.01]
    """

    form = forms.Polynomial

    def __init__(
        self,
        optimizer: Optimizer,
        initial_learning_rate: float,
        end_learning_rate: float,
        total_iters: StepCount,
        power: float = 1.0,
        cycle: bool = False,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(
            optimizer, (initial_learning_rate, end_learning_rate, total_iters, power, cycle), param_group_tags, state
        )


class LinearLR(LRScheduler):
    r"""Linear decay from ``initial_learning_rate`` to ``end_learning_rate`` over ``total_iters`` steps (polynomial with
    power 1).

    Linear decay from :math:`v_0` to :math:`v_1` over :math:`T` steps: :class:`PolynomialForm` with power 1.

    Here :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_learning_rate``,
    :math:`v_1` is ``end_learning_rate``, :math:`T` is ``total_iters``.

    Args:
        optimizer: The optimizer whose targeted param groups get the learning rate.
        initial_learning_rate: The learning rate at step 0.
        end_learning_rate: The learning rate at step ``total_iters`` and after.
        total_iters: How many steps the schedule lasts: a number or a time string (``"1000ba"``, ``"2ep"``,
            ``"0.1dur"``).
        cycle: Restart the decay after ``total_iters`` with a horizon a multiple of it (TensorFlow's ``cycle``).
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``lr`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.LinearLR(opt, 0.1, 0.0, total_iters=4).values_at(range(5)).tolist()]
    [0.1, 0.075, 0.05, 0.025, 0.0]
    """

    form = forms.Linear

    def __init__(
        self,
        optimizer: Optimizer,
        initial_learning_rate: float,
        end_learning_rate: float,
        total_iters: StepCount,
        cycle: bool = False,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (initial_learning_rate, end_learning_rate, total_iters, cycle), param_group_tags, state)


class ExponentialLR(LRScheduler):
    r"""``initial_learning_rate · decay_rate ** (t / total_iters)`` (``staircase``: a whole exponent).

    Exponential decay by ``decay_rate`` every :math:`T` steps.

    .. math:: f(t) = v_0\, r^{t / T} \qquad (\text{staircase: } v_0\, r^{\lfloor t / T \rfloor})

    Here :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_learning_rate``,
    :math:`T` is ``total_iters``.

    Args:
        optimizer: The optimizer whose targeted param groups get the learning rate.
        initial_learning_rate: The learning rate at step 0.
        total_iters: How many steps the schedule lasts: a number or a time string (``"1000ba"``, ``"2ep"``,
            ``"0.1dur"``).
        decay_rate: The factor per ``total_iters`` steps.
        staircase: Decay in whole periods of ``total_iters`` steps (a staircase) rather than continuously.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``lr`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.ExponentialLR(opt, 0.1, total_iters=2, decay_rate=0.5).values_at(range(5)).tolist()]
    [0.1, 0.070711, 0.05, 0.035355, 0.025]
    """

    form = forms.Exponential

    def __init__(
        self,
        optimizer: Optimizer,
        initial_learning_rate: float,
        total_iters: StepCount,
        decay_rate: float,
        staircase: bool = False,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (initial_learning_rate, total_iters, decay_rate, staircase), param_group_tags, state)


class InverseExponentialTimeDecayLR(LRScheduler):
    r"""``initial_learning_rate / (1 + decay_rate · t ** step_exponent / total_iters)`` (Keras ``InverseTimeDecay``).

    Inverse time decay (Keras ``InverseTimeDecay``) of the step raised to ``step_exponent`` :math:`e`.

    .. math:: f(t) = \frac{v_0}{1 + r\, t^{e} / T} \qquad (\text{staircase: } \lfloor t^{e} / T \rfloor)

    Here :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_learning_rate``,
    :math:`T` is ``total_iters``.

    Args:
        optimizer: The optimizer whose targeted param groups get the learning rate.
        initial_learning_rate: The learning rate at step 0.
        step_exponent: The exponent of the step count in the denominator.
        total_iters: How many steps the schedule lasts: a number or a time string (``"1000ba"``, ``"2ep"``,
            ``"0.1dur"``).
        decay_rate: The factor per ``total_iters`` steps.
        staircase: Decay in whole periods of ``total_iters`` steps (a staircase) rather than continuously.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``lr`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> scheduler = cs.InverseExponentialTimeDecayLR(opt, 0.1, step_exponent=1, total_iters=2, decay_rate=0.5)
    >>> [round(v, 6) for v in scheduler.values_at(range(5)).tolist()]
    [0.1, 0.08, 0.066667, 0.057143, 0.05]
    """

    form = forms.InverseExponentialTimeDecay

    def __init__(
        self,
        optimizer: Optimizer,
        initial_learning_rate: float,
        step_exponent: float,
        total_iters: StepCount,
        decay_rate: float,
        staircase: bool = False,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(
            optimizer,
            (initial_learning_rate, step_exponent, total_iters, decay_rate, staircase),
            param_group_tags,
            state,
        )


class InverseSquareRootDecayLR(LRScheduler):
    r"""``initial_learning_rate · scale / sqrt(max(t, warmup_steps))``.

    Inverse square-root decay, flat for the first ``warmup_steps`` :math:`w`.

    .. math:: f(t) = v_0\,\frac{\mathrm{scale}}{\sqrt{\max(t, w)}}

    Here :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_learning_rate``.

    Args:
        optimizer: The optimizer whose targeted param groups get the learning rate.
        initial_learning_rate: The learning rate at step 0.
        scale: The factor of the inverse square root of the step.
        warmup_steps: The step count the inverse square root starts from (a number or a time string).
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``lr`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> scheduler = cs.InverseSquareRootDecayLR(opt, 0.1, scale=1.0, warmup_steps=2)
    >>> [round(v, 6) for v in scheduler.values_at(range(5)).tolist()]
    [0.070711, 0.070711, 0.070711, 0.057735, 0.05]
    """

    form = forms.InverseSquareRootDecay

    def __init__(
        self,
        optimizer: Optimizer,
        initial_learning_rate: float = 1.0,
        scale: float = 1.0,
        warmup_steps: StepCount = 1.0,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (initial_learning_rate, scale, warmup_steps), param_group_tags, state)


class CosineDecayLR(LRScheduler):
    r"""Half a cosine from ``initial_learning_rate`` to ``end_learning_rate`` over ``total_iters`` steps, then held.

    Half a cosine from :math:`v_0` to :math:`v_1` over :math:`T` steps, then :math:`v_1` (Keras ``CosineDecay``).

    .. math:: f(t) = v_1 + (v_0 - v_1)\,\frac{1 + \cos(\pi \min(t, T) / T)}{2}

    Here :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_learning_rate``,
    :math:`v_1` is ``end_learning_rate``, :math:`T` is ``total_iters``.

    Args:
        optimizer: The optimizer whose targeted param groups get the learning rate.
        initial_learning_rate: The learning rate at step 0.
        end_learning_rate: The learning rate at step ``total_iters`` and after.
        total_iters: How many steps the schedule lasts: a number or a time string (``"1000ba"``, ``"2ep"``,
            ``"0.1dur"``).
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``lr`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.CosineDecayLR(opt, 0.1, 0.0, total_iters=4).values_at(range(5)).tolist()]
    [0.1, 0.085355, 0.05, 0.014645, 0.0]
    """

    form = forms.CosineDecay

    def __init__(
        self,
        optimizer: Optimizer,
        initial_learning_rate: float,
        end_learning_rate: float,
        total_iters: StepCount,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (initial_learning_rate, end_learning_rate, total_iters), param_group_tags, state)


class SequentialLR(LRScheduler, SequentialBase):
    r"""``schedulers[i]`` from ``milestones[i-1]`` until ``milestones[i]``, each seeing the steps since its start
    (without ``milestones``: each child lasts its ``total_iters``).

    Run ``schedulers[0]`` until ``milestones[0]``, then ``schedulers[1]``, ...; each child sees the steps since its
    segment began (child :math:`i \ge 1` sees :math:`t - m_{i-1}`), as in Cerebras and torch.

    .. math:: f(t) = f_i(t - m_{i-1}) \quad \text{for } m_{i-1} \le t < m_i \quad (m_{-1} = 0,\ m_n = \infty)

    Without ``milestones`` (the Cerebras Trainer's example omits them), each child lasts its ``total_iters``: the
    milestones are their running sum.

    Here :math:`t` is the number of steps taken (``last_epoch``).

    Args:
        optimizer: The optimizer whose targeted param groups get the learning rate.
        schedulers: The Cerebras-style schedulers composed, on the same optimizer, param-group key and tags.
        milestones: The steps where the next segment starts (numbers or time strings), increasing.
        last_epoch: The step to start after (-1: a fresh run).
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``lr`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> parts = [cs.LinearLR(opt, 0.0, 0.1, 2), cs.CosineDecayLR(opt, 0.1, 0.0, 2)]
    >>> scheduler = cs.SequentialLR(opt, parts, milestones=[2])
    >>> [round(v, 6) for v in scheduler.values_at(range(5)).tolist()]
    [0.0, 0.05, 0.1, 0.05, 0.0]
    """


class PiecewiseConstantLR(LRScheduler):
    r"""``learning_rates[i]`` between ``milestones[i-1]`` and ``milestones[i]`` (one more value than milestones).

    Hold value :math:`v_i` from milestone :math:`m_{i-1}` (0 for the first) until :math:`m_i`
    (:func:`schedulers.core.kernels.piecewise_constant`).

    .. math:: f(t) = v_{\#\{i : m_i \le t\}}

    There is one more value than milestones (strictly increasing).

    Here :math:`t` is the number of steps taken (``last_epoch``), :math:`v_i` is ``learning_rates`` (entry
    :math:`i`).

    Args:
        optimizer: The optimizer whose targeted param groups get the learning rate.
        learning_rates: The learning rates, one per segment (one more than ``milestones``).
        milestones: The steps where the next segment starts (numbers or time strings), increasing.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``lr`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> scheduler = cs.PiecewiseConstantLR(opt, [0.1, 0.05, 0.01], milestones=[1, 3])
    >>> [round(v, 6) for v in scheduler.values_at(range(5)).tolist()]
    [0.1, 0.05, 0.05, 0.01, 0.01]
    """

    form = forms.PiecewiseConstant

    def __init__(
        self,
        optimizer: Optimizer,
        learning_rates: Sequence[float],
        milestones: Sequence[StepCount],
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (learning_rates, milestones), param_group_tags, state)


class MultiStepLR(LRScheduler):
    r"""``initial_learning_rate · gamma ** (milestones reached)`` (torch's ``MultiStepLR``).

    Multiply by ``gamma`` at each milestone reached (a repeated milestone counts twice, as in torch).

    .. math:: f(t) = v_0\, \gamma^{\#\{i : m_i \le t\}}

    Here :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_learning_rate``.

    Args:
        optimizer: The optimizer whose targeted param groups get the learning rate.
        initial_learning_rate: The learning rate at step 0.
        gamma: The factor applied at each milestone / step boundary.
        milestones: The steps where the next segment starts (numbers or time strings), increasing.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``lr`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.MultiStepLR(opt, 0.1, gamma=0.5, milestones=[1, 3]).values_at(range(5)).tolist()]
    [0.1, 0.05, 0.05, 0.025, 0.025]
    """

    form = forms.MultiStep

    def __init__(
        self,
        optimizer: Optimizer,
        initial_learning_rate: float,
        gamma: float,
        milestones: Sequence[StepCount],
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (initial_learning_rate, gamma, milestones), param_group_tags, state)


class StepLR(LRScheduler):
    r"""``initial_learning_rate · gamma ** floor(t / step_size)`` (torch's ``StepLR``).

    Multiply by ``gamma`` every ``step_size`` steps: :math:`f(t) = v_0\,\gamma^{\lfloor t / s \rfloor}`.

    Here :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_learning_rate``.

    Args:
        optimizer: The optimizer whose targeted param groups get the learning rate.
        initial_learning_rate: The learning rate at step 0.
        step_size: The steps between two decays by ``gamma`` (a number or a time string).
        gamma: The factor applied at each milestone / step boundary.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``lr`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.StepLR(opt, 0.1, step_size=2, gamma=0.5).values_at(range(5)).tolist()]
    [0.1, 0.1, 0.05, 0.05, 0.025]
    """

    form = forms.Step

    def __init__(
        self,
        optimizer: Optimizer,
        initial_learning_rate: float,
        step_size: StepCount,
        gamma: float,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (initial_learning_rate, step_size, gamma), param_group_tags, state)


class CosineAnnealingLR(LRScheduler):
    r"""Cosine annealing from ``initial_learning_rate`` to ``eta_min`` over ``T_max`` steps and back (torch's
    ``CosineAnnealingLR`` closed form).

    Cosine annealing from :math:`v_0` to :math:`\eta_{min}` over :math:`T_{max}` steps, then back up (SGDR's
    annealing without restarts; torch's ``CosineAnnealingLR`` closed form):

    .. math:: f(t) = \eta_{min} + (v_0 - \eta_{min})\,\frac{1 + \cos(\pi t / T_{max})}{2}

    The cosine goes on past :math:`T_{max}` (period :math:`2T_{max}`): :func:`schedulers.core.kernels.cosine_wave`.

    Here :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_learning_rate``.

    Args:
        optimizer: The optimizer whose targeted param groups get the learning rate.
        initial_learning_rate: The learning rate at step 0.
        T_max: The steps of a half cosine period (a number or a time string).
        eta_min: The lowest learning rate, at the bottom of the cosine.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``lr`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.CosineAnnealingLR(opt, 0.1, T_max=4, eta_min=0.0).values_at(range(5)).tolist()]
    [0.1, 0.085355, 0.05, 0.014645, 0.0]
    """

    form = forms.CosineAnnealing

    def __init__(
        self,
        optimizer: Optimizer,
        initial_learning_rate: float,
        T_max: StepCount,
        eta_min: float = 0.0,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (initial_learning_rate, T_max, eta_min), param_group_tags, state)


class LambdaLR(LRScheduler):
    r"""``initial_learning_rate`` times the product of the functions of the step ``set_lr_lambda()`` returns. A base
    class: subclass it and override ``set_lr_lambda()`` to return a function of the step (a float64 tensor), or a
    list of them, written with torch ops.

    The initial value times the product of user functions of the step: :math:`f(t) = v_0 \prod_i \lambda_i(t)`.

    Override :meth:`set_value_lambda` (learning-rate classes: ``set_lr_lambda``) to return a function of the step,
    or a list of them; each receives the step as a float64 tensor and returns a tensor or a number, written with
    torch ops only.

    Here :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_learning_rate``.

    Args:
        optimizer: The optimizer whose targeted param groups get the learning rate.
        initial_learning_rate: The learning rate at step 0.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``lr`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> class Halving(cs.LambdaLR):
    ...     def set_lr_lambda(self):
    ...         return lambda step: 0.5**step
    >>> [round(v, 6) for v in Halving(opt, 0.1).values_at(range(4)).tolist()]
    [0.1, 0.05, 0.025, 0.0125]
    """

    form = forms.Lambda

    def __init__(
        self,
        optimizer: Optimizer,
        initial_learning_rate: float,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (initial_learning_rate,), param_group_tags, state)


class CosineAnnealingWarmRestarts(LRScheduler):
    r"""SGDR: cosine annealing from ``initial_learning_rate`` to ``eta_min`` restarting after ``T_0`` steps, then every
    ``T_mult`` times longer (an integer ``T_mult >= 1``; torch's ``CosineAnnealingWarmRestarts``).

    SGDR: cosine annealing from :math:`v_0` to :math:`\eta_{min}` restarting every :math:`T_i` steps, :math:`T_0`
    first and :math:`T_{i+1} = T_{mult}\,T_i` (an integer :math:`T_{mult} \ge 1`).

    .. math:: f(t) = \eta_{min} + (v_0 - \eta_{min})\,\frac{1 + \cos(\pi T_{cur} / T_i)}{2}

    with :math:`T_{cur}` the steps since the last restart (:math:`f = v_0` at a restart).

    Here :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_learning_rate``.

    Args:
        optimizer: The optimizer whose targeted param groups get the value.
        initial_learning_rate: The value at step 0.
        T_0: The steps of the first cosine period (a number or a time string).
        T_mult: The factor each period's length grows by after a restart.
        eta_min: The lowest value, at the bottom of the cosine.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``lr`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> scheduler = cs.CosineAnnealingWarmRestarts(opt, 0.1, T_0=2, T_mult=1, eta_min=0.0)
    >>> [round(v, 6) for v in scheduler.values_at(range(5)).tolist()]
    [0.1, 0.05, 0.1, 0.05, 0.1]
    """

    form = forms.CosineAnnealingWarmRestarts

    def __init__(
        self,
        optimizer: Optimizer,
        initial_learning_rate: float,
        T_0: StepCount,
        T_mult: int = 1,
        eta_min: float = 0.0,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (initial_learning_rate, T_0, T_mult, eta_min), param_group_tags, state)


class MultiplicativeLR(LRScheduler):
    r"""``initial_learning_rate · coefficient ** t``: the learning rate multiplied by ``coefficient`` every step.

    Multiply by ``coefficient`` :math:`c` every step: :math:`f(t) = v_0\, c^{t}`.

    (``set_value_lambda`` / ``set_lr_lambda`` return the coefficient as a function of the step, as in Cerebras.)

    Here :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_learning_rate``.

    Args:
        optimizer: The optimizer whose targeted param groups get the learning rate.
        initial_learning_rate: The learning rate at step 0.
        coefficient: The factor the learning rate is multiplied by at each step.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``lr`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.MultiplicativeLR(opt, 0.1, coefficient=0.5).values_at(range(5)).tolist()]
    [0.1, 0.05, 0.025, 0.0125, 0.00625]
    """

    form = forms.Multiplicative

    def __init__(
        self,
        optimizer: Optimizer,
        initial_learning_rate: float,
        coefficient: float,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self._build(optimizer, (initial_learning_rate, coefficient), param_group_tags, state)

    def set_lr_lambda(self) -> Callable[[Any], Any]:
        """The factor per step as a function of the step: ``coefficient``; override it in a subclass to set your own.

        Returns:
            ``step -> coefficient``.
        """
        return lambda step: self.coefficient


class ChainedLR(LRScheduler, ChainedBase):
    r"""The product of ``schedulers``: the first one's learning rate times each later one's relative to its value at
    step 0.

    The product of the children's schedules (Cerebras's ``ChainedScheduler``): the first child's value times each
    later child's value relative to its value at step 0.

    .. math:: f(t) = f_0(t) \prod_{i \ge 1} \frac{f_i(t)}{f_i(0)}

    Here :math:`t` is the number of steps taken (``last_epoch``).

    Args:
        schedulers: The Cerebras-style schedulers composed, on the same optimizer, param-group key and tags.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``lr`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> scheduler = cs.ChainedLR([cs.LinearLR(opt, 0.1, 0.0, 4), cs.StepLR(opt, 1.0, 2, 0.5)])
    >>> [round(v, 6) for v in scheduler.values_at(range(5)).tolist()]
    [0.1, 0.075, 0.025, 0.0125, 0.0]
    """


class CyclicLR(LRScheduler):
    r"""Cyclical learning rate between ``base_lr`` and ``max_lr`` (torch's ``CyclicLR`` without momentum cycling).

    Cyclical values between a base and a peak value (CLR), exactly torch's ``CyclicLR`` (see
    :func:`schedulers.core.kernels.cyclic`); ``mode`` picks the amplitude scaling: ``"triangular"`` (none),
    ``"triangular2"`` (halved each cycle), ``"exp_range"`` (:math:`\gamma^{t}`). ``scale_mode`` follows from
    ``mode`` (cycle for the triangular modes, iterations for ``exp_range``), as in Cerebras and torch.

    Here :math:`t` is the number of steps taken (``last_epoch``).

    Args:
        optimizer: The optimizer whose targeted param groups get the learning rate.
        base_lr: The learning rate at the bottom of each cycle.
        max_lr: The highest learning rate (the top of a cycle, or the end of the warmup).
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
        A scheduler that writes the value at step 0 into ``lr`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.CyclicLR(opt, 0.01, 0.1, step_size_up=2).values_at(range(5)).tolist()]
    [0.01, 0.055, 0.1, 0.055, 0.01]
    """

    form = forms.Cyclic

    def __init__(
        self,
        optimizer: Optimizer,
        base_lr: float,
        max_lr: float,
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
            optimizer, (base_lr, max_lr, step_size_up, step_size_down, mode, gamma, scale_mode), param_group_tags, state
        )


class OneCycleLR(LRScheduler):
    r"""The 1cycle policy from ``initial_learning_rate`` up to ``max_lr`` and down to ``initial_learning_rate /
    final_div_factor`` over ``total_steps`` (torch's ``OneCycleLR``).

    The 1cycle policy, torch's ``OneCycleLR`` with the initial value :math:`v_0` = ``max_lr / div_factor`` (see
    :func:`schedulers.core.kernels.one_cycle`): up from :math:`v_0` to the peak over ``pct_start · total_steps``
    steps, then down to :math:`v_0` / ``final_div_factor`` at step ``total_steps - 1`` (three-phase: back to
    :math:`v_0` first), held after that.

    Here :math:`t` is the number of steps taken (``last_epoch``), :math:`v_0` is ``initial_learning_rate``.

    Args:
        optimizer: The optimizer whose targeted param groups get the learning rate.
        initial_learning_rate: The learning rate at step 0.
        max_lr: The highest learning rate (the top of a cycle, or the end of the warmup).
        total_steps: The steps of the whole one-cycle schedule (a number or a time string).
        pct_start: The fraction of ``total_steps`` spent rising to the top.
        final_div_factor: The last learning rate is ``initial`` divided by this.
        three_phase: Fall back to the initial value before the final annealing (torch's three phases).
        anneal_strategy: ``"cos"`` or ``"linear"``: the shape of the rise and fall.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``lr`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    Raises:
        TypeError: A call that does not fit the signature (the error shows it), or an optimizer that is not one.
        ValueError: An argument out of its range, named as this class names it.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.OneCycleLR(opt, 0.004, 0.1, total_steps=4).values_at(range(5)).tolist()]
    [0.004, 0.081175, 0.028306, 0.0, 0.0]
    """

    form = forms.OneCycle

    def __init__(
        self,
        optimizer: Optimizer,
        initial_learning_rate: float,
        max_lr: float,
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
            (initial_learning_rate, max_lr, total_steps, pct_start, final_div_factor, three_phase, anneal_strategy),
            param_group_tags,
            state,
        )


class ScalePerParamLR(LRScheduler, ScalePerParamBase):
    r"""``scheduler``'s learning rate times each param group's ``adjust_learning_rate`` entry (µP-style per-layer
    scaling).

    Wrap a scheduler and scale its value per param group by the group's ``adjust_learning_rate`` entry
    (``adjust_val`` as a fallback, 1 when neither is set), as Cerebras's ``ScalePerParamLR`` (µP lr scaling).

    .. math:: f_g(t) = a_g\, f(t)

    Here :math:`t` is the number of steps taken (``last_epoch``).

    Args:
        optimizer: The optimizer whose targeted param groups get the learning rate.
        scheduler: The Cerebras-style scheduler whose value each group gets, times its ``adjust_learning_rate``.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``lr`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> [round(v, 6) for v in cs.ScalePerParamLR(opt, cs.LinearLR(opt, 0.1, 0.0, 4)).values_at(range(5)).tolist()]
    [0.1, 0.075, 0.05, 0.025, 0.0]
    """

    @property
    def lr_adjustment_scalars(self) -> list[float]:
        """Cerebras's name for the per-group factors (``adjustment_scalars``)."""
        return self.adjustment_scalars


class ChainedScheduler(ChainedLR):
    """Cerebras's (and torch's) name for :class:`ChainedLR`: ``ChainedScheduler(schedulers)``.

    Args:
        schedulers: The Cerebras-style schedulers composed, on the same optimizer, param-group key and tags.
        param_group_tags: Write only into the param groups with one of these tags (None: every group).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it can also come later with ``attach_state``.

    Returns:
        A scheduler that writes the value at step 0 into ``lr`` of every targeted param group at
        construction, and at each ``step()`` the next step's value.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, weight_decay=0.1)
    >>> scheduler = cs.ChainedScheduler([cs.LinearLR(opt, 0.1, 0.0, 4), cs.StepLR(opt, 1.0, 2, 0.5)])
    >>> [round(v, 6) for v in scheduler.values_at(range(5)).tolist()]
    [0.1, 0.075, 0.025, 0.0125, 0.0]
    """


register_family(vars(), learning_rate=True)

__all__ = [
    "ChainedLR",
    "ChainedScheduler",
    "ConstantLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "CosineDecayLR",
    "CyclicLR",
    "ExponentialLR",
    "InverseExponentialTimeDecayLR",
    "InverseSquareRootDecayLR",
    "LRScheduler",
    "LambdaLR",
    "LinearLR",
    "MultiStepLR",
    "MultiplicativeLR",
    "OneCycleLR",
    "PiecewiseConstantLR",
    "PolynomialLR",
    "ScalePerParamLR",
    "SequentialLR",
    "StepLR",
]
