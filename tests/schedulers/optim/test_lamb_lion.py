"""Cadence's ``Lamb`` and ``Lion`` (docs/cerebras.md).

Expected values are computed here with plain tensor math, written from the papers' update rules.
"""

from __future__ import annotations

import doctest
import io

import pytest
import torch

import schedulers.optim
import schedulers.optim.by_name
import schedulers.optim.lamb
import schedulers.optim.lion
import trainer.optim
from schedulers.optim import Lamb, Lion

F64 = torch.float64
W0 = torch.tensor([[0.5, -1.25, 2.0], [0.75, 0.1, -0.3]], dtype=F64)
G1 = torch.tensor([[0.2, -0.4, 0.05], [-0.3, 0.9, 0.0]], dtype=F64)
G2 = torch.tensor([[-0.1, 0.3, 0.25], [0.6, -0.2, 0.4]], dtype=F64)
G3 = torch.tensor([[0.05, 0.05, -0.5], [0.1, 0.1, 0.1]], dtype=F64)


def run(optimizer_cls, grads, w0=W0, **kwargs):
    w = torch.nn.Parameter(w0.clone())
    opt = optimizer_cls([w], **kwargs)
    history = []
    for g in grads:
        w.grad = g.clone()
        opt.step()
        history.append(w.detach().clone())
    return history, opt, w


# --------------------------------------------------------------------------------------- Lamb


def lamb_hand(w, grads, lr, beta1, beta2, eps, wd):
    """Algorithm 2 of You et al. (2019) with Adam's bias correction; one trust ratio per tensor."""
    m = torch.zeros_like(w)
    v = torch.zeros_like(w)
    out = []
    for t, g in enumerate(grads, start=1):
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        m_hat = m / (1 - beta1**t)
        v_hat = v / (1 - beta2**t)
        r = m_hat / (torch.sqrt(v_hat) + eps)
        u = r + wd * w
        w_norm = torch.sqrt((w * w).sum())
        u_norm = torch.sqrt((u * u).sum())
        trust = w_norm / u_norm if (w_norm > 0 and u_norm > 0) else 1.0
        w = w - lr * trust * u
        out.append(w)
    return out


@pytest.mark.parametrize("wd", [0.0, 0.01])
def test_lamb_one_and_two_steps_by_hand(wd):
    got, _, _ = run(Lamb, [G1, G2], lr=0.05, betas=(0.9, 0.999), eps=1e-6, weight_decay=wd)
    expected = lamb_hand(W0, [G1, G2], 0.05, 0.9, 0.999, 1e-6, wd)
    for step in range(2):
        torch.testing.assert_close(got[step], expected[step], rtol=1e-12, atol=1e-14)


def test_lamb_first_step_in_closed_form():
    # after one step m_hat = g and v_hat = g^2, so r = g / (|g| + eps): with wd = 0 the update's norm is
    # known and the step is lr * ||w|| * r / ||r||
    got, _, _ = run(Lamb, [G1], lr=0.1)
    r = G1 / (G1.abs() + 1e-6)
    expected = W0 - 0.1 * W0.norm() / r.norm() * r
    torch.testing.assert_close(got[0], expected, rtol=1e-12, atol=1e-14)


def test_lamb_bias_correction_differs_from_cerebras():
    # Cerebras's Lamb uses m / (sqrt(v) + eps) without bias correction: not what Cadence computes
    got, _, _ = run(Lamb, [G1], lr=0.1)
    m, v = 0.1 * G1, 0.001 * G1 * G1
    u = m / (v.sqrt() + 1e-6)
    uncorrected = W0 - 0.1 * W0.norm() / u.norm() * u
    assert not torch.allclose(got[0], uncorrected, rtol=1e-6)


def test_lamb_zero_norm_guards():
    # w = 0: the trust ratio is 1, so the first step is -lr * (g / (|g| + eps))
    got, _, _ = run(Lamb, [G1], w0=torch.zeros(2, 3, dtype=F64), lr=0.1)
    torch.testing.assert_close(got[0], -0.1 * G1 / (G1.abs() + 1e-6), rtol=1e-12, atol=1e-14)
    # a zero gradient and no weight decay: a zero update (trust ratio 1), the weights do not move
    got, _, _ = run(Lamb, [torch.zeros(2, 3, dtype=F64)], lr=0.1)
    torch.testing.assert_close(got[0], W0, rtol=0, atol=0)


