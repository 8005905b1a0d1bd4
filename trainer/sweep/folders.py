"""A point's run folder: whether it is finished, who is training it, and a WSD branch's first rows.

A point folder holds the run's checkpoints (``ba00000120.pt``, ``latest``), ``metrics.csv`` (one row per
batch: the loss and every scheduled value; the evaluations), and, once the point has finished,
``done.json`` (its wall time and the batch its training started from). A point without ``done.json`` is
run again with autoresume: it continues from its newest checkpoint, and its ``CSVLogger`` keeps the rows up
to that checkpoint and appends (:mod:`trainer.records`, the rule every file logger follows on resume), so
the rows a killed attempt logged after it are not repeated. A branch that has no checkpoint of its own
starts from the main run's rows up to its decay start, cut by the same rule.

While a point runs, the sweep holds a lock on its folder (``.sweep.lock``, an ``flock`` its ``cadence fit``
process inherits): a second sweep, or the rerun of a sweep whose point outlived it (a sweep killed with
SIGKILL), cannot start that point until the process training it has ended.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from schedulers.tools.files import write_atomically
from trainer.checkpoint_files import CheckpointError, checkpoint_batch, resolve_checkpoint
from trainer.records import keep_rows_through, read_rows, read_table

try:
    import fcntl
except ImportError:  # pragma: no cover - no flock (Windows): folders are not locked
    fcntl = None

__all__ = [
    "DONE",
    "LOCK",
    "LOG",
    "METRICS",
    "Claim",
    "FolderInUse",
    "claim",
    "finished",
    "mark_done",
    "newest_batch",
    "prepare",
    "read_rows",
    "read_table",
    "start_batch",
]

METRICS = "metrics.csv"
DONE = "done.json"
LOG = "log.txt"
LOCK = ".sweep.lock"


def finished(folder: Path) -> dict[str, Any] | None:
    """The ``done.json`` record of a finished point, or None."""
    path = Path(folder) / DONE
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return None  # a record we cannot read: run the point again (autoresume makes that cheap)


def mark_done(folder: Path, record: dict[str, Any]) -> None:
    """Write ``done.json`` atomically."""
    text = json.dumps(record, indent=2, sort_keys=True) + "\n"
    write_atomically(Path(folder) / DONE, lambda stream: stream.write(text))


def newest_batch(folder: Path) -> int | None:
    """The batch of a folder's newest checkpoint (its ``latest``), or None when it has none."""
    try:
        return checkpoint_batch(resolve_checkpoint(folder))
    except CheckpointError:
        return None


def start_batch(point: Any) -> int:
    """The batch a point's training starts from: a branch's decay-start checkpoint, else 0."""
    if not point.is_branch or point.start_folder is None:
        return 0
    batch = newest_batch(point.start_folder)
    if batch is None:
        raise CheckpointError(
            f"the main run saved no checkpoint in {point.start_folder} (the decay start of {point.name})"
        )
    return batch


def prepare(point: Any, main_folder: Path | None = None) -> None:
    """Make ``point``'s folder; a branch without a checkpoint of its own starts from the main run's rows up to
    its decay start (a resumed point's CSV is cut back by its own logger, to the checkpoint it resumes from)."""
    folder = Path(point.folder)
    folder.mkdir(parents=True, exist_ok=True)
    if point.is_branch and main_folder is not None and newest_batch(folder) is None:
        keep_rows_through(folder / METRICS, start_batch(point), source=Path(main_folder) / METRICS)


class FolderInUse(RuntimeError):
    """Another process holds a point folder's lock (its message names the process)."""


class Claim:
    """This sweep's lock on a point folder: ``fd`` (None without ``flock``) is passed on to the point's process."""

    def __init__(self, folder: Path, fd: int | None) -> None:
        self.folder = folder
        self.fd = fd

    def record(self, pid: int) -> None:
        """Write the pid of the process training the point into the lock file (named when another sweep finds it)."""
        if self.fd is not None:
            os.ftruncate(self.fd, 0)
            os.pwrite(self.fd, f"{pid}\n".encode(), 0)

    def release(self) -> None:
        fd, self.fd = self.fd, None
        if fd is not None:
            _HELD.discard(fd)
            os.close(fd)


_HELD: set[int] = set()  # the descriptors of this process's claims (a point forked from the sweep closes the others')


def held_claims() -> frozenset[int]:
    """The descriptors of the claims this process holds (see :func:`claim`)."""
    return frozenset(_HELD)


def claim(folder: Path) -> Claim:
    """Lock ``folder`` (made if missing) for this process; :class:`FolderInUse` when another process holds it."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if fcntl is None:  # pragma: no cover
        return Claim(folder, None)
    fd = os.open(folder / LOCK, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
        os.close(fd)
        raise FolderInUse(
            f"{folder} is being trained by another process (pid {holder}; a point of an earlier sweep that "
            "outlived it?): let it end or stop it, then rerun"
        ) from None
    except BaseException:
        os.close(fd)
        raise
    held = Claim(folder, fd)
    _HELD.add(fd)
    held.record(os.getpid())
    return held
