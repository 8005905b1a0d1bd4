"""A run is one value (docs/schedules.md, "Scale schedule ratio"): ``Run`` is frozen, hashable and equal by value;
every entry point that takes ``(max_duration, ssr)`` means what ``Trainer(max_duration, scale_schedule_ratio)``
means; a schedule resolves once per run."""

from __future__ import annotations

import math

import attrs
import pytest
import torch

from schedulers import (
    CosineAnnealingScheduler,
    CosineAnnealingWithWarmupScheduler,
    LinearScheduler,
    Run,
    SchedulerState,
    Sequence,
    StepScheduler,
    as_schedule,
    compile_scheduler,
    evaluate_run,
    run_timeline,
)
from schedulers.core.run import as_run
from schedulers.tools.plotting import schedule_table
from schedulers.tools.report import resolved_times_report, schedule_report_rows
from timeunits import Time, Timestamp

# Runs whose ratio 0.29 exposes rounding (100 × 0.29 is 28.999... in floats), in every unit a run is counted in.
RUNS = [
    dict(max_duration="100ba"),
    dict(max_duration="7ep", dataloader_len=13),
    dict(max_duration="1000sp", samples_per_batch=32),
    dict(max_duration="5000tok", tokens_per_batch=37),
]


# -- the value -------------------------------------------------------------------------------------------------


def test_a_run_is_frozen_hashable_and_equal_by_value():
    run = Run("10ep", 50, samples_per_batch=torch.tensor([32] * 500), ssr=0.29)
    same = Run(Time(10, "ep"), Time(50, "ba"), samples_per_batch=torch.tensor([32] * 500), scale_schedule_ratio=0.29)
    assert run == same and hash(run) == hash(same) and {run: "a"}[same] == "a"
    assert run != Run("10ep", 50, samples_per_batch=torch.tensor([32] * 499 + [33]), ssr=0.29)
    assert run != Run("10ep", 50, ssr=0.29) != Run("10ep", 50, ssr=0.3)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        run.ssr = 1.0
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        run.length = Time(1, "ba")


def test_length_is_max_duration_scaled_once_by_the_one_rounding_rule():
    assert Run("100ba", ssr=0.29).length == Time(29, "ba")  # 28.999999999999996 is 29 (deviation 2)
    assert Run("3ep", 100, ssr=0.75).length == Time(225, "ba")  # epochs become exact batches (deviation 4)
    assert Run("3ep", 100).length == Time(3, "ep")  # at ratio 1 the length is as written
    assert Run("50ba", ssr=0.5, scaled=True).length == Time(50, "ba")  # already the trained length
    assert attrs.evolve(Run("100ba", ssr=0.29), ssr=0.5).length == Time(50, "ba")  # a changed run is scaled anew


def test_bad_parts_are_errors_naming_them_as_given():
    with pytest.raises(ValueError, match=r"^ssr=0 must be a finite number > 0$"):
        Run("10ba", ssr=0)
    with pytest.raises(ValueError, match=r"^scale_schedule_ratio=nan must be a finite number > 0$"):
        Run("10ba", scale_schedule_ratio=math.nan)
    with pytest.raises(TypeError, match="give one"):
        Run("10ba", ssr=0.5, scale_schedule_ratio=0.5)
    with pytest.raises(ValueError, match="max_duration"):
        Run("1dur")
    with pytest.raises(ValueError, match="dataloader_len"):
        Run("10ep", 0)
    with pytest.raises(TypeError, match="a Run already holds dataloader_len, ssr"):
        as_run(Run("10ba"), 5, ssr=0.5)


def test_of_state_is_the_run_a_schedule_reads_in_the_call_protocol():
    state = SchedulerState("50ba", Timestamp(batch=20))
    schedule = CosineAnnealingWithWarmupScheduler("10ba")
    curve = schedule.resolve(Run.of_state(state, 0.5))
    assert schedule(state, 0.5) == curve(20.0)
    assert curve.times["t_max"] == Time(50, "ba") and curve.times["t_warmup"] == Time(10, "ba")


# -- one meaning -------------------------------------------------------------------------------------------


