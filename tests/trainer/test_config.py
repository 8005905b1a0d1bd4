"""trainer.config: YAML loading, the Cerebras layout, overrides and flags, and errors that name their key path."""

from __future__ import annotations

import argparse
import copy
import math
import os
import re
import warnings
from pathlib import Path

import pytest
import torch

from schedulers.sambaflow import add_lr_schedule_args
from trainer import LRMonitor
from trainer.config import (
    ConfigError,
    ConfiguredTrainer,
    ConfigWarning,
    apply_overrides,
    apply_sambaflow_flags,
    load_config,
    parse_override,
    run_summary,
    trainer_from_config,
)

HERE = Path(__file__).resolve().parent  # config_fixtures.py lives here

SEED_YAML = """\
trainer:
  init:
    model: "config_fixtures:tiny_model"
    loss_fn: mse_loss
    progress_bar: false
    optimizer:
      # Corresponds to cstorch.optim.SGD
      SGD:
        lr: 0.01
        momentum: 0.9
    schedulers:
      - SequentialLR:
          schedulers:
            - LinearLR:
                initial_learning_rate: 0.01
                end_learning_rate: 0.001
                total_iters: 500
            - CosineDecayLR:
                initial_learning_rate: 0.001
                end_learning_rate: 0.0001
                total_iters: 500
    loop:
      max_steps: 1000
    callbacks:
      - LRMonitor: {}
  fit:
    train_dataloader: "config_fixtures:train_loader"
"""


def base_config(**loop) -> dict:
    return {
        "trainer": {
            "init": {
                "model": "config_fixtures:tiny_model",
                "optimizer": {"SGD": {"lr": 0.1}},
                "loss_fn": "mse_loss",
                "progress_bar": False,
                "loop": loop or {"max_steps": 8},
            },
            "fit": {"train_dataloader": "config_fixtures:train_loader"},
        }
    }


def build(config: dict, **kwargs) -> ConfiguredTrainer:
    return trainer_from_config(config, base_dir=HERE, **kwargs)


def lr_monitor(trainer) -> LRMonitor:
    (monitor,) = [c for c in trainer.callbacks if isinstance(c, LRMonitor)]
    return monitor


def write(tmp_path: Path, text: str, name: str = "config.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# ----------------------------------------------------------------------------------------------------
# The seed's YAML, Composer names, SambaFlow functions, tokens
# ----------------------------------------------------------------------------------------------------


def test_the_seed_yaml_loads_and_runs(tmp_path):
    config = load_config(write(tmp_path, SEED_YAML))
    trainer = build(config)
    trainer.fit()
    lrs = lr_monitor(trainer).values("lr")
    assert trainer.state.timestamp.batch.value == 1000 and len(lrs) == 1000
    assert lrs[0] == pytest.approx(0.01)
    assert lrs[250] == pytest.approx(0.01 + (0.001 - 0.01) * 250 / 500)
    assert lrs[500] == pytest.approx(0.001)  # the cosine decay starts where the linear one ended
    assert lrs[750] == pytest.approx(0.0001 + 0.5 * (0.001 - 0.0001) * (1 + math.cos(math.pi * 250 / 500)))
    assert trainer.optimizer.param_groups[0]["momentum"] == 0.9
    history = trainer.loss_history
    assert history.count == 1000 and history.last[-1] < history.first[0]


def test_a_path_builds_too_with_its_folder_on_sys_path(tmp_path):
    (tmp_path / "mymodels.py").write_text("import torch\ndef make():\n    return torch.nn.Linear(4, 1)\n")
    text = SEED_YAML.replace('"config_fixtures:tiny_model"', '"mymodels:make"').replace(
        "max_steps: 1000", "max_steps: 3"
    )
    text = text.replace(
        '"config_fixtures:train_loader"', '{factory: "config_fixtures:train_loader", kwargs: {batch_size: 4}}'
    )
    # config_fixtures is found through the working directory
    path = write(tmp_path, text)
    import os

    old = os.getcwd()
    os.chdir(HERE)
    try:
        trainer = trainer_from_config(path)
    finally:
        os.chdir(old)
    assert trainer.state.dataloader_len == 16
    trainer.fit()
    assert trainer.state.timestamp.batch.value == 3


def test_composer_names_take_time_strings_and_aliases():
    config = base_config(max_duration="4ep")
    init = config["trainer"]["init"]
    init["schedulers"] = [{"cosine_with_warmup": {"t_warmup": "0.25dur", "alpha_f": 0.1}}]
    init["callbacks"] = [{"lrmonitor": None}]
    trainer = build(config)
    trainer.fit()
    lrs = lr_monitor(trainer).values("lr")
    assert len(lrs) == 32  # 4 epochs of 8 batches
    assert lrs[0] == 0.0 and lrs[8] == pytest.approx(0.1)  # warmup over 0.25 × 32 batches
    assert lrs[-1] == pytest.approx(0.1 * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * 23 / 24))))


def test_a_composer_schedule_on_weight_decay_and_a_cerebras_lr_scheduler_together():
    config = base_config(max_steps=10)
    init = config["trainer"]["init"]
    init["optimizer"] = {"adamw": {"lr": 0.01, "weight_decay": 0.5}}  # names match in any case
    init["schedulers"] = [
        {"LinearScheduler": {"alpha_i": 1.0, "alpha_f": 0.0, "t_max": "10ba"}, "hyperparameter": "weight_decay"},
        {"CosineDecayLR": {"initial_learning_rate": 0.01, "end_learning_rate": 0.0, "total_iters": "1dur"}},
    ]
    init["callbacks"] = [{"LRMonitor": {"keys": ["lr", "weight_decay"]}}]
    trainer = build(config)
    trainer.fit()
    monitor = lr_monitor(trainer)
    assert monitor.values("weight_decay")[:3] == pytest.approx([0.5, 0.45, 0.4])
    assert monitor.values("lr")[5] == pytest.approx(0.005)
    assert trainer.scheduled_keys == ["lr", "weight_decay"]


def test_a_sambaflow_function_decays_over_the_horizon_by_default():
    config = base_config(max_steps=10)
    config["trainer"]["init"]["schedulers"] = [{"cosine_schedule_with_warmup": {"num_warmup_steps": 2}}]
    config["trainer"]["init"]["callbacks"] = ["LRMonitor"]
    trainer = build(config)
    trainer.fit()
    lrs = lr_monitor(trainer).values("lr")
    assert lrs[:3] == pytest.approx([0.0, 0.05, 0.1])
    assert trainer.optimizer.param_groups[0]["lr"] == pytest.approx(0.01)  # end_ratio 0.1 at num_training_steps=10


def test_a_token_schedule_with_get_num_tokens():
    config = base_config(max_duration="60tok")
    init = config["trainer"]["init"]
    init["get_num_tokens"] = "config_fixtures:count_tokens"
    init["schedulers"] = [{"LinearWithWarmupScheduler": {"t_warmup": "20tok"}}]
    config["trainer"]["fit"]["train_dataloader"] = "config_fixtures:token_batches"
    trainer = build(config)
    trainer.fit()
    assert trainer.state.timestamp.token.value >= 60
    assert trainer.state.timestamp.sample.value == 4 * trainer.state.timestamp.batch.value  # tokens are not samples


