"""Tests for schedulers.core.kernels: float path == tensor path, torch parity, known values, properties,
torch.compile tracing and parameter validation."""

import doctest
import math
import warnings

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import schedulers.core.kernels
from schedulers.core.kernels import (
    FloatOps,
    TensorOps,
    constant,
    cosine,
    cyclic,
    exponential,
    inverse_sqrt,
    linear,
    multistep,
    one_cycle,
    ops,
    polynomial,
    restart_boundaries,
    step,
    warm_restarts,
    warmup,
    warmup_stable_decay,
)

relaxed = settings(deadline=None, max_examples=150)

# ---------------------------------------------------------------------------------------- helpers


def close(a, b, tol=1e-12):
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def assert_paths_agree(kernel, xs, *args, **kwargs):
    """The float path at each x equals the float64 tensor path over all of them, to 1e-12."""
    floats = [kernel(float(x), *args, **kwargs) for x in xs]
    assert all(type(v) in (float, int) for v in floats), "the float path must not return tensors"
    tensor = kernel(torch.tensor(xs, dtype=torch.float64), *args, **kwargs)
    assert tensor.dtype == torch.float64 and tensor.shape == (len(xs),)
    for x, a, b in zip(xs, floats, tensor.tolist(), strict=True):
        assert close(a, b), f"x={x!r}: float path {a!r} != tensor path {b!r}"
    return floats


def torch_lrs(make_scheduler, steps):
    """torch's lr before each of `steps` optimizer steps (its lr after k scheduler steps is index k)."""
    param = torch.nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.SGD([param], lr=1.0)
    scheduler = make_scheduler(optimizer)
    lrs = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k in range(steps):
            lrs.append(optimizer.param_groups[0]["lr"])
            if k + 1 < steps:
                optimizer.step()
                scheduler.step()
    return lrs


def assert_matches_torch(reference, kernel, steps):
    floats = [kernel(k) for k in range(steps)]
    tensor = kernel(torch.arange(steps, dtype=torch.float64)).tolist()
    for k, (want, a, b) in enumerate(zip(reference, floats, tensor, strict=True)):
        relative = math.isclose(a, want, rel_tol=1e-12) and math.isclose(b, want, rel_tol=1e-12)
        assert relative, f"step {k}: torch {want!r}, float {a!r}, tensor {b!r}"


def monotone(values, increasing, slack=1e-12):
    pairs = list(zip(values, values[1:], strict=False))
    if increasing:
        return all(b >= a - slack for a, b in pairs)
    return all(b <= a + slack for a, b in pairs)


def restarts_reference(x, t_0, t_mult, alpha_f):
    """Composer's semantics, walked interval by interval."""
    length = end = t_0
    while end <= x:
        length = int(t_mult * length)
        end += length
    tau = min(max((x - (end - length)) / length, 0.0), 1.0)
    return alpha_f + (1 - alpha_f) * (1 + math.cos(math.pi * tau)) / 2


def wsd_reference(x, t_w, t_s, t_e, alpha_f, shape):
    if x < t_w:
        return max(x, 0.0) / t_w
    if x <= t_s:
        return 1.0
    p = min((x - t_s) / (t_e - t_s), 1.0)
    g = {"linear": 1 - p, "cosine": (1 + math.cos(math.pi * p)) / 2, "1-sqrt": 1 - math.sqrt(p)}[shape]
    return alpha_f + (1 - alpha_f) * g


# ------------------------------------------------------------------------------------ strategies

fracs = st.lists(st.floats(-0.5, 1.5, allow_nan=False), min_size=1, max_size=40).map(lambda v: v + [0.0, 0.5, 1.0])
counts = st.lists(st.floats(0, 1e4, allow_nan=False), min_size=1, max_size=40)
steps_ = st.lists(st.integers(0, 5000), min_size=1, max_size=40)
levels = st.floats(-10, 10, allow_nan=False)
unit_levels = st.floats(0, 1, allow_nan=False)
gammas = st.floats(0, 2, allow_nan=False)
positive = st.floats(0.01, 1e3, allow_nan=False)

# ------------------------------------------------------------------- float path == tensor path


@relaxed
@given(counts, levels)
def test_constant_paths_agree(xs, alpha):
    assert assert_paths_agree(constant, xs, alpha) == [alpha] * len(xs)


@relaxed
@given(fracs, levels, levels)
def test_linear_paths_agree(xs, start, end):
    assert_paths_agree(linear, xs, start, end)


@relaxed
@given(fracs, levels, levels)
def test_cosine_paths_agree(xs, start, end):
    assert_paths_agree(cosine, xs, start, end)


