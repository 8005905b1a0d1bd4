"""A plain-text report of schedules over one run: its length in every unit, every time argument resolved,
and the multiplier (and the hyperparameter's value) at the points where the schedule changes course.

:func:`schedule_report_rows` computes the report as a list of dicts (one per line of the report, each with a
``"kind"``); :func:`schedule_report` renders those rows as text. Both evaluate the run the way the trainer
does (:func:`~schedulers.core.evaluate.run_timeline`, :func:`~schedulers.core.evaluate.evaluate_run`): batch ``k``
trains with α at the count *before* it, the run stops after the batch that reaches ``max_duration``, and
``ssr`` scales ``max_duration`` first. ``last batch`` is the last value the run trains with; ``end`` is the
schedule at the count after the last batch (where its curve ends; no batch trains with it).

>>> from schedulers import CosineAnnealingWithWarmupScheduler
>>> cosine = CosineAnnealingWithWarmupScheduler(t_warmup="0.05dur", alpha_f=0.1)
>>> print(schedule_report([("cosine", cosine, "lr")], "10ep", dataloader_len=250, base_values={"lr": 0.001}))
run: max_duration 10ep
  batches  2,500
  epochs      10  (250 batches per epoch)
<BLANKLINE>
lr: cosine
  schedule   CosineAnnealingWithWarmupScheduler(t_warmup='0.05dur', t_max='1.0dur', alpha_f=0.1, scale_warmup=False)
  counts in  ba
  base lr    0.001
  times
    t_warmup  0.05dur  = 125ba
    t_max     1.0dur   = 2,500ba  (end of run)
  values
    point       batch  alpha      lr
    start           0      0       0
    t_warmup      125      1   0.001
    last batch  2,499    0.1  0.0001
    t_max, end  2,500    0.1  0.0001

Formatting is deterministic: counts with thousands separators, other numbers with six significant digits
(``format(x, ",.6g")``, and ``0`` for a zero of either sign).

Step-indexed schedulers (torch, Cerebras, SambaFlow) are reported too: :func:`stepped_report_rows` (from
:mod:`schedulers.tools.stepped`) steps a deep copy of one through the run and gives rows of the same kinds,
which :func:`render_report` renders after the Cadence schedules. :func:`times_beyond_the_run` reads any of
these rows and names each warmup, ``total_iters`` or milestone that lies beyond the end of the run.

Kinds of rows and their keys:

* ``"run"``: ``max_duration`` (as given), ``ssr``, ``length`` (the scaled length the run trains: ``Run.length``),
  ``dataloader_len``;
* ``"length"``: the run's length in one unit: ``unit`` (``ba``, ``ep``, ``sp``, ``tok``), ``count`` (an int;
  epochs a float when not whole, with ``full_epochs`` and ``extra_batches``), ``per_batch`` (the constant,
  ``"tensor"``, or the batches per epoch for ``ep``);
* ``"schedule"``: ``index``, ``label``, ``hyperparameter``, ``schedule`` (its repr), ``unit`` (the unit it counts
  in; None for a function of the state), ``base_value``;
* ``"scheduler"``: a step-indexed scheduler (see :func:`stepped_report_rows`);
* ``"time"``: a time argument: ``index``, ``argument`` (``t_warmup``, ``schedules[1].t_max``), ``given`` (the
  time string as written, or None), ``resolved`` and ``count``/``unit`` (for a child of a :class:`Sequence`,
  counted from its segment's start, ``offset``), ``point`` and ``position``: where it takes effect in the run,
  a count (the argument itself at ``offset + count``; a length is placed where it ends:
  ``decay start`` = ``t_max - t_decay``, ``end of first cycle`` = ``t_up + t_down``), ``reached`` (``"run"``,
  ``"end"``: at the run's end, or ``"after"``: beyond it) and ``batch`` (the first batch trained at a count
  >= ``position``, None unless ``reached == "run"``);
* ``"value"``: ``index``, ``point`` (``"start"``, argument names, ``"last batch"``, ``"end"``; several joined by
  ``", "`` when they fall on one batch), ``batch`` (``num_batches`` for the end, the count after the last
  batch), ``count`` (in the schedule's unit, before that batch), ``alpha``, ``value``;
* ``"combined"``: for a hyperparameter written by several schedules (their multipliers multiply):
  ``hyperparameter``, ``labels``, ``point``, ``batch``, ``alpha`` (the product), ``value``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import torch

from schedulers.core.clock import SchedulerState, after_batches
from schedulers.core.evaluate import PerBatch, RunTimeline, evaluate_timeline, run_timeline
from schedulers.core.run import Run, as_run
from schedulers.core.schedule import FunctionSchedule, Schedule
from schedulers.tools.stepped import run_steps, stepped_report_rows
from timeunits import Time, TimeUnit

__all__ = [
    "render_report",
    "resolved_times_report",
    "run_steps",
    "schedule_report",
    "schedule_report_rows",
    "stepped_report_rows",
    "times_beyond_the_run",
]

Entry = tuple[str, Schedule, str]

# A time argument that is a length, not a position: the point where it takes effect is derived from a sibling.
_DERIVED_POINTS = {
    "t_decay": ("t_max", -1, "decay start"),  # WarmupStableDecay: the decay starts at t_max - t_decay
    "t_down": ("t_up", +1, "end of first cycle"),  # Cyclic: the first cycle ends at t_up + t_down
}


# -- rows ------------------------------------------------------------------------------------------------


def schedule_report_rows(
    schedules: Schedule | Iterable[Schedule | tuple],
    max_duration: Time | str | Run,
    *,
    dataloader_len: int | Time | None = None,
    samples_per_batch: PerBatch = None,
    tokens_per_batch: PerBatch = None,
    ssr: float = 1.0,
    base_values: Mapping[str, float] | float | None = None,
) -> list[dict[str, Any]]:
    """The report as data: a list of dicts, each with a ``"kind"`` (see the module docs for the kinds and their
    keys), in the order :func:`schedule_report` prints.

    Args:
        schedules: A schedule, or a list of schedules and ``(label, schedule, hyperparameter)`` tuples
            (``(label, schedule)`` means the hyperparameter ``"lr"``; a bare schedule is labelled with its class
            name).
        max_duration: The run's length as written, or a :class:`~schedulers.core.run.Run` (then without the
            other parts of a run): the run ``Trainer(max_duration=..., scale_schedule_ratio=ssr)`` trains.
        dataloader_len: Batches per epoch.
        samples_per_batch: Samples per batch (a constant or one entry per batch).
        tokens_per_batch: Tokens per batch.
        ssr: The scale schedule ratio.
        base_values: Hyperparameter -> base value (a number applies to every hyperparameter); a row's
            ``value`` is ``base × alpha``, or None without a base.

    Returns:
        The ``"run"`` row, then each schedule's rows (resolved times, values at its points): what is printed.

    Raises:
        TypeError: ``schedules`` is not a schedule or a list of them.
        ValueError: A bad run, or a schedule's own checks for it (with a note naming the schedule).

    >>> from schedulers import StepScheduler
    >>> rows = schedule_report_rows(StepScheduler("20ba"), "100ba", ssr=0.5)
    >>> rows[0]["length"], [row["count"] for row in rows if row["kind"] == "time"]
    ('50ba', [10])
    """
    entries = _entries(schedules)
    timeline = run_timeline(
        max_duration, dataloader_len, samples_per_batch=samples_per_batch, tokens_per_batch=tokens_per_batch, ssr=ssr
    )
    rows, totals = _run_rows(timeline)
    reported = []
    for index, (label, schedule, hyperparameter) in enumerate(entries):
        base = _base_value(base_values, hyperparameter)
        try:
            entry_rows, alphas, end_alpha = _schedule_rows(
                index, label, schedule, hyperparameter, base, timeline, totals
            )
        except Exception as error:
            error.add_note(f"while reporting schedule {index} ({label!r}, {hyperparameter})")
            raise
        rows += entry_rows
        reported.append(((label, schedule, hyperparameter), entry_rows, alphas, end_alpha))
    for hyperparameter in dict.fromkeys(entry[0][2] for entry in reported):
        members = [entry for entry in reported if entry[0][2] == hyperparameter]
        if len(members) > 1:
            rows += _combined_rows(hyperparameter, members, _base_value(base_values, hyperparameter), timeline)
    return rows


def _run_rows(timeline: RunTimeline) -> tuple[list[dict[str, Any]], dict[TimeUnit, Any]]:
    """The run's row and its length rows; and its totals in ba, sp and tok (None where nothing is counted)."""
    run, n = timeline.run, timeline.num_batches
    head = {"kind": "run", "max_duration": str(run.max_duration), "ssr": run.ssr, "length": str(run.length)}
    head["dataloader_len"] = run.dataloader_len
    totals = {
        TimeUnit.BATCH: n,
        TimeUnit.SAMPLE: count_over(run.samples_per_batch, n),
        TimeUnit.TOKEN: count_over(run.tokens_per_batch, n),
    }
    return [head, *_length_rows(timeline, totals)], totals


