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

from schedulers.core.schedule_arguments import choice_argument

__all__ = ["PRECISIONS", "Precision"]

PRECISIONS = {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}


class Precision:
    """The autocast context, the backward pass and the optimizer step for one ``precision``.

    Args:
        precision: ``"fp32"``, ``"bf16"`` or ``"fp16"``.
        device: The device the model trains on (autocast and the fp16 scaler are for its type).

    Returns:
        The trainer's precision: :meth:`autocast` around the forward pass, :meth:`backward`, :meth:`step`.

    Raises:
        ValueError: ``precision`` is none of the three.

    >>> import torch
    >>> precision = Precision("bf16", torch.device("cpu"))
    >>> with precision.autocast():
    ...     product = torch.ones(2, 2) @ torch.ones(2, 2)
    >>> product.dtype, precision.state_dict()
    (torch.bfloat16, {'precision': 'bf16', 'scaler': None})
    """

    def __init__(self, precision: str, device: torch.device) -> None:
        self.name = choice_argument("precision", precision, tuple(PRECISIONS))
        self.device_type = device.type
        self.dtype = PRECISIONS[precision]
        self.scaler = torch.amp.GradScaler(device.type) if precision == "fp16" else None

    def autocast(self) -> contextlib.AbstractContextManager:
        """The context of the forward pass.

        Returns:
            ``torch.autocast`` in the precision's dtype, or a context that does nothing for fp32.
        """
        if self.dtype is None:
            return contextlib.nullcontext()
        return torch.autocast(device_type=self.device_type, dtype=self.dtype)

    def backward(self, loss: torch.Tensor) -> None:
        """The backward pass of ``loss``, scaled by the fp16 scaler when there is one.

        Args:
            loss: The batch's loss (a 0-d tensor).
        """
        (loss if self.scaler is None else self.scaler.scale(loss)).backward()

    def unscale(self, optimizer: torch.optim.Optimizer) -> None:
        """Bring the gradients back to their true scale (before clipping them); nothing without a scaler.

        Args:
            optimizer: The optimizer whose gradients are unscaled.
        """
        if self.scaler is not None:
            self.scaler.unscale_(optimizer)

    def step(self, optimizer: torch.optim.Optimizer) -> bool:
        """Step the optimizer; False when the scaler skipped the step because of inf/nan gradients.

        Args:
            optimizer: The optimizer to step.

        Returns:
            True when the optimizer stepped; False when the fp16 scaler skipped it (the batch is then no
            optimizer step: the trainer does not advance time for it).
        """
        if self.scaler is None:
            optimizer.step()
            return True
        scale = self.scaler.get_scale()
        self.scaler.step(optimizer)
        self.scaler.update()
        return self.scaler.get_scale() >= scale  # the scale only shrinks after a skipped step

    def state_dict(self) -> dict[str, Any]:
        """The precision's state, for a checkpoint.

        Returns:
            ``{"precision": name, "scaler": the fp16 scaler's state_dict() or None}``.
        """
        return {"precision": self.name, "scaler": None if self.scaler is None else self.scaler.state_dict()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore the fp16 scaler's state from a checkpoint (nothing to restore otherwise).

        Args:
            state: What :meth:`state_dict` returned.
        """
        if self.scaler is not None and state.get("scaler"):
            self.scaler.load_state_dict(state["scaler"])
