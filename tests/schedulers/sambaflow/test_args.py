"""SambaFlow's flags: ``add_lr_schedule_args`` and ``get_lr_scheduler``.

(docs/sambaflow.md, docs/trainer-config.md.)
"""

from __future__ import annotations

import argparse
import math

import pytest
import torch

from schedulers.sambaflow import (
    LR_SCHEDULES,
    add_lr_schedule_args,
    cosine_schedule_with_warmup,
    get_lr_scheduler,
    steps_this_run,
)


def parse(flags: str, parser: argparse.ArgumentParser | None = None) -> argparse.Namespace:
    parser = add_lr_schedule_args(parser or argparse.ArgumentParser())
    return parser.parse_args(flags.split())


def optimizer(lr=1.0, groups=1):
    params = [{"params": [torch.zeros(2, requires_grad=True)], "lr": lr * (i + 1)} for i in range(groups)]
    return torch.optim.SGD(params, lr=lr)


def lrs_over(opt, sched, steps, group=0):
    out = []
    for _ in range(steps):
        out.append(opt.param_groups[group]["lr"])
        opt.step()
        sched.step()
    return out


def test_flags_and_their_defaults():
    args = parse("")
    assert vars(args) == {
        "learning_rate": None,
        "lr_schedule": None,
        "warmup_steps": None,
        "max_steps": None,
        "steps_this_run": None,
        "end_lr_ratio": None,
    }
    args = parse(
        "--learning_rate 3e-4 --lr_schedule cosine_schedule_with_warmup --warmup_steps 10 "
        "--max_steps 100 --steps_this_run 40 --end_lr_ratio 0.05"
    )
    assert vars(args) == {
        "learning_rate": 3e-4,
        "lr_schedule": "cosine_schedule_with_warmup",
        "warmup_steps": 10,
        "max_steps": 100,
        "steps_this_run": 40,
        "end_lr_ratio": 0.05,
    }
    help_text = add_lr_schedule_args(argparse.ArgumentParser()).format_help()
    for flag in (
        "--learning_rate",
        "--lr_schedule",
        "--warmup_steps",
        "--max_steps",
        "--steps_this_run",
        "--end_lr_ratio",
    ):
        assert flag in help_text


def test_unknown_schedule_is_rejected_by_the_parser(capsys):
    with pytest.raises(SystemExit):
        parse("--lr_schedule step_schedule")
    assert "invalid choice" in capsys.readouterr().err


def test_round_trip_cosine():
    args = parse("--learning_rate 0.02 --lr_schedule cosine_schedule_with_warmup --warmup_steps 5 --max_steps 45")
    opt = optimizer(lr=123.0)  # --learning_rate replaces it
    sched = get_lr_scheduler(opt, args)
    reference = cosine_schedule_with_warmup(optimizer(lr=0.02), 5, 45, end_ratio=0.1)
    got = lrs_over(opt, sched, 60)
    assert got == lrs_over(reference.optimizer, reference, 60)
    assert got[0] == 0.0 and got[5] == 0.02 and got[45] == 0.02 * 0.1 and got[59] == 0.02 * 0.1
    p = 20 / 40
    assert got[25] == pytest.approx(0.02 * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * p))), rel=1e-12)


def test_round_trip_polynomial_is_linear():
    args = parse(
        "--learning_rate 0.5 --lr_schedule polynomial_decay_schedule_with_warmup --warmup_steps 4 --max_steps 12"
    )
    opt = optimizer()
    got = lrs_over(opt, get_lr_scheduler(opt, args), 16)
    expected = [0.5 * k / 4 for k in range(5)] + [0.5 * (1 - (k - 4) / 8) for k in range(5, 13)] + [0.0] * 3
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert got[4] == 0.5 and got[12] == 0.0


def test_round_trip_fixed_lr_needs_no_steps():
    args = parse("--learning_rate 0.07 --lr_schedule fixed_lr")
    opt = optimizer(groups=2)
    sched = get_lr_scheduler(opt, args)
    lrs_over(opt, sched, 10)
    assert sched.get_last_lr() == [0.07, 0.07]


