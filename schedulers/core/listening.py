"""What hears a run's evaluations: one :class:`Evaluation` value, one :class:`EvaluationListener` protocol.

An evaluation is its metrics and the time it was taken at. Everything that listens (a schedule with a
plateau, through its compiled scheduler; torch's ``ReduceLROnPlateau``, through
:class:`ReduceLROnPlateauListener`; the trainer's ``EarlyStopping``; the callbacks' ``on_eval``) is an
:class:`EvaluationListener`: it says at the start what it needs (the metrics it reads, whether a run without
evaluations would leave it deaf), and :meth:`~EvaluationListener.hear` gets each evaluation, returning what it
decided in one line, or None. A door (Cadence's trainer, the Hugging Face and Lightning integrations, a plain
loop) delivers evaluations through this protocol only; it knows no listener's class (docs/plateau.md).

The core knows schedules that listen the same way: a module defining one registers a factory with
:func:`register_listening`, and the compiled scheduler asks :func:`listening_of` for the listening part of its
schedule, never importing the plateau by name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import attrs

from timeunits import Timestamp

__all__ = [
    "Decision",
    "Evaluation",
    "EvaluationListener",
    "ReduceLROnPlateauListener",
    "ScheduleListening",
    "listening_of",
    "register_listening",
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


class ScheduleListening(Protocol):
    """The listening part of one compiled schedule: what its scheduler feeds at each evaluation, and saves.

    A module that defines a schedule that listens returns one from the factory it registers with
    :func:`register_listening` (``schedulers.core.plateau.Listening`` is the plateaus').

    Attributes:
        monitors: The metric names it reads at each evaluation.

    >>> from schedulers import PlateauScheduler, SchedulerState
    >>> part = listening_of(PlateauScheduler(patience=0), SchedulerState("10ba"), 1.0, None)
    >>> part.observe(SchedulerState("10ba"), {"eval/loss": 1.0}), type(part.schedule()).__name__
    ([], 'PlateauScheduler')
    """

    monitors: list[str]

    def refresh(self, state: Any, ssr: float, run: Any) -> None:
        """Resolve again for another run (its length, ``ssr`` or batches per epoch changed).

        Args:
            state: The state the schedule reads.
            ssr: The scale schedule ratio.
            run: The :class:`~schedulers.core.run.Run`, or None to read it from ``state`` and ``ssr``.
        """
        ...

    def observe(self, state: Any, metrics: Mapping[str, float]) -> list[str]:
        """Feed one evaluation's metrics at ``state.timestamp``.

        Args:
            state: The state at the evaluation.
            metrics: The evaluation's metrics, by name.

        Returns:
            One phrase per change it made to the schedule (for the log); empty when it changed nothing.
        """
        ...

    def schedule(self) -> Any:
        """The schedule as it now runs.

        Returns:
            The given schedule with what was heard so far written into it (a plateau's reductions), for the
            scheduler to evaluate.
        """
        ...

    def state_dict(self) -> Any:
        """What a checkpoint saves of what was heard.

        Returns:
            Plain values (``torch.load(weights_only=True)`` reads them) that :meth:`load_state_dict` restores.
        """
        ...

    def load_state_dict(self, saved: Any) -> Any:
        """Restore what :meth:`state_dict` saved.

        Args:
            saved: A :meth:`state_dict` result.

        Returns:
            The schedule as it ran when saved (as :meth:`schedule` then gave it).
        """
        ...


_FACTORIES: list[Callable[..., ScheduleListening | None]] = []


def register_listening(factory: Callable[..., ScheduleListening | None]) -> Callable[..., ScheduleListening | None]:
    """Register ``factory(schedule, state, ssr, run)``: the listening part of ``schedule``, or None.

    Args:
        factory: Called by :func:`listening_of` for every schedule compiled.

    Returns:
        ``factory`` itself (usable as a decorator).

    >>> register_listening(lambda schedule, state, ssr, run: None) in _FACTORIES
    True
    >>> _ = _FACTORIES.pop()
    """
    if factory not in _FACTORIES:
        _FACTORIES.append(factory)
    return factory


def listening_of(schedule: Any, state: Any, ssr: float, run: Any) -> ScheduleListening | None:
    """The listening part of ``schedule`` for the run, from the first registered factory that finds one.

    Args:
        schedule: A schedule or any callable.
        state: The state it reads.
        ssr: The scale schedule ratio.
        run: The :class:`~schedulers.core.run.Run`, or None.

    Returns:
        Its :class:`ScheduleListening`, or None for a schedule that only follows time.

    >>> from schedulers import LinearScheduler, PlateauScheduler, SchedulerState
    >>> listening_of(LinearScheduler(), SchedulerState("10ba"), 1.0, None) is None
    True
    >>> listening_of(PlateauScheduler(), SchedulerState("10ba"), 1.0, None).monitors
    ['eval/loss']
    """
    for factory in _FACTORIES:
        found = factory(schedule, state, ssr, run)
        if found is not None:
            return found
    return None


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