@pytest.mark.parametrize("wd, reference", [(0.0, torch.optim.Adam), (0.02, torch.optim.AdamW)])
def test_lamb_with_trust_ratio_one_is_adam_or_adamw(wd, reference):
    got, _, _ = run(Lamb, [G1, G2, G3], lr=0.01, eps=1e-6, weight_decay=wd, adam=True)
    want, _, _ = run(reference, [G1, G2, G3], lr=0.01, eps=1e-6, weight_decay=wd)
    for a, b in zip(got, want, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-14)


def test_lamb_defaults_are_cerebras():
    opt = Lamb([torch.zeros(1, requires_grad=True)])
    assert opt.defaults == {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-6, "weight_decay": 0.0, "adam": False}


# --------------------------------------------------------------------------------------- Lion


def lion_hand(w, grads, lr, beta1, beta2, wd):
    """Chen et al. (2023), Program 1: update with the interpolation, then the momentum."""
    m = torch.zeros_like(w)
    out = []
    for g in grads:
        c = beta1 * m + (1 - beta1) * g
        u = torch.sign(c)
        w = w - lr * (u + wd * w)
        m = beta2 * m + (1 - beta2) * g
        out.append(w)
    return out


@pytest.mark.parametrize("wd", [0.0, 0.1])
def test_lion_one_and_two_steps_by_hand(wd):
    got, _, _ = run(Lion, [G1, G2], lr=0.01, betas=(0.9, 0.99), weight_decay=wd)
    expected = lion_hand(W0, [G1, G2], 0.01, 0.9, 0.99, wd)
    for step in range(2):
        torch.testing.assert_close(got[step], expected[step], rtol=1e-12, atol=1e-14)


def test_lion_first_step_is_the_sign_of_the_gradient():
    got, opt, w = run(Lion, [G1], lr=0.01)
    torch.testing.assert_close(got[0], W0 - 0.01 * torch.sign(G1), rtol=0, atol=1e-15)
    assert got[0][1, 2] == W0[1, 2]  # sign(0) = 0: no move without decay
    torch.testing.assert_close(opt.state[w]["exp_avg"], 0.01 * G1, rtol=1e-12, atol=0)


def test_lion_second_step_uses_beta1_then_beta2():
    # after step 1, m = (1 - b2) g1; step 2 moves by sign(b1 m + (1 - b1) g2)
    got, _, _ = run(Lion, [G1, G2], lr=0.5, betas=(0.5, 0.9))
    c = 0.5 * (0.1 * G1) + 0.5 * G2
    torch.testing.assert_close(got[1], W0 - 0.5 * torch.sign(G1) - 0.5 * torch.sign(c), rtol=1e-12, atol=1e-14)


def test_lion_weight_decay_is_decoupled():
    got, _, _ = run(Lion, [torch.zeros(2, 3, dtype=F64)], lr=0.1, weight_decay=0.5)
    torch.testing.assert_close(got[0], W0 * (1 - 0.1 * 0.5), rtol=1e-12, atol=1e-15)


def test_lion_defaults_are_the_papers_and_cerebras():
    opt = Lion([torch.zeros(1, requires_grad=True)])
    assert opt.defaults == {"lr": 1e-4, "betas": (0.9, 0.99), "weight_decay": 0.0}


# ---------------------------------------------------------------------------------- both


@pytest.mark.parametrize("cls, kwargs", [(Lamb, {"weight_decay": 0.01}), (Lion, {"weight_decay": 0.1})])
def test_state_dict_round_trip(cls, kwargs):
    history, opt, w = run(cls, [G1, G2], lr=0.01, **kwargs)
    buffer = io.BytesIO()
    torch.save(opt.state_dict(), buffer)
    buffer.seek(0)
    state = torch.load(buffer, weights_only=True)

    w2 = torch.nn.Parameter(w.detach().clone())
    opt2 = cls([w2], lr=0.5, **kwargs)  # the loaded state brings lr back
    opt2.load_state_dict(state)
    assert opt2.param_groups[0]["lr"] == 0.01
    for g in (G3, G1):
        w.grad, w2.grad = g.clone(), g.clone()
        opt.step()
        opt2.step()
    torch.testing.assert_close(w2.detach(), w.detach(), rtol=0, atol=0)


