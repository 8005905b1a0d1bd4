"""The forecast's 80% interval under other rules, scored on the forecast bench's runs (docs/forecast.md, "The
interval's width").

Run: ``python bench/forecast_interval.py --out DIR --seeds 3 4 5 6 7 8 [--law auto] [--fits main sweep] [--grid]``
on the runs ``python bench/forecast.py --out DIR`` trained for those seeds. It trains nothing and writes nothing: a seed
whose runs are missing is refused in one line.

For each seed and fit (``main``: the WSD main run to 1dur; ``sweep``: the branched WSD sweep), the law is fitted as
bench/forecast.py fits it, each of its targets (:data:`forecast.TARGETS`) is previewed once and forecast from its
lr curve, and what :math:`\\sigma^2` is built from at its last update (the parameters' spread, the noise and the
systematic error, whether the run has left the fitted range, the doublings of :math:`S_1` and of the updates beyond
the fitted runs') is kept with the error of the forecast. Each rule of :data:`RULES` recombines those into a
:math:`\\sigma`, the interval being :math:`\\hat L e^{\\pm z \\sigma}` as ``cadence forecast``'s; it prints, per
rule and fit, how many measured losses lay inside and the mean width (high / low - 1), at 1x (up to 1dur), at
2dur and over both. The first rule is the interval ``cadence forecast`` prints (it agrees with bench/forecast.py's
figures), the second the one printed until 2026-11-28; the others are what docs/forecast.md lists as tried. To try
a rule, add a function of a :class:`Scored` target to :data:`RULES`. ``--grid`` also searches each form of
:data:`FAMILIES` for the narrowest multiples holding 80% of each fit's targets with a mean width of at most 4%
(:func:`narrowest`): the search that chose the interval printed today, on seeds 3-8.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from statistics import NormalDist

import forecast as bench  # bench/forecast.py: the recipe, the targets, the runs' folders (and the repo on sys.path)
import torch

from trainer.forecast import fit_law, forecast_config
from trainer.forecast.fitted import EXTRAPOLATION_SCALE, LEVEL, TIME_SCALE

Z = NormalDist().inv_cdf(0.5 + LEVEL / 2)


@dataclass(frozen=True)
class Scored:
    """One target forecast by one fit: what a rule reads.

    Args:
        seed: The bench seed.
        fit: ``main`` or ``sweep``.
        label: The target (``cosine 2dur``).
        long: Whether it is a 2dur target.
        error: :math:`\\log(\\hat L / L)`, the forecast against the measured final eval loss.
        printed: :math:`\\sigma^2` of the interval ``cadence forecast`` prints (the sum of
            :meth:`~trainer.forecast.fitted.FittedLaw.variance_terms` at its last update).
        spread: The parameters' term, :math:`g^\\top \\Sigma g`.
        measured_terms: noise^2 + systematic^2, what every rule keeps.
        departed: Whether the run leaves the fitted range (the unseen misfit applies).
        fit_error: The fit's error (relative).
        s1_doublings: :math:`\\log_2^+` of its :math:`S_1` over the fitted runs' largest.
        update_doublings: :math:`\\log_2^+` of its updates over the longest fitted run's.

    Returns:
        The record each rule maps to a variance.
    """

    seed: int
    fit: str
    label: str
    long: bool
    error: float
    printed: float
    spread: float
    measured_terms: float
    departed: bool
    fit_error: float
    s1_doublings: float
    update_doublings: float


def as_forecast(target: Scored) -> float:
    """The interval ``cadence forecast`` prints (docs/forecast.md)."""
    return target.printed


def unseen(target: Scored, multiple: float) -> float:
    """The unseen misfit's term at ``multiple`` × the fit error, where the run leaves the fitted range."""
    return (multiple * target.fit_error) ** 2 if target.departed else 0.0


def in_s1(target: Scored, multiple: float) -> float:
    """A time term per doubling of :math:`S_1` beyond the fitted runs' largest (the rule printed until 2026-11-28)."""
    return (multiple * target.fit_error * target.s1_doublings) ** 2


