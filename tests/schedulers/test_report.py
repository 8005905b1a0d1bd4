"""The schedule report (issue 7 item 6): exact text for a few schedules, structured rows for the rest."""

from __future__ import annotations

import math
import warnings

import pytest
import torch

from schedulers import (
    ConstantScheduler,
    CosineAnnealingScheduler,
    CosineAnnealingWithWarmupScheduler,
    CyclicScheduler,
    LinearScheduler,
    MultiStepScheduler,
    MultiStepWithWarmupScheduler,
    Product,
    Sequence,
    StepScheduler,
    Warmup,
    WarmupStableDecayScheduler,
    as_schedule,
    evaluate_run,
    run_timeline,
)
from schedulers.tools.report import (
    render_report,
    run_steps,
    schedule_report,
    schedule_report_rows,
    stepped_report_rows,
    times_beyond_the_run,
)


def of_kind(rows, kind, **match):
    return [r for r in rows if r["kind"] == kind and all(r.get(k) == v for k, v in match.items())]


def value_at(rows, point, index=0):
    (row,) = [r for r in of_kind(rows, "value", index=index) if point in r["point"].split(", ")]
    return row


# -- exact text -------------------------------------------------------------------------------------------


def test_cosine_with_warmup_over_epochs():
    text = schedule_report(
        [("cosine", CosineAnnealingWithWarmupScheduler(t_warmup="0.05dur", alpha_f=0.1), "lr")],
        "10ep",
        dataloader_len=250,
        base_values={"lr": 0.001},
    )
    assert text == "\n".join(
        [
            "run: max_duration 10ep",
            "  batches  2,500",
            "  epochs      10  (250 batches per epoch)",
            "",
            "lr: cosine",
            "  schedule   CosineAnnealingWithWarmupScheduler(t_warmup='0.05dur', t_max='1.0dur', alpha_f=0.1, "
            "scale_warmup=False)",
            "  counts in  ba",
            "  base lr    0.001",
            "  times",
            "    t_warmup  0.05dur  = 125ba",
            "    t_max     1.0dur   = 2,500ba  (end of run)",
            "  values",
            "    point       batch  alpha      lr",
            "    start           0      0       0",
            "    t_warmup      125      1   0.001",
            "    last batch  2,499    0.1  0.0001",
            "    t_max, end  2,500    0.1  0.0001",
        ]
    )


def test_warmup_stable_decay_in_samples_with_ssr():
    text = schedule_report(
        [("wsd", WarmupStableDecayScheduler("0.01dur", t_decay="0.2dur", decay_shape="cosine", alpha_f=0.1), "lr")],
        "100000sp",
        samples_per_batch=32,
        tokens_per_batch=1024,
        ssr=0.5,
        base_values={"lr": 3e-4},
    )
    assert text == "\n".join(
        [
            "run: max_duration 100,000sp x ssr 0.5 = 50,000sp",
            "  batches      1,563",
            "  samples     50,016  (32 per batch)",
            "  tokens   1,600,512  (1,024 per batch)",
            "",
            "lr: wsd",
            "  schedule   WarmupStableDecayScheduler(t_warmup='0.01dur', t_decay='0.2dur', alpha_f=0.1, "
            "decay_shape='cosine', t_max='1.0dur', scale_warmup=False)",
            "  counts in  sp",
            "  base lr    0.0003",
            "  times",
            "    t_warmup  0.01dur  = 500sp     (batch 16)",
            "    t_decay   0.2dur   = 10,000sp  (decay start at 40,000sp; batch 1,250)",
            "    t_max     1.0dur   = 50,000sp  (end of run)",
            "  values",
            "    point        batch      sp     alpha           lr",
            "    start            0       0         0            0",
            "    t_warmup        16     512         1       0.0003",
            "    decay start  1,250  40,000         1       0.0003",
            "    last batch   1,562  49,984  0.100006  3.00017e-05",
            "    t_max, end   1,563  50,016       0.1        3e-05",
        ]
    )


