"""``cadence forecast`` end to end: a small real run (the classifier of examples/classifier_wsd.yaml, 240
batches), the law fitted on it, a config forecast at other budgets, choosing, and one-line errors.

No accuracy threshold: what is checked is that each step runs through the public command and says what it
did (bench/forecast.py measures accuracy).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trainer.cli import main
from trainer.forecast import load_law, read_run
from trainer.forecast.fitting import BENCH

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "examples" / "classifier_wsd.yaml"
COSINE = "trainer.init.schedulers.0.CosineAnnealingScheduler"
SETS = [
    "trainer.init.optimizer.SGD.lr=0.01",  # a smooth loss curve (at 0.1 the eval loss jumps about)
    "trainer.init.loop.max_steps=240",
    "trainer.init.loop.eval_frequency=10",
    "trainer.init.progress_bar=false",
]


def sets(*extra: str) -> list[str]:
    return [part for value in [*SETS, *extra] for part in ("--set", value)]


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """A WSD run to 240 batches, evaluated every 10, logged to run/metrics.csv."""
    folder = tmp_path_factory.mktemp("forecast") / "run"
    logger = json.dumps([{"CSVLogger": {"path": str(folder / "metrics.csv")}}])
    assert main(["fit", str(CONFIG), *sets(f"trainer.init.loggers={logger}")]) == 0
    return folder


def forecast(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["forecast", *args])
    out, err = capsys.readouterr()
    return status, out, err


def table_rows(out: str) -> dict[str, list[str]]:
    return {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.startswith("max_duration-")}


def test_forecast_fits_saves_and_forecasts_each_budget(run, capsys):
    status, out, err = forecast(capsys, str(run), "--config", str(CONFIG), *sets(), "--budgets", "0.5dur", "2dur")
    assert status == 0, err
    law = load_law(run / "forecast-law.json")  # saved beside the run's metrics
    assert law.loss_column == "eval/loss" and law.runs[0]["folder"] == str(run) and law.converged
    assert f"multi-power law on eval/loss of 1 run(s), {law.points} points" in out and "saved to" in out
    assert (
        "\nlaw: " in out and BENCH in out
    )  # which law (the default, or the annealing law where its fit is not degenerate)
    rows = table_rows(out)
    assert list(rows) == ["max_duration-120ba", "max_duration-480ba"]
    assert rows["max_duration-120ba"][0] == "120" and rows["max_duration-480ba"][0] == "480"
    assert rows["max_duration-480ba"][-1] == "extrapolates" == rows["max_duration-120ba"][-1]
    for row in rows.values():  # each forecast with its 80% interval around it, wider at twice the fitted run
        low, high = map(float, row[3].split("-"))
        assert low < float(row[2]) < high
    widths = [float(row[3].split("-")[1]) / float(row[3].split("-")[0]) for row in rows.values()]
    assert widths[1] > widths[0]
    assert "80% interval" in out
    # the budget beyond the fitted run is flagged, with the fitted range, in one warning line; the shorter
    # one's decay starts at 96ba, before the fitted run's (192ba), in another
    (warning,) = [line for line in err.splitlines() if "lr area S1" in line]
    assert warning.startswith("cadence: warning: max_duration-480ba: its lr area S1 = ")
    assert "beyond the fitted runs'" in warning
    (earlier,) = [line for line in err.splitlines() if "falls from" in line]
    assert earlier.startswith("cadence: warning: max_duration-120ba: its lr falls from S1 = ")
    assert "forecast max_duration-480ba" in out and "measured run" in out  # the text plot's legend


def test_the_forecast_of_the_fitted_run_is_its_law_curve(run, capsys):
    """The fitted run's own config, forecast through the preview, ends where the law ends on the logged lrs."""
    law_file = run / "law-again.json"
    status, out, err = forecast(capsys, str(run), "--save", str(law_file), "--config", str(CONFIG), *sets())
    assert status == 0, err
    law = load_law(law_file)
    logged = read_run(run)
    (final,) = law.predict(logged.lrs, [len(logged.lrs)]).tolist()
    (row,) = [line for line in out.splitlines() if line.startswith("config")]
    assert float(row.split()[3]) == pytest.approx(final, abs=5e-5)  # the table rounds to 4 decimals