@relaxed
@given(fracs, st.floats(0, 6, allow_nan=False), levels, levels)
def test_polynomial_paths_agree(xs, power, start, end):
    assert_paths_agree(polynomial, xs, power, start, end)


@relaxed
@given(counts, gammas, positive)
def test_exponential_paths_agree(xs, gamma, period):
    assert_paths_agree(exponential, xs + [0.0, period, 3 * period], gamma, period)


@relaxed
@given(counts, st.floats(0.5, 100, allow_nan=False), gammas)
def test_step_paths_agree(xs, step_size, gamma):
    boundaries = [k * step_size for k in range(5)]
    assert_paths_agree(step, xs + boundaries, step_size, gamma)


@relaxed
@given(counts, st.lists(st.integers(0, 5000), max_size=8).map(sorted), gammas)
def test_multistep_paths_agree(xs, milestones, gamma):
    milestones = tuple(milestones)
    on_and_around = [m + d for m in milestones for d in (-0.5, 0.0, 0.5)]
    assert_paths_agree(multistep, xs + on_and_around, milestones, gamma)


@relaxed
@given(counts, positive, st.floats(-1, 2, allow_nan=False))
def test_warmup_paths_agree(xs, t_warmup, start):
    assert_paths_agree(warmup, xs + [0.0, t_warmup, 2 * t_warmup], t_warmup, start)


@relaxed
@given(
    st.integers(1, 50),
    st.sampled_from([1.0, 1.5, 2.0, 3.0, 0.9, 1.05]),
    st.integers(0, 2000),
    unit_levels,
    st.lists(st.floats(0, 2000, allow_nan=False), max_size=30),
)
def test_warm_restarts_paths_agree(t_0, t_mult, horizon, alpha_f, xs):
    try:
        ends = restart_boundaries(t_0, t_mult, horizon)
    except ValueError:
        assume(False)
    on_ends = [e + d for e in ends for d in (-1, 0, 1)]
    assert_paths_agree(warm_restarts, [x for x in xs if x <= horizon] + on_ends + [0.0], ends, alpha_f)


@relaxed
@given(counts, levels, positive)
def test_inverse_sqrt_paths_agree(xs, scale, warmup_):
    assert_paths_agree(inverse_sqrt, xs + [0.0, warmup_], scale, warmup_)


@relaxed
@given(
    steps_,
    st.integers(1, 30),
    st.one_of(st.none(), st.integers(0, 30)),
    st.sampled_from(["triangular", "triangular2", "exp_range"]),
    st.floats(0.9, 1.0),
)
def test_cyclic_paths_agree(xs, up, down, mode, gamma):
    total = up + (up if down is None else down)
    peaks_and_troughs = [k * total + d for k in range(4) for d in (0, up)]
    assert_paths_agree(cyclic, xs + peaks_and_troughs, 0.05, 0.8, up, down, mode, gamma)


@relaxed
@given(
    st.integers(1, 3000),
    st.floats(0, 1, allow_nan=False),
    st.sampled_from(["cos", "linear"]),
    st.booleans(),
    st.data(),
)
def test_one_cycle_paths_agree(total_steps, pct_start, anneal, three_phase, data):
    assume(float(pct_start * total_steps) != 1)
    xs = data.draw(st.lists(st.integers(0, total_steps), max_size=40))
    first_end = pct_start * total_steps - 1
    ends = [math.floor(first_end), math.ceil(first_end), 2 * math.floor(first_end), total_steps - 1]
    xs += [e for e in ends if 0 <= e <= total_steps]
    assert_paths_agree(one_cycle, xs, total_steps, 1.0, 0.04, 4e-6, pct_start, anneal, three_phase)


@st.composite
def wsd_params(draw):
    t_warmup = draw(st.sampled_from([0.0, 1.0, 10.0, 37.5]))
    t_stable_end = t_warmup + draw(st.sampled_from([0.0, 5.0, 100.0]))
    t_end = t_stable_end + draw(st.sampled_from([0.5, 20.0, 1000.0]))
    return t_warmup, t_stable_end, t_end, draw(unit_levels), draw(st.sampled_from(["linear", "cosine", "1-sqrt"]))


@relaxed
@given(st.lists(st.floats(0, 2500, allow_nan=False), max_size=40), wsd_params())
def test_warmup_stable_decay_paths_agree_and_match_piecewise(xs, params):
    t_w, t_s, t_e, _, _ = params
    xs = xs + [0.0, t_w, t_s, t_e, (t_s + t_e) / 2, t_e + 1]
    values = assert_paths_agree(warmup_stable_decay, xs, *params)
    for x, v in zip(xs, values, strict=True):
        assert close(v, wsd_reference(x, *params)), x


