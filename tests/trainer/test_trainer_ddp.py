"""DDP on CPU: 2 ranks (gloo, loopback only).

docs/trainer.md (Distributed) and docs/resume.md: the trainer initialises the process group itself,
shards a plain DataLoader, counts samples and tokens globally (every rank has the same clock, so the same lr),
and only rank 0 writes checkpoints. One launch runs two trainers per rank (``grad_accum`` 1, then 2 in the
process group the first one created); ``trainer_fixtures.py ddp`` records what each rank saw.

The ranks are forked children of the test process with the environment ``torch.distributed.run`` gives a rank
(:func:`run_ranks`: torch is imported once, not once per rank); the two-node test runs real
``torch.distributed.run`` agents.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from schedulers import SchedulerState
from timeunits import Timestamp

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FIXTURES = HERE / "trainer_fixtures.py"
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))
import background  # noqa: E402  (tests/background.py)
import trainer_fixtures as fx  # noqa: E402

WORLD = 2
GRAD_ACCUMS = (1, 2)
MAX_DURATION = "2ep"
SAVE_INTERVAL = "3ba"
RESUME_AT = 12  # stop before batch 12 of 16 (mid-epoch 1); latest is ba00000010.pt


def free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _rank(rank: int, world: int, port: int, target, arguments: tuple, errors: Path) -> None:
    """A forked rank: the environment torchrun gives rank ``rank`` of ``world``, then ``target(*arguments)``."""
    status = 1
    try:
        os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(world), LOCAL_WORLD_SIZE=str(world))
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1")
        torch.set_num_threads(1)  # no OpenMP region in a forked child
        target(*arguments)
        status = 0
    except BaseException:
        import traceback

        (errors / f"error-rank{rank}.txt").write_text(traceback.format_exc())
    finally:
        os._exit(status)


def run_ranks(world: int, target, *arguments, timeout: float = 300.0) -> None:
    """``target(*arguments)`` on ``world`` gloo ranks (127.0.0.1), each a forked child of this process."""
    import multiprocessing
    import tempfile

    import torch.distributed as dist

    assert not (dist.is_available() and dist.is_initialized()), "a forked rank would inherit this process group"
    errors = Path(tempfile.mkdtemp(prefix="ranks-"))
    port = free_loopback_port()
    context = multiprocessing.get_context("fork")
    ranks = [context.Process(target=_rank, args=(r, world, port, target, arguments, errors)) for r in range(world)]
    for process in ranks:
        process.start()
    for process in ranks:
        process.join(timeout=timeout)
        if process.is_alive():
            process.kill()
            process.join()
    failures = [path.read_text() for path in sorted(errors.glob("error-rank*.txt"))]
    assert [process.exitcode for process in ranks] == [0] * world, failures or "a rank timed out"


@pytest.fixture(scope="module")
def ddp_records(tmp_path_factory):
    out = tmp_path_factory.mktemp("ddp")
    folder = out / "ckpt"
    arguments = ["ddp", "--out", str(out), "--folder", str(folder), "--max-duration", MAX_DURATION]
    arguments += ["--save-interval", SAVE_INTERVAL, "--grad-accums", ",".join(map(str, GRAD_ACCUMS))]
    run_ranks(WORLD, fx.main, [*arguments, "--resume-at", str(RESUME_AT)])
    results = [json.loads((out / f"rank{rank}.json").read_text()) for rank in range(WORLD)]
    records = [result["runs"] for result in results]  # records[rank][run]
    return folder, records, [result["resume"] for result in results], out / "resume"


def runs(records):
    for index, grad_accum in enumerate(GRAD_ACCUMS):
        yield grad_accum, [records[rank][index] for rank in range(WORLD)]


def test_trainer_sets_up_the_world_and_shards_the_loader(ddp_records):
    _, records, _, _ = ddp_records
    for grad_accum, per_rank in runs(records):
        for rank, record in enumerate(per_rank):
            assert record["rank"] == rank and record["world_size"] == WORLD
            assert record["sampler"] in ("ResumableSampler", "DistributedSampler")
            # 48 items / 2 ranks / batch 3 = 8 loader batches per rank, // grad_accum
            assert record["dataloader_len"] == 8 // grad_accum


def test_samples_count_globally(ddp_records):
    """After N batches every rank's timestamp counts N × batch_size × world (× grad_accum) samples."""
    _, records, _, _ = ddp_records
    for grad_accum, per_rank in runs(records):
        per_step = fx.DDP_BATCH * WORLD * grad_accum
        steps = 2 * (8 // grad_accum)
        for record in per_rank:
            assert record["timestamps"] == [[n, n * per_step, n // (8 // grad_accum)] for n in range(1, steps + 1)]
        assert per_rank[0]["timestamps"][-1][1] == 2 * fx.DDP_SAMPLES  # two epochs of the whole dataset


def test_every_rank_computes_the_same_lr(ddp_records):
    _, records, _, _ = ddp_records
    schedule = fx.ddp_schedule()
    for grad_accum, per_rank in runs(records):
        per_epoch = 8 // grad_accum
        assert per_rank[0]["lrs"] == per_rank[1]["lrs"]
        for batch, sample, lr in per_rank[0]["lrs"]:
            timestamp = Timestamp(
                epoch=batch // per_epoch,
                batch=batch,
                sample=sample,
                batch_in_epoch=batch % per_epoch,
                sample_in_epoch=sample % fx.DDP_SAMPLES,
            )
            assert lr == 0.1 * schedule(SchedulerState(MAX_DURATION, timestamp, per_epoch)), (grad_accum, batch)
        assert per_rank[0]["lrs"][0][2] == 0.0  # warmup starts at 0 on every rank


def test_only_rank_zero_writes_checkpoints(ddp_records):
    folder, records, _, _ = ddp_records
    first = [records[rank][0] for rank in range(WORLD)]
    assert first[0]["checkpoint_writes"] == [3, 6, 9, 12, 15, 16]
    assert first[1]["checkpoint_writes"] == []
    assert [Path(p).name for p in first[0]["on_checkpoint"]] == [f"ba{b:08d}.pt" for b in (3, 6, 9, 12, 15, 16)]
    assert first[1]["on_checkpoint"] == []
    names = sorted(p.name for p in folder.iterdir())
    assert names == [f"ba{b:08d}.pt" for b in (3, 6, 9, 12, 15, 16)] + ["latest"]
    payload = torch.load(folder / "latest", weights_only=True)
    assert len(payload["rng"]) == WORLD  # rank 0 gathered every rank's RNG state
    assert payload["run"]["world_size"] == WORLD
    assert payload["timestamp"]["sample"] == 2 * fx.DDP_SAMPLES


def test_ranks_see_disjoint_data_covering_the_dataset(ddp_records):
    _, records, _, _ = ddp_records
    for grad_accum, per_rank in runs(records):
        items_per_epoch = 8  # loader batches per rank and epoch (grad_accum groups them, never drops here)
        orders = []
        for epoch in range(2):
            seen = [
                [i for item in record["indices"][epoch * items_per_epoch : (epoch + 1) * items_per_epoch] for i in item]
                for record in per_rank
            ]
            assert len(seen[0]) == len(seen[1]) == fx.DDP_SAMPLES // WORLD
            assert not set(seen[0]) & set(seen[1]), (grad_accum, epoch)
            assert sorted(seen[0] + seen[1]) == list(range(fx.DDP_SAMPLES))
            orders.append(seen[0])
        assert orders[0] != orders[1]  # shuffled anew each epoch
    # the data order depends on (seed, epoch) only: both runs saw the same order
    assert records[0][0]["indices"] == records[0][1]["indices"]


def test_weights_identical_across_ranks(ddp_records):
    _, records, _, _ = ddp_records
    for _, per_rank in runs(records):
        assert per_rank[0]["weights"] == per_rank[1]["weights"]


def test_ddp_averages_gradients_like_one_process_on_the_union(ddp_records):
    """Replay by hand: every step's gradient is the mean over both ranks' micro-batches (loss / grad_accum)."""
    _, records, _, _ = ddp_records
    dataset = fx.IndexedDataset()
    for grad_accum, per_rank in runs(records):
        model = fx.LossModel()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        for step, (_, _, lr) in enumerate(per_rank[0]["lrs"]):
            optimizer.param_groups[0]["lr"] = lr
            for record in per_rank:
                for indices in record["indices"][step * grad_accum : (step + 1) * grad_accum]:
                    index = torch.tensor(indices)
                    item = (dataset.x[index], dataset.y[index], index)
                    (model(item) / (grad_accum * WORLD)).backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
        for got, want in zip(per_rank[0]["weights"], model.parameters(), strict=True):
            torch.testing.assert_close(torch.tensor(got), want.detach().flatten(), rtol=1e-5, atol=1e-6)


def test_ddp_resume_restores_every_ranks_rng_and_is_bit_identical(ddp_records):
    """Dropout plus per-rank RNG streams: each rank must get its own RNG state back from rank 0's checkpoint."""
    _, _, resume, folder = ddp_records
    assert sorted(p.name for p in (folder / "stopped").glob("ba*.pt")) == ["ba00000005.pt", "ba00000010.pt"]
    payload = torch.load(folder / "stopped" / "latest", weights_only=True)
    rng = payload["rng"]
    assert len(rng) == WORLD and not torch.equal(rng[0]["torch"], rng[1]["torch"])  # the ranks' streams differ
    lead = resume[0]  # LRMonitor records on rank 0 only
    assert lead["resumed_lr"][0][0] == 10
    assert [lr for _, lr in lead["resumed_lr"]] == lead["reference_lr"][10:]
    assert resume[1]["resumed_lr"] == [] and resume[1]["reference_lr"] == []
    for rank, result in enumerate(resume):
        for want, got in zip(result["reference_weights"], result["resumed_weights"], strict=True):
            assert want == got, f"rank {rank}: weights differ after a DDP resume"
    assert resume[0]["resumed_weights"] == resume[1]["resumed_weights"]


def _two_nodes(folder: Path, env: dict) -> tuple[Path, list[int], list[bytes]]:
    """Two ``torch.distributed.run`` agents (one rank each, c10d rendezvous on 127.0.0.1) train into ``folder``
    (run by the test itself, not ahead in the background: beside the other tests' loopback rendezvous it hung
    once in 3 fresh-clone runs). Returns the folder, the agents' statuses and stderr."""
    out = folder / "nodes"
    out.mkdir()
    port = free_loopback_port()
    env = dict(env, PYTHONPATH=str(ROOT), GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1")
    for name in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK"):
        env.pop(name, None)
    agent = [sys.executable, "-m", "torch.distributed.run", "--nnodes=2", "--nproc_per_node=1"]
    agent += ["--rdzv-backend=c10d", f"--rdzv-endpoint=127.0.0.1:{port}", "--rdzv-id=cadence-nodes"]
    fixture = [str(FIXTURES), "ddp", "--out", str(out), "--folder", str(out / "ckpt")]
    fixture += ["--max-duration", MAX_DURATION, "--save-interval", SAVE_INTERVAL, "--grad-accums", "1"]
    hosts = ["--rdzv-conf=is_host=1", "--rdzv-conf=is_host=0"]  # one agent serves the rendezvous store
    nodes = [background.popen([*agent, host, *fixture], cwd=ROOT, env=env, stderr=subprocess.PIPE) for host in hosts]
    errors = [node.communicate(timeout=300)[1] for node in nodes]
    return out, [node.returncode for node in nodes], errors


def test_two_nodes_of_one_rank_train_as_one_node_of_two_ranks(ddp_records):
    """``torchrun --nnodes 2 --nproc_per_node 1`` with c10d rendezvous, two agents on this machine standing for two
    nodes: the same global samples and tokens, the same lr at every batch, the same data on each rank and the
    same weights as one node with 2 ranks (docs/cluster.md, "Multi-node training")."""
    _, records, _, _ = ddp_records
    out, statuses, errors = background.result(_two_nodes)
    assert statuses == [0, 0], [error.decode()[-3000:] for error in errors]
    two_nodes = [json.loads((out / f"rank{rank}.json").read_text())["runs"][0] for rank in range(WORLD)]
    one_node = [records[rank][0] for rank in range(WORLD)]
    for rank in range(WORLD):
        node, single = two_nodes[rank], one_node[rank]
        assert node["world_size"] == WORLD and node["rank"] == rank
        assert node["timestamps"] == single["timestamps"]  # global samples, batch by batch
        assert node["tokens"] == single["tokens"] and node["tokens"][-1] > 0
        assert node["lrs"] == single["lrs"]  # the same lr at every batch
        assert node["indices"] == single["indices"]  # the same data on each rank
        for got, want in zip(node["weights"], single["weights"], strict=True):
            torch.testing.assert_close(torch.tensor(got), torch.tensor(want), rtol=1e-6, atol=1e-7)
    assert sorted(p.name for p in (out / "ckpt").iterdir())[-1] == "latest"  # rank 0 saved, as on one node


# -- tokens: summed over ranks, and the schedule reads the sum ---------------------------------------------------

TOKEN_MILESTONES = (60, 150, 220)  # tok: 141 tokens per epoch over both ranks, about 17.6 per batch


def _count_tokens(out: Path) -> None:
    """One rank of a 2-rank run whose lr steps down at token milestones: records the tokens it counted before and
    after each batch, the lr each batch trained with, and the items it trained (:func:`run_ranks`)."""
    import torch.distributed as dist

    from schedulers import MultiStepScheduler
    from trainer import Callback, Trainer

    record: dict[str, list] = {"indices": [], "before": [], "after": []}

    def tokens_of(item) -> int:
        record["indices"].append([int(i) for i in item[2]])
        return fx.item_tokens(item)

    class Tokens(Callback):
        def on_batch_start(self, trainer):  # the lr this batch trains with, at the tokens counted before it
            record["before"].append([trainer.state.timestamp.token.value, trainer.optimizer.param_groups[0]["lr"]])

        def on_batch_end(self, trainer, loss):
            record["after"].append(trainer.state.timestamp.token.value)

    model = fx.LossModel()
    loader = torch.utils.data.DataLoader(fx.IndexedDataset(), batch_size=fx.DDP_BATCH, shuffle=True)
    milestones = [f"{tokens}tok" for tokens in TOKEN_MILESTONES]
    Trainer(
        model,
        loader,
        MAX_DURATION,
        torch.optim.SGD(model.parameters(), lr=0.1),
        schedulers=MultiStepScheduler(milestones, gamma=0.5),
        loss_fn=None,
        seed=3,
        get_num_tokens=tokens_of,
        callbacks=[Tokens()],
        progress_bar=False,
        print_schedule_report=False,
    ).fit()
    (out / f"tokens{dist.get_rank()}.json").write_text(json.dumps(record))
    dist.destroy_process_group()


def test_tokens_count_over_every_rank_and_token_milestones_fall_at_the_global_count(tmp_path):
    """2 ranks (gloo, 127.0.0.1): after each batch every rank counts the tokens of the items both ranks trained,
    and the lr steps down at the batch where that global count reaches each ``tok`` milestone (a rank counting
    only its own tokens reaches them later)."""
    run_ranks(WORLD, _count_tokens, tmp_path)
    records = [json.loads((tmp_path / f"tokens{rank}.json").read_text()) for rank in range(WORLD)]
    per_batch = [[fx.item_tokens((None, None, torch.tensor(i))) for i in record["indices"]] for record in records]
    assert len(per_batch[0]) == len(per_batch[1]) == 16  # 2 epochs of 8 batches per rank
    global_counts = [sum(a + b for a, b in zip(per_batch[0][:n], per_batch[1][:n], strict=True)) for n in range(17)]
    assert global_counts[-1] == 2 * sum(i % 5 + 1 for i in range(fx.DDP_SAMPLES))  # every item twice
    own_counts = [sum(per_batch[0][:n]) for n in range(17)]  # what rank 0 would count alone

    def lr_at(tokens: int) -> float:
        return 0.1 * 0.5 ** sum(tokens >= milestone for milestone in TOKEN_MILESTONES)

    for record in records:
        assert record["after"] == global_counts[1:]  # the global count, batch by batch, on every rank
        assert [tokens for tokens, _ in record["before"]] == global_counts[:-1]
        assert [lr for _, lr in record["before"]] == pytest.approx([lr_at(tokens) for tokens in global_counts[:-1]])
    assert records[0]["before"] == records[1]["before"]  # every rank trains each batch with the same lr
    # the milestones fall between batches where the two counts disagree: a per-rank count changes the lrs
    assert [lr_at(tokens) for tokens in own_counts[:-1]] != [lr_at(tokens) for tokens in global_counts[:-1]]
    assert len({lr_at(tokens) for tokens in global_counts[:-1]}) == len(TOKEN_MILESTONES) + 1  # each one reached
