"""Early stopping: end a run when a metric has stopped improving (Lightning's and Keras's ``EarlyStopping``).

The rule of an improvement is the plateau's (:func:`schedulers.core.plateau.improves`, with ``min_delta`` an
absolute threshold), so an :class:`EarlyStopping` and a :class:`~schedulers.PlateauScheduler` on the same
metric agree on which evaluations improved (docs/plateau.md).
"""

from __future__ import annotations

import math
from typing import Any

from schedulers.core.plateau import improves
from schedulers.core.schedule_arguments import choice_argument, integer_argument, number_argument
from trainer.callbacks import Callback
from trainer.evaluation import check_monitor

__all__ = ["EarlyStopping"]


class EarlyStopping(Callback):
    """Stop the run after ``patience`` evaluations in a row without an improvement of ``monitor``.

    An evaluation improves when its value beats the best so far by more than ``min_delta`` (``mode="min"``:
    :math:`v < b - \\delta`; ``"max"``: :math:`v > b + \\delta`). After ``patience`` evaluations that do not,
    the run ends after the current batch: the trainer saves its final checkpoint (with ``save_folder``), calls
    ``on_fit_end`` and says why in one line. The counters are in every checkpoint, so a resumed run stops
    where the uninterrupted one would; resuming the run it ended trains nothing more.

    Args:
        monitor: The metric (``"eval/loss"``).
        patience: Evaluations without improvement before the run stops (an int >= 1).
        min_delta: The least change that counts as an improvement (>= 0).
        mode: ``"min"`` (lower is better) or ``"max"``.

    Returns:
        The callback: pass it in the trainer's ``callbacks``.

    Raises:
        ValueError: A bad argument, naming it; at the trainer's construction, a ``monitor`` the run never logs
            or a run without evaluations.

    Example:
        >>> import torch
        >>> from trainer import EarlyStopping, Trainer
        >>> model = torch.nn.Linear(1, 1)
        >>> items = [(torch.ones(4, 1), torch.ones(4, 1))]
        >>> stopper = EarlyStopping(patience=2, min_delta=10.0)  # nothing improves by 10: stop at the 3rd
        >>> trainer = Trainer(model, items, "20ba", torch.optim.SGD(model.parameters(), lr=0.0),
        ...                   loss_fn=torch.nn.functional.mse_loss, eval_dataloader=items, eval_interval="2ba",
        ...                   callbacks=[stopper], progress_bar=False)
        >>> trainer.fit()
        >>> str(trainer.state.timestamp.batch), stopper.stopped_at
        ('6ba', 6)
    """

    def __init__(
        self, monitor: str = "eval/loss", patience: int = 3, min_delta: float = 0.0, mode: str = "min"
    ) -> None:
        if not isinstance(monitor, str) or not monitor:
            raise ValueError(f"monitor={monitor!r} must be the name of a metric the run logs, such as 'eval/loss'")
        self.monitor = monitor
        self.patience = integer_argument("patience", patience, low=1)
        self.min_delta = number_argument("min_delta", min_delta, low=0.0)
        self.mode = choice_argument("mode", mode, ("min", "max"))
        self.best = math.inf if mode == "min" else -math.inf
        self.wait = 0
        self.stopped_at: int | None = None  # the batch the run stopped at

    def check(self, eval_interval: Any) -> None:
        """The trainer's check at construction: the run evaluates, and logs :attr:`monitor`.

        Args:
            eval_interval: The trainer's evaluation interval (None: the run never evaluates).

        Raises:
            ValueError: the run never evaluates (naming the setting to give), or never logs :attr:`monitor`
                (naming the metrics it logs).
        """
        check_monitor("EarlyStopping", self.monitor, eval_interval)

    def reason(self) -> str:
        """Why the run stopped, in words.

        Returns:
            One line naming the metric, ``min_delta``, the patience and the best value seen.
        """
        return (
            f"early stopping: {self.monitor} has not improved by more than min_delta={self.min_delta:g} for "
            f"{self.patience} evaluation{'s' if self.patience != 1 else ''} (best {self.best:.6g})"
        )

    def on_fit_start(self, trainer: Any) -> None:
        if self.stopped_at is not None:  # a run this callback ended, resumed: it stays ended
            trainer.request_stop(self.reason())

    def observe(self, trainer: Any, metrics: dict) -> None:
        """One of the run's evaluations (each ``eval_interval``, and the end of the run; not the extra one that
        ends a ``fit(duration)`` call, so a run split over calls stops where the uninterrupted one does).

        Args:
            trainer: The trainer that evaluated (asked to stop, through ``request_stop``, when patience runs out).
            metrics: The evaluation's metrics, holding :attr:`monitor`.
        """
        value = float(metrics[self.monitor])
        if improves(value, self.best, self.mode, self.min_delta, "abs"):
            self.best, self.wait = value, 0
            return
        self.wait += 1
        if self.wait >= self.patience:
            self.stopped_at = trainer.state.timestamp.batch.value
            trainer.request_stop(self.reason())

    def state_dict(self) -> dict[str, Any]:
        """The counters (plain numbers), saved in every checkpoint.

        Returns:
            ``{"best", "wait", "stopped_at"}``.
        """
        return {"best": self.best, "wait": self.wait, "stopped_at": self.stopped_at}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` gave.

        Args:
            state: A dict :meth:`state_dict` returned.
        """
        self.best, self.wait = float(state["best"]), int(state["wait"])
        self.stopped_at = None if state.get("stopped_at") is None else int(state["stopped_at"])
