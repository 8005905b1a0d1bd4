"""Scheduler benchmarks, each a ratio measured in one process.

Run: ``python bench/scheduler_step.py [--skip-compile]``.

1. Per-step cost of ``compile_scheduler(CosineAnnealingWithWarmupScheduler(...)).step()`` plus advancing the
   timestamp, next to the floor (a Python loop writing ``base * f(t)`` into the param group) and torch's own
   ``LambdaLR(lambda e: 1.0).step()``; the same schedule compiled for its ``Run`` (the trainer's path: resolved
   once, each step reads only the timestamp), also on the trainer's own clock (``Clock.advance``, which also
   asks whether the batch closed the epoch, as the trainer's loop does); and the front ends' steps, which count
   their own steps (no time to advance): Cerebras ``CosineDecayLR.step()`` and SambaFlow
   ``cosine_schedule_with_warmup(...).step()``. Timed on this process's CPU time (median of 9 interleaved
   rounds), so other processes on a shared machine do not count. Gate: each ≤ 1.0× LambdaLR; aim ≤ 0.5×, and
   the trainer's path ≤ 2× the floor (its ratio printed for the clock too).
2. A 1,000,000-batch warmup + cosine run evaluated whole, next to a hand-written vectorised torch
   expression. Target ≤ 1.5×.
3. A ``torch.compile``d AdamW step over 50 steps with lr and weight_decay scheduled as 0-d tensors:
   recompiles counted with ``torch._dynamo`` counters (target 0 after the first compile), next to a float lr.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import torch  # noqa: E402
from _timing import compare, report  # noqa: E402

from schedulers import (  # noqa: E402
    Clock,
    CosineAnnealingWithWarmupScheduler,
    LinearScheduler,
    Run,
    SchedulerState,
    compile_scheduler,
    evaluate_run,
)

RUN = 1_000_000
WARMUP = 0.05
ALPHA_F = 0.1


def per_step() -> None:
    torch.set_num_threads(1)
    schedule = CosineAnnealingWithWarmupScheduler(t_warmup=f"{WARMUP}dur", alpha_f=ALPHA_F)
    state = SchedulerState(f"{RUN}ba")
    opt = torch.optim.SGD([torch.zeros(4, requires_grad=True)], lr=0.1)
    compiled = compile_scheduler(schedule, opt, state)
    state.timestamp = state.timestamp.copy(batch=RUN // 2)  # mid-run: the cosine branch

    def cadence_step():
        state.timestamp = state.timestamp.to_next_batch(32)
        compiled.step()

    floor_group = torch.optim.SGD([torch.zeros(4, requires_grad=True)], lr=0.1).param_groups[0]
    floor_clock = [RUN // 2]
    warmup, t_max, base = WARMUP * RUN, RUN, 0.1

    def floor_step():
        t = floor_clock[0] = floor_clock[0] + 1
        frac = min(1.0, (t - warmup) / (t_max - warmup))
        floor_group["lr"] = base * (ALPHA_F + (1 - ALPHA_F) * (1 + math.cos(math.pi * frac)) / 2)

    torch_opt = torch.optim.SGD([torch.zeros(4, requires_grad=True)], lr=0.1)
    torch_opt.step()  # silence torch's "scheduler before optimizer" warning
    lambda_lr = torch.optim.lr_scheduler.LambdaLR(torch_opt, lambda epoch: 1.0)
    cerebras, sambaflow = _front_ends()
    bound_step = _bound_to_its_run(schedule)
    clock_step = _on_the_trainers_clock(schedule)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        medians = compare(
            {
                "torch LambdaLR(lambda e: 1.0).step()": lambda_lr.step,
                "floor: base * f(t) into the group": floor_step,
                "Cadence: to_next_batch + step()": cadence_step,
                "Cadence: step() alone": compiled.step,
                "Cadence for its Run (the trainer): to_next_batch + step()": bound_step,
                "Cadence for its Run on a Clock: clock.advance + step()": clock_step,
                "Cerebras: CosineDecayLR.step()": cerebras.step,
                "SambaFlow: cosine_schedule_with_warmup.step()": sambaflow.step,
            },
            number=50_000,
            rounds=9,
            timer=time.process_time_ns,  # this process's CPU time: others on a shared machine do not count
        )
    baseline = "torch LambdaLR(lambda e: 1.0).step()"
    report("1. Per-step cost (ns of CPU time per call, median of 9 interleaved rounds)", medians, baseline)
    for name in (
        "Cadence: to_next_batch + step()",
        "Cadence for its Run (the trainer): to_next_batch + step()",
        "Cerebras: CosineDecayLR.step()",
        "SambaFlow: cosine_schedule_with_warmup.step()",
    ):
        ratio = medians[name] / medians[baseline]
        verdict = "PASS" if ratio <= 1.0 else "FAIL"
        print(f"  gate: {name} = {ratio:.2f}x LambdaLR.step ({verdict} <= 1.0x; aim <= 0.5x)")
    trainer, floor = "Cadence for its Run (the trainer): to_next_batch + step()", "floor: base * f(t) into the group"
    ratio = medians[trainer] / medians[floor]
    print(f"  aim: the trainer's path = {ratio:.2f}x the floor ({'MET' if ratio <= 2.0 else 'NOT MET'} <= 2x)")
    clock = medians["Cadence for its Run on a Clock: clock.advance + step()"] / medians[floor]
    print(f"  the same on the trainer's clock (the epoch's end checked too) = {clock:.2f}x the floor")


def _bound_to_its_run(schedule):
    """The trainer's path: ``schedule`` compiled for the Run its clock counts, mid-run; a step and its advance."""
    state = SchedulerState(f"{RUN}ba")
    compiled = compile_scheduler(
        schedule, torch.optim.SGD([torch.zeros(4, requires_grad=True)], lr=0.1), state, Run(f"{RUN}ba")
    )
    state.timestamp = state.timestamp.copy(batch=RUN // 2)

    def step():
        state.timestamp = state.timestamp.to_next_batch(32)
        compiled.step()

    return step


def _on_the_trainers_clock(schedule):
    """The trainer's clock (``TrainerState`` is a ``Clock``): ``schedule`` compiled for its Run, mid-run in an epoch
    of 1,000 batches; the loop's ``clock.advance`` (which closes the epoch on its last batch) and a step."""
    clock = Clock(f"{RUN}ba", dataloader_len=1000)
    compiled = compile_scheduler(
        schedule, torch.optim.SGD([torch.zeros(4, requires_grad=True)], lr=0.1), clock, Run(f"{RUN}ba")
    )
    clock.timestamp = clock.timestamp.copy(batch=RUN // 2)

    def step():
        clock.advance(32, 0)
        compiled.step()

    return step


def _front_ends():
    """A Cerebras ``CosineDecayLR`` and a SambaFlow cosine schedule, each mid-run (the decaying branch)."""
    from schedulers.cerebras import CosineDecayLR
    from schedulers.sambaflow import cosine_schedule_with_warmup

    cerebras_opt = torch.optim.SGD([torch.zeros(4, requires_grad=True)], lr=0.1)
    cerebras = CosineDecayLR(cerebras_opt, initial_learning_rate=0.1, end_learning_rate=0.001, total_iters=RUN)
    sambaflow_opt = torch.optim.SGD([torch.zeros(4, requires_grad=True)], lr=0.1)
    sambaflow_opt.step()
    sambaflow = cosine_schedule_with_warmup(sambaflow_opt, num_warmup_steps=int(WARMUP * RUN), num_training_steps=RUN)
    for _ in range(int(WARMUP * RUN) + 1):  # past the warmup
        sambaflow.step()
    return cerebras, sambaflow


def whole_run() -> None:
    torch.set_num_threads(1)
    schedule = CosineAnnealingWithWarmupScheduler(t_warmup=f"{WARMUP}dur", alpha_f=ALPHA_F)

    def by_hand():
        x = torch.arange(RUN, dtype=torch.float64)
        w = WARMUP * RUN
        frac = torch.clamp((x - w) / (RUN - w), 0.0, 1.0)
        decay = ALPHA_F + (1 - ALPHA_F) * (1 + torch.cos(math.pi * frac)) / 2
        return torch.where(x < w, x / w, decay)

    def cadence():
        return evaluate_run(schedule, f"{RUN}ba")

    torch.testing.assert_close(cadence(), by_hand(), rtol=1e-12, atol=1e-12)
    samples = {"hand-written torch expression": [], "Cadence evaluate_run": []}
    for _ in range(5):
        for name, fn in (("hand-written torch expression", by_hand), ("Cadence evaluate_run", cadence)):
            start = time.perf_counter()
            fn()
            samples[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(values) * 1e9 for name, values in samples.items()}
    report(f"2. Whole run of {RUN:,} batches (ns per call, median of 5)", medians, "hand-written torch expression")
    ratio = medians["Cadence evaluate_run"] / medians["hand-written torch expression"]
    print(f"  target: {ratio:.2f}x the hand-written expression ({'PASS' if ratio <= 1.5 else 'FAIL'} <= 1.5x)")


def _compiled_run(make_value, steps: int, compiled: bool = True):
    """Train a Linear layer with a (torch.compile'd) AdamW step; return (graphs after 2 steps, after all, model)."""
    import torch._dynamo

    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    torch.manual_seed(0)
    model = torch.nn.Linear(64, 64)
    state = SchedulerState(f"{steps}ba")
    opt = torch.optim.AdamW(model.parameters(), lr=make_value(1e-3), weight_decay=make_value(0.01))
    schedules = [
        compile_scheduler(CosineAnnealingWithWarmupScheduler(t_warmup="5ba"), opt, state),
        compile_scheduler(LinearScheduler(alpha_f=0.5), opt, state, hyperparameter="weight_decay"),
    ]

    def optimizer_step():
        opt.step()

    if compiled:
        optimizer_step = torch.compile(optimizer_step, fullgraph=False)
    data = torch.randn(8, 64)
    graphs_after_warmup = 0
    for step in range(steps):
        model.zero_grad()
        model(data).pow(2).mean().backward()
        optimizer_step()
        state.timestamp = state.timestamp.to_next_batch(8)
        for schedule in schedules:
            schedule.step()
        if step == 1:  # the first two calls compile (the second sees Adam's freshly created state)
            graphs_after_warmup = torch._dynamo.utils.counters["stats"]["unique_graphs"]
    return graphs_after_warmup, torch._dynamo.utils.counters["stats"]["unique_graphs"], model


def compiled_optimizer(steps: int = 50) -> None:
    print(f"3. torch.compile'd AdamW step over {steps} steps, lr and weight_decay scheduled")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for label, make_value in (
            ("0-d tensors (Cadence updates them in place)", torch.tensor),
            ("Python floats", float),
        ):
            start = time.perf_counter()
            early, total, model = _compiled_run(make_value, steps)
            elapsed = time.perf_counter() - start
            # the compiled steps must have used the moving values: compare with eager training
            _, _, eager = _compiled_run(make_value, steps, compiled=False)
            gap = max((a - b).abs().max().item() for a, b in zip(model.parameters(), eager.parameters(), strict=True))
            print(
                f"  {label}: graphs after 2 steps {early}, after {steps}: {total} -> recompiles after warm-up: "
                f"{total - early}; max |compiled - eager| weight gap {gap:.1e} ({elapsed:.1f}s)"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--skip-compile", action="store_true", help="skip the torch.compile benchmark (slow to compile)"
    )
    args = parser.parse_args()
    per_step()
    whole_run()
    if not args.skip_compile:
        compiled_optimizer()


if __name__ == "__main__":
    main()
