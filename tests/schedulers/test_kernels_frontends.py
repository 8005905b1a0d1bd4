"""The kernels added for the front ends: ``cosine_wave`` (Cerebras's CosineAnnealing, SambaFlow's cosine
with cycles) and ``piecewise_constant`` (Cerebras's PiecewiseConstant): float path == tensor path, known
values, the identities that define them, torch.compile tracing, and their parameter errors."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from schedulers.core.kernels import cosine, cosine_wave, piecewise_constant

relaxed = settings(deadline=None, max_examples=150)


def _both_paths(kernel, xs, *args):
    floats = [kernel(float(x), *args) for x in xs]
    assert all(type(v) is float for v in floats)
    tensor = kernel(torch.tensor(xs, dtype=torch.float64), *args)
    assert tensor.dtype == torch.float64 and tensor.shape == (len(xs),)
    for x, a, b in zip(xs, floats, tensor.tolist(), strict=True):
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12), (x, a, b)
    return floats


def test_cosine_wave_known_values():
    assert _both_paths(cosine_wave, [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.5], 1.0, 0.0) == pytest.approx(
        [1.0, 0.5, 0.0, 0.5, 1.0, 0.0, 0.5], abs=1e-15
    )
    assert cosine_wave(1.0, 0.2, 0.1) == pytest.approx(0.1) and cosine_wave(2.0, 0.2, 0.1) == pytest.approx(0.2)


@relaxed
@given(f=st.floats(0.0, 1.0))
def test_cosine_wave_is_the_cosine_kernel_on_the_first_half_wave(f):
    assert cosine_wave(f, 0.7, 0.1) == cosine(f, 0.7, 0.1)


@relaxed
@given(f=st.floats(0.0, 1e6), start=st.floats(0.0, 10.0), end=st.floats(0.0, 10.0))
def test_cosine_wave_is_the_unclamped_cosine(f, start, end):
    expected = end + (start - end) * (1 + math.cos(math.pi * f)) / 2
    assert math.isclose(cosine_wave(f, start, end), expected, rel_tol=1e-9, abs_tol=1e-9 * (1 + f))
    assert math.isclose(cosine_wave(f + 2.0, start, end), cosine_wave(f, start, end), abs_tol=1e-9 * (1 + f))


def test_piecewise_constant_switches_at_each_boundary():
    values = (1.0, 0.5, 0.1)
    xs = [0.0, 4.999, 5.0, 7.0, 8.0, 1e9]
    assert _both_paths(piecewise_constant, xs, (5, 8), values) == [1.0, 1.0, 0.5, 0.5, 0.1, 0.1]
    assert piecewise_constant(3.0, (), (0.25,)) == 0.25


@pytest.mark.parametrize(
    "boundaries, values, match",
    [
        ((5, 5), (1.0, 0.5, 0.1), "strictly increasing"),
        ((8, 5), (1.0, 0.5, 0.1), "strictly increasing"),
        ([5, 8], (1.0, 0.5, 0.1), "a tuple of numbers"),
        ((5, math.inf), (1.0, 0.5, 0.1), "finite"),
        ((5, 8), (1.0, 0.5), r"^values=\(1.0, 0.5\) must be a tuple of 3 numbers \(one more than boundaries\)$"),
        ((5, 8), [1.0, 0.5, 0.1], r"^values=\[1.0, 0.5, 0.1\] must be a tuple of 3 numbers"),
    ],
)
def test_piecewise_constant_errors_name_the_argument(boundaries, values, match):
    with pytest.raises(ValueError, match=match):
        piecewise_constant(1.0, boundaries, values)
    with pytest.raises(ValueError, match=match):
        piecewise_constant(torch.tensor([1.0], dtype=torch.float64), boundaries, values)


@pytest.mark.parametrize(
    "fn",
    [lambda x: cosine_wave(x / 7.0, 0.3, 0.01), lambda x: piecewise_constant(x, (3, 10, 40), (1.0, 0.5, 0.25, 0.0))],
    ids=["cosine_wave", "piecewise_constant"],
)
def test_traces_under_torch_compile_without_graph_breaks(fn):
    x = torch.arange(0.0, 60.0, dtype=torch.float64)
    torch._dynamo.reset()
    assert torch.equal(torch.compile(fn, fullgraph=True, backend="eager")(x), fn(x))
