"""``TrainerState``: the trainer's clock, readable by every schedule (the scheduler protocol)."""

from __future__ import annotations

from schedulers import SchedulerState
from timeunits import Time

__all__ = ["TrainerState"]


class TrainerState(SchedulerState):
    """The scheduler protocol (``timestamp``, ``max_duration``, ``dataloader_len``) plus the run's settings.

    ``max_duration`` is the scaled length of the run (``scale_schedule_ratio`` applied, epochs becoming
    exact batches); ``unscaled_max_duration`` is what the user asked for. ``dataloader_len`` counts
    optimizer-step batches per epoch (after ``grad_accum``).
    """

    __slots__ = ("unscaled_max_duration", "ssr", "grad_accum")

    def __init__(
        self,
        max_duration: Time,
        dataloader_len: int | None,
        *,
        unscaled_max_duration: Time,
        ssr: float,
        grad_accum: int,
    ) -> None:
        super().__init__(max_duration, dataloader_len=dataloader_len)
        self.unscaled_max_duration = unscaled_max_duration
        self.ssr = ssr
        self.grad_accum = grad_accum

    def is_done(self) -> bool:
        """Whether the run has reached ``max_duration`` (in its own unit)."""
        return self.timestamp >= self.max_duration
