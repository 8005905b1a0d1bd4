"""Argument checks shared by Cadence's optimizers: each error names the argument."""

from __future__ import annotations

from typing import Any

import torch


def check_lr(lr: Any) -> None:
    """Check an optimizer's lr: a float, or a one-element tensor, that is >= 0.

    Args:
        lr: The learning rate given.

    Returns:
        None: the lr can be used.

    Raises:
        ValueError: A negative lr, or a tensor of more than one element, naming it.

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
    if not value >= 0.0:
        raise ValueError(f"lr={lr!r} must be >= 0")


def check_nonnegative(name: str, value: Any) -> None:
    """Check that the argument ``name`` is >= 0.

    Args:
        name: The argument's name, for the message.
        value: Its value.

    Returns:
        None: the value can be used.

    Raises:
        ValueError: A negative value (or NaN), naming the argument.

    >>> check_nonnegative("eps", -1e-8)
    Traceback (most recent call last):
    ...
    ValueError: eps=-1e-08 must be >= 0
    """
    if not value >= 0.0:
        raise ValueError(f"{name}={value!r} must be >= 0")


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
