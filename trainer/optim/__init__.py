"""Optimizers by name (Cerebras's ``configure_optimizer``) and Cadence's ``Lamb`` and ``Lion``.

>>> import torch
>>> from trainer.optim import configure_optimizer
>>> opt = configure_optimizer("LION", [torch.zeros(3, requires_grad=True)], learning_rate=1e-4)
>>> type(opt).__name__, opt.defaults["betas"]
('Lion', (0.9, 0.99))
"""

from trainer.optim.configure import (
    CEREBRAS_DEFAULTS,
    OptimizerArgumentError,
    configure_optimizer,
    optimizer_class,
    optimizer_classes,
)
from trainer.optim.lamb import Lamb
from trainer.optim.lion import Lion

__all__ = [
    "CEREBRAS_DEFAULTS",
    "Lamb",
    "OptimizerArgumentError",
    "Lion",
    "configure_optimizer",
    "optimizer_class",
    "optimizer_classes",
]
