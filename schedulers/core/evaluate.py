"""Whole-run evaluation: the multiplier at every batch of a run, in one vectorised call.

Time moves by the rule of :mod:`schedulers.core.clock` (the trainer's), in vectorised form. Batch ``k``
(counting from 0) trains with α evaluated at the timestamp *before* it, i.e. after ``k``
batches: in ``ba`` that count is ``k``; in ``sp``/``tok`` it is the number of samples/tokens of batches
``0 … k−1``. A run in samples or tokens ends after the first batch whose cumulative count reaches
``max_duration`` (as the trainer does).
"""

from __future__ import annotations

import torch

from schedulers.core.clock import Clock, batches_in_run, epochs_before, progress_measure
from schedulers.core.run import PerBatch, Run, as_run
from schedulers.core.schedule import FunctionSchedule, Schedule
from timeunits import Time, TimeUnit

__all__ = ["RunTimeline", "evaluate_run", "evaluate_timeline", "run_timeline"]


class RunTimeline:
    """The counts before every batch of a run, per unit: ``timeline.counts(unit)[k]`` (``ba``, ``sp``, ``tok``, ``ep``).

    Counts are computed on first use, so evaluating a schedule in batches never builds the sample or token axes.

    Args:
        run: The run (its length, batches per epoch and per-batch counts lay the batches out).
        dtype: The dtype of every count tensor.

    Returns:
        The timeline: ``run``, ``num_batches`` (the batches the run trains), ``max_duration`` (the length it
        trains, ``run.length``: what its states report as ``max_duration``) and ``dataloader_len``.

    Raises:
        ValueError: A run in ``sp``/``tok`` without its per-batch counts, or counts that do not reach its end.

    >>> RunTimeline(Run("100sp", samples_per_batch=32)).num_batches
    4
    """

    def __init__(self, run: Run, dtype: torch.dtype = torch.float64) -> None:
        self.run = run
        self.num_batches = batches_in_run(run.length, run.dataloader_len, run.samples_per_batch, run.tokens_per_batch)
        self.dtype = dtype
        self._counts: dict[TimeUnit, torch.Tensor] = {}

    @property
    def max_duration(self) -> Time:
        """The length the run trains (``run.length``, scaled by its ratio), as its states report it."""
        return self.run.length

    @property
    def dataloader_len(self) -> int | None:
        """Batches per epoch (``run.dataloader_len``)."""
        return self.run.dataloader_len

    def counts(self, unit: TimeUnit | str) -> torch.Tensor:
        """The count in ``unit`` before each batch (a float tensor of ``num_batches`` entries).

        Args:
            unit: ``ba``, ``sp``, ``tok``, ``ep`` or ``dur`` (``dur`` is :meth:`fraction`).

        Returns:
            Entry ``k`` is the count after the first ``k`` batches; computed once per unit, then reused.

        Raises:
            ValueError: ``ep`` without ``dataloader_len``, ``sp``/``tok`` without the run's per-batch counts,
                or ``unit`` is no time unit.

        >>> RunTimeline(Run("100sp", samples_per_batch=32)).counts("sp").tolist()
        [0.0, 32.0, 64.0, 96.0]
        """
        unit = TimeUnit(unit)
        if unit not in self._counts:
            self._counts[unit] = self._compute(unit)
        return self._counts[unit]

    def _compute(self, unit: TimeUnit) -> torch.Tensor:
        if unit is TimeUnit.BATCH:
            return torch.arange(self.num_batches, dtype=self.dtype)
        if unit is TimeUnit.EPOCH:
            if self.dataloader_len is None:
                raise ValueError("an epoch axis needs dataloader_len (batches per epoch)")
            return epochs_before(self.counts(TimeUnit.BATCH), self.dataloader_len)
        if unit is TimeUnit.DURATION:
            return self.fraction()
        if unit is TimeUnit.SAMPLE:
            return _before_each(self.run.samples_per_batch, self.num_batches, self.dtype, "samples_per_batch")
        return _before_each(self.run.tokens_per_batch, self.num_batches, self.dtype, "tokens_per_batch")

    def fraction(self) -> torch.Tensor:
        """Progress through the run before each batch, in ``[0, 1)`` (the ``dur`` axis), in max_duration's unit
        (:func:`~schedulers.core.clock.progress_measure`: tokens of a run in tokens, not its batches).

        Returns:
            Entry ``k`` is :math:`c_u(k) / D`: the count in the run's unit after ``k`` batches over its length.

        >>> RunTimeline(Run("4ba")).fraction().tolist()
        [0.0, 0.25, 0.5, 0.75]
        """
        unit, whole = progress_measure(self.max_duration, self.dataloader_len)
        return self.counts(unit) / whole