def _entries(schedules: object) -> list[Entry]:
    if isinstance(schedules, Schedule) or _is_entry_tuple(schedules):
        schedules = [schedules]
    if isinstance(schedules, (str, Mapping)) or not isinstance(schedules, Iterable):
        raise TypeError(
            f"schedules must be a schedule or a list of schedules and (label, schedule, hyperparameter) "
            f"tuples, got {schedules!r}"
        )
    entries = []
    for i, item in enumerate(schedules):
        if isinstance(item, Schedule):
            entries.append((type(item).__name__, item, "lr"))
        elif _is_entry_tuple(item):
            label, schedule, *rest = item
            hyperparameter = rest[0] if rest else "lr"
            if not isinstance(hyperparameter, str):
                raise TypeError(
                    f"schedules[{i}]: the hyperparameter must be a param-group key such as 'lr', got {hyperparameter!r}"
                )
            entries.append((label, schedule, hyperparameter))
        else:
            raise TypeError(
                f"schedules[{i}]={item!r} is neither a Cadence schedule nor a (label, schedule, hyperparameter) tuple"
            )
    if not entries:
        raise ValueError("schedules is empty: give at least one schedule to report")
    return entries


def _is_entry_tuple(item: object) -> bool:
    return (
        isinstance(item, tuple) and len(item) in (2, 3) and isinstance(item[0], str) and isinstance(item[1], Schedule)
    )


