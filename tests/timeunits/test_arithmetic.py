"""Arithmetic, comparison, hashing and immutability of ``Time`` (docs/time-units.md).

Ports Composer's ``test_time_math`` and ``test_invalid_math``; where Cadence deviates (``==``/``!=``
across units answer False/True instead of raising) the Cadence behaviour is expected.
"""

import operator

import numpy as np
import pytest
import torch

from timeunits import NonIntegralTimeError, Time, TimeUnit, TimeUnitMismatchError


def ep(v):
    return Time(v, "ep")


def ba(v):
    return Time(v, "ba")


def sp(v):
    return Time(v, "sp")


def tok(v):
    return Time(v, "tok")


def dur(v):
    return Time(v, "dur")


def assert_same_time(result, expected: Time) -> None:
    """Exact value, exact value type and unit."""
    assert isinstance(result, Time), result
    assert result.unit is expected.unit, (result, expected)
    assert type(result.value) is type(expected.value), (result.value, expected.value)
    assert result.value == expected.value, (result, expected)


def assert_names_both(exc: BaseException, a, b) -> None:
    msg = str(exc)
    for x in (a, b):
        forms = {str(x), repr(x)}
        if isinstance(x, str):
            forms.add(str(Time.from_timestring(x)))
        assert any(f in msg for f in forms), (x, msg)


def test_mismatch_error_hierarchy():
    assert issubclass(TimeUnitMismatchError, ValueError)
    assert issubclass(TimeUnitMismatchError, RuntimeError)


# --------------------------------------------------------------------------- Composer's test_time_math


def test_composer_time_math():
    t1 = Time.from_timestring("1ep")
    t2 = Time.from_timestring("2ep")
    t3 = Time.from_timestring("3ep")
    t4 = Time.from_timestring("0.5dur")
    assert t1 + t2 == t3
    assert t2 - t1 == t1
    assert t1 - t2 == -t1
    assert t1 < t2
    assert t1 <= t2
    assert t2 > t1
    assert t2 >= t1
    assert t3 >= t3
    assert t3 <= t3
    assert t4 * t2 == t1
    assert 0.5 * t2 == t1
    assert t4 * 2 == Time.from_timestring("1dur")
    assert t1 / t2 == t4
    assert t2 / 2 == t1
    assert t3 % t3 == Time.from_timestring("0ep")
    assert t3 % t2 == t1


# --------------------------------------------------------------------------- + - %

ADD = [
    (ep(1), ep(2), ep(3)),
    (ep(1), 2, ep(3)),
    (ep(1), "2ep", ep(3)),
    (ep(1), " 2 EP", ep(3)),
    (ba(5), -7, ba(-2)),
    (sp(10), np.int64(5), sp(15)),
    (tok(2**53), tok(1), tok(2**53 + 1)),
    (tok(10**30), 1, tok(10**30 + 1)),
    (dur(0.25), dur(0.5), dur(0.75)),
    (dur(0.25), 0.5, dur(0.75)),
    (dur(0.25), 1, dur(1.25)),
    (dur(0.25), "0.5dur", dur(0.75)),
    (dur(0.1), dur(0.2), dur(0.1 + 0.2)),
]

SUB = [
    (ep(5), ep(2), ep(3)),
    (ep(1), ep(2), ep(-1)),
    (ep(5), 2, ep(3)),
    (ep(5), "2ep", ep(3)),
    (tok(2**53 + 1), tok(1), tok(2**53)),
    (dur(0.75), dur(0.5), dur(0.25)),
    (dur(0.75), 0.25, dur(0.5)),
    (dur(1), "0.25dur", dur(0.75)),
]

MOD = [
    (ep(3), ep(3), ep(0)),
    (ep(3), ep(2), ep(1)),
    (ba(7), 3, ba(1)),
    (ba(7), "3ba", ba(1)),
    (ba(-7), ba(3), ba(2)),  # Python (and Composer) modulo semantics
    (tok(10), tok(4), tok(2)),
    (tok(2**60 + 5), tok(2**60), tok(5)),
    (dur(0.75), dur(0.5), dur(0.25)),
]


@pytest.mark.parametrize("a,b,expected", ADD)
def test_add(a, b, expected):
    assert_same_time(a + b, expected)


@pytest.mark.parametrize("a,b,expected", SUB)
def test_sub(a, b, expected):
    assert_same_time(a - b, expected)


@pytest.mark.parametrize("a,b,expected", MOD)
def test_mod(a, b, expected):
    assert_same_time(a % b, expected)


