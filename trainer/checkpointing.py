"""The trainer's checkpoints: what one holds, saving it into ``save_folder``, and resuming a run from it.

A checkpoint holds everything needed to continue the run exactly (docs/resume.md): the model, the optimizer,
every scheduler, the timestamp, each rank's RNG state, the fp16 scaler and the steps it skipped in the epoch,
and the run's settings (to warn when a resumed run changes them). :mod:`trainer.checkpoint_files` writes and reads
the files; this module decides what goes in and where it comes back.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

import attrs
import torch

from schedulers.core.clock import TrainerState
from schedulers.core.run import Run
from timeunits import Timestamp
from trainer import checkpoint_files as checkpoints
from trainer import distributed
from trainer.callbacks import CallbackList
from trainer.data import epoch_position, reshard, step_items
from trainer.distributed import World
from trainer.loop import Loop
from trainer.precision import Precision

__all__ = [
    "Checkpointed",
    "LastCheckpoint",
    "autoresume_path",
    "callback_states",
    "load_weights",
    "resume",
    "run_state",
    "save",
]


class Checkpointed(Protocol):
    """What checkpoints read on the trainer (a :class:`~trainer.Trainer` is one): the interface this module
    uses.

    Returns:
        A protocol, met (never built): any object with these attributes can be saved and resumed by
        :func:`save` and :func:`resume`.

    Example:
        >>> import typing
        >>> typing.get_type_hints(Checkpointed)["grad_accum"]
        <class 'int'>
    """

    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    train_dataloader: Iterable
    run: Run
    state: TrainerState
    precision: Precision
    world: World
    grad_accum: int
    seed: int
    save_folder: Path | None
    keep_checkpoints: int | None
    is_rank_zero: bool
    callbacks: CallbackList

    @property
    def schedulers(self) -> list:
        """The run's schedulers, in the order their states are saved and loaded."""
        ...


@attrs.define
class LastCheckpoint:
    """What a run saved last: the batch of its last checkpoint (on every rank), the file (on rank 0), and the
    file it resumed from until the run has said so.

    Args:
        batch: The batch of the last checkpoint (None: none yet); :func:`save` sets it.
        path: The last checkpoint's file (None: none yet, or not rank 0); :func:`save` sets it.
        resumed_from: The file the run resumed from, until the run has said so; :func:`resume` sets it.

    Returns:
        The record (empty by default), which the trainer fills as it saves and resumes.

    Example:
        >>> last = LastCheckpoint()
        >>> last.where(None)
        'no checkpoint (save_folder is None)'
    """

    batch: int | None = None
    path: Path | None = None
    resumed_from: Path | None = None

    def where(self, save_folder: Path | None) -> str:
        """Where the last checkpoint is, in words (for a message when a run stops).

        Args:
            save_folder: The run's save folder (None: the run saves no checkpoint).

        Returns:
            One phrase: the last checkpoint's file, or why there is none yet.
        """
        if self.path is not None:
            return f"the last checkpoint is {self.path}"
        if save_folder is None:
            return "no checkpoint (save_folder is None)"
        return f"no checkpoint saved yet in {save_folder}"


def run_state(trainer: Checkpointed, skipped_in_epoch: int, epoch_start: tuple[int, int] = (0, 0)) -> dict[str, Any]:
    """Everything needed to continue the run exactly (weights_only-safe): ``Trainer.state_dict()``.

    Args:
        trainer: The trainer.
        skipped_in_epoch: The optimizer steps the fp16 scaler skipped in the current epoch (the loop counts them).
        epoch_start: Where this run's steps of the epoch began: (items of its order, steps of the epoch); not
            ``(0, 0)`` in the epoch a run resumed with steps of another size.

    Returns:
        ``{"model", "optimizer", "schedulers", "timestamp", "rng", "precision", "run", "callbacks",
        "epoch_position"}``; ``rng`` holds every rank's RNG states (all ranks take part in gathering them);
        ``callbacks`` the states of the callbacks that keep one (:func:`callback_states`); ``epoch_position`` the
        items of the epoch's order done (:func:`trainer.data.epoch_position`; None: loader batches of unknown size).

    A ``state_dict()`` of the model, optimizer or a scheduler that raises propagates its error.

    Example:
        >>> import tempfile, torch
        >>> from trainer import Trainer
        >>> model = torch.nn.Linear(2, 1)
        >>> trainer = Trainer(model, [(torch.ones(4, 2), torch.ones(4, 1))] * 2, "2ba",
        ...                   torch.optim.SGD(model.parameters(), lr=0.1), loss_fn=torch.nn.functional.mse_loss,
        ...                   save_folder=(folder := tempfile.TemporaryDirectory()).name, progress_bar=False,
        ...                   print_schedule_report=False)
        >>> sorted(run_state(trainer, 0))
        ['callbacks', 'epoch_position', 'model', 'optimizer', 'precision', 'rng', 'run', 'schedulers', 'timestamp']
        >>> folder.cleanup()
    """
    return {
        "model": trainer.model.state_dict(),
        "optimizer": trainer.optimizer.state_dict(),
        "schedulers": [scheduler.state_dict() for scheduler in trainer.schedulers],
        "timestamp": trainer.state.timestamp.state_dict(),
        "rng": distributed.gather_rng(trainer.world, checkpoints.rng_state()),
        "precision": {**trainer.precision.state_dict(), "skipped_in_epoch": skipped_in_epoch},
        "run": _run_settings(trainer),
        "callbacks": callback_states(trainer.callbacks),
        "epoch_position": epoch_position(
            epoch_start, trainer.state.timestamp.batch_in_epoch.value + skipped_in_epoch, _step_items(trainer)
        ),
    }


