"""Composer's own Trainer as a door: a Cadence schedule reads Composer-shaped state objects (``Time`` with ``.value``
and ``.unit.value``, ``Timestamp`` of ``Time`` counts) and gives, at every batch, the value it gives on Cadence's
own state, which the parity tests hold to Composer's schedulers (docs/migrating-composer.md)."""

from __future__ import annotations

import enum
import math

import pytest

from schedulers import CosineAnnealingWithWarmupScheduler, LinearWithWarmupScheduler, MultiStepScheduler, evaluate_run
from schedulers.core.run import Run
from schedulers.integrations.composer import ComposerState, composer_schedule
from timeunits import MissingTimeUnitError
from timeunits import Time as CadenceTime


class TimeUnit(enum.Enum):
    """Composer's TimeUnit: an Enum whose values are the unit strings."""

    EPOCH = "ep"
    BATCH = "ba"
    SAMPLE = "sp"
    TOKEN = "tok"
    DURATION = "dur"


class Time:
    """Composer's Time: ``.value`` and ``.unit`` (a TimeUnit); not Cadence's class. Like Composer's, it converts
    to a number (so a bare-number check alone would take it for one) and has Composer's repr."""

    def __init__(self, value, unit):
        self.value, self.unit = value, TimeUnit(unit)

    def __int__(self):
        return int(self.value)

    def __index__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)

    def __repr__(self):
        return f"Time({self.value}, TimeUnit.{self.unit.name})"


class Timestamp:
    """Composer's Timestamp: each count a Time, read through properties."""

    def __init__(self, epoch=0, batch=0, sample=0, token=0, batch_in_epoch=0, sample_in_epoch=0, token_in_epoch=0):
        self._counts = {
            "epoch": Time(epoch, "ep"),
            "batch": Time(batch, "ba"),
            "sample": Time(sample, "sp"),
            "token": Time(token, "tok"),
            "batch_in_epoch": Time(batch_in_epoch, "ba"),
            "sample_in_epoch": Time(sample_in_epoch, "sp"),
            "token_in_epoch": Time(token_in_epoch, "tok"),
        }

    def __getattr__(self, name):
        try:
            return self.__dict__["_counts"][name]
        except KeyError:
            raise AttributeError(name) from None


class State:
    """Composer's State, as far as a scheduler reads it."""

    def __init__(self, max_duration, dataloader_len):
        self.max_duration, self.dataloader_len = max_duration, dataloader_len
        self.timestamp = Timestamp()


BATCHES, BATCH_SIZE = 7, 4
SCHEDULES = [
    CosineAnnealingWithWarmupScheduler(t_warmup="0.3dur", alpha_f=0.1),
    LinearWithWarmupScheduler(t_warmup="2ba", alpha_f=0.2),
    MultiStepScheduler(milestones=["1ep", "12ba"], gamma=0.5),
]


@pytest.mark.parametrize("schedule", SCHEDULES, ids=lambda s: type(s).__name__)
def test_a_cadence_schedule_reads_composers_state_at_every_batch(schedule):
    state = State(Time(3, "ep"), Time(BATCHES, "ba"))
    scheduler = composer_schedule(schedule)
    expected = evaluate_run(schedule, "3ep", dataloader_len=BATCHES, samples_per_batch=BATCH_SIZE)
    got = []
    for batch in range(3 * BATCHES):  # Composer's Trainer calls its schedulers with the state before each batch
        epoch, in_epoch = divmod(batch, BATCHES)
        state.timestamp = Timestamp(
            epoch=epoch,
            batch=batch,
            sample=batch * BATCH_SIZE,
            batch_in_epoch=in_epoch,
            sample_in_epoch=in_epoch * BATCH_SIZE,
        )
        got.append(scheduler(state, 1.0))
    assert got == pytest.approx(expected.tolist(), rel=1e-12, abs=1e-15)


def test_the_view_keeps_composers_lengths_as_one_value_each_while_they_do_not_change():
    state = State(Time(3, "ep"), Time(BATCHES, "ba"))
    view = ComposerState(state)
    assert view.max_duration is view.max_duration and str(view.max_duration) == "3ep"
    assert view.dataloader_len == BATCHES
    state.max_duration = Time(100, "ba")
    assert str(view.max_duration) == "100ba"


