"""Exact resume: a run killed with SIGKILL and resumed from ``latest`` reproduces the uninterrupted run's weights
and lr trace bit for bit; corrupt checkpoints fail clearly; changed settings warn; files load weights_only.

docs/trainer.md (Checkpoints), docs/resume.md. The kill/resume runs happen in subprocesses
(``trainer_fixtures.py train``): a shuffled DataLoader and dropout make the data order and the RNG state matter.
"""

from __future__ import annotations

import csv
import json
import os
import random
import signal
import struct
import sys
import warnings
import zipfile
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch.optim.lr_scheduler import StepLR

import schedulers.cerebras as cerebras
from schedulers import CosineAnnealingWithWarmupScheduler, LinearScheduler, SchedulerState
from schedulers.sambaflow import cosine_schedule_with_warmup
from timeunits import Timestamp
from trainer import LRMonitor, Trainer
from trainer.checkpoint_files import CheckpointError

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "trainer_fixtures.py"
ROOT = HERE.parents[1]
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

import background  # noqa: E402  (tests/background.py)

# --------------------------------------------------------------------------------------------------
# SIGKILL + resume in subprocesses
# --------------------------------------------------------------------------------------------------

RANDOM_KILL = random.Random(20240607).randrange(1, 33)

# (id, save_interval, grad_accum, kill_at, kill_on); "3ep" = 33 batches (11 per epoch), 15 with grad_accum=2
KILL_CASES = [
    ("mid-epoch", "4ba", 1, 7, "batch_start"),
    ("right-after-checkpoint", "4ba", 1, 16, "batch_start"),
    ("inside-on-checkpoint", "4ba", 1, 12, "checkpoint"),
    ("epoch-boundary", "4ba", 1, 22, "batch_start"),
    ("epoch-boundary-checkpoint", "1ep", 1, 22, "batch_start"),
    (f"random-{RANDOM_KILL}", "4ba", 1, RANDOM_KILL, "batch_start"),
    ("grad-accum-mid-epoch", "3ba", 2, 8, "batch_start"),
]


