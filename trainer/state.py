"""``TrainerState``: the trainer's clock, readable by every schedule (the scheduler protocol)."""

from __future__ import annotations

from schedulers.core.clock import Clock
from schedulers.core.run import Run
from timeunits import Time

__all__ = ["TrainerState"]


class TrainerState(Clock):
    """The trainer's :class:`~schedulers.core.clock.Clock` of its :class:`~schedulers.core.run.Run`.

    Time moves by the clock's one rule (a batch advances it, the batch that completes an epoch closes it,
    the run is done at ``max_duration``). ``max_duration`` is the length the run trains (``run.length``:
    ``scale_schedule_ratio`` applied, epochs becoming exact batches), as every schedule reads it in the
    schedule-call protocol; ``run`` holds the rest, once: ``run.max_duration`` (what the user asked for),
    ``run.ssr``, ``run.dataloader_len`` (optimizer-step batches per epoch, after ``grad_accum``).

    Args:
        run: The run the trainer was given.
        grad_accum: Loader items per optimizer step.

    Returns:
        A clock at the run's start (batch 0), its ``max_duration`` the length the run trains.

    >>> state = TrainerState(Run("10ep", 50, scale_schedule_ratio=0.5), grad_accum=1)
    >>> state.max_duration, state.unscaled_max_duration, state.ssr
    (Time(250, TimeUnit.BATCH), Time(10, TimeUnit.EPOCH), 0.5)
    """

    # Hand-written __slots__ like SchedulerState's: read and moved every batch (docs/architecture.md).
    __slots__ = ("run", "grad_accum")

    def __init__(self, run: Run, *, grad_accum: int) -> None:
        super().__init__(run.length, run.dataloader_len)
        self.run = run
        self.grad_accum = grad_accum

    @property
    def unscaled_max_duration(self) -> Time:
        """The run's length as the user wrote it (``run.max_duration``)."""
        return self.run.max_duration

    @property
    def ssr(self) -> float:
        """The scale schedule ratio (``run.ssr``)."""
        return self.run.ssr
