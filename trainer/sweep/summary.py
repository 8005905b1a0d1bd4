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

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from trainer.records import write_table
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
        The row by the :data:`COLUMNS`: its counts at the last training row, the batches this point trained
        itself (a branch: after its decay start), its last training and eval losses and its wall time.

    Raises:
        ValueError: Its ``metrics.csv`` has no training row (the point did not train).

    >>> import tempfile
    >>> from types import SimpleNamespace
    >>> from timeunits import Time
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = (Path(folder) / "metrics.csv").write_text("batch,epoch,sample,token,train/loss\\n10,1,320,0,1.5\\n")
    ...     row = point_row(SimpleNamespace(name="ssr-1", folder=Path(folder), budget=Time(10, "ba")))
    >>> row["batches"], row["trained_batches"], row["final_train_loss"], row["final_eval_loss"]
    (10, 10, 1.5, None)
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
    """What the sweep cost, against its largest run (see the module docstring).

    Args:
        rows: The points' summary rows (``batches``, ``trained_batches``).

    Returns:
        A line such as ``"3 budgets for 1.31× the largest run (independent runs: 1.75×)"``.

    >>> rows = [{"point": "ssr-0.5", "batches": 50, "trained_batches": 50}, {"point": "ssr-1", "batches": 100,
    ...          "trained_batches": 60}]
    >>> compute_line(rows)
    '2 budgets for 1.10× the largest run (independent runs: 1.50×)'
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
        Those column names; empty without rows.

    >>> added_columns([{"point": "a", "forecast_error": 0.01}])
    ('forecast_error',)
    """
    return tuple(key for key in rows[0] if key not in COLUMNS) if rows else ()


def write_summary(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Write ``summary.csv`` atomically with :func:`trainer.records.write_table`, one row per point.

    Args:
        path: The file.
        rows: The summary rows, each with the :data:`COLUMNS` and the same added columns (a forecast's).

    Returns:
        ``path``, as a Path.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = write_summary(Path(folder) / "summary.csv", [])
    ...     path.read_text().startswith("point,budget,batches")
    True
    """
    columns = COLUMNS + added_columns(rows)
    return write_table(path, columns, ([row[key] for key in columns] for row in rows))


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as an aligned text table (what ``cadence sweep`` prints).

    Args:
        rows: The summary rows.

    Returns:
        The table's lines, a header then one line per row, columns right-aligned.

    >>> print(table([]))
    point  batches  samples  tokens  trained_batches  final_train_loss  final_eval_loss
    """
    shown = ("point", "batches", "samples", "tokens", "trained_batches", "final_train_loss", "final_eval_loss")
    shown += tuple(key for key in added_columns(rows) if key != "forecast_of")
    cells = [list(shown)] + [[_short(row[key]) for key in shown] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(shown))]
    return "\n".join("  ".join(cell.rjust(width) for cell, width in zip(line, widths, strict=True)) for line in cells)


def _short(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.4f}" if isinstance(value, float) else str(value)
