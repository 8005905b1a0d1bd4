"""``cadence sweep --forecast``: the law fitted on the largest point forecasts every point, in summary.csv, the
printed table and the picture. The points here are finished run folders whose loss follows the law (so the
forecast of each is known); the sweep itself is trainer.sweep.engine.run_points, as cadence sweep runs it, with
trainer.forecast.sweeps.add_forecasts (what cadence sweep --forecast passes it).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import torch

from timeunits import Time
from trainer.cli import build_parser
from trainer.forecast import AnnealingLaw, fit_law
from trainer.forecast.fitting import BENCH
from trainer.forecast.sweeps import FORECAST_COLUMNS
from trainer.forecast.sweeps import add_forecasts as add_any_forecasts
from trainer.sweep import folders
from trainer.sweep.engine import run_points
from trainer.sweep.plan import MAX_DURATION, Budget, SweepPoint

LAW = AnnealingLaw()


def add_forecasts(points, rows, log=print):
    """``cadence sweep --forecast``'s forecasts with the annealing law, which generated these points (so the forecast
    of each is known exactly); the default law's choice is test_the_sweep_fits_the_default_law_and_says_why."""
    add_any_forecasts(points, rows, log, law="annealing")


TRUE = {"L0": 1.5, "A": 3.0, "alpha": 0.5, "C": 0.02, "delay": 6.0}


def wsd(batches: int, warmup: int = 20, peak: float = 0.01) -> torch.Tensor:
    lrs = torch.full((batches,), peak, dtype=torch.float64)
    lrs[:warmup] = torch.arange(warmup, dtype=torch.float64) / warmup * peak
    steps = batches // 5
    lrs[batches - steps :] = peak * (1 - torch.arange(1, steps + 1) / steps)
    return lrs


