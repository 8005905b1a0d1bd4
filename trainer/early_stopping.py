"""Early stopping: end a run when a metric has stopped improving (Lightning's and Keras's ``EarlyStopping``).

The rule of an improvement is the plateau's (:func:`schedulers.core.plateau.improves`, with ``min_delta`` an
absolute threshold), so an :class:`EarlyStopping` and a :class:`~schedulers.PlateauScheduler` on the same
metric agree on which evaluations improved. It hears the run's evaluations through the one listener protocol
(:class:`schedulers.core.listening.EvaluationListener`) like every listener (docs/plateau.md).
"""

from __future__ import annotations

import math
from typing import Any

from schedulers.core.listening import OBSERVED_BY_USER_CODE, Decision, Evaluation, HeardOnce
from schedulers.core.plateau import evaluations_or_time, improves
from schedulers.core.schedule_arguments import choice_argument, number_argument
from timeunits import Time, Timestamp, TimeUnit
from trainer.callbacks import Callback
from trainer.evaluation import check_monitor

__all__ = ["EarlyStopping"]


class EarlyStopping(Callback):
    """Stop the run after ``patience`` without an improvement of ``monitor``.

    An evaluation improves when its value beats the best so far by more than ``min_delta`` (``mode="min"``:
    :math:`v < b - \\delta`; ``"max"``: :math:`v > b + \\delta`). With ``patience`` a count :math:`p`, the run
    stops at the :math:`p`-th evaluation in a row that does not improve (``0``: at the first, as in Keras and
    Lightning); with a time (``"2ep"``, ``"500ba"``, ``"0.1dur"``), at the first evaluation that does not
    improve once that much time has passed since the best one. The run ends after the current batch: the
    trainer saves its final checkpoint (with ``save_folder``), calls ``on_fit_end`` and says in one line the
    metric, its best value and when it was reached. The counters are in every checkpoint, so a resumed run
    stops where the uninterrupted one would; resuming the run it ended trains nothing more.

    Args:
        monitor: The metric (``"eval/loss"``).
        patience: Evaluations without improvement before the run stops (an int >= 0), or a time.
        min_delta: The least change that counts as an improvement (>= 0).
        mode: ``"min"`` (lower is better) or ``"max"``.

    Returns:
        The callback: pass it in the trainer's ``callbacks``.

    Raises:
        ValueError: A bad argument, in one line naming it; at the trainer's construction, a ``monitor`` the run
            never logs or a run without evaluations.

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

    listener_name = "EarlyStopping"
    needs_evaluations = True

    def __init__(
        self, monitor: str = "eval/loss", patience: int | Time | str = 3, min_delta: float = 0.0, mode: str = "min"
    ) -> None:
        if not isinstance(monitor, str) or not monitor:
            raise ValueError(f"monitor={monitor!r} must be the name of a metric the run logs, such as 'eval/loss'")
        self.monitor = monitor
        self.patience = evaluations_or_time("patience", patience)
        self.min_delta = number_argument("min_delta", min_delta, low=0.0)
        self.mode = choice_argument("mode", mode, ("min", "max"))
        self.best = math.inf if mode == "min" else -math.inf
        self.best_at: Timestamp | None = None  # when the best value was reached
        self.wait = 0
        self.stopped_at: int | None = None  # the batch the run stopped at
        self._length: Time | None = None  # the run's length, for a patience in dur
        self._heard = HeardOnce()  # one evaluation per clock time, from whichever door (docs/plateau.md)

    @property
    def monitors(self) -> list[str]:
        """The one metric it reads (:class:`~schedulers.core.listening.EvaluationListener`)."""
        return [self.monitor]

    def check(self, eval_interval: Any) -> None:
        """The check at construction: the run evaluates, and logs :attr:`monitor`.

        Args:
            eval_interval: The trainer's evaluation interval (None: the run never evaluates).

        Raises:
            ValueError: the run never evaluates (naming the setting to give), or never logs :attr:`monitor`
                (naming the metrics it logs).

        Example:
            >>> EarlyStopping().check("10ba")
        """
        check_monitor("EarlyStopping", self.monitor, eval_interval)

    def reason(self) -> str:
        """Why the run stopped, in one line: the metric, its best value and when it was reached.

        Returns:
            The line.

        Example:
            >>> EarlyStopping(patience=0).reason()
            'early stopping: eval/loss has not improved by more than min_delta=0 for 0 evaluations (best inf)'
        """
        patience = f"{self.patience}" if isinstance(self.patience, Time) else f"{self.patience} evaluations"
        if self.patience == 1:
            patience = "1 evaluation"
        when = "" if self.best_at is None else f" at {self.best_at.batch}"
        return (
            f"early stopping: {self.monitor} has not improved by more than min_delta={self.min_delta:g} for "
            f"{patience} (best {self.best:.6g}{when})"
        )

    def on_fit_start(self, trainer: Any) -> None:
        """Take the run's length (for a patience in ``dur``); a run this callback ended stays ended.

        Args:
            trainer: The trainer starting ``fit``.
        """
        self._length = trainer.state.max_duration
        if self.stopped_at is not None:  # a run this callback ended, resumed: it stays ended
            trainer.request_stop(self.reason())

    def hear(self, evaluation: Evaluation) -> Decision | None:
        """One evaluation (:class:`~schedulers.core.listening.EvaluationListener`): those that count are the run's
        (each ``eval_interval`` and its end; not the extra one that ends a ``fit(duration)`` call, so a run split
        over calls stops where the uninterrupted one does), each time once
        (:class:`~schedulers.core.listening.HeardOnce`: another at the same time is ignored, with a warning).

        Args:
            evaluation: The evaluation, holding :attr:`monitor`.

        Returns:
            A stopping :class:`~schedulers.core.listening.Decision` (the line of :meth:`reason`) when patience
            ran out, else None.

        Raises:
            KeyError: The evaluation lacks :attr:`monitor`.

        Example:
            >>> from schedulers.core.listening import Evaluation
            >>> stopper = EarlyStopping(patience=0)
            >>> [stopper.hear(Evaluation({"eval/loss": v}, Timestamp(batch=b))) for b, v in ((1, 2.0), (2, 3.0))]
            [None, Decision(line='early stopping: eval/loss has not improved by more than min_delta=0 for 0 \
evaluations (best 2 at 1ba)', stops=True)]
        """
        if not evaluation.counts or not self._heard.admits(evaluation.timestamp, evaluation.door, self.listener_name):
            return None
        if self.monitor not in evaluation.metrics:
            raise KeyError(f"EarlyStopping: monitor={self.monitor!r} is not among {sorted(evaluation.metrics)}")
        value = evaluation.metrics[self.monitor]
        if improves(value, self.best, self.mode, self.min_delta, "abs"):
            self.best, self.best_at, self.wait = value, evaluation.timestamp, 0
            return None
        self.wait += 1
        if not self._patience_ran_out(evaluation.timestamp):
            return None
        self.stopped_at = evaluation.timestamp.batch.value
        return Decision(self.reason(), stops=True)

    def _patience_ran_out(self, now: Timestamp) -> bool:
        if not isinstance(self.patience, Time):
            return self.wait >= self.patience
        limit, unit = self.patience.value, self.patience.unit
        if unit is TimeUnit.DURATION:  # a fraction of the run's length, in the length's unit
            if self._length is None:
                raise ValueError(f"EarlyStopping: patience={self.patience} needs the run's length: use it in a Trainer")
            limit, unit = limit * self._length.value, self._length.unit
        count = Timestamp.counter(unit)
        since = count(now) - (0 if self.best_at is None else count(self.best_at))
        return since >= limit

    def observe(self, trainer: Any, metrics: dict) -> None:
        """One of the run's evaluations, told by hand: :meth:`hear` at the trainer's time, and a stop requested
        from the trainer when patience ran out (in a trainer's ``callbacks``, the trainer feeds it already: a
        second one at the same time is ignored, with a warning).

        Args:
            trainer: The trainer that evaluated (asked to stop, through ``request_stop``, when patience runs out).
            metrics: The evaluation's metrics, holding :attr:`monitor`.

        Raises:
            KeyError: ``metrics`` lacks :attr:`monitor`.
        """
        decision = self.hear(Evaluation(metrics, trainer.state.timestamp, door=OBSERVED_BY_USER_CODE))
        if decision is not None and decision.stops:
            trainer.request_stop(decision.line)

    def state_dict(self) -> dict[str, Any]:
        """The counters (plain numbers), saved in every checkpoint.

        Returns:
            ``{"best", "wait", "stopped_at"}``, and ``"best_at"`` (the best evaluation's timestamp) and ``"heard"``
            (the time of the last evaluation heard, and its door) once there is one.

        Example:
            >>> EarlyStopping().state_dict()
            {'best': inf, 'wait': 0, 'stopped_at': None}
        """
        saved: dict[str, Any] = {"best": self.best, "wait": self.wait, "stopped_at": self.stopped_at}
        if self.best_at is not None:
            saved["best_at"] = self.best_at.state_dict()
        if (heard := self._heard.state_dict()) is not None:
            saved["heard"] = heard
        return saved

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` gave.

        Args:
            state: A dict :meth:`state_dict` returned.
        """
        self.best, self.wait = float(state["best"]), int(state["wait"])
        self.stopped_at = None if state.get("stopped_at") is None else int(state["stopped_at"])
        best_at = state.get("best_at")
        self.best_at = None if best_at is None else Timestamp.from_state_dict(best_at)
        self._heard.load_state_dict(state.get("heard"))
