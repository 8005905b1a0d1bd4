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
    """The ``done.json`` record of a finished point, or None.

    Args:
        folder: The point's run folder.

    Returns:
        The record :func:`mark_done` wrote (``wall_time_s``, ``start_batch``), or None when the point has not
        finished (no ``done.json``, or one that does not read as JSON: the point is run again).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     before = finished(folder)
    ...     mark_done(folder, {"wall_time_s": 1.5, "start_batch": 0})
    ...     print(before, finished(folder))
    None {'start_batch': 0, 'wall_time_s': 1.5}
    """
    path = Path(folder) / DONE
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return None  # a record we cannot read: run the point again (autoresume makes that cheap)


def mark_done(folder: Path, record: dict[str, Any]) -> None:
    """Write ``done.json`` atomically: the point has finished, and a rerun of the sweep skips it.

    Args:
        folder: The point's run folder (it exists).
        record: What the summary reads back: ``wall_time_s`` and ``start_batch`` (a branch's decay start).

    >>> import json, os, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     mark_done(folder, {"wall_time_s": 2.0, "start_batch": 120})
    ...     print(json.load(open(os.path.join(folder, DONE))))
    {'start_batch': 120, 'wall_time_s': 2.0}
    """
    text = json.dumps(record, indent=2, sort_keys=True) + "\n"
    write_atomically(Path(folder) / DONE, lambda stream: stream.write(text))


def newest_batch(folder: Path) -> int | None:
    """The batch of a folder's newest checkpoint (its ``latest``), or None when it has none.

    Args:
        folder: A run folder, or a decay-start folder the main run of a WSD sweep saves in.

    Returns:
        The batch count the ``latest`` checkpoint was saved at; None when the folder has no checkpoint yet
        (a decay-start folder gets ``latest`` only once the main run's rows up to it are on disk).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     print(newest_batch(folder))
    None
    """
    try:
        return checkpoint_batch(resolve_checkpoint(folder))
    except CheckpointError:
        return None


def start_batch(point: Any) -> int:
    """The batch a point's training starts from: a branch's decay-start checkpoint, else 0.

    Args:
        point: A :class:`~trainer.sweep.plan.SweepPoint`.

    Returns:
        The batch of the newest checkpoint in a branch's ``start_folder``; 0 for a point that is not a branch
        or whose decay starts at batch 0. The summary subtracts it to count the batches the point trained.

    Raises:
        CheckpointError: The point is a branch and the main run saved no checkpoint in its ``start_folder``.

    >>> from trainer.sweep.plan import budgets_from_ssrs, plan_points
    >>> start_batch(plan_points(budgets_from_ssrs([0.5]), Path("out"))[0])
    0
    """
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
    its decay start (a resumed point's CSV is cut back by its own logger, to the checkpoint it resumes from).

    Args:
        point: A :class:`~trainer.sweep.plan.SweepPoint` about to start.
        main_folder: The main run's folder in a WSD sweep, whose ``metrics.csv`` a new branch copies up to its
            decay start (None: not a WSD sweep).

    Raises:
        CheckpointError: A new branch's ``start_folder`` holds no checkpoint of the main run.

    >>> import os, tempfile
    >>> from pathlib import Path
    >>> from trainer.sweep.plan import budgets_from_ssrs, plan_points
    >>> with tempfile.TemporaryDirectory() as out:
    ...     point = plan_points(budgets_from_ssrs([0.5]), Path(out))[0]
    ...     prepare(point)
    ...     print(os.listdir(out))
    ['ssr-0.5']
    """
    folder = Path(point.folder)
    folder.mkdir(parents=True, exist_ok=True)
    if point.is_branch and main_folder is not None and newest_batch(folder) is None:
        keep_rows_through(folder / METRICS, start_batch(point), source=Path(main_folder) / METRICS)


class FolderInUse(RuntimeError):
    """Another process holds a point folder's lock (its message names the process).

    Returns:
        The error :func:`claim` raises when a point's folder is locked by another process: a second sweep on
        the same folder, or a point of an earlier sweep that outlived it. The sweep stops before it starts
        any point.

    >>> issubclass(FolderInUse, RuntimeError)
    True
    """


class Claim:
    """This sweep's lock on a point folder: ``fd`` (None without ``flock``) is passed on to the point's process.

    Args:
        folder: The point's run folder.
        fd: The open descriptor of the folder's ``.sweep.lock``, on which this process holds an ``flock``
            (None where ``flock`` is missing: nothing is locked).

    Returns:
        The lock :func:`claim` takes. A launcher that starts the point's process here lets it inherit ``fd``
        (the lock lasts as long as the point's process); otherwise the sweep releases it and the point's own
        job claims the folder where it runs.

    >>> claim_without_lock = Claim(Path("out/ssr-0.5"), None)
    >>> claim_without_lock.record(1234)        # nothing to write without a lock file
    >>> claim_without_lock.release()
    """

    def __init__(self, folder: Path, fd: int | None) -> None:
        self.folder = folder
        self.fd = fd

    def record(self, pid: int) -> None:
        """Write the pid of the process training the point into the lock file (named when another sweep finds it).

        Args:
            pid: The process that trains the point (this one, or the ``cadence fit`` it started).
        """
        if self.fd is not None:
            os.ftruncate(self.fd, 0)
            os.pwrite(self.fd, f"{pid}\n".encode(), 0)

    def release(self) -> None:
        """Unlock the folder (close the descriptor; a process that inherited it keeps the lock); safe twice."""
        fd, self.fd = self.fd, None
        if fd is not None:
            _HELD.discard(fd)
            os.close(fd)


_HELD: set[int] = set()  # the descriptors of this process's claims (a point forked from the sweep closes the others')


def held_claims() -> frozenset[int]:
    """The descriptors of the claims this process holds (see :func:`claim`).

    Returns:
        The open lock descriptors of this process's claims, which a point process forked from the sweep
        closes, so that it holds its own point's lock and no other.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     held = claim(folder)
    ...     print(held.fd in held_claims())
    ...     held.release()
    ...     print(held.fd in held_claims())
    True
    False
    """
    return frozenset(_HELD)


def claim(folder: Path) -> Claim:
    """Lock ``folder`` (made if missing) for this process; :class:`FolderInUse` when another process holds it.

    Args:
        folder: A point's run folder; the lock is an ``flock`` on its ``.sweep.lock``, which also gets this
            process's pid.

    Returns:
        The held lock, until :meth:`Claim.release` or the end of every process that holds its descriptor.

    Raises:
        FolderInUse: Another process (or another open descriptor in this one) holds the folder's lock; the
            message names the pid written in the lock file.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     first = claim(folder)
    ...     try:
    ...         claim(folder)
    ...     except FolderInUse as error:
    ...         print(f"pid {os.getpid()}" in str(error))
    ...     first.release()
    True
    """
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
