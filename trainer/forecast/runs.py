"""Reading a run's loss curve and lr curve from its folder's ``metrics.csv`` (as ``cadence fit`` and ``cadence
sweep`` log it with a :class:`~trainer.CSVLogger`: one row per batch with ``train/loss`` and every scheduled
value, ``lr/group0``, ..., and one row per evaluation with ``eval/loss``).

A warmup-stable-decay branch of a sweep (``cadence sweep --branch-from-stable``) resumes the main run at its
decay start; run from the sweep's ``points.txt`` (a job array), its ``metrics.csv`` holds only its decay, and
it is read with the main run's rows up to there: those of the run beside it (a sibling folder) that starts at
batch 1 and reaches furthest. A sweep folder (folders with a ``metrics.csv`` each) names all its runs.

A row's ``batch`` is the batches trained when it was logged. The lr in the row of batch ``k`` is the lr batch
``k`` trained with (:math:`\\eta_k`); its ``train/loss`` was measured before that batch's update (after
``k - 1`` updates), an ``eval/loss`` after ``k`` updates. A batch logged twice (a resumed run that logged it
again) counts once, with its last row.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from pathlib import Path

import attrs
import torch

from trainer.forecast.errors import ForecastError
from trainer.records import read_rows
from trainer.sweep.folders import METRICS

__all__ = [
    "EVAL_LOSS",
    "LOSS_CHOICES",
    "TRAIN_LOSS",
    "RunCurve",
    "lr_columns",
    "metrics_path",
    "read_run",
    "run_folders",
]

TRAIN_LOSS = "train/loss"
EVAL_LOSS = "eval/loss"
LOSS_CHOICES = ("auto", "eval", "train")
#: with ``loss="auto"``, the eval loss is fitted when a run has at least this many evaluations
AUTO_EVAL_POINTS = 8
_LR_COLUMN = re.compile(r"lr/group(\d+)$")


@attrs.frozen
class RunCurve:
    """A logged run: the lr of every update, and the loss points to fit (each after ``updates[i]`` updates).

    Args:
        folder: The run folder (or the ``metrics.csv``) it was read from; its text is :attr:`name`.
        lrs: :math:`\\eta_1, \\dots, \\eta_n`, the lr of every update from the first (float64).
        updates: After how many updates each loss was measured (int64, each in ``1..n``).
        losses: The loss measured after ``updates[i]`` updates (float64, finite and > 0).
        loss_column: The CSV column the losses come from (``train/loss`` or ``eval/loss``).
        lr_column: The CSV column the lrs come from (``lr/group<i>``).
        counts: The tokens (else samples) trained after each batch, for the pictures' x axis; None when unknown.
        unit: What ``counts`` counts: ``"token"`` or ``"sample"``.
        samples_per_batch: The samples of a batch (the median over the run's batches, from the ``sample``
            column: what an update is); None when the log does not count samples.
        evaluations: How many ``eval/loss`` values the run logged (whichever loss is read).

    Returns:
        The curves a law is fitted to (:func:`read_run` builds it): frozen, its tensors on the CPU.

    >>> run = RunCurve(Path("runs/a"), torch.tensor([0.1, 0.1]), torch.tensor([1, 2]),
    ...                torch.tensor([3.0, 2.5], dtype=torch.float64), TRAIN_LOSS, "lr/group0")
    >>> run.name, run.updates.tolist(), run.unit
    ('runs/a', [1, 2], 'sample')
    """

    folder: Path
    lrs: torch.Tensor  # eta_1 .. eta_n (float64)
    updates: torch.Tensor  # int64, >= 1
    losses: torch.Tensor  # float64
    loss_column: str
    lr_column: str
    counts: torch.Tensor | None = None  # the tokens (else samples) trained after each batch, for pictures
    unit: str = "sample"
    samples_per_batch: float | None = None  # what an update is: another batch size is another law
    evaluations: int = 0  # eval/loss values logged: whether the eval loss is there to fit

    @property
    def name(self) -> str:
        """The run's name in messages and legends.

        Returns:
            The folder (or CSV path) it was read from, as given.
        """
        return str(self.folder)


def metrics_path(run: str | os.PathLike) -> Path:
    """The ``metrics.csv`` of a run folder (or the CSV itself when ``run`` names a file).

    Args:
        run: A run folder (a :class:`~trainer.CSVLogger` logged to it) or its CSV file.

    Returns:
        The path of the CSV to read: ``run/metrics.csv`` for a folder, else ``run`` itself.

    Raises:
        ForecastError: When there is no such file (a folder without a ``metrics.csv``, or a missing path).

    >>> import tempfile; folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / METRICS).write_text("batch\\n")
    >>> metrics_path(folder) == folder / METRICS
    True
    """
    path = Path(run)
    if path.is_dir():
        path = path / METRICS
    if not path.is_file():
        raise ForecastError(f"{run}: no {METRICS} (give a run folder that a CSVLogger logged to, or its CSV file)")
    return path


def run_folders(runs: Sequence[str | os.PathLike]) -> list[Path]:
    """The runs each of ``runs`` names: a run folder or its ``metrics.csv`` itself; a sweep folder (no
    ``metrics.csv`` of its own, folders with one inside) each of those, by name.

    Args:
        runs: Run folders, CSV files and sweep folders, in the order to read them.

    Returns:
        One path per run, in the order given; a sweep folder's runs sorted by folder name. A path that is neither
        is kept as given (reading it says what is wrong).

    >>> import tempfile; sweep = Path(tempfile.mkdtemp())
    >>> for point in ("b", "a"):
    ...     (sweep / point).mkdir(); _ = (sweep / point / METRICS).write_text("batch\\n")
    >>> [path.name for path in run_folders([sweep])]
    ['a', 'b']
    """
    found = []
    for run in runs:
        path = Path(run)
        inside = sorted(p.parent for p in path.glob(f"*/{METRICS}")) if path.is_dir() else []
        found += inside if inside and not (path / METRICS).is_file() else [path]
    return found


def lr_columns(header: list[str]) -> list[str]:
    """The ``lr/group<i>`` columns of a CSV header, by group number.

    Args:
        header: A ``metrics.csv``'s column names.

    Returns:
        The names of the lr columns, ordered by their group number (``lr/group2`` before ``lr/group10``); other
        columns are left out.

    >>> lr_columns(["batch", "lr/group10", "train/loss", "lr/group2"])
    ['lr/group2', 'lr/group10']
    """
    return sorted((c for c in header if _LR_COLUMN.match(c)), key=lambda c: int(_LR_COLUMN.match(c).group(1)))


def read_run(run: str | os.PathLike, *, loss: str = "auto", lr_column: str | None = None) -> RunCurve:
    """The lr and loss curves of ``run`` (a folder or its ``metrics.csv``).

    ``loss``: ``"eval"`` (``eval/loss``), ``"train"`` (``train/loss``) or ``"auto"`` (the eval loss when the run
    has at least 8 evaluations, else the training loss). ``lr_column``: default the first ``lr/group<i>``.
    A missing column, a gap in the batches or a loss that is not finite is a :class:`ForecastError`.

    Args:
        run: A run folder or its ``metrics.csv``; a sweep branch that starts at its decay is read with the rows
            before it of the main run beside it.
        loss: Which loss to fit: ``"eval"``, ``"train"`` or ``"auto"``.
        lr_column: The lr column to read; None for the first ``lr/group<i>``.

    Returns:
        The run's lr of every batch (``1..n``) and its loss points: a training loss of batch ``k`` counts after
        ``k - 1`` updates, an eval loss after ``k``; points before any lr was applied (zero area) are left out.

    Raises:
        ForecastError: When ``loss`` is not one of :data:`LOSS_CHOICES`, the CSV is missing or empty, it has no
            ``train/loss`` or lr column (or not ``lr_column``), a batch in ``1..n`` has no row, an lr is not a
            finite number >= 0, ``loss="eval"`` finds no eval loss, or a loss is not finite and > 0.

    >>> import tempfile; folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / METRICS).write_text(
    ...     "batch,sample,lr/group0,train/loss\\n1,8,0.1,4.0\\n2,16,0.1,3.0\\n3,24,0.05,2.5\\n")
    >>> run = read_run(folder)
    >>> run.lrs.tolist(), run.updates.tolist(), run.losses.tolist(), run.loss_column
    ([0.1, 0.1, 0.05], [1, 2], [3.0, 2.5], 'train/loss')
    """
    from schedulers.core.schedule_arguments import choice_problem

    problem = choice_problem(loss, LOSS_CHOICES)
    if problem is not None:
        raise ForecastError(f"loss={loss!r} {problem}")
    path = metrics_path(run)
    rows = read_rows(path)
    if not rows:
        raise ForecastError(f"{path}: no rows: the run logged nothing (yet)")
    rows = _main_rows(path, rows) + rows
    header = list(rows[0])
    column = _lr_column(path, header, lr_column)
    if TRAIN_LOSS not in header:
        raise ForecastError(f"{path}: no {TRAIN_LOSS} column: it is not the metrics of a training run")
    trained = {int(row["batch"]): row for row in rows if row.get(TRAIN_LOSS, "") != ""}
    lrs = _lrs(path, trained, column)
    points, loss_column = _loss_points(path, rows, trained, loss, lrs)
    return RunCurve(
        Path(run),
        lrs,
        torch.tensor([u for u, _ in points], dtype=torch.int64),
        torch.tensor([value for _, value in points], dtype=torch.float64),
        loss_column,
        column,
        *_counts(trained),
        _samples_per_batch(trained),
        sum(1 for row in rows if row.get(EVAL_LOSS, "") != ""),
    )


def _loss_points(
    path: Path, rows: list[dict[str, str]], trained: dict[int, dict[str, str]], loss: str, lrs: torch.Tensor
) -> tuple[list[tuple[int, float]], str]:
    """``(updates, loss)`` points of the loss ``loss`` chooses, and its column; points at zero area are left out."""
    evals = {int(row["batch"]): float(row[EVAL_LOSS]) for row in rows if row.get(EVAL_LOSS, "") != ""}
    if loss == "eval" or (loss == "auto" and len(evals) >= AUTO_EVAL_POINTS):
        points, loss_column = sorted(evals.items()), EVAL_LOSS
        if not points:
            raise ForecastError(f"{path}: no {EVAL_LOSS}: the run was not evaluated (fit the training loss instead)")
    else:  # a training loss was measured before its batch's update
        points = [(batch - 1, float(row[TRAIN_LOSS])) for batch, row in sorted(trained.items())]
        loss_column = TRAIN_LOSS
    area = torch.cumsum(lrs, 0).tolist()  # S_1 after each update: where it is 0 (nothing learnt yet) no law applies
    points = [(u, value) for u, value in points if 1 <= u <= len(lrs) and area[u - 1] > 0]
    for u, value in points:
        if not math.isfinite(value) or value <= 0:
            raise ForecastError(f"{path}: {loss_column} is {value} after {u} updates: a loss must be finite and > 0")
    return points, loss_column


def _first_batch(rows: list[dict[str, str]]) -> int | None:
    batches = [int(row["batch"]) for row in rows if row.get(TRAIN_LOSS, "") != "" and row.get("batch", "") != ""]
    return min(batches) if batches else None


def _main_rows(path: Path, rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """For a branch whose rows start after batch 1 (its decay start), the rows before it of the main run beside
    it (a sibling run that starts at batch 1 and reaches furthest); else none."""
    first = _first_batch(rows)
    if first is None or first <= 1:
        return []
    best: list[dict[str, str]] = []
    for other in sorted(path.parent.parent.glob(f"*/{METRICS}")):
        if other.resolve() == path.resolve():
            continue
        candidate = read_rows(other)
        batches = [int(row["batch"]) for row in candidate if row.get(TRAIN_LOSS, "") != ""]
        if batches and min(batches) == 1 and max(batches) >= first - 1 and len(candidate) > len(best):
            best = candidate
    return [row for row in best if int(row["batch"]) < first]


def _counts(trained: dict[int, dict[str, str]]) -> tuple[torch.Tensor, str]:
    """The tokens trained after each batch (the samples when the run counts no token), and which."""
    rows = [trained[batch] for batch in sorted(trained)]
    unit = "token" if any(row.get("token", "0") not in ("", "0") for row in rows) else "sample"
    return torch.tensor([float(row.get(unit) or 0) for row in rows], dtype=torch.float64), unit


def _samples_per_batch(trained: dict[int, dict[str, str]]) -> float | None:
    """The median of the samples each batch added (the ``sample`` column counts them after each), or None."""
    samples = [float(trained[batch].get("sample") or "nan") for batch in sorted(trained)]
    if not samples or not all(math.isfinite(value) for value in samples) or samples[-1] <= 0:
        return None
    return float(torch.tensor(samples, dtype=torch.float64).diff(prepend=torch.zeros(1)).median())


def _lr_column(path: Path, header: list[str], wanted: str | None) -> str:
    columns = lr_columns(header)
    if wanted is None:
        if not columns:
            raise ForecastError(
                f"{path}: no lr column (lr/group0, ...): the run's learning rate was not logged, so no law can be "
                "fitted to it (log with a CSVLogger during a run that schedules the lr)"
            )
        return columns[0]
    if wanted not in header:
        from schedulers.core.names import did_you_mean

        raise ForecastError(f"{path}: no column {wanted!r}{did_you_mean(wanted, columns)}")
    return wanted


def _lrs(path: Path, trained: dict[int, dict[str, str]], column: str) -> torch.Tensor:
    """The lr of batches 1..n (every one logged: a gap would shift every area after it)."""
    if not trained:
        raise ForecastError(f"{path}: no training row: the run trained no batch")
    last = max(trained)
    missing = [batch for batch in range(1, last + 1) if batch not in trained]
    if missing:
        raise ForecastError(
            f"{path}: {len(missing)} of batches 1..{last} have no row (the first: {missing[0]}): the lr curve has a "
            "gap (a sweep's branch is read with the main run beside it: give the sweep folder, main run included)"
        )
    values = []
    for batch in range(1, last + 1):
        cell = trained[batch].get(column, "")
        value = float(cell) if cell != "" else math.nan
        if not math.isfinite(value) or value < 0:
            raise ForecastError(f"{path}: {column} of batch {batch} is {cell!r}: expected a finite lr >= 0")
        values.append(value)
    if not any(values):
        raise ForecastError(
            f"{path}: {column} is 0 at every batch: not the lr of a training run (nothing trained, no law applies)"
        )
    return torch.tensor(values, dtype=torch.float64)
