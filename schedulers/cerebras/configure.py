"""``configure_lr_scheduler``: a learning-rate scheduler from a Cerebras Model Zoo ``learning_rate`` config.

The accepted forms (Cerebras ``cstorch.optim.configure_lr_scheduler``):

* a number (or a numeric string): :class:`~schedulers.cerebras.ConstantLR` at that rate;
* a dict ``{"scheduler": NAME, **arguments}``: that scheduler; ``NAME`` is matched case-insensitively,
  with or without the ``LR`` suffix (``"CosineDecay"``, ``"cosinedecaylr"``), among the Cerebras
  classes and user subclasses of :class:`~schedulers.cerebras.LRScheduler` (a user class of the same
  name wins);
* a list of such dicts: a :class:`~schedulers.cerebras.SequentialLR` whose milestones are the running
  sum of the entries' ``total_iters`` (the last entry's may be absent), or a
  :class:`~schedulers.cerebras.ChainedScheduler` when an entry says ``main_scheduler: chained``;
* None, ``{}`` or ``[]``: None.

With ``adjust_learning_rate`` (Cerebras: a dict of layer types to lr factors, already applied to the
param groups as their ``adjust_learning_rate`` entries) the scheduler is wrapped in
:class:`~schedulers.cerebras.ScalePerParamLR`, so each group's lr is multiplied by its factor.

The input is never modified. Unknown names list the close ones; unknown, misspelt or missing arguments
show the scheduler's signature.

>>> import torch
>>> optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
>>> scheduler = configure_lr_scheduler(optimizer, [
...     {"scheduler": "Linear", "initial_learning_rate": 0.0, "end_learning_rate": 0.01, "total_iters": 10},
...     {"scheduler": "CosineDecay", "initial_learning_rate": 0.01, "end_learning_rate": 0.0, "total_iters": 90},
... ])
>>> type(scheduler).__name__, scheduler.milestones
('SequentialLR', [10])
"""

from __future__ import annotations

import copy
import inspect
import warnings

from torch.optim import Optimizer

from schedulers.cerebras.lr_scheduler import ChainedScheduler, ConstantLR, LRScheduler, ScalePerParamLR, SequentialLR
from schedulers.core.names import UnknownSchedulerError, did_you_mean, registered_schedulers
from schedulers.core.run import StateLike
from schedulers.core.schedule_arguments import number_argument
from schedulers.core.schedule_config import call_problem, signature_text
from timeunits import is_number

__all__ = ["configure_lr_scheduler"]

# Cerebras's old argument names: using one is an error naming the current name (a misspelling or a wrong case
# is call_problem's, with the closest name)
_OLD_NAMES = {
    "total_iters": ("steps", "decay_steps"),
    "initial_learning_rate": ("learning_rate", "base_lr"),
    "base_lr": ("learning_rate", "initial_learning_rate"),
    "learning_rates": ("values",),
    "milestones": ("boundaries",),
}
_CHAINED = ("chained", "chainedlr", "chainedscheduler")
_SEQUENTIAL = ("sequential", "sequentiallr")


