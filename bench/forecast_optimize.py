"""Does the schedule ``cadence forecast --optimize`` recommends win when trained? (docs/forecast.md, "Recommend")

Run: ``python bench/forecast_optimize.py [--seeds 0 1 2] [--out bench-forecast] [--horizon 300_000tok]
[--config FILE.yaml] [--set KEY=VALUE ...] [--law multi-power] [--fit all|sweep|pooled] [--family all|fitted]
[--picture FILE.png] [--candidates DECAY:SHAPE:END ... [--rank]]``, after ``python bench/forecast.py`` with the
same ``--out``, ``--horizon``, ``--config`` and ``--set`` (it trains the runs used here, and a rerun trains only
what is missing).

For each seed of ``examples/charlm.yaml`` (or ``--config``): a law is fitted on the eval loss of the seed's runs that
``bench/forecast.py`` trained (``--fit all``: the branched WSD sweep, the cosine sweep to 2dur, the WSD at
2dur, the linear and cosine decays to 0 — runs whose decays differ in length, shape and end; ``--fit sweep``:
the WSD sweep alone; ``--fit pooled``: every run of every seed at once, one law) and recommends a schedule at
1dur (:func:`trainer.forecast.optimize.recommend`: the free monotone curve and the WSD family, keeping the
config's warmup; ``--family fitted``: the WSD family alone, to the end values the fitted runs reach), which is
trained (into ``seed-N/recommended-<hash of its --set line>``: a new recommendation trains anew, a rerun
reuses it). Its final eval loss is compared with the two baselines at the same budget and seed: the config's
cosine (to 0.1) and a WSD decaying linearly over the last 0.2dur (to 0.1), both trained by
``bench/forecast.py``. Goal: the recommendation's mean final eval loss beats the better baseline's, and it is
worse on no seed by more than 0.3%. ``--picture`` draws the first seed: the lr curves of the three schedules
(as the forecast previewed them, the curves that trained) and their forecast loss curves with the 80%
intervals and the measured eval losses.
Prints, per seed, the recommended ``--set``, its forecast with its 80% interval and whether that interval
keeps it apart from the config's schedule's, the baselines' forecasts, and the three measured losses.

``--candidates DECAY:SHAPE:END ...`` (``0.15dur:linear:0.1``, ``0.2dur:1-sqrt:0.05``) measures instead whether
there is a better schedule to find: each WSD schedule (the same warmup, decaying over the last DECAY with
SHAPE to END of the peak) is trained at 1dur on each seed (into ``seed-N/cand-wsd-DECAY-SHAPE-END``, reused),
beside the baseline (``0.2dur:linear:0.1``, trained the same way), and its final eval loss printed against the
baseline's per seed, with the mean and spread over the seeds; ``--rank`` adds the law's forecast of each
(fitted as ``--fit``, ``--law`` say) and its rank correlation with the measured gaps. It needs no run of
``bench/forecast.py`` unless ``--rank`` is given.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import os
import sys

import forecast as bench_forecast
from forecast import final_eval_losses, run_sweep, seed_sets, sweep, use_recipe

from trainer.forecast import fit_law, forecast_config
from trainer.forecast.optimize import recommend

WORSE_BY_AT_MOST = 0.003


#: the sweeps of bench/forecast.py whose ten runs ``--fit all`` fits (its WSD between budgets is not one)
FITTED = ("wsd", "cosine", "wsd-2dur", "linear-to-0", "cosine-to-0")


@functools.cache
def fitted_law(out: str, seeds: tuple[int, ...], horizon: str, law_name: str, fit: str):
    """The law the recommendation is made with: on ``seeds[0]``'s runs (``--fit all``: every run; ``sweep``: the
    WSD sweep), or on every run of every seed at once (``pooled``: one law of the recipe, seeds as repeats)."""
    names = ("wsd",) if fit == "sweep" else FITTED
    pooled = seeds if fit == "pooled" else seeds[:1]
    return fit_law([sweep(out, seed, name, horizon) for seed in pooled for name in names], law=law_name, loss="eval")


def bench_seed(out: str, seed: int, horizon: str, law_name: str, fit: str, seeds=(), family: str = "all") -> dict:
    """One seed: the fit, the recommendation (trained when missing), and the three measured final eval losses.
    ``family``: ``all`` (the free curve and the WSD family), ``fitted`` (the WSD family alone, to the end values
    the fitted runs reach, 0 and 0.1: no end the law has not seen)."""
    folders = {name: sweep(out, seed, name, horizon) for name in ("wsd", "cosine")}
    law = fitted_law(out, tuple(seeds) if fit == "pooled" else (seed,), horizon, law_name, fit)
    sets = seed_sets(seed, "cosine", horizon)  # the config's own recipe: its schedule is the baseline
    chosen = recommend(law, bench_forecast.CONFIG, overrides=sets, budget="1dur", free=family == "all")
    wsd_sets = seed_sets(seed, "wsd", horizon)
    (wsd_forecast,) = forecast_config(law, bench_forecast.CONFIG, overrides=wsd_sets, budgets=["1dur"])
    name = "recommended-" + hashlib.sha1(chosen.setting.encode()).hexdigest()[:8]
    trained = run_sweep(os.path.join(out, f"seed-{seed}", name), ("1dur",), [*sets, chosen.setting])
    measured = {
        "recommended": final_eval_losses(trained, ("1dur",)),
        "cosine": final_eval_losses(folders["cosine"], ("0.25dur", "0.5dur", "1dur", "2dur")),
        "wsd": final_eval_losses(folders["wsd"], ("0.25dur", "0.5dur", "1dur")),
    }
    drawn = {"recommended": chosen.best, "cosine": chosen.baseline, "wsd": wsd_forecast}
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
        **{key: found["1dur"] for key, found in measured.items()},
        "picture": {key: (drawn[key], found["1dur/folder"]) for key, found in measured.items()},
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


BASELINE = "0.2dur:linear:0.1"  # the WSD of bench/forecast.py, as a candidate (trains the same run)


def candidate_setting(spec: str) -> str:
    """The schedulers' ``--set`` line of a WSD candidate ``DECAY:SHAPE:END`` (``0.15dur:cosine:0.05``)."""
    try:
        decay, shape, end = spec.split(":")
        float(end)
    except ValueError:
        raise SystemExit(f"--candidates {spec!r}: give DECAY:SHAPE:END, e.g. 0.15dur:linear:0.05") from None
    value = f"[{{WarmupStableDecayScheduler: {{t_warmup: 20_000tok, t_decay: {decay}, decay_shape: {shape}, "
    return f"trainer.init.schedulers={value}alpha_f: {end}}}}}]"


