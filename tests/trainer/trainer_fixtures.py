"""Scripts the trainer tests run in subprocesses (not a test module: pytest collects nothing here).

``python tests/trainer/trainer_fixtures.py train --out DIR [--folder CKPT] [--kill-at K] ...``
    A small, deliberately RNG-sensitive run (shuffled ``DataLoader``, dropout, AdamW, an lr and a
    weight-decay schedule). Writes ``DIR/lr.csv`` (LRMonitor) and ``DIR/weights.pt`` at the end. With
    ``--kill-at K`` the process writes the lr rows recorded so far to ``DIR/lr.csv`` and kills itself with
    SIGKILL when batch ``K`` is about to start (``--kill-on checkpoint``: inside ``on_checkpoint`` after the
    checkpoint of batch ``K`` was written). ``--load PATH`` resumes.

``python tests/trainer/trainer_fixtures.py fit CONFIG [--set ...]``
    ``cadence fit CONFIG ...`` in this process (its exit status: 143 after SIGTERM).

``python tests/trainer/trainer_fixtures.py batch --jobs JOBS.json [--parallel 2]``
    Import torch, the trainer and the schedulers once, then run each job (a ``train`` or ``fit`` argument
    list) in its own forked child process, ``--parallel`` at a time; print a JSON list of the children's exit
    codes (``-9`` for a child that SIGKILLed itself, 143 for a ``cadence fit`` stopped by SIGTERM). A fork
    of a parent that never trained is a fresh process for the trainer, without paying torch's ~3 s import
    per run. Run the resumes in another ``batch`` process (another interpreter, another ``PYTHONHASHSEED``)
    than the runs that were killed.

``python -m torch.distributed.run --nproc_per_node=2 ... tests/trainer/trainer_fixtures.py ddp --out DIR``
    A 2-rank CPU (gloo) run; each rank writes ``DIR/rank<r>.json`` (timestamps, lrs, data indices, weights
    digest, which ranks wrote checkpoints).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

#: samples and batch size of the resume run: 11 batches per epoch
RESUME_SAMPLES = 44
RESUME_BATCH = 4


def resume_model() -> torch.nn.Module:
    torch.manual_seed(1234)
    return torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Dropout(0.3), torch.nn.Linear(16, 1))


def resume_loader() -> torch.utils.data.DataLoader:
    generator = torch.Generator().manual_seed(99)
    dataset = torch.utils.data.TensorDataset(
        torch.randn(RESUME_SAMPLES, 4, generator=generator), torch.randn(RESUME_SAMPLES, 1, generator=generator)
    )
    return torch.utils.data.DataLoader(dataset, batch_size=RESUME_BATCH, shuffle=True)


def build_resume_trainer(args, callbacks):
    from schedulers import CosineAnnealingWithWarmupScheduler, LinearScheduler
    from trainer import Trainer

    model = resume_model()
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.05)
    return Trainer(
        model,
        resume_loader(),
        args.max_duration,
        optimizer,
        schedulers=[
            CosineAnnealingWithWarmupScheduler(t_warmup="3ba", alpha_f=0.1),
            {"schedule": LinearScheduler(1.0, 0.2), "hyperparameter": "weight_decay"},
        ],
        loss_fn=F.mse_loss,
        grad_accum=args.grad_accum,
        seed=args.seed,
        save_folder=args.folder,
        save_interval=args.save_interval,
        load_path=args.load,
        callbacks=callbacks,
        progress_bar=False,
    )


def train(args) -> None:
    import warnings

    from trainer import Callback, LRMonitor

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    monitor = LRMonitor(csv_path=out / "lr.csv")

    def die() -> None:
        monitor.write_csv(out / "lr.csv")  # what this process recorded before it died
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGKILL)

    class Killer(Callback):
        def on_batch_start(self, trainer):
            if args.kill_on == "batch_start" and trainer.state.timestamp.batch.value == args.kill_at:
                die()

        def on_checkpoint(self, trainer, path):
            if args.kill_on == "checkpoint" and trainer.state.timestamp.batch.value == args.kill_at:
                die()

    callbacks = ([Killer()] if args.kill_at is not None else []) + [monitor]  # the killer runs first
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # grad_accum leftovers
        trainer = build_resume_trainer(args, callbacks)
    trainer.fit()
    torch.save({k: v.detach().clone() for k, v in trainer.model.state_dict().items()}, out / "weights.pt")
    torch.save(trainer.optimizer.state_dict()["state"], out / "optimizer_state.pt")
    (out / "done.json").write_text(json.dumps(trainer.state.timestamp.state_dict()))


# ----------------------------------------------------------------------------------------------------------
# DDP
# ----------------------------------------------------------------------------------------------------------

DDP_SAMPLES = 48
DDP_BATCH = 3  # per rank: 24 items per rank and epoch, 8 batches (4 with grad_accum=2)


class IndexedDataset(torch.utils.data.Dataset):
    """Item i = (x_i, y_i, i), so every rank can report which items it trained on."""

    def __init__(self, n: int = DDP_SAMPLES) -> None:
        generator = torch.Generator().manual_seed(7)
        self.x = torch.randn(n, 4, generator=generator)
        self.y = torch.randn(n, 1, generator=generator)

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int):
        return self.x[i], self.y[i], i


class LossModel(torch.nn.Module):
    """``model(item)`` returns the loss (``loss_fn=None``); without dropout a hand loop can replay it."""

    def __init__(self, dropout: float = 0.0) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.net = torch.nn.Sequential(
            torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Dropout(dropout), torch.nn.Linear(8, 1)
        )

    def forward(self, item):
        x, y, _ = item
        return F.mse_loss(self.net(x), y)


def item_tokens(item) -> int:
    """Item i has i % 5 + 1 tokens: a token count that depends on which items a rank trained."""
    return int((item[2] % 5 + 1).sum())


def ddp_schedule():
    from schedulers import CosineAnnealingWithWarmupScheduler

    return CosineAnnealingWithWarmupScheduler(t_warmup="2ba", alpha_f=0.1)


def ddp_run(args, grad_accum: int, folder) -> dict:
    import trainer.checkpoint_files as checkpoints
    from trainer import Callback, Trainer

    rank = int(os.environ["RANK"])
    record = {"rank": rank, "grad_accum": grad_accum, "timestamps": [], "lrs": [], "indices": []}
    record.update(checkpoint_writes=[], on_checkpoint=[])

    original_save = checkpoints.save_checkpoint

    def spying_save(where, batch, payload):
        record["checkpoint_writes"].append(batch)
        return original_save(where, batch, payload)

    checkpoints.save_checkpoint = spying_save

    def count_samples(item):
        record["indices"].append([int(i) for i in item[2]])
        return int(item[0].shape[0])

    class Record(Callback):
        def on_batch_end(self, trainer, loss):
            ts = trainer.state.timestamp
            record["timestamps"].append([ts.batch.value, ts.sample.value, ts.epoch.value])
            record.setdefault("tokens", []).append(ts.token.value)

        def on_checkpoint(self, trainer, path):
            record["on_checkpoint"].append(os.fspath(path))

    model = LossModel()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loader = torch.utils.data.DataLoader(IndexedDataset(), batch_size=DDP_BATCH, shuffle=True)
    try:
        trainer = Trainer(
            model,
            loader,
            args.max_duration,
            optimizer,
            schedulers=ddp_schedule(),
            loss_fn=None,
            seed=3,
            grad_accum=grad_accum,
            save_folder=folder,
            save_interval=args.save_interval if folder else None,
            get_num_samples=count_samples,
            get_num_tokens=item_tokens,
            callbacks=[Record()],
            progress_bar=False,
        )

        def lr_hook(opt, a, k):
            ts = trainer.state.timestamp
            record["lrs"].append([ts.batch.value, ts.sample.value, float(opt.param_groups[0]["lr"])])

        trainer.optimizer.register_step_pre_hook(lr_hook)
        record["world_size"] = trainer.world.size
        record["dataloader_len"] = trainer.state.dataloader_len
        record["sampler"] = type(getattr(trainer.train_dataloader, "sampler", None)).__name__
        trainer.fit()
    finally:
        checkpoints.save_checkpoint = original_save
    record["weights"] = [p.detach().flatten().tolist() for p in model.parameters()]
    return record


class _Stop(Exception):
    pass


def ddp_resume(args, rank: int) -> dict:
    """Uninterrupted run vs (stop at batch K, resume from ``latest``), with dropout and per-rank RNG streams
    (rank r draws r + 1 extra numbers before every batch), so each rank needs its own RNG state back."""
    from trainer import Callback, LRMonitor, Trainer

    class RankNoise(Callback):
        def on_batch_start(self, trainer):
            torch.rand(rank + 1)

    class StopAt(Callback):
        def on_batch_start(self, trainer):
            if trainer.state.timestamp.batch.value == args.resume_at:
                raise _Stop

    def run(folder, extra=(), load_path=None):
        model = LossModel(dropout=0.3)
        loader = torch.utils.data.DataLoader(IndexedDataset(), batch_size=DDP_BATCH, shuffle=True)
        monitor = LRMonitor()
        trainer = Trainer(
            model,
            loader,
            args.max_duration,
            torch.optim.AdamW(model.parameters(), lr=0.01),
            schedulers=ddp_schedule(),
            loss_fn=None,
            seed=3,
            save_folder=folder,
            save_interval="5ba",
            load_path=load_path,
            callbacks=[*extra, RankNoise(), monitor],
            progress_bar=False,
        )
        try:
            trainer.fit()
        except _Stop:
            pass
        return model, monitor, trainer

    base = Path(args.out) / "resume"
    reference, ref_monitor, _ = run(base / "reference")
    run(base / "stopped", extra=[StopAt()])
    resumed, monitor, _ = run(base / "resumed", load_path=base / "stopped")
    return {
        "reference_weights": [p.detach().flatten().tolist() for p in reference.parameters()],
        "resumed_weights": [p.detach().flatten().tolist() for p in resumed.parameters()],
        "reference_lr": [row["lr/group0"] for row in ref_monitor.rows],
        "resumed_lr": [(row["batch"], row["lr/group0"]) for row in monitor.rows],
    }


def ddp(args) -> None:
    import torch.distributed as dist

    rank = int(os.environ["RANK"])
    out = Path(args.out)
    records = []
    for index, grad_accum in enumerate(int(n) for n in args.grad_accums.split(",")):
        folder = args.folder if index == 0 else None  # the first run checkpoints; later ones reuse the group
        records.append(ddp_run(args, grad_accum, folder))
        records[-1]["initialized_before"] = index > 0
    result = {"runs": records}
    if args.resume_at is not None:
        result["resume"] = ddp_resume(args, rank)
    (out / f"rank{rank}.json").write_text(json.dumps(result))
    if dist.is_initialized():
        dist.barrier()
        dist.destroy_process_group()


def reshard(args) -> None:
    """One run for test_trainer_reshard.py: trains (``--load``: resumes a checkpoint of any number of ranks) with a
    schedule in samples, recording per step the counters before it, the lr it trained with, this rank's items."""
    import warnings

    import torch.distributed as dist

    from schedulers import CosineAnnealingWithWarmupScheduler
    from trainer import Callback, Trainer

    rank = int(os.environ.get("RANK", "0"))
    steps, items = [], []

    class Record(Callback):
        def on_batch_start(self, trainer):
            ts = trainer.state.timestamp
            counts = [ts.epoch.value, ts.batch.value, ts.batch_in_epoch.value, ts.sample.value, ts.token.value]
            steps.append([*counts, ts.sample_in_epoch.value])

    def count_samples(item):
        items.append([int(i) for i in item[2]])
        return int(item[0].shape[0])

    model = LossModel()
    loader = torch.utils.data.DataLoader(IndexedDataset(), batch_size=DDP_BATCH, shuffle=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer = Trainer(
            model,
            loader,
            args.max_duration,
            torch.optim.SGD(model.parameters(), lr=0.1),
            schedulers=CosineAnnealingWithWarmupScheduler(t_warmup="24sp", alpha_f=0.1),
            loss_fn=None,
            seed=3,
            save_folder=args.folder,
            save_interval=args.save_interval,
            load_path=args.load,
            get_num_samples=count_samples,
            get_num_tokens=item_tokens,
            callbacks=[Record()],
            progress_bar=False,
        )
    lrs = []
    trainer.optimizer.register_step_pre_hook(lambda opt, a, k: lrs.append(float(opt.param_groups[0]["lr"])))
    trainer.fit()
    end = trainer.state.timestamp
    record = {
        "world_size": trainer.world.size,
        "dataloader_len": trainer.state.dataloader_len,
        "steps": [[*step, lr] for step, lr in zip(steps, lrs, strict=True)],
        "items": items,
        "end": [end.epoch.value, end.batch.value, end.sample.value, end.token.value],
        "warnings": [str(warning.message) for warning in caught if "resuming from" in str(warning.message)],
        "weights": [p.detach().flatten().tolist() for p in model.parameters()],
    }
    Path(args.out, f"{args.tag}-rank{rank}.json").write_text(json.dumps(record))
    del trainer  # its DDP wrapper goes before the process group does (destroyed after it, it would hang)
    if dist.is_initialized():
        dist.barrier()
        dist.destroy_process_group()


def cadence_fit(args) -> None:
    from trainer.cli import main as cadence

    raise SystemExit(cadence(["fit", *args.arguments]))


def batch(args) -> None:
    import traceback

    import schedulers  # noqa: F401  (imported once, before forking)
    import schedulers.cerebras  # noqa: F401
    import trainer  # noqa: F401

    torch.optim.SGD(torch.nn.Linear(1, 1).parameters(), lr=0.1)  # torch imports torch._dynamo lazily here
    jobs = json.loads(Path(args.jobs).read_text())
    codes: list[int | None] = [None] * len(jobs)
    running: dict[int, int] = {}  # pid -> job index

    def reap() -> None:
        pid, status = os.wait()
        codes[running.pop(pid)] = os.waitstatus_to_exitcode(status)

    for index, job in enumerate(jobs):
        while len(running) >= args.parallel:
            reap()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: run one job, never return into the parent's code
            code = 0
            try:
                main(job)
            except SystemExit as exit:  # cadence fit's exit status
                code = exit.code if isinstance(exit.code, int) else 1
            except BaseException:
                traceback.print_exc()
                code = 1
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        running[pid] = index
    while running:
        reap()
    print(json.dumps(codes))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("train")
    run.add_argument("--out", required=True)
    run.add_argument("--folder", default=None)
    run.add_argument("--max-duration", default="3ep")
    run.add_argument("--save-interval", default=None)
    run.add_argument("--load", default=None)
    run.add_argument("--kill-at", type=int, default=None)
    run.add_argument("--kill-on", choices=["batch_start", "checkpoint"], default="batch_start")
    run.add_argument("--grad-accum", type=int, default=1)
    run.add_argument("--seed", type=int, default=17)
    dd = sub.add_parser("ddp")
    dd.add_argument("--out", required=True)
    dd.add_argument("--folder", required=True)
    dd.add_argument("--max-duration", default="2ep")
    dd.add_argument("--save-interval", default="3ba")
    dd.add_argument("--grad-accums", default="1")
    dd.add_argument("--resume-at", type=int, default=None)
    rs = sub.add_parser("reshard")
    rs.add_argument("--out", required=True)
    rs.add_argument("--tag", required=True)
    rs.add_argument("--folder", default=None)
    rs.add_argument("--save-interval", default=None)
    rs.add_argument("--load", default=None)
    rs.add_argument("--max-duration", default="144sp")
    fit = sub.add_parser("fit")
    fit.add_argument("arguments", nargs=argparse.REMAINDER)
    many = sub.add_parser("batch")
    many.add_argument("--jobs", required=True)
    many.add_argument("--parallel", type=int, default=2)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    commands = {"train": train, "ddp": ddp, "reshard": reshard, "batch": batch, "fit": cadence_fit}
    commands[args.command](args)


if __name__ == "__main__":
    main()
