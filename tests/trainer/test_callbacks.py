"""``trainer.callbacks``: hook dispatch, ProgressBar, LRMonitor (docs/trainer.md "Callbacks")."""

from __future__ import annotations

import csv
import io
import os
from types import SimpleNamespace

import pytest
import torch

from schedulers import SchedulerState
from trainer.callbacks import HOOK_NAMES, Callback, CallbackList, LRMonitor, ProgressBar, call_hooks


def make_trainer(max_duration="10ba", *, dataloader_len=None, rank_zero=True, keys=("lr", "weight_decay")):
    weights = [torch.zeros(2, requires_grad=True), torch.zeros(3, requires_grad=True)]
    optimizer = torch.optim.SGD(
        [{"params": [weights[0]], "lr": 0.1, "weight_decay": 0.0}, {"params": [weights[1]], "lr": 0.01}],
        lr=0.5,
        weight_decay=1e-4,
    )
    return SimpleNamespace(
        state=SchedulerState(max_duration, dataloader_len=dataloader_len),
        optimizer=optimizer,
        model=None,
        scheduled_keys=list(keys),
        is_rank_zero=rank_zero,
    )


def fake_fit(trainer, callbacks, *, batches=None, samples=4, tokens=40, losses=None):
    """Drive the hooks like the trainer: schedulers set the lr, batch start, step, advance, batch end, epoch end."""
    callbacks = CallbackList(callbacks)
    state = trainer.state
    dataloader_len = state.dataloader_len
    if batches is None:
        batches = state.max_duration.value * (dataloader_len if state.max_duration.unit == "ep" else 1)
    callbacks.on_fit_start(trainer)
    for k in range(batches):
        for i, group in enumerate(trainer.optimizer.param_groups):
            group["lr"] = (0.1 if i == 0 else 0.01) * (1 - k / 10)
        callbacks.on_batch_start(trainer)
        state.timestamp = state.timestamp.to_next_batch(samples=samples, tokens=tokens)
        callbacks.on_batch_end(trainer, 1.0 / (k + 1) if losses is None else losses[k])
        if dataloader_len and state.timestamp.batch_in_epoch.value == dataloader_len:
            state.timestamp = state.timestamp.to_next_epoch()
            callbacks.on_epoch_end(trainer)
    callbacks.on_fit_end(trainer)
    return callbacks


# -- dispatch ----------------------------------------------------------------------------------------------


class Recorder(Callback):
    def __init__(self, name, log):
        self.name, self.log = name, log

    def on_batch_end(self, trainer, loss):
        self.log.append((self.name, "on_batch_end", loss))

    def on_eval(self, trainer, metrics):
        self.log.append((self.name, "on_eval", dict(metrics)))


def test_only_overriding_callbacks_are_bound():
    log = []
    first, second = Recorder("a", log), Recorder("b", log)
    callbacks = CallbackList([first, Callback(), second])
    assert callbacks.hooks("on_batch_end") == (first.on_batch_end, second.on_batch_end)
    assert callbacks.hooks("on_eval") == (first.on_eval, second.on_eval)
    for name in set(HOOK_NAMES) - {"on_batch_end", "on_eval"}:
        assert callbacks.hooks(name) == (), name
        assert not callbacks.has(name)
    # the list's own per-hook attributes are the precomputed tuples (no per-call inspection)
    assert callbacks._on_batch_start == ()
    assert len(callbacks) == 3 and list(callbacks)[1].__class__ is Callback

    callbacks.on_batch_start(None)
    callbacks.on_batch_end(None, 0.5)
    call_hooks(callbacks, "on_eval", None, {"acc": 1.0})
    assert log == [
        ("a", "on_batch_end", 0.5),
        ("b", "on_batch_end", 0.5),
        ("a", "on_eval", {"acc": 1.0}),
        ("b", "on_eval", {"acc": 1.0}),
    ]


def test_plain_callback_list_dispatches_nothing():
    callbacks = CallbackList([Callback(), Callback()])
    assert all(callbacks.hooks(name) == () for name in HOOK_NAMES)
    assert CallbackList().hooks("on_fit_end") == () and len(CallbackList(None)) == 0


