"""User subclasses of the Cerebras LRScheduler: the seed's recipe, both hook names, attributes set after
``super().__init__``, composition with built-in classes, and clear errors."""

from __future__ import annotations

import pytest
import torch

import schedulers.cerebras as cstorch  # the seed's `import cerebras.pytorch as cstorch`, import line changed


class CustomScheduler(cstorch.optim.lr_scheduler.LRScheduler):
    """The seed's example with its placeholders filled: warmup then linear decay, torch ops only."""

    def __init__(self, optimizer, peak_lr, warmup_steps, total_iters, last_epoch=-1):
        self.peak_lr = peak_lr
        super().__init__(optimizer, total_iters=total_iters, last_epoch=last_epoch)
        self.warmup_steps = warmup_steps  # set after super().__init__, as the seed's trailing "..." allows

    def _get_closed_form_lr(self) -> torch.Tensor:
        step = self.last_epoch.double()
        warmup = self.peak_lr * step / self.warmup_steps
        decay = self.peak_lr * torch.clamp((self.total_iters - step) / (self.total_iters - self.warmup_steps), min=0.0)
        return torch.where(step < self.warmup_steps, warmup, decay)


def _optimizer():
    return torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.5)


def test_seed_custom_scheduler_runs_unchanged():
    optimizer = _optimizer()
    scheduler = CustomScheduler(optimizer, peak_lr=0.1, warmup_steps=10, total_iters=100)
    lrs = []
    for _ in range(120):
        lrs.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    assert lrs[0] == 0.0 and lrs[5] == pytest.approx(0.05) and lrs[10] == pytest.approx(0.1)
    assert lrs[55] == pytest.approx(0.05) and lrs[100] == 0.0 and lrs[119] == 0.0
    assert scheduler.values_at([0, 5, 10, 55, 100]).tolist() == pytest.approx([0.0, 0.05, 0.1, 0.05, 0.0])


def test_cerebras_2x_hook_name():
    class Decay(cstorch.LRScheduler):
        def __init__(self, optimizer):
            super().__init__(optimizer, total_iters=None)

        def _get_closed_form(self):
            return 1.0 / (1.0 + self.last_epoch)

    optimizer = _optimizer()
    scheduler = Decay(optimizer)
    scheduler.step()
    scheduler.step()
    assert optimizer.param_groups[0]["lr"] == pytest.approx(1 / 3)
    assert float(scheduler._get_closed_form()) == pytest.approx(1 / 3)


def test_a_subclass_may_call_the_base_closed_form():
    class Doubled(cstorch.StepLR):
        def _get_closed_form_lr(self):
            return 2 * super()._get_closed_form_lr()

    optimizer = _optimizer()
    scheduler = Doubled(optimizer, 0.1, 2, 0.5)
    for _ in range(2):
        scheduler.step()
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.1)


@pytest.mark.parametrize("composite", ["SequentialLR", "ChainedScheduler"])
def test_a_composite_subclass_may_override_the_closed_form_and_call_the_composed_one(composite):
    class Floored(getattr(cstorch, composite)):  # the composed value, held at 0.06 from below
        def _get_closed_form_lr(self):
            return torch.clamp(super()._get_closed_form_lr(), min=0.06)

    def build(cls):
        optimizer = _optimizer()
        parts = [cstorch.LinearLR(optimizer, 0.1, 0.02, total_iters=4), cstorch.StepLR(optimizer, 0.5, 2, 0.5)]
        return optimizer, cls(optimizer, parts, milestones=[4]) if composite == "SequentialLR" else cls(parts)

    composed = build(getattr(cstorch, composite))[1].values_at(range(6)).tolist()
    optimizer, scheduler = build(Floored)
    floored = [max(value, 0.06) for value in composed]
    assert composed != floored and composed[:2] == floored[:2]  # the floor holds some steps, not all
    assert scheduler.values_at(range(6)).tolist() == pytest.approx(floored)
    seen = [optimizer.param_groups[0]["lr"]]
    for _ in range(5):
        scheduler.step()
        seen.append(optimizer.param_groups[0]["lr"])
    assert seen == pytest.approx(floored)


def test_user_subclass_inside_sequential_and_chained_sees_its_own_steps():
    optimizer = _optimizer()
    custom = CustomScheduler(optimizer, peak_lr=0.1, warmup_steps=10, total_iters=100)
    sequence = cstorch.SequentialLR(optimizer, [cstorch.ConstantLR(optimizer, 0.01), custom], milestones=[20])
    values = sequence.values_at([0, 19, 20, 25, 30, 75])
    assert values.tolist() == pytest.approx([0.01, 0.01, 0.0, 0.05, 0.1, 0.05])
    for _ in range(25):
        sequence.step()
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.05)

    chained = cstorch.ChainedScheduler(
        [CustomScheduler(optimizer, 0.1, 10, 100), cstorch.StepLR(optimizer, 2.0, 50, 0.5)]
    )
    assert chained.values_at([5, 55]).tolist() == pytest.approx([0.05, 0.05 * 0.5])


def test_user_step_arguments_take_time_strings():
    class Warm(cstorch.LRScheduler):
        _step_arguments = ("warmup",)

        def __init__(self, optimizer, warmup, **kwargs):
            self.warmup = warmup
            super().__init__(optimizer, total_iters=None, **kwargs)

        def _get_closed_form_lr(self):
            return torch.clamp(self.last_epoch / self.warmup, max=1.0)

    from schedulers import SchedulerState

    scheduler = Warm(_optimizer(), "0.1dur", state=SchedulerState("200ba"))
    assert scheduler.warmup == 20 and scheduler.values_at([10, 40]).tolist() == [0.5, 1.0]


def test_missing_closed_form_is_a_clear_error():
    class Nothing(cstorch.LRScheduler):
        def __init__(self, optimizer):
            super().__init__(optimizer, total_iters=None)

    with pytest.raises(NotImplementedError, match="_get_closed_form_lr"):
        Nothing(_optimizer())


def test_a_list_returned_torch_style_is_a_clear_error():
    class TorchStyle(cstorch.LRScheduler):
        def __init__(self, optimizer):
            super().__init__(optimizer, total_iters=None)

        def _get_closed_form_lr(self):
            return [0.1 for _ in self.optimizer.param_groups]

    with pytest.raises(TypeError, match="one value"):
        TorchStyle(_optimizer())


def test_a_key_free_base_cannot_be_instantiated():
    with pytest.raises(TypeError, match="LRScheduler"):
        cstorch.HyperparameterScheduler(_optimizer(), None)