def in_updates(target: Scored, multiple: float) -> float:
    """A time term per doubling of the updates (not of :math:`S_1`) beyond the longest fitted run's."""
    return (multiple * target.fit_error * target.update_doublings) ** 2


def s1_rule(unseen_multiple: float, time_multiple: float) -> Callable[[Scored], float]:
    """Every term summed, the time term per doubling of :math:`S_1` (the rule printed until 2026-11-28 at 2 and 6)."""

    def variance(target: Scored) -> float:
        return target.spread + target.measured_terms + unseen(target, unseen_multiple) + in_s1(target, time_multiple)

    return variance


def updates_rule(unseen_multiple: float, time_multiple: float) -> Callable[[Scored], float]:
    """Every term summed, the time term per doubling of the updates."""

    def variance(target: Scored) -> float:
        fitted = target.spread + target.measured_terms
        return fitted + unseen(target, unseen_multiple) + in_updates(target, time_multiple)

    return variance


def larger_rule(unseen_multiple: float, time_multiple: float) -> Callable[[Scored], float]:
    """The larger of the parameters' spread and the unseen misfit (not both), time per doubling of the updates (the
    form printed since 2026-11-28, at 2.25 and 1.75)."""

    def variance(target: Scored) -> float:
        larger = max(target.spread, unseen(target, unseen_multiple))
        return target.measured_terms + larger + in_updates(target, time_multiple)

    return variance


#: each rule's name and the variance it gives a target (the first: the interval printed)
RULES: dict[str, Callable[[Scored], float]] = {
    f"as forecast (max(spread, unseen {EXTRAPOLATION_SCALE:g}), time {TIME_SCALE:g} in updates)": as_forecast,
    "until 2026-11-28 (unseen 2, time 6 per doubling of S1)": s1_rule(2.0, 6.0),
    "time per doubling of updates (unseen 2, time 3.5)": updates_rule(2.0, 3.5),
    "time per doubling of updates (unseen 2, time 3)": updates_rule(2.0, 3.0),
    "coverage per horizon on seeds 3-8 (unseen 1.5, time 3.75 in updates)": updates_rule(1.5, 3.75),
    "max(spread, unseen) (unseen 2, time 3 in updates)": larger_rule(2.0, 3.0),
}

#: the rule families :func:`narrowest` searches, by name
FAMILIES = {"time in S1": s1_rule, "time in updates": updates_rule, "max(spread, unseen), time in updates": larger_rule}


def inside_and_width(targets: list[Scored], rule: Callable[[Scored], float]) -> tuple[float, float]:
    """The share of ``targets`` whose measured loss lies inside the rule's interval, and its mean width."""
    sigmas = [math.sqrt(rule(target)) for target in targets]
    inside = sum(abs(target.error) <= Z * sigma for target, sigma in zip(targets, sigmas, strict=True))
    return inside / len(targets), sum(math.expm1(2 * Z * sigma) for sigma in sigmas) / len(targets)


def narrowest(targets: list[Scored], fits: list[str], aim: float = 0.04) -> list[tuple[float, str, float, float]]:
    """Each family's multiples on a grid (unseen 0-4, time 0-6, by quarters) whose interval holds ``LEVEL`` of each
    fit's targets with a mean width of at most ``aim``, narrowest first: (mean width over the fits, family,
    unseen multiple, time multiple)."""
    found = []
    by_fit = [[target for target in targets if target.fit == fit] for fit in fits]
    for family, make in FAMILIES.items():
        for unseen_multiple, time_multiple in ((u / 4, t / 4) for u in range(17) for t in range(25)):
            rule = make(unseen_multiple, time_multiple)
            scores = [inside_and_width(some, rule) for some in by_fit]
            if all(share >= LEVEL and width <= aim for share, width in scores):
                mean_width = sum(width for _, width in scores) / len(scores)
                found.append((mean_width, family, unseen_multiple, time_multiple))
    return sorted(found)


