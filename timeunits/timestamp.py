"""``Timestamp``: where a training run is, counted in every unit at once."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from timeunits.errors import TimeUnitMismatchError
from timeunits.time import Time, _make, _not_a_count, _whole, is_number
from timeunits.units import TimeUnit

__all__ = ["Timestamp"]

_FIELDS = ("epoch", "batch", "sample", "token", "batch_in_epoch", "sample_in_epoch", "token_in_epoch")
_FIELD_UNITS = {
    "epoch": TimeUnit.EPOCH,
    "batch": TimeUnit.BATCH,
    "sample": TimeUnit.SAMPLE,
    "token": TimeUnit.TOKEN,
    "batch_in_epoch": TimeUnit.BATCH,
    "sample_in_epoch": TimeUnit.SAMPLE,
    "token_in_epoch": TimeUnit.TOKEN,
}
_new = object.__new__


class Timestamp:
    """Counters of a run: epochs, batches (optimizer steps), samples and tokens, in total and in the epoch.

    Immutable: advancing returns a new Timestamp. Each counter reads back as a :class:`Time` of its unit.

    >>> ts = Timestamp().to_next_batch(samples=32, tokens=4096).to_next_batch(samples=32, tokens=3000)
    >>> ts.batch, ts.sample, ts.token_in_epoch
    (Time(2, TimeUnit.BATCH), Time(64, TimeUnit.SAMPLE), Time(7096, TimeUnit.TOKEN))
    >>> ts = ts.to_next_epoch()
    >>> ts.epoch, ts.batch, ts.batch_in_epoch
    (Time(1, TimeUnit.EPOCH), Time(2, TimeUnit.BATCH), Time(0, TimeUnit.BATCH))
    >>> ts >= Time(1, "ep")
    True

    Args:
        epoch: Epochs completed.
        batch: Batches (optimizer steps) completed.
        sample: Samples seen.
        token: Tokens seen.
        batch_in_epoch: Batches completed in the current epoch.
        sample_in_epoch: Samples seen in the current epoch.
        token_in_epoch: Tokens seen in the current epoch.

    Each counter is a non-negative int or a :class:`Time` in its unit; the counters are independent, as in
    Composer (``Timestamp(epoch=2, batch_in_epoch=3)`` is valid).

    Returns:
        The run's position; compared with a Time (or a time string) it compares that unit's total count.

    Raises:
        NonIntegralTimeError: A counter is a float or another number that is not whole.
        TimeUnitMismatchError: A counter is a Time of another unit.
        TypeError: A counter is not a number.
        ValueError: A counter is negative.
    """

    # Hand-written __slots__, not attrs: advanced once per batch, it is built without __init__ (2.3x faster than
    # an attrs twin; docs/architecture.md, "One way to write a small value class"). Four slots hold the seven
    # counters: the totals of batches, samples and tokens, and ``_start``, the epoch with the totals at its start
    # (``(epoch, batch, sample, token)``, shared by every timestamp of the epoch), so a batch writes four slots,
    # not seven; a count in the epoch is its total less the total at the start.
    __slots__ = ("_batch", "_sample", "_token", "_start")

    def __init__(
        self,
        *,
        epoch: int | Time = 0,
        batch: int | Time = 0,
        sample: int | Time = 0,
        token: int | Time = 0,
        batch_in_epoch: int | Time = 0,
        sample_in_epoch: int | Time = 0,
        token_in_epoch: int | Time = 0,
    ) -> None:
        values = (epoch, batch, sample, token, batch_in_epoch, sample_in_epoch, token_in_epoch)
        # Counters are independent, as in Composer: a partial timestamp (``epoch=2, batch_in_epoch=3``) is valid
        # (its start then counts below zero).
        epoch, batch, sample, token, batch_in_epoch, sample_in_epoch, token_in_epoch = (
            _count(name, value) for name, value in zip(_FIELDS, values, strict=True)
        )
        self._batch, self._sample, self._token = batch, sample, token
        self._start = (epoch, batch - batch_in_epoch, sample - sample_in_epoch, token - token_in_epoch)

    # -- the counters as Times ---------------------------------------------------------------
    epoch = property(lambda self: _make(self._start[0], TimeUnit.EPOCH), doc="Epochs completed.")
    batch = property(lambda self: _make(self._batch, TimeUnit.BATCH), doc="Batches (optimizer steps) completed.")
    sample = property(lambda self: _make(self._sample, TimeUnit.SAMPLE), doc="Samples seen.")
    token = property(lambda self: _make(self._token, TimeUnit.TOKEN), doc="Tokens seen.")
    batch_in_epoch = property(
        lambda self: _make(self._batch - self._start[1], TimeUnit.BATCH), doc="Batches completed in this epoch."
    )
    sample_in_epoch = property(
        lambda self: _make(self._sample - self._start[2], TimeUnit.SAMPLE), doc="Samples seen in this epoch."
    )
    token_in_epoch = property(
        lambda self: _make(self._token - self._start[3], TimeUnit.TOKEN), doc="Tokens seen in this epoch."
    )

    def get(self, unit: TimeUnit | str) -> Time:
        """The total count in ``unit`` as a Time. ``dur`` has no count: it needs the run's ``max_duration``.

        Args:
            unit: ``ep``, ``ba``, ``sp`` or ``tok`` (a :class:`TimeUnit` or its text).

        Returns:
            The total counted so far in ``unit`` (not the count within the epoch).

        Raises:
            ValueError: ``unit`` is ``dur`` or no unit.

        >>> Timestamp(batch=7, batch_in_epoch=2).get("ba")
        Time(7, TimeUnit.BATCH)
        """
        return _make(self.count(unit), TimeUnit(unit))

    def count(self, unit: TimeUnit | str) -> int:
        """The total count in ``unit`` as a plain int (what schedules read on their hot path).

        Args:
            unit: ``ep``, ``ba``, ``sp`` or ``tok`` (a :class:`TimeUnit` or its text).

        Returns:
            The total counted so far in ``unit``, as :meth:`get` gives it but without the Time around it.

        Raises:
            ValueError: ``unit`` is ``dur`` or no unit.

        >>> Timestamp(sample=96).count("sp")
        96
        """
        try:
            return _GETTERS[unit](self)
        except KeyError:
            pass
        unit = TimeUnit(unit)
        if unit is TimeUnit.DURATION:
            raise ValueError(
                "a Timestamp has no 'dur' count: a duration is a fraction of max_duration; "
                "ask for one of ep, ba, sp, tok"
            )
        return _GETTERS[unit](self)

    @staticmethod
    def counter(unit: TimeUnit | str, *, in_epoch: bool = False) -> Callable[[Timestamp], int]:
        """A fast function ``timestamp -> count in unit`` (an int; within the epoch with ``in_epoch``).

        Args:
            unit: ``ep``, ``ba``, ``sp`` or ``tok`` (a :class:`TimeUnit` or its text).
            in_epoch: Count within the current epoch (``batch_in_epoch``, ...) instead of in total.

        Returns:
            A function of a Timestamp giving that count as an int.

        Raises:
            ValueError: ``unit`` is ``dur``, or ``ep`` with ``in_epoch`` (neither has such a count).

        >>> Timestamp.counter("ba", in_epoch=True)(Timestamp(batch=7, batch_in_epoch=2))
        2
        """
        unit = TimeUnit(unit)
        if unit is TimeUnit.DURATION or (in_epoch and unit is TimeUnit.EPOCH):
            raise ValueError(f"a Timestamp has no {'in-epoch ' if in_epoch else ''}{unit.value!r} count")
        return (_IN_EPOCH_GETTERS if in_epoch else _GETTERS)[unit]

    # -- advancing (hot path) -------------------------------------------------------------------
    def to_next_batch(self, samples: int | Time = 0, tokens: int | Time = 0) -> Timestamp:
        """The timestamp after one more batch of ``samples`` samples and ``tokens`` tokens.

        Args:
            samples: The batch's samples (a non-negative int or a Time in ``sp``).
            tokens: The batch's tokens (a non-negative int or a Time in ``tok``).

        Returns:
            A new Timestamp: ``batch`` and ``batch_in_epoch`` one more, samples and tokens added to the totals
            and to the epoch's counts.

        Raises:
            NonIntegralTimeError: ``samples`` or ``tokens`` is not a whole number.
            TimeUnitMismatchError: ``samples`` or ``tokens`` is a Time of another unit.
            TypeError: ``samples`` or ``tokens`` is not a number.
            ValueError: ``samples`` or ``tokens`` is negative.

        >>> Timestamp().to_next_batch(samples=32).sample_in_epoch
        Time(32, TimeUnit.SAMPLE)
        """
        if type(samples) is not int or type(tokens) is not int or samples < 0 or tokens < 0:
            samples = _count("samples", samples, TimeUnit.SAMPLE, "Timestamp.to_next_batch")
            tokens = _count("tokens", tokens, TimeUnit.TOKEN, "Timestamp.to_next_batch")
        new = _new(Timestamp)
        new._batch = self._batch + 1
        new._sample = self._sample + samples
        new._token = self._token + tokens
        new._start = self._start  # the same epoch: its counts grow with the totals
        return new

    def to_next_epoch(self) -> Timestamp:
        """The timestamp at the start of the next epoch: in-epoch counters zeroed, totals kept.

        Returns:
            A new Timestamp with ``epoch`` one more.

        >>> Timestamp(batch=3, batch_in_epoch=3).to_next_epoch().batch_in_epoch
        Time(0, TimeUnit.BATCH)
        """
        batch, sample, token = self._batch, self._sample, self._token
        new = _new(Timestamp)
        new._batch, new._sample, new._token = batch, sample, token
        new._start = (self._start[0] + 1, batch, sample, token)  # the new epoch starts at the totals: counts 0
        return new

    def copy(self, **changes: int | Time) -> Timestamp:
        """A Timestamp with some counters replaced, e.g. ``ts.copy(batch_in_epoch=0)``.

        Args:
            changes: Counters by name (``epoch``, ``batch``, ..., ``token_in_epoch``) and their new values.

        Returns:
            A new Timestamp: this one's counters, the ``changes`` replacing theirs.

        Raises:
            TypeError: A name in ``changes`` is no counter.

        >>> Timestamp(batch=7, batch_in_epoch=2).copy(batch_in_epoch=0).batch_in_epoch
        Time(0, TimeUnit.BATCH)
        """
        unknown = sorted(set(changes) - set(_FIELDS))
        if unknown:
            raise TypeError(f"Timestamp.copy() got unknown counters {unknown}; accepted: {', '.join(_FIELDS)}")
        return Timestamp(**{**self.state_dict(), **changes})

    # -- serialisation ---------------------------------------------------------------------------
    def state_dict(self) -> dict[str, int]:
        """The counters as plain ints (safe for ``torch.load(weights_only=True)``).

        Returns:
            ``{"epoch": ..., "batch": ..., ..., "token_in_epoch": ...}``, each counter an int, in the order of
            the constructor's arguments.

        >>> Timestamp(batch=2).state_dict()["batch"]
        2
        """
        epoch, batch, sample, token = self._start
        totals = (self._batch, self._sample, self._token)
        in_epoch = (totals[0] - batch, totals[1] - sample, totals[2] - token)
        return dict(zip(_FIELDS, (epoch, *totals, *in_epoch), strict=True))

    @classmethod
    def from_state_dict(cls, state: dict[str, Any]) -> Timestamp:
        """Rebuild a Timestamp from :meth:`state_dict`'s output.

        Args:
            state: A dict with the seven counters' names as keys, as :meth:`state_dict` writes.

        Returns:
            A Timestamp equal to the one saved.

        Raises:
            TypeError: ``state`` is not a dict.
            ValueError: ``state`` lacks a counter or has a key that is no counter.

        >>> Timestamp.from_state_dict(Timestamp(token=9).state_dict()).token
        Time(9, TimeUnit.TOKEN)
        """
        if not isinstance(state, dict):
            raise TypeError(f"a Timestamp state_dict must be a dict, got {type(state).__name__}")
        missing = [name for name in _FIELDS if name not in state]
        unknown = sorted(set(state) - set(_FIELDS))
        if missing or unknown:
            raise ValueError(
                f"not a Timestamp state_dict: missing {missing}, unknown {unknown}; expected keys {', '.join(_FIELDS)}"
            )
        return cls(**state)

    # -- comparison ------------------------------------------------------------------------------
    def _counter_for(self, other: Time | str) -> Time:
        other = Time.from_timestring(other) if isinstance(other, str) else other
        if other.unit is TimeUnit.DURATION:
            raise ValueError(
                f"cannot compare a Timestamp with {other}: a dur time needs max_duration; "
                "convert it to ep, ba, sp or tok first"
            )
        return self.get(other.unit)

    def __eq__(self, other: object) -> bool:
        """Equal counters; with a Time or a time string, its unit's total is equal (``dur`` and non-times: False)."""
        if isinstance(other, Timestamp):
            return self.state_dict() == other.state_dict()
        if isinstance(other, str):
            try:
                other = Time.from_timestring(other)
            except ValueError:
                return False  # as Time == "not a time" is: equality never raises
        if isinstance(other, Time):
            return other.unit is not TimeUnit.DURATION and self.get(other.unit) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self.state_dict().values()))

    def __lt__(self, other: object) -> bool:
        return self._counter_for(other) < other if isinstance(other, (Time, str)) else NotImplemented

    def __le__(self, other: object) -> bool:
        return self._counter_for(other) <= other if isinstance(other, (Time, str)) else NotImplemented

    def __gt__(self, other: object) -> bool:
        return self._counter_for(other) > other if isinstance(other, (Time, str)) else NotImplemented

    def __ge__(self, other: object) -> bool:
        return self._counter_for(other) >= other if isinstance(other, (Time, str)) else NotImplemented

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value}" for name, value in self.state_dict().items())
        return f"Timestamp({fields})"

    def __reduce__(self):
        return (_from_state, (self.state_dict(),))


