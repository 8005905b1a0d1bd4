"""SambaFlow's learning-rate flags (``--learning_rate``, ``--lr_schedule``, ``--max_steps``, ...) on a config."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Mapping
from typing import Any

import schedulers.sambaflow
from schedulers.core.registry import UnknownSchedulerError, get_scheduler, scheduler_family
from trainer.config._errors import ConfigError, ConfigWarning
from trainer.config._schedulers import _ITEM_OPTIONS

_FLAGS = ("learning_rate", "lr_schedule", "warmup_steps", "max_steps", "steps_this_run", "end_lr_ratio")
# The flags that edit a SambaFlow schedule of the YAML, and the argument each sets.
_EDITS = {"warmup_steps": "num_warmup_steps", "end_lr_ratio": "end_ratio", "max_steps": "num_training_steps"}


def _flag(args: Any, name: str) -> Any:
    return args.get(name) if isinstance(args, Mapping) else getattr(args, name, None)


def apply_sambaflow_flags(config: dict, args: Any, *, sources: dict[str, str] | None = None) -> dict:
    """A copy of ``config`` with SambaFlow's learning-rate flags applied (those that are not None).

    ``args`` is the namespace of :func:`schedulers.sambaflow.add_lr_schedule_args` (or a mapping).

    - ``--max_steps N``: the horizon (``trainer.init.loop.max_steps``, replacing ``num_epochs``/``max_duration``),
      which a SambaFlow schedule decays over; it also replaces a ``num_training_steps`` the YAML's gives;
    - ``--steps_this_run N``: the run length, ``trainer.init.loop.num_steps`` (beyond the horizon: a warning);
    - ``--learning_rate X``: the optimizer's ``lr`` (the peak of a SambaFlow or Cadence schedule; 0 warns);
    - ``--lr_schedule NAME``: replaces ``trainer.init.schedulers`` by that SambaFlow schedule, built from
      ``--warmup_steps`` (default 0) and ``--end_lr_ratio``; it decays over the horizon (``--max_steps``);
    - ``--warmup_steps``/``--end_lr_ratio`` without ``--lr_schedule`` edit the YAML's SambaFlow schedule.
    """
    config = copy.deepcopy(config)
    given = {name: _flag(args, name) for name in _FLAGS if _flag(args, name) is not None}
    if not given:
        return config
    sources = {} if sources is None else sources
    init = _init(config)
    _warn_about(given)
    if "max_steps" in given:
        loop = _loop(init)
        for other in ("num_epochs", "max_duration"):
            loop.pop(other, None)
        loop["max_steps"] = given["max_steps"]
        sources["trainer.init.loop.max_steps"] = "--max_steps"
    if "steps_this_run" in given:
        _loop(init)["num_steps"] = given["steps_this_run"]
        sources["trainer.init.loop.num_steps"] = "--steps_this_run"
    if "learning_rate" in given:
        _set_optimizer_lr(init, given["learning_rate"], sources)
    if given.get("lr_schedule") is not None:
        _replace_schedule(init, given, sources)
    else:
        _edit_schedule(init, given, sources)
    return config


def _warn_about(given: dict[str, Any]) -> None:
    """A flag that is valid but makes a run that does nothing. (``--steps_this_run`` beyond the horizon is
    warned when the loop is read, naming the flags that set both, whichever way they were set.)"""
    if given.get("learning_rate") == 0:
        warnings.warn(
            ConfigWarning("--learning_rate 0: every schedule multiplies it, so a schedule of zeros trains nothing"),
            stacklevel=3,
        )


def _init(config: dict) -> dict:
    trainer = config.setdefault("trainer", {})
    if not isinstance(trainer, dict):
        raise ConfigError("trainer", f"must be a mapping, got {trainer!r}")
    if trainer.get("init") is None:
        trainer["init"] = {}
    if not isinstance(trainer["init"], dict):
        raise ConfigError("trainer.init", f"must be a mapping, got {trainer['init']!r}")
    return trainer["init"]


def _loop(init: dict) -> dict:
    if init.get("loop") is None:
        init["loop"] = {}
    if not isinstance(init["loop"], dict):
        raise ConfigError("trainer.init.loop", f"must be a mapping, got {init['loop']!r}")
    return init["loop"]


def _replace_schedule(init: dict, given: dict[str, Any], sources: dict[str, str]) -> None:
    """``--lr_schedule NAME``: the schedulers become that SambaFlow schedule (with ``--warmup_steps``,
    ``--end_lr_ratio``)."""
    name = str(given["lr_schedule"]).strip().lower()
    if name not in schedulers.sambaflow.LR_SCHEDULES:  # the flag's choices
        raise ConfigError("--lr_schedule", f"{name!r} is not one of {', '.join(schedulers.sambaflow.LR_SCHEDULES)}")
    arguments: dict[str, Any] = {}
    if name == "fixed_lr":
        ignored = [f"--{flag}" for flag in ("warmup_steps", "end_lr_ratio") if flag in given]
        if ignored:
            warnings.warn(ConfigWarning(f"{', '.join(ignored)}: no effect with --lr_schedule fixed_lr"), stacklevel=3)
    else:
        arguments["num_warmup_steps"] = given.get("warmup_steps", 0)
        # num_training_steps is left out: it defaults to the horizon, loop.max_steps (= --max_steps when
        # given), so a --set of the horizon moves the decay with it
        if "end_lr_ratio" in given:
            arguments["end_ratio"] = given["end_lr_ratio"]
    init["schedulers"] = [{name: arguments}]
    sources["trainer.init.schedulers"] = f"--lr_schedule {name}"


def _edit_schedule(init: dict, given: dict[str, Any], sources: dict[str, str]) -> None:
    """``--warmup_steps``, ``--end_lr_ratio`` (and ``--max_steps``) on the YAML's one SambaFlow schedule."""
    wanted = {flag: argument for flag, argument in _EDITS.items() if flag in given}
    explicit = [flag for flag in wanted if flag != "max_steps"]
    entries = _sambaflow_entries(init.get("schedulers"))
    if len(entries) != 1:
        if explicit:
            raise ConfigError(
                f"--{explicit[0]}",
                "applies to a SambaFlow schedule: give --lr_schedule, or put one SambaFlow schedule "
                "(cosine_schedule_with_warmup, polynomial_decay_schedule_with_warmup) in trainer.init.schedulers "
                f"(found {len(entries) or 'none'})",
            )
        return
    index, key, arguments = entries[0]
    if get_scheduler(key) is get_scheduler("fixed_lr"):
        if explicit:
            warnings.warn(ConfigWarning(f"--{explicit[0]}: no effect on fixed_lr"), stacklevel=3)
        return
    for flag, argument in wanted.items():
        if flag == "max_steps" and argument not in arguments:
            continue  # num_training_steps already follows the horizon, which --max_steps set
        arguments[argument] = given[flag]
        sources[f"trainer.init.schedulers[{index}].{key}.{argument}"] = f"--{flag}"


