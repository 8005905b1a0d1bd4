"""How well a law fitted on a branched WSD sweep forecasts other runs, on a real model (docs/forecast.md).

Run: ``python bench/forecast.py [--seeds 0 1 2] [--out bench-forecast] [--law auto] [--fit sweep|main]
[--horizon 300_000tok] [--config FILE.yaml] [--set KEY=VALUE ...] [--picture FILE]``.

On ``examples/charlm.yaml`` (a character-level GRU language model; ``--config`` another recipe, ``--set`` a
change to it, each with its own ``--out``), for each seed:

1. ``cadence sweep --branch-from-stable --budgets 0.25dur 0.5dur 1dur`` with a warmup-stable-decay schedule
   (warmup 20,000 tokens, decay over the last 20% to 0.1 of the peak), evaluating every 10,000 tokens: the
   runs the law is fitted on (``--fit sweep``: the main run and its branches, decaying at three points;
   ``--fit main``: the main run alone);
2. the targets: the config's own cosine (to 0.1) at 0.25, 0.5, 1 and 2dur, the WSD at 2dur, and decays that
   end at lr 0 at 1dur (linear and cosine, same warmup);
3. each target's final eval loss forecast from its lr curve as the trainer previews it (what ``cadence
   forecast`` does), with its 80% interval, against the measured one;
4. apart from the goals, forecasts inside the fitted range: the WSD at 0.375 and 0.75dur (decays that start
   between the sweep's), to show how the intervals hold where the law does not extrapolate (fitted on the
   main run alone, they extrapolate too: its decay starts after theirs).

Prints each relative error, the mean absolute error by horizon (up to 1dur, 2dur) and overall, and how often
the measured loss lies inside the 80% interval (with the mean interval width); goals: mean error at most 1%
overall and 1.5% at 2dur, coverage at least 80%. The runs are the sweeps' run folders in ``--out``: a rerun
trains only what is missing. ``--horizon`` sets 1dur (a smaller one trains faster; the figures differ).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys

import attrs

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from trainer.forecast import FitError, fit_law, forecast_config, read_run  # noqa: E402

CONFIG = os.path.join(ROOT, "examples", "charlm.yaml")
RECIPE_SETS: list[str] = []  # --set: the recipe's changes, given to every run and forecast
WARMUP = "20_000tok"
SCHEDULES = {  # name: (the schedulers' --set, or None: the config's own cosine; the budgets; branched)
    "wsd": (f"[{{WarmupStableDecayScheduler: {{t_warmup: {WARMUP}, t_decay: 0.2dur, alpha_f: 0.1}}}}]", None, True),
    "cosine": (None, ("0.25dur", "0.5dur", "1dur", "2dur"), False),
    "wsd-2dur": (
        f"[{{WarmupStableDecayScheduler: {{t_warmup: {WARMUP}, t_decay: 0.2dur, alpha_f: 0.1}}}}]",
        ("2dur",),
        False,
    ),
    "linear-to-0": (f"[{{LinearWithWarmupScheduler: {{t_warmup: {WARMUP}, alpha_f: 0.0}}}}]", ("1dur",), False),
    "cosine-to-0": (
        f"[{{CosineAnnealingWithWarmupScheduler: {{t_warmup: {WARMUP}, alpha_f: 0.0}}}}]",
        ("1dur",),
        False,
    ),
    "wsd-between": (
        f"[{{WarmupStableDecayScheduler: {{t_warmup: {WARMUP}, t_decay: 0.2dur, alpha_f: 0.1}}}}]",
        ("0.375dur", "0.75dur"),
        False,
    ),
}
FITTED_BUDGETS = ("0.25dur", "0.5dur", "1dur")
EVAL_EVERY = "10_000tok"
GOAL, GOAL_LONG, COVERAGE = 0.01, 0.015, 0.8
# what each forecast is compared with: (schedule, budget)
TARGETS = (
    ("cosine", "0.25dur"),
    ("cosine", "0.5dur"),
    ("cosine", "1dur"),
    ("cosine", "2dur"),
    ("wsd-2dur", "2dur"),
    ("linear-to-0", "1dur"),
    ("cosine-to-0", "1dur"),
)
# forecasts inside the fitted range (decays that start between the sweep's), scored apart from the goals
WITHIN = (("wsd-between", "0.375dur"), ("wsd-between", "0.75dur"))


def use_recipe(path: str, sets: list[str] | None = None) -> None:
    """Train and forecast the recipe at ``path`` with ``sets`` (the benches' ``--config`` and ``--set``) instead of
    examples/charlm.yaml as it is: every run and every forecast takes them."""
    global CONFIG, RECIPE_SETS
    if not os.path.isfile(path):
        raise SystemExit(f"--config {path}: no such file")
    CONFIG, RECIPE_SETS = os.path.abspath(path), list(sets or [])


def recipe_name() -> str:
    """The recipe as the pictures name it: the config, and its ``--set`` changes (``lr=3e-2``)."""
    changes = [change.rsplit(".", 1)[-1] for change in RECIPE_SETS]
    return os.path.relpath(CONFIG, ROOT) + (f" ({', '.join(changes)})" if changes else "")


def budgets_of(schedule: str) -> tuple[str, ...]:
    return SCHEDULES[schedule][1] or FITTED_BUDGETS


def seed_sets(seed: int, schedule: str, horizon: str) -> list[str]:
    """The ``--set`` options of one seed's runs of ``schedule``."""
    sets = [
        f"trainer.init.seed={seed}",
        f"trainer.init.model.kwargs.seed={seed}",
        f"trainer.init.loop.eval_interval={EVAL_EVERY}",
        f"trainer.init.loop.max_duration={horizon}",
        "trainer.init.progress_bar=false",
        *RECIPE_SETS,
    ]
    schedulers = SCHEDULES[schedule][0]
    return [*sets, f"trainer.init.schedulers={schedulers}"] if schedulers else sets


def sweep(out: str, seed: int, schedule: str, horizon: str) -> str:
    """Run (or finish) one seed's sweep of ``schedule``; its folder."""
    folder = os.path.join(out, f"seed-{seed}", schedule)
    return run_sweep(folder, budgets_of(schedule), seed_sets(seed, schedule, horizon), SCHEDULES[schedule][2])


def run_sweep(folder: str, budgets: tuple[str, ...], sets: list[str], branch: bool = False) -> str:
    """Run (or finish) ``cadence sweep`` of the config over ``budgets`` with ``sets`` into ``folder``."""
    argv = [sys.executable, "-m", "trainer", "sweep", CONFIG, "--budgets", *budgets, "--out", folder]
    argv += ["--branch-from-stable"] if branch else []
    for value in sets:
        argv += ["--set", value]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return folder


def final_eval_losses(folder: str, budgets: tuple[str, ...]) -> dict[str, float]:
    """The measured final eval loss of each point of a sweep by its budget as listed (``"0.25dur"``), and its
    folder (``"0.25dur/folder"``), from the sweep's ``summary.csv``."""
    with open(os.path.join(folder, "summary.csv"), encoding="utf-8", newline="") as stream:
        rows = sorted(csv.DictReader(stream), key=lambda row: int(row["batches"]))
    found = {}
    for budget, row in zip(budgets, rows, strict=True):
        found[budget] = float(row["final_eval_loss"])
        found[budget + "/folder"] = os.path.join(folder, row["point"])
    return found


def bench_seed(out: str, seed: int, law_name: str, fit: str, horizon: str) -> tuple[dict, object]:
    """One seed: the runs (trained when missing), the fit, each forecast against its measurement; and what
    the picture needs."""
    folders = {schedule: sweep(out, seed, schedule, horizon) for schedule in SCHEDULES}
    measured = {schedule: final_eval_losses(folders[schedule], budgets_of(schedule)) for schedule in SCHEDULES}
    fitted_runs = [folders["wsd"]] if fit == "sweep" else [measured["wsd"]["1dur/folder"]]
    law = fit_law(fitted_runs, law=law_name, loss="eval")
    results, forecasts, finals = [], [], {}
    for schedule, budget in TARGETS + WITHIN:
        (forecast,) = forecast_config(law, CONFIG, overrides=seed_sets(seed, schedule, horizon), budgets=[budget])
        truth = measured[schedule][budget]
        label = f"{schedule} {budget}"
        if (schedule, budget) in TARGETS:
            forecasts.append(attrs.evolve(forecast, label=label))
            finals[label] = (forecast.final_count, truth)
        results.append(scored(forecast, label, truth, measured[schedule][budget + "/folder"]))
        results[-1]["goal"] = (schedule, budget) in TARGETS
    mean = sum(abs(r["error"]) for r in results if r["goal"]) / len(TARGETS)
    outcome = {
        "seed": seed,
        "law": law.to_json(),
        "fitted_runs": fitted_runs,
        "results": results,
        "mean_abs_error": mean,
    }
    return outcome, (law, fitted_runs, forecasts, finals)


def scored(forecast, label: str, truth: float, folder: str) -> dict:
    """One target's row: its forecast and interval against the measured final eval loss."""
    low, high = forecast.final_interval
    return {
        "run": label,
        "horizon": "2dur" if label.endswith(" 2dur") else "<=1dur",
        "forecast": forecast.final_loss,
        "low": low,
        "high": high,
        "inside": low <= truth <= high,
        "measured": truth,
        "error": forecast.final_loss / truth - 1,
        "folder": folder,
        "extrapolates": list(forecast.warnings),
    }


def report(outcome: dict) -> None:
    print(f"seed {outcome['seed']}: fitted on {', '.join(outcome['fitted_runs'])}: {summary_line(outcome['law'])}")
    if outcome["law"].get("choice"):
        print(f"  law: {outcome['law']['law']}, {outcome['law']['choice']}")
    for row in outcome["results"]:
        flag = "  (extrapolates)" if row["extrapolates"] else ""
        inside = "inside" if row["inside"] else "OUTSIDE"
        print(
            f"  {row['run']:<18} forecast {row['forecast']:.4f} [{row['low']:.4f}, {row['high']:.4f}]  measured "
            f"{row['measured']:.4f} ({inside})  error {row['error']:+.2%}{flag}"
        )
    print(f"  mean absolute relative error {outcome['mean_abs_error']:.2%}")


def summary_line(law: dict) -> str:
    values = ", ".join(f"{k}={v:.4g}" for k, v in law["parameters"].items())
    return f"{law['law']} law, {values}, fit error {law['fit']['error']:.2%}"


def overall(outcomes: list[dict]) -> None:
    """The mean error by horizon and overall, and the interval's coverage and width, over every seed (the
    goals over the :data:`TARGETS`; the :data:`WITHIN` forecasts apart)."""
    every = [row for outcome in outcomes for row in outcome["results"]]
    rows = [row for row in every if row.get("goal", True)]
    for horizon, goal in (("<=1dur", GOAL), ("2dur", GOAL_LONG)):
        some = [abs(row["error"]) for row in rows if row["horizon"] == horizon]
        if some:
            mean = sum(some) / len(some)
            print(f"mean absolute error, horizon {horizon}: {mean:.2%} over {len(some)} forecasts (goal {goal:.1%})")
    mean = sum(abs(row["error"]) for row in rows) / len(rows)
    verdict = "meets" if mean <= GOAL else "misses"
    print(f"mean over {len(outcomes)} seed(s): {mean:.2%} ({verdict} the goal of {GOAL:.0%})")
    inside = sum(row["inside"] for row in rows) / len(rows)
    width = sum(row["high"] / row["low"] - 1 for row in rows) / len(rows)
    print(f"80% interval: the measured loss inside for {inside:.0%} of {len(rows)} targets; mean width {width:.2%}")
    for flagged, label in ((True, "flagged as extrapolating"), (False, "not flagged")):
        some = [row for row in every if bool(row["extrapolates"]) == flagged]
        if some:
            held = sum(row["inside"] for row in some)
            mean = sum(abs(row["error"]) for row in some) / len(some)
            print(f"  every forecast {label}: inside {held} of {len(some)}, mean absolute error {mean:.2%}")
    within = [row for row in every if not row.get("goal", True)]
    if within:
        held, mean = sum(row["inside"] for row in within), sum(abs(row["error"]) for row in within) / len(within)
        print(
            f"WSD at 0.375 and 0.75dur (between the sweep's decays, not in the goals): inside {held} of {len(within)}, "
            f"mean absolute error {mean:.2%}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--out", default="bench-forecast", help="the runs' folder (kept: a rerun trains nothing new)")
    parser.add_argument(
        "--law", default="auto", choices=["auto", "annealing", "multi-power"], help="auto: as cadence forecast chooses"
    )
    parser.add_argument("--fit", default="sweep", choices=["sweep", "main"], help="the WSD sweep, or its main run")
    parser.add_argument("--horizon", default="300_000tok", help="1dur (the config's: 300_000tok)")
    parser.add_argument("--config", default=CONFIG, help="the recipe (examples/charlm.yaml); one --out per recipe")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="change the recipe (repeat)")
    parser.add_argument("--picture", help="draw the first seed's fitted and forecast curves against the measured ones")
    args = parser.parse_args()
    use_recipe(args.config, args.set)
    outcomes, drawn = [], None
    for seed in args.seeds:
        try:
            outcome, picture = bench_seed(args.out, seed, args.law, args.fit, args.horizon)
        except FitError as error:  # said, and the other seeds still measured
            print(f"seed {seed}: no forecast: {error}")
            continue
        outcomes.append(outcome)
        drawn = drawn or picture
        report(outcome)
    if not outcomes:
        return 1
    overall(outcomes)
    with open(os.path.join(args.out, f"results-{args.law}-{args.fit}.json"), "w", encoding="utf-8") as stream:
        json.dump(outcomes, stream, indent=2)
    if args.picture:
        draw(args.picture, *drawn, seed=args.seeds[0])
    return 0


def draw(path: str, law, fitted_runs: list, forecasts: list, finals: dict, seed: int) -> None:
    """The fitted runs (measured and the law's curve) and each forecast (dashed, its end a circle, its 80%
    interval a band and a bar) with the final eval loss measured (a cross)."""
    from trainer.forecast.picture import save_forecast_picture
    from trainer.forecast.runs import run_folders

    title = (
        f"{recipe_name()}, seed {seed}: the {law.law.name} law fitted on the eval loss of a branched WSD "
        f"sweep (fit error {law.error:.2%})\nforecasts of other runs: dashed, ending in a circle, with their 80% "
        "interval; their measured final eval loss: a cross"
    )
    runs = [read_run(run, loss="eval") for run in run_folders(fitted_runs)]
    print(save_forecast_picture(path, law, runs, forecasts, measured=finals, title=title))


if __name__ == "__main__":
    sys.exit(main())
