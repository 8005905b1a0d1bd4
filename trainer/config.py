"""Build a :class:`~trainer.Trainer` from a YAML file or a dict in the Cerebras Model Zoo layout.

The layout (API.md clarification 12; every key in docs/trainer-config.md)::

    trainer:
      init:
        model: "module:function"                  # or {factory: "module:function", kwargs: {...}}
        optimizer: {SGD: {lr: 0.01, momentum: 0.9}}
        schedulers:                               # any registry name: Cerebras, SambaFlow, Composer, Cadence
          - SequentialLR:
              schedulers:
                - LinearLR: {initial_learning_rate: 0.01, end_learning_rate: 0.001, total_iters: 500}
                - CosineDecayLR: {initial_learning_rate: 0.001, end_learning_rate: 0.0001, total_iters: 500}
        loop: {max_steps: 1000, num_steps: 250, eval_frequency: 100}
        checkpoint: {save_folder: run, steps: 100}
        seed: 1
      fit:
        train_dataloader: "module:function"
        val_dataloader: "module:function"

``load_config`` reads YAML with the YAML 1.2 float rule (``1e-3`` is a float), ``apply_sambaflow_flags`` and
``apply_overrides`` (``--set key.path=value``) layer the command line on top, and ``trainer_from_config``
checks everything and builds the trainer. Every mistake is a :class:`ConfigError` (a ``ValueError``) raised
before training starts, naming the key path (``trainer.init.schedulers[0].SequentialLR.schedulers[1]``) and
what is accepted there; known Cerebras keys Cadence does not use are a :class:`ConfigWarning` naming them.

Run length (``loop``): ``max_steps`` (or ``num_epochs``, or ``max_duration`` in any unit) is the global
horizon — it becomes the trainer's ``max_duration``, which every schedule's ``dur`` and the run's end refer
to. ``num_steps`` is the number of optimizer steps *this run* takes, counted from where it starts (a resumed
run starts at the checkpoint's batch): the run stops after ``min(start + num_steps, horizon)`` without
changing the horizon, so the schedules follow the same curve however a run is split (Cerebras ``num_steps``,
SambaFlow ``--steps_this_run``). With ``num_steps`` alone the horizon is ``num_steps`` batches.

>>> config = {"trainer": {"init": {"model": "torch.nn:Identity", "optimizer": {"SGD": {"lr": 0.1}},
...                                "schedulers": [{"CosineDecayLRR": {}}], "loop": {"max_steps": 10}},
...                       "fit": {"train_dataloader": "builtins:list"}}}
>>> try:
...     trainer_from_config(config)
... except ConfigError as error:
...     print(error)
trainer.init.schedulers[0].CosineDecayLRR: unknown schedule 'CosineDecayLRR' (did you mean CosineDecayLR, ...?); see ...
"""

from __future__ import annotations

import copy
import difflib
import importlib
import inspect
import math
import os
import re
import sys
import warnings
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import torch
import yaml
from torch.optim.lr_scheduler import LRScheduler

import schedulers.cerebras  # noqa: F401  (registers the Cerebras names)
import schedulers.sambaflow  # noqa: F401  (registers the SambaFlow names)
from schedulers import Schedule
from schedulers.cerebras.scheduler import HyperparameterScheduler
from schedulers.registry import UnknownSchedulerError, get_scheduler
from timeunits import Time, TimeUnit
from trainer.callbacks import Callback, LRMonitor, ProgressBar
from trainer.checkpoint import CheckpointError
from trainer.trainer import Trainer, seed_everything

__all__ = [
    "ConfigError",
    "ConfigWarning",
    "ConfiguredTrainer",
    "LossHistory",
    "apply_overrides",
    "apply_sambaflow_flags",
    "load_config",
    "parse_override",
    "run_summary",
    "trainer_from_config",
]


# ----------------------------------------------------------------------------------------------------
# Errors and warnings
# ----------------------------------------------------------------------------------------------------


class ConfigError(ValueError):
    """A configuration mistake, raised before training starts; ``str()`` is one line ``"<key path>: <what>"``.

    ``path`` is the key path (``trainer.init.loop.max_steps``), or the file for a YAML syntax error, with
    the command-line flag that set the value when one did (``trainer.init.loop.max_steps (from --max_steps)``).
    """

    def __init__(self, path: str | None, message: str) -> None:
        self.path = path
        self.message = _one_line(message)
        super().__init__(f"{path}: {self.message}" if path else self.message)


class ConfigWarning(UserWarning):
    """A key Cadence reads but does not use (a Cerebras setting with no Cadence counterpart), or a no-op flag."""


def _one_line(text: str) -> str:
    return re.sub(r"\s*\n\s*", " ", str(text)).strip()


