"""Cadence schedules in the Hugging Face Trainer: the lr of every optimizer step is the schedule at the Trainer's step.

transformers and accelerate are in the test extra. Under ``CI=true`` a missing one fails this module
(docs/integrations.md); elsewhere the module is skipped with the install line. The models are tiny and built
from code or a config (nothing is downloaded; the hub is set offline before transformers is imported), and
every Trainer writes only below the test's tmp_path.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from composer_unsized_reference import BATCHES_PER_PASS, COMPOSER_LRS, RUN_BATCHES, halving_per_epoch

from schedulers import (
    CosineAnnealingWithWarmupScheduler,
    LinearScheduler,
    LinearWithWarmupScheduler,
    as_schedule,
    evaluate_run,
)
from schedulers.integrations import huggingface as integration
from schedulers.integrations.huggingface import HuggingFaceScheduler, huggingface_scheduler
from timeunits import Time

_IN_CI = os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")
# No network for the hub, whatever the machine has: read by huggingface_hub when it is first imported.
os.environ.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HF_HUB_DISABLE_TELEMETRY="1")


def _import(name: str):
    try:
        return __import__(name)
    except ModuleNotFoundError:
        message = f"{name} is not installed: pip install -e '.[test]' (or pip install transformers accelerate)"
        if _IN_CI:
            raise ImportError(message) from None  # docs/integrations.md: in CI a missing dependency fails
        pytest.skip(message, allow_module_level=True)


_import("accelerate")
transformers = _import("transformers")
from transformers import Trainer, TrainerCallback, TrainingArguments  # noqa: E402

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning"), pytest.mark.filterwarnings("ignore::FutureWarning")]

BASE_LR = 0.1


@pytest.fixture(autouse=True)
def _in_tmp_path_on_one_thread(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # anything a Trainer writes by a relative path lands here
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny models: more threads on a busy machine only wait for each other
    yield
    torch.set_num_threads(threads)


class Regression(torch.nn.Module):
    """A linear regression with the Trainer's calling convention (keyword inputs, a loss in the output)."""

    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(3, 1)
        self.overflow = False  # set by a test callback: this step's loss is inf, as in an fp16 overflow

    def forward(self, x, labels):
        out = self.layer(x)
        loss = torch.nn.functional.mse_loss(out, labels)
        return {"loss": loss * math.inf if self.overflow else loss, "logits": out}


def _regression_data(samples: int) -> list[dict[str, torch.Tensor]]:
    generator = torch.Generator().manual_seed(0)
    return [
        {"x": torch.randn(3, generator=generator), "labels": torch.randn(1, generator=generator)}
        for _ in range(samples)
    ]


def _text_data(samples: int, length: int = 8, real: int = 6) -> list[dict[str, torch.Tensor]]:
    """Token sequences of ``length`` with ``real`` tokens that are not padding."""
    generator = torch.Generator().manual_seed(0)
    rows = []
    for _ in range(samples):
        ids = torch.randint(0, 64, (length,), generator=generator)
        mask = torch.cat([torch.ones(real, dtype=torch.long), torch.zeros(length - real, dtype=torch.long)])
        rows.append({"input_ids": ids, "attention_mask": mask, "labels": ids})
    return rows


def _tiny_gpt2() -> torch.nn.Module:
    config = transformers.GPT2Config(n_layer=2, n_embd=32, n_head=2, n_positions=16, vocab_size=64)
    return transformers.GPT2LMHeadModel(config)


