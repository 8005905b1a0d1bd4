"""``Timestamp`` (docs/time-units.md, docs/resume.md).

Ports Composer's ``test_timestamp``, ``test_timestamp_update`` and the counter part of
``test_timestamp_to_next_batch_epoch_iteration`` (Cadence has no iterations or wall-clock fields).
"""

import io
from fractions import Fraction

import numpy as np
import pytest
import torch

from timeunits import NonIntegralTimeError, Time, Timestamp, TimeUnit, TimeUnitMismatchError

FIELDS = {
    "epoch": TimeUnit.EPOCH,
    "batch": TimeUnit.BATCH,
    "sample": TimeUnit.SAMPLE,
    "token": TimeUnit.TOKEN,
    "batch_in_epoch": TimeUnit.BATCH,
    "sample_in_epoch": TimeUnit.SAMPLE,
    "token_in_epoch": TimeUnit.TOKEN,
}


def counters(ts) -> dict:
    """Every counter as a plain value, checking each is a Time of its unit holding an int."""
    out = {}
    for name, unit in FIELDS.items():
        t = getattr(ts, name)
        assert isinstance(t, Time), (name, t)
        assert t.unit is unit, (name, t.unit)
        assert type(t.value) is int, (name, type(t.value))
        out[name] = t.value
    return out


def expect(**nonzero) -> dict:
    d = dict.fromkeys(FIELDS, 0)
    d.update(nonzero)
    return d


SAMPLE_TS = dict(epoch=5, batch=50, sample=500, token=5000, batch_in_epoch=3, sample_in_epoch=30, token_in_epoch=300)


# --------------------------------------------------------------------------- construction


def test_default_is_all_zero():
    assert counters(Timestamp()) == expect()


def test_keyword_construction_each_attribute_is_time_of_its_unit():
    ts = Timestamp(**SAMPLE_TS)
    assert counters(ts) == SAMPLE_TS


def test_constructor_is_keyword_only():
    with pytest.raises(TypeError):
        Timestamp(1)  # type: ignore[misc]
    with pytest.raises(TypeError):
        Timestamp(1, 2, 3, 4, 5, 6, 7)  # type: ignore[misc]


@pytest.mark.parametrize("bad", ["iteration", "epochs", "wct", "duration"])
def test_unknown_keyword_is_type_error(bad):
    with pytest.raises(TypeError):
        Timestamp(**{bad: 1})


@pytest.mark.parametrize("field", list(FIELDS))
def test_float_counter_is_rejected(field):
    with pytest.raises(TypeError):
        Timestamp(**{field: 1.5})


@pytest.mark.parametrize("value", [np.int64(3), torch.tensor(3)], ids=["numpy", "torch"])
def test_integer_like_counters_become_plain_ints(value):
    ts = Timestamp(batch=value)
    assert counters(ts) == expect(batch=3)
    assert type(ts.state_dict()["batch"]) is int


def test_time_valued_counters_accepted():
    # Composer's Timestamp accepts ``int | Time`` of the matching unit for every counter.
    ts = Timestamp(epoch=Time(2, "ep"), batch=Time(7, "ba"))
    assert counters(ts) == expect(epoch=2, batch=7)


# --------------------------------------------------------------------------- get


GET = [
    ("ep", "epoch"), ("EP", "epoch"), ("epoch", "epoch"), ("Epoch", "epoch"), (TimeUnit.EPOCH, "epoch"),
    ("ba", "batch"), ("BA", "batch"), ("batch", "batch"), (TimeUnit.BATCH, "batch"),
    ("sp", "sample"), ("Sp", "sample"), ("sample", "sample"), (TimeUnit.SAMPLE, "sample"),
    ("tok", "token"), ("TOK", "token"), ("token", "token"), (TimeUnit.TOKEN, "token"),
]  # fmt: skip


@pytest.mark.parametrize("unit,field", GET, ids=[str(u) for u, _ in GET])
def test_get(unit, field):
    ts = Timestamp(**SAMPLE_TS)
    got = ts.get(unit)
    assert isinstance(got, Time)
    assert got.unit is FIELDS[field]
    assert got.value == SAMPLE_TS[field] and type(got.value) is int
    assert got == getattr(ts, field)


