"""Optimizers by name (Cerebras's ``configure_optimizer``) and Cadence's ``Lamb`` and ``Lion``.

They sit below the front ends and the trainer (docs/architecture.md): ``cstorch.optim``
(:mod:`schedulers.cerebras.optim`) and the trainer's ``optimizer=`` (:mod:`trainer.optim` re-exports these names)
import them from here. They import nothing above :mod:`schedulers.core`.

>>> import torch
>>> from schedulers.optim import configure_optimizer
>>> opt = configure_optimizer("LION", [torch.zeros(3, requires_grad=True)], learning_rate=1e-4)
>>> type(opt).__name__, opt.defaults["betas"]
('Lion', (0.9, 0.99))
"""

from schedulers.optim.by_name import (
    CEREBRAS_DEFAULTS,
    OptimizerArgumentError,
    configure_optimizer,
    optimizer_class,
    optimizer_classes,
)
from schedulers.optim.lamb import Lamb
from schedulers.optim.lion import Lion

__all__ = [
    "CEREBRAS_DEFAULTS",
    "Lamb",
    "OptimizerArgumentError",
    "Lion",
    "configure_optimizer",
    "optimizer_class",
    "optimizer_classes",
]