@pytest.mark.parametrize(
    "schedule, flag, expected",
    [
        ("cosine_schedule_with_warmup", "", 0.1),
        ("polynomial_decay_schedule_with_warmup", "", 0.0),
        ("cosine_schedule_with_warmup", "--end_lr_ratio 0.3", 0.3),
        ("polynomial_decay_schedule_with_warmup", "--end_lr_ratio 0.3", 0.3),
        ("cosine_schedule_with_warmup", "--end_lr_ratio 0", 0.0),
    ],
)
def test_end_lr_ratio_defaults_per_schedule(schedule, flag, expected):
    args = parse(f"--learning_rate 2.0 --lr_schedule {schedule} --max_steps 10 {flag}")
    opt = optimizer()
    got = lrs_over(opt, get_lr_scheduler(opt, args), 12)
    assert got[0] == 2.0  # no warmup by default: the peak at step 0
    assert got[10] == got[11] == 2.0 * expected


def test_learning_rate_sets_lr_and_initial_lr_of_every_group():
    opt = optimizer(lr=0.1, groups=3)
    for group in opt.param_groups:
        group["initial_lr"] = group["lr"]  # as left by an earlier scheduler: must not win over the flag
    args = parse("--learning_rate 0.4 --lr_schedule fixed_lr")
    sched = get_lr_scheduler(opt, args)
    assert [g["initial_lr"] for g in opt.param_groups] == [0.4] * 3
    assert sched.base_lrs == [0.4] * 3 and sched.get_last_lr() == [0.4] * 3


def test_without_learning_rate_the_optimizer_lr_is_the_peak():
    opt = optimizer(lr=0.1, groups=2)
    sched = get_lr_scheduler(
        opt, parse("--lr_schedule polynomial_decay_schedule_with_warmup --warmup_steps 2 --max_steps 4")
    )
    lrs_over(opt, sched, 2)
    assert sched.get_last_lr() == [0.1, 0.2]


def test_tensor_lr_is_set_in_place():
    lr = torch.tensor(0.01)
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=lr)
    sched = get_lr_scheduler(opt, parse("--learning_rate 0.3 --lr_schedule fixed_lr"))
    assert opt.param_groups[0]["lr"] is lr and lr.item() == pytest.approx(0.3)
    assert sched.get_last_lr()[0].item() == pytest.approx(0.3)


def test_steps_this_run_is_the_run_length_not_the_horizon():
    base = "--learning_rate 1.0 --lr_schedule cosine_schedule_with_warmup --warmup_steps 10 --max_steps 1000"
    full, partial = parse(base), parse(base + " --steps_this_run 250")
    assert steps_this_run(full) == 1000 and steps_this_run(partial) == 250
    a, b = optimizer(), optimizer()
    # the schedule decays over --max_steps either way
    assert lrs_over(a, get_lr_scheduler(a, full), 300) == lrs_over(b, get_lr_scheduler(b, partial), 300)
    assert steps_this_run(parse("--steps_this_run 7")) == 7
    assert steps_this_run(parse("")) is None
    assert steps_this_run(parse("--steps_this_run 2000 --max_steps 100")) == 2000


def test_args_may_be_a_namespace_or_a_mapping():
    ns = argparse.Namespace(lr_schedule="polynomial_decay_schedule_with_warmup", max_steps=8)  # other flags absent
    opt = optimizer()
    assert lrs_over(opt, get_lr_scheduler(opt, ns), 9)[8] == 0.0
    opt = optimizer()
    sched = get_lr_scheduler(
        opt, {"lr_schedule": " Cosine_Schedule_With_Warmup ", "max_steps": 8, "learning_rate": 0.5}
    )
    assert lrs_over(opt, sched, 9)[8] == pytest.approx(0.05)


# --------------------------------------------------------------------------------- clashes


def test_flags_the_parser_already_has_are_kept():
    parser = argparse.ArgumentParser()
    parser.add_argument("--learning_rate", type=float, default=1e-3)
    parser.add_argument("--max_steps", type=int, default=500, help="the model's own flag")
    add_lr_schedule_args(parser)
    args = parser.parse_args(["--lr_schedule", "fixed_lr"])
    assert args.learning_rate == 1e-3 and args.max_steps == 500 and args.warmup_steps is None
    assert [a.help for a in parser._actions if "--max_steps" in a.option_strings] == ["the model's own flag"]


def test_adding_twice_is_harmless():
    parser = add_lr_schedule_args(add_lr_schedule_args(argparse.ArgumentParser()))
    assert parser.parse_args(["--max_steps", "3"]).max_steps == 3


def test_a_flag_with_another_dest_is_an_error():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max_steps", dest="horizon", type=int)
    with pytest.raises(ValueError, match="--max_steps.*args.horizon"):
        add_lr_schedule_args(parser)


def test_works_on_an_argument_group():
    parser = argparse.ArgumentParser()
    add_lr_schedule_args(parser.add_argument_group("learning rate"))
    assert parser.parse_args(["--warmup_steps", "3"]).warmup_steps == 3