@pytest.mark.parametrize(
    "left,t,expected",
    [
        (2, ep(1), ep(3)),
        ("2ep", ep(1), ep(3)),
        (0.5, dur(0.25), dur(0.75)),
        ("0.5dur", dur(0.25), dur(0.75)),
    ],
)
def test_reflected_add(left, t, expected):
    assert_same_time(left + t, expected)


@pytest.mark.parametrize(
    "left,t,expected",
    [
        (5, ep(2), ep(3)),
        (0, ba(3), ba(-3)),
        ("5ep", ep(2), ep(3)),
        (1, dur(0.25), dur(0.75)),
    ],
)
def test_reflected_sub(left, t, expected):
    assert_same_time(left - t, expected)


@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mod])
@pytest.mark.parametrize("number", [2.0, 2.5])
def test_float_operand_for_int_unit_is_rejected(op, number):
    # The number is converted with from_input(number, self.unit): a float is never an integer-unit value.
    with pytest.raises(NonIntegralTimeError):
        op(ep(3), number)


# --------------------------------------------------------------------------- * /

MUL = [
    (ep(10), 0.75, ep(7)),
    (ep(10), 3, ep(30)),
    (ep(2), 0.5, ep(1)),
    (ep(-10), 0.75, ep(-7)),  # int() truncates toward zero
    (ep(3), 0.5, ep(1)),
    (ba(10), np.float64(0.75), ba(7)),
    (ba(10), 0, ba(0)),
    (sp(7), 1.0, sp(7)),
    (tok(2**53 + 1), 2, tok(2**54 + 2)),  # an int factor stays exact
    (dur(0.5), 2, dur(1.0)),
    (dur(0.5), 0.5, dur(0.25)),
    (ep(10), dur(0.5), ep(5)),
    (dur(0.5), ep(10), ep(5)),  # dur on the left: the other unit
    (ep(3), dur(0.5), ep(1)),
    (dur(0.5), dur(0.5), dur(0.25)),
    (ep(10), "0.5dur", ep(5)),
]


@pytest.mark.parametrize("a,b,expected", MUL)
def test_mul(a, b, expected):
    assert_same_time(a * b, expected)


@pytest.mark.parametrize(
    "left,t,expected",
    [
        (2, ep(2), ep(4)),
        (0.5, ep(2), ep(1)),
        (0.75, ep(10), ep(7)),
        (2, dur(0.5), dur(1.0)),
        ("0.5dur", ep(10), ep(5)),
    ],
)
def test_reflected_mul(left, t, expected):
    assert_same_time(left * t, expected)


def test_mul_example_from_brief():
    r = Time(10, "ep") * Time(0.5, "dur")
    assert r == Time(5, "ep") and type(r.value) is int


def test_mul_of_two_non_dur_times_same_unit_is_error():
    with pytest.raises((ValueError, RuntimeError, TypeError)):
        ep(10) * ep(2)


DIV = [
    (ep(10), 4, ep(2)),
    (-ba(5), 2, ba(-2)),
    (ep(4), 2, ep(2)),
    (ep(2), 2, ep(1)),
    (ba(7), 2.0, ba(3)),
    (sp(10), 3, sp(3)),
    (dur(1), 4, dur(0.25)),
    (dur(0.5), 0.5, dur(1.0)),
    (ep(1), ep(2), dur(0.5)),
    (ep(4), ep(2), dur(2.0)),
    (tok(3), tok(4), dur(0.75)),
    (ep(1), "2ep", dur(0.5)),
    (dur(0.5), dur(0.25), dur(2.0)),
]


@pytest.mark.parametrize("a,b,expected", DIV)
def test_truediv(a, b, expected):
    assert_same_time(a / b, expected)


def test_div_examples_from_brief():
    assert Time(10, "ep") / 4 == Time(2, "ep")
    assert -Time(5, "ba") / 2 == Time(-2, "ba")
    assert Time(10, "ep") * 0.75 == Time(7, "ep")
    assert type((Time(10, "ep") / 4).value) is int


# --------------------------------------------------------------------------- unit mismatch


MISMATCH = [
    (operator.add, ep(1), ba(1)),
    (operator.add, ep(1), "1ba"),
    (operator.add, ep(1), dur(0.5)),
    (operator.add, "1ba", ep(1)),
    (operator.sub, ep(1), ba(1)),
    (operator.sub, ep(3), tok(1)),
    (operator.sub, "1ba", ep(1)),
    (operator.mod, sp(7), tok(3)),
    (operator.mod, ep(1), ba(1)),
    (operator.truediv, ep(1), ba(1)),
    (operator.truediv, dur(0.5), ep(1)),
    (operator.mul, ep(1), ba(1)),
    (operator.lt, ep(1), ba(1)),
    (operator.le, ep(1), ba(1)),
    (operator.gt, ep(1), ba(1)),
    (operator.ge, ep(1), ba(1)),
    (operator.lt, ba(1), dur(0.5)),
    (operator.ge, sp(1), tok(1)),
    (operator.lt, ep(1), "2ba"),
    (operator.ge, ep(1), "0.5dur"),
]