def test_a_target_and_a_grid_choose_with_the_forecasts(run, capsys):
    law = str(run / "forecast-law.json")
    if not Path(law).exists():
        assert forecast(capsys, str(run))[0] == 0
    reachable = load_law(law).runs[0]["final_loss"] * 1.04  # the interval is about ±3%: surely within the run
    status, out, err = forecast(
        capsys, law, "--config", str(CONFIG), *sets(), "--budgets", "0.25dur", "1dur", "--target", str(reachable)
    )
    assert status == 0, err
    assert "smallest budget forecast to reach" in out
    surely = out.split("smallest budget that surely reaches it: ")[1].split()[0]
    chosen = out.split("smallest budget forecast to reach")[1].split(": ")[1].split()[0]
    assert (
        chosen.startswith("max_duration-") and 60 < int(chosen.removeprefix("max_duration-").removesuffix("ba")) <= 240
    )
    batches = [int(label.removeprefix("max_duration-").removesuffix("ba")) for label in (chosen, surely)]
    assert batches[0] < batches[1]  # surely (the interval's upper end) needs more than likely (the forecast)
    key = "trainer.init.schedulers.0.WarmupStableDecayScheduler.t_decay"
    status, out, err = forecast(capsys, law, "--config", str(CONFIG), *sets(), "--grid", f"{key}=0.1dur,0.3dur,0.5dur")
    assert status == 0, err
    labels = [line.split()[0] for line in out.splitlines() if line.startswith(key)]
    assert labels == [f"{key}=0.1dur", f"{key}=0.3dur", f"{key}=0.5dur"]
    assert "best of the grid: " + key in out
    assert "stands apart" in out or "the forecasts cannot tell it from " in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nowhere"], "cadence: error: nowhere: no metrics.csv"),
        (["{run}", "--budgets", "0.5dur"], "cadence: error: --budgets, --ssr, --target and --grid forecast a config"),
        (
            ["{run}", "--law", "annealing", "--loss", "train", "--config", "{config}", "--budgets", "0.3333dur"],
            "budget",
        ),
        (["{run}", "--config", "{config}", "--budgets", "0dur"], "cadence: error: budget '0dur' must be > 0"),
        (["{run}/forecast-law.json", "--law", "annealing"], "cadence: error: {run}/forecast-law.json is a saved "),
        (["{run}/forecast-law.json", "--decay", "0.9"], "cadence: error: {run}/forecast-law.json is a saved law"),
        (["{run}", "--save", "{run}/missing/law.json"], "cadence: error: --save {run}/missing/law.json: the folder"),
        (
            ["{run}/forecast-law.json", "--config", "{config}", "--budgets", "0.5dur", "1dur", "--optimize"],
            "cadence: error: --optimize forecasts at one budget: give one value to --budgets",
        ),
        (
            ["{run}/forecast-law.json", "--config", "{config}", "--ssr", "0.5", "1", "--grid", f"{COSINE}.alpha_f=0.1"],
            "cadence: error: --grid forecasts at one budget: give one value to --ssr",
        ),
        (
            ["{run}/forecast-law.json", "--config", "{config}", "--grid", f"{COSINE}.alpha_f=0.1,0.2"],
            f"cadence: error: --grid {COSINE}.alpha_f: the config's schedule 0 is WarmupStableDecayScheduler, not",
        ),
    ],
)
def test_bad_input_is_one_line(run, capsys, args, message):
    if not (run / "forecast-law.json").exists():
        assert forecast(capsys, str(run))[0] == 0
    status, out, err = forecast(capsys, *(a.format(run=run, config=CONFIG) for a in args))
    assert status == 2 and out == ""
    (line,) = [line for line in err.splitlines() if not line.startswith("cadence: warning:")]
    message = message.format(run=run)
    assert line.startswith(message) if message.startswith("cadence") else line.startswith("cadence: error: ")
    assert "Time(" not in line and ".tmp" not in line


