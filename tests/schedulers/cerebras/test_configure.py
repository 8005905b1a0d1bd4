"""configure_lr_scheduler: every input form of the Model Zoo ``learning_rate`` config, and each error."""

from __future__ import annotations

import copy

import pytest
import torch

import schedulers.cerebras as cs
from schedulers import SchedulerState
from schedulers.cerebras import configure_lr_scheduler


def _optimizer(*factors):
    groups = [{"params": [torch.zeros(1, requires_grad=True)]} for _ in range(max(1, len(factors)))]
    for group, factor in zip(groups, factors, strict=False):
        if factor is not None:
            group["adjust_learning_rate"] = factor
    return torch.optim.SGD(groups, lr=1.0)


LINEAR = {"scheduler": "Linear", "initial_learning_rate": 0.0, "end_learning_rate": 0.01, "total_iters": 10}
COSINE = {"scheduler": "CosineDecay", "initial_learning_rate": 0.01, "end_learning_rate": 0.0, "total_iters": 90}
CONSTANT = {"scheduler": "Constant", "learning_rate": 0.001}


@pytest.mark.parametrize("rate", [0.01, 3, "1e-2", 0.0])
def test_a_scalar_is_a_constant_lr(rate):
    optimizer = _optimizer()
    scheduler = configure_lr_scheduler(optimizer, rate)
    assert type(scheduler) is cs.ConstantLR and scheduler.learning_rate == float(rate)
    assert optimizer.param_groups[0]["lr"] == float(rate)


@pytest.mark.parametrize("empty", [None, {}, []])
def test_nothing_is_none(empty):
    assert configure_lr_scheduler(_optimizer(), empty) is None


@pytest.mark.parametrize("name", ["CosineDecay", "CosineDecayLR", "cosinedecaylr", "COSINEDECAY", " CosineDecayLR "])
def test_a_dict_names_its_scheduler_case_insensitively_with_or_without_lr(name):
    scheduler = configure_lr_scheduler(_optimizer(), {**COSINE, "scheduler": name})
    assert type(scheduler) is cs.CosineDecayLR and scheduler.total_iters == 90


def test_other_names():
    optimizer = _optimizer()
    assert (
        type(
            configure_lr_scheduler(
                optimizer, {"scheduler": "CosineAnnealingWarmRestarts", "initial_learning_rate": 0.1, "T_0": 5}
            )
        )
        is cs.CosineAnnealingWarmRestarts
    )
    assert (
        type(configure_lr_scheduler(optimizer, {"scheduler": "cyclic", "base_lr": 0.01, "max_lr": 0.1})) is cs.CyclicLR
    )
    scheduler = configure_lr_scheduler(
        optimizer, {"scheduler": "PiecewiseConstant", "learning_rates": [0.1, 0.01], "milestones": [5]}
    )
    assert type(scheduler) is cs.PiecewiseConstantLR


def test_a_list_is_a_sequence_with_milestones_the_running_sum_of_total_iters():
    optimizer = _optimizer()
    scheduler = configure_lr_scheduler(optimizer, [LINEAR, COSINE, CONSTANT])
    assert type(scheduler) is cs.SequentialLR and scheduler.milestones == [10, 100]
    assert scheduler.values_at([0, 5, 10, 55, 100, 500]).tolist() == pytest.approx(
        [0.0, 0.005, 0.01, 0.005, 0.001, 0.001]
    )
    assert type(configure_lr_scheduler(optimizer, [LINEAR])) is cs.LinearLR


def test_a_sequence_without_milestones_sums_total_iters_as_the_config_does():
    optimizer = _optimizer()
    configured = configure_lr_scheduler(optimizer, [LINEAR, COSINE, CONSTANT])
    children = [
        cs.LinearLR(optimizer, 0.0, 0.01, total_iters=10),
        cs.CosineDecayLR(optimizer, 0.01, 0.0, total_iters=90),
        cs.ConstantLR(optimizer, 0.001),
    ]
    assert cs.SequentialLR(optimizer, children).milestones == configured.milestones == [10, 100]
    with pytest.raises(ValueError, match=r"SequentialLR was given no milestones and schedulers\[1\] \(ConstantLR\)"):
        cs.SequentialLR(optimizer, [children[0], cs.ConstantLR(optimizer, 0.001), children[1]])