@pytest.mark.parametrize("op,a,b", MISMATCH, ids=[f"{o.__name__}-{a}-{b}" for o, a, b in MISMATCH])
def test_unit_mismatch_raises_and_names_both(op, a, b):
    with pytest.raises(TimeUnitMismatchError) as info:
        op(a, b)
    assert isinstance(info.value, ValueError) and isinstance(info.value, RuntimeError)
    assert_names_both(info.value, a, b)


def test_composer_invalid_math_still_runtime_errors():
    # Composer's test_invalid_math, minus == and != (docs/time-units.md: they answer False / True).
    t1, t2 = Time.from_timestring("1ep"), Time.from_timestring("1ba")
    for op in (operator.gt, operator.lt, operator.ge, operator.le, operator.add, operator.sub,
               operator.truediv, operator.mod, operator.mul):  # fmt: skip
        with pytest.raises(RuntimeError):
            op(t1, t2)
    assert (t1 == t2) is False
    assert (t1 != t2) is True


# --------------------------------------------------------------------------- equality and ordering


@pytest.mark.parametrize(
    "a,b",
    [
        (ep(1), ba(1)),
        (ep(0), dur(0.0)),
        (sp(5), tok(5)),
        (ep(1), "1ba"),
        (dur(1.0), "1ep"),
    ],
)
def test_eq_across_units_is_false(a, b):
    assert (a == b) is False
    assert (a != b) is True
    assert (b == a) is False
    assert (b != a) is True


def test_membership_across_units():
    assert ba(1) not in [ep(1), sp(1)]
    assert ba(1) in [ep(1), ba(1)]


@pytest.mark.parametrize("other", [None, object(), [1], (1, "ep")])
def test_eq_with_unrelated_objects(other):
    assert (ep(1) == other) is False
    assert (ep(1) != other) is True


COMPARE = [
    # (a, op, b, expected)
    (ep(1), operator.lt, ep(2), True),
    (ep(2), operator.lt, ep(1), False),
    (ep(1), operator.le, ep(1), True),
    (ep(2), operator.gt, ep(1), True),
    (ep(1), operator.gt, ep(1), False),
    (ep(3), operator.ge, ep(3), True),
    (ep(3), operator.eq, ep(3), True),
    (ep(3), operator.ne, ep(3), False),
    (dur(0.25), operator.lt, dur(0.5), True),
    (tok(2**53 + 1), operator.gt, tok(2**53), True),  # wrong if compared as floats
    (tok(2**53 + 1), operator.eq, tok(2**53), False),
    # numbers take self's unit
    (ba(3), operator.eq, 3, True),
    (ba(3), operator.ne, 4, True),
    (ba(3), operator.lt, 4, True),
    (ba(3), operator.ge, 3, True),
    (ba(3), operator.gt, 3, False),
    (tok(2**53 + 1), operator.eq, 2**53 + 1, True),
    (tok(2**53 + 1), operator.ne, 2**53, True),
    (dur(0.5), operator.eq, 0.5, True),
    (dur(1.0), operator.eq, 1, True),
    (dur(0.5), operator.lt, 0.75, True),
    (dur(0.5), operator.gt, 0, True),
    # reflected numbers
    (3, operator.eq, ba(3), True),
    (2, operator.lt, ba(3), True),
    (4, operator.gt, ba(3), True),
    (4, operator.le, ba(3), False),
    # strings are parsed
    (ba(3), operator.eq, "3ba", True),
    (ba(3), operator.lt, "4ba", True),
    (ba(3), operator.ge, "4ba", False),
    (ba(3), operator.eq, "3ep", False),
    (ba(3), operator.ne, "3ep", True),
]


@pytest.mark.parametrize("a,op,b,expected", COMPARE, ids=[f"{a}-{op.__name__}-{b}" for a, op, b, _ in COMPARE])
def test_comparisons(a, op, b, expected):
    assert op(a, b) is expected


@pytest.mark.parametrize(
    "t,number",
    [
        (ba(3), np.int64(3)),
        (ba(3), torch.tensor(3)),
        (tok(7), np.uint8(7)),
        (dur(0.5), np.float64(0.5)),
    ],
    ids=["np.int64", "torch.int64", "np.uint8", "np.float64"],
)
def test_eq_with_integer_like_numbers_returns_bool(t, number):
    # docs/time-units.md: integer-like values are accepted; a comparison answers a plain bool.
    assert (t == number) is True
    assert (t != number) is False
    assert (t < number) is False
    assert (t >= number) is True