def trained_candidate(out: str, seed: int, spec: str, horizon: str) -> float:
    """The final eval loss at 1dur of the WSD candidate ``spec`` on ``seed`` (trained into
    ``seed-N/cand-wsd-DECAY-SHAPE-END`` when missing)."""
    folder = os.path.join(out, f"seed-{seed}", "cand-wsd-" + spec.replace(":", "-"))
    sets = [*seed_sets(seed, "cosine", horizon), candidate_setting(spec)]
    return final_eval_losses(run_sweep(folder, ("1dur",), sets), ("1dur",))["1dur"]


def candidate_forecasts(out: str, seed: int, specs: list[str], horizon: str, law_name: str, fit: str) -> dict:
    """The fitted law's forecast final loss of each candidate at 1dur, relative to the baseline's."""
    law = fitted_law(out, (seed,), horizon, law_name, fit)
    sets = seed_sets(seed, "cosine", horizon)
    found = {}
    for spec in [BASELINE, *specs]:
        overrides = [*sets, candidate_setting(spec)]
        (forecast,) = forecast_config(law, bench_forecast.CONFIG, overrides=overrides, budgets=["1dur"])
        found[spec] = forecast.final_loss
    return {spec: value / found[BASELINE] - 1 for spec, value in found.items()}


def ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=values.__getitem__)
    return [float(order.index(i)) for i in range(len(values))]


def spearman(xs: list[float], ys: list[float]) -> float:
    """The rank correlation of two lists (ties broken by order)."""
    rx, ry, n = ranks(xs), ranks(ys), len(xs)
    return 1 - 6 * sum((a - b) ** 2 for a, b in zip(rx, ry, strict=True)) / (n * (n * n - 1))


