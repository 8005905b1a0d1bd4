r"""The one Cerebras scheduler: a schedule in steps (:mod:`schedulers.families.cerebras`) written into a param key.

:class:`HyperparameterScheduler` is Cerebras 2.x's ``Scheduler``, for learning rates and weight decays alike
(``param_group_key``: ``"lr"`` for :class:`~schedulers.cerebras.LRScheduler`, ``"weight_decay"`` for
:class:`~schedulers.cerebras.WeightDecayScheduler`). It is Cadence's scheduler that counts its own steps
(:class:`~schedulers.core.torch_scheduler.StepCountingScheduler`); what it adds is what Cerebras documents:

* ``self.last_epoch`` is a 0-d int64 tensor holding the number of ``step()`` calls; construction counts as the
  first call, so it reads 0 after construction (with ``last_epoch=-1``);
* the value written into every targeted param group after ``k`` calls is :math:`f(k)`, the class's form
  (times the group's factor for ``ScalePerParam``);
* ``_get_closed_form_lr()`` (also ``_get_closed_form()``, Cerebras 2.x's name) returns :math:`f(\text{last\_epoch})`
  as a float64 tensor of torch ops on the step tensor, so under ``torch.compile(fullgraph=True)`` one graph
  serves every step; a user subclass overrides either name with its own closed form of ``self.last_epoch``
  (:class:`UserClosedForm`);
* ``state_dict()`` holds the step and, for information, the arguments, as tensors, numbers, strings and lists
  only (``torch.load(weights_only=True)`` loads it).

A class with a form declares it (``form = forms.CosineDecay``) and its own ``__init__``, typed: the form's fields,
under the learning-rate names for the learning-rate classes (``_family_names``), between ``optimizer`` and
``param_group_tags``; ``_build`` makes the form, its errors in the class's names. The form's step
counts are resolved for the run when a run's state is known (``state=``, or :meth:`attach_state`); before, a
form that needs one cannot be evaluated, and says which argument needs what (docs/cerebras.md).
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import attrs
import torch

from schedulers.core.run import Run, StateLike
from schedulers.core.schedule_arguments import integer_argument, same_value
from schedulers.core.torch_scheduler import StepCountingScheduler, matches, normalize_tags, targeted_groups
from schedulers.families import cerebras as forms
from schedulers.families.cerebras import ArgumentError, StepCount, StepSchedule, needs_run, resolve_steps, step_run
from timeunits import Time

__all__ = ["HyperparameterScheduler", "StepCount", "Tags", "UserClosedForm"]

#: ``param_group_tags``: a tag, a list of tags, or None (every param group)
Tags = str | Sequence[str] | None

_F64 = torch.float64
_I64 = torch.int64
# attributes of a user subclass that are not its arguments: never recorded in state_dict()["arguments"]
_NOT_ARGUMENTS = frozenset(
    {"optimizer", "param_group_tags", "base_lrs", "hyperparameter", "param_groups", "base_values", "state", "ssr"}
)
_HOOKS = ("_get_closed_form_lr", "_get_closed_form")


def _writes_when_built(init: Callable[..., None]) -> Callable[..., None]:
    """``init`` (a scheduler's declared ``__init__``), then, once the outermost constructor has returned, the first
    value written (:meth:`HyperparameterScheduler._begin`): Cerebras's custom schedulers may set attributes after
    ``super().__init__()``. A call that does not fit a built-in class's signature is a TypeError showing it.

    The signature stays the declared one (``functools.wraps``: ``inspect.signature`` and type checkers read it).
    """

    @functools.wraps(init)
    def __init__(self: HyperparameterScheduler, *args: Any, **kwargs: Any) -> None:
        depth = self.__dict__.get("_constructing", 0)
        if depth == 0 and type(self).form is not None:
            _check_call(type(self), init, (self, *args), kwargs)
        self.__dict__["_constructing"] = depth + 1
        try:
            init(self, *args, **kwargs)
        finally:
            self.__dict__["_constructing"] = depth
        if depth == 0:
            del self.__dict__["_constructing"]
            self._begin()

    return __init__


def _check_call(cls: type[HyperparameterScheduler], init: Callable[..., None], args: tuple, kwargs: dict) -> None:
    """A TypeError showing ``cls``'s signature (without ``self`` and annotations) for a call that does not fit it
    (the weight-decay spelling of an argument, given to a learning-rate class, named)."""
    signature = inspect.signature(init)
    generic = [key for key in kwargs if cls._family_names.get(key, key) != key]
    try:
        signature.bind(*args, **kwargs)
        if not generic:
            return
    except TypeError as error:
        problem = str(error)
    parameters = [p.replace(annotation=p.empty) for p in list(signature.parameters.values())[1:]]
    shown = signature.replace(parameters=parameters, return_annotation=signature.empty)
    if generic:
        problem = "; ".join(f"{key!r} is called {cls._family_names[key]!r} here" for key in generic)
    raise TypeError(f"{cls.__name__}{shown}: {problem}")


@attrs.frozen
class UserClosedForm(StepSchedule):
    """The closed form a user subclass writes: its ``_get_closed_form_lr()`` (or ``_get_closed_form()``) with
    ``self.last_epoch`` the step (an int64 tensor).

    Args:
        owner: The user's scheduler.
        inner: The form of the built-in class it subclasses, if any (what ``super()._get_closed_form_lr()``
            evaluates).

    Returns:
        The form; calling it with a step gives the hook's value there.

    >>> import torch, schedulers.cerebras as cs
    >>> class Halving(cs.LRScheduler):
    ...     def _get_closed_form_lr(self):
    ...         return 0.1 * 0.5 ** self.last_epoch.double()
    >>> Halving(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1), None).schedule.value(2.0)
    0.025
    """

    owner: HyperparameterScheduler = attrs.field(eq=False)
    inner: StepSchedule | None = None

    @property
    def total_iters(self) -> Any:
        """The user's ``total_iters`` (what a sequence without milestones sums)."""
        return getattr(self.owner, "total_iters", None)

    @property
    def scalable(self) -> bool:  # type: ignore[override]
        """Whether the user declared its step-count arguments (``_step_arguments``), which a ratio scales."""
        return any(
            "_step_arguments" in vars(c) and not c.__module__.startswith("schedulers.cerebras.")
            for c in type(self.owner).__mro__
        )

    def needs_run(self) -> bool:
        inner = self.inner is not None and self.inner.needs_run()
        return inner or needs_run(list(self.owner._given_steps.values()))

    def resolved(self, run: Run) -> StepSchedule:
        owner = self.owner
        for name, given in owner._given_steps.items():  # the user's object holds its arguments: set them
            setattr(owner, name, resolve_steps(name, given, run))
        return attrs.evolve(self, inner=None if self.inner is None else self.inner.resolved(run))

    def value(self, t: Any) -> Any:
        owner = self.owner
        step = t.to(_I64) if isinstance(t, torch.Tensor) else torch.tensor(int(t), dtype=_I64)
        saved = owner.__dict__.get("_epoch_view"), owner.__dict__.get("_inner_view")
        owner.__dict__["_epoch_view"], owner.__dict__["_inner_view"] = step, self.inner
        try:
            result = getattr(owner, owner._hook_name())()
        finally:
            owner.__dict__["_epoch_view"], owner.__dict__["_inner_view"] = saved
        if isinstance(result, (list, tuple)):
            raise TypeError(
                f"{type(owner).__name__}.{owner._hook_name()}() must return one value (a tensor) for all its param "
                f"groups, got a {type(result).__name__}"
            )
        return torch.as_tensor(result).to(_F64) if isinstance(t, torch.Tensor) else float(result)


