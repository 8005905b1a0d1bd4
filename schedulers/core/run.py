"""A run as one value: what a user gives the trainer, and the length it really trains.

``Run(max_duration, dataloader_len, samples_per_batch=..., tokens_per_batch=..., ssr=...)`` means exactly what
``Trainer(max_duration=..., scale_schedule_ratio=ssr)`` means (docs/schedules.md, "Scale schedule ratio"):

* the run trains ``run.length``, ``max_duration`` scaled by ``ssr`` once, by the one rounding rule
  (:func:`~schedulers.core.resolution.scaled_length`: epochs become the exact number of batches);
* a schedule's ``dur`` is a fraction of ``run.length``, and its ``ep``/``ba``/``sp``/``tok`` times resolve
  ``× ssr`` (:func:`~schedulers.core.resolution.resolve_time`).

Every entry point that takes ``(max_duration, ssr)`` builds one Run and means that: ``Schedule.resolve``,
``run_timeline``, ``evaluate_run``, the plots and the report; the trainer builds one (``trainer.run``) and
hands it to its clock, its compiled schedules and its report. A schedule resolves its curve once per run
(:meth:`~schedulers.core.base.Schedule.curve`).

The schedule-call protocol ``schedule(state, ssr)`` is Composer's: the state's ``max_duration`` is the length
the run trains, already scaled. :meth:`Run.of_state` is that run (``scaled=True``).
"""

from __future__ import annotations

import attrs
import torch

from schedulers.core.clock import PerBatch
from schedulers.core.resolution import resolve_time, scaled_length
from schedulers.core.schedule_arguments import number_argument
from schedulers.core.state import ScheduleState, as_dataloader_len, as_max_duration
from timeunits import Time

__all__ = ["Run", "as_run"]


def _per_batch_key(value: PerBatch) -> object:
    """What two per-batch counts are compared and hashed by: a tensor by its dtype, shape and contents."""
    if isinstance(value, torch.Tensor):
        tensor = value.detach().cpu().contiguous()
        return ("tensor", str(tensor.dtype), tuple(tensor.shape), tensor.numpy().tobytes())
    return value


