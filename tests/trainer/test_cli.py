"""The ``cadence`` command line: ``cadence fit CONFIG.yaml``, ``python -m trainer fit``, flags, exit codes, examples."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from trainer.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

CONFIG = """\
trainer:
  init:
    model: "config_fixtures:tiny_model"
    loss_fn: mse_loss
    optimizer:
      SGD: {lr: 0.05, momentum: 0.9}
    schedulers:
      - SequentialLR:
          schedulers:
            - LinearLR: {initial_learning_rate: 0.05, end_learning_rate: 0.01, total_iters: 10}
            - CosineDecayLR: {initial_learning_rate: 0.01, end_learning_rate: 0.001, total_iters: 10}
    loop:
      max_steps: 20
  fit:
    train_dataloader: "config_fixtures:train_loader"
"""


def run(*args: str, cwd: Path = HERE, timeout: float = 300) -> subprocess.CompletedProcess:
    """``python -m trainer ARGS`` in ``cwd`` (where config_fixtures.py is importable as the working directory)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", PYTHONWARNINGS="default")
    return subprocess.run(
        [sys.executable, "-m", "trainer", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture
def config(tmp_path) -> Path:
    path = tmp_path / "run.yaml"
    path.write_text(CONFIG)
    return path


def _means(stdout: str) -> tuple[float, float]:
    match = re.search(r"mean of the first/last \d+: ([\d.]+) -> ([\d.]+)", stdout)
    assert match, stdout
    return float(match.group(1)), float(match.group(2))


def test_python_m_trainer_fit_trains_and_sums_up(config):
    result = run("fit", str(config))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("cadence: trained batches 0-20 (20 this run) of 20ba; loss ")
    first, last = _means(result.stdout)
    assert last < first


def test_a_bad_config_exits_2_with_one_line_and_no_traceback(config):
    config.write_text(CONFIG.replace("CosineDecayLR:", "CosineDecayLRR:"))
    result = run("fit", str(config))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1
    assert lines[0].startswith(
        "cadence: error: trainer.init.schedulers[0].SequentialLR.schedulers[1].CosineDecayLRR: unknown schedule "
        "'CosineDecayLRR' (did you mean CosineDecayLR, CosineDecayWD, ChainedLR?); schedule names: ConstantScheduler"
    )
    assert lines[0].endswith("(every registered name: schedulers.registered_schedulers())")


def test_errors_from_the_trainer_and_from_yaml_are_one_line_too(config, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(HERE)
    config.write_text(CONFIG.replace("max_steps: 20", "max_duration: 20tok"))
    assert main(["fit", str(config)]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("cadence: error: trainer.init.loop.max_duration: 20tok counts tokens") and err.count("\n") == 1
    )
    broken = tmp_path / "broken.yaml"
    broken.write_text("trainer:\n  init: [\n")
    assert main(["fit", str(broken)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "broken.yaml:3:1: invalid YAML" in err
    assert main(["fit", str(tmp_path / "missing.yaml")]) == 2
    assert "no such config file" in capsys.readouterr().err


def test_a_corrupt_checkpoint_exits_1_with_one_line(config, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(HERE)
    bad = tmp_path / "ba00000004.pt"
    bad.write_bytes(b"not a checkpoint")
    assert main(["fit", str(config), "--set", f"trainer.init.checkpoint.load_path={bad}"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("cadence: error: ") and "ba00000004.pt" in err and err.count("\n") == 1


def test_bad_flags_exit_2(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["fit"])
    assert exited.value.code == 2 and "CONFIG.yaml" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(["fit", "x.yaml", "--lr_schedule", "nope"])
    assert exited.value.code == 2 and "invalid choice" in capsys.readouterr().err


def _flags_read_by_a_flag_type(parser, path=()):
    """Each option of ``parser`` and its subcommands read by a ``flag_type`` function (named after its flag), with
    the subcommands before it and a value it refuses."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                yield from _flags_read_by_a_flag_type(command, (*path, name))
        elif action.option_strings and getattr(action.type, "__name__", "").startswith("-"):
            for bad in ("0", "2.5", "-1"):
                try:
                    action.type(bad)
                except argparse.ArgumentTypeError:
                    yield path, action, bad
                    break


@pytest.mark.parametrize("door", ["cadence", "python -m schedulers"])
def test_every_flag_is_checked_under_its_own_name(capsys, door):
    """A flag's value is refused naming that flag, at every subcommand (a copied line that checks ``--height``
    as ``--width`` says ``--width='0' must be ...`` for ``--height 0``)."""
    from schedulers.tools import cli as schedulers_cli

    parser, run = (build_parser(), main) if door == "cadence" else (schedulers_cli.build_parser(), schedulers_cli.main)
    found = list(_flags_read_by_a_flag_type(parser))
    assert len(found) >= (10 if door == "cadence" else 5)
    for path, action, bad in found:
        for flag in action.option_strings:
            try:
                status = run([*path, flag, bad])
            except SystemExit as exited:
                status = exited.code
            assert status == 2, (path, flag)
            err = capsys.readouterr().err.strip().splitlines()[-1]
            assert f"argument {'/'.join(action.option_strings)}: {flag}={bad!r} " in err, (path, flag, err)


def test_warnings_are_one_line_each(config):
    config.write_text(CONFIG.replace("  init:\n", "  init:\n    backend: {backend_type: CSX}\n"))
    result = run("fit", str(config), "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "cadence: warning: trainer.init.backend: Cadence does not use this Cerebras setting" in result.stderr
    assert "warnings.warn" not in result.stderr


def test_precedence_set_over_flags_over_yaml(config, capsys, monkeypatch):
    monkeypatch.chdir(HERE)
    assert main(["fit", str(config), "--dry-run", "--max_steps", "50"]) == 0
    assert "max_duration 50ba" in capsys.readouterr().out
    assert main(["fit", str(config), "--dry-run", "--max_steps", "50", "--set", "trainer.init.loop.max_steps=30"]) == 0
    assert "max_duration 30ba" in capsys.readouterr().out
    assert main(["fit", str(config), "--dry-run", "--steps_this_run", "5"]) == 0
    out = capsys.readouterr().out
    assert "max_duration 20ba" in out and "5 steps this run" in out
    assert main(["fit", str(config), "--dry-run", "--lr_schedule", "fixed_lr", "--learning_rate", "0.3"]) == 0
    assert "1 scheduler(s) on lr" in capsys.readouterr().out
    code = main(
        ["fit", str(config), "--dry-run", "--set", "trainer.init.optimizer.SGD.lr=-1", "--learning_rate", "0.3"]
    )
    assert code == 2
    assert "trainer.init.optimizer.SGD (lr from --set trainer.init.optimizer.SGD.lr=-1)" in capsys.readouterr().err


def test_steps_this_run_stops_early_and_keeps_the_horizon(config, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(HERE)
    folder = tmp_path / "ckpt"
    args = [
        "fit",
        str(config),
        "--steps_this_run",
        "8",
        "--set",
        f"trainer.init.checkpoint.save_folder={folder}",
        "--set",
        "trainer.init.checkpoint.autoload_last_checkpoint=true",
        "--set",
        "trainer.init.progress_bar=false",
    ]
    for expected in ("0-8 (8 this run)", "8-16 (8 this run)", "16-20 (4 this run)"):
        assert main(args) == 0
        assert f"trained batches {expected} of 20ba" in capsys.readouterr().out


def test_help_documents_everything():
    text = build_parser().format_help()
    assert "fit" in text
    result = run("fit", "--help")
    assert result.returncode == 0
    for needle in (
        "CONFIG.yaml",
        "--set KEY.PATH=VALUE",
        "--dry-run",
        "--learning_rate",
        "--lr_schedule",
        "--warmup_steps",
        "--max_steps",
        "--steps_this_run",
        "--end_lr_ratio",
        "precedence",
        "exit status",
        "module:function",
    ):
        assert needle in result.stdout, needle


def test_the_console_script_is_declared():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["scripts"]["cadence"] == "trainer.cli:main"


# ----------------------------------------------------------------------------------------------------
# The embedded examples (no download), kept short with --set
# ----------------------------------------------------------------------------------------------------


def test_the_classifier_example_runs(tmp_path):
    result = run(
        "fit",
        str(ROOT / "examples" / "classifier.yaml"),
        "--set",
        "trainer.init.loop.max_steps=60",
        "--set",
        "trainer.init.loop.eval_frequency=30",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "trained batches 0-60 (60 this run) of 60ba" in result.stdout
    first, last = _means(result.stdout)
    assert last < first
    assert "eval/loss" in result.stdout


def test_the_charlm_example_runs_in_tokens(tmp_path):
    result = run(
        "fit",
        str(ROOT / "examples" / "charlm.yaml"),
        "--set",
        "trainer.init.loop.max_duration=40_000tok",
        "--set",
        "trainer.init.loop.eval_interval=20_000tok",
        "--set",
        "trainer.init.loop.eval_steps=2",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    match = re.search(r"trained batches 0-(\d+) \((\d+) this run\) (\d+)tok of 40000tok", result.stdout)
    assert match, result.stdout
    batches, tokens = int(match.group(1)), int(match.group(3))
    assert tokens >= 40_000 and batches < tokens / 32  # variable-length sequences: many tokens per sample
    first, last = _means(result.stdout)
    assert last < first


# ----------------------------------------------------------------------------------------------------
# cadence plot: both modes, missing files, missing matplotlib; --version; Ctrl-C; the dry-run count
# ----------------------------------------------------------------------------------------------------


def test_plot_help_documents_both_modes_with_examples():
    result = run("plot", "--help")
    assert result.returncode == 0, result.stderr
    for needle in (
        "CONFIG.yaml",
        "--set KEY.PATH=VALUE",
        "--multipliers",
        "--csv",
        "-o FILE",
        "--ssr",
        "--lr_schedule",
        "--learning_rate",
        "--warmup_steps",
        "EXPR [EXPR ...] --max-duration TIME",
        "--dataloader-len N",
        "pip install 'cadence[plot]'",
        "examples:",
        "cadence plot examples/classifier.yaml",
        "cadence plot \"cosine_with_warmup('0.05dur')\" --max-duration 10ep --dataloader-len 500",
    ):
        assert needle in result.stdout, needle


def test_plot_of_an_expression_warns_as_cadence(capsys):
    args = ["plot", "CosineAnnealingScheduler(alpha_f=2.0)", "--max-duration", "10ba", "--csv", "-"]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert err.startswith("cadence: warning: alpha_f=2.0 > 1") and err.count("\n") == 1
    assert "python -m schedulers" not in err


def test_one_helper_prints_each_commands_warnings_on_one_line(capsys):
    import warnings

    from schedulers.tools.cli import plain_warnings

    for prog in ("cadence", "python -m schedulers"):
        with warnings.catch_warnings(), plain_warnings(prog):
            warnings.simplefilter("always")
            warnings.warn("two\n   lines", UserWarning, stacklevel=1)
        assert capsys.readouterr().err == f"{prog}: warning: two lines\n"


def test_plot_of_a_name_that_is_no_file_and_no_expression_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "params.yaml").write_text(CONFIG)
    assert main(["plot", "params"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cadence: error: no such file or schedule expression: 'params' (did you mean params.yaml?)")
    assert err.count("\n") == 1 and "--max-duration" not in err
    assert main(["plot", "runs/missing.yaml"]) == 2  # a config name: the config loader says it is missing
    assert "no such config file" in capsys.readouterr().err
    # an expression still goes to the expression mode, which names what it needs
    assert main(["plot", "cosine_with_warmup('0.05dur')"]) == 2
    assert "--max-duration" in capsys.readouterr().err


def test_plot_of_an_expression_with_a_misspelt_unit_suggests_the_time_meant(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["plot", "cosine_with_warmup(t_warmup='30bas')", "--max-duration", "100ba"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cadence: error: ") and err.count("\n") == 1, err
    assert "t_warmup='30bas' is not a time: unknown unit 'bas' (did you mean '30ba'?); expected" in err
    assert main(["plot", "cosine_with_warmup('5ba')", "--max-duration", "3epochs", "--dataloader-len", "10"]) == 2
    assert "(did you mean '3ep'?)" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_plot_image_without_matplotlib_is_one_line_naming_the_extra(config, tmp_path):
    image = tmp_path / "x.png"
    without = (
        "import sys; sys.modules['matplotlib'] = None; from trainer.cli import main; "
        f"sys.exit(main(['plot', {str(config)!r}, '-o', {str(image)!r}]))"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    result = subprocess.run(
        [sys.executable, "-c", without], cwd=HERE, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and not image.exists()
    errors = [line for line in result.stderr.splitlines() if line.startswith("cadence: error:")]
    assert errors == [
        "cadence: error: plotting a schedule needs matplotlib, which is not installed: pip install 'cadence[plot]' "
        "(or pip install 'matplotlib>=3.7'); without it, use schedule_table() or terminal_plot()"
    ]
    # the expression mode says the same
    expression = without.replace(f"'plot', {str(config)!r}", "'plot', \"cosine()\", '--max-duration', '10ba'")
    result = subprocess.run(
        [sys.executable, "-c", expression], cwd=HERE, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 2 and errors[0].split("error: ")[1] in result.stderr


def test_version_prints_the_installed_version(capsys):
    from importlib import metadata

    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"cadence {metadata.version('cadence')}\n"


def test_version_falls_back_to_the_source_tree(monkeypatch):
    from importlib import metadata

    from trainer import cli

    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    expected = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert cli.version() == expected


def test_ctrl_c_during_fit_exits_130_with_one_line(config, capsys, monkeypatch):
    from trainer.trainer import Trainer

    monkeypatch.chdir(HERE)

    def interrupted(self, duration=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(Trainer, "fit", interrupted)
    assert main(["fit", str(config)]) == 130
    captured = capsys.readouterr()
    assert captured.err == "cadence: interrupted\n" and "Traceback" not in captured.err


def test_ctrl_c_in_any_command_exits_130(capsys, monkeypatch):
    from trainer import cli

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_plot_config", interrupted)
    assert main(["plot", "run.yaml"]) == 130
    assert capsys.readouterr().err == "cadence: interrupted\n"


def test_dry_run_counts_every_scheduler_given(config, capsys, monkeypatch):
    monkeypatch.chdir(HERE)
    two = CONFIG.replace(
        """      - SequentialLR:
          schedulers:
            - LinearLR: {initial_learning_rate: 0.05, end_learning_rate: 0.01, total_iters: 10}
            - CosineDecayLR: {initial_learning_rate: 0.01, end_learning_rate: 0.001, total_iters: 10}
""",
        """      - CosineAnnealingWithWarmupScheduler: {t_warmup: 0.1dur}
      - ConstantScheduler: {alpha: 0.5}
""",
    )
    config.write_text(two)
    assert main(["fit", str(config), "--dry-run"]) == 0
    assert "2 scheduler(s) on lr" in capsys.readouterr().out


def test_plot_accepts_the_sambaflow_flags(config, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(HERE)
    csv = tmp_path / "lr.csv"
    assert main(["plot", str(config), "--lr_schedule", "fixed_lr", "--learning_rate", "0.3", "--csv", str(csv)]) == 0
    lines = csv.read_text().splitlines()
    column = lines[0].split(",").index("lr/group0")
    assert len(lines) == 21 and {float(line.split(",")[column]) for line in lines[1:]} == {0.3}


def test_a_folder_that_cannot_be_created_exits_2_naming_the_key_and_the_folder(config, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(HERE)
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    args = ["fit", str(config), "--set", f"trainer.init.checkpoint.save_folder={blocker / 'runs'}"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("cadence: error: trainer.init.checkpoint.save_folder (from --set ")
    assert f"cannot create the folder {str(blocker / 'runs')!r}: {str(blocker)!r} is a file" in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_flag_warnings_name_both_values(config, capsys, monkeypatch):
    monkeypatch.chdir(HERE)
    assert main(["fit", str(config), "--dry-run", "--max_steps", "10", "--steps_this_run", "25"]) == 0
    err = capsys.readouterr().err
    assert "cadence: warning: trainer.init.loop.num_steps (from --steps_this_run): 25 steps this run" in err
    assert "trainer.init.loop.max_steps (from --max_steps) = 10" in err
    assert main(["fit", str(config), "--dry-run", "--learning_rate", "0"]) == 0
    assert "cadence: warning: --learning_rate 0: " in capsys.readouterr().err


# ----------------------------------------------------------------------------------------------------
# Errors at the start, each told once
# ----------------------------------------------------------------------------------------------------

needs_proc = pytest.mark.skipif(
    not Path("/proc/self").is_dir(), reason="/proc (Linux) takes no new file, even from root"
)


@needs_proc
@pytest.mark.parametrize(
    "setting, key",
    [
        ("trainer.init.checkpoint.save_folder=/proc/nope", "trainer.init.checkpoint.save_folder"),
        ("trainer.init.loggers=[{CSVLogger: {path: /proc/nope/m.csv}}]", "trainer.init.loggers[0].CSVLogger.path"),
        (
            "trainer.init.loggers=[{CSVLogger: {path: m.csv, hparams_path: /proc/h.json}}]",
            "trainer.init.loggers[0].CSVLogger.hparams_path",
        ),
        (
            "trainer.init.loggers=[{TensorBoardLogger: {log_dir: /proc/tb}}]",
            "trainer.init.loggers[0].TensorBoardLogger.log_dir",
        ),
        (
            "trainer.init.callbacks=[{LRMonitor: {csv_path: /proc/lr.csv}}]",
            "trainer.init.callbacks[0].LRMonitor.csv_path",
        ),
    ],
)
def test_a_place_the_run_cannot_write_fails_the_dry_run_naming_its_key(config, capsys, monkeypatch, setting, key):
    """``os.access`` says yes to root for /proc: that passed --dry-run and died at the final save."""
    monkeypatch.chdir(HERE)
    assert main(["fit", str(config), "--dry-run", "--set", setting]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cadence: error: {key} (from --set ") and "'/proc' " in err, err
    assert "is not writable" in err or "cannot write in the folder '/proc'" in err
    assert err.count("\n") == 1 and "Traceback" not in err


@needs_proc
def test_an_unwritable_save_folder_stops_fit_before_the_first_batch(config, capsys, monkeypatch):
    monkeypatch.chdir(HERE)
    assert main(["fit", str(config), "--set", "trainer.init.checkpoint.save_folder=/proc/nope"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "cadence: error: trainer.init.checkpoint.save_folder (from --set trainer.init.checkpoint.save_folder="
        "/proc/nope): cannot create the folder '/proc/nope': '/proc' is not writable (No such file or directory)\n"
    )


def test_the_dry_run_checks_the_places_it_writes_without_creating_them(config, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(HERE)
    out = tmp_path / "out"
    out.mkdir()
    settings = [
        f"trainer.init.checkpoint.save_folder={out / 'runs' / 'a'}",
        f"trainer.init.loggers=[{{CSVLogger: {{path: {out / 'logs' / 'm.csv'}}}}}]",
        f"trainer.init.callbacks=[{{LRMonitor: {{csv_path: {out / 'lr.csv'}}}}}]",
    ]
    assert main(["fit", str(config), "--dry-run", *[item for s in settings for item in ("--set", s)]]) == 0
    assert list(out.iterdir()) == []  # no folder made, no probe file left behind
    capsys.readouterr()


def test_a_nonfinite_loss_is_one_line_naming_the_set_that_trains_on(config, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(HERE)
    config.write_text(
        CONFIG.replace(
            'model: "config_fixtures:tiny_model"',
            "model: {factory: config_fixtures:PoisonedRegression, kwargs: {at: 13}}",
        )
        .replace("loss_fn: mse_loss", "loss_fn: null")
        .replace(
            "      max_steps: 20\n",
            f"      max_steps: 20\n    checkpoint: {{save_folder: {tmp_path / 'run'}, steps: 5}}\n",
        )
    )
    assert main(["fit", str(config)]) == 1
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert lines[-1] == (
        "cadence: error: the loss of batch 13 (epoch 1) is nan: training stopped before its optimizer "
        f"step; the last checkpoint is {tmp_path / 'run' / 'ba00000010.pt'} (to train on, add --set "
        "trainer.init.loop.on_nonfinite_loss=warn)"
    )
    assert "Traceback" not in err and err.count("cadence: error") == 1 and 'on_nonfinite_loss="warn"' not in err


def test_plot_blames_the_ssr_flag_the_user_typed(config, capsys, monkeypatch):
    monkeypatch.chdir(HERE)
    assert main(["plot", str(config), "--ssr", "0"]) == 2
    assert capsys.readouterr().err == (
        "cadence: error: trainer.init.loop.scale_schedule_ratio (from --ssr 0.0): "
        "must be a finite number > 0, got 0.0\n"
    )
    assert main(["plot", str(config), "--ssr", "0.29", "--ssr", "-1"]) == 2
    assert "(from --ssr -1.0): must be a finite number > 0" in capsys.readouterr().err


def test_two_lr_writers_tell_the_set_that_made_them_once(config, capsys, monkeypatch):
    monkeypatch.chdir(HERE)
    value = (
        "[{ConstantLR: {learning_rate: 0.1}}, "
        "{ExponentialLR: {initial_learning_rate: 0.1, total_iters: 10, decay_rate: 0.5}}]"
    )
    assert main(["plot", str(config), "--set", f"trainer.init.schedulers={value}"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "cadence: error: trainer.init.schedulers[0] (from --set trainer.init.schedulers=...): "
        "trainer.init.schedulers[0] (ConstantLR) and trainer.init.schedulers[1] (ExponentialLR) all write 'lr': "
        "a torch, Cerebras or SambaFlow scheduler must be the only writer of its hyperparameter "
        "(only Cadence schedules on one key multiply)\n"
    )
    assert (
        main(
            [
                "fit",
                str(config),
                "--dry-run",
                "--set",
                "trainer.init.schedulers=[{ConstantLR: {learning_rate: 0.1}}, 7]",
            ]
        )
        == 2
    )
    assert "(from --set trainer.init.schedulers=[{ConstantLR: {learning_rate: 0.1}}, 7])" in capsys.readouterr().err


@pytest.mark.parametrize("argument", ["--version", "--help", "-h"])
def test_version_and_help_answer_without_importing_torch(argument):
    code = (
        "import sys\nfrom trainer.cli import main\n"
        f"try:\n    main([{argument!r}])\nexcept SystemExit as exited:\n    status = exited.code\n"
        "print('status', status, 'torch' in sys.modules, 'schedulers' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.stdout.splitlines()[-1] == "status 0 False False", result.stdout + result.stderr
    assert ("cadence 0" if argument == "--version" else "COMMAND") in result.stdout


def test_fit_resumed_with_another_batch_size_goes_on_at_the_item_the_run_reached(config, tmp_path, capsys, monkeypatch):
    """docs/resume.md, "With another batch size": 13 steps of 8 (64 items, 8 steps an epoch: 40 items of epoch 1),
    then batches of 16: the 24 left in 2 steps, one epoch of 4, and 192 samples as the uninterrupted run."""
    import torch

    monkeypatch.chdir(HERE)
    config.write_text(
        CONFIG.replace("      max_steps: 20\n", "      max_duration: 3ep\n").replace(
            'train_dataloader: "config_fixtures:train_loader"',
            'train_dataloader: {factory: "config_fixtures:train_loader", kwargs: {batch_size: 8}}',
        )
    )
    folder = tmp_path / "ckpt"
    common = ["--set", f"trainer.init.checkpoint.save_folder={folder}", "--set", "trainer.init.progress_bar=false"]
    assert main(["fit", str(config), *common, "--steps_this_run", "13"]) == 0
    capsys.readouterr()
    resumed = ["--set", "trainer.fit.train_dataloader.kwargs.batch_size=16", "--set", f"trainer.fit.ckpt_path={folder}"]
    assert main(["fit", str(config), *common, *resumed]) == 0
    err = capsys.readouterr().err
    assert "batch_size 8 -> 16" in err and "this epoch goes on after item 40 of its order" in err, err
    end = torch.load(folder / "ba00000019.pt", weights_only=True)["timestamp"]
    assert (end["epoch"], end["batch"], end["sample"]) == (3, 19, 192)
