r"""Cerebras's learning-rate schedulers (``cerebras.pytorch.optim.lr_scheduler``) with their exact signatures.

Each class writes an absolute learning rate into every targeted param group: the lr after ``k`` calls
to ``step()`` (one per optimizer step; construction is the first) is the closed form :math:`f(k)` of
its generic base in :mod:`schedulers.cerebras.closed_forms`. Every class also takes
``param_group_tags`` (Cerebras 2.x) and a keyword-only ``state`` for time-string step counts
(:mod:`schedulers.cerebras.steps`).

The classes are built from the table of :mod:`schedulers.cerebras.table`, which also builds the
weight-decay classes: the same closed forms, with the learning-rate argument names here
(``initial_learning_rate``, ``end_learning_rate``, ``learning_rates``, ``base_lr``, ``max_lr``).

>>> import torch
>>> from schedulers.cerebras import LinearLR
>>> optimizer = torch.optim.SGD([torch.zeros(2, requires_grad=True)], lr=0.1)
>>> scheduler = LinearLR(optimizer, initial_learning_rate=0.01, end_learning_rate=0.001, total_iters=3)
>>> lrs = []
>>> for _ in range(4):
...     lrs.append(round(optimizer.param_groups[0]["lr"], 6))
...     optimizer.step()
...     scheduler.step()
>>> lrs
[0.01, 0.007, 0.004, 0.001]
"""

from __future__ import annotations

from schedulers.cerebras.scheduler import HyperparameterScheduler
from schedulers.cerebras.table import Family, build_family


class LRScheduler(HyperparameterScheduler):
    """Cerebras's learning-rate scheduler base: ``LRScheduler(optimizer, total_iters, last_epoch=-1)``.

    Subclass it and override ``_get_closed_form_lr()`` (or ``_get_closed_form()``) to return the lr as a
    closed form of ``self.last_epoch`` (a 0-d int64 tensor) built from torch ops only — no Python
    branches on tensors (use ``torch.where``); loops and conditions on constants are fine. The value is
    written into ``"lr"`` of every targeted param group after each ``step()``.
    List extra step-count attributes in ``_step_arguments`` to let them take time strings too.
    """

    param_group_key = "lr"


_lr_adjustment_scalars = property(
    lambda self: self.adjustment_scalars, doc="Cerebras's name for the per-group factors (``adjustment_scalars``)."
)

_CLASSES = build_family(
    Family(
        base=LRScheduler,
        suffix="LR",
        module=__name__,
        value="learning rate",
        learning_rate_names=True,
        lambda_hook="set_lr_lambda",
        extras={"ScalePerParam": {"lr_adjustment_scalars": _lr_adjustment_scalars}},
    )
)
globals().update(_CLASSES)  # ConstantLR, PolynomialLR, ...: importable and picklable from this module


class ChainedScheduler(_CLASSES["ChainedLR"]):
    """Cerebras's (and torch's) name for :class:`ChainedLR`: ``ChainedScheduler(schedulers)``."""


__all__ = ["LRScheduler", *_CLASSES, "ChainedScheduler"]