@pytest.mark.parametrize("unit", ["dur", "DUR", "duration", TimeUnit.DURATION])
def test_get_dur_is_error(unit):
    with pytest.raises(ValueError) as info:
        Timestamp(**SAMPLE_TS).get(unit)
    assert "dur" in str(info.value).lower()


@pytest.mark.parametrize("unit", ["iter", "sec", "epochs"])
def test_get_unknown_unit_is_error(unit):
    with pytest.raises(ValueError) as info:
        Timestamp().get(unit)
    assert unit in str(info.value)


def test_composer_timestamp():
    timestamp = Timestamp()
    time = Time(10, "ep")
    assert timestamp < time
    assert timestamp.get(time.unit) == Time.from_epoch(0)


# --------------------------------------------------------------------------- advancing


def test_to_next_batch_from_zero():
    ts = Timestamp().to_next_batch(samples=10, tokens=20)
    assert counters(ts) == expect(batch=1, batch_in_epoch=1, sample=10, sample_in_epoch=10, token=20, token_in_epoch=20)


def test_to_next_batch_defaults_count_only_the_batch():
    ts = Timestamp(**SAMPLE_TS).to_next_batch()
    assert counters(ts) == {**SAMPLE_TS, "batch": 51, "batch_in_epoch": 4}


def test_to_next_batch_positional():
    ts = Timestamp(**SAMPLE_TS).to_next_batch(7, 70)
    assert counters(ts) == {
        **SAMPLE_TS,
        "batch": 51,
        "batch_in_epoch": 4,
        "sample": 507,
        "sample_in_epoch": 37,
        "token": 5070,
        "token_in_epoch": 370,
    }


def test_to_next_batch_integer_like_counts():
    ts = Timestamp().to_next_batch(samples=torch.tensor(4), tokens=np.int64(9))
    assert counters(ts) == expect(batch=1, batch_in_epoch=1, sample=4, sample_in_epoch=4, token=9, token_in_epoch=9)
    assert all(type(v) is int for v in ts.state_dict().values())


def test_to_next_epoch_zeroes_in_epoch_counters_and_keeps_totals():
    ts = Timestamp(**SAMPLE_TS).to_next_epoch()
    assert counters(ts) == expect(epoch=6, batch=50, sample=500, token=5000)


def test_advancing_returns_new_objects():
    ts = Timestamp(**SAMPLE_TS)
    nb = ts.to_next_batch(1, 1)
    ne = ts.to_next_epoch()
    assert nb is not ts and ne is not ts
    assert counters(ts) == SAMPLE_TS


def test_composer_batch_epoch_sequence():
    ts = Timestamp()
    # batch 0 of epoch 0
    ts = ts.to_next_batch(10, 20)
    assert counters(ts) == expect(batch=1, batch_in_epoch=1, sample=10, sample_in_epoch=10, token=20, token_in_epoch=20)
    # finish epoch 0
    ts = ts.to_next_epoch()
    assert counters(ts) == expect(epoch=1, batch=1, sample=10, token=20)
    # batch 0 of epoch 1
    ts = ts.to_next_batch(5, 0)
    assert counters(ts) == expect(epoch=1, batch=2, batch_in_epoch=1, sample=15, sample_in_epoch=5, token=20)
    # batch 1 of epoch 1
    ts = ts.to_next_batch(5, 1)
    assert counters(ts) == expect(
        epoch=1, batch=3, batch_in_epoch=2, sample=20, sample_in_epoch=10, token=21, token_in_epoch=1
    )
    # finish epoch 1
    ts = ts.to_next_epoch()
    assert counters(ts) == expect(epoch=2, batch=3, sample=20, token=21)
    # batch 0 of epoch 2
    ts = ts.to_next_batch(5, 1)
    assert counters(ts) == expect(
        epoch=2, batch=4, batch_in_epoch=1, sample=25, sample_in_epoch=5, token=22, token_in_epoch=1
    )


# --------------------------------------------------------------------------- copy


def test_composer_copy():
    timestamp = Timestamp(epoch=1)
    timestamp_2 = timestamp.copy(batch=2)
    assert timestamp_2.epoch == 1
    assert timestamp_2.batch == 2
    assert timestamp_2.sample == 0
    assert timestamp is not timestamp_2
    assert counters(timestamp) == expect(epoch=1)


