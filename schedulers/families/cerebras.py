r"""Cerebras's schedules as Cadence schedules: each a frozen closed form :math:`f(t)` of the optimizer step :math:`t`.

A Cerebras step is a batch of the step-counting clock (:mod:`schedulers.core.torch_scheduler`), so each schedule
here is a :class:`~schedulers.core.schedule.Schedule` whose curve counts batches: it resolves against a
:class:`~schedulers.core.run.Run` (:meth:`StepSchedule.resolved`), its step counts scaled by the one ratio rule
(:meth:`Run.count <schedulers.core.run.Run.count>`), and its value is the absolute value Cerebras writes (a
learning rate or a weight decay), not a multiplier. A schedule holds its arguments under Cerebras 2.x's generic
names (``val``, ``initial_val``, ``end_val``, ``vals``, ``base_val``, ``max_val``; the learning-rate classes of
:mod:`schedulers.cerebras` rename them) and is evaluated through :mod:`schedulers.core.kernels` on a float (the
per-step path) or a float64 tensor of steps (a whole run, or a step traced by ``torch.compile``).

A step-count argument is a whole number of steps, as in Cerebras, or a time string:

* ``"Nba"`` is N steps, with or without a run's length;
* ``"Nep"`` is N × ``dataloader_len`` steps and ``"xdur"`` is x × ``max_duration`` steps: both need the run
  (:func:`step_run` of the scheduler's state);
* ``"sp"`` and ``"tok"`` are errors: a step-indexed schedule cannot follow samples or tokens, the time-aware
  schedules (``schedulers.CosineAnnealingWithWarmupScheduler``, ...) do.

With a scale schedule ratio a count in ``ba``/``ep`` (and a plain number) is multiplied by it and made a whole
count by deviation 2's rule (``100 × 0.29`` is 29), while a ``dur`` is not scaled (the run's length already is).
The formulas are in the docstrings of the learning-rate classes (docs/cerebras.md).

>>> from schedulers import SchedulerState
>>> form = CosineDecay(initial_val=0.1, end_val=0.0, total_iters="0.5dur")
>>> run = form.resolved(step_run(SchedulerState("8ba")))
>>> run.total_iters, [round(run.value(t), 6) for t in (0.0, 2.0, 4.0)]
(4, [0.1, 0.05, 0.0])
>>> CosineDecay(0.1, 0.0, "0.5dur").curve(Run("8ba"))(2.0)
0.05
"""

from __future__ import annotations

import copy
import itertools
import math
import operator
from collections.abc import Callable
from typing import Any, ClassVar

import attrs
import torch

from schedulers.core import kernels
from schedulers.core.composition import Product, sequence_curve
from schedulers.core.kernels import ops
from schedulers.core.run import Run, StateLike
from schedulers.core.schedule import Curve, Schedule
from schedulers.core.schedule_arguments import choice_argument, integer_argument, number_argument, number_problem
from timeunits import Time, TimeUnit
from timeunits.errors import argument_error