def test_overflow_is_inf_on_both_paths():
    # gamma > 1 grows without bound; past the float range both paths say inf rather than one raising
    assert assert_paths_agree(step, [5000.0], 1.0, 2.0) == [math.inf]
    assert assert_paths_agree(exponential, [2000.0], 2.0, 1.0) == [math.inf]
    assert assert_paths_agree(cyclic, [10**6], 0.0, 1.0, 1, None, "triangular2") == [0.0]


def test_piecewise_evaluates_one_piece_on_floats_and_all_on_tensors():
    calls = []

    def piece(value):
        def fn(x):
            calls.append(value)
            return x * 0 + value

        return fn

    pieces = (piece(1.0), piece(2.0), piece(3.0))
    xs, expected = [0.0, 9.5, 10.0, 19.0, 20.0, 99.0], [1.0, 1.0, 2.0, 2.0, 3.0, 3.0]
    assert [FloatOps.piecewise(x, (10, 20), pieces) for x in xs] == expected
    assert calls == expected  # one piece per float call
    x = torch.tensor(xs, dtype=torch.float64)
    assert TensorOps.piecewise(x, (10, 20), pieces).tolist() == expected


def test_where_between_two_numbers_is_float64_on_tensors():
    x = torch.tensor([1.0, 3.0], dtype=torch.float64)
    out = ops(x).where(x < 2, 0.5, 1.0)
    assert out.dtype == torch.float64 and out.tolist() == [0.5, 1.0]
    assert ops(1.0).where(1.0 < 2, 0.5, 1.0) == 0.5


def test_tensor_path_keeps_any_shape():
    x = torch.linspace(0, 1, 12, dtype=torch.float64).reshape(3, 2, 2)
    for out in (cosine(x), multistep(x * 10, (2, 5), 0.5), warm_restarts(x * 30, (10, 30), 0.1)):
        assert out.shape == (3, 2, 2) and out.dtype == torch.float64
    assert cosine(torch.tensor(0.5, dtype=torch.float64)).shape == ()


# ---------------------------------------------------------------------------------- torch parity

CYCLIC_SETTINGS = [
    dict(step_size_up=7),
    dict(step_size_up=50, step_size_down=20),
    dict(step_size_up=13, step_size_down=0),
    dict(step_size_up=5, step_size_down=3, mode="triangular2"),
    dict(step_size_up=40, mode="triangular2"),
    dict(step_size_up=4, step_size_down=9, mode="exp_range", gamma=0.997),
    dict(step_size_up=100, step_size_down=30, mode="exp_range", gamma=0.9995),
]


@pytest.mark.parametrize("kwargs", CYCLIC_SETTINGS)
def test_cyclic_equals_torch_cycliclr(kwargs):
    base, peak = 0.001, 0.3
    reference = torch_lrs(
        lambda opt: torch.optim.lr_scheduler.CyclicLR(opt, base, peak, cycle_momentum=False, **kwargs), 3000
    )
    assert_matches_torch(reference, lambda x: cyclic(x, base, peak, **kwargs), 3000)


ONE_CYCLE_SETTINGS = [
    dict(),
    dict(anneal_strategy="linear"),
    dict(pct_start=0.1, three_phase=True),
    dict(pct_start=0.45, three_phase=True, anneal_strategy="linear"),
    dict(pct_start=0.0),
    dict(pct_start=1.0),
    dict(pct_start=0.7, three_phase=True),  # phase 2 ends past the run: torch's shape, kept
    dict(pct_start=0.0001),  # the first phase ends before step 0
]


@pytest.mark.parametrize("total_steps", [1, 2, 2500])
@pytest.mark.parametrize("kwargs", ONE_CYCLE_SETTINGS)
def test_one_cycle_equals_torch_onecyclelr(kwargs, total_steps):
    max_lr, div, final_div = 0.4, 25.0, 1e4
    if float(kwargs.get("pct_start", 0.3) * total_steps) == 1:
        pytest.skip("torch divides 0 by 0 at step 0 here; the kernel rejects it (tested below)")
    reference = torch_lrs(
        lambda opt: torch.optim.lr_scheduler.OneCycleLR(
            opt,
            max_lr,
            total_steps=total_steps,
            cycle_momentum=False,
            div_factor=div,
            final_div_factor=final_div,
            **kwargs,
        ),
        total_steps,
    )
    initial = max_lr / div
    assert_matches_torch(
        reference, lambda x: one_cycle(x, total_steps, max_lr, initial, initial / final_div, **kwargs), total_steps
    )


