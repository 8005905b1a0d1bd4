"""``trainer.init.callbacks`` and ``trainer.init.loggers``."""

from __future__ import annotations

import difflib
from typing import Any

from trainer.callbacks import LRMonitor, ProgressBar
from trainer.config._context import _Context
from trainer.config._errors import _show
from trainer.config._references import _check_call, _Ref, _reference
from trainer.config._values import _mapping

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