def test_cerebras_1x_optimizer_with_a_learning_rate_schedule():
    config = base_config(max_steps=8)
    config["trainer"]["init"]["optimizer"] = {
        "optimizer_type": "SGD",
        "momentum": 0.9,
        "learning_rate": [
            {"scheduler": "Linear", "initial_learning_rate": 0.0, "end_learning_rate": 0.1, "total_iters": 4},
            {"scheduler": "CosineDecay", "initial_learning_rate": 0.1, "end_learning_rate": 0.0, "total_iters": 4},
        ],
    }
    config["trainer"]["init"]["callbacks"] = ["LRMonitor"]
    trainer = build(config)
    trainer.fit()
    assert lr_monitor(trainer).values("lr")[:5] == pytest.approx([0.0, 0.025, 0.05, 0.075, 0.1])


def test_an_optimizer_factory_gets_the_model():
    config = base_config(max_steps=2)
    config["trainer"]["init"]["optimizer"] = {"factory": "config_fixtures:optimizer_factory", "kwargs": {"lr": 0.05}}
    trainer = build(config)
    assert isinstance(trainer.optimizer, torch.optim.SGD) and trainer.optimizer.param_groups[0]["lr"] == 0.05
    with pytest.raises(ConfigError, match="^--learning_rate: trainer.init.optimizer is a factory"):
        apply_sambaflow_flags(config, _flags("--learning_rate", "0.1"))
    config["trainer"]["init"]["optimizer"]["kwargs"] = {"learning_rate": 0.05}
    with pytest.raises(
        ConfigError,
        match=r"^trainer.init.optimizer.kwargs.learning_rate: .*unexpected keyword argument 'learning_rate'",
    ):
        build(config)


def test_gradient_clipping_from_precision_max_gradient_norm():
    config = base_config(max_steps=1)
    init = config["trainer"]["init"]
    init["optimizer"] = {"SGD": {"lr": 1.0}}
    init["precision"] = {"max_gradient_norm": 0.001}
    trainer = build(config)
    before = [p.detach().clone() for p in trainer.model.parameters()]
    trainer.fit()
    step = torch.cat([(p.detach() - b).flatten() for p, b in zip(trainer.model.parameters(), before, strict=True)])
    assert 0 < float(step.norm()) <= 0.001 + 1e-9


def test_precision_by_name_and_gradient_value_clipping():
    config = base_config(max_steps=1)
    init = config["trainer"]["init"]
    init["precision"] = "bf16"
    assert build(config).precision.name == "bf16"
    init["precision"] = {"max_gradient_value": 1e-4}
    init["optimizer"] = {"SGD": {"lr": 1.0}}
    trainer = build(config)
    assert trainer.precision.name == "fp32"
    before = [p.detach().clone() for p in trainer.model.parameters()]
    trainer.fit()
    steps = torch.cat([(p.detach() - b).flatten() for p, b in zip(trainer.model.parameters(), before, strict=True)])
    assert float(steps.abs().max()) == pytest.approx(1e-4, rel=1e-4)  # every gradient was clipped to 1e-4


def test_param_groups_by_pattern_with_tags_for_schedulers():
    config = base_config(max_steps=4)
    init = config["trainer"]["init"]
    init["optimizer"] = {"SGD": {"lr": 0.1, "params": [{"params": "bias", "tag": "bias", "lr": 0.5}]}}
    init["schedulers"] = [
        {"LinearScheduler": {"alpha_i": 1.0, "alpha_f": 0.0}, "param_group_tags": "bias"},
    ]
    trainer = build(config)
    bias_group, rest = trainer.optimizer.param_groups
    assert bias_group["tags"] == ["bias"] and bias_group["lr"] == 0.5 and rest["lr"] == 0.1
    trainer.fit()
    assert bias_group["lr"] == pytest.approx(0.0) and rest["lr"] == 0.1  # only the tagged group is scheduled
    config["trainer"]["init"]["optimizer"]["SGD"]["params"] = [{"params": "nothing*", "tag": "x"}]
    with pytest.raises(ConfigError, match=r"^trainer.init.optimizer.SGD.params: .*nothing\*"):
        build(config)


def test_loggers_from_the_config(tmp_path):
    config = base_config(max_steps=3)
    config["trainer"]["init"]["loggers"] = [{"CSVLogger": {"path": str(tmp_path / "metrics.csv")}}]
    build(config).fit()
    lines = (tmp_path / "metrics.csv").read_text().splitlines()
    assert lines[0].startswith("batch,epoch,sample,token") and len(lines) >= 4
    config["trainer"]["init"]["loggers"] = [{"WandbLogger": {}}]
    with pytest.raises(ConfigError, match=r"^trainer.init.loggers\[0\].WandbLogger: unknown logger"):
        build(config)


@pytest.mark.filterwarnings("ignore:resuming from")
def test_checkpoint_retention_weights_only_and_strictness(tmp_path):
    config = base_config(max_steps=6)
    config["trainer"]["init"]["checkpoint"] = {
        "save_folder": str(tmp_path / "ckpt"),
        "steps": 1,
        "save_num_checkpoints_to_keep": 2,
    }
    build(config).fit()
    assert sorted(p.name for p in (tmp_path / "ckpt").glob("ba*.pt")) == ["ba00000005.pt", "ba00000006.pt"]
    fresh = base_config(max_steps=2)
    fresh["trainer"]["init"]["checkpoint"] = {
        "load_path": str(tmp_path / "ckpt"),
        "load_weights_only": True,
        "disable_strict_checkpoint_loading": True,
    }
    trainer = build(fresh)
    assert trainer.state.timestamp.batch.value == 0  # weights only: a new run
    loaded = torch.load(tmp_path / "ckpt" / "ba00000006.pt", weights_only=True)["model"]
    assert torch.equal(trainer.model.weight, loaded["weight"])
    with pytest.warns(ConfigWarning, match="non-strict loading applies to weights-only loads"):
        fresh["trainer"]["init"]["checkpoint"]["load_weights_only"] = False
        build(fresh)


def test_the_seed_also_seeds_the_model_factory():
    def weights(seed):
        config = base_config()
        config["trainer"]["init"]["model"] = {
            "factory": "torch.nn:Linear",
            "kwargs": {"in_features": 4, "out_features": 1},
        }
        config["trainer"]["init"]["seed"] = seed
        return build(config).model.weight.detach().clone()

    assert torch.equal(weights(3), weights(3)) and not torch.equal(weights(3), weights(4))


