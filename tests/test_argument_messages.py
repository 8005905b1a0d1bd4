"""One mistake, one message: every door that reads a schedule from text (``Schedule.from_config``, the trainer's
YAML, ``cadence fit --set``, a ``python -m schedulers plot`` expression) checks its arguments with
``schedulers.core.schedule_config.call_problem`` and its name with the registry, so the text after each door's location
prefix is the same (docs/architecture.md, "A config is read once")."""

from __future__ import annotations

import contextlib
import io

import pytest

from schedulers import Schedule
from schedulers.core.schedule_config import ScheduleConfigError
from schedulers.tools.cli import main as plot_main
from trainer.config import ConfigError, trainer_from_command_line

# (name, arguments as YAML flow text, the same call as an expression)
MISTAKES = {
    "misspelt argument": (
        "CosineAnnealingWithWarmupScheduler",
        {"t_warmup": "0.1dur", "alpha_ff": 0.1},
        "CosineAnnealingWithWarmupScheduler(t_warmup='0.1dur', alpha_ff=0.1)",
    ),
    "unknown name": (
        "CosineAnnealingWithWarmupSchedular",
        {"t_warmup": "0.1dur"},
        "CosineAnnealingWithWarmupSchedular(t_warmup='0.1dur')",
    ),
    "missing argument": (
        "CosineAnnealingWithWarmupScheduler",
        {"alpha_f": 0.1},
        "CosineAnnealingWithWarmupScheduler(alpha_f=0.1)",
    ),
    "not a number": (
        "StepScheduler",
        {"step_size": "10ba", "gamma": "abc"},
        "StepScheduler(step_size='10ba', gamma='abc')",
    ),
}

EXPECTED_START = {
    "misspelt argument": "CosineAnnealingWithWarmupScheduler got an unexpected keyword argument 'alpha_ff' "
    "(did you mean 'alpha_f'?); accepted: CosineAnnealingWithWarmupScheduler(t_warmup, t_max='1dur', alpha_f=0.0, "
    "scale_warmup=False)",
    "unknown name": "unknown schedule 'CosineAnnealingWithWarmupSchedular' (did you mean "
    "CosineAnnealingWithWarmupScheduler, ",
    "missing argument": "CosineAnnealingWithWarmupScheduler is missing required argument 't_warmup'; accepted: ",
    "not a number": "gamma='abc' must be a number",
}

CONFIG = """\
trainer:
  init:
    model: torch.nn:Identity
    optimizer: {{SGD: {{lr: 0.1}}}}
    schedulers:
      - {schedule}
    loop: {{max_steps: 10}}
  fit:
    train_dataloader: builtins:list
"""


def _flow(name: str, arguments: dict) -> str:
    """``{Name: {key: value, ...}}`` as YAML flow text (strings quoted, so ``abc`` stays a string)."""
    items = ", ".join(f"{key}: {value!r}" for key, value in arguments.items())
    return f"{{{name}: {{{items}}}}}"


def _python_tail(name: str, arguments: dict) -> str:
    with pytest.raises(ScheduleConfigError) as error:
        Schedule.from_config({name: arguments})
    return _after(str(error.value), error.value.key_path)


def _yaml_tail(tmp_path, name: str, arguments: dict) -> str:
    path = tmp_path / "run.yaml"
    path.write_text(CONFIG.format(schedule=_flow(name, arguments)))
    with pytest.raises(ConfigError) as error:
        trainer_from_command_line(path)
    return _after(str(error.value), error.value.path)


def _set_tail(tmp_path, name: str, arguments: dict) -> str:
    path = tmp_path / "base.yaml"
    path.write_text(CONFIG.format(schedule="{ConstantScheduler: {alpha: 1.0}}"))
    with pytest.raises(ConfigError) as error:
        trainer_from_command_line(path, [f"trainer.init.schedulers=[{_flow(name, arguments)}]"])
    return _after(str(error.value), error.value.path)


def _plot_tail(expression: str) -> str:
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        status = plot_main(["plot", expression, "--max-duration", "10ba"])
    assert status == 2
    (line,) = stderr.getvalue().splitlines()
    return _after(line, f"python -m schedulers: error: {expression!r}")


def _after(text: str, prefix: str) -> str:
    """The message after its location prefix (``<prefix>: ``)."""
    assert text.startswith(f"{prefix}: "), (prefix, text)
    return text[len(prefix) + 2 :]


@pytest.mark.parametrize("mistake", list(MISTAKES))
def test_one_mistake_reads_the_same_at_every_door(tmp_path, mistake):
    name, arguments, expression = MISTAKES[mistake]
    tails = {
        "Schedule.from_config": _python_tail(name, arguments),
        "YAML": _yaml_tail(tmp_path, name, arguments),
        "--set": _set_tail(tmp_path, name, arguments),
        "plot expression": _plot_tail(expression),
    }
    assert tails["Schedule.from_config"].startswith(EXPECTED_START[mistake])
    assert len(set(tails.values())) == 1, tails


def test_the_location_prefixes_name_where_the_mistake_is(tmp_path):
    name, arguments, _ = MISTAKES["misspelt argument"]
    with pytest.raises(ScheduleConfigError) as python:
        Schedule.from_config({name: arguments})
    assert python.value.key_path == "CosineAnnealingWithWarmupScheduler.alpha_ff"
    path = tmp_path / "run.yaml"
    path.write_text(CONFIG.format(schedule=_flow(name, arguments)))
    with pytest.raises(ConfigError) as yaml:
        trainer_from_command_line(path)
    assert yaml.value.path == "trainer.init.schedulers[0].CosineAnnealingWithWarmupScheduler.alpha_ff"