class Recorder(TrainerCallback):
    """Records the step, the lr it trains with and the Cadence clock just before every optimizer step."""

    def __init__(self, scheduler: HuggingFaceScheduler, overflow_at: int | None = None) -> None:
        self.scheduler = scheduler
        self.overflow_at = overflow_at
        self.seen: list[tuple[int, float, object]] = []
        self.skipped: list[int] = []
        self.weight_decays: list[float] = []
        self.accelerator = None

    def on_step_begin(self, args, state, control, model=None, **kwargs):
        if self.overflow_at is not None:
            model.overflow = state.global_step == self.overflow_at

    def on_pre_optimizer_step(self, args, state, control, optimizer=None, **kwargs):
        group = optimizer.param_groups[0]
        self.seen.append((state.global_step, group["lr"], self.scheduler.state.timestamp))
        self.weight_decays.append(group["weight_decay"])

    def on_step_end(self, args, state, control, **kwargs):
        if self.accelerator is not None and self.accelerator.optimizer_step_was_skipped:
            self.skipped.append(state.global_step - 1)

    @property
    def steps(self) -> list[int]:
        return [step for step, _, _ in self.seen]

    @property
    def lrs(self) -> torch.Tensor:
        return torch.tensor([lr for _, lr, _ in self.seen], dtype=torch.float64)

    def counts(self, unit: str) -> list[int]:
        return [getattr(timestamp, unit).value for _, _, timestamp in self.seen]


def _args(tmp_path: Path, **overrides) -> TrainingArguments:
    settings = dict(
        output_dir=str(tmp_path / "out"),
        per_device_train_batch_size=2,
        use_cpu=True,
        report_to="none",
        dataloader_num_workers=0,
        save_strategy="no",
        logging_strategy="no",
        disable_tqdm=True,
        max_grad_norm=0.0,
        seed=0,
    )
    settings.update(overrides)
    return TrainingArguments(**settings)


def _train(schedule, args, data, *, model=None, resume=None, overflow_at=None, **config):
    """One Trainer run with the two-line recipe; returns the Trainer, the scheduler and the recorder."""
    model = Regression() if model is None else model
    optimizer = torch.optim.SGD(model.parameters(), lr=BASE_LR)
    scheduler, callback = huggingface_scheduler(schedule, optimizer, args, data, **config)
    recorder = Recorder(scheduler, overflow_at)
    trainer = Trainer(
        model=model,
        args=args,
        train_dataset=data,
        optimizers=(optimizer, scheduler),
        callbacks=[callback, recorder],
    )
    if overflow_at is not None:  # a real fp16 loss scaler, on CPU: accelerate makes one only on accelerators
        trainer.accelerator.scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10)
        recorder.accelerator = trainer.accelerator
    trainer.train(resume_from_checkpoint=resume)
    return trainer, scheduler, recorder


def _assert_lrs(recorder: Recorder, alphas: torch.Tensor) -> None:
    torch.testing.assert_close(recorder.lrs, BASE_LR * alphas, rtol=1e-12, atol=1e-15)


WARMUP_COSINE = CosineAnnealingWithWarmupScheduler(t_warmup="0.25dur", alpha_f=0.1)


@pytest.mark.parametrize("accumulate", [1, 3])
def test_a_max_steps_run_trains_every_step_at_evaluate_run(tmp_path, accumulate: int) -> None:
    args = _args(tmp_path, max_steps=12, gradient_accumulation_steps=accumulate)
    trainer, scheduler, recorder = _train(WARMUP_COSINE, args, _regression_data(50))  # 25 loader batches
    assert trainer.state.global_step == 12 and recorder.steps == list(range(12))
    _assert_lrs(recorder, evaluate_run(WARMUP_COSINE, "12ba"))
    clock = scheduler.state
    assert (clock.max_duration, clock.dataloader_len) == (Time(12, "ba"), math.ceil(25 / accumulate))
    assert clock.batches == 12 and clock.done
    assert recorder.counts("batch") == list(range(12))


