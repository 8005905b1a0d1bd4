"""The trainer's one loop: a batch advances the clock, the batch that completes an epoch closes it, the
schedulers step, and the run stops at ``max_duration`` (or earlier: a ``fit(duration)``, a stop signal).

:class:`Loop` is written once for ``fit`` and ``preview``. It drives the run through a small public interface
and knows nothing else of the trainer: the clock (:class:`~schedulers.core.clock.Clock`), the schedulers
that step per batch and per epoch (anything with ``step()``), and a :class:`Mode` that gives it the batches
of the epoch, the work of one batch, the callbacks that see it and what follows a batch:
:class:`trainer.training.Training` (``fit``) and :class:`trainer.preview.Preview` (``preview``). The object
the callbacks receive (the trainer) is passed through untouched.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator, Sequence
from typing import Protocol

from schedulers.core.clock import Clock
from timeunits import Time, Timestamp
from trainer.callbacks import CallbackList

__all__ = ["Loop", "Mode", "Steps"]


class Steps(Protocol):
    """A scheduler as the loop sees it: something to step once time has moved.

    >>> import torch
    >>> optimizer = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0)
    >>> scheduler: Steps = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 0.5**step)
    >>> optimizer.step()
    >>> scheduler.step()
    >>> optimizer.param_groups[0]["lr"]
    0.5
    """

    def step(self) -> object:
        """Move to the clock's new time (a torch scheduler writes its groups' values for it).

        Returns:
            Whatever the scheduler returns; the loop ignores it.
        """
        ...


class Mode(Protocol):
    """What a batch does in one kind of run: train it (``fit``) or only count it (``preview``).

    :class:`~trainer.training.Training` and :class:`~trainer.preview.Preview` are the two modes:

    >>> from trainer.preview import Preview
    >>> from trainer.training import Training
    >>> members = ("run", "after_batch", "context")  # and ``batches``, which Training sets when built
    >>> all(callable(getattr(mode, name)) for mode in (Training, Preview) for name in members)
    True
    """

    #: The callbacks that see the batches (``on_batch_start``, ``on_batch_end``).
    hooks: CallbackList
    #: Whether anyone listens to ``on_batch_end`` (the loss is passed only then).
    wants_loss: bool

    def batches(self) -> Iterator[list]:
        """The rest of the current epoch, one list of loader items per optimizer step.

        Returns:
            An iterator of batches, each the ``grad_accum`` loader items of one optimizer step.
        """
        ...

    def run(self, items: list) -> tuple[float, int, int] | None:
        """One batch's work: its loss, samples and tokens, or None when no optimizer step was taken.

        Args:
            items: The loader items of one optimizer step.

        Returns:
            ``(loss, samples, tokens)`` of the batch, or None when the fp16 scaler skipped the step (no
            optimizer step, so no batch in time).
        """
        ...

    def after_batch(self, before: Timestamp, epoch_done: bool, finished: bool) -> None:
        """What follows a batch once time moved from ``before``: epoch-end hooks, evaluation, checkpoints.

        Args:
            before: The timestamp before the batch.
            epoch_done: The batch closed its epoch.
            finished: The run (or this ``fit`` call) reached its end with this batch.
        """
        ...

    def context(self) -> contextlib.AbstractContextManager:
        """The context the whole loop runs in.

        Returns:
            A context manager entered once around every batch of the call (the model's train or eval mode).
        """
        ...


class Loop:
    """The one loop over ``state``, stepping ``per_batch`` schedulers every batch and ``per_epoch`` ones when
    an epoch closes.

    Besides the clock, the loop keeps what a run's position needs and the clock does not count: where this
    call stops (:meth:`stop_after`), a stop signal received while running (:meth:`request_stop`), and the
    optimizer steps the fp16 scaler skipped in the current epoch (their data is used, so a resumed epoch skips
    them too; checkpoints keep this count), and where this run's steps of the epoch began in its order (a run
    resumed with steps of another size begins mid-epoch).

    An epoch of unknown length (a loader without ``len()``) is known to have ended only when the loader runs out,
    after its last batch's schedulers stepped: ``time_readers`` (the per-batch schedulers whose values are a function
    of the clock's time, not of their number of steps) are then stepped again, so that the next epoch's first batch
    trains with the values of its own time, as when the last batch closes the epoch (docs/stepping.md).

    Args:
        state: The run's clock; :meth:`run` advances it.
        per_batch: The schedulers stepped after every batch, in order.
        per_epoch: The schedulers stepped when an epoch closes, in order.
        time_readers: Those of ``per_batch`` that read the clock's time: stepped again when the loader runs out.

    Returns:
        A loop at ``state``'s position, stopping at ``max_duration``.

    Example:
        >>> import contextlib
        >>> from schedulers.core.clock import Clock
        >>> from trainer.callbacks import CallbackList
        >>> class Count:  # a mode: each batch is 4 samples, nothing trains
        ...     hooks, wants_loss = CallbackList(), False
        ...     def batches(self): return ([None] for _ in range(3))
        ...     def run(self, items): return 0.0, 4, 0
        ...     def after_batch(self, before, epoch_done, finished): pass
        ...     def context(self): return contextlib.nullcontext()
        >>> clock = Clock("5ba", dataloader_len=3)
        >>> Loop(clock, [], []).run(Count(), subject=None)
        >>> str(clock.timestamp.batch), str(clock.timestamp.epoch), str(clock.timestamp.sample)
        ('5ba', '1ep', '20sp')
    """

    # Not a value class but the loop itself; __slots__ because its attributes are read every batch
    # (docs/architecture.md, "One way to write a small value class").
    __slots__ = (
        "state",
        "per_batch",
        "per_epoch",
        "time_readers",
        "skipped_in_epoch",
        "resume_position",
        "epoch_start",
        "stop_signal",
        "end_reason",
        "_stop",
    )

    def __init__(
        self,
        state: Clock,
        per_batch: Sequence[Steps],
        per_epoch: Sequence[Steps],
        *,
        time_readers: Sequence[Steps] = (),
    ) -> None:
        self.state = state
        self.per_batch = per_batch
        self.per_epoch = per_epoch
        self.time_readers = time_readers
        self.skipped_in_epoch = 0  # optimizer steps the fp16 scaler skipped in this epoch (their data is used)
        self.resume_position: int | None = None  # where a resumed epoch goes on after a change of step size
        # (items of the epoch's order, steps of the epoch) where this run's steps of the epoch began: a checkpoint
        # counts its position in the order from there (trainer.data.epoch_position, docs/resume.md)
        self.epoch_start = (0, 0)
        self.stop_signal: signal.Signals | None = None  # a stop signal received while running
        self.end_reason: str | None = None  # why a callback ended the run early (early stopping)
        self._stop: tuple | None = None

    # -- where this call stops -----------------------------------------------------------------------
    def stop_after(self, more: Time | None) -> None:
        """Stop after ``more`` time from now (a whole Time in ``ba``, ``ep``, ``sp`` or ``tok``), or with None at
        ``max_duration`` only (which ``state.done`` checks: the one clock rule, docs/architecture.md).

        Args:
            more: The time this call trains, counted from the clock's position; None: to ``max_duration``.
        """
        self._stop = None
        if more is not None:
            count = Timestamp.counter(more.unit)
            self._stop = (count, count(self.state.timestamp) + more.value)

    def finished(self) -> bool:
        """Whether the run reached ``max_duration``, or this call its :meth:`stop_after` point.

        Returns:
            True once the clock is at ``max_duration`` or past the point :meth:`stop_after` set.
        """
        stop = self._stop
        return self.state.done or (stop is not None and stop[0](self.state.timestamp) >= stop[1])

    def request_stop(self, signum: signal.Signals) -> None:
        """A stop signal (SIGTERM, SIGHUP): end after the current batch (preemption).

        Args:
            signum: The signal received; kept in ``stop_signal``.
        """
        self.stop_signal = signum

    def request_end(self, reason: str) -> None:
        """End the run after the current batch, for ``reason`` (a callback's: early stopping).

        Args:
            reason: Why, kept in ``end_reason`` for the run's last message.
        """
        self.end_reason = reason

    # -- the loop ------------------------------------------------------------------------------------
    def run(self, mode: Mode, subject: object) -> None:
        """The one loop: ``mode`` decides what a batch does (train it, or only count it); the callbacks
        receive ``subject``.

        Runs until :meth:`finished`, a stop signal or a callback's :meth:`request_end`; an epoch the loader ends
        before ``dataloader_len`` batches closes when the loader runs out.

        Args:
            mode: What a batch does (:class:`Mode`).
            subject: What the callbacks receive (the trainer), passed through untouched.

        Raises:
            RuntimeError: The train dataloader yielded no batch in an epoch. What ``mode`` raises propagates.
        """
        state = self.state
        hooks, run, after_batch, wants_loss = mode.hooks, mode.run, mode.after_batch, mode.wants_loss
        with mode.context():
            while not self.finished() and not self.stop_signal and not self.end_reason:
                for items in mode.batches():
                    before = state.timestamp
                    hooks.on_batch_start(subject)
                    trained = run(items)
                    if trained is None:  # the fp16 scaler skipped the step: no optimizer step, so no batch in time
                        self.skipped_in_epoch += 1
                        continue
                    loss, samples, tokens = trained
                    epoch_done = self.advance(samples, tokens)
                    if wants_loss:
                        hooks.on_batch_end(subject, loss)
                    finished = self.finished()
                    after_batch(before, epoch_done, finished)
                    if finished or epoch_done or self.stop_signal or self.end_reason:
                        break
                else:  # the loader ran out before dataloader_len batches, or it has no length
                    self._loader_ran_out(mode)

    def _loader_ran_out(self, mode: Mode) -> None:
        before = self.state.timestamp
        if before.batch_in_epoch.value == 0:
            raise RuntimeError(f"the train dataloader yielded no batch in epoch {before.epoch}")
        self.state.epoch(skipped=self.skipped_in_epoch)  # steps the fp16 scaler skipped: an epoch whole, not short
        for scheduler in self.time_readers:  # they stepped reading the epoch before: the next batch is the new one's
            scheduler.step()
        self.close_epoch()
        mode.after_batch(before, True, self.finished())

    def advance(self, samples: int, tokens: int) -> bool:
        """One optimizer step of time: the clock moves (closing the epoch on its last batch), and the schedulers
        step (per-batch ones every time, per-epoch ones when the epoch closed).

        Args:
            samples: The batch's samples (summed over ranks).
            tokens: The batch's tokens (summed over ranks).

        Returns:
            True when this batch closed its epoch.

        >>> from schedulers.core.clock import Clock
        >>> loop = Loop(Clock("4ba", dataloader_len=2), [], [])
        >>> loop.advance(8, 0), loop.advance(8, 0), str(loop.state.timestamp.sample)
        (False, True, '16sp')
        """
        epoch_done = self.state.advance(samples, tokens)
        for scheduler in self.per_batch:
            scheduler.step()
        if epoch_done:
            self.close_epoch()
        return epoch_done

    def close_epoch(self) -> None:
        """What follows the clock closing an epoch: the per-epoch schedulers step."""
        self.skipped_in_epoch, self.epoch_start = 0, (0, 0)
        for scheduler in self.per_epoch:
            scheduler.step()
