"""trainer.forecast on a real language model's log (examples/logs/gpt100m-811.csv.gz, Luo et al. 2025): fitted on
its constant lr and first decay, the multi-power law forecasts the loss after its second decay within 0.1%
(bench/forecast_real_log.py prints the figures of both laws and the times; docs/forecast.md, "A long log")."""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

import pytest
import torch

from trainer.forecast import MultiPowerLaw, RunCurve
from trainer.forecast.fitting import fit_curves

LOG = Path(__file__).resolve().parents[2] / "examples" / "logs" / "gpt100m-811.csv.gz"
FIT_FROM, FIT_UNTIL, LAST = 1_000, 30_517, 500  # the second decay starts at step 30,517


def read_log() -> tuple[torch.Tensor, torch.Tensor]:
    """The lr and the training loss of every step (the loss of step s is measured after s updates)."""
    with gzip.open(LOG, "rt", newline="") as stream:
        rows = list(csv.DictReader(stream))
    lrs = torch.tensor([float(row["lr"]) for row in rows], dtype=torch.float64)
    return lrs, torch.tensor([float(row["Metrics/loss"]) for row in rows], dtype=torch.float64)


def test_fitted_before_its_second_decay_the_multi_power_law_forecasts_the_end_of_a_real_gpt_log():
    lrs, losses = read_log()
    assert len(lrs) == 33_908 and float(losses[-LAST:].mean()) == pytest.approx(2.6650, abs=5e-5)
    updates = torch.arange(FIT_FROM, FIT_UNTIL + 1)
    run = RunCurve(LOG, lrs[:FIT_UNTIL], updates, losses[FIT_FROM : FIT_UNTIL + 1], "train/loss", "lr")
    fitted = fit_curves([run], law=MultiPowerLaw())
    # the log's own noise (about 1.4% a step) and a small misfit: measured 1.41% and 0.14%
    assert fitted.noise == pytest.approx(0.0141, abs=0.0005)
    assert fitted.systematic_error < 0.003
    last = torch.arange(len(lrs) - LAST, len(lrs))
    forecast = float(fitted.predict(lrs, last).mean())
    # measured +0.02% (the aim is 0.3%; the annealing law's +0.2% to +0.4%): 0.1% catches a regression
    assert forecast / float(losses[-LAST:].mean()) - 1 == pytest.approx(0.0, abs=0.001)
    low, high = fitted.interval(lrs, last)
    assert float(low.mean()) < float(losses[-LAST:].mean()) < float(high.mean())
