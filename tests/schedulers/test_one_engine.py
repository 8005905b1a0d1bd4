"""One writer drives every front end: Cerebras's and SambaFlow's schedulers are Cadence's scheduler counting its
steps, Cadence's own schedules its scheduler reading the run's clock, both writing through the one GroupWriter;
each Cerebras class is declared in source with a typed signature over a frozen form, and several schedules on one
hyperparameter multiply with the one ``Product``."""

from __future__ import annotations

import inspect
import io

import pytest
import torch

import schedulers.cerebras as cs
from schedulers import LinearScheduler, Product, SchedulerState, StepScheduler, as_schedule, compile_scheduler
from schedulers.cerebras import lr_scheduler, weight_decay_scheduler
from schedulers.cerebras.table import TABLE
from schedulers.core.torch_scheduler import CompiledScheduler, GroupWriter, StepCountingScheduler
from schedulers.sambaflow import cosine_schedule_with_warmup, get_lr_scheduler


def _optimizer(lr: float = 1.0) -> torch.optim.SGD:
    return torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=lr, weight_decay=0.1)


FRONT_ENDS = {
    "Cerebras CosineDecayLR": lambda o: cs.CosineDecayLR(o, 0.1, 0.001, total_iters=100),
    "Cerebras user closed form": lambda o: cs.SequentialLR(o, [cs.LinearLR(o, 0.0, 0.1, 5), cs.StepLR(o, 0.1, 7, 0.5)]),
    "Cerebras weight decay": lambda o: cs.CosineDecayWD(o, 0.1, 0.0, 100),
    "SambaFlow cosine": lambda o: cosine_schedule_with_warmup(o, num_warmup_steps=10, num_training_steps=100),
    "SambaFlow flags": lambda o: get_lr_scheduler(
        o, {"lr_schedule": "polynomial_decay_schedule_with_warmup", "warmup_steps": 3, "max_steps": 20}
    ),
}


@pytest.mark.parametrize("name", FRONT_ENDS)
def test_every_front_end_is_the_scheduler_counting_its_steps(name):
    scheduler = FRONT_ENDS[name](_optimizer())
    assert isinstance(scheduler, StepCountingScheduler) and not isinstance(scheduler, CompiledScheduler)
    compiled = compile_scheduler(LinearScheduler(), _optimizer(), SchedulerState("10ba"))
    assert isinstance(compiled, GroupWriter) and isinstance(scheduler, GroupWriter)
    # the engine's step and write, not a second implementation of torch's contract
    assert type(scheduler).step is StepCountingScheduler.step and type(scheduler).attach_state is (
        StepCountingScheduler.attach_state
    )
    assert type(scheduler)._apply is type(compiled)._apply is GroupWriter._apply
    assert not hasattr(CompiledScheduler, "counts_steps")


def test_sambaflow_takes_the_run_and_its_ratio_like_every_compiled_scheduler():
    """attach_state, the trainer's one call, scales SambaFlow's step counts (old: a LambdaLR had no attach_state)."""
    optimizer = _optimizer(0.5)
    scheduler = cosine_schedule_with_warmup(optimizer, num_warmup_steps=100, num_training_steps=1000)
    scheduler.attach_state(SchedulerState("1000ba"), 0.29)
    (multiplier,) = scheduler.lr_lambdas
    assert (multiplier.num_warmup_steps, multiplier.num_training_steps) == (29, 290)  # 100 · 0.29: deviation 2
    for _ in range(29):
        scheduler.step()
    assert optimizer.param_groups[0]["lr"] == 0.5  # the peak, exactly, at the scaled warmup's end
    scheduler.attach_state(SchedulerState("1000ba"), 1.0)  # from the arguments as given: never scaled twice
    assert scheduler.lr_lambdas[0].num_warmup_steps == 100