def run_batch(jobs: list[list[str]], folder: Path, hash_seed: str, env: dict) -> tuple[int, str, list[int] | None]:
    """Run ``train`` jobs as forked children of one fresh ``trainer_fixtures.py batch`` interpreter: its status,
    stderr and the jobs' statuses."""
    spec = folder / f"jobs-{hash_seed}.json"
    spec.write_text(json.dumps(jobs))
    env = dict(env, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", PYTHONHASHSEED=hash_seed)
    argv = [sys.executable, str(FIXTURES), "batch", "--jobs", str(spec), "--parallel", "2"]
    done = background.run(argv, cwd=ROOT, env=env, timeout=300)
    codes = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else None
    return done.returncode, done.stderr, codes


def train_args(out: Path, folder: Path | None, save_interval: str | None, grad_accum: int, *extra: str) -> list[str]:
    args = ["train", "--out", str(out), "--grad-accum", str(grad_accum)]
    if folder is not None:
        args += ["--folder", str(folder)]
    if save_interval is not None:
        args += ["--save-interval", save_interval]
    return args + list(extra)


def _kill_runs(base: Path, env: dict) -> tuple[Path, list, dict, list]:
    """Phase 1 (one interpreter): the uninterrupted references and the runs that SIGKILL themselves.
    Phase 2 (another interpreter, another hash seed): the resumes from each killed run's ``latest``.
    tests/background.py starts both with the session. Returns each phase's outcome and what it expects."""
    jobs, expect = [], []
    for accum in sorted({case[2] for case in KILL_CASES}):
        jobs.append(train_args(base / f"ref{accum}", base / f"ref{accum}-ckpt", "4ba", accum))
        expect.append(0)
    for name, interval, accum, kill_at, kill_on in KILL_CASES:
        folder = base / name / "ckpt"
        jobs.append(
            train_args(base / name / "killed", folder, interval, accum, "--kill-at", str(kill_at), "--kill-on", kill_on)
        )
        expect.append(-signal.SIGKILL)
    phases = [(run_batch(jobs, base, "1", env), expect)]
    resumed_from, jobs = {}, []
    for name, interval, accum, _, _ in KILL_CASES:
        folder = base / name / "ckpt"
        resumed_from[name] = os.readlink(folder / "latest") if (folder / "latest").is_symlink() else None
        jobs.append(train_args(base / name / "resumed", folder, interval, accum, "--load", str(folder)))
    if phases[0][0][2] == expect:
        phases.append((run_batch(jobs, base, "2", env), [0] * len(jobs)))
    return base, phases, resumed_from, jobs


@pytest.fixture(scope="module")
def kill_runs():
    base, phases, resumed_from, _ = background.result(_kill_runs)
    for (status, stderr, codes), expect in phases:
        assert status == 0, stderr[-3000:]
        assert codes is not None and len(codes) == len(expect)
        assert codes == expect, stderr[-3000:]
    assert len(phases) == 2
    return base, resumed_from


def read_rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as stream:
        return list(csv.DictReader(stream))


@pytest.mark.parametrize("case", KILL_CASES, ids=[case[0] for case in KILL_CASES])
@background.ahead(_kill_runs)
def test_sigkill_and_resume_is_bit_identical(kill_runs, case):
    base, resumed_from = kill_runs
    name, _, accum, kill_at, _ = case
    reference, killed, resumed = base / f"ref{accum}", base / name / "killed", base / name / "resumed"

    checkpoint_batch = int(resumed_from[name][2:-3])
    assert checkpoint_batch <= kill_at
    if case[4] == "checkpoint" or name in ("right-after-checkpoint", "epoch-boundary-checkpoint"):
        assert checkpoint_batch == kill_at  # the kill came right after that checkpoint was written

    # weights and optimizer state, bit for bit
    want, got = torch.load(reference / "weights.pt"), torch.load(resumed / "weights.pt")
    assert list(want) == list(got)
    for key in want:
        assert torch.equal(want[key], got[key]), f"{name}: weights {key} differ after resume"
    want_opt, got_opt = torch.load(reference / "optimizer_state.pt"), torch.load(resumed / "optimizer_state.pt")
    for index in want_opt:
        for key, value in want_opt[index].items():
            assert torch.equal(torch.as_tensor(value), torch.as_tensor(got_opt[index][key])), (name, index, key)
    assert (reference / "done.json").read_text() == (resumed / "done.json").read_text()

    # the lr / weight-decay trace: killed rows before the checkpoint + resumed rows == uninterrupted rows
    ref_rows, killed_rows, resumed_rows = (read_rows(p / "lr.csv") for p in (reference, killed, resumed))
    assert [int(r["batch"]) for r in killed_rows] == list(range(kill_at))
    assert int(resumed_rows[0]["batch"]) == checkpoint_batch
    stitched = [r for r in killed_rows if int(r["batch"]) < checkpoint_batch] + resumed_rows
    assert stitched == ref_rows
    replayed = [r for r in killed_rows if int(r["batch"]) >= checkpoint_batch]
    assert replayed == resumed_rows[: len(replayed)]  # the replayed batches saw the same values


@background.ahead(_kill_runs)
def test_kill_runs_checkpoint_files_load_weights_only(kill_runs):
    base, _ = kill_runs
    files = sorted(base.glob("*/ckpt/ba*.pt")) + sorted(base.glob("ref*-ckpt/ba*.pt"))
    assert files
    for file in files:
        payload = torch.load(file, weights_only=True)
        assert payload["timestamp"]["batch"] == int(file.name[2:-3])
    # no temp files survive a SIGKILL'd run or a resumed one
    assert not [p for p in base.rglob("*.tmp")]


# --------------------------------------------------------------------------------------------------
# in-process resume for each kind of scheduler (deterministic model: isolates scheduler state)
# --------------------------------------------------------------------------------------------------


def small_loader(shuffle=True):
    generator = torch.Generator().manual_seed(3)
    dataset = torch.utils.data.TensorDataset(
        torch.randn(20, 3, generator=generator), torch.randn(20, 1, generator=generator)
    )
    return torch.utils.data.DataLoader(dataset, batch_size=4, shuffle=shuffle)  # 5 batches per epoch


def small_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))


