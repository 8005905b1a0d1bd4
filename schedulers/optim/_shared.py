"""What Cadence's optimizers share: the argument checks (each error names the argument) and the step loop."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch.optim import Optimizer

from schedulers.core.schedule_arguments import number_argument, number_problem


def check_lr(lr: Any) -> None:
    """Check an optimizer's lr: a float, or a one-element tensor, that is >= 0.

    Args:
        lr: The learning rate given.

    Returns:
        None: the lr can be used.

    Raises:
        ValueError: An lr that is not a finite number >= 0 (in the words of
            :func:`~schedulers.core.schedule_arguments.number_argument`), or a tensor of more than one element.

    >>> check_lr(torch.tensor(0.1)); check_lr(-1.0)
    Traceback (most recent call last):
    ...
    ValueError: lr=-1.0 must be >= 0
    """
    if isinstance(lr, torch.Tensor):
        if lr.numel() != 1:
            raise ValueError(f"a tensor lr must have one element, got shape {tuple(lr.shape)}")
        value = lr.item()
    else:
        value = lr
    problem = number_problem(value, low=0)  # the one number check, the lr shown as given
    if problem is not None:
        raise ValueError(f"lr={lr!r} {problem}")


def check_nonnegative(name: str, value: Any) -> None:
    """Check that the argument ``name`` is a finite number >= 0 (the one number check,
    :func:`~schedulers.core.schedule_arguments.number_argument`).

    Args:
        name: The argument's name, for the message.
        value: Its value.

    Returns:
        None: the value can be used.

    Raises:
        ValueError: A value that is not a finite number >= 0, naming the argument.

    >>> check_nonnegative("eps", -1e-8)
    Traceback (most recent call last):
    ...
    ValueError: eps=-1e-08 must be >= 0
    """
    number_argument(name, value, low=0)


def check_betas(betas: Any) -> None:
    """Check ``betas``: a pair of coefficients in [0, 1).

    Args:
        betas: The pair given.

    Returns:
        None: the pair can be used.

    Raises:
        ValueError: Not a pair, or a coefficient outside [0, 1), naming it.

    >>> check_betas((0.9, 1.0))
    Traceback (most recent call last):
    ...
    ValueError: betas[1]=1.0 must be in [0, 1)
    """
    if len(betas) != 2:
        raise ValueError(f"betas={betas!r} must be a pair (beta1, beta2)")
    for index, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"betas[{index}]={beta!r} must be in [0, 1)")


class ParameterwiseOptimizer(Optimizer):
    """An optimizer whose step updates each parameter from its own gradient (Lamb, Lion).

    :meth:`step` runs the closure, then calls :meth:`_update` once for every parameter of every param group that
    has a gradient; a subclass says what one update is.

    Args:
        params: parameters or param-group dicts (torch's ``Optimizer`` argument).
        defaults: the default hyperparameters of a param group (torch's ``Optimizer`` argument).

    Returns:
        The base class of :class:`~schedulers.optim.Lamb` and :class:`~schedulers.optim.Lion`.

    >>> from schedulers.optim import Lamb, Lion
    >>> issubclass(Lamb, ParameterwiseOptimizer) and issubclass(Lion, ParameterwiseOptimizer)
    True
    """

    @torch.no_grad()
    def step(self, closure: Callable[[], float] | None = None) -> float | None:
        """Perform one optimization step.

        Args:
            closure: A function that re-evaluates the model and returns the loss, or None.

        Returns:
            The loss ``closure`` returned, or None without one.

        Raises:
            RuntimeError: A sparse gradient (not supported).
        """
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.grad.is_sparse:
                    raise RuntimeError(f"{type(self).__name__} does not support sparse gradients")
                self._update(p, p.grad, self.state[p], group)
        return loss

    def _update(self, p: torch.Tensor, grad: torch.Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        """Update ``p`` in place from ``grad``, with its ``state`` (empty at the first step) and its ``group``."""
        raise NotImplementedError(f"{type(self).__name__} must say how it updates a parameter (_update)")