def test_eval_steps_limits_each_evaluation_and_a_val_loader_alone_evaluates_at_the_end():
    config = base_config(max_steps=4, eval_steps=1)
    config["trainer"]["fit"]["val_dataloader"] = "config_fixtures:eval_loader"
    trainer = build(config)
    assert len(list(trainer.eval_dataloader)) == 1
    assert trainer.eval_interval == trainer.state.max_duration
    trainer.fit()
    assert "eval/loss" in trainer.loss_history.eval_metrics


def test_known_cerebras_keys_are_warnings_naming_them():
    config = base_config(max_steps=2)
    init = config["trainer"]["init"]
    init.update(backend={"backend_type": "CSX"}, logging={"log_steps": 10}, model_dir="./model_dir", device="CSX")
    init["precision"] = {
        "enabled": True,
        "fp16_type": "cbfloat16",
        "max_gradient_norm": 1.0,
        "precision_opt_level": 1,
        "loss_scaling_factor": "dynamic",
    }
    config["trainer"]["validate"] = {"val_dataloader": "x:y"}
    with pytest.warns(ConfigWarning) as record:
        trainer = build(config)
    messages = " | ".join(str(w.message) for w in record)
    for path in (
        "trainer.init.backend",
        "trainer.init.logging",
        "trainer.init.model_dir",
        "trainer.init.device",
        "trainer.init.precision.fp16_type: cbfloat16 is Cerebras hardware's format",
        "trainer.init.precision.precision_opt_level",
        "trainer.init.precision.loss_scaling_factor",
        "trainer.validate",
    ):
        assert path in messages
    assert "max_gradient_norm" not in messages and "precision.enabled" not in messages  # Cadence applies these
    assert trainer.device.type == "cpu"
    assert trainer.precision.name == "bf16" and trainer.max_grad_norm == 1.0


def test_model_dir_receives_the_checkpoints_when_saving_is_asked_for(tmp_path):
    config = base_config(max_steps=4)
    config["trainer"]["init"]["model_dir"] = str(tmp_path / "model_dir")
    config["trainer"]["init"]["checkpoint"] = {"steps": 2}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # model_dir is used, so no warning
        trainer = build(config)
    trainer.fit()
    assert sorted(p.name for p in (tmp_path / "model_dir").glob("ba*.pt")) == ["ba00000002.pt", "ba00000004.pt"]


# ----------------------------------------------------------------------------------------------------
# num_steps: the run length, against max_steps: the horizon
# ----------------------------------------------------------------------------------------------------


def _split_config(tmp_path: Path, **loop) -> dict:
    config = base_config(**loop)
    init = config["trainer"]["init"]
    init["schedulers"] = [{"CosineAnnealingWithWarmupScheduler": {"t_warmup": "0.25dur", "alpha_f": 0.1}}]
    init["callbacks"] = ["LRMonitor"]
    init["checkpoint"] = {"save_folder": str(tmp_path / "ckpt"), "autoload_last_checkpoint": True}
    return config


def test_num_steps_splits_a_run_without_moving_the_horizon(tmp_path):
    whole = build(_split_config(tmp_path / "whole", max_steps=16))
    whole.fit()
    expected = lr_monitor(whole).values("lr")

    seen, ends = [], []
    for _ in range(3):
        trainer = build(_split_config(tmp_path / "split", max_steps=16, num_steps=6))
        assert trainer.state.max_duration.value == 16 and trainer.num_steps == 6
        trainer.fit()
        seen += lr_monitor(trainer).values("lr")
        ends.append(trainer.state.timestamp.batch.value)
    assert ends == [6, 12, 16]  # each run resumes from the last checkpoint; the horizon ends the third
    assert seen == pytest.approx(expected, abs=0, rel=1e-12)
    names = sorted(p.name for p in (tmp_path / "split" / "ckpt").glob("ba*.pt"))
    assert names == ["ba00000006.pt", "ba00000012.pt", "ba00000016.pt"]


def test_num_steps_alone_is_the_horizon_and_a_longer_one_changes_nothing():
    trainer = build(base_config(num_steps=5))
    assert trainer.state.max_duration.value == 5 and trainer.num_steps is None
    with pytest.warns(ConfigWarning, match="50 steps this run is more than the horizon"):
        trainer = build(base_config(max_steps=5, num_steps=50))
    assert trainer.num_steps is None
    trainer.fit()
    assert trainer.state.timestamp.batch.value == 5


def test_num_steps_stops_early_and_evaluates_at_the_stop():
    config = base_config(max_steps=20, num_steps=3, eval_frequency=10)
    config["trainer"]["fit"]["val_dataloader"] = "config_fixtures:eval_loader"
    trainer = build(config)
    trainer.fit()
    assert trainer.state.timestamp.batch.value == 3
    assert trainer.loss_history.eval_metrics is not None
    assert "of 20ba" in run_summary(trainer)


def test_a_bare_number_means_epochs_in_yaml_as_in_python():
    """One meaning at every door (docs/trainer-config.md): ``max_duration: 3`` is ``Trainer(..., 3)``, 3 epochs."""
    from trainer import Trainer
    from trainer.trainer_arguments import run_time

    config = base_config(max_steps=5)
    config["trainer"]["init"]["loop"] = {"max_duration": 3, "eval_interval": 2}
    config["trainer"]["fit"]["val_dataloader"] = "config_fixtures:eval_loader"
    trainer = build(config)
    assert str(trainer.state.max_duration) == "3ep" == str(run_time(3)) and str(trainer.eval_interval) == "2ep"
    model = torch.nn.Linear(4, 1)
    python = Trainer(
        model,
        trainer.train_dataloader,
        3,
        torch.optim.SGD(model.parameters(), lr=0.1),
        loss_fn=torch.nn.functional.mse_loss,
        progress_bar=False,
        print_schedule_report=False,
    )
    assert python.state.max_duration == trainer.state.max_duration


def test_ckpt_path_in_fit_loads_a_checkpoint(tmp_path):
    first = base_config(max_steps=4)
    first["trainer"]["init"]["checkpoint"] = {"save_folder": str(tmp_path / "ckpt")}
    build(first).fit()
    second = base_config(max_steps=6)
    second["trainer"]["fit"]["ckpt_path"] = str(tmp_path / "ckpt")
    with pytest.warns(UserWarning, match="changed settings"):
        trainer = build(second)
    assert trainer.state.timestamp.batch.value == 4


# ----------------------------------------------------------------------------------------------------
# YAML
# ----------------------------------------------------------------------------------------------------


def test_yaml_12_float_rule(tmp_path):
    text = """\
trainer:
  a: 1e-3
  b: 3e4
  c: 1.0e5
  d: -.5
  e: .5e3
  f: 1_000
  g: 0.1
  h: 10ba
  i: 1e3ba
  j: 2e6tok
  k: 1E-2
  l: "1e-3"
  m: 12
"""
    values = load_config(write(tmp_path, text))["trainer"]
    assert values["a"] == 0.001 and isinstance(values["a"], float)
    assert values["b"] == 30000.0 and isinstance(values["b"], float)
    assert values["c"] == 100000.0 and values["d"] == -0.5 and values["e"] == 500.0 and values["k"] == 0.01
    assert values["f"] == 1000 and isinstance(values["f"], int) and values["m"] == 12
    assert values["g"] == 0.1
    assert values["h"] == "10ba" and values["i"] == "1e3ba" and values["j"] == "2e6tok"
    assert values["l"] == "1e-3"  # quoted stays a string