def configure_lr_scheduler(
    optimizer: Optimizer,
    learning_rate: object,
    adjust_learning_rate: dict[str, float] | None = None,
    *,
    state: StateLike | None = None,
) -> LRScheduler | None:
    """A Cerebras learning-rate scheduler for ``optimizer`` from the ``learning_rate`` config (see the module).

    Args:
        optimizer: The optimizer the scheduler drives.
        learning_rate: The config: a number, a ``{"scheduler": NAME, **arguments}`` dict, a list of them, or
            None/``{}``/``[]``.
        adjust_learning_rate: Cerebras's layer-type -> lr factor dict; when given, the scheduler is wrapped in
            ``ScalePerParamLR`` (each group's ``adjust_learning_rate`` entry is its factor).
        state: Passed to every scheduler, to resolve ``"ep"``/``"dur"`` time strings (keyword-only).

    Returns:
        The scheduler, or None for an empty config.

    Raises:
        ValueError: A value that is not a number, an unknown ``main_scheduler``, or arguments that do not fit the
            named scheduler's signature.
        UnknownSchedulerError: A scheduler name that is not a Cerebras class or a user subclass (the close
            names listed).

    >>> import torch
    >>> optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> type(configure_lr_scheduler(optimizer, 0.01)).__name__, optimizer.param_groups[0]["lr"]
    ('ConstantLR', 0.01)
    """
    if learning_rate is None or (isinstance(learning_rate, (dict, list, tuple)) and not learning_rate):
        return None
    learning_rate = copy.deepcopy(learning_rate)
    if isinstance(learning_rate, dict):
        entries, where = [learning_rate], ["learning_rate"]
    elif isinstance(learning_rate, (list, tuple)):
        entries = list(learning_rate)
        where = [f"learning_rate[{i}]" for i in range(len(entries))]
    else:
        rate = _scalar(learning_rate)
        constant = _construct(ConstantLR, optimizer, {"learning_rate": rate}, "learning_rate", state)
        return _scaled(optimizer, constant, adjust_learning_rate)

    choices = [_main_scheduler(params, name) for params, name in zip(entries, where, strict=True)]
    schedulers = [_build(optimizer, params, name, state) for params, name in zip(entries, where, strict=True)]
    chained = _chained(choices)
    if chained is not None:
        if adjust_learning_rate:
            raise ValueError(
                f"main_scheduler={chained!r} cannot be combined with adjust_learning_rate (as in Cerebras): "
                "use a sequential schedule, or no lr scaling"
            )
        return ChainedScheduler(schedulers)
    if len(schedulers) > 1:
        _check_lengths(schedulers, where)
        schedulers = [SequentialLR(optimizer, schedulers, state=state)]  # milestones: the running sum of total_iters
    return _scaled(optimizer, schedulers[0], adjust_learning_rate)


def _main_scheduler(params: object, where: str) -> object:
    """Take the entry's ``main_scheduler`` (None when it has none) out of ``params``, a dict with a scheduler."""
    if not isinstance(params, dict):
        raise ValueError(
            f"{where}={params!r} must be a dict with a 'scheduler' key, e.g. {{'scheduler': 'CosineDecayLR', ...}}"
        )
    return params.pop("main_scheduler", None)


def _chained(choices: list) -> object:
    """The entries' ``main_scheduler`` value (None where not given) when it asks for a chained scheduler, else None."""
    given = {str(choice).strip().lower(): choice for choice in choices if choice is not None}
    if len(given) > 1:
        raise ValueError(
            f"conflicting main_scheduler values {sorted(given.values())}: give the same one in every entry"
        )
    for key, choice in given.items():
        if key not in _CHAINED + _SEQUENTIAL:
            raise ValueError(f"main_scheduler={choice!r} must be 'chained' (ChainedLR) or 'sequential' (SequentialLR)")
    return next((choice for key, choice in given.items() if key in _CHAINED), None)


def _check_lengths(schedulers: list, where: list[str]) -> None:
    """Every scheduler of a sequence but the last says how many steps it lasts (the milestones are their sum)."""
    for i, scheduler in enumerate(schedulers[:-1]):
        if getattr(scheduler, "total_iters", None) is None:
            raise ValueError(
                f"{where[i]} ({type(scheduler).__name__}) needs total_iters: in a sequence every scheduler but the "
                "last says how many steps it lasts (the milestones are their running sum)"
            )


def _scalar(value: object) -> float:
    """A constant ``learning_rate``: a finite number, or text that spells one (read as the optimizer reads it)."""
    if not (isinstance(value, str) or is_number(value)):
        raise ValueError(
            f"learning_rate={value!r} must be a number, a dict with a 'scheduler' key, or a list of such dicts"
        )
    return number_argument("learning_rate", value, text=True)


def _scaled(optimizer: Optimizer, scheduler: LRScheduler, adjust_learning_rate: dict[str, float] | None) -> LRScheduler:
    if not adjust_learning_rate:
        return scheduler
    if not any("adjust_learning_rate" in group for group in optimizer.param_groups):
        warnings.warn(
            "adjust_learning_rate is set but no param group of the optimizer has an 'adjust_learning_rate' entry, "
            "so no lr is scaled (Cerebras's configure_param_groups puts the factors there)",
            UserWarning,
            stacklevel=3,
        )
    return ScalePerParamLR(optimizer, scheduler)


