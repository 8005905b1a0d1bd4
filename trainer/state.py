"""``TrainerState``: the trainer's clock, readable by every schedule (the scheduler protocol)."""

from __future__ import annotations

from schedulers.core.clock import Clock
from timeunits import Time

__all__ = ["TrainerState"]


class TrainerState(Clock):
    """The trainer's :class:`~schedulers.core.clock.Clock` plus the run's settings.

    Time moves by the clock's one rule (a batch advances it, the batch that completes an epoch closes it,
    the run is done at ``max_duration``). ``max_duration`` is the scaled length of the run
    (``scale_schedule_ratio`` applied, epochs becoming exact batches); ``unscaled_max_duration`` is what the
    user asked for. ``dataloader_len`` counts optimizer-step batches per epoch (after ``grad_accum``).
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
        super().__init__(max_duration, dataloader_len)
        self.unscaled_max_duration = unscaled_max_duration
        self.ssr = ssr
        self.grad_accum = grad_accum
