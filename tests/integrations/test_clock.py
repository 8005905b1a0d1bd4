"""``Clock``: a plain PyTorch loop with Cadence's time units, checked against whole-run evaluation."""

from __future__ import annotations

import io
import math
import warnings

import pytest
import torch

from schedulers import (
    ConstantScheduler,
    CosineAnnealingWithWarmupScheduler,
    LinearWithWarmupScheduler,
    MultiStepScheduler,
    SchedulerState,
    compile_scheduler,
    evaluate_run,
)
from schedulers.core.clock import Clock
from timeunits import Time, Timestamp, TimeUnit

SAMPLES, BATCH_SIZE = 37, 8  # five batches an epoch: 8, 8, 8, 8, 5 samples


def _loader(samples: int = SAMPLES, batch_size: int = BATCH_SIZE) -> torch.utils.data.DataLoader:
    generator = torch.Generator().manual_seed(0)
    data = torch.utils.data.TensorDataset(torch.randn(samples, 3, generator=generator), torch.randn(samples, 1))
    return torch.utils.data.DataLoader(data, batch_size=batch_size)


def _train(clock: Clock, schedule, loader, *, tokens_per_sample: int = 0, stop_after: int | None = None):
    """The documented loop; returns the lr each batch trained with, and the objects to checkpoint."""
    model, optimizer, scheduler = _compiled(clock, schedule)
    lrs = []
    while not clock.done:
        for x, y in loader:
            lrs.append(optimizer.param_groups[0]["lr"])
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
            optimizer.zero_grad()
            clock.batch(samples=len(x), tokens=tokens_per_sample * len(x))
            scheduler.step()
            if clock.done or len(lrs) == stop_after:
                break
        if len(lrs) == stop_after:
            break
        clock.epoch()
    return lrs, model, optimizer, scheduler


def _compiled(clock: Clock, schedule) -> tuple[torch.nn.Module, torch.optim.Optimizer, object]:
    """A seeded model, its optimizer (lr 0.5) and ``schedule`` compiled on ``clock``."""
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    return model, optimizer, compile_scheduler(schedule, optimizer, clock)


def _per_batch_samples(epochs: int) -> torch.Tensor:
    return torch.tensor([8, 8, 8, 8, 5] * epochs, dtype=torch.float64)


SCHEDULES = {
    "cosine-warmup-dur": CosineAnnealingWithWarmupScheduler(t_warmup="0.2dur", alpha_f=0.1),
    "linear-warmup-ep": LinearWithWarmupScheduler(t_warmup="1ep", alpha_f=0.05),
    "multistep-ba": MultiStepScheduler(milestones=["4ba", "9ba"], gamma=0.5),
}


@pytest.mark.parametrize("name", SCHEDULES)
def test_plain_loop_matches_evaluate_run_in_epochs(name: str) -> None:
    schedule = SCHEDULES[name]
    clock = Clock("3ep", dataloader_len=5)
    lrs, *_ = _train(clock, schedule, _loader())
    expected = 0.5 * evaluate_run(schedule, "3ep", dataloader_len=5)
    assert len(lrs) == 15
    torch.testing.assert_close(torch.tensor(lrs, dtype=torch.float64), expected, rtol=1e-12, atol=1e-15)
    assert (clock.epochs, clock.batches, clock.samples, clock.batch_in_epoch) == (3, 15, 3 * SAMPLES, 0)


def test_plain_loop_matches_evaluate_run_in_samples_with_a_short_last_batch() -> None:
    schedule = CosineAnnealingWithWarmupScheduler(t_warmup="0.25dur", alpha_f=0.1)
    clock = Clock(f"{2 * SAMPLES}sp")  # no dataloader_len: epochs are closed by clock.epoch()
    lrs, *_ = _train(clock, schedule, _loader())
    expected = 0.5 * evaluate_run(schedule, f"{2 * SAMPLES}sp", samples_per_batch=_per_batch_samples(2))
    torch.testing.assert_close(torch.tensor(lrs, dtype=torch.float64), expected, rtol=1e-12, atol=1e-15)
    assert clock.done and clock.samples == 2 * SAMPLES and clock.epochs == 2


def test_tokens_drive_a_schedule_and_the_run_length() -> None:
    schedule = LinearWithWarmupScheduler(t_warmup="100tok", alpha_f=0.0)
    clock = Clock("740tok", dataloader_len=5)  # 10 tokens a sample: 370 tokens an epoch
    lrs, *_ = _train(clock, schedule, _loader(), tokens_per_sample=10)
    tokens = 10 * _per_batch_samples(2)
    expected = 0.5 * evaluate_run(schedule, "740tok", dataloader_len=5, tokens_per_batch=tokens)
    torch.testing.assert_close(torch.tensor(lrs, dtype=torch.float64), expected, rtol=1e-12, atol=1e-15)
    assert (clock.tokens, clock.epochs, clock.done) == (740, 2, True)