def _step_items(trainer: Checkpointed) -> int | None:
    """Items of the epoch's order one optimizer step of this run takes (:func:`trainer.data.step_items`)."""
    return step_items(getattr(trainer.train_dataloader, "batch_size", None), trainer.grad_accum, trainer.world.size)


def callback_states(callbacks: CallbackList) -> dict[str, Any]:
    """The state of each callback that keeps one (a ``state_dict`` method, Lightning's convention), by
    :func:`_callback_keys`.

    Args:
        callbacks: The run's callbacks.

    Returns:
        ``{key: state}``; empty when no callback keeps a state.

    Example:
        >>> from trainer.early_stopping import EarlyStopping
        >>> callback_states(CallbackList([EarlyStopping()]))
        {'EarlyStopping[0]': {'best': inf, 'wait': 0, 'stopped_at': None}}
    """
    return {key: callback.state_dict() for key, callback in _callback_keys(callbacks)}


def _load_callbacks(callbacks: CallbackList, saved: dict[str, Any]) -> None:
    """Give each callback with a state the one saved under its key (a checkpoint without it: none)."""
    for key, callback in _callback_keys(callbacks):
        if key in saved:
            callback.load_state_dict(saved[key])


def _callback_keys(callbacks: CallbackList):
    """``(key, callback)`` for each callback with a state: its class name and its index among that class's."""
    seen: dict[str, int] = {}
    for callback in callbacks:
        if callable(getattr(callback, "state_dict", None)) and callable(getattr(callback, "load_state_dict", None)):
            name = type(callback).__name__
            seen[name] = seen.get(name, -1) + 1
            yield f"{name}[{seen[name]}]", callback


def _run_settings(trainer: Checkpointed) -> dict[str, Any]:
    """The settings a checkpoint records, to tell a resumed run which of them changed."""
    return {
        "max_duration": str(trainer.run.max_duration),
        "scaled_max_duration": str(trainer.run.length),
        "scale_schedule_ratio": trainer.run.ssr,
        "dataloader_len": trainer.run.dataloader_len,
        "grad_accum": trainer.grad_accum,
        "seed": trainer.seed,
        "world_size": trainer.world.size,
        "batch_size": getattr(trainer.train_dataloader, "batch_size", None),
    }


def save(trainer: Checkpointed, last: LastCheckpoint, payload: dict[str, Any]) -> Path | None:
    """Save ``payload`` named by the batch count into ``save_folder`` (rank 0 writes), keeping the newest files.

    Before writing, the callbacks' ``on_before_checkpoint`` puts their records on disk; after it, files beyond
    ``keep_checkpoints`` are deleted (only once the new one is in place) and ``on_checkpoint`` is told the path.

    Args:
        trainer: The trainer (its ``save_folder`` is set).
        last: The run's record of its last checkpoint; updated.
        payload: What to save (:func:`run_state`).

    Returns:
        The file written, or None on a rank other than 0.

    Raises:
        ValueError: a payload value ``torch.load(weights_only=True)`` would refuse (named by where it sits).
        OSError: the file cannot be written (the previous checkpoint and ``latest`` stay intact).

    Example:
        >>> import tempfile, torch
        >>> from trainer import Trainer
        >>> model = torch.nn.Linear(2, 1)
        >>> trainer = Trainer(model, [(torch.ones(4, 2), torch.ones(4, 1))] * 2, "2ba",
        ...                   torch.optim.SGD(model.parameters(), lr=0.1), loss_fn=torch.nn.functional.mse_loss,
        ...                   save_folder=(folder := tempfile.TemporaryDirectory()).name, progress_bar=False,
        ...                   print_schedule_report=False)
        >>> last = LastCheckpoint()
        >>> save(trainer, last, run_state(trainer, 0)).name, last.batch
        ('ba00000000.pt', 0)
        >>> folder.cleanup()
    """
    last.batch = trainer.state.timestamp.batch.value
    if not trainer.is_rank_zero:
        return None
    trainer.callbacks.on_before_checkpoint(trainer)  # records reach disk before the checkpoint that claims them
    path = checkpoints.save_checkpoint(trainer.save_folder, last.batch, payload)
    last.path = path
    if trainer.keep_checkpoints is not None:
        # only once the new file is safely in place and `latest` points at it
        for old in checkpoints.list_checkpoints(trainer.save_folder)[: -trainer.keep_checkpoints]:
            checkpoints.delete_checkpoint(old)
    trainer.callbacks.on_checkpoint(trainer, path)
    return path