def _base_value(base_values: Mapping[str, float] | float | None, hyperparameter: str) -> float | None:
    if base_values is None:
        return None
    if isinstance(base_values, Mapping):
        value = base_values.get(hyperparameter)
        return None if value is None else float(value)
    return float(base_values)


def count_over(per_batch: PerBatch, num_batches: int) -> int | float | None:
    """The exact count of samples (or tokens) over the first ``num_batches`` batches: the run's total in that unit.

    Args:
        per_batch: The count in each batch: a number, a 1-D tensor of one entry per batch, or None.
        num_batches: How many batches are counted.

    Returns:
        The total, an int when it is whole; None when there are no per-batch counts.

    >>> import torch
    >>> count_over(512, 10), count_over(torch.tensor([3, 4, 5]), 2), count_over(None, 10)
    (5120, 7, None)
    """
    if per_batch is None:
        return None
    if not isinstance(per_batch, torch.Tensor):
        total = per_batch * num_batches
        return int(total) if float(total).is_integer() else float(total)
    values = per_batch[:num_batches]
    if not values.is_floating_point():
        return int(values.to(torch.int64).sum())
    values = values.to(torch.float64)
    if bool(torch.all(values == torch.round(values))):
        return int(values.to(torch.int64).sum())
    return float(values.sum())


def _length_rows(timeline: RunTimeline, totals) -> list[dict[str, Any]]:
    n, samples, tokens = timeline.num_batches, timeline.run.samples_per_batch, timeline.run.tokens_per_batch
    rows = [{"kind": "length", "unit": "ba", "count": n, "per_batch": None}]
    if timeline.dataloader_len is not None:
        end = after_batches(n, timeline.dataloader_len)  # the clock's rule: epochs closed, batches past them
        full, extra = end.epoch.value, end.batch_in_epoch.value
        rows.append(
            {
                "kind": "length",
                "unit": "ep",
                "count": full if extra == 0 else n / timeline.dataloader_len,
                "full_epochs": full,
                "extra_batches": extra,
                "per_batch": timeline.dataloader_len,
            }
        )
    for unit, per_batch in ((TimeUnit.SAMPLE, samples), (TimeUnit.TOKEN, tokens)):
        if per_batch is not None:
            shown = "tensor" if isinstance(per_batch, torch.Tensor) else per_batch
            rows.append({"kind": "length", "unit": unit.value, "count": totals[unit], "per_batch": shown})
    return rows


