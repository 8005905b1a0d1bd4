"""Hypothesis properties of ``timeunits`` (docs/time-units.md, docs/resume.md, docs/architecture.md)."""

import io
import math

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from timeunits import NonIntegralTimeError, Time, Timestamp, TimeUnit

# docs/architecture.md: no deadline (the first example pays for imports).
PROPERTY = settings(deadline=None)

INT_UNITS = [TimeUnit.EPOCH, TimeUnit.BATCH, TimeUnit.SAMPLE, TimeUnit.TOKEN]
int_units = st.sampled_from(INT_UNITS)
big_ints = st.one_of(
    st.integers(min_value=-(2**64), max_value=2**64),
    st.integers(min_value=2**53 - 5, max_value=2**53 + 5),
    st.integers(min_value=-(10**40), max_value=10**40),
)
finite_floats = st.floats(allow_nan=False, allow_infinity=False)
FIELDS = ("epoch", "batch", "sample", "token", "batch_in_epoch", "sample_in_epoch", "token_in_epoch")


def values(ts) -> dict:
    return {f: getattr(ts, f).value for f in FIELDS}


def mixed_case(draw, word: str) -> str:
    flips = draw(st.lists(st.booleans(), min_size=len(word), max_size=len(word)))
    return "".join(c.upper() if f else c for c, f in zip(word, flips, strict=True))


# --------------------------------------------------------------------------- print / parse round trip


@PROPERTY
@given(n=big_ints, unit=int_units)
def test_int_unit_round_trip(n, unit):
    t = Time(n, unit)
    s = str(t)
    assert s == f"{n}{unit.value}"
    assert t.to_timestring() == s
    back = Time.from_timestring(s)
    assert back.unit is unit
    assert type(back.value) is int
    assert back.value == n


@PROPERTY
@given(x=finite_floats)
def test_dur_round_trip(x):
    t = Time(x, "dur")
    s = str(t)
    assert s == f"{x!r}dur"
    back = Time.from_timestring(s)
    assert back.unit is TimeUnit.DURATION
    assert type(back.value) is float
    assert back.value == x
    assert math.copysign(1.0, back.value) == math.copysign(1.0, x)


@PROPERTY
@given(
    x=st.one_of(st.floats(min_value=-1e-300, max_value=1e-300), st.floats(min_value=1e300), st.floats(max_value=-1e300))
)
def test_dur_round_trip_tiny_and_huge(x):
    assume(math.isfinite(x))
    assert Time.from_timestring(str(Time(x, "dur"))).value == x


@PROPERTY
@given(data=st.data(), n=big_ints, unit=int_units)
def test_decorated_int_strings_parse_exactly(data, n, unit):
    """Underscore grouping, explicit sign, whitespace and unit case never change the value."""
    number = data.draw(st.sampled_from([f"{n}", f"{n:_}", f"{n:+}", f"{n:+_}", f"{n}.0", f"{n}e0", f"{n}.000E+0"]))
    lead = data.draw(st.sampled_from(["", " ", "\t", "\n  "]))
    mid = data.draw(st.sampled_from(["", " ", "\t"]))
    tail = data.draw(st.sampled_from(["", " ", "\n"]))
    s = f"{lead}{number}{mid}{mixed_case(data.draw, unit.value)}{tail}"
    t = Time.from_timestring(s)
    assert t.unit is unit and type(t.value) is int and t.value == n


@PROPERTY
@given(m=st.integers(min_value=0, max_value=10**25), k=st.integers(min_value=0, max_value=30), unit=int_units)
def test_exponents_are_exact(m, k, unit):
    up = Time.from_timestring(f"{m}e{k}{unit.value}")
    assert up.value == m * 10**k and type(up.value) is int
    s = f"{m}e-{k}{unit.value}"
    if m % 10**k == 0:
        assert Time.from_timestring(s).value == m // 10**k
    else:
        with pytest.raises(NonIntegralTimeError):
            Time.from_timestring(s)


@PROPERTY
@given(
    whole=st.integers(min_value=0, max_value=10**20),
    frac=st.text(alphabet="0123456789", min_size=1, max_size=25),
    unit=int_units,
)
def test_decimals_are_exact(whole, frac, unit):
    s = f"{whole}.{frac}{unit.value}"
    if set(frac) == {"0"}:
        t = Time.from_timestring(s)
        assert t.value == whole and type(t.value) is int
    else:
        with pytest.raises(NonIntegralTimeError):
            Time.from_timestring(s)