@pytest.mark.parametrize("cls", [Lamb, Lion])
def test_tensor_lr_matches_float_lr(cls):
    as_float, _, _ = run(cls, [G1, G2], lr=0.01, weight_decay=0.05)
    as_tensor, opt, _ = run(cls, [G1, G2], lr=torch.tensor(0.01, dtype=F64), weight_decay=0.05)
    assert isinstance(opt.param_groups[0]["lr"], torch.Tensor)
    torch.testing.assert_close(as_tensor[1], as_float[1], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("cls", [Lamb, Lion])
def test_param_groups_and_parameters_without_grad(cls):
    a = torch.nn.Parameter(W0.clone())
    b = torch.nn.Parameter(W0.clone())
    frozen = torch.nn.Parameter(W0.clone())
    opt = cls([{"params": [a]}, {"params": [b, frozen], "lr": 0.02}], lr=0.01)
    a.grad, b.grad = G1.clone(), G1.clone()
    opt.step()
    single, _, _ = run(cls, [G1], lr=0.01)
    double, _, _ = run(cls, [G1], lr=0.02)
    torch.testing.assert_close(a.detach(), single[0], rtol=1e-12, atol=1e-14)
    torch.testing.assert_close(b.detach(), double[0], rtol=1e-12, atol=1e-14)
    assert torch.equal(frozen.detach(), W0) and frozen not in opt.state


@pytest.mark.parametrize("cls", [Lamb, Lion])
def test_step_runs_under_grad_mode_and_takes_a_closure(cls):
    model = torch.nn.Linear(3, 1).double()
    opt = cls(model.parameters(), lr=0.01)
    x = torch.ones(4, 3, dtype=F64)

    def closure():
        opt.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert isinstance(loss, torch.Tensor) and model.weight.grad is not None
    assert model.weight.requires_grad and model.weight.grad_fn is None


@pytest.mark.parametrize(
    "cls, kwargs, name",
    [
        (Lamb, {"lr": -1.0}, "lr"),
        (Lamb, {"betas": (1.0, 0.999)}, r"betas\[0\]"),
        (Lamb, {"betas": (0.9, -0.1)}, r"betas\[1\]"),
        (Lamb, {"eps": -1e-8}, "eps"),
        (Lamb, {"weight_decay": -0.1}, "weight_decay"),
        (Lion, {"lr": -1e-4}, "lr"),
        (Lion, {"betas": (0.9,)}, "betas"),
        (Lion, {"weight_decay": -1.0}, "weight_decay"),
        (Lion, {"lr": torch.tensor([0.1, 0.2])}, "tensor lr"),
    ],
)
def test_invalid_arguments(cls, kwargs, name):
    with pytest.raises(ValueError, match=name):
        cls([torch.zeros(1, requires_grad=True)], **kwargs)


@pytest.mark.parametrize(
    "cls, kwargs, message",
    [
        (Lamb, {"lr": float("inf")}, "lr=inf must be a finite number"),
        (Lamb, {"eps": float("nan")}, "eps=nan must be a finite number"),
        (Lion, {"weight_decay": "0.1"}, "weight_decay='0.1' must be a number"),
        (Lion, {"lr": torch.tensor(-1.0)}, r"lr=tensor\(-1.\) must be >= 0"),
    ],
)
def test_numbers_are_checked_by_the_one_number_check_in_its_words(cls, kwargs, message):
    # the words of schedulers.core.schedule_arguments.number_argument, as every other door says them
    with pytest.raises(ValueError, match=f"^{message}$"):
        cls([torch.zeros(1, requires_grad=True)], **kwargs)


@pytest.mark.parametrize("cls", [Lamb, Lion])
def test_sparse_gradients_are_rejected(cls):
    w = torch.nn.Parameter(torch.zeros(3))
    opt = cls([w])
    w.grad = torch.zeros(3).to_sparse()
    with pytest.raises(RuntimeError, match="sparse"):
        opt.step()


def test_docstring_examples_run():
    for module in (schedulers.optim, schedulers.optim.by_name, schedulers.optim.lamb, schedulers.optim.lion):
        assert doctest.testmod(module).failed == 0


def test_trainer_optim_is_the_same_optimizers():
    """``trainer.optim`` is public API (docs/trainer.md): the names it re-exports are schedulers.optim's own."""
    assert doctest.testmod(trainer.optim).failed == 0
    assert set(trainer.optim.__all__) == set(schedulers.optim.__all__)
    for name in trainer.optim.__all__:
        assert getattr(trainer.optim, name) is getattr(schedulers.optim, name)