def bench_candidates(args: argparse.Namespace) -> int:
    """``--candidates``: each WSD candidate's final eval loss against the baseline's on every seed, their mean and
    spread (and with ``--rank`` the law's forecast of each, and how well it ranks them)."""
    gaps = {spec: [] for spec in args.candidates}
    for seed in args.seeds:
        base = trained_candidate(args.out, seed, BASELINE, args.horizon)
        measured = {spec: trained_candidate(args.out, seed, spec, args.horizon) / base - 1 for spec in gaps}
        told = {}
        if args.rank:
            told = candidate_forecasts(args.out, seed, args.candidates, args.horizon, args.law, args.fit)
        for spec, gap in measured.items():
            gaps[spec].append(gap)
            also = f", forecast {told[spec]:+.2%}" if told else ""
            print(f"seed {seed}: wsd {spec:<22} {gap:+.2%} against the baseline ({base:.4f}){also}")
        if told and len(gaps) > 2:
            rho = spearman([measured[spec] for spec in gaps], [told[spec] for spec in gaps])
            print(f"seed {seed}: the law's ranking of the {len(gaps)} candidates, Spearman {rho:+.2f}")
    for spec, values in gaps.items():
        mean = sum(values) / len(values)
        spread = (sum((v - mean) ** 2 for v in values) / max(len(values) - 1, 1)) ** 0.5
        print(f"wsd {spec:<22} mean {mean:+.2%} (sd {spread:.2%} over {len(values)} seeds), worst {max(values):+.2%}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--out", default="bench-forecast", help="bench/forecast.py's runs' folder")
    parser.add_argument("--horizon", default="300_000tok", help="1dur (the config's: 300_000tok)")
    parser.add_argument("--config", default=bench_forecast.CONFIG, help="the recipe bench/forecast.py trained in --out")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="its --set, as given there")
    parser.add_argument("--law", default="multi-power", choices=["annealing", "multi-power"])
    parser.add_argument("--picture", help="draw the first seed's schedules and their forecasts into this image")
    parser.add_argument(
        "--fit",
        default="all",
        choices=["all", "sweep", "pooled"],
        help="every run of the seed, the WSD sweep, or every run of every seed at once",
    )
    parser.add_argument(
        "--family", default="all", choices=["all", "fitted"], help="free curve and WSD family, or WSD to 0/0.1 alone"
    )
    parser.add_argument(
        "--candidates",
        nargs="+",
        metavar="DECAY:SHAPE:END",
        help=f"instead: train these WSD schedules and measure each against the baseline ({BASELINE})",
    )
    parser.add_argument("--rank", action="store_true", help="with --candidates: the law's forecast of each, too")
    args = parser.parse_args()
    use_recipe(args.config, args.set)
    if args.candidates:
        return bench_candidates(args)
    options = (args.horizon, args.law, args.fit, args.seeds, args.family)
    rows = [bench_seed(args.out, seed, *options) for seed in args.seeds]
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
    if args.picture:
        print(draw(args.picture, rows[0]))
    return 0 if wins else 1


NAMES = {"recommended": "recommended", "cosine": "the config's cosine (to 0.1)", "wsd": "WSD, 0.2dur linear to 0.1"}


def draw(path: str, row: dict) -> str:
    """The seed's three schedules: the lr the forecast previewed (top, against the fraction of the run), and
    below, from 0.5dur on, their forecast eval loss with its 80% interval (a band and a bar at the end), the
    eval losses measured when trained (dots) and the final one (a cross)."""
    from schedulers.tools.plotting import require_matplotlib
    from trainer.forecast import read_run

    figure = require_matplotlib()(figsize=(8.0, 6.4), layout="constrained")
    lr_ax, loss_ax = figure.subplots(2, 1, height_ratios=(1.0, 1.7))
    lows = []
    for index, key in enumerate(("cosine", "wsd", "recommended")):  # the recommendation drawn last, on top
        (forecast, folder), color = row["picture"][key], f"C{(index + 1) % 3}"
        total, name = float(forecast.counts[-1]), NAMES[key] + (f" ({row['label']})" if key == "recommended" else "")
        lr_ax.plot(forecast.counts / total, forecast.lrs, color=color, lw=1.4, drawstyle="steps-post", label=name)
        x = forecast.counts[forecast.updates - 1] / total
        shown = x >= 0.5
        label = f"{NAMES[key]}: forecast {forecast.final_loss:.4f}, measured {row[key]:.4f}"
        loss_ax.plot(x[shown], forecast.losses[shown], "--", color=color, lw=1.3, label=label)
        loss_ax.fill_between(x[shown], forecast.low[shown], forecast.high[shown], color=color, alpha=0.12, lw=0)
        low, high = forecast.final_interval
        loss_ax.plot([1.0 + 0.004 * index] * 2, [low, high], "-", color=color, lw=2.5)
        run = read_run(folder, loss="eval")
        points = run.counts[run.updates - 1] / total >= 0.5
        loss_ax.plot((run.counts[run.updates - 1] / total)[points], run.losses[points], ".", color=color, ms=4)
        loss_ax.plot([1.0 + 0.004 * index], [row[key]], "x", color=color, ms=9, mew=2)
        lows.append(min(low, row[key]))
    lr_ax.set_ylabel("lr (as previewed)")
    lr_ax.set_xlabel("fraction of the run (dur)")
    lr_ax.legend(fontsize="small")
    loss_ax.set_ylim(min(lows) - 0.02, None)
    loss_ax.set_ylabel("eval loss")
    loss_ax.set_xlabel("fraction of the run (dur)")
    loss_ax.legend(fontsize="small", loc="upper right")
    for ax in (lr_ax, loss_ax):
        ax.grid(True, alpha=0.3)
    figure.suptitle(
        f"{bench_forecast.recipe_name()}, seed {row['seed']}: "
        f"{row['law'].split(':')[0]} ({row['law'].split('; ')[-1]})"
        "\nforecasts dashed with their 80% "
        "interval (band, bar at the end); measured eval losses: dots, the final one a cross",
        fontsize=8,
    )
    figure.savefig(path, dpi=90)
    return f"wrote {path}"


if __name__ == "__main__":
    sys.exit(main())