def test_sequence_children_are_placed_in_the_run():
    schedule = Sequence(
        [LinearScheduler(0.0, 1.0), Warmup(CosineAnnealingScheduler(alpha_f=0.1), "0.25dur"), ConstantScheduler(0.05)],
        ["200ba", "0.8dur"],
    )
    text = schedule_report([("seq", schedule, "lr")], "1000ba")
    assert text.splitlines()[5:] == [
        "  counts in  ba",
        "  times",
        "    milestones[0]                200ba    = 200ba",
        "    milestones[1]                0.8dur   = 800ba",
        "    schedules[0].t_max           1.0dur   = 200ba",
        "    schedules[1].t_warmup        0.25dur  = 150ba  (at 350ba of the run)",
        "    schedules[1].schedule.t_max  1.0dur   = 600ba  (at 800ba of the run)",
        "    schedules[2].t_max           1.0dur   = 200ba  (at 1,000ba of the run; end of run)",
        "  values",
        "    point                                       batch     alpha",
        "    start                                           0         0",
        "    milestones[0], schedules[0].t_max             200         0",
        "    schedules[1].t_warmup                         350  0.868198",
        "    milestones[1], schedules[1].schedule.t_max    800      0.05",
        "    last batch                                    999      0.05",
        "    schedules[2].t_max, end                     1,000         1",  # Composer's constant is 1 from t_max on
    ]


def test_text_is_rendered_from_the_rows_and_is_deterministic():
    arguments = ([StepScheduler("3ba"), ("cos", CosineAnnealingScheduler(), "lr")], "20ba")
    text = schedule_report(*arguments, base_values=0.1)
    assert text == render_report(schedule_report_rows(*arguments, base_values=0.1))
    assert text == schedule_report(*arguments, base_values=0.1)
    assert all(line == line.rstrip() for line in text.splitlines())


# -- the run ----------------------------------------------------------------------------------------------


def test_run_length_in_every_unit_it_can_be_expressed_in():
    samples = torch.tensor([2**40 + 1, 3, 2**40 + 5, 7] * 50, dtype=torch.int64)  # beyond float64's exact sums
    tokens = torch.tensor([100.0, 250.0] * 100)
    rows = schedule_report_rows(
        StepScheduler("10ba"), "150ba", dataloader_len=40, samples_per_batch=samples, tokens_per_batch=tokens
    )
    lengths = {r["unit"]: r for r in of_kind(rows, "length")}
    assert lengths["ba"]["count"] == 150
    assert lengths["ep"]["count"] == 3.75 and lengths["ep"]["full_epochs"] == 3 and lengths["ep"]["extra_batches"] == 30
    assert lengths["sp"]["count"] == sum(samples[:150].tolist()) and lengths["sp"]["per_batch"] == "tensor"
    assert lengths["tok"]["count"] == 75 * 350 and isinstance(lengths["tok"]["count"], int)
    (run,) = of_kind(rows, "run")
    assert run == {"kind": "run", "max_duration": "150ba", "ssr": 1.0, "length": "150ba", "dataloader_len": 40}


def test_units_without_counts_are_left_out():
    rows = schedule_report_rows(StepScheduler("10ba"), "100ba")
    assert [r["unit"] for r in of_kind(rows, "length")] == ["ba"]
    text = schedule_report(StepScheduler("10ba"), "100ba")
    assert "epochs" not in text and "samples" not in text and "tokens" not in text


def test_a_run_in_samples_stops_after_the_batch_that_reaches_it():
    samples = torch.tensor([30, 50] * 20)
    rows = schedule_report_rows(CosineAnnealingScheduler(), "1000sp", samples_per_batch=samples)
    lengths = {r["unit"]: r["count"] for r in of_kind(rows, "length")}
    assert lengths == {"ba": 26, "sp": 1040}  # 25 batches make 990, the 26th reaches 1040
    end = value_at(rows, "end")
    assert end["batch"] == 26 and end["count"] == 1040 and end["alpha"] == 0.0


# -- time arguments ---------------------------------------------------------------------------------------


def test_times_resolve_to_batches_with_ssr_and_epochs():
    schedule = MultiStepWithWarmupScheduler("1ep", ["3ep", "0.5dur", "20ep"])
    rows = schedule_report_rows([("ms", schedule, "lr")], "10ep", dataloader_len=100, ssr=0.75)
    times = {r["argument"]: r for r in of_kind(rows, "time")}
    assert times["t_warmup"]["resolved"] == "100ba"  # scale_warmup=False: not scaled
    assert times["milestones[0]"]["resolved"] == "225ba"  # 3ep x 100 x 0.75
    assert times["milestones[1]"]["resolved"] == "375ba"  # half of the scaled 750ba run
    assert times["milestones[2]"]["reached"] == "after" and times["milestones[2]"]["batch"] is None
    assert [times[n]["given"] for n in times] == ["1ep", "3ep", "0.5dur", "20ep"]
    assert [r["point"] for r in of_kind(rows, "value")] == [
        "start",
        "t_warmup",
        "milestones[0]",
        "milestones[1]",
        "last batch",
        "end",
    ]


