"""``trainer.init.optimizer``: the optimizer (and its param groups), checked now and built on the model later."""

from __future__ import annotations

import difflib
import warnings
from typing import Any

import torch

from trainer.config._context import _Context
from trainer.config._errors import _join, _show
from trainer.config._references import _check_call, _Ref
from trainer.config._values import _check_keys, _mapping


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
