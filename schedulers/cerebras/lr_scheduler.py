r"""Cerebras's learning-rate schedulers (``cerebras.pytorch.optim.lr_scheduler``) with their exact signatures.

Each class writes an absolute learning rate into every targeted param group: the lr after ``k`` calls
to ``step()`` (one per optimizer step; construction is the first) is the closed form :math:`f(k)` of
its generic base in :mod:`schedulers.cerebras.closed_forms`. Every class also takes
``param_group_tags`` (Cerebras 2.x) and a keyword-only ``state`` for time-string step counts
(:mod:`schedulers.cerebras.steps`).

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

_INITIAL = {"initial_val": "initial_learning_rate"}
_INITIAL_END = {"initial_val": "initial_learning_rate", "end_val": "end_learning_rate"}


def _register(*aliases: str):
    return register_scheduler(aliases=aliases, family="cerebras")


class LRScheduler(HyperparameterScheduler):
    """Cerebras's learning-rate scheduler base: ``LRScheduler(optimizer, total_iters, last_epoch=-1)``.

    Subclass it and override ``_get_closed_form_lr()`` (or ``_get_closed_form()``) to return the lr as a
    closed form of ``self.last_epoch`` (a 0-d int64 tensor) built from torch ops only — no Python
    branches on tensors (use ``torch.where``); loops and conditions on constants are fine. The value is
    written into ``"lr"`` of every targeted param group after each ``step()``.
    List extra step-count attributes in ``_step_arguments`` to let them take time strings too.
    """

    param_group_key = "lr"


@_register()
class ConstantLR(LRScheduler, ConstantForm):
    """A constant learning rate ``learning_rate``; ``total_iters`` (optional) is how long, e.g. in a sequence."""

    _argument_names = {"val": "learning_rate"}

    def __init__(self, optimizer, learning_rate, total_iters=None, param_group_tags=None, *, state=None):
        super().__init__(optimizer, learning_rate, total_iters, param_group_tags, state=state)


@_register()
class PolynomialLR(LRScheduler, PolynomialForm):
    """Polynomial decay from ``initial_learning_rate`` to ``end_learning_rate`` over ``total_iters`` steps,
    then held; ``cycle=True`` restarts the decay with a longer horizon (TensorFlow's ``PolynomialDecay``)."""

    _argument_names = _INITIAL_END

    def __init__(
        self,
        optimizer,
        initial_learning_rate,
        end_learning_rate,
        total_iters,
        power=1.0,
        cycle=False,
        param_group_tags=None,
        *,
        state=None,
    ):
        super().__init__(
            optimizer,
            initial_learning_rate,
            end_learning_rate,
            total_iters,
            power,
            cycle,
            param_group_tags,
            state=state,
        )


@_register()
class LinearLR(LRScheduler, LinearForm):
    """Linear decay from ``initial_learning_rate`` to ``end_learning_rate`` over ``total_iters`` steps
    (:class:`PolynomialLR` with power 1)."""

    _argument_names = _INITIAL_END

    def __init__(
        self,
        optimizer,
        initial_learning_rate,
        end_learning_rate,
        total_iters,
        cycle=False,
        param_group_tags=None,
        *,
        state=None,
    ):
        super().__init__(
            optimizer, initial_learning_rate, end_learning_rate, total_iters, cycle, param_group_tags, state=state
        )


@_register()
class ExponentialLR(LRScheduler, ExponentialForm):
    """``initial_learning_rate · decay_rate ** (t / total_iters)`` (``staircase``: a whole exponent)."""

    _argument_names = _INITIAL

    def __init__(
        self,
        optimizer,
        initial_learning_rate,
        total_iters,
        decay_rate,
        staircase=False,
        param_group_tags=None,
        *,
        state=None,
    ):
        super().__init__(
            optimizer, initial_learning_rate, total_iters, decay_rate, staircase, param_group_tags, state=state
        )


@_register()
class InverseExponentialTimeDecayLR(LRScheduler, InverseExponentialTimeDecayForm):
    """``initial_learning_rate / (1 + decay_rate · t ** step_exponent / total_iters)`` (Keras ``InverseTimeDecay``)."""

    _argument_names = _INITIAL

    def __init__(
        self,
        optimizer,
        initial_learning_rate,
        step_exponent,
        total_iters,
        decay_rate,
        staircase=False,
        param_group_tags=None,
        *,
        state=None,
    ):
        super().__init__(
            optimizer,
            initial_learning_rate,
            step_exponent,
            total_iters,
            decay_rate,
            staircase,
            param_group_tags,
            state=state,
        )


@_register()
class InverseSquareRootDecayLR(LRScheduler, InverseSquareRootDecayForm):
    """``initial_learning_rate · scale / sqrt(max(t, warmup_steps))``."""

    _argument_names = _INITIAL

    def __init__(
        self, optimizer, initial_learning_rate=1.0, scale=1.0, warmup_steps=1.0, param_group_tags=None, *, state=None
    ):
        super().__init__(optimizer, initial_learning_rate, scale, warmup_steps, param_group_tags, state=state)


@_register()
class CosineDecayLR(LRScheduler, CosineDecayForm):
    """Half a cosine from ``initial_learning_rate`` to ``end_learning_rate`` over ``total_iters`` steps, then held."""

    _argument_names = _INITIAL_END

    def __init__(
        self, optimizer, initial_learning_rate, end_learning_rate, total_iters, param_group_tags=None, *, state=None
    ):
        super().__init__(
            optimizer, initial_learning_rate, end_learning_rate, total_iters, param_group_tags, state=state
        )


@_register()
class SequentialLR(LRScheduler, SequentialForm):
    """``schedulers[i]`` from ``milestones[i-1]`` until ``milestones[i]``, each seeing the steps since its start
    (without ``milestones``: each child lasts its ``total_iters``)."""

    def __init__(self, optimizer, schedulers, milestones=None, last_epoch=-1, param_group_tags=None, *, state=None):
        super().__init__(optimizer, schedulers, milestones, last_epoch, param_group_tags, state=state)


@_register()
class PiecewiseConstantLR(LRScheduler, PiecewiseConstantForm):
    """``learning_rates[i]`` between ``milestones[i-1]`` and ``milestones[i]`` (one more rate than milestones)."""

    _argument_names = {"vals": "learning_rates"}

    def __init__(self, optimizer, learning_rates, milestones, param_group_tags=None, *, state=None):
        super().__init__(optimizer, learning_rates, milestones, param_group_tags, state=state)


@_register()
class MultiStepLR(LRScheduler, MultiStepForm):
    """``initial_learning_rate · gamma ** (milestones reached)`` (torch's ``MultiStepLR``)."""

    _argument_names = _INITIAL

    def __init__(self, optimizer, initial_learning_rate, gamma, milestones, param_group_tags=None, *, state=None):
        super().__init__(optimizer, initial_learning_rate, gamma, milestones, param_group_tags, state=state)


@_register()
class StepLR(LRScheduler, StepForm):
    """``initial_learning_rate · gamma ** floor(t / step_size)`` (torch's ``StepLR``)."""

    _argument_names = _INITIAL

    def __init__(self, optimizer, initial_learning_rate, step_size, gamma, param_group_tags=None, *, state=None):
        super().__init__(optimizer, initial_learning_rate, step_size, gamma, param_group_tags, state=state)


@_register()
class CosineAnnealingLR(LRScheduler, CosineAnnealingForm):
    """Cosine annealing from ``initial_learning_rate`` to ``eta_min`` over ``T_max`` steps and back
    (torch's ``CosineAnnealingLR`` closed form)."""

    _argument_names = _INITIAL

    def __init__(self, optimizer, initial_learning_rate, T_max, eta_min=0.0, param_group_tags=None, *, state=None):
        super().__init__(optimizer, initial_learning_rate, T_max, eta_min, param_group_tags, state=state)


@_register()
class LambdaLR(LRScheduler, LambdaForm):
    """``initial_learning_rate`` times the product of the functions ``set_lr_lambda()`` returns.

    A base class: subclass it and override ``set_lr_lambda()`` (or ``set_value_lambda()``) to return a
    function of the step (a float64 tensor), or a list of them, written with torch ops.
    """

    _argument_names = _INITIAL

    def __init__(self, optimizer, initial_learning_rate, param_group_tags=None, *, state=None):
        super().__init__(optimizer, initial_learning_rate, param_group_tags, state=state)

    def set_lr_lambda(self):
        """The function(s) of the step to multiply ``initial_learning_rate`` by: override this."""
        return self.set_value_lambda()

    def _lambda_hook(self) -> str:
        return "set_lr_lambda"


@_register("CosineAnnealingWarmRestartsLR")
class CosineAnnealingWarmRestarts(LRScheduler, CosineAnnealingWarmRestartsForm):
    """SGDR: cosine annealing from ``initial_learning_rate`` to ``eta_min`` restarting after ``T_0`` steps,
    then every ``T_mult`` times longer (an integer ``T_mult >= 1``; torch's ``CosineAnnealingWarmRestarts``)."""

    _argument_names = _INITIAL

    def __init__(
        self, optimizer, initial_learning_rate, T_0, T_mult=1, eta_min=0.0, param_group_tags=None, *, state=None
    ):
        super().__init__(optimizer, initial_learning_rate, T_0, T_mult, eta_min, param_group_tags, state=state)


@_register()
class MultiplicativeLR(LRScheduler, MultiplicativeForm):
    """``initial_learning_rate · coefficient ** t``: the lr multiplied by ``coefficient`` every step."""

    _argument_names = _INITIAL

    def __init__(self, optimizer, initial_learning_rate, coefficient, param_group_tags=None, *, state=None):
        super().__init__(optimizer, initial_learning_rate, coefficient, param_group_tags, state=state)

    def set_lr_lambda(self):
        """The per-step factor as a function of the step (the constant ``coefficient``)."""
        return self.set_value_lambda()

    def _lambda_hook(self) -> str:
        return "set_lr_lambda"


@_register("ChainedScheduler")
class ChainedLR(LRScheduler, ChainedForm):
    """The product of ``schedulers``: the first one's lr times each later one's lr relative to its lr at step 0."""

    def __init__(self, schedulers, param_group_tags=None, *, state=None):
        super().__init__(schedulers, param_group_tags, state=state)


class ChainedScheduler(ChainedLR):
    """Cerebras's (and torch's) name for :class:`ChainedLR`: ``ChainedScheduler(schedulers)``."""


@_register()
class CyclicLR(LRScheduler, CyclicForm):
    """Cyclical learning rate between ``base_lr`` and ``max_lr`` (torch's ``CyclicLR`` without momentum cycling)."""

    _argument_names = {"base_val": "base_lr", "max_val": "max_lr"}

    def __init__(
        self,
        optimizer,
        base_lr,
        max_lr,
        step_size_up=2000,
        step_size_down=None,
        mode="triangular",
        gamma=1.0,
        scale_mode="cycle",
        param_group_tags=None,
        *,
        state=None,
    ):
        super().__init__(
            optimizer,
            base_lr,
            max_lr,
            step_size_up,
            step_size_down,
            mode,
            gamma,
            scale_mode,
            param_group_tags,
            state=state,
        )


@_register()
class OneCycleLR(LRScheduler, OneCycleForm):
    """The 1cycle policy from ``initial_learning_rate`` up to ``max_lr`` and down to
    ``initial_learning_rate / final_div_factor`` over ``total_steps`` (torch's ``OneCycleLR``)."""

    _argument_names = {"initial_val": "initial_learning_rate", "max_val": "max_lr"}

    def __init__(
        self,
        optimizer,
        initial_learning_rate,
        max_lr,
        total_steps=1000,
        pct_start=0.3,
        final_div_factor=1e4,
        three_phase=False,
        anneal_strategy="cos",
        param_group_tags=None,
        *,
        state=None,
    ):
        super().__init__(
            optimizer,
            initial_learning_rate,
            max_lr,
            total_steps,
            pct_start,
            final_div_factor,
            three_phase,
            anneal_strategy,
            param_group_tags,
            state=state,
        )


@_register()
class ScalePerParamLR(LRScheduler, ScalePerParamForm):
    """``scheduler``'s lr times each param group's ``adjust_learning_rate`` (µP-style per-layer lr scaling)."""

    def __init__(self, optimizer, scheduler, param_group_tags=None, *, state=None):
        super().__init__(optimizer, scheduler, param_group_tags, state=state)

    @property
    def lr_adjustment_scalars(self):
        """Cerebras's name for the per-group factors."""
        return self.adjustment_scalars
