"""Issue 7: clipping, mixed precision, autoresume after SIGTERM, checkpoint retention, weights-only loading."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from schedulers import CosineAnnealingWithWarmupScheduler
from trainer import Callback, Trainer
from trainer.checkpoint_files import list_checkpoints, load_checkpoint

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))

import background  # noqa: E402  (tests/background.py)


def _data(n=16, batch=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    x, y = torch.randn(n, 3, generator=g), torch.randn(n, 1, generator=g)
    return torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=batch)


def _model(seed=0):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))


def _trainer(model=None, **kwargs):
    model = model or _model()
    kwargs.setdefault("optimizer", torch.optim.SGD(model.parameters(), lr=0.5))
    kwargs.setdefault("max_duration", "3ba")
    return Trainer(model, _data(), loss_fn=F.mse_loss, progress_bar=False, **kwargs)


def test_clipping_changes_the_update_exactly_as_clip_grad_norm():
    clipped = _trainer(max_grad_norm=0.01)
    clipped.fit()
    model = _model()
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    norms = []
    for k, (x, y) in enumerate(_data()):
        if k == 3:
            break
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        norms.append(float(torch.nn.utils.clip_grad_norm_(model.parameters(), 0.01)))
        opt.step()
    for mine, theirs in zip(clipped.model.parameters(), model.parameters(), strict=True):
        assert torch.equal(mine, theirs)
    assert clipped.last_grad_norm == norms[-1] and norms[-1] > 0.01  # the pre-clip norm is reported


def test_bf16_autocast_runs_on_cpu():
    seen = []

    class Dtypes(Callback):
        def on_batch_end(self, trainer, loss):
            seen.append(loss)

    model = _model()
    trainer = _trainer(model, precision="bf16", callbacks=[Dtypes()])
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert model(torch.randn(2, 3)).dtype == torch.bfloat16  # autocast really applies to this model
    trainer.fit()
    assert trainer.state.timestamp.batch.value == 3 and len(seen) == 3


def _overflow_once(model: torch.nn.Module) -> dict[str, bool]:
    """Make the first backward pass through ``model[2]`` produce inf gradients (an fp16 overflow), once."""
    poisoned = {"done": False}

    def poison_once(module, grad_input, grad_output):
        if not poisoned["done"]:
            poisoned["done"] = True
            return (torch.full_like(grad_input[0], float("inf")),) + tuple(grad_input[1:])
        return None

    model[2].register_full_backward_hook(poison_once)
    return poisoned


def test_fp16_overflow_step_is_skipped_and_time_does_not_advance():
    model = _model()
    poisoned = _overflow_once(model)
    schedule = CosineAnnealingWithWarmupScheduler(t_warmup="2ba")
    trainer = _trainer(model, precision="fp16", max_duration="3ba", schedulers=schedule)
    steps = []
    trainer.optimizer.register_step_post_hook(lambda opt, args, kwargs: steps.append(1))
    trainer.fit()
    assert poisoned["done"]
    assert trainer.state.timestamp.batch.value == 3  # three real steps ...
    assert trainer.state.timestamp.sample.value == 12  # ... counting only their samples
    assert trainer.precision.scaler.get_scale() < 65536.0  # the scaler backed off once
    assert len(steps) == 3  # the skipped step never reached the optimizer


def test_an_epoch_the_fp16_scaler_shortened_closes_in_silence():
    # 4 batches an epoch; the first step overflows (a fresh scaler may skip more): an epoch counts fewer than 4
    # optimizer steps, and the loader running out closes it, whole (a skipped step's data was used), so the clock
    # does not call it short (Clock.epoch(skipped=...))
    model = _model()
    poisoned = _overflow_once(model)
    trainer = _trainer(model, precision="fp16", max_duration="2ep")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer.fit()
    assert poisoned["done"] and not [str(w.message) for w in caught if "an epoch closed after" in str(w.message)]
    assert trainer.state.timestamp.epoch.value == 2 and trainer.state.timestamp.batch.value < 8  # steps were skipped


def test_precision_is_validated():
    with pytest.raises(ValueError, match="precision='fp8'"):
        _trainer(precision="fp8")
    with pytest.raises(ValueError, match="max_grad_norm=0"):
        _trainer(max_grad_norm=0)


def test_retention_keeps_the_newest_and_never_zero(tmp_path):
    trainer = _trainer(max_duration="8ba", save_folder=tmp_path, save_interval="1ba", save_num_checkpoints_to_keep=2)
    trainer.fit()
    names = [p.name for p in list_checkpoints(tmp_path)]
    assert names == ["ba00000007.pt", "ba00000008.pt"]
    assert os.readlink(tmp_path / "latest") == "ba00000008.pt"


def test_retention_during_a_failed_save_keeps_the_old_files(tmp_path, monkeypatch):
    trainer = _trainer(max_duration="4ba", save_folder=tmp_path, save_interval="1ba", save_num_checkpoints_to_keep=1)

    class Boom(Callback):
        def on_batch_end(self, t, loss):
            if t.state.timestamp.batch.value == 3:
                monkeypatch.setattr(torch, "save", _failing_save)

    trainer.callbacks.append(Boom())
    with pytest.raises(OSError, match="disk full"):
        trainer.fit()
    assert [p.name for p in list_checkpoints(tmp_path)] == ["ba00000002.pt"]
    load_checkpoint(tmp_path)  # latest still loads


def _failing_save(obj, f, *args, **kwargs):
    raise OSError("disk full")


def test_weights_only_loading_starts_fresh(tmp_path):
    first = _trainer(max_duration="4ba", save_folder=tmp_path)
    first.fit()
    bigger = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1), torch.nn.Identity())
    finetune = _trainer(bigger, load_path=tmp_path, load_weights_only=True, load_strict_model_weights=False)
    assert finetune.state.timestamp.batch.value == 0
    assert torch.equal(finetune.model[0].weight, first.model[0].weight)
    assert finetune.optimizer.state == {}
    with pytest.raises(ValueError, match="do not fit this model"):
        _trainer(torch.nn.Linear(3, 1), load_path=tmp_path, load_weights_only=True)


def test_autoresume_needs_a_folder_and_starts_fresh_without_checkpoints(tmp_path):
    with pytest.raises(ValueError, match="autoresume=True needs save_folder"):
        _trainer(autoresume=True)
    trainer = _trainer(autoresume=True, save_folder=tmp_path / "empty")
    assert trainer.state.timestamp.batch.value == 0


SCRIPT = textwrap.dedent(
    """
    import os, signal, sys, torch
    import torch.nn.functional as F
    sys.path.insert(0, {root!r})
    from schedulers import CosineAnnealingWithWarmupScheduler
    from trainer import Callback, Trainer

    class TermAt(Callback):
        def on_batch_end(self, trainer, loss):
            if trainer.state.timestamp.batch.value == int(sys.argv[2]):
                os.kill(os.getpid(), signal.SIGTERM)   # a preemption notice mid-run

    g = torch.Generator().manual_seed(0)
    data = torch.utils.data.TensorDataset(torch.randn(40, 3, generator=g), torch.randn(40, 1, generator=g))
    loader = torch.utils.data.DataLoader(data, batch_size=4, shuffle=True)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Dropout(0.2), torch.nn.Linear(8, 1))
    trainer = Trainer(model, loader, "25ba", torch.optim.AdamW(model.parameters(), lr=0.01),
                      schedulers=CosineAnnealingWithWarmupScheduler(t_warmup="5ba"), loss_fn=F.mse_loss,
                      save_folder=sys.argv[1], autoresume=True, progress_bar=False,
                      callbacks=[TermAt()] if len(sys.argv) > 2 else [])
    trainer.fit()
    torch.save({{k: v for k, v in model.state_dict().items()}}, os.path.join(sys.argv[1], "final.pt"))
    """
)


def _preempted_runs(folder: Path, env: dict) -> tuple[Path, Path, int, str]:
    """The script run whole and, beside it, stopped by SIGTERM at batch 13 then rerun (tests/background.py starts
    it with the session). Returns both folders, the stopped run's exit status and its ``latest`` link then."""
    script = folder / "run.py"
    script.write_text(SCRIPT.format(root=str(ROOT)))
    env = {**env, "PYTHONPATH": str(ROOT)}
    whole, preempted = folder / "whole", folder / "preempted"
    with background.popen([sys.executable, str(script), str(whole)], env=env) as first_whole:
        first = background.run([sys.executable, str(script), str(preempted), "13"], env=env)
        latest = os.readlink(preempted / "latest") if (preempted / "latest").is_symlink() else ""
    assert first_whole.returncode == 0
    subprocess.run([sys.executable, str(script), str(preempted)], check=True, env=env, timeout=600)
    return whole, preempted, first.returncode, latest