def run_timeline(
    max_duration: Time | str | Run,
    dataloader_len: int | None = None,
    *,
    samples_per_batch: PerBatch = None,
    tokens_per_batch: PerBatch = None,
    ssr: float = 1.0,
    dtype: torch.dtype = torch.float64,
) -> RunTimeline:
    """The counts before every batch of the run ``Trainer(max_duration=..., scale_schedule_ratio=ssr)`` trains.

    ``run_timeline("100ba", ssr=0.5)`` has 50 batches: the arguments mean what :class:`~schedulers.core.run.Run`
    says (and a Run may be given instead of them).

    Args:
        max_duration: The run's length as written (ep, ba, sp or tok), or a Run.
        dataloader_len: Batches per epoch.
        samples_per_batch: A constant or a 1-D tensor with one entry per batch (it must cover the run); None
            counts 0 (then a run in samples is an error).
        tokens_per_batch: The same for tokens.
        ssr: The scale schedule ratio.
        dtype: The dtype of the count tensors.

    Returns:
        A :class:`RunTimeline` of the batches that run trains (``ssr`` applied to its length).

    Raises:
        ValueError: A bad run, or per-batch counts that do not lay it out.
        MissingDataloaderLenError: A run in epochs scaled by a ratio other than 1, without ``dataloader_len``.

    >>> timeline = run_timeline("10ba", samples_per_batch=32)
    >>> timeline.counts("sp")[:3].tolist(), run_timeline("100ba", ssr=0.5).num_batches
    ([0.0, 32.0, 64.0], 50)
    """
    per_batch = {"samples_per_batch": samples_per_batch, "tokens_per_batch": tokens_per_batch}
    run = as_run(max_duration, dataloader_len, **per_batch, scale_schedule_ratio=ssr)  # the trainer's ratio
    return RunTimeline(run, dtype)


def evaluate_run(
    schedule: Schedule,
    max_duration: Time | str | Run,
    dataloader_len: int | None = None,
    *,
    samples_per_batch: PerBatch = None,
    tokens_per_batch: PerBatch = None,
    ssr: float = 1.0,
) -> torch.Tensor:
    """α at every batch of the run, as a float64 tensor (one vectorised evaluation of the closed form).

    The run is :func:`run_timeline`'s (the trainer's meaning of its arguments); batch ``k`` trains with α at the
    count before it.

    Args:
        schedule: A Cadence schedule.
        max_duration: The run's length as written, or a Run.
        dataloader_len: Batches per epoch.
        samples_per_batch: Samples per batch (a constant or one entry per batch).
        tokens_per_batch: Tokens per batch.
        ssr: The scale schedule ratio.

    Returns:
        A float64 tensor with one α per batch of the run.

    Raises:
        ValueError: A bad run, the schedule's own checks for it, or a ratio other than 1 for a function of the
            state.
        MissingDataloaderLenError: A time in epochs without ``dataloader_len``.

    >>> from schedulers import CosineAnnealingWithWarmupScheduler
    >>> alphas = evaluate_run(CosineAnnealingWithWarmupScheduler(t_warmup="0.1dur"), "100ba")
    >>> alphas.shape, alphas[5].item(), alphas[10].item()
    (torch.Size([100]), 0.5, 1.0)
    """
    timeline = run_timeline(
        max_duration, dataloader_len, samples_per_batch=samples_per_batch, tokens_per_batch=tokens_per_batch, ssr=ssr
    )
    return evaluate_timeline(schedule, timeline)


def evaluate_timeline(schedule: Schedule, timeline: RunTimeline) -> torch.Tensor:
    """α at every batch of ``timeline``'s run: :func:`evaluate_run` for a timeline already laid out.

    The curve is the schedule's for the run (:meth:`~schedulers.Schedule.curve`: resolved once per run).

    Args:
        schedule: A Cadence schedule.
        timeline: The run's timeline.

    Returns:
        A tensor of ``timeline.num_batches`` values, in the timeline's dtype.

    Raises:
        ValueError: The schedule's own checks for the run; a ratio other than 1 for a function of the state.

    >>> from schedulers import StepScheduler
    >>> evaluate_timeline(StepScheduler("2ba", gamma=0.5), run_timeline("4ba")).tolist()
    [1.0, 1.0, 0.5, 0.5]
    """
    if isinstance(schedule, FunctionSchedule):
        return _stepped(schedule, timeline)
    curve = schedule.curve(timeline.run)
    x = timeline.counts(curve.unit)
    alphas = curve.fn(x)
    if isinstance(alphas, torch.Tensor) and alphas.shape == x.shape and alphas.data_ptr() != x.data_ptr():
        return alphas
    return torch.as_tensor(alphas, dtype=x.dtype).expand_as(x).clone()  # constants, or x returned as is


def _stepped(schedule: FunctionSchedule, timeline: RunTimeline) -> torch.Tensor:
    """α per batch of a schedule without a closed form, by stepping a state through the run."""
    alpha = schedule.bind(timeline.run)  # a function of the state refuses a ratio other than 1, as in the run
    clock = Clock(timeline.max_duration, timeline.dataloader_len)
    samples, tokens = (timeline.counts(unit).tolist() for unit in (TimeUnit.SAMPLE, TimeUnit.TOKEN))
    alphas = []
    for k in range(timeline.num_batches):
        if k:  # advance over batch k-1 to the timestamp before batch k (closing its epoch when it completes one)
            clock.batch(int(samples[k] - samples[k - 1]), int(tokens[k] - tokens[k - 1]))
        alphas.append(float(alpha(clock)))
    return torch.tensor(alphas, dtype=timeline.dtype)


def _before_each(per_batch: PerBatch, num_batches: int, dtype: torch.dtype, name: str) -> torch.Tensor:
    """Exclusive cumulative sum: the count before each batch."""
    if per_batch is None:
        return torch.zeros(num_batches, dtype=dtype)
    if not isinstance(per_batch, torch.Tensor):
        return torch.arange(num_batches, dtype=dtype) * per_batch
    if per_batch.dim() != 1 or per_batch.numel() < num_batches:
        raise ValueError(
            f"{name} must be a 1-D tensor with at least {num_batches} entries, got shape {tuple(per_batch.shape)}"
        )
    values = per_batch[:num_batches].to(dtype)
    return torch.cumsum(values, 0) - values