def test_main_scheduler_chained_is_a_chained_scheduler():
    optimizer = _optimizer()
    config = [
        {**LINEAR, "main_scheduler": "chained"},
        {"scheduler": "Step", "initial_learning_rate": 1.0, "step_size": 5, "gamma": 0.5},
    ]
    scheduler = configure_lr_scheduler(optimizer, config)
    assert isinstance(scheduler, cs.ChainedScheduler)
    assert scheduler.values_at([5, 10]).tolist() == pytest.approx([0.005 * 0.5, 0.01 * 0.25])
    for value in ("ChainedLR", "CHAINED"):
        assert isinstance(
            configure_lr_scheduler(optimizer, [{**LINEAR, "main_scheduler": value}, COSINE]), cs.ChainedLR
        )
    assert (
        type(configure_lr_scheduler(optimizer, [{**LINEAR, "main_scheduler": "sequential"}, COSINE])) is cs.SequentialLR
    )


def test_the_input_is_never_modified():
    config = [dict(LINEAR, main_scheduler="sequential"), dict(COSINE)]
    before = copy.deepcopy(config)
    configure_lr_scheduler(_optimizer(), config)
    assert config == before
    single = dict(COSINE)
    configure_lr_scheduler(_optimizer(), single)
    assert single == COSINE


class MyWarmup(cs.LRScheduler):
    """A user subclass found by its class name."""

    def __init__(self, optimizer, peak, warmup_steps, total_iters=None):
        self.peak = peak
        self.warmup_steps = warmup_steps
        super().__init__(optimizer, total_iters=total_iters)

    def _get_closed_form_lr(self):
        return self.peak * torch.clamp(self.last_epoch / self.warmup_steps, max=1.0)


def test_user_subclasses_are_found_by_class_name():
    optimizer = _optimizer()
    scheduler = configure_lr_scheduler(
        optimizer, {"scheduler": "mywarmup", "peak": 0.1, "warmup_steps": 10, "total_iters": 10}
    )
    assert type(scheduler) is MyWarmup
    sequence = configure_lr_scheduler(
        optimizer, [{"scheduler": "MyWarmup", "peak": 0.1, "warmup_steps": 10, "total_iters": 10}, COSINE]
    )
    assert sequence.milestones == [10]


def test_adjust_learning_rate_scales_each_group_by_its_factor():
    optimizer = _optimizer(0.5, None)
    scheduler = configure_lr_scheduler(optimizer, [LINEAR, COSINE], adjust_learning_rate={"decoder": 0.5})
    assert type(scheduler) is cs.ScalePerParamLR
    for _ in range(10):
        scheduler.step()
    assert [g["lr"] for g in optimizer.param_groups] == [pytest.approx(0.005), pytest.approx(0.01)]
    assert type(configure_lr_scheduler(optimizer, 0.1, adjust_learning_rate={"a": 2.0})) is cs.ScalePerParamLR
    with pytest.warns(UserWarning, match="adjust_learning_rate"):
        configure_lr_scheduler(_optimizer(), COSINE, adjust_learning_rate={"a": 2.0})


def test_time_strings_with_a_state():
    run = SchedulerState("10ep", dataloader_len=10)
    config = [dict(LINEAR, total_iters="1ep"), dict(COSINE, total_iters="0.9dur")]
    scheduler = configure_lr_scheduler(_optimizer(), config, state=run)
    assert scheduler.milestones == [10] and scheduler._schedulers[1].total_iters == 90
    later = configure_lr_scheduler(_optimizer(), config)  # resolved when the run is known
    with pytest.raises(ValueError, match="state="):
        later.step()
    later.attach_state(run)
    assert later.milestones == [10] and later.values_at([10]).tolist() == scheduler.values_at([10]).tolist()