def test_a_float_step_count_that_is_whole_is_accepted():
    trainer = build(base_config(max_steps=1e1))
    assert trainer.state.max_duration.value == 10


def test_yaml_errors_name_the_file_and_line(tmp_path):
    with pytest.raises(ConfigError, match=r"config.yaml:3:.*invalid YAML"):
        load_config(write(tmp_path, "trainer:\n  init: {\n  fit: : :\n"))
    with pytest.raises(ConfigError, match=r"duplicate key 'loop'"):
        load_config(write(tmp_path, "trainer:\n  init:\n    loop: {}\n    loop: {}\n"))
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(tmp_path / "missing.yaml")
    with pytest.raises(ConfigError, match="top level must be a mapping"):
        load_config(write(tmp_path, "- 1\n- 2\n"))


# ----------------------------------------------------------------------------------------------------
# Errors name their key path
# ----------------------------------------------------------------------------------------------------


def _seq(*children):
    return {"SequentialLR": {"schedulers": list(children)}}


LINEAR = {"LinearLR": {"initial_learning_rate": 0.1, "end_learning_rate": 0.01, "total_iters": 4}}


def _edit(path: str, value):
    """An edit of base_config() setting ``path`` (relative to trainer) to ``value``."""

    def edit(config):
        node = config["trainer"]
        keys = path.split(".")
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        node[keys[-1]] = value

    return edit


ERRORS = [
    (
        "unknown nested scheduler",
        _edit("init.schedulers", [_seq(LINEAR, {"CosineDecayLRR": {"total_iters": 4}})]),
        "trainer.init.schedulers[0].SequentialLR.schedulers[1].CosineDecayLRR",
        "did you mean CosineDecayLR",
    ),
    (
        "misspelt scheduler argument",
        _edit(
            "init.schedulers",
            [
                _seq(
                    LINEAR, {"CosineDecayLR": {"initial_learning_rate": 0.1, "end_learning_rate": 0.0, "total_iter": 4}}
                )
            ],
        ),
        "trainer.init.schedulers[0].SequentialLR.schedulers[1].CosineDecayLR.total_iter",
        "CosineDecayLR got an unexpected keyword argument 'total_iter' (did you mean 'total_iters'?); accepted: "
        "CosineDecayLR(optimizer, initial_learning_rate, end_learning_rate, total_iters, param_group_tags=None)",
    ),
    (
        "missing scheduler argument",
        _edit("init.schedulers", [{"StepLR": {"initial_learning_rate": 0.1, "gamma": 0.5}}]),
        "trainer.init.schedulers[0].StepLR",
        "StepLR is missing required argument 'step_size'",
    ),
    (
        "bad scheduler value",
        _edit(
            "init.schedulers",
            [_seq(LINEAR, {"LinearLR": {"initial_learning_rate": 0.1, "end_learning_rate": 0.0, "total_iters": -2}})],
        ),
        "trainer.init.schedulers[0].SequentialLR.schedulers[1].LinearLR.total_iters",
        "total_iters=-2",
    ),
    (
        "ambiguous short name",
        _edit("init.schedulers", [{"Step": {}}]),
        "trainer.init.schedulers[0].Step",
        "StepScheduler",
    ),
    (
        "a Cadence schedule inside SequentialLR",
        _edit("init.schedulers", [_seq(LINEAR, {"cosine": {}})]),
        "trainer.init.schedulers[0].SequentialLR.schedulers[1].cosine",
        "put it at the top level",
    ),
    (
        "two items in one scheduler entry",
        _edit("init.schedulers", [{"LinearLR": {}, "CosineDecayLR": {}}]),
        "trainer.init.schedulers[0]",
        "one-key mapping",
    ),
    (
        "units of a Composer schedule",
        _edit("init.schedulers", [{"CosineAnnealingWithWarmupScheduler": {"t_warmup": "10sp"}}]),
        "trainer.init.schedulers[0]",
        "must resolve to one unit",
    ),
    (
        "t_max shorter than the run",
        _edit("init.schedulers", [{"cosine_with_warmup": {"t_warmup": "2ba", "t_max": "4ba"}}]),
        "trainer.init.schedulers[0]",
        "greater than or equal to max_duration",
    ),
    (
        "two writers of lr",
        _edit("init.schedulers", [LINEAR, {"fixed_lr": None}]),
        "trainer.init.schedulers[0]",
        "trainer.init.schedulers[1] (LambdaLR) all write 'lr'",
    ),
    (
        "hyperparameter of a Cerebras LR class",
        _edit("init.schedulers", [{**LINEAR, "hyperparameter": "weight_decay"}]),
        "trainer.init.schedulers[0].hyperparameter",
        "LinearLR writes 'lr'",
    ),
    (
        "the state argument",
        _edit("init.schedulers", [{"LinearLR": {**LINEAR["LinearLR"], "state": None}}]),
        "trainer.init.schedulers[0].LinearLR.state",
        "filled in by Cadence",
    ),
    ("unknown init key", _edit("init.optimiser", {"SGD": {}}), "trainer.init.optimiser", "did you mean optimizer"),
    ("misplaced key", _edit("init.max_steps", 10), "trainer.init.max_steps", "it belongs under trainer.init.loop"),
    ("unknown loop key", _edit("init.loop.max_step", 10), "trainer.init.loop.max_step", "did you mean max_steps"),
    ("steps_per_epoch", _edit("init.loop.steps_per_epoch", 10), "trainer.init.loop.steps_per_epoch", "not supported"),
    (
        "unknown top-level key",
        _edit("fit.train_loader", "x:y"),
        "trainer.fit.train_loader",
        "accepted here: train_dataloader",
    ),
    (
        "unknown optimizer",
        _edit("init.optimizer", {"SDG": {"lr": 0.1}}),
        "trainer.init.optimizer.SDG",
        "did you mean SGD",
    ),
    (
        "misspelt optimizer argument",
        _edit("init.optimizer", {"SGD": {"lr": 0.1, "momentun": 0.9}}),
        "trainer.init.optimizer.SGD",
        "does not take momentun",
    ),
    (
        "bad optimizer value",
        _edit("init.optimizer", {"SGD": {"lr": -1.0}}),
        "trainer.init.optimizer.SGD",
        "Invalid learning rate",
    ),
    (
        "two optimizers",
        _edit("init.optimizer", {"SGD": {}, "AdamW": {}}),
        "trainer.init.optimizer",
        "must name one optimizer",
    ),
    ("missing loop", _edit("init.loop", None), "trainer.init.loop", "missing"),
    (
        "max_steps not an integer",
        _edit("init.loop.max_steps", "ten"),
        "trainer.init.loop.max_steps",
        "must be an integer >= 1",
    ),
    (
        "two horizons",
        _edit("init.loop.max_duration", "2ep"),
        "trainer.init.loop.max_duration",
        "give only one of max_steps",
    ),
    (
        "horizon without a unit",
        _edit("init.loop", {"max_duration": 10.5}),
        "trainer.init.loop.max_duration",
        "has no unit",
    ),
    (
        "horizon in dur",
        _edit("init.loop", {"max_duration": "1dur"}),
        "trainer.init.loop.max_duration",
        "is a fraction of itself: give it in ep, ba, sp or tok",
    ),
    (
        "tokens without a counter",
        _edit("init.loop", {"max_duration": "100tok"}),
        "trainer.init.loop.max_duration",
        "get_num_tokens",
    ),
    (
        "eval without a loader",
        _edit("init.loop.eval_frequency", 2),
        "trainer.init.loop.eval_frequency",
        "needs trainer.fit.val_dataloader",
    ),
    (
        "grad_accum too large",
        _edit("init.loop.grad_accum_steps", 100),
        "trainer.init.loop.grad_accum_steps",
        "fewer than grad_accum=100",
    ),
    ("negative seed", _edit("init.seed", -1), "trainer.init.seed", "must be an integer >= 0"),
    ("bad device", _edit("init.device", "tpu9"), "trainer.init.device", "is not a device"),
    (
        "checkpoint interval without a folder",
        _edit("init.checkpoint", {"steps": 2}),
        "trainer.init.checkpoint.steps",
        "needs trainer.init.checkpoint.save_folder",
    ),
    ("missing checkpoint", _edit("fit.ckpt_path", "/nonexistent/ckpt"), "trainer.fit.ckpt_path", "does not exist"),
    (
        "unimportable model",
        _edit("init.model", "no_such_module_xyz:make"),
        "trainer.init.model",
        "cannot import 'no_such_module_xyz'",
    ),
    (
        "misspelt model function",
        _edit("init.model", "config_fixtures:tiny_modle"),
        "trainer.init.model",
        "did you mean tiny_model",
    ),
    (
        "bad factory kwargs",
        _edit("init.model", {"factory": "config_fixtures:tiny_model", "kwargs": {"in_feature": 3}}),
        "trainer.init.model.kwargs.in_feature",
        "accepted: config_fixtures:tiny_model(in_features=4, out_features=1)",
    ),
    (
        "model returns no module",
        _edit("init.model", "config_fixtures:not_a_model"),
        "trainer.init.model",
        "not a torch.nn.Module",
    ),
    ("model without a colon", _edit("init.model", "tiny_model"), "trainer.init.model", "must be 'module:function'"),
    (
        "Cerebras model settings",
        _edit("init.model", {"name": "gpt2", "hidden_size": 8}),
        "trainer.init.model",
        "name, hidden_size",
    ),
    ("missing train loader", _edit("fit", {}), "trainer.fit.train_dataloader", "missing"),
    (
        "train loader twice",
        _edit("init.train_dataloader", "config_fixtures:train_loader"),
        "trainer.init.train_dataloader",
        "give it once",
    ),
    ("unknown loss", _edit("init.loss_fn", "mse"), "trainer.init.loss_fn", "did you mean mse_loss"),
    (
        "unknown callback",
        _edit("init.callbacks", [{"LRMonitr": {}}]),
        "trainer.init.callbacks[0].LRMonitr",
        "did you mean LRMonitor",
    ),
    (
        "unknown precision key",
        _edit("init.precision", {"max_grad_norm": 1.0}),
        "trainer.init.precision.max_grad_norm",
        "did you mean max_gradient_norm",
    ),
]


