"""SambaFlow front end: its three learning-rate schedules and its command-line flags, on Cadence's kernels.

>>> import torch
>>> from schedulers.sambaflow import get_cosine_schedule_with_warmup
>>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1e-3)
>>> sched = get_cosine_schedule_with_warmup(opt, num_warmup_steps=100, num_training_steps=1000)
>>> opt.param_groups[0]["lr"]                  # warmup starts from 0
0.0

See docs/sambaflow.md for the formulas and the flags.
"""

from schedulers.families.sambaflow import SambaFlowLambda
from schedulers.sambaflow.args import LR_SCHEDULES, add_lr_schedule_args, get_lr_scheduler, steps_this_run
from schedulers.sambaflow.schedules import (
    LambdaLR,
    cosine_schedule_with_warmup,
    fixed_lr,
    get_cosine_schedule_with_warmup,
    get_fixed_lr,
    get_polynomial_decay_schedule_with_warmup,
    polynomial_decay_schedule_with_warmup,
)

__all__ = [
    "LR_SCHEDULES",
    "SambaFlowLambda",
    "LambdaLR",
    "add_lr_schedule_args",
    "cosine_schedule_with_warmup",
    "fixed_lr",
    "get_cosine_schedule_with_warmup",
    "get_fixed_lr",
    "get_lr_scheduler",
    "get_polynomial_decay_schedule_with_warmup",
    "polynomial_decay_schedule_with_warmup",
    "steps_this_run",
]
