"""The one clock, which is also the trainer's state: ``SchedulerState``, ``Clock`` and ``TrainerState``.

The one clock of Cadence: how a run's time moves, for the trainer, whole-run evaluation, Lightning and you.

The rule, written here once: **a batch (one optimizer step) advances time; the batch that completes an
epoch (``dataloader_len`` batches) closes it; the run is done once its count in max_duration's unit reaches
max_duration.** :class:`Clock` applies it one batch at a time (the trainer's state is a Clock; so is the
state of :func:`~schedulers.evaluate_run`'s stepped path); :func:`epochs_before` and :func:`batches_in_run`
are the same rule over a whole run at once (the vectorised timeline of :mod:`schedulers.core.evaluate`);
:func:`closes_epoch` is that rule as a test of one count (what :meth:`Clock.advance` asks at every batch).

A :class:`Clock` is a :class:`~schedulers.SchedulerState` that your loop advances: one
:meth:`Clock.batch` per optimizer step (with the samples and tokens it consumed), one
:meth:`Clock.epoch` per pass over the data. Give it to :func:`~schedulers.compile_scheduler` and
call ``scheduler.step()`` after each ``clock.batch()``: batch ``k`` then trains with the schedule at
``k`` batches, as in Cadence's trainer and :func:`~schedulers.evaluate_run`.

What a schedule reads (the :class:`StateLike` protocol) and ``SchedulerState``, a record of it for use
outside the trainer.

``TrainerState``: the trainer's clock, readable by every schedule (the scheduler protocol).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import attrs
import torch

from schedulers.core.run import Run, StateLike, as_dataloader_len, as_max_duration
from timeunits import Time, Timestamp, TimeUnit

__all__ = [
    "Clock",
    "EpochStartView",
    "after_batches",
    "batches_in_run",
    "closes_epoch",
    "elapsed_duration",
    "epoch_start",
    "epochs_before",
    "progress_measure",
    "SchedulerState",
    "short_epoch",
    "TrainerState",
]


class SchedulerState:
    """A small mutable record with what every schedule reads: the protocol the trainer's state also meets.

    ``max_duration`` is the length of the run (a Time or time string in ``ep``, ``ba``, ``sp`` or ``tok``,
    never ``dur``), ``timestamp`` where the run is now, and ``dataloader_len`` the batches per epoch
    (an int or a Time in ``ba``; needed only to turn epochs into batches).

    Args:
        max_duration: The length the run trains.
        timestamp: Where the run is (its start by default).
        dataloader_len: Batches per epoch, or None.

    Returns:
        The state; assign ``state.timestamp`` (or ``max_duration``, ``dataloader_len``) to move it.

    Raises:
        ValueError: A bad ``max_duration`` or ``dataloader_len``, naming it (also on assignment).

    >>> from schedulers import SchedulerState, CosineAnnealingScheduler
    >>> state = SchedulerState("100ba")
    >>> state.timestamp = state.timestamp.to_next_batch(samples=32)
    >>> round(CosineAnnealingScheduler()(state), 6)
    0.999753
    """

    # Hand-written __slots__, not attrs: a mutable state whose timestamp is set every batch, with checked
    # setters (docs/architecture.md, "One way to write a small value class").
    __slots__ = ("_max_duration", "timestamp", "_dataloader_len")

    def __init__(
        self,
        max_duration: Time | str,
        timestamp: Timestamp | None = None,
        dataloader_len: int | Time | None = None,
    ) -> None:
        self.max_duration = max_duration
        self.timestamp = Timestamp() if timestamp is None else timestamp
        self.dataloader_len = dataloader_len

    @property
    def max_duration(self) -> Time:
        """The length the run trains, a Time (ep, ba, sp or tok); set it as a Time or a string, checked."""
        return self._max_duration

    @max_duration.setter
    def max_duration(self, value: Time | str) -> None:
        self._max_duration = as_max_duration(value)

    @property
    def dataloader_len(self) -> int | None:
        """Batches per epoch, an int or None; set it as an int, a Time in ba, or None, checked."""
        return self._dataloader_len

    @dataloader_len.setter
    def dataloader_len(self, value: int | Time | None) -> None:
        self._dataloader_len = as_dataloader_len(value)

    def __repr__(self) -> str:
        return (
            f"SchedulerState(max_duration={self._max_duration}, timestamp={self.timestamp!r}, "
            f"dataloader_len={self._dataloader_len})"
        )


PerBatch = int | torch.Tensor | None


_BATCH_IN_EPOCH = Timestamp.counter(TimeUnit.BATCH, in_epoch=True)


def closes_epoch(batch_in_epoch: int, dataloader_len: int | None) -> bool:
    """Whether the batch that brought the epoch to ``batch_in_epoch`` batches completes it.

    .. math:: \\text{closes} \\iff L \\ne \\text{None} \\wedge b_{\\text{epoch}} \\ge L

    Without ``dataloader_len`` (``L``: a loader of unknown length) an epoch ends when the data runs out.

    Args:
        batch_in_epoch: Batches of the epoch so far, this one included.
        dataloader_len: Batches per epoch, or None.

    Returns:
        Whether this batch closes the epoch.

    >>> closes_epoch(5, 5), closes_epoch(4, 5), closes_epoch(9, None)
    (True, False, False)
    """
    return dataloader_len is not None and batch_in_epoch >= dataloader_len


def short_epoch(batch_in_epoch: int, dataloader_len: int | None) -> str | None:
    """What is wrong when a pass over the data closes an epoch after ``batch_in_epoch`` optimizer steps, or None.

    .. math:: \\text{short} \\iff L \\ne \\text{None} \\wedge 0 < b_{\\text{epoch}} < L

    The batch that completes an epoch closes it (:func:`closes_epoch`), so an epoch closed by hand
    (:meth:`Clock.epoch`) with fewer steps means the passes over the data are not ``L`` optimizer steps long:
    shorter (``dataloader_len=len(loader)`` with gradient accumulation, whose steps per pass are
    :math:`\\lceil \\text{len(loader)} / a \\rceil`), or longer (the clock closed an epoch at ``L`` and the rest
    of the pass is this short one). Every time in ``ep`` and every ``dur`` of a run in ``ep`` is then counted
    over epochs of the wrong length.

    Args:
        batch_in_epoch: Optimizer steps of the epoch being closed.
        dataloader_len: Batches (optimizer steps) per epoch the clock was told, or None.

    Returns:
        The problem in one line, naming ``dataloader_len`` and accumulation; None when the epoch is whole.

    >>> short_epoch(4, 4) is None, short_epoch(3, None) is None
    (True, True)
    >>> print(short_epoch(4, 7))
    an epoch closed after 4 optimizer steps (clock.batch() calls), but dataloader_len=7: ...
    """
    if dataloader_len is None or not 0 < batch_in_epoch < dataloader_len:
        return None
    return (
        f"an epoch closed after {batch_in_epoch} optimizer steps (clock.batch() calls), but "
        f"dataloader_len={dataloader_len}: dataloader_len is the optimizer steps per epoch, not the loader's "
        "batches; with gradient accumulation give dataloader_len=ceil(len(loader) / accumulation) "
        "(docs/migrating-torch.md), else every time in ep is counted over epochs of the wrong length"
    )


def epochs_before(batches: torch.Tensor, dataloader_len: int) -> torch.Tensor:
    """The epochs closed after ``batches`` batches (any tensor of counts): :math:`\\lfloor b / L \\rfloor`.

    The vectorised form of :func:`closes_epoch`: epoch ``e`` closes with batch ``(e + 1)·L``.

    Args:
        batches: Batch counts (a tensor).
        dataloader_len: Batches per epoch.

    Returns:
        The closed epochs, a tensor like ``batches``.

    >>> epochs_before(torch.arange(6.0), 2).tolist()
    [0.0, 0.0, 1.0, 1.0, 2.0, 2.0]
    """
    return torch.floor(batches / dataloader_len)


def progress_measure(max_duration: Time, dataloader_len: int | None) -> tuple[TimeUnit, int]:
    """How far through its run a count is: ``(unit, whole)`` with ``dur = count(unit) / whole``.

    .. math:: \\text{dur} = c_u / D \\;\\text{(a run of } D \\text{ in sp, tok or ba)}, \\qquad
              \\text{dur} = b / (E L) \\;\\text{(a run of } E \\text{ epochs of } L \\text{ batches)}

    Progress is counted in max_duration's own unit, never in batches of a run in samples or tokens (whose
    batches vary). A run in epochs with a known ``dataloader_len`` counts batches out of ``E·L``, so progress
    moves every batch, as a ``dur`` time resolves (``0.5dur`` of ``10ep`` is ``5·L`` batches); without it,
    whole epochs out of ``E``.

    Args:
        max_duration: The length the run trains.
        dataloader_len: Batches per epoch, or None.

    Returns:
        ``(unit, whole)``: the unit progress is counted in and the run's length in it.

    >>> progress_measure(Time(300_000, "tok"), 50), progress_measure(Time(3, "ep"), 50)
    ((<TimeUnit.TOKEN: 'tok'>, 300000), (<TimeUnit.BATCH: 'ba'>, 150))
    """
    if max_duration.unit is TimeUnit.EPOCH and dataloader_len is not None:
        return TimeUnit.BATCH, max_duration.value * dataloader_len
    return max_duration.unit, max_duration.value


def elapsed_duration(state: StateLike) -> Time:
    """How far through its run ``state`` is, as a ``dur`` Time (Composer's ``state.get_elapsed_duration()``;
    in a run in epochs of known length it moves every batch: docs/composer-deviations.md).

    The rule is :func:`progress_measure`'s, which whole-run evaluation and ``cadence plot``'s ``dur`` column
    and axis apply to every batch at once.

    Args:
        state: Anything with ``timestamp``, ``max_duration`` and ``dataloader_len``.

    Returns:
        The fraction of the run done, a ``dur`` Time.

    Raises:
        ValueError: A bad ``max_duration`` or ``dataloader_len`` on the state.

    >>> clock = Clock("1000tok")
    >>> _ = clock.batch(samples=4, tokens=250)
    >>> elapsed_duration(clock)
    Time(0.25, TimeUnit.DURATION)
    """
    unit, whole = progress_measure(as_max_duration(state.max_duration), as_dataloader_len(state.dataloader_len))
    return Time(Timestamp.counter(unit)(state.timestamp) / whole, TimeUnit.DURATION)


def batches_in_run(length: Time, dataloader_len: int | None, samples: PerBatch, tokens: PerBatch) -> int:
    """The batches a run of ``length`` takes: it is done after the first batch whose count reaches ``length``.

    ``samples`` / ``tokens`` are per-batch counts (a constant or a 1-D tensor, one entry per batch) for runs
    in ``sp`` / ``tok``. :math:`n = \\min\\{k : \\sum_{i<k} c_i \\ge \\text{length}\\}`.

    Args:
        length: The length the run trains.
        dataloader_len: Batches per epoch (for a run in epochs).
        samples: Samples per batch, a constant or a tensor (for a run in samples).
        tokens: Tokens per batch (for a run in tokens).

    Returns:
        :math:`n`: the batches until the count reaches ``length`` (in ``ba``: ``length`` itself; in ``ep``: its
        epochs of ``dataloader_len`` batches).

    Raises:
        ValueError: The count the run needs is missing or does not reach its end, naming it.

    >>> batches_in_run(Time(100, "sp"), None, 32, None)
    4
    """
    if length.unit is TimeUnit.BATCH:
        return length.value
    if length.unit is TimeUnit.EPOCH:
        if dataloader_len is None:
            raise ValueError(f"max_duration={length} needs dataloader_len to count batches")
        return length.value * dataloader_len
    per_batch, name = (samples, "samples_per_batch") if length.unit is TimeUnit.SAMPLE else (tokens, "tokens_per_batch")
    if per_batch is None:
        raise ValueError(f"max_duration={length} is counted in {length.unit.value}: pass {name}")
    if not isinstance(per_batch, torch.Tensor):
        if per_batch <= 0:
            raise ValueError(f"{name}={per_batch} must be > 0 to reach max_duration={length}")
        return math.ceil(length.value / per_batch)
    cumulative = torch.cumsum(per_batch.to(torch.float64), 0)
    reached = torch.nonzero(cumulative >= length.value)
    if reached.numel() == 0:
        raise ValueError(
            f"{name} covers {int(cumulative[-1]) if cumulative.numel() else 0}{length.unit.value}, less than "
            f"max_duration={length}: give one entry per batch for the whole run"
        )
    return int(reached[0]) + 1


def after_batches(batches: int, dataloader_len: int | None, samples: int = 0, tokens: int = 0) -> Timestamp:
    """The timestamp after the first ``batches`` batches of a run (the whole-run form of :meth:`Clock.batch`).

    .. math:: e = \\lfloor b / L \\rfloor, \\qquad b_{\\text{epoch}} = b - eL

    Without ``dataloader_len`` (``L``) no epoch has closed. ``samples`` / ``tokens`` are the run's totals.

    Args:
        batches: Batches done.
        dataloader_len: Batches per epoch, or None.
        samples: Samples counted in them.
        tokens: Tokens counted in them.

    Returns:
        The clock's timestamp after those batches: ``batch`` is ``batches``, ``epoch`` and ``batch_in_epoch``
        as the math above (samples and tokens in totals only, the in-epoch ones 0).

    >>> after_batches(7, 3).epoch.value, after_batches(7, 3).batch_in_epoch.value
    (2, 1)
    """
    epochs, in_epoch = divmod(batches, dataloader_len) if dataloader_len else (0, batches)
    return Timestamp(epoch=epochs, batch=batches, sample=samples, token=tokens, batch_in_epoch=in_epoch)


def epoch_start(timestamp: Timestamp) -> Timestamp:
    """The timestamp at the start of ``timestamp``'s epoch (its in-epoch counts taken off the totals).

    Args:
        timestamp: Any timestamp.

    Returns:
        The timestamp when its epoch began.

    >>> epoch_start(Timestamp(epoch=1, batch=7, batch_in_epoch=2)).batch
    Time(5, TimeUnit.BATCH)
    """
    return Timestamp(
        epoch=timestamp.count(TimeUnit.EPOCH),
        batch=timestamp.count(TimeUnit.BATCH) - _BATCH_IN_EPOCH(timestamp),
        sample=timestamp.count(TimeUnit.SAMPLE) - timestamp.sample_in_epoch.value,
        token=timestamp.count(TimeUnit.TOKEN) - timestamp.token_in_epoch.value,
    )


@attrs.frozen(repr=False)
class EpochStartView:
    """A state seen from the start of its current epoch: a schedule reading it holds one value per epoch.

    ``timestamp`` is :func:`epoch_start` of ``state.timestamp``; ``max_duration`` and ``dataloader_len`` are
    ``state``'s. This is Composer's per-epoch stepping (``step_schedulers_every_batch=False``): the schedule
    is evaluated at each epoch boundary and held for the epoch, a staircase.

    Args:
        state: The state to view.

    Returns:
        A state (the schedule protocol) whose ``timestamp`` is the start of ``state``'s epoch.

    >>> view = EpochStartView(SchedulerState("10ep", Timestamp(epoch=1, batch=7, batch_in_epoch=2), 5))
    >>> view.timestamp.batch, view.max_duration
    (Time(5, TimeUnit.BATCH), Time(10, TimeUnit.EPOCH))
    """

    state: StateLike

    @property
    def timestamp(self) -> Timestamp:
        """The start of the viewed state's epoch (:func:`epoch_start` of its timestamp)."""
        return epoch_start(self.state.timestamp)

    @property
    def max_duration(self) -> Time:
        """The viewed state's ``max_duration``."""
        return self.state.max_duration

    @property
    def dataloader_len(self) -> int | None:
        """The viewed state's ``dataloader_len``."""
        return self.state.dataloader_len

    def __repr__(self) -> str:
        return f"EpochStartView({self.state!r})"


