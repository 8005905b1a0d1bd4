"""Planning a sweep: the budgets, in order, and one point (a run folder) per budget.

A budget is a scale schedule ratio (``ssr``: the run and every schedule scaled by it, as ``cadence fit --set
trainer.init.loop.scale_schedule_ratio=R`` does) or a ``max_duration`` (the run's length; every ``dur`` of
the schedules follows it). Each point is an ordinary run folder ``OUT/<name>`` named by its budget
(``ssr-0.5``, ``max_duration-600ba``).

>>> [b.name for b in budgets_from_ssrs([1, 0.25, 0.5])]
['ssr-0.25', 'ssr-0.5', 'ssr-1.0']
>>> [str(b.value) for b in budgets_from_durations(["600ba", "150ba", "300ba"])]
['150ba', '300ba', '600ba']
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from pathlib import Path
from typing import Any

import attrs

from schedulers.core.schedule_arguments import number_argument
from timeunits import Time, TimeUnit
from timeunits.errors import argument_error

__all__ = [
    "Budget",
    "SweepPoint",
    "budgets_from_durations",
    "budgets_from_python",
    "budgets_from_ssrs",
    "config_budgets",
    "main_starts",
    "plan_points",
    "resolve_fraction",
]

SSR = "ssr"
MAX_DURATION = "max_duration"


@attrs.frozen
class Budget:
    """One budget of a sweep.

    Args:
        kind: ``"ssr"`` (a scale schedule ratio) or ``"max_duration"`` (a run length).
        value: The ratio (a float) or the length (a ``Time``).

    Returns:
        The budget: its folder :attr:`name`, the :attr:`argument` a sweep's ``make_trainer`` gets, and the
        :attr:`override` ``cadence fit`` takes.

    >>> budget = Budget("ssr", 0.5)
    >>> budget.name, budget.override
    ('ssr-0.5', 'trainer.init.loop.scale_schedule_ratio=0.5')
    """

    kind: str
    value: Any

    @property
    def name(self) -> str:
        """The point's folder name: ``ssr-0.5`` or ``max_duration-600ba``."""
        return f"{self.kind}-{self.value}"

    @property
    def argument(self) -> Any:
        """What ``make_trainer`` gets: the ratio (a float), or the run length as a time string (``"600ba"``)."""
        return self.value if self.kind == SSR else str(self.value)

    @property
    def override(self) -> str:
        """The ``--set`` of ``cadence fit`` this budget sets."""
        key = "scale_schedule_ratio" if self.kind == SSR else "max_duration"
        return f"trainer.init.loop.{key}={self.value}"


@attrs.frozen
class SweepPoint:
    """A point of a sweep: its budget and run folder, and for a WSD sweep where it branches.

    Args:
        budget: The point's budget.
        folder: The point's run folder.
        decay_start: A WSD point's decay start (None outside a WSD sweep).
        start_folder: Where the main run saved the checkpoint at the decay start (None when the decay starts at
            batch 0).
        is_main: Whether this point is the WSD sweep's main run (the longest, from which the others branch).

    Returns:
        The point, named by its budget.

    >>> point = SweepPoint(Budget("ssr", 0.5), Path("sweep/ssr-0.5"))
    >>> point.name, point.is_branch
    ('ssr-0.5', False)
    """

    budget: Budget
    folder: Path
    decay_start: Time | None = None
    start_folder: Path | None = None
    is_main: bool = False

    @property
    def name(self) -> str:
        """The point's name: its budget's (``ssr-0.5``)."""
        return self.budget.name

    @property
    def is_branch(self) -> bool:
        """Whether the point branches from the main run's checkpoint at its decay start."""
        return self.decay_start is not None and not self.is_main


def budgets_from_ssrs(values: Iterable[Any]) -> list[Budget]:
    """The budgets of scale schedule ratios, smallest first.

    Args:
        values: The ratios as given.

    Returns:
        One ``ssr`` budget per ratio.

    Raises:
        ValueError: A value that is not a finite number > 0, or a repeat.

    >>> [budget.name for budget in budgets_from_ssrs([1.0, 0.25, 0.5])]
    ['ssr-0.25', 'ssr-0.5', 'ssr-1.0']
    """
    ratios = [number_argument("ssr", value, low=0.0, low_open=True) for value in values]
    return _sorted_unique([Budget(SSR, ratio) for ratio in ratios], key=lambda b: b.value)