def test_call_hooks_accepts_a_plain_list_and_duck_typed_objects():
    log = []

    class Duck:  # not a Callback subclass, one hook
        def on_checkpoint(self, trainer, path):
            log.append(path)

    call_hooks([Duck(), Recorder("r", log)], "on_checkpoint", None, "ba00000001.pt")
    call_hooks(None, "on_checkpoint", None, "ignored")
    assert log == ["ba00000001.pt"]


def test_instance_attribute_and_subclass_of_subclass_overrides():
    log = []

    class Child(Recorder):
        pass

    child = Child("c", log)
    plain = Callback()
    plain.on_fit_start = lambda trainer: log.append("fit start")
    callbacks = CallbackList([child, plain])
    assert callbacks.hooks("on_batch_end") == (child.on_batch_end,)
    callbacks.on_fit_start(None)
    assert log == ["fit start"]


def test_single_callback_and_append():
    log = []
    callbacks = CallbackList(Recorder("a", log))
    assert len(callbacks) == 1
    callbacks.append(Recorder("b", log))
    callbacks.extend([Callback()])
    callbacks.on_batch_end(None, 1.0)
    assert [entry[0] for entry in log] == ["a", "b"] and len(callbacks) == 3


def test_dispatch_errors():
    with pytest.raises(TypeError, match=r"callbacks\[1\].*int"):
        CallbackList([Callback(), 3])
    with pytest.raises(TypeError, match=r"callbacks\[0\].*class LRMonitor.*LRMonitor\(\)"):
        CallbackList([LRMonitor])
    with pytest.raises(ValueError, match="on_step.*on_batch_start"):
        CallbackList().hooks("on_step")
    with pytest.raises(ValueError, match="unknown callback hook"):
        call_hooks([], "on_step", None)


def test_exceptions_from_callbacks_propagate():
    class Boom(Callback):
        def on_epoch_end(self, trainer):
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        CallbackList([Boom()]).on_epoch_end(None)


# -- LRMonitor -----------------------------------------------------------------------------------------------


def expected_rows(batches=3):
    rows = []
    for k in range(batches):
        rows.append(
            {
                "batch": k,
                "epoch": 0,
                "sample": 4 * k,
                "token": 40 * k,
                "lr/group0": 0.1 * (1 - k / 10),
                "lr/group1": 0.01 * (1 - k / 10),
                "weight_decay/group0": 0.0,
                "weight_decay/group1": 1e-4,
            }
        )
    return rows


def test_lr_monitor_rows_are_the_values_each_batch_trains_with():
    trainer = make_trainer()
    monitor = LRMonitor()
    fake_fit(trainer, [monitor], batches=3)
    assert monitor.rows == expected_rows(3)
    assert monitor.values("lr") == [0.1, 0.1 * 0.9, 0.1 * 0.8]
    assert monitor.values("lr", group=1) == [0.01, 0.01 * 0.9, 0.01 * 0.8]
    assert monitor.values("weight_decay", 1) == [1e-4] * 3
    assert all(type(v) is float for row in monitor.rows for k, v in row.items() if "/" in k)
    assert all(type(row[c]) is int for row in monitor.rows for c in ("batch", "epoch", "sample", "token"))
    with pytest.raises(KeyError, match="momentum/group0.*lr/group0"):
        monitor.values("momentum")
    monitor.rows.clear()  # a copy: the monitor keeps its rows
    assert len(monitor.rows) == 3


def test_lr_monitor_counts_follow_epochs():
    trainer = make_trainer("2ep", dataloader_len=2)
    monitor = LRMonitor(keys="lr")
    fake_fit(trainer, [monitor], samples=3, tokens=0)
    assert [(r["batch"], r["epoch"], r["sample"], r["token"]) for r in monitor.rows] == [
        (0, 0, 0, 0),
        (1, 0, 3, 0),
        (2, 1, 6, 0),
        (3, 1, 9, 0),
    ]
    assert set(monitor.rows[0]) == {"batch", "epoch", "sample", "token", "lr/group0", "lr/group1"}


