"""``trainer.init.precision``: the trainer's precision and gradient clipping."""

from __future__ import annotations

from typing import Any

from trainer.config._context import _Context
from trainer.config._read import read_section
from trainer.config._schema import FP16_TYPES, PRECISION


def _precision(value: Any, ctx: _Context) -> tuple[str, float | None, float | None]:
    """``(precision, max_grad_norm, max_gradient_value)`` from ``trainer.init.precision``.

    A string is the trainer's precision (``fp32``, ``bf16``, ``fp16``). A mapping is Cerebras's: ``enabled: true``
    turns on mixed precision in ``fp16_type`` (``float16`` → ``fp16``, ``bfloat16`` → ``bf16``; Cerebras's
    ``cbfloat16`` → ``bf16``, with a warning); ``max_gradient_norm`` and ``max_gradient_value`` clip gradients;
    the loss-scaling settings are warnings.
    """
    from trainer.precision import PRECISIONS

    path = PRECISION.path
    if value is None:
        return "fp32", None, None
    if isinstance(value, str):
        if value not in PRECISIONS:
            raise ctx.error(path, f"{value!r} is not a precision: give one of {', '.join(PRECISIONS)}")
        return value, None, None
    given = read_section(PRECISION, value, ctx)
    kind = given["fp16_type"]
    name = "fp32"
    if given["enabled"]:
        name = FP16_TYPES[kind or "float16"]
        if kind == "cbfloat16":
            ctx.warn(f"{path}.fp16_type", "cbfloat16 is Cerebras hardware's format; Cadence uses bfloat16 (bf16)")
    elif kind is not None:
        ctx.warn(f"{path}.fp16_type", "has no effect without enabled: true")
    return name, given["max_gradient_norm"], given["max_gradient_value"]