@pytest.mark.parametrize(
    "config, error, match",
    [
        ({"scheduler": "CosineDecy"}, KeyError, r"did you mean CosineDecayLR"),
        ({"scheduler": "CosineAnnealingWithWarmupScheduler"}, ValueError, "unknown scheduler"),  # Composer's
        ({"scheduler": "ReduceLROnPlateau"}, ValueError, "unknown scheduler"),  # torch's
        ({"scheduler": 3}, ValueError, "scheduler name"),
        ({"initial_learning_rate": 0.1}, ValueError, "no 'scheduler' key"),
        (
            {**COSINE, "warmup": 3},
            ValueError,
            r"^learning_rate: CosineDecayLR got an unexpected keyword argument 'warmup'; accepted: "
            r"CosineDecayLR\(optimizer, initial_learning_rate, end_learning_rate, total_iters, "
            r"param_group_tags=None\)$",
        ),
        (
            {"scheduler": "CosineDecay", "initial_learning_rate": 0.1},
            ValueError,
            r"missing required arguments 'end_learning_rate', 'total_iters'; accepted: CosineDecayLR\(optimizer, ",
        ),
        (
            {"scheduler": "CosineDecay", "initial_learning_rate": 0.1, "end_learning_rate": 0.0, "decay_steps": 9},
            ValueError,
            r"CosineDecayLR got 'decay_steps', which is now called 'total_iters'; accepted: CosineDecayLR\(",
        ),
        (
            {"scheduler": "CosineAnnealing", "initial_learning_rate": 0.1, "t_max": 9},
            ValueError,
            r"unexpected keyword argument 't_max' \(did you mean 'T_max'\?\)",
        ),
        (
            {"scheduler": "Linear", "learning_rate": 0.1, "end_learning_rate": 0.0, "total_iters": 9},
            ValueError,
            "got 'learning_rate', which is now called 'initial_learning_rate'",
        ),
        ({**COSINE, "total_iters": 0}, ValueError, r"learning_rate: CosineDecayLR: total_iters=0"),
        ([LINEAR, "cosine"], ValueError, r"learning_rate\[1\]"),
        ([CONSTANT, LINEAR], ValueError, r"learning_rate\[0\] \(ConstantLR\) needs total_iters"),
        (
            [dict(LINEAR, main_scheduler="chained"), dict(COSINE, main_scheduler="sequential")],
            ValueError,
            "conflicting",
        ),
        ([dict(LINEAR, main_scheduler="parallel"), COSINE], ValueError, "main_scheduler='parallel'"),
        (object(), ValueError, "must be a number"),
        ("fast", ValueError, r"^learning_rate='fast' must be a number$"),
        ("inf", ValueError, r"^learning_rate='inf' must be a finite number$"),
        (True, ValueError, r"^learning_rate=True must be a number, a dict with a 'scheduler' key"),
    ],
)
def test_errors(config, error, match):
    with pytest.raises(error, match=match):
        configure_lr_scheduler(_optimizer(), config)


def test_chained_with_adjust_learning_rate_is_an_error():
    with pytest.raises(ValueError, match="adjust_learning_rate"):
        configure_lr_scheduler(
            _optimizer(1.0), [dict(LINEAR, main_scheduler="chained"), COSINE], adjust_learning_rate={"a": 1.0}
        )


def test_also_reachable_as_cstorch_optim():
    assert cs.optim.configure_lr_scheduler is configure_lr_scheduler


def test_names_and_aliases_come_from_the_registry():
    optimizer = _optimizer()
    config = {"scheduler": "CosineAnnealingWarmRestartsLR", "initial_learning_rate": 0.1, "T_0": 5}
    assert type(configure_lr_scheduler(optimizer, config)) is cs.CosineAnnealingWarmRestarts
    # weight-decay classes are in the registry too, but not learning-rate schedulers
    with pytest.raises(ValueError, match=r"unknown scheduler 'CosineDecayWD' \(did you mean CosineDecayLR\?\)"):
        configure_lr_scheduler(optimizer, {"scheduler": "CosineDecayWD", "initial_val": 0.1})
