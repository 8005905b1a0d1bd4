"""How a fit's cost grows with the logged steps: 10^4 to 10^6, both laws (docs/forecast.md, "A long log").

Run: ``python bench/forecast_scale.py [--steps 10000 100000 1000000] [--laws annealing multi-power]
[--noise 0.01]``.

For each number of steps and law, in a fresh subprocess (so that its peak memory is its own): a synthetic log
logged at every step (a cosine from a 1% warmup to 0.1 of the peak; the loss the law's own with known
parameters, drawn at 8,192 steps and interpolated in between, times 1 + ``noise`` × a normal draw at every
step), fitted (``fit_curves``), and one forecast made (``forecast_lrs`` of a WSD run as long, decaying over its last
20%: its curve at 400 points with its 80% interval and range warnings). Prints the time of the fit and of the
forecast (wall clock; their CPU time apart: a busy machine's wall clock counts others' turns), the peak resident
memory of the subprocess (``ru_maxrss``) and that of the same subprocess before the log was made (Python and torch
imported), and the fitted law's error on its final loss against the law that drew the log. Aims on 2 cores: fit +
forecast within 10 s, 30 s and 120 s at 10^4, 10^5 and 10^6 steps; peak memory within 1 GB at 10^6.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

AIMS = {10_000: 10.0, 100_000: 30.0, 1_000_000: 120.0}
MEMORY_AIM_MB = 1024.0
TRUE = {
    "annealing": {"L0": 2.0, "A": 4.0, "alpha": 0.4, "C": 0.4, "delay": 300.0},  # C: per S_2 of the run, below
    "multi-power": {"L0": 2.0, "A": 4.0, "alpha": 0.4, "B": 0.4, "C": 2.0, "beta": 0.5, "gamma": 0.6},
}
DRAWN = 8192  # steps at which the law draws the clean log (interpolated in between)


def peak_mb() -> float:
    """The peak resident memory of this process so far, in MB (Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def schedule(steps: int, kind: str):
    """The lr of every step: ``cosine`` (1% warmup, to 0.1 of 1e-3) or ``wsd`` (the same warmup, stable, linear
    decay over the last 20% to 0.1)."""
    import torch

    warmup = max(steps // 100, 1)
    k = torch.arange(steps, dtype=torch.float64)
    if kind == "cosine":
        tau = ((k - warmup) / (steps - warmup)).clamp(0, 1)
        body = 0.1 + 0.9 * 0.5 * (1 + torch.cos(math.pi * tau))
    else:
        start = steps - steps // 5
        body = 1 - 0.9 * ((k - start + 1) / (steps - start)).clamp(0, 1)
    return 1e-3 * torch.where(k < warmup, (k + 1) / warmup, body)


def true_law(name: str, lrs):
    """The law that draws the log, with :data:`TRUE` (the annealing law's ``C`` scaled so that its annealing term
    is 0.4 at the end of the cosine), as a :class:`~trainer.forecast.FittedLaw`."""
    from trainer.forecast.fitted import FittedLaw
    from trainer.forecast.laws import law_named, lr_areas

    values = dict(TRUE[name])
    if name == "annealing":
        delay = values["delay"]
        values["C"] /= float(lr_areas(lrs / lrs.max(), delay / (1 + delay)).s2.max())
    runs = [{"s1": float(lrs.sum() / lrs.max()), "s2": 1.0, "peak_lr": float(lrs.max())}]
    return FittedLaw(law_named(name), values, float(lrs.max()), 0.0, 0.0, 0, "train/loss", "lr", runs, covariance=None)


def synthetic_log(name: str, steps: int, noise: float):
    """A cosine run's :class:`~trainer.forecast.RunCurve` of ``steps`` noisy training losses, and the law that drew
    it."""
    import torch

    from trainer.forecast import RunCurve

    lrs = schedule(steps, "cosine")
    law = true_law(name, lrs)
    drawn = torch.unique(torch.linspace(1, steps, min(DRAWN, steps)).round().to(torch.int64))
    clean = law.predict(lrs, drawn)
    updates = torch.arange(1, steps + 1)
    position = torch.searchsorted(drawn, updates).clamp(1, len(drawn) - 1)
    left, right = drawn[position - 1], drawn[position]
    share = ((updates - left) / (right - left)).clamp(0, 1).to(torch.float64)
    smooth = clean[position - 1] + share * (clean[position] - clean[position - 1])
    generator = torch.Generator().manual_seed(steps)
    losses = smooth * (1 + noise * torch.randn(steps, generator=generator, dtype=torch.float64))
    return RunCurve(Path(f"cosine-{steps}"), lrs, updates, losses, "train/loss", "lr"), law


def one_case(name: str, steps: int, noise: float) -> dict:
    """Fit ``name`` on a synthetic log of ``steps`` steps and forecast a WSD run: times, memory and the error."""
    import torch

    from trainer.forecast.fitting import fit_curves
    from trainer.forecast.laws import law_named
    from trainer.forecast.predict import forecast_lrs

    imported = peak_mb()
    curve, truth = synthetic_log(name, steps, noise)
    start, cpu = time.perf_counter(), time.process_time()
    fitted = fit_curves([curve], law=law_named(name))
    fitted_at = time.perf_counter()
    wsd = schedule(steps, "wsd")
    counts = torch.arange(1, steps + 1, dtype=torch.float64)
    forecast = forecast_lrs(fitted, wsd, counts, "sample", label="wsd")
    done = time.perf_counter()
    cpu = time.process_time() - cpu
    expected = float(truth.predict(wsd, torch.tensor([steps]))[0])
    return {
        "law": name,
        "steps": steps,
        "fit_s": fitted_at - start,
        "forecast_s": done - fitted_at,
        "cpu_s": cpu,
        "peak_mb": peak_mb(),
        "imported_mb": imported,
        "error": forecast.final_loss / expected - 1,
        "fit_error": fitted.error,
        "noise": fitted.noise,
    }


def run_case(name: str, steps: int, noise: float) -> dict:
    """:func:`one_case` in a fresh subprocess (its own peak memory)."""
    command = [sys.executable, __file__, "--case", name, str(steps), "--noise", str(noise)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{name} at {steps} steps failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def report(rows: list[dict]) -> None:
    """The table: one row per case, with each aim met or not."""
    head = "law          steps      fit     forecast  total   aim    (cpu)    peak MB (imports)  final-loss error"
    print(head + "  fit error")
    for row in rows:
        total = row["fit_s"] + row["forecast_s"]
        aim = AIMS.get(row["steps"])
        met = "" if aim is None else ("ok" if total <= aim else "MISSED")
        memory = "" if row["steps"] < 1_000_000 else (" ok" if row["peak_mb"] <= MEMORY_AIM_MB else " MISSED")
        print(
            f"{row['law']:<12} {row['steps']:>9,}  {row['fit_s']:6.2f}s  {row['forecast_s']:6.2f}s  {total:6.2f}s "
            f"{met:<6} ({row['cpu_s']:5.2f}s) {row['peak_mb']:7.0f} ({row['imported_mb']:.0f}){memory:<4}  "
            f"{row['error']:+.4%}"
            f"         {row['fit_error']:.2%} (noise {row['noise']:.2%})"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--laws", nargs="+", default=["annealing", "multi-power"], choices=sorted(TRUE))
    parser.add_argument("--noise", type=float, default=0.01, help="relative noise of each step's loss")
    parser.add_argument("--case", nargs=2, metavar=("LAW", "STEPS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        print(json.dumps(one_case(args.case[0], int(args.case[1]), args.noise)))
        return 0
    rows = []
    for steps in args.steps:
        for name in args.laws:
            rows.append(run_case(name, steps, args.noise))
            print(f"  done: {name} at {steps:,} steps", file=sys.stderr)
    report(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
