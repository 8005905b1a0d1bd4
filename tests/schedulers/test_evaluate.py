"""Whole-run evaluation: α at every batch, equal to stepping the schedule, in every unit."""

from __future__ import annotations

import pytest
import torch

from schedulers import (
    CosineAnnealingWithWarmupScheduler,
    LinearWithWarmupScheduler,
    MultiStepScheduler,
    SchedulerState,
    as_schedule,
    evaluate_run,
    run_timeline,
)


def _stepped(schedule, max_duration, dataloader_len=None, samples=None, tokens=None, ssr=1.0, batches=None):
    state = SchedulerState(max_duration, dataloader_len=dataloader_len)
    values = []
    for k in range(batches):
        values.append(schedule(state, ssr))
        s = 0 if samples is None else (samples if isinstance(samples, int) else int(samples[k]))
        t = 0 if tokens is None else (tokens if isinstance(tokens, int) else int(tokens[k]))
        state.timestamp = state.timestamp.to_next_batch(s, t)
        if dataloader_len and (k + 1) % dataloader_len == 0:
            state.timestamp = state.timestamp.to_next_epoch()
    return torch.tensor(values, dtype=torch.float64)


def test_batches():
    schedule = CosineAnnealingWithWarmupScheduler(t_warmup="0.1dur", alpha_f=0.1)
    alphas = evaluate_run(schedule, "200ba")
    assert alphas.dtype == torch.float64 and alphas.shape == (200,)
    torch.testing.assert_close(alphas, _stepped(schedule, "200ba", batches=200), rtol=0, atol=1e-12)


def test_epochs_use_dataloader_len():
    schedule = MultiStepScheduler(["1ep", "2ep"], gamma=0.5)
    alphas = evaluate_run(schedule, "3ep", dataloader_len=7)
    assert alphas.shape == (21,)
    assert alphas[6].item() == 1.0 and alphas[7].item() == 0.5 and alphas[14].item() == 0.25


def test_tokens_from_variable_length_batches():
    tokens = torch.tensor([100, 250, 80, 300, 120, 90, 400, 60, 200, 150])
    schedule = LinearWithWarmupScheduler(t_warmup="300tok")
    alphas = evaluate_run(schedule, "1500tok", tokens_per_batch=tokens)
    # the run ends after the first batch whose cumulative tokens reach 1500: 100+...+400 = 1340, +60 = 1400, +200 = 1600
    assert alphas.shape == (9,)
    torch.testing.assert_close(alphas, _stepped(schedule, "1500tok", tokens=tokens, batches=9), rtol=0, atol=1e-12)


def test_samples_constant_per_batch_and_ssr():
    schedule = CosineAnnealingWithWarmupScheduler(t_warmup="64sp", scale_warmup=True)
    alphas = evaluate_run(schedule, "3200sp", samples_per_batch=32, ssr=0.5)
    assert alphas.shape == (50,)  # the run itself is scaled to 1600 samples
    torch.testing.assert_close(
        alphas, _stepped(schedule, "1600sp", samples=32, ssr=0.5, batches=50), rtol=0, atol=1e-12
    )


def test_ssr_on_epochs_gives_exact_batches():
    timeline = run_timeline("3ep", 100, ssr=0.75)
    assert timeline.num_batches == 225 and str(timeline.max_duration) == "225ba"


def test_state_functions_are_stepped():
    alphas = evaluate_run(as_schedule(lambda s: 1.0 / (1 + s.timestamp.batch.value)), "4ba")
    assert alphas.tolist() == [1.0, 0.5, 1 / 3, 0.25]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"max_duration": "100tok"}, "pass tokens_per_batch"),
        ({"max_duration": "100sp", "samples_per_batch": torch.tensor([10, 10])}, "less than max_duration"),
        ({"max_duration": "2ep"}, "dataloader_len"),
        ({"max_duration": "10ba", "ssr": -1}, "scale_schedule_ratio=-1"),
    ],
)
def test_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        evaluate_run(CosineAnnealingWithWarmupScheduler(t_warmup="0ba"), **kwargs)


def _past_the_end_cases():
    import schedulers as s

    return [
        s.StepScheduler("7ba", gamma=0.5),
        s.MultiStepScheduler(["10ba", "80ba", "150ba"], gamma=0.3),
        s.ConstantScheduler(alpha=0.25, t_max="40ba"),
        s.LinearScheduler(alpha_i=0.2, alpha_f=1.0, t_max="150ba"),
        s.ExponentialScheduler(gamma=0.97, decay_period="3ba"),
        s.CosineAnnealingScheduler(t_max="150ba", alpha_f=0.1),
        s.CosineAnnealingWarmRestartsScheduler("60ba", t_mult=0.75, alpha_f=0.05),  # shrinks to 0 at 218
        s.CosineAnnealingWarmRestartsScheduler("30ba", t_mult=1.5, alpha_f=0.05),
        s.CosineAnnealingWarmRestartsScheduler("30ba", alpha_f=0.05),
        s.PolynomialScheduler(power=1.5, t_max="250ba", alpha_f=0.05),
        s.MultiStepWithWarmupScheduler("10ba", ["30ba", "160ba"]),
        s.ConstantWithWarmupScheduler("10ba", alpha=0.5, t_max="250ba"),
        s.LinearWithWarmupScheduler("10ba", alpha_i=1.0, alpha_f=0.1, t_max="250ba"),
        s.CosineAnnealingWithWarmupScheduler("10ba", t_max="250ba", alpha_f=0.1),
        s.PolynomialWithWarmupScheduler("5ba", power=3.0, t_max="250ba"),
        s.WarmupStableDecayScheduler("10ba", t_decay="60ba", decay_shape="1-sqrt", t_max="250ba"),
        s.InverseSquareRootScheduler("8ba"),
        s.OneCycleScheduler(t_max="250ba", three_phase=True),
        s.CyclicScheduler("6ba", "4ba", mode="triangular2"),
        s.Warmup(s.CosineAnnealingWarmRestartsScheduler("60ba", t_mult=0.75), "10ba"),
        s.Sequence([s.LinearScheduler(t_max="50ba"), s.CosineAnnealingWarmRestartsScheduler("60ba", 0.75)], ["50ba"]),
        s.Product([s.ExponentialScheduler(0.99, "1ba"), s.CosineAnnealingWarmRestartsScheduler("30ba", 1.5)]),
    ]


@pytest.mark.parametrize("schedule", _past_the_end_cases(), ids=repr)
def test_past_max_duration_a_schedule_keeps_its_formula(schedule):
    """Times in batches do not depend on where the run ends, so past the end of a 100-batch run the schedule
    (per step, and its closed form on a tensor) gives what a 200-batch run gives: nothing freezes at the end."""
    longer = evaluate_run(schedule, "200ba")
    torch.testing.assert_close(_stepped(schedule, "100ba", batches=200), longer, rtol=0, atol=1e-12)
    counts = torch.arange(200, dtype=torch.float64)
    torch.testing.assert_close(schedule.resolve("100ba")(counts), longer, rtol=0, atol=1e-12)