@pytest.mark.parametrize("target", ["nan", "0", "low"])
def test_a_target_that_is_no_loss_is_one_line_naming_the_flag(capsys, target):
    # a flag's value is read and checked as every number is (schedulers.core.schedule_arguments.number_flag)
    with pytest.raises(SystemExit) as exited:
        main(["forecast", "nowhere", "--target", target])
    assert exited.value.code == 2  # a bound refused at its value is stated for every mistake
    assert capsys.readouterr().err == (
        f"cadence forecast: error: argument --target: --target={target!r} must be a finite number > 0 "
        "(see cadence forecast --help)\n"
    )


@pytest.mark.parametrize("flag", ["--width", "--height"])
def test_a_count_flag_is_checked_under_its_own_name(capsys, flag):
    with pytest.raises(SystemExit) as exited:
        main(["forecast", "nowhere", flag, "0"])
    assert exited.value.code == 2
    assert capsys.readouterr().err == (
        f"cadence forecast: error: argument {flag}: {flag}='0' must be an integer >= 1 (see cadence forecast --help)\n"
    )


def test_the_same_run_given_twice_is_counted_once(run, tmp_path, capsys):
    """Given twice (or a copy of it under another name), a run is fitted once, with a one-line note: the same fit
    as the run alone."""
    alone = tmp_path / "alone.json"
    assert forecast(capsys, str(run), "--save", str(alone))[0] == 0
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "metrics.csv").write_bytes((run / "metrics.csv").read_bytes())
    for again in (run, copy):
        twice = tmp_path / "twice.json"
        status, out, err = forecast(capsys, str(run), str(again), "--save", str(twice))
        assert status == 0, err
        assert (
            err == f"cadence: warning: {again}: every point is also an earlier run's (the same run given twice?): "
            "counted once\n"
        )
        assert "of 1 run(s)" in out
        assert load_law(twice).parameters == pytest.approx(load_law(alone).parameters, rel=1e-9)
        assert [r["folder"] for r in load_law(twice).runs] == [str(run)]


