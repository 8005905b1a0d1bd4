"""``trainer.init.schedulers``: registry names and classes, checked now and built on the optimizer later."""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch.optim.lr_scheduler import LRScheduler

import schedulers.cerebras  # noqa: F401  (registers the Cerebras names)
import schedulers.sambaflow  # noqa: F401  (registers the SambaFlow names)
from schedulers import Schedule
from schedulers.cerebras.scheduler import HyperparameterScheduler
from schedulers.core.registry import UnknownSchedulerError, get_scheduler
from timeunits import Time, TimeUnit
from trainer.config._context import _Context
from trainer.config._errors import ConfigError, _show
from trainer.config._references import _check_call, _signature, _signature_text
from trainer.config._values import _mapping, check_finite

# The options a top-level item may give next to its name, and the arguments that hold nested schedulers.
_ITEM_OPTIONS = ("hyperparameter", "param_group_tags")
_CHILD_ARGUMENTS = ("schedule", "schedules", "scheduler", "schedulers")


@dataclass
class _Sched:
    path: str
    name: str
    target: Any
    kind: str  # "schedule" (Cadence), "optimizer" (target(optimizer, ...)), "children" (ChainedLR: no optimizer)
    args: dict
    hyperparameter: str | None = None
    tags: Any = None


def _schedulers(init: dict, max_duration: Time, ctx: _Context) -> tuple[list, list[str]]:
    path = "trainer.init.schedulers"
    items = init.get("schedulers")
    if items is None:
        items = []
    elif isinstance(items, (dict, str)):
        items = [items]
    elif not isinstance(items, list):
        raise ctx.error(path, f"must be a list of {{Name: {{arguments}}}} items, got {_show(items)}")
    entries, paths = [], []
    flag_lr = "--learning_rate" in ctx.sources.values()
    for index, item in enumerate(items):
        item_path = f"{path}[{index}]"
        spec = _scheduler_spec(item, item_path, ctx, max_duration, top=True)
        paths.append(item_path)
        if spec.kind == "schedule":
            schedule = _build_schedule(spec, ctx)
            if spec.hyperparameter is not None or spec.tags is not None:
                entries.append(
                    {"schedule": schedule, "hyperparameter": spec.hyperparameter or "lr", "param_group_tags": spec.tags}
                )
            else:
                entries.append(schedule)
        else:
            if flag_lr and _writes_absolute_lr(spec):
                ctx.warn(
                    item_path,
                    f"--learning_rate sets the optimizer's lr, but {spec.name} writes absolute learning rates "
                    "(its own arguments), so the flag does not change them",
                )
            entries.append(_factory(spec, ctx))
    return entries, paths


def _writes_absolute_lr(spec: _Sched) -> bool:
    return (
        inspect.isclass(spec.target)
        and issubclass(spec.target, HyperparameterScheduler)
        and getattr(spec.target, "param_group_key", "lr") == "lr"
    )


def _scheduler_spec(item: Any, path: str, ctx: _Context, max_duration: Time, *, top: bool) -> _Sched:
    """One item ``{Name: {arguments}}`` (or ``Name``) checked: the name resolved, the arguments checked against
    the signature, nested schedulers checked in turn, SambaFlow's ``num_training_steps`` defaulted."""
    name, arguments, options = _item_parts(item, path, ctx)
    named_path = f"{path}.{name}"
    if options and not top:
        raise ctx.error(
            f"{path}.{next(iter(options))}", "only top-level schedulers take hyperparameter / param_group_tags"
        )
    target = _target(name, named_path, ctx)
    display = name if ":" in name else getattr(target, "__name__", name)
    kind = _kind(target)
    if kind is None:
        raise ctx.error(named_path, f"{name} is not a schedule class or a function optimizer -> scheduler")
    check_finite(arguments, named_path, ctx)
    for reserved, owner in (("state", "the trainer's state"), ("optimizer", "the trainer's optimizer")):
        if reserved in arguments:
            raise ctx.error(f"{named_path}.{reserved}", f"is filled in by Cadence ({owner}); remove it")
    signature = _signature(target)
    parameters = signature.parameters if signature is not None else {}
    spec = _Sched(named_path, display, target, kind, arguments)
    _apply_options(spec, options, parameters, path, ctx)
    if kind == "optimizer":
        _default_training_steps(spec, parameters, max_duration, ctx)
    _nest_children(spec, parameters, max_duration, ctx)
    _check_call(target, arguments, display, named_path, ctx, leading=("optimizer",) if kind == "optimizer" else ())
    return spec


