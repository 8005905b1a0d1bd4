"""What a schedule reads (the :class:`ScheduleState` protocol) and ``SchedulerState``, a record of it for use
outside the trainer."""

from __future__ import annotations

import operator
from typing import Protocol

from timeunits import Time, Timestamp, TimeUnit
from timeunits.errors import argument_error

__all__ = ["ScheduleState", "SchedulerState", "as_max_duration", "as_dataloader_len"]


class ScheduleState(Protocol):
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
        value: An int, a Time in ``ba``, or None.

    Returns:
        The number of batches per epoch (a positive int), or None when ``value`` is None (epochs then cannot
        be converted to batches).

    Raises:
        ValueError: Not a positive count of batches.

    >>> as_dataloader_len(Time(50, "ba")), as_dataloader_len(None)
    (50, None)
    """
    if value is None:
        return None
    if not isinstance(value, (Time, int)) and hasattr(value, "unit"):  # another library's Time (Composer's)
        value = Time.from_input(value)
    if isinstance(value, Time):
        if value.unit is not TimeUnit.BATCH:
            raise ValueError(f"dataloader_len={value} must be a count of batches (ba)")
        value = value.value
    try:
        count = None if isinstance(value, bool) else operator.index(value)
    except TypeError:
        count = None
    if count is None or count <= 0:
        raise ValueError(f"dataloader_len={value!r} must be a positive int (batches per epoch) or None")
    return count
