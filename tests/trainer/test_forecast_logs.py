"""Forecasting from another trainer's log: a CSV, a .csv.gz or a TensorBoard folder, its columns found by name
or named by flags, a log of every k-th step, the logs refused (exit 2, one line, nothing written),
``--schedule EXPR --max-duration T`` (its lr curve the plot's) and ``--fit-until STEP``.

The logs are written here from the annealing law itself (with 0.3% noise), so a held-out forecast must land
close to what the log measured.
"""

from __future__ import annotations

import csv
import gzip
import math
import sys
import warnings
from pathlib import Path

import pytest
import torch

from timeunits import Time
from trainer.cli import main
from trainer.forecast import ForecastError, fit_law, forecast_config, load_law
from trainer.forecast.held_out import end_window, fitted_part, held_out, points_from
from trainer.forecast.laws import AnnealingLaw
from trainer.forecast.logs import COLUMN_NAMES, read_log, read_log_series
from trainer.forecast.recipes import ScheduleRecipe

ROOT = Path(__file__).resolve().parents[2]
GPT = ROOT / "examples" / "logs" / "gpt100m-811.csv.gz"
STEPS = 600
PEAK = 3e-3
#: the schedule of the written logs: constant, then a linear decay over the last 30% to 0.1 of the peak
SCHEDULE = "wsd('0ba', t_decay='0.3dur', alpha_f=0.1)"
PARAMETERS = {"L0": 2.5, "A": 3.0, "alpha": 0.4, "C": 0.0015}
DECAY = 0.9


def wsd_lrs(steps: int = STEPS) -> torch.Tensor:
    """The lr of steps 0..steps-1 of :data:`SCHEDULE` at :data:`PEAK` (as the plot evaluates it)."""
    return ScheduleRecipe(SCHEDULE, Time(steps, "ba"), PEAK).lrs()