def scheduler_kind(kind: str, optimizer):
    if kind == "cadence":
        return [CosineAnnealingWithWarmupScheduler(t_warmup="3ba", alpha_f=0.1)], None
    if kind == "cadence-lr-and-wd":
        return [LinearScheduler(), {"schedule": LinearScheduler(1.0, 0.5), "hyperparameter": "weight_decay"}], None
    if kind == "torch-per-epoch":
        return [StepLR(optimizer, step_size=1, gamma=0.5)], None
    if kind == "torch-per-batch+cadence-wd":
        return [StepLR(optimizer, 3, 0.5), {"schedule": LinearScheduler(), "hyperparameter": "weight_decay"}], True
    if kind == "cerebras":
        return [
            cerebras.CosineDecayLR(optimizer, initial_learning_rate=0.05, end_learning_rate=0.001, total_iters=15)
        ], None
    if kind == "sambaflow":
        return [cosine_schedule_with_warmup(optimizer, num_warmup_steps=3, num_training_steps=15)], None
    raise AssertionError(kind)


def small_trainer(kind, folder, *, load_path=None, max_duration="3ep", monitor=None, **kwargs):
    model = small_model()
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.05, weight_decay=0.1)
    entries, every_batch = scheduler_kind(kind, optimizer)
    trainer = Trainer(
        model,
        small_loader(),
        max_duration,
        optimizer,
        schedulers=entries,
        loss_fn=F.mse_loss,
        step_schedulers_every_batch=every_batch,
        save_folder=folder,
        save_interval=None if folder is None else "4ba",
        load_path=load_path,
        callbacks=[monitor] if monitor else [],
        progress_bar=False,
        seed=5,
        **kwargs,
    )
    return trainer


KINDS = ["cadence", "cadence-lr-and-wd", "torch-per-epoch", "torch-per-batch+cadence-wd", "cerebras", "sambaflow"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("resume_at", [8, 12])
def test_resume_in_process_matches_uninterrupted(kind, resume_at, tmp_path):
    """Resume from a mid-run checkpoint file (8: mid-epoch 1; 12: mid-epoch 2) of a finished run."""
    monitor = LRMonitor()
    reference = small_trainer(kind, tmp_path / "a", monitor=monitor)
    reference.fit()
    ref_rows = monitor.rows
    file = tmp_path / "a" / f"ba{resume_at:08d}.pt"
    torch.load(file, weights_only=True)

    monitor2 = LRMonitor()
    resumed = small_trainer(kind, tmp_path / "b", load_path=file, monitor=monitor2)
    assert resumed.state.timestamp.batch.value == resume_at
    # right after construction the optimizer holds α(resume_at), what batch resume_at trains with
    for key in resumed.scheduled_keys:
        assert float(resumed.optimizer.param_groups[0][key]) == ref_rows[resume_at][f"{key}/group0"], key
    resumed.fit()
    assert monitor2.rows == ref_rows[resume_at:]
    for (name, want), got in zip(
        reference.model.state_dict().items(), resumed.model.state_dict().values(), strict=True
    ):
        assert torch.equal(want, got), f"{kind}: {name} differs after resume"


def test_resume_from_folder_uses_latest(tmp_path):
    first = small_trainer("cadence", tmp_path, max_duration="7ba")
    first.fit()
    assert os.readlink(tmp_path / "latest") == "ba00000007.pt"
    resumed = small_trainer("cadence", tmp_path, load_path=tmp_path, max_duration="7ba")
    assert resumed.state.timestamp == Timestamp.from_state_dict(
        torch.load(tmp_path / "latest", weights_only=True)["timestamp"]
    )


def test_resume_ignores_leftover_temp_files(tmp_path):
    first = small_trainer("cadence", tmp_path, max_duration="8ba")
    first.fit()
    (tmp_path / ".ba00000012.pt.4242.deadbeef.tmp").write_bytes(b"half a checkpoint")
    resumed = small_trainer("cadence", tmp_path, load_path=tmp_path, max_duration="8ba")
    assert resumed.state.timestamp.batch.value == 8


# --------------------------------------------------------------------------------------------------
# corrupt checkpoints
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty", "flip-bytes"])
def test_corrupt_latest_is_clear_error_naming_file_and_previous_loads(damage, tmp_path):
    first = small_trainer("cadence", tmp_path, max_duration="8ba")
    first.fit()
    latest = tmp_path / os.readlink(tmp_path / "latest")
    assert latest.name == "ba00000008.pt"
    data = latest.read_bytes()
    if damage == "truncate":
        latest.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        latest.write_bytes(os.urandom(len(data)))
    elif damage == "empty":
        latest.write_bytes(b"")
    else:  # keep the zip structure, flip the bytes of the first tensor's storage (zip CRC no longer matches)
        with zipfile.ZipFile(latest) as archive:
            entry = next(i for i in archive.infolist() if i.filename.endswith("/data/0"))
        with open(latest, "rb") as stream:
            stream.seek(entry.header_offset + 26)
            name_len, extra_len = struct.unpack("<HH", stream.read(4))
        start = entry.header_offset + 30 + name_len + extra_len
        flipped = bytes(b ^ 0xFF for b in data[start : start + entry.file_size])
        latest.write_bytes(data[:start] + flipped + data[start + entry.file_size :])
    for load_path in (tmp_path, latest):
        with pytest.raises(CheckpointError) as error:
            small_trainer("cadence", tmp_path / "new", load_path=load_path, max_duration="8ba")
        assert isinstance(error.value, ValueError)
        assert str(latest) in str(error.value), str(error.value)
        assert "Traceback" not in str(error.value)
    previous = tmp_path / "ba00000004.pt"
    torch.load(previous, weights_only=True)
    resumed = small_trainer("cadence", tmp_path / "new", load_path=previous, max_duration="8ba")
    assert resumed.state.timestamp.batch.value == 4
    resumed.fit()
    assert resumed.state.timestamp.batch.value == 8


def test_missing_checkpoint_and_folder_without_latest_are_clear_errors(tmp_path):
    with pytest.raises(CheckpointError, match="ba00000099.pt"):
        small_trainer("cadence", None, load_path=tmp_path / "ba00000099.pt")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CheckpointError, match="latest"):
        small_trainer("cadence", None, load_path=tmp_path / "empty")


