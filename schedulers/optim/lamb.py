r"""LAMB: layer-wise adaptive moments (You et al., 2019).

Reference: Yang You, Jing Li, Sashank Reddi, Jonathan Hseu, Sanjiv Kumar, Srinadh Bhojanapalli,
Xiaodan Song, James Demmel, Kurt Keutzer, Cho-Jui Hsieh. "Large Batch Optimization for Deep Learning:
Training BERT in 76 minutes", ICLR 2020, arXiv:1904.00962 (Algorithm 2).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch

from schedulers.optim._shared import ParameterwiseOptimizer, check_betas, check_lr, check_nonnegative

__all__ = ["Lamb"]


class Lamb(ParameterwiseOptimizer):
    r"""LAMB (You et al., 2019, arXiv:1904.00962): Adam moments, decoupled weight decay, layer-wise trust ratio.

    For each parameter tensor :math:`w` with gradient :math:`g`, at step :math:`t = 1, 2, \dots`:

    .. math::
        m_t &= \beta_1 m_{t-1} + (1 - \beta_1)\,g, \qquad v_t = \beta_2 v_{t-1} + (1 - \beta_2)\,g^2 \\
        \hat m_t &= m_t / (1 - \beta_1^t), \qquad \hat v_t = v_t / (1 - \beta_2^t) \\
        u_t &= \frac{\hat m_t}{\sqrt{\hat v_t} + \epsilon} + \lambda\,w \\
        \phi_t &= \begin{cases}
            \lVert w \rVert / \lVert u_t \rVert & \lVert w \rVert > 0 \text{ and } \lVert u_t \rVert > 0 \\
            1 & \text{otherwise}
        \end{cases} \\
        w &\leftarrow w - \eta\,\phi_t\,u_t

    (norms are Frobenius norms over the whole tensor, :math:`\lambda` = ``weight_decay``, :math:`\eta` = ``lr``).
    ``adam=True`` fixes :math:`\phi_t = 1`, which is AdamW (Adam when ``weight_decay=0``), for comparisons.

    Differences from Cerebras's ``cerebras.pytorch.optim.Lamb`` (same argument names and defaults):
    Cerebras follows the paper's v3 text and does **not** bias-correct the moments (it uses
    :math:`m_t / (\sqrt{v_t} + \epsilon)`), and it clips :math:`\lVert w \rVert` to ``[0, 10]``; Cadence
    applies Adam's bias correction and does not clip. The two agree once :math:`\beta^t \approx 0` only up
    to that clipping.

    Args:
        params: parameters or param-group dicts.
        lr: learning rate :math:`\eta` (a float or a tensor; default 1e-3).
        betas: :math:`(\beta_1, \beta_2)` (default (0.9, 0.999)).
        eps: added to :math:`\sqrt{\hat v_t}` (default 1e-6, Cerebras's).
        weight_decay: decoupled weight decay :math:`\lambda`, added into the update before the trust ratio
            (default 0).
        adam: use trust ratio 1 (default False).

    Returns:
        The optimizer; :meth:`step` updates the parameters.

    Raises:
        ValueError: A negative ``lr``, ``eps`` or ``weight_decay``, or ``betas`` not a pair in [0, 1), naming it.

    >>> w = torch.nn.Parameter(torch.tensor([3.0, 4.0], dtype=torch.float64))
    >>> opt = Lamb([w], lr=0.1)
    >>> w.grad = torch.tensor([1.0, -1.0], dtype=torch.float64)
    >>> opt.step()
    >>> w.detach()   # the update is ±1 with norm √2; trust ratio 5/√2 → a step of 0.1·5/√2 per element
    tensor([2.6464, 4.3536], dtype=torch.float64)
    """

    def __init__(
        self,
        params: Iterable[torch.Tensor] | Iterable[dict[str, Any]],
        lr: float | torch.Tensor = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-6,
        weight_decay: float = 0.0,
        adam: bool = False,
    ) -> None:
        check_lr(lr)
        check_betas(betas)
        check_nonnegative("eps", eps)
        check_nonnegative("weight_decay", weight_decay)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, adam=bool(adam))
        super().__init__(params, defaults)

    def _update(self, p: torch.Tensor, grad: torch.Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        if not state:
            # step on the CPU as a float32 tensor, like torch's non-capturable Adam
            state["step"] = torch.tensor(0.0, dtype=torch.float32)
            state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        state["step"] += 1
        t = int(state["step"].item())

        exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        m_hat = exp_avg / (1 - beta1**t)
        v_hat = exp_avg_sq / (1 - beta2**t)

        update = m_hat / (v_hat.sqrt() + eps)
        if weight_decay != 0:
            update = update + weight_decay * p
        if group["adam"]:
            p.sub_(update * lr)
            return
        weight_norm = torch.linalg.vector_norm(p)
        update_norm = torch.linalg.vector_norm(update)
        one = torch.ones((), dtype=weight_norm.dtype, device=weight_norm.device)
        trust = torch.where((weight_norm > 0) & (update_norm > 0), weight_norm / update_norm, one)
        p.sub_(update * (trust * lr))
