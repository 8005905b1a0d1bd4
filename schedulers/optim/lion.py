r"""Lion: evolved sign momentum (Chen et al., 2023).

Reference: Xiangning Chen, Chen Liang, Da Huang, Esteban Real, Kaiyuan Wang, Yao Liu, Hieu Pham,
Xuanyi Dong, Thang Luong, Cho-Jui Hsieh, Yifeng Lu, Quoc V. Le. "Symbolic Discovery of Optimization
Algorithms", NeurIPS 2023, arXiv:2302.06675 (Program 1 / Algorithm 2).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch

from schedulers.optim._shared import ParameterwiseOptimizer, check_betas, check_lr, check_nonnegative

__all__ = ["Lion"]


class Lion(ParameterwiseOptimizer):
    r"""Lion (Chen et al., 2023, arXiv:2302.06675): the sign of an interpolated momentum, decoupled weight decay.

    For each parameter :math:`w` with gradient :math:`g` and momentum :math:`m` (zero at the start):

    .. math::
        c &= \beta_1 m + (1 - \beta_1)\,g, \qquad u = \operatorname{sign}(c) \\
        w &\leftarrow w - \eta\,(u + \lambda\,w) \\
        m &\leftarrow \beta_2 m + (1 - \beta_2)\,g

    (:math:`\eta` = ``lr``, :math:`\lambda` = ``weight_decay``; the decay uses :math:`w` before the step.)
    Same arguments and defaults as Cerebras's ``Lion``: ``lr=1e-4``, ``betas=(0.9, 0.99)``,
    ``weight_decay=0.0``. The paper advises a learning rate 3-10x smaller than AdamW's and a weight decay
    3-10x larger, since every coordinate of the sign update has magnitude 1.

    Args:
        params: parameters or param-group dicts.
        lr: learning rate :math:`\eta` (a float or a tensor; default 1e-4).
        betas: :math:`(\beta_1, \beta_2)`: the interpolation of the update and the momentum's decay
            (default (0.9, 0.99)).
        weight_decay: decoupled weight decay :math:`\lambda` (default 0).

    Returns:
        The optimizer; :meth:`step` updates the parameters.

    Raises:
        ValueError: A negative ``lr`` or ``weight_decay``, or ``betas`` not a pair in [0, 1), naming it.

    >>> w = torch.nn.Parameter(torch.tensor([1.0, -2.0, 0.5]))
    >>> opt = Lion([w], lr=0.1)
    >>> w.grad = torch.tensor([0.3, -0.1, 0.0])
    >>> opt.step()
    >>> w.detach()
    tensor([ 0.9000, -1.9000,  0.5000])
    """

    def __init__(
        self,
        params: Iterable[torch.Tensor] | Iterable[dict[str, Any]],
        lr: float | torch.Tensor = 1e-4,
        betas: tuple[float, float] = (0.9, 0.99),
        weight_decay: float = 0.0,
    ) -> None:
        check_lr(lr)
        check_betas(betas)
        check_nonnegative("weight_decay", weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), weight_decay=weight_decay))

    def _update(self, p: torch.Tensor, grad: torch.Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        lr, weight_decay = group["lr"], group["weight_decay"]
        if not state:
            state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        exp_avg = state["exp_avg"]

        update = torch.sign(exp_avg * beta1 + grad * (1 - beta1))
        if weight_decay != 0:
            update = update + weight_decay * p
        p.sub_(update * lr)
        exp_avg.mul_(beta2).add_(grad, alpha=1 - beta2)
