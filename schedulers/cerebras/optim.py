"""The ``cstorch.optim`` namespace, so Cerebras code runs with only its import line changed.

``import cerebras.pytorch as cstorch`` becomes ``import schedulers.cerebras as cstorch``; then
``cstorch.optim.lr_scheduler.LinearLR``, ``cstorch.optim.weight_decay_scheduler.CosineDecayWD``,
``cstorch.optim.configure_lr_scheduler`` and ``cstorch.optim.SGD`` (torch's SGD: the same algorithm and
arguments as Cerebras's) resolve as in Cerebras. Cerebras's other optimizers (with their own defaults,
e.g. Adam's ``eps=1e-6``) are ``trainer.optim.configure_optimizer``'s job.
"""

from torch.optim import SGD

from schedulers.cerebras import lr_scheduler, weight_decay_scheduler
from schedulers.cerebras.configure import configure_lr_scheduler
from schedulers.cerebras.lr_scheduler import *  # noqa: F401,F403  (Cerebras exposes its schedulers here too)
from schedulers.cerebras.weight_decay_scheduler import *  # noqa: F401,F403

__all__ = ["SGD", "configure_lr_scheduler", "lr_scheduler", "weight_decay_scheduler"]
__all__ += lr_scheduler.__all__ + weight_decay_scheduler.__all__