def test_lr_monitor_csv_exact(tmp_path):
    trainer = make_trainer()
    monitor = LRMonitor()
    fake_fit(trainer, [monitor], batches=3)
    path = tmp_path / "out" / "lr.csv"
    assert monitor.write_csv(path) == path
    assert path.read_text() == (
        "batch,epoch,sample,token,lr/group0,lr/group1,weight_decay/group0,weight_decay/group1\n"
        "0,0,0,0,0.1,0.01,0.0,0.0001\n"
        f"1,0,4,40,{0.1 * 0.9!r},{0.01 * 0.9!r},0.0,0.0001\n"
        f"2,0,8,80,{0.1 * 0.8!r},{0.01 * 0.8!r},0.0,0.0001\n"
    )
    # floats round-trip exactly
    with path.open(newline="") as stream:
        read = list(csv.DictReader(stream))
    assert [float(r["lr/group0"]) for r in read] == monitor.values("lr")
    assert [p.name for p in path.parent.iterdir()] == ["lr.csv"]  # no temp file left


def test_lr_monitor_records_tensor_values_as_floats_and_sorts_groups_numerically(tmp_path):
    weights = [torch.zeros(1, requires_grad=True) for _ in range(11)]
    optimizer = torch.optim.SGD([{"params": [w], "lr": torch.tensor(0.5 + i)} for i, w in enumerate(weights)])
    trainer = SimpleNamespace(
        state=SchedulerState("5ba"), optimizer=optimizer, scheduled_keys=["lr"], is_rank_zero=True
    )
    monitor = LRMonitor()
    monitor.on_batch_start(trainer)  # works without on_fit_start
    assert monitor.values("lr", 10) == [10.5] and type(monitor.values("lr", 3)[0]) is float
    monitor.write_csv(tmp_path / "lr.csv")
    header = (tmp_path / "lr.csv").read_text().splitlines()[0].split(",")
    assert header == ["batch", "epoch", "sample", "token"] + [f"lr/group{i}" for i in range(11)]


def test_lr_monitor_missing_keys_are_empty_cells(tmp_path):
    trainer = make_trainer(keys=("lr", "momentum_custom"))
    trainer.optimizer.param_groups[1]["momentum_custom"] = 0.9
    monitor = LRMonitor()
    fake_fit(trainer, [monitor], batches=1)
    assert monitor.rows[0]["momentum_custom/group1"] == 0.9 and "momentum_custom/group0" not in monitor.rows[0]
    monitor.write_csv(tmp_path / "m.csv")
    assert (tmp_path / "m.csv").read_text() == (
        "batch,epoch,sample,token,lr/group0,lr/group1,momentum_custom/group1\n0,0,0,0,0.1,0.01,0.9\n"
    )
    trainer.optimizer.param_groups[0]["momentum_custom"] = 0.5  # appears later: earlier rows get an empty cell
    fake_fit(trainer, [monitor], batches=1)
    monitor.write_csv(tmp_path / "m.csv")
    assert (tmp_path / "m.csv").read_text() == (
        "batch,epoch,sample,token,lr/group0,lr/group1,momentum_custom/group0,momentum_custom/group1\n"
        "0,0,0,0,0.1,0.01,,0.9\n"
        "1,0,4,40,0.1,0.01,0.5,0.9\n"
    )


def test_lr_monitor_write_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "lr.csv"
    path.write_text("old content\n")
    monitor = LRMonitor()
    fake_fit(make_trainer(), [monitor], batches=2)

    def failing_replace(src, dst):
        raise OSError("disk gone")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk gone"):
        monitor.write_csv(path)
    assert path.read_text() == "old content\n"
    assert [p.name for p in tmp_path.iterdir()] == ["lr.csv"]
    monkeypatch.undo()
    monitor.write_csv(path)
    assert path.read_text().startswith("batch,epoch,sample,token,lr/group0")