def test_checkpoint_of_another_run_shape_is_clear_error(tmp_path):
    first = small_trainer("cadence", tmp_path, max_duration="4ba")
    first.fit()
    with pytest.raises(CheckpointError, match=r"ba00000004\.pt.*scheduler"):
        small_trainer("cadence-lr-and-wd", None, load_path=tmp_path, max_duration="4ba")


# --------------------------------------------------------------------------------------------------
# changed settings on resume (docs/resume.md)
# --------------------------------------------------------------------------------------------------


def test_changed_max_duration_warns_with_lr_before_and_after(tmp_path):
    first = small_trainer("cadence-lr-and-wd", tmp_path, max_duration="12ba")
    first.fit()
    file = tmp_path / "ba00000004.pt"
    saved_lr = torch.load(file, weights_only=True)["optimizer"]["param_groups"][0]["lr"]
    assert saved_lr == pytest.approx(0.05 * (1 - 4 / 12), rel=1e-12)
    with pytest.warns(UserWarning) as caught:
        resumed = small_trainer("cadence-lr-and-wd", tmp_path / "b", load_path=file, max_duration="20ba")
    messages = [str(w.message) for w in caught if "max_duration" in str(w.message)]
    assert len(messages) == 1, [str(w.message) for w in caught]
    message = messages[0]
    assert "12ba" in message and "20ba" in message
    new_lr = 0.05 * LinearScheduler()(
        SchedulerState("20ba", Timestamp(batch=4, batch_in_epoch=4, sample=16, sample_in_epoch=16))
    )
    assert new_lr == pytest.approx(0.04, rel=1e-12)
    # the constructor wins: the resumed run trains batch 4 with the new schedule's lr
    assert resumed.optimizer.param_groups[0]["lr"] == new_lr
    assert repr(float(saved_lr)) in message and repr(float(new_lr)) in message, message
    resumed.fit()
    assert resumed.state.timestamp.batch.value == 20


