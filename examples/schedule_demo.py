"""Schedule demo: a time-unit schedule in your own training loop, without Cadence's trainer.

Run: ``python examples/schedule_demo.py``. It resolves a warmup + cosine schedule for a run of 4 epochs, drives a
real optimizer with it through a :class:`~schedulers.Clock` (the clock Cadence's trainer uses too), and checks
that the learning rates the loop trained with are the whole-run preview ``evaluate_run`` draws, batch for batch.
"""

from __future__ import annotations

import torch

from schedulers import Clock, CosineAnnealingWithWarmupScheduler, compile_scheduler, evaluate_run

BATCHES_PER_EPOCH, EPOCHS, BATCH_SIZE, PEAK_LR = 50, 4, 32, 0.2


def train(schedule, max_duration: str) -> list[float]:
    """A tiny noisy regression trained with ``schedule`` on the optimizer's lr; the lr of every batch."""
    torch.manual_seed(0)
    model, target = torch.nn.Linear(8, 1), torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=PEAK_LR)
    clock = Clock(max_duration, dataloader_len=BATCHES_PER_EPOCH)
    scheduler = compile_scheduler(schedule, opt, clock)
    lrs = []
    while not clock.done:
        for _ in range(BATCHES_PER_EPOCH):
            x = torch.randn(BATCH_SIZE, 8)
            y = target(x).detach() + 0.1 * torch.randn(BATCH_SIZE, 1)  # noisy targets: the loss floor is 0.01
            loss = torch.nn.functional.mse_loss(model(x), y)
            if clock.batches == 0:
                print(f"  first batch: loss {loss.item():.4f}")
            lrs.append(opt.param_groups[0]["lr"])  # the lr this batch trains with
            opt.zero_grad()
            loss.backward()
            opt.step()
            clock.batch(samples=BATCH_SIZE)  # time moves (the last batch of an epoch closes it) ...
            scheduler.step()  # ... then the schedule reads it
        print(f"  epoch {clock.epochs}: loss {loss.item():.4f}, next lr {opt.param_groups[0]['lr']:.4f}")
    return lrs


def main() -> None:
    schedule = CosineAnnealingWithWarmupScheduler(t_warmup="0.1dur", alpha_f=0.1)
    max_duration = f"{EPOCHS}ep"
    curve = schedule.resolve(max_duration, dataloader_len=BATCHES_PER_EPOCH)
    print(f"{schedule!r} on a run of {max_duration} x {BATCHES_PER_EPOCH}ba/ep")
    for name, time in curve.times.items():
        print(f"  {name} = {time}")

    trained = torch.tensor(train(schedule, max_duration), dtype=torch.float64)
    preview = PEAK_LR * evaluate_run(schedule, max_duration, BATCHES_PER_EPOCH)
    gap = (trained - preview).abs().max().item()
    print(f"  {len(trained)} batches trained; largest gap between the lrs trained with and the preview: {gap:.1e}")
    if gap > 1e-12:
        raise SystemExit("the preview differs from the run")

    bars = " ▁▂▃▄▅▆▇█"
    alphas = (preview / PEAK_LR)[:: max(1, len(preview) // 60)].tolist()
    print(f"  lr multiplier over the run: {''.join(bars[round(a * (len(bars) - 1))] for a in alphas)}")


if __name__ == "__main__":
    main()
