r"""Reading another trainer's log: a CSV, a gzipped CSV or a TensorBoard event folder with a step, an lr and a
loss column (or tag), as Megatron, torchtitan, nanoGPT, the Hugging Face Trainer, Lightning or a W&B export
write them (docs/forecast.md, "Forecasting from another trainer's log"). Cadence's own run folders are read by
:mod:`trainer.forecast.runs`.

**Columns.** Each is named by a flag (``--step-column``, ``--lr-column``, ``--loss-column``) or found by itself:
the first name of :data:`COLUMN_NAMES` the log has (exactly, else ignoring case). In a TensorBoard folder the
lr and the loss are scalar tags and the step is each event's own.

**Steps.** A row of step :math:`s` gives the lr that step trains with and the loss measured at it, after
:math:`s` updates: the run's lr curve is :math:`\eta_{s+1} = \mathrm{lr}(s)` for updates :math:`1..n`, with
:math:`n` one past the last step whose lr is logged, and a loss logged at step :math:`s \ge 1` is a point after
:math:`s` updates. A row may hold only some of the columns (a W&B export): each column is read where it has a
value.

**Every k-th step.** A log that records every k-th step (or with gaps) is read: the lr of a step between two
logged ones is the schedule's (``--schedule``) when that schedule gives the logged lr at every logged step
(within 1% of the peak), else the last logged lr held, said in one warning; before the first logged step the
first logged lr is held.

**Not a training log.** No lr column, an lr that is 0 on every logged step (or not a finite number >= 0),
a loss that is not finite and > 0, a step that does not increase: one line (a :class:`ForecastError`).
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import os
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path

import attrs
import torch

from trainer.forecast.errors import ForecastError
from trainer.forecast.runs import RunCurve, lr_columns

__all__ = ["COLUMN_NAMES", "LogSeries", "is_cadence_csv", "log_curve", "read_log", "read_log_series", "is_log"]

#: the names each column (or TensorBoard tag) is found by when no flag names it, in order of preference
COLUMN_NAMES: dict[str, tuple[str, ...]] = {
    "step": ("step", "global_step", "_step", "trainer/global_step", "train/global_step", "iteration"),
    "lr": ("lr", "learning_rate", "lr-AdamW", "train/learning_rate", "train/lr", "learning-rate"),
    "loss": ("loss", "train/loss", "lm loss", "Metrics/loss", "train_loss", "lm-loss"),
}
#: the flag that names each column
FLAGS = {"step": "--step-column", "lr": "--lr-column", "loss": "--loss-column"}
#: the schedule fills the gaps of a log's lr when it gives every logged lr within this fraction of the peak
SCHEDULE_AGREES = 0.01
_EVENTS = "events.out.tfevents.*"


@attrs.frozen
class LogSeries:
    """The lr and loss columns of a log, each where it has a value, in the log's order.

    Args:
        path: The log (a CSV, a ``.csv.gz`` or a TensorBoard folder) they were read from.
        lr_column: The name of the lr column (or tag).
        loss_column: The name of the loss column (or tag).
        lr_steps: The steps the lr is logged at (int64, increasing).
        lrs: The lr logged at each of them (float64, finite, >= 0, not all 0).
        loss_steps: The steps the loss is logged at (int64, increasing).
        losses: The loss logged at each of them (float64, finite, > 0).

    Returns:
        The columns a law is fitted from (:func:`read_log_series` builds it; :func:`log_curve` makes a run of it).

    >>> series = LogSeries(Path("log.csv"), "lr", "loss", torch.tensor([0, 2]), torch.tensor([1.0, 0.5]),
    ...                    torch.tensor([1, 2]), torch.tensor([3.0, 2.5]))
    >>> series.peak_lr, series.steps
    (1.0, 3)
    """

    path: Path
    lr_column: str
    loss_column: str
    lr_steps: torch.Tensor
    lrs: torch.Tensor
    loss_steps: torch.Tensor
    losses: torch.Tensor

    @property
    def peak_lr(self) -> float:
        """The largest lr logged (the peak a schedule's multipliers are scaled by when no ``--lr`` is given)."""
        return float(self.lrs.max())

    @property
    def steps(self) -> int:
        """The updates of the run's lr curve: one past the last step whose lr is logged."""
        return int(self.lr_steps[-1]) + 1


def is_log(path: str | os.PathLike) -> bool:
    """Whether ``path`` is another trainer's log: a file that is not a Cadence ``metrics.csv`` nor a saved law
    (``.json``), or a folder with TensorBoard event files that is not a Cadence run or sweep (no ``metrics.csv``
    in it or in a folder inside).

    Args:
        path: A path given to ``cadence forecast``.

    Returns:
        True for a log read here (:func:`read_log`); False for a Cadence run or sweep folder, its ``metrics.csv``,
        a saved law or a path that does not exist.

    >>> import tempfile; folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "log.csv").write_text("step,lr,loss\\n0,0.1,3.0\\n")
    >>> is_log(folder / "log.csv"), is_log(folder)
    (True, False)
    """
    path = Path(path)
    if path.is_dir():
        cadence = (path / "metrics.csv").is_file() or next(path.glob("*/metrics.csv"), None) is not None  # a sweep
        return not cadence and next(path.rglob(_EVENTS), None) is not None
    return path.is_file() and path.suffix != ".json" and not is_cadence_csv(path)


def is_cadence_csv(path: str | os.PathLike) -> bool:
    """Whether a CSV is a Cadence ``metrics.csv`` (a ``batch`` and an ``lr/group<i>`` column).

    Args:
        path: A CSV file (gzipped or not).

    Returns:
        True when its header has ``batch`` and an ``lr/group<i>`` column; False otherwise, or when it cannot be
        read as text (reading it as a log says why).

    >>> import tempfile; path = Path(tempfile.mkdtemp()) / "metrics.csv"
    >>> _ = path.write_text("batch,sample,lr/group0,train/loss\\n")
    >>> is_cadence_csv(path)
    True
    """
    try:
        with _open_text(path) as file:
            header = next(csv.reader(file), [])
    except (OSError, EOFError, UnicodeDecodeError, csv.Error):
        return False
    return "batch" in header and bool(lr_columns(header))


def read_log(
    path: str | os.PathLike,
    *,
    step_column: str | None = None,
    lr_column: str | None = None,
    loss_column: str | None = None,
    schedule_lrs: torch.Tensor | None = None,
) -> RunCurve:
    """The lr and loss curves of another trainer's log (see the module docstring).

    Args:
        path: A CSV, a gzipped CSV or a TensorBoard event folder.
        step_column: The step column; None: found by :data:`COLUMN_NAMES` (a TensorBoard folder: each event's step).
        lr_column: The lr column or tag; None: found by :data:`COLUMN_NAMES`.
        loss_column: The loss column or tag; None: found by :data:`COLUMN_NAMES`.
        schedule_lrs: The lr of steps ``0, 1, ...`` of the schedule the run trained with, to fill the steps a log
            records no lr at; None (or a schedule that does not give the logged lrs): the last logged lr held.

    Returns:
        The :class:`RunCurve` (its ``counts`` the updates, ``unit`` ``"step"``).

    Raises:
        ForecastError: A log that cannot be read or is not a training log, in one line naming the file.

    >>> import tempfile; path = Path(tempfile.mkdtemp()) / "log.csv"
    >>> _ = path.write_text("_step,learning_rate,loss\\n0,0.1,4.0\\n1,0.1,3.0\\n2,0.05,2.5\\n")
    >>> run = read_log(path)
    >>> run.lrs.tolist(), run.updates.tolist(), run.losses.tolist(), run.loss_column, run.lr_column
    ([0.1, 0.1, 0.05], [1, 2], [3.0, 2.5], 'loss', 'learning_rate')
    """
    series = read_log_series(path, step_column=step_column, lr_column=lr_column, loss_column=loss_column)
    return log_curve(series, schedule_lrs)


def read_log_series(
    path: str | os.PathLike,
    *,
    step_column: str | None = None,
    lr_column: str | None = None,
    loss_column: str | None = None,
) -> LogSeries:
    """The lr and loss columns of a log, checked (arguments as :func:`read_log`'s).

    Args:
        path: A CSV, a gzipped CSV or a TensorBoard event folder.
        step_column: The step column (a CSV); None: found by name.
        lr_column: The lr column or tag; None: found by name.
        loss_column: The loss column or tag; None: found by name.

    Returns:
        The lr and the loss where each is logged, their steps checked to increase, the lrs to be finite, >= 0 and
        not all 0, the losses to be finite and > 0.

    Raises:
        ForecastError: As :func:`read_log`.

    >>> import tempfile; path = Path(tempfile.mkdtemp()) / "log.csv"
    >>> _ = path.write_text("step,lr,loss\\n0,0.1,4.0\\n2,0.1,3.0\\n1,0.1,2.5\\n")
    >>> read_log_series(path)
    Traceback (most recent call last):
    ...
    trainer.forecast.errors.ForecastError: ...log.csv: step goes back from 2 to 1 (row 4): not one training run's \
log (a resumed run logged twice? keep one of its parts)
    """
    path = Path(path)
    wanted = {"step": step_column, "lr": lr_column, "loss": loss_column}
    if path.is_dir():
        if step_column is not None:
            raise ForecastError(
                f"{path}: a TensorBoard folder's steps are its events': --step-column names a CSV column"
            )
        columns = _tensorboard_columns(path, wanted)
    elif path.is_file():
        columns = _csv_columns(path, wanted)
    else:
        raise ForecastError(f"{path}: no such file or folder (give a CSV log, a .csv.gz or a TensorBoard folder)")
    (lr_name, lr_steps, lrs), (loss_name, loss_steps, losses) = columns
    _check_lrs(path, lr_name, lr_steps, lrs)
    _check_losses(path, loss_name, loss_steps, losses)
    return LogSeries(path, lr_name, loss_name, lr_steps, lrs, loss_steps, losses)


def log_curve(series: LogSeries, schedule_lrs: torch.Tensor | None = None) -> RunCurve:
    """The run of a log's columns: the lr of every update (the gaps filled, see the module docstring) and the
    loss points after 1..n updates.

    Args:
        series: The log's columns.
        schedule_lrs: The lr of steps ``0, 1, ...`` of the schedule the run trained with; None: none.

    Returns:
        The :class:`RunCurve` (its ``counts`` the updates, ``unit`` ``"step"``).

    Raises:
        ForecastError: No loss is logged after an update with its lr logged.

    >>> series = LogSeries(Path("log.csv"), "lr", "loss", torch.tensor([0, 2]), torch.tensor([1.0, 0.5]),
    ...                    torch.tensor([1, 2]), torch.tensor([3.0, 2.5], dtype=torch.float64))
    >>> import warnings; warnings.simplefilter("ignore")
    >>> log_curve(series).lrs.tolist(), log_curve(series, torch.tensor([1.0, 0.75, 0.5])).lrs.tolist()
    ([1.0, 1.0, 0.5], [1.0, 0.75, 0.5])
    """
    n = series.steps
    lrs = _filled_lrs(series, schedule_lrs)
    keep = (series.loss_steps >= 1) & (series.loss_steps <= n)
    keep &= torch.cumsum(lrs, 0)[(series.loss_steps.clamp(1, n) - 1)] > 0  # before any lr is trained no law applies
    if not bool(keep.any()):
        raise ForecastError(
            f"{series.path}: no {series.loss_column} logged after a step with its {series.lr_column} logged "
            f"(the lr is logged up to step {n - 1}, the loss from step {int(series.loss_steps[0])})"
        )
    return RunCurve(
        series.path,
        lrs,
        series.loss_steps[keep].to(torch.int64),
        series.losses[keep].to(torch.float64),
        series.loss_column,
        series.lr_column,
        torch.arange(1, n + 1, dtype=torch.float64),
        "step",
    )


def _filled_lrs(series: LogSeries, schedule_lrs: torch.Tensor | None) -> torch.Tensor:
    """The lr of steps 0..n-1: the logged ones, and between them the schedule's (when it agrees) or the last held."""
    n = series.steps
    steps = torch.arange(n)
    last = (torch.searchsorted(series.lr_steps, steps, right=True) - 1).clamp(min=0)
    lrs = series.lrs.to(torch.float64)[last]
    logged = len(series.lr_steps)
    if logged == n:
        return lrs
    if schedule_lrs is not None and _agrees(series, schedule_lrs):
        filled = schedule_lrs[:n].to(torch.float64).clone()
        filled[series.lr_steps] = series.lrs.to(torch.float64)
        return filled
    every = _every(series.lr_steps)
    why = (
        "give --schedule with the run's own schedule to read it from there"
        if schedule_lrs is None
        else "the --schedule given does not give the logged lr at every logged step, so it is not used there"
    )
    warnings.warn(
        f"{series.path}: {series.lr_column} is logged at {logged} of the {n} steps ({every}): between logged steps "
        f"the last logged lr is held ({why})",
        stacklevel=3,
    )
    return lrs


def _agrees(series: LogSeries, schedule_lrs: torch.Tensor) -> bool:
    """Whether the schedule covers the log and gives its logged lrs (within :data:`SCHEDULE_AGREES` of the peak)."""
    if len(schedule_lrs) < series.steps:
        return False
    gap = (schedule_lrs.to(torch.float64)[series.lr_steps] - series.lrs.to(torch.float64)).abs().max()
    return float(gap) <= SCHEDULE_AGREES * series.peak_lr


def _every(steps: torch.Tensor) -> str:
    gaps = torch.diff(steps)
    if len(gaps) and bool((gaps == gaps[0]).all()):
        return f"every {int(gaps[0])}th step"
    return "with gaps"


# -- checks: a log that is not a training log is one line ------------------------------------------------------


def _check_steps(path: Path, name: str, steps: torch.Tensor, rows: torch.Tensor | None) -> None:
    """Steps that are >= 0 and increase; ``rows``: each step's CSV row (None: TensorBoard events, counted from 1)."""
    if len(steps) and int(steps.min()) < 0:
        first = int((steps < 0).nonzero()[0])
        raise ForecastError(f"{path}: step {int(steps[first])} of {name} is negative: a step counts updates from 0")
    back = (torch.diff(steps) <= 0).nonzero()
    if len(back):
        i = int(back[0]) + 1
        raise ForecastError(
            f"{path}: step goes back from {int(steps[i - 1])} to {int(steps[i])} ({_position(i, rows, name)}): "
            "not one training run's log (a resumed run logged twice? keep one of its parts)"
        )


def _position(i: int, rows: torch.Tensor | None, name: str) -> str:
    return f"event {i + 1} of {name}" if rows is None else f"row {int(rows[i])}"


def _check_lrs(path: Path, name: str, steps: torch.Tensor, lrs: torch.Tensor) -> None:
    if len(lrs) == 0:
        raise ForecastError(f"{path}: the lr column {name!r} has no value: not a training log with its learning rate")
    bad = (~torch.isfinite(lrs)) | (lrs < 0)
    if bool(bad.any()):
        i = int(bad.nonzero()[0])
        raise ForecastError(f"{path}: {name} at step {int(steps[i])} is {float(lrs[i])}: an lr must be finite and >= 0")
    if not bool((lrs > 0).any()):
        raise ForecastError(
            f"{path}: {name} is 0 at every logged step: not the lr a run trained with (name it with --lr-column)"
        )


def _check_losses(path: Path, name: str, steps: torch.Tensor, losses: torch.Tensor) -> None:
    if len(losses) == 0:
        raise ForecastError(f"{path}: the loss column {name!r} has no value: no loss to fit")
    bad = (~torch.isfinite(losses)) | (losses <= 0)
    if bool(bad.any()):
        i = int(bad.nonzero()[0])
        raise ForecastError(
            f"{path}: {name} at step {int(steps[i])} is {float(losses[i])}: a loss must be finite and > 0 "
            "(a run that diverged there is not one to forecast from)"
        )


def _found(path: Path, role: str, wanted: str | None, names: Sequence[str], kind: str = "column") -> str:
    """The column (or tag) of ``role``: the one named, else the first of :data:`COLUMN_NAMES` the log has."""
    from schedulers.core.names import did_you_mean

    has = ", ".join(names) or "none"
    if wanted is not None:
        if wanted in names:
            return wanted
        raise ForecastError(f"{path}: no {kind} {wanted!r}{did_you_mean(wanted, names)} (its {kind}s: {has})")
    for name in COLUMN_NAMES[role]:
        if name in names:
            return name
    folded = {name.casefold(): name for name in names}
    for name in COLUMN_NAMES[role]:
        if name.casefold() in folded:
            return folded[name.casefold()]
    looked = ", ".join(COLUMN_NAMES[role])
    what = "not a training log with its learning rate, or " if role == "lr" else ""
    raise ForecastError(
        f"{path}: no {role} {kind} (looked for {looked}; its {kind}s: {has}): {what}name it with {FLAGS[role]}"
    )


# -- CSV --------------------------------------------------------------------------------------------------------


def _open_text(path: str | os.PathLike) -> io.TextIOBase:
    """A CSV as text, gunzipped when it is gzipped (by its first bytes, whatever its name)."""
    with open(path, "rb") as file:
        gzipped = file.read(2) == b"\x1f\x8b"
    if gzipped:
        return gzip.open(path, "rt", newline="", encoding="utf-8")  # type: ignore[return-value]
    return open(path, newline="", encoding="utf-8")  # noqa: SIM115 - returned to a with


def _csv_columns(path: Path, wanted: dict[str, str | None]):
    """``(name, steps, values)`` of the lr and the loss of a CSV, each where its cell is not empty."""
    try:
        with _open_text(path) as file:
            reader = csv.reader(file)
            header = next(reader, None)
            if not header:
                raise ForecastError(f"{path}: empty: no header row (a CSV log has a step, an lr and a loss column)")
            names = [_found(path, role, wanted[role], header) for role in ("step", "lr", "loss")]
            index = [header.index(name) for name in names]
            cells = _cells(path, reader, index, names[0])
    except (OSError, EOFError, UnicodeDecodeError, csv.Error, gzip.BadGzipFile) as error:
        raise ForecastError(f"{path}: cannot be read as a CSV log: {error}") from None
    rows, steps, lrs, losses = cells
    columns = []
    for name, values in ((names[1], lrs), (names[2], losses)):
        values = torch.tensor(values, dtype=torch.float64)
        logged = ~torch.isnan(values)  # an empty cell: that row logged other columns
        _check_steps(path, name, steps[logged], rows[logged])
        columns.append((name, steps[logged], _values(values[logged])))
    return columns


#: a cell that holds "nan" (a logged value), marked apart from an empty cell (nan) while reading
NAN_LOGGED = -math.inf


def _present(values: torch.Tensor) -> torch.Tensor:
    return ~torch.isnan(values)


def _values(values: torch.Tensor) -> torch.Tensor:
    """The values, a logged nan restored (it was marked apart from an empty cell while reading)."""
    return torch.where(values == NAN_LOGGED, torch.full_like(values, math.nan), values)


def _cells(path: Path, reader: Iterator[list[str]], index: list[int], step_name: str):
    """The rows, steps, lrs and losses of a CSV's lines (an empty cell: nan; a logged nan: :data:`NAN_LOGGED`)."""
    rows, steps, lrs, losses = [], [], [], []
    step_at, lr_at, loss_at = index
    for number, line in enumerate(reader, start=2):
        lr, loss = _cell(line, lr_at), _cell(line, loss_at)
        if lr == "" and loss == "":
            continue
        step = _cell(line, step_at)
        try:
            value = float(step)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value == int(value)):
            raise ForecastError(f"{path}: {step_name} is {step!r} in row {number}: a step is a whole number")
        rows.append(number)
        steps.append(int(value))
        lrs.append(_number(path, lr, number))
        losses.append(_number(path, loss, number))
    return torch.tensor(rows), torch.tensor(steps, dtype=torch.int64), lrs, losses


