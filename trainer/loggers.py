"""Metric loggers (CSV, TensorBoard) and :class:`LoggerCallback`, which feeds them from the trainer.

A logger is anything with the three methods of :class:`Logger`:

- ``log_metrics(metrics, timestamp)``: a dict of metric name to float, stamped with a :class:`~timeunits.Timestamp`;
- ``log_hyperparameters(params)``: a dict describing the run (JSON-like values);
- ``close()``: flush and release files; safe to call twice.

:class:`CSVLogger` writes one row per ``log_metrics`` call (wide format) and the hyperparameters to a JSON
sidecar; :class:`TensorBoardLogger` writes event files (needs the optional ``tensorboard`` extra).
:class:`LoggerCallback` is the trainer callback that logs, on rank 0, the loss, every scheduled
hyperparameter of every param group, throughput, the gradient norm and evaluation metrics.

>>> import os, tempfile
>>> from timeunits import Timestamp
>>> folder = tempfile.mkdtemp()
>>> with CSVLogger(os.path.join(folder, "metrics.csv")) as logger:
...     logger.log_metrics({"train/loss": 0.5}, Timestamp(batch=1, sample=8))
...     logger.log_metrics({"train/loss": 0.25, "eval/loss": 0.75}, Timestamp(batch=2, sample=16))
>>> print(open(os.path.join(folder, "metrics.csv")).read(), end="")
batch,epoch,sample,token,train/loss,eval/loss
1,0,8,0,0.5,
2,0,16,0,0.25,0.75
>>> import shutil; shutil.rmtree(folder)
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from schedulers.core.schedule_arguments import integer_argument
from schedulers.tools.files import write_atomically
from timeunits import Time, Timestamp, TimeUnit
from trainer.callbacks import Callback
from trainer.records import RowFile, first_replaced_batch
from trainer.writable_paths import check_writable

__all__ = ["CSVLogger", "Logger", "LoggerCallback", "TensorBoardLogger"]

_COUNT_UNITS = (TimeUnit.BATCH, TimeUnit.EPOCH, TimeUnit.SAMPLE, TimeUnit.TOKEN)


@runtime_checkable
class Logger(Protocol):
    """What :class:`LoggerCallback` needs from a logger (structural: no base class required).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     isinstance(CSVLogger(f"{folder}/metrics.csv"), Logger)
    True
    """

    def log_metrics(self, metrics: dict[str, float], timestamp: Timestamp) -> None:
        """Record an evaluation's or a batch's metrics.

        Args:
            metrics: The values by name (``"loss/train"``, ``"lr/group0"``, ...).
            timestamp: The run's time they were taken at (its counts become the row's columns).
        """

    def log_hyperparameters(self, params: dict[str, Any]) -> None:
        """Record the run's hyperparameters.

        Args:
            params: The hyperparameters by name (what the config or the trainer's arguments set).
        """

    def close(self) -> None:
        """Flush and release resources; safe to call more than once."""


class _ContextManager:
    def __enter__(self):
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:  # pragma: no cover - overridden
        """Flush and release the logger's files; safe to call more than once (``with`` calls it at the end)."""


# ---------------------------------------------------------------------------------------------------------
# CSV
# ---------------------------------------------------------------------------------------------------------


class CSVLogger(_ContextManager):
    """Metrics to a CSV file, one row per ``log_metrics`` call; hyperparameters to a JSON sidecar.

    **Format (wide)**: the columns are ``batch, epoch, sample, token`` (the timestamp's totals), then one
    column per metric name in order of first appearance; a metric a row does not have is an empty cell.
    Floats are written with ``repr``, so they read back exactly (``nan`` and ``inf`` included).

    **New metric names**: rows are appended and flushed as they are logged, so the file is always a valid,
    complete CSV (a crash loses nothing already logged). When a call brings a metric name not seen before
    (typically the first evaluation), the file is rewritten once with the wider header and the earlier rows
    padded with empty cells: the rewrite goes to a temp file in the same folder, is fsynced and replaces
    the file with ``os.replace``, so readers see the old or the new file, never a mix. New names are rare
    (a few per run), so rewrites are too.

    **Hyperparameters** go to ``hparams_path`` (default: ``<stem>.hparams.json`` beside ``path``), rewritten
    atomically on each ``log_hyperparameters`` call with the union of everything logged so far (values that
    are not JSON become strings: a ``Time`` is written ``"10ep"``).

    **Resumed runs**: :class:`LoggerCallback` calls :meth:`resume` with the checkpoint's batch when a run
    starts after batch 0; the file keeps its rows up to that batch and the run appends after them, so a
    killed and resumed run writes the rows of an uninterrupted one (docs/resume.md). A run that starts at
    batch 0 replaces an existing file, or continues it with ``append=True``.

    The file is created at the first ``log_metrics`` call (so a logger built on every rank and used on rank 0
    only writes one file). Metric names must be non-empty str and cannot be one of the count columns.
    :meth:`flush` and ``close()`` put the rows on disk (``fsync``); logging again after ``close()`` appends to
    the same file.

    Args:
        path: The CSV file (not ``.json``).
        hparams_path: The JSON sidecar of the hyperparameters (None: ``<stem>.hparams.json`` beside ``path``).
        append: Whether a run that starts at batch 0 continues an existing file instead of replacing it.

    Returns:
        The logger, for :class:`LoggerCallback` (or a ``with`` block, which closes it).

    Raises:
        ValueError: ``path`` ends in ``.json``, ``hparams_path`` is ``path``, or either cannot be written.

    >>> import os, tempfile, torch
    >>> from trainer import LoggerCallback, Trainer
    >>> folder = tempfile.mkdtemp()
    >>> logger, model = CSVLogger(os.path.join(folder, "metrics.csv")), torch.nn.Linear(2, 1)
    >>> trainer = Trainer(model, [(torch.ones(4, 2), torch.zeros(4, 1))] * 2, "2ba",
    ...                   torch.optim.SGD(model.parameters(), lr=0.1), loss_fn=torch.nn.functional.mse_loss,
    ...                   callbacks=[LoggerCallback(logger)], progress_bar=False)
    >>> trainer.fit()
    >>> logger.columns[:6], logger.hyperparameters["max_duration"]
    (['batch', 'epoch', 'sample', 'token', 'train/loss', 'lr/group0'], '2ba')
    >>> [line.split(",")[:4] for line in open(logger.path).read().splitlines()[1:]]
    [['1', '0', '4', '0'], ['2', '1', '8', '0']]
    >>> import shutil; shutil.rmtree(folder)
    """

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        hparams_path: str | os.PathLike | None = None,
        append: bool = False,
    ) -> None:
        self.path = Path(path)
        if self.path.suffix == ".json":
            raise ValueError(f"CSVLogger path {str(self.path)!r} ends in .json; give the CSV file's path")
        self.hparams_path = (
            Path(hparams_path) if hparams_path is not None else self.path.with_name(self.path.stem + ".hparams.json")
        )
        if self.hparams_path == self.path:
            raise ValueError(f"hparams_path and path are the same file ({str(self.path)!r})")
        check_writable("CSVLogger path", self.path, folder=False)  # a bad place fails now, not at the first row
        check_writable("CSVLogger hparams_path", self.hparams_path, folder=False)
        self.append = bool(append)
        self._file = RowFile(self.path, append=self.append)
        self._hparams: dict[str, Any] = {}

    @property
    def columns(self) -> list[str]:
        """The CSV columns so far: the four counts, then the metric names in order of first appearance."""
        return self._file.columns

    # -- metrics ------------------------------------------------------------------------------------------
    def log_metrics(self, metrics: dict[str, float], timestamp: Timestamp) -> None:
        """Append one row: ``timestamp``'s four counts, then ``metrics`` (the file widened for a new name).

        Args:
            metrics: Each metric's name (a non-empty str, not a count column) to its number.
            timestamp: Where the run is; its batch, epoch, sample and token totals start the row.

        Raises:
            TypeError: ``metrics`` not a dict, or a value that is not a number.
            ValueError: A metric name that is empty, not a str, or a count column's.
        """
        values = _float_metrics(metrics)
        self._file.add([timestamp.count(unit) for unit in _COUNT_UNITS], values)
        self._file.flush(durable=False)

    def resume(self, batch: int) -> None:
        """The run resumes from the checkpoint at ``batch``: keep the rows up to it, then append (docs/resume.md).

        Args:
            batch: The checkpoint's batch count; rows with a larger ``batch`` go.

        Raises:
            ValueError: The existing file's header does not start with the count columns, or a row's batch is
                not a whole number.
        """
        self._file.resume(batch)

    # -- hyperparameters ------------------------------------------------------------------------------------
    def log_hyperparameters(self, params: dict[str, Any]) -> None:
        """Add ``params`` to the hyperparameters and rewrite the JSON sidecar (atomically) with all of them.

        Args:
            params: Names to values; a value that is not JSON is written as a string (a Time as ``"10ep"``).

        Raises:
            TypeError: ``params`` not a dict.
        """
        if not isinstance(params, dict):
            raise TypeError(f"log_hyperparameters needs a dict, got {type(params).__name__}")
        self._hparams.update({str(key): _jsonable(value) for key, value in params.items()})
        text = json.dumps(self._hparams, indent=2, sort_keys=True) + "\n"
        self.hparams_path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(self.hparams_path, lambda stream: stream.write(text))

    @property
    def hyperparameters(self) -> dict[str, Any]:
        """Everything logged with :meth:`log_hyperparameters` so far (as written to the sidecar)."""
        return dict(self._hparams)

    # -- closing ------------------------------------------------------------------------------------------
    def flush(self) -> None:
        """Put every row logged so far on disk (``fsync``)."""
        self._file.flush()

    def close(self) -> None:
        self._file.close()

    def __repr__(self) -> str:
        return f"CSVLogger({str(self.path)!r})"