def test_sample_and_token_times_name_the_batch_where_they_are_reached():
    samples = torch.arange(1, 301)  # batch k has k + 1 samples
    schedule = CosineAnnealingWithWarmupScheduler("0.1dur")
    rows = schedule_report_rows(schedule, "20000sp", samples_per_batch=samples)
    before = run_timeline("20000sp", samples_per_batch=samples).counts("sp")
    (warmup,) = of_kind(rows, "time", argument="t_warmup")
    assert warmup["resolved"] == "2000sp"
    k = warmup["batch"]
    assert before[k] >= 2000 > before[k - 1]  # the first batch trained at a count >= t_warmup
    row = value_at(rows, "t_warmup")
    assert row["batch"] == k and row["count"] == int(before[k]) and row["unit"] == "sp"
    (t_max,) = of_kind(rows, "time", argument="t_max")
    assert t_max["reached"] == "end" and t_max["batch"] is None


def test_lengths_are_placed_where_they_end():
    rows = schedule_report_rows(CyclicScheduler("10ba", "30ba"), "100ba")
    (down,) = of_kind(rows, "time", argument="t_down")
    assert down["point"] == "end of first cycle" and down["position"] == 40 and down["batch"] == 40
    assert value_at(rows, "end of first cycle")["alpha"] == pytest.approx(0.1)
    assert value_at(rows, "t_up")["alpha"] == 1.0

    nested = Product([WarmupStableDecayScheduler("5ba", "0.3dur"), ConstantScheduler(1.0, "2dur")])
    rows = schedule_report_rows(nested, "100ba")
    (decay,) = of_kind(rows, "time", argument="schedules[0].t_decay")
    assert decay["point"] == "schedules[0].decay start" and decay["position"] == 70
    (beyond,) = of_kind(rows, "time", argument="schedules[1].t_max")
    assert beyond["reached"] == "after"


def test_warmup_at_zero_shares_the_start_row():
    with pytest.warns(UserWarning, match="no warmup"):
        rows = schedule_report_rows(CosineAnnealingWithWarmupScheduler("0ba"), "10ba")
    assert [r["point"] for r in of_kind(rows, "value")] == ["start, t_warmup", "last batch", "t_max, end"]


def test_a_one_batch_run():
    rows = schedule_report_rows(LinearScheduler(), "1ba")
    assert [(r["point"], r["batch"]) for r in of_kind(rows, "value")] == [("start, last batch", 0), ("t_max, end", 1)]


# -- values -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "schedule, run",
    [
        (CosineAnnealingWithWarmupScheduler("0.1dur", alpha_f=0.2), dict(max_duration="500ba")),
        (WarmupStableDecayScheduler("2ep", "0.25dur"), dict(max_duration="20ep", dataloader_len=17, ssr=1.3)),
        (Warmup(StepScheduler("300tok", gamma=0.5), "0.1dur"), dict(max_duration="5000tok", tokens_per_batch=37)),
        (CyclicScheduler("0.1dur", mode="triangular2"), dict(max_duration="333ba")),
    ],
)
def test_values_are_those_of_the_whole_run_evaluation(schedule, run):
    rows = schedule_report_rows([("s", schedule, "lr")], **run, base_values={"lr": 0.5})
    alphas = evaluate_run(schedule, **run)
    values = of_kind(rows, "value")
    n = alphas.numel()
    assert values[0]["batch"] == 0 and values[-1]["batch"] == n and values[-2]["batch"] == n - 1
    for row in values[:-1]:
        assert row["alpha"] == alphas[row["batch"]].item()
        assert row["value"] == 0.5 * row["alpha"]
    end = values[-1]
    timeline = run_timeline(**{k: v for k, v in run.items() if k != "max_duration"}, max_duration=run["max_duration"])
    curve = schedule.resolve(timeline.run)
    assert end["alpha"] == pytest.approx(float(curve(end["count"])), abs=1e-12)
    assert [r["batch"] for r in values] == sorted(r["batch"] for r in values)