def _item_parts(item: Any, path: str, ctx: _Context) -> tuple[str, dict, dict]:
    """``(name, arguments, options)`` of one item; options are ``hyperparameter`` and ``param_group_tags``."""
    if isinstance(item, str):
        return item, {}, {}
    if not isinstance(item, dict):
        raise ctx.error(path, f"a scheduler is {{Name: {{arguments}}}} or a name, got {_show(item)}")
    options = {key: item[key] for key in _ITEM_OPTIONS if key in item}
    names = [key for key in item if key not in _ITEM_OPTIONS]
    if len(names) != 1:
        found = ", ".join(map(str, names)) or "none"
        raise ctx.error(
            path,
            f"each scheduler is a one-key mapping {{Name: {{arguments}}}} (plus optional hyperparameter, "
            f"param_group_tags); found the names {found}",
        )
    name = names[0]
    if not isinstance(name, str):
        raise ctx.error(path, f"a scheduler name must be a string, got {_show(name)}")
    return name, dict(_mapping(item[name], f"{path}.{name}", ctx)), options


def _target(name: str, path: str, ctx: _Context) -> Any:
    """``module:Class``, or a name of the registry (schedulers.core.registry, the one name table)."""
    if ":" in name:
        return ctx.import_object(name, path)
    try:
        return get_scheduler(name)
    except UnknownSchedulerError as error:
        raise ctx.error(
            path,
            f"{error}".split("; known:")[0]
            + "; see schedulers.core.registry.registered_schedulers() for every name, or give 'module:Class'",
        ) from None


def _apply_options(spec: _Sched, options: dict, parameters: Any, path: str, ctx: _Context) -> None:
    """``hyperparameter`` and ``param_group_tags`` of a top-level item: kept for a Cadence schedule (the
    trainer applies them); for a scheduler built on the optimizer, checked against what it writes and takes."""
    hyperparameter, tags = options.get("hyperparameter"), options.get("param_group_tags")
    if hyperparameter is not None and not isinstance(hyperparameter, str):
        raise ctx.error(
            f"{path}.hyperparameter",
            f"must be a param-group key such as lr or weight_decay, got {_show(hyperparameter)}",
        )
    if spec.kind == "schedule":
        spec.hyperparameter, spec.tags = hyperparameter, tags
        return
    writes = getattr(spec.target, "param_group_key", "lr") if inspect.isclass(spec.target) else "lr"
    if hyperparameter is not None and hyperparameter != writes:
        raise ctx.error(
            f"{path}.hyperparameter",
            f"{spec.name} writes {writes!r}, not {hyperparameter!r} (Cerebras *WD classes write weight_decay; "
            "Cadence schedules take any hyperparameter)",
        )
    if tags is not None:
        if "param_group_tags" not in parameters:
            raise ctx.error(f"{path}.param_group_tags", f"{spec.name} does not take param_group_tags")
        if "param_group_tags" in spec.args:
            raise ctx.error(f"{path}.param_group_tags", f"given twice: also in {spec.path}")
        spec.args["param_group_tags"] = tags


def _default_training_steps(spec: _Sched, parameters: Any, max_duration: Time, ctx: _Context) -> None:
    """SambaFlow: ``num_training_steps`` defaults to the horizon (``loop.max_steps``, ``--max_steps``)."""
    needed = parameters.get("num_training_steps")
    if needed is None or "num_training_steps" in spec.args or needed.default is not inspect.Parameter.empty:
        return
    if max_duration.unit is not TimeUnit.BATCH:
        raise ctx.error(
            spec.path, f"needs num_training_steps: the horizon {max_duration} is not in optimizer steps (ba)"
        )
    spec.args["num_training_steps"] = max_duration.value


def _nest_children(spec: _Sched, parameters: Any, max_duration: Time, ctx: _Context) -> None:
    """Nested schedulers (``SequentialLR.schedulers``, ``Warmup.schedule``, ...) checked as specs too."""
    children_kind = "schedule" if spec.kind == "schedule" else "optimizer"
    for key in _CHILD_ARGUMENTS:
        if key not in spec.args or key not in parameters:
            continue
        value, base = spec.args[key], f"{spec.path}.{key}"
        if isinstance(value, list):
            spec.args[key] = [
                _child(v, f"{base}[{i}]", ctx, max_duration, children_kind, spec.name) for i, v in enumerate(value)
            ]
        elif isinstance(value, (dict, str)):
            spec.args[key] = _child(value, base, ctx, max_duration, children_kind, spec.name)
        else:
            raise ctx.error(base, f"must be a scheduler {{Name: {{arguments}}}} or a list of them, got {_show(value)}")


