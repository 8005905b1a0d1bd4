"""See a schedule before training: whole runs as a matplotlib figure, a per-batch table or a text plot.

Every curve is one schedule over one run, evaluated in a single vectorised call
(:func:`~schedulers.core.evaluate.evaluate_run`; no Python loop over batches), so a run of a million batches
draws in about a second.
A *budget sweep* overlays several scale schedule ratios: each run is scaled as the trainer scales it
(``max_duration × ssr`` and every schedule time with it), giving one curve per (schedule, ssr).

* :func:`plot_schedules` draws the curves with matplotlib (the ``plot`` extra:
  ``pip install 'cadence[plot]'``) and returns the Figure. Lines are decimated to ``max_points`` in a way
  that keeps every jump: each bucket of batches keeps its first, lowest and highest point (and the one after
  each) and both sides of its largest change, so steps stay vertical and spikes stay visible.
* :func:`schedule_table` gives the exact per-batch values (never decimated) for CSV.
* :func:`terminal_plot` renders the curves as text (braille dots, or one marker character per curve).

Batch ``k`` trains with the value evaluated before it (as :func:`~schedulers.core.evaluate.evaluate_run`); a
plotted line holds that value across the batch (``steps-post``) and ends where the run ends.

>>> from schedulers import CosineAnnealingWithWarmupScheduler
>>> print(terminal_plot([("cosine with warmup", CosineAnnealingWithWarmupScheduler("0.1dur"))], "100ba",
...                      width=20, height=4))
lr multiplier α
1 ┤⠀⢰⠋⠉⠓⠲⠤⣄⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀
  │⠀⡞⠀⠀⠀⠀⠀⠈⠙⠲⣄⡀⠀⠀⠀⠀⠀⠀⠀⠀
  │⢰⠃⠀⠀⠀⠀⠀⠀⠀⠀⠀⠙⠲⣄⡀⠀⠀⠀⠀⠀
0 ┤⡏⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠉⠓⠦⠤⣄⣀
  └────────────────────
   0                100
       batches (ba)
  ⣿ cosine with warmup
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Iterable, Iterator
from typing import IO, Any

import attrs
import torch

from schedulers.core.clock import progress_measure
from schedulers.core.evaluate import PerBatch, RunTimeline, evaluate_timeline
from schedulers.core.run import Run, as_run
from schedulers.core.schedule import Schedule
from schedulers.core.schedule_arguments import (
    choice_argument,
    choice_problem,
    integer_argument,
    integer_problem,
    number_argument,
)
from schedulers.tools.files import write_atomically
from schedulers.tools.report import count_over
from timeunits import Time, TimeUnit

__all__ = ["RecordedValues", "ScheduleTable", "plot_schedules", "schedule_table", "terminal_plot", "text_plot"]

#: a schedule, an expression string, or a ``(label, schedule or expression)`` pair
ScheduleLike = Schedule | str | tuple[str, Schedule | str]

UNIT_LABELS = {
    TimeUnit.BATCH: "batches (ba)",
    TimeUnit.EPOCH: "epochs (ep)",
    TimeUnit.SAMPLE: "samples (sp)",
    TimeUnit.TOKEN: "tokens (tok)",
    TimeUnit.DURATION: "fraction of the run (dur)",
}


#: the y axis of multipliers (with a base value: "lr = base × α")
DEFAULT_Y_LABEL = "lr multiplier α"


class RecordedValues:
    """Values recorded at every batch of a run, one tensor per scale schedule ratio: plotted like a schedule.

    For curves that are not a closed form to evaluate (what ``cadence plot CONFIG`` records by running the
    trainer's loop without training): give ``(label, RecordedValues({ssr: values}))`` wherever a schedule is
    accepted; each run's tensor must have one value per batch of that run.

    Args:
        by_ssr: ``{ssr: values}``, one value per batch of each ratio's run.

    Returns:
        A curve for :func:`plot_schedules`, :func:`schedule_table` and :func:`terminal_plot`.

    Raises:
        ValueError: When drawn, a ratio without values, or values that do not fit its run.

    >>> table = schedule_table([("seen", RecordedValues({1.0: [1.0, 0.5]}))], "2ba")
    >>> table.column("seen")
    [1.0, 0.5]
    """

    def __init__(self, by_ssr: dict[float, torch.Tensor]) -> None:
        self.by_ssr = {float(ssr): torch.as_tensor(values, dtype=torch.float64) for ssr, values in by_ssr.items()}

    def values(self, label: str, ssr: float, timeline: RunTimeline) -> torch.Tensor:
        """The values recorded for the run of ratio ``ssr``, checked against its timeline.

        Args:
            label: The curve's label, for the error.
            ssr: The ratio whose run is drawn.
            timeline: That run's timeline (its ``num_batches`` is the length the values must have).

        Returns:
            The recorded tensor, one value per batch of the run.

        Raises:
            ValueError: No values were recorded for ``ssr``, or not one per batch of its run.

        >>> from schedulers.core.evaluate import run_timeline
        >>> RecordedValues({1.0: [1.0, 0.5]}).values("seen", 1.0, run_timeline("2ba")).tolist()
        [1.0, 0.5]
        """
        recorded = self.by_ssr.get(ssr)
        if recorded is None or recorded.shape != (timeline.num_batches,):
            have = "none" if recorded is None else f"{recorded.numel()} values"
            raise ValueError(f"{label}: recorded {have} for ssr={ssr:g}, whose run has {timeline.num_batches} batches")
        return recorded


#: what a curve is drawn from: a schedule to evaluate, or values recorded at every batch of a run
_PLOTTABLE = (Schedule, RecordedValues)


class _Curve:
    """One line: a schedule evaluated over one run (one ssr). ``values`` is α, or ``base_value × α``."""

    __slots__ = ("label", "schedule_index", "ssr_index", "ssr", "timeline", "values")

    def __init__(self, label, schedule_index, ssr_index, ssr, timeline, values) -> None:
        self.label = label
        self.schedule_index = schedule_index
        self.ssr_index = ssr_index
        self.ssr = ssr
        self.timeline = timeline
        self.values = values


class _Runs:
    """The curves of every (schedule, ssr) pair, with the x axis of each in any unit.

    ``run`` is the run as given (one :class:`~schedulers.core.run.Run`); each ratio in ``ssrs`` is that run at
    the ratio (``ssrs=None``: the run's own ratio).
    """

    def __init__(
        self,
        schedules: ScheduleLike | Iterable[ScheduleLike],
        run: Run,
        ssrs: float | Iterable[float] | None,
        base_value: float | None,
    ) -> None:
        self.run = run
        self.base_value = _base_value(base_value)
        self.labelled = _labelled(schedules)
        self.timelines = [RunTimeline(scaled) for scaled in _runs(run, ssrs)]
        self.ssrs = [timeline.run.ssr for timeline in self.timelines]
        self.curves: list[_Curve] = []
        for j, (ssr, timeline) in enumerate(zip(self.ssrs, self.timelines, strict=True)):
            for i, (label, schedule) in enumerate(self.labelled):
                alphas = _evaluate(label, schedule, timeline)
                values = alphas if self.base_value is None else alphas * self.base_value
                name = label if len(self.ssrs) == 1 else f"{label} (ssr={ssr:g})"
                self.curves.append(_Curve(name, i, j, ssr, timeline, values))
        _unique_labels(self.curves)

    def x_axis(self, curve: _Curve, unit: TimeUnit) -> tuple[torch.Tensor, float]:
        """The x of each batch of ``curve`` in ``unit`` (its count before the batch) and the x where the run ends."""
        timeline, n = curve.timeline, curve.timeline.num_batches
        if unit is TimeUnit.EPOCH:  # fractional epochs: batches / dataloader_len (counts("ep") is whole epochs)
            return timeline.counts(TimeUnit.BATCH) / timeline.dataloader_len, n / timeline.dataloader_len
        if unit is TimeUnit.DURATION:
            counted, whole = progress_measure(timeline.max_duration, timeline.dataloader_len)
            return timeline.fraction(), self.count_after(timeline, counted) / whole
        return timeline.counts(unit), self.count_after(timeline, unit)

    def count_after(self, timeline: RunTimeline, unit: TimeUnit) -> float:
        """The count in ``unit`` (ba, sp or tok) after the run's last batch (0 without per-batch counts)."""
        if unit is TimeUnit.BATCH:
            return float(timeline.num_batches)
        per_batch = self.run.samples_per_batch if unit is TimeUnit.SAMPLE else self.run.tokens_per_batch
        return float(count_over(per_batch, timeline.num_batches) or 0)

    def check_x_unit(self, x_unit: TimeUnit | str) -> TimeUnit:
        return check_x_unit(x_unit, self.run.dataloader_len, self.run.samples_per_batch, self.run.tokens_per_batch)

    def y_label(self) -> str:
        if self.base_value is None:
            return DEFAULT_Y_LABEL
        return f"lr = {self.base_value:g} × α"


def check_x_unit(
    x_unit: TimeUnit | str,
    dataloader_len: object = None,
    samples_per_batch: PerBatch = None,
    tokens_per_batch: PerBatch = None,
) -> TimeUnit:
    """``x_unit`` as a TimeUnit, or a ValueError when it is unknown or the run lacks what it needs.

    Args:
        x_unit: The x axis's unit: ``ba``, ``ep``, ``sp``, ``tok`` or ``dur``.
        dataloader_len: Batches per epoch (an ``ep`` axis needs it).
        samples_per_batch: Samples per batch (an ``sp`` axis needs them).
        tokens_per_batch: Tokens per batch (a ``tok`` axis needs them).

    Returns:
        ``x_unit`` as a :class:`~timeunits.TimeUnit`, once the run can lay out that axis.

    Raises:
        ValueError: ``x_unit`` is no unit, or the run lacks what its axis needs.

    >>> check_x_unit("ep", dataloader_len=10)
    <TimeUnit.EPOCH: 'ep'>
    >>> check_x_unit("tok")
    Traceback (most recent call last):
    ValueError: an x axis in tok needs tokens_per_batch
    """
    try:
        unit = TimeUnit(x_unit)
    except ValueError:
        raise ValueError(f"x_unit={x_unit!r} {choice_problem(x_unit, [u.value for u in TimeUnit])}") from None
    needs = {
        TimeUnit.EPOCH: (dataloader_len, "dataloader_len (batches per epoch)"),
        TimeUnit.SAMPLE: (samples_per_batch, "samples_per_batch"),
        TimeUnit.TOKEN: (tokens_per_batch, "tokens_per_batch"),
    }
    if unit in needs and needs[unit][0] is None:
        raise ValueError(f"an x axis in {unit.value} needs {needs[unit][1]}")
    return unit


def _labelled(schedules: ScheduleLike | Iterable[ScheduleLike]) -> list[tuple[str, Schedule]]:
    from schedulers.tools.expressions import parse_schedule

    if isinstance(schedules, (Schedule, str)) or (
        isinstance(schedules, tuple)
        and len(schedules) == 2
        and isinstance(schedules[0], str)
        and isinstance(schedules[1], _PLOTTABLE)
    ):
        schedules = [schedules]
    result = []
    for i, item in enumerate(schedules):
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
            label, schedule = item
        elif isinstance(item, str):
            label, schedule = item.strip(), item
        else:
            label, schedule = None, item
        if isinstance(schedule, str):
            schedule = parse_schedule(schedule)
        if not isinstance(schedule, _PLOTTABLE):
            raise TypeError(
                f"schedules[{i}]={schedule!r} is not a Cadence schedule: give a schedulers.Schedule, an expression "
                "string, or a (label, schedule) pair (wrap a function of the state with schedulers.as_schedule)"
            )
        result.append((repr(schedule) if label is None else label, schedule))
    if not result:
        raise ValueError("schedules is empty: give at least one schedule to plot")
    return result


def _runs(run: Run, ssrs: float | Iterable[float] | None) -> list[Run]:
    """``run`` at each ratio of ``ssrs`` (each checked by :class:`~schedulers.core.run.Run`; repeats dropped)."""
    if ssrs is None:
        return [run]
    if isinstance(ssrs, (int, float)) and not isinstance(ssrs, bool):
        ssrs = [ssrs]
    runs = {scaled.ssr: scaled for scaled in (attrs.evolve(run, ssr=ssr) for ssr in ssrs)}
    if not runs:
        raise ValueError("ssrs is empty: give at least one scale schedule ratio (1.0 is the unscaled run)")
    return list(runs.values())


def _base_value(base_value: float | None) -> float | None:
    return None if base_value is None else number_argument("base_value", base_value)


def _evaluate(label: str, schedule: Schedule | RecordedValues, timeline: RunTimeline) -> torch.Tensor:
    if isinstance(schedule, RecordedValues):
        return schedule.values(label, timeline.run.ssr, timeline)
    try:
        return evaluate_timeline(schedule, timeline)
    except ValueError as error:  # the schedule's own error, prefixed with the curve it belongs to
        if len(error.args) == 1 and isinstance(error.args[0], str):
            error.args = (f"{label}: {error.args[0]}",)
        raise


def _unique_labels(curves: list[_Curve]) -> None:
    seen: dict[str, int] = {}
    for curve in curves:
        count = seen.get(curve.label, 0) + 1
        seen[curve.label] = count
        if count > 1:
            curve.label = f"{curve.label} [{count}]"


def _keep(values: torch.Tensor, budget: int) -> torch.Tensor:
    """Indices (sorted) of at most ``budget`` points of ``values`` that keep its shape, jumps included.

    The run is cut into ``(budget - 1) // 7`` buckets; each keeps its first point, its lowest and its highest
    point and the point after each, and both sides of its largest change between neighbouring batches (the
    change into the next bucket included); the last point is kept too. Drawn as steps (each value held until
    the next kept point), every jump is where it happens, a one-batch spike stays one batch wide, and every
    value between two kept points lies within its bucket's range.
    """
    n = values.numel()
    if n <= budget:
        return torch.arange(n)
    change = torch.empty_like(values)  # change[i] = |values[i+1] - values[i]|, 0 after the last point
    torch.sub(values[1:], values[:-1], out=change[:-1]).abs_()
    change[-1] = 0
    buckets = max((budget - 1) // 7, 1)
    kept = _picks(values, change, buckets)
    if len(kept) < budget // 2:  # smooth stretches repeat picks: a second pass with more, smaller buckets
        finer = _picks(values, change, min(int(buckets * 0.9 * (budget - 1) / len(kept)), n))
        if len(finer) <= budget:
            kept = finer
    return kept


def _picks(values: torch.Tensor, change: torch.Tensor, buckets: int) -> torch.Tensor:
    n = values.numel()
    size = -(-n // buckets)
    full = n // size
    parts = [torch.tensor([n - 1])]
    for offset, count, length in ((0, full, size), (full * size, 1 if n > full * size else 0, n - full * size)):
        if count == 0:
            continue
        span = slice(offset, offset + count * length)
        starts = torch.arange(count) * length + offset
        low = values[span].view(count, length).argmin(dim=1) + starts
        high = values[span].view(count, length).argmax(dim=1) + starts
        jump = change[span].view(count, length).argmax(dim=1) + starts
        parts += [starts, low, low + 1, high, high + 1, jump, jump + 1]
    return torch.unique(torch.clamp(torch.cat(parts), max=n - 1))


# -- matplotlib ---------------------------------------------------------------------------------------------


def require_matplotlib() -> type:
    """matplotlib's Figure class, or an ImportError naming the plot extra to install (one line for a CLI).

    Returns:
        :class:`matplotlib.figure.Figure`, imported on first use (the tools import no matplotlib otherwise).

    Raises:
        ImportError: matplotlib is not installed; the message names ``pip install 'cadence[plot]'``.

    >>> require_matplotlib().__name__
    'Figure'
    """
    try:
        import matplotlib  # noqa: F401
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError(
            "plotting a schedule needs matplotlib, which is not installed: pip install 'cadence[plot]' "
            "(or pip install 'matplotlib>=3.7'); without it, use schedule_table() or terminal_plot()"
        ) from None
    return Figure


def plot_schedules(
    schedules: ScheduleLike | Iterable[ScheduleLike],
    max_duration: Time | str | Run,
    *,
    dataloader_len: int | None = None,
    samples_per_batch: PerBatch = None,
    tokens_per_batch: PerBatch = None,
    ssrs: float | Iterable[float] | None = None,
    x_unit: TimeUnit | str = "ba",
    base_value: float | None = None,
    ax: Any = None,
    title: str | None = None,
    max_points: int | None = 4000,
) -> Any:
    """Draw each schedule over a run of ``max_duration``, once per scale schedule ratio in ``ssrs``.

    ``schedules`` is a list of ``(label, schedule)`` pairs, schedules (labelled by their repr) or expression
    strings (see :func:`schedulers.tools.expressions.parse_schedule`). One line per (schedule, ssr), in
    ``ax.lines`` in that order (schedules first, for each ssr). ``x_unit`` is ``ba``, ``ep`` (fractional
    epochs; needs ``dataloader_len``), ``sp``/``tok`` (need ``samples_per_batch``/``tokens_per_batch``: a
    constant or one entry per batch) or ``dur`` (each run from 0 to 1). y is α, or ``base_value × α``.
    Each line has at most ``max_points`` points (``None``: every batch). Draws into ``ax`` when given, else
    into a new Figure (not managed by pyplot); returns the Figure.

    Args:
        schedules: Schedules, ``(label, schedule)`` pairs or expression strings.
        max_duration: The run's length (ep, ba, sp or tok), or a :class:`~schedulers.core.run.Run` in place of
            the run's four arguments.
        dataloader_len: Batches per epoch (needed for an ``ep`` axis or a run in epochs scaled by a ratio).
        samples_per_batch: A constant or one entry per batch (needed for an ``sp`` axis or a run in samples).
        tokens_per_batch: A constant or one entry per batch (needed for a ``tok`` axis or a run in tokens).
        ssrs: Ratios, a run each (None: the run's own, 1 unless a Run says otherwise).
        x_unit: ``ba``, ``ep``, ``sp``, ``tok`` or ``dur``.
        base_value: Plot ``base_value × α`` instead of α.
        ax: Matplotlib axes to draw into (a new Figure otherwise).
        title: The title (the run's description by default).
        max_points: Points per line at most (None: every batch).

    Returns:
        The Figure drawn into (``ax``'s when given), one line per (schedule, ssr) in ``ax.lines``.

    Raises:
        ValueError: A bad run, unit or option, or a schedule's own error prefixed with its label.
        ImportError: matplotlib is not installed (the ``plot`` extra).

    >>> from schedulers import CosineAnnealingWithWarmupScheduler
    >>> figure = plot_schedules([("cosine", CosineAnnealingWithWarmupScheduler("0.05dur"))], "10ep",
    ...                         dataloader_len=500, ssrs=[0.5, 1.0], x_unit="ep")
    >>> [line.get_label() for line in figure.axes[0].lines]
    ['cosine (ssr=0.5)', 'cosine (ssr=1)']
    """
    run = as_run(max_duration, dataloader_len, samples_per_batch=samples_per_batch, tokens_per_batch=tokens_per_batch)
    check_x_unit(x_unit, run.dataloader_len, run.samples_per_batch, run.tokens_per_batch)  # before a long run
    return _plot(_Runs(schedules, run, ssrs, base_value), x_unit=x_unit, ax=ax, title=title, max_points=max_points)


def _plot(runs: _Runs, *, x_unit, ax=None, title=None, max_points=4000, size=None):
    if max_points is not None:
        problem = integer_problem(max_points, low=16)
        if problem is not None:
            raise ValueError(f"max_points={max_points!r} {problem}, or None for every batch")
        max_points = int(max_points)
    unit = runs.check_x_unit(x_unit)
    Figure = require_matplotlib()
    own_figure = ax is None
    if own_figure:
        figure = Figure(figsize=(8, 4.5) if size is None else size, layout="constrained")
        ax = figure.add_subplot()
    else:
        figure = ax.figure
    by_ssr = len(runs.labelled) == 1  # one schedule: a colour per ssr; several: a colour per schedule
    styles = ("-", "--", ":", "-.")
    x_end, lowest = 0.0, math.inf
    for index, curve in enumerate(runs.curves):
        x, end = runs.x_axis(curve, unit)
        values = curve.values
        if max_points is not None:
            keep = _keep(values, max_points - 1)
            x, values = x[keep], values[keep]
        xs = torch.cat([x, x.new_tensor([end])]).numpy()
        ys = torch.cat([values, values[-1:]]).numpy()
        color = f"C{(curve.ssr_index if by_ssr else curve.schedule_index) % 10}"
        style = "-" if by_ssr else styles[curve.ssr_index % len(styles)]
        (line,) = ax.plot(
            xs, ys, drawstyle="steps-post", color=color, linestyle=style, linewidth=1.5, label=curve.label
        )
        line.set_gid(f"cadence-curve-{index}")  # an SVG names each curve: <g id="cadence-curve-0">
        x_end, lowest = max(x_end, end), min(lowest, float(curve.values.min()))
    ax.set_xlim(0, x_end if x_end > 0 else 1)
    if lowest >= 0:
        ax.set_ylim(bottom=0)
    ax.set_xlabel(UNIT_LABELS[unit])
    ax.set_ylabel(runs.y_label())
    if title is not None or own_figure or not ax.get_title():  # keep a title the caller's axes already have
        ax.set_title(_title(runs) if title is None else title)
    ax.grid(True, alpha=0.3)
    if own_figure:  # below the axes, where it never hides a curve
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), fontsize="small", frameon=False)
    else:
        ax.legend(loc="best", fontsize="small")
    return figure


def _title(runs: _Runs) -> str:
    parts = [f"max_duration={runs.run.max_duration}"]
    if runs.run.dataloader_len is not None:
        parts.append(f"dataloader_len={runs.run.dataloader_len}")
    if len(runs.ssrs) > 1:
        parts.append("each run scaled by its ssr")
    return ", ".join(parts)


# -- the exact table --------------------------------------------------------------------------------------


class ScheduleTable:
    """Per-batch rows of whole runs, exact (never decimated): iterate for tuples, :meth:`write_csv` for a file.

    Columns: ``batch``, ``epoch``, ``sample``, ``token`` (counts before the batch; empty when the run does not
    count that unit: no ``dataloader_len``, ``samples_per_batch`` or ``tokens_per_batch``), ``dur`` (the
    fraction of the run; one ``dur (ssr=…)`` column per ratio when several runs are compared), then one
    column per curve. A run shorter than the longest has empty cells (``None``) after its end.

    Args:
        header: The column names.
        columns: One tensor per column (None: an empty column).
        integer: Whether each column holds counts.
        rows: The number of rows.

    Returns:
        A table of ``rows`` rows whose :meth:`column` and iteration give the cells, and :meth:`write_csv` the file.

    >>> from schedulers import LinearScheduler
    >>> schedule_table([("linear", LinearScheduler())], "4ba").column("linear")
    [1.0, 0.75, 0.5, 0.25]
    """

    def __init__(self, header: list[str], columns: list[torch.Tensor | None], integer: list[bool], rows: int) -> None:
        self.header = header
        self._columns = columns
        self._integer = integer
        self._rows = rows

    def __len__(self) -> int:
        return self._rows

    def column(self, name: str) -> list:
        """The values of the column ``name`` (None in empty cells).

        Args:
            name: A column's name, as in :attr:`header`.

        Returns:
            One value per row: an int in a count column, a float in a value column, None past a run's end or in
            a column the run does not count.

        Raises:
            ValueError: No column has that name.

        >>> from schedulers import LinearScheduler
        >>> schedule_table([("linear", LinearScheduler())], "2ba").column("dur")
        [0.0, 0.5]
        """
        return self._values(self.header.index(name))

    def _values(self, j: int) -> list:
        column, n = self._columns[j], self._rows
        if column is None:
            return [None] * n
        values = (column.to(torch.int64) if self._integer[j] else column).tolist()
        return values + [None] * (n - len(values))

    def __iter__(self) -> Iterator[tuple]:
        return zip(*(self._values(j) for j in range(len(self.header))), strict=True)

    def write_csv(self, file: IO[str] | str | os.PathLike) -> None:
        """Write the header and every row as CSV (floats in their shortest exact form: they parse back equal).

        Args:
            file: An open text file, or a path: the file is written whole or not at all (atomically: an
                interrupted write leaves a file already there unchanged).

        >>> import io
        >>> from schedulers import LinearScheduler
        >>> out = io.StringIO()
        >>> schedule_table([("linear", LinearScheduler())], "2ba").write_csv(out)
        >>> out.getvalue().splitlines()
        ['batch,epoch,sample,token,dur,linear', '0,,,,0.0,1.0', '1,,,,0.5,0.5']
        """
        if isinstance(file, (str, os.PathLike)):
            write_atomically(file, self.write_csv, newline="")
            return
        csv.writer(file, lineterminator="\n").writerow(self.header)  # labels may need quoting; numbers never do
        n, chunk = self._rows, 65536
        for begin in range(0, n, chunk):
            stop = min(begin + chunk, n)
            cells = [self._cells(j, begin, stop) for j in range(len(self.header))]
            file.write("".join(line + "\n" for line in map(",".join, zip(*cells, strict=True))))

    def _cells(self, j: int, begin: int, stop: int) -> list[str]:
        column = self._columns[j]
        if column is None:
            return [""] * (stop - begin)
        part = column[begin:stop]
        text = list(map(str, part.to(torch.int64).tolist())) if self._integer[j] else list(map(repr, part.tolist()))
        return text + [""] * (stop - begin - len(text))


def schedule_table(
    schedules: ScheduleLike | Iterable[ScheduleLike],
    max_duration: Time | str | Run,
    *,
    dataloader_len: int | None = None,
    samples_per_batch: PerBatch = None,
    tokens_per_batch: PerBatch = None,
    ssrs: float | Iterable[float] | None = None,
    base_value: float | None = None,
) -> ScheduleTable:
    """The exact value of every curve at every batch (the arguments are :func:`plot_schedules`'s).

    Args:
        schedules: Schedules, ``(label, schedule)`` pairs or expression strings.
        max_duration: The run's length (ep, ba, sp or tok), or a :class:`~schedulers.core.run.Run` in place of
            the run's four arguments.
        dataloader_len: Batches per epoch (needed for an ``ep`` axis or a run in epochs scaled by a ratio).
        samples_per_batch: A constant or one entry per batch (needed for an ``sp`` axis or a run in samples).
        tokens_per_batch: A constant or one entry per batch (needed for a ``tok`` axis or a run in tokens).
        ssrs: Ratios, a run each (None: the run's own, 1 unless a Run says otherwise).
        base_value: Tabulate ``base_value × α`` instead of α.

    Returns:
        A :class:`ScheduleTable`: one row per batch of the longest run, the counts before it and each curve's
        value.

    Raises:
        ValueError: A bad run, or a schedule's own error prefixed with its label.

    >>> from schedulers import StepScheduler
    >>> table = schedule_table([("step", StepScheduler("2ba", gamma=0.5))], "4ba", dataloader_len=2)
    >>> table.header, list(table)
    (['batch', 'epoch', 'sample', 'token', 'dur', 'step'], [(0, 0, None, None, 0.0, 1.0), \
(1, 0, None, None, 0.25, 1.0), (2, 1, None, None, 0.5, 0.5), (3, 1, None, None, 0.75, 0.5)])
    """
    run = as_run(max_duration, dataloader_len, samples_per_batch=samples_per_batch, tokens_per_batch=tokens_per_batch)
    return _table(_Runs(schedules, run, ssrs, base_value))


def _table(runs: _Runs) -> ScheduleTable:
    longest = max(runs.timelines, key=lambda t: t.num_batches)
    header = ["batch", "epoch", "sample", "token"]
    columns: list[torch.Tensor | None] = [
        longest.counts(TimeUnit.BATCH),
        None if runs.run.dataloader_len is None else longest.counts(TimeUnit.EPOCH),
        None if runs.run.samples_per_batch is None else longest.counts(TimeUnit.SAMPLE),
        None if runs.run.tokens_per_batch is None else longest.counts(TimeUnit.TOKEN),
    ]
    integer = [True] * 4
    for ssr, timeline in zip(runs.ssrs, runs.timelines, strict=True):
        header.append("dur" if len(runs.ssrs) == 1 else f"dur (ssr={ssr:g})")
        columns.append(timeline.fraction())
        integer.append(False)
    for curve in runs.curves:
        header.append(curve.label)
        columns.append(curve.values)
        integer.append(False)
    return ScheduleTable(header, columns, integer, longest.num_batches)


# -- text -----------------------------------------------------------------------------------------------------

_BRAILLE_BITS = torch.tensor([[0x01, 0x08], [0x02, 0x10], [0x04, 0x20], [0x40, 0x80]], dtype=torch.int64)
_MARKERS = "*o+x#@%&"
_COLORS = (34, 31, 32, 33, 35, 36)  # ANSI: blue, red, green, yellow, magenta, cyan


def terminal_plot(
    schedules: ScheduleLike | Iterable[ScheduleLike],
    max_duration: Time | str | Run,
    *,
    dataloader_len: int | None = None,
    samples_per_batch: PerBatch = None,
    tokens_per_batch: PerBatch = None,
    ssrs: float | Iterable[float] | None = None,
    x_unit: TimeUnit | str = "ba",
    base_value: float | None = None,
    title: str | None = None,
    width: int = 72,
    height: int = 16,
    style: str | None = None,
    color: bool = False,
) -> str:
    """The curves of :func:`plot_schedules` as text: a ``width`` × ``height`` character canvas, axes, legend.

    ``style="braille"`` draws 2 × 4 dots per character; ``"ascii"`` one marker character per curve (``*``,
    ``o``, ``+``, ...), later curves on top. The default is braille for one curve or with ``color=True`` (an
    ANSI colour per curve), else markers, so overlaid curves stay distinguishable in plain text. The y axis
    is labelled with the minimum and maximum value, the x axis with the start and the end of the longest run.

    Args:
        schedules: Schedules, ``(label, schedule)`` pairs or expression strings.
        max_duration: The run's length (ep, ba, sp or tok), or a :class:`~schedulers.core.run.Run` in place of
            the run's four arguments.
        dataloader_len: Batches per epoch (needed for an ``ep`` axis or a run in epochs scaled by a ratio).
        samples_per_batch: A constant or one entry per batch (needed for an ``sp`` axis or a run in samples).
        tokens_per_batch: A constant or one entry per batch (needed for a ``tok`` axis or a run in tokens).
        ssrs: Ratios, a run each (None: the run's own, 1 unless a Run says otherwise).
        x_unit: ``ba``, ``ep``, ``sp``, ``tok`` or ``dur``.
        base_value: Plot ``base_value × α`` instead of α.
        title: A first line (none by default).
        width: Characters across (>= 8).
        height: Characters down (>= 2).
        style: ``braille``, ``ascii`` or None (braille for one curve or with ``color``, else markers).
        color: An ANSI colour per curve.

    Returns:
        The plot as lines of text, laid out as :func:`text_plot` lays them (the axes labelled in ``x_unit``).

    Raises:
        ValueError: A bad run, unit or option, or a schedule's own error prefixed with its label.

    >>> from schedulers import StepScheduler
    >>> terminal_plot(StepScheduler("5ba", gamma=0.5), "10ba", width=10, height=2).splitlines()[1]
    '  1 ┤⠉⠉⠉⠉⠉⡇⠀⠀⠀⠀'
    """
    run = as_run(max_duration, dataloader_len, samples_per_batch=samples_per_batch, tokens_per_batch=tokens_per_batch)
    check_x_unit(x_unit, run.dataloader_len, run.samples_per_batch, run.tokens_per_batch)  # before a long run
    runs = _Runs(schedules, run, ssrs, base_value)
    return _text(runs, x_unit=x_unit, title=title, width=width, height=height, style=style, color=color)


def _text(runs: _Runs, *, x_unit, title=None, width=72, height=16, style=None, color=False) -> str:
    """The text plot of the runs' curves (see :func:`text_plot`)."""
    unit = runs.check_x_unit(x_unit)
    lines = [(curve.label, *runs.x_axis(curve, unit), curve.values) for curve in runs.curves]
    return text_plot(
        lines,
        x_label=UNIT_LABELS[unit],
        y_label=runs.y_label(),
        title=title,
        width=width,
        height=height,
        style=style,
        color=color,
    )


def text_plot(
    lines: list[tuple[str, torch.Tensor, float, torch.Tensor]],
    *,
    x_label: str,
    y_label: str,
    title: str | None = None,
    width: int = 72,
    height: int = 16,
    style: str | None = None,
    color: bool = False,
) -> str:
    """Any curves as text, drawn as :func:`terminal_plot` draws schedules: ``lines`` holds ``(label, x, end,
    values)`` per curve (``values[i]`` holds from ``x[i]`` to the next x, the last one to ``end``); the canvas
    is ``width`` × ``height`` characters, with axes labelled ``x_label`` and ``y_label`` and a legend.

    Args:
        lines: ``(label, x, end, values)`` per curve.
        x_label: The x axis's label.
        y_label: The y axis's label.
        title: A first line.
        width: Characters across (>= 8).
        height: Characters down (>= 2).
        style: ``braille``, ``ascii`` or None (automatic).
        color: ANSI colours.

    Returns:
        The plot as lines of text: the title, the y label, the canvas with its y labels, the x axis, the legend.

    Raises:
        ValueError: A bad size or style, or values that are not finite.

    >>> x = torch.arange(4.0)
    >>> text_plot([("up", x, 4.0, x)], x_label="batches", y_label="y", width=8, height=2).splitlines()[0]
    'y'
    """
    style = _check_text_options(len(lines), width, height, style, color)
    width, height = int(width), int(height)
    cols, rows = (width * 2, height * 4) if style == "braille" else (width, height)
    x_end = max(end for _, _, end, _ in lines) or 1.0
    span_low, span_high = _y_span([values for *_, values in lines])
    grids = [_raster(x, end, values, x_end, span_low, span_high, cols, rows) for _, x, end, values in lines]
    cells, owner = _braille(grids, width, height) if style == "braille" else _markers(grids, width, height)
    paint = _painter(color)
    top, bottom = _number(span_high), _number(span_low)
    margin = max(len(top), len(bottom))
    text = [] if title is None else [title]
    text.append(y_label)
    for r in range(height):
        label = top if r == 0 else bottom if r == height - 1 else ""
        tick = "┤" if label else "│"
        text.append(f"{label:>{margin}} {tick}{_row_text(cells[r], owner[r], paint)}")
    text.append(" " * margin + " └" + "─" * width)
    left, right = "0", _number(x_end, digits=6)
    text.append(" " * (margin + 2) + left + right.rjust(width - len(left)))
    text.append(" " * (margin + 2) + x_label.center(width).rstrip())
    for index, (label, *_) in enumerate(lines):
        marker = "⣿" if style == "braille" else _MARKERS[index % len(_MARKERS)]
        text.append(f"  {paint(marker, index if color or style == 'ascii' else -1)} {label}")
    return "\n".join(text)


def _check_text_options(curves: int, width, height, style, color) -> str:
    """Check the text plot's size and style; the style to draw with (braille for one curve or with colour)."""
    for name, value, low in (("width", width, 8), ("height", height, 2)):
        integer_argument(name, value, low=low, why="characters")
    if style is None:  # automatic
        return "braille" if curves == 1 or color else "ascii"
    return choice_argument("style", style, ("braille", "ascii"))


def _y_span(curves: list[torch.Tensor]) -> tuple[float, float]:
    """The y range of every curve (a constant is centred in a span of its own size, or 1)."""
    y_low = min(float(values.min()) for values in curves)
    y_high = max(float(values.max()) for values in curves)
    if not (math.isfinite(y_low) and math.isfinite(y_high)):
        raise ValueError("a curve has values that are not finite: it cannot be drawn")
    if y_high == y_low:
        return y_low - (abs(y_low) or 1.0) / 2, y_high + (abs(y_high) or 1.0) / 2
    return y_low, y_high


def _markers(grids: list[torch.Tensor], width: int, height: int) -> tuple[list[list[str]], list[list[int]]]:
    """ASCII cells: one marker character per curve (a later curve draws over an earlier one)."""
    cells = [[" "] * width for _ in range(height)]
    owner = [[-1] * width for _ in range(height)]
    for index, grid in enumerate(grids):
        marker = _MARKERS[index % len(_MARKERS)]
        for r, c in grid.nonzero().tolist():
            cells[r][c], owner[r][c] = marker, index
    return cells, owner


def _painter(color: bool):
    """``paint(text, curve_index)``: the text in the curve's colour (unchanged without colour or owner)."""

    def paint(text: str, index: int) -> str:
        if not color or index < 0:
            return text
        return f"\x1b[{_COLORS[index % len(_COLORS)]}m{text}\x1b[0m"

    return paint


def _row_text(cells: list[str], owner: list[int], paint) -> str:
    """One row of cells; runs of one owner share one colour code."""
    pieces, c, width = [], 0, len(cells)
    while c < width:
        end = c + 1
        while end < width and owner[end] == owner[c]:
            end += 1
        pieces.append(paint("".join(cells[c:end]), owner[c]))
        c = end
    return "".join(pieces)


def _raster(
    x: torch.Tensor, end: float, values: torch.Tensor, x_end: float, y_low: float, y_high: float, cols: int, rows: int
) -> torch.Tensor:
    """A ``rows × cols`` boolean grid of one curve: in each column, every row the curve passes through.

    Each column covers ``[c, c+1) · x_end / cols``; it holds the points inside it and the value in force at its
    left edge (the previous point), so jumps are drawn as vertical strokes and the line is unbroken.
    """
    column = torch.clamp((x / x_end * cols).floor().to(torch.int64), 0, cols - 1)
    row = torch.clamp(((y_high - values) / (y_high - y_low) * (rows - 1)).round().to(torch.int64), 0, rows - 1)
    big = rows + 1
    lo = torch.full((cols,), big, dtype=torch.int64).scatter_reduce(0, column, row, "amin")
    hi = torch.full((cols,), -1, dtype=torch.int64).scatter_reduce(0, column, row, "amax")
    start = torch.searchsorted(column, torch.arange(cols))  # the first point in or after each column
    has_prev = start > 0
    prev = row[(start - 1).clamp(min=0)]
    lo = torch.minimum(lo, torch.where(has_prev, prev, big))
    hi = torch.maximum(hi, torch.where(has_prev, prev, -1))
    inside = torch.arange(cols, dtype=torch.float64) * (x_end / cols) < end
    hi = torch.where(inside, hi, -1)
    r = torch.arange(rows).unsqueeze(1)
    return (r >= lo) & (r <= hi)


def _braille(grids: list[torch.Tensor], width: int, height: int) -> tuple[list[list[str]], list[list[int]]]:
    """Characters of the union of the dot grids, and which curve (the last drawn) owns each character."""
    owner = torch.full((height, width), -1, dtype=torch.int64)
    bits = torch.zeros((height, width), dtype=torch.int64)
    for index, grid in enumerate(grids):
        cell_bits = (grid.view(height, 4, width, 2).to(torch.int64) * _BRAILLE_BITS.view(1, 4, 1, 2)).sum(dim=(1, 3))
        bits |= cell_bits
        owner = torch.where(cell_bits > 0, index, owner)
    cells = [[chr(0x2800 + b) for b in row] for row in bits.tolist()]
    return cells, owner.tolist()


def _number(value: float, digits: int = 4) -> str:
    if digits > 4 and float(value).is_integer() and abs(value) < 1e15:  # an x axis end: 1000000, not 1e+06
        return str(int(value))
    text = f"{value:.{digits}g}"
    return "0" if text == "-0" else text