@pytest.mark.parametrize("edit, path, fragment", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_config_errors_name_their_key_path(edit, path, fragment):
    config = base_config()
    edit(config)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ConfigError) as raised:
            build(config)
    error = raised.value
    assert isinstance(error, ValueError)
    assert str(error).startswith(f"{path}: "), str(error)
    assert fragment in str(error)
    assert "\n" not in str(error)


@pytest.mark.parametrize("bad", ["1.5ba", "0.3dru", [3]], ids=repr)
def test_a_horizon_that_is_not_a_time_says_so_once(bad):
    config = base_config(max_duration=bad)
    with pytest.raises(ConfigError) as raised:
        build(config)
    message = str(raised.value)
    assert message.startswith(f"trainer.init.loop.max_duration: {bad!r} "), message
    assert message.count("is not a time") == 1 and message.count(repr(bad)) == 1, message


@pytest.mark.parametrize(
    "where, value, meant",
    [
        (
            "loop",
            {"max_duration": "3epochs"},
            "trainer.init.loop.max_duration: '3epochs' .* \\(did you mean '3ep'\\?\\)",
        ),
        (
            "schedulers",
            [{"cosine_with_warmup": {"t_warmup": "30bas"}}],
            "t_warmup='30bas' is not a time: unknown unit 'bas' \\(did you mean '30ba'\\?\\)",
        ),
        ("schedulers", [{"cosine_with_warmup": {"t_warmup": "0.3durr"}}], "\\(did you mean '0.3dur'\\?\\)"),
    ],
)
def test_a_misspelt_unit_in_yaml_suggests_the_time_meant(where, value, meant):
    config = base_config()
    config["trainer"]["init"][where] = value
    with pytest.raises(ConfigError, match=meant) as raised:
        build(config)
    assert "\n" not in str(raised.value) and str(raised.value).count("did you mean") == 1


def test_a_config_steps_per_batch_so_a_milestone_inside_an_epoch_acts_where_it_is():
    """Issue 38: the config door never steps per epoch (docs/stepping.md), so t_warmup='5ba' in a run of 8 batches an
    epoch ends at batch 5 and nothing is said about per-epoch stepping."""
    config = base_config(max_duration="2ep")
    config["trainer"]["init"]["schedulers"] = [{"ConstantWithWarmupScheduler": {"t_warmup": "5ba"}}]
    config["trainer"]["init"]["callbacks"] = [{"LRMonitor": {}}]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer = build(config)
        trainer.fit()
    assert not [w for w in caught if "next epoch starts" in str(w.message)]
    assert lr_monitor(trainer).values("lr") == pytest.approx([0.1 * k / 5 for k in range(5)] + [0.1] * 11, abs=1e-15)


def test_there_are_many_distinct_errors():
    assert len({e[2] for e in ERRORS}) >= 10


def test_the_top_level_must_be_trainer():
    with pytest.raises(ConfigError, match=r"^trainr: unknown top-level key \(did you mean trainer"):
        build({"trainr": {}})
    with pytest.raises(ConfigError, match=r"^trainer.init: missing"):
        build({"trainer": {"fit": {}}})


