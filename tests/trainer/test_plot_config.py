"""``cadence plot CONFIG.yaml``: every scheduled hyperparameter of a config, exactly as training will set it."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

CONFIG = """
trainer:
  init:
    model: "config_fixtures:tiny_model"
    loss_fn: mse_loss
    optimizer:
      AdamW: {lr: 0.01, weight_decay: 0.1}
    schedulers:
      - CosineAnnealingWithWarmupScheduler: {t_warmup: 0.1dur, alpha_f: 0.1}
      - {LinearScheduler: {alpha_i: 1.0, alpha_f: 0.5}, hyperparameter: weight_decay}
    loop: {max_steps: 40}
  fit:
    train_dataloader: "config_fixtures:train_loader"
"""


def _cadence(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{HERE}", "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, "-m", "trainer", *args], capture_output=True, text=True, cwd=cwd, env=env)


@pytest.fixture()
def config(tmp_path: Path) -> Path:
    path = tmp_path / "run.yaml"
    path.write_text(textwrap.dedent(CONFIG))
    return path


def test_csv_equals_what_training_writes(config: Path, tmp_path: Path) -> None:
    result = _cadence("plot", str(config), "--csv", str(tmp_path / "plot.csv"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader((tmp_path / "plot.csv").open()))
    assert len(rows) == 40

    sys.path.insert(0, str(HERE))
    try:
        from trainer import LRMonitor
        from trainer.config import load_config, trainer_from_config

        monitor = LRMonitor()
        trained = trainer_from_config(load_config(config), base_dir=config.parent)
        trained.callbacks.append(monitor)
        trained.fit()
    finally:
        sys.path.remove(str(HERE))
    assert [float(row["lr/group0"]) for row in rows] == monitor.values("lr")
    assert [float(row["weight_decay/group0"]) for row in rows] == monitor.values("weight_decay")


def test_png_has_one_curve_per_hyperparameter_and_ssr(config: Path, tmp_path: Path) -> None:
    matplotlib_image = pytest.importorskip("matplotlib.image")
    out = tmp_path / "plot.png"
    result = _cadence("plot", str(config), "--ssr", "0.5", "--ssr", "1", "--multipliers", "-o", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "(4 curves)" in result.stdout  # lr and weight_decay, at two ratios
    assert matplotlib_image.imread(out).ndim == 3  # a real image


def test_expressions_go_to_the_schedule_plotter(tmp_path: Path) -> None:
    result = _cadence("plot", "cosine_with_warmup('0.1dur')", "--max-duration", "100ba", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "cosine_with_warmup('0.1dur')" in result.stdout


def test_x_unit_is_read_as_every_unit_is(config: Path, capsys, fixtures_on_path) -> None:
    """``--x`` takes what a time unit takes (its long name too), and a typo gets the unit's own did-you-mean."""
    with pytest.raises(SystemExit) as exit_info:
        _main("plot", str(config), "--x", "epochs", capsys=capsys)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert "--x='epochs' is not a time unit (did you mean 'ep'?)" in err
    code, long_name, err = _main("plot", str(config), "--x", "batch", capsys=capsys)
    assert code == 0, err
    code, short_name, err = _main("plot", str(config), "--x", "ba", capsys=capsys)
    assert code == 0 and long_name == short_name


@pytest.mark.parametrize(
    "change, message",
    [
        ("    loop: {max_steps: 40}", "missing"),
        ("      - CosineAnnealingWithWarmupScheduler: {t_warmup: 0.1dur, alpha_f: 0.1}", "NoSuchScheduler"),
    ],
)
def test_bad_config_is_one_line_and_exit_2(config: Path, tmp_path: Path, change: str, message: str) -> None:
    text = config.read_text()
    replacement = "" if message == "missing" else "      - NoSuchScheduler: {}"
    config.write_text(text.replace(change, replacement))
    result = _cadence("plot", str(config), cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and result.stderr.startswith("cadence: error:")


# -- preview equals run: `cadence plot`'s CSV is LRMonitor's record of `cadence fit` -------------------------

EXAMPLES = ROOT / "examples"

CEREBRAS = """
trainer:
  init:
    seed: 3
    model: "config_fixtures:tiny_model"
    loss_fn: mse_loss
    optimizer:
      AdamW: {lr: 0.02, weight_decay: 0.1}
    schedulers:
      - SequentialLR:
          schedulers:
            - LinearLR: {initial_learning_rate: 0.001, end_learning_rate: 0.02, total_iters: 6}
            - CosineDecayLR: {initial_learning_rate: 0.02, end_learning_rate: 0.0001, total_iters: 24}
      - LinearWD: {initial_val: 0.1, end_val: 0.01, total_iters: 30}
    loop: {max_steps: 30, scale_schedule_ratio: 0.5, grad_accum_steps: 2}
  fit:
    train_dataloader: {factory: "config_fixtures:train_loader", kwargs: {batch_size: 4}}
"""

SAMBAFLOW_FLAGS = (
    "--lr_schedule", "cosine_schedule_with_warmup", "--warmup_steps", "5", "--max_steps", "40",
    "--learning_rate", "0.05", "--end_lr_ratio", "0.1",
)  # fmt: skip


def _main(*args: str, capsys) -> tuple[int, str, str]:
    from trainer.cli import main

    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _values(rows: list[dict]) -> dict[str, list[float]]:
    names = [name for name in rows[0] if "/group" in name]
    return {name: [float(row[name]) for row in rows] for name in names}


def _plot_and_fit(path: Path, tmp_path: Path, capsys, *flags: str, fit_flags: tuple[str, ...] = ()):
    """(plot rows, fit's LRMonitor rows) for one config and one set of command-line flags."""
    plot_csv, fit_csv = tmp_path / "plot.csv", tmp_path / "fit.csv"
    code, _, err = _main("plot", str(path), *flags, "--csv", str(plot_csv), capsys=capsys)
    assert code == 0, err
    monitor = f"trainer.init.callbacks=[{{LRMonitor: {{csv_path: {fit_csv}}}}}]"
    code, _, err = _main("fit", str(path), *flags, *fit_flags, "--set", monitor, capsys=capsys)
    assert code == 0, err
    return list(csv.DictReader(plot_csv.open())), list(csv.DictReader(fit_csv.open()))


@pytest.fixture()
def fixtures_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(HERE))
    monkeypatch.chdir(HERE)