def _cell(line: list[str], at: int) -> str:
    return line[at].strip() if at < len(line) else ""


def _number(path: Path, cell: str, row: int) -> float:
    if cell == "":
        return math.nan
    try:
        value = float(cell)
    except ValueError:
        raise ForecastError(f"{path}: {cell!r} in row {row} is not a number") from None
    return NAN_LOGGED if math.isnan(value) else value


# -- TensorBoard ------------------------------------------------------------------------------------------------


def _tensorboard_columns(path: Path, wanted: dict[str, str | None]):
    """``(tag, steps, values)`` of the lr and the loss of a TensorBoard folder's scalars."""
    try:
        from tensorboard.backend.event_processing import event_accumulator
    except ImportError:
        raise ForecastError(
            f"{path}: reading a TensorBoard folder needs tensorboard: pip install 'cadence[tensorboard]'"
        ) from None
    folders = sorted({file.parent for file in path.rglob(_EVENTS)})
    if not folders:
        raise ForecastError(f"{path}: no metrics.csv and no TensorBoard event file ({_EVENTS}) in it")
    if len(folders) > 1:
        names = ", ".join(str(folder) for folder in folders[:4])
        raise ForecastError(f"{path}: TensorBoard events of {len(folders)} runs ({names}): give one run's folder")
    accumulator = event_accumulator.EventAccumulator(str(folders[0]), size_guidance={event_accumulator.SCALARS: 0})
    accumulator.Reload()
    tags = accumulator.Tags().get(event_accumulator.SCALARS, [])
    columns = []
    for role in ("lr", "loss"):
        tag = _found(path, role, wanted[role], tags, kind="tag")
        events = accumulator.Scalars(tag)
        steps = torch.tensor([event.step for event in events], dtype=torch.int64)
        _check_steps(path, tag, steps, None)
        columns.append((tag, steps, torch.tensor([event.value for event in events], dtype=torch.float64)))
    return columns
