r"""The one torch-side scheduler: the writer of ``scale · α`` into param groups (``GroupWriter``), its two
clocks (``CompiledScheduler``, ``StepCountingScheduler``), the param-group tags it reads, and a scale schedule
ratio applied to a torch scheduler.

Cadence's scheduler for a time-aware schedule: a ``torch.optim.lr_scheduler.LRScheduler`` that reads the run's
clock.

``compile_scheduler(schedule, optimizer, state)`` returns a :class:`CompiledScheduler` that writes

.. math:: \mathrm{group}[h] = \mathrm{group}[\texttt{initial\_}h] \cdot \alpha(\mathrm{state})

into every param group, at construction and at every ``step()``. It reads ``state`` by reference (the
trainer, or your own loop, advances ``state.timestamp``), so the step count it keeps is bookkeeping
only. ``h`` is ``"lr"`` or any other scalar hyperparameter (``"weight_decay"``, ``"momentum"``, ...).
What it writes and how is :class:`~schedulers.core.torch_scheduler.GroupWriter`'s, shared with the front ends that
count their own steps (Cerebras, SambaFlow: :mod:`schedulers.core.torch_scheduler`; docs/architecture.md).

What every Cadence scheduler does at a step: write :math:`s_g \cdot \alpha` into one key of its param groups.

:class:`GroupWriter` is the torch ``LRScheduler`` part shared by Cadence's two clocks (docs/architecture.md):

* :class:`~schedulers.core.torch_scheduler.CompiledScheduler`: α is a Cadence schedule at the run's time (``state``);
* :class:`~schedulers.core.torch_scheduler.StepCountingScheduler`: α is a closed form of its own count of
  ``step()`` calls (the Cerebras and SambaFlow front ends).

Each clock defines ``step()`` and :meth:`~GroupWriter.current_alpha`; the writer owns the param groups: which
are driven, each one's scale :math:`s_g`, and writing a float (or a 0-d tensor, in place, so a compiled
optimizer step keeps its graph).

``param_group_tags``: which optimizer param groups a scheduler writes to.

A scheduler built with ``param_group_tags=None`` writes to every param group. With a tag (a str) or
tags (a list, tuple or set), it writes only to the groups whose ``"tags"`` entry (a str, or a list or
set of str) shares at least one tag with it, as in Cerebras 2.x.

>>> groups = [{"tags": "decay"}, {"tags": ["no_decay", "bias"]}, {}]
>>> [matches(normalize_tags(["bias"]), g) for g in groups]
[False, True, False]

Cadence's second clock: a scheduler whose α is a closed form of its own count of ``step()`` calls.

The Cerebras and SambaFlow front ends count optimizer steps, as their originals do. After :math:`k` calls to
``step()`` (construction is the first, so :math:`k` is ``last_epoch``) a :class:`StepCountingScheduler` writes

.. math:: g[h] = s_g \cdot f(k)

into each driven param group :math:`g`, where :math:`f` is the front end's curve, resolved for the run (its step
counts in ``ep`` or ``dur`` read against the run's state, and scaled by the run's ratio) by the front end's
``curve_for(state, ssr)``. The count is also kept as a 0-d int64 tensor written in place, so a closed form
traced by ``torch.compile`` takes the step as an input: one graph serves every step (docs/cerebras.md).

``scale_pytorch_scheduler``: apply a scale schedule ratio to a step-indexed torch scheduler in place.

Composer's rules, with deviation 2's rounding: every step-count argument becomes ``n · ssr`` as a whole
count (:func:`~timeunits.whole_count`: the nearest integer within ``1e-9`` relative, else truncated, so
``100 · 0.29`` is 29 where Composer's ``int()`` gives 28; docs/composer-deviations.md), the rule every
Cadence schedule follows; ``ExponentialLR``'s ``gamma`` becomes ``gamma ** (1 / ssr)`` so the same total
decay happens over the scaled run. Cadence also scales
``LinearLR``, ``ConstantLR`` and ``PolynomialLR`` (``total_iters``) and SambaFlow's ``LambdaLR`` schedules
(whose multipliers have a ``scaled(ssr)`` method), keeps repeated ``MultiStepLR``
milestones (Composer's rebuild drops their multiplicity), makes ``CosineAnnealingWarmRestarts`` really
restart at the scaled period (torch reads ``T_i``, which Composer leaves unscaled), and raises a
ValueError naming the argument when a count truncates to 0 (torch would divide by zero at ``step()``).
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
from torch.optim import lr_scheduler as torch_schedulers
from torch.optim.lr_scheduler import LRScheduler

from schedulers.core.clock import EpochStartView
from schedulers.core.listening import OBSERVED_BY_USER_CODE, Decision, Evaluation, HeardOnce
from schedulers.core.plateau import Plateaus
from schedulers.core.run import Run, StateLike, whole_count
from schedulers.core.schedule import CallableKind, Schedule, callable_kind
from schedulers.core.schedule_arguments import integer_argument, number_argument

__all__ = [
    "CompiledScheduler",
    "base_value",
    "compile_scheduler",
    "GroupWriter",
    "group_tags",
    "matches",
    "normalize_tags",
    "targeted_groups",
    "StepCountingScheduler",
    "scale_pytorch_scheduler",
]


class GroupWriter(LRScheduler):
    r"""Writes :math:`s_g \cdot \alpha` into ``hyperparameter`` of each driven param group :math:`g`.

    Not built directly: a clock subclasses it, sets up the groups with :meth:`_drive`, and says what α is now
    (:meth:`current_alpha`).

    Args:
        optimizer: torch's constructor argument; each clock has its own constructor and calls :meth:`_drive`.
        last_epoch: torch's constructor argument (the step count lives in the writer).

    Returns:
        The base class of Cadence's schedulers; its instances are theirs.

    >>> from schedulers.core.torch_scheduler import CompiledScheduler
    >>> from schedulers.core.torch_scheduler import StepCountingScheduler
    >>> issubclass(CompiledScheduler, GroupWriter), issubclass(StepCountingScheduler, GroupWriter)
    (True, True)
    """

    #: who this scheduler is in a message about what it heard (the trainer names it by its entries)
    listener_name: str = "a compiled schedule"

    def _drive(
        self, optimizer: torch.optim.Optimizer, hyperparameter: str, indices: list[int], scales: list[float]
    ) -> None:
        """Drive ``hyperparameter`` of the param groups ``indices``, group ``indices[i]`` scaled by ``scales[i]``."""
        self.optimizer = optimizer
        self.hyperparameter = hyperparameter
        self.param_groups = indices
        self.base_values = scales
        if hyperparameter == "lr":
            self.base_lrs = list(scales)  # what torch's own schedulers expose
        groups = optimizer.param_groups
        one_float = len(indices) == 1 and not isinstance(groups[indices[0]][hyperparameter], torch.Tensor)
        self._single = (indices[0], scales[0]) if one_float else None
        if not hasattr(self, "_count"):  # not self.__dict__: reading it once makes every attribute slower
            self._count = 0
        self._step_count = 1

    def current_alpha(self) -> float:
        """α now: the value each driven group's scale is multiplied by at the current step.

        Returns:
            The multiplier the clock gives for its current time or count.

        Raises:
            NotImplementedError: On the base class, which has no clock.
        """
        raise NotImplementedError(f"{type(self).__name__} must say what alpha is now (current_alpha)")

    def _apply(self, alpha: float | None = None) -> None:
        """Write ``scale · α`` into the driven groups; ``alpha`` defaults to α now."""
        if alpha is None:
            alpha = self.current_alpha()
        single = self._single
        if single is not None:  # the common case, kept to a few operations: one group, a float value
            index, scale = single
            # the groups looked up each time: an optimizer's load_state_dict replaces them
            self.optimizer.param_groups[index][self.hyperparameter] = value = scale * alpha
            self._written = value  # a number, not a list: one allocation less per step (see _last_lr)
            return
        groups, key = self.optimizer.param_groups, self.hyperparameter
        values = self._values(alpha)
        for index, value in zip(self.param_groups, values, strict=True):
            group = groups[index]
            if isinstance(group[key], torch.Tensor):
                group[key].fill_(value)  # in place: a compiled optimizer step keeps its graph
            else:
                group[key] = value
        self._written = values

    @property
    def _last_lr(self) -> list[Any]:
        """The values of the last write, one per driven group (torch's attribute), as a new list."""
        written = self._written
        return list(written) if isinstance(written, list) else [written]

    @_last_lr.setter
    def _last_lr(self, values: list[Any]) -> None:
        self._written = list(values)

    def _values(self, alpha: float) -> list[float]:
        return [scale * alpha for scale in self.base_values]

    @property
    def last_epoch(self) -> Any:
        """The number of ``step()`` calls since construction (torch's name for it)."""
        return self._count

    @last_epoch.setter
    def last_epoch(self, value: Any) -> None:
        self._set_count(int(value))

    def _set_count(self, count: int) -> None:
        self._count = count

    def get_lr(self) -> list[float]:
        """The values the next write would use (torch's protocol).

        Returns:
            One value per driven param group: ``scale · α`` at the current count or time.
        """
        return self._values(self.current_alpha())

    def get_last_lr(self) -> list[Any]:
        """The values written by the last construction, ``step()`` or ``load_state_dict()``.

        Returns:
            One value per driven param group, as last written.
        """
        return self._last_lr


def normalize_tags(param_group_tags: object) -> frozenset[str] | None:
    """``param_group_tags`` as a frozenset of tags (None stays None); duplicates are an error, as in Cerebras.

    Args:
        param_group_tags: None (every group), a tag (str), or a non-empty list, tuple or set of tags.

    Returns:
        The tags as a frozenset, or None when ``param_group_tags`` is None.

    Raises:
        ValueError: ``param_group_tags`` is of another type, empty, holds a non-str, or repeats a tag.

    >>> sorted(normalize_tags(["bias", "norm"])), normalize_tags("bias"), normalize_tags(None)
    (['bias', 'norm'], frozenset({'bias'}), None)
    """
    if param_group_tags is None:
        return None
    if isinstance(param_group_tags, str):
        return frozenset((param_group_tags,))
    if isinstance(param_group_tags, (list, tuple, set, frozenset)):
        tags = list(param_group_tags)
        if not tags or not all(isinstance(tag, str) for tag in tags):
            raise ValueError(f"param_group_tags={param_group_tags!r} must be a tag (str) or a non-empty list of tags")
        if len(set(tags)) != len(tags):
            raise ValueError(f"param_group_tags={param_group_tags!r} contains duplicate values")
        return frozenset(tags)
    raise ValueError(f"param_group_tags={param_group_tags!r} must be None, a tag (str) or a list of tags")


def group_tags(group: dict) -> frozenset[str]:
    """The tags of one param group: its ``"tags"`` entry as a set (a str is one tag).

    Args:
        group: An optimizer param group (a dict), with or without a ``"tags"`` entry.

    Returns:
        Its tags as a frozenset, empty when the group has no ``"tags"``.

    >>> group_tags({"tags": "decay"}), group_tags({"lr": 0.1})
    (frozenset({'decay'}), frozenset())
    """
    tags = group.get("tags")
    if not tags:
        return frozenset()
    if isinstance(tags, str):
        return frozenset((tags,))
    return frozenset(tags)


def matches(tags: frozenset[str] | None, group: dict) -> bool:
    """Whether a scheduler with ``tags`` writes to ``group``.

    Args:
        tags: The scheduler's tags, as :func:`normalize_tags` gives them (None: every group).
        group: An optimizer param group.

    Returns:
        True when ``tags`` is None or shares a tag with the group's :func:`group_tags`.

    >>> matches(frozenset({"bias"}), {"tags": ["bias", "no_decay"]}), matches(frozenset({"bias"}), {})
    (True, False)
    """
    return tags is None or not tags.isdisjoint(group_tags(group))


def targeted_groups(optimizer: torch.optim.Optimizer, tags: frozenset[str] | None, owner: str) -> list[int]:
    """Indices of the param groups ``tags`` select; a ValueError naming ``owner`` when there are none.

    Args:
        optimizer: The optimizer whose ``param_groups`` are read.
        tags: The scheduler's tags, as :func:`normalize_tags` gives them (None: every group).
        owner: The scheduler's name, for the error.

    Returns:
        The indices in ``optimizer.param_groups`` of the groups :func:`matches` selects, in order.

    Raises:
        ValueError: No param group has any of ``tags`` (the message lists the groups' tags).

    >>> import torch
    >>> weight, bias = torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(2))
    >>> optimizer = torch.optim.SGD([{"params": [weight]}, {"params": [bias], "tags": "bias"}], lr=0.1)
    >>> targeted_groups(optimizer, frozenset({"bias"}), "LinearScheduler"), targeted_groups(optimizer, None, "x")
    ([1], [0, 1])
    """
    indices = [i for i, group in enumerate(optimizer.param_groups) if matches(tags, group)]
    if not indices:
        available = sorted(set().union(*(group_tags(group) for group in optimizer.param_groups)))
        raise ValueError(
            f"{owner} was given param_group_tags={sorted(tags)} but no param group of the optimizer has any of "
            f"them; tags of its param groups: {available or 'none'} (a group's tags are its 'tags' entry)"
        )
    return indices


def compile_scheduler(
    scheduler: Callable[..., float],
    optimizer: torch.optim.Optimizer,
    state: StateLike,
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
    count optimizer steps share the writing: :class:`~schedulers.core.torch_scheduler.StepCountingScheduler`.)

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

    #: the schedule driven, as given (a plateau's reduction replaces it with the reduced copy): read its own
    #: attributes through it (``scheduler.scheduler.schedule.reductions``), so a type checker takes any
    scheduler: Any
    #: the schedule's plateaus and their states (None: it only follows time, which its resolved curve says
    #: without a look into schedulers.core.plateau: _holds_plateaus); found by schedulers.core.plateau.Plateaus.of
    _plateaus: Plateaus | None = None
    #: the time of the last evaluation heard and its door (None: it listens to nothing)
    _heard: HeardOnce | None = None

    def __init__(
        self,
        scheduler: Callable[..., float],
        optimizer: torch.optim.Optimizer,
        state: StateLike,
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
        holds = _holds_plateaus(scheduler, state, ssr, run)
        self._plateaus = Plateaus.of(scheduler, state, ssr, run) if holds else None
        # one evaluation per clock time, from whichever door (docs/plateau.md); a schedule that only follows time
        # hears nothing
        self._heard = HeardOnce() if self._plateaus is not None else None
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

    def attach_state(self, state: StateLike, ssr: float | Run | None = None) -> CompiledScheduler:
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
        if self._plateaus is not None:
            self._plateaus.refresh(state, ssr, run)
        self.state, self.ssr, self.run = state, ssr, run
        self._apply()
        return self

    @property
    def monitors(self) -> list[str]:
        """The metrics this scheduler listens to (a :class:`~schedulers.core.plateau.PlateauScheduler`'s
        ``monitor``): empty for a schedule that only follows time."""
        return [] if self._plateaus is None else self._plateaus.monitors

    @property
    def needs_evaluations(self) -> bool:
        """Whether a run without evaluations would leave this scheduler deaf (it holds a plateau): the
        :class:`~schedulers.core.listening.EvaluationListener` check at the start of a run."""
        return self._plateaus is not None

    def hear(self, evaluation: Evaluation) -> Decision | None:
        """An :class:`~schedulers.core.listening.Evaluation` of the run: its metrics decide when it counts (one of
        the run's evaluations) and is the first at the time of the run's clock (the state's, or the clock an
        ``EpochStartView`` views; :class:`~schedulers.core.listening.HeardOnce`), and what changed is said in one
        line.

        Args:
            evaluation: The evaluation (its metrics and door; the time is the state's, which the door keeps).

        Returns:
            A :class:`~schedulers.core.listening.Decision` naming each reduction, or None.

        Raises:
            KeyError: A monitored metric is missing from the evaluation.

        >>> import torch
        >>> from schedulers import PlateauScheduler, SchedulerState, compile_scheduler
        >>> from schedulers.core.listening import Evaluation
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> state = SchedulerState("10ba")
        >>> sched = compile_scheduler(PlateauScheduler(factor=0.5, patience=0), opt, state)
        >>> sched.hear(Evaluation({"eval/loss": 1.0}))
        >>> state.timestamp = state.timestamp.to_next_batch(); sched.hear(Evaluation({"eval/loss": 1.0})).line
        'a compiled schedule: lr 1 -> 0.5 at 1ba (eval/loss has not improved (best 1): multiplier 1 -> 0.5)'
        """
        if self._plateaus is None or not evaluation.counts:
            return None
        return self._decide(evaluation.metrics, evaluation.door)

    def observe(self, metrics: Mapping[str, float]) -> bool:
        """An evaluation's ``metrics``: each plateau in use now decides (torch's ``ReduceLROnPlateau.step``);
        after a reduction the values for the state's timestamp are written at once. This is what a plain loop
        calls after each of its evaluations (docs/integrations.md); beside the Trainer or an integration, which
        feed the evaluations themselves, it is a second one at the same time, ignored with a warning.

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
        >>> state = SchedulerState("10ba")
        >>> sched = compile_scheduler(PlateauScheduler(factor=0.5, patience=0), opt, state)
        >>> sched.observe({"eval/loss": 1.0})
        False
        >>> state.timestamp = state.timestamp.to_next_batch()  # the next evaluation, a batch later
        >>> sched.observe({"eval/loss": 1.0}), opt.param_groups[0]["lr"]
        (True, 0.5)
        """
        return self._plateaus is not None and self._decide(metrics, OBSERVED_BY_USER_CODE) is not None

    def _decide(self, metrics: Mapping[str, float], door: str) -> Decision | None:
        """The first evaluation at the run's clock time feeds the plateaus; the line of what changed, or None."""
        # the run's clock: held for an epoch (an EpochStartView), the state reads the epoch's start, but each
        # evaluation inside the epoch is still its own
        clock = self.state.state if isinstance(self.state, EpochStartView) else self.state
        if self._heard is None or not self._heard.admits(clock.timestamp, door, self.listener_name):
            return None
        before = float(self._last_lr[0])
        changes = self._observe(metrics)
        if not changes:
            return None
        return Decision(
            f"{self.listener_name}: {self.hyperparameter} {before:.6g} -> {float(self._last_lr[0]):.6g} at "
            f"{self.state.timestamp.batch} ({'; '.join(changes)})"
        )

    def _observe(self, metrics: Mapping[str, float]) -> list[str]:
        """Feed the plateaus; after a reduction rebind and write. The phrases of what changed."""
        if self._plateaus is None:
            return []
        changes = self._plateaus.observe(self.state, metrics)
        if changes:
            self.scheduler = self._plateaus.schedule()
            self._alpha = _bind(self.scheduler, self.ssr, self.run)
            self._apply()
        return changes

    def state_dict(self) -> dict[str, Any]:
        """Bookkeeping only: the time lives in the state, which is saved with it.

        Returns:
            Plain numbers and strings: ``hyperparameter``, ``ssr``, ``last_epoch`` (the count of steps),
            ``base_values``, and a plateau's counters and reductions so far under ``"plateaus"`` with the time of the
            last evaluation heard under ``"heard"``.
        """
        saved = {
            "hyperparameter": self.hyperparameter,
            "ssr": self.ssr,
            "last_epoch": self._count,
            "base_values": [float(b) for b in self.base_values],
        }
        if self._plateaus is not None and self._heard is not None:  # a schedule that listens has both
            saved["plateaus"] = self._plateaus.state_dict()
            saved["heard"] = self._heard.state_dict()  # the time of the last evaluation heard, and its door
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
        if self._plateaus is not None and self._heard is not None and "plateaus" in state_dict:
            self.scheduler = self._plateaus.load_state_dict(state_dict["plateaus"])
            self._heard.load_state_dict(state_dict.get("heard"))
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


def _holds_plateaus(scheduler: Callable[..., float], state: StateLike, ssr: float, run: Run | None) -> bool:
    """Whether ``scheduler`` may hold a plateau, asked before plateau.py looks inside: a schedule called by
    ``Schedule.__call__`` has just resolved its curve for this run (read back from its cache), and the curve lists
    its plateaus (``Curve.plateaus``); a schedule called its own way may have no curve to ask; a plain callable holds
    none."""
    if not isinstance(scheduler, Schedule):
        return False
    if type(scheduler).__call__ is not Schedule.__call__:
        return True
    return bool(scheduler.curve(run if run is not None else Run.of_state(state, ssr)).plateaus)


def _bind_ssr(scheduler: Callable[..., float], ssr: float) -> Callable[[Any], float]:
    """``state -> α``: pass ssr to two-argument schedules; a one-argument schedule needs ssr == 1."""
    kind = callable_kind(scheduler)  # the one rule of what a callable is (schedulers.core.schedule)
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


class StepCountingScheduler(GroupWriter):
    """A scheduler that counts its own steps: the value after ``k`` calls to ``step()`` is ``scale · f(k)``.

    Not built directly: a front end subclasses it, sets ``self._curve`` (:math:`f`, a function of the step
    count taking a float) and calls :meth:`_start` with the groups it drives; :meth:`attach_state` asks the front
    end for the curve of a run with ``curve_for(state, ssr)``.

    Args:
        optimizer: torch's constructor argument; each front end has its own constructor and calls :meth:`_start`.
        last_epoch: torch's constructor argument (the count is set by :meth:`_start`).

    Returns:
        The base class of the Cerebras and SambaFlow schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> scheduler = cs.LinearLR(opt, 1.0, 0.0, total_iters=4)
    >>> isinstance(scheduler, StepCountingScheduler), scheduler.step(), opt.param_groups[0]["lr"]
    (True, None, 0.75)
    """

    #: the run's state and ratio the curve was resolved for (None: not attached to a run)
    state: StateLike | None = None
    ssr: float = 1.0
    run: Run | None = None

    def _start(
        self, optimizer: torch.optim.Optimizer, key: str, indices: list[int], scales: list[float], count: int
    ) -> None:
        """Drive the groups and hold the step count ``count`` (also as a tensor); writes nothing."""
        self._drive(optimizer, key, indices, scales)
        self._count = count
        tensor = torch.tensor(count, dtype=torch.int64)
        self._step_tensor, self._step_view = tensor, tensor.numpy()

    def _set_count(self, count: int) -> None:
        self._count = count
        self._step_view[()] = count

    def __getstate__(self) -> dict[str, Any]:
        return {key: value for key, value in self.__dict__.items() if key != "_step_view"}  # a view: made again

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._step_view = self._step_tensor.numpy()

    def current_alpha(self) -> float:
        """:math:`f(k)` at the current count :math:`k`.

        Returns:
            The curve's value at ``last_epoch``.
        """
        return self._curve(float(self._count))

    def step(self, epoch: int | None = None) -> None:
        """Count one step and write ``scale · f(k)`` (f evaluated before the count moves, so a step that raises
        is not counted).

        Args:
            epoch: The step to jump to (deprecated in torch, warned); None for the next step.

        Raises:
            ValueError: ``epoch`` is not a whole number >= 0.
        """
        if epoch is not None:
            self._jump(epoch)
            return
        count = self._count + 1
        alpha = self._curve(float(count))
        self._step_view[()] = count
        self._count = count
        self._step_count += 1
        self._apply(alpha)

    def _jump(self, epoch: int) -> None:
        warnings.warn(
            "passing a step to step() is deprecated (as in torch); call step() once per optimizer step",
            UserWarning,
            stacklevel=3,
        )
        alpha = self._curve(float(integer_argument("epoch", epoch, low=0)))
        self._set_count(int(epoch))
        self._step_count += 1
        self._apply(alpha)

    def attach_state(self, state: StateLike | None, ssr: float | Run = 1.0) -> StepCountingScheduler:
        """Resolve the curve for the run of ``state`` (its ``ep``/``dur`` step counts) scaled by ``ssr``, then
        write the value at the current count. The trainer calls this with its clock and its Run.

        Args:
            state: Anything with ``.max_duration``, ``.dataloader_len`` and ``.timestamp``.
            ssr: The scale schedule ratio, or the :class:`~schedulers.core.run.Run` ``state`` counts (its ratio
                is then the one kept, also over a ratio saved in a checkpoint).

        Returns:
            This scheduler, with the value at its count written.

        Raises:
            ValueError: A ratio the curve cannot take, or a step count the run cannot resolve (nothing has
                changed then).
        """
        run = ssr if isinstance(ssr, Run) else None
        ratio = run.ssr if run is not None else number_argument("ssr", ssr, low=0.0, low_open=True)
        self._curve = self.curve_for(state, ratio)  # before anything changes: a refused ratio changes nothing
        self.state, self.ssr, self.run = state, ratio, run
        self._apply()
        return self

    def get_last_lr(self) -> list[Any]:
        """The values written by the last construction, ``step()`` or ``load_state_dict()``, as torch's and
        Cerebras's schedulers give them.

        Returns:
            Every param group's value of the key (a tensor as a copy), driven or not.
        """
        key = self.hyperparameter
        return [g[key].clone() if isinstance(g[key], torch.Tensor) else g[key] for g in self.optimizer.param_groups]

    def curve_for(self, state: StateLike | None, ssr: float) -> Callable[[float], float]:
        """The front end's curve :math:`f` of the step count, for the run of ``state`` scaled by ``ssr``.

        Args:
            state: The run's state (None: no run attached).
            ssr: The scale schedule ratio.

        Returns:
            A function of the step count (a float) giving the value.

        Raises:
            NotImplementedError: On a class that does not define it.
        """
        raise NotImplementedError(f"{type(self).__name__} counts its steps, so it must define curve_for(state, ssr)")


def scale_pytorch_scheduler(scheduler: torch_schedulers.LRScheduler, ssr: float) -> None:
    """Scale ``scheduler``'s step counts by ``ssr`` in place (a no-op at ``ssr = 1``).

    A step count :math:`n` becomes the whole count of :math:`n \\cdot \\mathrm{ssr}`;
    ``ExponentialLR``'s :math:`\\gamma` becomes :math:`\\gamma^{1/\\mathrm{ssr}}` (the module docstring
    lists every scheduler and rule).

    Args:
        scheduler: A torch ``StepLR``, ``MultiStepLR``, ``CosineAnnealingLR``, ``CosineAnnealingWarmRestarts``,
            ``ExponentialLR``, ``LinearLR``, ``ConstantLR``, ``PolynomialLR``, or a SambaFlow ``LambdaLR``.
        ssr: The scale schedule ratio, a finite number > 0.

    Returns:
        None: ``scheduler`` is changed in place.

    Raises:
        ValueError: ``ssr`` not a finite number > 0, a scheduler of another kind, or a step count that
            scales to 0 (naming the argument).

    >>> import torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> step = torch.optim.lr_scheduler.StepLR(opt, step_size=10)
    >>> scale_pytorch_scheduler(step, 0.5); step.step_size
    5
    """
    ssr = number_argument("scale_schedule_ratio", ssr, low=0.0, low_open=True)
    if ssr == 1.0:
        return
    name = type(scheduler).__name__
    if isinstance(scheduler, torch_schedulers.StepLR):
        scheduler.step_size = _scaled(name, "step_size", scheduler.step_size, ssr)
    elif isinstance(scheduler, torch_schedulers.MultiStepLR):
        scheduler.milestones = Counter(whole_count(m * ssr) for m in scheduler.milestones.elements())
    elif isinstance(scheduler, torch_schedulers.CosineAnnealingLR):
        scheduler.T_max = _scaled(name, "T_max", scheduler.T_max, ssr)
    elif isinstance(scheduler, torch_schedulers.CosineAnnealingWarmRestarts):
        scheduler.T_0 = _scaled(name, "T_0", scheduler.T_0, ssr)
        scheduler.T_i = _scaled(name, "T_i", scheduler.T_i, ssr)
    elif isinstance(scheduler, torch_schedulers.ExponentialLR):
        scheduler.gamma = scheduler.gamma ** (1.0 / ssr)
    elif isinstance(scheduler, (torch_schedulers.LinearLR, torch_schedulers.ConstantLR, torch_schedulers.PolynomialLR)):
        scheduler.total_iters = _scaled(name, "total_iters", scheduler.total_iters, ssr)
    elif isinstance(scheduler, torch_schedulers.LambdaLR) and all(hasattr(f, "scaled") for f in scheduler.lr_lambdas):
        # SambaFlow's schedules: their multipliers know their own step counts
        scheduler.lr_lambdas = [f.scaled(ssr) for f in scheduler.lr_lambdas]
    else:
        raise ValueError(
            f"scale_schedule_ratio={ssr} cannot be applied to {name}: Cadence scales StepLR, MultiStepLR, "
            "CosineAnnealingLR, CosineAnnealingWarmRestarts, ExponentialLR, LinearLR, ConstantLR and PolynomialLR; "
            "write the schedule as a Cadence schedule (times in ba/ep/dur) to scale it"
        )


def _scaled(scheduler: str, argument: str, count: int, ssr: float) -> int:
    scaled = whole_count(count * ssr)
    if scaled <= 0:
        raise ValueError(
            f"{scheduler}.{argument}={count} scaled by scale_schedule_ratio={ssr} truncates to {scaled}; "
            "it must stay at least 1"
        )
    return scaled
