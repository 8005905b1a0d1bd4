"""Resuming on another number of ranks (docs/resume.md, "On another number of ranks"): gloo on 127.0.0.1.

A 2-rank run's checkpoint after 5 steps (30 of the epoch's 48 items done: 30 is no multiple of 4) resumes on 1
rank and on 4; a 1-rank run's checkpoint after 7 steps (21 items: odd) resumes on 2. Each resumed run goes on
at the saved sample count with the lr of a schedule in samples, deals out the rest of the epoch's order from
the position the checkpoint reached (each sample once), closes the epoch when that rest is used up, and says
what changed in one warning. ``trainer_fixtures.py reshard`` is each run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import torch

from schedulers import CosineAnnealingWithWarmupScheduler, SchedulerState
from timeunits import Timestamp

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FIXTURES = HERE / "trainer_fixtures.py"
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
import trainer_fixtures as fx  # noqa: E402
from test_trainer_ddp import run_ranks  # noqa: E402

N = fx.DDP_SAMPLES  # 48 items, 3 a loader batch
SEED = 3
MAX_DURATION = "144sp"


def _launch(out: Path, tag: str, ranks: int, *args: str) -> None:
    """``trainer_fixtures.py reshard`` on ``ranks`` ranks: in this process for one, else in forked gloo ranks."""
    arguments = ["reshard", "--out", str(out), "--tag", tag, *args]
    if ranks == 1:
        threads = torch.get_num_threads()
        try:
            fx.main(arguments)  # sets one thread
        finally:
            torch.set_num_threads(threads)
        return
    run_ranks(ranks, fx.main, arguments)


def _records(out: Path, tag: str) -> list[dict]:
    return [json.loads(path.read_text()) for path in sorted(out.glob(f"{tag}-rank*.json"))]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("reshard")
    _launch(out, "one", 1, "--folder", str(out / "one"), "--save-interval", "7ba")
    _launch(out, "two", 2, "--folder", str(out / "two"), "--save-interval", "5ba")
    _launch(out, "one-on-2", 2, "--load", str(out / "one" / "ba00000007.pt"))
    _launch(out, "two-on-1", 1, "--load", str(out / "two" / "ba00000005.pt"))
    _launch(out, "two-on-4", 4, "--load", str(out / "two" / "ba00000005.pt"))
    return out, {tag: _records(out, tag) for tag in ("one", "two", "one-on-2", "two-on-1", "two-on-4")}


def _order(epoch: int) -> list[int]:
    """The epoch's order: the permutation the trainer's sampler draws from (seed, epoch)."""
    return torch.randperm(N, generator=torch.Generator().manual_seed(SEED + epoch)).tolist()


CASES = [  # saved run, its steps before the checkpoint, resumed run, its ranks, its steps per epoch
    ("two", 5, "two-on-1", 1, 16),
    ("two", 5, "two-on-4", 4, 4),
    ("one", 7, "one-on-2", 2, 8),
]


@pytest.mark.parametrize("saved, done, resumed, ranks, per_epoch", CASES, ids=[case[2] for case in CASES])
def test_the_schedule_goes_on_at_the_saved_sample_count(runs, saved, done, resumed, ranks, per_epoch):
    _, records = runs
    lead = records[resumed][0]
    before = records[saved][0]["steps"][done]  # the counters the saved run had at its checkpoint
    first = lead["steps"][0]
    assert first[1] == done and first[3] == before[3] and first[4] == before[4]  # batches, samples, tokens
    schedule = CosineAnnealingWithWarmupScheduler(t_warmup="24sp", alpha_f=0.1)
    for epoch, batch, in_epoch, sample, token, sample_in_epoch, lr in lead["steps"]:
        counts = {"epoch": epoch, "batch": batch, "sample": sample, "token": token, "batch_in_epoch": in_epoch}
        timestamp = Timestamp(**counts, sample_in_epoch=sample_in_epoch)
        assert lr == pytest.approx(0.1 * schedule(SchedulerState(MAX_DURATION, timestamp, per_epoch)), rel=1e-12)
    assert all(record["steps"] == lead["steps"] for record in records[resumed])  # every rank keeps one clock
    assert lead["end"][2] >= 144 and lead["world_size"] == ranks and lead["dataloader_len"] == per_epoch


@pytest.mark.parametrize("saved, done, resumed, ranks, per_epoch", CASES, ids=[case[2] for case in CASES])
def test_the_epoch_goes_on_from_the_position_the_checkpoint_reached_each_sample_once(
    runs, saved, done, resumed, ranks, per_epoch
):
    _, records = runs
    saved_ranks = len(records[saved])
    position = done * fx.DDP_BATCH * saved_ranks
    seen = sorted(i for record in records[saved] for step in record["items"][:done] for i in step)
    assert seen == sorted(_order(0)[:position])  # the saved run had done the first `position` items of the order
    # the rule of docs/resume.md: rank r deals out the rest from `position`, padded from the order's start
    rest = _order(0)[position:]
    padded = rest + _order(0)[: -len(rest) % ranks]
    steps_left = -(-len(padded) // ranks // fx.DDP_BATCH)
    for rank, record in enumerate(records[resumed]):
        mine = [i for step in record["items"][:steps_left] for i in step]
        assert mine == padded[rank::ranks], rank
    after = [i for record in records[resumed] for step in record["items"][:steps_left] for i in step]
    assert sorted(set(seen) | set(after)) == list(range(N)) and not set(seen) & set(rest)  # each sample once
    lead = records[resumed][0]["steps"]
    assert [step[2] for step in lead[: steps_left + 1]] == [*range(per_epoch - steps_left, per_epoch), 0]
    assert [step[0] for step in lead[: steps_left + 1]] == [0] * steps_left + [1]  # the epoch closes with the rest
    next_epoch = [i for record in records[resumed] for i in record["items"][steps_left]]
    assert sorted(next_epoch) == sorted(_order(1)[: fx.DDP_BATCH * ranks])  # the next epoch is whole again


@pytest.mark.parametrize("saved, done, resumed, ranks, per_epoch", CASES, ids=[case[2] for case in CASES])
def test_a_change_of_world_size_is_one_warning_that_names_what_changed(runs, saved, done, resumed, ranks, per_epoch):
    _, records = runs
    saved_ranks = len(records[saved])
    (message,) = records[resumed][0]["warnings"]
    assert f"world_size {saved_ranks} -> {ranks}" in message
    on_ranks = f" on {ranks} ranks" if ranks > 1 else ""
    assert f"a step now trains {fx.DDP_BATCH * ranks} dataset items{on_ranks}" in message
    position = done * fx.DDP_BATCH * saved_ranks
    assert f"this epoch goes on after item {position} of its order, each sample once" in message
    if ranks > saved_ranks:
        assert "no saved random state and keep the one seeded at construction" in message
    else:
        assert "random state is not used" in message
    assert all(record["warnings"] == [] for record in records[resumed][1:])  # rank 0 says it once
