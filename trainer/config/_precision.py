"""``trainer.init.precision``: the trainer's precision and gradient clipping."""

from __future__ import annotations

from typing import Any

from trainer.config._context import _Context
from trainer.config._errors import _show
from trainer.config._keys import _PRECISION_IGNORED, _PRECISION_KEYS
from trainer.config._values import _bool, _check_keys, _mapping, _number

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
