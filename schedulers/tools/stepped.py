"""The report of a step-indexed scheduler (torch, Cerebras, SambaFlow): values found by stepping a copy.

Such a scheduler has no closed form Cadence can read for every class, so the report steps a deep copy of it
(together with its optimizer) through the run, exactly as the trainer will step the real one, and reads the
hyperparameter at the start, at each phase boundary the scheduler shows (warmup ends, ``total_iters``,
milestones, ``T_max``, ...) and at the end. A Cerebras-style copy, whose value is a closed form of the step
(docs/cerebras.md; it says ``jumps_to_steps``), jumps to each of those points with one ``step(point)`` call
instead: the same values, at a cost per point rather than per step. The live scheduler and optimizer are never
stepped: their ``last_epoch``, ``state_dict()`` and the param groups' values stay as they are. The copy shares the
parameters and the optimizer's per-parameter state with the original (a scheduler never touches them), so
copying costs no memory of the model's size.

:func:`stepped_report_rows` returns rows of the kinds :func:`schedulers.tools.report.schedule_report_rows`
uses (``"time"`` and ``"value"``) after a ``"scheduler"`` row; :func:`schedulers.tools.report.render_report`
renders them and :func:`schedulers.tools.report.times_beyond_the_run` checks them. Their keys:

* ``"scheduler"``: ``index``, ``label``, ``hyperparameter``, ``scheduler`` (its class name), ``family``
  (``torch``, ``Cerebras`` or ``SambaFlow``), ``unit``, ``steps``, ``first_step``, ``error`` (why stepping
  the copy stopped early, else None);
* ``"time"``: a step-count argument: ``argument`` (``total_iters``, ``schedulers[1].T_max``,
  ``milestones[0]``), ``given`` (a Cerebras time string as written, else None), ``count`` (steps),
  ``offset`` (where a child's count starts), ``position`` (``offset + count``), ``reached`` (``"run"``,
  ``"end"`` or ``"after"``), ``batch`` (the step trained at ``position``, when in the run and per batch);
* ``"value"``: ``point``, ``batch`` (the step), ``value`` (param group 0's), ``values`` (every group's
  that has the hyperparameter), ``alpha`` (None: a stepped scheduler writes values, not multipliers).
"""

from __future__ import annotations

import copy
import math
import warnings
from collections import Counter
from typing import Any

import torch

from schedulers.core.clock import after_batches, batches_in_run
from timeunits import Time, TimeUnit

__all__ = ["run_steps", "stepped_report_rows"]

# step-count arguments, by the attribute name torch, Cerebras and SambaFlow give them (in report order)
_STEP_ARGUMENTS = (
    "num_warmup_steps",
    "warmup_steps",
    "step_size",
    "step_size_up",
    "T_0",
    "T_max",
    "total_iters",
    "num_training_steps",
    "total_steps",
)


def run_steps(max_duration: Time | str, dataloader_len: int | None, *, per_epoch: bool = False) -> int | None:
    """How many times the trainer steps a scheduler over a run of ``max_duration`` (already scaled).

    Per batch: the run's batches; per epoch: the epochs it closes (a run that stops inside an epoch does
    not close it). None when that is not known before the data is read (a run in samples or tokens, or in
    epochs without ``dataloader_len``). The counts are the clock's (:func:`schedulers.core.clock.batches_in_run`,
    :func:`schedulers.core.clock.after_batches`).

    Args:
        max_duration: The run's length (already scaled), a ``Time`` or a time string.
        dataloader_len: Batches per epoch (None or 0: unknown).
        per_epoch: Whether the scheduler is stepped once per epoch rather than per batch.

    Returns:
        The number of steps, or None when it is not known before the data is read.

    >>> run_steps("2ep", 10), run_steps("25ba", 10, per_epoch=True), run_steps("100sp", 10)
    (20, 2, None)
    """
    run = Time.from_input(max_duration)
    length = int(dataloader_len) if dataloader_len else None
    if run.unit not in (TimeUnit.BATCH, TimeUnit.EPOCH):
        return None
    if run.unit is TimeUnit.EPOCH and length is None:
        return int(run.value) if per_epoch else None  # every epoch of the run closes, however long it is
    batches = batches_in_run(run, length, None, None)
    if not per_epoch:
        return batches
    return after_batches(batches, length).epoch.value if length else None


