"""Resolving a schedule's ``Time`` arguments into whole counts for one run (Composer's ``_convert_time``).

For a run of ``max_duration`` with ``dataloader_len`` batches per epoch and scale schedule ratio ``ssr``:

* ``x dur``  → ``x · max_duration`` in max_duration's unit (``x · max_duration · dataloader_len`` batches
  when max_duration is in epochs); not multiplied by ``ssr``: the run's length is already scaled;
* ``n ep``   → ``n · dataloader_len`` batches, then ``· ssr``;
* ``n ba``, ``n sp``, ``n tok`` → ``n · ssr`` in the same unit.

Every result is a whole count: a product within ``1e-9 · max(1, |x|)`` of an integer becomes that integer,
anything else is truncated toward zero (Composer truncates always, so float error turns ``0.29dur`` of
``100ba`` into 28 batches; Cadence gives 29 — deviation 2 in docs/composer-deviations.md).
"""

from __future__ import annotations

import math

from schedulers.core.state import as_dataloader_len, as_max_duration
from timeunits import Time, TimeUnit, is_number
from timeunits.counting import whole_count

__all__ = ["MissingDataloaderLenError", "RunContext", "check_ssr", "same_unit", "scale_max_duration", "whole_count"]


class MissingDataloaderLenError(ValueError, RuntimeError):
    """A time in epochs (or a ``dur`` of a run measured in epochs) needs ``dataloader_len``, which is None.

    Composer raises RuntimeError here; Cadence's error is also a ValueError.
    """


def check_ssr(ssr: object, name: str = "ssr") -> float:
    """``ssr`` as a float, which must be finite and > 0 (a ValueError naming ``name`` otherwise)."""
    try:
        value = float(ssr) if is_number(ssr) else math.nan  # bytes and Times are no numbers either
    except (TypeError, ValueError):
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name}={ssr!r} must be a finite number > 0")
    return value


class RunContext:
    """The run a schedule is resolved against: ``max_duration``, ``dataloader_len`` and ``ssr``.

    >>> run = RunContext("10ep", dataloader_len=50, ssr=0.5)
    >>> run.count("t_max", "1dur"), run.count("t_warmup", "2ep"), run.count("step_size", "30ba")
    (Time(500, TimeUnit.BATCH), Time(50, TimeUnit.BATCH), Time(15, TimeUnit.BATCH))
    """

    __slots__ = ("max_duration", "dataloader_len", "ssr")

    def __init__(self, max_duration: Time | str, dataloader_len: int | Time | None = None, ssr: float = 1.0) -> None:
        self.max_duration = as_max_duration(max_duration)
        self.dataloader_len = as_dataloader_len(dataloader_len)
        self.ssr = check_ssr(ssr)

    def key(self) -> tuple:
        return (self.max_duration.value, self.max_duration.unit, self.dataloader_len, self.ssr)

    def count(self, argument: str, time: Time | str, *, scale: bool = True) -> Time:
        """Resolve ``time`` (the schedule argument called ``argument``) to a whole count in ba, sp or tok.

        ``scale=False`` resolves as if ``ssr`` were 1 (an unscaled warmup).
        """
        time = Time.from_input(time)
        if time.unit is TimeUnit.DURATION:
            run = self.max_duration
            if run.unit is TimeUnit.EPOCH:
                batches = run.value * self._batches_per_epoch(argument, time)
                return Time(whole_count(time.value * batches), TimeUnit.BATCH)
            return Time(whole_count(time.value * run.value), run.unit)
        if time.unit is TimeUnit.EPOCH:
            time = Time(time.value * self._batches_per_epoch(argument, time), TimeUnit.BATCH)
        if not scale or self.ssr == 1.0:
            return time  # exact, even beyond 2**53
        return Time(whole_count(time.value * self.ssr), time.unit)

    def _batches_per_epoch(self, argument: str, time: Time) -> int:
        if self.dataloader_len is None:
            via = f" (max_duration is {self.max_duration})" if time.unit is TimeUnit.DURATION else ""
            raise MissingDataloaderLenError(
                f"{argument}={time} needs dataloader_len (batches per epoch) to become batches{via}, "
                "but dataloader_len is None: set it on the state, or give the time in ba, sp or tok"
            )
        return self.dataloader_len

    def __repr__(self) -> str:
        return f"RunContext(max_duration={self.max_duration}, dataloader_len={self.dataloader_len}, ssr={self.ssr})"


def same_unit(resolved: dict[str, tuple[Time, Time]]) -> TimeUnit:
    """The unit shared by the resolved times ``{argument: (given, resolved)}``; a ValueError names two that differ."""
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

    >>> scale_max_duration("3ep", 0.75, dataloader_len=100), scale_max_duration("1000sp", 0.5)
    (Time(225, TimeUnit.BATCH), Time(500, TimeUnit.SAMPLE))
    """
    length = as_max_duration(max_duration)
    ssr = check_ssr(ssr, "scale_schedule_ratio")
    if ssr == 1.0:
        return length
    if length.unit is TimeUnit.EPOCH:
        if dataloader_len is None:
            raise MissingDataloaderLenError(
                f"max_duration={length} scaled by scale_schedule_ratio={ssr} becomes batches, which needs "
                "dataloader_len (batches per epoch), but dataloader_len is None"
            )
        length = Time(length.value * as_dataloader_len(dataloader_len), TimeUnit.BATCH)
    scaled = Time(whole_count(length.value * ssr), length.unit)
    if scaled.value <= 0:
        raise ValueError(
            f"scale_schedule_ratio={ssr} reduces max_duration={max_duration} to {scaled}: use a larger ratio"
        )
    return scaled