def test_changed_ssr_warns(tmp_path):
    first = small_trainer("cadence", tmp_path, max_duration="12ba")
    first.fit()
    with pytest.warns(UserWarning, match="scale_schedule_ratio"):
        small_trainer(
            "cadence", None, load_path=tmp_path / "ba00000004.pt", max_duration="12ba", scale_schedule_ratio=0.5
        )


def test_unchanged_settings_do_not_warn(tmp_path):
    first = small_trainer("cadence", tmp_path, max_duration="12ba")
    first.fit()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        small_trainer("cadence", None, load_path=tmp_path / "ba00000004.pt", max_duration="12ba")


# --------------------------------------------------------------------------------------------------
# checkpoint contents (docs/resume.md)
# --------------------------------------------------------------------------------------------------


def plain_values_only(value, where="payload"):
    """Only tensors, numbers, str, bool, None and lists/tuples/dicts of these."""
    if isinstance(value, torch.Tensor) or value is None or isinstance(value, (bool, int, float, str)):
        return
    assert isinstance(value, (list, tuple, dict)), f"{where} is a {type(value).__name__}"
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        if isinstance(value, dict):
            assert isinstance(key, (str, int, float, bool)) or key is None, f"a key of {where} is {type(key).__name__}"
        plain_values_only(item, f"{where}[{key!r}]")


@pytest.mark.parametrize("kind", KINDS)
def test_every_checkpoint_loads_weights_only_with_plain_values(kind, tmp_path):
    trainer = small_trainer(kind, tmp_path, max_duration="9ba")
    trainer.fit()
    files = sorted(tmp_path.glob("ba*.pt"))
    assert [f.name for f in files] == ["ba00000004.pt", "ba00000008.pt", "ba00000009.pt"]
    for file in files:
        payload = torch.load(file, weights_only=True)
        plain_values_only(payload)
        assert {"model", "optimizer", "schedulers", "timestamp", "rng"} <= set(payload)


# --------------------------------------------------------------------------------------------------
# randomness inside the data pipeline (random augmentation in __getitem__, in the main process or workers)
# --------------------------------------------------------------------------------------------------


class NoisyDataset(torch.utils.data.Dataset):
    """Random augmentation: every fetch adds fresh noise from the torch RNG of the process that fetches."""

    def __init__(self) -> None:
        generator = torch.Generator().manual_seed(11)
        self.x = torch.randn(24, 3, generator=generator)
        self.y = torch.randn(24, 1, generator=generator)

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i] + 0.1 * torch.randn(3), self.y[i]


def augmented_trainer(folder, num_workers, *, load_path=None, monitor=None):
    model = small_model()
    loader = torch.utils.data.DataLoader(NoisyDataset(), batch_size=4, shuffle=True, num_workers=num_workers)
    return Trainer(
        model,
        loader,
        "3ep",
        torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9),
        schedulers=LinearScheduler(),
        loss_fn=F.mse_loss,
        save_folder=folder,
        save_interval="4ba",
        load_path=load_path,
        callbacks=[monitor] if monitor else [],
        progress_bar=False,
        seed=5,
    )


@pytest.mark.parametrize("num_workers", [0, 2])
def test_resume_with_random_augmentation_is_bit_identical(num_workers, tmp_path):
    """Resuming mid-epoch (batch 8 of 6-batch epochs) reproduces the augmentation noise too: in the main
    process through the restored RNG, in workers through seeds that depend on the run, not on when the
    iterator was made."""
    reference = augmented_trainer(tmp_path / "a", num_workers)
    reference.fit()
    resumed = augmented_trainer(tmp_path / "b", num_workers, load_path=tmp_path / "a" / "ba00000008.pt")
    resumed.fit()
    for (name, want), got in zip(
        reference.model.state_dict().items(), resumed.model.state_dict().values(), strict=True
    ):
        assert torch.equal(want, got), f"num_workers={num_workers}: {name} differs after resume"


# --------------------------------------------------------------------------------------------------
# another batch size (docs/resume.md, "With another batch size")
# --------------------------------------------------------------------------------------------------