def _float_metrics(metrics: dict[str, Any]) -> dict[str, float]:
    if not isinstance(metrics, dict):
        raise TypeError(f"log_metrics needs a dict of metric name to number, got {type(metrics).__name__}")
    values = {}
    for name, value in metrics.items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"metric names must be non-empty str, got {name!r}")
        try:
            values[name] = float(value)
        except (TypeError, ValueError, RuntimeError):
            raise TypeError(f"metric {name!r}={value!r} is not a number") from None
    return values


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Time):
        return str(value)
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    try:
        import torch

        if isinstance(value, torch.Tensor) and value.numel() == 1:
            return _jsonable(value.item())
    except ImportError:  # pragma: no cover - torch is a dependency
        pass
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        try:
            return _jsonable(value.item())
        except (TypeError, ValueError):
            pass
    if isinstance(value, type):
        return value.__name__
    return str(value)


# ---------------------------------------------------------------------------------------------------------
# TensorBoard
# ---------------------------------------------------------------------------------------------------------


def _summary_writer_class():
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError as error:
        raise ImportError(
            "TensorBoardLogger needs the optional 'tensorboard' extra: pip install 'cadence[tensorboard]' "
            f"(or pip install tensorboard); importing it failed with: {error}"
        ) from error
    return SummaryWriter