def test_copy_without_changes():
    ts = Timestamp(**SAMPLE_TS)
    c = ts.copy()
    assert c is not ts
    assert counters(c) == SAMPLE_TS


def test_copy_several_changes():
    ts = Timestamp(**SAMPLE_TS)
    c = ts.copy(token=1, token_in_epoch=1, epoch=0)
    assert counters(c) == {**SAMPLE_TS, "token": 1, "token_in_epoch": 1, "epoch": 0}


def test_copy_rejects_unknown_field():
    with pytest.raises(TypeError):
        Timestamp().copy(epochs=1)


def test_copy_rejects_float():
    with pytest.raises(TypeError):
        Timestamp().copy(batch=2.5)


# --------------------------------------------------------------------------- state_dict


def test_state_dict_holds_plain_ints():
    sd = Timestamp(**SAMPLE_TS).state_dict()
    assert isinstance(sd, dict)
    assert {k: sd[k] for k in FIELDS} == SAMPLE_TS
    for k, v in sd.items():
        assert isinstance(k, str)
        assert type(v) is int, (k, type(v))


def test_state_dict_round_trip():
    ts = Timestamp(**SAMPLE_TS).to_next_batch(3, 4)
    back = Timestamp.from_state_dict(ts.state_dict())
    assert isinstance(back, Timestamp)
    assert counters(back) == counters(ts)


def test_state_dict_is_a_snapshot():
    ts = Timestamp(**SAMPLE_TS)
    sd = ts.state_dict()
    sd["batch"] = 999
    assert ts.batch.value == 50


def test_state_dict_loads_with_weights_only():
    ts = Timestamp(**SAMPLE_TS).to_next_batch(2**40, 2**50)
    buf = io.BytesIO()
    torch.save({"timestamp": ts.state_dict()}, buf)
    buf.seek(0)
    loaded = torch.load(buf, weights_only=True)
    back = Timestamp.from_state_dict(loaded["timestamp"])
    assert counters(back) == counters(ts)


def test_timestamp_equality():
    assert Timestamp(**SAMPLE_TS) == Timestamp(**SAMPLE_TS)
    assert Timestamp(epoch=1) != Timestamp(epoch=2)
    assert Timestamp.from_state_dict(Timestamp(**SAMPLE_TS).state_dict()) == Timestamp(**SAMPLE_TS)


# --------------------------------------------------------------------------- comparisons with Time


COMPARE = [
    # (expression, expected) on ts = Timestamp(**SAMPLE_TS)
    (lambda ts: ts >= Time(5, "ep"), True),
    (lambda ts: ts > Time(5, "ep"), False),
    (lambda ts: ts <= Time(5, "ep"), True),
    (lambda ts: ts < Time(6, "ep"), True),
    (lambda ts: ts == Time(5, "ep"), True),
    (lambda ts: ts != Time(5, "ep"), False),
    (lambda ts: ts >= Time(51, "ba"), False),
    (lambda ts: ts > Time(499, "sp"), True),
    (lambda ts: ts < Time(5001, "tok"), True),
    (lambda ts: ts == Time(50, "ba"), True),
    # Time on the left
    (lambda ts: Time(5, "ep") <= ts, True),
    (lambda ts: Time(5, "ep") < ts, False),
    (lambda ts: Time(6, "ep") > ts, True),
    (lambda ts: Time(500, "sp") >= ts, True),
    (lambda ts: Time(50, "ba") == ts, True),
    (lambda ts: Time(49, "ba") != ts, True),
]


@pytest.mark.parametrize("expr,expected", COMPARE, ids=[str(i) for i in range(len(COMPARE))])
def test_compare_with_time(expr, expected):
    assert expr(Timestamp(**SAMPLE_TS)) is expected


def test_compare_with_dur_is_error():
    with pytest.raises(ValueError):
        _ = Timestamp(**SAMPLE_TS) >= Time(0.5, "dur")


# --------------------------------------------------------------------------- immutability


@pytest.mark.parametrize("field", list(FIELDS))
def test_timestamp_is_immutable(field):
    ts = Timestamp(**SAMPLE_TS)
    with pytest.raises((AttributeError, TypeError)):
        setattr(ts, field, Time(0, FIELDS[field]))
    with pytest.raises((AttributeError, TypeError)):
        setattr(ts, field, 0)
    assert counters(ts) == SAMPLE_TS


