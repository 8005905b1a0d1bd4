"""What hears a run's evaluations: one :class:`Evaluation` value, one :class:`EvaluationListener` protocol.

An evaluation is its metrics and the time it was taken at. Everything that listens (a schedule with a
plateau, through its compiled scheduler; torch's ``ReduceLROnPlateau``, through
:class:`ReduceLROnPlateauListener`; the trainer's ``EarlyStopping``; the callbacks' ``on_eval``) is an
:class:`EvaluationListener`: it says at the start what it needs (the metrics it reads, whether a run without
evaluations would leave it deaf), and :meth:`~EvaluationListener.hear` gets each evaluation, returning what it
decided in one line, or None. A door (Cadence's trainer, the Hugging Face and Lightning integrations, a plain
loop) delivers evaluations through this protocol only; it knows no listener's class (docs/plateau.md).

A schedule that listens (the plateau) is fed by its compiled scheduler, which finds the plateaus of its schedule
with :meth:`schedulers.core.plateau.Plateaus.of`.

An evaluation is heard once: a listener that counts evaluations takes one per clock time (:class:`HeardOnce`), so
a second one at the same time, from any door (an ``observe()`` of the user's beside the Trainer or an
integration that already feeds it), is ignored with one warning naming both doors (docs/plateau.md).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import attrs

from timeunits import Timestamp

__all__ = [
    "Decision",
    "Evaluation",
    "EvaluationListener",
    "HeardOnce",
    "OBSERVED_BY_USER_CODE",
    "ReduceLROnPlateauListener",
]

#: the door of an evaluation told by hand (``scheduler.observe(metrics)``, ``EarlyStopping.observe``)
OBSERVED_BY_USER_CODE = "observe() called by user code"


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
        door: Who delivered it (``"the Trainer"``, ``"the Hugging Face integration"``, ``"the Lightning
            integration"``, :data:`OBSERVED_BY_USER_CODE`), as the warning about an evaluation fed twice names it.

    Returns:
        The evaluation, a frozen value.

    >>> from timeunits import Timestamp
    >>> Evaluation({"eval/loss": 1}, Timestamp(batch=4)).metrics
    {'eval/loss': 1.0}
    """

    metrics: Mapping[str, float] = attrs.field(converter=_metrics)
    timestamp: Timestamp = attrs.field(factory=Timestamp)
    counts: bool = True
    door: str = "user code"


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


#: Cadence's packages: a warning about an evaluation heard twice points at the first line outside them
_CADENCE_PACKAGES = ("schedulers", "trainer", "timeunits")


def _first_line_outside_cadence() -> int:
    """The ``stacklevel`` (for a ``warnings.warn`` in the caller) of the first frame outside Cadence's packages:
    the user's ``observe()`` call, or the framework's callback that fed the evaluation."""
    frame, level = sys._getframe(2), 2
    while frame.f_back is not None and str(frame.f_globals.get("__name__")).split(".")[0] in _CADENCE_PACKAGES:
        frame, level = frame.f_back, level + 1
    return level


#: the counts a clock time is told apart by, read as ints (no Time built): epochs, batches, samples, tokens
_TIME_COUNTERS = tuple(Timestamp.counter(unit) for unit in ("ep", "ba", "sp", "tok"))


