r"""The sweep's summary: one row per point from its run folder, ``summary.csv``, and the compute it took.

Each row gives the budget (as listed, and as the batches, samples and tokens the run trained to), the last
batch's training loss, the last evaluation's loss, the batches this point trained itself
(``trained_batches``: a WSD branch trains only its decay) and its wall time. The compute figure compares
the batches trained by the whole sweep with the largest run and with the sum of independent runs:

.. math:: \text{cost} = \frac{\sum_i \text{trained}_i}{\max_i B_i}, \qquad
          \text{independent} = \frac{\sum_i B_i}{\max_i B_i}

>>> compute_line([{"batches": 75, "trained_batches": 15}, {"batches": 150, "trained_batches": 30},
...               {"batches": 300, "trained_batches": 300}])
'3 budgets for 1.15× the largest run (independent runs: 1.75×)'
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from schedulers.tools.files import write_atomically
from trainer.sweep import folders

__all__ = ["COLUMNS", "added_columns", "compute_line", "point_row", "table", "write_summary"]

COLUMNS = (
    "point",
    "budget",
    "batches",
    "samples",
    "tokens",
    "trained_batches",
    "final_train_loss",
    "final_eval_loss",
    "wall_time_s",
)


def point_row(point: Any) -> dict[str, Any]:
    """The summary row of a finished point, read from its folder (``metrics.csv`` and ``done.json``).

    Args:
        point: A finished :class:`~trainer.sweep.plan.SweepPoint`.

    Returns:
        The :data:`COLUMNS` of the point: the counts and training loss of the last row that has one, the last
        evaluation's loss (None without evaluation), the batches it trained itself (the last batch less the
        ``start_batch`` of ``done.json``) and its wall time (None without ``done.json``).

    Raises:
        ValueError: ``metrics.csv`` has no row with a training loss.

    >>> import tempfile
    >>> from pathlib import Path
    >>> from trainer.records import RowFile
    >>> from trainer.sweep.plan import budgets_from_durations, plan_points
    >>> with tempfile.TemporaryDirectory() as out:
    ...     point = plan_points(budgets_from_durations(["2ba"]), Path(out))[0]
    ...     rows = RowFile(point.folder / folders.METRICS)
    ...     rows.add((1, 0, 8, 0), {"train/loss": 0.5})
    ...     rows.add((2, 0, 16, 0), {"train/loss": 0.25, "eval/loss": 0.75})
    ...     rows.close()
    ...     folders.mark_done(point.folder, {"wall_time_s": 1.5, "start_batch": 0})
    ...     row = point_row(point)
    >>> row["point"], row["batches"], row["trained_batches"], row["final_train_loss"], row["final_eval_loss"]
    ('max_duration-2ba', 2, 2, 0.25, 0.75)
    """
    rows = folders.read_rows(Path(point.folder) / folders.METRICS)
    trained = [row for row in rows if row.get("train/loss", "") != ""]
    if not trained:
        raise ValueError(f"{point.folder / folders.METRICS} has no training row: the point {point.name} did not train")
    last = trained[-1]
    evals = [row for row in rows if row.get("eval/loss", "") != ""]
    record = folders.finished(point.folder) or {}
    batches = int(last["batch"])
    return {
        "point": point.name,
        "budget": str(point.budget.value),
        "batches": batches,
        "samples": int(last["sample"]),
        "tokens": int(last["token"]),
        "trained_batches": batches - int(record.get("start_batch", 0)),
        "final_train_loss": float(last["train/loss"]),
        "final_eval_loss": float(evals[-1]["eval/loss"]) if evals else None,
        "wall_time_s": record.get("wall_time_s"),
    }


def compute_line(rows: Iterable[dict[str, Any]]) -> str:
    """``"3 budgets for 1.31× the largest run (independent runs: 1.75×)"`` (see the module docstring).

    Args:
        rows: The summary rows (their ``batches`` and ``trained_batches``); at least one.

    Returns:
        The line the sweep prints under its table: the batches the sweep trained, and those independent runs
        would have trained, each as a multiple of the largest run's.

    >>> compute_line([{"batches": 100, "trained_batches": 100}, {"batches": 200, "trained_batches": 200}])
    '2 budgets for 1.50× the largest run (independent runs: 1.50×)'
    """
    rows = list(rows)
    largest = max(row["batches"] for row in rows)
    used = sum(row["trained_batches"] for row in rows) / largest
    independent = sum(row["batches"] for row in rows) / largest
    return f"{len(rows)} budgets for {used:.2f}× the largest run (independent runs: {independent:.2f}×)"


def added_columns(rows: list[dict[str, Any]]) -> tuple[str, ...]:
    """The columns the rows have beyond the :data:`COLUMNS` (those ``--forecast`` adds), in their order.

    Args:
        rows: The summary rows (the first one's keys are read).

    Returns:
        The names of the first row's extra columns, in its order; empty when there are no rows.

    >>> added_columns([{"point": "a", "forecast_error": 0.01}])
    ('forecast_error',)
    """
    return tuple(key for key in rows[0] if key not in COLUMNS) if rows else ()


def write_summary(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Write ``summary.csv`` (the :data:`COLUMNS`, and the columns added to the rows, such as a forecast's; one
    row per point) atomically.

    Args:
        path: The file to write (``OUT/summary.csv``).
        rows: The summary rows, each with every column (None is written as an empty cell; a float with ``repr``).

    Returns:
        The path of the written file.

    >>> import os, tempfile
    >>> row = {"point": "ssr-0.5", "budget": "0.5", "batches": 50, "samples": 400, "tokens": 0,
    ...        "trained_batches": 50, "final_train_loss": 0.25, "final_eval_loss": None, "wall_time_s": 1.5}
    >>> with tempfile.TemporaryDirectory() as out:
    ...     print(open(write_summary(os.path.join(out, "summary.csv"), [row])).read(), end="")
    point,budget,batches,samples,tokens,trained_batches,final_train_loss,final_eval_loss,wall_time_s
    ssr-0.5,0.5,50,400,0,50,0.25,,1.5
    """
    columns = COLUMNS + added_columns(rows)

    def write(stream) -> None:
        writer = csv.DictWriter(stream, columns, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({key: _cell(row[key]) for key in columns})

    return write_atomically(path, write, newline="")


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as an aligned text table (what the command prints).

    Args:
        rows: The summary rows, each with the shown columns (the counts and losses, and any added ones but
            ``forecast_of``).

    Returns:
        A header line and one line per row, each cell right-aligned to its column; losses with 4 decimals and a
        missing value as ``-``.

    >>> print(table([{"point": "ssr-0.5", "batches": 50, "samples": 400, "tokens": 0, "trained_batches": 50,
    ...               "final_train_loss": 0.25, "final_eval_loss": None}]))
      point  batches  samples  tokens  trained_batches  final_train_loss  final_eval_loss
    ssr-0.5       50      400       0               50            0.2500                -
    """
    shown = ("point", "batches", "samples", "tokens", "trained_batches", "final_train_loss", "final_eval_loss")
    shown += tuple(key for key in added_columns(rows) if key != "forecast_of")
    cells = [list(shown)] + [[_short(row[key]) for key in shown] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(shown))]
    return "\n".join("  ".join(cell.rjust(width) for cell, width in zip(line, widths, strict=True)) for line in cells)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    return repr(value) if isinstance(value, float) else str(value)


def _short(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.4f}" if isinstance(value, float) else str(value)
