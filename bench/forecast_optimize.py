"""Does the schedule ``cadence forecast --optimize`` recommends win when trained? (docs/forecast.md, "Recommend")

Run: ``python bench/forecast_optimize.py [--seeds 0 1 2] [--out bench-forecast] [--horizon 300_000tok]
[--law multi-power] [--fit all|sweep]`` after ``python bench/forecast.py`` with the same ``--out`` and
``--horizon`` (it trains the runs used here, and a rerun trains only what is missing).

For each seed of ``examples/charlm.yaml``: a law is fitted on the eval loss of the seed's runs that
``bench/forecast.py`` trained (``--fit all``: the branched WSD sweep, the cosine sweep to 2dur, the WSD at
2dur, the linear and cosine decays to 0 — runs whose decays differ in length, shape and end; ``--fit sweep``:
the WSD sweep alone) and recommends a schedule at 1dur (:func:`trainer.forecast.optimize.recommend`: the free
monotone curve and the WSD family, keeping the config's warmup), which is trained (into
``seed-N/recommended-<hash of its --set line>``: a new recommendation trains anew, a rerun reuses it). Its
final eval loss is compared with the two baselines at the same budget and seed: the config's cosine (to 0.1)
and a WSD decaying linearly over the last 0.2dur (to 0.1), both trained by ``bench/forecast.py``. Goal: the
recommendation's mean final eval loss beats the better baseline's, and it is worse on no seed by more than
0.3%. Prints, per seed, the recommended ``--set``, its forecast with its 80% interval and whether that interval
keeps it apart from the config's schedule's, the baselines' forecasts, and the three measured losses.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys

from forecast import CONFIG, SCHEDULES, final_eval_losses, run_sweep, seed_sets, sweep

from trainer.forecast import fit_law, forecast_config
from trainer.forecast.optimize import recommend

WORSE_BY_AT_MOST = 0.003


def bench_seed(out: str, seed: int, horizon: str, law_name: str, fit: str) -> dict:
    """One seed: the fit, the recommendation (trained when missing), and the three measured final eval losses."""
    folders = {name: sweep(out, seed, name, horizon) for name in (SCHEDULES if fit == "all" else ("wsd", "cosine"))}
    fitted = list(folders.values()) if fit == "all" else [folders["wsd"]]
    law = fit_law(fitted, law=law_name, loss="eval")
    sets = seed_sets(seed, "cosine", horizon)  # the config's own recipe: its schedule is the baseline
    chosen = recommend(law, CONFIG, overrides=sets, budget="1dur")
    (wsd_forecast,) = forecast_config(law, CONFIG, overrides=seed_sets(seed, "wsd", horizon), budgets=["1dur"])
    name = "recommended-" + hashlib.sha1(chosen.setting.encode()).hexdigest()[:8]
    trained = run_sweep(os.path.join(out, f"seed-{seed}", name), ("1dur",), [*sets, chosen.setting])
    return {
        "seed": seed,
        "law": law.summary(),
        "label": chosen.best.label,
        "setting": chosen.setting,
        "forecast": chosen.best.final_loss,
        "interval": chosen.best.final_interval,
        "apart": chosen.apart,
        "forecast_cosine": chosen.baseline.final_loss,
        "forecast_wsd": wsd_forecast.final_loss,
        "recommended": final_eval_losses(trained, ("1dur",))["1dur"],
        "cosine": final_eval_losses(folders["cosine"], ("0.25dur", "0.5dur", "1dur", "2dur"))["1dur"],
        "wsd": final_eval_losses(folders["wsd"], ("0.25dur", "0.5dur", "1dur"))["1dur"],
    }


def report(row: dict) -> None:
    low, high = row["interval"] or (float("nan"), float("nan"))
    apart = {True: "apart from", False: "overlapping", None: "no interval for"}[row["apart"]]
    better = min(row["cosine"], row["wsd"])
    print(f"seed {row['seed']}: {row['law']}")
    print(f"  recommended {row['label']}: --set '{row['setting']}'")
    print(f"  forecast {row['forecast']:.4f} [{low:.4f}, {high:.4f}], {apart} the config's schedule's interval")
    print(f"  forecast of the baselines: cosine {row['forecast_cosine']:.4f}, wsd 0.2dur {row['forecast_wsd']:.4f}")
    print(
        f"  measured: recommended {row['recommended']:.4f}, cosine {row['cosine']:.4f}, wsd 0.2dur {row['wsd']:.4f}"
        f" -> {row['recommended'] / better - 1:+.2%} against the better baseline"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--out", default="bench-forecast", help="bench/forecast.py's runs' folder")
    parser.add_argument("--horizon", default="300_000tok", help="1dur (the config's: 300_000tok)")
    parser.add_argument("--law", default="multi-power", choices=["annealing", "multi-power"])
    parser.add_argument(
        "--fit", default="all", choices=["all", "sweep"], help="every run of the seed, or the WSD sweep"
    )
    args = parser.parse_args()
    rows = [bench_seed(args.out, seed, args.horizon, args.law, args.fit) for seed in args.seeds]
    for row in rows:
        report(row)
    mean = {key: sum(row[key] for row in rows) / len(rows) for key in ("recommended", "cosine", "wsd")}
    worst = max(row["recommended"] / min(row["cosine"], row["wsd"]) - 1 for row in rows)
    wins = mean["recommended"] < min(mean["cosine"], mean["wsd"]) and worst <= WORSE_BY_AT_MOST
    print(
        f"mean final eval loss: recommended {mean['recommended']:.4f}, cosine {mean['cosine']:.4f}, "
        f"wsd 0.2dur {mean['wsd']:.4f} ({mean['recommended'] / min(mean['cosine'], mean['wsd']) - 1:+.2%}); "
        f"worst seed {worst:+.2%} against its better baseline: {'meets' if wins else 'misses'} the goal"
    )
    return 0 if wins else 1


if __name__ == "__main__":
    sys.exit(main())