@pytest.mark.parametrize(
    "name, flags",
    [
        ("classifier.yaml", ("--set", "trainer.init.loop.max_steps=60")),
        ("charlm.yaml", ("--set", "trainer.init.loop.max_duration=30_000tok")),
    ],
)
def test_plot_equals_fit_for_every_example(name, flags, tmp_path, capsys, fixtures_on_path):
    plotted, trained = _plot_and_fit(EXAMPLES / name, tmp_path, capsys, *flags)
    assert len(plotted) == len(trained) > 0
    assert _values(plotted) == _values(trained)


def test_plot_equals_fit_for_a_cerebras_config_with_ssr_and_grad_accum(tmp_path, capsys, fixtures_on_path):
    path = tmp_path / "cerebras.yaml"
    path.write_text(textwrap.dedent(CEREBRAS))
    plotted, trained = _plot_and_fit(path, tmp_path, capsys)
    assert len(plotted) == 15  # 30 steps scaled by the config's ratio 0.5: the preview takes it from the config
    assert _values(plotted) == _values(trained)
    assert set(_values(plotted)) == {"lr/group0", "weight_decay/group0"}


def test_ssr_flag_overrides_the_config(tmp_path, capsys, fixtures_on_path):
    path = tmp_path / "cerebras.yaml"
    path.write_text(textwrap.dedent(CEREBRAS))
    code, out, err = _main("plot", str(path), "--ssr", "1", "--csv", "-", capsys=capsys)
    assert code == 0, err
    assert len(list(csv.DictReader(out.splitlines()))) == 30


def test_plot_takes_the_sambaflow_flags_and_shows_the_whole_horizon(tmp_path, capsys, fixtures_on_path, config):
    plotted, trained = _plot_and_fit(config, tmp_path, capsys, *SAMBAFLOW_FLAGS, fit_flags=("--steps_this_run", "15"))
    assert len(plotted) == 40 and len(trained) == 15  # fit runs 15 steps of the 40-step horizon the plot shows
    lr = [float(row["lr/group0"]) for row in plotted]
    assert [float(row["lr/group0"]) for row in trained] == lr[:15]
    assert lr[0] == 0.0 and lr[5] == 0.05  # --warmup_steps 5 to --learning_rate


def test_csv_to_stdout_without_torch_step_order_warning(tmp_path, capsys, fixtures_on_path, config):
    code, out, err = _main("plot", str(config), "--csv", "-", capsys=capsys)
    assert code == 0, err
    assert "lr_scheduler.step()" not in err and "wrote" not in out
    rows = list(csv.DictReader(out.splitlines()))
    code, _, err = _main("plot", str(config), "--csv", str(tmp_path / "file.csv"), capsys=capsys)
    assert rows == list(csv.DictReader((tmp_path / "file.csv").open()))
    assert len(rows) == 40 and rows[0]["lr/group0"] == "0.0"


def test_multipliers_divide_by_the_lr_before_any_scheduler_wrote_it(tmp_path, capsys, fixtures_on_path):
    """Cerebras schedulers keep no initial_lr: the base is the optimizer's lr when the trainer got it (0.02)."""
    path = tmp_path / "cerebras.yaml"
    path.write_text(textwrap.dedent(CEREBRAS))
    plain = tmp_path / "plain.csv"
    assert _main("plot", str(path), "--csv", str(plain), capsys=capsys)[0] == 0
    code, out, err = _main("plot", str(path), "--multipliers", "--csv", "-", capsys=capsys)
    assert code == 0, err
    values = _values(list(csv.DictReader(plain.open())))
    multiples = _values(list(csv.DictReader(out.splitlines())))
    assert multiples["lr/group0"] == pytest.approx([v / 0.02 for v in values["lr/group0"]], rel=1e-15)
    assert multiples["weight_decay/group0"] == pytest.approx([v / 0.1 for v in values["weight_decay/group0"]])
    assert multiples["lr/group0"][0] == pytest.approx(0.001 / 0.02)


