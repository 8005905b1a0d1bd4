"""The trainer holds one run (docs/trainer.md): built once from its arguments, it is what its clock counts, what
its schedules are resolved for (once each) and what its report and checkpoints describe."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

import schedulers.core.run as run_module
from schedulers import CosineAnnealingWithWarmupScheduler, LinearScheduler, Run, StepScheduler
from schedulers.core.schedule_arguments import number_argument
from trainer import Trainer

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from resolve_spy import count_outermost_resolutions  # noqa: E402


def _trainer(schedulers, *, ssr=0.5, max_duration="2ba", **kwargs):
    model = torch.nn.Linear(3, 1)
    data = torch.utils.data.TensorDataset(torch.randn(8, 3), torch.randn(8, 1))
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.1, weight_decay=0.01)
    return Trainer(
        model,
        torch.utils.data.DataLoader(data, batch_size=4),
        max_duration,
        optimizer,
        schedulers=schedulers,
        loss_fn=F.mse_loss,
        scale_schedule_ratio=ssr,
        progress_bar=False,
        **kwargs,
    )


def _count_resolutions(monkeypatch) -> list[str]:
    """The outermost ``_resolve`` calls of the three schedule classes these tests use."""
    return count_outermost_resolutions(
        monkeypatch, (CosineAnnealingWithWarmupScheduler, LinearScheduler, StepScheduler)
    )


def test_a_one_batch_fit_resolves_each_curve_once_and_checks_the_ratio_once(monkeypatch, capsys):
    """Build, compile, unit check, report and fit: each schedule resolved once; the ratio checked once (a fit
    like this resolved its schedule 4 times and checked the ratio 9 times)."""
    resolved = _count_resolutions(monkeypatch)
    checks = []

    def counted(name, value, **bounds):
        if name in ("ssr", "scale_schedule_ratio"):
            checks.append(name)
        return number_argument(name, value, **bounds)

    for module in (run_module, *_modules_with("number_argument")):
        monkeypatch.setattr(module, "number_argument", counted)
    entries = [
        CosineAnnealingWithWarmupScheduler("1ba"),
        {"schedule": LinearScheduler(), "hyperparameter": "weight_decay"},
    ]
    trainer = _trainer(entries, print_schedule_report=True)  # the report without a bar
    trainer.fit()
    assert trainer.state.timestamp.batch.value == 1  # 2ba at ratio 0.5
    assert "lr: schedulers[0]" in capsys.readouterr().err  # the report ran, from the same curves
    assert sorted(resolved) == ["CosineAnnealingWithWarmupScheduler", "LinearScheduler"]
    assert checks == ["scale_schedule_ratio"]
    assert trainer.run == Run("2ba", 2, samples_per_batch=4, ssr=0.5)
    assert trainer.state.run is trainer.run and trainer.state.max_duration == trainer.run.length


def test_schedules_that_multiply_are_resolved_once_each(monkeypatch):
    resolved = _count_resolutions(monkeypatch)
    trainer = _trainer([CosineAnnealingWithWarmupScheduler("1ba", t_max="3ba"), StepScheduler("2ba", gamma=0.5)])
    trainer.fit()
    assert sorted(resolved) == ["CosineAnnealingWithWarmupScheduler", "StepScheduler"]
    # after 1 batch: step_size 2ba x 0.5 = 1, so halved; t_max 3ba x 0.5 = 1.5 -> 1, the end of the warmup: 1
    assert trainer.optimizer.param_groups[0]["lr"] == pytest.approx(0.1 * 1.0 * 0.5, rel=1e-12)


def _modules_with(name):
    import sys

    return [
        module
        for module_name, module in list(sys.modules.items())
        if module_name.startswith(("schedulers", "trainer")) and getattr(module, name, None) is number_argument
    ]


def test_the_ratio_error_names_the_trainers_argument():
    with pytest.raises(ValueError, match=r"^scale_schedule_ratio=0 must be a finite number > 0$"):
        _trainer(LinearScheduler(), ssr=0)


def test_a_resumed_run_keeps_the_constructors_ratio(tmp_path):
    """The checkpoint's ratio is warned about and the constructor's wins: the compiled schedule follows the run
    it was built for, not the ratio saved with it (which used to replace it on load)."""
    first = _trainer(
        StepScheduler("2ba", gamma=0.5), ssr=1.0, max_duration="4ba", save_folder=tmp_path, save_interval="1ba"
    )
    first.fit()
    with pytest.warns(UserWarning, match="scale_schedule_ratio"):
        resumed = _trainer(
            StepScheduler("2ba", gamma=0.5), ssr=2.0, max_duration="4ba", load_path=tmp_path / "ba00000002.pt"
        )
    assert resumed.schedulers[0].ssr == 2.0
    assert resumed.optimizer.param_groups[0]["lr"] == pytest.approx(0.1, rel=1e-12)  # step_size 2ba x 2: not yet
    resumed.fit("2ba")
    assert resumed.optimizer.param_groups[0]["lr"] == pytest.approx(0.05, rel=1e-12)  # halved at batch 4


def test_an_epoch_time_with_a_loader_without_length_names_the_loader():
    from schedulers.core.run import MissingDataloaderLenError

    class Stream(torch.utils.data.IterableDataset):
        def __iter__(self):
            return iter([(torch.ones(3), torch.ones(1))] * 8)

    model = torch.nn.Linear(3, 1)
    loader = torch.utils.data.DataLoader(Stream(), batch_size=4)
    with pytest.raises(MissingDataloaderLenError) as raised:
        Trainer(model, loader, "3ep", torch.optim.SGD(model.parameters(), lr=0.1),
                schedulers=CosineAnnealingWithWarmupScheduler(t_warmup="1ep"), loss_fn=F.mse_loss)  # fmt: skip
    assert str(raised.value) == (
        "schedulers[0]: t_warmup=1ep needs the batches of an epoch, but the train dataloader (DataLoader over "
        "Stream) has no len(): give max_duration and the schedules' times in ba, sp or tok, or a train dataloader "
        "with a length"
    )
    trainer = Trainer(model, loader, "24sp", torch.optim.SGD(model.parameters(), lr=0.1),
                      schedulers=CosineAnnealingWithWarmupScheduler(t_warmup="8sp"), loss_fn=F.mse_loss,
                      progress_bar=False)  # fmt: skip
    trainer.fit()  # times in sp need no length; epochs end when the stream runs out
    assert (trainer.state.timestamp.batch.value, trainer.state.timestamp.sample.value) == (6, 24)