# ----------------------------------------------------------------------------------------------------
# YAML
# ----------------------------------------------------------------------------------------------------


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader with the YAML 1.2 float rule and an error for duplicate keys.

    PyYAML follows YAML 1.1, where a float needs a dot and a signed exponent: ``1e-3``, ``3e4`` and ``1.0e5``
    would be strings. YAML 1.2 (and every Cadence/Cerebras user) reads them as floats.
    """

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, Any] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                except TypeError:  # an unhashable key: PyYAML reports it below
                    continue
                if duplicate:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping",
                        node.start_mark,
                        f"found duplicate key {key!r} (first at line {seen[key].line + 1})",
                        key_node.start_mark,
                    )
                seen[key] = key_node.start_mark
        return super().construct_mapping(node, deep=deep)


# Floats PyYAML 1.1 leaves as strings: an exponent without a dot or without a sign (1e-3, 3e4, 1.0e5, .5e3),
# and a signed number starting with a dot (-.5). Integers never match (PyYAML's int resolver runs first anyway).
_YAML12_FLOAT = re.compile(
    r"""^(?:[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)[eE][-+]?[0-9]+
        |[-+]\.[0-9][0-9_]*)$""",
    re.X,
)
_Loader.add_implicit_resolver("tag:yaml.org,2002:float", _YAML12_FLOAT, list("-+0123456789."))


def _yaml_load(text: str, source: str) -> Any:
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506  (a SafeLoader subclass)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark is not None else source
        problem = error.problem or error.context or "invalid YAML"
        raise ConfigError(where, f"invalid YAML: {problem}") from None
    except yaml.YAMLError as error:
        raise ConfigError(source, f"invalid YAML: {error}") from None


def load_config(path: str | os.PathLike) -> dict:
    """The YAML file ``path`` as a dict (YAML 1.2 floats: ``1e-3`` is ``0.001``; duplicate keys are errors).

    A missing file, a syntax error (with line and column) or a top level that is not a mapping is a
    :class:`ConfigError`.
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(str(file), "no such config file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(str(file), f"cannot read the config: {error}") from None
    data = _yaml_load(text, str(file))
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(str(file), f"the top level must be a mapping with a 'trainer' key, got {type(data).__name__}")
    return data


# ----------------------------------------------------------------------------------------------------
# Key paths, --set and the SambaFlow flags
# ----------------------------------------------------------------------------------------------------

_TOKEN = re.compile(r"([^.\[\]]+)|\[(-?\d+)\]")

# Keys of one mapping of which at most one may be given; --set and the flags replace the others.
_EXCLUSIVE = {
    "loop": (
        ("max_steps", "num_epochs", "max_duration"),
        ("eval_frequency", "eval_interval"),
        ("grad_accum_steps", "grad_accum"),
    ),
    "checkpoint": (("steps", "save_interval"), ("autoload_last_checkpoint", "autoresume")),
}


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

    The value is read as YAML (``1e-3`` a float, ``[1, 2]`` a list, ``null`` None, ``10ba`` a string); list items
    are addressed as ``schedulers[0]`` or ``schedulers.0``.
    """
    key, sep, value = str(text).partition("=")
    if not sep:
        raise ConfigError(f"--set {text}", "expected KEY.PATH=VALUE, e.g. trainer.init.loop.max_steps=100")
    try:
        tokens = _parse_path(key)
    except ValueError as error:
        raise ConfigError(f"--set {text}", str(error)) from None
    return tokens, _yaml_load(value, f"--set {text}") if value.strip() else None


def _find_key(mapping: dict, key: str) -> str:
    """``key`` itself, or the one key of ``mapping`` equal to it ignoring case (``sgd`` for ``SGD``)."""
    if key in mapping:
        return key
    folded = [k for k in mapping if isinstance(k, str) and k.lower() == key.lower()]
    return folded[0] if len(folded) == 1 else key


def apply_overrides(config: dict, overrides: Iterable[str], *, sources: dict[str, str] | None = None) -> dict:
    """A copy of ``config`` with each ``"key.path=value"`` of ``overrides`` set, in order (``--set``).

    Missing mappings on the way are created; a list item must exist. Setting one of a group of alternatives
    (``loop.max_steps`` / ``num_epochs`` / ``max_duration``, ``loop.eval_frequency`` / ``eval_interval``,
    ``checkpoint.steps`` / ``save_interval``, ...) removes the others from the same mapping. ``sources``
    (optional) records which flag set which key, for error messages.
    """
    config = copy.deepcopy(config)
    for text in overrides:
        tokens, value = parse_override(text)
        where = f"--set {text}"
        if not isinstance(tokens[0], str):
            raise ConfigError(where, "a key path starts with a name, e.g. trainer.init...")
        node: Any = config
        walked: list[str | int] = []
        for position, token in enumerate(tokens):
            last = position == len(tokens) - 1
            if isinstance(node, dict):
                if not isinstance(token, str):
                    raise ConfigError(where, f"{_path_text(walked) or 'the top level'} is a mapping, not a list")
                token = _find_key(node, token)
                tokens[position] = token
                if last:
                    group = _EXCLUSIVE.get(str(walked[-1]) if walked else "", ())
                    for alternatives in group:
                        if token in alternatives:
                            for other in alternatives:
                                if other != token:
                                    node.pop(other, None)
                                    if sources is not None:
                                        sources.pop(_path_text([*walked, other]), None)
                    node[token] = value
                else:
                    child = node.get(token)
                    if child is None:
                        if not isinstance(tokens[position + 1], str):
                            raise ConfigError(where, f"{_path_text([*walked, token])} is not a list")
                        child = node[token] = {}
                    node = child
            elif isinstance(node, list):
                if not isinstance(token, int):
                    raise ConfigError(where, f"{_path_text(walked)} is a list: address its items as [0], [1], ...")
                if not -len(node) <= token < len(node):
                    raise ConfigError(where, f"{_path_text(walked)} has {len(node)} items, there is no [{token}]")
                token = token % len(node)
                tokens[position] = token
                if last:
                    node[token] = value
                else:
                    if node[token] is None and isinstance(tokens[position + 1], str):
                        node[token] = {}
                    node = node[token]
            else:
                raise ConfigError(where, f"{_path_text(walked)} is {node!r}, not a mapping or a list")
            walked.append(token)
        if sources is not None:
            sources[_path_text(tokens)] = where
    return config


_FLAGS = ("learning_rate", "lr_schedule", "warmup_steps", "max_steps", "steps_this_run", "end_lr_ratio")


def _flag(args: Any, name: str) -> Any:
    return args.get(name) if isinstance(args, Mapping) else getattr(args, name, None)


def apply_sambaflow_flags(config: dict, args: Any, *, sources: dict[str, str] | None = None) -> dict:
    """A copy of ``config`` with SambaFlow's learning-rate flags applied (those that are not None).

    ``args`` is the namespace of :func:`schedulers.sambaflow.add_lr_schedule_args` (or a mapping).

    - ``--max_steps N``: the horizon (``trainer.init.loop.max_steps``, replacing ``num_epochs``/``max_duration``),
      which a SambaFlow schedule decays over; it also replaces a ``num_training_steps`` the YAML's gives;
    - ``--steps_this_run N``: the run length, ``trainer.init.loop.num_steps``;
    - ``--learning_rate X``: the optimizer's ``lr`` (the peak of a SambaFlow or Cadence schedule);
    - ``--lr_schedule NAME``: replaces ``trainer.init.schedulers`` by that SambaFlow schedule, built from
      ``--warmup_steps`` (default 0) and ``--end_lr_ratio``; it decays over the horizon (``--max_steps``);
    - ``--warmup_steps``/``--end_lr_ratio`` without ``--lr_schedule`` edit the YAML's SambaFlow schedule.
    """
    config = copy.deepcopy(config)
    given = {name: _flag(args, name) for name in _FLAGS if _flag(args, name) is not None}
    if not given:
        return config
    sources = {} if sources is None else sources
    trainer = config.setdefault("trainer", {})
    if not isinstance(trainer, dict):
        raise ConfigError("trainer", f"must be a mapping, got {trainer!r}")
    init = trainer.get("init")
    if init is None:
        init = trainer["init"] = {}
    if not isinstance(init, dict):
        raise ConfigError("trainer.init", f"must be a mapping, got {init!r}")

    def loop() -> dict:
        node = init.get("loop")
        if node is None:
            node = init["loop"] = {}
        if not isinstance(node, dict):
            raise ConfigError("trainer.init.loop", f"must be a mapping, got {node!r}")
        return node

    if "max_steps" in given:
        node = loop()
        for other in ("num_epochs", "max_duration"):
            node.pop(other, None)
        node["max_steps"] = given["max_steps"]
        sources["trainer.init.loop.max_steps"] = "--max_steps"
    if "steps_this_run" in given:
        loop()["num_steps"] = given["steps_this_run"]
        sources["trainer.init.loop.num_steps"] = "--steps_this_run"
    if "learning_rate" in given:
        _set_optimizer_lr(init, given["learning_rate"], sources)

    schedule = given.get("lr_schedule")
    if schedule is not None:
        name = str(schedule).strip().lower()
        if name not in schedulers.sambaflow.LR_SCHEDULES:
            raise ConfigError(
                "--lr_schedule", f"{schedule!r} is not one of {', '.join(schedulers.sambaflow.LR_SCHEDULES)}"
            )
        arguments: dict[str, Any] = {}
        if name == "fixed_lr":
            ignored = [f"--{flag}" for flag in ("warmup_steps", "end_lr_ratio") if flag in given]
            if ignored:
                warnings.warn(
                    ConfigWarning(f"{', '.join(ignored)}: no effect with --lr_schedule fixed_lr"), stacklevel=2
                )
        else:
            arguments["num_warmup_steps"] = given.get("warmup_steps", 0)
            # num_training_steps is left out: it defaults to the horizon, loop.max_steps (= --max_steps when
            # given), so a --set of the horizon moves the decay with it
            if "end_lr_ratio" in given:
                arguments["end_ratio"] = given["end_lr_ratio"]
        init["schedulers"] = [{name: arguments}]
        sources["trainer.init.schedulers"] = f"--lr_schedule {name}"
        return config

    edits = {
        "warmup_steps": "num_warmup_steps",
        "end_lr_ratio": "end_ratio",
        "max_steps": "num_training_steps",
    }
    wanted = {flag: argument for flag, argument in edits.items() if flag in given}
    if not wanted:
        return config
    entries = _sambaflow_entries(init.get("schedulers"))
    explicit = [flag for flag in wanted if flag != "max_steps"]
    if len(entries) != 1:
        if explicit:
            found = "none" if not entries else f"{len(entries)}"
            raise ConfigError(
                f"--{explicit[0]}",
                f"applies to a SambaFlow schedule: give --lr_schedule, or put one SambaFlow schedule "
                f"(cosine_schedule_with_warmup, polynomial_decay_schedule_with_warmup) in trainer.init.schedulers "
                f"(found {found})",
            )
        return config
    index, key, arguments = entries[0]
    if key.lower() in ("fixed_lr", "get_fixed_lr"):
        if explicit:
            warnings.warn(ConfigWarning(f"--{explicit[0]}: no effect on fixed_lr"), stacklevel=2)
        return config
    for flag, argument in wanted.items():
        if flag == "max_steps" and argument not in arguments:
            continue  # num_training_steps already follows the horizon, which --max_steps set
        arguments[argument] = given[flag]
        sources[f"trainer.init.schedulers[{index}].{key}.{argument}"] = f"--{flag}"
    return config


def _sambaflow_entries(items: Any) -> list[tuple[int, str, dict]]:
    """``(index, key, arguments)`` of the top-level SambaFlow items of a schedulers list (arguments made a dict)."""
    if not isinstance(items, list):
        return []
    sambaflow = schedulers.registry.registered_schedulers("sambaflow")
    names = {
        name.lower()
        for name, cls in sambaflow.items()
        if getattr(cls, "__module__", "").startswith("schedulers.sambaflow")
    }
    found = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        keys = [k for k in item if k not in _ITEM_OPTIONS]
        if len(keys) == 1 and isinstance(keys[0], str) and keys[0].lower() in names:
            if item[keys[0]] is None:
                item[keys[0]] = {}
            if isinstance(item[keys[0]], dict):
                found.append((index, keys[0], item[keys[0]]))
    return found


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
        if current is None or isinstance(current, (int, float, str)):
            optimizer["learning_rate"] = learning_rate
            optimizer.pop("lr", None)
            sources["trainer.init.optimizer.learning_rate"] = "--learning_rate"
        else:  # learning_rate is a Cerebras schedule: the optimizer's own lr
            optimizer["lr"] = learning_rate
            sources["trainer.init.optimizer.lr"] = "--learning_rate"
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


# ----------------------------------------------------------------------------------------------------
# The parse context: key paths, warnings, imports
# ----------------------------------------------------------------------------------------------------


class _Context:
    def __init__(self, base_dir: Path | None, sources: dict[str, str]) -> None:
        self.base_dir = base_dir
        self.sources = sources

    def where(self, path: str) -> str:
        """``path`` with the flag that set it or a parent (``... (from --max_steps)``), else the flags that set keys
        under it (``... (num_warmup_steps from --warmup_steps)``)."""
        best = None
        below = []
        for key, origin in self.sources.items():
            if path == key or path.startswith(key + ".") or path.startswith(key + "["):
                if best is None or len(key) > len(best[0]):
                    best = (key, origin)
            elif key.startswith(path + ".") or key.startswith(path + "["):
                below.append(f"{key[len(path) :].lstrip('.')} from {origin}")
        if best is not None:
            return f"{path} (from {best[1]})"
        return f"{path} ({'; '.join(below[:3])})" if below else path

    def error(self, path: str, message: str) -> ConfigError:
        return ConfigError(self.where(path), message)

    def warn(self, path: str, message: str) -> None:
        warnings.warn(ConfigWarning(f"{self.where(path)}: {message}"), stacklevel=4)

    def import_object(self, reference: str, path: str) -> Any:
        """The object ``"package.module:attribute.path"`` names, imported with the config's folder and the
        working directory on ``sys.path``."""
        module_name, sep, attribute = reference.partition(":")
        module_name, attribute = module_name.strip(), attribute.strip()
        if not sep or not module_name or not attribute:
            raise self.error(
                path, f"{reference!r} must name a function as 'module:function' (e.g. 'mymodels:make_model')"
            )
        for folder in (Path.cwd(), self.base_dir):  # the config's folder ends up first
            if folder is not None:
                entry = str(Path(folder).resolve())
                if entry not in sys.path:
                    sys.path.insert(0, entry)
        importlib.invalidate_caches()  # a module written after the folder was first listed
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            searched = ", ".join(
                dict.fromkeys(str(Path(f).resolve()) for f in (self.base_dir, Path.cwd()) if f is not None)
            )
            raise self.error(
                path, f"cannot import {module_name!r} ({error}); searched {searched} and sys.path"
            ) from None
        target: Any = module
        for part in attribute.split("."):
            if not hasattr(target, part):
                names = [n for n in dir(target) if not n.startswith("_")]
                close = difflib.get_close_matches(part, names, n=3, cutoff=0.6)
                hint = f" (did you mean {', '.join(close)}?)" if close else ""
                raise self.error(path, f"{module_name} has no attribute {attribute!r}{hint}")
            target = getattr(target, part)
        return target


def _check_keys(
    mapping: dict,
    path: str,
    accepted: Iterable[str],
    ctx: _Context,
    *,
    ignored: Mapping[str, str] | None = None,
) -> None:
    """Unknown keys of ``mapping`` are errors (with close names), ``ignored`` ones warnings."""
    accepted = list(accepted)
    ignored = ignored or {}
    for key in mapping:
        if key in accepted:
            continue
        text = str(key)
        if text in ignored:
            ctx.warn(_join(path, text), f"Cadence does not use this Cerebras setting ({ignored[text]}); ignored")
            continue
        close = difflib.get_close_matches(text, accepted, n=3, cutoff=0.6)
        hint = f"did you mean {', '.join(close)}? " if close else ""
        home = _HOME.get(text)
        if home is not None and home != path:
            hint = f"it belongs under {home}; " + hint
        raise ctx.error(_join(path, text), f"unknown key ({hint}accepted here: {', '.join(accepted)})")


def _join(path: str, key: str | int) -> str:
    return f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}"


def _mapping(value: Any, path: str, ctx: _Context, *, allow_none: bool = True) -> dict:
    if value is None and allow_none:
        return {}
    if not isinstance(value, dict):
        raise ctx.error(path, f"must be a mapping of keys to values, got {_show(value)}")
    return value


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _int(value: Any, path: str, ctx: _Context, *, minimum: int = 0) -> int:
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)  # 1e3 (a YAML 1.2 float) is a fine count
    if isinstance(value, bool) or not isinstance(value, int):
        raise ctx.error(path, f"must be an integer >= {minimum}, got {_show(value)}")
    if value < minimum:
        raise ctx.error(path, f"must be an integer >= {minimum}, got {value}")
    return value


def _number(value: Any, path: str, ctx: _Context, *, positive: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ctx.error(path, f"must be a finite number, got {_show(value)}")
    if positive and value <= 0:
        raise ctx.error(path, f"must be > 0, got {value}")
    return float(value)


def _bool(value: Any, path: str, ctx: _Context) -> bool:
    if not isinstance(value, bool):
        raise ctx.error(path, f"must be true or false, got {_show(value)}")
    return value


def _time(value: Any, path: str, ctx: _Context, *, hint: str) -> Time:
    if isinstance(value, bool) or isinstance(value, (int, float)):
        raise ctx.error(
            path, f"{value!r} has no unit: give a time string such as '10ep', '1000ba' or '2e6tok' ({hint})"
        )
    try:
        time = Time.from_input(value)
    except (TypeError, ValueError) as error:
        raise ctx.error(path, f"{_show(value)} is not a time string such as '10ep' or '1000ba': {error}") from None
    if time.unit is TimeUnit.DURATION:
        raise ctx.error(path, f"{time} is a fraction of the run: give it in ep, ba, sp or tok")
    if time.value <= 0:
        raise ctx.error(path, f"{time} must be positive")
    return time


# ----------------------------------------------------------------------------------------------------
# The layout
# ----------------------------------------------------------------------------------------------------

_INIT_KEYS = (
    "model",
    "optimizer",
    "schedulers",
    "loop",
    "checkpoint",
    "seed",
    "device",
    "precision",
    "callbacks",
    "train_dataloader",
    "val_dataloader",
    "eval_dataloader",
    "loss_fn",
    "get_num_samples",
    "get_num_tokens",
    "progress_bar",
    "loggers",
)
_INIT_IGNORED = {
    "backend": "a Cerebras cluster backend; Cadence runs on trainer.init.device",
    "logging": "Cerebras logging settings; Cadence shows a progress bar",
    "model_dir": "Cerebras's output folder; Cadence writes checkpoints to trainer.init.checkpoint.save_folder",
    "sparsity": "Cerebras weight sparsity",
}
_FIT_KEYS = ("train_dataloader", "val_dataloader", "eval_dataloader", "ckpt_path")
_TRAINER_KEYS = ("init", "fit")
_TRAINER_IGNORED = {"validate": "cadence fit only trains", "validate_all": "cadence fit only trains"}
_LOOP_KEYS = (
    "max_steps",
    "num_steps",
    "num_epochs",
    "max_duration",
    "eval_frequency",
    "eval_interval",
    "eval_steps",
    "grad_accum_steps",
    "grad_accum",
    "scale_schedule_ratio",
)
_CHECKPOINT_KEYS = (
    "save_folder",
    "save_interval",
    "steps",
    "load_path",
    "autoload_last_checkpoint",
    "autoresume",
    "save_num_checkpoints_to_keep",
    "load_weights_only",
    "load_strict_model_weights",
    "disable_strict_checkpoint_loading",
)
_CHECKPOINT_IGNORED = {
    "save_initial_checkpoint": "Cadence saves at save_interval and at the end",
}
_PRECISION_KEYS = ("enabled", "fp16_type", "max_gradient_norm", "max_gradient_value")
_PRECISION_IGNORED = {
    name: "Cadence's fp16 uses torch's GradScaler with its defaults"
    for name in (
        "precision_opt_level",
        "loss_scaling_factor",
        "initial_loss_scale",
        "steps_per_increase",
        "min_loss_scale",
        "max_loss_scale",
        "log_loss_scale",
    )
}

# Where a key belongs, for "unknown key" errors that find it elsewhere.
_HOME = {
    **{key: "trainer.init.loop" for key in _LOOP_KEYS},
    **{key: "trainer.init.checkpoint" for key in _CHECKPOINT_KEYS},
    **{key: "trainer.init.precision" for key in _PRECISION_KEYS},
    "ckpt_path": "trainer.fit",
    **{key: "trainer.init" for key in ("model", "optimizer", "schedulers", "seed", "device", "callbacks", "loss_fn")},
    "steps_per_epoch": "trainer.init.loop",
}

_ITEM_OPTIONS = ("hyperparameter", "param_group_tags")
_CHILD_ARGUMENTS = ("schedule", "schedules", "scheduler", "schedulers")


@dataclass
class _Ref:
    """A resolved ``module:function`` (or factory) reference: ``value`` is used as is unless ``call``."""

    path: str
    text: str
    target: Any
    kwargs: dict = field(default_factory=dict)
    call: bool = True

    def build(self) -> Any:
        return self.target(**copy.deepcopy(self.kwargs)) if self.call else self.target


@dataclass
class _Sched:
    path: str
    name: str
    target: Any
    kind: str  # "schedule" (Cadence), "optimizer" (target(optimizer, ...)), "children" (ChainedLR: no optimizer)
    args: dict
    hyperparameter: str | None = None
    tags: Any = None


@dataclass
class _Plan:
    model: _Ref
    optimizer: Callable[[torch.nn.Module], torch.optim.Optimizer]
    schedulers: list  # trainer entries: Cadence schedules (or dicts) and factories
    scheduler_paths: list[str]
    train: _Ref
    evaluation: _Ref | None
    eval_steps: int | None
    loss_fn: _Ref | None
    get_num_samples: _Ref | None
    get_num_tokens: _Ref | None
    callbacks: list[_Ref]
    max_duration: Time
    max_duration_path: str
    num_steps: int | None
    eval_interval: Time | None
    eval_interval_path: str
    grad_accum: int
    ssr: float
    seed: int
    device: str
    checkpoint: dict[str, Any]
    progress_bar: bool
    precision: str
    max_grad_norm: float | None
    loggers: list[_Ref]
    labels: dict[str, str]


def _reference(value: Any, path: str, ctx: _Context, *, what: str, string_calls: bool) -> _Ref:
    """``"module:function"`` or ``{factory: "module:function", kwargs: {...}}``.

    A string names a factory called without arguments when ``string_calls`` (model, loaders), else the
    object itself (a function; a class is instantiated). The dict form always calls the factory.
    """
    if isinstance(value, str):
        target = ctx.import_object(value, path)
        if string_calls:
            if isinstance(target, (torch.nn.Module, torch.utils.data.DataLoader)) or not callable(target):
                return _Ref(path, value, target, call=False)
            _check_call(target, {}, value, path, ctx)
            return _Ref(path, value, target)
        if inspect.isclass(target):
            _check_call(target, {}, value, path, ctx)
            return _Ref(path, value, target)
        if not callable(target):
            raise ctx.error(path, f"{value!r} is {type(target).__name__}, not a function")
        return _Ref(path, value, target, call=False)
    if isinstance(value, dict):
        _check_keys(value, path, ("factory", "kwargs"), ctx)
        if "factory" not in value:
            raise ctx.error(path, f"{what} as a mapping needs 'factory: module:function' (and optional 'kwargs')")
        factory = value["factory"]
        if not isinstance(factory, str):
            raise ctx.error(_join(path, "factory"), f"must be 'module:function', got {_show(factory)}")
        kwargs = _mapping(value.get("kwargs"), _join(path, "kwargs"), ctx)
        target = ctx.import_object(factory, _join(path, "factory"))
        if not callable(target):
            raise ctx.error(_join(path, "factory"), f"{factory!r} is {type(target).__name__}, not callable")
        _check_call(target, kwargs, factory, path, ctx)
        return _Ref(path, factory, target, dict(kwargs))
    raise ctx.error(
        path, f"{what} must be 'module:function' or {{factory: 'module:function', kwargs: {{...}}}}, got {_show(value)}"
    )


def _signature(target: Any) -> inspect.Signature | None:
    try:
        return inspect.signature(target)
    except (TypeError, ValueError):
        return None


def _signature_text(name: str, target: Any) -> str:
    signature = _signature(target)
    if signature is None:
        return f"{name}(...)"
    parts, star = [], False
    for parameter in signature.parameters.values():
        if parameter.name in ("self", "state") and parameter.kind is not parameter.VAR_KEYWORD:
            continue
        if parameter.kind is parameter.VAR_POSITIONAL:
            parts.append(f"*{parameter.name}")
            star = True
        elif parameter.kind is parameter.VAR_KEYWORD:
            parts.append(f"**{parameter.name}")
        else:
            if parameter.kind is parameter.KEYWORD_ONLY and not star:
                parts.append("*")
                star = True
            default = parameter.default
            parts.append(parameter.name if default is parameter.empty else f"{parameter.name}={default!r}")
    return f"{name}({', '.join(parts)})"


def _check_call(
    target: Any, kwargs: dict, name: str, path: str, ctx: _Context, *, leading: tuple[str, ...] = ()
) -> None:
    """``target(*leading, **kwargs)`` binds: else a ConfigError with the unexpected/missing names and the signature."""
    signature = _signature(target)
    if signature is None:
        return
    parameters = [p for p in signature.parameters.values() if p.name != "self"]
    takes_any = any(p.kind is p.VAR_KEYWORD for p in parameters)
    named = {p.name: p for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    filled = {p.name for p in positional[: len(leading)]}
    bad_keys = [k for k in kwargs if not isinstance(k, str)]
    if bad_keys:
        raise ctx.error(path, f"argument names must be strings, got {bad_keys!r}")
    unexpected = [k for k in kwargs if k in filled or (k not in named and not takes_any)]
    missing = [
        p.name
        for p in parameters
        if p.default is p.empty
        and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        and p.name not in filled
        and p.name not in kwargs
    ]
    accepted = _signature_text(name, target)
    if unexpected:
        close = []
        for key in unexpected:
            close += difflib.get_close_matches(key, [n for n in named if n not in filled], n=1, cutoff=0.6)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise ctx.error(
            path, f"{name} got unexpected argument(s) {', '.join(map(repr, unexpected))}{hint}; accepted: {accepted}"
        )
    if missing:
        raise ctx.error(path, f"{name} is missing argument(s) {', '.join(map(repr, missing))}; accepted: {accepted}")


def _check_factory_form(value: Any, path: str, ctx: _Context, label: str) -> None:
    if isinstance(value, str) and ":" not in value:
        raise ctx.error(path, f"{label} must be 'module:function' (e.g. 'mymodels:make_model'), got {_show(value)}")
    if isinstance(value, dict) and "factory" not in value:
        keys = ", ".join(map(str, value)) or "no keys"
        raise ctx.error(
            path,
            f"{label} must be 'module:function' or {{factory: 'module:function', kwargs: {{...}}}}; Cadence does not "
            f"build Cerebras Model Zoo {label}s from their settings (got {keys})",
        )


def _parse(config: Any, ctx: _Context) -> _Plan:
    if not isinstance(config, dict):
        raise ConfigError(None, f"the configuration must be a mapping with a 'trainer' key, got {_show(config)}")
    for key in config:
        if key != "trainer":
            close = difflib.get_close_matches(str(key), ["trainer"], n=1)
            hint = "did you mean trainer? " if close else ""
            raise ctx.error(
                str(key), f"unknown top-level key ({hint}the configuration has one top-level key, 'trainer')"
            )
    if "trainer" not in config:
        raise ConfigError("trainer", "missing: the configuration needs trainer.init (and trainer.fit)")
    trainer = config["trainer"]
    if isinstance(trainer, list):
        raise ctx.error("trainer", "a list of trainers (multi-phase Cerebras runs) is not supported: give one mapping")
    trainer = _mapping(trainer, "trainer", ctx, allow_none=False)
    _check_keys(trainer, "trainer", _TRAINER_KEYS, ctx, ignored=_TRAINER_IGNORED)
    if "init" not in trainer:
        raise ctx.error("trainer.init", "missing: it holds model, optimizer, schedulers, loop, ...")
    init = _mapping(trainer["init"], "trainer.init", ctx, allow_none=False)
    fit = _mapping(trainer.get("fit"), "trainer.fit", ctx)
    _check_keys(
        init,
        "trainer.init",
        (*_INIT_KEYS, "model_dir"),
        ctx,
        ignored={k: v for k, v in _INIT_IGNORED.items() if k != "model_dir"},
    )
    _check_keys(fit, "trainer.fit", _FIT_KEYS, ctx)

    # -- loaders, loss and counters (imports checked now, factories called at build time)
    train_path, train_value = _one_of(
        ctx,
        ("trainer.fit.train_dataloader", fit, "train_dataloader"),
        ("trainer.init.train_dataloader", init, "train_dataloader"),
    )
    if train_path is None:
        raise ctx.error("trainer.fit.train_dataloader", "missing: give 'module:function' returning the training loader")
    _check_factory_form(train_value, train_path, ctx, "train_dataloader")
    train = _reference(train_value, train_path, ctx, what="train_dataloader", string_calls=True)
    eval_path, eval_value = _one_of(
        ctx,
        ("trainer.fit.val_dataloader", fit, "val_dataloader"),
        ("trainer.fit.eval_dataloader", fit, "eval_dataloader"),
        ("trainer.init.val_dataloader", init, "val_dataloader"),
        ("trainer.init.eval_dataloader", init, "eval_dataloader"),
    )
    evaluation = None
    if eval_path is not None and eval_value is not None:
        _check_factory_form(eval_value, eval_path, ctx, "val_dataloader")
        evaluation = _reference(eval_value, eval_path, ctx, what="val_dataloader", string_calls=True)
    if "model" not in init or init["model"] is None:
        raise ctx.error("trainer.init.model", "missing: give 'module:function' returning a torch.nn.Module")
    _check_factory_form(init["model"], "trainer.init.model", ctx, "model")
    model = _reference(init["model"], "trainer.init.model", ctx, what="model", string_calls=True)
    loss_fn = _loss_reference(init.get("loss_fn"), "trainer.init.loss_fn", ctx)
    counters = {}
    for key in ("get_num_samples", "get_num_tokens"):
        value = init.get(key)
        counters[key] = (
            None if value is None else _reference(value, f"trainer.init.{key}", ctx, what=key, string_calls=False)
        )

    # -- loop
    loop_path = "trainer.init.loop"
    if init.get("loop") is None:
        raise ctx.error(loop_path, "missing: give loop.max_steps (the horizon in optimizer steps) or loop.max_duration")
    loop = _mapping(init["loop"], loop_path, ctx)
    if "steps_per_epoch" in loop:
        raise ctx.error(
            f"{loop_path}.steps_per_epoch",
            "not supported: an epoch is one pass over the train loader (shorten the loader, or count in batches)",
        )
    _check_keys(loop, loop_path, _LOOP_KEYS, ctx)
    for group in _EXCLUSIVE["loop"]:
        present = [key for key in group if loop.get(key) is not None]
        if len(present) > 1:
            raise ctx.error(
                f"{loop_path}.{present[1]}",
                f"give only one of {', '.join(group)} (also {loop_path}.{present[0]} is set)",
            )
    num_steps = None
    if loop.get("num_steps") is not None:
        num_steps = _int(loop["num_steps"], f"{loop_path}.num_steps", ctx, minimum=1)
    if loop.get("max_steps") is not None:
        duration_path = f"{loop_path}.max_steps"
        max_duration = Time(_int(loop["max_steps"], duration_path, ctx, minimum=1), TimeUnit.BATCH)
    elif loop.get("num_epochs") is not None:
        duration_path = f"{loop_path}.num_epochs"
        max_duration = Time(_int(loop["num_epochs"], duration_path, ctx, minimum=1), TimeUnit.EPOCH)
    elif loop.get("max_duration") is not None:
        duration_path = f"{loop_path}.max_duration"
        max_duration = _time(loop["max_duration"], duration_path, ctx, hint="the horizon of the run")
    elif num_steps is not None:
        duration_path = f"{loop_path}.num_steps"
        max_duration = Time(num_steps, TimeUnit.BATCH)
        num_steps = None  # the horizon itself
    else:
        raise ctx.error(
            loop_path,
            "needs the run's length: max_steps (optimizer steps), num_epochs, max_duration (e.g. '2e6tok') "
            "or num_steps",
        )
    if num_steps is not None and max_duration.unit is TimeUnit.BATCH and num_steps >= max_duration.value:
        num_steps = None  # the horizon comes first anyway
    grad_accum = 1
    for key in ("grad_accum_steps", "grad_accum"):
        if loop.get(key) is not None:
            grad_accum = _int(loop[key], f"{loop_path}.{key}", ctx, minimum=1)
    ssr = 1.0
    if loop.get("scale_schedule_ratio") is not None:
        ssr = _number(loop["scale_schedule_ratio"], f"{loop_path}.scale_schedule_ratio", ctx)
    eval_interval, eval_interval_path = None, f"{loop_path}.eval_interval"
    if loop.get("eval_frequency") is not None:
        eval_interval_path = f"{loop_path}.eval_frequency"
        eval_interval = Time(_int(loop["eval_frequency"], eval_interval_path, ctx, minimum=1), TimeUnit.BATCH)
    elif loop.get("eval_interval") is not None:
        eval_interval = _time(loop["eval_interval"], eval_interval_path, ctx, hint="or loop.eval_frequency in steps")
    eval_steps = None
    if loop.get("eval_steps") is not None:
        eval_steps = _int(loop["eval_steps"], f"{loop_path}.eval_steps", ctx, minimum=1)
    if evaluation is None:
        for key, value in (
            ("eval_frequency", loop.get("eval_frequency")),
            ("eval_interval", loop.get("eval_interval")),
            ("eval_steps", eval_steps),
        ):
            if value is not None:
                raise ctx.error(f"{loop_path}.{key}", "needs trainer.fit.val_dataloader to evaluate on")
    elif eval_interval is None:
        eval_interval, eval_interval_path = max_duration, duration_path  # evaluate once, at the end
    tokens = counters["get_num_tokens"] is not None
    for time, path in ((max_duration, duration_path), (eval_interval, eval_interval_path)):
        if time is not None and time.unit is TimeUnit.TOKEN and not tokens:
            raise ctx.error(
                path,
                f"{time} counts tokens: give trainer.init.get_num_tokens ('module:function' counting a batch's tokens)",
            )

    # -- seed, device, progress bar
    seed = 0 if init.get("seed") is None else _int(init["seed"], "trainer.init.seed", ctx)
    device = _device(init.get("device"), "trainer.init.device", ctx)
    progress_bar = (
        True if init.get("progress_bar") is None else _bool(init["progress_bar"], "trainer.init.progress_bar", ctx)
    )

    # -- checkpoint
    checkpoint = _checkpoint(init, fit, ctx)

    # -- precision: autocast and gradient clipping
    precision_name, clip_norm, clip_value = _precision(init.get("precision"), "trainer.init.precision", ctx)

    # -- optimizer and schedulers
    optimizer = _optimizer(init.get("optimizer"), "trainer.init.optimizer", ctx, clip_value)
    entries, paths = _schedulers(init, max_duration, ctx)

    # -- callbacks and loggers
    callbacks = _callbacks(init.get("callbacks"), "trainer.init.callbacks", ctx)
    loggers = _loggers(init.get("loggers"), "trainer.init.loggers", ctx)

    labels = {
        "max_duration": duration_path,
        "eval_interval": eval_interval_path,
        "save_interval": checkpoint["save_interval_path"],
        "max_grad_norm": "trainer.init.precision.max_gradient_norm",
        "precision": "trainer.init.precision",
        "save_num_checkpoints_to_keep": "trainer.init.checkpoint.save_num_checkpoints_to_keep",
        "autoresume": checkpoint["autoresume_path"],
        "grad_accum": f"{loop_path}.grad_accum"
        if loop.get("grad_accum") is not None
        else f"{loop_path}.grad_accum_steps",
        "scale_schedule_ratio": f"{loop_path}.scale_schedule_ratio",
        "seed": "trainer.init.seed",
        "the train dataloader": (
            f"{loop_path}.grad_accum"
            if loop.get("grad_accum") is not None
            else f"{loop_path}.grad_accum_steps"
            if loop.get("grad_accum_steps") is not None
            else train_path
        ),
        "optimizer": "trainer.init.optimizer",
    }
    return _Plan(
        model=model,
        optimizer=optimizer,
        schedulers=entries,
        scheduler_paths=paths,
        train=train,
        evaluation=evaluation,
        eval_steps=eval_steps,
        loss_fn=loss_fn,
        get_num_samples=counters["get_num_samples"],
        get_num_tokens=counters["get_num_tokens"],
        callbacks=callbacks,
        max_duration=max_duration,
        max_duration_path=duration_path,
        num_steps=num_steps,
        eval_interval=eval_interval,
        eval_interval_path=eval_interval_path,
        grad_accum=grad_accum,
        ssr=ssr,
        seed=seed,
        device=device,
        checkpoint=checkpoint,
        progress_bar=progress_bar,
        precision=precision_name,
        max_grad_norm=clip_norm,
        loggers=loggers,
        labels=labels,
    )


def _one_of(ctx: _Context, *places: tuple[str, dict, str]) -> tuple[str | None, Any]:
    found = [(path, mapping[key]) for path, mapping, key in places if mapping.get(key) is not None]
    if len(found) > 1:
        raise ctx.error(found[1][0], f"give it once: {found[0][0]} is also set")
    return found[0] if found else (None, None)


def _loss_reference(value: Any, path: str, ctx: _Context) -> _Ref | None:
    """``null`` (the model returns the loss), a ``torch.nn.functional`` name, ``module:function``, or a factory."""
    if value is None:
        return None
    if isinstance(value, str) and ":" not in value:
        function = getattr(torch.nn.functional, value.strip(), None)
        if function is None or not callable(function) or value.startswith("_"):
            names = [n for n in dir(torch.nn.functional) if n.endswith("loss") or n in ("cross_entropy", "nll_loss")]
            close = difflib.get_close_matches(value, names, n=3, cutoff=0.5)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise ctx.error(
                path,
                f"{value!r} is not a torch.nn.functional loss{hint}; give a name such as cross_entropy, "
                "'module:function', {factory: ..., kwargs: ...}, or null when the model returns the loss",
            )
        return _Ref(path, value, function, call=False)
    return _reference(value, path, ctx, what="loss_fn", string_calls=False)


def _device(value: Any, path: str, ctx: _Context) -> str:
    if value is None:
        return "cpu"
    if not isinstance(value, str):
        raise ctx.error(path, f"must be a device name such as cpu, cuda or cuda:1, got {_show(value)}")
    name = value.strip()
    cerebras = {"cpu": "cpu", "gpu": "cuda"}
    if name.lower() == "csx":
        ctx.warn(path, "CSX is a Cerebras system; Cadence trains on cpu")
        return "cpu"
    name = cerebras.get(name.lower(), name)
    try:
        device = torch.device(name)
    except (RuntimeError, ValueError):
        raise ctx.error(
            path, f"{value!r} is not a device: give cpu, cuda, cuda:N (Cerebras CPU/GPU also work)"
        ) from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ctx.error(path, f"{value!r}: CUDA is not available on this machine")
    return str(device)


def _checkpoint(init: dict, fit: dict, ctx: _Context) -> dict[str, Any]:
    """The trainer's checkpoint arguments from ``trainer.init.checkpoint``, ``trainer.fit.ckpt_path`` and
    ``trainer.init.model_dir`` (plus the key paths of the interval and of autoresume, for error messages)."""
    path = "trainer.init.checkpoint"
    checkpoint = _mapping(init.get("checkpoint"), path, ctx)
    _check_keys(checkpoint, path, _CHECKPOINT_KEYS, ctx, ignored=_CHECKPOINT_IGNORED)
    for group in _EXCLUSIVE["checkpoint"]:
        present = [key for key in group if checkpoint.get(key) is not None]
        if len(present) > 1:
            raise ctx.error(
                f"{path}.{present[1]}", f"give only one of {', '.join(group)} (also {path}.{present[0]} is set)"
            )
    save_interval, interval_path = None, f"{path}.save_interval"
    if checkpoint.get("steps") is not None:
        interval_path = f"{path}.steps"
        save_interval = Time(_int(checkpoint["steps"], interval_path, ctx, minimum=1), TimeUnit.BATCH)
    elif checkpoint.get("save_interval") is not None:
        save_interval = _time(checkpoint["save_interval"], interval_path, ctx, hint="or checkpoint.steps in steps")

    save_folder = checkpoint.get("save_folder")
    if save_folder is not None and not isinstance(save_folder, str):
        raise ctx.error(f"{path}.save_folder", f"must be a folder path, got {_show(save_folder)}")
    autoresume, autoresume_path = False, f"{path}.autoresume"
    for key in ("autoload_last_checkpoint", "autoresume"):
        if checkpoint.get(key) is not None:
            autoresume_path = f"{path}.{key}"
            autoresume = _bool(checkpoint[key], autoresume_path, ctx)
    keep = None
    if checkpoint.get("save_num_checkpoints_to_keep") is not None:
        keep = _int(checkpoint["save_num_checkpoints_to_keep"], f"{path}.save_num_checkpoints_to_keep", ctx, minimum=1)
    weights_only = False
    if checkpoint.get("load_weights_only") is not None:
        weights_only = _bool(checkpoint["load_weights_only"], f"{path}.load_weights_only", ctx)
    strict = True
    if checkpoint.get("load_strict_model_weights") is not None:
        strict = _bool(checkpoint["load_strict_model_weights"], f"{path}.load_strict_model_weights", ctx)
    if checkpoint.get("disable_strict_checkpoint_loading") is not None:
        key = f"{path}.disable_strict_checkpoint_loading"
        if checkpoint.get("load_strict_model_weights") is not None:
            raise ctx.error(key, "give only one of disable_strict_checkpoint_loading, load_strict_model_weights")
        strict = not _bool(checkpoint["disable_strict_checkpoint_loading"], key, ctx)
    if not strict and not weights_only:
        ctx.warn(
            f"{path}.load_weights_only",
            "non-strict loading applies to weights-only loads (load_weights_only: true); resuming a run loads "
            "everything strictly",
        )

    model_dir = init.get("model_dir")
    if model_dir is not None:
        if save_folder is None and (save_interval is not None or autoresume) and isinstance(model_dir, str):
            save_folder = model_dir  # Cerebras writes its checkpoints into model_dir
        else:
            ctx.warn(
                "trainer.init.model_dir",
                f"Cadence does not use this Cerebras setting ({_INIT_IGNORED['model_dir']}); ignored",
            )
    if save_interval is not None and save_folder is None:
        raise ctx.error(interval_path, f"needs {path}.save_folder (the folder to write checkpoints to)")
    if autoresume and save_folder is None:
        raise ctx.error(autoresume_path, f"needs {path}.save_folder (it resumes from the latest checkpoint there)")
    if keep is not None and save_folder is None:
        raise ctx.error(f"{path}.save_num_checkpoints_to_keep", f"needs {path}.save_folder")

    load_path = None
    given = [
        (p, v)
        for p, v in (
            (f"{path}.load_path", checkpoint.get("load_path")),
            ("trainer.fit.ckpt_path", fit.get("ckpt_path")),
        )
        if v is not None
    ]
    if len(given) > 1:
        raise ctx.error("trainer.fit.ckpt_path", f"give only one checkpoint to load ({path}.load_path is also set)")
    if given:
        origin, load_path = given[0]
        if not isinstance(load_path, str):
            raise ctx.error(origin, f"must be a checkpoint file or folder, got {_show(load_path)}")
        if not Path(load_path).exists():
            raise ctx.error(origin, f"{load_path!r} does not exist (relative paths start at the working directory)")
    return {
        "save_folder": save_folder,
        "save_interval": save_interval,
        "save_interval_path": interval_path,
        "load_path": load_path,
        "autoresume": autoresume,
        "autoresume_path": autoresume_path,
        "save_num_checkpoints_to_keep": keep,
        "load_weights_only": weights_only,
        "load_strict_model_weights": strict,
    }


_FP16_TYPES = {"float16": "fp16", "bfloat16": "bf16", "cbfloat16": "bf16"}


def _precision(value: Any, path: str, ctx: _Context) -> tuple[str, float | None, float | None]:
    """``(precision, max_grad_norm, max_gradient_value)`` from ``trainer.init.precision``.

    A string is the trainer's precision (``fp32``, ``bf16``, ``fp16``). A mapping is Cerebras's: ``enabled: true``
    turns on mixed precision in ``fp16_type`` (``float16`` → ``fp16``, ``bfloat16`` → ``bf16``; Cerebras's
    ``cbfloat16`` → ``bf16``, with a warning); ``max_gradient_norm`` and ``max_gradient_value`` clip gradients;
    the loss-scaling settings are warnings.
    """
    from trainer.precision import PRECISIONS

    if value is None:
        return "fp32", None, None
    if isinstance(value, str):
        if value not in PRECISIONS:
            raise ctx.error(path, f"{value!r} is not a precision: give one of {', '.join(PRECISIONS)}")
        return value, None, None
    precision = _mapping(value, path, ctx)
    _check_keys(precision, path, _PRECISION_KEYS, ctx, ignored=_PRECISION_IGNORED)
    name = "fp32"
    enabled = False if precision.get("enabled") is None else _bool(precision["enabled"], f"{path}.enabled", ctx)
    kind = precision.get("fp16_type")
    if kind is not None and (not isinstance(kind, str) or kind not in _FP16_TYPES):
        raise ctx.error(f"{path}.fp16_type", f"must be one of {', '.join(_FP16_TYPES)}, got {_show(kind)}")
    if enabled:
        kind = kind or "float16"
        name = _FP16_TYPES[kind]
        if kind == "cbfloat16":
            ctx.warn(f"{path}.fp16_type", "cbfloat16 is Cerebras hardware's format; Cadence uses bfloat16 (bf16)")
    elif kind is not None:
        ctx.warn(f"{path}.fp16_type", "has no effect without enabled: true")
    clip_norm = clip_value = None
    if precision.get("max_gradient_norm") is not None:
        clip_norm = _number(precision["max_gradient_norm"], f"{path}.max_gradient_norm", ctx)
    if precision.get("max_gradient_value") is not None:
        clip_value = _number(precision["max_gradient_value"], f"{path}.max_gradient_value", ctx)
    return name, clip_norm, clip_value


# -- optimizer ------------------------------------------------------------------------------------------


def _optimizer(value: Any, path: str, ctx: _Context, clip_value: float | None):
    """A callable ``model -> optimizer`` for the trainer (built after the model is on its device).

    The arguments and their values are checked now, on a stand-in parameter, before any model is built.
    ``params`` (Cerebras style) is a list of param groups chosen by name patterns
    (:func:`trainer.param_groups.tagged_groups`): ``[{params: "*.bias", tag: no_decay, weight_decay: 0.0}]``.
    """
    from trainer.optim import configure_optimizer, optimizer_classes
    from trainer.param_groups import tagged_groups

    if value is None:
        raise ctx.error(path, "missing: give e.g. {SGD: {lr: 0.01, momentum: 0.9}} or {AdamW: {lr: 1e-3}}")
    lr_schedule = None
    if isinstance(value, dict) and "factory" in value:
        _check_keys(value, path, ("factory", "kwargs"), ctx)
        if not isinstance(value["factory"], str):
            raise ctx.error(_join(path, "factory"), f"must be 'module:function', got {_show(value['factory'])}")
        kwargs = dict(_mapping(value.get("kwargs"), _join(path, "kwargs"), ctx))
        target = ctx.import_object(value["factory"], _join(path, "factory"))
        if not callable(target):
            raise ctx.error(_join(path, "factory"), f"{value['factory']!r} is not callable")
        _check_call(target, kwargs, value["factory"], path, ctx, leading=("model",))
        factory = _Ref(path, value["factory"], target, kwargs)

        def build(model):
            optimizer = factory.target(model, **factory.kwargs)
            if not isinstance(optimizer, torch.optim.Optimizer):
                raise ctx.error(path, f"{factory.text} returned {type(optimizer).__name__}, not a torch optimizer")
            return _with_clipping(optimizer, clip_value)

        return build
    if isinstance(value, str):
        name, arguments, name_path = value, {}, path
    elif (
        isinstance(value, dict) and "optimizer_type" in value
    ):  # Cerebras 1.x: {optimizer_type: SGD, learning_rate: ...}
        arguments = dict(value)
        name = arguments.pop("optimizer_type")
        name_path = f"{path}.optimizer_type"
        if not isinstance(name, str):
            raise ctx.error(name_path, f"must be an optimizer name such as SGD or AdamW, got {_show(name)}")
        learning_rate = arguments.get("learning_rate")
        if isinstance(learning_rate, (dict, list)):
            lr_schedule = arguments.pop("learning_rate")
    elif isinstance(value, dict) and len(value) == 1:
        ((name, arguments),) = value.items()
        name_path = f"{path}.{name}"
        arguments = _mapping(arguments, name_path, ctx)
    else:
        raise ctx.error(path, f"must name one optimizer, e.g. {{SGD: {{lr: 0.01}}}}, got {_show(value)}")
    known = optimizer_classes()
    by_lower = {key.lower(): cls for key, cls in known.items()}
    cls = by_lower.get(str(name).strip().lower())
    if cls is None:
        close = difflib.get_close_matches(str(name).lower(), list(by_lower), n=3, cutoff=0.5)
        display = {key.lower(): key for key in known}
        hint = f" (did you mean {', '.join(display[c] for c in close)}?)" if close else ""
        raise ctx.error(name_path, f"unknown optimizer {name!r}{hint}; known: {', '.join(known)}")
    arguments = dict(arguments)
    for key in arguments:
        if not isinstance(key, str):
            raise ctx.error(name_path, f"argument names must be strings, got {key!r}")
    arguments_path = name_path if name_path != f"{path}.optimizer_type" else path
    groups = arguments.pop("params", None)
    groups_path = f"{arguments_path}.params"
    if groups is not None:
        if isinstance(groups, dict):
            groups = [groups]
        if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
            raise ctx.error(
                groups_path, f"must be a list of {{params: PATTERN, tag: TAG, ...options}}, got {_show(groups)}"
            )
        for index, group in enumerate(groups):
            if "params" not in group:
                raise ctx.error(f"{groups_path}[{index}]", "needs params: a name pattern (or a list of them)")
    if lr_schedule is not None:
        lr_schedule_path = f"{path}.learning_rate"
        if arguments.get("lr") is None:
            arguments["lr"] = 1.0  # the Cerebras schedule writes absolute learning rates

    def configure(parameters):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                optimizer = configure_optimizer(cls, parameters, **arguments)
            except (TypeError, ValueError) as error:
                raise ctx.error(arguments_path, str(error)) from None
        for warning in caught:
            message = str(warning.message)
            if message.startswith(f"{cls.__name__} does not take"):  # configure_optimizer would drop them
                raise ctx.error(arguments_path, message.replace("; dropped. It accepts", "; it accepts"))
            ctx.warn(arguments_path, message)
        return optimizer

    stand_in = [torch.zeros(1, requires_grad=True)]
    if groups is None:
        configure(stand_in)  # arguments and values, checked before any model is built
    else:
        configure(
            [
                {
                    "params": [torch.zeros(1, requires_grad=True)],
                    **{k: v for k, v in g.items() if k not in ("params", "tag")},
                }
                for g in groups
            ]
            + [{"params": stand_in}]
        )

    def build(model):
        if groups is None:
            return _with_clipping(configure(model.parameters()), clip_value)
        try:
            param_groups = tagged_groups(model, groups)
        except (TypeError, ValueError) as error:
            raise ctx.error(groups_path, str(error)) from None
        return _with_clipping(configure(param_groups), clip_value)

    if lr_schedule is not None:
        build.lr_schedule = (lr_schedule, lr_schedule_path)  # type: ignore[attr-defined]
    return build


def _with_clipping(optimizer: torch.optim.Optimizer, clip_value: float | None):
    """Clip each gradient to ``[-clip_value, clip_value]`` in an optimizer step pre-hook (the trainer calls
    ``optimizer.step()`` itself; with fp16 the scaler has unscaled the gradients by then). The trainer clips
    the norm itself (``max_grad_norm``)."""
    if clip_value is None:
        return optimizer
    parameters = [p for group in optimizer.param_groups for p in group["params"]]

    def clip(_optimizer, _args, _kwargs):
        torch.nn.utils.clip_grad_value_(parameters, clip_value)

    optimizer.register_step_pre_hook(clip)
    return optimizer


# -- schedulers -----------------------------------------------------------------------------------------


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
                + "; see schedulers.registry.registered_schedulers() for every name, or give 'module:Class'",
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


# -- callbacks ------------------------------------------------------------------------------------------

_CALLBACKS = {"lrmonitor": LRMonitor, "progressbar": ProgressBar}


def _callbacks(value: Any, path: str, ctx: _Context) -> list[_Ref]:
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    found = []
    for index, item in enumerate(items):
        item_path = f"{path}[{index}]"
        if isinstance(item, dict) and "factory" in item:
            found.append(_reference(item, item_path, ctx, what="a callback", string_calls=True))
            continue
        if isinstance(item, str):
            name, arguments = item, {}
        elif isinstance(item, dict) and len(item) == 1:
            ((name, arguments),) = item.items()
            arguments = _mapping(arguments, f"{item_path}.{name}", ctx)
        else:
            raise ctx.error(
                item_path,
                f"a callback is {{Name: {{arguments}}}}, 'module:Class' or {{factory: ..., kwargs: ...}}, "
                f"got {_show(item)}",
            )
        named = f"{item_path}.{name}"
        if ":" in str(name):
            target = ctx.import_object(str(name), named)
        else:
            target = _CALLBACKS.get(str(name).lower())
            if target is None:
                close = difflib.get_close_matches(str(name).lower(), list(_CALLBACKS), n=1, cutoff=0.6)
                hint = f" (did you mean {'LRMonitor' if close == ['lrmonitor'] else 'ProgressBar'}?)" if close else ""
                raise ctx.error(
                    named,
                    f"unknown callback {name!r}{hint}; Cadence's callbacks are LRMonitor and ProgressBar, "
                    "or give 'module:Class'",
                )
        if not callable(target):
            raise ctx.error(named, f"{name} is not a class or a function")
        _check_call(target, arguments, str(name), named, ctx)
        found.append(_Ref(named, str(name), target, dict(arguments)))
    return found


def _loggers(value: Any, path: str, ctx: _Context) -> list[_Ref]:
    """``[{CSVLogger: {path: metrics.csv}}, {TensorBoardLogger: {log_dir: tb}}, "module:Class", ...]``."""
    from trainer.loggers import CSVLogger, TensorBoardLogger

    known = {"csvlogger": CSVLogger, "tensorboardlogger": TensorBoardLogger}
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    found = []
    for index, item in enumerate(items):
        item_path = f"{path}[{index}]"
        if isinstance(item, dict) and "factory" in item:
            found.append(_reference(item, item_path, ctx, what="a logger", string_calls=True))
            continue
        if isinstance(item, dict) and len(item) == 1:
            ((name, arguments),) = item.items()
        else:
            raise ctx.error(
                item_path, f"a logger is {{Name: {{arguments}}}} or {{factory: ..., kwargs: ...}}, got {_show(item)}"
            )
        named = f"{item_path}.{name}"
        arguments = _mapping(arguments, named, ctx)
        if ":" in str(name):
            target = ctx.import_object(str(name), named)
        else:
            target = known.get(str(name).lower())
            if target is None:
                raise ctx.error(
                    named,
                    f"unknown logger {name!r}; Cadence's loggers are CSVLogger and TensorBoardLogger, "
                    "or give 'module:Class'",
                )
        _check_call(target, arguments, str(name), named, ctx)
        found.append(_Ref(named, str(name), target, dict(arguments)))
    return found


# ----------------------------------------------------------------------------------------------------
# The trainer
# ----------------------------------------------------------------------------------------------------


class LossHistory(Callback):
    """Keeps the first and last losses of a run (rank 0 sees the same values as the others)."""

    def __init__(self, window: int = 10) -> None:
        self.window = window
        self.count = 0
        self.first: list[float] = []
        self.last: deque[float] = deque(maxlen=window)
        self.eval_metrics: dict[str, float] | None = None
        self.start_batch: int | None = None

    def on_fit_start(self, trainer: Any) -> None:
        self.start_batch = trainer.state.timestamp.batch.value

    def on_batch_end(self, trainer: Any, loss: float) -> None:
        self.count += 1
        if len(self.first) < self.window:
            self.first.append(loss)
        self.last.append(loss)

    def on_eval(self, trainer: Any, metrics: dict) -> None:
        self.eval_metrics = dict(metrics)


class ConfiguredTrainer(Trainer):
    """The :class:`~trainer.Trainer` a config builds: the same trainer, plus ``num_steps`` and a loss history.

    ``num_steps`` (``loop.num_steps``, ``--steps_this_run``) is how many optimizer steps one ``fit()`` takes at
    most, counted from the timestamp it starts at (after a resume); ``max_duration`` stays the horizon every
    schedule sees. ``config`` is the configuration it was built from, ``loss_history`` a :class:`LossHistory`.

    """

    def __init__(self, *args: Any, num_steps: int | None = None, config: dict | None = None, **kwargs: Any) -> None:
        self.num_steps = num_steps
        self.config = config
        self.loss_history = LossHistory()
        callbacks = kwargs.pop("callbacks", ())
        callbacks = list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]
        super().__init__(*args, callbacks=[*callbacks, self.loss_history], **kwargs)

    def fit(self, duration: Any = None) -> None:
        """Train until ``max_duration``, or until this call has taken ``num_steps`` optimizer steps."""
        if duration is None and self.num_steps is not None:
            duration = Time(self.num_steps, TimeUnit.BATCH)
        super().fit(duration)


class _Take:
    """The first ``count`` items of ``loader`` each time it is iterated (``loop.eval_steps``)."""

    def __init__(self, loader: Iterable, count: int) -> None:
        self.loader, self.count = loader, count

    def __iter__(self):
        for index, item in enumerate(self.loader):
            if index >= self.count:
                return
            yield item

    def __len__(self) -> int:
        try:
            return min(len(self.loader), self.count)  # type: ignore[arg-type]
        except TypeError:
            return self.count


def trainer_from_config(
    config: dict | str | os.PathLike,
    base_dir: str | os.PathLike | None = None,
    *,
    sources: dict[str, str] | None = None,
) -> ConfiguredTrainer:
    """Check ``config`` and build its trainer; call ``.fit()`` on the result to train.

    ``config`` is a dict in the layout of this module (or a YAML file's path, read with :func:`load_config`;
    ``base_dir`` then defaults to its folder). ``module:function`` references are imported with ``base_dir``
    (the config file's folder) and the working directory on ``sys.path``. Every mistake is a
    :class:`ConfigError` naming its key path, raised before the first batch: the structure, names, argument
    lists and imports are checked before any factory runs; the model and loaders are built next; then the
    trainer builds the optimizer and schedulers and checks them against the run (units, horizons, tokens).
    ``sources`` maps key paths to the flag that set them (the CLI fills it), to name the flag in errors.
    """
    if isinstance(config, (str, os.PathLike)):
        path = Path(config)
        config = load_config(path)
        base_dir = path.parent if base_dir is None else base_dir
    ctx = _Context(None if base_dir is None else Path(base_dir), dict(sources or {}))
    plan = _parse(config, ctx)
    optimizer_factory = plan.optimizer
    lr_schedule = getattr(optimizer_factory, "lr_schedule", None)
    entries = list(plan.schedulers)
    paths = list(plan.scheduler_paths)
    if lr_schedule is not None:  # Cerebras 1.x: optimizer.learning_rate is a schedule
        if entries:
            raise ctx.error(
                lr_schedule[1], "is a schedule, and trainer.init.schedulers is also given: give one of them"
            )
        entries.append(_configure_lr_scheduler_factory(*lr_schedule, ctx))
        paths.append(lr_schedule[1])

    seed_everything(plan.seed)  # the model's initial weights and the loaders' data follow trainer.init.seed too
    model = plan.model.build()
    if not isinstance(model, torch.nn.Module):
        raise ctx.error(plan.model.path, f"{plan.model.text} returned {type(model).__name__}, not a torch.nn.Module")
    train = plan.train.build()
    _check_iterable(train, plan.train, ctx)
    evaluation = None
    if plan.evaluation is not None:
        evaluation = plan.evaluation.build()
        _check_iterable(evaluation, plan.evaluation, ctx)
        if plan.eval_steps is not None:
            evaluation = _Take(evaluation, plan.eval_steps)
    extras = {}
    for key in ("loss_fn", "get_num_samples", "get_num_tokens"):
        ref = getattr(plan, key)
        extras[key] = None if ref is None else ref.build()
        if extras[key] is not None and not callable(extras[key]):
            raise ctx.error(ref.path, f"{ref.text} gave {type(extras[key]).__name__}, which is not callable")
    callbacks = [ref.build() for ref in plan.callbacks]

    labels = dict(plan.labels)
    try:
        trainer = ConfiguredTrainer(
            model=model,
            train_dataloader=train,
            max_duration=plan.max_duration,
            optimizer=optimizer_factory,
            schedulers=entries,
            loss_fn=extras["loss_fn"],
            scale_schedule_ratio=plan.ssr,
            step_schedulers_every_batch=True,  # everything a config builds steps once per batch (clarification 1)
            grad_accum=plan.grad_accum,
            eval_dataloader=evaluation,
            eval_interval=plan.eval_interval if evaluation is not None else None,
            device=plan.device,
            seed=plan.seed,
            callbacks=callbacks,
            save_folder=plan.checkpoint["save_folder"],
            save_interval=plan.checkpoint["save_interval"],
            load_path=plan.checkpoint["load_path"],
            autoresume=plan.checkpoint["autoresume"],
            save_num_checkpoints_to_keep=plan.checkpoint["save_num_checkpoints_to_keep"],
            load_weights_only=plan.checkpoint["load_weights_only"],
            load_strict_model_weights=plan.checkpoint["load_strict_model_weights"],
            progress_bar=plan.progress_bar and not any(isinstance(c, ProgressBar) for c in callbacks),
            get_num_samples=extras["get_num_samples"],
            get_num_tokens=extras["get_num_tokens"],
            max_grad_norm=plan.max_grad_norm,
            precision=plan.precision,
            loggers=[ref.build() for ref in plan.loggers],
            num_steps=plan.num_steps,
            config=config,
        )
    except (ConfigError, CheckpointError):
        raise
    except (TypeError, ValueError) as error:
        translated = _translate(error, labels, paths, ctx)
        if translated is None:
            raise
        raise translated from error
    return trainer


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


def _check_iterable(loader: Any, ref: _Ref, ctx: _Context) -> None:
    if not isinstance(loader, Iterable):
        raise ctx.error(
            ref.path,
            f"{ref.text} returned {type(loader).__name__}, which is not iterable (a DataLoader or a list of batches)",
        )


_LABEL = re.compile(
    r"^(schedulers\[\d+\]|(?:max_duration|eval_interval|save_interval|grad_accum|scale_schedule_ratio|seed"
    r"|the train dataloader|optimizer|max_grad_norm|precision|save_num_checkpoints_to_keep|autoresume)\b)"
)
_OWN_MODULES = ("trainer.", "schedulers.", "timeunits")


def _translate(error: Exception, labels: dict[str, str], paths: list[str], ctx: _Context) -> ConfigError | None:
    """The trainer's ``ValueError``/``TypeError`` about one of its arguments, as a ConfigError on the key path."""
    message = _one_line(str(error))

    def scheduler_path(match: re.Match) -> str:
        index = int(match.group(1))
        return ctx.where(paths[index]) if index < len(paths) else match.group(0)

    head = _LABEL.match(message)
    if head is None:
        if not _raised_by_cadence(error):
            return None  # an error in the user's own code: keep its traceback
        return ConfigError("trainer.init", re.sub(r"\bschedulers\[(\d+)\]", scheduler_path, message))
    label = head.group(1)
    if label.startswith("schedulers["):
        path = scheduler_path(re.match(r"schedulers\[(\d+)\]", label))
    else:
        path = ctx.where(labels[label])
    rest = message[head.end() :]
    if label.startswith("schedulers[") and rest.startswith(":"):
        rest = rest[1:].strip()  # "schedulers[0]: what" -> "<path>: what"
    else:
        rest = message  # the label is part of the sentence ("max_duration=5tok is ...", "... and schedulers[1] ...")
    return ConfigError(path, re.sub(r"\bschedulers\[(\d+)\]", scheduler_path, rest))


def _raised_by_cadence(error: BaseException) -> bool:
    traceback = error.__traceback__
    last = None
    while traceback is not None:
        last = traceback
        traceback = traceback.tb_next
    if last is None:
        return False
    module = last.tb_frame.f_globals.get("__name__", "")
    return module.startswith(_OWN_MODULES)


def run_summary(trainer: ConfiguredTrainer) -> str:
    """One line about a finished ``fit()``: the batches trained, the first and last losses, the last evaluation."""
    history = trainer.loss_history
    state = trainer.state
    end = state.timestamp
    start = history.start_batch if history.start_batch is not None else 0
    unit = state.max_duration.unit
    progress = f"{end.get(unit)} of {state.max_duration}" if unit is not TimeUnit.BATCH else f"of {state.max_duration}"
    parts = [f"trained batches {start}-{end.batch.value} ({history.count} this run) {progress}"]
    if history.count:
        first, last = history.first[0], history.last[-1]
        parts.append(f"loss {first:.4f} (first batch) -> {last:.4f} (last batch)")
        if history.count > 1:
            window = min(history.window, history.count)
            head = sum(history.first[:window]) / window
            tail = sum(list(history.last)[-window:]) / window
            parts.append(f"mean of the first/last {window}: {head:.4f} -> {tail:.4f}")
    if history.eval_metrics:
        parts.append(", ".join(f"{k} {v:.4f}" for k, v in history.eval_metrics.items()))
    return "; ".join(parts)