def test_lr_monitor_csv_path_written_at_fit_end(tmp_path):
    monitor = LRMonitor(csv_path=tmp_path / "auto.csv")
    fake_fit(make_trainer(), [monitor], batches=2)
    assert len((tmp_path / "auto.csv").read_text().splitlines()) == 3


def test_lr_monitor_records_nothing_off_rank_zero(tmp_path):
    monitor = LRMonitor(csv_path=tmp_path / "never.csv")
    fake_fit(make_trainer(rank_zero=False), [monitor], batches=3)
    assert monitor.rows == [] and monitor.values("lr") == []
    assert monitor.write_csv(tmp_path / "other.csv") is None
    assert list(tmp_path.iterdir()) == []


def test_lr_monitor_with_no_scheduled_keys_records_the_constant_lr():
    monitor = LRMonitor()
    fake_fit(make_trainer(keys=()), [monitor], batches=2)  # fake_fit writes the lr as a scheduler would
    assert monitor.columns() == ["batch", "epoch", "sample", "token", "lr/group0", "lr/group1"]
    assert monitor.values("lr", 0) == pytest.approx([0.1, 0.09], rel=1e-12)
    assert monitor.values("lr", 1) == pytest.approx([0.01, 0.009], rel=1e-12)
    weight_decay_only = LRMonitor(keys="weight_decay")  # keys given: those alone
    fake_fit(make_trainer(keys=()), [weight_decay_only], batches=1)
    assert weight_decay_only.columns() == [
        "batch",
        "epoch",
        "sample",
        "token",
        "weight_decay/group0",
        "weight_decay/group1",
    ]


# -- ProgressBar ----------------------------------------------------------------------------------------------


def test_progress_bar_renders_batches_to_stderr(capsys):
    bar = ProgressBar(refresh_interval=0)
    fake_fit(make_trainer("10ba"), [bar])
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err
    assert "0/10" in err and "10/10" in err and "100%" in err
    assert "ba/s" in err or "s/ba" in err
    assert "loss=0.1" in err and "lr=0.01" in err  # last batch: loss 1/10, lr 0.1 * 0.1
    assert err.endswith("\n")  # closed at fit end
    assert bar.bar is None


@pytest.mark.parametrize(
    "max_duration, samples, tokens, total_text, unit",
    [("40sp", 4, 0, "40.0/40.0", "sp"), ("400tok", 1, 40, "400/400", "tok"), ("3000sp", 300, 0, "3.00k/3.00k", "sp")],
)
def test_progress_bar_counts_samples_and_tokens(capsys, max_duration, samples, tokens, total_text, unit):
    fake_fit(make_trainer(max_duration), [ProgressBar(refresh_interval=0)], batches=10, samples=samples, tokens=tokens)
    err = capsys.readouterr().err
    assert total_text in err and (f"{unit}/s" in err or f"s/{unit}" in err)
    assert "100%" in err


def test_progress_bar_stops_at_the_total_when_the_last_batch_overshoots(capsys):
    bar = ProgressBar(refresh_interval=0)
    trainer = make_trainer("10sp")
    fake_fit(trainer, [bar], batches=3, samples=4)  # 12 samples
    err = capsys.readouterr().err
    assert "10.0/10.0" in err and "12.0/" not in err and "100%" in err


def test_progress_bar_epochs_count_batches(capsys):
    bar = ProgressBar(refresh_interval=0, desc="train")
    fake_fit(make_trainer("2ep", dataloader_len=5), [bar])
    err = capsys.readouterr().err
    assert "train ep 1/2" in err and "train ep 2/2" in err
    assert "10/10" in err and ("ba/s" in err or "s/ba" in err)
    assert "ep 3/2" not in err