# ---------------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "flags, message",
    [
        ("", "--lr_schedule is required"),
        ("--lr_schedule cosine_schedule_with_warmup", "--max_steps is required"),
        ("--lr_schedule polynomial_decay_schedule_with_warmup --warmup_steps 5", "--max_steps is required"),
        (
            "--lr_schedule cosine_schedule_with_warmup --warmup_steps 20 --max_steps 10",
            "--warmup_steps 20 must not exceed",
        ),
        ("--lr_schedule cosine_schedule_with_warmup --max_steps -1", r"^--max_steps=-1 must be an integer >= 0$"),
        (
            "--lr_schedule cosine_schedule_with_warmup --max_steps 10 --warmup_steps -2",
            r"^--warmup_steps=-2 must be an integer >= 0$",
        ),
        ("--lr_schedule fixed_lr --steps_this_run -5", r"^--steps_this_run=-5 must be an integer >= 0$"),
        (
            "--lr_schedule cosine_schedule_with_warmup --max_steps 10 --end_lr_ratio 1.5",
            r"^--end_lr_ratio=1.5 must be a number in \[0, 1\]",
        ),
        (
            "--lr_schedule polynomial_decay_schedule_with_warmup --max_steps 10 --end_lr_ratio -0.1",
            r"^--end_lr_ratio=-0.1 must be a number in \[0, 1\]",
        ),
        ("--lr_schedule fixed_lr --learning_rate -0.1", r"^--learning_rate=-0.1 must be >= 0$"),
    ],
)
def test_clear_errors(flags, message):
    opt = optimizer(lr=0.1)
    with pytest.raises(ValueError, match=message):
        get_lr_scheduler(opt, parse(flags))
    assert opt.param_groups[0]["lr"] == 0.1  # nothing was changed


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ("--learning_rate nan", "argument --learning_rate: --learning_rate='nan' must be a finite number"),
        ("--max_steps 2.5", "argument --max_steps: --max_steps='2.5' must be an integer"),
        ("--end_lr_ratio x", "argument --end_lr_ratio: --end_lr_ratio='x' must be a number"),
    ],
)
def test_a_flag_is_read_as_every_number_is(flags, message, capsys):
    # schedulers.core.schedule_arguments.number_flag / count_flag: the words of the one check, at parse time
    with pytest.raises(SystemExit):
        parse(flags)
    assert capsys.readouterr().err.splitlines()[-1].endswith(message)
    assert parse("--max_steps 1e3 --warmup_steps 1_0").max_steps == 1000


def test_flags_from_a_mapping_get_the_same_words():
    with pytest.raises(ValueError, match=r"^--learning_rate=nan must be a finite number$"):
        get_lr_scheduler(optimizer(), {"lr_schedule": "fixed_lr", "learning_rate": math.nan})


def test_unknown_schedule_in_a_namespace():
    with pytest.raises(ValueError, match="'step_schedule' must be one of"):
        get_lr_scheduler(optimizer(), argparse.Namespace(lr_schedule="step_schedule"))


def test_schedule_names():
    assert LR_SCHEDULES == ("cosine_schedule_with_warmup", "polynomial_decay_schedule_with_warmup", "fixed_lr")


def test_extra_schedules_extend_the_choices():
    parser = add_lr_schedule_args(argparse.ArgumentParser(), extra_schedules=("step_schedule",))
    args = parser.parse_args(["--lr_schedule", "step_schedule"])
    assert args.lr_schedule == "step_schedule"
    assert parser.parse_args(["--lr_schedule", "fixed_lr"]).lr_schedule == "fixed_lr"
    with pytest.raises(ValueError, match="build your own schedules"):
        get_lr_scheduler(optimizer(), args)


def test_a_misspelt_schedule_suggests_the_close_name():
    with pytest.raises(ValueError, match=r"\(did you mean 'cosine_schedule_with_warmup'[,?]"):
        get_lr_scheduler(optimizer(), argparse.Namespace(lr_schedule="cosine_schedule_with_warmpu", max_steps=10))


def test_the_schedules_are_the_registered_ones():
    from schedulers.core.names import get_scheduler

    for name in LR_SCHEDULES:
        assert get_scheduler(name, family="sambaflow").__name__ == name
    args = argparse.Namespace(lr_schedule=" Fixed_LR ", learning_rate=None)
    assert get_lr_scheduler(optimizer(), args).lr_lambdas[0].kind == "fixed"
