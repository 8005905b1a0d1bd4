"""What the command line layers on the YAML file (:func:`trainer.config_reading._reading.load_config`): SambaFlow's
learning-rate flags (``--learning_rate``, ``--lr_schedule``, ``--max_steps``, ...), then ``--set key.path=value``
overrides, each in a copy of the config, each key path remembering the flag that set it (docs/trainer-config.md,
"The command line")."""

from __future__ import annotations

import copy
import re
import warnings
from collections.abc import Iterable, Mapping
from typing import Any

import schedulers.sambaflow
from schedulers.core.names import UnknownSchedulerError, get_scheduler, scheduler_family
from schedulers.core.schedule_arguments import choice_problem
from schedulers.core.schedule_config import name_and_arguments
from trainer.config_reading._reading import ConfigError, ConfigWarning, yaml_value
from trainer.config_reading._schedulers_section import ITEM_OPTIONS
from trainer.config_reading._schema import exclusive_groups

# -- --set ---------------------------------------------------------------------------------------------

_TOKEN = re.compile(r"([^.\[\]]+)|\[(-?\d+)\]")


def _parse_path(text: str) -> list[str | int]:
    tokens: list[str | int] = []
    position = 0
    text = text.strip()
    while position < len(text):
        if text[position] == "." and tokens:
            position += 1
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise ValueError(f"bad key path {text!r}: expected names separated by '.' and [index] for list items")
        name, index = match.groups()
        if name is not None:
            tokens.append(int(name) if name.isdigit() else name)
        else:
            tokens.append(int(index))
        position = match.end()
    if not tokens:
        raise ValueError("empty key path")
    return tokens


def _path_text(tokens: Iterable[str | int]) -> str:
    out = ""
    for token in tokens:
        out += f"[{token}]" if isinstance(token, int) else (f".{token}" if out else str(token))
    return out


def parse_override(text: str) -> tuple[list[str | int], Any]:
    """``"trainer.init.loop.max_steps=100"`` → ``(["trainer", "init", "loop", "max_steps"], 100)``.

    Args:
        text: ``KEY.PATH=VALUE``; list items are addressed as ``schedulers[0]`` or ``schedulers.0``.

    Returns:
        The key path as names and indexes, and the value read as YAML (``1e-3`` a float, ``[1, 2]`` a list,
        ``null`` or nothing None, ``10ba`` a string).

    Raises:
        ConfigError: no ``=``, a key path that is not names and indexes, or a value that is not YAML.

    Example:
        >>> parse_override("trainer.init.schedulers[0].cosine_with_warmup.t_warmup=0.3dur")
        (['trainer', 'init', 'schedulers', 0, 'cosine_with_warmup', 't_warmup'], '0.3dur')
    """
    key, sep, value = str(text).partition("=")
    if not sep:
        raise ConfigError(f"--set {text}", "expected KEY.PATH=VALUE, e.g. trainer.init.loop.max_steps=100")
    try:
        tokens = _parse_path(key)
    except ValueError as error:
        raise ConfigError(f"--set {text}", str(error)) from None
    return tokens, yaml_value(value, f"--set {text}") if value.strip() else None


def _find_key(mapping: dict, key: str) -> str:
    """``key`` itself, or the one key of ``mapping`` equal to it ignoring case (``sgd`` for ``SGD``)."""
    if key in mapping:
        return key
    folded = [k for k in mapping if isinstance(k, str) and k.lower() == key.lower()]
    return folded[0] if len(folded) == 1 else key


def apply_overrides(
    config: dict, overrides: Iterable[str], *, sources: dict[str, str] | None = None, flag: str | None = None
) -> dict:
    """A copy of ``config`` with each ``"key.path=value"`` of ``overrides`` set, in order (``--set``).

    Missing mappings on the way are created; a list item must exist; a key matches one given in another case
    (``sgd`` sets ``SGD``). Setting one of a group of alternatives (``loop.max_steps`` / ``num_epochs`` /
    ``max_duration``, ``loop.eval_frequency`` / ``eval_interval``, ``checkpoint.steps`` / ``save_interval``,
    ...: the exclusive groups of the key tables) removes the others from the same mapping.

    Args:
        config: the configuration (not modified).
        overrides: ``KEY.PATH=VALUE`` texts (see :func:`parse_override`).
        sources: filled with the key paths set -> the flag that set them, for error messages.
        flag: the flag to record instead of ``--set KEY.PATH=VALUE``, when another flag of the command asked for
            these overrides (``cadence plot --ssr 0.5`` sets ``trainer.init.loop.scale_schedule_ratio``).

    Returns:
        The changed copy.

    Raises:
        ConfigError: an override that cannot be read, or a key path through a value that is not a mapping or a
            list, or to a list item that does not exist.

    Example:
        >>> config = {"trainer": {"init": {"loop": {"max_steps": 10}}}}
        >>> apply_overrides(config, ["trainer.init.loop.max_duration=2ep"])["trainer"]["init"]["loop"]
        {'max_duration': '2ep'}
    """
    config = copy.deepcopy(config)
    for text in overrides:
        tokens, value = parse_override(text)
        where = flag or f"--set {text}"
        if not isinstance(tokens[0], str):
            raise ConfigError(where, "a key path starts with a name, e.g. trainer.init...")
        node: Any = config
        for position in range(len(tokens) - 1):
            node = _step(node, tokens, position, where)
        _set(node, tokens, value, where, sources)
        if sources is not None:
            sources[_path_text(tokens)] = where
    return config