def test_epochs_with_accumulation_that_does_not_divide_the_loader(tmp_path) -> None:
    # 25 loader batches, accumulation 4: the Trainer runs ceil(25 / 4) = 7 optimizer steps an epoch (not 6)
    schedule = LinearWithWarmupScheduler(t_warmup="1ep", alpha_f=0.0)
    args = _args(tmp_path, num_train_epochs=3, gradient_accumulation_steps=4)
    data = _regression_data(50)
    model = Regression()
    scheduler, _ = huggingface_scheduler(schedule, torch.optim.SGD(model.parameters(), lr=BASE_LR), args, data)
    assert (scheduler.state.max_duration, scheduler.state.dataloader_len) == (Time(3, "ep"), 7)  # before training

    trainer, scheduler, recorder = _train(schedule, args, data)
    assert trainer.state.max_steps == 21 and recorder.steps == list(range(21))
    _assert_lrs(recorder, evaluate_run(schedule, "3ep", dataloader_len=7))
    assert recorder.counts("epoch") == [0] * 7 + [1] * 7 + [2] * 7
    assert recorder.counts("batch_in_epoch") == list(range(7)) * 3
    assert (scheduler.state.epochs, scheduler.state.batches, scheduler.state.done) == (3, 21, True)


def test_a_schedule_that_reads_epochs_changes_at_the_trainers_epochs(tmp_path) -> None:
    schedule = as_schedule(lambda state: 0.5**state.timestamp.epoch.value)
    args = _args(tmp_path, num_train_epochs=3, gradient_accumulation_steps=2)
    _, scheduler, recorder = _train(schedule, args, _regression_data(16))  # 8 loader batches: 4 steps an epoch
    expected = torch.tensor([1.0] * 4 + [0.5] * 4 + [0.25] * 4, dtype=torch.float64)
    _assert_lrs(recorder, expected)
    _assert_lrs(recorder, evaluate_run(schedule, "3ep", dataloader_len=4))
    assert [timestamp for _, _, timestamp in recorder.seen if timestamp.batch.value == 4][0].epoch.value == 1
    assert (scheduler.state.epochs, scheduler.state.done) == (3, True)


class _Streamed(torch.utils.data.IterableDataset):
    """The samples of a list, streamed: a loader of it has no ``len()``."""

    def __init__(self, samples: list[dict[str, torch.Tensor]]) -> None:
        self.samples = samples

    def __iter__(self):
        return iter(self.samples)


def test_an_epoch_of_unknown_length_closes_when_the_trainer_begins_the_next() -> None:
    """A streamed dataset (its loader has no ``len()``): 10 samples in batches of 4 are 3 optimizer steps an epoch,
    which the clock cannot know; each epoch closes when the Trainer begins the next, so the clock before each step
    of a ``max_steps=8`` run is at epochs 0, 0, 0, 1, 1, 1, 2, 2, counting batches and samples within each, and
    the lr of a schedule in batches is evaluate_run's."""
    schedule = LinearScheduler(alpha_f=0.0)
    args = _args(Path("."), max_steps=8, per_device_train_batch_size=4)
    _, scheduler, recorder = _train(schedule, args, _Streamed(_regression_data(10)), get_num_samples=len_of_x)
    assert scheduler.state.dataloader_len is None and recorder.steps == list(range(8))
    assert recorder.counts("epoch") == [0, 0, 0, 1, 1, 1, 2, 2]
    assert recorder.counts("batch_in_epoch") == [0, 1, 2, 0, 1, 2, 0, 1]
    assert recorder.counts("sample_in_epoch") == [0, 4, 8, 0, 4, 8, 0, 4]
    assert recorder.counts("sample") == [0, 4, 8, 10, 14, 18, 20, 24]
    _assert_lrs(recorder, evaluate_run(schedule, "8ba"))
    assert (scheduler.state.epochs, scheduler.state.batches, scheduler.state.done) == (2, 8, True)


