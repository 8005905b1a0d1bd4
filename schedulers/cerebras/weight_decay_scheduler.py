r"""Cerebras 2.x's weight-decay schedulers (``cerebras.pytorch.optim.weight_decay_scheduler``).

The same closed forms as the learning-rate classes (:mod:`schedulers.cerebras.closed_forms`), built
from the same table (:mod:`schedulers.cerebras.table`), with Cerebras 2.x's generic argument names
(``val``, ``initial_val``, ``end_val``, ``vals``, ``base_val``, ``max_val``), writing ``"weight_decay"``
into every targeted param group. With ``param_group_tags`` they touch only the tagged groups
(typically: decay the weights, not the biases and norms).

>>> import torch
>>> from schedulers.cerebras import CosineDecayWD
>>> w, b = torch.zeros(2, requires_grad=True), torch.zeros(1, requires_grad=True)
>>> optimizer = torch.optim.AdamW(
...     [{"params": [w], "tags": "decay"}, {"params": [b], "weight_decay": 0.0}], weight_decay=0.1
... )
>>> scheduler = CosineDecayWD(optimizer, initial_val=0.1, end_val=0.0, total_iters=10, param_group_tags="decay")
>>> for _ in range(5):
...     optimizer.step()
...     scheduler.step()
>>> [round(group["weight_decay"], 6) for group in optimizer.param_groups]
[0.05, 0.0]
"""

from __future__ import annotations

from schedulers.cerebras.scheduler import HyperparameterScheduler
from schedulers.cerebras.table import Family, build_family


class WeightDecayScheduler(HyperparameterScheduler):
    """Base of the weight-decay schedulers: writes ``"weight_decay"``. Subclass it like ``LRScheduler``."""

    param_group_key = "weight_decay"


#: Cerebras's later name for :class:`WeightDecayScheduler`
WDScheduler = WeightDecayScheduler

_CLASSES = build_family(
    Family(base=WeightDecayScheduler, suffix="WD", module=__name__, value="weight decay", learning_rate_names=False)
)
globals().update(_CLASSES)  # ConstantWD, PolynomialWD, ...: importable and picklable from this module

__all__ = ["WDScheduler", "WeightDecayScheduler", *_CLASSES]
