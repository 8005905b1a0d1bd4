r"""The base of every Cerebras-style scheduler: Cerebras's documented contract, as an adapter over Cadence's engine.

:class:`HyperparameterScheduler` is Cerebras 2.x's ``Scheduler`` for one param-group key (``"lr"`` for
:class:`~schedulers.cerebras.LRScheduler`, ``"weight_decay"`` for :class:`~schedulers.cerebras.WeightDecayScheduler`).
It is Cadence's one scheduler object, :class:`~schedulers.core.compile.CompiledScheduler`, in the mode that counts
its own steps and writes absolute values: stepping, writing into the targeted param groups (a tensor in place),
the ratio check and :meth:`attach_state` are the engine's. What this module adds is what Cerebras documents:

* ``self.last_epoch`` is a 0-d int64 tensor holding the number of ``step()`` calls (Cerebras: the same);
  construction counts as the first call, so it reads 0 after construction;
* the value written into every targeted param group after ``k`` calls to ``step()`` is :math:`f(k)`, the
  class's closed form (times the group's factor for ``ScalePerParam``); ``step()`` is called once per
  optimizer step;
* ``_get_closed_form_lr()`` (also reachable as ``_get_closed_form()``, Cerebras 2.x's name) returns
  :math:`f(\text{last\_epoch})` as a float64 tensor built from torch ops only, so it traces under
  ``torch.compile(fullgraph=True)``; a user subclass overrides either name with its own closed form of
  ``self.last_epoch``;
* ``state_dict()`` holds the step (and, for information, the arguments) as tensors, numbers, strings and
  lists only, so it loads with ``torch.load(weights_only=True)``.

A class translates its arguments into the engine's curve: ``_value(t)``, the closed form of a step ``t`` given
as a Python float (the per-step path) or a float64 tensor of any shape (``_get_closed_form_lr``,
:meth:`~HyperparameterScheduler.values_at`), written once through :mod:`schedulers.core.kernels`, once its
step-count arguments are resolved for the run (:mod:`schedulers.cerebras.steps`).
"""

from __future__ import annotations

import functools
import inspect
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import torch

from schedulers.cerebras import _arguments
from schedulers.cerebras.steps import PENDING, resolve_steps
from schedulers.core.compile import CompiledScheduler
from schedulers.core.run import Run
from schedulers.core.schedule_arguments import number_argument
from schedulers.core.state import ScheduleState
from schedulers.core.tags import matches, normalize_tags, targeted_groups
from timeunits import Time

__all__ = ["HyperparameterScheduler", "StepCount", "Tags", "is_step_count"]

#: a step-count argument: a number of steps, or a time string / Time (``"1000ba"``, ``"2ep"``, ``"0.1dur"``)
StepCount = int | float | str | Time
#: ``param_group_tags``: a tag, a list of tags, or None (every param group)
Tags = str | Sequence[str] | None

_F64 = torch.float64
_I64 = torch.int64
# attributes that are not arguments (the engine's, and the tags): never recorded in state_dict()["arguments"]
_NOT_ARGUMENTS = frozenset(
    {"optimizer", "param_group_tags", "base_lrs", "hyperparameter", "param_groups", "base_values", "state", "ssr"}
)


def _finishing_construction(init: Callable[..., None], owner: type) -> Callable[..., None]:
    """Wrap ``owner.__init__`` so that the outermost one checks the call against its signature and, once it
    returns, takes the initial step.

    A subclass may set attributes after calling ``super().__init__`` (the Cerebras custom-scheduler
    example does); the closed form is evaluated only when the whole construction is done. The signature shown
    (``inspect.signature``, the error of a wrong call) is Cerebras's documented one, without annotations.
    """
    signature = inspect.signature(init)
    plain = signature.replace(
        parameters=[p.replace(annotation=p.empty) for p in signature.parameters.values()],
        return_annotation=signature.empty,
    )
    shown = plain.replace(parameters=list(plain.parameters.values())[1:])  # without self, as users call it

    @functools.wraps(init)
    def __init__(self: HyperparameterScheduler, *args: Any, **kwargs: Any) -> None:
        outermost = "_constructing" not in self.__dict__
        if outermost:
            _check_call(owner, plain, shown, self, args, kwargs)
            self.__dict__["_constructing"] = True
        try:
            init(self, *args, **kwargs)
        finally:
            if outermost:
                del self.__dict__["_constructing"]
        if outermost:
            self._finish_construction()

    __init__.__signature__ = plain  # type: ignore[attr-defined]
    __init__._finishes_construction = True  # type: ignore[attr-defined]
    return __init__


