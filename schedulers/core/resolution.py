"""Resolving a schedule's ``Time`` arguments into whole counts for one run (Composer's ``_convert_time``).

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

from schedulers.core.schedule_arguments import number_argument
from schedulers.core.state import as_dataloader_len, as_max_duration
from timeunits import Time, TimeUnit
from timeunits.counting import whole_count

__all__ = [
    "MissingDataloaderLenError",
    "resolve_time",
    "same_unit",
    "scale_max_duration",
    "scaled_length",
    "whole_count",
]


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