def stepped_report_rows(
    label: str,
    scheduler: torch.optim.lr_scheduler.LRScheduler,
    hyperparameter: str = "lr",
    *,
    steps: int | None,
    per_epoch: bool = False,
    index: int = 0,
) -> list[dict[str, Any]]:
    """The report of ``scheduler`` over a run in which it is stepped ``steps`` times, read from a stepped copy
    that starts where the scheduler is (``last_epoch``); with ``steps`` None it ends at the largest step count shown.

    Args:
        label: The scheduler's label in the report.
        scheduler: The step-indexed scheduler; it is never stepped itself.
        hyperparameter: The param-group key it writes.
        steps: How many times the run steps it (None: unknown).
        per_epoch: Whether it is stepped once per epoch (its counts are then ``ep``), else per batch (``ba``).
        index: The scheduler's index in the report.

    Returns:
        One ``"scheduler"`` row, then its ``"time"`` and ``"value"`` rows (their keys: the module's docstring).

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> rows = stepped_report_rows("lr", cs.LinearLR(opt, 1.0, 0.0, total_iters=4), steps=8)
    >>> rows[0]["family"], [(row["point"], row["value"]) for row in rows if row["kind"] == "value"]
    ('Cerebras', [('start', 1.0), ('total_iters', 0.0), ('last batch', 0.0), ('end', 0.0)])
    """
    unit = TimeUnit.EPOCH if per_epoch else TimeUnit.BATCH
    common = {"index": index, "label": label, "hyperparameter": hyperparameter}
    first = int(scheduler.last_epoch)
    times = [
        {"kind": "time", **common, **time, "unit": unit.value, "point": time["argument"], "resolved": None}
        for time in _located(_step_times(scheduler), steps)
    ]
    if per_epoch:
        for time in times:
            time["batch"] = None  # its steps are epochs: the batch is not the step
    labels = _points(times, first, steps, unit)
    values, error = _stepped_values(scheduler, hyperparameter, first, sorted(labels))
    head = {
        "kind": "scheduler",
        **common,
        "scheduler": type(scheduler).__name__,
        "family": _family(scheduler),
        "unit": unit.value,
        "steps": steps,
        "first_step": first,
        "error": error,
    }
    rows = [head, *times]
    for step, groups in values:
        point = ", ".join(labels[step])
        rows.append(
            {"kind": "value", **common, "point": point, "batch": step, "count": None, "unit": unit.value}
            | {"alpha": None, "value": groups[0] if groups else None, "values": groups}
        )
    return rows


def _family(scheduler: object) -> str:
    """The family a front end names itself with (its ``report_family``: ``Cerebras``, user subclasses included;
    a ``LambdaLR`` whose multipliers all say ``SambaFlow``), ``torch`` for torch's classes; another class is
    named by its module."""
    family = getattr(scheduler, "report_family", None)
    if isinstance(family, str):
        return family
    lambdas = getattr(scheduler, "lr_lambdas", ())
    families = {getattr(f, "report_family", None) for f in lambdas}
    if len(families) == 1 and isinstance(next(iter(families)), str):
        return next(iter(families))
    module = type(scheduler).__module__
    return "torch" if module.startswith("torch.") else module


# -- the step counts a scheduler shows ---------------------------------------------------------------------


def _step_times(obj: object, prefix: str = "", offset: int = 0) -> list[dict[str, Any]]:
    """Every step-count argument of ``obj`` and of its children (a child of a sequence counts from its
    milestone), as ``{"argument", "given", "count", "offset"}``."""
    given = getattr(obj, "_given_steps", {}) or {}
    found = []
    for name in _STEP_ARGUMENTS:
        count = _count(getattr(obj, name, None))
        if count is not None:
            shown = given.get(name)
            found.append({"argument": prefix + name, "given": shown if isinstance(shown, str) else None})
            found[-1].update(count=count, offset=offset)
    milestones = _milestones(obj)
    given_milestones = given.get("milestones") if isinstance(given.get("milestones"), (list, tuple)) else []
    for i, count in enumerate(milestones):
        shown = given_milestones[i] if i < len(given_milestones) else None
        found.append(
            {
                "argument": f"{prefix}milestones[{i}]",
                "given": shown if isinstance(shown, str) else None,
                "count": count,
                "offset": offset,
            }
        )
    found += _phase_end(obj, prefix, offset)
    lambdas = getattr(obj, "lr_lambdas", ())
    for i, function in enumerate(lambdas):
        found += _step_times(function, prefix if len(lambdas) == 1 else f"{prefix}lr_lambdas[{i}].", offset)
    children = getattr(obj, "_schedulers", None) or []
    sequential = hasattr(obj, "_milestones") or (hasattr(obj, "milestones") and len(milestones) == len(children) - 1)
    for i, child in enumerate(children):
        start = offset + (milestones[i - 1] if sequential and i > 0 else 0)
        found += _step_times(child, f"{prefix}schedulers[{i}].", start)
    return found


