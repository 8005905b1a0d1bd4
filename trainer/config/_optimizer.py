"""``trainer.init.optimizer``: the optimizer (and its param groups), checked now and built on the model later."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from trainer.config._context import _Context
from trainer.config._errors import _join, _show
from trainer.config._read import read_section
from trainer.config._references import _check_call, _Ref
from trainer.config._schema import FACTORY
from trainer.config._values import _mapping


@dataclass
class _OptimizerSpec:
    cls: type
    arguments: dict  # for configure_optimizer, without params
    path: str  # the key path of the arguments (trainer.init.optimizer.SGD)
    groups: list | None  # Cerebras-style param groups by name pattern
    lr_schedule: tuple[Any, str] | None  # Cerebras 1.x: (learning_rate schedule, its key path)


def _optimizer(value: Any, path: str, ctx: _Context, clip_value: float | None):
    """A callable ``model -> optimizer`` for the trainer (built after the model is on its device).

    The arguments and their values are checked now, on a stand-in parameter, before any model is built.
    ``params`` (Cerebras style) is a list of param groups chosen by name patterns
    (:func:`trainer.param_groups.tagged_groups`): ``[{params: "*.bias", tag: no_decay, weight_decay: 0.0}]``.
    A Cerebras 1.x ``learning_rate`` schedule is left on the result as ``lr_schedule``.
    """
    if isinstance(value, dict) and "factory" in value:
        return _factory(value, path, ctx, clip_value)
    spec = _spec(value, path, ctx)
    stand_in = [torch.zeros(1, requires_grad=True)]
    if spec.groups is None:
        _configure(spec, stand_in, ctx)  # arguments and values, checked before any model is built
    else:
        options = [{k: v for k, v in g.items() if k not in ("params", "tag")} for g in spec.groups]
        groups = [{"params": [torch.zeros(1, requires_grad=True)], **o} for o in options]
        _configure(spec, [*groups, {"params": stand_in}], ctx)

    def build(model: torch.nn.Module) -> torch.optim.Optimizer:
        return _with_clipping(_configure(spec, _parameters(spec, model, ctx), ctx), clip_value)

    build.lr_schedule = spec.lr_schedule  # type: ignore[attr-defined]
    return build


def _factory(value: dict, path: str, ctx: _Context, clip_value: float | None):
    """``{factory: "module:function", kwargs: {...}}``, called as ``factory(model, **kwargs)``."""
    read_section(FACTORY.at(path), value, ctx)
    if not isinstance(value["factory"], str):
        raise ctx.error(_join(path, "factory"), f"must be 'module:function', got {_show(value['factory'])}")
    kwargs = dict(_mapping(value.get("kwargs"), _join(path, "kwargs"), ctx))
    target = ctx.import_object(value["factory"], _join(path, "factory"))
    if not callable(target):
        raise ctx.error(_join(path, "factory"), f"{value['factory']!r} is not callable")
    _check_call(target, kwargs, value["factory"], path, ctx, leading=("model",))
    factory = _Ref(path, value["factory"], target, kwargs)

    def build(model: torch.nn.Module) -> torch.optim.Optimizer:
        optimizer = factory.target(model, **factory.kwargs)
        if not isinstance(optimizer, torch.optim.Optimizer):
            raise ctx.error(path, f"{factory.text} returned {type(optimizer).__name__}, not a torch optimizer")
        return _with_clipping(optimizer, clip_value)

    build.lr_schedule = None  # type: ignore[attr-defined]
    return build


def _spec(value: Any, path: str, ctx: _Context) -> _OptimizerSpec:
    """``Name``, ``{Name: {arguments}}`` or Cerebras 1.x ``{optimizer_type: Name, learning_rate: ..., ...}``."""
    from trainer.optim import optimizer_class

    lr_schedule = None
    if isinstance(value, str):
        name, arguments, name_path, arguments_path = value, {}, path, path
    elif isinstance(value, dict) and "optimizer_type" in value:
        arguments = dict(value)
        name, name_path, arguments_path = arguments.pop("optimizer_type"), f"{path}.optimizer_type", path
        if not isinstance(name, str):
            raise ctx.error(name_path, f"must be an optimizer name such as SGD or AdamW, got {_show(name)}")
        if isinstance(arguments.get("learning_rate"), (dict, list)):
            lr_schedule = (arguments.pop("learning_rate"), f"{path}.learning_rate")
            arguments.setdefault("lr", 1.0)  # the Cerebras schedule writes absolute learning rates
    elif isinstance(value, dict) and len(value) == 1:
        ((name, arguments),) = value.items()
        name_path = arguments_path = f"{path}.{name}"
        arguments = dict(_mapping(arguments, name_path, ctx))
    else:
        raise ctx.error(path, f"must name one optimizer, e.g. {{SGD: {{lr: 0.01}}}}, got {_show(value)}")
    try:
        cls = optimizer_class(str(name))
    except ValueError as error:
        raise ctx.error(name_path, str(error)) from None
    if not all(isinstance(key, str) for key in arguments):
        raise ctx.error(arguments_path, f"argument names must be strings, got {list(arguments)!r}")
    groups = _groups(arguments.pop("params", None), f"{arguments_path}.params", ctx)
    return _OptimizerSpec(cls, arguments, arguments_path, groups, lr_schedule)


def _groups(groups: Any, path: str, ctx: _Context) -> list | None:
    if groups is None:
        return None
    groups = [groups] if isinstance(groups, dict) else groups
    if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
        raise ctx.error(path, f"must be a list of {{params: PATTERN, tag: TAG, ...options}}, got {_show(groups)}")
    for index, group in enumerate(groups):
        if "params" not in group:
            raise ctx.error(f"{path}[{index}]", "needs params: a name pattern (or a list of them)")
    return groups


def _configure(spec: _OptimizerSpec, parameters: Any, ctx: _Context) -> torch.optim.Optimizer:
    from trainer.optim import OptimizerArgumentError, configure_optimizer

    try:
        return configure_optimizer(spec.cls, parameters, **spec.arguments)
    except OptimizerArgumentError as error:
        raise ctx.error(f"{spec.path}.{error.argument}", f"{error.problem}, got {error.value!r}") from None
    except (TypeError, ValueError) as error:
        raise ctx.error(spec.path, str(error)) from None


def _parameters(spec: _OptimizerSpec, model: torch.nn.Module, ctx: _Context) -> Any:
    from trainer.param_groups import tagged_groups

    if spec.groups is None:
        return model.parameters()
    try:
        return tagged_groups(model, spec.groups)
    except (TypeError, ValueError) as error:
        raise ctx.error(f"{spec.path}.params", str(error)) from None


def _with_clipping(optimizer: torch.optim.Optimizer, clip_value: float | None) -> torch.optim.Optimizer:
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
