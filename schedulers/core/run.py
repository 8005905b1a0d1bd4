"""The run and how its times resolve: ``Run``, what a schedule reads (the ``StateLike`` protocol), and
times made whole counts for one run.

A run as one value: what a user gives the trainer, and the length it really trains.

``Run(max_duration, dataloader_len, samples_per_batch=..., tokens_per_batch=..., ssr=...)`` means exactly what
``Trainer(max_duration=..., scale_schedule_ratio=ssr)`` means (docs/schedules.md, "Scale schedule ratio"):

* the run trains ``run.length``, ``max_duration`` scaled by ``ssr`` once, by the one rounding rule
  (:func:`~schedulers.core.run.scaled_length`: epochs become the exact number of batches);
* a schedule's ``dur`` is a fraction of ``run.length``, and its ``ep``/``ba``/``sp``/``tok`` times resolve
  ``× ssr`` (:func:`~schedulers.core.run.resolve_time`).

Every entry point that takes ``(max_duration, ssr)`` builds one Run and means that: ``Schedule.resolve``,
``run_timeline``, ``evaluate_run``, the plots and the report; the trainer builds one (``trainer.run``) and
hands it to its clock, its compiled schedules and its report. A schedule resolves its curve once per run
(:meth:`~schedulers.core.schedule.Schedule.curve`).

The schedule-call protocol ``schedule(state, ssr)`` is Composer's: the state's ``max_duration`` is the length
the run trains, already scaled. :meth:`Run.of_state` is that run (``scaled=True``).

What a schedule reads (the :class:`StateLike` protocol) and ``SchedulerState``, a record of it for use
outside the trainer.

Resolving a schedule's ``Time`` arguments into whole counts for one run (Composer's ``_convert_time``).

For a run that trains ``length`` (``max_duration`` scaled by the ratio: :func:`scale_max_duration`) with
``dataloader_len`` batches per epoch and scale schedule ratio ``ssr`` (:class:`~schedulers.core.run.Run`
holds the three):

* ``x dur``  → ``x · length`` in the length's unit (``x · length · dataloader_len`` batches when the length
  is in epochs); not multiplied by ``ssr``: the length is already scaled;
* ``n ep``   → ``n · dataloader_len`` batches, then ``· ssr``;
* ``n ba``, ``n sp``, ``n tok`` → ``n · ssr`` in the same unit.

Every result is a whole count: a product within ``1e-9 · max(1, |x|)`` of an integer becomes that integer,
anything else is truncated toward zero (Composer truncates always, so float error turns ``0.29dur`` of
``100ba`` into 28 batches; Cadence gives 29 — deviation 2 in docs/composer-deviations.md).
"""

from __future__ import annotations

from typing import Protocol

import attrs
import torch

from schedulers.core.schedule_arguments import integer_argument, number_argument
from timeunits import Time, Timestamp, TimeUnit, whole_count
from timeunits.errors import argument_error

__all__ = [
    "Run",
    "as_run",
    "StateLike",
    "as_max_duration",
    "as_dataloader_len",
    "MissingDataloaderLenError",
    "resolve_time",
    "same_unit",
    "WHOLE_RUN",
    "scale_max_duration",
    "scaled_length",
    "whole_count",
]


class StateLike(Protocol):
    """What every schedule reads from the state it is called with: any object with these three attributes.

    :class:`SchedulerState` and the trainer's state are two; a schedule never writes to it.

    Args:
        (none): a protocol; any object with the three attributes below meets it.

    Returns:
        Read by ``schedule(state, ssr)``.

    >>> from schedulers import StepScheduler
    >>> class Mine:
    ...     timestamp, max_duration, dataloader_len = Timestamp(batch=10), Time(100, "ba"), None
    >>> StepScheduler("10ba", gamma=0.5)(Mine())
    0.5
    """

    @property
    def timestamp(self) -> Timestamp:
        """Where the run is now."""

    @property
    def max_duration(self) -> Time | str:
        """The length of the run (ep, ba, sp or tok; never dur)."""

    @property
    def dataloader_len(self) -> int | Time | None:
        """Batches per epoch (an int or a Time in ba), or None when the run never needs to turn epochs into batches."""