_F64 = torch.float64
# warm restarts with T_mult > 1: interval ends up to this step (the lengths grow geometrically, so a few dozen)
_RESTART_HORIZON = 2**50
# the length of a run whose length is not known (no state, or a state without max_duration): a ``dur`` is
# then an error, an epoch needs dataloader_len
_UNKNOWN_STEPS = 2**62

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

    >>> resolve_steps("total_iters", True, Run("10ba"))
    Traceback (most recent call last):
    ...
    schedulers.families.cerebras.StepArgumentError: total_iters=True must be a number of steps ...
    """


class ArgumentError(ValueError):
    """An argument a schedule does not accept; ``name`` is its generic name, so a class that renames it can say
    its own (``initial_val`` is ``initial_learning_rate`` in ``CosineDecayLR``).

    Args:
        name: The argument's generic name.
        text: The rest of the message, after the name (``"=-1.0 must be >= 0"``).
        negative: Whether the value was refused for being below 0 (the scheduler says which key it writes).

    Returns:
        The error (a ``ValueError``) the schedules raise.

    >>> str(ArgumentError("end_val", "=-1.0 must be >= 0"))
    'end_val=-1.0 must be >= 0'
    """

    def __init__(self, name: str, text: str, *, negative: bool = False) -> None:
        super().__init__(f"{name}{text}")
        self.name, self.text, self.negative = name, text, negative


def step_run(state: StateLike | None, ssr: float = 1.0) -> Run:
    """The run a Cerebras schedule resolves against: the state's (its length already scaled), or one of unknown
    length when there is no state or it has no ``max_duration`` (a ``dur`` is then an error).

    Args:
        state: The run's state (``.max_duration``, ``.dataloader_len``), or None.
        ssr: The scale schedule ratio.

    Returns:
        The :class:`~schedulers.core.run.Run` whose counts the step-count arguments become.

    >>> from schedulers import SchedulerState
    >>> step_run(SchedulerState("2ep", dataloader_len=50), 0.5).count("milestone", "1ep")
    Time(25, TimeUnit.BATCH)
    """
    length = getattr(state, "max_duration", None)
    known = Time(_UNKNOWN_STEPS, TimeUnit.BATCH) if length is None else length
    return Run(known, getattr(state, "dataloader_len", None), ssr=ssr, scaled=True)


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


def resolve_steps(name: str, value: object, run: Run) -> int | float | list | None:
    """``value`` (a number, a time string or Time, a list of these, or None) as whole steps of ``run``.

    A number is a count of batches, resolved by :meth:`Run.count <schedulers.core.run.Run.count>` like a time in
    ``ba`` (so scaled by the run's ratio by the one rule); a number below 0 is left for the schedule's check to
    refuse in its words.

    Args:
        name: The argument's name, for the error.
        value: A number of steps, a time string or ``Time`` (``"1000ba"``, ``"2ep"``, ``"0.1dur"``), a list of
            these, or None.
        run: The run (:func:`step_run`).

    Returns:
        The whole step count (a list for a list; None for None).

    Raises:
        StepArgumentError: A value that is not a whole step count or a time in steps, or a time that needs the
            run's length or batches per epoch, unknown.

    >>> resolve_steps("total_iters", "100ba", step_run(None, 0.29)), resolve_steps("at", [10, "2ba"], Run("1ba"))
    (29, [10, 2])
    """
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return [resolve_steps(f"{name}[{i}]", v, run) for i, v in enumerate(value)]
    if isinstance(value, (str, Time)):
        return _resolve_time(name, value, run)
    if number_problem(value) is not None:  # the one rule of what a number is (a bool is none)
        raise StepArgumentError(
            f"{name}={value!r} must be a number of steps or a time string such as '1000ba', '2ep' or '0.1dur'"
        )
    if value < 0:  # type: ignore[operator]  (a number)
        return value  # the schedule's check says what is accepted
    try:
        count = integer_argument(name, value, why="a number of steps")
    except ValueError as error:
        raise StepArgumentError(str(error)) from None
    return run.count(name, Time(count, TimeUnit.BATCH)).value


def _resolve_time(name: str, value: object, run: Run) -> int:
    try:
        time = Time.from_input(value)
    except ValueError as error:  # timeunits' error, kept (a non-integral count stays a NonIntegralTimeError)
        raise argument_error(name, value, error) from None
    if time.unit in (TimeUnit.SAMPLE, TimeUnit.TOKEN):
        raise StepArgumentError(f"{name}={time} is in {time.unit.name.lower()}s. {_TIME_AWARE_HINT}")
    unknown = run.length.value == _UNKNOWN_STEPS
    needs = "max_duration" if time.unit is TimeUnit.DURATION else "dataloader_len"
    if unknown and (needs == "max_duration" or (time.unit is TimeUnit.EPOCH and run.dataloader_len is None)):
        what = "a fraction of the run" if needs == "max_duration" else "in epochs"
        raise StepArgumentError(
            f"{name}={time} is {what} and needs the run's {needs}: pass state= (anything with max_duration, "
            "dataloader_len and timestamp, e.g. schedulers.SchedulerState('10ep', dataloader_len=100)) to the "
            "scheduler or call scheduler.attach_state(state), or give a step count such as 1000 or '1000ba'"
        )
    resolved = run.count(name, time)
    if resolved.unit is not TimeUnit.BATCH:
        raise StepArgumentError(
            f"{name}={time} resolves to {resolved} because max_duration is {run.max_duration}. {_TIME_AWARE_HINT}"
        )
    return resolved.value


def _checked(check: Callable[..., Any], name: str, value: object, **options: Any) -> Any:
    """``check(name, value, **options)`` with its error as an :class:`ArgumentError` (its text starts with the
    name)."""
    try:
        return check(name, value, **options)
    except ArgumentError:
        raise
    except ValueError as error:
        raise ArgumentError(name, str(error)[len(name) :]) from None


def _argument(check: Callable[..., Any], default: object = attrs.NOTHING, **options: Any) -> Any:
    """A schedule's argument, checked (and converted) by ``check(its name, value, **options)`` when it is built."""
    converter = attrs.Converter(lambda value, field: _checked(check, field.name, value, **options), takes_field=True)
    return attrs.field(default=default, converter=converter)


def _step_count(default: object = attrs.NOTHING, *, period: bool = True, converter: Any = None) -> Any:
    """A step-count argument: steps or a time string, made whole steps for a run by :meth:`StepSchedule.resolved`;
    a period must then be a number of steps > 0 (or None, when that is its default); the schedule checks the
    others."""
    return attrs.field(default=default, converter=converter, metadata={"steps": "period" if period else "count"})


def _value(name: str, value: object) -> float:
    """A value written into param groups: a finite number >= 0 (a negative lr or weight decay would silently
    reverse the update)."""
    number = _checked(number_argument, name, value)
    if number < 0:
        raise ArgumentError(name, f"={number!r} must be >= 0", negative=True)
    return number


def _values(name: str, values: object) -> tuple[float, ...]:
    values = _listed(values)
    if not isinstance(values, list):
        raise ArgumentError(name, f"={values!r} must be a list of numbers")
    if not values:
        raise ArgumentError(name, " must not be empty")
    return tuple(_value(f"{name}[{i}]", v) for i, v in enumerate(values))


def _boolean(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ArgumentError(name, f"={value!r} must be True or False")
    return value


def _listed(values: object) -> object:
    """Values as given, with a tuple or an array (numpy, torch) turned into a list."""
    if hasattr(values, "tolist"):
        values = values.tolist()
    return list(values) if isinstance(values, tuple) else values


def _is_count(value: object) -> bool:
    """A step-count argument given as numbers (or None): nothing to resolve but the ratio."""
    if isinstance(value, (list, tuple)):
        return all(_is_count(item) for item in value)
    return value is None or not isinstance(value, (str, Time))


@attrs.frozen
class StepSchedule(Schedule):
    """A Cerebras schedule as a Cadence schedule: the closed form of the step, with its arguments as given.

    Args:
        *args: Each schedule declares its own fields.

    Returns:
        The base class of the Cerebras schedules; :meth:`value` of a resolved one at a step gives the value there,
        and its curve for a run (:meth:`~schedulers.core.schedule.Schedule.curve`) counts batches.

    >>> issubclass(CosineDecay, StepSchedule), CosineDecay(0.1, 0.0, 4).value(2.0)
    (True, 0.05)
    """

    #: False for a closed form whose shape in steps a scale schedule ratio cannot scale (a factor per step)
    scalable: ClassVar[bool] = True

    def value(self, t: Any) -> Any:
        """The value at step ``t`` (a float, or a float64 tensor of steps, elementwise).

        Args:
            t: The step: a float, or a float64 tensor.

        Returns:
            The value, a float for a float and a tensor for a tensor.

        Raises:
            NotImplementedError: On the base class, which has no closed form.
        """
        raise NotImplementedError(f"{type(self).__name__} has no closed form")

    def needs_run(self) -> bool:
        """Whether a step-count argument is a time that only a run's state resolves (``ep``, ``dur``).

        Returns:
            True when resolving needs the run's state.

        >>> Step(0.1, "2ep", 0.5).needs_run(), Step(0.1, "200ba", 0.5).needs_run()
        (True, False)
        """
        return any(needs_run(getattr(self, name)) for name in self._step_counts())

    def resolved(self, run: Run) -> StepSchedule:
        """This schedule for ``run``: each step-count argument made whole steps (:func:`resolve_steps`), then
        checked.

        Args:
            run: The run (:func:`step_run` of a state and a ratio).

        Returns:
            A new schedule of the same class, its step counts numbers; this one is unchanged.

        Raises:
            ArgumentError: A resolved step count out of its range.
            ValueError: A step count the run cannot resolve.

        >>> Linear(1.0, 0.0, "100ba").resolved(step_run(None, 0.29)).total_iters
        29
        """
        given = {name: getattr(self, name) for name in self._step_counts()}
        steps = {name: resolve_steps(name, value, run) for name, value in given.items()}
        try:
            return self._with_resolved(**steps)
        except ArgumentError as error:  # show what the user wrote beside what it resolved to
            shown = f"={steps.get(error.name)!r}"
            if error.name not in given or given[error.name] == steps[error.name] or not error.text.startswith(shown):
                raise
            resolved = f"={given[error.name]!r} (resolved to {steps[error.name]!r} steps)"
            raise ArgumentError(error.name, resolved + error.text[len(shown) :]) from None

    def _resolve(self, run: Run) -> Curve:
        resolved = self.resolved(run)
        times = {}
        for name in self._step_counts():
            counts = getattr(resolved, name)
            items = enumerate(counts) if isinstance(counts, list) else [(None, counts)]
            for i, count in items:
                if count is not None:
                    times[name if i is None else f"{name}[{i}]"] = Time(count, TimeUnit.BATCH)
        return Curve(TimeUnit.BATCH, resolved.value, times)

    def __attrs_post_init__(self) -> None:
        """A schedule whose step counts are numbers is checked (and what depends on them computed) at once: one made
        by :meth:`resolved`, or given numbers; one with time strings waits for :meth:`resolved`."""
        if all(_is_count(getattr(self, name)) for name in self._step_counts()):
            self._check_steps()

    @classmethod
    def _step_counts(cls) -> list[str]:
        """The names of the step-count arguments (declared with :func:`_step_count`)."""
        return [field.name for field in attrs.fields(cls) if "steps" in field.metadata]

    def _check_steps(self) -> None:
        for field in attrs.fields(type(self)):
            value = getattr(self, field.name)
            if field.metadata.get("steps") != "period" or (value is None and field.default is None):
                continue
            if not is_step_count(value, positive=True):
                raise ArgumentError(field.name, f"={value!r} must be a number of steps > 0")

    def _unscalable(self, name: str) -> tuple[str, StepSchedule] | None:
        """The first schedule inside this one that a scale schedule ratio cannot scale, with ``name``: its
        scheduler's class name (a schedule of schedules names each of its parts by its label)."""
        return None if self.scalable else (name, self)

    def _with_resolved(self, **values: Any) -> StepSchedule:
        """This schedule with ``values`` (step counts, forms resolved for a run) in place of its fields, then checked
        (:meth:`_check_steps`); the other fields are kept as their converters checked them when it was built
        (``attrs.evolve`` would check each again, as ``Schedule._of_checked`` avoids for the core's parts)."""
        form = copy.copy(self)
        for name, value in values.items():
            object.__setattr__(form, name, value)
        form._check_steps()
        return form

    def _derive(self, **values: Any) -> None:
        """Set fields derived from resolved step counts, on a schedule just resolved (not yet shared)."""
        for name, value in values.items():
            object.__setattr__(self, name, value)


@attrs.frozen
class Constant(StepSchedule):
    """A constant value (``ConstantLR``/``ConstantWD``).

    Args:
        val: The value held at every step.
        total_iters: How many steps it lasts (None: no end; it only says how long, e.g. in a sequence).

    Returns:
        The schedule; its value at a step gives ``val``.

    >>> Constant(0.1, total_iters=5).value(7.0)
    0.1
    """

    val: float = _argument(_value)
    total_iters: StepCount | None = _step_count(None)

    def value(self, t: Any) -> Any:
        return kernels.constant(t, self.val)


@attrs.frozen
class Polynomial(StepSchedule):
    """Polynomial decay from ``initial_val`` to ``end_val`` over ``total_iters`` steps (``PolynomialLR``).

    Args:
        initial_val: The value at step 0.
        end_val: The value at step ``total_iters`` and after.
        total_iters: The steps of the decay.
        power: The exponent of the decay (1: linear).
        cycle: Restart the decay with a horizon a multiple of ``total_iters`` (TensorFlow's ``cycle``).

    Returns:
        The schedule; its value at a step gives the decayed value.

    >>> Polynomial(0.1, 0.01, 4, power=2.0).value(2.0)
    0.0325
    """

    initial_val: float = _argument(_value)
    end_val: float = _argument(_value)
    total_iters: StepCount = _step_count()
    power: float = _argument(number_argument, 1.0, low=0.0)
    cycle: bool = _argument(_boolean, False)

    def value(self, t: Any) -> Any:
        horizon = self.total_iters
        if self.cycle:
            o = ops(t)
            horizon = horizon * o.maximum(-o.floor(-t / horizon), 1.0)  # T * ceil(t / T), T at t = 0
        return kernels.polynomial(t / horizon, self.power, self.initial_val, self.end_val)


@attrs.frozen
class Linear(Polynomial):
    """Linear decay from ``initial_val`` to ``end_val`` over ``total_iters`` steps: :class:`Polynomial` with
    power 1 (``LinearLR``).

    Args:
        initial_val: The value at step 0.
        end_val: The value at step ``total_iters`` and after.
        total_iters: The steps of the decay.
        cycle: Restart the decay with a horizon a multiple of ``total_iters`` (TensorFlow's ``cycle``).

    Returns:
        The schedule; its value at a step gives the decayed value.

    >>> round(Linear(0.1, 0.0, 4).value(1.0), 12)
    0.075
    """

    power: float = attrs.field(default=1.0, init=False)
    cycle: bool = _argument(_boolean, False)  # after power, as in the repr of a Polynomial


@attrs.frozen
class Exponential(StepSchedule):
    """``initial_val`` times ``decay_rate`` per ``total_iters`` steps (``ExponentialLR``).

    Args:
        initial_val: The value at step 0.
        total_iters: The steps of one factor ``decay_rate``.
        decay_rate: The factor per ``total_iters`` steps.
        staircase: Decay in whole periods (a staircase) rather than continuously.

    Returns:
        The schedule; its value at a step gives the decayed value.

    >>> round(Exponential(0.1, 2, 0.5).value(1.0), 6)
    0.070711
    """

    initial_val: float = _argument(_value)
    total_iters: StepCount = _step_count()
    decay_rate: float = _argument(number_argument, low=0.0)
    staircase: bool = _argument(_boolean, False)

    def value(self, t: Any) -> Any:
        if self.staircase:
            return self.initial_val * kernels.step(t, self.total_iters, self.decay_rate)
        return self.initial_val * kernels.exponential(t, self.decay_rate, self.total_iters)


@attrs.frozen
class InverseExponentialTimeDecay(StepSchedule):
    """``initial_val`` over ``1 + decay_rate · (t / total_iters)^step_exponent`` (``InverseExponentialTimeDecayLR``).

    Args:
        initial_val: The value at step 0.
        step_exponent: The exponent of the step count in the denominator.
        total_iters: The steps of one unit of decay.
        decay_rate: The rate of the decay.
        staircase: Decay in whole periods (a staircase) rather than continuously.

    Returns:
        The schedule; its value at a step gives the decayed value.

    >>> InverseExponentialTimeDecay(0.1, 1, 2, 0.5).value(4.0)
    0.05
    """

    initial_val: float = _argument(_value)
    step_exponent: float = _argument(number_argument, low=0.0)
    total_iters: StepCount = _step_count()
    decay_rate: float = _argument(number_argument, low=0.0)
    staircase: bool = _argument(_boolean, False)

    def value(self, t: Any) -> Any:
        rate = kernels.inverse_time(t, self.step_exponent, self.total_iters, self.decay_rate, self.staircase)
        return self.initial_val * rate


@attrs.frozen
class InverseSquareRootDecay(StepSchedule):
    """``initial_val · scale / sqrt(max(t, warmup_steps))`` (``InverseSquareRootDecayLR``).

    Args:
        initial_val: The factor of the whole curve.
        scale: The factor of the inverse square root of the step.
        warmup_steps: The step count the inverse square root starts from.

    Returns:
        The schedule; its value at a step gives the value.

    >>> InverseSquareRootDecay(0.1, 1.0, 4).value(16.0)
    0.025
    """

    initial_val: float = _argument(_value, 1.0)
    scale: float = _argument(_value, 1.0)
    warmup_steps: StepCount = _step_count(1.0)

    def value(self, t: Any) -> Any:
        return self.initial_val * kernels.inverse_sqrt(t, self.scale, self.warmup_steps)


@attrs.frozen
class CosineDecay(StepSchedule):
    """Half a cosine from ``initial_val`` to ``end_val`` over ``total_iters`` steps, then held (``CosineDecayLR``).

    Args:
        initial_val: The value at step 0.
        end_val: The value at step ``total_iters`` and after.
        total_iters: The steps of the decay.

    Returns:
        The schedule; its value at a step gives the value.

    >>> CosineDecay(0.1, 0.0, 4).value(2.0)
    0.05
    """

    initial_val: float = _argument(_value)
    end_val: float = _argument(_value)
    total_iters: StepCount = _step_count()

    def value(self, t: Any) -> Any:
        return kernels.cosine(t / self.total_iters, self.initial_val, self.end_val)


def _milestones(name: str, values: object, *, order: str | None = None) -> tuple:
    """Resolved milestones as a sorted tuple of step counts, in ``order`` (``"increasing"`` or ``"strictly
    increasing"``; None: any)."""
    if not isinstance(values, (list, tuple)):
        raise ArgumentError(name, f"={values!r} must be a list of step counts")
    for i, value in enumerate(values):
        if not is_step_count(value):
            raise ArgumentError(f"{name}[{i}]", f"={value!r} must be a number of steps >= 0")
    out_of_order = {"increasing": operator.gt, "strictly increasing": operator.ge}.get(order)
    if out_of_order is not None and any(out_of_order(a, b) for a, b in zip(values, values[1:], strict=False)):
        raise ArgumentError(name, f"={list(values)!r} must be {order}")
    return tuple(sorted(values))


@attrs.frozen
class PiecewiseConstant(StepSchedule):
    """``vals[i]`` from ``milestones[i - 1]`` up to ``milestones[i]`` (``PiecewiseConstantLR``).

    Args:
        vals: The values, one per segment (one more than ``milestones``).
        milestones: The steps where the next segment starts, strictly increasing.

    Returns:
        The schedule; its value at a step gives its segment's value.

    >>> PiecewiseConstant([0.1, 0.05, 0.01], [1, 3]).value(2.0)
    0.05
    """

    vals: tuple[float, ...] = _argument(_values)
    milestones: list[StepCount] = _step_count(period=False, converter=_listed)
    _points: tuple = attrs.field(default=(), init=False, repr=False, eq=False)

    def _check_steps(self) -> None:
        points = _milestones("milestones", self.milestones, order="strictly increasing")
        if len(self.vals) != len(points) + 1:
            raise ArgumentError(
                "vals",
                " needs one more value than milestones (a value before the first milestone and one after each), "
                f"got {len(self.vals)} values and {len(points)} milestones",
            )
        self._derive(_points=points)

    def value(self, t: Any) -> Any:
        return kernels.piecewise_constant(t, self._points, self.vals)


@attrs.frozen
class MultiStep(StepSchedule):
    """``initial_val`` times ``gamma`` at each milestone passed (``MultiStepLR``).

    Args:
        initial_val: The value at step 0.
        gamma: The factor at each milestone.
        milestones: The steps of the factors, in increasing order.

    Returns:
        The schedule; its value at a step gives the value.

    >>> MultiStep(0.1, 0.5, [1, 3]).value(3.0)
    0.025
    """

    initial_val: float = _argument(_value)
    gamma: float = _argument(number_argument, low=0.0)
    milestones: list[StepCount] = _step_count(period=False, converter=_listed)
    _points: tuple = attrs.field(default=(), init=False, repr=False, eq=False)

    def _check_steps(self) -> None:
        self._derive(_points=_milestones("milestones", self.milestones))

    def value(self, t: Any) -> Any:
        return self.initial_val * kernels.multistep(t, self._points, self.gamma)


@attrs.frozen
class Step(StepSchedule):
    """``initial_val`` times ``gamma`` every ``step_size`` steps (``StepLR``).

    Args:
        initial_val: The value at step 0.
        step_size: The steps between two factors.
        gamma: The factor every ``step_size`` steps.

    Returns:
        The schedule; its value at a step gives the value.

    >>> Step(0.1, 2, 0.5).value(4.0)
    0.025
    """

    initial_val: float = _argument(_value)
    step_size: StepCount = _step_count()
    gamma: float = _argument(number_argument, low=0.0)

    def value(self, t: Any) -> Any:
        return self.initial_val * kernels.step(t, self.step_size, self.gamma)


@attrs.frozen
class CosineAnnealing(StepSchedule):
    """A cosine from ``initial_val`` to ``eta_min`` over ``T_max`` steps, going on as a wave (``CosineAnnealingLR``).

    Args:
        initial_val: The value at step 0.
        T_max: The steps of a half period.
        eta_min: The lowest value.

    Returns:
        The schedule; its value at a step gives the value.

    >>> CosineAnnealing(0.1, 4).value(2.0)
    0.05
    """

    initial_val: float = _argument(_value)
    T_max: StepCount = _step_count()  # noqa: N815  (torch's and Cerebras's name)
    eta_min: float = _argument(_value, 0.0)

    def value(self, t: Any) -> Any:
        return kernels.cosine_wave(t / self.T_max, self.initial_val, self.eta_min)


@attrs.frozen
class CosineAnnealingWarmRestarts(StepSchedule):
    """Cosines from ``initial_val`` to ``eta_min`` restarting after ``T_0``, then ``T_0 · T_mult``, ... steps.

    Args:
        initial_val: The value at step 0 and after each restart.
        T_0: The steps of the first period, a whole number.
        T_mult: The factor each period's length grows by.
        eta_min: The lowest value.

    Returns:
        The schedule; its value at a step gives the value.

    >>> CosineAnnealingWarmRestarts(0.1, 2).resolved(step_run(None)).value(3.0)
    0.05
    """

    initial_val: float = _argument(_value)
    T_0: StepCount = _step_count()  # noqa: N815
    T_mult: int = _argument(integer_argument, 1, low=1)
    eta_min: float = _argument(_value, 0.0)
    _ends: tuple = attrs.field(default=(), init=False, repr=False, eq=False)

    def _check_steps(self) -> None:
        super()._check_steps()
        first = _checked(integer_argument, "T_0", self.T_0, low=1)
        self._derive(T_0=first, _ends=kernels.restart_boundaries(first, self.T_mult, _RESTART_HORIZON))

    def value(self, t: Any) -> Any:
        return self.eta_min + (self.initial_val - self.eta_min) * kernels.warm_restarts(t, self._ends, 0.0)


@attrs.frozen
class Lambda(StepSchedule):
    """``initial_val`` times the product of the user's functions of the step (``LambdaLR``; torch ops only).

    Args:
        initial_val: The value the functions multiply.
        functions: The functions of the step (a tensor), from the scheduler's ``set_lr_lambda()`` /
            ``set_value_lambda()``.

    Returns:
        The schedule; its value at a step gives the value (a float for a float, a tensor for a tensor).

    >>> Lambda(0.8, functions=(lambda step: 0.5**step,)).value(2.0)
    0.2
    """

    initial_val: float = _argument(_value)
    functions: tuple = attrs.field(default=(), kw_only=True)
    scalable = False  # the user's functions of the step cannot be rescaled

    def value(self, t: Any) -> Any:
        step = t if isinstance(t, torch.Tensor) else torch.tensor(float(t), dtype=_F64)  # torch ops only
        value = torch.full_like(step, self.initial_val)
        for function in self.functions:
            value = value * function(step)
        return value if isinstance(t, torch.Tensor) else float(value)


@attrs.frozen
class Multiplicative(StepSchedule):
    """``initial_val`` times ``factor(t)`` per step: :math:`v_0 \\cdot c^t` (``MultiplicativeLR``).

    Args:
        initial_val: The value at step 0.
        coefficient: The factor per step.
        factor: The factor per step as a function of the step (from ``set_lr_lambda()``; None: ``coefficient``).

    Returns:
        The schedule; its value at a step gives the value.

    >>> Multiplicative(0.1, 0.5).value(2.0)
    0.025
    """

    initial_val: float = _argument(_value)
    coefficient: float = _argument(number_argument, low=0.0)
    factor: Callable[[Any], Any] | None = attrs.field(default=None, kw_only=True)
    scalable = False  # a factor per step: no step-count argument to scale

    def value(self, t: Any) -> Any:
        factor = self.coefficient if self.factor is None else self.factor(t)
        if isinstance(factor, torch.Tensor):
            return self.initial_val * torch.pow(factor, t)
        return self.initial_val * kernels.exponential(t, factor, 1.0)


@attrs.frozen
class Cyclic(StepSchedule):
    """Triangular cycles between ``base_val`` and ``max_val`` (``CyclicLR``, torch's ``CyclicLR`` exactly).

    Args:
        base_val: The value at the bottom of each cycle.
        max_val: The top of the first cycle.
        step_size_up: The steps of a cycle's rising half.
        step_size_down: The steps of its falling half (None: ``step_size_up``).
        mode: ``"triangular"``, ``"triangular2"`` or ``"exp_range"``.
        gamma: The factor per step of the amplitude in ``"exp_range"``.
        scale_mode: ``"cycle"`` or ``"iterations"``.

    Returns:
        The schedule; its value at a step gives the value.

    >>> round(Cyclic(0.01, 0.1, 2).value(1.0), 12)
    0.055
    """

    base_val: float = _argument(_value)
    max_val: float = _argument(_value)
    step_size_up: StepCount = _step_count(2000)
    step_size_down: StepCount | None = _step_count(None, period=False)
    mode: str = _argument(choice_argument, "triangular", choices=kernels.CYCLIC_MODES)
    gamma: float = 1.0
    scale_mode: str = _argument(choice_argument, "cycle", choices=("cycle", "iterations"))

    def __attrs_post_init__(self) -> None:
        self._derive(gamma=_checked(number_argument, "gamma", self.gamma, low=0.0, low_open=self.mode == "exp_range"))
        super().__attrs_post_init__()

    def _check_steps(self) -> None:
        super()._check_steps()
        down = self.step_size_down
        if down is not None and not is_step_count(down):
            raise ArgumentError("step_size_down", f"={down!r} must be None or a number of steps >= 0")

    def value(self, t: Any) -> Any:
        return kernels.cyclic(
            t, self.base_val, self.max_val, self.step_size_up, self.step_size_down, self.mode, self.gamma
        )


@attrs.frozen
class OneCycle(StepSchedule):
    """The 1cycle policy: up from ``initial_val`` to ``max_val``, down to ``initial_val / final_div_factor``
    (``OneCycleLR``, torch's ``OneCycleLR`` exactly).

    Args:
        initial_val: The value at step 0.
        max_val: The top, reached after ``pct_start · total_steps`` steps.
        total_steps: The steps of the whole cycle, a whole number.
        pct_start: The fraction of the cycle spent rising.
        final_div_factor: The last value is ``initial_val`` divided by this.
        three_phase: Come back to ``initial_val`` before the final annealing (torch's three phases).
        anneal_strategy: ``"cos"`` or ``"linear"``.

    Returns:
        The schedule; its value at a step gives the value.

    >>> round(OneCycle(0.004, 0.1, 4).resolved(step_run(None)).value(1.0), 6)
    0.081175
    """

    initial_val: float = _argument(_value)
    max_val: float = _argument(_value)
    total_steps: StepCount = _step_count(1000, period=False)
    pct_start: float = _argument(number_argument, 0.3, low=0.0)
    final_div_factor: float = _argument(number_argument, 10000.0, low=0.0, low_open=True)
    three_phase: bool = _argument(_boolean, False)
    anneal_strategy: str = _argument(choice_argument, "cos", choices=("cos", "linear"))

    def _check_steps(self) -> None:
        self._derive(total_steps=_checked(integer_argument, "total_steps", self.total_steps, low=1))
        self.value(0.0)  # the kernel checks pct_start and total_steps together

    def value(self, t: Any) -> Any:
        return kernels.one_cycle(
            t,
            self.total_steps,
            max_lr=self.max_val,
            initial_lr=self.initial_val,
            min_lr=self.initial_val / self.final_div_factor,
            pct_start=self.pct_start,
            anneal_strategy=self.anneal_strategy,
            three_phase=self.three_phase,
        )


# -- forms of forms ------------------------------------------------------------------------------------
#
# A composite resolves its forms and its own step counts for the run by Cerebras's rules (each form against the
# whole run; milestones that default to the running sum of the forms' total_iters), checks them, then composes
# the resolved forms with the core composition, against _COUNTED, a run whose counts are already counts: the
# curve of a core Sequence on Cerebras's rule (sequence_curve with segment_times=False: the milestones are
# checked here, not again by a Sequence built for them) or a Product (docs/cerebras.md, "Composites").

# a run of unknown length at ratio 1: resolving a count of batches against it gives that count
_COUNTED = Run(Time(_UNKNOWN_STEPS, TimeUnit.BATCH), scaled=True)


@attrs.frozen
class _Resolved(StepSchedule):
    """A form already resolved for its run, as a part of a core composition: its curve is its value (divided by
    ``divisor``, when given: a chained form relative to its start), whatever the run."""

    form: StepSchedule
    divisor: float | None = None

    def __attrs_post_init__(self) -> None:
        """Nothing to check: its form was checked when it was resolved."""

    def _resolve(self, run: Run) -> Curve:
        value, divisor = self.form.value, self.divisor
        return Curve(TimeUnit.BATCH, value if divisor is None else lambda t: value(t) / divisor, {})


def _composed(schedule: Schedule) -> Callable[[Any], Any]:
    """The closed form of a core composition of resolved forms."""
    return schedule._resolve(_COUNTED).fn


@attrs.frozen
class _OfForms(StepSchedule):
    """A form of forms: resolved with its forms and checked then (their step counts and values are known only
    then); ``labels`` name the forms in messages (their schedulers' class names)."""

    schedules: tuple[StepSchedule, ...]
    labels: tuple[str, ...] = attrs.field(default=(), eq=False, repr=False, kw_only=True)

    def _label(self, index: int) -> str:
        return self.labels[index] if index < len(self.labels) else type(self.schedules[index]).__name__

    def needs_run(self) -> bool:
        return super().needs_run() or any(form.needs_run() for form in self.schedules)

    def resolved(self, run: Run) -> StepSchedule:
        children = tuple(form.resolved(run) for form in self.schedules)
        return self._with_resolved(schedules=children, **self._resolved_steps(children, run))

    def _resolved_steps(self, children: tuple[StepSchedule, ...], run: Run) -> dict[str, Any]:
        return {}

    def _unscalable(self, name: str) -> tuple[str, StepSchedule] | None:
        found = (form._unscalable(self._label(i)) for i, form in enumerate(self.schedules))
        return next((item for item in found if item is not None), None)

    def __attrs_post_init__(self) -> None:
        """Checked once resolved."""


@attrs.frozen
class Sequential(_OfForms):
    """``schedules[i]`` from ``milestones[i - 1]`` on, each seeing the steps since its segment began
    (``SequentialLR``).

    Args:
        schedules: The forms in order.
        milestones: The steps where the next one starts (None: the running sum of each one's ``total_iters``
            but the last's).
        labels: How the forms are named in messages (their schedulers' class names).

    Returns:
        The schedule; its value at a step gives the value of the segment's form.

    Raises:
        ArgumentError: ``milestones`` not a list of one fewer step counts than ``schedules``.

    >>> sequence = Sequential((Linear(0.0, 0.1, 2), CosineDecay(0.1, 0.0, 2)), [2])
    >>> [sequence.resolved(step_run(None)).value(t) for t in (1.0, 2.0, 3.0)]
    [0.05, 0.1, 0.05]
    """

    milestones: list[StepCount] | None = _step_count(None, period=False, converter=_listed)
    _fn: Callable[[Any], Any] | None = attrs.field(default=None, init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        """How many milestones is checked at once (a list, one fewer than the forms); their values once resolved."""
        given = self.milestones
        if given is not None and not isinstance(given, list):
            raise ArgumentError("milestones", f"={given!r} must be a list of step counts")
        if given is not None and len(given) != len(self.schedules) - 1:
            raise ArgumentError(
                "",
                f" needs one milestone fewer than schedulers, got {len(self.schedules)} schedulers and "
                f"{len(given)} milestones",
            )

    def _resolved_steps(self, children: tuple[StepSchedule, ...], run: Run) -> dict[str, Any]:
        given = self.milestones
        milestones = self._running_total(children) if given is None else resolve_steps("milestones", given, run)
        return {"milestones": milestones}

    def _check_steps(self) -> None:
        milestones = _milestones("milestones", self.milestones, order="increasing")
        edges = [0, *(int(m) for m in milestones), _UNKNOWN_STEPS]
        parts = [_Resolved(form) for form in self.schedules]  # checked: the core's sequence, not a Sequence built
        self._derive(_fn=sequence_curve(_COUNTED, TimeUnit.BATCH, edges, parts, {}, segment_times=False).fn)

    def _running_total(self, forms: tuple[StepSchedule, ...]) -> list:
        """The milestones when none are given: the running sum of each form's ``total_iters`` but the last's."""
        for i, form in enumerate(forms[:-1]):
            if getattr(form, "total_iters", None) is None:
                raise ArgumentError(
                    "",
                    f" was given no milestones and schedulers[{i}] ({self._label(i)}) has no total_iters: give "
                    "milestones, or total_iters to every scheduler but the last",
                )
        return list(itertools.accumulate(form.total_iters for form in forms[:-1]))

    def local_steps(self, t: torch.Tensor) -> list[torch.Tensor]:
        """The step each form sees at step ``t`` (0 before its segment).

        Args:
            t: The step, an int64 tensor.

        Returns:
            One tensor per form.

        >>> Sequential((Constant(1.0), Constant(2.0)), [5]).local_steps(torch.tensor(7))
        [tensor(7), tensor(2)]
        """
        return [t] + [(t - m).clamp(min=0).to(t.dtype) for m in self.milestones]

    def value(self, t: Any) -> Any:
        return self._fn(t)  # type: ignore[misc]  (derived once resolved)


@attrs.frozen
class Chained(_OfForms):
    """The first form times each other's value relative to its start (``ChainedLR``, torch's ``ChainedScheduler``).

    Args:
        schedules: The forms; each after the first must start at a value other than 0.
        labels: How the forms are named in messages (their schedulers' class names).

    Returns:
        The schedule; its value at a step gives the product.

    >>> chained = Chained((Linear(0.1, 0.0, 4), Step(1.0, 2, 0.5))).resolved(step_run(None))
    >>> chained.value(2.0)
    0.025
    """

    _fn: Callable[[Any], Any] | None = attrs.field(default=None, init=False, repr=False, eq=False)

    def _check_steps(self) -> None:
        initials = []
        for i, form in enumerate(self.schedules[1:], start=1):
            initial = float(form.value(0.0))
            if initial == 0 or not math.isfinite(initial):
                raise ArgumentError(
                    f"schedulers[{i}]",
                    f" ({self._label(i)}) starts at {initial!r}, so its value relative to its start is undefined; "
                    "a chained scheduler after the first must start non-zero",
                )
            initials.append(initial)
        relative = [
            _Resolved(form, divisor=initial) for form, initial in zip(self.schedules[1:], initials, strict=True)
        ]
        self._derive(_fn=_composed(Product([_Resolved(self.schedules[0]), *relative])))

    def value(self, t: Any) -> Any:
        return self._fn(t)  # type: ignore[misc]  (derived once resolved)


@attrs.frozen
class ScalePerParam(_OfForms):
    """One form's value, which the scheduler multiplies by each param group's factor (``ScalePerParamLR``).

    Args:
        schedules: The form, alone in a tuple.
        labels: How the form is named in messages (the scaling scheduler's class name).

    Returns:
        The schedule; its value at a step gives the form's value.

    >>> ScalePerParam((Constant(0.1),)).value(3.0)
    0.1
    """

    def value(self, t: Any) -> Any:
        return self.schedules[0].value(t)