def _schedule_rows(index, label, schedule, hyperparameter, base, timeline, totals):
    """The rows of one schedule: its head, its time arguments, its values; also α at every batch and at the end."""
    common = {"index": index, "label": label, "hyperparameter": hyperparameter}
    alphas = evaluate_timeline(schedule, timeline)
    if isinstance(schedule, FunctionSchedule):
        unit, times, origins, curve = None, {}, {}, None
    else:
        curve = schedule.curve(timeline.run)  # the curve evaluate_timeline used: resolved once for the run
        unit, times, origins = curve.unit, curve.times, curve.origins
    head = {
        "kind": "schedule",
        **common,
        "schedule": repr(schedule),
        "unit": None if unit is None else unit.value,
        "base_value": base,
    }
    axis = timeline.counts(unit) if unit is not None else None
    end_count = None
    if unit is not None:
        end_count = totals.get(unit) or 0  # no per-batch counts: the count stays 0 (docs/trainer.md)
    time_rows = _time_rows(common, schedule, times, origins, axis, end_count)
    n = timeline.num_batches
    labels: dict[int, list[str]] = {0: ["start"]}
    for row in time_rows:
        if row["reached"] != "after":
            labels.setdefault(row["batch"] if row["reached"] == "run" else n, []).append(row["point"])
    labels.setdefault(n - 1, []).append("last batch")
    labels.setdefault(n, []).append("end")
    end_alpha = _end_alpha(schedule, curve, timeline, end_count, totals)
    value_rows = []
    for batch in sorted(labels):
        alpha = end_alpha if batch == n else float(alphas[batch])
        count = None if unit is None else end_count if batch == n else _as_count(axis[batch])
        value_rows.append(
            {"kind": "value", **common, "point": ", ".join(labels[batch]), "batch": batch, "count": count}
            | {"unit": head["unit"], "alpha": alpha, "value": None if base is None else base * alpha}
        )
    return [head, *time_rows, *value_rows], alphas, end_alpha


def _time_rows(common, schedule, times: dict[str, Time], origins, axis, end_count) -> list[dict[str, Any]]:
    """Each time argument at the position of the run where it takes effect (a length where it ends): a
    ``Sequence`` child's counts from its segment's start (:attr:`Curve.origins <schedulers.core.schedule.Curve>`)."""
    positions = {name: origins.get(name, 0) + time.value for name, time in times.items()}
    rows = []
    for name, time in times.items():
        given, offset = _given(schedule, name), origins.get(name, 0)
        point, position = name, positions[name]
        prefix, leaf = _split_leaf(name)
        if leaf in _DERIVED_POINTS and prefix + _DERIVED_POINTS[leaf][0] in positions:
            sibling, sign, derived = _DERIVED_POINTS[leaf]
            point, position = prefix + derived, positions[prefix + sibling] + sign * time.value
        batch, reached = _reached(axis, position, end_count)
        rows.append(
            {"kind": "time", **common, "argument": name, "given": None if given is None else str(given)}
            | {"resolved": str(time), "count": time.value, "unit": time.unit.value, "offset": offset}
            | {"point": point, "position": position, "reached": reached, "batch": batch}
        )
    return rows


def _end_alpha(schedule, curve, timeline: RunTimeline, end_count, totals) -> float:
    """α at the count after the last batch (the curve's end point; no batch trains with it)."""
    if curve is not None:
        out = curve.fn(torch.tensor([float(end_count)], dtype=torch.float64))
        return float(torch.as_tensor(out, dtype=torch.float64).reshape(-1)[0])
    samples, tokens = int(totals[TimeUnit.SAMPLE] or 0), int(totals[TimeUnit.TOKEN] or 0)
    timestamp = after_batches(timeline.num_batches, timeline.dataloader_len, samples, tokens)
    return float(schedule.bind(timeline.run)(SchedulerState(timeline.max_duration, timestamp, timeline.dataloader_len)))


def _as_count(x: torch.Tensor) -> int | float:
    value = float(x)
    return int(value) if value.is_integer() else value


def _reached(axis: torch.Tensor | None, position: int, end_count) -> tuple[int | None, str]:
    """The first batch trained at a count >= ``position``, and whether that is in the run, at its end or after."""
    if axis is None:
        return None, "after"
    batch = int(torch.searchsorted(axis, torch.tensor([float(position)], dtype=axis.dtype), side="left")[0])
    if batch < axis.numel():
        return batch, "run"
    return None, "end" if position <= end_count else "after"


_PART = re.compile(r"^(\w+)(?:\[(\d+)\])?$")