def budgets_from_durations(values: Iterable[Any]) -> list[Budget]:
    """The budgets of run lengths, shortest first.

    Args:
        values: Time strings or Times in ep, ba, sp or tok, all in one unit.

    Returns:
        One ``max_duration`` budget per length.

    Raises:
        ValueError: A fraction of a run (``dur``), a length <= 0, two units, or a repeat.

    >>> [budget.name for budget in budgets_from_durations(["600ba", "300ba"])]
    ['max_duration-300ba', 'max_duration-600ba']
    """
    times = []
    for value in values:
        time = _duration(value)
        if time.unit is TimeUnit.DURATION:
            raise ValueError(
                f"max_duration {value!r} is a fraction of a run: give the run's length (10ep, 600ba, 2e6tok), "
                "or use a config (cadence sweep --budgets 0.5dur ...), whose horizon the fraction is of"
            )
        if time.value <= 0:
            raise ValueError(f"max_duration {value!r} must be > 0")
        times.append(time)
    units = sorted({time.unit.value for time in times})
    if len(units) > 1:
        raise ValueError(f"the budgets {[str(t) for t in times]} mix units ({', '.join(units)}): give them in one unit")
    return _sorted_unique([Budget(MAX_DURATION, time) for time in times], key=lambda b: b.value.value)


def budgets_from_python(values: Iterable[Any]) -> list[Budget]:
    """The budgets of :func:`trainer.sweep.budget_sweep`: numbers are ssr, strings and Times max_duration.

    Args:
        values: All numbers (scale schedule ratios) or all run lengths (time strings or Times).

    Returns:
        The budgets, smallest first, as :func:`budgets_from_ssrs` or :func:`budgets_from_durations` gives them.

    Raises:
        ValueError: ``values`` is empty, mixes numbers and run lengths, or holds a value those refuse.

    >>> [budget.name for budget in budgets_from_python([0.5, 1])]
    ['ssr-0.5', 'ssr-1.0']
    >>> [budget.name for budget in budgets_from_python(["300ba"])]
    ['max_duration-300ba']
    """
    values = list(values)
    if not values:
        raise ValueError("budgets is empty: give scale schedule ratios (0.5, 1.0) or run lengths ('300ba', '2ep')")
    numbers = [_number(value) is not None for value in values]
    if all(numbers):
        return budgets_from_ssrs(values)
    if not any(numbers):
        return budgets_from_durations(values)
    raise ValueError(
        f"budgets {values!r} mix numbers (scale schedule ratios) and run lengths: give one kind "
        "(write an epoch count as '2ep')"
    )


def resolve_fraction(value: Any, horizon: Time, dataloader_len: int | None) -> Time:
    """A budget given as a fraction of ``horizon`` (``"0.25dur"``) as a run length; other times pass through.

    The fraction is read as the decimal written (0.29 is 29/100, exactly). A length in epochs that is not a
    whole number of epochs becomes batches (``dataloader_len`` per epoch).

    Args:
        value: A time string or :class:`~timeunits.Time`: a fraction of the run (``"0.25dur"``) or a length.
        horizon: The config's unscaled run length, which a fraction is of.
        dataloader_len: Batches per epoch (None: unknown; then a fraction of epochs must be whole epochs).

    Returns:
        The run length: ``fraction · horizon`` as a whole count in the horizon's unit (or batches), or ``value``
        itself when it is not a fraction.

    Raises:
        ValueError: ``value`` is not a time or not > 0, or its fraction of ``horizon`` is not a whole count.

    >>> resolve_fraction("0.25dur", Time(300, "ba"), None), resolve_fraction("0.5dur", Time(3, "ep"), 10)
    (Time(75, TimeUnit.BATCH), Time(15, TimeUnit.BATCH))
    """
    time = _duration(value)
    if time.value <= 0:
        raise ValueError(f"budget {value!r} must be > 0 (a run length, or a fraction of the horizon such as 0.5dur)")
    if time.unit is not TimeUnit.DURATION:
        return time
    fraction = Fraction(repr(float(time.value)))
    length = fraction * horizon.value
    if length.denominator == 1:
        return Time(int(length), horizon.unit)
    if horizon.unit is TimeUnit.EPOCH and dataloader_len is not None:
        batches = length * dataloader_len
        if batches.denominator == 1:
            return Time(int(batches), TimeUnit.BATCH)
    raise ValueError(
        f"budget {value!r} is {float(length):g} {horizon.unit.value} of the horizon {horizon}, not a whole count: "
        "give it as a whole run length (e.g. in ba)"
    )