def test_one_cycle_holds_min_lr_after_the_last_step():
    xs = [99.0, 99.5, 100.0, 1e6]
    values = assert_paths_agree(one_cycle, xs, 100, 1.0, 0.04, 4e-6, 1.0)  # pct_start=1: zero-length decay
    assert values[0] == 1.0 and values[1:] == [4e-6] * 3


@pytest.mark.parametrize("t_0, t_mult", [(10, 1), (7, 2), (3, 3)])
def test_warm_restarts_equals_torch_for_integer_t_mult(t_0, t_mult):
    steps, eta_min = 1000, 0.05
    reference = torch_lrs(
        lambda opt: torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, t_0, t_mult, eta_min=eta_min), steps
    )
    ends = restart_boundaries(t_0, t_mult, steps)
    assert_matches_torch(reference, lambda x: warm_restarts(x, ends, eta_min), steps)


# ------------------------------------------------------------------- warm restart boundaries


@pytest.mark.parametrize(
    "t_0, t_mult, horizon, ends",
    [
        (10, 2.0, 100, (10, 30, 70, 150)),
        (10, 2.0, 9, (10,)),
        (10, 2.0, 10, (10, 30)),  # x == 10 starts the second interval, so it must be covered
        (10, 1.0, 10**12, (10,)),  # lengths never change: the kernel repeats the last one
        (3, 1.5, 20, (3, 7, 13, 22)),  # 3, int(4.5)=4, 6, 9: truncation, not geometric
        (10, 1.05, 10**6, (10,)),  # int(10.5) = 10: a fixed point at once
        (30, 1.05, 100, (30, 61, 93, 126)),  # 30, 31, 32, 33: growth by truncation
        (10, 0.5, 16, (10, 15, 17, 18)),  # shrinking lengths are all kept, past the horizon too (then 0)
        (60, 0.5, 100, (60, 90, 105, 112, 115, 116)),  # 60, 30, 15, 7, 3, 1: the run ends inside the 3rd
        (60, 0.0, 59, (60,)),  # the next length is 0: Composer raises from 60 on, past the horizon
        (2.5, 1.0, 20, (2.5, 4.5)),  # a fractional t_0 truncates to 2 and then repeats
    ],
)
def test_restart_boundaries(t_0, t_mult, horizon, ends):
    assert restart_boundaries(t_0, t_mult, horizon) == ends


def test_restart_boundaries_default_horizon_covers_every_exact_count():
    ends = restart_boundaries(10, 2.0)
    assert ends[:4] == (10, 30, 70, 150) and ends[-2] <= 2**53 < ends[-1] and len(ends) == 50
    assert restart_boundaries(10, 1.0) == (10,)
    xs = [0.0, 99.0, 150.0, 200.0, 630.0, 1e6, 123456789.0, 2.0**40 + 3]
    for x, v in zip(xs, assert_paths_agree(warm_restarts, xs, ends, 0.1), strict=True):
        assert close(v, restarts_reference(x, 10, 2.0, 0.1)), x


def test_shrinking_lengths_past_the_horizon_are_bounded():
    ends = restart_boundaries(10**8, 0.9999999, 10**8)  # 10**7 lengths of ... 3, 2, 1 would follow
    assert len(ends) == 2**20 and ends[:2] == (10**8, 2 * 10**8 - 10)


@pytest.mark.parametrize("t_0, t_mult, horizon", [(10, 0.5, 18), (10, 0.0, 10), (1, 0.9, 1), (0.5, 1.0, 0.5)])
def test_restart_boundaries_rejects_lengths_decaying_to_zero(t_0, t_mult, horizon):
    with pytest.raises(ValueError, match="t_mult"):
        restart_boundaries(t_0, t_mult, horizon)