def _split_leaf(name: str) -> tuple[str, str]:
    prefix, _, leaf = name.rpartition(".")
    return (prefix + "." if prefix else ""), leaf


def _given(schedule: Schedule, name: str) -> Time | None:
    """The time argument ``name`` (``"schedules[1].step_size"``) as the schedule was given it, or None."""
    obj = schedule
    try:
        for part in name.split("."):
            attr, index = _PART.match(part).groups()  # type: ignore[union-attr]
            obj = getattr(obj, attr) if index is None else getattr(obj, attr)[int(index)]
    except (AttributeError, IndexError, TypeError):
        return None
    return obj if isinstance(obj, Time) else None


def _combined_rows(hyperparameter, members, base, timeline) -> list[dict[str, Any]]:
    n = timeline.num_batches
    labels: dict[int, list[str]] = {}
    for (label, _, _), entry_rows, _, _ in members:
        for row in entry_rows:
            if row["kind"] != "value":
                continue
            for point in row["point"].split(", "):
                shown = point if point in ("start", "last batch", "end") else f"{label} {point}"
                labels.setdefault(row["batch"], [])
                if shown not in labels[row["batch"]]:
                    labels[row["batch"]].append(shown)
    product = torch.ones(n, dtype=torch.float64)
    end = 1.0
    for _, _, alphas, end_alpha in members:
        product = product * alphas
        end *= end_alpha
    rows = []
    for batch in sorted(labels):
        structural = [p for p in labels[batch] if p in ("start", "last batch", "end")]
        points = [p for p in labels[batch] if p not in structural]
        ordered = (
            [p for p in ("start",) if p in structural] + points + [p for p in ("last batch", "end") if p in structural]
        )
        alpha = end if batch == n else float(product[batch])
        rows.append(
            {
                "kind": "combined",
                "hyperparameter": hyperparameter,
                "labels": [m[0][0] for m in members],
                "point": ", ".join(ordered),
                "batch": batch,
                "alpha": alpha,
                "value": None if base is None else base * alpha,
            }
        )
    return rows


# -- text ------------------------------------------------------------------------------------------------


def schedule_report(
    schedules: Schedule | Iterable[Schedule | tuple],
    max_duration: Time | str | Run,
    *,
    dataloader_len: int | Time | None = None,
    samples_per_batch: PerBatch = None,
    tokens_per_batch: PerBatch = None,
    ssr: float = 1.0,
    base_values: Mapping[str, float] | float | None = None,
) -> str:
    """The report as text (see the module docs); the same arguments as :func:`schedule_report_rows`.

    Args:
        schedules: What :func:`schedule_report_rows` takes.
        max_duration: The run's length as written, or a Run.
        dataloader_len: Batches per epoch.
        samples_per_batch: Samples per batch.
        tokens_per_batch: Tokens per batch.
        ssr: The scale schedule ratio.
        base_values: Hyperparameter -> base value.

    Returns:
        The report as lines of text (docs/report.md): the run in every unit, then each schedule's time arguments in
        batches and its values at its points.

    Raises:
        The errors of :func:`schedule_report_rows`.

    >>> from schedulers import StepScheduler
    >>> print(schedule_report(StepScheduler("20ba"), "100ba", ssr=0.5).splitlines()[0])
    run: max_duration 100ba x ssr 0.5 = 50ba
    """
    rows = schedule_report_rows(
        schedules,
        max_duration,
        dataloader_len=dataloader_len,
        samples_per_batch=samples_per_batch,
        tokens_per_batch=tokens_per_batch,
        ssr=ssr,
        base_values=base_values,
    )
    return render_report(rows)


def render_report(rows: list[dict[str, Any]]) -> str:
    """Render :func:`schedule_report_rows` (and :func:`stepped_report_rows`) as text.

    Args:
        rows: The rows, each a dict whose ``"kind"`` says what it holds (the run, a schedule, a warning, ...).

    Returns:
        The report as lines of text: the run first, then each schedule's facts and values, then the warnings.

    Raises:
        KeyError: A row without the keys of its kind.

    >>> from schedulers import StepScheduler
    >>> render_report(schedule_report_rows(StepScheduler("20ba"), "40ba")).splitlines()[1]
    '  batches  40'
    """
    lines: list[str] = []
    run = next((row for row in rows if row["kind"] == "run"), None)
    if run is not None:
        head = f"run: max_duration {_time_text(run['max_duration'])}"
        if run["ssr"] != 1.0:
            head += f" x ssr {_number(run['ssr'])} = {_time_text(run['length'])}"
        lines.append(head)
        lines += _table([_length_cells(row) for row in rows if row["kind"] == "length"], indent=2, align="lrl")
    for block in _blocks(rows):
        kind = block[0]["kind"]
        text = {"schedule": _schedule_text, "scheduler": _scheduler_text, "combined": _combined_text}[kind]
        lines += ([""] if lines else []) + (text(block) if kind == "combined" else text(block[0], block[1:]))
    return "\n".join(lines)


