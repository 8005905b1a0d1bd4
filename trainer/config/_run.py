"""What a config's trainer adds to :class:`~trainer.Trainer` (``num_steps``, a loss history), as a mixin that
does not import ``trainer.trainer``, and the one-line summary of a run."""

from __future__ import annotations

from collections import deque
from typing import Any

from timeunits import Time, TimeUnit
from trainer.callbacks import Callback, as_callbacks


class LossHistory(Callback):
    """Keeps the first and last losses of a run (rank 0 sees the same values as the others)."""

    def __init__(self, window: int = 10) -> None:
        self.window = window
        self.count = 0
        self.first: list[float] = []
        self.last: deque[float] = deque(maxlen=window)
        self.eval_metrics: dict[str, float] | None = None
        self.start_batch: int | None = None

    def on_fit_start(self, trainer: Any) -> None:
        self.start_batch = trainer.state.timestamp.batch.value

    def on_batch_end(self, trainer: Any, loss: float) -> None:
        self.count += 1
        if len(self.first) < self.window:
            self.first.append(loss)
        self.last.append(loss)

    def on_eval(self, trainer: Any, metrics: dict) -> None:
        self.eval_metrics = dict(metrics)


class ConfiguredRun:
    """Mixed into a trainer class before it (``class ConfiguredTrainer(ConfiguredRun, Trainer)``).

    ``num_steps`` (``loop.num_steps``, ``--steps_this_run``) is how many optimizer steps one ``fit()`` takes at
    most, counted from the timestamp it starts at (after a resume); ``max_duration`` stays the horizon every
    schedule sees. ``config`` is the configuration it was built from, ``loss_history`` a :class:`LossHistory`.
    """

    def __init__(self, *args: Any, num_steps: int | None = None, config: dict | None = None, **kwargs: Any) -> None:
        self.num_steps = num_steps
        self.config = config
        self.loss_history = LossHistory()
        callbacks = as_callbacks(kwargs.pop("callbacks", ()))  # the rule Trainer's callbacks= follows
        super().__init__(*args, callbacks=[*callbacks, self.loss_history], **kwargs)

    def fit(self, duration: Any = None) -> None:
        """Train until ``max_duration``, or until this call has taken ``num_steps`` optimizer steps."""
        if duration is None and self.num_steps is not None:
            duration = Time(self.num_steps, TimeUnit.BATCH)
        super().fit(duration)  # type: ignore[misc]


_CONFIGURED: dict[type, type] = {}


def register_configured(base: type, configured: type) -> None:
    """``configured`` is the class :func:`configured_class` gives for ``base`` (``ConfiguredTrainer`` for
    ``Trainer``)."""
    _CONFIGURED[base] = configured


def configured_class(cls: type) -> type:
    """``cls`` with :class:`ConfiguredRun` mixed in (``cls`` itself when it has it)."""
    if issubclass(cls, ConfiguredRun):
        return cls
    if cls not in _CONFIGURED:
        namespace = {"__module__": cls.__module__, "__doc__": ConfiguredRun.__doc__}
        _CONFIGURED[cls] = type(f"Configured{cls.__name__}", (ConfiguredRun, cls), namespace)
    return _CONFIGURED[cls]


def run_summary(trainer: Any) -> str:
    """One line about a finished ``fit()``: the batches trained, the first and last losses, the last evaluation."""
    history = trainer.loss_history
    state = trainer.state
    end = state.timestamp
    start = history.start_batch if history.start_batch is not None else 0
    unit = state.max_duration.unit
    progress = f"{end.get(unit)} of {state.max_duration}" if unit is not TimeUnit.BATCH else f"of {state.max_duration}"
    parts = [f"trained batches {start}-{end.batch.value} ({history.count} this run) {progress}"]
    if history.count:
        first, last = history.first[0], history.last[-1]
        parts.append(f"loss {first:.4f} (first batch) -> {last:.4f} (last batch)")
        if history.count > 1:
            window = min(history.window, history.count)
            head = sum(history.first[:window]) / window
            tail = sum(list(history.last)[-window:]) / window
            parts.append(f"mean of the first/last {window}: {head:.4f} -> {tail:.4f}")
    if history.eval_metrics:
        parts.append(", ".join(f"{k} {v:.4f}" for k, v in history.eval_metrics.items()))
    return "; ".join(parts)
