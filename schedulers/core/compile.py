"""Cadence's scheduler for a time-aware schedule: a ``torch.optim.lr_scheduler.LRScheduler`` that reads the run's clock.

``compile_scheduler(schedule, optimizer, state)`` returns a :class:`CompiledScheduler` that writes

.. math:: \\mathrm{group}[h] = \\mathrm{group}[\\texttt{initial\\_}h] \\cdot \\alpha(\\mathrm{state})

into every param group, at construction and at every ``step()``. It reads ``state`` by reference (the
trainer, or your own loop, advances ``state.timestamp``), so the step count it keeps is bookkeeping
only. ``h`` is ``"lr"`` or any other scalar hyperparameter (``"weight_decay"``, ``"momentum"``, ...).
What it writes and how is :class:`~schedulers.core.group_writer.GroupWriter`'s, shared with the front ends that
count their own steps (Cerebras, SambaFlow: :mod:`schedulers.core.step_counting`; docs/architecture.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch

from schedulers.core.base import Schedule
from schedulers.core.callables import CallableKind, callable_kind
from schedulers.core.group_writer import GroupWriter
from schedulers.core.listening import Decision, Evaluation, ScheduleListening, listening_of
from schedulers.core.run import Run
from schedulers.core.schedule_arguments import number_argument
from schedulers.core.state import ScheduleState

__all__ = ["CompiledScheduler", "base_value", "compile_scheduler"]


def compile_scheduler(
    scheduler: Callable[..., float],
    optimizer: torch.optim.Optimizer,
    state: ScheduleState,
    ssr: float | Run = 1.0,
    *,
    hyperparameter: str = "lr",
    param_groups: Sequence[int] | None = None,
) -> CompiledScheduler:
    """A torch LR scheduler that drives ``hyperparameter`` of every param group with ``scheduler``.

    At construction and at every ``step()`` it writes, into each driven param group :math:`g`,

    .. math:: g[h] = g[\\texttt{initial\\_}h] \\cdot \\alpha(\\mathrm{state})

    Every check runs before the optimizer is touched, so a call that raises leaves every param group exactly as
    it was (no ``initial_<h>`` written, no value changed).

    Args:
        scheduler: A Cadence schedule or any callable ``(state, ssr) -> float`` (a one-argument
            ``(state) -> float`` callable works when ``ssr`` is 1).
        optimizer: The ``torch.optim.Optimizer`` whose param groups are driven.
        state: What the schedule reads: ``.timestamp``, ``.max_duration`` and ``.dataloader_len``, read by
            reference (your loop advances ``state.timestamp``).
        ssr: The scale schedule ratio, or the :class:`~schedulers.core.run.Run` whose clock ``state`` is (the
            trainer passes its own): the ratio is then the run's, a Cadence schedule is resolved once for that
            run and each step reads only ``state.timestamp``; with a plain ratio the schedule follows the
            state's ``max_duration`` as it changes.
        hyperparameter: The param-group key driven (``"lr"``, ``"weight_decay"``, ``"momentum"``, ...).
        param_groups: Indices of the groups driven (None: all); the others are untouched.

    Returns:
        The :class:`CompiledScheduler`, already written into the param groups at the state's timestamp.

    Raises:
        TypeError: ``scheduler`` not callable as ``(state, ssr)`` or ``(state)``, ``optimizer`` not an
            optimizer, ``state`` lacking one of its three attributes, or ``hyperparameter`` not a non-empty str.
        ValueError: A bad ``ssr``, ``param_groups`` out of range or repeated, a group without ``hyperparameter``
            or with a value that is not a finite float or 0-d float tensor, a one-argument callable with
            ``ssr`` other than 1, or what the schedule itself raises against the state.

    >>> import torch
    >>> from schedulers import SchedulerState, LinearScheduler, compile_scheduler
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    >>> state = SchedulerState("10ba")
    >>> sched = compile_scheduler(LinearScheduler(), opt, state)
    >>> state.timestamp = state.timestamp.to_next_batch(); sched.step()
    >>> round(opt.param_groups[0]["lr"], 6)
    0.09
    """
    return CompiledScheduler(scheduler, optimizer, state, ssr, hyperparameter=hyperparameter, param_groups=param_groups)


class CompiledScheduler(GroupWriter):
    """Cadence's scheduler for a schedule of the run's time: ``step()`` is one α evaluation plus writes.

    It writes ``scale_g · α`` into the hyperparameter of each driven param group ``g``: α is the Cadence schedule
    at ``state.timestamp``, and ``scale_g`` the group's base value, kept as ``group["initial_<h>"]`` (torch's
    ``initial_lr`` convention), so reloading an optimizer's state never applies α twice. (The front ends that
    count optimizer steps share the writing: :class:`~schedulers.core.step_counting.StepCountingScheduler`.)

    A tensor-valued hyperparameter stays the same tensor and is updated in place (a compiled optimizer step
    then never recompiles because the value moved). The trainer steps every one of these once per batch and
    hands it its clock with :meth:`attach_state`.

    Args:
        scheduler: A Cadence schedule or any callable ``(state, ssr) -> float`` (see :func:`compile_scheduler`).
        optimizer: The optimizer whose param groups are driven.
        state: What the schedule reads (``.timestamp``, ``.max_duration``, ``.dataloader_len``), by reference.
        ssr: The scale schedule ratio, or the :class:`~schedulers.core.run.Run` whose clock ``state`` is.
        hyperparameter: The param-group key driven (``"lr"``, ``"weight_decay"``, ...).
        param_groups: Indices of the groups driven (None: all).

    Returns:
        The scheduler, already written into the param groups at the state's timestamp.

    Raises:
        TypeError: A bad ``scheduler``, ``optimizer``, ``state`` or ``hyperparameter`` (as :func:`compile_scheduler`).
        ValueError: A bad ``ssr`` or ``param_groups``, or a group whose value cannot be scheduled.

    >>> import torch
    >>> from schedulers import SchedulerState, StepScheduler
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> state = SchedulerState("10ba")
    >>> sched = CompiledScheduler(StepScheduler("2ba", gamma=0.5), opt, state)
    >>> state.timestamp = state.timestamp.copy(batch=4); sched.step(); opt.param_groups[0]["lr"]
    0.25
    """

    #: the listening part of the schedule, its plateaus and their states (None: it only follows time);
    #: found through schedulers.core.listening, so this module knows no plateau by name
    _listeners: ScheduleListening | None = None

    def __init__(
        self,
        scheduler: Callable[..., float],
        optimizer: torch.optim.Optimizer,
        state: ScheduleState,
        ssr: float | Run = 1.0,
        *,
        hyperparameter: str = "lr",
        param_groups: Sequence[int] | None = None,
    ) -> None:
        _check_arguments(scheduler, optimizer, state, hyperparameter)
        run, ssr = _run_and_ratio(ssr)
        indices = _group_indices(param_groups, len(optimizer.param_groups))
        initial_key = f"initial_{hyperparameter}"
        bases = [base_value(optimizer.param_groups[i], i, hyperparameter, initial_key) for i in indices]
        alpha = _bind(scheduler, ssr, run)
        first = alpha(state)  # the schedule's own checks against the state, before anything is written
        # Every check passed: only now touch the optimizer (a failed call leaves it exactly as it was).
        for index, (stored, _) in zip(indices, bases, strict=True):
            optimizer.param_groups[index].setdefault(initial_key, stored)
        self.scheduler, self.state, self.ssr, self.run = scheduler, state, ssr, run
        self._alpha = alpha
        self._listeners = listening_of(scheduler, state, ssr, run)
        self._drive(optimizer, hyperparameter, indices, [base for _, base in bases])
        self._apply(first)

    def current_alpha(self) -> float:
        """α now: the schedule at the state's timestamp.

        Returns:
            The multiplier for ``state``'s time.
        """
        return self._alpha(self.state)

    def step(self, epoch: None = None) -> None:
        """Count one step and write ``scale · α`` for the state's time into every driven group (α evaluated
        before the count moves, so a step that raises is not counted).

        Args:
            epoch: Not taken: the time is the state's (torch's deprecated argument, refused).

        Raises:
            TypeError: ``epoch`` given.
        """
        if epoch is not None:
            raise TypeError(
                "a compiled Cadence scheduler reads the time from its state; step() takes no epoch argument"
            )
        alpha = self._alpha  # read, then called: a method-style call of an instance attribute is not specialized
        alpha = alpha(self.state)
        self._count += 1  # torch's _step_count follows it (the property below)
        single = self._single
        if single is None:
            self._apply(alpha)
            return
        # GroupWriter._apply's first case, written here: the per-step path makes one call less
        index, scale = single
        self.optimizer.param_groups[index][self.hyperparameter] = value = scale * alpha
        self._written = value

    @property
    def _step_count(self) -> int:
        """torch's count of ``step()`` calls plus one, kept as an offset from the step count (one addition per
        step, not two); ``load_state_dict`` moves the count, not this."""
        return self._count - self._step_origin

    @_step_count.setter
    def _step_count(self, value: int) -> None:
        self._step_origin = self._count - value

    def _set_count(self, count: int) -> None:
        self._step_origin += count - self._count
        self._count = count

    def attach_state(self, state: ScheduleState, ssr: float | Run | None = None) -> CompiledScheduler:
        """Take the run from ``state`` (and apply ``ssr``, a ratio or the Run ``state`` counts, if given), then
        write the current values.

        The trainer calls this for every scheduler it steps, with its clock and its Run, so a schedule follows
        the trainer's clock.

        Args:
            state: What the schedule reads from now on (``timestamp``, ``max_duration``, ``dataloader_len``).
            ssr: The scale schedule ratio, or the :class:`~schedulers.core.run.Run` ``state`` counts; None keeps
                the ones the scheduler has.

        Returns:
            This scheduler, attached, with the values for ``state``'s time written.

        Raises:
            ValueError: A ratio or a run the schedule cannot take (nothing has changed then).
        """
        run, ssr = (self.run, self.ssr) if ssr is None else _run_and_ratio(ssr)
        self._alpha = _bind(self.scheduler, ssr, run)  # before anything changes: a refused ratio changes nothing
        if self._listeners is not None:
            self._listeners.refresh(state, ssr, run)
        self.state, self.ssr, self.run = state, ssr, run
        self._apply()
        return self

    @property
    def monitors(self) -> list[str]:
        """The metrics this scheduler listens to (a :class:`~schedulers.core.plateau.PlateauScheduler`'s
        ``monitor``): empty for a schedule that only follows time."""
        return [] if self._listeners is None else self._listeners.monitors

    @property
    def needs_evaluations(self) -> bool:
        """Whether a run without evaluations would leave this scheduler deaf (it holds a plateau): the
        :class:`~schedulers.core.listening.EvaluationListener` check at the start of a run."""
        return self._listeners is not None

    def hear(self, evaluation: Evaluation) -> Decision | None:
        """An :class:`~schedulers.core.listening.Evaluation` of the run: :meth:`observe` its metrics when it
        counts (one of the run's evaluations), and say in one line what changed.

        Args:
            evaluation: The evaluation (its metrics; the time is the state's, which the door keeps).

        Returns:
            A :class:`~schedulers.core.listening.Decision` naming each reduction, or None.

        Raises:
            KeyError: A monitored metric is missing from the evaluation.

        >>> import torch
        >>> from schedulers import PlateauScheduler, SchedulerState, compile_scheduler
        >>> from schedulers.core.listening import Evaluation
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = compile_scheduler(PlateauScheduler(factor=0.5, patience=0), opt, SchedulerState("10ba"))
        >>> sched.hear(Evaluation({"eval/loss": 1.0})), sched.hear(Evaluation({"eval/loss": 1.0})).line
        (None, 'a compiled schedule: lr 1 -> 0.5 at 0ba (eval/loss has not improved (best 1): multiplier 1 -> 0.5)')
        """
        if self._listeners is None or not evaluation.counts:
            return None
        before = float(self._last_lr[0])
        changes = self._observe(evaluation.metrics)
        if not changes:
            return None
        return Decision(
            f"{self.listener_name}: {self.hyperparameter} {before:.6g} -> {float(self._last_lr[0]):.6g} at "
            f"{self.state.timestamp.batch} ({'; '.join(changes)})"
        )

    def observe(self, metrics: Mapping[str, float]) -> bool:
        """An evaluation's ``metrics``: each plateau in use now decides (torch's ``ReduceLROnPlateau.step``);
        after a reduction the values for the state's timestamp are written at once. This is what a plain loop
        calls after each of its evaluations (docs/integrations.md).

        Args:
            metrics: The evaluation's metrics by name (``{"eval/loss": 0.31}``).

        Returns:
            Whether a multiplier changed.

        Raises:
            KeyError: A monitored metric is missing from ``metrics``.

        >>> import torch
        >>> from schedulers import SchedulerState, compile_scheduler
        >>> from schedulers.core.plateau import PlateauScheduler
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = compile_scheduler(PlateauScheduler(factor=0.5, patience=0), opt, SchedulerState("10ba"))
        >>> sched.observe({"eval/loss": 1.0}), sched.observe({"eval/loss": 1.0}), opt.param_groups[0]["lr"]
        (False, True, 0.5)
        """
        return bool(self._observe(metrics))

    def _observe(self, metrics: Mapping[str, float]) -> list[str]:
        """Feed the plateaus; after a reduction rebind and write. The phrases of what changed."""
        if self._listeners is None:
            return []
        changes = self._listeners.observe(self.state, metrics)
        if changes:
            self.scheduler = self._listeners.schedule()
            self._alpha = _bind(self.scheduler, self.ssr, self.run)
            self._apply()
        return changes

    def state_dict(self) -> dict[str, Any]:
        """Bookkeeping only: the time lives in the state, which is saved with it.

        Returns:
            Plain numbers and strings: ``hyperparameter``, ``ssr``, ``last_epoch`` (the count of steps),
            ``base_values``, and a plateau's counters and reductions so far under ``"plateaus"``.
        """
        saved = {
            "hyperparameter": self.hyperparameter,
            "ssr": self.ssr,
            "last_epoch": self._count,
            "base_values": [float(b) for b in self.base_values],
        }
        if self._listeners is not None:
            saved["plateaus"] = self._listeners.state_dict()
        return saved

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the bookkeeping, then write the values for the (restored) state's timestamp.

        Args:
            state_dict: What :meth:`state_dict` gave.

        Raises:
            ValueError: It drives another hyperparameter or another number of param groups.
        """
        if state_dict.get("hyperparameter", self.hyperparameter) != self.hyperparameter:
            raise ValueError(
                f"this state_dict drives {state_dict['hyperparameter']!r}, but this scheduler drives "
                f"{self.hyperparameter!r}"
            )
        if len(state_dict.get("base_values", self.base_values)) != len(self.base_values):
            raise ValueError(
                f"this state_dict has {len(state_dict['base_values'])} param groups, "
                f"the optimizer has {len(self.base_values)}"
            )
        self._set_count(int(state_dict.get("last_epoch", self._count)))
        if self._listeners is not None and "plateaus" in state_dict:
            self.scheduler = self._listeners.load_state_dict(state_dict["plateaus"])
        # attached to a Run (the trainer's), the run's ratio wins over a saved one: the constructor's arguments win
        self.attach_state(self.state, self.run if self.run is not None else state_dict.get("ssr", self.ssr))


def _check_arguments(scheduler: Any, optimizer: Any, state: Any, hyperparameter: Any) -> None:
    if not callable(scheduler):
        raise TypeError(f"scheduler must be callable as scheduler(state, ssr), got {scheduler!r}")
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__}")
    for name in ("timestamp", "max_duration", "dataloader_len"):
        if not hasattr(state, name):
            raise TypeError(f"state must have .timestamp, .max_duration and .dataloader_len; it lacks .{name}")
    if not isinstance(hyperparameter, str) or not hyperparameter:
        raise TypeError(
            f"hyperparameter must be a param-group key string such as 'lr', 'weight_decay' or 'momentum', "
            f"got {hyperparameter!r} of type {type(hyperparameter).__name__}"
        )


