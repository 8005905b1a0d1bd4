"""Does the schedule ``cadence forecast --optimize`` recommends win when trained? (docs/forecast.md)

Run: ``python bench/forecast_optimize.py [--seeds 0 1 2] [--out bench-forecast] [--horizon 300_000tok]``
after ``python bench/forecast.py`` with the same ``--out`` and ``--horizon`` (it trains the runs used here, and
a rerun trains only what is missing).

For each seed of ``examples/charlm.yaml``: the annealing law fitted on the eval loss of the seed's branched WSD
sweep recommends a schedule at 1dur (the WSD family of :func:`trainer.forecast.optimize.recommend`, keeping the
config's warmup), which is trained; its final eval loss is compared with the two baselines at the same budget
and seed: the config's cosine (to 0.1) and a WSD decaying over the last 0.2dur (to 0.1), both trained by
``bench/forecast.py``. Goal: the recommendation's mean final eval loss beats the better baseline's, and it is
worse on no seed by more than 0.3%. Prints, per seed, the recommended ``--set``, its forecast with its 80%
interval and whether that interval keeps it apart from the config's schedule's, and the three measured losses.
"""

from __future__ import annotations

import argparse
import os
import sys

from forecast import CONFIG, final_eval_losses, run_sweep, seed_sets, sweep

from trainer.forecast import fit_law
from trainer.forecast.optimize import recommend

WORSE_BY_AT_MOST = 0.003


def bench_seed(out: str, seed: int, horizon: str) -> dict:
    """One seed: the fit, the recommendation (trained when missing), and the three measured final eval losses."""
    wsd = sweep(out, seed, "wsd", horizon)
    cosine = sweep(out, seed, "cosine", horizon)
    law = fit_law([wsd], law="annealing", loss="eval")
    sets = seed_sets(seed, "cosine", horizon)  # the config's own recipe: its schedule is the baseline
    chosen = recommend(law, CONFIG, overrides=sets, budget="1dur")
    trained = run_sweep(os.path.join(out, f"seed-{seed}", "recommended"), ("1dur",), [*sets, chosen.setting])
    return {
        "seed": seed,
        "setting": chosen.setting,
        "forecast": chosen.best.final_loss,
        "interval": chosen.best.final_interval,
        "apart": chosen.apart,
        "recommended": final_eval_losses(trained, ("1dur",))["1dur"],
        "cosine": final_eval_losses(cosine, ("0.25dur", "0.5dur", "1dur", "2dur"))["1dur"],
        "wsd": final_eval_losses(wsd, ("0.25dur", "0.5dur", "1dur"))["1dur"],
    }


def report(row: dict) -> None:
    low, high = row["interval"] or (float("nan"), float("nan"))
    apart = {True: "apart from", False: "overlapping", None: "no interval for"}[row["apart"]]
    better = min(row["cosine"], row["wsd"])
    print(f"seed {row['seed']}: {row['setting']}")
    print(f"  forecast {row['forecast']:.4f} [{low:.4f}, {high:.4f}], {apart} the config's schedule's interval")
    print(
        f"  measured: recommended {row['recommended']:.4f}, cosine {row['cosine']:.4f}, wsd 0.2dur {row['wsd']:.4f}"
        f" -> {row['recommended'] / better - 1:+.2%} against the better baseline"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--out", default="bench-forecast", help="bench/forecast.py's runs' folder")
    parser.add_argument("--horizon", default="300_000tok", help="1dur (the config's: 300_000tok)")
    args = parser.parse_args()
    rows = [bench_seed(args.out, seed, args.horizon) for seed in args.seeds]
    for row in rows:
        report(row)
    mean = {key: sum(row[key] for row in rows) / len(rows) for key in ("recommended", "cosine", "wsd")}
    worst = max(row["recommended"] / min(row["cosine"], row["wsd"]) - 1 for row in rows)
    wins = mean["recommended"] < min(mean["cosine"], mean["wsd"]) and worst <= WORSE_BY_AT_MOST
    print(
        f"mean final eval loss: recommended {mean['recommended']:.4f}, cosine {mean['cosine']:.4f}, "
        f"wsd 0.2dur {mean['wsd']:.4f}; worst seed {worst:+.2%} against its better baseline: "
        f"{'meets' if wins else 'misses'} the goal"
    )
    return 0 if wins else 1


if __name__ == "__main__":
    sys.exit(main())