def test_an_lr_that_is_zero_everywhere_is_one_line_and_writes_nothing(run, tmp_path, capsys):
    lines = (run / "metrics.csv").read_text().splitlines()
    column = lines[0].split(",").index("lr/group0")
    rows = [line.split(",") for line in lines[1:]]
    for row in rows:
        if row[column] != "":
            row[column] = "0.0"
    (tmp_path / "metrics.csv").write_text("\n".join([lines[0], *(",".join(row) for row in rows)]) + "\n")
    status, out, err = forecast(capsys, str(tmp_path))
    assert status == 2 and out == ""
    assert err == (
        f"cadence: error: {tmp_path / 'metrics.csv'}: lr/group0 is 0 at every batch: not the lr of a training run "
        "(nothing trained, no law applies)\n"
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["metrics.csv"]


def test_a_budget_that_ends_in_its_warmup_is_one_line_and_no_forecast(run, capsys):
    """The law is fitted after the warmup: a run whose lr still rises at its end is outside what it can say."""
    if not (run / "forecast-law.json").exists():
        assert forecast(capsys, str(run))[0] == 0
    warmup = "trainer.init.schedulers=[{CosineAnnealingWithWarmupScheduler: {t_warmup: 30ba}}]"
    status, out, err = forecast(
        capsys, str(run / "forecast-law.json"), "--config", str(CONFIG), *sets(warmup), "--budgets", "20ba", "0.5dur"
    )
    assert status == 2 and out == ""
    assert err.splitlines()[-1] == (
        "cadence: error: max_duration-20ba: the run ends in its warmup (its lr still rises at its last batch, 20): "
        "outside what the fit can say (the law is fitted after the warmup); give a budget past the warmup"
    )
    status, out, err = forecast(
        capsys, str(run / "forecast-law.json"), "--config", str(CONFIG), *sets(warmup), "--budgets", "31ba"
    )
    assert status == 0 and "max_duration-31ba" in out  # one update past the warmup: forecast


def test_another_batch_size_than_the_fitted_runs_is_one_line(run, capsys):
    """The law counts updates: a config whose batches hold other samples than the fitted runs' (their sample
    column: 64 a batch) is refused, naming both."""
    if not (run / "forecast-law.json").exists():
        assert forecast(capsys, str(run))[0] == 0
    assert load_law(run / "forecast-law.json").runs[0]["samples_per_batch"] == 64
    halved = "trainer.fit.train_dataloader.kwargs.batch_size=32"
    status, out, err = forecast(capsys, str(run / "forecast-law.json"), "--config", str(CONFIG), *sets(halved))
    assert status == 2 and out == ""
    assert err == (
        f"cadence: error: {CONFIG}: its batches hold 32 samples, the fitted runs' 64: the law counts updates, and "
        "another batch size changes what an update is (fit on runs of this batch size)\n"
    )


def test_an_empty_metrics_file_has_no_rows(tmp_path, capsys):
    (tmp_path / "metrics.csv").write_text("")
    status, out, err = forecast(capsys, str(tmp_path))
    assert (
        status == 2
        and err.strip() == f"cadence: error: {tmp_path / 'metrics.csv'}: no rows: the run logged nothing (yet)"
    )


def test_the_text_plot_keeps_one_marker_per_curve(run, capsys):
    """A grid of 12 values: the text plot shows as many forecasts as it has markers (the best among them)."""
    law = str(run / "forecast-law.json")
    if not Path(law).exists():
        assert forecast(capsys, str(run))[0] == 0
    values = ",".join(f"{d / 100:g}dur" for d in range(10, 70, 5))
    key = "trainer.init.schedulers.0.WarmupStableDecayScheduler.t_decay"
    status, out, err = forecast(capsys, law, "--config", str(CONFIG), *sets(), "--grid", f"{key}={values}")
    assert status == 0, err
    legend = [line.split()[0] for line in out.splitlines() if line.startswith("  ") and " forecast " in line]
    assert len(legend) == len(set(legend)) == 6  # 8 markers: the measured run, the law, 6 forecasts
    assert "(the text plot shows 6 of the 12 forecasts; -o FILE.png draws them all)" in out
    best = out.split("best of the grid: ")[1].split()[0]
    assert any(line.endswith(f"forecast {best}") for line in out.splitlines())


def test_optimize_recommends_a_monotone_schedule_that_trains_as_forecast(run, capsys):
    """The recommendation is the lowest forecast of its family, no worse than the config's own schedule's (the
    family holds it: the config's WSD with its 0.2dur linear decay to 0.01 is close to one of them), its lr never
    rises after the warmup, and its --set line previews to the curve that was forecast."""
    import torch

    from trainer.forecast import forecast_config
    from trainer.forecast.optimize import recommend

    law = load_law(run / "forecast-law.json") if (run / "forecast-law.json").exists() else None
    if law is None:
        assert forecast(capsys, str(run))[0] == 0
        law = load_law(run / "forecast-law.json")
    found = recommend(law, CONFIG, overrides=SETS, budget="1dur", decays=("0.2dur", "0.5dur"), shapes=("linear",))
    assert len(found.tried) == 5  # the free monotone curve and the 4 WSD schedules
    assert found.best.final_loss == min(f.final_loss for f in found.tried)
    lrs = found.best.lrs
    peak = int(torch.argmax(lrs))
    assert bool((lrs[peak + 1 :] <= lrs[peak:-1]).all())  # monotone after the warmup
    assert int((lrs[peak:-1] <= 1e-6 * lrs.max()).sum()) == 0  # no update waits at lr 0 (the last may reach it)
    (again,) = forecast_config(law, CONFIG, overrides=[*SETS, found.setting], budgets=["1dur"])
    assert again.final_loss == pytest.approx(found.best.final_loss, rel=1e-12)
    assert found.apart in (True, False)
    law_file = str(run / "forecast-law.json")
    status, out, err = forecast(capsys, law_file, "--config", str(CONFIG), *sets(), "--optimize", "--target", "1")
    assert status == 2 and err.startswith("cadence: error: --optimize chooses a schedule at one budget")