class HyperparameterScheduler(StepCountingScheduler):
    """Generic base: schedules ``param_group_key`` of the optimizer's (targeted) param groups.

    Args:
        optimizer: The optimizer whose param groups are written.
        total_iters: The number of steps the schedule lasts (None when it has no end); a number or a time string
            (see :func:`schedulers.families.cerebras.resolve_steps`).
        last_epoch: The step to start after (-1: a fresh run); construction takes one step.
        param_group_tags: Write only to param groups with one of these tags (see
            :mod:`schedulers.core.torch_scheduler`).
        state: The run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to resolve
            ``"ep"``/``"dur"`` time strings; it may also be given later with :meth:`attach_state`.

    Returns:
        Not built directly (it writes no param-group key): ``LRScheduler`` and ``WeightDecayScheduler`` subclass
        it, and their subclasses' instances are the schedulers.

    Raises:
        TypeError: ``optimizer`` is not an optimizer, or the class writes no param-group key.
        ValueError: A bad ``last_epoch`` or ``param_group_tags``.

    >>> import torch, schedulers.cerebras as cs
    >>> issubclass(cs.CosineDecayLR, HyperparameterScheduler), issubclass(cs.CosineDecayWD, HyperparameterScheduler)
    (True, True)
    """

    #: how many steps the schedule lasts, resolved to whole steps (as given, a time string, until resolved)
    total_iters: Any
    #: the param-group key written (set by the family bases)
    param_group_key: ClassVar[str | None] = None
    #: the form of a built-in schedule (None: a user closed form, or a composite)
    form: ClassVar[type[StepSchedule] | None] = None
    #: the form resolved for the run (None: a form that needs a run, before one is attached)
    _form: StepSchedule | None = None
    #: the form a composite makes of its children's
    composes: ClassVar[type[StepSchedule] | None] = None
    #: the family's names for the forms' generic argument names (the learning-rate ones; none for weight decays)
    _family_names: ClassVar[dict[str, str]] = {}
    #: a user subclass's step-count attributes besides ``total_iters`` (they accept time strings)
    _step_arguments: ClassVar[tuple[str, ...]] = ()
    #: the names of the hook returning the user's functions of the step (``LambdaLR``, ``MultiplicativeLR``)
    _lambda_hooks: ClassVar[tuple[str, ...]] = ("set_value_lambda",)
    #: a composite's child schedulers (each one's state is saved under ``_schedulers`` in its state_dict)
    _schedulers: Sequence[HyperparameterScheduler] = ()
    #: the family the tools name this front end with (``schedulers.tools.stepped``'s report)
    report_family: ClassVar[str] = "Cerebras"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__init__" in vars(cls):  # each declared constructor: the first value once the outermost returns
            cls.__init__ = _writes_when_built(cls.__init__)  # type: ignore[method-assign]

    @_writes_when_built
    def __init__(
        self,
        optimizer: torch.optim.Optimizer,
        total_iters: StepCount | None,
        last_epoch: int = -1,
        param_group_tags: Tags = None,
        *,
        state: StateLike | None = None,
    ) -> None:
        self.total_iters = total_iters
        self._setup(optimizer, UserClosedForm(self), last_epoch, param_group_tags, state)

    def _build(self, optimizer: Any, values: tuple, param_group_tags: Tags, state: StateLike | None) -> None:
        """Build the class's schedule of ``values`` (its arguments in order) and :meth:`_setup` with it."""
        self._setup(optimizer, self._naming_errors(self.form, *values), -1, param_group_tags, state)  # type: ignore[arg-type]

    def _naming_errors(self, make: Callable[..., StepSchedule], *args: Any, **options: Any) -> StepSchedule:
        """``make(*args, **options)`` (a form built or resolved), its argument errors in this class's names."""
        try:
            return make(*args, **options)
        except ArgumentError as error:
            raise self._named(error) from None

    def _setup(
        self,
        optimizer: Any,
        schedule: StepSchedule,
        last_epoch: object,
        param_group_tags: Tags,
        state: StateLike | None,
    ) -> None:
        """Check and keep what every constructor takes; nothing is written before :meth:`_begin`."""
        if not isinstance(optimizer, torch.optim.Optimizer):
            raise TypeError(f"{type(self).__name__} needs a torch.optim.Optimizer, got {type(optimizer).__name__}")
        if self.param_group_key is None:
            raise TypeError(
                f"{type(self).__name__} schedules no param-group key: subclass schedulers.cerebras.LRScheduler "
                "(lr) or schedulers.cerebras.WeightDecayScheduler (weight_decay)"
            )
        self.optimizer, self.schedule, self.state = optimizer, schedule, state
        self.param_group_tags = normalize_tags(param_group_tags)
        self._first_count = integer_argument("last_epoch", last_epoch, low=-1) + 1

    def _begin(self) -> None:
        """The initial step (``last_epoch`` -1 -> 0, Cerebras and torch alike): resolve and write ``f(0)``."""
        key, name = self.param_group_key, type(self).__name__
        indices = targeted_groups(self.optimizer, self.param_group_tags, name)
        for index in indices:
            if key not in self.optimizer.param_groups[index]:
                raise ValueError(f"{name}: param group {index} of the optimizer has no {key!r}")
        form, names = self.schedule, ("total_iters", *self._step_arguments)
        self._given_steps = {n: getattr(self, n, getattr(form, n, None)) for n in names}
        self.schedule = self._with_user_parts(form)
        self._start(self.optimizer, key, indices, [self._group_scale(i) for i in indices], self._first_count)
        self._publish(self.schedule)
        if self.state is None and self.schedule.needs_run():  # no run yet: nothing written until attach_state
            self._form, self._curve = None, self._without_run
            return
        self._curve = self.curve_for(self.state, 1.0)
        self._apply()

    def _with_user_parts(self, schedule: StepSchedule) -> StepSchedule:
        """The schedule with what the user's subclass adds: its closed-form hook, or its functions of the step."""
        if self._hook_name() is not None and not isinstance(schedule, UserClosedForm):
            return UserClosedForm(self, inner=schedule)
        if isinstance(schedule, UserClosedForm) and self._hook_name() is None:
            raise NotImplementedError(
                f"{type(self).__name__} must define _get_closed_form_lr() (or _get_closed_form()): the value as a "
                "closed form of self.last_epoch, written with torch ops only"
            )
        hook = next((getattr(self, name) for name in self._lambda_hooks if hasattr(self, name)), None)
        if isinstance(schedule, forms.Lambda):
            if hook is None:
                raise NotImplementedError(
                    f"{type(self).__name__} is a base class: subclass it and override {self._lambda_hooks[0]}() to "
                    "return a function of the step (or a list of functions), written with torch ops"
                )
            found = hook()
            return attrs.evolve(schedule, functions=tuple(found) if isinstance(found, (list, tuple)) else (found,))
        if isinstance(schedule, forms.Multiplicative) and hook is not None:
            return attrs.evolve(schedule, factor=hook())
        return schedule

    @classmethod
    def _hook_name(cls) -> str | None:
        """The closed-form hook a user subclass overrides, if any."""
        return next((hook for hook in _HOOKS if getattr(cls, hook) is not getattr(HyperparameterScheduler, hook)), None)

    def _group_scale(self, index: int) -> float:
        """The factor of param group ``index``'s value (1; ``ScalePerParam``: the group's adjustment)."""
        return 1.0

    # -- the run's form ----------------------------------------------------------------------------

    def curve_for(self, state: StateLike | None, ssr: float) -> Callable[[float], float]:
        """The form resolved for the run of ``state`` scaled by ``ssr``, as the curve of the step count.

        Args:
            state: The run's state (None: no run; ``ep``/``dur`` step counts are then errors).
            ssr: The scale schedule ratio: step counts are scaled by it as whole counts.

        Returns:
            The resolved form, a function of the step count.

        Raises:
            ValueError: A step count the run cannot resolve or out of its range, or a ratio the form cannot take.

        >>> import torch, schedulers.cerebras as cs
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> cs.LinearLR(opt, 1.0, 0.0, total_iters=100).curve_for(None, 0.29)(29.0)
        0.0
        """
        if ssr != 1.0:
            self._check_scalable()
        form = self._form = self._naming_errors(self.schedule.resolved, step_run(state, ssr))
        self._publish(form)
        return form.value

    def _follow(self, form: StepSchedule, state: StateLike | None, ssr: float) -> None:
        """Take ``form``, this scheduler's schedule as a composite of it resolved it for the run of ``state`` scaled
        by ``ssr``, as if :meth:`attach_state` had resolved it (the composite alone writes)."""
        self._form, self._curve, self.state, self.ssr, self.run = form, form.value, state, ssr, None
        self._publish(form)

    def _without_run(self, t: float) -> float:
        """The curve of a form that needs a run, before one is attached: the error of resolving without one (it
        names the argument and says how to attach a run)."""
        return self.curve_for(self.state, 1.0)(t)

    def _ready_form(self) -> StepSchedule:
        """The form resolved for the run attached (resolving it now if the run came with ``state`` since)."""
        if self._form is None:
            self._curve = self.curve_for(self.state, 1.0)
        return self._form  # type: ignore[return-value]  (set by curve_for)

    def _publish(self, form: StepSchedule) -> None:
        """Show a built-in form's arguments (as given, then as resolved for the run) as attributes, under this
        class's names and the generic ones (``initial_learning_rate`` and ``initial_val``)."""
        if isinstance(form, UserClosedForm):
            return
        names = type(self)._family_names
        for field in attrs.fields(type(form)):
            if field.init and field.name != "schedules":
                value = getattr(form, field.name)
                self.__dict__[field.name] = self.__dict__[names.get(field.name, field.name)] = value

    def _named(self, error: ArgumentError) -> ValueError:
        """A form's error in this class's words: its name, and the argument's name here."""
        owner = type(self).__name__
        if not error.name:
            return ValueError(f"{owner}{error.text}")
        base, _, index = error.name.partition("[")
        shown = self._family_names.get(base, base) + (f"[{index}" if index else "")
        why = f" (the {self.param_group_key} it schedules is never negative)" if error.negative else ""
        return ValueError(f"{owner}: {shown}{error.text}{why}")

    def _check_scalable(self) -> None:
        """A ValueError naming the scheduler whose form a scale schedule ratio cannot scale."""
        found = self.schedule._unscalable(type(self).__name__)
        if found is None:
            return
        name, form = found
        user = isinstance(form, UserClosedForm)
        what = "a user closed form" if user else "a closed form of the step with a per-step factor"
        raise ValueError(
            f"{name} cannot be scaled by a scale schedule ratio: it is {what}, and only its step-count arguments "
            "could be scaled"
            + (" (list them in _step_arguments to allow it)" if user else "")
            + "; use scale_schedule_ratio=1 or a time-aware Cadence scheduler"
        )

    # -- Cerebras's step: a 0-d int64 tensor ------------------------------------------------------

    @property
    def last_epoch(self) -> torch.Tensor:
        """The number of ``step()`` calls, a 0-d int64 tensor (while a closed form is evaluated on a tensor of
        steps, that tensor)."""
        view = self.__dict__.get("_epoch_view")
        if view is not None:
            return view
        held = self.__dict__.get("_step_tensor")  # the step as a graph input under torch.compile
        return torch.tensor(self.__dict__.get("_count", 0), dtype=_I64) if held is None else held.clone()

    @last_epoch.setter
    def last_epoch(self, value: torch.Tensor | int) -> None:
        self._set_count(int(value))

    def _get_closed_form_lr(self) -> torch.Tensor:
        """The value at ``self.last_epoch`` as a float64 tensor (torch ops only: traceable by torch.compile)."""
        inner = self.__dict__.get("_inner_view")
        form = inner if inner is not None else self._ready_form()
        if isinstance(form, UserClosedForm):
            form = form.inner
        if form is None:
            raise NotImplementedError(f"{type(self).__name__} has no built-in closed form to call")
        return form.value(self.last_epoch.to(_F64))

    _get_closed_form = _get_closed_form_lr  # Cerebras 2.x's name (the base's, whichever name a subclass overrides)

    def values_at(self, steps: int | Sequence[int] | range | torch.Tensor) -> torch.Tensor:
        """The values after each of ``steps`` steps (an int, a list, a range or an int tensor), as float64.

        Evaluates the form on a tensor in one call, without stepping: the whole run at once.

        Args:
            steps: The step counts.

        Returns:
            A float64 tensor of the shape of ``steps``.

        Raises:
            ValueError: A step below 0, or a form that needs a run not attached.

        >>> import torch, schedulers.cerebras as cs
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> cs.LinearLR(opt, initial_learning_rate=1.0, end_learning_rate=0.0, total_iters=4).values_at(range(6))
        tensor([1.0000, 0.7500, 0.5000, 0.2500, 0.0000, 0.0000], dtype=torch.float64)
        """
        form = self._ready_form()
        counts = torch.as_tensor(list(steps) if isinstance(steps, range) else steps, dtype=_I64)
        if counts.numel() and int(counts.min()) < 0:
            raise ValueError(f"{type(self).__name__}.values_at: steps must be >= 0, got {int(counts.min())}")
        return torch.as_tensor(form.value(counts.to(_F64))).to(_F64).expand(counts.shape).clone()

    def get_last_value(self) -> list[Any]:
        """Cerebras 2.x's name for :meth:`get_last_lr`.

        Returns:
            Every param group's value, as last written.
        """
        return self.get_last_lr()

    def get_lr(self) -> list[Any]:
        """The values at the current step: the scheduled value for targeted groups, the current one otherwise.

        Returns:
            One value per param group of the optimizer.
        """
        value = float(self._ready_form().value(float(self._count)))
        current = self.get_last_lr()
        return [
            value * self._group_scale(i) if matches(self.param_group_tags, g) else current[i]
            for i, g in enumerate(self.optimizer.param_groups)
        ]

    # -- checkpoints -------------------------------------------------------------------------------

    def _arguments(self) -> dict[str, Any]:
        """The constructor arguments (as given, time strings included), as plain data."""
        if isinstance(self.schedule, UserClosedForm):
            items = {k: self._given_steps.get(k, v) for k, v in self.__dict__.items() if not k.startswith("_")}
            items = {k: v for k, v in items.items() if k not in _NOT_ARGUMENTS and k != "schedule"}
        else:
            fields = attrs.fields(type(self.schedule))
            items = {f.name: getattr(self.schedule, f.name) for f in fields if f.init and f.eq}
        record = {}
        for key, value in items.items():
            try:
                record[key] = _plain(value)
            except TypeError:
                continue
        if self.param_group_tags is not None:
            record["param_group_tags"] = sorted(self.param_group_tags)
        return record

    def state_dict(self) -> dict[str, Any]:
        """The step (``last_epoch``, ``_step_count``), the last values and the arguments; composites add
        ``_schedulers`` (their children's state dicts). Only tensors, numbers, str, lists and dicts.

        Returns:
            The state, loadable with ``torch.load(weights_only=True)``.
        """
        state = {
            "last_epoch": self.last_epoch.clone(),
            "_step_count": self._step_count,
            "_last_lr": [_plain(v) for v in self.get_last_lr()],
            "arguments": self._arguments(),
        }
        if self._schedulers:
            state["_schedulers"] = [child.state_dict() for child in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the step (children included) and write the value at that step.

        The schedule's arguments stay the constructor's: a checkpoint saved with other arguments is loaded with
        a warning naming them (a closed-form scheduler's only state is its step).

        Args:
            state_dict: What :meth:`state_dict` gave (or Cerebras's, with ``last_epoch``).

        Raises:
            ValueError: Not a scheduler state_dict, or another number of child schedulers.
        """
        if not isinstance(state_dict, dict) or "last_epoch" not in state_dict:
            raise ValueError(f"{type(self).__name__}.load_state_dict: not a scheduler state_dict (no 'last_epoch')")
        children, saved_children = self._schedulers, state_dict.get("_schedulers", [])
        if children and len(saved_children) != len(children):
            raise ValueError(
                f"{type(self).__name__}.load_state_dict: the checkpoint has {len(saved_children)} child schedulers, "
                f"this scheduler has {len(children)}"
            )
        for child, saved in zip(children, saved_children, strict=False):  # a leaf ignores a checkpoint's children
            child.load_state_dict(saved)
        self._set_count(int(torch.as_tensor(state_dict["last_epoch"]).reshape(())))
        self._step_count = int(state_dict.get("_step_count", self._step_count))
        if isinstance(state_dict.get("arguments"), dict):
            self._warn_changed_arguments(state_dict["arguments"])
        if self._form is not None:
            self._apply()

    def _warn_changed_arguments(self, saved: dict[str, Any]) -> None:
        current, names = self._arguments(), type(self)._family_names
        changed = [
            f"{names.get(key, key)}: {saved[key]!r} -> {current[key]!r}"
            for key in saved
            if key in current and not same_value(saved[key], current[key])
        ]
        if changed:
            warnings.warn(
                f"{type(self).__name__}.load_state_dict: the checkpoint was saved with other arguments "
                f"({'; '.join(changed)}); keeping this scheduler's arguments and restoring its step only",
                UserWarning,
                stacklevel=3,
            )

    @property
    def jumps_to_steps(self) -> bool:
        """Whether ``step(k)`` gives exactly the values ``k`` calls to ``step()`` give, so a tool may jump (the
        value is a closed form of ``last_epoch``; a subclass that overrides ``step`` may not).

        Returns:
            True unless the class overrides ``step``.

        >>> import torch, schedulers.cerebras as cs
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> cs.LinearLR(opt, 1.0, 0.0, 10).jumps_to_steps
        True
        """
        return type(self).step is HyperparameterScheduler.step

    def __repr__(self) -> str:
        step = self.__dict__.get("_count")
        values = self.get_last_lr() if "hyperparameter" in self.__dict__ else None
        return f"{type(self).__name__}(last_epoch={step}, {self.param_group_key}={values})"


def _plain(value: object) -> object:
    """``value`` as tensors, numbers, str, bool, None, lists and dicts (a Time becomes its string), else TypeError."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Time):
        return str(value)
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, (str, int)) for k in value):
        return {k: _plain(v) for k, v in value.items()}
    raise TypeError(type(value).__name__)