def as_max_duration(value: object, name: str = "max_duration") -> Time:
    """``value`` as the Time of a run's length, or a ValueError naming ``name``.

    Args:
        value: A Time or time string in ``ep``, ``ba``, ``sp`` or ``tok``.
        name: The argument's name, for the error.

    Returns:
        ``value`` as a Time of a positive count in ``ep``, ``ba``, ``sp`` or ``tok`` (a Time given is kept).

    Raises:
        ValueError: No unit, ``dur``, not positive, or not a time (timeunits' error class kept).

    >>> as_max_duration("10ep")
    Time(10, TimeUnit.EPOCH)
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        raise ValueError(f"{name}={value!r} has no unit: give a Time or a string such as '10ep' or '1000ba'")
    try:
        time = Time.from_input(value)
    except ValueError as error:
        raise argument_error(
            name, value, error, hint=" (a run's length is a whole count in ep, ba, sp or tok)"
        ) from None
    if time.unit is TimeUnit.DURATION:
        raise ValueError(f"{name}={time} is a fraction of itself: give it in ep, ba, sp or tok")
    if time.value <= 0:
        raise ValueError(f"{name}={time} must be positive")
    return time


def as_dataloader_len(value: object) -> int | None:
    """Batches per epoch as an int (None stays None); a Time must be in ``ba``.

    Args:
        value: An int (or a whole float: ``2.0``, as every count), a Time in ``ba``, or None.

    Returns:
        The number of batches per epoch (a positive int), or None when ``value`` is None (epochs then cannot
        be converted to batches).

    Raises:
        ValueError: Not a positive count of batches (:func:`~schedulers.core.schedule_arguments.integer_argument`).

    >>> as_dataloader_len(Time(50, "ba")), as_dataloader_len(2.0), as_dataloader_len(None)
    (50, 2, None)
    """
    if value is None:
        return None
    if not isinstance(value, (Time, int)) and hasattr(value, "unit"):  # another library's Time (Composer's)
        value = Time.from_input(value)
    if isinstance(value, Time):
        if value.unit is not TimeUnit.BATCH:
            raise ValueError(f"dataloader_len={value} must be a count of batches (ba)")
        value = value.value
    return integer_argument("dataloader_len", value, low=1, optional=True, why="batches per epoch")


PerBatch = int | torch.Tensor | None


class MissingDataloaderLenError(ValueError, RuntimeError):
    """A time in epochs (or a ``dur`` of a run measured in epochs) needs ``dataloader_len``, which is None.

    Composer raises RuntimeError here; Cadence's error is also a ValueError, so either ``except`` catches it.

    Args:
        message: What needed ``dataloader_len``, naming the argument.

    Returns:
        The error, raised when a schedule is resolved (or a time converted) for a run whose epochs cannot be
        counted in batches.

    >>> from schedulers import StepScheduler
    >>> try:
    ...     StepScheduler("1ep").resolve("10ba")
    ... except RuntimeError as error:  # Composer's class; a ValueError too
    ...     print(type(error).__name__, isinstance(error, ValueError))
    MissingDataloaderLenError True
    """


#: ``1dur``, the whole run as a time: resolved for a run (:meth:`Run.count`), the run's length as a whole count in ba,
#: sp or tok (a length in epochs as batches)
WHOLE_RUN = Time(1.0, TimeUnit.DURATION)


def resolve_time(
    argument: str, time: Time | str, length: Time, dataloader_len: int | None, ssr: float, *, scale: bool = True
) -> Time:
    """The time argument ``argument`` of a schedule as a whole count in ``ba``, ``sp`` or ``tok``, for a run that
    trains ``length`` (already scaled) with ``dataloader_len`` batches per epoch and ratio ``ssr``.

    .. math:: x\\,\\mathrm{dur} \\mapsto x \\cdot \\mathrm{length}, \\qquad
              n\\,\\mathrm{ep} \\mapsto n L \\cdot \\mathrm{ssr}\\;\\mathrm{ba}, \\qquad
              n\\,u \\mapsto n \\cdot \\mathrm{ssr}\\;u \\;(u \\in \\{ba, sp, tok\\})

    each product made a whole count by :func:`whole_count`.

    Args:
        argument: The argument's name, for the error when ``dataloader_len`` is needed and None.
        time: The time as written (a Time or time string).
        length: The length the run trains (never ``dur``).
        dataloader_len: Batches per epoch, or None.
        ssr: The scale schedule ratio (checked by the caller: a finite number > 0).
        scale: False resolves as if ``ssr`` were 1 (a warmup that keeps its length).

    Returns:
        The count, a Time in ``ba``, ``sp`` or ``tok`` (in the length's unit for a ``dur`` of a run in ``sp``
        or ``tok``; epochs become batches).

    Raises:
        MissingDataloaderLenError: An epoch (or a ``dur`` of a run in epochs) with ``dataloader_len`` None.
        ValueError: ``time`` is not a time (timeunits' error).

    >>> resolve_time("t_warmup", "2ep", Time(500, "ba"), 50, 0.5)
    Time(50, TimeUnit.BATCH)
    >>> resolve_time("t_max", "1dur", Time(10, "ep"), 50, 1.0)
    Time(500, TimeUnit.BATCH)
    """
    time = Time.from_input(time)
    if time.unit is TimeUnit.DURATION:
        if length.unit is TimeUnit.EPOCH:
            batches = length.value * _batches_per_epoch(argument, time, length, dataloader_len)
            return Time(whole_count(time.value * batches), TimeUnit.BATCH)
        return Time(whole_count(time.value * length.value), length.unit)
    if time.unit is TimeUnit.EPOCH:
        time = Time(time.value * _batches_per_epoch(argument, time, length, dataloader_len), TimeUnit.BATCH)
    if not scale or ssr == 1.0:
        return time  # exact, even beyond 2**53
    return Time(whole_count(time.value * ssr), time.unit)


def _batches_per_epoch(argument: str, time: Time, length: Time, dataloader_len: int | None) -> int:
    if dataloader_len is None:
        via = f" (max_duration is {length})" if time.unit is TimeUnit.DURATION else ""
        raise MissingDataloaderLenError(
            f"{argument}={time} needs dataloader_len (batches per epoch) to become batches{via}, "
            "but dataloader_len is None: set it on the state, or give the time in ba, sp or tok"
        )
    return dataloader_len


def same_unit(resolved: dict[str, tuple[Time, Time]]) -> TimeUnit:
    """The unit shared by the resolved times of one schedule.

    Args:
        resolved: ``{argument: (given, resolved)}``, at least one entry.

    Returns:
        The unit every resolved time is in.

    Raises:
        ValueError: Two resolved times differ in unit; the message names both arguments.

    >>> same_unit({"t_warmup": (Time(1, "ep"), Time(50, "ba")), "t_max": (Time(1.0, "dur"), Time(500, "ba"))})
    <TimeUnit.BATCH: 'ba'>
    """
    (first_name, (first_given, first)), *rest = resolved.items()
    for name, (given, time) in rest:
        if time.unit is not first.unit:
            raise ValueError(
                f"{first_name}={first_given} resolves to {first} but {name}={given} resolves to {time}: all times "
                "of one schedule must resolve to one unit (dur follows max_duration's unit; ep becomes ba)"
            )
    return first.unit


def scale_max_duration(max_duration: Time | str, ssr: float, dataloader_len: int | None = None) -> Time:
    """The run's length after ``scale_schedule_ratio``: ``ssr · max_duration`` as a whole count.

    A length in epochs becomes the exact number of batches, ``ssr · epochs · dataloader_len`` (Composer
    truncates to whole epochs, ``3ep × 0.75 → 2ep``; deviation 4). At ``ssr = 1`` the length is unchanged.
    :class:`~schedulers.core.run.Run` applies it once per run (``run.length``).

    Args:
        max_duration: The run's length as written (ep, ba, sp or tok).
        ssr: The scale schedule ratio, a finite number > 0.
        dataloader_len: Batches per epoch; needed when ``max_duration`` is in epochs and ``ssr != 1``.

    Returns:
        The scaled length (in batches for a run in epochs scaled by ``ssr != 1``).

    Raises:
        ValueError: A bad ``max_duration`` or ratio, or a ratio that scales the run to nothing.
        MissingDataloaderLenError: A run in epochs scaled by ``ssr != 1`` without ``dataloader_len``.

    >>> scale_max_duration("3ep", 0.75, dataloader_len=100), scale_max_duration("1000sp", 0.5)
    (Time(225, TimeUnit.BATCH), Time(500, TimeUnit.SAMPLE))
    """
    length = as_max_duration(max_duration)
    ssr = number_argument("scale_schedule_ratio", ssr, low=0.0, low_open=True)
    return scaled_length(length, ssr, as_dataloader_len(dataloader_len))


def scaled_length(length: Time, ssr: float, dataloader_len: int | None) -> Time:
    r""":func:`scale_max_duration` of arguments already checked: a run's length (a Time in ep, ba, sp or tok),
    a ratio (a float > 0) and batches per epoch (an int or None).

    .. math:: \mathrm{length} = \mathrm{whole}(\mathrm{ssr} \cdot D) \;(D \text{ in ba, sp, tok}), \qquad
              \mathrm{whole}(\mathrm{ssr} \cdot E L)\;\mathrm{ba} \;(E \text{ epochs of } L \text{ batches})

    Args:
        length: The run's length as written.
        ssr: The scale schedule ratio.
        dataloader_len: Batches per epoch, or None.

    Returns:
        The scaled length; ``length`` itself when ``ssr == 1``.

    Raises:
        MissingDataloaderLenError: A length in epochs, ``ssr != 1`` and no ``dataloader_len``.
        ValueError: The ratio scales the run to nothing.

    >>> scaled_length(Time(10, "ep"), 0.29, 7)
    Time(20, TimeUnit.BATCH)
    """
    if ssr == 1.0:
        return length
    count, unit = length.value, length.unit
    if unit is TimeUnit.EPOCH:
        if dataloader_len is None:
            raise MissingDataloaderLenError(
                f"max_duration={length} scaled by scale_schedule_ratio={ssr} becomes batches, which needs "
                "dataloader_len (batches per epoch), but dataloader_len is None"
            )
        count, unit = count * dataloader_len, TimeUnit.BATCH
    scaled = Time(whole_count(count * ssr), unit)
    if scaled.value <= 0:
        raise ValueError(f"scale_schedule_ratio={ssr} reduces max_duration={length} to {scaled}: use a larger ratio")
    return scaled


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
    trains; :meth:`count` resolves a schedule's time argument for it. ``run.resolution_key`` is what a schedule's
    curve depends on, ``(length.value, length.unit, dataloader_len, ssr)``: two runs with the same key resolve every
    schedule alike (the per-batch counts and ``max_duration`` as written do not enter a curve), so a schedule
    caches its curve under it (:meth:`~schedulers.core.schedule.Schedule.curve`). Both are set once, when the run
    is built.

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
    >>> Run("100ba", ssr=0.5).resolution_key == Run("50ba", ssr=0.5, scaled=True).resolution_key
    True
    """

    max_duration: Time
    dataloader_len: int | None
    samples_per_batch: PerBatch = attrs.field(eq=_per_batch_key)
    tokens_per_batch: PerBatch = attrs.field(eq=_per_batch_key)
    ssr: float
    scaled: bool
    length: Time = attrs.field(init=False, eq=False)
    resolution_key: tuple = attrs.field(init=False, eq=False)

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
        _set_length(self, length if scaled else scaled_length(length, ratio, per_epoch))

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
        _set_length(part, length)
        return part

    @classmethod
    def of_state(cls, state: StateLike, ssr: float = 1.0) -> Run:
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

    def count(self, argument: str, time: Time | str, *, scale: bool = True) -> Time:
        """Resolve a schedule's time argument for this run (:func:`~schedulers.core.run.resolve_time`).

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


def _set_length(run: Run, length: Time) -> None:
    """Set the length a run trains and the key its curves are cached under, once, as the run is built."""
    object.__setattr__(run, "length", length)
    object.__setattr__(run, "resolution_key", (length.value, length.unit, run.dataloader_len, run.ssr))


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