@pytest.mark.parametrize("sized", [True, False], ids=["len", "no-len"])
def test_the_first_step_of_an_epoch_of_unknown_length_trains_with_its_own_epochs_values(tmp_path, sized) -> None:
    """7 steps a pass, 21 steps: a schedule of the epoch count changes at steps 7 and 14 with or without a length
    (the epoch closes when the Trainer begins the next, and the values are written for it before its first step);
    Composer's own Trainer trains each with the value one step later (tests/composer_unsized_reference.py;
    docs/composer-deviations.md, deviation 4). Before the fix, steps 7 and 14 trained with 1.0 and 0.5."""
    data = _regression_data(14)
    args = _args(tmp_path, max_steps=RUN_BATCHES)
    _, scheduler, recorder = _train(halving_per_epoch, args, data if sized else _Streamed(data))
    assert scheduler.state.dataloader_len == (BATCHES_PER_PASS if sized else None)
    assert recorder.counts("epoch") == [0] * 7 + [1] * 7 + [2] * 7
    _assert_lrs(recorder, torch.tensor([1.0] * 7 + [0.5] * 7 + [0.25] * 7, dtype=torch.float64))
    composer = torch.tensor(COMPOSER_LRS["halving_per_epoch", "per_batch"], dtype=torch.float64)
    torch.testing.assert_close(recorder.lrs[:-1], BASE_LR * composer[1:], rtol=1e-12, atol=1e-15)


def len_of_x(inputs) -> int:
    """The samples of a batch of the regression data: the rows of its ``x``."""
    return len(inputs["x"])


class _OnProcess(TrainingArguments):
    """TrainingArguments as one process of several sees them (no process group needed to read its numbers)."""

    world, rank = 1, 0
    world_size = property(lambda self: self.world)
    process_index = property(lambda self: self.rank)


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("even_batches", [True, False])
@pytest.mark.parametrize("processes", [2, 3])
def test_several_processes_split_the_loader_as_accelerate_does(tmp_path, processes, even_batches, drop_last) -> None:
    from accelerate.data_loader import BatchSamplerShard

    for samples in (49, 50, 51, 56):
        for rank in range(processes):
            args = _OnProcess(
                output_dir=str(tmp_path / "out"),
                per_device_train_batch_size=4,
                gradient_accumulation_steps=3,
                dataloader_drop_last=drop_last,
                accelerator_config={"even_batches": even_batches},
                max_steps=10,
                use_cpu=True,
                report_to="none",
            )
            args.world, args.rank = processes, rank
            batches = torch.utils.data.BatchSampler(range(samples), 4, drop_last)
            shard = BatchSamplerShard(batches, processes, rank, even_batches=even_batches)
            optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=BASE_LR)
            scheduler, _ = huggingface_scheduler(WARMUP_COSINE, optimizer, args, samples)
            assert scheduler.state.dataloader_len == math.ceil(len(shard) / 3), (samples, rank)


def test_counts_are_summed_over_processes_once_per_optimizer_step(tmp_path, monkeypatch) -> None:
    # The real thing needs a process group; here a second process that counted the same is faked.
    reduced = []

    def all_reduce(tensor):
        reduced.append(tensor.tolist())
        tensor.mul_(2)

    args = _OnProcess(output_dir=str(tmp_path / "out"), max_steps=3, use_cpu=True, report_to="none")
    assert args.device.type == "cpu"  # set up before the process group is faked
    args.world = 2
    monkeypatch.setattr(torch.distributed, "is_initialized", lambda: True)
    monkeypatch.setattr(torch.distributed, "all_reduce", all_reduce)
    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=BASE_LR)
    count_tokens = {"get_num_tokens": lambda inputs: 5 * len(inputs["x"])}
    scheduler, callback = huggingface_scheduler(LinearScheduler(t_max="48sp"), optimizer, args, **count_tokens)
    model, state = Regression(), transformers.TrainerState()
    callback.on_train_begin(args, state, None, model=model, lr_scheduler=scheduler)
    for step in range(3):  # two micro-batches of 4 an optimizer step
        for _ in range(2):
            model(x=torch.zeros(4, 3), labels=torch.zeros(4, 1))
        with torch.no_grad():
            model.eval()
            model(x=torch.zeros(4, 3), labels=torch.zeros(4, 1))  # an evaluation: not counted
            model.train()
        callback.on_optimizer_step(args, state, None)
        scheduler.step()
        state.global_step = step + 1
    callback.on_train_end(args, state, None)
    assert reduced == [[8, 40]] * 3
    assert (scheduler.state.samples, scheduler.state.tokens, scheduler.state.done) == (48, 240, True)
    assert not model._forward_pre_hooks  # the counting hook is gone with the training


