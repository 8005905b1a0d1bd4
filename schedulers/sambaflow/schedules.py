r"""SambaFlow's three learning-rate schedules, on Cadence's scheduler that counts its own steps.

Each constructor returns a :class:`LambdaLR`: a subclass of torch's
:class:`~torch.optim.lr_scheduler.LambdaLR` that is Cadence's scheduler counting its own steps
(:class:`~schedulers.core.torch_scheduler.StepCountingScheduler`). Its peak is the optimizer's
``lr`` (each param group's ``initial_lr``); the lr after ``k`` calls to ``step()`` is ``peak × α(k)``. A
schedule translates into its multiplier α, a :class:`~schedulers.families.sambaflow.SambaFlowLambda` of the step
(``scheduler.lr_lambdas[0]``): a Cadence schedule, whose curve of the step the scheduler evaluates.
Its formula, :math:`\alpha(k)` of the warmup :math:`W`, the end :math:`T` and the end ratio :math:`r`, is in
:mod:`schedulers.families.sambaflow`: α is 0 at step 0, exactly 1 at step :math:`W`, exactly :math:`r` at step
:math:`T`, and the value reached at :math:`T` is held afterwards.

>>> import torch
>>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
>>> sched = cosine_schedule_with_warmup(opt, num_warmup_steps=2, num_training_steps=6)
>>> [round(sched.lr_lambdas[0](k), 4) for k in range(8)]
[0.0, 0.5, 1.0, 0.8682, 0.55, 0.2318, 0.1, 0.1]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torch.optim import Optimizer
from torch.optim import lr_scheduler as torch_schedulers

from schedulers.core.names import register_scheduler
from schedulers.core.run import Run, StateLike
from schedulers.core.torch_scheduler import StepCountingScheduler, base_value
from schedulers.families.sambaflow import SambaFlowLambda
from timeunits import Time, TimeUnit

__all__ = [
    "LambdaLR",
    "cosine_schedule_with_warmup",
    "fixed_lr",
    "get_cosine_schedule_with_warmup",
    "get_fixed_lr",
    "get_polynomial_decay_schedule_with_warmup",
    "polynomial_decay_schedule_with_warmup",
]


class LambdaLR(StepCountingScheduler, torch_schedulers.LambdaLR):
    """A SambaFlow schedule, a torch ``LambdaLR`` that is Cadence's scheduler counting its steps.

    The lr of param group ``g`` after ``k`` calls to ``step()`` is ``initial_lr_g × α(k)``, α the
    :class:`SambaFlowLambda` given. It is a torch ``LambdaLR`` too: ``lr_lambdas`` holds α (once per param
    group), ``base_lrs`` the peaks, and ``state_dict()`` is ``LambdaLR``'s (``last_epoch``, ``base_lrs``,
    ``_step_count``, ``_last_lr`` and ``lr_lambdas``, whose entries are ``{}``: no callable, loadable with
    ``torch.load(weights_only=True)``; the arguments of the run that loads win). With a scale schedule ratio
    (:meth:`attach_state`, which the trainer calls) α's step counts are scaled by :meth:`SambaFlowLambda.scaled`.

    Args:
        optimizer: The optimizer whose param groups' lr is scaled (each group's lr at construction is its peak,
            kept as ``initial_lr``).
        multiplier: α, the schedule's multiplier.
        last_epoch: The step to start after (-1: a fresh run; else the groups must hold ``initial_lr``).

    Returns:
        The scheduler, with ``initial_lr × α(last_epoch + 1)`` already written into every param group.

    Raises:
        TypeError: ``optimizer`` is not a torch optimizer.
        KeyError: ``last_epoch`` other than -1 with a group lacking ``initial_lr``.

    >>> import torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.2)
    >>> sched = LambdaLR(opt, SambaFlowLambda("linear", 0, 4))
    >>> sched.step(); sched.get_last_lr()
    [0.15000000000000002]
    """

    def __init__(self, optimizer: Optimizer, multiplier: SambaFlowLambda, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        groups = optimizer.param_groups
        if last_epoch != -1 and any("initial_lr" not in group for group in groups):
            index = next(i for i, group in enumerate(groups) if "initial_lr" not in group)
            raise KeyError(f"param 'initial_lr' is not specified in param_groups[{index}] when resuming an optimizer")
        bases = [base_value(group, i, "lr", "initial_lr") for i, group in enumerate(groups)]
        for group, (stored, _) in zip(groups, bases, strict=True):
            group.setdefault("initial_lr", stored)
        self.multiplier = multiplier  # as given: a ratio scales it anew (attach_state)
        self._use(multiplier)
        self._start(optimizer, "lr", list(range(len(groups))), [base for _, base in bases], last_epoch + 1)
        self._apply()

    def _use(self, multiplier: SambaFlowLambda) -> Callable[[Any], Any]:
        """Make ``multiplier`` α (the engine evaluates its curve of the step directly: floats in, floats out)."""
        self._multiplier = multiplier
        self._curve = multiplier.curve(Run(Time(1, TimeUnit.BATCH), scaled=True)).fn
        return self._curve

    def curve_for(self, state: StateLike | None, ssr: float) -> Callable[[Any], Any]:
        """α for a run scaled by ``ssr``: the multiplier as given, its step counts scaled by the run's rule
        (:meth:`SambaFlowLambda.scaled`); ``state`` is not read (SambaFlow's counts are steps).

        Args:
            state: The run's state.
            ssr: The scale schedule ratio.

        Returns:
            The multiplier's curve, a function of the step count.

        Raises:
            ValueError: A ratio that scales ``num_training_steps`` to 0.
        """
        return self._use(self.multiplier if ssr == 1.0 else self.multiplier.scaled(ssr))

    @property
    def lr_lambdas(self) -> list[SambaFlowLambda]:
        """α once per param group (torch's ``LambdaLR`` attribute)."""
        return [self._multiplier] * len(self.param_groups)

    @lr_lambdas.setter
    def lr_lambdas(self, lambdas: list[SambaFlowLambda]) -> None:
        first, *others = lambdas
        if len(lambdas) != len(self.param_groups) or any(other != first for other in others):
            raise ValueError(f"a SambaFlow schedule has one multiplier for its {len(self.param_groups)} param groups")
        self._use(first)  # as torch's scaling does: the next step uses it

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state.pop("_curve", None)  # composed again on load
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._use(self._multiplier)

    def state_dict(self) -> dict[str, Any]:
        """``LambdaLR``'s state: plain numbers and lists only.

        Returns:
            ``base_lrs``, ``last_epoch``, ``_step_count``, ``_last_lr`` and ``lr_lambdas`` (each entry ``{}``), loadable
            with ``torch.load(weights_only=True)``.
        """
        return {
            "base_lrs": list(self.base_values),
            "last_epoch": self._count,
            "_step_count": self._step_count,
            "_last_lr": self.get_last_lr(),
            "lr_lambdas": [{} for _ in self.param_groups],
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the step (this run's arguments are kept) and write the lr at that step.

        Args:
            state_dict: What :meth:`state_dict` gave (torch's ``LambdaLR`` state loads too).
        """
        self._set_count(int(state_dict["last_epoch"]))
        self._step_count = int(state_dict.get("_step_count", self._count + 1))
        self._apply()


@register_scheduler(aliases=("get_cosine_schedule_with_warmup",), family="sambaflow")
def cosine_schedule_with_warmup(
    optimizer: Optimizer,
    num_warmup_steps: int,
    num_training_steps: int,
    num_cycles: float = 0.5,
    last_epoch: int = -1,
    end_ratio: float = 0.1,
) -> LambdaLR:
    r"""Linear warmup from 0 to the optimizer's lr, then cosine decay to ``end_ratio`` × lr, then hold.

    .. math::
        \alpha(k) = k / W \;(k \le W), \qquad
        \alpha(k) = r + (1 - r)\,\tfrac12\bigl(1 + \cos(2\pi c\,p)\bigr), \;
        p = \min\!\left(\tfrac{k - W}{\max(1, T - W)}, 1\right) \;(k > W)

    Args:
        optimizer: The optimizer whose param groups' lr is scaled (the lr each group has at construction is
            its peak, kept as ``initial_lr``).
        num_warmup_steps: :math:`W`, the steps of the linear warmup from 0 (a whole number of steps >= 0).
        num_training_steps: :math:`T`, the step the decay ends at (a whole number of steps).
        num_cycles: :math:`c`, the cosine periods over the decay (0.5: one half period, down once).
        last_epoch: The step to start after (-1: a fresh run; else the groups must hold ``initial_lr``).
        end_ratio: :math:`r`, the multiplier the decay ends at.

    Returns:
        A SambaFlow ``LambdaLR`` (a torch ``LambdaLR``) that writes :math:`\mathrm{lr} \cdot \alpha(k)` into
        every param group after :math:`k` calls to ``step()``.

    Raises:
        ValueError: A step count or ratio that is not a finite number in its range.
        KeyError: ``last_epoch`` other than -1 with a group lacking ``initial_lr``.

    >>> import torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = cosine_schedule_with_warmup(opt, num_warmup_steps=10, num_training_steps=110)
    >>> sched.lr_lambdas[0](5), sched.lr_lambdas[0](10), sched.lr_lambdas[0](60), sched.lr_lambdas[0](500)
    (0.5, 1.0, 0.55, 0.1)
    """
    lam = SambaFlowLambda("cosine", num_warmup_steps, num_training_steps, end_ratio, num_cycles)
    return LambdaLR(optimizer, lam, last_epoch)


@register_scheduler(aliases=("get_polynomial_decay_schedule_with_warmup",), family="sambaflow")
def polynomial_decay_schedule_with_warmup(
    optimizer: Optimizer,
    num_warmup_steps: int,
    num_training_steps: int,
    end_ratio: float = 0.0,
    last_epoch: int = -1,
) -> LambdaLR:
    r"""Linear warmup from 0 to the optimizer's lr, then *linear* decay to ``end_ratio`` × lr, then hold.

    SambaFlow calls it "polynomial", but the decay is always linear:

    .. math::
        \alpha(k) = k / W \;(k \le W), \qquad
        \alpha(k) = r + (1 - r)(1 - p), \; p = \min\!\left(\tfrac{k - W}{\max(1, T - W)}, 1\right) \;(k > W)

    Args:
        optimizer: The optimizer whose param groups' lr is scaled (the lr each group has at construction is
            its peak, kept as ``initial_lr``).
        num_warmup_steps: :math:`W`, the steps of the linear warmup from 0 (a whole number of steps >= 0).
        num_training_steps: :math:`T`, the step the decay ends at (a whole number of steps).
        end_ratio: :math:`r`, the multiplier the decay ends at.
        last_epoch: The step to start after (-1: a fresh run; else the groups must hold ``initial_lr``).

    Returns:
        A SambaFlow ``LambdaLR`` (a torch ``LambdaLR``) that writes :math:`\mathrm{lr} \cdot \alpha(k)` into
        every param group after :math:`k` calls to ``step()``.

    Raises:
        ValueError: A step count or ratio that is not a finite number in its range.
        KeyError: ``last_epoch`` other than -1 with a group lacking ``initial_lr``.

    >>> import torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = polynomial_decay_schedule_with_warmup(opt, 10, 110, end_ratio=0.5)
    >>> sched.lr_lambdas[0](60), sched.lr_lambdas[0](110), sched.lr_lambdas[0](111)
    (0.75, 0.5, 0.5)
    """
    lam = SambaFlowLambda("linear", num_warmup_steps, num_training_steps, end_ratio)
    return LambdaLR(optimizer, lam, last_epoch)


@register_scheduler(aliases=("get_fixed_lr",), family="sambaflow")
def fixed_lr(optimizer: Optimizer, last_epoch: int = -1) -> LambdaLR:
    """No schedule: the optimizer's lr throughout (α = 1).

    Args:
        optimizer: The optimizer whose param groups' lr is scaled (the lr each group has at construction is
            its peak, kept as ``initial_lr``).
        last_epoch: The step to start after (-1: a fresh run; else the groups must hold ``initial_lr``).

    Returns:
        A SambaFlow ``LambdaLR`` (a torch ``LambdaLR``) whose multiplier is 1 at every step.

    Raises:
        KeyError: ``last_epoch`` other than -1 with a group lacking ``initial_lr``.

    >>> import torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.3)
    >>> sched = fixed_lr(opt)
    >>> for _ in range(5):
    ...     opt.step(); sched.step()
    >>> sched.get_last_lr()
    [0.3]
    """
    return LambdaLR(optimizer, SambaFlowLambda("fixed"), last_epoch)


# SambaFlow's own code spells them get_* (docs/sambaflow.md).
get_cosine_schedule_with_warmup = cosine_schedule_with_warmup
get_polynomial_decay_schedule_with_warmup = polynomial_decay_schedule_with_warmup
get_fixed_lr = fixed_lr