def _child(value: Any, path: str, ctx: _Context, max_duration: Time, expected: str, parent: str) -> _Sched:
    spec = _scheduler_spec(value, path, ctx, max_duration, top=False)
    if expected == "schedule" and spec.kind != "schedule":
        raise ctx.error(
            spec.path,
            f"{parent} composes Cadence schedules (Composer/Cadence names); {spec.name} is built on an optimizer",
        )
    if expected != "schedule" and spec.kind == "schedule":
        raise ctx.error(
            spec.path,
            f"{parent} composes schedulers built on the optimizer (Cerebras classes); {spec.name} is a Cadence "
            "schedule: put it at the top level",
        )
    return spec


def _kind(target: Any) -> str | None:
    if inspect.isclass(target) and issubclass(target, Schedule):
        return "schedule"
    if not callable(target):
        return None
    signature = _signature(target)
    if signature is None:
        return None
    positional = [
        p
        for p in signature.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "self"
    ]
    if positional and positional[0].name == "optimizer":
        return "optimizer"
    if inspect.isclass(target) and issubclass(target, (HyperparameterScheduler, LRScheduler)):
        return "children"  # ChainedLR(schedulers): its children are built on the optimizer
    return "schedule"  # a function returning a Cadence schedule


def _build_schedule(spec: _Sched, ctx: _Context) -> Any:
    kwargs = {key: _built_children(value, None, ctx) for key, value in spec.args.items()}
    try:
        schedule = spec.target(**kwargs)
    except ConfigError:
        raise
    except (TypeError, ValueError) as error:
        message = _without_name(str(error), spec.name)
        raise ctx.error(spec.path, f"{message}; accepted: {_signature_text(spec.name, spec.target)}") from None
    if not (isinstance(schedule, Schedule) or callable(schedule)):
        raise ctx.error(spec.path, f"{spec.name} returned {type(schedule).__name__}, not a schedule")
    return schedule


def _built_children(value: Any, optimizer: Any, ctx: _Context) -> Any:
    if isinstance(value, _Sched):
        return _build_schedule(value, ctx) if value.kind == "schedule" else _build_scheduler(value, optimizer, ctx)
    if isinstance(value, list) and value and all(isinstance(v, _Sched) for v in value):
        return [_built_children(v, optimizer, ctx) for v in value]
    return copy.deepcopy(value)


def _build_scheduler(spec: _Sched, optimizer: torch.optim.Optimizer, ctx: _Context) -> LRScheduler:
    kwargs = {key: _built_children(value, optimizer, ctx) for key, value in spec.args.items()}
    try:
        scheduler = spec.target(optimizer, **kwargs) if spec.kind == "optimizer" else spec.target(**kwargs)
    except ConfigError:
        raise
    except (TypeError, ValueError) as error:
        raise ctx.error(spec.path, _without_name(str(error), spec.name)) from None
    if not isinstance(scheduler, LRScheduler):
        raise ctx.error(spec.path, f"{spec.name} returned {type(scheduler).__name__}, not a torch LRScheduler")
    return scheduler


def _without_name(message: str, name: str) -> str:
    """``message`` without a leading ``"Name: "``: the key path (``...schedulers[1].LinearLR``) names it once."""
    return message[len(name) + 2 :] if message.startswith(f"{name}: ") else message


def _factory(spec: _Sched, ctx: _Context) -> Callable[[torch.optim.Optimizer], LRScheduler]:
    def factory(optimizer):  # one parameter: the trainer calls it with its optimizer
        return _build_scheduler(spec, optimizer, ctx)

    factory.__qualname__ = f"config:{spec.path}"
    return factory


def _configure_lr_scheduler_factory(learning_rate: Any, path: str, ctx: _Context):
    from schedulers.cerebras import configure_lr_scheduler

    def factory(optimizer):
        try:
            scheduler = configure_lr_scheduler(optimizer, learning_rate)
        except (TypeError, ValueError) as error:
            raise ctx.error(path, str(error)) from None
        if scheduler is None:
            raise ctx.error(path, "is empty")
        return scheduler

    return factory
