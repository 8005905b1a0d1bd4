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
import difflib
import inspect
import math
import warnings

from schedulers.cerebras.lr_scheduler import ChainedScheduler, ConstantLR, LRScheduler, ScalePerParamLR, SequentialLR
from schedulers.cerebras.steps import PENDING
from schedulers.core.registry import UnknownSchedulerError

__all__ = ["configure_lr_scheduler"]

# Cerebras's old argument names: using one is an error naming the current name
_OLD_NAMES = {
    "total_iters": ("steps", "decay_steps"),
    "initial_learning_rate": ("learning_rate", "base_lr"),
    "base_lr": ("learning_rate", "initial_learning_rate"),
    "learning_rates": ("values",),
    "milestones": ("boundaries",),
}
_CHAINED = ("chained", "chainedlr", "chainedscheduler")
_SEQUENTIAL = ("sequential", "sequentiallr")


def configure_lr_scheduler(optimizer, learning_rate, adjust_learning_rate=None, *, state=None):
    """A Cerebras learning-rate scheduler for ``optimizer`` from the ``learning_rate`` config (see the module).

    ``state`` (optional, keyword-only) is passed to every scheduler, to resolve ``"ep"``/``"dur"`` time strings.
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
        return _scaled(
            optimizer,
            _construct(ConstantLR, optimizer, {"learning_rate": rate}, "learning_rate", state),
            adjust_learning_rate,
        )

    main = {}
    schedulers = []
    for params, name in zip(entries, where):
        if not isinstance(params, dict):
            raise ValueError(
                f"{name}={params!r} must be a dict with a 'scheduler' key, e.g. {{'scheduler': 'CosineDecayLR', ...}}"
            )
        choice = params.pop("main_scheduler", None)
        if choice is not None:
            main[str(choice).strip().lower()] = choice
        schedulers.append(_build(optimizer, params, name, state))
    if len(main) > 1:
        raise ValueError(f"conflicting main_scheduler values {sorted(main.values())}: give the same one in every entry")
    choice = next(iter(main), None)
    if choice is not None and choice not in _CHAINED + _SEQUENTIAL:
        raise ValueError(
            f"main_scheduler={main[choice]!r} must be 'chained' (ChainedLR) or 'sequential' (SequentialLR)"
        )

    if choice in _CHAINED:
        if adjust_learning_rate:
            raise ValueError(
                f"main_scheduler={main[choice]!r} cannot be combined with adjust_learning_rate (as in Cerebras): "
                "use a sequential schedule, or no lr scaling"
            )
        return ChainedScheduler(schedulers)
    if len(schedulers) == 1:
        return _scaled(optimizer, schedulers[0], adjust_learning_rate)
    milestones, total = [], 0
    for scheduler, name in zip(schedulers[:-1], where):
        steps = scheduler.total_iters
        if steps is None or steps is PENDING or isinstance(steps, str):
            raise ValueError(
                f"{name} ({type(scheduler).__name__}) needs total_iters: in a sequence every scheduler but the last "
                "says how many steps it lasts (the milestones are their running sum)"
                + (f"; total_iters={steps!r} needs the run's state: pass state=" if isinstance(steps, str) else "")
            )
        total += steps
        milestones.append(total)
    return _scaled(optimizer, SequentialLR(optimizer, schedulers, milestones), adjust_learning_rate)


def _scalar(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(
            f"learning_rate={value!r} must be a number, a dict with a 'scheduler' key, or a list of such dicts"
        )
    try:
        rate = float(value)
    except ValueError:
        raise ValueError(f"learning_rate={value!r} is not a number") from None
    if not math.isfinite(rate):
        raise ValueError(f"learning_rate={value!r} must be finite")
    return rate


def _scaled(optimizer, scheduler, adjust_learning_rate):
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
    """Every concrete LRScheduler subclass by lower-case name; a user class shadows a Cadence one."""
    found: dict[str, type] = {}
    pending = list(LRScheduler.__subclasses__())
    seen = set()
    ordered = []
    while pending:
        cls = pending.pop(0)
        if cls in seen:
            continue
        seen.add(cls)
        ordered.append(cls)
        pending.extend(cls.__subclasses__())
    builtin = [c for c in ordered if c.__module__.startswith("schedulers.cerebras.")]
    user = [c for c in ordered if not c.__module__.startswith("schedulers.cerebras.")]
    for cls in builtin + user:
        if not cls.__name__.startswith("_"):
            found[cls.__name__.lower()] = cls
    return found


def _lookup(name: object, where: str) -> type:
    classes = _lr_scheduler_classes()
    if not isinstance(name, str):
        raise UnknownSchedulerError(f"{where}: scheduler={name!r} must be a scheduler name such as 'CosineDecayLR'")
    key = name.strip().lower()
    for candidate in (key, key + "lr", key[:-2] if key.endswith("lr") else None):
        if candidate in classes:
            return classes[candidate]
    names = sorted(cls.__name__ for cls in classes.values())
    close = difflib.get_close_matches(
        key, [n.lower() for n in names] + [n.lower()[:-2] for n in names if n.lower().endswith("lr")], n=3, cutoff=0.6
    )
    shown = []
    for c in close:
        full = next((n for n in names if n.lower() in (c, c + "lr")), c)
        if full not in shown:
            shown.append(full)
    hint = f" (did you mean {', '.join(shown)}?)" if shown else ""
    raise UnknownSchedulerError(
        f"{where}: unknown scheduler {name!r}{hint}; Cerebras learning-rate schedulers: {', '.join(names)}"
    )


def _build(optimizer, params: dict, where: str, state):
    if "scheduler" not in params:
        raise ValueError(
            f"{where} has no 'scheduler' key naming the scheduler, e.g. {{'scheduler': 'CosineDecayLR', ...}}"
        )
    cls = _lookup(params.pop("scheduler"), where)
    return _construct(cls, optimizer, params, where, state)


def _construct(cls, optimizer, params: dict, where: str, state):
    signature = inspect.signature(cls.__init__)
    parameters = list(signature.parameters.values())[1:]  # without self
    if not parameters or parameters[0].name != "optimizer":
        raise ValueError(
            f"{where}: {cls.__name__} cannot be configured: its first argument must be 'optimizer', "
            f"its signature is {cls.__name__}{signature}"
        )
    kwargs, old, missing = {}, [], []
    takes_anything = False
    for parameter in parameters[1:]:
        name = parameter.name
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            takes_anything = True
            kwargs.update(params)
            params.clear()
            break
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            continue
        if name == "state" and parameter.kind is inspect.Parameter.KEYWORD_ONLY:
            if "state" in params:
                kwargs["state"] = params.pop("state")
            elif state is not None:
                kwargs["state"] = state
            continue
        if name in params:
            kwargs[name] = params.pop(name)
        elif name.lower() != name and name.lower() in params:
            old.append((name, name.lower()))
        elif any(alias in params for alias in _OLD_NAMES.get(name, ())):
            old.append((name, next(alias for alias in _OLD_NAMES[name] if alias in params)))
        elif parameter.default is inspect.Parameter.empty:
            missing.append(name)
    shown = _signature_text(cls, parameters, kwargs)
    if old:
        renamed = "; ".join(f"expected {expected!r}, got {given!r}" for expected, given in old)
        raise ValueError(f"{where}: {cls.__name__} takes other argument names ({renamed}):\n  {shown}")
    if params and not takes_anything:
        raise ValueError(f"{where}: {cls.__name__} got unexpected arguments {sorted(params)}:\n  {shown}")
    if missing:
        raise ValueError(f"{where}: {cls.__name__} is missing the arguments {missing}:\n  {shown}")
    try:
        return cls(optimizer, **kwargs)
    except (TypeError, ValueError) as error:
        message = str(error) if str(error).startswith(cls.__name__) else f"{cls.__name__}: {error}"
        raise ValueError(f"{where}: {message}") from error


def _signature_text(cls, parameters, given: dict) -> str:
    """``Name(optimizer, a=<given or default>, b=<missing>)``: the accepted signature with what was given."""
    parts = ["optimizer"]
    keyword_only = False
    for parameter in parameters[1:]:
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            parts.append(f"**{parameter.name}")
            continue
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and not keyword_only:
            parts.append("*")
            keyword_only = True
        if parameter.name in given:
            value = given[parameter.name]
        elif parameter.default is not inspect.Parameter.empty:
            value = parameter.default
        else:
            parts.append(f"{parameter.name}=<missing>")
            continue
        parts.append(f"{parameter.name}={value!r}")
    return f"{cls.__name__}({', '.join(parts)})"