@pytest.mark.parametrize(
    ("samples", "batch", "accumulate", "length"),
    [(50, 2, 4, {"num_train_epochs": 3}), (50, 2, 4, {"num_train_epochs": 2.5}), (50, 4, 3, {"max_steps": 10})],
)
def test_the_run_length_is_the_trainers_own(tmp_path, samples, batch, accumulate, length) -> None:
    args = _args(tmp_path, per_device_train_batch_size=batch, gradient_accumulation_steps=accumulate, **length)
    data = _regression_data(samples)
    model = Regression()
    optimizer = torch.optim.SGD(model.parameters(), lr=BASE_LR)
    scheduler, _ = huggingface_scheduler(WARMUP_COSINE, optimizer, args, data)
    trainer = Trainer(model=model, args=args, train_dataset=data, optimizers=(optimizer, scheduler))
    _, per_epoch, *_, max_steps = trainer.set_initial_training_values(args, trainer.get_train_dataloader())
    clock = scheduler.state
    assert clock.dataloader_len == per_epoch
    in_batches = clock.max_duration.value * (per_epoch if clock.max_duration.unit.value == "ep" else 1)
    assert in_batches == max_steps


@pytest.mark.parametrize(
    ("unit", "config"),
    [
        ("sp", {}),  # samples: the leading dimension of input_ids, by default
        ("tok", {"get_num_tokens": lambda inputs: int(inputs["attention_mask"].sum())}),
        ("tok", {"include_num_input_tokens_seen": "non_padding"}),  # the Trainer's own token count
    ],
)
def test_samples_and_tokens_are_counted_per_optimizer_step(tmp_path, unit, config) -> None:
    # 30 sequences, batches of 4, accumulation 2: 8 loader batches (the last of 2) make 4 steps of 8, 8, 8, 6
    per_step = torch.tensor([8, 8, 8, 6, 8, 8, 8], dtype=torch.float64)
    tokens = unit == "tok"
    per_step = per_step * 6 if tokens else per_step  # 6 tokens that are not padding in each sequence
    schedule = CosineAnnealingWithWarmupScheduler(t_warmup=f"{per_step[:2].sum():.0f}{unit}", t_max=f"200{unit}")
    trainer_args = {"include_num_input_tokens_seen": config.pop("include_num_input_tokens_seen", "no")}
    args = _args(tmp_path, max_steps=7, per_device_train_batch_size=4, gradient_accumulation_steps=2, **trainer_args)
    _, scheduler, recorder = _train(schedule, args, _text_data(30), model=_tiny_gpt2(), **config)
    counts = {"samples_per_batch": per_step} if unit == "sp" else {"tokens_per_batch": per_step}
    _assert_lrs(recorder, evaluate_run(schedule, "7ba", **counts))
    before = [0, *per_step.cumsum(0)[:-1].int().tolist()]
    assert recorder.counts("token" if tokens else "sample") == before
    assert (scheduler.state.tokens if tokens else scheduler.state.samples) == int(per_step.sum())


def _resume_args(tmp_path, save_steps, **overrides):
    """A run that saves a checkpoint every ``save_steps`` (the optimizer and scheduler with it)."""
    settings = dict(num_train_epochs=3, gradient_accumulation_steps=3, save_strategy="steps", save_steps=save_steps)
    settings.update(overrides)
    return _args(tmp_path, save_only_model=False, **settings)