@attrs.frozen(init=False, repr=False)
class Run:
    """One training run: ``max_duration`` as written, batches per epoch, per-batch counts and the ratio.

    Frozen, hashable and equal by value (a per-batch tensor by its contents). ``run.length`` is what the run
    trains; :meth:`count` resolves a schedule's time argument for it.

    Args:
        max_duration: The run's length as the user wrote it (a Time or string in ``ep``, ``ba``, ``sp`` or
            ``tok``; never ``dur``).
        dataloader_len: Batches (optimizer steps) per epoch, or None when the run never needs them.
        samples_per_batch: Samples of each batch: a constant, a 1-D tensor with one entry per batch, or None
            (unknown before the data is read). Needed to lay out a run in ``sp`` batch by batch.
        tokens_per_batch: The same for tokens.
        ssr: The scale schedule ratio, a finite number > 0.
        scale_schedule_ratio: The trainer's spelling of ``ssr``, accepted too (an error names the keyword used);
            give one of the two.
        scaled: True when ``max_duration`` is already the length the run trains (a state's ``max_duration``
            in the schedule-call protocol; see :meth:`of_state`): it is then not scaled again.

    Returns:
        The run; ``run.length`` is ``max_duration`` scaled by ``ssr`` (or ``max_duration`` when ``scaled``).

    Raises:
        TypeError: Both ``ssr`` and ``scale_schedule_ratio`` given.
        ValueError: A bad ``max_duration``, ``dataloader_len`` or ratio, naming it, or a ratio that scales the
            run to nothing.
        MissingDataloaderLenError: A run in epochs scaled by a ratio other than 1, without ``dataloader_len``.

    >>> run = Run("10ep", dataloader_len=50, ssr=0.5)
    >>> run.length, run.count("t_max", "1dur"), run.count("t_warmup", "2ep"), run.count("step_size", "30ba")
    (Time(250, TimeUnit.BATCH), Time(250, TimeUnit.BATCH), Time(50, TimeUnit.BATCH), Time(15, TimeUnit.BATCH))
    >>> run == Run(max_duration="10ep", dataloader_len=50, scale_schedule_ratio=0.5), len({run, Run("10ep", 50)})
    (True, 2)
    """

    max_duration: Time
    dataloader_len: int | None
    samples_per_batch: PerBatch = attrs.field(eq=_per_batch_key)
    tokens_per_batch: PerBatch = attrs.field(eq=_per_batch_key)
    ssr: float
    scaled: bool
    length: Time = attrs.field(init=False, eq=False)

    def __init__(
        self,
        max_duration: Time | str,
        dataloader_len: int | Time | None = None,
        *,
        samples_per_batch: PerBatch = None,
        tokens_per_batch: PerBatch = None,
        ssr: float = 1.0,
        scale_schedule_ratio: float | None = None,
        scaled: bool = False,
    ) -> None:
        name = "ssr"
        if scale_schedule_ratio is not None:
            if ssr != 1.0:
                raise TypeError(f"Run() got ssr={ssr!r} and scale_schedule_ratio={scale_schedule_ratio!r}: give one")
            name, ssr = "scale_schedule_ratio", scale_schedule_ratio
        length = as_max_duration(max_duration)
        per_epoch = as_dataloader_len(dataloader_len)
        ratio = number_argument(name, ssr, low=0.0, low_open=True)
        self.__attrs_init__(length, per_epoch, samples_per_batch, tokens_per_batch, ratio, bool(scaled))
        object.__setattr__(self, "length", length if scaled else scaled_length(length, ratio, per_epoch))

    def part(self, length: Time) -> Run:
        """A part of this run: ``length`` of it, with its batches per epoch and its ratio.

        A :class:`~schedulers.Sequence` resolves each child on its segment, and a warmup class its pieces, on such
        a part; what this run checked when it was built (the ratio, the batches per epoch) is not checked again,
        so a fit checks its ratio once.

        Args:
            length: The part's length, already scaled (a count of one of the run's units).

        Returns:
            A run with ``scaled=True`` whose ``length`` is ``length``; no per-batch counts.

        >>> Run("100ba", 10, ssr=0.5).part(Time(20, "ba"))
        Run(max_duration='20ba', dataloader_len=10, ssr=0.5, scaled=True)
        """
        part = object.__new__(Run)
        part.__attrs_init__(length, self.dataloader_len, None, None, self.ssr, True)
        object.__setattr__(part, "length", length)
        return part

    @classmethod
    def of_state(cls, state: ScheduleState, ssr: float = 1.0) -> Run:
        """The run a state describes in the schedule-call protocol: its ``max_duration`` is the trained length.

        Args:
            state: Anything with ``max_duration`` and ``dataloader_len`` (a :class:`~schedulers.SchedulerState`,
                a :class:`~schedulers.Clock`, the trainer's state, Composer's ``State``: another library's times,
                with ``.value`` and ``.unit.value``, are read by :meth:`timeunits.Time.from_input`).
            ssr: The ratio the schedule is called with.

        Returns:
            ``Run(state.max_duration, state.dataloader_len, ssr=ssr, scaled=True)``.

        Raises:
            ValueError: A bad ``max_duration``, ``dataloader_len`` or ``ssr`` on the state.

        >>> from types import SimpleNamespace
        >>> from schedulers import SchedulerState
        >>> Run.of_state(SchedulerState("50ba"), ssr=0.5).length
        Time(50, TimeUnit.BATCH)
        >>> def composer_time(n, unit): return SimpleNamespace(value=n, unit=SimpleNamespace(value=unit))
        >>> Run.of_state(SimpleNamespace(max_duration=composer_time(3, "ep"), dataloader_len=composer_time(7, "ba")))
        Run(max_duration='3ep', dataloader_len=7, scaled=True)
        """
        return cls(state.max_duration, state.dataloader_len, ssr=ssr, scaled=True)

    @property
    def resolution_key(self) -> tuple:
        """What a schedule's curve depends on: ``(length, dataloader_len, ssr)``.

        Two runs with the same key resolve every schedule alike (the per-batch counts and ``max_duration`` as
        written do not enter a curve), so a schedule caches its curve under it
        (:meth:`~schedulers.core.base.Schedule.curve`).

        Returns:
            A hashable tuple.

        >>> Run("100ba", ssr=0.5).resolution_key == Run("50ba", ssr=0.5, scaled=True).resolution_key
        True
        """
        return (self.length.value, self.length.unit, self.dataloader_len, self.ssr)

    def count(self, argument: str, time: Time | str, *, scale: bool = True) -> Time:
        """Resolve a schedule's time argument for this run (:func:`~schedulers.core.resolution.resolve_time`).

        Args:
            argument: The argument's name (for errors).
            time: The time as written.
            scale: False resolves as if ``ssr`` were 1 (an unscaled warmup).

        Returns:
            A whole count in ``ba``, ``sp`` or ``tok``.

        Raises:
            MissingDataloaderLenError: An epoch (or a ``dur`` of a run in epochs) without ``dataloader_len``.
            ValueError: ``time`` is not a time.

        >>> Run("10ep", 50, ssr=0.5).count("t_warmup", "2ep", scale=False)
        Time(100, TimeUnit.BATCH)
        """
        return resolve_time(argument, time, self.length, self.dataloader_len, self.ssr, scale=scale)

    def __repr__(self) -> str:
        shown = [f"max_duration={str(self.max_duration)!r}"]
        if self.dataloader_len is not None:
            shown.append(f"dataloader_len={self.dataloader_len}")
        for name in ("samples_per_batch", "tokens_per_batch"):
            value = getattr(self, name)
            if isinstance(value, torch.Tensor):
                shown.append(f"{name}=<tensor of {value.numel()}>")
            elif value is not None:
                shown.append(f"{name}={value!r}")
        if self.ssr != 1.0:
            shown.append(f"ssr={self.ssr!r}")
        if self.scaled:
            shown.append("scaled=True")
        return f"Run({', '.join(shown)})"