def test_progress_bar_epochs_without_dataloader_len_count_epochs(capsys):
    trainer = make_trainer("2ep")
    bar = ProgressBar(refresh_interval=0)
    callbacks = CallbackList([bar])
    callbacks.on_fit_start(trainer)
    for _ in range(2):
        for _ in range(3):
            trainer.state.timestamp = trainer.state.timestamp.to_next_batch(samples=1)
            callbacks.on_batch_end(trainer, 0.5)
        trainer.state.timestamp = trainer.state.timestamp.to_next_epoch()
        callbacks.on_epoch_end(trainer)
        assert bar.bar.n == trainer.state.timestamp.epoch.value
    callbacks.on_fit_end(trainer)
    err = capsys.readouterr().err
    assert "2/2" in err and ("ep/s" in err or "s/ep" in err)


def test_progress_bar_resumed_run_starts_at_the_timestamp(capsys):
    trainer = make_trainer("10ba")
    trainer.state.timestamp = trainer.state.timestamp.copy(batch=6, batch_in_epoch=6, sample=24)
    bar = ProgressBar(refresh_interval=0)
    bar.on_fit_start(trainer)
    assert bar.bar.n == 6 and bar.bar.total == 10
    bar.close()
    assert "6/10" in capsys.readouterr().err


def test_progress_bar_does_nothing_off_rank_zero(capsys):
    bar = ProgressBar(refresh_interval=0)
    callbacks = fake_fit(make_trainer(rank_zero=False), [bar])
    callbacks.on_eval(None, {"acc": 1.0})
    assert bar.bar is None
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""


def test_progress_bar_writes_to_a_given_file_and_prints_eval_metrics(capsys):
    stream = io.StringIO()
    trainer = make_trainer("4ba")
    bar = ProgressBar(file=stream, refresh_interval=0)
    callbacks = CallbackList([bar])
    callbacks.on_fit_start(trainer)
    trainer.state.timestamp = trainer.state.timestamp.to_next_batch()
    callbacks.on_batch_end(trainer, torch.tensor(0.25))  # a tensor loss is shown as a float too
    callbacks.on_eval(trainer, {"accuracy": torch.tensor(0.875), "split": "val"})
    callbacks.on_fit_end(trainer)
    text = stream.getvalue()
    assert "[eval 1ba] accuracy=0.875, split=val" in text
    assert "loss=0.25" in text and "1/4" in text
    assert capsys.readouterr().err == ""


def test_progress_bar_postfix_describes_the_batch_its_count_shows():
    """tqdm draws on its own schedule (mininterval, its monitor thread): whenever it draws, the loss and lr shown
    are those of the last batch counted, never of one drawn earlier (at 100/300 it once showed batch 0's)."""
    trainer = make_trainer("300ba")
    stream = io.StringIO()
    bar = ProgressBar(file=stream, refresh_interval=3600)  # tqdm's own throttle never fires in this test
    group = trainer.optimizer.param_groups[0]
    bar.on_fit_start(trainer)
    drawn = {}
    for k in range(300):
        group["lr"] = 0.001 * (k + 1)  # batch k trains with lr 0.001 (k + 1)
        bar.on_batch_start(trainer)
        trainer.state.timestamp = trainer.state.timestamp.to_next_batch()
        group["lr"] = -1.0  # the schedulers stepped to the next batch's value before batch end
        bar.on_batch_end(trainer, 1000.0 + k)
        if k + 1 in (1, 100, 217):
            bar.bar.refresh()  # a redraw tqdm decides on, between two batches
            drawn[k + 1] = stream.getvalue().rsplit("\r", 1)[-1]
    bar.on_fit_end(trainer)
    assert "1/300" in drawn[1] and "loss=1000, lr=0.001]" in drawn[1]
    assert "100/300" in drawn[100] and "loss=1099, lr=0.1]" in drawn[100]
    assert "217/300" in drawn[217] and "loss=1216, lr=0.217]" in drawn[217]
    assert "300/300" in stream.getvalue() and "loss=1299, lr=0.3]" in stream.getvalue().rsplit("\r", 1)[-1]


