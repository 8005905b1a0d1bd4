"""A run's records survive a stop, a kill and a resume (docs/resume.md, "Stopping and resuming keep the records").

The main tests: a run interrupted at random batches (in this process: Ctrl-C or SIGTERM; ``cadence fit`` in a
child process: a real SIGKILL or SIGTERM) and resumed writes, for every file logger — ``CSVLogger``,
``LRMonitor``'s ``csv_path`` and ``TensorBoardLogger`` (read back with TensorBoard's own reader) — the rows of
an uninterrupted run; and the rows reach disk before the checkpoint that claims them.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sys
import threading
from pathlib import Path

import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

import trainer.checkpoint_files as checkpoints
from schedulers import CosineAnnealingWithWarmupScheduler, LinearScheduler
from trainer import Callback, CSVLogger, LRMonitor, TensorBoardLogger, Trainer
from trainer.records import RowFile, keep_rows_through, read_table
from trainer.signals import stop_requests

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for _path in (HERE, HERE.parent):  # record_checks; background
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import background  # noqa: E402  (tests/background.py)
from record_checks import assert_same_csv, assert_same_scalars, scalars  # noqa: E402

FIXTURES = HERE / "trainer_fixtures.py"
CLASSIFIER = ROOT / "examples" / "classifier.yaml"


# -- the one cut-back rule ---------------------------------------------------------------------------------


def _write(path: Path, text: str) -> Path:
    path.write_text(text, newline="")
    return path


def test_keep_rows_through_keeps_the_checkpoints_rows_and_drops_a_torn_line(tmp_path):
    text = "batch,epoch,sample,token,loss\n1,0,8,0,0.5\n2,0,16,0,0.25\n3,0,24,0,0.125\n"
    path = _write(tmp_path / "m.csv", text + "4,0,3")  # a kill while the row of batch 4 was written
    assert keep_rows_through(path, 10) == ["batch", "epoch", "sample", "token", "loss"]
    assert path.read_text() == text  # nothing after the checkpoint but the torn line: only it goes
    keep_rows_through(path, 2)
    assert read_table(path)[1] == [["1", "0", "8", "0", "0.5"], ["2", "0", "16", "0", "0.25"]]
    copy = tmp_path / "branch" / "m.csv"
    copy.parent.mkdir()
    keep_rows_through(copy, 1, source=path)  # a WSD branch starts from the main run's rows
    assert read_table(copy)[1] == [["1", "0", "8", "0", "0.5"]] and len(read_table(path)[1]) == 2
    assert keep_rows_through(tmp_path / "missing.csv", 3) is None and not (tmp_path / "missing.csv").exists()
    with pytest.raises(ValueError, match="does not start with batch, epoch, sample, token"):
        keep_rows_through(_write(tmp_path / "other.csv", "step,loss\n1,0.5\n"), 0)
    assert (tmp_path / "other.csv").read_text() == "step,loss\n1,0.5\n"  # not a record: left as it was


def test_a_resumed_row_file_keeps_its_columns_and_widens_once(tmp_path):
    path = tmp_path / "m.csv"
    first = RowFile(path)
    first.add((1, 0, 8, 0), {"loss": 0.5})
    first.add((2, 0, 16, 0), {"loss": 0.25, "eval": 1.5})  # a new column: the file is rewritten once
    first.add((3, 0, 24, 0), {"loss": 0.125})
    first.close()
    resumed = RowFile(path)
    resumed.resume(2)
    assert resumed.columns == ["batch", "epoch", "sample", "token", "loss", "eval"]
    resumed.add((3, 0, 24, 0), {"loss": 0.1, "norm": 2.0})
    resumed.close()
    assert path.read_text() == (
        "batch,epoch,sample,token,loss,eval,norm\n1,0,8,0,0.5,,\n2,0,16,0,0.25,1.5,\n3,0,24,0,0.1,,2.0\n"
    )
    ordered = RowFile(tmp_path / "lr.csv", order=lambda name: name)
    ordered.add((0, 0, 0, 0), {"lr/group1": 0.1})
    ordered.add((1, 0, 8, 0), {"lr/group0": 0.2, "lr/group1": 0.1})
    ordered.close()
    assert read_table(tmp_path / "lr.csv") == (
        ["batch", "epoch", "sample", "token", "lr/group0", "lr/group1"],
        [["0", "0", "0", "0", "", "0.1"], ["1", "0", "8", "0", "0.2", "0.1"]],
    )


# -- stop signals --------------------------------------------------------------------------------------------


def test_stop_requests_leave_an_ignored_signal_ignored_and_do_nothing_off_the_main_thread():
    seen = []
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup
    try:
        with stop_requests(seen.append):
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGHUP)
            os.kill(os.getpid(), signal.SIGTERM)
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, previous)
    assert seen == [signal.SIGTERM]
    before = (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP))
    inside = []

    def look() -> None:
        with stop_requests(seen.append):
            inside.append((signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)))

    thread = threading.Thread(target=look)
    thread.start()
    thread.join()
    assert inside == [before]


# -- in-process runs -------------------------------------------------------------------------------------------


class Interrupt(Callback):
    """As batch ``batch`` ends: raise KeyboardInterrupt (Ctrl-C) or send this process a stop signal."""

    def __init__(self, batch: int, how: str) -> None:
        self.batch, self.how = batch, how

    def on_batch_end(self, trainer, loss):
        if trainer.state.timestamp.batch.value == self.batch:
            if self.how == "ctrl-c":
                raise KeyboardInterrupt
            os.kill(os.getpid(), getattr(signal, self.how))


def run(out: Path, *callbacks, max_duration="45ba"):
    """A 4-16-1 regression with dropout, 11 batches per epoch, checkpoints every 7 batches, an evaluation every
    10, every file logger; autoresume from ``out/ckpt``. Returns the trainer and its loggers."""
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(5)
    data = torch.utils.data.TensorDataset(
        torch.randn(44, 4, generator=generator), torch.randn(44, 1, generator=generator)
    )
    model = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.Dropout(0.2), torch.nn.Linear(16, 1))
    loggers = [CSVLogger(out / "metrics.csv"), TensorBoardLogger(out / "tb")]
    monitor = LRMonitor(csv_path=out / "lr.csv")
    trainer = Trainer(
        model,
        torch.utils.data.DataLoader(data, batch_size=4, shuffle=True),
        max_duration,
        torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.05),
        schedulers=[
            CosineAnnealingWithWarmupScheduler(t_warmup="5ba", alpha_f=0.1),
            {"schedule": LinearScheduler(1.0, 0.2), "hyperparameter": "weight_decay"},
        ],
        loss_fn=torch.nn.functional.mse_loss,
        eval_dataloader=[(torch.ones(4, 4), torch.zeros(4, 1))],
        eval_interval="10ba",
        max_grad_norm=10.0,
        save_folder=out / "ckpt",
        save_interval="7ba",
        autoresume=True,
        callbacks=[monitor, *callbacks],
        loggers=loggers,
        progress_bar=False,
        print_schedule_report=False,
        seed=3,
    )
    return trainer, loggers


def assert_same_records(got: Path, want: Path) -> None:
    assert_same_csv(got / "metrics.csv", want / "metrics.csv")
    assert_same_csv(got / "lr.csv", want / "lr.csv")
    assert_same_scalars(got / "tb", want / "tb")


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("whole")
    run(out)[0].fit()
    header, rows = read_table(out / "metrics.csv")
    assert [row[0] for row in rows if row[header.index("train/loss")]] == [str(b) for b in range(1, 46)]
    assert "weight_decay/group0" in header and "train/grad_norm" in header and "eval/loss" in header
    return out


@settings(max_examples=6, deadline=None)
@given(
    stops=st.lists(
        st.tuples(st.integers(1, 44), st.sampled_from(["ctrl-c", "SIGTERM", "SIGHUP"])),
        min_size=1,
        max_size=2,
        unique_by=lambda stop: stop[0],
    ).map(sorted)
)
@example(stops=[(2, "ctrl-c")])  # stopped before its first checkpoint: the rerun starts fresh and replaces its rows
@example(stops=[(3, "ctrl-c"), (5, "SIGTERM")])  # a fresh rerun, then a resumed one
def test_a_run_stopped_in_this_process_and_resumed_writes_the_rows_of_an_uninterrupted_run(uninterrupted, stops):
    import tempfile

    out = Path(tempfile.mkdtemp(dir=uninterrupted.parent))
    for batch, how in stops:
        trainer, loggers = run(out, Interrupt(batch, how))
        if how == "ctrl-c":
            with pytest.raises(KeyboardInterrupt):
                trainer.fit()
            for logger in loggers:  # what a dying process flushes late (event queue, buffers): all after its checkpoint
                logger.close()
        else:
            with pytest.raises(SystemExit) as stopped:
                trainer.fit()
            assert stopped.value.code == 128 + getattr(signal, how)
            assert os.readlink(out / "ckpt" / "latest") == f"ba{batch:08d}.pt"  # the stop saved where it was
    run(out)[0].fit()
    assert_same_records(out, uninterrupted)


class StopSignals(Callback):
    """What ``trainer.stop_signal`` reads as each batch ends (after the callbacks before it)."""

    def __init__(self) -> None:
        self.seen: dict[int, object] = {}

    def on_batch_end(self, trainer, loss):
        self.seen[trainer.state.timestamp.batch.value] = trainer.stop_signal


def test_a_stop_signal_checkpoints_tells_where_and_exits_128_plus_the_signal(tmp_path, capsys):
    signals = StopSignals()
    trainer, _ = run(tmp_path, Interrupt(12, "SIGHUP"), signals)
    with pytest.raises(SystemExit) as stopped:
        trainer.fit()
    assert stopped.value.code == 129
    assert (signals.seen[11], signals.seen[12]) == (None, signal.SIGHUP)  # a waiting callback can see the stop
    assert f"stopped by SIGHUP at 12ba: the last checkpoint is {tmp_path / 'ckpt' / 'ba00000012.pt'}" in (
        capsys.readouterr().err
    )
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # nohup: SIGHUP stays ignored, the run goes on
    try:
        trainer, _ = run(tmp_path, Interrupt(20, "SIGHUP"))
        trainer.fit()
    finally:
        signal.signal(signal.SIGHUP, previous)
    assert trainer.state.timestamp.batch.value == 45


def test_rows_reach_disk_before_the_checkpoint_that_claims_them(tmp_path, monkeypatch):
    seen = {}
    save = checkpoints.save_checkpoint

    def spying_save(folder, batch, payload):
        if batch == 14:  # what a kill right after this checkpoint would leave
            csv_rows = read_table(tmp_path / "metrics.csv")[1]
            lr_rows = read_table(tmp_path / "lr.csv")[1]
            seen["csv"] = [row[0] for row in csv_rows if row[4]][-1]
            seen["lr"] = lr_rows[-1][0]
            seen["tb"] = scalars(tmp_path / "tb")["train/loss"][-1][0]
        return save(folder, batch, payload)

    monkeypatch.setattr(checkpoints, "save_checkpoint", spying_save)
    run(tmp_path)[0].fit()
    assert seen == {"csv": "14", "lr": "13", "tb": 14}  # LRMonitor stamps a row before its batch


def test_a_logger_callback_every_n_leaves_a_stopped_fits_last_batch_unlogged(tmp_path):
    from trainer import LoggerCallback

    def make(out, *callbacks):
        torch.manual_seed(0)
        model = torch.nn.Linear(2, 1)
        data = [(torch.randn(4, 2), torch.randn(4, 1)) for _ in range(10)]
        logger = LoggerCallback([CSVLogger(out / "m.csv")], every=4)
        return Trainer(
            model,
            data,
            "10ba",
            torch.optim.SGD(model.parameters(), lr=0.1),
            loss_fn=torch.nn.functional.mse_loss,
            save_folder=out / "ckpt",
            autoresume=True,
            callbacks=[*callbacks, logger],
            progress_bar=False,
            print_schedule_report=False,
        )

    make(tmp_path / "whole").fit()
    with pytest.raises(SystemExit):
        make(tmp_path / "cut", Interrupt(6, "SIGTERM")).fit()
    make(tmp_path / "cut").fit()
    batches = [row[0] for row in read_table(tmp_path / "cut" / "m.csv")[1]]
    assert batches == [row[0] for row in read_table(tmp_path / "whole" / "m.csv")[1]] == ["4", "8", "10"]


# -- cadence fit, killed for real -------------------------------------------------------------------------------


def fit_job(out: Path, *kills: tuple[int, str]) -> list[str]:
    """The arguments of a ``cadence fit`` of the classifier (120 batches, a checkpoint every 20, an evaluation
    every 50) with every file logger, that sends itself each ``(batch, signal)`` of ``kills`` once."""
    loggers = [{"CSVLogger": {"path": str(out / "metrics.csv")}}, {"TensorBoardLogger": {"log_dir": str(out / "tb")}}]
    callbacks = [{"LRMonitor": {"csv_path": str(out / "lr.csv")}}]
    for index, (batch, name) in enumerate(kills):
        marker = str(out / f"killed-{index}")
        callbacks.append({"sweep_fixtures:SignalAt": {"batch": batch, "send": name, "marker": marker}})
    sets = {
        "trainer.init.loop.max_steps": "120",
        "trainer.init.loop.eval_frequency": "50",
        "trainer.init.checkpoint.save_folder": str(out / "ckpt"),
        "trainer.init.checkpoint.steps": "20",
        "trainer.init.checkpoint.autoresume": "true",
        "trainer.init.progress_bar": "false",
        "trainer.init.loggers": json.dumps(loggers),
        "trainer.init.callbacks": json.dumps(callbacks),
    }
    return ["fit", str(CLASSIFIER), *(part for key, value in sets.items() for part in ("--set", f"{key}={value}"))]


def run_batch(jobs: list[list[str]], folder: Path, name: str, env: dict) -> tuple[int, str, list[int] | None]:
    """Run ``jobs`` in forked children of one interpreter (tests/trainer/trainer_fixtures.py batch): its status,
    stderr and the jobs' statuses."""
    spec = folder / f"{name}.json"
    spec.write_text(json.dumps(jobs))
    env = dict(env, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    argv = [sys.executable, str(FIXTURES), "batch", "--jobs", str(spec), "--parallel", "2"]
    done = background.run(argv, cwd=HERE, env=env, timeout=600)
    codes = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else None
    return done.returncode, done.stderr, codes


KILL_RNG_SEED = 16


def _kill_cases() -> dict[str, list[tuple[int, str]]]:
    """SIGKILL twice and SIGTERM twice, at seeded random batches."""
    rng = random.Random(KILL_RNG_SEED)
    cases = {}
    for name in ("SIGKILL", "SIGTERM"):
        first = rng.randrange(1, 100)
        cases[name] = [(first, name), (rng.randrange(first + 1, 120), name)]
    return cases


def _killed_fits(folder: Path, env: dict) -> tuple[Path, list, dict]:
    """The uninterrupted fit and the killed ones, run, rerun and rerun to the end (three batches of forked
    children; tests/background.py starts them with the session). Returns the folder, each batch's outcome and
    each SIGTERMed run's ``latest`` link after the second batch."""
    jobs = [fit_job(folder / "whole")] + [fit_job(folder / name, *kills) for name, kills in _kill_cases().items()]
    batches, latest = [run_batch(jobs, folder, "first", env)], {}
    if batches[-1][0] == 0:
        batches.append(run_batch(jobs[1:], folder, "second", env))
        link = folder / "SIGTERM" / "ckpt" / "latest"
        latest["SIGTERM"] = os.readlink(link) if link.is_symlink() else None
        batches.append(run_batch(jobs[1:], folder, "third", env))
    return folder, batches, latest


def _codes(outcome: tuple[int, str, list[int] | None]) -> list[int] | None:
    status, stderr, codes = outcome
    assert status == 0, stderr[-3000:]
    return codes


@background.ahead(_killed_fits)
def test_cadence_fit_killed_at_random_batches_and_resumed_writes_the_rows_of_an_uninterrupted_run():
    """SIGKILL twice, and SIGTERM twice, at seeded random batches; each time the same command is run again."""
    cases = _kill_cases()
    folder, batches, latest = background.result(_killed_fits)
    killed = {"SIGKILL": -signal.SIGKILL, "SIGTERM": 128 + signal.SIGTERM}
    assert _codes(batches[0]) == [0, *killed.values()]  # killed at their first batch
    assert _codes(batches[1]) == list(killed.values())  # resumed, killed again
    for name, kills in cases.items():
        if name == "SIGTERM":  # each stop saved a checkpoint at its batch
            assert latest[name] == f"ba{kills[-1][0]:08d}.pt"
    assert _codes(batches[2]) == [0, 0]  # resumed to the end
    for name in cases:
        assert_same_records(folder / name, folder / "whole")
