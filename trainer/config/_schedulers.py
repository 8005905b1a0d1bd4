"""``trainer.init.schedulers``: registry names and classes, checked now and built on the optimizer later."""

from __future__ import annotations

import copy
import inspect
from dataclasses import dataclass
from typing import Any, Callable

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
from trainer.config._keys import _CHILD_ARGUMENTS, _ITEM_OPTIONS
from trainer.config._references import _check_call, _signature, _signature_text
from trainer.config._values import _mapping


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
    if isinstance(item, str):
        name, arguments, options = item, {}, {}
    elif isinstance(item, dict):
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
        arguments = item[name]
    else:
        raise ctx.error(path, f"a scheduler is {{Name: {{arguments}}}} or a name, got {_show(item)}")
    if not isinstance(name, str):
        raise ctx.error(path, f"a scheduler name must be a string, got {_show(name)}")
    named_path = f"{path}.{name}"
    arguments = dict(_mapping(arguments, named_path, ctx))
    if options and not top:
        raise ctx.error(
            f"{path}.{next(iter(options))}", "only top-level schedulers take hyperparameter / param_group_tags"
        )

    if ":" in name:
        target = ctx.import_object(name, named_path)
    else:
        try:
            target = get_scheduler(name)
        except UnknownSchedulerError as error:
            raise ctx.error(
                named_path,
                f"{error}".split("; known:")[0]
                + "; see schedulers.core.registry.registered_schedulers() for every name, or give 'module:Class'",
            ) from None
    display = name if ":" in name else getattr(target, "__name__", name)
    kind = _kind(target)
    if kind is None:
        raise ctx.error(named_path, f"{name} is not a schedule class or a function optimizer -> scheduler")

    for reserved in ("state", "optimizer"):
        if reserved in arguments:
            owner = "the trainer's state" if reserved == "state" else "the trainer's optimizer"
            raise ctx.error(f"{named_path}.{reserved}", f"is filled in by Cadence ({owner}); remove it")
    signature = _signature(target)
    parameters = signature.parameters if signature is not None else {}

    hyperparameter = options.get("hyperparameter")
    tags = options.get("param_group_tags")
    if hyperparameter is not None and not isinstance(hyperparameter, str):
        raise ctx.error(
            f"{path}.hyperparameter",
            f"must be a param-group key such as lr or weight_decay, got {_show(hyperparameter)}",
        )
    if kind != "schedule":
        writes = getattr(target, "param_group_key", "lr") if inspect.isclass(target) else "lr"
        if hyperparameter is not None and hyperparameter != writes:
            raise ctx.error(
                f"{path}.hyperparameter",
                f"{display} writes {writes!r}, not {hyperparameter!r} (Cerebras *WD classes write weight_decay; "
                "Cadence schedules take any hyperparameter)",
            )
        hyperparameter = None
        if tags is not None:
            if "param_group_tags" not in parameters:
                raise ctx.error(f"{path}.param_group_tags", f"{display} does not take param_group_tags")
            if "param_group_tags" in arguments:
                raise ctx.error(f"{path}.param_group_tags", f"given twice: also in {named_path}")
            arguments["param_group_tags"] = tags
            tags = None

    if kind == "optimizer" and "num_training_steps" in parameters and "num_training_steps" not in arguments:
        if parameters["num_training_steps"].default is inspect.Parameter.empty:
            if max_duration.unit is not TimeUnit.BATCH:
                raise ctx.error(
                    named_path, f"needs num_training_steps: the horizon {max_duration} is not in optimizer steps (ba)"
                )
            arguments["num_training_steps"] = max_duration.value  # SambaFlow: decay over --max_steps

    children_kind = "schedule" if kind == "schedule" else "optimizer"
    for key in _CHILD_ARGUMENTS:
        if key not in arguments or key not in parameters:
            continue
        value = arguments[key]
        child_base = f"{named_path}.{key}"
        if isinstance(value, list):
            arguments[key] = [
                _child(v, f"{child_base}[{i}]", ctx, max_duration, children_kind, display) for i, v in enumerate(value)
            ]
        elif isinstance(value, (dict, str)):
            arguments[key] = _child(value, child_base, ctx, max_duration, children_kind, display)
        else:
            raise ctx.error(
                child_base, f"must be a scheduler {{Name: {{arguments}}}} or a list of them, got {_show(value)}"
            )

    leading = ("optimizer",) if kind == "optimizer" else ()
    _check_call(target, arguments, display, named_path, ctx, leading=leading)
    return _Sched(named_path, display, target, kind, arguments, hyperparameter, tags)


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
        raise ctx.error(
            spec.path, f"{spec.name}: {error}; accepted: {_signature_text(spec.name, spec.target)}"
        ) from None
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
        message = str(error)
        if not message.startswith(spec.name):
            message = f"{spec.name}: {message}"
        raise ctx.error(spec.path, message) from None
    if not isinstance(scheduler, LRScheduler):
        raise ctx.error(spec.path, f"{spec.name} returned {type(scheduler).__name__}, not a torch LRScheduler")
    return scheduler


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
