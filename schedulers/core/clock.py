"""``Clock``: Cadence's time units in a plain PyTorch loop, without the trainer.

A :class:`Clock` is a :class:`~schedulers.SchedulerState` that your loop advances: one
:meth:`Clock.batch` per optimizer step (with the samples and tokens it consumed), one
:meth:`Clock.epoch` per pass over the data. Give it to :func:`~schedulers.compile_scheduler` and
call ``scheduler.step()`` after each ``clock.batch()``: batch ``k`` then trains with the schedule at
``k`` batches, as in Cadence's trainer and :func:`~schedulers.evaluate_run`.
"""

from __future__ import annotations

import warnings
from typing import Any

from schedulers.core.state import SchedulerState, as_dataloader_len, as_max_duration
from timeunits import Time, Timestamp

__all__ = ["Clock"]


class Clock(SchedulerState):
    """The time of a hand-written training loop: a :class:`~schedulers.SchedulerState` you advance.

    ``max_duration`` is the run's length (a Time or string in ``ep``, ``ba``, ``sp`` or ``tok``);
    ``dataloader_len`` the optimizer steps per epoch (needed for times in ``ep``, and to close epochs
    by itself). With ``dataloader_len`` set, the batch that completes an epoch closes it (as the trainer
    does), and a following :meth:`epoch` call is a no-op, so the loop below is right with or without it.

    >>> import torch
    >>> from schedulers import CosineAnnealingWithWarmupScheduler, compile_scheduler
    >>> from schedulers.core.clock import Clock
    >>> model = torch.nn.Linear(4, 1)
    >>> data = torch.utils.data.TensorDataset(torch.randn(40, 4), torch.randn(40, 1))
    >>> loader = torch.utils.data.DataLoader(data, batch_size=8)          # 5 batches per epoch
    >>> opt = torch.optim.SGD(model.parameters(), lr=0.1)
    >>> clock = Clock("2ep", dataloader_len=len(loader))
    >>> sched = compile_scheduler(CosineAnnealingWithWarmupScheduler(t_warmup="0.2dur"), opt, clock)
    >>> def train():                                             # a plain loop, one optimizer step a batch
    ...     lrs = []
    ...     while not clock.done:
    ...         for x, y in loader:
    ...             lrs.append(opt.param_groups[0]["lr"])      # the lr this batch trains with
    ...             torch.nn.functional.mse_loss(model(x), y).backward()
    ...             opt.step(); opt.zero_grad()
    ...             clock.batch(samples=len(x)); sched.step()  # time moves, then the schedule reads it
    ...         clock.epoch()
    ...     return lrs
    >>> lrs = train()
    >>> clock.epochs, clock.batches, clock.samples, [round(lr, 4) for lr in lrs[:4]]
    (2, 10, 80, [0.0, 0.05, 0.1, 0.0962])
    """

    __slots__ = ()

    def __init__(
        self,
        max_duration: Time | str,
        dataloader_len: int | Time | None = None,
        *,
        timestamp: Timestamp | None = None,
    ) -> None:
        super().__init__(max_duration, timestamp, dataloader_len)

    # -- advancing ------------------------------------------------------------------------------
    def batch(self, samples: int | Time = 0, tokens: int | Time = 0) -> Timestamp:
        """Count one optimizer step over ``samples`` samples and ``tokens`` tokens; return the new timestamp.

        With gradient accumulation, call it once per optimizer step with the micro-batches' summed counts.
        When ``dataloader_len`` is set and this batch completes the epoch, the epoch is closed too.
        """
        timestamp = self.timestamp.to_next_batch(samples, tokens)
        per_epoch = self._dataloader_len
        if per_epoch is not None and timestamp.batch_in_epoch.value >= per_epoch:
            timestamp = timestamp.to_next_epoch()
        self.timestamp = timestamp
        return timestamp

    def epoch(self) -> Timestamp:
        """Close the epoch in progress; return the new timestamp.

        A no-op when the epoch has no batch yet, e.g. because the batch that completed ``dataloader_len``
        batches already closed it: call it after every pass over the loader either way.
        """
        if self.timestamp.batch_in_epoch.value:
            self.timestamp = self.timestamp.to_next_epoch()
        return self.timestamp

    # -- reading --------------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        """True once the run has reached ``max_duration``, counted in max_duration's own unit."""
        return self.timestamp.count(self._max_duration.unit) >= self._max_duration.value

    @property
    def epochs(self) -> int:
        """Epochs completed."""
        return self.timestamp.epoch.value

    @property
    def batches(self) -> int:
        """Batches (optimizer steps) completed."""
        return self.timestamp.batch.value

    @property
    def samples(self) -> int:
        """Samples counted so far."""
        return self.timestamp.sample.value

    @property
    def tokens(self) -> int:
        """Tokens counted so far."""
        return self.timestamp.token.value

    @property
    def batch_in_epoch(self) -> int:
        """Batches completed in the epoch in progress."""
        return self.timestamp.batch_in_epoch.value

    # -- checkpointing --------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The clock as plain ints and strings (loads with ``torch.load(weights_only=True)``)."""
        return {
            "timestamp": self.timestamp.state_dict(),
            "max_duration": str(self._max_duration),
            "dataloader_len": self._dataloader_len,
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Continue from a saved clock: its timestamp is restored.

        This clock's own ``max_duration`` and ``dataloader_len`` are kept (the constructor's arguments
        win, as in the trainer); a difference from the saved ones is warned about.
        """
        if not isinstance(state_dict, dict) or "timestamp" not in state_dict:
            raise ValueError(
                "not a Clock state_dict: expected a dict with 'timestamp' (and 'max_duration', 'dataloader_len')"
            )
        timestamp = Timestamp.from_state_dict(state_dict["timestamp"])
        saved = {}
        if state_dict.get("max_duration") is not None:
            saved["max_duration"] = as_max_duration(state_dict["max_duration"])
        if "dataloader_len" in state_dict:
            saved["dataloader_len"] = as_dataloader_len(state_dict["dataloader_len"])
        current = {"max_duration": self._max_duration, "dataloader_len": self._dataloader_len}
        changed = [f"{name} {saved[name]} -> {current[name]}" for name in saved if saved[name] != current[name]]
        if changed:
            warnings.warn(
                f"Clock.load_state_dict: keeping this clock's {', '.join(changed)} (saved -> now)",
                UserWarning,
                stacklevel=2,
            )
        self.timestamp = timestamp

    def __repr__(self) -> str:
        return (
            f"Clock(max_duration={self._max_duration}, dataloader_len={self._dataloader_len}, "
            f"timestamp={self.timestamp!r})"
        )
