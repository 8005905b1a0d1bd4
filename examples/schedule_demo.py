"""Schedule demo: resolve a time-unit schedule for a run, drive a real optimizer with it, print the trace.

Run: ``python examples/schedule_demo.py``. (The trainer will replace this as the main job.)
"""

from __future__ import annotations

import torch

from schedulers import (
    CosineAnnealingWithWarmupScheduler,
    SchedulerState,
    compile_scheduler,
    evaluate_run,
)

BATCHES_PER_EPOCH, EPOCHS, BATCH_SIZE = 50, 4, 32


def main() -> None:
    torch.manual_seed(0)
    schedule = CosineAnnealingWithWarmupScheduler(t_warmup="0.1dur", alpha_f=0.1)
    max_duration = f"{EPOCHS}ep"
    curve = schedule.resolve(max_duration, dataloader_len=BATCHES_PER_EPOCH)
    print(f"{schedule!r} on a run of {max_duration} x {BATCHES_PER_EPOCH}ba/ep")
    for name, time in curve.times.items():
        print(f"  {name} = {time}")

    # a real (tiny) regression trained with the schedule driving the optimizer's lr
    model = torch.nn.Linear(8, 1)
    target = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.2)
    state = SchedulerState(max_duration, dataloader_len=BATCHES_PER_EPOCH)
    scheduler = compile_scheduler(schedule, opt, state)
    for epoch in range(EPOCHS):
        for _ in range(BATCHES_PER_EPOCH):
            x = torch.randn(BATCH_SIZE, 8)
            y = target(x).detach() + 0.1 * torch.randn(BATCH_SIZE, 1)  # noisy targets: the loss floor is 0.01
            loss = torch.nn.functional.mse_loss(model(x), y)
            if state.timestamp.batch.value == 0:
                print(f"  first batch: loss {loss.item():.4f}")
            opt.zero_grad()
            loss.backward()
            opt.step()
            state.timestamp = state.timestamp.to_next_batch(samples=BATCH_SIZE)
            scheduler.step()
        state.timestamp = state.timestamp.to_next_epoch()
        print(f"  epoch {epoch + 1}: loss {loss.item():.4f}, lr {opt.param_groups[0]['lr']:.4f}")

    alphas = evaluate_run(schedule, max_duration, BATCHES_PER_EPOCH)
    bars = " ▁▂▃▄▅▆▇█"
    trace = "".join(bars[round(a * (len(bars) - 1))] for a in alphas[:: max(1, len(alphas) // 60)].tolist())
    print(f"  lr multiplier over the run: {trace}")


if __name__ == "__main__":
    main()
