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