def test_progress_bar_tqdm_options_and_validation():
    with pytest.raises(ValueError, match=r"^refresh_interval=-1 must be >= 0$"):
        ProgressBar(refresh_interval=-1)
    with pytest.raises(ValueError, match=r"^refresh_interval='0.1' must be a number$"):
        ProgressBar(refresh_interval="0.1")
    stream = io.StringIO()
    bar = ProgressBar(file=stream, leave=False, ncols=60)
    bar.on_fit_start(make_trainer("3ba"))
    assert bar.bar.leave is False and bar.bar.ncols == 60
    bar.on_fit_start(make_trainer("5ba"))  # a second fit replaces the bar
    assert bar.bar.total == 5
    bar.close()
    bar.close()


def _trainer_like_fit(trainer, bar, lrs, *, tensor=False):
    """The trainer's order: batch k's lr is written, batch start, the optimizer step, the clock and the schedulers
    step (the lr becomes batch k + 1's), then batch end."""
    group = trainer.optimizer.param_groups[0]
    write = (lambda v: group["lr"].fill_(v)) if tensor else (lambda v: group.__setitem__("lr", v))
    if tensor:
        group["lr"] = torch.tensor(lrs[0], dtype=torch.float64)
    write(lrs[0])
    bar.on_fit_start(trainer)
    shown = []
    for k in range(len(lrs) - 1):
        bar.on_batch_start(trainer)
        trainer.state.timestamp = trainer.state.timestamp.to_next_batch()
        write(lrs[k + 1])  # the scheduler stepped inside the trainer's advance
        bar.on_batch_end(trainer, 1.0)
        shown.append(bar.postfix)
    bar.on_fit_end(trainer)
    return shown


@pytest.mark.parametrize("tensor", [False, True])
def test_progress_bar_shows_the_lr_of_the_batch_shown(tensor):
    lrs = [0.5, 0.25, 0.125, 0.0625]
    bar = ProgressBar(file=io.StringIO(), refresh_interval=0)
    shown = _trainer_like_fit(make_trainer("3ba"), bar, lrs, tensor=tensor)
    assert shown == ["loss=1, lr=0.5", "loss=1, lr=0.25", "loss=1, lr=0.125"]  # never the next batch's lr


def test_a_bare_evaluation_listener_is_a_callback_and_on_eval_hears_through_the_listener_path():
    from schedulers.core.listening import Evaluation, EvaluationListener
    from trainer.callbacks import EvalHooks

    class Listener:
        listener_name, monitors, needs_evaluations = "mine", ("eval/loss",), True

        def hear(self, evaluation):
            return None

    class Hooked(Callback):
        def __init__(self):
            self.seen = []

        def on_eval(self, trainer, metrics):
            self.seen.append((trainer, metrics))

    hooked = Hooked()
    callbacks = CallbackList([Listener(), hooked])  # a listener with no hook is accepted
    hooks = EvalHooks("trainer", callbacks)
    assert isinstance(hooks, EvaluationListener) and not hooks.needs_evaluations and not hooks.monitors
    hooks.hear(Evaluation({"eval/loss": 2}, counts=False))  # callbacks hear evaluations that do not count too
    assert hooked.seen == [("trainer", {"eval/loss": 2.0})]
    with pytest.raises(TypeError, match=r"nor hear\(evaluation\), the listener protocol"):
        CallbackList([object()])


def test_lr_monitor_records_a_constant_lr_when_nothing_is_scheduled():
    """No scheduler: the optimizer's lr is what every batch trains with, and LRMonitor records it."""
    from trainer import Trainer

    model = torch.nn.Linear(2, 1)
    optimizer = torch.optim.SGD([{"params": [model.weight], "lr": 0.03}, {"params": [model.bias], "lr": 0.007}])
    monitor = LRMonitor()
    trainer = Trainer(model, [(torch.ones(4, 2), torch.zeros(4, 1))] * 3, "1ep", optimizer,
                      loss_fn=torch.nn.functional.mse_loss, callbacks=[monitor], progress_bar=False)  # fmt: skip
    trainer.fit()
    assert monitor.columns() == ["batch", "epoch", "sample", "token", "lr/group0", "lr/group1"]
    assert monitor.values("lr", 0) == [0.03] * 3 and monitor.values("lr", 1) == [0.007] * 3