# -- dur: progress in max_duration's unit, for every unit ---------------------------------------------------

DUR_CONFIG = """
trainer:
  init:
    model: "config_fixtures:tiny_model"
    loss_fn: mse_loss
    get_num_tokens: {tokens}
    optimizer: {{SGD: {{lr: 0.1}}}}
    schedulers: [{{LinearScheduler: {{alpha_f: 0.5, t_max: 4ba}}}}]  # in batches: a run of unknown epochs
    loop: {{max_duration: {max_duration}}}
  fit:
    train_dataloader: {loader}
"""
SHORT_LAST = '{factory: "config_fixtures:train_loader", kwargs: {batch_size: 4, num_samples: 10}}'  # 4, 4, 2 samples
TOKENS = '"config_fixtures:token_batches"'  # 0, 4, 8, 12, 0, 4 tokens an epoch (4 samples each)
UNSIZED = '"config_fixtures:unsized_loader"'  # 4, 4, 2 samples, no len()


def _expected_dur(loader: str, max_duration: str, ssr: float) -> tuple[list[float], float]:
    """The fraction of the run before each batch, and after the last, counted here by hand from the data."""
    sys.path.insert(0, str(HERE))
    try:
        import config_fixtures

        if loader == TOKENS:
            per_batch = [config_fixtures.count_tokens(batch) for batch in config_fixtures.token_batches()]
        else:
            per_batch = [len(inputs) for inputs, _ in config_fixtures.unsized_loader()]
    finally:
        sys.path.remove(str(HERE))
    value, unit = int(max_duration[:-2].rstrip("st")), max_duration.lstrip("0123456789")
    if unit == "ep":  # fractional epochs: batches out of epochs x batches per epoch (ssr: whole batches)
        unit, value = "ba", int(value * len(per_batch) * ssr)
    else:
        value = int(value * ssr)
    counted, before = 0, []
    while counted < value:
        batch = len(before)
        before.append(counted)
        counted += 1 if unit == "ba" else per_batch[batch % len(per_batch)]
    return [count / value for count in before], counted / value


@pytest.mark.parametrize(
    "max_duration, loader, tokens, ssr",
    [
        ("25sp", SHORT_LAST, "null", 1.0),
        ("70tok", TOKENS, '"config_fixtures:count_tokens"', 1.0),
        ("70tok", TOKENS, '"config_fixtures:count_tokens"', 0.5),
        ("7ba", SHORT_LAST, "null", 1.0),
        ("10ba", SHORT_LAST, "null", 0.3),
        ("3ep", SHORT_LAST, "null", 1.0),
        ("3ep", SHORT_LAST, "null", 0.5),
        ("2ep", UNSIZED, "null", 1.0),
    ],
    ids=["sp", "tok", "tok-ssr0.5", "ba", "ba-ssr0.3", "ep", "ep-ssr0.5", "ep-without-len"],
)
def test_dur_is_the_fraction_in_max_durations_unit(
    max_duration, loader, tokens, ssr, tmp_path, capsys, fixtures_on_path
):
    """A run in tokens (or samples) is at tokens/max_duration, not at batches/its batches (issue: 0.4980 vs 0.4958)."""
    path = tmp_path / "run.yaml"
    path.write_text(textwrap.dedent(DUR_CONFIG.format(max_duration=max_duration, loader=loader, tokens=tokens)))
    flags = ("--ssr", str(ssr))
    code, out, err = _main("plot", str(path), *flags, "--csv", "-", capsys=capsys)
    assert code == 0, err
    rows = list(csv.DictReader(out.splitlines()))
    before, after = _expected_dur(loader, max_duration, ssr)
    assert [float(row["dur"]) for row in rows] == pytest.approx(before, rel=1e-12, abs=0)
    code, out, err = _main("plot", str(path), *flags, "--x", "dur", capsys=capsys)
    assert code == 0, err
    assert out.splitlines()[-3].split() == ["0", f"{after:.6g}"]  # the x axis ends where the last batch ends


def test_dur_of_epochs_of_different_lengths_without_len_is_one_line(tmp_path, capsys, fixtures_on_path):
    path = tmp_path / "run.yaml"
    loader = '{factory: "config_fixtures:unsized_loader", kwargs: {shrink: true}}'
    path.write_text(textwrap.dedent(DUR_CONFIG.format(max_duration="3ep", loader=loader, tokens="null")))
    code, out, err = _main("plot", str(path), "--csv", "-", capsys=capsys)
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        "cadence: error: max_duration=3ep: the train dataloader has no len() and its epochs had 1, 2, 3 batches, so "
        "where a batch lies in the run is unknown; give max_duration in ba, sp or tok to plot it"
    ]