def _sambaflow_entries(items: Any) -> list[tuple[int, str, dict]]:
    """``(index, key, arguments)`` of the top-level SambaFlow items of a schedulers list (arguments made a dict);
    names resolve through the registry."""
    found = []
    for index, item in enumerate(items if isinstance(items, list) else []):
        keys = [k for k in item if k not in _ITEM_OPTIONS] if isinstance(item, dict) else []
        if len(keys) != 1 or not isinstance(keys[0], str) or not _is_sambaflow(keys[0]):
            continue
        if item[keys[0]] is None:
            item[keys[0]] = {}
        if isinstance(item[keys[0]], dict):
            found.append((index, keys[0], item[keys[0]]))
    return found


def _is_sambaflow(name: str) -> bool:
    try:
        return scheduler_family(get_scheduler(name)) == "sambaflow"
    except UnknownSchedulerError:
        return False  # reported when the config is checked


def _set_optimizer_lr(init: dict, learning_rate: Any, sources: dict[str, str]) -> None:
    optimizer = init.get("optimizer")
    if isinstance(optimizer, str):
        init["optimizer"] = {optimizer: {"lr": learning_rate}}
        sources[f"trainer.init.optimizer.{optimizer}.lr"] = "--learning_rate"
        return
    if not isinstance(optimizer, dict) or not optimizer:
        raise ConfigError("--learning_rate", "needs trainer.init.optimizer, e.g. {SGD: {momentum: 0.9}}")
    if "factory" in optimizer:
        raise ConfigError(
            "--learning_rate",
            "trainer.init.optimizer is a factory, which builds its own param groups: set the lr in its kwargs "
            "with --set trainer.init.optimizer.kwargs.<name>=...",
        )
    if "optimizer_type" in optimizer:
        current = optimizer.get("learning_rate")
        key = "learning_rate" if current is None or isinstance(current, (int, float, str)) else "lr"
        if key == "learning_rate":
            optimizer.pop("lr", None)
        optimizer[key] = learning_rate  # else learning_rate is a Cerebras schedule: set the optimizer's own lr
        sources[f"trainer.init.optimizer.{key}"] = "--learning_rate"
        return
    if len(optimizer) != 1:
        return  # reported by the optimizer check
    ((name, arguments),) = optimizer.items()
    if arguments is None:
        arguments = optimizer[name] = {}
    if not isinstance(arguments, dict):
        return  # reported by the optimizer check
    arguments.pop("learning_rate", None)
    arguments["lr"] = learning_rate
    sources[f"trainer.init.optimizer.{name}.lr"] = "--learning_rate"