class TensorBoardLogger(_ContextManager):
    """Metrics as TensorBoard scalars in ``log_dir`` (needs the optional ``tensorboard`` extra).

    Each metric is a scalar whose step is the timestamp's batch count (``timestamp.batch``). Hyperparameters
    go to the HParams plugin (values that are not numbers, str or bool become strings) and, as JSON, to a text
    summary named ``hyperparameters``. ``torch.utils.tensorboard`` is imported when the logger is built (a clear
    ``ImportError`` naming the extra when tensorboard is missing); the event file is created at the first
    call that writes (so a logger built on every rank and used on rank 0 only makes one file). ``close()``
    flushes and closes the writer; logging again afterwards opens a new event file in the same folder.
    Extra keyword arguments go to ``SummaryWriter`` (``flush_secs``, ``max_queue``, ...).

    :meth:`flush` writes the queued events out (:class:`LoggerCallback` calls it before each checkpoint). A
    resumed run (:meth:`resume`, called by :class:`LoggerCallback`) opens its event file with
    ``SummaryWriter(purge_step=batch + 1)``: TensorBoard then hides the steps a killed attempt logged after
    the checkpoint, and the run's scalars read back as an uninterrupted run's (docs/resume.md). A fresh run
    replaces what it finds, as :class:`CSVLogger` replaces its file: when ``log_dir`` already holds event files
    (an attempt stopped before its first checkpoint, an earlier run), the logger's first event file is opened
    with ``purge_step=0``, so TensorBoard shows this run's steps alone (:func:`trainer.records.first_replaced_batch`).

    Args:
        log_dir: The folder of the event files.
        writer_kwargs: Passed to ``SummaryWriter`` (``flush_secs``, ``max_queue``, ...).

    Returns:
        The logger, for :class:`LoggerCallback` (or a ``with`` block, which closes it).

    Raises:
        ImportError: tensorboard is not installed (naming the extra to install).
        ValueError: ``log_dir`` cannot be written.

    >>> import os, tempfile
    >>> from timeunits import Timestamp
    >>> folder = tempfile.mkdtemp()
    >>> with TensorBoardLogger(folder) as logger:
    ...     logger.log_metrics({"train/loss": 0.5}, Timestamp(batch=1))
    ...     logger.log_hyperparameters({"max_duration": "2ba"})
    >>> [name.startswith("events.out.tfevents.") for name in os.listdir(folder)]
    [True]
    >>> import shutil; shutil.rmtree(folder)
    """

    def __init__(self, log_dir: str | os.PathLike, **writer_kwargs: Any) -> None:
        self.log_dir = Path(log_dir)
        check_writable("TensorBoardLogger log_dir", self.log_dir, folder=True)
        self._writer_class = _summary_writer_class()
        self.writer_kwargs = writer_kwargs
        self._writer = None
        # the first step the next event file purges: a fresh run's first file replaces what the folder shows
        self._purge_step: int | None = first_replaced_batch(0)

    @property
    def writer(self) -> Any:
        """The ``SummaryWriter`` (created on first use)."""
        if self._writer is None:
            kwargs = dict(self.writer_kwargs)
            purge_step, self._purge_step = self._purge_step, None
            if _after_every_event_file(self.log_dir) and purge_step is not None:
                kwargs["purge_step"] = purge_step
            self._writer = self._writer_class(log_dir=str(self.log_dir), **kwargs)
        return self._writer

    def resume(self, batch: int) -> None:
        """The run resumes from the checkpoint at ``batch``: the next event file purges the steps after it.

        Args:
            batch: The checkpoint's batch count.
        """
        self.close()
        self._purge_step = first_replaced_batch(batch)

    def flush(self) -> None:
        """Write every queued event to the event file."""
        if self._writer is not None:
            self._writer.flush()

    def log_metrics(self, metrics: dict[str, float], timestamp: Timestamp) -> None:
        """Add each metric as a scalar whose step is ``timestamp``'s batch count.

        Args:
            metrics: Each metric's name (a non-empty str) to its number.
            timestamp: Where the run is.

        Raises:
            TypeError: ``metrics`` not a dict, or a value that is not a number.
            ValueError: A metric name that is empty or not a str.
        """
        step = timestamp.count(TimeUnit.BATCH)
        writer = self.writer
        for name, value in _float_metrics(metrics).items():
            writer.add_scalar(name, value, global_step=step)

    def log_hyperparameters(self, params: dict[str, Any]) -> None:
        """Write ``params`` to the HParams plugin and, as JSON, to the text summary ``hyperparameters``.

        Args:
            params: Names to values (a value that is not a number, str or bool becomes a string).

        Raises:
            TypeError: ``params`` not a dict.
        """
        if not isinstance(params, dict):
            raise TypeError(f"log_hyperparameters needs a dict, got {type(params).__name__}")
        jsonable = {str(key): _jsonable(value) for key, value in params.items()}
        writer = self.writer
        writer.add_text("hyperparameters", "```\n" + json.dumps(jsonable, indent=2, sort_keys=True) + "\n```")
        flat = {
            key: value if isinstance(value, (bool, int, float, str)) else json.dumps(value, sort_keys=True)
            for key, value in jsonable.items()
            if value is not None
        }
        from torch.utils.tensorboard.summary import hparams

        file_writer = writer._get_file_writer() if hasattr(writer, "_get_file_writer") else writer.file_writer
        for summary in hparams(flat, {}):
            file_writer.add_summary(summary)

    def close(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.flush()
            writer.close()

    def __repr__(self) -> str:
        return f"TensorBoardLogger({str(self.log_dir)!r})"


def _after_every_event_file(log_dir: Path) -> bool:
    """Wait, if need be, for the second after the newest event file's in ``log_dir`` was created.

    Returns whether ``log_dir`` holds event files (when it holds none, a purge has nothing to hide).

    TensorBoard reads a folder's event files in the order of their names, which start with the second they
    were created in (``events.out.tfevents.<seconds>.<host>.<pid>.<n>``, ``n`` not zero-padded); a purge
    applies to the files read before it. Every new file must therefore sort after the folder's others: a
    resumed run's after the killed attempt's, even when it restarts within the same second, and a file
    opened after ``close()`` after the one with a purge.
    """
    import time as wall  # not the module's `time`, which the tests replace by a fake perf_counter

    names = [_EVENTS.match(path.name) for path in log_dir.glob("events.out.tfevents.*")]
    seconds = [int(match.group(1)) for match in names if match]
    if seconds:
        wall.sleep(max(0.0, max(seconds) + 1 - wall.time()))
    return bool(seconds)


_EVENTS = re.compile(r"events\.out\.tfevents\.(\d+)\.")


# ---------------------------------------------------------------------------------------------------------
# the callback
# ---------------------------------------------------------------------------------------------------------


def _is_rank_zero(trainer: Any) -> bool:
    flag = getattr(trainer, "is_rank_zero", True)
    return bool(flag() if callable(flag) else flag)


class LoggerCallback(Callback):
    """A trainer callback that sends the run's metrics to ``loggers`` (one logger or a list), on rank 0 only.

    Every ``every``-th batch (those whose batch count after the step is a multiple of ``every``; the last batch
    of the run, at ``max_duration``, is always logged, at fit end if not before) one ``log_metrics`` call carries:

    - ``train/loss``: the batch's loss, the float the trainer passes to ``on_batch_end``;
    - ``<key>/group<i>`` for every param group ``i`` and every key in ``keys`` (default: ``lr`` plus
      ``trainer.scheduled_keys``, e.g. ``weight_decay``): the value **that batch trained with**, read in
      ``on_batch_start`` after the schedulers set it (0-d tensors become floats);
    - ``throughput/samples_per_sec`` and, once tokens are counted, ``throughput/tokens_per_sec``: the samples
      (tokens) of the timestamp delta since the previous logged batch over the ``time.perf_counter`` time
      between the two batch ends (the first window starts at fit start; time spent in evaluation and
      checkpointing is left out);
    - ``train/grad_norm``: the pre-clip gradient norm, when the trainer exposes ``trainer.last_grad_norm``
      and it is not None.

    The row is stamped with the timestamp **after** the batch: the first batch is ``batch=1`` (TensorBoard's
    step is the number of optimizer steps taken; :class:`~trainer.callbacks.LRMonitor` stamps the same values
    ``batch=0``). Evaluation metrics are logged in ``on_eval`` as their own call, at the current timestamp.

    At fit start each logger gets ``log_hyperparameters`` with ``max_duration`` (the scaled run length),
    ``unscaled_max_duration``, ``ssr``, ``dataloader_len``, ``grad_accum``, ``optimizer`` (its class name),
    ``base_lrs`` (each group's ``initial_lr``, else ``lr``), ``scheduled_keys`` and the ``hyperparameters``
    given here; at fit end the loggers are closed. Other ranks call no logger at all.

    **Records that survive a stop** (docs/resume.md): before each checkpoint every logger that has a ``flush()``
    method is flushed, so a checkpoint never claims a row that is not on disk; when a run starts after batch 0
    (it resumed from the checkpoint at batch ``b``), every logger that has a ``resume(b)`` method is told first
    (:class:`CSVLogger` keeps its rows up to ``b``, :class:`TensorBoardLogger` purges the later steps). A fit
    that stops before ``max_duration`` (``fit(duration)``, SIGTERM) leaves an unlogged last batch unlogged,
    as the uninterrupted run does.

    Args:
        loggers: One logger or several (anything with ``log_metrics``, ``log_hyperparameters`` and ``close``).
        every: Log every ``every``-th batch (an int >= 1).
        keys: The param-group keys logged (a str or several); None: ``lr`` and the trainer's scheduled keys.
        hyperparameters: More hyperparameters to log at fit start, beside the run's own.

    Returns:
        The callback, for ``Trainer(callbacks=...)``.

    Raises:
        TypeError: A logger lacking one of the three methods (naming its index).
        ValueError: ``every`` not an integer >= 1.

    >>> import torch
    >>> from timeunits import Timestamp
    >>> from trainer import Trainer
    >>> class Rows:
    ...     def __init__(self):
    ...         self.rows = []
    ...     def log_metrics(self, metrics, timestamp):
    ...         self.rows.append((str(timestamp.batch), sorted(metrics)))
    ...     def log_hyperparameters(self, params):
    ...         pass
    ...     def close(self):
    ...         pass
    >>> rows, model = Rows(), torch.nn.Linear(2, 1)
    >>> trainer = Trainer(model, [(torch.ones(4, 2), torch.zeros(4, 1))] * 3, "3ba",
    ...                   torch.optim.SGD(model.parameters(), lr=0.1), loss_fn=torch.nn.functional.mse_loss,
    ...                   callbacks=[LoggerCallback(rows, every=2)], progress_bar=False)
    >>> trainer.fit()
    >>> [(batch, [name for name in names if not name.startswith("throughput")]) for batch, names in rows.rows]
    [('2ba', ['lr/group0', 'train/loss']), ('3ba', ['lr/group0', 'train/loss'])]
    """

    def __init__(
        self,
        loggers: Logger | Iterable[Logger],
        every: int = 1,
        *,
        keys: Iterable[str] | None = None,
        hyperparameters: dict[str, Any] | None = None,
    ) -> None:
        if isinstance(loggers, Logger) or not isinstance(loggers, Iterable):
            loggers = [loggers]
        self.loggers = list(loggers)
        for index, logger in enumerate(self.loggers):
            missing = [
                name
                for name in ("log_metrics", "log_hyperparameters", "close")
                if not callable(getattr(logger, name, None))
            ]
            if missing:
                raise TypeError(f"loggers[{index}] ({type(logger).__name__}) lacks {', '.join(missing)}")
        self.every = integer_argument("every", every, low=1)
        if isinstance(keys, str):
            keys = (keys,)
        self.keys = None if keys is None else tuple(keys)
        self.hyperparameters = dict(hyperparameters or {})
        self._active: bool | None = None  # rank 0? (known at fit start, or at an evaluation before it)
        self._keys: tuple[str, ...] = ()
        self._batch_values: dict[str, float] = {}
        self._pending: tuple | None = None  # the last batch, when it was not logged yet
        self._last_time = 0.0
        self._last_samples = 0
        self._last_tokens = 0

    # -- run boundaries ----------------------------------------------------------------------------------
    def on_fit_start(self, trainer: Any) -> None:
        self._active = _is_rank_zero(trainer)
        self._pending = None
        if not self._active:
            return
        start = trainer.state.timestamp.count(TimeUnit.BATCH)
        if start > 0:  # a resumed run: each file logger keeps what it logged up to the checkpoint
            for logger in self.loggers:
                resume = getattr(logger, "resume", None)
                if callable(resume):
                    resume(start)
        if self.keys is not None:
            self._keys = self.keys
        else:
            scheduled = tuple(getattr(trainer, "scheduled_keys", ()) or ())
            self._keys = ("lr",) + tuple(key for key in scheduled if key != "lr")
        params = self._run_hyperparameters(trainer)
        params.update(self.hyperparameters)
        for logger in self.loggers:
            logger.log_hyperparameters(dict(params))
        self._reset_clock(trainer)

    def _run_hyperparameters(self, trainer: Any) -> dict[str, Any]:
        state = trainer.state
        optimizer = trainer.optimizer
        groups = optimizer.param_groups
        params: dict[str, Any] = {
            "max_duration": str(state.max_duration),
            "unscaled_max_duration": str(getattr(state, "unscaled_max_duration", state.max_duration)),
            "ssr": float(getattr(state, "ssr", 1.0)),
            "dataloader_len": None if state.dataloader_len is None else int(state.dataloader_len),
            "grad_accum": int(getattr(state, "grad_accum", getattr(trainer, "grad_accum", 1))),
            "optimizer": type(optimizer).__name__,
            "base_lrs": [_float(group.get("initial_lr", group.get("lr"))) for group in groups],
            "scheduled_keys": list(getattr(trainer, "scheduled_keys", ()) or ()),
        }
        return params

    def on_fit_end(self, trainer: Any) -> None:
        if not self._active:
            return
        pending, self._pending = self._pending, None
        if pending is not None and getattr(trainer.state, "done", True):  # the run's last batch
            self._log_batch(trainer, *pending)
        self.close()

    def close(self) -> None:
        """Close every logger (called at fit end)."""
        for logger in self.loggers:
            logger.close()

    # -- per batch -----------------------------------------------------------------------------------------
    def on_batch_start(self, trainer: Any) -> None:
        if not self._active:
            return
        values = {}
        for index, group in enumerate(trainer.optimizer.param_groups):
            for key in self._keys:
                value = group.get(key)
                if value is not None:
                    values[f"{key}/group{index}"] = float(value)
        self._batch_values = values

    def on_batch_end(self, trainer: Any, loss: float) -> None:
        if not self._active:
            return
        now = time.perf_counter()
        timestamp = trainer.state.timestamp
        grad_norm = getattr(trainer, "last_grad_norm", None)
        if timestamp.count(TimeUnit.BATCH) % self.every == 0:
            self._pending = None
            self._log_batch(trainer, timestamp, loss, self._batch_values, grad_norm, now)
        else:
            self._pending = (timestamp, loss, self._batch_values, grad_norm, now)

    def _log_batch(self, trainer, timestamp: Timestamp, loss, values, grad_norm, now: float) -> None:
        metrics: dict[str, float] = {"train/loss": float(loss)}
        metrics.update(values)
        elapsed = now - self._last_time
        samples = timestamp.count(TimeUnit.SAMPLE)
        tokens = timestamp.count(TimeUnit.TOKEN)
        if elapsed > 0:
            metrics["throughput/samples_per_sec"] = (samples - self._last_samples) / elapsed
            if tokens > 0:
                metrics["throughput/tokens_per_sec"] = (tokens - self._last_tokens) / elapsed
        if grad_norm is not None:
            metrics["train/grad_norm"] = float(grad_norm)
        self._last_time, self._last_samples, self._last_tokens = now, samples, tokens
        for logger in self.loggers:
            logger.log_metrics(metrics, timestamp)

    def _reset_clock(self, trainer: Any) -> None:
        """Start the throughput window now, at the current counts (fit start, after eval and checkpoints)."""
        timestamp = trainer.state.timestamp
        self._last_samples = timestamp.count(TimeUnit.SAMPLE)
        self._last_tokens = timestamp.count(TimeUnit.TOKEN)
        self._last_time = time.perf_counter()

    # -- evaluation and checkpoints --------------------------------------------------------------------------
    def on_eval(self, trainer: Any, metrics: dict) -> None:
        if self._active is None:
            self._active = _is_rank_zero(trainer)
        if not self._active:
            return
        if metrics:
            values = {str(name): float(value) for name, value in metrics.items()}
            for logger in self.loggers:
                logger.log_metrics(values, trainer.state.timestamp)
        self._exclude_pause(trainer)

    def on_before_checkpoint(self, trainer: Any) -> None:
        if self._active:
            for logger in self.loggers:
                flush = getattr(logger, "flush", None)
                if callable(flush):
                    flush()

    def on_checkpoint(self, trainer: Any, path: str | os.PathLike) -> None:
        if self._active:
            self._exclude_pause(trainer)

    def _exclude_pause(self, trainer: Any) -> None:
        """Leave the time since the last batch ended (an evaluation, a checkpoint) out of the throughput window."""
        now = time.perf_counter()
        pending = self._pending
        if pending is None:  # the last batch was logged and started the window: restart it now
            self._reset_clock(trainer)
        else:  # batches not logged yet are in the window: shift its start by the pause and end the batch now
            self._last_time += now - pending[-1]
            self._pending = pending[:-1] + (now,)


def _float(value: Any) -> float | None:
    return None if value is None else float(value)
