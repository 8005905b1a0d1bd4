"""The classifier (examples/classifier.py) with a learning rate that listens: a warmup, then a plateau schedule
that halves the lr when the eval loss stops improving, and early stopping (docs/plateau.md).

    python examples/plateau_classifier.py          # train, and print the evaluations and each reduction
    python examples/plateau_classifier.py OUT.svg  # ... and draw the picture of docs/plateau.md

``train()`` runs it and returns what the run logged; ``draw(logged, figure)`` draws the eval loss and the lr it
caused (docs/make_pictures.py draws docs/images/plateau-run.svg with it).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))  # classifier.py, next to this file
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # Cadence, when it is not installed

from classifier import make_model, train_loader, val_loader  # noqa: E402

from schedulers import PlateauScheduler, Warmup  # noqa: E402
from trainer import Callback, EarlyStopping, LRMonitor, Trainer  # noqa: E402

SCHEDULE = Warmup(PlateauScheduler(factor=0.5, patience=2, threshold=0.05), t_warmup="40ba")
STOPPING = {"patience": 6, "min_delta": 0.001}


class EvalLog(Callback):
    """Each evaluation's ``(batch, eval/loss)``."""

    def __init__(self) -> None:
        self.rows: list[tuple[int, float]] = []

    def on_eval(self, trainer: Any, metrics: dict) -> None:
        self.rows.append((trainer.state.timestamp.batch.value, metrics["eval/loss"]))


def make_trainer(*callbacks: Any, **run: Any) -> Trainer:
    """The classifier for at most 1,500 batches, SGD at lr 0.1, evaluated every 25 batches, seed 1."""
    torch.manual_seed(1)
    model = make_model(num_threads=1)
    return Trainer(
        model,
        train_loader(batch_size=64, num_samples=2048, spread=3.0),
        "1500ba",
        torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9),
        schedulers=SCHEDULE,
        loss_fn=torch.nn.functional.cross_entropy,
        eval_dataloader=val_loader(spread=3.0),
        eval_interval="25ba",
        callbacks=[EarlyStopping(**STOPPING), *callbacks],
        seed=1,
        progress_bar=False,
        print_schedule_report=False,
        **run,
    )


def train() -> dict[str, Any]:
    """Train once; returns ``{"lr": per batch, "evals": [(batch, loss)], "reductions": [batch], "stopped": batch}``."""
    lrs, evals = LRMonitor(), EvalLog()
    trainer = make_trainer(lrs, evals)
    trainer.fit()
    (plateau,) = [s.scheduler.schedule for s in trainer.schedulers]
    return {
        "lr": lrs.values("lr"),
        "evals": evals.rows,
        "reductions": [r.value for r in plateau.reductions],
        "stopped": trainer.state.timestamp.batch.value,
    }


def draw(logged: dict[str, Any], figure: Any) -> Any:
    """The eval loss (top) and the lr it caused (bottom), a dotted line at each reduction."""
    loss_axes, lr_axes = figure.subplots(2, 1, sharex=True)
    batches, losses = zip(*logged["evals"], strict=True)
    # named curves (<g id="cadence-curve-N">): the docs test reads them back from the SVG
    loss_axes.plot(batches, losses, marker="o", markersize=2.5, label="eval/loss", gid="cadence-curve-0")
    loss_axes.set_ylabel("eval/loss")
    lr_axes.plot(
        range(len(logged["lr"])), logged["lr"], drawstyle="steps-post", label="lr", color="C1", gid="cadence-curve-1"
    )
    lr_axes.set_ylabel("lr")
    lr_axes.set_xlabel("batch")
    for batch in logged["reductions"]:
        for axes in (loss_axes, lr_axes):
            axes.axvline(batch, color="0.6", linestyle=":", linewidth=0.8)
    reductions = ", ".join(f"{batch}ba" for batch in logged["reductions"]) or "none"
    plateau = SCHEDULE.schedule
    loss_axes.set_title(
        f"Warmup({SCHEDULE.t_warmup}) then PlateauScheduler(factor={plateau.factor}, patience={plateau.patience}, "
        f"threshold={plateau.threshold})\nreductions at {reductions}; early stopping at {logged['stopped']}ba"
    )
    return figure


def main(argv: list[str]) -> None:
    logged = train()
    for batch, loss in logged["evals"]:
        print(f"{batch:5d}ba  eval/loss {loss:.4f}  lr {logged['lr'][min(batch, len(logged['lr']) - 1)]:.5f}")
    print(f"reductions at {logged['reductions']}; stopped at {logged['stopped']}ba")
    if argv:
        from matplotlib.figure import Figure

        draw(logged, Figure(figsize=(7.0, 4.6), layout="constrained")).savefig(argv[0])


if __name__ == "__main__":
    main(sys.argv[1:])