def _group_indices(param_groups: Sequence[int] | None, count: int) -> list[int]:
    if param_groups is None:
        return list(range(count))
    indices = list(param_groups)
    if not indices or any(isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < count for i in indices):
        raise ValueError(f"param_groups={param_groups!r} must be a non-empty list of indices below {count}")
    if len(set(indices)) != len(indices):
        raise ValueError(f"param_groups={param_groups!r} repeats an index")
    return indices


def _run_and_ratio(ssr: float | Run) -> tuple[Run | None, float]:
    """``(run, ratio)`` of an ``ssr`` argument: a Run and its ratio, or no Run and the ratio checked."""
    if isinstance(ssr, Run):
        return ssr, ssr.ssr
    return None, number_argument("ssr", ssr, low=0.0, low_open=True)


def _bind(scheduler: Callable[..., float], ssr: float, run: Run | None) -> Callable[[Any], float]:
    """``state -> α``: a Cadence schedule bound to its run when there is one (resolved once), else by ``ssr``."""
    if run is not None and isinstance(scheduler, Schedule):
        return scheduler.bind(run)
    return _bind_ssr(scheduler, ssr)


def _bind_ssr(scheduler: Callable[..., float], ssr: float) -> Callable[[Any], float]:
    """``state -> α``: pass ssr to two-argument schedules; a one-argument schedule needs ssr == 1."""
    kind = callable_kind(scheduler)  # the one rule of what a callable is (schedulers.core.callables)
    if kind is CallableKind.SCHEDULE:
        if ssr == 1.0:
            return scheduler
        return lambda state: scheduler(state, ssr)
    if kind is CallableKind.OTHER:
        raise TypeError(f"scheduler must be callable as scheduler(state, ssr) or scheduler(state), got {scheduler!r}")
    if ssr != 1.0:
        raise ValueError(
            f"scheduler {scheduler!r} takes only (state), so it cannot apply ssr={ssr}: give it a second "
            "parameter (state, ssr=1.0), or use a Cadence schedule"
        )
    return scheduler