def test_a_composer_length_without_a_unit_cadence_knows_is_one_line():
    with pytest.raises(ValueError, match=r"^max_duration=") as caught:
        composer_schedule(CosineAnnealingWithWarmupScheduler(t_warmup="1ba"))(State(Time(0.5, "dur"), None))
    assert "\n" not in str(caught.value) and "epep" not in str(caught.value)


def _composer_cosine_with_warmup(batch, *, batches_per_epoch, epochs=3, warmup=0.3, alpha_f=0.1):
    """Composer 0.32's CosineAnnealingWithWarmupScheduler(t_warmup="0.3dur", alpha_f=0.1) at ``batch`` of a run of
    ``epochs`` epochs, written out: ``_convert_time`` makes 0.3dur ``int(0.3 * dataloader_len * epochs)`` batches;
    before it the warmup is LinearScheduler(0 -> 1 over t_warmup), then ``alpha_f + (1 - alpha_f)(1 + cos(pi f))/2``
    with ``f = min(1, (batch - t_warmup) / (t_max - t_warmup))``."""
    t_warmup = int(warmup * batches_per_epoch * epochs)
    t_max = batches_per_epoch * epochs
    if batch < t_warmup:
        return min(1.0, batch / t_warmup)
    fraction = min(1.0, (batch - t_warmup) / (t_max - t_warmup)) if t_max > t_warmup else 0.0
    return alpha_f + (1 - alpha_f) * (1 + math.cos(fraction * math.pi)) / 2


@pytest.mark.parametrize("batches_per_epoch", [7, 10], ids=["0.3dur=6.3ba->6ba", "0.3dur=9ba"])
def test_a_cadence_schedule_passed_straight_to_composers_trainer_gives_composers_lr(batches_per_epoch):
    """No wrapper: Composer's Trainer calls the schedule with its own State (issue 26, item 8)."""
    base_lr = 0.1
    schedule = CosineAnnealingWithWarmupScheduler(t_warmup="0.3dur", alpha_f=0.1)
    state = State(Time(3, "ep"), Time(batches_per_epoch, "ba"))
    for batch in range(3 * batches_per_epoch + 1):
        epoch, in_epoch = divmod(batch, batches_per_epoch)
        state.timestamp = Timestamp(
            epoch=epoch,
            batch=batch,
            sample=batch * BATCH_SIZE,
            batch_in_epoch=in_epoch,
            sample_in_epoch=in_epoch * BATCH_SIZE,
        )
        lr = base_lr * schedule(state, 1.0)  # Composer's LambdaLR: the base lr times the scheduler's value
        expected = base_lr * _composer_cosine_with_warmup(batch, batches_per_epoch=batches_per_epoch)
        assert lr == pytest.approx(expected, rel=1e-12, abs=1e-15), batch


@pytest.mark.parametrize("schedule", SCHEDULES, ids=lambda s: type(s).__name__)
def test_with_or_without_composer_schedule_the_values_are_the_same(schedule):
    state = State(Time(3, "ep"), Time(BATCHES, "ba"))
    wrapped = composer_schedule(schedule)
    for batch in range(3 * BATCHES):
        state.timestamp = Timestamp(epoch=batch // BATCHES, batch=batch, batch_in_epoch=batch % BATCHES)
        assert schedule(state, 1.0) == wrapped(state, 1.0)


def test_composers_times_read_as_cadences():
    state = State(Time(3, "ep"), Time(BATCHES, "ba"))
    run = Run.of_state(state, ssr=0.5)
    assert (str(run.length), run.dataloader_len, run.ssr) == ("3ep", BATCHES, 0.5)
    assert CadenceTime.from_input(Time(0.3, "dur")) == CadenceTime(0.3, "dur")


def test_a_bare_number_is_still_refused_with_the_unit_to_write():
    with pytest.raises(MissingTimeUnitError) as caught:
        CadenceTime.from_input(3)
    assert "3 is a bare number, not a time: write it with a unit (e.g. '3ep')" in str(caught.value)
    with pytest.raises(ValueError, match=r"^max_duration=3 has no unit"):
        CosineAnnealingWithWarmupScheduler(t_warmup="0.3dur")(
            type("S", (), {"max_duration": 3, "dataloader_len": 7, "timestamp": Timestamp()})(), 1.0
        )
