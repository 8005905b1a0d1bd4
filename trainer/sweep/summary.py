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
    """The summary row of a finished point, read from its folder (``metrics.csv`` and ``done.json``)."""
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
    """``"3 budgets for 1.31× the largest run (independent runs: 1.75×)"`` (see the module docstring)."""
    rows = list(rows)
    largest = max(row["batches"] for row in rows)
    used = sum(row["trained_batches"] for row in rows) / largest
    independent = sum(row["batches"] for row in rows) / largest
    return f"{len(rows)} budgets for {used:.2f}× the largest run (independent runs: {independent:.2f}×)"


def added_columns(rows: list[dict[str, Any]]) -> tuple[str, ...]:
    """The columns the rows have beyond the :data:`COLUMNS` (those ``--forecast`` adds), in their order.

    >>> added_columns([{"point": "a", "forecast_error": 0.01}])
    ('forecast_error',)
    """
    return tuple(key for key in rows[0] if key not in COLUMNS) if rows else ()


def write_summary(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Write ``summary.csv`` (the :data:`COLUMNS`, and the columns added to the rows, such as a forecast's; one
    row per point) atomically."""
    columns = COLUMNS + added_columns(rows)

    def write(stream) -> None:
        writer = csv.DictWriter(stream, columns, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({key: _cell(row[key]) for key in columns})

    return write_atomically(path, write, newline="")


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as an aligned text table (what the command prints)."""
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
