"""Shared helpers for the Cerebras front-end tests: an optimizer factory and a stepping helper."""

from __future__ import annotations

import pytest
import torch


def make_optimizer(lr: float = 1.0, groups: int = 1, **group_extras) -> torch.optim.SGD:
    params = [{"params": [torch.zeros(1, requires_grad=True)], **group_extras} for _ in range(groups)]
    return torch.optim.SGD(params, lr=lr, weight_decay=0.0)


def run(scheduler, steps: int, key: str = "lr", group: int = 0) -> list[float]:
    """The value of ``key`` in ``group`` before each of ``steps`` optimizer steps (step 0 first)."""
    values = []
    for _ in range(steps):
        values.append(float(scheduler.optimizer.param_groups[group][key]))
        scheduler.step()
    return values


@pytest.fixture
def optimizer():
    return make_optimizer()


@pytest.fixture
def helpers():
    class Helpers:
        make_optimizer = staticmethod(make_optimizer)
        run = staticmethod(run)

    return Helpers
