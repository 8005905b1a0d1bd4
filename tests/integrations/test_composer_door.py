"""Composer's own Trainer as a door: a Cadence schedule reads Composer-shaped state objects (``Time`` with ``.value``
and ``.unit.value``, ``Timestamp`` of ``Time`` counts) and gives, at every batch, the value it gives on Cadence's
own state, which the parity tests hold to Composer's schedulers (docs/migrating-composer.md)."""

from __future__ import annotations

import enum

import pytest

from schedulers import CosineAnnealingWithWarmupScheduler, LinearWithWarmupScheduler, MultiStepScheduler, evaluate_run
from schedulers.integrations.composer import ComposerState, composer_schedule


class TimeUnit(enum.Enum):
    """Composer's TimeUnit: an Enum whose values are the unit strings."""

    EPOCH = "ep"
    BATCH = "ba"
    SAMPLE = "sp"
    TOKEN = "tok"
    DURATION = "dur"


class Time:
    """Composer's Time: ``.value`` and ``.unit`` (a TimeUnit); not Cadence's class."""

    def __init__(self, value, unit):
        self.value, self.unit = value, TimeUnit(unit)


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