def law_losses(lrs: torch.Tensor, seed: int = 0) -> torch.Tensor:
    """The loss at steps 0..n-1 (after that many updates) of the annealing law, with 0.3% noise; step 0: 11.0."""
    law = AnnealingLaw(DECAY)
    areas = law.areas(lrs / lrs.max())
    p = {name: torch.tensor(value, dtype=torch.float64) for name, value in PARAMETERS.items()}
    clean = law.loss(p, law.at(areas, torch.arange(1, len(lrs))))
    noise = 1 + 0.003 * torch.randn(len(clean), generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    return torch.cat([torch.tensor([11.0], dtype=torch.float64), clean * noise])


def write_log(path: Path, columns=("step", "lr", "loss"), *, every: int = 1, lrs=None, losses=None) -> Path:
    """A log of every ``every``-th step (a CSV, gzipped when ``path`` ends in .gz)."""
    lrs = wsd_lrs() if lrs is None else lrs
    losses = law_losses(lrs) if losses is None else losses
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(columns)
        for step in range(0, len(lrs), every):
            writer.writerow([step, float(lrs[step]), float(losses[step])])
    return path


def forecast(capsys, *args: str) -> tuple[int, str, str]:
    try:
        status = main(["forecast", *map(str, args)])
    except SystemExit as done:  # a usage mistake argparse finds: one line, status 2
        status = done.code
    out, err = capsys.readouterr()
    return status, out, err


def quietly(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


# -- reading: each format, each name ----------------------------------------------------------------------------


def test_a_csv_log_is_the_run_of_its_rows(tmp_path):
    run = read_log(write_log(tmp_path / "log.csv"))
    lrs, losses = wsd_lrs(), law_losses(wsd_lrs())
    assert len(run.lrs) == STEPS and torch.allclose(run.lrs, lrs)  # the lr of step s is eta_{s+1}
    assert run.updates.tolist() == list(range(1, STEPS))  # step 0's loss is before any update: no point
    assert torch.allclose(run.losses, losses[1:])
    assert (run.lr_column, run.loss_column, run.unit) == ("lr", "loss", "step")
    assert run.counts.tolist() == [float(k) for k in range(1, STEPS + 1)]


def test_a_gzipped_csv_and_a_tensorboard_folder_read_as_the_csv(tmp_path):
    pytest.importorskip("tensorboard")
    from torch.utils.tensorboard import SummaryWriter

    plain = read_log(write_log(tmp_path / "log.csv"))
    zipped = read_log(write_log(tmp_path / "log.csv.gz"))
    lrs, losses = wsd_lrs(), law_losses(wsd_lrs())
    writer = SummaryWriter(str(tmp_path / "tb" / "run"))
    for step in range(STEPS):
        writer.add_scalar("learning_rate", float(lrs[step]), step)
        writer.add_scalar("train/loss", float(losses[step]), step)
    writer.close()
    board = read_log(tmp_path / "tb")  # the folder above the run's: its one run found
    assert torch.equal(zipped.lrs, plain.lrs) and torch.equal(zipped.losses, plain.losses)
    assert (board.lr_column, board.loss_column) == ("learning_rate", "train/loss")
    assert torch.allclose(board.lrs, plain.lrs, rtol=1e-6) and torch.allclose(board.losses, plain.losses, rtol=1e-6)
    assert torch.equal(board.updates, plain.updates)


def test_a_tensorboard_folder_without_tensorboard_says_which_extra(tmp_path, monkeypatch):
    folder = tmp_path / "tb"
    folder.mkdir()
    (folder / "events.out.tfevents.1.host").write_bytes(b"")
    monkeypatch.setitem(sys.modules, "tensorboard.backend.event_processing.event_accumulator", None)
    monkeypatch.setitem(sys.modules, "tensorboard.backend.event_processing", None)
    with pytest.raises(ForecastError, match=r"needs tensorboard: pip install 'cadence\[tensorboard\]'"):
        read_log(folder)


@pytest.mark.parametrize(("role", "name"), [(role, name) for role, names in COLUMN_NAMES.items() for name in names])
def test_each_common_name_is_found(tmp_path, role, name):
    columns = {"step": "step", "lr": "lr", "loss": "loss"}
    if role != "step":  # keep the other roles on names that are not a better match than the one tried
        columns = {"step": "global_step", "lr": "learning_rate", "loss": "lm loss"}
    columns[role] = name
    run = read_log(write_log(tmp_path / "log.csv", (columns["step"], columns["lr"], columns["loss"])))
    assert (run.lr_column, run.loss_column) == (columns["lr"], columns["loss"])
    assert len(run.lrs) == STEPS and len(run.updates) == STEPS - 1


@pytest.mark.parametrize(
    ("columns", "what"),
    [
        (("_step", "train/learning_rate", "train/loss"), "W&B export"),
        (("trainer/global_step", "train/learning_rate", "train/loss"), "Hugging Face Trainer"),
        (("iteration", "learning-rate", "lm loss"), "Megatron"),
    ],
)
def test_other_trainers_column_names(tmp_path, columns, what):
    run = read_log(write_log(tmp_path / "log.csv", columns))
    assert (run.lr_column, run.loss_column) == columns[1:], what


def test_a_wandb_export_logs_the_lr_and_the_loss_in_rows_of_their_own(tmp_path):
    lrs, losses = wsd_lrs(), law_losses(wsd_lrs())
    path = tmp_path / "wandb.csv"
    with open(path, "w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["_step", "_runtime", "train/learning_rate", "train/loss"])
        for step in range(STEPS):
            writer.writerow([step, step * 0.1, float(lrs[step]), ""])
            writer.writerow([step, step * 0.1, "", float(losses[step])])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every step's lr is there: nothing held
        run = read_log(path)
    assert torch.allclose(run.lrs, lrs) and torch.allclose(run.losses, losses[1:])


def test_columns_named_by_flags_and_a_missing_one_says_did_you_mean(tmp_path):
    path = write_log(tmp_path / "log.csv", ("it", "my_lr", "val"))
    run = read_log(path, step_column="it", lr_column="my_lr", loss_column="val")
    assert (run.lr_column, run.loss_column) == ("my_lr", "val")
    with pytest.raises(ForecastError) as error:
        read_log(path, step_column="it", lr_column="my-lr", loss_column="val")
    assert str(error.value) == f"{path}: no column 'my-lr' (did you mean my_lr?) (its columns: it, my_lr, val)"


def test_the_real_gpt_log_is_read_by_its_own_names():
    run = read_log(GPT)
    assert (run.lr_column, run.loss_column, len(run.lrs)) == ("lr", "Metrics/loss", 33908)
    window = end_window(len(run.lrs))
    assert window == 500 and round(float(run.losses[run.updates > len(run.lrs) - window].mean()), 4) == 2.6650
    assert math.isclose(float(run.lrs[27125]), 1e-3) and math.isclose(
        float(run.lrs[27126]), 1e-3 / 10**0.5, rel_tol=1e-6
    )


# -- every k-th step --------------------------------------------------------------------------------------------


def test_every_kth_step_holds_the_last_lr_with_one_warning(tmp_path):
    path = write_log(tmp_path / "log.csv", every=7)
    with pytest.warns(UserWarning) as caught:
        run = read_log(path)
    assert len(caught) == 1
    assert "lr is logged at 86 of the 596 steps (every 7th step)" in str(caught[0].message)
    assert "the last logged lr is held (give --schedule" in str(caught[0].message)
    lrs = wsd_lrs()
    held = lrs[(torch.arange(596) // 7) * 7]
    assert torch.equal(run.lrs, held)
    assert run.updates.tolist() == list(range(7, 596, 7))


def test_every_kth_step_takes_the_schedules_lr_between_logged_steps(tmp_path):
    path = write_log(tmp_path / "log.csv", every=7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the schedule gives every logged lr: no warning
        run = read_log(path, schedule_lrs=wsd_lrs())
    assert torch.allclose(run.lrs, wsd_lrs()[:596], rtol=0, atol=1e-15)


def test_a_schedule_that_does_not_give_the_logged_lrs_is_not_used_to_fill(tmp_path):
    path = write_log(tmp_path / "log.csv", every=7)
    other = ScheduleRecipe("cosine()", Time(STEPS, "ba"), PEAK).lrs()
    with pytest.warns(UserWarning, match="the --schedule given does not give the logged lr at every logged step"):
        run = read_log(path, schedule_lrs=other)
    assert torch.equal(run.lrs, wsd_lrs()[(torch.arange(596) // 7) * 7])


def test_the_gpt_log_every_10th_step_is_filled_exactly_by_its_step_schedule(tmp_path):
    full = read_log(GPT)
    path = write_log(
        tmp_path / "gpt-every10.csv", every=10, lrs=full.lrs, losses=torch.cat([full.losses[:1], full.losses])
    )
    schedule = "MultiStepScheduler(['27126ba', '30517ba'], gamma=0.31622776601683794)"
    recipe = ScheduleRecipe(schedule, Time(33908, "ba"), 1e-3)
    run = read_log(path, schedule_lrs=recipe.lrs())
    assert len(run.lrs) == 33901 and torch.allclose(run.lrs, full.lrs[:33901], rtol=1e-9)
    held = quietly(read_log, path)
    assert not torch.allclose(held.lrs, full.lrs[:33901])  # held across the decays: 27126..27129 wrong


# -- refused: not a training log --------------------------------------------------------------------------------


def _refused(capsys, path: Path, *flags: str) -> str:
    status, out, err = forecast(capsys, path, *flags)
    assert status == 2 and out == "" and err.count("\n") == 1 and err.startswith("cadence: error: "), (status, out, err)
    written = [file for file in path.parent.iterdir() if file != path]
    assert not written, f"a refused log must write nothing: {written}"
    return err


def test_a_log_without_an_lr_column_is_refused_in_one_line(tmp_path, capsys):
    path = tmp_path / "log.csv"
    path.write_text("step,loss,grad_norm\n0,3.0,1.0\n1,2.9,1.0\n")
    err = _refused(capsys, path, "-o", tmp_path / "fit.png")  # no picture either
    assert "no lr column (looked for lr, learning_rate, lr-AdamW" in err
    assert "its columns: step, loss, grad_norm" in err and "--lr-column" in err


def test_an_lr_that_is_zero_throughout_is_refused(tmp_path, capsys):
    path = write_log(tmp_path / "log.csv", lrs=torch.zeros(STEPS, dtype=torch.float64), losses=law_losses(wsd_lrs()))
    assert "lr is 0 at every logged step" in _refused(capsys, path)


@pytest.mark.parametrize("bad", [math.nan, math.inf, 0.0])
def test_a_loss_that_is_not_finite_and_positive_is_refused(tmp_path, capsys, bad):
    losses = law_losses(wsd_lrs())
    losses[250] = bad
    path = write_log(tmp_path / "log.csv", losses=losses)
    assert f"loss at step 250 is {bad}: a loss must be finite and > 0" in _refused(capsys, path)


def test_steps_that_go_back_are_refused(tmp_path, capsys):
    path = write_log(tmp_path / "log.csv")
    lines = path.read_text().splitlines()
    path.write_text("\n".join([*lines, "300,0.003,2.9"]) + "\n")  # a resumed run's rows appended
    assert f"step goes back from {STEPS - 1} to 300 (row {STEPS + 2})" in _refused(capsys, path)


def test_a_missing_named_column_is_refused_naming_the_file_and_the_column(tmp_path, capsys):
    path = write_log(tmp_path / "log.csv")
    err = _refused(capsys, path, "--loss-column", "val_loss")
    assert f"{path}: no column 'val_loss'" in err and "(its columns: step, lr, loss)" in err


def test_a_gzip_that_is_not_one_is_one_line(tmp_path, capsys):
    path = tmp_path / "log.csv.gz"
    path.write_bytes(b"\x1f\x8b" + b"not gzip at all")
    assert "cannot be read as a CSV log" in _refused(capsys, path)


def test_step_and_loss_columns_do_not_apply_to_a_cadence_run(tmp_path, capsys):
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "metrics.csv").write_text("batch,sample,lr/group0,train/loss\n1,8,0.1,4.0\n")
    status, _, err = forecast(capsys, folder, "--step-column", "step")
    assert status == 2 and "--step-column names a column of another trainer's log" in err


# -- --schedule -------------------------------------------------------------------------------------------------


def test_the_schedules_lr_curve_is_the_plots(tmp_path, capsys):
    """A preview must equal the run: the forecast's lr curve is what python -m schedulers plot prints."""
    from schedulers.tools.cli import main as plot

    expression = "wsd('10ba', t_decay='0.25dur', decay_shape='cosine', alpha_f=0.05)"
    assert plot(["plot", expression, "--max-duration", "480ba", "--base-lr", "0.003", "--csv", "-"]) == 0
    rows = list(csv.DictReader(capsys.readouterr().out.splitlines()))
    plotted = torch.tensor([float(row[expression]) for row in rows], dtype=torch.float64)
    law = quietly(fit_law, [read_log(write_log(tmp_path / "log.csv"))], law=AnnealingLaw(DECAY))
    (found,) = forecast_config(law, ScheduleRecipe(expression, Time(480, "ba"), 0.003))
    assert found.label == "schedule" and len(found.lrs) == 480
    assert torch.allclose(found.lrs, plotted, rtol=1e-12, atol=0)


@pytest.fixture(scope="module")
def fitted_log(tmp_path_factory) -> Path:
    """A log and the law fitted on it (saved beside it), through the command."""
    folder = tmp_path_factory.mktemp("log")
    path = write_log(folder / "log.csv")
    assert main(["forecast", str(path), "--decay", str(DECAY)]) == 0
    return path


def test_schedule_with_max_duration_and_budgets(fitted_log, capsys):
    law = fitted_log.parent / "forecast-law.json"
    status, out, err = forecast(
        capsys, law, "--schedule", SCHEDULE, "--max-duration", "600ba", "--budgets", "0.5dur", "1dur", "2dur"
    )
    assert status == 0, err
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.startswith("max_duration-")}
    assert list(rows) == ["max_duration-300ba", "max_duration-600ba", "max_duration-1200ba"]
    assert [rows[name][0] for name in rows] == ["300", "600", "1200"]
    losses = [float(rows[name][2]) for name in rows]
    assert losses[0] > losses[1] > losses[2]  # a longer run of the same recipe ends lower
    measured = float(law_losses(wsd_lrs())[-30:].mean())  # the 1dur budget is the logged run itself
    assert abs(losses[1] / measured - 1) < 0.01
    assert "steps" in out  # the x axis and the table count steps


def test_schedule_alone_forecasts_its_own_run_at_the_logs_peak(fitted_log, capsys):
    law = load_law(fitted_log.parent / "forecast-law.json")
    status, out, _ = forecast(
        capsys, fitted_log.parent / "forecast-law.json", "--schedule", SCHEDULE, "--max-duration", "600ba"
    )
    assert status == 0
    row = next(line.split() for line in out.splitlines() if line.startswith("schedule "))
    expected = forecast_config(law, ScheduleRecipe(SCHEDULE, Time(600, "ba"), PEAK))[0]
    assert row[1] == "600" and float(row[3]) == pytest.approx(expected.final_loss, abs=1e-4)
    status, out, _ = forecast(
        capsys,
        fitted_log.parent / "forecast-law.json",
        "--schedule",
        SCHEDULE,
        "--max-duration",
        "600ba",
        "--lr",
        "0.0015",
    )
    half = next(line.split() for line in out.splitlines() if line.startswith("schedule "))
    assert float(half[3]) > float(row[3])  # half the peak: less area, a higher loss


def test_schedule_with_a_target_and_with_ssr(fitted_log, capsys):
    law = fitted_log.parent / "forecast-law.json"
    base = [law, "--schedule", SCHEDULE, "--max-duration", "600ba"]
    status, out, err = forecast(capsys, *base, "--budgets", "0.5dur", "2dur", "--target", "2.75")
    assert status == 0, err
    assert "smallest budget forecast to reach 2.75: max_duration-" in out
    status, out, err = forecast(capsys, *base, "--ssr", "0.5", "2")
    assert status == 0, err
    assert [line.split()[:2] for line in out.splitlines() if line.startswith("ssr-")] == [
        ["ssr-0.5", "300"],
        ["ssr-2.0", "1200"],
    ]


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--schedule", SCHEDULE], "--schedule needs --max-duration"),
        (["--max-duration", "600ba"], "--max-duration belongs to --schedule"),
        (["--lr", "0.1"], "--lr belongs to --schedule"),
        (["--schedule", SCHEDULE, "--max-duration", "600ba", "--config", "run.yaml"], "give one of them"),
        (["--schedule", SCHEDULE, "--max-duration", "600ba", "--grid", "t_decy=0.1dur"], "did you mean 't_decay'"),
        (
            ["--schedule", SCHEDULE, "--max-duration", "600ba", "--grid", "alpha_f=0.5,x"],
            "--grid alpha_f=x: alpha_f='x' must be a number",
        ),
        (
            ["--schedule", "LinearScheduler(0.5, 1.0)", "--max-duration", "600ba", "--optimize"],
            "does not start at the peak",
        ),
        (["--schedule", SCHEDULE, "--max-duration", "600ba", "--set", "a.b=1"], "--set changes a config"),
        (["--schedule", "wsd(t_decya='0.2dur')", "--max-duration", "600ba"], "t_decya"),
        (["--schedule", "cosine('1ep')", "--max-duration", "600ba"], "give --dataloader-len"),
        (["--schedule", SCHEDULE, "--max-duration", "0.5dur"], "--max-duration"),
    ],
)
def test_schedule_mistakes_are_one_line(fitted_log, capsys, flags, message):
    status, out, err = forecast(capsys, fitted_log.parent / "forecast-law.json", *flags)
    assert status == 2 and out == "" and err.count("\n") == 1 and message in err, err


def test_schedule_with_a_grid_of_one_of_its_arguments(fitted_log, capsys):
    law_file = fitted_log.parent / "forecast-law.json"
    grid = ["--grid", "t_decay=0.1dur,0.3dur,0.6dur", "--budgets", "1dur"]
    status, out, err = forecast(capsys, law_file, "--schedule", SCHEDULE, "--max-duration", "600ba", *grid)
    assert status == 0, err
    rows = {line.split()[0]: float(line.split()[3]) for line in out.splitlines() if line.startswith("t_decay=")}
    assert list(rows) == ["t_decay=0.1dur", "t_decay=0.3dur", "t_decay=0.6dur"]
    law = load_law(law_file)
    for value, loss in zip(("0.1dur", "0.3dur", "0.6dur"), rows.values(), strict=True):
        expression = f"wsd('0ba', t_decay='{value}', alpha_f=0.1)"
        (expected,) = forecast_config(law, ScheduleRecipe(expression, Time(600, "ba"), PEAK))
        assert loss == pytest.approx(expected.final_loss, abs=1e-4)
    best = min(rows, key=rows.get)
    assert f"best of the grid: {best} (forecast {rows[best]:.4f})" in out


def test_schedule_with_optimize_recommends_an_expression(fitted_log, capsys):
    from schedulers.tools.expressions import parse_schedule

    law_file = fitted_log.parent / "forecast-law.json"
    status, out, err = forecast(capsys, law_file, "--schedule", SCHEDULE, "--max-duration", "600ba", "--optimize")
    assert status == 0, err
    line = next(line for line in out.splitlines() if line.startswith("recommended ("))
    expression = line.split('--schedule "')[1].rstrip('"')
    parse_schedule(expression)  # a schedule python -m schedulers plot and --schedule take
    shown = float(line.split("forecast ")[1].split()[0])
    (again,) = forecast_config(load_law(law_file), ScheduleRecipe(expression, Time(600, "ba"), PEAK))
    assert again.final_loss == pytest.approx(shown, abs=1e-4)  # the expression printed is the one forecast
    assert "the --schedule given: forecast" in out


# -- --fit-until ------------------------------------------------------------------------------------------------


def test_fit_until_forecasts_the_held_out_end_from_the_logs_own_lr(tmp_path, capsys):
    path = write_log(tmp_path / "log.csv")
    picture = tmp_path / "fit.png"
    status, out, err = forecast(
        capsys, path, "--fit-until", "480", "--decay", str(DECAY), "--save", tmp_path / "law.json", "-o", picture
    )
    assert status == 0, err
    assert f"wrote {picture}" in out and picture.stat().st_size > 0  # the log, the law and its forecast drawn
    measured = float(law_losses(wsd_lrs())[-30:].mean())  # the last 600 // 20 = 30 steps
    assert f"fitted on {path} up to step 480, forecast from its own lr curve to its end (step 599)" in out
    line = next(line for line in out.splitlines() if line.startswith("final loss: measured"))
    assert f"measured {measured:.4f} (mean of the last 30 steps)" in line
    forecast_value = float(line.split("forecast ")[1].split()[0])
    assert abs(forecast_value / measured - 1) < 0.01  # the law wrote the log: the held-out end is forecast
    assert f"error {forecast_value / measured - 1:+.2%}" in line
    law = load_law(tmp_path / "law.json")
    assert law.runs[0]["batches"] == 480  # fitted on the first part only


def test_fit_until_through_python(tmp_path):
    run = read_log(write_log(tmp_path / "log.csv"))
    part = fitted_part(run, 480)
    assert len(part.lrs) == 480 and int(part.updates.max()) == 480
    law = fit_law([part], law=AnnealingLaw(DECAY))
    result = held_out(law, run, 480)
    assert result.window == 30 and result.measured == pytest.approx(float(run.losses[-30:].mean()))
    assert result.predicted == pytest.approx(float(law.predict(run.lrs, run.updates[-30:]).mean()))
    assert abs(result.error) < 0.01


def test_fit_until_too_late_or_with_a_config_is_one_line(tmp_path, capsys):
    path = write_log(tmp_path / "log.csv")
    assert "fit until step 569 at most" in _refused(capsys, path, "--fit-until", "590")
    assert "give it without --budgets" in _refused(capsys, path, "--fit-until", "400", "--budgets", "1dur")


def test_read_log_series_keeps_each_columns_own_steps(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("step,lr,loss\n0,0.1,\n1,0.1,3.0\n2,,2.9\n3,0.05,2.8\n")
    series = quietly(read_log_series, path)
    assert series.lr_steps.tolist() == [0, 1, 3] and series.loss_steps.tolist() == [1, 2, 3]
    assert series.peak_lr == 0.1 and series.steps == 4


# -- --fit-from -----------------------------------------------------------------------------------------------


def test_fit_from_leaves_out_the_first_points_and_keeps_the_whole_lr_curve(tmp_path, capsys):
    (tmp_path / "log").mkdir()
    path = write_log(tmp_path / "log" / "log.csv")
    run = read_log(path)
    part = points_from(run, 100)
    assert torch.equal(part.lrs, run.lrs) and int(part.updates.min()) == 100  # the areas still count from step 1
    assert len(part.losses) == int((run.updates >= 100).sum())
    (tmp_path / "laws").mkdir()
    saved = tmp_path / "laws" / "a.json"
    status, out, err = forecast(capsys, path, "--fit-from", "100", "--decay", str(DECAY), "--save", saved)
    assert status == 0, err
    law = load_law(saved)
    assert law.runs[0]["points"] == len(part.losses) < law.runs[0]["batches"]
    assert "must come before --fit-until 100" in _refused(capsys, path, "--fit-from", "100", "--fit-until", "100")
    assert "logs no loss from step 700 on" in _refused(capsys, path, "--fit-from", "700")
    assert "not a saved law" in _refused(capsys, saved, "--fit-from", "100")


def test_fit_from_with_several_runs_starts_every_run_at_the_one_step(tmp_path, capsys):
    """docs/forecast.md: one ``--fit-from`` step for every run given, each run's lr curve whole."""
    first = write_log(tmp_path / "a.csv")
    second = write_log(tmp_path / "b.csv", lrs=wsd_lrs(500), losses=law_losses(wsd_lrs(500), seed=1))
    saved = tmp_path / "law.json"
    status, out, err = forecast(capsys, first, second, "--fit-from", "137", "--decay", str(DECAY), "--save", saved)
    assert status == 0, err
    runs = load_law(saved).runs
    assert [run["batches"] for run in runs] == [STEPS, 500]  # each lr curve from step 1
    counted = [int((quietly(read_log, path).updates >= 137).sum()) for path in (first, second)]
    assert [run["points"] for run in runs] == counted == [STEPS - 137, 500 - 137]


def test_the_docs_real_log_workflow_forecasts_the_held_out_second_decay_within_0_3_percent(tmp_path, capsys):
    """docs/forecast.md's first command on the real 34k-step log: fitted from step 1,000 to the second decay,
    its end (measured 2.6650, the mean of the last 500 steps) forecast within 0.3%; from step 1 the law does
    not describe the first transient and the fit is refused in one line."""
    status, out, err = forecast(
        capsys,
        GPT,
        "--fit-from",
        "1000",
        "--fit-until",
        "30517",
        "--save",
        tmp_path / "law.json",
        "-o",
        tmp_path / "f.png",
    )
    assert status == 0, err
    line = next(line for line in out.splitlines() if line.startswith("final Metrics/loss: measured"))
    assert "measured 2.6650 (mean of the last 500 steps)" in line
    assert abs(float(line.split("forecast ")[1].split()[0]) / 2.6650 - 1) < 0.003
    (tmp_path / "copy").mkdir()
    copy = tmp_path / "copy" / GPT.name
    copy.write_bytes(GPT.read_bytes())
    assert "does not describe the runs" in _refused(capsys, copy, "--fit-until", "30517")