@PROPERTY
@given(
    whole=st.integers(min_value=0, max_value=10**20),
    frac=st.text(alphabet="0123456789", max_size=20),
    exp=st.integers(min_value=-400, max_value=400),
    sign=st.sampled_from(["", "+", "-"]),
)
def test_dur_parses_like_python_float(whole, frac, exp, sign):
    literal = f"{sign}{whole}.{frac}e{exp}"
    expected = float(literal)
    if math.isinf(expected):
        with pytest.raises(ValueError):
            Time.from_timestring(literal + "dur")
    else:
        t = Time.from_timestring(literal + "dur")
        assert type(t.value) is float and t.value == expected


@PROPERTY
@given(s=st.text(max_size=12))
def test_arbitrary_text_parses_or_raises_value_error(s):
    try:
        t = Time.from_timestring(s)
    except ValueError:  # TimeParseError / NonIntegralTimeError; never another exception type
        return
    # Anything accepted must print to a string that parses back to the same time.
    assert Time.from_timestring(str(t)) == t
    if t.unit is TimeUnit.DURATION:
        assert math.isfinite(t.value)


# --------------------------------------------------------------------------- arithmetic


@PROPERTY
@given(a=big_ints, b=big_ints, unit=int_units)
def test_add_sub_inverse_int_units(a, b, unit):
    ta, tb = Time(a, unit), Time(b, unit)
    s = ta + tb
    assert s.unit is unit and s.value == a + b
    back = s - tb
    assert back == ta and back.unit is unit and type(back.value) is int
    assert (ta + b) - b == ta  # numbers take the unit


# Dyadic rationals with a bounded exponent range: float + and - are exact on them.
dyadic = st.integers(min_value=-(2**40), max_value=2**40).map(lambda i: i / 1024)


@PROPERTY
@given(a=dyadic, b=dyadic)
def test_add_sub_inverse_dur(a, b):
    ta, tb = Time(a, "dur"), Time(b, "dur")
    assert (ta + tb) - tb == ta
    assert ((ta + tb) - tb).value == a


@PROPERTY
@given(a=finite_floats, b=finite_floats)
def test_dur_arithmetic_is_float_arithmetic(a, b):
    ta, tb = Time(a, "dur"), Time(b, "dur")
    s = a + b
    assume(math.isfinite(s))
    assert (ta + tb).value == s
    d = a - b
    assume(math.isfinite(d))
    assert (ta - tb).value == d


@PROPERTY
@given(n=st.integers(min_value=-(10**12), max_value=10**12), f=st.floats(min_value=-4, max_value=4), unit=int_units)
def test_scaling_truncates(n, f, unit):
    r = Time(n, unit) * f
    assert r.unit is unit and type(r.value) is int and r.value == int(n * f)
    # Time * dur Time: the other unit, a whole count (the contract does not say whether a product
    # within 1e-9 of an integer is snapped, so only closeness is asserted here).
    q = Time(n, unit) * Time(f, "dur")
    assert q.unit is unit and type(q.value) is int and abs(q.value - n * f) < 1


@PROPERTY
# Bounds keep float a / b on the same side of every integer as the exact quotient.
@given(a=st.integers(min_value=-(2**30), max_value=2**30), b=st.integers(min_value=1, max_value=2**20), unit=int_units)
def test_division(a, b, unit):
    q = Time(a, unit) / b
    assert q.unit is unit and type(q.value) is int and q.value == int(a / b)
    r = Time(a, unit) / Time(b, unit)
    assert r.unit is TimeUnit.DURATION and type(r.value) is float and r.value == a / b
    m = Time(a, unit) % Time(b, unit)
    assert m.unit is unit and m.value == a % b


@PROPERTY
@given(a=big_ints, b=big_ints, unit=int_units)
def test_ordering_matches_values(a, b, unit):
    ta, tb = Time(a, unit), Time(b, unit)
    assert (ta < tb) is (a < b)
    assert (ta <= tb) is (a <= b)
    assert (ta > tb) is (a > b)
    assert (ta >= tb) is (a >= b)
    assert (ta == tb) is (a == b)
    assert (ta != tb) is (a != b)
    assert (ta < b) is (a < b)
    assert (a < tb) is (a < b)


