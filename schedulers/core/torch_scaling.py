"""``scale_pytorch_scheduler``: apply a scale schedule ratio to a step-indexed torch scheduler in place.

Composer's rules, with deviation 2's rounding: every step-count argument becomes ``n · ssr`` as a whole
count (:func:`~timeunits.whole_count`: the nearest integer within ``1e-9`` relative, else truncated, so
``100 · 0.29`` is 29 where Composer's ``int()`` gives 28; docs/composer-deviations.md), the rule every
Cadence schedule follows; ``ExponentialLR``'s ``gamma`` becomes ``gamma ** (1 / ssr)`` so the same total
decay happens over the scaled run. Cadence also scales
``LinearLR``, ``ConstantLR`` and ``PolynomialLR`` (``total_iters``) and SambaFlow's ``LambdaLR`` schedules
(whose multipliers have a ``scaled(ssr)`` method), keeps repeated ``MultiStepLR``
milestones (Composer's rebuild drops their multiplicity), makes ``CosineAnnealingWarmRestarts`` really
restart at the scaled period (torch reads ``T_i``, which Composer leaves unscaled), and raises a
ValueError naming the argument when a count truncates to 0 (torch would divide by zero at ``step()``).
"""

from __future__ import annotations

from collections import Counter

from torch.optim import lr_scheduler as torch_schedulers

from schedulers.core.resolution import whole_count
from schedulers.core.schedule_arguments import number_argument

__all__ = ["scale_pytorch_scheduler"]


def scale_pytorch_scheduler(scheduler: torch_schedulers.LRScheduler, ssr: float) -> None:
    """Scale ``scheduler``'s step counts by ``ssr`` in place (a no-op at ``ssr = 1``).

    A step count :math:`n` becomes the whole count of :math:`n \\cdot \\mathrm{ssr}`;
    ``ExponentialLR``'s :math:`\\gamma` becomes :math:`\\gamma^{1/\\mathrm{ssr}}` (the module docstring
    lists every scheduler and rule).

    Args:
        scheduler: A torch ``StepLR``, ``MultiStepLR``, ``CosineAnnealingLR``, ``CosineAnnealingWarmRestarts``,
            ``ExponentialLR``, ``LinearLR``, ``ConstantLR``, ``PolynomialLR``, or a SambaFlow ``LambdaLR``.
        ssr: The scale schedule ratio, a finite number > 0.

    Returns:
        None: ``scheduler`` is changed in place.

    Raises:
        ValueError: ``ssr`` not a finite number > 0, a scheduler of another kind, or a step count that
            scales to 0 (naming the argument).

    >>> import torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> step = torch.optim.lr_scheduler.StepLR(opt, step_size=10)
    >>> scale_pytorch_scheduler(step, 0.5); step.step_size
    5
    """
    ssr = number_argument("scale_schedule_ratio", ssr, low=0.0, low_open=True)
    if ssr == 1.0:
        return
    name = type(scheduler).__name__
    if isinstance(scheduler, torch_schedulers.StepLR):
        scheduler.step_size = _scaled(name, "step_size", scheduler.step_size, ssr)
    elif isinstance(scheduler, torch_schedulers.MultiStepLR):
        scheduler.milestones = Counter(whole_count(m * ssr) for m in scheduler.milestones.elements())
    elif isinstance(scheduler, torch_schedulers.CosineAnnealingLR):
        scheduler.T_max = _scaled(name, "T_max", scheduler.T_max, ssr)
    elif isinstance(scheduler, torch_schedulers.CosineAnnealingWarmRestarts):
        scheduler.T_0 = _scaled(name, "T_0", scheduler.T_0, ssr)
        scheduler.T_i = _scaled(name, "T_i", scheduler.T_i, ssr)
    elif isinstance(scheduler, torch_schedulers.ExponentialLR):
        scheduler.gamma = scheduler.gamma ** (1.0 / ssr)
    elif isinstance(scheduler, (torch_schedulers.LinearLR, torch_schedulers.ConstantLR, torch_schedulers.PolynomialLR)):
        scheduler.total_iters = _scaled(name, "total_iters", scheduler.total_iters, ssr)
    elif isinstance(scheduler, torch_schedulers.LambdaLR) and all(hasattr(f, "scaled") for f in scheduler.lr_lambdas):
        # SambaFlow's schedules: their multipliers know their own step counts
        scheduler.lr_lambdas = [f.scaled(ssr) for f in scheduler.lr_lambdas]
    else:
        raise ValueError(
            f"scale_schedule_ratio={ssr} cannot be applied to {name}: Cadence scales StepLR, MultiStepLR, "
            "CosineAnnealingLR, CosineAnnealingWarmRestarts, ExponentialLR, LinearLR, ConstantLR and PolynomialLR; "
            "write the schedule as a Cadence schedule (times in ba/ep/dur) to scale it"
        )


def _scaled(scheduler: str, argument: str, count: int, ssr: float) -> int:
    scaled = whole_count(count * ssr)
    if scaled <= 0:
        raise ValueError(
            f"{scheduler}.{argument}={count} scaled by scale_schedule_ratio={ssr} truncates to {scaled}; "
            "it must stay at least 1"
        )
    return scaled