def resume(trainer: Checkpointed, loop: Loop, last: LastCheckpoint, load_path: str | Path) -> None:
    """Continue the run saved at ``load_path`` (a file, or a folder's ``latest``): every state comes back; the
    constructor's settings win over the saved ones, with a warning naming each change.

    Args:
        trainer: The trainer, as built for the resumed run.
        loop: Its loop (the count of skipped optimizer steps comes back into it).
        last: The run's record of its last checkpoint: the one resumed from.
        load_path: A checkpoint file, or a folder whose ``latest`` is one.

    Raises:
        trainer.checkpoint_files.CheckpointError: not a readable Cadence trainer checkpoint, or one holding another
            number of schedulers.

    Example:
        >>> import tempfile, torch
        >>> from trainer import Trainer
        >>> model = torch.nn.Linear(2, 1)
        >>> trainer = Trainer(model, [(torch.ones(4, 2), torch.ones(4, 1))] * 2, "2ba",
        ...                   torch.optim.SGD(model.parameters(), lr=0.1), loss_fn=torch.nn.functional.mse_loss,
        ...                   save_folder=(folder := tempfile.TemporaryDirectory()).name, progress_bar=False,
        ...                   print_schedule_report=False)
        >>> trainer.fit()  # 2 batches, then a checkpoint
        >>> model = torch.nn.Linear(2, 1)
        >>> resumed = Trainer(model, [(torch.ones(4, 2), torch.ones(4, 1))] * 2, "2ba",
        ...                   torch.optim.SGD(model.parameters(), lr=0.1), loss_fn=torch.nn.functional.mse_loss)
        >>> resume(resumed, Loop(resumed.state, [], []), LastCheckpoint(), trainer.save_folder)
        >>> str(resumed.state.timestamp.batch), torch.equal(resumed.model.weight, trainer.model.weight)
        ('2ba', True)
        >>> folder.cleanup()
    """
    payload = checkpoints.load_checkpoint(load_path)
    file = checkpoints.resolve_checkpoint(load_path)
    missing = [key for key in ("model", "optimizer", "schedulers", "timestamp", "rng", "run") if key not in payload]
    if missing:
        raise checkpoints.CheckpointError(f"{file} is not a Cadence trainer checkpoint: it lacks {missing}")
    saved_lrs = [group.get("lr") for group in payload["optimizer"].get("param_groups", [])]
    trainer.model.load_state_dict(payload["model"])
    trainer.optimizer.load_state_dict(payload["optimizer"])
    trainer.state.timestamp = Timestamp.from_state_dict(payload["timestamp"])
    if len(payload["schedulers"]) != len(trainer.schedulers):
        raise checkpoints.CheckpointError(
            f"{file} holds {len(payload['schedulers'])} scheduler states, this run has {len(trainer.schedulers)}"
        )
    for scheduler, saved in zip(trainer.schedulers, payload["schedulers"], strict=True):
        scheduler.load_state_dict(saved)
    _load_callbacks(trainer.callbacks, payload.get("callbacks", {}))
    trainer.precision.load_state_dict(payload.get("precision", {}))
    loop.skipped_in_epoch = int(payload.get("precision", {}).get("skipped_in_epoch", 0))
    notes = _reshard(trainer, loop, payload)
    rng = distributed.pick_rng(trainer.world, payload["rng"])
    if rng is not None:
        checkpoints.set_rng_state(rng)
    _warn_on_changed_settings(trainer, payload["run"], saved_lrs, file, notes)
    last.batch = trainer.state.timestamp.batch.value
    last.path = last.resumed_from = file


