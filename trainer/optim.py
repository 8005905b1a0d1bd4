"""The optimizers the trainer builds by name: :mod:`schedulers.optim`'s names, re-exported here.

Optimizers live below both front ends and the trainer (docs/architecture.md), in :mod:`schedulers.optim`;
``trainer.optim.configure_optimizer``, ``trainer.optim.Lamb`` and ``trainer.optim.Lion`` are the same objects.

>>> import torch
>>> from trainer.optim import configure_optimizer
>>> opt = configure_optimizer("LION", [torch.zeros(3, requires_grad=True)], learning_rate=1e-4)
>>> type(opt).__name__, opt.defaults["betas"]
('Lion', (0.9, 0.99))
"""

from schedulers.optim import (
    CEREBRAS_DEFAULTS,
    Lamb,
    Lion,
    OptimizerArgumentError,
    configure_optimizer,
    optimizer_class,
    optimizer_classes,
)

__all__ = [
    "CEREBRAS_DEFAULTS",
    "Lamb",
    "Lion",
    "OptimizerArgumentError",
    "configure_optimizer",
    "optimizer_class",
    "optimizer_classes",
]