def _milestones(obj: object) -> list[int]:
    raw = getattr(obj, "_milestones", None)
    if raw is None:
        raw = getattr(obj, "milestones", None)
    if isinstance(raw, Counter):
        raw = sorted(raw)  # torch's MultiStepLR: one point per distinct milestone
    if not isinstance(raw, (list, tuple)):
        return []
    counts = [_count(m) for m in raw]
    return [c for c in counts if c is not None]


def _phase_end(obj: object, prefix: str, offset: int) -> list[dict[str, Any]]:
    """torch's OneCycleLR: the end of its first phase (the warmup set by ``pct_start``)."""
    phases = getattr(obj, "_schedule_phases", None)
    if not (isinstance(phases, list) and len(phases) > 1 and isinstance(phases[0], dict)):
        return []
    count = _count(math.floor(float(phases[0].get("end_step", 0))))
    return (
        [] if count is None else [{"argument": f"{prefix}pct_start", "given": None, "count": count, "offset": offset}]
    )


def _count(value: object) -> int | None:
    """A step count (an int, or a whole float or 0-d tensor) > 0, else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, torch.Tensor):
        if value.numel() != 1:
            return None
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value if isinstance(value, int) and value > 0 else None


def _located(times: list[dict[str, Any]], steps: int | None) -> list[dict[str, Any]]:
    for time in times:
        position = time["offset"] + time["count"]
        if steps is None:
            reached = "run"
        else:
            reached = "run" if position < steps else "end" if position == steps else "after"
        time.update(position=position, reached=reached, batch=position if reached == "run" else None)
    return times


def _points(times: list[dict[str, Any]], first: int, steps: int | None, unit: TimeUnit) -> dict[int, list[str]]:
    """The steps to read, each with its names (``start``, arguments, ``last batch``, ``end``)."""
    labels: dict[int, list[str]] = {first: ["start" if first == 0 else f"now (step {first:,})"]}
    for time in times:
        if time["position"] > first and (steps is None or time["position"] <= steps):
            labels.setdefault(time["position"], []).append(time["argument"])
    if steps is not None and steps > first:
        if steps - 1 > first:
            labels.setdefault(steps - 1, []).append("last epoch" if unit is TimeUnit.EPOCH else "last batch")
        labels.setdefault(steps, []).append("end")
    return labels


# -- stepping a copy ------------------------------------------------------------------------------------------


def _stepped_values(scheduler, key: str, first: int, points: list[int]) -> tuple[list[tuple[int, list]], str | None]:
    """Step a copy of ``scheduler`` from ``first`` through ``points`` (ascending steps); the values of ``key``
    in every param group at each, and why stepping stopped early (or None).

    A Cerebras-style copy jumps to each point with one ``step(point)`` (its value is a closed form of the step,
    docs/cerebras.md), so a million-step run costs a call per point; a torch or SambaFlow copy is stepped once
    per step, as the trainer steps it (its value may depend on every step before).
    """
    twin = _stepping_copy(scheduler)
    jumps = _jumps(twin)
    values, at = [], first
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's "step() before optimizer.step()": the copy trains nothing
        for point in points:
            if jumps and point > at and _jumped(twin, point, at):
                at = point
            try:
                while at < point:
                    twin.step()
                    at += 1
            except Exception as error:  # noqa: BLE001 - the report says where the scheduler fails, the run would too
                return values, f"stepping a copy failed at step {at + 1:,}: {type(error).__name__}: {error}"
            values.append((point, _group_values(twin.optimizer, key)))
    return values, None


def _jumps(scheduler) -> bool:
    """Whether ``scheduler`` says ``step(k)`` lands on exactly the values ``k`` steps give (its
    ``jumps_to_steps``: a Cerebras-style scheduler, whose value is a closed form of ``last_epoch``)."""
    return getattr(scheduler, "jumps_to_steps", False) is True


def _jumped(twin, point: int, at: int) -> bool:
    """Jump the Cerebras-style ``twin`` from step ``at`` to ``point``; False, with ``twin`` back at ``at``, when
    that fails (the caller then steps one by one, which names the exact step that fails)."""
    try:
        twin.step(point)
    except Exception:  # noqa: BLE001 - stepping from ``at`` reports it
        twin.last_epoch = torch.tensor(at, dtype=torch.int64)
        return False
    return True


def _stepping_copy(scheduler):
    """A deep copy of ``scheduler`` and its optimizer that shares the parameters and the per-parameter
    optimizer state (stepping a scheduler writes only param-group values)."""
    optimizer = scheduler.optimizer
    memo: dict[int, Any] = {id(optimizer.state): optimizer.state}
    for group in optimizer.param_groups:
        for parameter in group["params"]:
            memo[id(parameter)] = parameter
    return copy.deepcopy(scheduler, memo)


def _group_values(optimizer, key: str) -> list[float]:
    return [float(group[key]) for group in optimizer.param_groups if key in group]