@relaxed
@given(st.integers(1, 40), st.sampled_from([1.0, 1.2, 1.5, 2.0, 2.5, 0.8]), st.integers(0, 3000), unit_levels)
def test_warm_restarts_matches_composer_semantics_up_to_the_horizon(t_0, t_mult, horizon, alpha_f):
    try:
        ends = restart_boundaries(t_0, t_mult, horizon)
    except ValueError:
        assume(False)
    xs = sorted({*range(0, horizon + 1, max(1, horizon // 200)), *(e for e in ends if e <= horizon), horizon})
    for x, v in zip(xs, assert_paths_agree(warm_restarts, xs, ends, alpha_f), strict=True):
        assert close(v, restarts_reference(x, t_0, t_mult, alpha_f)), x


def test_warm_restarts_tail_repeats_a_fixed_point_forever():
    ends = restart_boundaries(10, 1.0, 10**9)
    xs = [10**9 - 5.0, 10**9 + 0.0, 10**9 + 2.5, 123456789.0]
    for x, v in zip(xs, assert_paths_agree(warm_restarts, xs, ends, 0.2), strict=True):
        assert close(v, 0.2 + 0.8 * (1 + math.cos(math.pi * (x % 10) / 10)) / 2), x
    assert warm_restarts(12345.0, ends, 0.2) == restarts_reference(12345.0, 10, 1.0, 0.2)


# ---------------------------------------------------------------------------------- known values

KNOWN = [
    (lambda: constant(123.0, 0.3), 0.3),
    (lambda: linear(0.0, 0.2, 1.0), 0.2),
    (lambda: linear(1.0, 0.2, 1.0), 1.0),
    (lambda: linear(-1.0, 0.2, 1.0), 0.2),
    (lambda: linear(0.5, 1.0, 0.0), 0.5),
    (lambda: cosine(0.0, 1.0, 0.1), 1.0),
    (lambda: cosine(1.0, 1.0, 0.1), 0.1),
    (lambda: cosine(7.0, 1.0, 0.1), 0.1),
    (lambda: cosine(0.5, 1.0, 0.0), 0.5),
    (lambda: polynomial(0.0, 2.0, 1.0, 0.1), 1.0),
    (lambda: polynomial(1.0, 2.0, 1.0, 0.1), 0.1),
    (lambda: polynomial(0.5, 1.0), 0.5),
    (lambda: polynomial(0.5, 0.0), 1.0),
    (lambda: exponential(0.0, 0.1, 3.0), 1.0),
    (lambda: exponential(3.0, 0.1, 3.0), 0.1),
    (lambda: exponential(1.5, 0.25, 3.0), 0.5),
    (lambda: step(9.999, 10, 0.1), 1.0),
    (lambda: step(10.0, 10, 0.1), 0.1),
    (lambda: step(30.0, 10, 0.5), 0.125),
    (lambda: step(5.0, 10, 0.0), 1.0),
    (lambda: multistep(4.999, (5, 8), 0.1), 1.0),
    (lambda: multistep(5.0, (5, 8), 0.1), 0.1),
    (lambda: multistep(8.0, (5, 8), 0.5), 0.25),
    (lambda: multistep(6.0, (5, 5, 8), 0.5), 0.25),  # a repeated milestone counts twice
    (lambda: multistep(6.0, (), 0.5), 1.0),
    (lambda: warmup(0.0, 10), 0.0),
    (lambda: warmup(2.5, 10), 0.25),
    (lambda: warmup(10.0, 10), 1.0),
    (lambda: warmup(50.0, 10), 1.0),
    (lambda: warmup(0.0, 10, start=0.5), 0.5),
    (lambda: warm_restarts(0.0, (10, 30), 0.1), 1.0),
    (lambda: warm_restarts(10.0, (10, 30), 0.1), 1.0),  # a restart: a new interval at frac 0
    (lambda: warm_restarts(20.0, (10, 30), 0.0), 0.5),
    (lambda: warm_restarts(30.0, (10, 30), 0.0), 1.0),
    (lambda: warm_restarts(40.0, (10, 30), 0.0), 0.5),  # tail: intervals of 20 repeat
    (lambda: inverse_sqrt(0.0, 1.0, 4.0), 0.5),
    (lambda: inverse_sqrt(4.0, 1.0, 4.0), 0.5),
    (lambda: inverse_sqrt(100.0, 3.0, 4.0), 0.3),
    (lambda: cyclic(0, 0.1, 1.0, 4), 0.1),
    (lambda: cyclic(4, 0.1, 1.0, 4), 1.0),  # the peak
    (lambda: cyclic(8, 0.1, 1.0, 4), 0.1),
    (lambda: cyclic(2, 0.0, 1.0, 4, 2), 0.5),
    (lambda: cyclic(5, 0.0, 1.0, 4, 2), 0.5),
    (lambda: cyclic(10, 0.0, 1.0, 4, 2, "triangular2"), 0.5),  # second cycle's peak, halved
    (lambda: cyclic(3, 0.0, 1.0, 3, 0), 0.0),  # no falling side: a sawtooth
    (lambda: cyclic(2, 0.0, 1.0, 4, mode="exp_range", gamma=0.5), 0.125),
    (lambda: one_cycle(0, 100, 1.0, 0.25, 0.0025), 0.25),
    (lambda: one_cycle(29, 100, 1.0, 0.25, 0.0025), 1.0),
    (lambda: one_cycle(99, 100, 1.0, 0.25, 0.0025), 0.0025),
    (lambda: one_cycle(29, 100, 1.0, 0.25, 0.0025, three_phase=True), 1.0),
    (lambda: one_cycle(58, 100, 1.0, 0.25, 0.0025, three_phase=True), 0.25),
    (lambda: warmup_stable_decay(0.0, 10, 50, 100, 0.1), 0.0),
    (lambda: warmup_stable_decay(10.0, 10, 50, 100, 0.1), 1.0),
    (lambda: warmup_stable_decay(50.0, 10, 50, 100, 0.1), 1.0),
    (lambda: warmup_stable_decay(75.0, 10, 50, 100, 0.0), 0.5),
    (lambda: warmup_stable_decay(75.0, 10, 50, 100, 0.0, "cosine"), 0.5),
    (lambda: warmup_stable_decay(62.5, 10, 50, 100, 0.0, "1-sqrt"), 0.5),
    (lambda: warmup_stable_decay(100.0, 10, 50, 100, 0.1, "cosine"), 0.1),
    (lambda: warmup_stable_decay(500.0, 10, 50, 100, 0.1, "1-sqrt"), 0.1),
    (lambda: warmup_stable_decay(0.0, 0, 50, 100, 0.1), 1.0),  # no warmup
]


@pytest.mark.parametrize("call, expected", KNOWN)
def test_known_values(call, expected):
    assert close(call(), expected, 1e-15)


def test_endpoints_are_exact():
    # Ends of ramps and decays land exactly on their values (no 1 - 1e-16 at a boundary).
    assert warmup(10.0, 10.0) == 1.0 and warmup(10.0, 10.0, start=0.3) == 1.0
    assert cosine(1.0, 1.0, 0.1) == 0.1 and polynomial(1.0, 2.0, 1.0, 0.1) == 0.1
    assert warm_restarts(10.0, (10, 30), 0.1) == 1.0
    for shape in ("linear", "cosine", "1-sqrt"):
        assert warmup_stable_decay(40.0, 10, 50, 100, 0.1, shape) == 1.0
        assert warmup_stable_decay(100.0, 10, 50, 100, 0.1, shape) == 0.1
    assert cyclic(4, 0.1, 0.9, 4) == 0.9


def test_float_path_is_plain_python():
    assert ops(0.5) is FloatOps and ops(3) is FloatOps and ops(torch.zeros(2, dtype=torch.float64)) is TensorOps
    for value in (
        cosine(0.3),
        linear(0.3, 1, 0),
        warmup(3.0, 10.0),
        multistep(3.0, (1, 2), 0.5),
        cyclic(3, 0.1, 1.0, 4),
    ):
        assert type(value) is float


def test_integer_tensors_are_rejected():
    with pytest.raises(TypeError, match="floating dtype"):
        cosine(torch.arange(3))


def test_docstring_examples_run():
    assert doctest.testmod(schedulers.core.kernels).failed == 0


# ------------------------------------------------------------------------- bounds and monotony

grid = torch.linspace(-0.25, 1.25, 301, dtype=torch.float64)
run = torch.linspace(0, 3000, 3001, dtype=torch.float64)


def within(values, lo, hi, slack=1e-12):
    return bool((values >= lo - slack).all() and (values <= hi + slack).all())


@relaxed
@given(levels, levels, st.floats(0, 6, allow_nan=False))
def test_fraction_curves_stay_between_their_ends_and_are_monotone(start, end, power):
    for values in (linear(grid, start, end), cosine(grid, start, end), polynomial(grid, power, start, end)):
        assert within(values, min(start, end), max(start, end))
        assert monotone(values.tolist(), increasing=end >= start)


@relaxed
@given(st.floats(0, 1, allow_nan=False), positive, st.floats(0.5, 100))
def test_decays_are_non_increasing_within_0_1(gamma, period, step_size):
    curves = (
        exponential(run, gamma, period),
        step(run, step_size, gamma),
        multistep(run, (10, 500, 500, 2000), gamma),
        inverse_sqrt(run, math.sqrt(period), period),
    )
    for values in curves:
        assert within(values, 0.0, 1.0)
        assert monotone(values.tolist(), increasing=False)


@relaxed
@given(st.floats(0.01, 300), st.floats(0, 1, allow_nan=False))
def test_warmup_rises_from_start_to_one(t_warmup, start):
    values = warmup(run / 10, t_warmup, start)
    assert within(values, start, 1.0) and monotone(values.tolist(), increasing=True)
    assert values[-1] == 1.0


@relaxed
@given(st.integers(1, 100), st.sampled_from([1.0, 1.5, 2.0]), unit_levels)
def test_warm_restarts_decay_within_each_interval(t_0, t_mult, alpha_f):
    ends = restart_boundaries(t_0, t_mult, 3000)
    values = warm_restarts(run, ends, alpha_f)
    assert within(values, alpha_f, 1.0)
    starts = [0, *ends]
    for begin, end in zip(starts, starts[1:], strict=False):
        inside = values[(run >= begin) & (run < min(end, 3001))].tolist()
        assert inside[0] == 1.0 and monotone(inside, increasing=False)


@relaxed
@given(
    st.integers(1, 60),
    st.one_of(st.none(), st.integers(0, 60)),
    st.sampled_from(["triangular", "triangular2", "exp_range"]),
)
def test_cyclic_stays_between_base_and_peak(up, down, mode):
    assert within(cyclic(run, 0.1, 0.9, up, down, mode, 0.999), 0.1, 0.9)


@relaxed
@given(st.integers(2, 3000), st.floats(0.05, 0.95), st.sampled_from(["cos", "linear"]), st.booleans())
def test_one_cycle_stays_between_min_and_max(total_steps, pct_start, anneal, three_phase):
    assume(float(pct_start * total_steps) != 1)
    values = one_cycle(run[: total_steps + 1], total_steps, 1.0, 0.04, 4e-6, pct_start, anneal, three_phase)
    assert within(values, 4e-6, 1.0)


@relaxed
@given(wsd_params())
def test_warmup_stable_decay_rises_then_falls(params):
    t_w, t_s, t_e, alpha_f, _ = params
    x = torch.linspace(0, 1.2 * t_e, 2001, dtype=torch.float64)
    values = warmup_stable_decay(x, *params)
    assert within(values, 0.0, 1.0)
    assert monotone(values[x < t_w].tolist(), increasing=True)
    assert monotone(values[x >= t_w].tolist(), increasing=False)
    assert values[-1] == alpha_f


# ------------------------------------------------------------------------------- torch.compile

ENDS = restart_boundaries(10, 2.0, 1000)
COMPILED = {
    "constant": lambda x: constant(x, 0.5),
    "linear": lambda x: linear(x / 100, 1.0, 0.1),
    "cosine": lambda x: cosine(x / 100, 1.0, 0.1),
    "polynomial": lambda x: polynomial(x / 100, 2.0, 1.0, 0.1),
    "exponential": lambda x: exponential(x, 0.9, 10.0),
    "step": lambda x: step(x, 10.0, 0.5),
    "multistep": lambda x: multistep(x, (10, 20, 20, 50), 0.5),
    "warmup": lambda x: warmup(x, 10.0, 0.1),
    "warm_restarts": lambda x: warm_restarts(x, ENDS, 0.1),
    "inverse_sqrt": lambda x: inverse_sqrt(x, 2.0, 4.0),
    "cyclic": lambda x: cyclic(x, 0.1, 1.0, 5, 3, "exp_range", 0.99),
    "cyclic_triangular2": lambda x: cyclic(x, 0.1, 1.0, 5, 0, "triangular2"),
    "one_cycle": lambda x: one_cycle(x, 100, 1.0, 0.04, 4e-6, three_phase=True),
    "warmup_stable_decay": lambda x: warmup_stable_decay(x, 10.0, 50.0, 100.0, 0.1, "1-sqrt"),
    "piecewise": lambda x: ops(x).piecewise(x, (10, 50), (lambda x: x / 10, lambda x: x * 0 + 1, cosine)),
}


@pytest.mark.parametrize("name", COMPILED)
def test_kernel_traces_under_torch_compile_without_graph_breaks(name):
    torch._dynamo.reset()
    fn = COMPILED[name]
    x = torch.arange(0, 120, 0.5, dtype=torch.float64)
    assert torch.equal(torch.compile(fn, fullgraph=True, backend="eager")(x), fn(x))
    torch._dynamo.reset()


# --------------------------------------------------------------------------- parameter checks

BAD = [
    (lambda: polynomial(0.5, -1.0), "power"),
    (lambda: polynomial(0.5, math.inf), "power"),
    (lambda: exponential(1.0, -0.1, 1.0), "gamma"),
    (lambda: exponential(1.0, 0.5, 0.0), "period"),
    (lambda: exponential(1.0, 0.5, math.nan), "period"),
    (lambda: step(1.0, 0, 0.1), "step_size"),
    (lambda: step(1.0, -2.0, 0.1), "step_size"),
    (lambda: step(1.0, 10, -0.1), "gamma"),
    (lambda: multistep(1.0, [5, 10], 0.1), "milestones"),
    (lambda: multistep(1.0, (10, 5), 0.1), "milestones"),
    (lambda: multistep(1.0, (5, math.nan), 0.1), "milestones"),
    (lambda: multistep(1.0, (5, 10), -1.0), "gamma"),
    (lambda: warmup(1.0, 0), "t_warmup"),
    (lambda: warmup(1.0, -5.0), "t_warmup"),
    (lambda: restart_boundaries(0, 2.0, 100), "t_0"),
    (lambda: restart_boundaries(10, -1.0, 100), "t_mult"),
    (lambda: restart_boundaries(10, 2.0, math.inf), "horizon"),
    (lambda: restart_boundaries(10, 0.5, 1000), "t_mult"),
    (lambda: warm_restarts(1.0, (), 0.1), "boundaries"),
    (lambda: warm_restarts(1.0, (0, 10), 0.1), "boundaries"),
    (lambda: warm_restarts(1.0, (10, 10, 20), 0.1), "boundaries"),
    (lambda: warm_restarts(1.0, (20, 10), 0.1), "boundaries"),
    (lambda: warm_restarts(1.0, [10, 20], 0.1), "boundaries"),
    (lambda: inverse_sqrt(1.0, 1.0, 0.0), "warmup"),
    (lambda: cyclic(1, 0.1, 1.0, 0), "step_size_up"),
    (lambda: cyclic(1, 0.1, 1.0, 5, -1), "step_size_down"),
    (lambda: cyclic(1, 0.1, 1.0, 5, mode="foo"), "mode"),
    (lambda: cyclic(1, 0.1, 1.0, 5, mode="exp_range", gamma=0.0), "gamma"),
    (lambda: one_cycle(1, 0, 1.0, 0.04, 4e-6), "total_steps"),
    (lambda: one_cycle(1, 10.0, 1.0, 0.04, 4e-6), "total_steps"),
    (lambda: one_cycle(1, 100, 1.0, 0.04, 4e-6, pct_start=1.5), "pct_start"),
    (lambda: one_cycle(1, 100, 1.0, 0.04, 4e-6, pct_start=0.01), "pct_start"),  # zero-length first phase
    (lambda: one_cycle(1, 100, 1.0, 0.04, 4e-6, anneal_strategy="cosine"), "anneal_strategy"),
    (lambda: warmup_stable_decay(1.0, -1, 50, 100), "t_warmup"),
    (lambda: warmup_stable_decay(1.0, 60, 50, 100), "t_stable_end"),
    (lambda: warmup_stable_decay(1.0, 10, 50, 50), "t_end"),
    (lambda: warmup_stable_decay(1.0, 10, 50, 100, decay_shape="sqrt"), "decay_shape"),
]


@pytest.mark.parametrize("call, name", BAD)
def test_bad_parameters_raise_value_error_naming_them(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_bad_parameters_are_caught_on_the_tensor_path_too():
    x = torch.ones(3, dtype=torch.float64)
    with pytest.raises(ValueError, match="milestones"):
        multistep(x, (10, 5), 0.1)
    with pytest.raises(ValueError, match="boundaries"):
        warm_restarts(x, (10, 10), 0.1)
    with pytest.raises(ValueError, match="step_size"):
        step(x, 0, 0.1)
    with pytest.raises(ValueError, match="pct_start"):
        one_cycle(x, 10, 1.0, 0.04, 4e-6, pct_start=0.1)


def test_error_messages_say_what_is_accepted():
    with pytest.raises(ValueError, match=r"^step_size=0 must be a finite number > 0$"):
        step(1.0, 0, 0.1)
    with pytest.raises(ValueError, match=r"^mode='foo' must be one of 'triangular', 'triangular2', 'exp_range'$"):
        cyclic(1, 0.1, 1.0, 5, mode="foo")


def test_validated_tuples_are_rechecked_after_a_failure():
    # The float path memoises tuples it has checked; a bad tuple is never remembered.
    bad = (3, 1)
    for _ in range(2):
        with pytest.raises(ValueError, match="milestones"):
            multistep(0.5, bad, 0.1)