def base_value(group: dict, index: int, key: str, initial_key: str) -> tuple[Any, float]:
    """The group's base value of ``key``: what to keep as ``initial_<key>`` and its float, checked, unwritten.

    An ``initial_<key>`` already in the group (a reloaded optimizer) is the base; else the current value is.

    Args:
        group: The param group.
        index: Its index, for the errors.
        key: The hyperparameter (``"lr"``).
        initial_key: Where the base is kept (``"initial_lr"``).

    Returns:
        ``(stored, base)``: what to keep as ``initial_<key>`` (a float, or a tensor's copy) and its float.

    Raises:
        ValueError: A group without ``key``, or a value that is not a finite float or 0-d float tensor.

    >>> base_value({"lr": 0.1}, 0, "lr", "initial_lr")
    (0.1, 0.1)
    >>> base_value({"lr": 0.1, "initial_lr": 0.3}, 0, "lr", "initial_lr")
    (0.3, 0.3)
    """
    if key not in group:
        raise ValueError(
            f"param group {index} has no {key!r} to schedule; its keys are {sorted(k for k in group if k != 'params')}"
        )
    value = group[key]
    if isinstance(value, torch.Tensor):
        if value.dim() != 0 or not value.is_floating_point():
            raise ValueError(
                f"param group {index}'s {key!r} is a tensor of shape {tuple(value.shape)}; "
                "only scalars can be scheduled"
            )
        stored = group[initial_key] if initial_key in group else value.detach().clone()
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"param group {index}'s {key!r} is {value!r}; only a float or a 0-d tensor can be scheduled")
    else:
        stored = group[initial_key] if initial_key in group else float(value)
    base = float(stored) if isinstance(stored, torch.Tensor) else stored
    if isinstance(base, bool) or not isinstance(base, (int, float)) or not math.isfinite(base):
        raise ValueError(f"param group {index}'s {initial_key!r} is {base!r}; it must be a finite number")
    return stored, base