def seed_targets(out: str, seed: int, law_name: str, fits: list[str], horizon: str) -> list[Scored]:
    """One seed's targets, each previewed once and forecast by each fit."""
    folders = {schedule: os.path.join(out, f"seed-{seed}", schedule) for schedule in bench.SCHEDULES}
    missing = [folder for folder in folders.values() if not os.path.isfile(os.path.join(folder, "summary.csv"))]
    if missing:
        raise SystemExit(f"--out {out}: seed {seed} has no trained runs in {missing[0]} (run bench/forecast.py first)")
    measured = {name: bench.final_eval_losses(folders[name], bench.budgets_of(name)) for name in bench.SCHEDULES}
    fitted_runs = {"sweep": [folders["wsd"]], "main": [measured["wsd"]["1dur/folder"]]}
    laws = {fit: fit_law(fitted_runs[fit], law=law_name, loss="eval") for fit in fits}
    found = []
    for schedule, budget in bench.TARGETS:
        (preview,) = forecast_config(
            laws[fits[0]], bench.CONFIG, overrides=bench.seed_sets(seed, schedule, horizon), budgets=[budget]
        )
        for fit, law in laws.items():
            found.append(scored_target(law, preview, measured[schedule][budget], seed, fit, f"{schedule} {budget}"))
    return found


def scored_target(law, preview, measured: float, seed: int, fit: str, label: str) -> Scored:
    """One target's record: the forecast, its printed variance and the quantities the rules recombine."""
    last = torch.tensor([preview.batches])
    terms = {name: float(value[0]) for name, value in law.variance_terms(preview.lrs, last).items()}
    s1 = float(law.law.areas(preview.lrs / law.lr_scale).s1[preview.batches])
    longest_s1 = max(run["s1"] for run in law.runs)
    longest = max(run["batches"] for run in law.runs)
    departure = law.departure(preview.lrs)
    return Scored(
        seed,
        fit,
        label,
        label.endswith(" 2dur"),
        math.log(float(law.predict(preview.lrs, last)[0]) / measured),
        sum(terms.values()),
        terms["parameters"],
        terms["noise"] + terms["systematic"],
        departure is not None and preview.batches >= departure,
        law.error,
        max(math.log2(s1 / longest_s1), 0.0),
        max(math.log2(preview.batches / longest), 0.0),
    )


def scored(targets: list[Scored], rule: Callable[[Scored], float]) -> str:
    """How many of ``targets`` lie inside the rule's interval, and its mean width."""
    if not targets:
        return "-"
    share, width = inside_and_width(targets, rule)
    return f"{round(share * len(targets))}/{len(targets)} {width:.2%}"


def report(targets: list[Scored], fits: list[str]) -> None:
    """One line per rule and fit: inside and width overall, at 1x and at 2dur."""
    for name, rule in RULES.items():
        print(name)
        for fit in fits:
            some = [target for target in targets if target.fit == fit]
            short, long = [t for t in some if not t.long], [t for t in some if t.long]
            print(f"  {fit:<5} all {scored(some, rule):<13} 1x {scored(short, rule):<13} 2dur {scored(long, rule)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="the runs' folder of bench/forecast.py (read only)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[3, 4, 5, 6, 7, 8])
    parser.add_argument("--law", default="auto", choices=["auto", "annealing", "multi-power"])
    parser.add_argument("--fits", nargs="+", default=["main", "sweep"], choices=["main", "sweep"])
    parser.add_argument("--horizon", default="300_000tok", help="1dur, as the runs were trained with")
    parser.add_argument("--grid", action="store_true", help="also list the narrowest multiples reaching the aim")
    args = parser.parse_args()
    targets = []
    for seed in args.seeds:
        targets += seed_targets(args.out, seed, args.law, args.fits, args.horizon)
    print(f"seeds {' '.join(map(str, args.seeds))}, law {args.law}: measured losses inside the 80% interval, width")
    report(targets, args.fits)
    if args.grid:
        print("the narrowest multiples holding 80% on each fit, mean width <= 4% (mean width, family, unseen, time):")
        found = narrowest(targets, args.fits)
        for width, family, unseen_multiple, time_multiple in found[:5]:
            print(f"  {width:.2%} {family}: unseen {unseen_multiple:g}, time {time_multiple:g}")
        if not found:
            print("  none")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
