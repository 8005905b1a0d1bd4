"""The ``cstorch.optim`` namespace, so Cerebras code runs with only its import line changed.

``import cerebras.pytorch as cstorch`` becomes ``import schedulers.cerebras as cstorch``; then
``cstorch.optim.lr_scheduler.LinearLR``, ``cstorch.optim.weight_decay_scheduler.CosineDecayWD`` (also
directly: ``cstorch.optim.LinearLR``) and ``cstorch.optim.configure_lr_scheduler`` resolve as in Cerebras,
and so do the optimizers:

* ``cstorch.optim.configure_optimizer(optimizer_type, params, **kwargs)`` is
  :func:`schedulers.optim.configure_optimizer`;
* every optimizer name it resolves is an attribute: ``cstorch.optim.SGD``, ``Adam``, ``AdamW``, ``RMSprop``,
  ... (torch's optimizers), ``Lamb`` and ``Lion`` (Cadence's). Where Cerebras documents a default that
  differs from torch's (:data:`schedulers.optim.CEREBRAS_DEFAULTS`: ``Adam``/``AdamW`` ``eps=1e-6``,
  ``weight_decay=0.0``, ...), the class here is a subclass of torch's declaring Cerebras's defaults in its
  signature (:class:`Adam`, :class:`AdamW`, :class:`Adamax`, :class:`Adagrad`, :class:`RAdam`,
  :class:`Rprop`), so ``cstorch.optim.AdamW(params, lr=1e-3)`` builds what
  ``configure_optimizer("AdamW", params, lr=1e-3)`` builds; the others (``SGD``, ...) are torch's classes
  themselves, imported by name, so a type checker reads every one of them.

>>> import torch
>>> import schedulers.cerebras as cstorch
>>> optimizer = cstorch.optim.AdamW([torch.zeros(1, requires_grad=True)], lr=1e-3)
>>> isinstance(optimizer, torch.optim.AdamW), optimizer.defaults["eps"], cstorch.optim.SGD is torch.optim.SGD
(True, 1e-06, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from torch.optim import ASGD, LBFGS, SGD, Adadelta, Adafactor, NAdam, RMSprop, SparseAdam
from torch.optim.optimizer import ParamsT

from schedulers.cerebras import lr_scheduler, weight_decay_scheduler
from schedulers.cerebras.configure import configure_lr_scheduler
from schedulers.cerebras.lr_scheduler import *  # noqa: F401,F403  (Cerebras exposes its schedulers here too)
from schedulers.cerebras.weight_decay_scheduler import *  # noqa: F401,F403
from schedulers.core.names import did_you_mean
from schedulers.optim import Lamb, Lion, configure_optimizer

__all__ = ["configure_lr_scheduler", "configure_optimizer", "lr_scheduler", "weight_decay_scheduler"]
__all__ += ["ASGD", "LBFGS", "SGD", "Adadelta", "Adafactor", "Lamb", "Lion", "NAdam", "RMSprop", "SparseAdam"]
__all__ += ["Adagrad", "Adam", "AdamW", "Adamax", "RAdam", "Rprop"]
__all__ += lr_scheduler.__all__
__all__ += weight_decay_scheduler.__all__

# Muon (torch 2.9) is an attribute when this torch has it, as optimizer_classes() lists it; every other class here
# is in every torch this package supports (pyproject.toml: torch>=2.7, whose Adam takes decoupled_weight_decay).
try:
    from torch.optim import Muon

    __all__ += ["Muon"]
except ImportError:  # pragma: no cover  (the suite's torch has it)
    pass

# The subclasses below declare Cerebras's documented defaults (schedulers.optim.CEREBRAS_DEFAULTS) in torch's own
# signatures; tests/schedulers/cerebras/test_optim_namespace.py holds them to both.


class Adam(torch.optim.Adam):
    """torch's :class:`torch.optim.Adam` with Cerebras's defaults: ``eps=1e-6``, ``weight_decay=0.0``.

    Args:
        params: The parameters or param groups to optimize.
        lr: The learning rate.
        betas: The decay rates of the running averages of the gradient and its square.
        eps: Added to the denominator for stability (Cerebras's default: ``1e-6``).
        weight_decay: The L2 penalty (Cerebras's default: ``0.0``).
        amsgrad: Use the AMSGrad variant.
        foreach: Use torch's foreach implementation (None: torch chooses).
        maximize: Maximize the objective instead of minimizing it.
        capturable: Allow the step to be captured in a CUDA graph.
        differentiable: Let autograd run through the step.
        fused: Use the fused implementation (None: torch chooses).
        decoupled_weight_decay: Decay the weights apart from the gradient (AdamW's rule).

    Returns:
        The optimizer, a ``torch.optim.Adam``.

    >>> import torch, schedulers.cerebras as cs
    >>> cs.optim.Adam([torch.zeros(1, requires_grad=True)]).defaults["eps"]
    1e-06
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float | torch.Tensor = 1e-3,
        betas: tuple[float | torch.Tensor, float | torch.Tensor] = (0.9, 0.999),
        eps: float = 1e-6,
        weight_decay: float = 0.0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        super().__init__(
            params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize, capturable=capturable,
            differentiable=differentiable, fused=fused, decoupled_weight_decay=decoupled_weight_decay,
        )  # fmt: skip


class AdamW(torch.optim.AdamW):
    """torch's :class:`torch.optim.AdamW` with Cerebras's defaults: ``eps=1e-6``, ``weight_decay=0.0``.

    Args:
        params: The parameters or param groups to optimize.
        lr: The learning rate.
        betas: The decay rates of the running averages of the gradient and its square.
        eps: Added to the denominator for stability (Cerebras's default: ``1e-6``).
        weight_decay: The decoupled weight decay (Cerebras's default: ``0.0``; torch's is ``0.01``).
        amsgrad: Use the AMSGrad variant.
        maximize: Maximize the objective instead of minimizing it.
        foreach: Use torch's foreach implementation (None: torch chooses).
        capturable: Allow the step to be captured in a CUDA graph.
        differentiable: Let autograd run through the step.
        fused: Use the fused implementation (None: torch chooses).

    Returns:
        The optimizer, a ``torch.optim.AdamW``.

    >>> import torch, schedulers.cerebras as cs
    >>> cs.optim.AdamW([torch.zeros(1, requires_grad=True)]).defaults["weight_decay"]
    0.0
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float | torch.Tensor = 1e-3,
        betas: tuple[float | torch.Tensor, float | torch.Tensor] = (0.9, 0.999),
        eps: float = 1e-6,
        weight_decay: float = 0.0,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize, foreach=foreach, capturable=capturable,
            differentiable=differentiable, fused=fused,
        )  # fmt: skip


class Adamax(torch.optim.Adamax):
    """torch's :class:`torch.optim.Adamax` with Cerebras's defaults: ``lr=1e-3``, ``eps=1e-6``, ``weight_decay=0.0``.

    Args:
        params: The parameters or param groups to optimize.
        lr: The learning rate (Cerebras's default: ``1e-3``; torch's is ``2e-3``).
        betas: The decay rates of the running average of the gradient and of its infinity norm.
        eps: Added to the denominator for stability (Cerebras's default: ``1e-6``).
        weight_decay: The L2 penalty (Cerebras's default: ``0.0``).
        foreach: Use torch's foreach implementation (None: torch chooses).
        maximize: Maximize the objective instead of minimizing it.
        differentiable: Let autograd run through the step.
        capturable: Allow the step to be captured in a CUDA graph.

    Returns:
        The optimizer, a ``torch.optim.Adamax``.

    >>> import torch, schedulers.cerebras as cs
    >>> cs.optim.Adamax([torch.zeros(1, requires_grad=True)]).defaults["lr"]
    0.001
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float | torch.Tensor = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-6,
        weight_decay: float = 0.0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        super().__init__(
            params, lr, betas, eps, weight_decay, foreach, maximize=maximize, differentiable=differentiable,
            capturable=capturable,
        )  # fmt: skip


class Adagrad(torch.optim.Adagrad):
    """torch's :class:`torch.optim.Adagrad` with Cerebras's default ``eps=1e-6``.

    Args:
        params: The parameters or param groups to optimize.
        lr: The learning rate.
        lr_decay: The learning rate's decay per step.
        weight_decay: The L2 penalty.
        initial_accumulator_value: The starting sum of squared gradients.
        eps: Added to the denominator for stability (Cerebras's default: ``1e-6``; torch's is ``1e-10``).
        foreach: Use torch's foreach implementation (None: torch chooses).
        maximize: Maximize the objective instead of minimizing it.
        differentiable: Let autograd run through the step.
        fused: Use the fused implementation (None: torch chooses).

    Returns:
        The optimizer, a ``torch.optim.Adagrad``.

    >>> import torch, schedulers.cerebras as cs
    >>> cs.optim.Adagrad([torch.zeros(1, requires_grad=True)]).defaults["eps"]
    1e-06
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float | torch.Tensor = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-6,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params, lr, lr_decay, weight_decay, initial_accumulator_value, eps, foreach, maximize=maximize,
            differentiable=differentiable, fused=fused,
        )  # fmt: skip


class RAdam(torch.optim.RAdam):
    """torch's :class:`torch.optim.RAdam` with Cerebras's defaults: ``eps=1e-6``, ``weight_decay=0.0``.

    Args:
        params: The parameters or param groups to optimize.
        lr: The learning rate.
        betas: The decay rates of the running averages of the gradient and its square.
        eps: Added to the denominator for stability (Cerebras's default: ``1e-6``).
        weight_decay: The weight decay (Cerebras's default: ``0.0``).
        decoupled_weight_decay: Decay the weights apart from the gradient (AdamW's rule).
        foreach: Use torch's foreach implementation (None: torch chooses).
        maximize: Maximize the objective instead of minimizing it.
        capturable: Allow the step to be captured in a CUDA graph.
        differentiable: Let autograd run through the step.

    Returns:
        The optimizer, a ``torch.optim.RAdam``.

    >>> import torch, schedulers.cerebras as cs
    >>> cs.optim.RAdam([torch.zeros(1, requires_grad=True)]).defaults["eps"]
    1e-06
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float | torch.Tensor = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-6,
        weight_decay: float = 0.0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        super().__init__(
            params, lr, betas, eps, weight_decay, decoupled_weight_decay, foreach=foreach, maximize=maximize,
            capturable=capturable, differentiable=differentiable,
        )  # fmt: skip


class Rprop(torch.optim.Rprop):
    """torch's :class:`torch.optim.Rprop` with Cerebras's default ``lr=1e-3``.

    Args:
        params: The parameters or param groups to optimize.
        lr: The learning rate (Cerebras's default: ``1e-3``; torch's is ``1e-2``).
        etas: The factors that shrink and grow each step size.
        step_sizes: The smallest and largest step sizes.
        capturable: Allow the step to be captured in a CUDA graph.
        foreach: Use torch's foreach implementation (None: torch chooses).
        maximize: Maximize the objective instead of minimizing it.
        differentiable: Let autograd run through the step.

    Returns:
        The optimizer, a ``torch.optim.Rprop``.

    >>> import torch, schedulers.cerebras as cs
    >>> cs.optim.Rprop([torch.zeros(1, requires_grad=True)]).defaults["lr"]
    0.001
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float | torch.Tensor = 1e-3,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        super().__init__(
            params, lr, etas, step_sizes, capturable=capturable, foreach=foreach, maximize=maximize,
            differentiable=differentiable,
        )  # fmt: skip


if not TYPE_CHECKING:  # at run time only: to a type checker a misspelt name is an error, not Any

    def __getattr__(name: str) -> object:
        """A name this namespace does not have: an AttributeError suggesting the closest one it has."""
        hint = did_you_mean(name, __all__) if not name.startswith("__") else ""
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}{hint}")
