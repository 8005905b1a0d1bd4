"""A budget sweep of the classifier (examples/classifier.py) from Python, with trainer.budget_sweep.

    python examples/sweep_classifier.py                 # 3 budgets, branched from one WSD main run
    python examples/sweep_classifier.py --independent   # the same 3 budgets as independent runs
    python examples/sweep_classifier.py --jobs 2        # two points at once, in separate processes

``make_trainer(budget, **run)`` builds the Trainer of one budget (a run length here; see ``make_ssr_trainer``
for scale schedule ratios) and passes ``run`` (the point's ``save_folder``, ``autoresume`` and, for a
branch, ``load_path``) on to it. It is a module-level function, so ``--jobs 2`` can pickle it.
The same sweep from the YAML file: ``cadence sweep examples/classifier_wsd.yaml --branch-from-stable
--budgets 0.25dur 0.5dur 1dur``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))  # classifier.py, next to this file
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # Cadence, when it is not installed

from classifier import make_model, train_loader, val_loader  # noqa: E402

from schedulers import WarmupStableDecayScheduler  # noqa: E402
from trainer import Trainer, budget_sweep  # noqa: E402

BUDGETS = ["150ba", "300ba", "600ba"]


def make_trainer(max_duration, **run) -> Trainer:
    """The classifier trained for ``max_duration`` with a warmup-stable-decay schedule (30 batches of warmup,
    the last 20% of the run decaying), seed 1."""
    torch.manual_seed(1)
    model = make_model(num_threads=1)
    return Trainer(
        model,
        train_loader(batch_size=64),
        max_duration,
        torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9),
        schedulers=WarmupStableDecayScheduler("30ba", t_decay="0.2dur", alpha_f=0.01),
        loss_fn=torch.nn.functional.cross_entropy,
        eval_dataloader=val_loader(),
        eval_interval="100ba",
        seed=1,
        progress_bar=False,
        print_schedule_report=False,
        **run,
    )


def make_ssr_trainer(ssr, **run) -> Trainer:
    """The same classifier, 600 batches scaled by the scale schedule ratio ``ssr``."""
    return make_trainer("600ba", scale_schedule_ratio=ssr, **run)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--independent", action="store_true", help="run every budget from scratch")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", default="runs/sweep-classifier")
    args = parser.parse_args(argv)
    out = Path(args.out) / ("independent" if args.independent else "branched")
    start = time.perf_counter()
    rows = budget_sweep(make_trainer, BUDGETS, out=out, jobs=args.jobs, branch_from_stable=not args.independent)
    print(f"{len(rows)} points in {time.perf_counter() - start:.1f} s; see {out / 'summary.csv'}")


if __name__ == "__main__":
    main()
