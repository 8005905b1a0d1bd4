"""Mixed precision for the trainer: autocast for the forward pass, a gradient scaler for fp16.

``precision="fp32"`` changes nothing; ``"bf16"`` runs the forward pass under ``torch.autocast`` in
bfloat16 (CPU and CUDA); ``"fp16"`` does the same in float16 and scales the loss with
``torch.amp.GradScaler``. A step the scaler skips (inf/nan gradients) is not an optimizer step, so the
trainer does not advance its batch count or its schedules for it.
"""

from __future__ import annotations

import contextlib
from typing import Any

import torch

__all__ = ["PRECISIONS", "Precision"]

PRECISIONS = {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}


class Precision:
    """The autocast context, the backward pass and the optimizer step for one ``precision``."""

    def __init__(self, precision: str, device: torch.device) -> None:
        if precision not in PRECISIONS:
            raise ValueError(f"precision={precision!r} must be one of {', '.join(map(repr, PRECISIONS))}")
        self.name = precision
        self.device_type = device.type
        self.dtype = PRECISIONS[precision]
        self.scaler = torch.amp.GradScaler(device.type) if precision == "fp16" else None

    def autocast(self) -> contextlib.AbstractContextManager:
        if self.dtype is None:
            return contextlib.nullcontext()
        return torch.autocast(device_type=self.device_type, dtype=self.dtype)

    def backward(self, loss: torch.Tensor) -> None:
        (loss if self.scaler is None else self.scaler.scale(loss)).backward()

    def unscale(self, optimizer: torch.optim.Optimizer) -> None:
        """Bring the gradients back to their true scale (before clipping them)."""
        if self.scaler is not None:
            self.scaler.unscale_(optimizer)

    def step(self, optimizer: torch.optim.Optimizer) -> bool:
        """Step the optimizer; False when the scaler skipped the step because of inf/nan gradients."""
        if self.scaler is None:
            optimizer.step()
            return True
        scale = self.scaler.get_scale()
        self.scaler.step(optimizer)
        self.scaler.update()
        return self.scaler.get_scale() >= scale  # the scale only shrinks after a skipped step

    def state_dict(self) -> dict[str, Any]:
        return {"precision": self.name, "scaler": None if self.scaler is None else self.scaler.state_dict()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if self.scaler is not None and state.get("scaler"):
            self.scaler.load_state_dict(state["scaler"])
