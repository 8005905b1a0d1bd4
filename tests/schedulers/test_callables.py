"""The one rule of what a callable is (schedulers.core.schedule), as compile_scheduler and the trainer apply it."""

from __future__ import annotations

import functools

import pytest
import torch
from torch.optim.lr_scheduler import ConstantLR, LinearLR, LRScheduler

from schedulers import LinearScheduler, SchedulerState, as_schedule, compile_scheduler
from schedulers.core.schedule import CallableKind, callable_kind
from trainer import Trainer


def _two(state, ssr=1.0):
    return 0.5


def _star(*args):
    return 0.5


def _factory(optimizer, gamma=0.5, last_epoch=-1):
    return LinearLR(optimizer, total_iters=2)


@pytest.mark.parametrize(
    "candidate, kind",
    [
        (LinearScheduler(), CallableKind.SCHEDULE),
        (as_schedule(lambda state: 1.0), CallableKind.SCHEDULE),
        (_two, CallableKind.SCHEDULE),
        (lambda state, ssr: 1.0, CallableKind.SCHEDULE),
        (_star, CallableKind.SCHEDULE),
        (max, CallableKind.SCHEDULE),  # no readable signature: the documented (state, ssr) protocol
        (lambda x: x, CallableKind.ONE_ARGUMENT),
        (_factory, CallableKind.ONE_ARGUMENT),
        (functools.partial(LinearLR, start_factor=0.5, total_iters=2), CallableKind.ONE_ARGUMENT),
        (LinearLR, CallableKind.ONE_ARGUMENT),
        # a partial of a class is a factory even when its leftover signature has two positional parameters
        (functools.partial(ConstantLR, total_iters=3), CallableKind.ONE_ARGUMENT),
        (functools.partial(functools.partial(ConstantLR, total_iters=3), factor=0.5), CallableKind.ONE_ARGUMENT),
        (lambda a, b, c: 1.0, CallableKind.OTHER),
        (lambda: 1.0, CallableKind.OTHER),
        (0.5, CallableKind.OTHER),
    ],
)
def test_callable_kind(candidate, kind):
    assert callable_kind(candidate) is kind


def _optimizer() -> torch.optim.Optimizer:
    return torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)


def test_compile_scheduler_applies_the_rule():
    state = SchedulerState("10ba")
    assert compile_scheduler(_two, _optimizer(), state, ssr=0.5).get_last_lr() == [0.5]
    assert compile_scheduler(lambda s: 0.25, _optimizer(), state).get_last_lr() == [0.25]  # a state function
    with pytest.raises(ValueError, match="takes only \\(state\\)"):
        compile_scheduler(lambda s: 0.25, _optimizer(), state, ssr=0.5)
    with pytest.raises(TypeError, match="scheduler\\(state, ssr\\)"):
        compile_scheduler(lambda a, b, c: 1.0, _optimizer(), state)


def test_the_trainer_applies_the_same_rule():
    model = torch.nn.Linear(1, 1)
    data = [(torch.zeros(2, 1), torch.zeros(2, 1))]

    def trainer(entry):
        optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
        return Trainer(model, data, "2ba", optimizer, schedulers=entry, progress_bar=False)

    assert trainer(_two).scheduled.schedules[0][1] is _two  # compiled as a Cadence schedule
    built = trainer(_factory).schedulers[0]
    assert isinstance(built, LinearLR) and isinstance(built, LRScheduler)  # a factory optimizer -> LRScheduler
    made = trainer(functools.partial(ConstantLR, total_iters=3)).schedulers[0]
    assert isinstance(made, ConstantLR) and made.total_iters == 3  # a partial of a class is a factory too
    with pytest.raises(TypeError, match="as_schedule"):  # a state function must be wrapped for the trainer
        trainer(lambda state: 0.5)
    with pytest.raises(TypeError, match="schedulers\\[0\\].*is not a schedule"):
        trainer(lambda a, b, c: 1.0)
