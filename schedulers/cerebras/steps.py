"""Step-count arguments: plain numbers, or time strings resolved to whole optimizer steps.

A Cerebras scheduler counts optimizer steps. Each of its step-count arguments (``total_iters``,
``milestones``, ``T_max``, ``step_size``, ...) takes a number, as in Cerebras, or a time string:

* ``"Nba"`` is N steps, with or without a run state;
* ``"Nep"`` is N × ``dataloader_len`` steps and ``"xdur"`` is x × ``max_duration`` steps; both need the
  run's state (``state=`` on the scheduler, or :meth:`~schedulers.cerebras.HyperparameterScheduler.attach_state`);
* ``"sp"`` and ``"tok"`` are errors: a step-indexed scheduler cannot follow samples or tokens, the
  time-aware schedulers (``schedulers.CosineAnnealingWithWarmupScheduler``, ...) do.

Resolution follows :func:`schedulers.core.run.resolve_time` (Composer's rules), so with a scale
schedule ratio ``ssr`` a count in ``ba``/``ep`` (and a plain integer) is multiplied by ``ssr`` and made a whole
count by deviation 2's rule (:func:`~timeunits.whole_count`: ``100 × 0.29`` is 29), while a ``dur`` is not
scaled (the run's length is already scaled).

>>> from schedulers import SchedulerState
>>> resolve_steps("total_iters", "0.25dur", SchedulerState("2ep", dataloader_len=50))
25
>>> resolve_steps("milestones", [100, "3ep"], SchedulerState("10ep", dataloader_len=50))
[100, 150]
"""

from __future__ import annotations

import math
import operator

from schedulers.core.run import Run, ScheduleState, whole_count
from timeunits import Time, TimeUnit
from timeunits.errors import argument_error

__all__ = ["StepArgumentError", "StepCount", "is_step_count", "needs_run", "resolve_steps"]

#: a step-count argument: a number of steps, or a time string / Time (``"1000ba"``, ``"2ep"``, ``"0.1dur"``)
StepCount = int | float | str | Time

_TIME_AWARE_HINT = (
    "Cerebras schedulers count optimizer steps; for a schedule in samples or tokens use one of Cadence's "
    "time-aware schedulers, e.g. schedulers.CosineAnnealingWithWarmupScheduler(t_warmup='0.05dur')"
)


class StepArgumentError(ValueError):
    """A step-count argument that is not a step count, or cannot be resolved to one.

    A string that is not a time keeps timeunits' error (``NonIntegralTimeError``, ``TimeParseError``, ...,
    each a ``ValueError``), with the argument's name in front.

    Args:
        *args: The message, as for ``ValueError``.

    Returns:
        The error :func:`resolve_steps` raises (a ``ValueError``).

    >>> resolve_steps("total_iters", True)
    Traceback (most recent call last):
    ...
    schedulers.cerebras.steps.StepArgumentError: total_iters=True must be a number of steps ...
    """


def is_step_count(value: object, *, positive: bool = False) -> bool:
    """Whether a resolved step-count argument is a number of steps: an int or a float (not a bool), finite, and
    ``>= 0`` (``> 0`` when ``positive``).

    Args:
        value: The resolved argument.
        positive: Whether 0 is refused.

    Returns:
        Whether ``value`` is a number of steps.

    >>> is_step_count(10), is_step_count(0, positive=True), is_step_count(True)
    (True, False, False)
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return (0 < value if positive else 0 <= value) and value < math.inf


def needs_run(value: object) -> bool:
    """Whether a step-count argument (or a list of them) holds a time that only a run's state resolves: epochs or
    a fraction of the run (a string that is no time is not: resolving it says what is wrong).

    Args:
        value: A step-count argument as given.

    Returns:
        True for a time in ``ep`` or ``dur`` (or a list holding one).

    >>> needs_run("0.5dur"), needs_run([10, "2ep"]), needs_run("100ba"), needs_run(100)
    (True, True, False, False)
    """
    if isinstance(value, (list, tuple)):
        return any(needs_run(item) for item in value)
    try:
        return isinstance(value, (str, Time)) and Time.from_input(value).unit in (TimeUnit.EPOCH, TimeUnit.DURATION)
    except ValueError:
        return False


def resolve_steps(
    name: str, value: object, state: ScheduleState | None = None, ssr: float = 1.0
) -> int | float | list | None:
    """``value`` (a number, a time string or Time, a list of these, or None) as whole steps.

    Args:
        name: The argument's name, for the error.
        value: A number of steps, a time string or ``Time`` (``"1000ba"``, ``"2ep"``, ``"0.1dur"``), a list of
            these, or None.
        state: The run's state (``.max_duration``, ``.dataloader_len``), needed for ``ep`` and ``dur``.
        ssr: The scale schedule ratio: counts in steps are multiplied by it as whole counts.

    Returns:
        The whole step count (a list for a list; None for None).

    Raises:
        StepArgumentError: A value that is not a step count or a time in steps, or a time that needs the
            missing ``state``.

    >>> resolve_steps("total_iters", "100ba", ssr=0.29), resolve_steps("milestones", [10, "20ba"])
    (29, [10, 20])
    """
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return [resolve_steps(f"{name}[{i}]", v, state, ssr) for i, v in enumerate(value)]
    if isinstance(value, (str, Time)):
        return _resolve_time(name, value, state, ssr)
    if isinstance(value, bool):
        raise StepArgumentError(f"{name}={value!r} must be a number of steps or a time string such as '1000ba'")
    try:
        count = operator.index(value)
    except TypeError:
        if isinstance(value, float) and math.isfinite(value):
            return value if ssr == 1.0 else value * ssr
        raise StepArgumentError(
            f"{name}={value!r} must be a number of steps or a time string such as '1000ba', '2ep' or '0.1dur'"
        ) from None
    return count if ssr == 1.0 else whole_count(count * ssr)


def _resolve_time(name: str, value: object, state: ScheduleState | None, ssr: float) -> int | float:
    try:
        time = Time.from_input(value)
    except ValueError as error:  # timeunits' error, kept (a non-integral count stays a NonIntegralTimeError)
        raise argument_error(name, value, error) from None
    if time.unit in (TimeUnit.SAMPLE, TimeUnit.TOKEN):
        raise StepArgumentError(f"{name}={time} is in {time.unit.name.lower()}s. {_TIME_AWARE_HINT}")
    if time.unit is TimeUnit.BATCH and state is None:
        return time.value if ssr == 1.0 else whole_count(time.value * ssr)
    needs = "max_duration" if time.unit is TimeUnit.DURATION else "dataloader_len"
    max_duration = getattr(state, "max_duration", None)
    if state is None or (needs == "max_duration" and max_duration is None):
        what = "a fraction of the run" if needs == "max_duration" else "in epochs"
        raise StepArgumentError(
            f"{name}={time} is {what} and needs the run's {needs}: pass state= (anything with max_duration, "
            "dataloader_len and timestamp, e.g. schedulers.SchedulerState('10ep', dataloader_len=100)) to the "
            "scheduler or call scheduler.attach_state(state), or give a step count such as 1000 or '1000ba'"
        )
    # an epoch or batch count does not read max_duration: any valid run length stands in for a missing one
    length = max_duration if max_duration is not None else "1ba"
    run = Run(length, getattr(state, "dataloader_len", None), ssr=ssr, scaled=True)  # the state's length: scaled
    resolved = run.count(name, time)
    if resolved.unit is not TimeUnit.BATCH:
        raise StepArgumentError(
            f"{name}={time} resolves to {resolved} because max_duration is {run.max_duration}. {_TIME_AWARE_HINT}"
        )
    return resolved.value
