"""Argument checks shared by Cadence's optimizers: each error names the argument."""

from __future__ import annotations

from typing import Any

import torch


def check_lr(lr: Any) -> None:
    """A float lr, or a one-element tensor lr, that is >= 0."""
    if isinstance(lr, torch.Tensor):
        if lr.numel() != 1:
            raise ValueError(f"a tensor lr must have one element, got shape {tuple(lr.shape)}")
        value = lr.item()
    else:
        value = lr
    if not value >= 0.0:
        raise ValueError(f"lr={lr!r} must be >= 0")


def check_nonnegative(name: str, value: Any) -> None:
    if not value >= 0.0:
        raise ValueError(f"{name}={value!r} must be >= 0")


def check_betas(betas: Any) -> None:
    """A pair of coefficients in [0, 1)."""
    if len(betas) != 2:
        raise ValueError(f"betas={betas!r} must be a pair (beta1, beta2)")
    for index, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"betas[{index}]={beta!r} must be in [0, 1)")