# A number written as text: every door reads it with schedulers.core.schedule_arguments.number_text and checks it
# with number_problem, so each door's message is ``<its name for the value>=<value as given> <the one problem>``.
NUMBER_MISTAKES = [("1e-2x", "must be a number"), ("inf", "must be a finite number")]

OPTIMIZER_CONFIG = """\
trainer:
  init:
    model: torch.nn:Identity
    optimizer: {{SGD: {{lr: {lr!r}}}}}
    loop: {{max_steps: 10}}
  fit:
    train_dataloader: builtins:list
"""


def _number_tails(tmp_path, text: str) -> dict[str, str]:
    import torch

    import schedulers.cerebras as cstorch_like
    from schedulers.optim import configure_optimizer
    from schedulers.sambaflow import get_lr_scheduler

    def params():
        return [torch.zeros(1, requires_grad=True)]

    tails = {}
    with pytest.raises(ValueError) as python:
        configure_optimizer("SGD", params(), lr=text)
    tails["configure_optimizer"] = _after(str(python.value), "SGD")
    path = tmp_path / "optimizer.yaml"
    path.write_text(OPTIMIZER_CONFIG.format(lr=text))
    with pytest.raises(ConfigError) as yaml:
        trainer_from_command_line(path)
    tails["YAML optimizer"] = _after(str(yaml.value), "trainer.init.optimizer.SGD.lr")
    with pytest.raises(ValueError) as cerebras:
        cstorch_like.configure_lr_scheduler(torch.optim.SGD(params(), lr=1.0), text)
    tails["Cerebras learning_rate"] = str(cerebras.value).replace("learning_rate=", "lr=", 1)
    with pytest.raises(ValueError) as sambaflow:
        get_lr_scheduler(torch.optim.SGD(params(), lr=1.0), {"lr_schedule": "fixed_lr", "learning_rate": text})
    tails["SambaFlow --learning_rate"] = str(sambaflow.value).replace("--learning_rate=", "lr=", 1)
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        assert plot_main(["plot", "linear()", "--max-duration", "10ba", "--base-lr", text]) == 2
    (line,) = [line for line in stderr.getvalue().splitlines() if "--base-lr=" in line]
    tails["plot --base-lr"] = _after(line, "python -m schedulers: error: argument --base-lr")
    tails["plot --base-lr"] = tails["plot --base-lr"].replace("--base-lr=", "lr=", 1).split(" (see ")[0]
    return tails


@pytest.mark.parametrize(("text", "problem"), NUMBER_MISTAKES)
def test_a_number_written_as_text_is_read_and_refused_the_same_at_every_door(tmp_path, text, problem):
    tails = _number_tails(tmp_path, text)
    assert set(tails.values()) == {f"lr={text!r} {problem}"}, tails


def test_a_number_written_as_text_is_read_at_every_door_that_reads_text():
    import torch

    import schedulers.cerebras as cstorch_like
    from schedulers.optim import configure_optimizer
    from schedulers.sambaflow import get_lr_scheduler

    def optimizer():
        return torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)

    assert configure_optimizer("SGD", optimizer().param_groups[0]["params"], lr=" 1e-3").defaults["lr"] == 0.001
    assert cstorch_like.configure_lr_scheduler(optimizer(), "1e-3").get_last_lr() == [0.001]
    sambaflow = optimizer()
    get_lr_scheduler(sambaflow, {"lr_schedule": "fixed_lr", "learning_rate": "1e-3"})
    assert sambaflow.param_groups[0]["lr"] == 0.001


# A count at each door that takes one: (door, the count's name, the error's words after "<name>=<value> ").
COUNT_DOORS = {
    "SchedulerState(dataloader_len=)": ("dataloader_len", "must be an integer >= 1, or None (batches per epoch)"),
    "ResumableSampler(num_items=)": ("num_items", "must be an integer >= 0"),
    "ResumableSampler.skip(n)": ("n", "must be an integer >= 0"),
}


def _count_door(door: str, value: object) -> int:
    from schedulers import SchedulerState
    from trainer.data import ResumableSampler

    if door == "SchedulerState(dataloader_len=)":
        return SchedulerState("10ep", dataloader_len=value).dataloader_len
    if door == "ResumableSampler(num_items=)":
        return ResumableSampler(value, shuffle=False, seed=0).num_items
    sampler = ResumableSampler(6, shuffle=False, seed=0)
    sampler.skip(value)
    return len(list(sampler))  # 6 - n indices left


@pytest.mark.parametrize("door", list(COUNT_DOORS))
def test_a_count_is_checked_the_same_at_every_door(door):
    name, words = COUNT_DOORS[door]
    expected = 4 if door == "ResumableSampler.skip(n)" else 2
    assert _count_door(door, 2.0) == _count_door(door, 2) == expected  # a whole float is its int (YAML's 1e3)
    for bad in (2.5, "2", True):
        with pytest.raises(ValueError) as error:
            _count_door(door, bad)
        assert str(error.value) == f"{name}={bad!r} {words}"


def test_a_choice_is_checked_the_same_at_every_door(tmp_path):
    import torch

    from trainer.precision import Precision

    with pytest.raises(ValueError) as error:
        Precision("fp8", torch.device("cpu"))
    assert str(error.value) == "precision='fp8' must be one of 'fp32', 'bf16', 'fp16'"
    pytest.importorskip("submitit")
    from trainer.sweep.slurm_launcher import SlurmLauncher

    with pytest.raises(ValueError) as error:
        SlurmLauncher([], tmp_path, cluster="cloud")
    assert str(error.value) == "cluster='cloud' must be one of 'slurm', 'local'"