def test_resolve_and_run_timeline_agree_on_what_the_ratio_does():
    """The issue's example: ``resolve("100ba", ssr=0.5)`` kept t_max = 100ba while the run had 50 batches."""
    curve = CosineAnnealingScheduler().resolve("100ba", ssr=0.5)
    timeline = run_timeline("100ba", ssr=0.5)
    assert curve.times["t_max"] == Time(50, "ba") == timeline.max_duration
    assert timeline.num_batches == 50


@pytest.mark.parametrize("run", RUNS, ids=lambda run: run["max_duration"])
def test_every_entry_point_means_one_run(run):
    """resolve, run_timeline, evaluate_run, the report and the table see one run at ssr 0.29, in every unit."""
    schedule = CosineAnnealingWithWarmupScheduler("0.1dur", alpha_f=0.1)
    parts = {key: value for key, value in run.items() if key != "max_duration"}
    dataloader_len = run.get("dataloader_len")
    curve = schedule.resolve(run["max_duration"], dataloader_len, 0.29)
    timeline = run_timeline(**run, ssr=0.29)
    length = Run(**run, ssr=0.29).length
    assert curve.times["t_max"].value == (
        length.value * (dataloader_len or 1) if length.unit.value == "ep" else length.value
    )
    assert timeline.max_duration == length
    alphas = evaluate_run(schedule, **run, ssr=0.29)
    expected = torch.tensor([curve(x) for x in timeline.counts(curve.unit).tolist()], dtype=torch.float64)
    torch.testing.assert_close(alphas, expected, rtol=0, atol=1e-12)
    rows = schedule_report_rows(schedule, **run, ssr=0.29)
    assert rows[0]["length"] == str(length)
    assert [row["count"] for row in rows if row["kind"] == "time"] == [t.value for t in curve.times.values()]
    table = schedule_table(schedule, run["max_duration"], **parts, ssrs=0.29)
    assert len(table) == timeline.num_batches
    # a Run given in place of its parts is the same run
    assert torch.equal(evaluate_run(schedule, Run(**run, ssr=0.29)), alphas)


def test_the_short_report_resolves_the_trainers_run():
    text = resolved_times_report("cosine", CosineAnnealingScheduler(), "lr", "10_000tok", ssr=0.29)
    assert "t_max = 2900tok" in text and "alpha at end (2,900tok) = 0" in text


def test_the_short_report_reads_a_sequence_childs_time_where_it_acts_in_the_run():
    # step_size=5ba counts from the child's segment, which starts at 10ba: it acts at 15ba (it was read at 5ba)
    schedule = Sequence([LinearScheduler(), StepScheduler("5ba", gamma=0.29)], ["10ba"])
    text = resolved_times_report("s", schedule, "lr", "30ba")
    assert "schedules[1].step_size = 5ba" in text and "alpha at schedules[1].step_size (15ba) = 0.29" in text


def test_a_function_of_the_state_refuses_a_ratio_in_whole_run_evaluation_as_in_the_run():
    with pytest.raises(ValueError, match="cannot apply ssr=0.5"):
        evaluate_run(as_schedule(lambda state: 1.0), "10ba", ssr=0.5)


# -- resolved once per run -------------------------------------------------------------------------------------


def test_curve_is_resolved_once_per_run(monkeypatch):
    calls = []
    original = StepScheduler._resolve
    monkeypatch.setattr(StepScheduler, "_resolve", lambda self, run: calls.append(run) or original(self, run))
    schedule = StepScheduler("10ba", gamma=0.5)
    run = Run("100ba", ssr=0.29)
    assert schedule.curve(run) is schedule.curve(Run("100ba", ssr=0.29))
    # the same run read through the call protocol (the state's length already scaled) resolves nothing new
    assert schedule(SchedulerState("29ba", Timestamp(batch=3)), 0.29) == 0.5
    evaluate_run(schedule, run)
    assert len(calls) == 1
    schedule.curve(Run("100ba", ssr=0.5))
    assert len(calls) == 2


def test_a_compiled_schedule_bound_to_its_run_reads_only_the_time():
    state = SchedulerState("29ba")
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    compiled = compile_scheduler(LinearScheduler(), opt, state, Run("100ba", ssr=0.29))
    assert compiled.ssr == 0.29
    state.timestamp = Timestamp(batch=10)
    compiled.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(1 - 10 / 29, abs=1e-12)
