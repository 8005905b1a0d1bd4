"""``trainer.loggers``: CSVLogger, TensorBoardLogger and LoggerCallback."""

from __future__ import annotations

import csv
import json
import math
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from torch import nn

import trainer.loggers as loggers_module
from schedulers import CosineAnnealingWithWarmupScheduler, LinearScheduler, SchedulerState
from timeunits import Time, Timestamp
from trainer.loggers import CSVLogger, Logger, LoggerCallback, TensorBoardLogger
from trainer.param_groups import decay_groups
from trainer.trainer import Trainer


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as stream:
        rows = list(csv.reader(stream))
    return rows[0], rows[1:]


def read_dicts(path):
    with open(path, newline="", encoding="utf-8") as stream:
        return list(csv.DictReader(stream))


def leftovers(folder: Path):
    return [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


# -- CSVLogger -------------------------------------------------------------------------------------------


def test_csv_rows_and_exact_floats(tmp_path):
    path = tmp_path / "run" / "metrics.csv"
    logger = CSVLogger(path)
    assert isinstance(logger, Logger)
    assert not path.exists()  # created at the first row
    values = [0.1 + 0.2, 1 / 3, 1e-300, float("nan"), float("inf")]
    for k, value in enumerate(values, start=1):
        logger.log_metrics({"train/loss": value, "lr/group0": torch.tensor(0.5**k)}, Timestamp(batch=k, sample=4 * k))
        header, rows = read_csv(path)  # a complete CSV after every call
        assert len(rows) == k
    logger.close()
    logger.close()  # twice is fine
    assert header == ["batch", "epoch", "sample", "token", "train/loss", "lr/group0"]
    assert [row[:4] for row in rows] == [[str(k), "0", str(4 * k), "0"] for k in range(1, 6)]
    read_back = [float(row[4]) for row in rows]
    assert read_back[:3] == values[:3] and math.isnan(read_back[3]) and read_back[4] == math.inf
    assert [float(row[5]) for row in rows] == [0.5**k for k in range(1, 6)]


def test_new_metric_names_rewrite_the_header_atomically_and_pad_earlier_rows(tmp_path):
    path = tmp_path / "metrics.csv"
    with CSVLogger(path) as logger:
        logger.log_metrics({"train/loss": 1.0}, Timestamp(batch=1))
        logger.log_metrics({"train/loss": 0.5}, Timestamp(batch=2))
        logger.log_metrics({"eval/loss": 0.7}, Timestamp(batch=2))
        header, rows = read_csv(path)
        assert header == ["batch", "epoch", "sample", "token", "train/loss", "eval/loss"]
        assert rows == [
            ["1", "0", "0", "0", "1.0", ""],
            ["2", "0", "0", "0", "0.5", ""],
            ["2", "0", "0", "0", "", "0.7"],
        ]
        logger.log_metrics({"train/loss": 0.25, "train/grad_norm": 3.0}, Timestamp(batch=3))
        logger.log_metrics({"train/loss": 0.125}, Timestamp(batch=4))
    header, rows = read_csv(path)
    assert header[4:] == ["train/loss", "eval/loss", "train/grad_norm"]
    assert all(len(row) == len(header) for row in rows)
    assert rows[3] == ["3", "0", "0", "0", "0.25", "", "3.0"] and rows[4] == ["4", "0", "0", "0", "0.125", "", ""]
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("where", ["while writing the rows", "just before the rename"])
def test_an_interrupted_header_rewrite_leaves_the_previous_file_whole_and_no_temporary_file(tmp_path, where):
    """Ctrl-C (KeyboardInterrupt) while a new metric name rewrites the file (the atomic CSV write behind every
    trainer CSV): the file is the one before, byte for byte, no temporary file is left, and the logger goes on
    from it, widening the header again at the next row."""
    import trainer.records as records

    path = tmp_path / "metrics.csv"
    logger = CSVLogger(path)
    for batch, loss in enumerate((1.5, 0.29, 0.125), start=1):
        logger.log_metrics({"train/loss": loss}, Timestamp(batch=batch))
    logger.flush()
    before = path.read_bytes()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    with pytest.MonkeyPatch.context() as patch:
        if where == "while writing the rows":  # the header is out, the first row goes wrong
            cell = records.csv_cell
            calls = iter(range(10**6))
            patch.setattr(records, "csv_cell", lambda value: interrupted() if next(calls) == 2 else cell(value))
        else:
            patch.setattr(records.os, "replace", interrupted)
        with pytest.raises(KeyboardInterrupt):
            logger.log_metrics({"eval/loss": 0.7}, Timestamp(batch=3))
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["metrics.csv"]
    logger.log_metrics({"eval/loss": 0.7}, Timestamp(batch=3))
    logger.close()
    assert read_dicts(path)[-1] == {"batch": "3", "epoch": "0", "sample": "0", "token": "0", "train/loss": "",
                                    "eval/loss": "0.7"}  # fmt: skip


def test_csv_logging_after_close_appends_and_append_mode_continues_a_file(tmp_path):
    path = tmp_path / "metrics.csv"
    logger = CSVLogger(path)
    logger.log_metrics({"a": 1.0}, Timestamp(batch=1))
    logger.close()
    logger.log_metrics({"a": 2.0, "b": 3.0}, Timestamp(batch=2))
    logger.close()
    resumed = CSVLogger(path, append=True)
    resumed.log_metrics({"b": 4.0}, Timestamp(batch=3, epoch=1))
    resumed.close()
    assert read_dicts(path) == [
        {"batch": "1", "epoch": "0", "sample": "0", "token": "0", "a": "1.0", "b": ""},
        {"batch": "2", "epoch": "0", "sample": "0", "token": "0", "a": "2.0", "b": "3.0"},
        {"batch": "3", "epoch": "1", "sample": "0", "token": "0", "a": "", "b": "4.0"},
    ]
    fresh = CSVLogger(path)  # without append, the file is replaced
    fresh.log_metrics({"c": 1.0}, Timestamp())
    fresh.close()
    assert read_csv(path) == (["batch", "epoch", "sample", "token", "c"], [["0", "0", "0", "0", "1.0"]])
    (tmp_path / "other.csv").write_text("x,y\n1,2\n")
    with pytest.raises(ValueError, match="cannot append"):
        CSVLogger(tmp_path / "other.csv", append=True).log_metrics({"a": 1.0}, Timestamp())


def test_csv_metric_errors(tmp_path):
    logger = CSVLogger(tmp_path / "m.csv")
    with pytest.raises(ValueError, match="'batch' clashes"):
        logger.log_metrics({"batch": 1.0}, Timestamp())
    with pytest.raises(TypeError, match="'x'="):
        logger.log_metrics({"x": "high"}, Timestamp())
    with pytest.raises(ValueError, match="non-empty str"):
        logger.log_metrics({3: 1.0}, Timestamp())
    with pytest.raises(ValueError, match="same file"):
        CSVLogger(tmp_path / "m.csv", hparams_path=tmp_path / "m.csv")
    logger.close()


def test_hyperparameters_go_to_an_atomically_written_json_sidecar(tmp_path):
    logger = CSVLogger(tmp_path / "out" / "metrics.csv")
    logger.log_hyperparameters({"max_duration": Time(10, "ep"), "ssr": 0.5, "base_lrs": [0.1, torch.tensor(0.2)]})
    logger.log_hyperparameters({"optimizer": torch.optim.SGD, "nan": float("nan")})
    sidecar = tmp_path / "out" / "metrics.hparams.json"
    assert json.loads(sidecar.read_text()) == {
        "max_duration": "10ep",
        "ssr": 0.5,
        "base_lrs": [0.1, pytest.approx(0.2)],
        "optimizer": "SGD",
        "nan": "nan",
    }
    assert logger.hyperparameters["ssr"] == 0.5
    assert not (tmp_path / "out" / "metrics.csv").exists() and leftovers(tmp_path / "out") == []
    logger.close()


# -- TensorBoardLogger -------------------------------------------------------------------------------------


def test_tensorboard_missing_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch.utils.tensorboard", None)  # makes the import fail
    with pytest.raises(ImportError, match=r"'tensorboard' extra.*cadence\[tensorboard\]"):
        TensorBoardLogger(tmp_path / "tb")


def scalars(log_dir):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    accumulator = EventAccumulator(str(log_dir))
    accumulator.Reload()
    return accumulator, {
        tag: [(e.step, e.value) for e in accumulator.Scalars(tag)] for tag in accumulator.Tags()["scalars"]
    }


def test_tensorboard_scalars_use_the_batch_count_as_step(tmp_path):
    pytest.importorskip("tensorboard", reason="the optional 'tensorboard' extra is not installed")
    log_dir = tmp_path / "tb"
    logger = TensorBoardLogger(log_dir)
    assert not log_dir.exists()  # the event file is created at first use
    logger.log_hyperparameters({"max_duration": Time(3, "ba"), "base_lrs": [0.1, 0.2], "dataloader_len": None})
    logger.log_metrics({"train/loss": 0.5}, Timestamp(batch=1, sample=10))
    logger.log_metrics({"train/loss": 0.25, "lr/group0": 0.125}, Timestamp(batch=7, epoch=2))
    logger.close()
    logger.close()
    accumulator, values = scalars(log_dir)
    assert values == {"train/loss": [(1, 0.5), (7, 0.25)], "lr/group0": [(7, 0.125)]}
    from tensorboard.util.tensor_util import make_ndarray

    (text,) = accumulator.Tensors("hyperparameters/text_summary")
    written = make_ndarray(text.tensor_proto).item().decode()
    assert json.loads(written.strip("`\n")) == {"max_duration": "3ba", "base_lrs": [0.1, 0.2], "dataloader_len": None}
    assert "_hparams_/experiment" in accumulator.PluginTagToContent("hparams")


def test_a_fresh_tensorboard_logger_replaces_what_the_folder_shows_and_appends_after_its_own_close(tmp_path):
    """As CSVLogger replaces its file: a run stopped before its first checkpoint, rerun from batch 0, shows once."""
    pytest.importorskip("tensorboard", reason="the optional 'tensorboard' extra is not installed")
    log_dir = tmp_path / "tb"
    with TensorBoardLogger(log_dir) as stopped:
        stopped.log_metrics({"train/loss": 9.0}, Timestamp(batch=1))
        stopped.log_metrics({"train/loss": 8.0}, Timestamp(batch=2))
    rerun = TensorBoardLogger(log_dir)
    rerun.log_metrics({"train/loss": 0.5}, Timestamp(batch=1))
    rerun.close()
    rerun.log_metrics({"train/loss": 0.25}, Timestamp(batch=2))  # after its own close: a new file, nothing hidden
    rerun.close()
    assert len(list(log_dir.glob("events.out.tfevents.*"))) == 3
    assert scalars(log_dir)[1] == {"train/loss": [(1, 0.5), (2, 0.25)]}


# -- LoggerCallback with a stand-in trainer ----------------------------------------------------------------


class Recorder:
    def __init__(self):
        self.metrics, self.hparams, self.closed = [], [], 0

    def log_metrics(self, metrics, timestamp):
        self.metrics.append((timestamp.batch.value, dict(metrics)))

    def log_hyperparameters(self, params):
        self.hparams.append(dict(params))

    def close(self):
        self.closed += 1


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def perf_counter(self):
        return self.now


def fake_trainer(*, rank_zero=True, keys=("lr", "weight_decay")):
    a, b = torch.zeros(2, requires_grad=True), torch.zeros(2, requires_grad=True)
    optimizer = torch.optim.AdamW([{"params": [a]}, {"params": [b], "weight_decay": 0.0}], lr=0.1, weight_decay=0.01)
    return SimpleNamespace(
        state=SchedulerState("10ba", dataloader_len=5),
        optimizer=optimizer,
        model=None,
        scheduled_keys=list(keys),
        is_rank_zero=rank_zero,
    )


def drive(trainer, callback, clock, batches, *, samples=8, tokens=0, seconds=0.5, eval_at=(), eval_seconds=10.0):
    callback.on_fit_start(trainer)
    for k in range(batches):
        for group in trainer.optimizer.param_groups:
            group["lr"] = 0.1 * (1 - k / 10)
        callback.on_batch_start(trainer)
        for group in trainer.optimizer.param_groups:
            group["lr"] = -1.0  # a scheduler stepping after the batch: must not leak into the batch's row
        clock.now += seconds
        trainer.state.timestamp = trainer.state.timestamp.to_next_batch(samples, tokens)
        callback.on_batch_end(trainer, 1.0 / (k + 1))
        if k + 1 in eval_at:
            clock.now += eval_seconds
            callback.on_eval(trainer, {"eval/loss": 2.0})
    callback.on_fit_end(trainer)


def test_callback_logs_loss_hyperparameters_of_the_batch_and_throughput(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(loggers_module, "time", clock)
    trainer, recorder = fake_trainer(), Recorder()
    drive(trainer, LoggerCallback(recorder), clock, 3, samples=8, tokens=0, seconds=0.5)
    assert [batch for batch, _ in recorder.metrics] == [1, 2, 3]
    first = recorder.metrics[0][1]
    assert first == {
        "train/loss": 1.0,
        "lr/group0": 0.1,
        "lr/group1": 0.1,
        "weight_decay/group0": 0.01,
        "weight_decay/group1": 0.0,
        "throughput/samples_per_sec": 16.0,
    }
    assert [m["lr/group0"] for _, m in recorder.metrics] == [0.1 * (1 - k / 10) for k in range(3)]
    assert [m["train/loss"] for _, m in recorder.metrics] == [1.0, 0.5, 1 / 3]
    assert recorder.closed == 1
    (hparams,) = recorder.hparams
    assert hparams == {
        "max_duration": "10ba",
        "unscaled_max_duration": "10ba",
        "ssr": 1.0,
        "dataloader_len": 5,
        "grad_accum": 1,
        "optimizer": "AdamW",
        "base_lrs": [0.1, 0.1],
        "scheduled_keys": ["lr", "weight_decay"],
    }


def test_callback_every_n_logs_the_last_batch_at_fit_end_and_windows_throughput(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(loggers_module, "time", clock)
    trainer, recorder = fake_trainer(), Recorder()
    drive(trainer, LoggerCallback([recorder], every=3), clock, 7, samples=4, tokens=40, seconds=2.0)
    assert [batch for batch, _ in recorder.metrics] == [3, 6, 7]
    assert [m["throughput/samples_per_sec"] for _, m in recorder.metrics] == [2.0, 2.0, 2.0]
    assert [m["throughput/tokens_per_sec"] for _, m in recorder.metrics] == [20.0, 20.0, 20.0]
    assert recorder.metrics[2][1]["lr/group1"] == pytest.approx(0.1 * (1 - 6 / 10))


def test_callback_leaves_evaluation_time_out_of_throughput_and_logs_eval_metrics(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(loggers_module, "time", clock)
    trainer, recorder = fake_trainer(), Recorder()
    # every batch logged; an evaluation of 10 s after batch 2 (logged) and one after batch 4 (not logged)
    drive(trainer, LoggerCallback(recorder), clock, 4, samples=8, seconds=1.0, eval_at=(2,))
    train = [m for _, m in recorder.metrics if "train/loss" in m]
    assert [m["throughput/samples_per_sec"] for m in train] == [8.0] * 4
    assert (2, {"eval/loss": 2.0}) in recorder.metrics
    clock2, recorder2 = FakeClock(), Recorder()
    monkeypatch.setattr(loggers_module, "time", clock2)
    drive(fake_trainer(), LoggerCallback(recorder2, every=2), clock2, 5, samples=8, seconds=1.0, eval_at=(3, 5))
    batches = [(batch, m.get("throughput/samples_per_sec")) for batch, m in recorder2.metrics if "train/loss" in m]
    assert batches == [(2, 8.0), (4, 8.0), (5, 8.0)]  # batch 5 is logged at fit end, after its evaluation


def test_callback_grad_norm_tokens_and_keys(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(loggers_module, "time", clock)
    trainer, recorder = fake_trainer(keys=()), Recorder()
    trainer.last_grad_norm = 2.5
    drive(trainer, LoggerCallback(recorder), clock, 1)
    metrics = recorder.metrics[0][1]
    assert metrics["train/grad_norm"] == 2.5 and "throughput/tokens_per_sec" not in metrics
    assert {"lr/group0", "lr/group1"} <= set(metrics) and not any(k.startswith("weight_decay") for k in metrics)
    trainer, recorder = fake_trainer(), Recorder()
    trainer.last_grad_norm = None
    drive(trainer, LoggerCallback(recorder, keys="weight_decay", hyperparameters={"model": "mlp"}), clock, 1)
    metrics = recorder.metrics[0][1]
    assert "train/grad_norm" not in metrics and "lr/group0" not in metrics and "weight_decay/group1" in metrics
    assert recorder.hparams[0]["model"] == "mlp"


def test_callback_is_silent_off_rank_zero(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(loggers_module, "time", clock)
    recorder = Recorder()
    trainer = fake_trainer(rank_zero=False)
    callback = LoggerCallback(recorder)
    drive(trainer, callback, clock, 3, eval_at=(1,))
    assert (recorder.metrics, recorder.hparams, recorder.closed) == ([], [], 0)


def test_callback_arguments():
    with pytest.raises(ValueError, match="every"):
        LoggerCallback(Recorder(), every=0)
    with pytest.raises(TypeError, match=r"loggers\[1\].*log_hyperparameters"):
        LoggerCallback([Recorder(), SimpleNamespace(log_metrics=print, close=print)])


# -- a real run -----------------------------------------------------------------------------------------------


def test_csv_lr_rows_equal_what_the_optimizer_used_in_a_real_run(tmp_path):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.Linear(8, 1))
    data = [(torch.randn(3, 4), torch.randn(3, 1)) for _ in range(5)]
    eval_data = data[:2]
    optimizer = torch.optim.AdamW(decay_groups(model, 0.1), lr=0.01)
    used = []
    optimizer.register_step_pre_hook(
        lambda opt, args, kwargs: used.append(
            {f"{key}/group{i}": float(g[key]) for i, g in enumerate(opt.param_groups) for key in ("lr", "weight_decay")}
        )
    )
    path = tmp_path / "logs" / "metrics.csv"
    loggers = [CSVLogger(path)]
    try:
        loggers.append(TensorBoardLogger(tmp_path / "tb"))
    except ImportError:
        pass
    trainer = Trainer(
        model,
        data,
        "3ep",
        optimizer,
        schedulers=[
            CosineAnnealingWithWarmupScheduler(t_warmup="4ba", alpha_f=0.1),
            {"schedule": LinearScheduler(1.0, 0.0), "hyperparameter": "weight_decay", "param_group_tags": "decay"},
        ],
        loss_fn=nn.functional.mse_loss,
        eval_dataloader=eval_data,
        eval_interval="1ep",
        callbacks=[LoggerCallback(loggers)],
        progress_bar=False,
        get_num_tokens=lambda item: item[0].numel(),
    )
    trainer.fit()

    rows = read_dicts(path)
    train = [row for row in rows if row["train/loss"]]
    assert len(used) == 15 and len(train) == 15
    assert [int(row["batch"]) for row in train] == list(range(1, 16))
    assert [int(row["sample"]) for row in train] == [3 * k for k in range(1, 16)]
    for row, step in zip(train, used, strict=True):
        assert {key: float(row[key]) for key in step} == step  # exact: repr round-trips
    assert len({step["lr/group0"] for step in used}) > 5  # the schedule really moved
    assert all(
        float(row["throughput/samples_per_sec"]) > 0 and float(row["throughput/tokens_per_sec"]) > 0 for row in train
    )
    evals = [row for row in rows if row["eval/loss"]]
    assert [(int(row["batch"]), int(row["epoch"])) for row in evals] == [(5, 1), (10, 2), (15, 3)]
    assert all(not row["train/loss"] for row in evals)

    hparams = json.loads(path.with_name("metrics.hparams.json").read_text())
    assert hparams["max_duration"] == "3ep" and hparams["dataloader_len"] == 5 and hparams["ssr"] == 1.0
    assert hparams["optimizer"] == "AdamW" and hparams["base_lrs"] == [0.01, 0.01]
    assert hparams["scheduled_keys"] == ["lr", "weight_decay"]
    if len(loggers) == 2:
        _, values = scalars(tmp_path / "tb")
        assert [step for step, _ in values["lr/group1"]] == list(range(1, 16))
        assert [value for _, value in values["lr/group1"]] == pytest.approx([s["lr/group1"] for s in used], rel=1e-6)