def test_structure_is_checked_before_any_factory_runs(tmp_path):
    marker = tmp_path / "built"
    (tmp_path / "sideeffect.py").write_text(
        f"import torch\ndef make():\n    open({str(marker)!r}, 'w').close()\n    return torch.nn.Linear(4, 1)\n"
    )
    config = base_config()
    config["trainer"]["init"]["model"] = "sideeffect:make"
    config["trainer"]["init"]["schedulers"] = [{"NoSuchLR": {}}]
    with pytest.raises(ConfigError):
        trainer_from_config(config, base_dir=tmp_path)
    assert not marker.exists()


# ----------------------------------------------------------------------------------------------------
# --set and the SambaFlow flags
# ----------------------------------------------------------------------------------------------------


def test_parse_override_reads_yaml_values():
    assert parse_override("trainer.init.loop.max_steps=100") == (["trainer", "init", "loop", "max_steps"], 100)
    assert parse_override("a.b[2].c=1e-3") == (["a", "b", 2, "c"], 0.001)
    assert parse_override("a.b.0=[1, 2]") == (["a", "b", 0], [1, 2])
    assert parse_override("a=null") == (["a"], None)
    assert parse_override("a=10ba") == (["a"], "10ba")
    with pytest.raises(ConfigError, match="KEY.PATH=VALUE"):
        parse_override("trainer.init")


def test_apply_overrides_creates_edits_and_replaces_alternatives():
    config = base_config(max_duration="2ep", eval_interval="1ep")
    config["trainer"]["init"]["schedulers"] = [_seq(LINEAR, LINEAR)]
    sources = {}
    out = apply_overrides(
        config,
        [
            "trainer.init.loop.max_steps=30",
            "trainer.init.loop.eval_frequency=5",
            "trainer.init.optimizer.sgd.momentum=0.5",  # the key is matched ignoring case
            "trainer.init.schedulers[0].SequentialLR.schedulers.1.LinearLR.total_iters=7",
            "trainer.init.checkpoint.save_folder=run",
        ],
        sources=sources,
    )
    loop = out["trainer"]["init"]["loop"]
    assert loop == {"max_steps": 30, "eval_frequency": 5}
    assert out["trainer"]["init"]["optimizer"] == {"SGD": {"lr": 0.1, "momentum": 0.5}}
    assert out["trainer"]["init"]["schedulers"][0]["SequentialLR"]["schedulers"][1]["LinearLR"]["total_iters"] == 7
    assert out["trainer"]["init"]["checkpoint"] == {"save_folder": "run"}
    assert config["trainer"]["init"]["loop"] == {"max_duration": "2ep", "eval_interval": "1ep"}  # not modified
    assert sources["trainer.init.schedulers[0].SequentialLR.schedulers[1].LinearLR.total_iters"].startswith("--set ")
    with pytest.raises(ConfigError, match=r"has 1 items, there is no \[3\]"):
        apply_overrides(config, ["trainer.init.schedulers[3].x=1"])
    with pytest.raises(ConfigError, match="is a list"):
        apply_overrides(config, ["trainer.init.schedulers.x=1"])


def _flags(*argv: str) -> argparse.Namespace:
    return add_lr_schedule_args(argparse.ArgumentParser()).parse_args(list(argv))


def test_sambaflow_flags_override_the_yaml():
    config = base_config(max_duration="3ep")
    config["trainer"]["init"]["schedulers"] = [LINEAR]
    sources = {}
    out = apply_sambaflow_flags(
        config,
        _flags(
            "--learning_rate",
            "0.5",
            "--lr_schedule",
            "cosine_schedule_with_warmup",
            "--warmup_steps",
            "2",
            "--max_steps",
            "20",
            "--steps_this_run",
            "5",
            "--end_lr_ratio",
            "0.2",
        ),
        sources=sources,
    )
    init = out["trainer"]["init"]
    assert init["optimizer"] == {"SGD": {"lr": 0.5}}
    assert init["loop"] == {"max_steps": 20, "num_steps": 5}
    assert init["schedulers"] == [{"cosine_schedule_with_warmup": {"num_warmup_steps": 2, "end_ratio": 0.2}}]
    assert sources["trainer.init.loop.max_steps"] == "--max_steps"
    trainer = build(out)
    assert trainer.state.max_duration.value == 20 and trainer.num_steps == 5
    assert trainer.optimizer.param_groups[0]["initial_lr"] == 0.5
    (scheduler,) = trainer.schedulers
    assert scheduler.lr_lambdas[0].num_training_steps == 20  # the horizon


def test_set_overrides_the_sambaflow_flags():
    config = base_config(max_steps=10)
    sources = {}
    flagged = apply_sambaflow_flags(
        config,
        _flags(
            "--learning_rate",
            "0.5",
            "--max_steps",
            "20",
            "--lr_schedule",
            "polynomial_decay_schedule_with_warmup",
            "--warmup_steps",
            "4",
        ),
        sources=sources,
    )
    out = apply_overrides(
        flagged,
        [
            "trainer.init.optimizer.SGD.lr=0.25",
            "trainer.init.loop.max_steps=12",
            "trainer.init.schedulers[0].polynomial_decay_schedule_with_warmup.num_warmup_steps=3",
        ],
        sources=sources,
    )
    trainer = build(out, sources=sources)
    assert trainer.state.max_duration.value == 12
    assert trainer.optimizer.param_groups[0]["initial_lr"] == 0.25
    (scheduler,) = trainer.schedulers
    assert scheduler.lr_lambdas[0].num_warmup_steps == 3
    assert scheduler.lr_lambdas[0].num_training_steps == 12  # it follows the horizon, which --set moved


def test_flags_edit_the_yaml_sambaflow_schedule_and_name_themselves_in_errors():
    config = base_config(max_steps=10)
    config["trainer"]["init"]["schedulers"] = [{"cosine_schedule_with_warmup": {"num_warmup_steps": 1}}]
    sources = {}
    out = apply_sambaflow_flags(config, _flags("--warmup_steps", "30"), sources=sources)
    assert out["trainer"]["init"]["schedulers"][0]["cosine_schedule_with_warmup"]["num_warmup_steps"] == 30
    with pytest.raises(
        ConfigError,
        match=r"^trainer.init.schedulers\[0\].cosine_schedule_with_warmup.num_warmup_steps \(from --warmup_steps\): "
        r".*must not exceed",
    ):
        build(out, sources=sources)
    with pytest.raises(ConfigError, match="^--warmup_steps: applies to a SambaFlow schedule"):
        apply_sambaflow_flags(base_config(), _flags("--warmup_steps", "3"))
    sources = {}
    out = apply_sambaflow_flags(base_config(), _flags("--max_steps", "0"), sources=sources)
    with pytest.raises(
        ConfigError, match=r"^trainer.init.loop.max_steps \(from --max_steps\): must be an integer >= 1"
    ):
        build(out, sources=sources)


def test_learning_rate_flag_warns_on_cerebras_absolute_schedulers():
    config = base_config()
    config["trainer"]["init"]["schedulers"] = [LINEAR]
    sources = {}
    out = apply_sambaflow_flags(config, _flags("--learning_rate", "0.5"), sources=sources)
    with pytest.warns(ConfigWarning, match="writes absolute learning rates"):
        build(out, sources=sources)