def test_sambaflow_is_a_torch_lambda_lr_whose_state_loads_weights_only():
    optimizer = _optimizer(0.1)
    scheduler = cosine_schedule_with_warmup(optimizer, 5, 30)
    assert isinstance(scheduler, torch.optim.lr_scheduler.LambdaLR) and type(scheduler).__name__ == "LambdaLR"
    for _ in range(12):
        scheduler.step()
    buffer = io.BytesIO()
    torch.save(scheduler.state_dict(), buffer)
    buffer.seek(0)
    resumed = cosine_schedule_with_warmup(_optimizer(0.1), 5, 30)
    resumed.load_state_dict(torch.load(buffer, weights_only=True))
    assert resumed.last_epoch == 12 and resumed.get_last_lr() == scheduler.get_last_lr()


@pytest.mark.parametrize("row", TABLE, ids=[row.stem for row in TABLE])
def test_each_cerebras_class_is_declared_in_source_with_a_typed_signature(row):
    for module, name in ((lr_scheduler, row.class_name(True)), (weight_decay_scheduler, row.class_name(False))):
        cls = getattr(module, name)
        source = inspect.getsource(cls)  # a class made by type() has no source
        assert source.startswith(f"class {name}("), source[:80]
        typed = inspect.signature(cls.__init__)
        assert typed.return_annotation is not inspect.Signature.empty
        untyped = [p.name for p in typed.parameters.values() if p.name != "self" and p.annotation is p.empty]
        assert not untyped, (name, untyped)
        assert list(inspect.signature(cls).parameters) == [p for p in typed.parameters if p != "self"]


def test_the_trainer_multiplies_schedules_with_the_one_product():
    from trainer.scheduled_run import build_schedulers

    optimizer = _optimizer(0.5)
    state = SchedulerState("10ba")
    half = lambda state, ssr=1.0: 0.5  # noqa: E731  (a (state, ssr) callable, as the trainer accepts)
    run = build_schedulers([LinearScheduler(), StepScheduler("3ba", gamma=0.5), half], optimizer, state, 1.0, None)
    (compiled,) = run.per_batch
    assert isinstance(compiled.scheduler, Product)
    assert optimizer.param_groups[0]["lr"] == 0.5 * 0.5


def test_a_product_takes_functions_of_the_state_and_factors_in_other_units():
    state = SchedulerState("100ba")
    state.timestamp = state.timestamp.copy(batch=50, sample=1600, token=3200)
    mixed = Product([LinearScheduler(), StepScheduler("1000tok", gamma=0.5), as_schedule(lambda s: 0.5)])
    assert mixed(state) == pytest.approx(0.5 * 0.5**3 * 0.5, rel=1e-15)
    with pytest.raises(TypeError, match="no closed form"):
        mixed.resolve("100ba")
    with pytest.raises(ValueError, match=r"schedules\[1\]"):
        Product([LinearScheduler(), "cosine"])


def test_front_ends_describe_themselves_to_the_stepped_report():
    """The report names a scheduler's family from what the front end declares (``report_family``), and jumps
    only a scheduler that says ``jumps_to_steps``: no switch on front-end types in the tool."""
    from schedulers.tools.stepped import stepped_report_rows

    class Stepping(cs.LinearLR):
        def step(self, epoch=None):
            super().step(epoch)

    cases = {
        "Cerebras": (lambda o: cs.CosineDecayWD(o, 0.1, 0.0, 10), True),
        "SambaFlow": (lambda o: cosine_schedule_with_warmup(o, num_warmup_steps=2, num_training_steps=10), False),
        "torch": (lambda o: torch.optim.lr_scheduler.LambdaLR(o, lambda e: 1.0), False),
    }
    for family, (build, jumps) in cases.items():
        scheduler = build(_optimizer())
        head = stepped_report_rows("x", scheduler, steps=10)[0]
        assert head["family"] == family
        assert getattr(scheduler, "jumps_to_steps", False) is jumps
    assert Stepping(_optimizer(), 1.0, 0.0, 10).jumps_to_steps is False
    assert stepped_report_rows("x", Stepping(_optimizer(), 1.0, 0.0, 10), steps=10)[0]["family"] == "Cerebras"
