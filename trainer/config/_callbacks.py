"""``trainer.init.callbacks`` and ``trainer.init.loggers``: Cadence's by name, or ``module:Class``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from schedulers.core.names import did_you_mean
from trainer.config._context import _Context
from trainer.config._errors import _show
from trainer.config._references import _check_call, _Ref, _reference
from trainer.config._values import _mapping, check_output


@dataclass(frozen=True)
class _Kind:
    """What a list of named items holds: Cadence's names, their arguments that are paths Cadence writes
    (``True``: a folder, ``False``: a file), and the forms an item takes (for the error)."""

    what: str
    known: tuple[str, ...]  # "module:Class" names
    outputs: dict[str, dict[str, bool]]
    forms: str
    bare_names: bool  # whether an item may be just a name


_CALLBACKS = _Kind(
    "callback",
    ("trainer.callbacks:LRMonitor", "trainer.callbacks:ProgressBar"),
    {"LRMonitor": {"csv_path": False}},
    "{Name: {arguments}}, 'module:Class' or {factory: ..., kwargs: ...}",
    True,
)
_LOGGERS = _Kind(
    "logger",
    ("trainer.loggers:CSVLogger", "trainer.loggers:TensorBoardLogger"),
    {"CSVLogger": {"path": False, "hparams_path": False}, "TensorBoardLogger": {"log_dir": True}},
    "{Name: {arguments}} or {factory: ..., kwargs: ...}",
    False,
)


def _callbacks(value: Any, path: str, ctx: _Context) -> list[_Ref]:
    """``[LRMonitor: {csv_path: lr.csv}, ProgressBar, "module:Class", {factory, kwargs}, ...]``."""
    return _items(value, path, ctx, _CALLBACKS)


def _loggers(value: Any, path: str, ctx: _Context) -> list[_Ref]:
    """``[{CSVLogger: {path: metrics.csv}}, {TensorBoardLogger: {log_dir: tb}}, {"module:Class": {...}}, ...]``."""
    return _items(value, path, ctx, _LOGGERS)


def _items(value: Any, path: str, ctx: _Context, kind: _Kind) -> list[_Ref]:
    if value is None:
        return []
    found = []
    for index, item in enumerate(value if isinstance(value, list) else [value]):
        item_path = f"{path}[{index}]"
        if isinstance(item, dict) and "factory" in item:
            found.append(_reference(item, item_path, ctx, what=f"a {kind.what}", string_calls=True))
        elif isinstance(item, str) and kind.bare_names:
            found.append(_named(item, {}, item_path, ctx, kind))
        elif isinstance(item, dict) and len(item) == 1:
            ((name, arguments),) = item.items()
            found.append(_named(name, _mapping(arguments, f"{item_path}.{name}", ctx), item_path, ctx, kind))
        else:
            raise ctx.error(item_path, f"a {kind.what} is {kind.forms}, got {_show(item)}")
    return found


def _named(name: Any, arguments: dict, item_path: str, ctx: _Context, kind: _Kind) -> _Ref:
    named = f"{item_path}.{name}"
    if ":" in str(name):
        target = ctx.import_object(str(name), named)
    else:
        target = _known(str(name), named, ctx, kind)
    if not callable(target):
        raise ctx.error(named, f"{name} is not a class or a function")
    _check_call(target, arguments, str(name), named, ctx)
    for argument, folder in kind.outputs.get(getattr(target, "__name__", ""), {}).items():
        if arguments.get(argument) is not None:
            check_output(arguments[argument], f"{named}.{argument}", ctx, folder=folder)
    return _Ref(named, str(name), target, dict(arguments))


def _known(name: str, path: str, ctx: _Context, kind: _Kind) -> Any:
    names = {reference.split(":")[1]: reference for reference in kind.known}
    for short, reference in names.items():
        if short.lower() == name.lower():
            return ctx.import_object(reference, path)
    raise ctx.error(
        path,
        f"unknown {kind.what} {name!r}{did_you_mean(name, names)}; Cadence's {kind.what}s are "
        f"{' and '.join(names)}, or give 'module:Class'",
    )
