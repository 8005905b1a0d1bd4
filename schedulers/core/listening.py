"""What hears a run's evaluations: one :class:`Evaluation` value, one :class:`EvaluationListener` protocol.

An evaluation is its metrics and the time it was taken at. Everything that listens (a schedule with a
plateau, through its compiled scheduler; torch's ``ReduceLROnPlateau``, through
:class:`ReduceLROnPlateauListener`; the trainer's ``EarlyStopping``; the callbacks' ``on_eval``) is an
:class:`EvaluationListener`: it says at the start what it needs (the metrics it reads, whether a run without
evaluations would leave it deaf), and :meth:`~EvaluationListener.hear` gets each evaluation, returning what it
decided in one line, or None. A door (Cadence's trainer, the Hugging Face and Lightning integrations, a plain
loop) delivers evaluations through this protocol only; it knows no listener's class (docs/plateau.md).

A schedule that listens (the plateau) is fed by its compiled scheduler, which finds the plateaus of its schedule
with :meth:`schedulers.core.plateau.Listening.of`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import attrs

from timeunits import Timestamp

__all__ = [
    "Decision",
    "Evaluation",
    "EvaluationListener",
    "ReduceLROnPlateauListener",
]


def _metrics(value: Mapping[str, Any]) -> Mapping[str, float]:
    return {str(name): float(metric) for name, metric in dict(value).items()}


@attrs.frozen
class Evaluation:
    """One evaluation of a run: its metrics and the time it was taken at.

    Args:
        metrics: Each metric's name to its value (``{"eval/loss": 0.31}``), as floats.
        timestamp: Where the run was when it evaluated.
        counts: Whether it is one of the run's evaluations, which a plateau and early stopping count (each
            ``eval_interval`` and the run's end); False for one asked for outside that rhythm (a user's
            ``trainer.evaluate()``, the one that ends a ``fit(duration)`` call), which only callbacks hear.

    Returns:
        The evaluation, a frozen value.

    >>> from timeunits import Timestamp
    >>> Evaluation({"eval/loss": 1}, Timestamp(batch=4)).metrics
    {'eval/loss': 1.0}
    """

    metrics: Mapping[str, float] = attrs.field(converter=_metrics)
    timestamp: Timestamp = attrs.field(factory=Timestamp)
    counts: bool = True


@attrs.frozen
class Decision:
    """What a listener decided on hearing an evaluation, in one line for the user.

    Args:
        line: The line (``"PlateauScheduler: lr x0.5 at 175ba ..."``).
        stops: Whether it ends the run (early stopping); the door stops after the current step.

    Returns:
        The decision, a frozen value.

    >>> Decision("early stopping: ...", stops=True).stops
    True
    """

    line: str
    stops: bool = False


@runtime_checkable
class EvaluationListener(Protocol):
    """Something that hears a run's evaluations; checked at the start by what it exposes.

    Attributes:
        listener_name: Who listens, as a message names it (``"schedulers[0] (PlateauScheduler)"``).

    Its properties :attr:`monitors` and :attr:`needs_evaluations` are what the trainer checks at the start.

    >>> from schedulers import PlateauScheduler, SchedulerState, compile_scheduler
    >>> import torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> isinstance(compile_scheduler(PlateauScheduler(), opt, SchedulerState("10ba")), EvaluationListener)
    True
    """

    listener_name: str

    @property
    def monitors(self) -> Sequence[str]:
        """The metric names it reads from each evaluation; empty when it reads whatever comes."""
        ...

    @property
    def needs_evaluations(self) -> bool:
        """Whether a run that never evaluates leaves it deaf (the trainer then refuses the run at start)."""
        ...

    def hear(self, evaluation: Evaluation) -> Decision | None:
        """Take one evaluation's metrics and act on them (reduce an lr, ask to stop).

        Args:
            evaluation: The evaluation just made: its metrics, timestamp and whether it counts.

        Returns:
            A :class:`Decision` (the line to log, and whether the run stops) when it acted, else None.
        """
        ...


class ReduceLROnPlateauListener:
    """torch's ``ReduceLROnPlateau`` as an :class:`EvaluationListener`: stepped with its metric at each
    evaluation that counts (as Lightning steps it with ``monitor``), never in time.

    Args:
        scheduler: The ``ReduceLROnPlateau``.
        monitor: The metric it is stepped with.
        listener_name: Who it is in messages (``"schedulers[1] (ReduceLROnPlateau)"``).

    Returns:
        A listener that steps ``scheduler`` with ``monitor``'s value at each evaluation that counts, and logs a
        decision when an lr changed.

    >>> import torch
    >>> from torch.optim.lr_scheduler import ReduceLROnPlateau
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> listener = ReduceLROnPlateauListener(ReduceLROnPlateau(opt, factor=0.5, patience=0))
    >>> [listener.hear(Evaluation({"eval/loss": 1.0})) is None for _ in range(2)], opt.param_groups[0]["lr"]
    ([True, False], 0.5)
    """

    needs_evaluations = True

    def __init__(self, scheduler: Any, monitor: str = "eval/loss", listener_name: str = "ReduceLROnPlateau") -> None:
        self.scheduler, self.monitor, self.listener_name = scheduler, monitor, listener_name

    @property
    def monitors(self) -> list[str]:
        """The one metric it is stepped with."""
        return [self.monitor]

    def hear(self, evaluation: Evaluation) -> Decision | None:
        """Step the scheduler with the monitored metric (an evaluation that does not count is ignored).

        Args:
            evaluation: The evaluation.

        Returns:
            A one-line decision when the lr of some group changed, else None.

        Raises:
            KeyError: The monitored metric is missing from the evaluation.
        """
        if not evaluation.counts:
            return None
        if self.monitor not in evaluation.metrics:
            metrics = sorted(evaluation.metrics)
            raise KeyError(f"monitor={self.monitor!r} is not among this evaluation's metrics {metrics}")
        before = [group["lr"] for group in self.scheduler.optimizer.param_groups]
        self.scheduler.step(evaluation.metrics[self.monitor])
        after = [group["lr"] for group in self.scheduler.optimizer.param_groups]
        if before == after:
            return None
        return Decision(
            f"{self.listener_name}: lr {before[0]:.6g} -> {after[0]:.6g} at {evaluation.timestamp.batch} "
            f"({self.monitor} best {self.scheduler.best:.6g})"
        )