def load_weights(model: torch.nn.Module, load_path: str | Path, *, strict: bool) -> None:
    """Fine-tuning: the model's weights alone; optimizer, schedules and time start fresh.

    Args:
        model: The model to load into.
        load_path: A checkpoint file, or a folder whose ``latest`` is one.
        strict: Every weight must match the model's (``load_strict_model_weights``).

    Raises:
        trainer.checkpoint_files.CheckpointError: not a readable checkpoint, or one without model weights.
        ValueError: the weights do not fit the model.

    Example:
        >>> import tempfile, torch
        >>> from trainer import Trainer
        >>> model = torch.nn.Linear(2, 1)
        >>> trainer = Trainer(model, [(torch.ones(4, 2), torch.ones(4, 1))] * 2, "2ba",
        ...                   torch.optim.SGD(model.parameters(), lr=0.1), loss_fn=torch.nn.functional.mse_loss,
        ...                   save_folder=(folder := tempfile.TemporaryDirectory()).name, progress_bar=False,
        ...                   print_schedule_report=False)
        >>> trainer.fit()  # 2 batches, then a checkpoint
        >>> fresh = torch.nn.Linear(2, 1)
        >>> load_weights(fresh, trainer.save_folder, strict=True)
        >>> torch.equal(fresh.weight, trainer.model.weight)
        True
        >>> folder.cleanup()
    """
    payload = checkpoints.load_checkpoint(load_path)
    if "model" not in payload:
        raise checkpoints.CheckpointError(f"{checkpoints.resolve_checkpoint(load_path)} holds no model weights")
    try:
        model.load_state_dict(payload["model"], strict=strict)
    except RuntimeError as error:
        raise ValueError(
            f"the weights in {checkpoints.resolve_checkpoint(load_path)} do not fit this model "
            f"(load_strict_model_weights={strict}): {str(error).splitlines()[0]}"
        ) from None


def autoresume_path(save_folder: Path | None, load_path: Any, load_weights_only: bool) -> tuple[Any, bool]:
    """``autoresume=True``: ``save_folder`` (a whole run) when it holds a checkpoint, else the arguments as given.

    Args:
        save_folder: The run's checkpoint folder.
        load_path: The ``load_path`` the trainer was given.
        load_weights_only: The ``load_weights_only`` the trainer was given.

    Returns:
        ``(load_path, load_weights_only)`` to use: ``(save_folder, False)`` when it holds a checkpoint.

    Raises:
        ValueError: ``save_folder`` is None.

    Example:
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as folder:  # nothing saved yet: fine-tune from base.pt as asked
        ...     autoresume_path(Path(folder), "base.pt", True)
        ('base.pt', True)
    """
    if save_folder is None:
        raise ValueError("autoresume=True needs save_folder (it resumes from save_folder's latest checkpoint)")
    if checkpoints.list_checkpoints(save_folder) or (save_folder / checkpoints.LATEST).exists():
        return save_folder, False  # a preempted run continues exactly
    return load_path, load_weights_only


def _reshard(trainer: Checkpointed, loop: Loop, payload: dict) -> list[str]:
    """A checkpoint whose steps took another number of items (ranks, batch size, grad_accum): where this epoch
    goes on (:func:`trainer.data.reshard`, the rule of docs/resume.md), and what the warning says of it."""
    change = reshard(
        payload["run"],
        trainer.state.timestamp,
        loop.skipped_in_epoch,
        world_size=trainer.world.size,
        loader=trainer.train_dataloader,
        grad_accum=trainer.grad_accum,
        steps=trainer.state.dataloader_len,
        position=payload.get("epoch_position"),
    )
    if change is None:
        return []
    trainer.state.timestamp, loop.resume_position, loop.skipped_in_epoch = change.timestamp, change.position, 0
    if change.position is not None:
        loop.epoch_start = (change.position, change.timestamp.batch_in_epoch.value)
    rng = payload["rng"]
    note = distributed.rng_note(len(rng) if isinstance(rng, list) else 1, trainer.world.size)
    return change.notes + ([note] if note else [])


# what a checkpoint older than a setting ran with; another setting it lacks (a batch size) is not said to change
_UNSAVED: dict[str, Any] = {"world_size": 1}


def _warn_on_changed_settings(
    trainer: Checkpointed, saved: dict, saved_lrs: list, file: Path, notes: list[str]
) -> None:
    now = _run_settings(trainer)
    changed = [
        f"{key} {saved.get(key)} -> {now[key]}"
        for key in ("max_duration", "scale_schedule_ratio", "dataloader_len", "batch_size", "grad_accum", "world_size")
        if saved.get(key, _UNSAVED.get(key, now[key])) != now[key]
    ]
    if changed and trainer.is_rank_zero:
        lrs = [float(group["lr"]) for group in trainer.optimizer.param_groups]
        warnings.warn(
            f"resuming from {file} with changed settings ({'; '.join(changed)}): the constructor's arguments "
            f"win; {''.join(f'{note}; ' for note in notes)}"
            f"lr just before the change {[float(x) for x in saved_lrs if x is not None]}, just after {lrs}",
            UserWarning,
            stacklevel=4,
        )