# --------------------------------------------------------------------------- rulings after the first conformance run


@pytest.mark.parametrize(
    "other,expected",
    [("50ba", True), ("51ba", False), (" 5 EP ", True), ("500sp", True), ("5001tok", False), ("50ep", False)],
)
def test_eq_with_a_time_string_parses_it_like_ordering_does(other, expected):
    ts = Timestamp(**SAMPLE_TS)
    assert (ts == other) is expected
    assert (ts != other) is (not expected)
    assert (ts == other) is (ts == Time.from_timestring(other))


@pytest.mark.parametrize("other", ["0.5dur", "50", "not a time", "5sec"])
def test_eq_with_a_string_that_is_no_count_is_false_never_an_error(other):
    ts = Timestamp(**SAMPLE_TS)
    assert (ts == other) is False
    assert (ts != other) is True


def _assert_non_integral(info, name: str) -> None:
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)
    assert name in str(info.value)


@pytest.mark.parametrize("value", [1.5, 2.0, np.float64(3.0), torch.tensor(3.0)], ids=["1.5", "2.0", "np", "torch"])
@pytest.mark.parametrize("field", list(FIELDS))
def test_float_counter_is_the_non_integral_error(field, value):
    with pytest.raises(NonIntegralTimeError) as info:
        Timestamp(**{field: value})
    _assert_non_integral(info, field)


@pytest.mark.parametrize("argument", ["samples", "tokens"])
def test_to_next_batch_float_count_is_the_non_integral_error(argument):
    with pytest.raises(NonIntegralTimeError) as info:
        Timestamp().to_next_batch(**{argument: 1.5})
    _assert_non_integral(info, argument)


def test_copy_and_from_state_dict_float_counter_is_the_non_integral_error():
    with pytest.raises(NonIntegralTimeError) as info:
        Timestamp(**SAMPLE_TS).copy(batch=2.5)
    _assert_non_integral(info, "batch")
    with pytest.raises(NonIntegralTimeError) as info:
        Timestamp.from_state_dict({**SAMPLE_TS, "token": 7.0})
    _assert_non_integral(info, "token")


@pytest.mark.parametrize(
    "argument,wrong", [("samples", Time(1, "ba")), ("samples", Time(1, "tok")), ("tokens", Time(1, "sp"))]
)
def test_to_next_batch_wrong_unit_time_is_a_unit_mismatch(argument, wrong):
    with pytest.raises(TimeUnitMismatchError) as info:
        Timestamp().to_next_batch(**{argument: wrong})
    assert argument in str(info.value) and str(wrong) in str(info.value)


def test_to_next_batch_accepts_a_time_of_the_right_unit():
    ts = Timestamp().to_next_batch(samples=Time(32, "sp"), tokens=Time(4096, "tok"))
    assert counters(ts) == expect(batch=1, sample=32, token=4096, batch_in_epoch=1, sample_in_epoch=32,
                                  token_in_epoch=4096)  # fmt: skip


def test_constructor_wrong_unit_time_is_a_unit_mismatch():
    with pytest.raises(TimeUnitMismatchError) as info:
        Timestamp(batch=Time(3, "ep"))
    assert "batch" in str(info.value) and "3ep" in str(info.value)


@pytest.mark.parametrize(
    "partial",
    [
        dict(epoch=2, batch_in_epoch=3),
        dict(sample_in_epoch=64),
        dict(token_in_epoch=10, token=4),
        dict(batch=1, batch_in_epoch=5, sample=0, sample_in_epoch=9),
    ],
)
def test_partial_timestamps_are_accepted(partial):
    # Composer's Timestamp relates no counter to another; a partial one (e.g. in a test or a resume) is fine.
    ts = Timestamp(**partial)
    assert counters(ts) == expect(**partial)
    assert Timestamp.from_state_dict(ts.state_dict()) == ts
    assert counters(ts.to_next_batch(samples=1)) == {
        **expect(**partial),
        "batch": partial.get("batch", 0) + 1,
        "batch_in_epoch": partial.get("batch_in_epoch", 0) + 1,
        "sample": partial.get("sample", 0) + 1,
        "sample_in_epoch": partial.get("sample_in_epoch", 0) + 1,
    }