def test_schedules_on_one_hyperparameter_multiply():
    entries = [
        ("decay", StepScheduler("30ba", gamma=0.5), "lr"),
        ("cycle", CyclicScheduler("10ba", base_ratio=0.5), "lr"),
        ("wd", LinearScheduler(1.0, 0.0), "weight_decay"),
    ]
    rows = schedule_report_rows(entries, "100ba", base_values={"lr": 0.2})
    combined = of_kind(rows, "combined")
    assert {r["hyperparameter"] for r in combined} == {"lr"}
    assert combined[0]["labels"] == ["decay", "cycle"]
    product = evaluate_run(entries[0][1], "100ba") * evaluate_run(entries[1][1], "100ba")
    for row in combined[:-1]:
        assert row["alpha"] == pytest.approx(product[row["batch"]].item(), abs=1e-15)
        assert row["value"] == pytest.approx(0.2 * row["alpha"])
    assert [r["point"] for r in combined][:3] == ["start", "cycle t_up", "decay step_size"]
    assert combined[-1]["point"] == "end" and combined[-1]["alpha"] == pytest.approx(0.125 * 0.5)
    # weight decay has no base value: no value column, values None
    assert all(r["value"] is None for r in of_kind(rows, "value", hyperparameter="weight_decay"))
    text = schedule_report(entries, "100ba", base_values={"lr": 0.2})
    assert "lr: product of decay, cycle" in text and "weight_decay: product" not in text


def test_a_function_of_the_state_has_values_but_no_times():
    fn = as_schedule(lambda state: 0.5 if state.timestamp.batch >= 3 else 1.0)
    rows = schedule_report_rows([("fn", fn, "lr")], "10ba")
    (head,) = of_kind(rows, "schedule")
    assert head["unit"] is None and not of_kind(rows, "time")
    assert [(r["point"], r["batch"], r["alpha"], r["count"]) for r in of_kind(rows, "value")] == [
        ("start", 0, 1.0, None),
        ("last batch", 9, 0.5, None),
        ("end", 10, 0.5, None),
    ]
    assert "a function of the state" in schedule_report([("fn", fn, "lr")], "10ba")


# -- inputs and errors ------------------------------------------------------------------------------------


def test_schedule_arguments_take_several_forms():
    step = StepScheduler("10ba")
    one = schedule_report_rows(step, "50ba")
    assert of_kind(one, "schedule")[0]["label"] == "StepScheduler"
    assert of_kind(one, "schedule")[0]["hyperparameter"] == "lr"
    pair = schedule_report_rows([("mine", step)], "50ba")
    assert of_kind(pair, "schedule")[0]["label"] == "mine" and of_kind(pair, "schedule")[0]["hyperparameter"] == "lr"
    single = schedule_report_rows(("mine", step, "momentum"), "50ba")
    assert of_kind(single, "schedule")[0]["hyperparameter"] == "momentum"


def test_bad_inputs_are_clear_errors():
    with pytest.raises(TypeError, match=r"schedules\[1\]=.*neither a Cadence schedule"):
        schedule_report_rows([StepScheduler("1ba"), lambda state: 1.0], "10ba")
    with pytest.raises(ValueError, match="schedules is empty"):
        schedule_report_rows([], "10ba")
    with pytest.raises(ValueError, match="needs dataloader_len"):
        schedule_report_rows(StepScheduler("1ba"), "10ep")


def test_a_schedule_that_cannot_run_names_itself():
    bad = CosineAnnealingWithWarmupScheduler("1ep")
    with pytest.raises(ValueError, match="dataloader_len") as error:
        schedule_report_rows([StepScheduler("1ba"), ("warm", bad, "lr")], "10ba")
    assert any("schedule 1 ('warm', lr)" in note for note in error.value.__notes__)


def test_numbers_are_formatted_with_thousands_separators_and_six_digits():
    text = schedule_report([("big", ConstantScheduler(alpha=1234.5678), "lr")], "12345ba", base_values=math.pi)
    assert "batches  12,345" in text
    assert "    start            0  1,234.57  3,878.51" in text  # 1234.5678 x pi
    assert "    t_max, end  12,345         1   3.14159" in text


# -- step-indexed schedulers: values from stepping a copy (issue 11 item 7) ------------------------------------


def _optimizer(lr=0.1):
    return torch.optim.SGD([torch.zeros(3, requires_grad=True)], lr=lr, momentum=0.9)


def _live_state(scheduler):
    groups = [{k: v for k, v in g.items() if k != "params"} for g in scheduler.optimizer.param_groups]
    return int(scheduler.last_epoch), repr(scheduler.state_dict()), repr(groups)