INDEXED = 84  # items: 10 batches of 8 with drop_last, 11 without (the last one of 4)


class SeenItems:
    """The dataset items each batch trained (recovered from the inputs) and the counters before each batch."""

    def __init__(self) -> None:
        self.items: list[list[int]] = []
        self.steps: list[tuple[int, int, int, int]] = []

    def count(self, item) -> int:
        self.items.append([round(x * INDEXED) for x in item[0][:, 0].tolist()])
        return len(self.items[-1])

    def on_batch_start(self, trainer) -> None:
        ts = trainer.state.timestamp
        self.steps.append((ts.epoch.value, ts.batch.value, ts.batch_in_epoch.value, ts.sample.value))


def indexed_trainer(folder, batch_size, *, drop_last=False, load_path=None, save_interval="15ba", loggers=()):
    torch.manual_seed(0)
    inputs = (torch.arange(INDEXED, dtype=torch.float32) / INDEXED).unsqueeze(1)
    data = torch.utils.data.TensorDataset(inputs, torch.zeros(INDEXED, 1))
    loader = torch.utils.data.DataLoader(data, batch_size=batch_size, shuffle=True, drop_last=drop_last)
    model = torch.nn.Linear(1, 1)
    seen = SeenItems()
    trainer = Trainer(
        model,
        loader,
        "3ep",
        torch.optim.SGD(model.parameters(), lr=0.01),
        loss_fn=F.mse_loss,
        save_folder=folder,
        save_interval=save_interval,
        load_path=load_path,
        callbacks=[seen],
        get_num_samples=seen.count,
        progress_bar=False,
        print_schedule_report=False,
        seed=5,
        loggers=list(loggers),
    )
    return trainer, seen


def epoch_order(epoch: int) -> list[int]:
    return torch.randperm(INDEXED, generator=torch.Generator().manual_seed(5 + epoch)).tolist()