@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.truediv, operator.mod, operator.lt])
@pytest.mark.parametrize("other", [None, [1], object()], ids=["None", "list", "object"])
def test_unsupported_operand_types_raise_type_error(op, other):
    with pytest.raises(TypeError):
        op(ep(1), other)


def test_sorting_and_min_max():
    times = [ep(3), ep(1), ep(2), ep(-1)]
    assert [t.value for t in sorted(times)] == [-1, 1, 2, 3]
    assert max(times) == ep(3)
    assert min(times) == ep(-1)


# --------------------------------------------------------------------------- unary, conversions, hash


@pytest.mark.parametrize(
    "t,expected_neg",
    [(ba(5), ba(-5)), (ep(0), ep(0)), (dur(0.5), dur(-0.5)), (tok(-(2**60)), tok(2**60))],
)
def test_unary(t, expected_neg):
    assert_same_time(-t, expected_neg)
    assert_same_time(+t, t)


@pytest.mark.parametrize(
    "t,as_int,as_float",
    [
        (ep(3), 3, 3.0),
        (dur(0.7), 0, 0.7),
        (dur(-0.7), 0, -0.7),
        (dur(2.5), 2, 2.5),
        (tok(2**70 + 1), 2**70 + 1, float(2**70 + 1)),
    ],
)
def test_int_and_float(t, as_int, as_float):
    assert type(int(t)) is int and int(t) == as_int
    assert type(float(t)) is float and float(t) == as_float


@pytest.mark.parametrize("t", [ep(3), ba(-1), tok(2**70), dur(0.5), dur(1.0), dur(0.0)])
def test_hash_is_hash_of_value(t):
    assert hash(t) == hash(t.value)


def test_hash_consistent_with_eq():
    assert hash(dur(1)) == hash(1)
    assert len({ep(1), ep(1)}) == 1
    assert len({ep(1), ba(1)}) == 2  # same hash, but not equal
    d = {ep(1): "one epoch", ba(1): "one batch"}
    assert d[Time(1, "ep")] == "one epoch"
    assert d[Time(1, "ba")] == "one batch"


# --------------------------------------------------------------------------- immutability


@pytest.mark.parametrize("attr,new", [("value", 5), ("unit", TimeUnit.BATCH)])
def test_time_is_immutable(attr, new):
    t = ep(1)
    with pytest.raises((AttributeError, TypeError)):
        setattr(t, attr, new)
    assert t.value == 1 and t.unit is TimeUnit.EPOCH


def test_operations_do_not_mutate_operands():
    a, b = ep(1), ep(2)
    alias = a
    a += b
    assert a == ep(3)
    assert alias.value == 1 and b.value == 2
    c = dur(0.5)
    _ = c * 2, -c, c / 2, c % 0.25
    assert c.value == 0.5


# --------------------------------------------------------------------------- ordering against floats (ruling)


@pytest.mark.parametrize("op", [operator.lt, operator.le, operator.gt, operator.ge])
@pytest.mark.parametrize("number", [3.5, 3.0, np.float64(2.5), torch.tensor(3.5), float("inf")],
                         ids=["3.5", "3.0", "np.float64", "torch.float", "inf"])  # fmt: skip
@pytest.mark.parametrize("unit", ["ep", "ba", "sp", "tok"])
def test_ordering_an_integer_unit_against_a_float_is_the_non_integral_error(op, number, unit):
    # As ``+`` does: the number is read with from_input(number, self.unit), and a float is no count.
    with pytest.raises(NonIntegralTimeError) as info:
        op(Time(3, unit), number)
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)
    with pytest.raises(NonIntegralTimeError):
        op(number, Time(3, unit))  # reflected


@pytest.mark.parametrize("unit", ["ep", "ba", "sp", "tok"])
def test_equality_against_a_float_answers_without_raising(unit):
    assert (Time(3, unit) == 3.0) is True
    assert (Time(3, unit) != 3.0) is False
    assert (Time(3, unit) == 3.5) is False
    assert (Time(3, unit) != 3.5) is True
    assert (3.5 == Time(3, unit)) is False


def test_ordering_dur_against_floats_and_ints_still_works():
    assert dur(0.5) < 0.75 and dur(0.5) >= 0.5 and dur(1.0) <= 1 and dur(0.5) < float("inf")
    assert ba(3) < 4 and ba(3) >= np.int64(3) and ba(3) > torch.tensor(2)