def _check_call(
    owner: type, plain: inspect.Signature, shown: inspect.Signature, self: object, args: tuple, kwargs: dict
) -> None:
    """A TypeError showing ``owner``'s signature for a call that does not fit it (a generic argument name given
    to a class that renames it is named)."""
    names = owner._argument_names
    generic = [key for key in kwargs if key in names]
    if generic:  # the weight-decay spelling of an argument, given to the learning-rate class
        renamed = "; ".join(f"{key!r} is called {names[key]!r} here" for key in generic)
        raise TypeError(f"{owner.__name__}{shown}: {renamed}")
    try:
        plain.bind(self, *args, **kwargs)
    except TypeError as error:
        raise TypeError(f"{owner.__name__}{shown}: {error}") from None


def _alias(generic: str) -> property:
    """A property reading and writing the generic attribute ``generic`` (e.g. ``initial_learning_rate``)."""
    return property(
        lambda self: getattr(self, generic),
        lambda self, value: setattr(self, generic, value),
        doc=f"Cerebras's name for ``{generic}``.",
    )


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


def _same(a: object, b: object) -> bool:
    try:
        if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
            return torch.equal(torch.as_tensor(a), torch.as_tensor(b))
        return bool(a == b)
    except (TypeError, ValueError, RuntimeError):
        return False