def test_batch_returns_the_new_timestamp_and_counts_everything() -> None:
    clock = Clock("10ba")
    now = clock.batch(samples=4, tokens=100)
    assert now is clock.timestamp
    assert now == Timestamp(batch=1, sample=4, token=100, batch_in_epoch=1, sample_in_epoch=4, token_in_epoch=100)
    clock.batch(samples=Time(2, "sp"))
    assert (clock.batches, clock.samples, clock.tokens, clock.epochs) == (2, 6, 100, 0)


def test_the_batch_that_completes_an_epoch_closes_it() -> None:
    clock = Clock("2ep", dataloader_len=3)
    for _ in range(2):
        clock.batch()
    assert (clock.epochs, clock.batch_in_epoch) == (0, 2)
    clock.batch()
    assert (clock.epochs, clock.batch_in_epoch, clock.done) == (1, 0, False)
    assert clock.epoch() == clock.timestamp and clock.epochs == 1  # already closed: a no-op
    for _ in range(3):
        clock.batch()
    assert (clock.epochs, clock.batches, clock.done) == (2, 6, True)


def test_epoch_closes_an_epoch_without_dataloader_len() -> None:
    clock = Clock("2ep")
    assert clock.epoch().epoch.value == 0  # nothing trained yet: no epoch to close
    for _ in range(4):
        clock.batch(samples=2)
    assert (clock.epochs, clock.batch_in_epoch) == (0, 4)  # without dataloader_len only epoch() closes epochs
    clock.epoch()
    assert (clock.epochs, clock.batch_in_epoch, clock.timestamp.sample_in_epoch.value, clock.samples) == (1, 0, 0, 8)
    clock.batch()
    clock.epoch()
    assert clock.done and clock.batches == 5


@pytest.mark.parametrize(
    "max_duration, advance, steps_to_done",
    [("5ba", dict(), 5), ("20sp", dict(samples=6), 4), ("30tok", dict(tokens=10), 3)],
)
def test_done_in_the_unit_of_max_duration(max_duration: str, advance: dict, steps_to_done: int) -> None:
    clock = Clock(max_duration)
    for _ in range(steps_to_done):
        assert not clock.done
        clock.batch(**advance)
    assert clock.done and clock.batches == steps_to_done