def _epochs(timestamp: Timestamp) -> int:
    return timestamp._start[0]


def _batches_in_epoch(timestamp: Timestamp) -> int:
    return timestamp._batch - timestamp._start[1]


def _samples_in_epoch(timestamp: Timestamp) -> int:
    return timestamp._sample - timestamp._start[2]


def _tokens_in_epoch(timestamp: Timestamp) -> int:
    return timestamp._token - timestamp._start[3]


# unit -> the count of a timestamp: a slot's attrgetter for a total, a function for the epochs and in-epoch counts
_GETTERS = {
    TimeUnit.EPOCH: _epochs,
    TimeUnit.BATCH: operator.attrgetter("_batch"),
    TimeUnit.SAMPLE: operator.attrgetter("_sample"),
    TimeUnit.TOKEN: operator.attrgetter("_token"),
}
_IN_EPOCH_GETTERS = {
    TimeUnit.BATCH: _batches_in_epoch,
    TimeUnit.SAMPLE: _samples_in_epoch,
    TimeUnit.TOKEN: _tokens_in_epoch,
}


def _from_state(state: dict[str, int]) -> Timestamp:
    return Timestamp(**state)


def _count(name: str, value: object, unit: TimeUnit | None = None, owner: str = "Timestamp") -> int:
    """A counter value as a non-negative int; a Time must be in the counter's unit.

    Errors name ``owner`` and the counter: a float is a :class:`NonIntegralTimeError`, a Time of another unit a
    :class:`TimeUnitMismatchError`, anything else that is no number a :class:`TypeError`.
    """
    if type(value) is int and value >= 0:
        return value  # the common case; messages are built only to raise
    unit = unit or _FIELD_UNITS[name]
    if isinstance(value, Time):
        if value.unit is not unit:
            raise TimeUnitMismatchError(f"{owner} {name} must be in {unit.value}, got {value} (in {value.unit.value})")
        value = value.value
    count = _whole(value)
    if count is None:
        if not is_number(value):
            raise TypeError(
                f"{owner} {name} must be an int (or a Time in {unit.value}), got {value!r} of type "
                f"{type(value).__name__}"
            )
        raise _not_a_count(value, unit, f"{owner} {name}")
    if count < 0:
        raise ValueError(f"{owner} {name} must be >= 0, got {count}")
    return count