class HyperparameterScheduler(CompiledScheduler):
    """Generic base: schedules ``param_group_key`` of the optimizer's (targeted) param groups.

    Args:
        optimizer: the optimizer whose param groups are written.
        total_iters: the number of steps the schedule lasts (None when it has no end); a number or a
            time string (see :mod:`schedulers.cerebras.steps`).
        last_epoch: the step to start after (-1: a fresh run); construction takes one step.
        param_group_tags: write only to param groups with one of these tags (see :mod:`schedulers.core.tags`).
        state: the run's state (``.max_duration``, ``.dataloader_len``, ``.timestamp``), needed only to
            resolve ``"ep"``/``"dur"`` time strings; it may also be given later with :meth:`attach_state`.

    Returns:
        Not built directly (it writes no param-group key): ``LRScheduler`` and ``WeightDecayScheduler`` subclass
        it, and their subclasses' instances are the schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> issubclass(cs.CosineDecayLR, HyperparameterScheduler), issubclass(cs.CosineDecayWD, HyperparameterScheduler)
    (True, True)
    """

    counts_steps: ClassVar[bool] = True

    #: the param-group key written (set by the family bases)
    param_group_key: ClassVar[str | None] = None
    #: step-count arguments that must be a number of steps > 0 (checked once resolved)
    _periods: ClassVar[tuple[str, ...]] = ()
    #: names of step-count arguments besides ``total_iters`` (they accept time strings)
    _step_arguments: ClassVar[tuple[str, ...]] = ()
    #: generic attribute name -> the public argument name of this class (each also an alias property)
    _argument_names: ClassVar[dict[str, str]] = {}
    #: evaluate the closed form on tensors only (user lambdas written with torch ops)
    _tensor_only: ClassVar[bool] = False
    #: the user's closed-form hook, if the class overrides one (set for each subclass)
    _hook_name: ClassVar[str | None] = None
    #: False for closed forms whose shape in steps Cadence cannot scale by a scale schedule ratio
    _scalable: ClassVar[bool] = True
    #: the family the tools name this front end with (``schedulers.tools.stepped``'s report)
    report_family: ClassVar[str] = "Cerebras"

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

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None and not getattr(init, "_finishes_construction", False):
            cls.__init__ = _finishing_construction(init, cls)  # type: ignore[method-assign]
        for generic, public in cls._argument_names.items():
            if not hasattr(cls, public):
                setattr(cls, public, _alias(generic))
        base = HyperparameterScheduler
        if cls._get_closed_form_lr is not base._get_closed_form_lr:
            cls._hook_name = "_get_closed_form_lr"
        elif cls._get_closed_form is not base._get_closed_form:
            cls._hook_name = "_get_closed_form"
        else:
            cls._hook_name = None

    def __init__(
        self,
        optimizer: torch.optim.Optimizer,
        total_iters: StepCount | None,
        last_epoch: int = -1,
        param_group_tags: Tags = None,
        *,
        state: ScheduleState | None = None,
    ) -> None:
        if not isinstance(optimizer, torch.optim.Optimizer):
            raise TypeError(f"{type(self).__name__} needs a torch.optim.Optimizer, got {type(optimizer).__name__}")
        if self.param_group_key is None:
            raise TypeError(
                f"{type(self).__name__} schedules no param-group key: subclass schedulers.cerebras.LRScheduler "
                "(lr) or schedulers.cerebras.WeightDecayScheduler (weight_decay)"
            )
        self.optimizer = optimizer
        self.param_group_tags = normalize_tags(param_group_tags)
        self.total_iters = total_iters
        self._count = _arguments.integer("last_epoch", last_epoch, low=-1)
        self.state, self.ssr = state, 1.0

    # -- Cerebras's step: a 0-d int64 tensor ------------------------------------------------------

    @property
    def last_epoch(self) -> torch.Tensor:
        """The number of ``step()`` calls, a 0-d int64 tensor (while a closed form is evaluated on a tensor of
        steps, that tensor)."""
        view = self.__dict__.get("_epoch_view")
        if view is not None:
            return view
        held = self.__dict__.get("_step_tensor")  # the step as a graph input under torch.compile (compile.py)
        return torch.tensor(self._count, dtype=_I64) if held is None else held.clone()

    @last_epoch.setter
    def last_epoch(self, value: torch.Tensor | int) -> None:
        self._set_count(int(value))

    # -- construction and resolution ---------------------------------------------------------------

    def _finish_construction(self) -> None:
        self._given_steps = {name: getattr(self, name, None) for name in ("total_iters", *self._step_arguments)}
        self._steps_resolved = False
        self._ready = False
        self._setup_children()
        key = self.param_group_key
        indices = targeted_groups(self.optimizer, self.param_group_tags, type(self).__name__)
        for index in indices:
            if key not in self.optimizer.param_groups[index]:
                raise ValueError(f"{type(self).__name__}: param group {index} of the optimizer has no {key!r}")
        self._resolve(required=False)
        # the initial step: last_epoch -1 -> 0, and the value f(0) written (Cerebras and torch do the same)
        self._count += 1
        self._curve = self._bound_curve() if self._ready else self._pending_curve
        self._drive(self.optimizer, key, indices, [self._group_scale(i) for i in indices])
        if self._ready:
            self._apply()

    def _setup_children(self) -> None:
        """Composites check and adopt their child schedulers here (before resolution)."""

    def _children(self) -> list[HyperparameterScheduler]:
        return []

    def _resolve(self, *, required: bool) -> bool:
        """Resolve the step-count arguments (children first); False while some need a state that is missing."""
        pending = False
        for child in self._children():
            if not child._ready:
                pending |= not child._resolve(required=required)
        if not self._steps_resolved:
            resolved = {
                name: resolve_steps(name, given, self.state, self.ssr, required=required)
                for name, given in self._given_steps.items()
            }
            if any(value is PENDING for value in resolved.values()):
                return False
            for name, value in resolved.items():
                setattr(self, name, value)
            self._steps_resolved = True
        if pending:
            return False
        self._check_steps()
        self._ready = True
        return True

    def _check_steps(self) -> None:
        """Check the resolved step-count arguments (and precompute what depends on them): each of ``_periods``
        must be a number of steps > 0."""
        for name in self._periods:
            self._positive_steps(name)

    def _bound_curve(self) -> Callable[[float], float]:
        """The engine's curve: the closed form of the step, on the float path when the class has one."""
        if self._hook_name is None and not self._tensor_only:
            return self._value
        return self._closed_form_at

    def _pending_curve(self, t: float) -> float:
        """The curve before the step counts are resolved: resolve them now (a missing state is an error naming
        the argument), then evaluate."""
        self._ensure_ready()
        return self._curve(t)

    def _ensure_ready(self) -> None:
        if not self._ready:
            self._resolve(required=True)
        if self._curve == self._pending_curve:  # a child its composite resolved is ready with no curve yet
            self._curve = self._bound_curve()

    def _resolve_curve(self, state: ScheduleState | None, ssr: float) -> Callable[[float], float]:
        self.state, self.ssr = state, ssr
        for child in self._children():
            child.attach_state(state, ssr)
        self._steps_resolved = False
        self._ready = False
        self._resolve(required=True)
        return self._bound_curve()

    def _name(self, generic: str) -> str:
        """The public name of the argument stored as ``generic`` (``initial_val`` -> ``initial_learning_rate``)."""
        return type(self)._argument_names.get(generic, generic)

    def _value_argument(self, generic: str, value: object) -> Any:
        """A value the schedule writes (or scales) into the param groups: a finite number ``>= 0``, or for
        ``vals`` a non-empty list of them; else a ValueError naming the class and the public argument name.

        A learning rate or a weight decay below 0 is never meant: it would silently reverse the update.
        """
        owner, name = type(self).__name__, self._name(generic)
        try:
            if generic == "vals":
                values = _arguments.numbers(name, value)
                shown = [(f"{name}[{i}]", v) for i, v in enumerate(values)]
            else:
                values = _arguments.number(name, value)
                shown = [(name, values)]
        except ValueError as error:
            raise ValueError(f"{owner}: {error}") from None
        for label, number in shown:
            if number < 0:
                key = self.param_group_key
                raise ValueError(f"{owner}: {label}={number!r} must be >= 0 (the {key} it schedules is never negative)")
        return values

    def _positive_steps(self, name: str, *, optional: bool = False) -> None:
        """Check the resolved step count ``name`` is a number > 0 (or None when ``optional``)."""
        value = getattr(self, name)
        if value is None and optional:
            return
        given = self._given_steps.get(name, value)
        shown = f"{name}={given!r}" + (f" (resolved to {value!r} steps)" if given != value else "")
        if not is_step_count(value, positive=True):
            raise ValueError(f"{type(self).__name__}: {shown} must be a number of steps > 0")

    def attach_state(self, state: ScheduleState, ssr: float | Run = 1.0) -> HyperparameterScheduler:
        """Resolve the time-string arguments against ``state`` (and ``ssr``), then write the current value.

        ``state`` is anything with ``.max_duration``, ``.dataloader_len`` and ``.timestamp``. With a scale
        schedule ratio ``ssr``, step counts (numbers, ``ba`` and ``ep``) are multiplied by ``ssr`` and made
        whole counts by deviation 2's rule (:func:`~timeunits.whole_count`); ``dur`` fractions are not scaled
        (Composer's rules). The arguments are resolved anew from the constructor's, so a ratio is never applied
        twice. Composites pass the state to their children. ``ssr`` may be the Run ``state`` counts (the
        trainer's): its ratio is then the one kept, also over a ratio saved in a state_dict. Returns the scheduler.
        """
        ratio = ssr.ssr if isinstance(ssr, Run) else number_argument("ssr", ssr, low=0.0, low_open=True)
        if ratio != 1.0:
            self._check_scalable()
        super().attach_state(state, ssr)
        return self

    def _check_scalable(self) -> None:
        """A ValueError naming this scheduler when a scale schedule ratio cannot be applied to it."""
        cls = type(self)
        declared = any(
            "_step_arguments" in vars(c) and not c.__module__.startswith("schedulers.cerebras.") for c in cls.__mro__
        )
        user_hook = cls._hook_name is not None and not declared
        if not cls._scalable or user_hook:
            what = "a user closed form" if user_hook else "a closed form of the step with a per-step factor"
            raise ValueError(
                f"{cls.__name__} cannot be scaled by a scale schedule ratio: it is {what}, and only its step-count "
                "arguments could be scaled"
                + (" (list them in _step_arguments to allow it)" if user_hook else "")
                + "; use scale_schedule_ratio=1 or a time-aware Cadence scheduler"
            )
        for child in self._children():
            child._check_scalable()

    # -- the closed form ---------------------------------------------------------------------------

    def _value(self, t: Any) -> Any:
        """The closed form at step ``t`` (a float, or a float64 tensor of any shape)."""
        raise NotImplementedError(
            f"{type(self).__name__} must define _get_closed_form_lr() (or _get_closed_form()): the value as a "
            "closed form of self.last_epoch, written with torch ops only"
        )

    def _builtin_at(self, t: Any) -> Any:
        if isinstance(t, torch.Tensor):
            return self._value(t.to(_F64))
        if self._tensor_only:
            return float(self._value(torch.tensor(float(t), dtype=_F64)))
        return self._value(float(t))

    def _closed_form_at(self, t: Any) -> Any:
        """The value at step ``t`` (int/float, or a tensor of steps): a float, or a float64 tensor."""
        hook = self._hook_name
        if hook is None:
            return self._builtin_at(t)
        step = t.to(_I64) if isinstance(t, torch.Tensor) else torch.tensor(int(t), dtype=_I64)
        saved = self.__dict__.get("_epoch_view")
        self.__dict__["_epoch_view"] = step
        try:
            result = getattr(self, hook)()
        finally:
            self.__dict__["_epoch_view"] = saved
        if isinstance(result, (list, tuple)):
            raise TypeError(
                f"{type(self).__name__}.{hook}() must return one value (a tensor) for all its param groups, "
                f"got a {type(result).__name__}"
            )
        if isinstance(t, torch.Tensor):
            return torch.as_tensor(result).to(_F64)
        return float(result)

    def _get_closed_form_lr(self) -> torch.Tensor:
        """The value at ``self.last_epoch`` as a float64 tensor (torch ops only: traceable by torch.compile)."""
        return self._builtin_at(self.last_epoch)

    def _get_closed_form(self) -> torch.Tensor:
        """Cerebras 2.x's name for :meth:`_get_closed_form_lr`."""
        return self._builtin_at(self.last_epoch)

    def values_at(self, steps: int | Sequence[int] | range | torch.Tensor) -> torch.Tensor:
        """The values after each of ``steps`` steps (an int, a list, a range or an int tensor), as float64.

        Evaluates the closed form on a tensor in one call, without stepping: the whole run at once.

        >>> import torch, schedulers.cerebras as cs
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> cs.LinearLR(opt, initial_learning_rate=1.0, end_learning_rate=0.0, total_iters=4).values_at(range(6))
        tensor([1.0000, 0.7500, 0.5000, 0.2500, 0.0000, 0.0000], dtype=torch.float64)
        """
        self._ensure_ready()
        counts = torch.as_tensor(list(steps) if isinstance(steps, range) else steps, dtype=_I64)
        if counts.numel() and int(counts.min()) < 0:
            raise ValueError(f"{type(self).__name__}.values_at: steps must be >= 0, got {int(counts.min())}")
        return self._closed_form_at(counts).to(_F64).expand(counts.shape).clone()

    # -- values ------------------------------------------------------------------------------------

    def _group_scale(self, index: int) -> float:
        """The factor of param group ``index``'s value (1; ``ScalePerParam``: the group's adjustment)."""
        return 1.0

    def get_last_value(self) -> list[Any]:
        """Cerebras 2.x's name for :meth:`get_last_lr`."""
        return self.get_last_lr()

    def get_lr(self) -> list[Any]:
        """The values at the current step: the scheduled value for targeted groups, the current one otherwise."""
        self._ensure_ready()
        value = float(self._closed_form_at(self._count))
        current = self.get_last_lr()
        return [
            value * self._group_scale(i) if matches(self.param_group_tags, g) else current[i]
            for i, g in enumerate(self.optimizer.param_groups)
        ]

    # -- checkpoints -------------------------------------------------------------------------------

    def _arguments(self) -> dict[str, Any]:
        """The constructor arguments (as given, time strings included), as plain data."""
        record = {}
        given = getattr(self, "_given_steps", {})
        for key, value in self.__dict__.items():
            if key.startswith("_") or key in _NOT_ARGUMENTS:
                continue
            try:
                record[key] = _plain(given.get(key, value))
            except TypeError:
                continue
        if self.param_group_tags is not None:
            record["param_group_tags"] = sorted(self.param_group_tags)
        return record

    def state_dict(self) -> dict[str, Any]:
        """The step (``last_epoch``, ``_step_count``), the last values and the arguments; composites add
        ``_schedulers`` (their children's state dicts). Only tensors, numbers, str, lists and dicts."""
        state = {
            "last_epoch": self.last_epoch.clone(),
            "_step_count": self._step_count,
            "_last_lr": [_plain(v) for v in self.get_last_lr()],
            "arguments": self._arguments(),
        }
        children = self._children()
        if children:
            state["_schedulers"] = [child.state_dict() for child in children]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the step (children included) and write the value at that step.

        The schedule's arguments stay the constructor's: a checkpoint saved with other arguments is
        loaded with a warning naming them (a closed-form scheduler's only state is its step).
        """
        if not isinstance(state_dict, dict) or "last_epoch" not in state_dict:
            raise ValueError(f"{type(self).__name__}.load_state_dict: not a scheduler state_dict (no 'last_epoch')")
        children = self._children()
        saved_children = state_dict.get("_schedulers", [])
        if children and len(saved_children) != len(children):
            raise ValueError(
                f"{type(self).__name__}.load_state_dict: the checkpoint has {len(saved_children)} child schedulers, "
                f"this scheduler has {len(children)}"
            )
        # lengths checked above when there are children; a leaf ignores a checkpoint's children
        for child, saved in zip(children, saved_children, strict=False):
            child.load_state_dict(saved)
        self._set_count(int(torch.as_tensor(state_dict["last_epoch"]).reshape(())))
        self._step_count = int(state_dict.get("_step_count", self._step_count))
        saved_arguments = state_dict.get("arguments")
        if isinstance(saved_arguments, dict):
            self._warn_changed_arguments(saved_arguments)
        if self._ready:
            self._apply()

    def _warn_changed_arguments(self, saved: dict[str, Any]) -> None:
        current = self._arguments()
        names = type(self)._argument_names
        changed = [
            f"{names.get(key, key)}: {saved[key]!r} -> {current[key]!r}"
            for key in saved
            if key in current and not _same(saved[key], current[key])
        ]
        if changed:
            warnings.warn(
                f"{type(self).__name__}.load_state_dict: the checkpoint was saved with other arguments "
                f"({'; '.join(changed)}); keeping this scheduler's arguments and restoring its step only",
                UserWarning,
                stacklevel=3,
            )

    def __repr__(self) -> str:
        step = self.__dict__.get("_count")
        values = self.get_last_lr() if "hyperparameter" in self.__dict__ else None
        return f"{type(self).__name__}(last_epoch={step}, {self.param_group_key}={values})"


HyperparameterScheduler.__init__ = _finishing_construction(  # type: ignore[method-assign]
    HyperparameterScheduler.__init__, HyperparameterScheduler
)