def test_state_dict_round_trip_resumes_the_same_trace(tmp_path) -> None:
    schedule = CosineAnnealingWithWarmupScheduler(t_warmup="1ep", alpha_f=0.1)
    full, *_ = _train(Clock("3ep", dataloader_len=5), schedule, _loader())

    clock = Clock("3ep", dataloader_len=5)
    first, model, optimizer, scheduler = _train(clock, schedule, _loader(), stop_after=7)
    buffer = io.BytesIO()
    torch.save({"clock": clock.state_dict(), "scheduler": scheduler.state_dict()}, buffer)
    buffer.seek(0)
    saved = torch.load(buffer, weights_only=True)  # plain numbers and strings only
    assert saved["clock"]["timestamp"]["batch"] == 7 and saved["clock"]["max_duration"] == "3ep"

    resumed = Clock("3ep", dataloader_len=5)
    resumed.load_state_dict(saved["clock"])
    assert resumed.timestamp == clock.timestamp and (resumed.epochs, resumed.batch_in_epoch) == (1, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    scheduler = compile_scheduler(schedule, optimizer, resumed)
    scheduler.load_state_dict(saved["scheduler"])
    rest = []
    loader = iter(_loader())
    for _ in range(resumed.batch_in_epoch):  # skip what the interrupted epoch already trained on
        next(loader)
    while not resumed.done:
        for x, _y in loader:
            rest.append(optimizer.param_groups[0]["lr"])
            optimizer.step()
            resumed.batch(samples=len(x))
            scheduler.step()
        resumed.epoch()
        loader = iter(_loader())
    assert first + rest == full


def test_load_state_dict_keeps_the_constructor_arguments_and_warns() -> None:
    clock = Clock("4ep", dataloader_len=5)
    clock.batch()
    clock.batch()
    other = Clock("6ep", dataloader_len=5)
    with pytest.warns(UserWarning, match=r"max_duration 4ep -> 6ep"):
        other.load_state_dict(clock.state_dict())
    assert other.batches == 2 and other.max_duration == Time(6, "ep")
    with pytest.raises(ValueError, match="not a Clock state_dict"):
        other.load_state_dict({"batch": 3})


def test_a_clock_is_a_scheduler_state() -> None:
    clock = Clock("10ba", dataloader_len=Time(5, "ba"))
    assert isinstance(clock, SchedulerState) and clock.dataloader_len == 5
    assert ConstantScheduler(alpha=0.5, t_max="1dur")(clock) == 0.5
    assert "Clock(max_duration=10ba, dataloader_len=5" in repr(clock)


@pytest.mark.parametrize(
    "arguments, error",
    [(("0.5dur",), ValueError), (("0ba",), ValueError), (("10ba", 0), ValueError), ((10,), ValueError)],
)
def test_invalid_construction(arguments: tuple, error: type) -> None:
    with pytest.raises(error):
        Clock(*arguments)


def test_invalid_counts_are_rejected() -> None:
    clock = Clock("10ba")
    with pytest.raises(ValueError):
        clock.batch(samples=-1)
    with pytest.raises(TypeError):
        clock.batch(samples=2.5)
    assert clock.batches == 0


# -- one rule: the stepping clock, the vectorised timeline and the trainer agree ---------------------------


@pytest.mark.parametrize("dataloader_len", [1, 3, 7])
def test_vectorised_epochs_match_the_stepping_clock(dataloader_len):
    from schedulers import run_timeline
    from schedulers.core.clock import epochs_before

    clock = Clock("30ba", dataloader_len=dataloader_len)
    stepped = []
    while not clock.done:
        stepped.append(clock.epochs)
        clock.batch()
    timeline = run_timeline("30ba", dataloader_len)
    assert timeline.counts("ep").tolist() == stepped == epochs_before(torch.arange(30.0), dataloader_len).tolist()


def test_run_length_in_samples_matches_the_stepping_clock():
    from schedulers.core.clock import batches_in_run

    sizes = torch.tensor([8, 8, 5, 8, 8, 5, 8, 8, 5])
    clock = Clock("40sp", dataloader_len=3)
    taken = 0
    while not clock.done:
        clock.batch(samples=int(sizes[taken]))
        taken += 1
    assert taken == batches_in_run(Time(40, "sp"), 3, sizes, None) == 6


@pytest.mark.parametrize(
    "max_duration, dataloader_len, whole",
    [("100sp", 4, 100), ("90tok", 4, 90), ("11ba", 4, 11), ("3ep", 4, 12), ("3ep", None, 3)],
)
def test_elapsed_duration_is_progress_in_max_durations_unit(max_duration, dataloader_len, whole):
    """The stepping clock and the whole-run timeline give every batch the same fraction, counted independently
    here: samples or tokens (batches of 5 to 13 samples, 3 tokens a sample) out of max_duration, batches out of
    epochs x batches per epoch, or (epochs of unknown length) whole epochs."""
    from schedulers import run_timeline
    from schedulers.core.clock import elapsed_duration

    samples = [5, 9, 13, 7] * 30
    clock = Clock(max_duration, dataloader_len=dataloader_len)
    stepped, counted = [], []
    while not clock.done:
        elapsed = elapsed_duration(clock)
        assert elapsed.unit is TimeUnit.DURATION
        stepped.append(elapsed.value)
        k = len(counted)
        unit = max_duration.lstrip("0123456789")
        by_unit = {"sp": sum(samples[:k]), "tok": 3 * sum(samples[:k]), "ba": k, "ep": clock.epochs}
        counted.append((k if unit == "ep" and dataloader_len else by_unit[unit]) / whole)
        clock.batch(samples=samples[k], tokens=3 * samples[k])
        if dataloader_len is None and len(counted) % 4 == 0:
            clock.epoch()  # the data ran out
    assert stepped == counted
    if dataloader_len is not None:
        per_batch = torch.tensor(samples)
        timeline = run_timeline(
            max_duration, dataloader_len, samples_per_batch=per_batch, tokens_per_batch=3 * per_batch
        )
        assert timeline.fraction().tolist() == stepped


def test_the_trainer_state_is_the_clock():
    from trainer import Trainer, TrainerState

    model = torch.nn.Linear(3, 1)
    trainer = Trainer(
        model, _loader(), "7ba", torch.optim.SGD(model.parameters(), lr=0.1), progress_bar=False,
        loss_fn=torch.nn.functional.mse_loss,
    )  # fmt: skip
    assert isinstance(trainer.state, TrainerState) and isinstance(trainer.state, Clock)
    trainer.fit()
    clock = Clock("7ba", dataloader_len=len(_loader()))
    for size in [8, 8, 8, 8, 5, 8, 8]:
        clock.batch(samples=size)
    assert trainer.state.timestamp == clock.timestamp and trainer.state.done and clock.done


def test_epoch_start_view_holds_the_epoch_start():
    from schedulers.core.clock import EpochStartView

    clock = Clock("4ep", dataloader_len=3)
    view = EpochStartView(clock)
    for _ in range(4):
        clock.batch(samples=2, tokens=5)
    assert (clock.batch_in_epoch, clock.epochs) == (1, 1)
    assert view.timestamp == Timestamp(epoch=1, batch=3, sample=6, token=15)
    assert (view.max_duration, view.dataloader_len) == (clock.max_duration, 3)


# -- an epoch closed short of dataloader_len (docs/migrating-torch.md, "Gradient accumulation") -------------------


def _train_accumulating(clock: Clock, schedule, loader, accumulation: int) -> tuple[list[float], float]:
    """The documented loop with gradient accumulation: one ``clock.batch()`` per optimizer step, the last step of
    a pass taking the leftover micro-batches. Returns the lr each step trained with and the lr after the run."""
    model, optimizer, scheduler = _compiled(clock, schedule)
    lrs = []
    while not clock.done:
        samples = 0
        for index, (x, y) in enumerate(loader):
            torch.nn.functional.mse_loss(model(x), y).backward()
            samples += len(x)
            if (index + 1) % accumulation and index + 1 < len(loader):
                continue
            lrs.append(optimizer.param_groups[0]["lr"])
            optimizer.step()
            optimizer.zero_grad()
            clock.batch(samples=samples)
            scheduler.step()
            samples = 0
        clock.epoch()
    return lrs, optimizer.param_groups[0]["lr"]


ACCUMULATED = CosineAnnealingWithWarmupScheduler(t_warmup="0.2dur", alpha_f=0.1)


def test_accumulation_with_the_loaders_length_warns_once_naming_dataloader_len_and_accumulation() -> None:
    # 5 loader batches a pass, 2 per optimizer step: 3 steps a pass, but the clock is told 5 (len(loader))
    with pytest.warns(UserWarning) as caught:
        lrs, _ = _train_accumulating(Clock("3ep", dataloader_len=5), ACCUMULATED, _loader(), accumulation=2)
    short = [w for w in caught if "an epoch closed after" in str(w.message)]
    assert len(short) == 1, [str(w.message) for w in caught]  # once, though every epoch closed short
    message = str(short[0].message)
    assert "after 3 optimizer steps" in message and "dataloader_len=5" in message
    assert "dataloader_len=ceil(len(loader) / accumulation)" in message
    assert short[0].filename == __file__  # the user's clock.epoch() line, not Cadence's
    # what the warning is about: 9 steps over a schedule of 15, the run ending mid-cosine
    assert len(lrs) == 9
    torch.testing.assert_close(torch.tensor(lrs, dtype=torch.float64), 0.5 * evaluate_run(ACCUMULATED, "3ep", 5)[:9])


def test_accumulation_with_the_documented_length_trains_the_whole_schedule_in_silence() -> None:
    loader = _loader()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clock = Clock("3ep", dataloader_len=math.ceil(len(loader) / 2))
        lrs, final = _train_accumulating(clock, ACCUMULATED, loader, accumulation=2)
    assert (clock.epochs, clock.batches, clock.samples) == (3, 9, 3 * SAMPLES)
    torch.testing.assert_close(torch.tensor(lrs, dtype=torch.float64), 0.5 * evaluate_run(ACCUMULATED, "3ep", 3))
    # after the last step the cosine is at its end: 0.5 · alpha_f, exactly (cos(pi) = -1 in floating point)
    assert final == pytest.approx(0.5 * 0.1, rel=0, abs=1e-15)


def test_a_pass_longer_than_dataloader_len_warns_and_whole_passes_do_not() -> None:
    # 5 batches a pass, the clock told 4: it closes an epoch at the 4th and the pass's last batch makes a short one
    with pytest.warns(UserWarning, match=r"after 1 optimizer steps \(clock.batch\(\) calls\), but dataloader_len=4"):
        _train(Clock("2ep", dataloader_len=4), SCHEDULES["linear-warmup-ep"], _loader())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _train(Clock("2ep", dataloader_len=5), SCHEDULES["linear-warmup-ep"], _loader())  # whole passes
        _train(Clock("7ba", dataloader_len=5), SCHEDULES["linear-warmup-ep"], _loader())  # done mid-epoch
        _train(Clock("2ep"), SCHEDULES["multistep-ba"], _loader())  # no length: epoch() is what closes epochs