def _stepped(scheduler, steps):
    """The values the trainer would see: the real scheduler stepped ``steps`` times (after the report)."""
    values = [float(scheduler.optimizer.param_groups[0]["lr"])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's "step() before optimizer.step()": nothing trains here
        for _ in range(steps):
            scheduler.step()
            values.append(float(scheduler.optimizer.param_groups[0]["lr"]))
    return values


def test_a_cerebras_sequence_is_resolved_at_its_milestones_without_touching_the_live_scheduler():
    import schedulers.cerebras as cs

    optimizer = _optimizer()
    optimizer.state[optimizer.param_groups[0]["params"][0]] = {"momentum_buffer": torch.ones(3)}
    scheduler = cs.SequentialLR(
        optimizer,
        [
            cs.LinearLR(optimizer, initial_learning_rate=0.0, end_learning_rate=0.1, total_iters=5),
            cs.CosineDecayLR(optimizer, initial_learning_rate=0.1, end_learning_rate=0.0, total_iters="15ba"),
        ],
    )
    before = _live_state(scheduler)
    rows = stepped_report_rows("schedulers[0]", scheduler, "lr", steps=20)
    assert _live_state(scheduler) == before  # the report stepped a copy
    assert torch.equal(optimizer.state[optimizer.param_groups[0]["params"][0]]["momentum_buffer"], torch.ones(3))
    (head,) = of_kind(rows, "scheduler")
    assert (head["scheduler"], head["family"], head["unit"], head["steps"], head["error"]) == (
        "SequentialLR",
        "Cerebras",
        "ba",
        20,
        None,
    )
    times = {r["argument"]: r for r in of_kind(rows, "time")}
    assert times["milestones[0]"]["position"] == 5 and times["schedulers[0].total_iters"]["position"] == 5
    assert times["schedulers[1].total_iters"]["given"] == "15ba"
    assert (
        times["schedulers[1].total_iters"]["position"] == 20 and times["schedulers[1].total_iters"]["reached"] == "end"
    )
    expected = _stepped(scheduler, 20)
    for point, step in (("start", 0), ("milestones[0]", 5), ("last batch", 19), ("end", 20)):
        row = value_at(rows, point)
        assert row["batch"] == step and row["value"] == pytest.approx(expected[step], rel=1e-12, abs=1e-15)
    assert value_at(rows, "milestones[0]")["value"] == pytest.approx(0.1)
    assert value_at(rows, "end")["value"] == pytest.approx(0.0, abs=1e-12)


def _cerebras_schedulers():
    """A few Cerebras-style schedulers of every kind: leaves, composites, a user closed form, weight decay."""
    import schedulers.cerebras as cs

    class UserWarmup(cs.LRScheduler):  # the Cerebras custom-scheduler recipe: a closed form of last_epoch
        def __init__(self, optimizer):
            super().__init__(optimizer, total_iters=None)

        def _get_closed_form_lr(self):
            return torch.clamp(self.last_epoch.double() / 7, max=1.0) * 0.2

    class Halving(cs.LambdaLR):
        def set_lr_lambda(self):
            return lambda step: 0.9**step

    def two_groups():
        return torch.optim.SGD(
            [{"params": [torch.zeros(1, requires_grad=True)], "adjust_learning_rate": f} for f in (1.0, 0.5)], lr=0.1
        )

    o = [_optimizer() for _ in range(8)]
    scaled = two_groups()
    return {
        "linear": cs.LinearLR(o[0], initial_learning_rate=0.1, end_learning_rate=0.01, total_iters=13),
        "cyclic": cs.CyclicLR(o[1], base_lr=0.01, max_lr=0.1, step_size_up=4, step_size_down=3, mode="triangular2"),
        "restarts": cs.CosineAnnealingWarmRestarts(o[2], initial_learning_rate=0.1, T_0=3, T_mult=2, eta_min=0.001),
        "onecycle": cs.OneCycleLR(o[3], initial_learning_rate=0.004, max_lr=0.1, total_steps=30),
        "sequential": cs.SequentialLR(
            o[4],
            [
                cs.LinearLR(o[4], initial_learning_rate=0.0, end_learning_rate=0.1, total_iters=5),
                cs.CosineDecayLR(o[4], initial_learning_rate=0.1, end_learning_rate=0.0, total_iters=20),
                cs.ConstantLR(o[4], learning_rate=0.003),
            ],
        ),
        "chained": cs.ChainedScheduler(
            [
                cs.StepLR(o[5], initial_learning_rate=0.1, step_size=4, gamma=0.5),
                cs.MultiStepLR(o[5], initial_learning_rate=1.0, gamma=0.3, milestones=[6, 9]),
            ]
        ),
        "scaled": cs.ScalePerParamLR(
            scaled, cs.PolynomialLR(scaled, initial_learning_rate=0.1, end_learning_rate=0.0, total_iters=9, power=2.0)
        ),
        "user": UserWarmup(o[6]),
        "lambda": Halving(o[7], 0.1),
        "weight decay": cs.CosineDecayWD(
            torch.optim.AdamW([torch.zeros(1, requires_grad=True)], weight_decay=0.1), 0.1, 0.0, 11
        ),
    }


@pytest.mark.parametrize("name", sorted(_cerebras_schedulers()))
def test_a_cerebras_copy_jumps_to_each_point_with_the_values_stepping_gives(name, monkeypatch):
    from schedulers.cerebras import HyperparameterScheduler
    from schedulers.tools.stepped import _stepped_values

    scheduler = _cerebras_schedulers()[name]
    key = scheduler.param_group_key
    before = _live_state(scheduler)
    calls = []
    step = HyperparameterScheduler.step
    monkeypatch.setattr(HyperparameterScheduler, "step", lambda self, *a: calls.append(a) or step(self, *a))
    points = [0, 1, 2, 3, 5, 8, 13, 21, 34, 35]
    jumped, error = _stepped_values(scheduler, key, 0, points)
    assert error is None and len(calls) == len(points) - 1  # one call per point after the start
    monkeypatch.setattr(HyperparameterScheduler, "step", step)
    assert _live_state(scheduler) == before
    stepped = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k in range(points[-1] + 1):
            if k in points:
                stepped.append((k, [float(g[key]) for g in scheduler.optimizer.param_groups if key in g]))
            scheduler.step()
    assert jumped == stepped  # exactly: the same closed form at the same step


def test_a_resumed_cerebras_copy_jumps_from_where_it_is_and_a_failing_jump_names_its_step():
    import schedulers.cerebras as cs

    scheduler = cs.LinearLR(_optimizer(), initial_learning_rate=0.1, end_learning_rate=0.0, total_iters=10)
    for _ in range(4):
        scheduler.step()
    rows = stepped_report_rows("linear", scheduler, steps=12)
    assert [(r["point"], r["batch"]) for r in of_kind(rows, "value")] == [
        ("now (step 4)", 4),
        ("total_iters", 10),
        ("last batch", 11),
        ("end", 12),
    ]
    assert value_at(rows, "total_iters")["value"] == 0.0 and int(scheduler.last_epoch) == 4

    class FailsAtSeven(cs.LRScheduler):  # a user closed form that raises from step 7 on
        def __init__(self, optimizer):
            super().__init__(optimizer, total_iters=None)

        def _get_closed_form_lr(self):
            if int(self.last_epoch) >= 7:
                raise ValueError("no lr past step 6")
            return torch.tensor(0.1, dtype=torch.float64)

    rows = stepped_report_rows("fails", FailsAtSeven(_optimizer()), steps=12)
    (head,) = of_kind(rows, "scheduler")
    assert head["error"] == "stepping a copy failed at step 7: ValueError: no lr past step 6"  # as stepping says


def test_with_an_unknown_run_length_a_cerebras_copy_jumps_to_its_farthest_step_count():
    import schedulers.cerebras as cs

    decay = cs.CosineDecayLR(_optimizer(), initial_learning_rate=0.1, end_learning_rate=0.0, total_iters=10**9)
    rows = stepped_report_rows("decay", decay, steps=None)  # a billion steps: one jump, not a billion steps
    assert [(r["point"], r["batch"]) for r in of_kind(rows, "value")] == [("start", 0), ("total_iters", 10**9)]
    assert value_at(rows, "total_iters")["value"] == 0.0


def test_a_cerebras_subclass_with_its_own_step_is_stepped_one_step_at_a_time():
    import schedulers.cerebras as cs

    class Counting(cs.LinearLR):
        def step(self, epoch=None):
            self.counted = getattr(self, "counted", 0) + 1
            super().step(epoch)

    from schedulers.tools.stepped import _stepped_values

    scheduler = Counting(_optimizer(), initial_learning_rate=0.1, end_learning_rate=0.0, total_iters=10)
    values, error = _stepped_values(scheduler, "lr", 0, [0, 5, 10])
    assert error is None and values[1] == (5, [pytest.approx(0.05)]) and values[2] == (10, [0.0])


def test_torch_and_sambaflow_schedulers_step_per_batch_or_per_epoch():
    from torch.optim import lr_scheduler as torch_schedulers

    from schedulers.sambaflow import cosine_schedule_with_warmup

    optimizer = _optimizer()
    multistep = torch_schedulers.MultiStepLR(optimizer, milestones=[3, 3, 6], gamma=0.1)
    rows = stepped_report_rows("ms", multistep, steps=10)
    assert [r["argument"] for r in of_kind(rows, "time")] == ["milestones[0]", "milestones[1]"]
    assert value_at(rows, "milestones[0]")["value"] == pytest.approx(0.001)
    assert value_at(rows, "milestones[1]")["value"] == pytest.approx(0.0001)
    assert multistep.last_epoch == 0 and optimizer.param_groups[0]["lr"] == 0.1

    samba = cosine_schedule_with_warmup(_optimizer(0.5), num_warmup_steps=2, num_training_steps=6)
    rows = stepped_report_rows("samba", samba, steps=8, per_epoch=True)
    (head,) = of_kind(rows, "scheduler")
    assert head["family"] == "SambaFlow" and head["unit"] == "ep"
    assert value_at(rows, "num_warmup_steps")["value"] == pytest.approx(0.5)
    expected = _stepped(samba, 8)
    assert value_at(rows, "num_training_steps")["value"] == pytest.approx(expected[6], rel=1e-12)
    assert [r["point"] for r in of_kind(rows, "value")] == [
        "start",
        "num_warmup_steps",
        "num_training_steps",
        "last epoch",
        "end",
    ]
    text = render_report(rows)
    assert text.startswith("lr: samba LambdaLR (SambaFlow; steps once per epoch; values from stepping a copy)")
    assert "    num_warmup_steps      = 2ep\n" in text and "    point               epoch    lr\n" in text


def test_the_family_is_that_of_the_class_a_user_subclass_derives_from():
    from torch.optim import lr_scheduler as torch_schedulers

    import schedulers.cerebras as cs
    from schedulers.sambaflow.schedules import SambaFlowLambda

    class MyLinear(cs.LinearLR):  # defined here: its module is the test's, not schedulers.cerebras
        pass

    class MyCosine(torch_schedulers.CosineAnnealingLR):
        pass

    optimizer = _optimizer()
    mine = MyLinear(optimizer, initial_learning_rate=0.1, end_learning_rate=0.0, total_iters=5)
    (head,) = of_kind(stepped_report_rows("mine", mine, steps=10), "scheduler")
    assert (head["scheduler"], head["family"]) == ("MyLinear", "Cerebras")
    samba = torch_schedulers.LambdaLR(_optimizer(), SambaFlowLambda("linear", 2, 6))  # built without the helper
    assert of_kind(stepped_report_rows("samba", samba, steps=8), "scheduler")[0]["family"] == "SambaFlow"
    plain = torch_schedulers.LambdaLR(_optimizer(), lambda step: 1.0)
    assert of_kind(stepped_report_rows("plain", plain, steps=8), "scheduler")[0]["family"] == "torch"
    cosine = MyCosine(_optimizer(), T_max=5)
    assert of_kind(stepped_report_rows("cos", cosine, steps=8), "scheduler")[0]["family"] == __name__


def test_torch_sequential_children_count_from_their_milestone():
    from torch.optim import lr_scheduler as torch_schedulers

    optimizer = _optimizer()
    scheduler = torch_schedulers.SequentialLR(
        optimizer,
        [torch_schedulers.LinearLR(optimizer, 0.1, total_iters=5), torch_schedulers.CosineAnnealingLR(optimizer, 10)],
        milestones=[5],
    )
    rows = stepped_report_rows("seq", scheduler, steps=15)
    t_max = of_kind(rows, "time", argument="schedulers[1].T_max")[0]
    assert (t_max["offset"], t_max["position"], t_max["reached"]) == (5, 15, "end")
    expected = _stepped(scheduler, 15)
    assert value_at(rows, "end")["value"] == pytest.approx(expected[15], abs=1e-15)


def test_a_scheduler_that_fails_inside_the_run_is_reported_and_named():
    from torch.optim import lr_scheduler as torch_schedulers

    scheduler = torch_schedulers.OneCycleLR(_optimizer(), max_lr=1.0, total_steps=10)
    rows = stepped_report_rows("onecycle", scheduler, steps=15)
    (head,) = of_kind(rows, "scheduler")
    assert head["error"].startswith("stepping a copy failed at step 11: ValueError:")
    assert value_at(rows, "pct_start")["value"] == pytest.approx(1.0)
    assert "  note: stepping a copy failed at step 11" in render_report(rows)
    (message,) = times_beyond_the_run(rows)
    assert message.startswith("onecycle: stepping a copy failed at step 11")


def test_run_steps_counts_what_the_trainer_steps():
    assert run_steps("100ba", 30) == 100
    assert run_steps("4ep", 30) == 120
    assert run_steps("100ba", 30, per_epoch=True) == 3  # the last, unfinished epoch is not closed
    assert run_steps("4ep", None, per_epoch=True) == 4
    assert run_steps("1000sp", 30) is None and run_steps("4ep", None) is None


def test_run_steps_follows_the_clock_in_every_case():
    from schedulers.core.clock import Clock

    for run in ("1ba", "7ba", "9ba", "1ep", "3ep"):
        for length in (1, 3, 4):  # the trainer's clock, one batch at a time
            clock = Clock(run, length)
            while not clock.done:
                clock.advance()
            assert (run_steps(run, length), run_steps(run, length, per_epoch=True)) == (clock.batches, clock.epochs)
        epochs = int(run[:-2]) if run.endswith("ep") else None  # without dataloader_len: no batch count
        assert (run_steps(run, None), run_steps(run, None, per_epoch=True)) == (
            None if epochs is not None else int(run[:-2]),
            epochs,
        )


def test_an_unknown_number_of_steps_names_both_reasons():
    from torch.optim import lr_scheduler as torch_schedulers

    scheduler = torch_schedulers.LinearLR(_optimizer(), 0.1, total_iters=5)
    steps = run_steps("4ep", None)  # an epoch run without dataloader_len, stepped per batch
    text = render_report(stepped_report_rows("linear", scheduler, steps=steps))
    assert steps is None
    assert (
        "  steps in the run: not known before the data is read "
        "(a run in samples or tokens, or in epochs of unknown length)\n" in text
    )


# -- times beyond the run (issue 11 item 9) ----------------------------------------------------------------------


def test_a_warmup_after_the_end_of_the_run_is_named_with_both_times():
    rows = schedule_report_rows(
        [("schedulers[0]", CosineAnnealingWithWarmupScheduler(t_warmup="5ep"), "lr")], "4ep", dataloader_len=10
    )
    assert times_beyond_the_run(rows) == [
        "schedulers[0]: t_warmup=5ep is after the end of the run at 4ep: the peak lr is never reached"
    ]
    inside = schedule_report_rows(CosineAnnealingWithWarmupScheduler(t_warmup="4ep"), "4ep", dataloader_len=10)
    assert times_beyond_the_run(inside) == []  # reached at the end of the run: not beyond it


def test_milestones_and_total_iters_beyond_the_run():
    import schedulers.cerebras as cs

    rows = schedule_report_rows([("steps", MultiStepScheduler(["50ba", "150ba"]), "lr")], "100ba")
    assert times_beyond_the_run(rows) == [
        "steps: milestones[1]=150ba is after the end of the run at 100ba: the run ends before this milestone"
    ]
    optimizer = _optimizer()
    decay = cs.CosineDecayLR(optimizer, initial_learning_rate=0.1, end_learning_rate=0.0, total_iters="6ep")
    decay.attach_state(_State("4ep", 10))
    rows = stepped_report_rows("schedulers[1]", decay, "lr", steps=40)
    assert times_beyond_the_run(rows) == [
        "schedulers[1]: total_iters=6ep is after the end of the run at 40ba: the lr never reaches the end of its "
        "schedule"
    ]
    # with the run's lengths in the report, the end is told in the argument's own unit
    lengths = schedule_report_rows(ConstantScheduler(), "4ep", dataloader_len=10)
    assert times_beyond_the_run(lengths + rows)[0].endswith(
        "is after the end of the run at 4ep: the lr never reaches the end of its schedule"
    )


class _State:
    def __init__(self, max_duration, dataloader_len):
        from timeunits import Time, Timestamp

        self.max_duration = Time.from_input(max_duration)
        self.dataloader_len = dataloader_len
        self.timestamp = Timestamp()


def test_a_milestone_beyond_the_run_is_named_once_not_with_every_child_after_it():
    import schedulers.cerebras as cs

    optimizer = _optimizer()
    scheduler = cs.SequentialLR(
        optimizer,
        [
            cs.LinearLR(optimizer, initial_learning_rate=0.0, end_learning_rate=0.1, total_iters=50),
            cs.CosineDecayLR(optimizer, initial_learning_rate=0.1, end_learning_rate=0.0, total_iters=100),
        ],
    )
    assert times_beyond_the_run(stepped_report_rows("schedulers[0]", scheduler, steps=30)) == [
        "schedulers[0]: milestones[0]=50ba is after the end of the run at 30ba: the run ends before this milestone"
    ]