def test_run_summary_reports_first_and_last_losses():
    trainer = build(base_config(max_steps=16))
    trainer.fit()
    summary = run_summary(trainer)
    assert summary.startswith("trained batches 0-16 (16 this run) of 16ba; loss ")
    assert "(first batch) ->" in summary and "mean of the first/last 10" in summary


def test_the_config_is_not_modified():
    config = base_config(max_steps=2)
    config["trainer"]["init"]["schedulers"] = [_seq(LINEAR, LINEAR)]
    frozen = copy.deepcopy(config)
    build(config).fit()
    assert config == frozen


# ----------------------------------------------------------------------------------------------------
# Issue 10 items 5 and 6: no import cycle; one key table
# ----------------------------------------------------------------------------------------------------

ROOT = HERE.parents[1]


# No import cycle through the trainer (even inside functions): tests/test_architecture.py checks every
# package.


def test_trainer_from_config_builds_the_configured_class():
    from trainer import Trainer

    config = base_config(max_steps=8, num_steps=3)
    trainer = Trainer.from_config(config, HERE)
    assert type(trainer) is ConfiguredTrainer and trainer.num_steps == 3
    trainer.fit()
    assert trainer.state.timestamp.batch.value == 3 and trainer.loss_history.count == 3

    class MyTrainer(Trainer):
        pass

    mine = MyTrainer.from_config(config, HERE)
    assert isinstance(mine, MyTrainer) and mine.num_steps == 3 and mine.config is config
    assert type(ConfiguredTrainer.from_config(config, HERE)) is ConfiguredTrainer
    with pytest.raises(ConfigError, match=r"^trainer.init.loop.max_steps: must be an integer >= 1"):
        Trainer.from_config(base_config(max_steps=0), HERE)


_IMPORT_ORDER_PROBE = """
import sys
{first}
from trainer import Trainer
config = {{"trainer": {{"init": {{"model": {{"factory": "torch.nn:Linear", "kwargs": {{"in_features": 2,
          "out_features": 1}}}}, "optimizer": {{"SGD": {{"lr": 0.1}}}}, "loss_fn": "mse_loss", "progress_bar": False,
          "loop": {{"max_steps": 4, "num_steps": 2}}}}, "fit": {{"train_dataloader": "itertools:count"}}}}}}
built = type(Trainer.from_config(config))
import trainer.config
print(built.__module__, built.__qualname__, built is trainer.config.ConfiguredTrainer)
"""


@pytest.mark.parametrize("first", ["import trainer.config", "pass"], ids=["config-first", "trainer-first"])
def test_trainer_from_config_builds_one_class_whatever_was_imported_first(first):
    # once, the class depended on whether trainer.config had been imported (and so registered itself) first
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-c", _IMPORT_ORDER_PROBE.format(first=first)],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["trainer.trainer", "ConfiguredTrainer", "True"]


def test_every_key_of_the_tables_is_documented():
    from trainer.config_reading._schema import SECTIONS

    page = (ROOT / "docs" / "trainer-config.md").read_text()
    for section in SECTIONS:
        for key in [*section.by_name, *section.ignored, *section.unsupported]:
            written = re.search(rf"`(?:[\w.]+\.)?{key}(?:[`:(]| \()", page)  # `key`, `init.key`, `key: ...`
            assert written, f"{section.path}.{key} is not in docs/trainer-config.md"


def test_exclusive_groups_come_from_the_tables_for_set_too():
    config = base_config(max_steps=8)
    config["trainer"]["init"]["checkpoint"] = {"save_folder": "x", "disable_strict_checkpoint_loading": True}
    out = apply_overrides(config, ["trainer.init.checkpoint.load_strict_model_weights=false"])
    assert out["trainer"]["init"]["checkpoint"] == {"save_folder": "x", "load_strict_model_weights": False}
    config["trainer"]["init"]["checkpoint"]["load_strict_model_weights"] = True
    with pytest.raises(ConfigError, match="give only one of load_strict_model_weights, disable_strict_checkpoint"):
        build(config)


# ----------------------------------------------------------------------------------------------------
# Issue 11 items 10 (flags), 11 (messages), 12 (optimizer arguments)
# ----------------------------------------------------------------------------------------------------


def test_steps_this_run_beyond_max_steps_warns_naming_both():
    sources = {}
    out = apply_sambaflow_flags(base_config(), _flags("--max_steps", "10", "--steps_this_run", "25"), sources=sources)
    with pytest.warns(ConfigWarning) as record:
        trainer = build(out, sources=sources)
    (message,) = [str(w.message) for w in record if "steps this run" in str(w.message)]
    assert message.startswith("trainer.init.loop.num_steps (from --steps_this_run): 25 steps this run")
    assert "trainer.init.loop.max_steps (from --max_steps) = 10" in message
    assert trainer.num_steps is None and trainer.state.max_duration.value == 10


def test_learning_rate_zero_warns():
    with pytest.warns(ConfigWarning, match="--learning_rate 0: .*trains nothing"):
        apply_sambaflow_flags(base_config(), _flags("--learning_rate", "0"))


def test_a_bad_time_in_one_of_two_schedulers_names_only_that_one_once():
    config = base_config(max_steps=8)
    good = {"initial_learning_rate": 0.1, "end_learning_rate": 0.01, "total_iters": 4}
    config["trainer"]["init"]["schedulers"] = [
        {"CosineDecayLR": good},
        {"LinearLR": {**good, "total_iters": "-1ba"}},
    ]
    with pytest.raises(ConfigError) as raised:
        build(config)
    message = str(raised.value)
    assert message.startswith("trainer.init.schedulers[1].LinearLR.total_iters: total_iters='-1ba'"), message
    assert message.count("LinearLR") == 1 and "schedulers[0]" not in message and "CosineDecayLR" not in message


def test_a_number_that_is_not_a_number_names_the_key_and_the_value():
    config = base_config()
    config["trainer"]["init"]["optimizer"] = {"SGD": {"lr": "1e-2x", "momentum": 0.9}}
    with pytest.raises(ConfigError) as raised:
        build(config)
    assert str(raised.value) == "trainer.init.optimizer.SGD.lr: lr='1e-2x' must be a number"


def test_a_misspelt_optimizer_argument_suggests_the_right_one():
    config = base_config()
    config["trainer"]["init"]["optimizer"] = {"SGD": {"lr": 0.1, "momentun": 0.9}}
    with pytest.raises(ConfigError, match=r"^trainer.init.optimizer.SGD: SGD does not take momentun \(did you mean "):
        build(config)


