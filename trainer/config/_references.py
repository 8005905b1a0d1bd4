"""``module:function`` and ``{factory: ..., kwargs: ...}`` references, and checking a call against a signature."""

from __future__ import annotations

import copy
import inspect
from dataclasses import dataclass, field
from typing import Any

import torch

from schedulers.core.names import did_you_mean, suggest
from trainer.config._context import _Context
from trainer.config._errors import _join, _show
from trainer.config._read import read_section
from trainer.config._schema import FACTORY
from trainer.config._values import _mapping


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
        read_section(FACTORY.at(path), value, ctx)
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
        close = [match for key in unexpected for match in suggest(key, [n for n in named if n not in filled], n=1)]
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


def _loss_reference(value: Any, path: str, ctx: _Context) -> _Ref | None:
    """``null`` (the model returns the loss), a ``torch.nn.functional`` name, ``module:function``, or a factory."""
    if value is None:
        return None
    if isinstance(value, str) and ":" not in value:
        function = getattr(torch.nn.functional, value.strip(), None)
        if function is None or not callable(function) or value.startswith("_"):
            names = [n for n in dir(torch.nn.functional) if n.endswith("loss") or n in ("cross_entropy", "nll_loss")]
            hint = did_you_mean(value, names, cutoff=0.5)
            raise ctx.error(
                path,
                f"{value!r} is not a torch.nn.functional loss{hint}; give a name such as cross_entropy, "
                "'module:function', {factory: ..., kwargs: ...}, or null when the model returns the loss",
            )
        return _Ref(path, value, function, call=False)
    return _reference(value, path, ctx, what="loss_fn", string_calls=False)
