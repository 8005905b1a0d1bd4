"""A point's run folder: whether it is finished, and its metrics CSV made consistent before a (re)start.

A point folder holds the run's checkpoints (``ba00000120.pt``, ``latest``), ``metrics.csv`` (one row per
batch: the loss and every scheduled value; the evaluations), and, once the point has finished,
``done.json`` (its wall time and the batch its training started from). A point without ``done.json`` is
run again with autoresume: it continues from its newest checkpoint, and its CSV is first cut back to the
rows up to that checkpoint, so the rows a killed attempt logged after it are not repeated. A branch that
has no checkpoint of its own starts from the main run's rows up to its decay start.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from schedulers.tools.files import write_atomically
from trainer.checkpoint import CheckpointError, checkpoint_batch, resolve_checkpoint

__all__ = [
    "DONE",
    "LOG",
    "METRICS",
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
    """Make ``point``'s CSV agree with the checkpoint it will resume from (see the module docstring)."""
    folder = Path(point.folder)
    folder.mkdir(parents=True, exist_ok=True)
    metrics = folder / METRICS
    resumes_at = newest_batch(folder)
    if resumes_at is not None:
        if metrics.is_file():
            header, rows = read_table(metrics)
            _write_table(metrics, header, [row for row in rows if int(row[0]) <= resumes_at])
        return
    if point.is_branch and main_folder is not None and (Path(main_folder) / METRICS).is_file():
        header, rows = read_table(Path(main_folder) / METRICS)
        _write_table(metrics, header, [row for row in rows if int(row[0]) <= start_batch(point)])
    elif metrics.exists():
        metrics.unlink()  # a fresh start logs from batch 1


def read_table(path: Path) -> tuple[list[str], list[list[str]]]:
    """A CSV's header and rows."""
    with open(path, newline="", encoding="utf-8") as stream:
        reader = csv.reader(stream)
        header = next(reader, [])
        return header, [row for row in reader if row]


def read_rows(path: Path) -> list[dict[str, str]]:
    """A CSV's rows as dicts (empty cells are empty strings)."""
    header, rows = read_table(path)
    return [dict(zip(header, row + [""] * (len(header) - len(row)), strict=False)) for row in rows]


def _write_table(path: Path, header: list[str], rows: list[list[str]]) -> None:
    def write(stream) -> None:
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)

    write_atomically(path, write, newline="")
