"""``cadence sweep --forecast``: the law fitted on the largest point forecasts every point, in summary.csv, the
printed table and the picture. The points here are finished run folders whose loss follows the law (so the
forecast of each is known); the sweep itself is trainer.sweep.engine.run_points, as cadence sweep runs it.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import torch

from timeunits import Time
from trainer.cli import build_parser
from trainer.forecast import AnnealingLaw
from trainer.sweep import folders
from trainer.sweep.engine import run_points
from trainer.sweep.plan import MAX_DURATION, Budget, SweepPoint

LAW = AnnealingLaw()
TRUE = {"L0": 1.5, "A": 3.0, "alpha": 0.5, "C": 0.02, "delay": 6.0}


def wsd(batches: int, warmup: int = 20, peak: float = 0.01) -> torch.Tensor:
    lrs = torch.full((batches,), peak, dtype=torch.float64)
    lrs[:warmup] = torch.arange(warmup, dtype=torch.float64) / warmup * peak
    steps = batches // 5
    lrs[batches - steps :] = peak * (1 - torch.arange(1, steps + 1) / steps)
    return lrs


def finished_point(folder: Path, batches: int, skew: float = 1.0) -> SweepPoint:
    """A finished point of ``batches`` whose losses follow the law (times ``skew``), evaluated every 10 batches."""
    lrs = wsd(batches)
    updates = torch.arange(1, batches + 1)
    p = {k: torch.tensor(v, dtype=torch.float64) for k, v in TRUE.items()}
    after = LAW.loss(p, LAW.at(LAW.areas(lrs / 0.01), updates.clamp(min=2))) * skew  # the loss after u updates
    folder.mkdir(parents=True)
    header = ["batch", "epoch", "sample", "token", "train/loss", "lr/group0", "eval/loss"]
    with open(folder / folders.METRICS, "w", newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(header)
        for batch in range(1, batches + 1):
            before = float(after[batch - 2]) if batch > 1 else 5.0  # a training loss: before the batch's update
            writer.writerow([batch, 0, 8 * batch, 0, before, float(lrs[batch - 1]), ""])
            if batch % 10 == 0 or batch == batches:
                writer.writerow([batch, 0, 8 * batch, 0, "", "", float(after[batch - 1])])
    folders.mark_done(folder, {"wall_time_s": 1.0, "start_batch": 0})
    return SweepPoint(Budget(MAX_DURATION, Time(batches, "ba")), folder)


class Finished:
    """A launcher whose points are all finished (run_points never asks it to run one)."""

    def command(self, point):
        return None

    def run(self, points, jobs, finish):  # pragma: no cover - nothing is left to run
        raise AssertionError(f"{points} should have been skipped")


def test_every_point_gets_the_forecast_of_a_law_fitted_on_the_largest(tmp_path):
    points = [finished_point(tmp_path / "small", 120, skew=1.01), finished_point(tmp_path / "large", 300)]
    printed = []
    rows = run_points(points, Finished(), tmp_path, 1, log=printed.append, forecast=True)
    assert any(
        line.startswith("sweep: forecast from max_duration-300ba: annealing law on eval/loss") for line in printed
    )
    small, large = rows
    # the small point's loss is 1% above the law: its forecast is 1% low; the large one is the fit itself
    assert small["forecast_error"] == pytest.approx(1 / 1.01 - 1, abs=1e-3)
    assert small["forecast_final_loss"] == pytest.approx(small["final_eval_loss"] / 1.01, rel=1e-3)
    assert abs(large["forecast_error"]) < 1e-3
    with open(tmp_path / "summary.csv", newline="") as stream:
        written = list(csv.DictReader(stream))
    assert list(written[0])[-2:] == ["forecast_final_loss", "forecast_error"]
    assert float(written[0]["forecast_error"]) == pytest.approx(small["forecast_error"], rel=1e-12)
    assert "forecast_error" in printed[-2]  # the printed table has the columns too


def test_the_picture_shows_each_forecast_beside_the_measured_loss(tmp_path):
    pytest.importorskip("matplotlib")
    from trainer.sweep.picture import draw_sweep

    points = [finished_point(tmp_path / "small", 120, skew=1.01), finished_point(tmp_path / "large", 300)]
    rows = run_points(points, Finished(), tmp_path / "out", 1, log=lambda line: None, forecast=True)
    figure = draw_sweep(points, rows)
    budget_ax = figure.axes[2]
    (forecast,) = [line for line in budget_ax.lines if line.get_label() == "forecast"]
    assert list(forecast.get_ydata()) == [row["forecast_final_loss"] for row in rows]
    assert "-1.0%" in [text.get_text() for text in budget_ax.texts]


def test_a_sweep_without_forecast_keeps_its_columns_and_a_failed_fit_leaves_them_empty(tmp_path):
    points = [finished_point(tmp_path / "a", 60), finished_point(tmp_path / "b", 100)]
    run_points(points, Finished(), tmp_path, 1, log=lambda line: None)
    with open(tmp_path / "summary.csv", newline="") as stream:
        assert "forecast_error" not in next(csv.reader(stream))
    (tmp_path / "b" / folders.METRICS).write_text("batch,epoch,sample,token,train/loss,eval/loss\n1,0,8,0,2.0,\n")
    printed = []
    rows = run_points(points[1:], Finished(), tmp_path, 1, log=printed.append, forecast=True)
    assert rows[0]["forecast_final_loss"] is None and rows[0]["forecast_error"] is None
    assert any(line.startswith("sweep: no forecast: ") and "no lr column" in line for line in printed)


def test_the_sweep_command_takes_forecast():
    args = build_parser().parse_args(["sweep", "run.yaml", "--budgets", "0.5dur", "1dur", "--forecast"])
    assert args.forecast is True
    assert build_parser().parse_args(["sweep", "run.yaml", "--ssr", "1"]).forecast is False
    assert json.dumps(args.max_duration) == '["0.5dur", "1dur"]'