@pytest.mark.parametrize(
    "where, value",
    [
        ("schedulers", [{"cosine_with_warmup": {"t_warmup": math.nan}}]),
        (
            "schedulers",
            [{"LinearLR": {"initial_learning_rate": 0.1, "end_learning_rate": 0.0, "total_iters": math.inf}}],
        ),
        ("loop", {"max_duration": math.nan}),
        ("loop", {"max_steps": 4, "eval_interval": math.nan}),
    ],
)
def test_nan_where_a_time_is_expected_suggests_no_time_string(where, value):
    config = base_config()
    config["trainer"]["init"][where] = value
    with pytest.raises(
        ConfigError, match=r"(nan|inf) is not a number \(YAML \.nan/\.inf\): give a finite value$"
    ) as raised:
        build(config)
    message = str(raised.value)
    for nonsense in ("nanep", "nandur", "nanba", "did you mean", "'10ep'", "1000ba"):
        assert nonsense not in message


def test_a_folder_that_cannot_be_created_is_named(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    cases = [
        ("checkpoint", {"save_folder": str(blocker / "ckpt")}, "trainer.init.checkpoint.save_folder"),
        ("loggers", [{"CSVLogger": {"path": str(blocker / "m.csv")}}], "trainer.init.loggers[0].CSVLogger.path"),
        (
            "loggers",
            [{"TensorBoardLogger": {"log_dir": str(blocker / "tb")}}],
            "trainer.init.loggers[0].TensorBoardLogger.log_dir",
        ),
        (
            "callbacks",
            [{"LRMonitor": {"csv_path": str(blocker / "x" / "lr.csv")}}],
            "trainer.init.callbacks[0].LRMonitor.csv_path",
        ),
    ]
    for key, value, path in cases:
        config = base_config()
        config["trainer"]["init"][key] = value
        with pytest.raises(ConfigError) as raised:
            build(config)
        message = str(raised.value)
        assert message.startswith(f"{path}: cannot create the folder "), message
        assert f"{str(blocker)!r} is a file" in message and ".tmp" not in message
    config = base_config()
    config["trainer"]["init"]["checkpoint"] = {"save_folder": str(blocker)}
    with pytest.raises(ConfigError, match=r"save_folder: .*a_file' is a file, not a folder"):
        build(config)
    config["trainer"]["init"]["checkpoint"] = {"save_folder": str(tmp_path / "new" / "deeper")}
    build(config)  # missing folders are fine: the trainer creates them
    assert not (tmp_path / "new").exists()  # ... when it saves, not when the config is checked


def test_trainer_errors_are_phrased_in_config_keys_not_python_arguments():
    config = base_config(max_steps=8)
    config["trainer"]["init"]["schedulers"] = [{"LinearWithWarmupScheduler": {"t_warmup": "20tok", "t_max": "100tok"}}]
    with pytest.raises(ConfigError) as raised:
        build(config)
    message = str(raised.value)
    assert message.startswith("trainer.init.schedulers[0]") and "counts tokens" in message, message
    assert "trainer.init.get_num_tokens is not given" in message and "get_num_tokens is None" not in message


def test_on_nonfinite_loss_is_a_loop_key():
    assert build(base_config(max_steps=8)).on_nonfinite_loss == "raise"
    assert build(base_config(max_steps=8, on_nonfinite_loss="warn")).on_nonfinite_loss == "warn"
    with pytest.raises(ConfigError, match=r"^trainer.init.loop.on_nonfinite_loss: must be one of 'raise', 'warn', got"):
        build(base_config(max_steps=8, on_nonfinite_loss="ignore"))


def test_a_configured_trainer_takes_callbacks_as_trainer_does():
    from trainer import LRMonitor

    for callbacks in (None, LRMonitor(), (c for c in [LRMonitor()])):
        model = torch.nn.Linear(2, 1)
        data = [(torch.randn(4, 2), torch.randn(4, 1))] * 2
        sgd = torch.optim.SGD(model.parameters(), lr=0.1)
        trainer = ConfiguredTrainer(model, data, "2ba", sgd, callbacks=callbacks, progress_bar=False)
        assert trainer.loss_history in list(trainer.callbacks)


# ----------------------------------------------------------------------------------------------------
# Issue 17 item 4: a config is read once, by one parser
# ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "item",
    [
        {"cosine": {"alpha_ff": 0.1}},  # a misspelt argument
        {"cosine": {"alpha_f": float("nan")}},  # a value no reader may read
        {"Warmup": {"schedule": {"cosine": {"t_mx": "1dur"}}, "t_warmup": "2ba"}},  # nested
        {"Sequence": {"schedules": ["linear", {"cosin": {}}], "milestones": ["0.5dur"]}},  # an unknown name
        {"step": {"gamma": 0.5}},  # a missing argument
        {"step": {"step_size": "5ba", "gamma": -1}},  # a value the constructor rejects
    ],
)
def test_a_schedule_mistake_reads_the_same_in_a_trainer_config_and_in_from_config(item):
    from schedulers import Schedule, ScheduleConfigError

    with pytest.raises(ScheduleConfigError) as saved:
        Schedule.from_config(item)
    config = base_config()
    config["trainer"]["init"]["schedulers"] = [item]
    with pytest.raises(ConfigError) as trained:
        build(config)
    assert str(trained.value) == f"trainer.init.schedulers[0].{saved.value}"


def test_a_name_nested_in_a_cadence_schedule_is_read_among_cadence_schedules():
    # "CosineAnnealing" names Composer's CosineAnnealingScheduler and Cerebras's CosineAnnealingLR/WD: inside a
    # Cadence schedule only the first can stand, so it is that one (as Schedule.from_config reads it)
    config = base_config(max_steps=10)
    config["trainer"]["init"]["schedulers"] = [{"Warmup": {"schedule": "CosineAnnealing", "t_warmup": "2ba"}}]
    report, _ = build(config).schedule_report_and_warnings()
    assert "Warmup(schedule=CosineAnnealingScheduler(t_max='1.0dur'" in report


def test_every_key_of_the_tables_has_its_reader_and_model_dir_is_known_once():
    from trainer.config_reading._schema import INIT, SECTIONS

    for section in SECTIONS:
        for key in section.keys:
            assert callable(key.read), f"{section.path}.{key.name} has no reader"
    assert "model_dir" in INIT.by_name and "model_dir" not in INIT.ignored


def test_an_epoch_time_with_a_loader_without_length_says_so_in_one_line():
    """A YAML user sets no state: the error names the loader without len() and what to give instead."""
    config = base_config(max_duration="2ep")
    config["trainer"]["init"]["schedulers"] = [{"cosine_with_warmup": {"t_warmup": "1ep"}}]
    config["trainer"]["fit"]["train_dataloader"] = "config_fixtures:unsized_loader"
    with pytest.raises(ConfigError) as raised:
        build(config)
    message = str(raised.value)
    assert message.startswith("trainer.init.schedulers[0]"), message
    assert "t_warmup=1ep needs the batches of an epoch, but the train dataloader (UnsizedBatches) has no len()" in (
        message
    )
    assert "give max_duration and the schedules' times in ba, sp or tok, or a train dataloader with a length" in message
    assert "on the state" not in message and "\n" not in message