@pytest.mark.parametrize("field", list(FIELDS))
def test_negative_counter_is_an_error_naming_it(field):
    with pytest.raises(ValueError, match=rf"{field}\b.*-1"):
        Timestamp(**{field: -1})
    with pytest.raises(ValueError, match=field):
        Timestamp().copy(**{field: -2})


@pytest.mark.parametrize("argument", ["samples", "tokens"])
def test_to_next_batch_negative_count_is_an_error_naming_it(argument):
    with pytest.raises(ValueError, match=argument):
        Timestamp().to_next_batch(**{argument: -1})


@pytest.mark.parametrize(
    "build, error, message",
    [
        (
            lambda: Time(np.float64(2.0), "ba"),
            NonIntegralTimeError,
            "Time(np.float64(2.0), 'ba'): ba values must be ints, got the float np.float64(2.0) (write 2)",
        ),
        (
            lambda: Time(Fraction(1, 2), "ep"),
            NonIntegralTimeError,
            "Time(Fraction(1, 2), 'ep'): ep values must be ints, got Fraction Fraction(1, 2)",
        ),
        (
            lambda: Time(3, "ba") < 2.5,
            NonIntegralTimeError,
            "cannot compare 3ba with 2.5: ba values must be ints, got the float 2.5",
        ),
        (lambda: Timestamp(batch=np.int64(-1)), ValueError, "Timestamp batch must be >= 0, got -1"),
        (
            lambda: Timestamp(sample=2.0),
            NonIntegralTimeError,
            "Timestamp sample: sp values must be ints, got the float 2.0 (write 2)",
        ),
        (
            lambda: Timestamp(batch="x"),
            TypeError,
            "Timestamp batch must be an int (or a Time in ba), got 'x' of type str",
        ),
        (
            lambda: Timestamp(batch=Time(3, "ep")),
            TimeUnitMismatchError,
            "Timestamp batch must be in ba, got 3ep (in ep)",
        ),
        (
            lambda: Timestamp().to_next_batch(2.5),
            NonIntegralTimeError,
            "Timestamp.to_next_batch samples: sp values must be ints, got the float 2.5",
        ),
    ],
)
def test_counter_errors_read_the_same_off_the_fast_path(build, error, message):
    # the messages are built only when raising (the common int path formats nothing): pin their wording
    with pytest.raises(error) as info:
        build()
    assert str(info.value) == message


def test_integer_like_values_take_the_fast_path_to_plain_ints():
    assert type(Time(np.int64(3), "ba").value) is int and Time(torch.tensor(3), "ep") == Time(3, "ep")
    assert Time(3, "ba") < np.int64(4) and not Time(3, "ba") < torch.tensor(3)
    assert Timestamp(batch=np.int64(5), sample=Time(2, "sp")).state_dict()["batch"] == 5


@pytest.mark.parametrize("start", [{}, dict(epoch=2, batch_in_epoch=3, sample=5, sample_in_epoch=9, token_in_epoch=1)])
def test_a_walk_of_batches_and_epochs_reads_what_plain_counting_gives(start):
    # Four slots hold the seven counters (the totals and the epoch's start, shared by the epoch's timestamps):
    # after batches of varying counts and epochs closed, from a partial timestamp too, every way of reading a
    # counter agrees with counting each one by hand.
    model, ts = expect(**start), Timestamp(**start)
    for step in range(40):
        if step % 7 == 6:
            ts = ts.to_next_epoch()
            model.update(epoch=model["epoch"] + 1, batch_in_epoch=0, sample_in_epoch=0, token_in_epoch=0)
        else:
            samples, tokens = 3 * step % 11, 100 * (step % 4)
            ts = ts.to_next_batch(samples, tokens)
            for name, added in (("batch", 1), ("sample", samples), ("token", tokens)):
                model[name] += added
                model[f"{name}_in_epoch"] += added
        assert counters(ts) == ts.state_dict() == model, step
        assert Timestamp.from_state_dict(model) == ts and hash(Timestamp.from_state_dict(model)) == hash(ts)
        for unit, name in (("ep", "epoch"), ("ba", "batch"), ("sp", "sample"), ("tok", "token")):
            assert ts.count(unit) == Timestamp.counter(unit)(ts) == ts.get(unit).value == model[name], (step, unit)
            if unit != "ep":
                assert Timestamp.counter(unit, in_epoch=True)(ts) == model[f"{name}_in_epoch"], (step, unit)
