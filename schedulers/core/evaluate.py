"""Whole-run evaluation: the multiplier at every batch of a run, in one vectorised call.

Time moves by the rule of :mod:`schedulers.core.clock` (the trainer's), in vectorised form. Batch ``k``
(counting from 0) trains with α evaluated at the timestamp *before* it, i.e. after ``k``
batches: in ``ba`` that count is ``k``; in ``sp``/``tok`` it is the number of samples/tokens of batches
``0 … k−1``. A run in samples or tokens ends after the first batch whose cumulative count reaches
``max_duration`` (as the trainer does).
"""

from __future__ import annotations

import torch

from schedulers.core.base import FunctionSchedule, Schedule
from schedulers.core.clock import Clock, PerBatch, batches_in_run, epochs_before, progress_measure
from schedulers.core.resolution import RunContext, scale_max_duration
from timeunits import Time, TimeUnit

__all__ = ["RunTimeline", "evaluate_run", "run_timeline"]


class RunTimeline:
    """The counts before every batch of a run, per unit: ``timeline.counts(unit)[k]`` (``ba``, ``sp``, ``tok``, ``ep``).

    ``max_duration`` is the (scaled) length the run actually has; ``num_batches`` its batches. Counts are
    computed on first use, so evaluating a schedule in batches never builds the sample or token axes.
    """

    def __init__(
        self,
        max_duration: Time,
        dataloader_len: int | None,
        num_batches: int,
        per_batch: dict[TimeUnit, PerBatch],
        dtype: torch.dtype,
    ) -> None:
        self.max_duration = max_duration
        self.dataloader_len = dataloader_len
        self.num_batches = num_batches
        self.dtype = dtype
        self._per_batch = per_batch
        self._counts: dict[TimeUnit, torch.Tensor] = {}

    def counts(self, unit: TimeUnit | str) -> torch.Tensor:
        """The count in ``unit`` before each batch (a float tensor of ``num_batches`` entries)."""
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
        name = "samples_per_batch" if unit is TimeUnit.SAMPLE else "tokens_per_batch"
        return _before_each(self._per_batch[unit], self.num_batches, self.dtype, name)

    def fraction(self) -> torch.Tensor:
        """Progress through the run before each batch, in ``[0, 1)`` (the ``dur`` axis), in max_duration's unit
        (:func:`~schedulers.core.clock.progress_measure`: tokens of a run in tokens, not its batches)."""
        unit, whole = progress_measure(self.max_duration, self.dataloader_len)
        return self.counts(unit) / whole


def run_timeline(
    max_duration: Time | str,
    dataloader_len: int | None = None,
    *,
    samples_per_batch: PerBatch = None,
    tokens_per_batch: PerBatch = None,
    ssr: float = 1.0,
    dtype: torch.dtype = torch.float64,
) -> RunTimeline:
    """The counts before every batch of a run of ``max_duration`` scaled by ``ssr`` (as the trainer scales it).

    ``samples_per_batch`` / ``tokens_per_batch`` are a constant or a 1-D tensor with one entry per batch
    (it must cover the run); ``None`` counts 0 (then a run in that unit is an error).

    >>> timeline = run_timeline("10ba", samples_per_batch=32)
    >>> timeline.counts("sp")[:3].tolist()
    [0.0, 32.0, 64.0]
    """
    length = scale_max_duration(max_duration, ssr, dataloader_len)
    num_batches = batches_in_run(length, dataloader_len, samples_per_batch, tokens_per_batch)
    per_batch = {TimeUnit.SAMPLE: samples_per_batch, TimeUnit.TOKEN: tokens_per_batch}
    return RunTimeline(length, dataloader_len, num_batches, per_batch, dtype)


def evaluate_run(
    schedule: Schedule,
    max_duration: Time | str,
    dataloader_len: int | None = None,
    *,
    samples_per_batch: PerBatch = None,
    tokens_per_batch: PerBatch = None,
    ssr: float = 1.0,
    timeline: RunTimeline | None = None,
) -> torch.Tensor:
    """α at every batch of the run, as a float64 tensor (one vectorised evaluation of the closed form).

    >>> from schedulers import CosineAnnealingWithWarmupScheduler
    >>> alphas = evaluate_run(CosineAnnealingWithWarmupScheduler(t_warmup="0.1dur"), "100ba")
    >>> alphas.shape, alphas[5].item(), alphas[10].item()
    (torch.Size([100]), 0.5, 1.0)
    """
    if timeline is None:
        timeline = run_timeline(
            max_duration,
            dataloader_len,
            samples_per_batch=samples_per_batch,
            tokens_per_batch=tokens_per_batch,
            ssr=ssr,
        )
    if isinstance(schedule, FunctionSchedule):
        return _stepped(schedule, timeline)
    curve = schedule._resolve(RunContext(timeline.max_duration, timeline.dataloader_len, ssr))
    x = timeline.counts(curve.unit)
    alphas = curve.fn(x)
    if isinstance(alphas, torch.Tensor) and alphas.shape == x.shape and alphas.data_ptr() != x.data_ptr():
        return alphas
    return torch.as_tensor(alphas, dtype=x.dtype).expand_as(x).clone()  # constants, or x returned as is


def _stepped(schedule: FunctionSchedule, timeline: RunTimeline) -> torch.Tensor:
    """α per batch of a schedule without a closed form, by stepping a state through the run."""
    clock = Clock(timeline.max_duration, timeline.dataloader_len)
    samples, tokens = (timeline.counts(unit).tolist() for unit in (TimeUnit.SAMPLE, TimeUnit.TOKEN))
    alphas = []
    for k in range(timeline.num_batches):
        if k:  # advance over batch k-1 to the timestamp before batch k (closing its epoch when it completes one)
            clock.batch(int(samples[k] - samples[k - 1]), int(tokens[k] - tokens[k - 1]))
        alphas.append(float(schedule(clock)))
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