class Clock(SchedulerState):
    """The time of a hand-written training loop: a :class:`~schedulers.SchedulerState` you advance.

    ``max_duration`` is the run's length (a Time or string in ``ep``, ``ba``, ``sp`` or ``tok``);
    ``dataloader_len`` the optimizer steps per epoch (needed for times in ``ep``, and to close epochs
    by itself). With ``dataloader_len`` set, the batch that completes an epoch closes it (as the trainer
    does), and a following :meth:`epoch` call is a no-op, so the loop below is right with or without it.

    Args:
        max_duration: The length the run trains (``ep``, ``ba``, ``sp`` or ``tok``).
        dataloader_len: Optimizer steps per epoch, or None.
        timestamp: Where the clock starts (the run's start by default).

    Returns:
        The clock: a state every schedule reads; :meth:`batch` and :meth:`epoch` move it.

    Raises:
        ValueError: A bad ``max_duration`` or ``dataloader_len``, naming it.

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

    # Hand-written __slots__ like SchedulerState's: read and moved every batch (docs/architecture.md).
    __slots__ = ("_done_at", "_said_short")

    def __init__(
        self,
        max_duration: Time | str,
        dataloader_len: int | Time | None = None,
        *,
        timestamp: Timestamp | None = None,
    ) -> None:
        super().__init__(max_duration, timestamp, dataloader_len)
        self._done_at: tuple = (None, None, None)  # (max_duration, its counter, its value), set by `done`
        self._said_short = False  # an epoch closed short of dataloader_len was warned about (once per clock)

    # -- advancing ------------------------------------------------------------------------------
    def batch(self, samples: int | Time = 0, tokens: int | Time = 0) -> Timestamp:
        """Count one optimizer step over ``samples`` samples and ``tokens`` tokens; return the new timestamp.

        With gradient accumulation, call it once per optimizer step with the micro-batches' summed counts.
        When ``dataloader_len`` is set and this batch completes the epoch, the epoch is closed too.

        Args:
            samples: The samples of the batch (an int or a Time in ``sp``).
            tokens: The tokens of the batch (an int or a Time in ``tok``).

        Returns:
            The clock's timestamp after the batch (and after the epoch it closed, if it did).
        """
        self.advance(samples, tokens)
        return self.timestamp

    def advance(self, samples: int | Time = 0, tokens: int | Time = 0) -> bool:
        """:meth:`batch`, returning whether this batch closed the epoch (the trainer's hot path).

        Args:
            samples: The samples of the batch (an int or a Time in ``sp``).
            tokens: The tokens of the batch (an int or a Time in ``tok``).

        Returns:
            True when the batch completed ``dataloader_len`` batches and so closed the epoch.
        """
        timestamp = self.timestamp.to_next_batch(samples, tokens)
        closed = closes_epoch(_BATCH_IN_EPOCH(timestamp), self._dataloader_len)
        self.timestamp = timestamp.to_next_epoch() if closed else timestamp
        return closed

    def epoch(self, skipped: int = 0) -> Timestamp:
        """Close the epoch in progress; return the new timestamp.

        A no-op when the epoch has no batch yet, e.g. because the batch that completed ``dataloader_len``
        batches already closed it: call it after every pass over the loader either way. An epoch closed here
        after fewer than ``dataloader_len`` batches, in a run not done, is warned about once per clock
        (:func:`short_epoch`): the passes over the data are not ``dataloader_len`` optimizer steps long (with
        gradient accumulation, ``dataloader_len=len(loader)`` instead of ``ceil(len(loader) / accumulation)``).
        Without ``dataloader_len``, an epoch's end is known only here (the loader ran out), after its last batch's
        ``scheduler.step()``: step a compiled scheduler again after this call, so that the next epoch's first batch
        trains with its own epoch's values (docs/stepping.md, "A loader without a length").

        Args:
            skipped: Optimizer steps of this epoch that were skipped and not counted (an fp16 loss scaler's):
                their data was used, so the epoch is whole at ``dataloader_len - skipped`` batches.

        Returns:
            The clock's timestamp: in-epoch counts zeroed and ``epoch`` one more, unless the epoch had no batch.

        Warns:
            UserWarning: Once, an epoch closed short of ``dataloader_len`` (naming it and accumulation).

        >>> clock = Clock("3ep", dataloader_len=4)
        >>> for _ in range(4): _ = clock.batch()
        >>> clock.epoch().epoch, clock.batches  # the 4th batch closed the epoch: this call is a no-op
        (Time(1, TimeUnit.EPOCH), 4)
        """
        in_epoch = self.timestamp.batch_in_epoch.value
        if in_epoch:
            said = self._said_short or self.done  # a run done mid-epoch is whole
            problem = None if said else short_epoch(in_epoch + skipped, self._dataloader_len)
            if problem is not None:
                self._said_short = True
                warnings.warn(f"Clock: {problem}", UserWarning, stacklevel=2)
            self.timestamp = self.timestamp.to_next_epoch()
        return self.timestamp

    # -- reading --------------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        """True once the run has reached ``max_duration``, counted in max_duration's own unit."""
        limit = self._max_duration
        if self._done_at[0] is not limit:  # a per-batch check: the unit's counter is looked up once
            self._done_at = (limit, Timestamp.counter(limit.unit), limit.value)
        _, count, value = self._done_at
        return count(self.timestamp) >= value

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
        """The clock as plain ints and strings (loads with ``torch.load(weights_only=True)``).

        Returns:
            ``{"timestamp": ..., "max_duration": ..., "dataloader_len": ...}``, what :meth:`load_state_dict`
            takes.
        """
        return {
            "timestamp": self.timestamp.state_dict(),
            "max_duration": str(self._max_duration),
            "dataloader_len": self._dataloader_len,
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Continue from a saved clock: its timestamp is restored.

        This clock's own ``max_duration`` and ``dataloader_len`` are kept (the constructor's arguments
        win, as in the trainer); a difference from the saved ones is warned about.

        Args:
            state_dict: What :meth:`state_dict` returned.

        Raises:
            ValueError: Not a dict with ``"timestamp"``, or a bad saved timestamp or length.
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