@PROPERTY
@given(a=finite_floats, b=finite_floats)
def test_dur_ordering_matches_values(a, b):
    ta, tb = Time(a, "dur"), Time(b, "dur")
    assert (ta < tb) is (a < b)
    assert (ta >= tb) is (a >= b)
    assert (ta == tb) is (a == b)


@PROPERTY
@given(xs=st.lists(big_ints, max_size=20), unit=int_units)
def test_sorting_matches_values(xs, unit):
    assert [t.value for t in sorted(Time(x, unit) for x in xs)] == sorted(xs)


@PROPERTY
@given(n=big_ints, u=int_units, v=st.sampled_from(list(TimeUnit)))
def test_cross_unit_equality_is_false(n, u, v):
    assume(u is not v)
    value = float(n) if v is TimeUnit.DURATION else n
    assert (Time(n, u) == Time(value, v)) is False
    assert (Time(n, u) != Time(value, v)) is True


@PROPERTY
@given(n=big_ints, unit=int_units)
def test_hash_is_hash_of_value(n, unit):
    assert hash(Time(n, unit)) == hash(n)


# --------------------------------------------------------------------------- Timestamp counters

counts = st.integers(min_value=0, max_value=10**6)
op = st.one_of(
    st.tuples(st.just("batch"), counts, st.integers(min_value=0, max_value=10**9)),
    st.tuples(st.just("epoch")),
)


@st.composite
def timestamps(draw, max_value=2**62):
    """A consistent timestamp: in-epoch counters never exceed the totals."""
    n = st.integers(min_value=0, max_value=max_value)
    totals = {f: draw(n) for f in ("epoch", "batch", "sample", "token")}
    in_epoch = {
        f"{f}_in_epoch": draw(st.integers(min_value=0, max_value=totals[f])) for f in ("batch", "sample", "token")
    }
    return Timestamp(**totals, **in_epoch)


@PROPERTY
@given(start=timestamps(), ops=st.lists(op, max_size=60))
def test_counter_invariants(start, ops):
    ts = start
    model = values(start)
    history = [(start, dict(model))]
    for o in ops:
        if o[0] == "batch":
            _, s, t = o
            ts = ts.to_next_batch(s, t)
            model["batch"] += 1
            model["batch_in_epoch"] += 1
            model["sample"] += s
            model["sample_in_epoch"] += s
            model["token"] += t
            model["token_in_epoch"] += t
        else:
            ts = ts.to_next_epoch()
            model["epoch"] += 1
            model["batch_in_epoch"] = model["sample_in_epoch"] = model["token_in_epoch"] = 0
        history.append((ts, dict(model)))
        assert values(ts) == model
        for f in ("batch", "sample", "token"):
            assert getattr(ts, f"{f}_in_epoch") <= getattr(ts, f)

    # totals are the sums of what was fed in; epochs and batches count the calls
    batches = [o for o in ops if o[0] == "batch"]
    assert ts.batch.value - start.batch.value == len(batches)
    assert ts.epoch.value - start.epoch.value == len(ops) - len(batches)
    assert ts.sample.value - start.sample.value == sum(o[1] for o in batches)
    assert ts.token.value - start.token.value == sum(o[2] for o in batches)
    # in-epoch counters count only what came after the last epoch boundary
    last_epoch = max((i for i, o in enumerate(ops) if o[0] == "epoch"), default=None)
    if last_epoch is not None:
        tail = [o for o in ops[last_epoch + 1 :] if o[0] == "batch"]
        assert ts.batch_in_epoch.value == len(tail)
        assert ts.sample_in_epoch.value == sum(o[1] for o in tail)
        assert ts.token_in_epoch.value == sum(o[2] for o in tail)
    # timestamps are values: nothing earlier was changed by advancing
    for old, snapshot in history:
        assert values(old) == snapshot


@PROPERTY
@given(ts=timestamps(max_value=10**40))
def test_state_dict_round_trip(ts):
    sd = ts.state_dict()
    assert all(type(v) is int for v in sd.values())
    assert {f: sd[f] for f in FIELDS} == values(ts)
    back = Timestamp.from_state_dict(sd)
    assert values(back) == values(ts)
    assert back == ts


@settings(PROPERTY, max_examples=25)
@given(ts=timestamps())
def test_state_dict_weights_only_round_trip(ts):
    buf = io.BytesIO()
    torch.save(ts.state_dict(), buf)
    buf.seek(0)
    back = Timestamp.from_state_dict(torch.load(buf, weights_only=True))
    assert values(back) == values(ts)