# Samples and epochs at once: 25 samples in batches of 2 are 13 loader batches (the last of 1), 5 steps an epoch.
SAMPLES_AND_EPOCHS = as_schedule(
    lambda state: 0.5**state.timestamp.epoch.value / (1 + state.timestamp.sample.value / 8)
)
PER_STEP = torch.tensor([6, 6, 6, 6, 1] * 3, dtype=torch.float64)


def test_resuming_from_a_mid_run_checkpoint_continues_the_steps_and_the_counts(tmp_path) -> None:
    args = _resume_args(tmp_path, save_steps=7)  # step 7: in the middle of epoch 1
    _, _, full = _train(SAMPLES_AND_EPOCHS, args, _regression_data(25))
    _assert_lrs(full, evaluate_run(SAMPLES_AND_EPOCHS, "3ep", dataloader_len=5, samples_per_batch=PER_STEP))

    checkpoint = tmp_path / "out" / "checkpoint-7"
    clock = torch.load(checkpoint / "scheduler.pt", weights_only=True)["clock"]["timestamp"]
    assert (clock["batch"], clock["epoch"], clock["sample"]) == (7, 1, int(PER_STEP[:7].sum()))

    trainer, scheduler, resumed = _train(SAMPLES_AND_EPOCHS, args, _regression_data(25), resume=str(checkpoint))
    assert resumed.steps == list(range(7, 15))
    assert resumed.counts("sample") == full.counts("sample")[7:]
    assert resumed.counts("epoch") == full.counts("epoch")[7:]
    torch.testing.assert_close(resumed.lrs, full.lrs[7:], rtol=0, atol=0)
    assert (scheduler.state.batches, scheduler.state.samples, scheduler.state.done) == (15, 75, True)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out"]  # the Trainer wrote nowhere else


def test_a_checkpoint_without_the_scheduler_resumes_by_the_step_or_says_what_is_lost(tmp_path) -> None:
    schedule = LinearScheduler(alpha_f=0.2)
    args = _resume_args(tmp_path, save_steps=6, num_train_epochs=2)
    _, _, full = _train(schedule, args, _regression_data(25))
    checkpoint = tmp_path / "out" / "checkpoint-6"
    (checkpoint / "scheduler.pt").unlink()  # as save_only_model=True leaves it (the optimizer is reset too)

    _, scheduler, resumed = _train(schedule, args, _regression_data(25), resume=str(checkpoint))
    assert resumed.steps == list(range(6, 10)) and resumed.counts("epoch") == [1] * 4
    torch.testing.assert_close(resumed.lrs, full.lrs[6:], rtol=0, atol=0)

    with pytest.raises(ValueError, match="samples or tokens counted before it are unknown"):
        _train(SAMPLES_AND_EPOCHS, args, _regression_data(25), resume=str(checkpoint))


@pytest.mark.parametrize(
    ("schedule", "samples"),
    [(LinearWithWarmupScheduler(t_warmup="0.3dur"), 0), (LinearWithWarmupScheduler(t_warmup="6sp", t_max="18sp"), 2)],
)
def test_a_step_the_trainer_skips_still_moves_the_next_steps_lr(tmp_path, schedule, samples: int) -> None:
    # The Trainer skips scheduler.step() when the fp16 scaler skips the optimizer step, yet counts the step (and
    # its samples, counted for a schedule in sp): the scheduler reads the Trainer's clock, not its step() calls.
    args = _args(tmp_path, max_steps=10)
    trainer, scheduler, recorder = _train(schedule, args, _regression_data(50), overflow_at=4)
    assert recorder.skipped == [4] and trainer.state.global_step == 10
    assert recorder.steps == list(range(10)) and recorder.counts("sample") == [samples * step for step in range(10)]
    expected = evaluate_run(schedule, "10ba", samples_per_batch=2)
    _assert_lrs(recorder, expected)  # step 5 trains at its own lr, not at step 4's
    assert scheduler.state.done and scheduler.last_epoch == 10