def config_budgets(
    state: Any, *, ssr: Iterable[Any] | None = None, max_duration: Iterable[Any] | None = None
) -> list[Budget]:
    """The budgets of a config whose trainer has ``state``: scale schedule ratios (each checked to leave a run),
    or run lengths (``0.5dur``: a fraction of the config's unscaled horizon), smallest first.

    Args:
        state: The config's trainer state (its ``unscaled_max_duration`` and ``dataloader_len`` are read).
        ssr: Scale schedule ratios (give this or ``max_duration``).
        max_duration: Run lengths or fractions of the horizon (give this or ``ssr``).

    Returns:
        The budgets, smallest first; fractions are resolved to run lengths (:func:`resolve_fraction`).

    Raises:
        ValueError: Both or neither of ``ssr`` and ``max_duration`` are given, a ratio shrinks the run to no
            batch, or a value is refused as in :func:`budgets_from_ssrs` and :func:`resolve_fraction`.

    >>> from types import SimpleNamespace
    >>> state = SimpleNamespace(unscaled_max_duration=Time(400, "ba"), dataloader_len=None)
    >>> [budget.name for budget in config_budgets(state, max_duration=["0.5dur", "0.25dur"])]
    ['max_duration-100ba', 'max_duration-200ba']
    >>> config_budgets(state, ssr=[0.001])
    Traceback (most recent call last):
    ValueError: scale_schedule_ratio=0.001 reduces max_duration=400ba to 0ba: use a larger ratio
    """
    from schedulers.core.run import scale_max_duration

    if (ssr is None) == (max_duration is None):
        raise ValueError("give the budgets as scale schedule ratios (--ssr) or run lengths (--max-duration/--budgets)")
    if ssr is not None:
        budgets = budgets_from_ssrs(ssr)
        for budget in budgets:  # a ratio that shrinks the run to nothing is refused before any point runs
            scale_max_duration(state.unscaled_max_duration, budget.value, state.dataloader_len)
        return budgets
    horizon = state.unscaled_max_duration
    return budgets_from_durations([resolve_fraction(value, horizon, state.dataloader_len) for value in max_duration])


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _duration(value: Any) -> Time:
    if isinstance(value, Time):
        return value
    if not isinstance(value, str):
        raise ValueError(f"budget {value!r} is not a time: expected a string like '600ba', '2ep' or '0.5dur'")
    try:
        return Time.from_timestring(value)
    except ValueError as error:
        raise argument_error("budget", value, error, sep=" ") from None


def _sorted_unique(budgets: list[Budget], key) -> list[Budget]:
    seen: set[Any] = set()
    for budget in budgets:
        if key(budget) in seen:
            raise ValueError(f"budget {budget.value} is given twice")
        seen.add(key(budget))
    return sorted(budgets, key=key)


def plan_points(budgets: list[Budget], out: Path, decay_starts: dict[Any, Time] | None = None) -> list[SweepPoint]:
    """One point per budget in ``out``. With ``decay_starts`` (budget value -> decay start, see
    :mod:`trainer.sweep.wsd`) the largest budget is the main run and the others branch from the checkpoint it
    saves at their decay start, in ``out/decay-starts/<time>`` (none when the decay starts at 0).

    Args:
        budgets: The budgets, smallest first (the last one is a WSD sweep's main run).
        out: The sweep's output folder.
        decay_starts: Each budget's value to its decay start (None: not a WSD sweep; every point runs alone).

    Returns:
        One point per budget, in the order of ``budgets``, each in ``out/<budget name>``.

    >>> from pathlib import Path
    >>> budgets = budgets_from_durations(["200ba", "400ba"])
    >>> starts = {budget.value: Time(value, "ba") for budget, value in zip(budgets, (120, 320))}
    >>> branch, main = plan_points(budgets, Path("out"), starts)
    >>> branch.is_branch, branch.start_folder.as_posix(), main.is_main
    (True, 'out/decay-starts/120ba', True)
    """
    out = Path(out)
    if decay_starts is None:
        return [SweepPoint(budget, out / budget.name) for budget in budgets]
    points = []
    for budget in budgets:
        start = decay_starts[budget.value]
        if budget is budgets[-1]:
            points.append(SweepPoint(budget, out / budget.name, decay_start=start, is_main=True))
        else:
            folder = None if start.value == 0 else out / "decay-starts" / str(start)
            points.append(SweepPoint(budget, out / budget.name, decay_start=start, start_folder=folder))
    return points


def main_starts(points: list[SweepPoint]) -> dict[str, str]:
    """The decay starts the main run saves at: ``{"120ba": "OUT/decay-starts/120ba", ...}``.

    Args:
        points: A WSD sweep's plan (:func:`plan_points` with ``decay_starts``).

    Returns:
        Each branch's decay start (a time string) to the folder the main run saves its checkpoint in there;
        a branch whose decay starts at 0 needs none and is left out.

    >>> from pathlib import Path
    >>> budgets = budgets_from_durations(["100ba", "200ba", "400ba"])
    >>> starts = dict(zip([budget.value for budget in budgets], [Time(0, "ba"), Time(120, "ba"), Time(320, "ba")]))
    >>> main_starts(plan_points(budgets, Path("out"), starts))
    {'120ba': 'out/decay-starts/120ba'}
    """
    return {str(p.decay_start): str(p.start_folder) for p in points if p.is_branch and p.start_folder is not None}