def as_run(
    max_duration: Time | str | Run,
    dataloader_len: int | Time | None = None,
    *,
    samples_per_batch: PerBatch = None,
    tokens_per_batch: PerBatch = None,
    ssr: float = 1.0,
    scale_schedule_ratio: float | None = None,
) -> Run:
    """The run an entry point is given: a :class:`Run` as it is, or one built from its parts.

    Every public function that describes a run by ``(max_duration, dataloader_len, samples_per_batch,
    tokens_per_batch, ssr)`` takes a Run in place of ``max_duration`` too, and calls this once.

    Args:
        max_duration: A Run, or the run's length as written.
        dataloader_len: Batches per epoch (only without a Run).
        samples_per_batch: Samples per batch (only without a Run).
        tokens_per_batch: Tokens per batch (only without a Run).
        ssr: The scale schedule ratio (only without a Run).
        scale_schedule_ratio: The ratio under the trainer's name (as :class:`Run` takes it; errors name it so).

    Returns:
        ``max_duration`` itself when it is a :class:`Run` (then no other argument may be given), else
        ``Run(max_duration, dataloader_len, ...)``.

    Raises:
        TypeError: A Run together with any other part of a run.
        ValueError: A bad part (see :class:`Run`).

    >>> as_run("100ba", ssr=0.5).length, as_run(Run("100ba")) == Run("100ba")
    (Time(50, TimeUnit.BATCH), True)
    """
    if not isinstance(max_duration, Run):
        return Run(
            max_duration,
            dataloader_len,
            samples_per_batch=samples_per_batch,
            tokens_per_batch=tokens_per_batch,
            ssr=ssr,
            scale_schedule_ratio=scale_schedule_ratio,
        )
    given = {"dataloader_len": dataloader_len, "samples_per_batch": samples_per_batch}
    given |= {"tokens_per_batch": tokens_per_batch}
    extra = [name for name, value in given.items() if value is not None]
    extra += ["ssr"] * (ssr != 1.0) + ["scale_schedule_ratio"] * (scale_schedule_ratio not in (None, 1.0))
    if extra:
        raise TypeError(f"a Run already holds {', '.join(extra)}: give {', '.join(extra)} to the Run, not beside it")
    return max_duration