def finished_point(
    folder: Path, batches: int, skew: float = 1.0, *, start: int = 0, every: int = 10, is_main: bool = False
) -> SweepPoint:
    """A finished point of ``batches`` whose losses follow the law (times ``skew`` after batch ``start``),
    evaluated every ``every`` batches; with ``start``, a WSD branch as a job array leaves it: its rows start
    after ``start`` (its decay start)."""
    lrs = wsd(batches)
    updates = torch.arange(1, batches + 1)
    p = {k: torch.tensor(v, dtype=torch.float64) for k, v in TRUE.items()}
    after = LAW.loss(p, LAW.at(LAW.areas(lrs / 0.01), updates.clamp(min=2)))  # the loss after u updates
    after[start:] *= skew
    folder.mkdir(parents=True)
    header = ["batch", "epoch", "sample", "token", "train/loss", "lr/group0", "eval/loss"]
    with open(folder / folders.METRICS, "w", newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(header)
        for batch in range(start + 1, batches + 1):
            before = float(after[batch - 2]) if batch > 1 else 5.0  # a training loss: before the batch's update
            writer.writerow([batch, 0, 8 * batch, 0, before, float(lrs[batch - 1]), ""])
            if batch % every == 0 or batch == batches:
                writer.writerow([batch, 0, 8 * batch, 0, "", "", float(after[batch - 1])])
    folders.mark_done(folder, {"wall_time_s": 1.0, "start_batch": start})
    return SweepPoint(Budget(MAX_DURATION, Time(batches, "ba")), folder, is_main=is_main)


class Finished:
    """A launcher whose points are all finished (run_points never asks it to run one)."""

    def command(self, point):
        return None

    def run(self, points, jobs, finish):  # pragma: no cover - nothing is left to run
        raise AssertionError(f"{points} should have been skipped")


def test_every_point_gets_the_forecast_of_a_law_fitted_on_the_largest(tmp_path):
    points = [finished_point(tmp_path / "small", 120, skew=1.01), finished_point(tmp_path / "large", 300)]
    printed = []
    rows = run_points(points, Finished(), tmp_path, 1, log=printed.append, forecast=add_forecasts)
    assert any(
        line.startswith("sweep: forecast from max_duration-300ba: annealing law on eval/loss") for line in printed
    )
    # the small point's decay starts before the large one's: its forecast is flagged as an extrapolation, once
    flagged = [line for line in printed if " extrapolates: " in line]
    assert len(flagged) == 1 and flagged[0].startswith("sweep: the forecast of max_duration-120ba extrapolates: ")
    assert "its lr falls from S1 = " in flagged[0]
    small, large = rows
    # the small point's loss is 1% above the law: its forecast is 1% low; the large one is the fit itself
    assert small["forecast_error"] == pytest.approx(1 / 1.01 - 1, abs=1e-3)
    assert small["forecast_final_loss"] == pytest.approx(small["final_eval_loss"] / 1.01, rel=1e-3)
    assert abs(large["forecast_error"]) < 1e-3
    with open(tmp_path / "summary.csv", newline="") as stream:
        written = list(csv.DictReader(stream))
    assert tuple(written[0])[-6:] == FORECAST_COLUMNS
    assert float(written[0]["forecast_low"]) < small["forecast_final_loss"] < float(written[0]["forecast_high"])
    assert written[0]["forecast_of"] == "eval/loss"
    assert float(written[0]["forecast_error"]) == pytest.approx(small["forecast_error"], rel=1e-12)
    assert "forecast_error" in printed[-2]  # the printed table has the columns too


def test_the_picture_shows_each_forecast_beside_the_measured_loss(tmp_path):
    pytest.importorskip("matplotlib")
    from trainer.sweep.picture import draw_sweep

    points = [finished_point(tmp_path / "small", 120, skew=1.01), finished_point(tmp_path / "large", 300)]
    rows = run_points(points, Finished(), tmp_path / "out", 1, log=lambda line: None, forecast=add_forecasts)
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
    rows = run_points(points[1:], Finished(), tmp_path, 1, log=printed.append, forecast=add_forecasts)
    assert rows[0]["forecast_final_loss"] is None and rows[0]["forecast_error"] is None
    assert any(line.startswith("sweep: no forecast: ") and "no lr column" in line for line in printed)


def test_a_branch_that_holds_only_its_decay_is_read_with_its_main_run(tmp_path):
    """The job-array flow: a branch's metrics.csv starts at its decay start (batch 97 of 120); it is forecast
    with the main run's rows before it (no "gap"), and cadence forecast fits the sweep folder as one argument,
    each shared point once."""
    main = finished_point(tmp_path / "max_duration-300ba", 300, is_main=True)
    branch = finished_point(tmp_path / "max_duration-120ba", 120, skew=1.01, start=96)
    printed = []
    rows = run_points([branch, main], Finished(), tmp_path, 1, log=printed.append, forecast=add_forecasts)
    assert not any("no forecast" in line for line in printed), printed
    assert rows[0]["forecast_error"] == pytest.approx(1 / 1.01 - 1, abs=2e-3)  # the branch's own rows are 1% high
    law = fit_law([tmp_path])
    assert [run["folder"] for run in law.runs] == [str(branch.folder), str(main.folder)]
    # the main run's 30 evaluations (2 in the warmup) and the branch's own 100, 110, 120: those before 97 once
    assert law.points == sum(run["points"] for run in law.runs) == 28 + 3


def test_a_training_loss_fit_is_labelled_scored_on_the_same_batches_and_drawn_on_its_own_axis(tmp_path):
    pytest.importorskip("matplotlib")
    from trainer.sweep.picture import draw_sweep

    points = [finished_point(tmp_path / "small", 120, every=1000), finished_point(tmp_path / "large", 300, every=1000)]
    rows = run_points(points, Finished(), tmp_path / "out", 1, log=lambda line: None, forecast=add_forecasts)
    small = rows[0]
    assert small["forecast_of"] == "train/loss, last 10 batches"
    # the training losses of batches 111..120 (measured after 110..119 updates), and the law's there
    p = {k: torch.tensor(v, dtype=torch.float64) for k, v in TRUE.items()}
    law_there = LAW.loss(p, LAW.at(LAW.areas(wsd(120) / 0.01), torch.arange(110, 120)))
    assert small["forecast_measured"] == pytest.approx(float(law_there.mean()), rel=1e-9)
    assert abs(small["forecast_error"]) < 1e-3
    figure = draw_sweep(points, rows)
    own = figure.axes[3]
    assert own.get_ylabel().startswith("training loss") and "forecast" in [line.get_label() for line in own.lines]
    assert "final eval loss" in figure.axes[2].get_ylabel()


def test_a_degenerate_fit_is_refused_in_one_line(tmp_path):
    """A law whose L0 falls to about 0 (the loss of these points keeps falling as a pure power law) is no basis
    for a forecast: the sweep says so in one line and leaves the columns empty."""
    folder = tmp_path / "power"
    folder.mkdir()
    with open(folder / folders.METRICS, "w", newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(["batch", "epoch", "sample", "token", "train/loss", "lr/group0", "eval/loss"])
        for batch in range(1, 201):
            writer.writerow([batch, 0, 8 * batch, 0, 3.0 * batch**-0.5, 0.01, ""])
            if batch % 10 == 0:
                writer.writerow([batch, 0, 8 * batch, 0, "", "", 3.0 * batch**-0.5])
    folders.mark_done(folder, {"wall_time_s": 1.0, "start_batch": 0})
    point = SweepPoint(Budget(MAX_DURATION, Time(200, "ba")), folder)
    printed = []
    (row,) = run_points([point], Finished(), tmp_path / "out", 1, log=printed.append, forecast=add_forecasts)
    (line,) = [line for line in printed if line.startswith("sweep: no forecast: ")]
    assert "is degenerate: L0 = " in line and "\n" not in line
    assert row["forecast_error"] is None


def test_the_sweep_command_takes_forecast():
    args = build_parser().parse_args(["sweep", "run.yaml", "--budgets", "0.5dur", "1dur", "--forecast"])
    assert args.forecast is True
    assert build_parser().parse_args(["sweep", "run.yaml", "--ssr", "1"]).forecast is False
    assert json.dumps(args.max_duration) == '["0.5dur", "1dur"]'


def test_forecast_uses_the_sweep_and_the_sweep_imports_nothing_of_forecast():
    """The two packages import one way (docs/architecture.md): trainer.forecast reads the sweep's budgets and
    folders; cadence sweep --forecast hands trainer.forecast.sweeps.add_forecasts to the sweep engine."""
    import ast

    root = Path(__file__).resolve().parents[2] / "trainer" / "sweep"
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            found += [f"{path.name}: {name}" for name in names if name.startswith("trainer.forecast")]
    assert found == []


def test_the_sweep_fits_the_default_law_and_says_why(tmp_path):
    points = [finished_point(tmp_path / "small", 120, skew=1.01), finished_point(tmp_path / "large", 300)]
    printed = []
    rows = run_points(points, Finished(), tmp_path, 1, log=printed.append, forecast=add_any_forecasts)
    assert any(
        line.startswith("sweep: forecast from max_duration-300ba: multi-power law on eval/loss") for line in printed
    )
    assert any(line.startswith("sweep: law: ") and line.endswith(BENCH) for line in printed)
    assert rows[0]["forecast_error"] == pytest.approx(1 / 1.01 - 1, abs=0.01)
