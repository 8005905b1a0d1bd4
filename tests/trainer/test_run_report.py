"""The schedule report at ``fit()`` start and in ``cadence fit --dry-run`` covers every scheduler (Cadence, torch,
Cerebras, SambaFlow), steps only copies, and a time argument beyond the end of the run is a warning naming it
(docs/report.md)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from schedulers import CosineAnnealingWithWarmupScheduler
from schedulers.cerebras.lr_scheduler import LinearLR as CerebrasLinearLR
from trainer import Trainer
from trainer.cli import main


def _data(batches: int = 4):
    generator = torch.Generator().manual_seed(0)
    return [(torch.randn(2, 3, generator=generator), torch.randn(2, 1, generator=generator)) for _ in range(batches)]


def _trainer(schedulers, **kwargs) -> Trainer:
    """A trainer for ``schedulers`` (a schedule, or a factory ``optimizer -> scheduler`` the trainer calls)."""
    model = torch.nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    kwargs.setdefault("max_duration", "4ep")
    return Trainer(model, _data(), optimizer=optimizer, schedulers=schedulers, loss_fn=F.mse_loss,
                   progress_bar=False, **kwargs)  # fmt: skip


def _beyond(trainer: Trainer) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer.fit()
    return [str(w.message) for w in caught if "after the end of the run" in str(w.message)]


def test_a_warmup_beyond_the_run_warns_at_fit_start_even_without_the_report(capsys):
    trainer = _trainer(CosineAnnealingWithWarmupScheduler(t_warmup="5ep"), print_schedule_report=False)
    assert _beyond(trainer) == [
        "schedulers[0]: t_warmup=5ep is after the end of the run at 4ep: the peak lr is never reached"
    ]
    assert capsys.readouterr().err == ""  # no report printed, the warning alone


def test_a_run_whose_times_fit_warns_nothing():
    assert _beyond(_trainer(CosineAnnealingWithWarmupScheduler(t_warmup="1ep"))) == []


def test_a_torch_total_iters_beyond_the_run_warns_and_the_live_scheduler_is_not_stepped(capsys):
    made = []

    def linear(optimizer):
        made.append(torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=40))
        return made[0]

    trainer = _trainer(linear, print_schedule_report=True)  # the report without a bar
    report = trainer.schedule_report()
    assert made[0].last_epoch == 0 and trainer.optimizer.param_groups[0]["lr"] == pytest.approx(0.01)
    assert "LinearLR (torch; steps once per epoch; values from stepping a copy)" in report  # torch: per epoch
    messages = _beyond(trainer)
    assert len(messages) == 1 and "total_iters=40ep is after the end of the run at 4ep" in messages[0]
    assert "values from stepping a copy" in capsys.readouterr().err  # the report at fit start, on stderr


def test_cerebras_schedulers_are_reported_by_stepping_a_copy():
    def cerebras(optimizer):
        return CerebrasLinearLR(optimizer, initial_learning_rate=0.1, end_learning_rate=0.01, total_iters=16)

    trainer = _trainer(cerebras)
    report, beyond = trainer.schedule_report_and_warnings()
    assert "(Cerebras; steps once per batch; values from stepping a copy)" in report
    assert beyond == []
    assert trainer.scheduled.others[0][1].last_epoch == 0  # the live scheduler did not move


def test_dry_run_prints_the_messages_fit_would_warn(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).parent))  # config_fixtures
    config = tmp_path / "run.yaml"
    config.write_text(
        """\
trainer:
  init:
    model: "config_fixtures:tiny_model"
    loss_fn: mse_loss
    optimizer: {SGD: {lr: 0.1}}
    schedulers:
      - CosineAnnealingWithWarmupScheduler: {t_warmup: 80ba}
    loop: {max_steps: 50}
  fit:
    train_dataloader: "config_fixtures:train_loader"
"""
    )
    assert main(["fit", str(config), "--dry-run"]) == 0
    captured = capsys.readouterr()
    assert "t_warmup  80ba" in captured.out
    assert "cadence: warning: " in captured.err and "t_warmup=80ba is after the end of the run at 50ba" in captured.err


@pytest.mark.parametrize(
    "progress_bar, asked, printed",
    [(False, None, False), (False, True, True), (True, False, False), (True, None, True)],
    ids=["quiet", "report-without-bar", "bar-without-report", "bar-and-report"],
)
def test_the_report_follows_the_progress_bar_unless_asked_for(capsys, progress_bar, asked, printed):
    """docs/trainer.md, "The schedule report": the console shows the run (bar and report) or stays quiet."""
    model = torch.nn.Linear(3, 1)
    trainer = Trainer(model, _data(), "2ep", torch.optim.SGD(model.parameters(), lr=0.1), loss_fn=F.mse_loss,
                      schedulers=CosineAnnealingWithWarmupScheduler(t_warmup="1ep"), progress_bar=progress_bar,
                      print_schedule_report=asked)  # fmt: skip
    trainer.fit()
    err = capsys.readouterr().err
    assert ("t_warmup" in err) == printed and (trainer.schedule_report() in err) == printed, err
