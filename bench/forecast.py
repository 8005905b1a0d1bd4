"""How well a law fitted on one run forecasts other runs, on a real model (docs/forecast.md).

Run: ``python bench/forecast.py [--seeds 0 1 2] [--out bench-forecast] [--law annealing] [--picture FILE]``.

On ``examples/charlm.yaml`` (a character-level GRU language model), for each seed:

1. ``cadence sweep --branch-from-stable --budgets 0.25dur 0.5dur 1dur`` with a warmup-stable-decay schedule
   (warmup 20,000 tokens, decay over the last 20% to 0.1 of the peak), evaluating every 10,000 tokens: the
   main run to 1dur is the run the law is fitted on; the branches are the WSD runs at 0.25 and 0.5dur;
2. ``cadence sweep --budgets 0.25dur 0.5dur 1dur`` with the config's own cosine schedule (to 0.1);
3. the law is fitted on the eval loss of the WSD run to 1dur, and the final eval loss of the five other runs
   is forecast from their lr curves as the trainer previews them (what ``cadence forecast`` does), and
   compared with the measured one.

Prints each relative error, each seed's mean absolute relative error and the mean over seeds (goal: at
most 1%). The runs are the sweeps' run folders in ``--out``: a rerun trains only what is missing.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from trainer.forecast import fit_law, forecast_config, read_run  # noqa: E402

CONFIG = os.path.join(ROOT, "examples", "charlm.yaml")
BUDGETS = ("0.25dur", "0.5dur", "1dur")
WSD = "[{WarmupStableDecayScheduler: {t_warmup: 20_000tok, t_decay: 0.2dur, alpha_f: 0.1}}]"
EVAL_EVERY = "10_000tok"
GOAL = 0.01
# what each forecast is compared with: (schedule, budget); the WSD run to 1dur is the one fitted
TARGETS = (("cosine", "0.25dur"), ("cosine", "0.5dur"), ("cosine", "1dur"), ("wsd", "0.25dur"), ("wsd", "0.5dur"))


def seed_sets(seed: int, schedule: str) -> list[str]:
    """The ``--set`` options of one seed's runs of ``schedule``."""
    sets = [
        f"trainer.init.seed={seed}",
        f"trainer.init.model.kwargs.seed={seed}",
        f"trainer.init.loop.eval_interval={EVAL_EVERY}",
        "trainer.init.progress_bar=false",
    ]
    return [*sets, f"trainer.init.schedulers={WSD}"] if schedule == "wsd" else sets


def sweep(out: str, seed: int, schedule: str) -> str:
    """Run (or finish) one seed's sweep of ``schedule``; its folder."""
    folder = os.path.join(out, f"seed-{seed}", schedule)
    argv = [sys.executable, "-m", "trainer", "sweep", CONFIG, "--budgets", *BUDGETS, "--out", folder]
    argv += ["--branch-from-stable"] if schedule == "wsd" else []
    for value in seed_sets(seed, schedule):
        argv += ["--set", value]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return folder


def final_eval_losses(folder: str) -> dict[str, float]:
    """The measured final eval loss of each point of a sweep by its budget as listed (``"0.25dur"``), and its
    folder (``"0.25dur/folder"``), from the sweep's ``summary.csv``."""
    with open(os.path.join(folder, "summary.csv"), encoding="utf-8", newline="") as stream:
        rows = sorted(csv.DictReader(stream), key=lambda row: int(row["batches"]))
    found = {}
    for budget, row in zip(BUDGETS, rows, strict=True):
        found[budget] = float(row["final_eval_loss"])
        found[budget + "/folder"] = os.path.join(folder, row["point"])
    return found


def bench_seed(out: str, seed: int, law_name: str) -> tuple[dict, object]:
    """One seed: the runs (trained when missing), the fit, each forecast against its measurement; and what
    the picture needs."""
    measured = {schedule: final_eval_losses(sweep(out, seed, schedule)) for schedule in ("wsd", "cosine")}
    fitted_run = measured["wsd"]["1dur/folder"]
    law = fit_law([fitted_run], law=law_name, loss="eval")
    results, forecasts, finals = [], [], {}
    for schedule, budget in TARGETS:
        (forecast,) = forecast_config(law, CONFIG, overrides=seed_sets(seed, schedule), budgets=[budget])
        truth = measured[schedule][budget]
        label = f"{schedule} {budget}"
        forecasts.append(dataclasses.replace(forecast, label=label))
        finals[label] = (forecast.final_count, truth)
        results.append(
            {
                "run": label,
                "forecast": forecast.final_loss,
                "measured": truth,
                "error": forecast.final_loss / truth - 1,
                "folder": measured[schedule][budget + "/folder"],
                "extrapolates": list(forecast.warnings),
            }
        )
    mean = sum(abs(r["error"]) for r in results) / len(results)
    outcome = {"seed": seed, "law": law.to_json(), "fitted_run": fitted_run, "results": results, "mean_abs_error": mean}
    return outcome, (law, fitted_run, forecasts, finals)


def report(outcome: dict) -> None:
    print(f"seed {outcome['seed']}: fitted on {outcome['fitted_run']}: {summary_line(outcome['law'])}")
    for row in outcome["results"]:
        flag = "  (extrapolates)" if row["extrapolates"] else ""
        print(
            f"  {row['run']:<14} forecast {row['forecast']:.4f}  measured {row['measured']:.4f}  "
            f"error {row['error']:+.2%}{flag}"
        )
    print(f"  mean absolute relative error {outcome['mean_abs_error']:.2%}")


def summary_line(law: dict) -> str:
    values = ", ".join(f"{k}={v:.4g}" for k, v in law["parameters"].items())
    return f"{law['law']} law, {values}, fit error {law['fit']['error']:.2%}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--out", default="bench-forecast", help="the runs' folder (kept: a rerun trains nothing new)")
    parser.add_argument("--law", default="annealing", choices=["annealing", "multi-power"])
    parser.add_argument("--picture", help="draw the first seed's fitted and forecast curves against the measured ones")
    args = parser.parse_args()
    outcomes, drawn = [], None
    for seed in args.seeds:
        outcome, picture = bench_seed(args.out, seed, args.law)
        outcomes.append(outcome)
        drawn = drawn or picture
        report(outcome)
    overall = sum(o["mean_abs_error"] for o in outcomes) / len(outcomes)
    verdict = "meets" if overall <= GOAL else "misses"
    print(f"mean over {len(outcomes)} seed(s): {overall:.2%} ({verdict} the goal of {GOAL:.0%})")
    with open(os.path.join(args.out, f"results-{args.law}.json"), "w", encoding="utf-8") as stream:
        json.dump(outcomes, stream, indent=2)
    if args.picture:
        draw(args.picture, *drawn, seed=args.seeds[0])
    return 0


def draw(path: str, law, fitted_run: str, forecasts: list, finals: dict, seed: int) -> None:
    """The fitted run (measured and the law's curve) and each forecast (dashed, its end a circle) with the final
    eval loss measured (a cross)."""
    from trainer.forecast.picture import save_forecast_picture

    title = (
        f"examples/charlm.yaml, seed {seed}: the {law.law.name} law fitted on the eval loss of one WSD run to 1dur "
        f"(fit error {law.error:.2%})\nforecasts of other runs: dashed, ending in a circle; their measured final "
        "eval loss: a cross"
    )
    runs = [read_run(fitted_run, loss="eval")]
    print(save_forecast_picture(path, law, runs, forecasts, measured=finals, title=title))


if __name__ == "__main__":
    sys.exit(main())