class HeardOnce:
    """The one rule of a listener that counts evaluations: one evaluation per clock time.

    A listener (a compiled schedule with a plateau, :class:`ReduceLROnPlateauListener`, the trainer's
    ``EarlyStopping``) asks :meth:`admits` before it counts an evaluation. The first at a time is admitted; another
    at the same time (the same epochs, batches, samples and tokens), from whatever door, is not, and the first
    time that happens a warning names the listener, the time and both doors, and says that the Trainer and the
    Hugging Face and Lightning integrations feed evaluations themselves. Evaluations at different times are all
    admitted, however close. The time last admitted and its door are in :meth:`state_dict`, which the listener's
    checkpoint carries: after a resume, an evaluation at the checkpoint's time was counted before it, and is not
    admitted again (docs/plateau.md).

    Returns:
        A rule that has admitted nothing.

    >>> import warnings
    >>> heard = HeardOnce()
    >>> heard.admits(Timestamp(batch=3), "the Trainer", "EarlyStopping")
    True
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     heard.admits(Timestamp(batch=3), OBSERVED_BY_USER_CODE, "EarlyStopping")
    ...     heard.admits(Timestamp(batch=3), OBSERVED_BY_USER_CODE, "EarlyStopping")
    False
    False
    >>> heard.admits(Timestamp(batch=6), OBSERVED_BY_USER_CODE, "EarlyStopping"), len(caught)
    (True, 1)
    """

    __slots__ = ("time", "door", "warned")

    def __init__(self) -> None:
        self.time: tuple[int, ...] | None = None  # (epochs, batches, samples, tokens) of the last one admitted
        self.door = ""
        self.warned = False

    def admits(self, timestamp: Timestamp, door: str, listener_name: str) -> bool:
        """Whether the evaluation at ``timestamp`` is the first the listener hears at that time.

        Args:
            timestamp: The clock's time at the evaluation.
            door: Who fed it (:attr:`Evaluation.door`).
            listener_name: Who listens, for the warning.

        Returns:
            True for the first at its time (it is then the time last admitted); False for another, ignored,
            with a warning the first time (a ``UserWarning``).
        """
        time = tuple(count(timestamp) for count in _TIME_COUNTERS)
        if time != self.time:
            self.time, self.door = time, door
            return True
        if not self.warned:
            self.warned = True
            warnings.warn(
                f"{listener_name} was fed the evaluation at {time[1]}ba twice, first by {self.door}, then by "
                f"{door}: the second is ignored (one evaluation per clock time). Cadence's Trainer and its Hugging "
                "Face and Lightning integrations now feed every evaluation themselves: an observe() call of your "
                "own beside them can go (docs/plateau.md, 'Heard once')",
                UserWarning,
                stacklevel=_first_line_outside_cadence(),
            )
        return False

    def state_dict(self) -> dict[str, Any] | None:
        """The time last admitted and its door, for the listener's checkpoint.

        Returns:
            ``{"time": [epochs, batches, samples, tokens], "door": ...}`` (plain values), or None before any.
        """
        return None if self.time is None else {"time": list(self.time), "door": self.door}

    def load_state_dict(self, state: dict[str, Any] | None) -> None:
        """Restore what :meth:`state_dict` gave (None, or a checkpoint without it: nothing heard yet).

        Args:
            state: A :meth:`state_dict` result, or None.
        """
        if state is None:
            self.time, self.door = None, ""
            return
        self.time = tuple(int(count) for count in state["time"])
        self.door = f"{state['door']} before the checkpoint this run resumed from"


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
        """Take one evaluation's metrics and act on them (reduce an lr, ask to stop); a listener that counts
        evaluations takes one per clock time (:class:`HeardOnce`).

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
    >>> [listener.hear(Evaluation({"eval/loss": 1.0}, Timestamp(batch=b))) is None for b in (2, 4)]
    [True, False]
    >>> opt.param_groups[0]["lr"]
    0.5
    """

    needs_evaluations = True

    def __init__(self, scheduler: Any, monitor: str = "eval/loss", listener_name: str = "ReduceLROnPlateau") -> None:
        self.scheduler, self.monitor, self.listener_name = scheduler, monitor, listener_name
        self.heard = HeardOnce()  # torch's scheduler keeps no time: after a resume, it starts afresh

    @property
    def monitors(self) -> list[str]:
        """The one metric it is stepped with."""
        return [self.monitor]

    def hear(self, evaluation: Evaluation) -> Decision | None:
        """Step the scheduler with the monitored metric (an evaluation that does not count, or another at the time of
        the last one, is ignored: :class:`HeardOnce`).

        Args:
            evaluation: The evaluation.

        Returns:
            A one-line decision when the lr of some group changed, else None.

        Raises:
            KeyError: The monitored metric is missing from the evaluation.
        """
        if not evaluation.counts or not self.heard.admits(evaluation.timestamp, evaluation.door, self.listener_name):
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