def test_another_hyperparameter_is_kept_by_its_callback_alone(tmp_path) -> None:
    # The Trainer steps one scheduler (the lr's); a weight-decay schedule is written by its own callback.
    args = _args(tmp_path, max_steps=8)
    data = _regression_data(20)
    model = Regression()
    optimizer = torch.optim.SGD(model.parameters(), lr=BASE_LR, weight_decay=0.01)
    decay = LinearScheduler(alpha_f=0.25)
    lr, lr_clock = huggingface_scheduler(WARMUP_COSINE, optimizer, args, data)
    _, wd_clock = huggingface_scheduler(decay, optimizer, args, data, hyperparameter="weight_decay")
    recorder = Recorder(lr)
    trainer = Trainer(
        model=model, args=args, train_dataset=data, optimizers=(optimizer, lr), callbacks=[lr_clock, wd_clock, recorder]
    )
    trainer.train()
    _assert_lrs(recorder, evaluate_run(WARMUP_COSINE, "8ba"))
    weight_decays = torch.tensor(recorder.weight_decays, dtype=torch.float64)
    torch.testing.assert_close(weight_decays, 0.01 * evaluate_run(decay, "8ba"), rtol=1e-12, atol=1e-15)


def test_an_lr_schedule_the_trainer_does_not_step_is_an_error(tmp_path) -> None:
    args = _args(tmp_path, max_steps=4)
    data = _regression_data(8)
    model = Regression()
    optimizer = torch.optim.SGD(model.parameters(), lr=BASE_LR)
    _, callback = huggingface_scheduler(WARMUP_COSINE, optimizer, args, data)
    trainer = Trainer(model=model, args=args, train_dataset=data, callbacks=[callback])  # no optimizers=
    with pytest.raises(ValueError, match=r"pass optimizers=\(optimizer, scheduler\)"):
        trainer.train()


def test_an_epoch_run_needs_the_dataset_or_its_length(tmp_path) -> None:
    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=BASE_LR)
    args = _args(tmp_path, num_train_epochs=2)
    with pytest.raises(ValueError, match="train_dataset="):
        huggingface_scheduler(WARMUP_COSINE, optimizer, args)
    scheduler, _ = huggingface_scheduler(WARMUP_COSINE, optimizer, args, 50)  # its number of samples
    assert (scheduler.state.max_duration, scheduler.state.dataloader_len) == (Time(2, "ep"), 25)


def test_bad_input_is_one_clear_error(tmp_path) -> None:
    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=BASE_LR)
    args = _args(tmp_path, max_steps=10)
    with pytest.raises(TypeError, match="TrainingArguments"):
        huggingface_scheduler(WARMUP_COSINE, optimizer, {"max_steps": 10})
    with pytest.raises(ValueError, match="get_num_tokens"):
        huggingface_scheduler(LinearScheduler(t_max="100tok"), optimizer, args)
    with pytest.raises(TypeError, match="get_num_samples must be a callable"):
        huggingface_scheduler(WARMUP_COSINE, optimizer, args, get_num_samples=4)
    with pytest.raises(ValueError, match="no length"):
        huggingface_scheduler(WARMUP_COSINE, optimizer, _args(tmp_path, max_steps=-1, num_train_epochs=0), 50)


def test_a_missing_transformers_is_an_import_error_naming_the_package(tmp_path, monkeypatch) -> None:
    args = _args(tmp_path, max_steps=4)
    monkeypatch.setitem(sys.modules, "transformers", None)  # as if not installed
    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=BASE_LR)
    with pytest.raises(ImportError, match="pip install transformers"):
        huggingface_scheduler(WARMUP_COSINE, optimizer, args)
    with pytest.raises(ImportError, match="pip install transformers"):
        integration._import_transformers()


def test_the_module_imports_without_importing_transformers() -> None:
    code = (
        "import sys, schedulers.integrations.huggingface\n"
        "assert not {'transformers', 'accelerate'} & set(sys.modules), sorted(sys.modules)\n"
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300, cwd=root, env=env)
