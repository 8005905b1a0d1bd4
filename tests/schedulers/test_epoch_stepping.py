"""A schedule stepped once per epoch: the milestones inside an epoch that per-epoch stepping moves to the next
epoch's start (schedulers.core.epoch_stepping, docs/stepping.md), found among the schedule's resolved times."""

from __future__ import annotations

import warnings

import pytest

from schedulers import (
    ConstantWithWarmupScheduler,
    CosineAnnealingWarmRestartsScheduler,
    CosineAnnealingWithWarmupScheduler,
    CyclicScheduler,
    ExponentialScheduler,
    LinearScheduler,
    MultiStepScheduler,
    MultiStepWithWarmupScheduler,
    PlateauScheduler,
    Product,
    Sequence,
    StepScheduler,
    Warmup,
    WarmupStableDecayScheduler,
    as_schedule,
)
from schedulers.core.epoch_stepping import MovedMilestone, moved_milestones, moved_milestones_message
from schedulers.core.run import Run
from timeunits import Time

RUN = Run("3ep", 10)  # 30 batches, epochs start at 0, 10, 20


def moved(schedule, run=RUN) -> list[tuple[str, str, str | None]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zero-warmup and similar warnings of the schedules themselves
        found = moved_milestones(schedule, run)
    return [(m.name, str(m.at), None if m.acts is None else str(m.acts)) for m in found]


@pytest.mark.parametrize(
    "schedule, expected",
    [
        (CosineAnnealingWithWarmupScheduler("5ba"), [("t_warmup", "5ba", "10ba")]),
        (StepScheduler("15ba", gamma=0.999), [("step_size", "15ba", "20ba")]),  # a small jump is a jump
        (
            MultiStepScheduler(["15ba", "20ba", "23ba"]),
            [("milestones[0]", "15ba", "20ba"), ("milestones[2]", "23ba", "30ba")],
        ),
        (
            MultiStepWithWarmupScheduler("5ba", ["12ba"]),
            [("t_warmup", "5ba", "10ba"), ("milestones[0]", "12ba", "20ba")],
        ),
        (Warmup(StepScheduler("15ba"), "5ba"), [("t_warmup", "5ba", "10ba"), ("schedule.step_size", "15ba", "20ba")]),
        (Product([StepScheduler("15ba"), LinearScheduler()]), [("schedules[0].step_size", "15ba", "20ba")]),
        (Sequence([LinearScheduler(), LinearScheduler(1.0, 0.5)], ["15ba"]), [("milestones[0]", "15ba", "20ba")]),
        (CosineAnnealingWarmRestartsScheduler("7ba"), [("t_0", "7ba", "10ba")]),
        (CyclicScheduler("3ba"), [("t_up", "3ba", "10ba")]),
        (WarmupStableDecayScheduler("5ba", t_decay="6ba"), [("t_warmup", "5ba", "10ba")]),  # t_decay is a length
        (ExponentialScheduler(0.5, decay_period="7ba"), []),  # smooth: no milestone
        (CosineAnnealingWithWarmupScheduler("1ep"), []),  # on a boundary
        (ConstantWithWarmupScheduler("20ba"), []),
        (PlateauScheduler(), []),  # no time: its reductions follow the evaluations
    ],
    ids=lambda v: type(v).__name__ if not isinstance(v, list) else "",
)
def test_the_milestones_inside_an_epoch_and_where_they_act(schedule, expected):
    assert moved(schedule) == expected


def test_a_fractional_warmup_is_found_where_it_resolves():
    # 0.05dur of 30 batches is 1.5, rounded by deviation 2's rule to 1 batch: its end acts at batch 10
    assert moved(CosineAnnealingWithWarmupScheduler("0.05dur")) == [("t_warmup", "1ba", "10ba")]


def test_the_end_of_the_run_and_later_times_are_no_milestones():
    assert moved(CosineAnnealingWithWarmupScheduler("5ba", t_max="45ba"), Run("45ba", 10)) == [
        ("t_warmup", "5ba", "10ba")
    ]
    assert moved(StepScheduler("35ba"), Run("30ba", 10)) == []


def test_the_ratio_moves_a_milestone_off_its_boundary():
    assert moved(StepScheduler("1ep"), Run("4ep", 10, ssr=0.5)) == [("step_size", "5ba", "10ba")]


def test_samples_count_epochs_at_a_constant_batch_size_else_the_next_epoch_is_said():
    # 10 batches of 8 samples: an epoch is 80 samples; 100sp is inside the second epoch, acting at 160sp
    known = Run("240sp", 10, samples_per_batch=8)
    assert moved(StepScheduler("100sp"), known) == [("step_size", "100sp", "160sp")]
    assert moved(StepScheduler("160sp"), known) == []
    unknown = Run("240sp", 10)  # the batch size is not known: where the epoch ends is not either
    assert moved(StepScheduler("100sp"), unknown) == [("step_size", "100sp", None)]
    message = moved_milestones_message(
        [("s", m) for m in moved_milestones(StepScheduler("100sp"), unknown)], unknown, "x"
    )
    assert "step_size=100sp acts at the start of the epoch after it, not at 100sp (x)" in message


def test_nothing_to_tell_without_epochs_or_times():
    assert moved(StepScheduler("15ba"), Run("30ba")) == []  # no dataloader_len: no epochs to step at
    assert moved(as_schedule(lambda state: 1.0)) == []  # a function of the state has no times
    assert moved(lambda state, ssr=1.0: 1.0) == []


def test_a_sequence_childs_milestone_is_found_where_it_acts_in_the_run():
    # the child counts from its segment's start: step_size=5ba of a segment starting at 10ba decays at 15ba
    child_step = Sequence([LinearScheduler(), StepScheduler("5ba", gamma=0.29)], ["10ba"])
    assert moved(child_step) == [("schedules[1].step_size", "15ba", "20ba")]
    (found,) = moved_milestones(child_step, RUN)
    assert found.given == Time(5, "ba")
    # 5ba of a segment starting at 5ba is 10ba of the run: on a boundary, nothing moves
    assert moved(Sequence([ConstantWithWarmupScheduler("0ba"), StepScheduler("5ba")], ["5ba"])) == []
    # nested, and inside a Warmup (whose schedule keeps the run's clock): the starts add up, 10 + 4 + 3
    nested = Sequence(
        [LinearScheduler(), Sequence([LinearScheduler(1.0, 1.0), StepScheduler("3ba")], ["4ba"])], ["10ba"]
    )
    assert moved(nested) == [("schedules[1].schedules[1].step_size", "17ba", "20ba")]
    assert moved(Warmup(child_step, "2ba")) == [
        ("t_warmup", "2ba", "10ba"),
        ("schedule.schedules[1].step_size", "15ba", "20ba"),
    ]
    message = moved_milestones_message([("schedulers[0]", found)], RUN, "x")
    assert "schedulers[0] schedules[1].step_size=5ba of its segment, at 15ba of the run, acts at 20ba, not at 15ba" in (
        message
    )


def test_the_message_names_each_milestone_and_where_it_acts():
    found = [("schedulers[0]", MovedMilestone("t_warmup", Time(5, "ba"), Time(10, "ba")))]
    message = moved_milestones_message(found, RUN, "leave it per batch")
    assert message == (
        "stepped per epoch, a schedule is read at each epoch's start (every 10 batches) and held for the epoch, so a "
        "milestone inside an epoch acts only where the next epoch starts: schedulers[0] t_warmup=5ba acts at 10ba, "
        "not at 5ba (leave it per batch)"
    )