def _blocks(rows: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The rows cut into blocks: a schedule's or a scheduler's head with its time and value rows; the combined
    rows of one hyperparameter."""
    blocks: list[list[dict[str, Any]]] = []
    for row in rows:
        kind = row["kind"]
        if kind in ("schedule", "scheduler"):
            blocks.append([row])
        elif kind in ("time", "value") and blocks and blocks[-1][0]["kind"] != "combined":
            blocks[-1].append(row)
        elif kind == "combined":
            same = blocks and blocks[-1][0]["kind"] == "combined"
            if same and blocks[-1][0]["hyperparameter"] == row["hyperparameter"]:
                blocks[-1].append(row)
            else:
                blocks.append([row])
    return blocks


def _scheduler_text(head: dict[str, Any], block: list[dict[str, Any]]) -> list[str]:
    """A step-indexed scheduler: its step counts and the values a copy of it took."""
    key, unit = head["hyperparameter"], head["unit"]
    every = "epoch" if unit == "ep" else "batch"
    lines = [
        f"{key}: {head['label']} {head['scheduler']} ({head['family']}; steps once per {every}; "
        "values from stepping a copy)"
    ]
    if head["steps"] is None:
        lines.append(
            "  steps in the run: not known before the data is read "
            "(a run in samples or tokens, or in epochs of unknown length)"
        )
    times = [r for r in block if r["kind"] == "time"]
    if times:
        lines.append("  times")
        lines += _table([_time_cells(r) for r in times], indent=4, align="llll")
    values = [r for r in block if r["kind"] == "value"]
    shown = [", ".join(_column(r["values"])) if len(set(r["values"])) > 1 else _number(r["value"]) for r in values]
    cells = [["point", every, key]] + [[r["point"], _count(r["batch"]), shown[i]] for i, r in enumerate(values)]
    lines.append("  values")
    lines += _table(cells, indent=4, align="lrr")
    if head["error"]:
        lines.append(f"  note: {head['error']}")
    return lines


# -- times beyond the run ------------------------------------------------------------------------------------


def times_beyond_the_run(rows: list[dict[str, Any]]) -> list[str]:
    """A message for each time argument of the report ``rows`` that lies beyond the end of the run: a warmup,
    a ``t_max``, a ``total_iters``, a milestone the run never reaches, naming the argument and both times.

    ``rows`` are :func:`schedule_report_rows` and/or :func:`stepped_report_rows` (the same resolution the
    report prints); a scheduler whose copy could not be stepped through the run is named too.
    The end of the run is given in the argument's own unit when the report knows the run's length in it
    (``t_warmup=5ep ... at 4ep``), else in the unit the argument resolved to.

    Args:
        rows: Report rows.

    Returns:
        One message per time argument beyond the run's end (none: an empty list).

    >>> from schedulers import CosineAnnealingWithWarmupScheduler
    >>> rows = schedule_report_rows([("cosine", CosineAnnealingWithWarmupScheduler("5ep"), "lr")], "4ep",
    ...                             dataloader_len=10)
    >>> times_beyond_the_run(rows)
    ['cosine: t_warmup=5ep is after the end of the run at 4ep: the peak lr is never reached']
    """
    lengths = {row["unit"]: row["count"] for row in rows if row["kind"] == "length"}
    messages, head, told = [], None, set()
    for row in rows:
        if row["kind"] in ("schedule", "scheduler"):
            head, told = row, set()
        if row["kind"] == "scheduler" and row["error"]:
            messages.append(f"{row['label']}: {row['error']} (the run would fail there too)")
        if row["kind"] != "time" or row["reached"] != "after" or row["point"] != row["argument"] or head is None:
            continue
        if row["position"] in told or any(row["offset"] >= position for position in told):
            continue  # the same point, or a part of the schedule that starts after a point already named
        told.add(row["position"])
        shown = row["given"] if row["given"] is not None else f"{row['count']:,}{row['unit']}"
        if row["offset"]:
            shown += f" (at {row['position']:,}{row['unit']} of the run)"
        message = f"{row['argument']}={shown} is after the end of the run at {_run_end(row, head, lengths)}"
        messages.append(f"{head['label']}: {message}: {_consequence(row['argument'], head['hyperparameter'])}")
    return messages


def _run_end(row: dict[str, Any], head: dict[str, Any], lengths: dict[str, Any]) -> str:
    """The end of the run in the unit ``row``'s argument was given in (or resolved to)."""
    try:
        given_unit = Time.from_input(row["given"]).unit.value
    except (TypeError, ValueError):  # no time string given (a plain count)
        given_unit = None
    for unit in (given_unit, row["unit"]):
        if unit in lengths:
            return f"{_count(lengths[unit])}{unit}"
    steps = head.get("steps")
    return f"{steps:,}{row['unit']}" if steps is not None else "its end"


def _consequence(argument: str, key: str) -> str:
    leaf = argument.rpartition(".")[2]
    if "warmup" in leaf.lower() or leaf == "pct_start":
        return f"the peak {key} is never reached"
    if leaf.startswith("milestones["):
        return "the run ends before this milestone"
    return f"the {key} never reaches the end of its schedule"


def _length_cells(row: dict[str, Any]) -> list[str]:
    unit = row["unit"]
    if unit == "ba":
        return ["batches", _count(row["count"]), ""]
    if unit == "ep":
        per = f"{row['per_batch']:,} batches per epoch"
        if row["extra_batches"]:
            full, extra = row["full_epochs"], row["extra_batches"]
            per = f"{full:,} epoch{'s' * (full != 1)} + {extra:,} batch{'es' * (extra != 1)}; {per}"
        return ["epochs", _count(row["count"]), f"({per})"]
    name = "samples" if unit == "sp" else "tokens"
    per = "per-batch counts" if row["per_batch"] == "tensor" else f"{_count(row['per_batch'])} per batch"
    return [name, _count(row["count"]), f"({per})"]


def _schedule_text(head: dict[str, Any], block: list[dict[str, Any]]) -> list[str]:
    hyperparameter = head["hyperparameter"]
    lines = [f"{hyperparameter}: {head['label']}"]
    facts = [["schedule", head["schedule"]]]
    facts.append(["counts in", head["unit"] or "(a function of the state: no time arguments)"])
    if head["base_value"] is not None:
        facts.append([f"base {hyperparameter}", _number(head["base_value"])])
    lines += _table(facts, indent=2, align="ll")
    times = [r for r in block if r["kind"] == "time"]
    if times:
        lines.append("  times")
        lines += _table([_time_cells(r) for r in times], indent=4, align="llll")
    values = [r for r in block if r["kind"] == "value"]
    unit = head["unit"]
    header = ["point", "batch"] + ([unit] if unit not in (None, "ba") else []) + ["alpha"]
    if head["base_value"] is not None:
        header.append(hyperparameter)
    cells = [header]
    alphas = _column([r["alpha"] for r in values])
    shown_values = _column([r["value"] for r in values]) if head["base_value"] is not None else None
    for i, r in enumerate(values):
        line = [r["point"], _count(r["batch"])]
        if unit not in (None, "ba"):
            line.append(_count(r["count"]))
        line.append(alphas[i])
        if shown_values is not None:
            line.append(shown_values[i])
        cells.append(line)
    lines.append("  values")
    lines += _table(cells, indent=4, align="l" + "r" * (len(header) - 1))
    return lines


def _time_cells(row: dict[str, Any]) -> list[str]:
    unit = row["unit"]
    notes = []
    if row["point"] != row["argument"]:
        notes.append(f"{row['point'].rpartition('.')[2]} at {row['position']:,}{unit}")
    elif row["offset"]:
        notes.append(f"at {row['position']:,}{unit} of the run")
    if row["reached"] == "run" and unit != "ba" and row["batch"] is not None:
        notes.append(f"batch {row['batch']:,}")
    elif row["reached"] == "end":
        notes.append("end of run")
    elif row["reached"] == "after":
        notes.append("after the run")
    given = row["given"] if row["given"] is not None else ""
    return [row["argument"], given, f"= {row['count']:,}{unit}", f"({'; '.join(notes)})" if notes else ""]


def _combined_text(block: list[dict[str, Any]]) -> list[str]:
    hyperparameter = block[0]["hyperparameter"]
    lines = [f"{hyperparameter}: product of {', '.join(block[0]['labels'])}"]
    with_value = any(r["value"] is not None for r in block)
    header = ["point", "batch", "alpha"] + ([hyperparameter] if with_value else [])
    alphas = _column([r["alpha"] for r in block])
    shown_values = _column([r["value"] for r in block]) if with_value else None
    cells = [header]
    for i, r in enumerate(block):
        cells.append([r["point"], _count(r["batch"]), alphas[i]] + ([shown_values[i]] if shown_values else []))
    lines += _table(cells, indent=2, align="l" + "r" * (len(header) - 1))
    return lines


def _table(cells: list[list[str]], *, indent: int, align: str) -> list[str]:
    """Columns padded to their widest cell (two spaces apart); trailing blanks stripped."""
    if not cells:
        return []
    widths = [max(len(line[i]) for line in cells) for i in range(len(cells[0]))]
    out = []
    for line in cells:
        padded = [cell.rjust(w) if a == "r" else cell.ljust(w) for cell, w, a in zip(line, widths, align, strict=True)]
        out.append((" " * indent + "  ".join(padded)).rstrip())
    return out


def _count(value: int | float | None) -> str:
    if value is None:
        return ""
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    return _number(value)


def _number(value: float | None) -> str:
    """Six significant digits, thousands separators, no negative zero."""
    if value is None:
        return ""
    if value == 0:
        return "0"
    return format(value, ",.6g")


def _column(values: list[float | None]) -> list[str]:
    """The numbers of one column (see :func:`_number`)."""
    return [_number(v) for v in values]


def _time_text(text: str) -> str:
    """``"1250ba"`` with thousands separators (``"1,250ba"``)."""
    time = Time.from_input(text)
    if isinstance(time.value, int):
        return f"{time.value:,}{time.unit.value}"
    return text


def resolved_times_report(
    label: str,
    schedule: Schedule,
    key: str,
    max_duration: Time | str | Run,
    dataloader_len: int | None = None,
    ssr: float = 1.0,
) -> str:
    """A shorter report for a run whose per-batch samples or tokens are not known before the data is read:
    each time argument resolved, and α at the start, at each time and at the end, in the schedule's own unit.

    Args:
        label: What the schedule is called in the report.
        schedule: A Cadence schedule with a closed form.
        key: The hyperparameter it drives.
        max_duration: The run's length as written, or a :class:`~schedulers.core.run.Run` (the trainer passes
            its own): the arguments mean what they mean to the trainer.
        dataloader_len: Batches per epoch (without a Run).
        ssr: The scale schedule ratio (without a Run).

    Returns:
        One line per fact: each time argument of ``schedule`` as written and in batches of the run.

    Raises:
        ValueError: A bad run, or the schedule's own checks for it.
        TypeError: A schedule without a closed form.

    >>> from schedulers import CosineAnnealingWithWarmupScheduler
    >>> print(resolved_times_report("cosine", CosineAnnealingWithWarmupScheduler("1_000tok"), "lr", "10_000tok"))
    ... # doctest: +ELLIPSIS
    lr: cosine CosineAnnealingWithWarmupScheduler(t_warmup='1000tok', ...) (counts in tok)
      t_warmup = 1000tok
      t_max = 10000tok
      alpha at start (0tok) = 0
      alpha at t_warmup (1,000tok) = 1
      alpha at t_max (10,000tok) = 0
      alpha at end (10,000tok) = 0
    """
    run = as_run(max_duration, dataloader_len, ssr=ssr)
    curve = schedule.curve(run)
    points = [("start", 0)]
    points += [(name, curve.origins.get(name, 0) + t.value) for name, t in curve.times.items() if t.unit is curve.unit]
    if run.length.unit is curve.unit:
        points.append(("end", run.length.value))
    lines = [f"{key}: {label} {schedule!r} (counts in {curve.unit.value})"]
    lines += [f"  {name} = {time}" for name, time in curve.times.items()]
    lines += [
        f"  alpha at {name} ({count:,}{curve.unit.value}) = {_number(float(curve(float(count))))}"
        for name, count in points
    ]
    return "\n".join(lines)