def kept(items: list[int], batch_size: int, drop_last: bool) -> list[int]:
    """The items an epoch's rest trains in batches of ``batch_size`` (drop_last: whole batches only)."""
    return items[: len(items) // batch_size * batch_size] if drop_last else items


@pytest.mark.parametrize("drop_last", [False, True], ids=["keep-last", "drop-last"])
@pytest.mark.parametrize("batch_size", [16, 5], ids=["larger", "smaller"])
def test_a_resume_on_another_batch_size_goes_on_at_the_item_the_run_reached(tmp_path, batch_size, drop_last):
    saved_run, saved_seen = indexed_trainer(tmp_path / "saved", 8, drop_last=drop_last)
    saved_run.fit()
    per_epoch = saved_run.state.dataloader_len  # 10 (drop_last) or 11
    checkpoint = torch.load(tmp_path / "saved" / "ba00000015.pt", weights_only=True)
    done_in_epoch = 15 - per_epoch
    position = done_in_epoch * 8  # 40 or 32 items of epoch 1's order done
    assert checkpoint["epoch_position"] == position
    trained_before = [i for batch in saved_seen.items[per_epoch:15] for i in batch]
    assert trained_before == epoch_order(1)[:position]

    with pytest.warns(UserWarning) as caught:
        resumed, seen = indexed_trainer(
            tmp_path / "resumed", batch_size, drop_last=drop_last, load_path=tmp_path / "saved" / "ba00000015.pt"
        )
    (message,) = [str(w.message) for w in caught if "changed settings" in str(w.message)]
    assert f"batch_size 8 -> {batch_size}" in message and f"after item {position} of its order" in message
    assert f"a step now trains {batch_size} dataset items (was 8)" in message
    assert Path(caught[0].filename).name == "test_trainer_resume.py"  # said at the user's Trainer(...) line
    resumed.fit()

    rest = kept(epoch_order(1)[position:], batch_size, drop_last)
    steps_left = -(-len(rest) // batch_size)
    new_per_epoch = resumed.state.dataloader_len
    first = [i for batch in seen.items[:steps_left] for i in batch]
    assert first == rest and not set(first) & set(trained_before)  # each sample of the epoch once
    if not drop_last:
        assert sorted(first + trained_before) == list(range(INDEXED))  # ... and none skipped
    short = (INDEXED - position) % batch_size
    assert (f"the last {short} items of this epoch's rest fill no batch" in message) == (drop_last and short > 0)
    # the epoch closes with its rest: batch_in_epoch goes on at L' - R', the next epoch is whole in new batches
    assert [step[2] for step in seen.steps[: steps_left + 1]] == [*range(new_per_epoch - steps_left, new_per_epoch), 0]
    assert [step[0] for step in seen.steps[: steps_left + 1]] == [1] * steps_left + [2]
    last_epoch = [i for batch in seen.items[steps_left:] for i in batch]
    assert last_epoch == kept(epoch_order(2), batch_size, drop_last)
    # the clock: samples exact, batches count the steps taken
    samples = checkpoint["timestamp"]["sample"] + len(first) + len(last_epoch)
    assert seen.steps[0][1:] == (15, new_per_epoch - steps_left, checkpoint["timestamp"]["sample"])
    end = resumed.state.timestamp
    assert (end.epoch.value, end.batch.value, end.sample.value) == (3, 15 + len(seen.items), samples)
    if not drop_last:
        assert samples == 3 * INDEXED  # the uninterrupted run's 252


def test_a_checkpoint_after_a_batch_size_change_resumes_at_its_item(tmp_path):
    """In the epoch a run resumed on another batch size, its own checkpoints say where the epoch's order is."""
    indexed_trainer(tmp_path / "saved", 8)[0].fit()
    with pytest.warns(UserWarning, match="batch_size 8 -> 16"):
        changed, _ = indexed_trainer(
            tmp_path / "changed", 16, load_path=tmp_path / "saved" / "ba00000015.pt", save_interval="1ba"
        )
    changed.fit(1)  # 32 items done after the 15 batches of 8, then one batch of 16: 48
    assert torch.load(tmp_path / "changed" / "ba00000016.pt", weights_only=True)["epoch_position"] == 48
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the settings are the checkpoint's: nothing to say
        again, seen = indexed_trainer(tmp_path / "again", 16, load_path=tmp_path / "changed" / "ba00000016.pt")
    again.fit(1)
    assert seen.items[0] == epoch_order(1)[48:64]  # not [32:48], where a plain skip of 2 batches of 16 would go
    assert seen.steps[0][2] == 3  # batch 3 of the epoch's 6: the rest (36 items) fills 3


def test_stop_and_resume_on_another_batch_size_keeps_every_row(tmp_path):
    from trainer import Callback, CSVLogger

    class CtrlCAt(Callback):
        def on_batch_end(self, trainer, loss):
            if trainer.state.timestamp.batch.value == 22:
                raise KeyboardInterrupt

    def logged(batch_size, *callbacks):
        trainer, _ = indexed_trainer(tmp_path / "ckpt", batch_size, loggers=[CSVLogger(tmp_path / "metrics.csv")])
        monitor = LRMonitor(csv_path=tmp_path / "lr.csv")
        trainer.callbacks.extend([monitor, *callbacks])
        return trainer

    with pytest.raises(KeyboardInterrupt):
        logged(8, CtrlCAt()).fit()  # the last checkpoint is ba00000015.pt
    with pytest.warns(UserWarning, match="batch_size 8 -> 16"):
        resumed = indexed_trainer(
            tmp_path / "ckpt", 16, load_path=tmp_path / "ckpt", loggers=[CSVLogger(tmp_path / "metrics.csv")]
        )[0]
    resumed.callbacks.append(LRMonitor(csv_path=tmp_path / "lr.csv"))
    resumed.fit()
    end = resumed.state.timestamp.batch.value  # 15 + 4 (the rest of epoch 1) + 6 (epoch 2)
    assert end == 25

    def batches(file):
        with open(tmp_path / file, newline="") as stream:
            return [int(row["batch"]) for row in csv.DictReader(stream)]

    assert batches("metrics.csv") == list(range(1, end + 1))  # rows 16-22 of the cut attempt gone, none twice
    assert batches("lr.csv") == list(range(end))