def _lr_scheduler_classes() -> dict[str, type]:
    """Every name ``configure_lr_scheduler`` accepts, in lower case, to its class.

    The registry's Cerebras learning-rate classes and their aliases, then every user subclass of
    :class:`LRScheduler` by class name (a user class shadows a Cadence one). User classes need not be
    registered (Cerebras finds them by name), which is why they are collected from the subclasses.
    """
    found = {
        name.lower(): cls
        for name, cls in registered_schedulers("cerebras").items()
        if isinstance(cls, type) and issubclass(cls, LRScheduler)
    }
    classes = [LRScheduler]
    for cls in classes:  # every subclass, breadth first: the list grows as it is read
        classes += [subclass for subclass in cls.__subclasses__() if subclass not in classes]
        if not cls.__module__.startswith("schedulers.cerebras.") and not cls.__name__.startswith("_"):
            found[cls.__name__.lower()] = cls
    return found


def _lookup(name: object, where: str) -> type:
    """The class ``name`` names, with or without its ``LR`` suffix, in any case; else a "did you mean" error."""
    if not isinstance(name, str):
        raise UnknownSchedulerError(f"{where}: scheduler={name!r} must be a scheduler name such as 'CosineDecayLR'")
    classes = _lr_scheduler_classes()
    key = name.strip().lower()
    for candidate in (key, key + "lr", key.removesuffix("lr")):
        if candidate in classes:
            return classes[candidate]
    names = sorted({cls.__name__ for cls in classes.values()})
    # compared with the suffix on, as the full names have it ("CosineDecy" is close to "CosineDecayLR")
    hint = did_you_mean(key if key.endswith("lr") else key + "lr", names)
    raise UnknownSchedulerError(
        f"{where}: unknown scheduler {name!r}{hint}; Cerebras learning-rate schedulers: {', '.join(names)}"
    )


def _build(optimizer: Optimizer, params: dict, where: str, state: StateLike | None) -> LRScheduler:
    if "scheduler" not in params:
        raise ValueError(
            f"{where} has no 'scheduler' key naming the scheduler, e.g. {{'scheduler': 'CosineDecayLR', ...}}"
        )
    cls = _lookup(params.pop("scheduler"), where)
    return _construct(cls, optimizer, params, where, state)


def _construct(
    cls: type[LRScheduler], optimizer: Optimizer, params: dict, where: str, state: StateLike | None
) -> LRScheduler:
    """``cls(optimizer, **params)``, the arguments checked first by the one checker of every door
    (:func:`~schedulers.core.schedule_config.call_problem`), after Cerebras's old names (``decay_steps``, ...)."""
    parameters = list(inspect.signature(cls).parameters)
    if not parameters or parameters[0] != "optimizer":
        raise ValueError(
            f"{where}: {cls.__name__} cannot be configured: its first argument must be 'optimizer', "
            f"its signature is {signature_text(cls.__name__, cls)}"
        )
    old = next(((name, alias) for name in parameters for alias in _OLD_NAMES.get(name, ()) if alias in params), None)
    if old is not None and old[0] not in params:
        accepted = signature_text(cls.__name__, cls, hidden=("state",))
        raise ValueError(
            f"{where}: {cls.__name__} got {old[1]!r}, which is now called {old[0]!r}; accepted: {accepted}"
        )
    filled = {"state": "configure_lr_scheduler's state="} if "state" in parameters else {}
    problem = call_problem(cls, params, name=cls.__name__, leading=1, filled=filled)
    if problem is not None:
        raise ValueError(f"{where}: {problem.message}")
    try:
        return cls(optimizer, **params, **({"state": state} if filled and state is not None else {}))
    except (TypeError, ValueError) as error:
        message = str(error) if str(error).startswith(cls.__name__) else f"{cls.__name__}: {error}"
        raise ValueError(f"{where}: {message}") from error