@background.ahead(_preempted_runs)
def test_sigterm_saves_and_autoresume_continues_bit_exactly():
    whole, preempted, status, latest = background.result(_preempted_runs)
    assert status == 128 + signal.SIGTERM
    assert latest == "ba00000013.pt"  # the final checkpoint came before exit
    want = torch.load(whole / "final.pt", weights_only=True)
    got = torch.load(preempted / "final.pt", weights_only=True)
    assert all(torch.equal(want[key], got[key]) for key in want)


def test_fit_prints_the_resolved_schedule_report_first(capsys):
    model = _model()
    trainer = _trainer(
        model,
        max_duration="2ep",
        schedulers=CosineAnnealingWithWarmupScheduler(t_warmup="0.25dur", alpha_f=0.1),
        print_schedule_report=True,  # without a progress bar, the report is printed when asked for
    )
    trainer.fit()
    report = capsys.readouterr().err
    assert "t_warmup  0.25dur  = 2ba" in report  # 2 epochs of 4 batches
    assert "batches   8" in report and "epochs    2" in report


def test_dry_run_reports_and_takes_no_optimizer_step(tmp_path):
    config = tmp_path / "run.yaml"
    config.write_text(
        textwrap.dedent(
            """
            trainer:
              init:
                model: "config_fixtures:tiny_model"
                loss_fn: mse_loss
                optimizer: {SGD: {lr: 0.1}}
                schedulers:
                  - CosineAnnealingWithWarmupScheduler: {t_warmup: 0.1dur, alpha_f: 0.1}
                loop: {max_steps: 50}
              fit:
                train_dataloader: "config_fixtures:train_loader"
            """
        )
    )
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests' / 'trainer'}"}
    result = subprocess.run(
        [sys.executable, "-m", "trainer", "fit", str(config), "--dry-run"], capture_output=True, text=True, env=env
    )
    assert result.returncode == 0, result.stderr
    assert "t_warmup  0.1dur  = 5ba" in result.stdout
    assert "loss" not in result.stdout.split("is valid")[0]  # nothing trained