def _step(node: Any, tokens: list[str | int], position: int, where: str) -> Any:
    """The child of ``node`` at ``tokens[position]`` (a mapping created when missing); the token is rewritten
    to the key or index it found (``sgd`` → ``SGD``, ``-1`` → the last index)."""
    token, walked, following = tokens[position], tokens[:position], tokens[position + 1]
    if isinstance(node, dict):
        token = tokens[position] = _key(node, token, walked, where)
        if node.get(token) is None:
            if not isinstance(following, str):
                raise ConfigError(where, f"{_path_text([*walked, token])} is not a list")
            node[token] = {}
        return node[token]
    token = tokens[position] = _index(node, token, walked, where)
    if node[token] is None and isinstance(following, str):
        node[token] = {}
    return node[token]


def _set(node: Any, tokens: list[str | int], value: Any, where: str, sources: dict[str, str] | None) -> None:
    walked = tokens[:-1]
    if not isinstance(node, dict):
        tokens[-1] = _index(node, tokens[-1], walked, where)
        node[tokens[-1]] = value
        return
    token = tokens[-1] = _key(node, tokens[-1], walked, where)
    for alternatives in exclusive_groups(_path_text(walked)):
        for other in alternatives if token in alternatives else ():
            if other != token:
                node.pop(other, None)
                if sources is not None:
                    sources.pop(_path_text([*walked, other]), None)
    node[token] = value


def _key(node: dict, token: str | int, walked: list[str | int], where: str) -> str:
    if not isinstance(token, str):
        raise ConfigError(where, f"{_path_text(walked) or 'the top level'} is a mapping, not a list")
    return _find_key(node, token)


def _index(node: Any, token: str | int, walked: list[str | int], where: str) -> int:
    if not isinstance(node, list):
        raise ConfigError(where, f"{_path_text(walked)} is {node!r}, not a mapping or a list")
    if not isinstance(token, int):
        raise ConfigError(where, f"{_path_text(walked)} is a list: address its items as [0], [1], ...")
    if not -len(node) <= token < len(node):
        raise ConfigError(where, f"{_path_text(walked)} has {len(node)} items, there is no [{token}]")
    return token % len(node)


# -- SambaFlow's flags ---------------------------------------------------------------------------------

_FLAGS = ("learning_rate", "lr_schedule", "warmup_steps", "max_steps", "steps_this_run", "end_lr_ratio")
# The flags that edit a SambaFlow schedule of the YAML, and the argument each sets.
_EDITS = {"warmup_steps": "num_warmup_steps", "end_lr_ratio": "end_ratio", "max_steps": "num_training_steps"}


def _flag(args: Any, name: str) -> Any:
    return args.get(name) if isinstance(args, Mapping) else getattr(args, name, None)


def apply_sambaflow_flags(config: dict, args: Any, *, sources: dict[str, str] | None = None) -> dict:
    """A copy of ``config`` with SambaFlow's learning-rate flags applied (those that are not None):

    - ``--max_steps N``: the horizon (``trainer.init.loop.max_steps``, replacing ``num_epochs``/``max_duration``),
      which a SambaFlow schedule decays over; it also replaces a ``num_training_steps`` the YAML's gives;
    - ``--steps_this_run N``: the run length, ``trainer.init.loop.num_steps`` (beyond the horizon: a warning);
    - ``--learning_rate X``: the optimizer's ``lr`` (the peak of a SambaFlow or Cadence schedule; 0 warns);
    - ``--lr_schedule NAME``: replaces ``trainer.init.schedulers`` by that SambaFlow schedule, built from
      ``--warmup_steps`` (default 0) and ``--end_lr_ratio``; it decays over the horizon (``--max_steps``);
    - ``--warmup_steps``/``--end_lr_ratio`` without ``--lr_schedule`` edit the YAML's SambaFlow schedule.

    Args:
        config: the configuration (not modified).
        args: the namespace of :func:`schedulers.sambaflow.add_lr_schedule_args`, or a mapping of flag names.
        sources: filled with the key paths set -> the flag that set them, for error messages.

    Returns:
        The changed copy.

    Raises:
        ConfigError: a flag that cannot apply (``--warmup_steps`` without a SambaFlow schedule, an unknown
            ``--lr_schedule``, ``--learning_rate`` with an optimizer factory).

    Example:
        >>> config = {"trainer": {"init": {"optimizer": {"SGD": {"lr": 0.1}}, "loop": {"max_steps": 10}}}}
        >>> flags = {"lr_schedule": "cosine_schedule_with_warmup", "warmup_steps": 2, "max_steps": 100}
        >>> init = apply_sambaflow_flags(config, flags)["trainer"]["init"]
        >>> init["schedulers"], init["loop"]
        ([{'cosine_schedule_with_warmup': {'num_warmup_steps': 2}}], {'max_steps': 100})
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
    problem = choice_problem(name, schedulers.sambaflow.LR_SCHEDULES)  # the flag's choices
    if problem is not None:
        raise ConfigError("--lr_schedule", f"{name!r} {problem}")
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
    """``(index, name, arguments)`` of the top-level SambaFlow items of a schedulers list (arguments made a dict),
    split as the one reader of the layout splits an item; names resolve through the registry."""
    found = []
    for index, item in enumerate(items if isinstance(items, list) else []):
        parts = name_and_arguments(item, ITEM_OPTIONS) if isinstance(item, dict) else None
        if parts is None or not _is_sambaflow(parts[0]):
            continue  # not a SambaFlow item; a mistake is reported when the config is read
        name, arguments, _ = parts
        if arguments is None:
            arguments = item[name] = {}
        if isinstance(arguments, dict):
            found.append((index, name, arguments))
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
