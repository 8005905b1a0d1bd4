"""Cerebras-style schedulers on Cadence: ``cerebras.pytorch.optim.lr_scheduler`` and the weight-decay schedulers.

Each schedule is a frozen value, a closed form of the optimizer step (:mod:`schedulers.families.cerebras`, written
once through :mod:`schedulers.core.kernels`), which one scheduler writes into the learning rate or the weight
decay (:class:`HyperparameterScheduler`, a ``torch.optim.lr_scheduler.LRScheduler``); the classes have
Cerebras's names and signatures. Step-count arguments
also take time strings (``"1000ba"``, ``"2ep"``, ``"0.1dur"``); see docs/cerebras.md.

>>> import torch
>>> import schedulers.cerebras as cstorch
>>> optimizer = cstorch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.01)
>>> scheduler = cstorch.optim.lr_scheduler.CosineDecayLR(
...     optimizer, initial_learning_rate=0.01, end_learning_rate=0.001, total_iters=100
... )
>>> round(optimizer.param_groups[0]["lr"], 12)
0.01
"""

from schedulers.cerebras import lr_scheduler, optim, weight_decay_scheduler
from schedulers.cerebras.configure import configure_lr_scheduler
from schedulers.cerebras.lr_scheduler import *  # noqa: F403  (the learning-rate classes, as in cerebras.pytorch)
from schedulers.cerebras.scheduler import HyperparameterScheduler
from schedulers.cerebras.weight_decay_scheduler import *  # noqa: F403  (the weight-decay classes)
from schedulers.families.cerebras import StepArgumentError

__all__ = [
    "HyperparameterScheduler",
    "StepArgumentError",
    "configure_lr_scheduler",
    "lr_scheduler",
    "optim",
    "weight_decay_scheduler",
]
__all__ += lr_scheduler.__all__
__all__ += weight_decay_scheduler.__all__
