"""``Trainer``: the training loop that owns time.

It counts samples, tokens, batches (optimizer steps) and epochs — globally across DDP ranks — applies
``scale_schedule_ratio`` to ``max_duration`` and to every schedule, steps schedules per batch or per epoch,
and checkpoints everything needed to continue a run exactly. Time moves by the one rule of
:mod:`schedulers.core.clock` (the trainer's state is a :class:`~schedulers.core.clock.Clock`).

Batch ``k`` (counting from 0) trains with every schedule evaluated at the timestamp before it: the
schedules are written at construction (α(0)) and stepped after each optimizer step, once time has
advanced (Composer steps before advancing, so its batch ``k`` trains with α(k − 1); deviation 4).
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import math
import signal
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import torch

from schedulers import Schedule
from schedulers.core.arguments import number_argument
from schedulers.core.run import Run
from schedulers.tools.files import check_writable
from schedulers.tools.report import (
    render_report,
    resolved_times_report,
    schedule_report_rows,
    times_beyond_the_run,
)
from schedulers.tools.stepped import run_steps, stepped_report_rows
from timeunits import Time, Timestamp, TimeUnit
from trainer import checkpoint as checkpoints
from trainer import distributed
from trainer.arguments import (
    build_optimizer,
    dataloader_len,
    nonfinite_loss_action,
    one_optimizer,
    optional_count,
    reject_unknown_keywords,
    run_time,
)
from trainer.callbacks import CallbackList, ProgressBar
from trainer.data import (
    ResumableSampler,
    count_samples,
    groups_of,
    prepare_loader,
    reshard,
    resume_iterator,
    rng_neutral_iter,
    to_device,
)
from trainer.loggers import LoggerCallback
from trainer.loop import Preview, Training
from trainer.param_groups import apply_adjust_learning_rate
from trainer.precision import Precision
from trainer.scheduling import ScheduledRun, build_schedulers
from trainer.seeding import seed_everything
from trainer.state import TrainerState
from trainer.stopping import exit_status, signal_name, stop_requests

__all__ = ["NonFiniteLossError", "Trainer"]


class NonFiniteLossError(FloatingPointError):
    """A batch's loss was nan or inf (``on_nonfinite_loss="raise"``): training stopped before its optimizer step.

    ``str(error)`` ends with the way out in Python's words (``on_nonfinite_loss="warn"``); :attr:`what` is the
    message without it, for a front end that spells that setting its own way (``cadence fit``: ``--set ...``).
    """

    @property
    def what(self) -> str:
        """What happened: the batch, its loss and where the last checkpoint is."""
        return str(self.args[0]) if self.args else ""

    def __str__(self) -> str:
        return f'{self.what} (pass on_nonfinite_loss="warn" to train on)'


class Trainer:
    """Train ``model`` on ``train_dataloader`` for ``max_duration`` with time-aware schedules.

    ``optimizer`` (or Composer's spelling ``optimizers``) is an optimizer, a callable ``model -> optimizer``
    (Cerebras style), or a name with arguments for :func:`trainer.optim.configure_optimizer` (``"AdamW"``
    or ``{"AdamW": {"lr": 1e-3}}``). ``schedulers`` is one entry or a list: Cadence schedules (compiled here,
    several on one hyperparameter multiply), torch ``LRScheduler`` objects, callables
    ``optimizer -> LRScheduler``, or dicts ``{"schedule", "hyperparameter", "param_group_tags"}`` (see
    :mod:`trainer.scheduling`). ``max_duration`` is a Time or time string in ``ep``, ``ba``, ``sp`` or
    ``tok`` (an int means epochs). An unknown keyword is a TypeError suggesting the closest accepted one.

    Each loader item is ``(inputs, targets)`` → ``loss_fn(model(inputs), targets)``, or with ``loss_fn=None``
    ``model(item)`` returns the loss. ``grad_accum=n`` makes ``n`` consecutive items one optimizer step.
    A nan or inf loss stops training with :class:`NonFiniteLossError` naming the batch, before its optimizer
    step and before any checkpoint of it; ``on_nonfinite_loss="warn"`` warns and trains on instead.
    """

    def __init__(
        self,
        model: torch.nn.Module,
        train_dataloader: Iterable,
        max_duration: Time | str | int,
        optimizer: Any = None,
        schedulers: Any = None,
        loss_fn: Callable | None = None,
        scale_schedule_ratio: float = 1.0,
        step_schedulers_every_batch: bool | None = None,
        grad_accum: int = 1,
        eval_dataloader: Iterable | None = None,
        eval_interval: Time | str | None = None,
        device: str | torch.device = "cpu",
        seed: int = 0,
        callbacks: Any = (),
        save_folder: str | Path | None = None,
        save_interval: Time | str | None = None,
        load_path: str | Path | None = None,
        progress_bar: bool = True,
        get_num_samples: Callable[[Any], int] | None = None,
        get_num_tokens: Callable[[Any], int] | None = None,
        max_grad_norm: float | None = None,
        precision: str = "fp32",
        autoresume: bool = False,
        save_num_checkpoints_to_keep: int | None = None,
        load_weights_only: bool = False,
        load_strict_model_weights: bool = True,
        loggers: Any = (),
        print_schedule_report: bool = True,
        on_nonfinite_loss: str = "raise",
        optimizers: Any = None,
        **unknown: Any,
    ) -> None:
        reject_unknown_keywords(unknown, _KEYWORDS)
        optimizer = one_optimizer(optimizer, optimizers)
        _check_loop_arguments(model, grad_accum, step_schedulers_every_batch)
        self.on_nonfinite_loss = nonfinite_loss_action(on_nonfinite_loss)
        self._setup_process(seed, device, precision, max_grad_norm, save_num_checkpoints_to_keep)
        self.print_schedule_report = bool(print_schedule_report)
        self.loss_fn = loss_fn
        self._setup_data(model, train_dataloader, grad_accum, get_num_samples, get_num_tokens)
        self._setup_clock(max_duration, scale_schedule_ratio)
        self._setup_schedules(optimizer, schedulers, step_schedulers_every_batch)
        self._setup_outputs(eval_dataloader, eval_interval, save_folder, save_interval)
        self._setup_callbacks(callbacks, loggers, progress_bar)
        if autoresume:
            load_path, load_weights_only = self._autoresume_path(load_path, load_weights_only)
        if load_path is not None:
            if load_weights_only:
                self._load_weights(load_path, strict=load_strict_model_weights)
            else:
                self._resume(load_path)

    # -- construction, one concern each ----------------------------------------------------------------
    def _setup_process(self, seed, device, precision, max_grad_norm, keep_checkpoints) -> None:
        """Seeds, device, process group, precision and the numbers that shape each optimizer step."""
        self.seed = seed_everything(seed)
        self.device = torch.device(device)
        self.world = distributed.setup(self.device)
        self.is_rank_zero = self.world.rank == 0
        self.max_grad_norm = number_argument("max_grad_norm", max_grad_norm, low=0.0, low_open=True, optional=True)
        self.last_grad_norm: float | None = None
        self.precision = Precision(precision, self.device)
        self._moves_data = self.device.type != "cpu"
        self.keep_checkpoints = optional_count("save_num_checkpoints_to_keep", keep_checkpoints)

    def _setup_data(self, model, train_dataloader, grad_accum, get_num_samples, get_num_tokens) -> None:
        """The model on its device (DDP-wrapped when distributed) and the train loader the trainer iterates."""
        self.grad_accum = grad_accum
        self.get_num_samples = get_num_samples or count_samples
        self.get_num_tokens = get_num_tokens
        self.model = model.to(self.device)
        self.train_model = distributed.wrap_model(self.model, self.world, self.device)
        # one process in fp32 needs no autocast, scaler or no_sync: the per-batch path skips them
        self._plain_step = self.world.size == 1 and self.precision.dtype is None
        self.train_dataloader = prepare_loader(
            train_dataloader, seed=self.seed, rank=self.world.rank, world_size=self.world.size
        )
        self._sampler = getattr(self.train_dataloader, "sampler", None)

    def _setup_clock(self, max_duration: Any, scale_schedule_ratio: Any) -> None:
        """The run, built once (``max_duration`` scaled by the ratio, batches per epoch after ``grad_accum``), and
        its clock; the schedules, the report and the checkpoints read this one value."""
        requested = run_time(max_duration)
        self._check_tokens("max_duration", requested)
        self.run = Run(
            requested,
            dataloader_len(self.train_dataloader, self.grad_accum),
            samples_per_batch=self._constant_batch_size(),
            scale_schedule_ratio=scale_schedule_ratio,
        )
        self.state = TrainerState(self.run, grad_accum=self.grad_accum)
        self._set_stop(None)
        self._skipped_in_epoch = 0  # optimizer steps the fp16 scaler skipped in this epoch (their data is used)
        self._resume_position: int | None = None  # where the resumed epoch goes on, after a change of world size
        self._terminate_requested: signal.Signals | None = None  # a stop signal received while fitting
        self._spent_by_preview = False

    def _setup_schedules(self, optimizer: Any, schedulers: Any, every_batch: bool | None) -> None:
        """The optimizer, each group's base values (before any scheduler writes), and the compiled schedulers."""
        self.optimizer = build_optimizer(optimizer, self.model)
        apply_adjust_learning_rate(self.optimizer)  # before schedules take each group's base value
        self._base_values = [
            {key: float(value) for key, value in group.items() if _is_scalar(value)}
            for group in self.optimizer.param_groups
        ]
        self.scheduled: ScheduledRun = build_schedulers(schedulers, self.optimizer, self.state, self.run, every_batch)
        self._check_schedule_units(schedulers)

    def _setup_outputs(self, eval_dataloader, eval_interval, save_folder, save_interval) -> None:
        """Evaluation and checkpoint settings, checked against each other."""
        self.eval_dataloader = eval_dataloader
        self.eval_interval = self._interval("eval_interval", eval_interval)
        self.save_folder = None if save_folder is None else Path(save_folder)
        if self.save_folder is not None and self.is_rank_zero:  # rank 0 saves: a bad folder fails now, not at the end
            check_writable("save_folder", save_folder, folder=True)
        self.save_interval = self._interval("save_interval", save_interval)
        if self.save_interval is not None and self.save_folder is None:
            raise ValueError(f"save_interval={save_interval!r} needs save_folder")
        if self.eval_interval is not None and eval_dataloader is None:
            raise ValueError(f"eval_interval={eval_interval!r} needs eval_dataloader")
        self._last_saved_batch: int | None = None
        self._last_checkpoint: Path | None = None
        self._resumed_from: Path | None = None

    def _setup_callbacks(self, callbacks: Any, loggers: Any, progress_bar: bool) -> None:
        self.callbacks = CallbackList(callbacks)
        self.loggers = [] if loggers is None else list(loggers) if isinstance(loggers, (list, tuple)) else [loggers]
        if self.loggers:
            self.callbacks.append(LoggerCallback(self.loggers))
        if progress_bar:
            self.callbacks.append(ProgressBar())

    def _autoresume_path(self, load_path: Any, load_weights_only: bool) -> tuple[Any, bool]:
        if self.save_folder is None:
            raise ValueError("autoresume=True needs save_folder (it resumes from save_folder's latest checkpoint)")
        if checkpoints.list_checkpoints(self.save_folder) or (self.save_folder / checkpoints.LATEST).exists():
            return self.save_folder, False  # a preempted run continues exactly
        return load_path, load_weights_only

    # -- what callbacks and loggers read ---------------------------------------------------------
    @property
    def schedulers(self) -> list:
        """Every scheduler of the run (compiled Cadence schedules included)."""
        return self.scheduled.all

    @property
    def scheduled_keys(self) -> list[str]:
        """The param-group hyperparameters something schedules (``["lr", "weight_decay"]``, ...)."""
        return self.scheduled.keys

    def base_value(self, key: str, group: int = 0) -> float:
        """Param group ``group``'s base value of ``key``: what a multiplier of the schedule multiplies.

        It is ``group["initial_<key>"]`` when a scheduler keeps one there (Cadence's compiled schedules and
        torch's schedulers do), else the group's value when the trainer got the optimizer, before any
        scheduler wrote it (Cerebras's schedulers keep no ``initial_lr``).
        """
        param_group = self.optimizer.param_groups[group]
        initial = param_group.get(f"initial_{key}")
        if initial is not None and _is_scalar(initial):
            return float(initial)
        try:
            return self._base_values[group][key]
        except (IndexError, KeyError):
            raise KeyError(f"param group {group} had no scalar {key!r} when the trainer got the optimizer") from None

    # -- the loop ------------------------------------------------------------------------------------
    def fit(self, duration: Time | str | int | None = None) -> None:
        """Train until ``max_duration`` (in its own unit), then save a final checkpoint if ``save_folder`` is set.

        ``duration`` (a time; an int means epochs) stops this call earlier, after at most that much more
        training; every schedule still sees ``max_duration`` as the run's length (a run split over several
        jobs, like ``--steps_this_run``). Rank 0 tells on stderr where it resumed from, where checkpoints go,
        and when there is nothing left to train; Ctrl-C prints where the last checkpoint is, then re-raises.
        SIGTERM or SIGHUP (:mod:`trainer.stopping`) ends the run after the current batch: a final checkpoint
        (with ``save_folder``), ``on_fit_end``, one line saying where the checkpoint is, then ``SystemExit``
        with 128 + the signal (143 for SIGTERM).
        """
        if self._spent_by_preview:
            raise RuntimeError("this trainer ran preview(), which moved its clock to the end: build a new one to fit")
        self._set_stop(duration)
        self._announce()
        hooks = self.callbacks
        hooks.on_fit_start(self)
        with stop_requests(self._request_stop):  # also over the final save: a signal then waits for it
            try:
                self._fit_loop(Training(self))
            except BaseException as error:
                self._close_progress_bars()  # what is said next (a message, a traceback) starts on its own line
                if isinstance(error, KeyboardInterrupt):
                    self._say(f"interrupted at {self.state.timestamp.batch}: {self._where_the_last_checkpoint_is()}")
                raise
            if self.save_folder is not None and self._last_saved_batch != self.state.timestamp.batch.value:
                self.save_checkpoint()
            hooks.on_fit_end(self)
        signum = self._terminate_requested
        if signum:
            where = self._where_the_last_checkpoint_is()
            self._say(f"stopped by {signal_name(signum)} at {self.state.timestamp.batch}: {where}")
            raise SystemExit(exit_status(signum))

    def _request_stop(self, signum: signal.Signals) -> None:
        """A stop signal (SIGTERM, SIGHUP): end after the current batch, with a final checkpoint (preemption)."""
        self._terminate_requested = signum

    def preview(self, callbacks: Any = ()) -> None:
        """Run the loop to ``max_duration`` without training: the schedulers step exactly as ``fit()`` steps them.

        No forward, backward or optimizer step, no evaluation, checkpoint, report or message; only
        ``callbacks`` (e.g. an :class:`~trainer.LRMonitor`) see the batches, through ``on_fit_start``,
        ``on_batch_start``, ``on_epoch_end`` and ``on_fit_end`` (a previewed batch has no loss, so no
        ``on_batch_end``), and what they record is what ``fit()`` would train with. The data is read only when
        needed to count samples or tokens. The clock ends at ``max_duration``, so the trainer cannot ``fit()``
        afterwards: build a new one.
        """
        if self._spent_by_preview:
            raise RuntimeError("this trainer already ran preview(): build a new one")
        self._spent_by_preview = True
        self._set_stop(None)
        mode = Preview(self, callbacks)
        mode.hooks.on_fit_start(self)
        self._fit_loop(mode)
        mode.hooks.on_fit_end(self)

    def _set_stop(self, duration: Any) -> None:
        """Where this call stops early: ``(counter, count)`` after ``duration`` more, or None (at max_duration,
        which ``state.done`` checks: the one clock rule, docs/architecture.md)."""
        self._stop = None
        if duration is not None:
            more = run_time(duration, "duration")
            self._check_tokens("duration", more)
            count = Timestamp.counter(more.unit)
            self._stop = (count, count(self.state.timestamp) + more.value)

    def _finished(self) -> bool:
        stop = self._stop
        return self.state.done or (stop is not None and stop[0](self.state.timestamp) >= stop[1])

    def _fit_loop(self, mode: Training | Preview) -> None:
        """The one loop: ``mode`` decides what a batch does (train it, or only count it)."""
        state = self.state
        hooks, run, after_batch, wants_loss = mode.hooks, mode.run, mode.after_batch, mode.wants_loss
        self.train_model.train()  # once: evaluate() restores it
        with mode.context():
            while not self._finished() and not self._terminate_requested:
                for items in mode.batches():
                    before = state.timestamp
                    hooks.on_batch_start(self)
                    trained = run(items)
                    if trained is None:  # the fp16 scaler skipped the step: no optimizer step, so no batch in time
                        self._skipped_in_epoch += 1
                        continue
                    loss, samples, tokens = trained
                    epoch_done = self._advance(samples, tokens)
                    if wants_loss:
                        hooks.on_batch_end(self, loss)
                    finished = self._finished()
                    after_batch(before, epoch_done, finished)
                    if finished or epoch_done or self._terminate_requested:
                        break
                else:  # the loader ran out before dataloader_len batches, or it has no length
                    self._loader_ran_out(after_batch)

    def _loader_ran_out(self, after_batch: Callable[[Timestamp, bool, bool], None]) -> None:
        before = self.state.timestamp
        if before.batch_in_epoch.value == 0:
            raise RuntimeError(f"the train dataloader yielded no batch in epoch {before.epoch}")
        self.state.epoch()
        self._epoch_closed()
        after_batch(before, True, self._finished())

    def _advance(self, samples: int, tokens: int) -> bool:
        """One optimizer step of time: the clock moves (closing the epoch on its last batch), and the schedulers
        step (per-batch ones every time, per-epoch ones when the epoch closed). Returns whether it closed."""
        epoch_done = self.state.advance(samples, tokens)
        for scheduler in self.scheduled.per_batch:
            scheduler.step()
        if epoch_done:
            self._epoch_closed()
        return epoch_done

    def _epoch_closed(self) -> None:
        """What follows the clock closing an epoch: the per-epoch schedulers step."""
        self._skipped_in_epoch = 0
        for scheduler in self.scheduled.per_epoch:
            scheduler.step()

    def _epoch_batches(self) -> Iterator[list]:
        """Groups of ``grad_accum`` loader items for the rest of the current epoch (skipping those already seen)."""
        timestamp, n = self.state.timestamp, self.grad_accum
        if isinstance(self._sampler, ResumableSampler):  # a loader the trainer rebuilt: it owns its randomness
            self._sampler.set_epoch(timestamp.epoch.value)
            # workers' base seed from (seed, epoch), not from the global RNG at the moment iter() is called
            self.train_dataloader.generator = torch.Generator().manual_seed(
                (self.seed * 1_000_003 + timestamp.epoch.value) % 2**63
            )
        elif hasattr(self._sampler, "set_epoch"):
            self._sampler.set_epoch(timestamp.epoch.value)
        done_in_epoch = timestamp.batch_in_epoch.value + self._skipped_in_epoch  # loader groups already used
        position, self._resume_position = self._resume_position, None  # resumed on another number of ranks
        iterator = resume_iterator(self.train_dataloader, self._sampler, done_in_epoch * n, position)
        remaining = None if self.state.dataloader_len is None else self.state.dataloader_len - done_in_epoch
        groups = ([item] for item in iterator) if n == 1 else groups_of(iterator, n)
        yield from groups if remaining is None else itertools.islice(groups, max(remaining, 0))

    def _train_batch(self, items: list) -> tuple[float, int, int] | None:
        """Forward, backward and one optimizer step over ``grad_accum`` items.

        Returns the batch's loss and its (global) samples and tokens, or None when the fp16 scaler skipped the
        optimizer step. A non-finite loss (on any rank) is handled before the optimizer step.
        """
        total, samples, tokens = self._backward(items)
        loss = float(total)
        nonfinite = not math.isfinite(loss)
        if self.world.size > 1:
            samples, tokens, nonfinite = distributed.sum_counts(samples, tokens, self.device, nonfinite)
        if nonfinite:
            self._nonfinite_loss(loss)
        if self.max_grad_norm is not None:
            self.precision.unscale(self.optimizer)  # clip the true gradients, not the scaled ones
            self.last_grad_norm = float(torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_grad_norm))
        stepped = self.precision.step(self.optimizer)
        self.optimizer.zero_grad(set_to_none=True)
        if not stepped:
            return None
        return loss, int(samples), int(tokens)

    def _backward(self, items: list) -> tuple[torch.Tensor, int, int]:
        """Forward and backward over the micro-batches: their summed (detached) loss, samples and tokens."""
        n = len(items)
        samples = tokens = 0
        total = None
        for i, item in enumerate(items):
            if self._moves_data:
                item = to_device(item, self.device)
            if self._plain_step:
                loss = self._loss(self.train_model, item)
                if n > 1:
                    loss = loss / n
                loss.backward()
            else:
                loss = self._precise_backward(item, n, sync=self.world.size == 1 or i == n - 1)
            detached = loss.detach()
            total = detached if total is None else total + detached
            samples += self.get_num_samples(item)
            if self.get_num_tokens is not None:
                tokens += self.get_num_tokens(item)
        return total, samples, tokens

    def _nonfinite_loss(self, loss: float) -> None:
        """``on_nonfinite_loss``: stop before the optimizer step (gradients dropped), or warn and go on."""
        timestamp = self.state.timestamp
        where = f"batch {timestamp.batch.value} (epoch {timestamp.epoch.value})"
        if self.on_nonfinite_loss == "warn":
            warnings.warn(
                f"the loss of {where} is {loss}: training goes on (on_nonfinite_loss='warn')",
                RuntimeWarning,
                stacklevel=5,
            )
            return
        self.optimizer.zero_grad(set_to_none=True)
        raise NonFiniteLossError(
            f"the loss of {where} is {loss}{' (on some rank)' if self.world.size > 1 else ''}: training stopped "
            f"before its optimizer step; "
            f"{self._where_the_last_checkpoint_is()}"
        )

    # -- what the run tells (rank 0, stderr) ------------------------------------------------------------
    def _say(self, message: str) -> None:
        if self.is_rank_zero:
            print(message, file=sys.stderr, flush=True)

    def _announce(self) -> None:
        """Before the first batch: where the run resumed, where checkpoints go, the schedule report."""
        state = self.state
        if self._resumed_from is not None:
            self._say(f"resumed from {self._resumed_from} at {state.timestamp.batch}")
            self._resumed_from = None  # told once
        if self._finished():
            self._say(f"the run already reached {state.max_duration}: nothing to train")
            return
        if self.save_folder is not None:
            self._say(f"checkpoints in {self.save_folder}")
        if self.is_rank_zero and self.scheduled.all:
            report, beyond = self.schedule_report_and_warnings()
            if self.print_schedule_report:
                print(report, file=sys.stderr, flush=True)
            for message in beyond:  # told even without the report: the run would not do what was written
                warnings.warn(message, UserWarning, stacklevel=3)

    def _close_progress_bars(self) -> None:
        for callback in self.callbacks:
            if isinstance(callback, ProgressBar):
                callback.close()

    def _where_the_last_checkpoint_is(self) -> str:
        if self._last_checkpoint is not None:
            return f"the last checkpoint is {self._last_checkpoint}"
        if self.save_folder is None:
            return "no checkpoint (save_folder is None)"
        return f"no checkpoint saved yet in {self.save_folder}"

    def _precise_backward(self, item: Any, n: int, *, sync: bool) -> torch.Tensor:
        """Forward under autocast and a scaled backward; DDP gradient sync only on the last micro-batch."""
        model = self.train_model
        with contextlib.nullcontext() if sync else model.no_sync():
            with self.precision.autocast():
                loss = self._loss(model, item)
            if n > 1:
                loss = loss / n
            self.precision.backward(loss)
        return loss

    def _loss(self, model: torch.nn.Module, item: Any) -> torch.Tensor:
        if self.loss_fn is None:
            loss = model(item)
        else:
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                raise TypeError(
                    "with loss_fn, each loader item must be an (inputs, targets) pair; "
                    f"got {type(item).__name__} (pass loss_fn=None to have model(item) return the loss)"
                )
            inputs, targets = item
            loss = self.loss_fn(model(inputs), targets)
        if not isinstance(loss, torch.Tensor) or loss.dim() != 0:
            raise TypeError(f"the loss must be a 0-d tensor, got {type(loss).__name__} {getattr(loss, 'shape', '')}")
        return loss

    def _after_batch(self, before: Timestamp, epoch_done: bool, finished: bool) -> None:
        if epoch_done:
            self.callbacks.on_epoch_end(self)
        if self.eval_interval is not None and (finished or self._crossed(self.eval_interval, before)):
            self.evaluate()
        if self.save_interval is not None and self._crossed(self.save_interval, before):
            self.save_checkpoint()

    def _crossed(self, interval: Time, before: Timestamp) -> bool:
        """Whether time passed a multiple of ``interval`` since ``before``."""
        count = Timestamp.counter(interval.unit)
        return count(self.state.timestamp) // interval.value > count(before) // interval.value

    # -- evaluation ------------------------------------------------------------------------------------
    def evaluate(self) -> dict[str, float]:
        """The sample-weighted mean loss over ``eval_dataloader`` (all ranks), reported to ``on_eval``."""
        if self.eval_dataloader is None:
            raise ValueError("evaluate() needs eval_dataloader")
        model = self.train_model
        was_training = model.training
        model.eval()
        total = torch.zeros((), dtype=torch.float64)
        count = 0
        with torch.no_grad():
            for item in rng_neutral_iter(self.eval_dataloader):  # evaluating never shifts training's RNG
                item = to_device(item, self.device)
                samples = self.get_num_samples(item)
                total += self._loss(model, item).double().cpu() * samples
                count += samples
        if self.world.size > 1:
            total, count = distributed.sum_eval(total, count, self.device)
        model.train(was_training)
        metrics = {"eval/loss": float(total) / max(count, 1)}
        self.callbacks.on_eval(self, metrics)
        return metrics

    # -- checkpoints -----------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to continue the run exactly (weights_only-safe)."""
        return {
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "schedulers": [scheduler.state_dict() for scheduler in self.schedulers],
            "timestamp": self.state.timestamp.state_dict(),
            "rng": distributed.gather_rng(self.world, checkpoints.rng_state()),
            "precision": {**self.precision.state_dict(), "skipped_in_epoch": self._skipped_in_epoch},
            "run": self._run_settings(),
        }

    def _run_settings(self) -> dict[str, Any]:
        return {
            "max_duration": str(self.run.max_duration),
            "scaled_max_duration": str(self.run.length),
            "scale_schedule_ratio": self.run.ssr,
            "dataloader_len": self.run.dataloader_len,
            "grad_accum": self.grad_accum,
            "seed": self.seed,
            "world_size": self.world.size,
            "batch_size": getattr(self.train_dataloader, "batch_size", None),
        }

    def save_checkpoint(self) -> Path | None:
        """Save a checkpoint named by the batch count into ``save_folder`` (rank 0 writes; all ranks gather)."""
        if self.save_folder is None:
            raise ValueError("save_checkpoint() needs save_folder")
        payload = self.state_dict()
        self._last_saved_batch = self.state.timestamp.batch.value
        if not self.is_rank_zero:
            return None
        self.callbacks.on_before_checkpoint(self)  # records reach disk before the checkpoint that claims them
        path = checkpoints.save_checkpoint(self.save_folder, self._last_saved_batch, payload)
        self._last_checkpoint = path
        if self.keep_checkpoints is not None:
            # only once the new file is safely in place and `latest` points at it
            for old in checkpoints.list_checkpoints(self.save_folder)[: -self.keep_checkpoints]:
                checkpoints.delete_checkpoint(old)
        self.callbacks.on_checkpoint(self, path)
        return path

    def _resume(self, load_path: str | Path) -> None:
        payload = checkpoints.load_checkpoint(load_path)
        file = checkpoints.resolve_checkpoint(load_path)
        missing = [key for key in ("model", "optimizer", "schedulers", "timestamp", "rng", "run") if key not in payload]
        if missing:
            raise checkpoints.CheckpointError(f"{file} is not a Cadence trainer checkpoint: it lacks {missing}")
        saved_lrs = [group.get("lr") for group in payload["optimizer"].get("param_groups", [])]
        self.model.load_state_dict(payload["model"])
        self.optimizer.load_state_dict(payload["optimizer"])
        self.state.timestamp = Timestamp.from_state_dict(payload["timestamp"])
        if len(payload["schedulers"]) != len(self.schedulers):
            raise checkpoints.CheckpointError(
                f"{file} holds {len(payload['schedulers'])} scheduler states, this run has {len(self.schedulers)}"
            )
        for scheduler, saved in zip(self.schedulers, payload["schedulers"], strict=True):
            scheduler.load_state_dict(saved)
        self.precision.load_state_dict(payload.get("precision", {}))
        self._skipped_in_epoch = int(payload.get("precision", {}).get("skipped_in_epoch", 0))
        notes = self._reshard(payload["run"], payload["rng"])
        rng = distributed.pick_rng(self.world, payload["rng"])
        if rng is not None:
            checkpoints.set_rng_state(rng)
        self._warn_on_changed_settings(payload["run"], saved_lrs, file, notes)
        self._last_saved_batch = self.state.timestamp.batch.value
        self._last_checkpoint = self._resumed_from = file

    def _load_weights(self, load_path: str | Path, *, strict: bool) -> None:
        """Fine-tuning: the model's weights alone; optimizer, schedules and time start fresh."""
        payload = checkpoints.load_checkpoint(load_path)
        if "model" not in payload:
            raise checkpoints.CheckpointError(f"{checkpoints.resolve_checkpoint(load_path)} holds no model weights")
        try:
            self.model.load_state_dict(payload["model"], strict=strict)
        except RuntimeError as error:
            raise ValueError(
                f"the weights in {checkpoints.resolve_checkpoint(load_path)} do not fit this model "
                f"(load_strict_model_weights={strict}): {str(error).splitlines()[0]}"
            ) from None

    def _reshard(self, saved: dict, rng: Any) -> list[str]:
        """A checkpoint of another number of ranks: where this epoch goes on (:func:`trainer.data.reshard`, the
        rule of docs/resume.md), and what the warning says of it."""
        change = reshard(
            saved,
            self.state.timestamp,
            self._skipped_in_epoch,
            world_size=self.world.size,
            loader=self.train_dataloader,
            grad_accum=self.grad_accum,
            steps=self.state.dataloader_len,
        )
        if change is None:
            return []
        self.state.timestamp, self._resume_position, self._skipped_in_epoch = change.timestamp, change.position, 0
        note = distributed.rng_note(len(rng) if isinstance(rng, list) else 1, self.world.size)
        return change.notes + ([note] if note else [])

    def _warn_on_changed_settings(self, saved: dict, saved_lrs: list, file: Path, notes: list[str]) -> None:
        now = self._run_settings()
        changed = [
            f"{key} {saved.get(key)} -> {now[key]}"
            for key in ("max_duration", "scale_schedule_ratio", "dataloader_len", "grad_accum", "world_size")
            if saved.get(key, 1 if key == "world_size" else None) != now[key]
        ]
        if changed and self.is_rank_zero:
            lrs = [float(group["lr"]) for group in self.optimizer.param_groups]
            warnings.warn(
                f"resuming from {file} with changed settings ({'; '.join(changed)}): the constructor's arguments "
                f"win; {''.join(f'{note}; ' for note in notes)}"
                f"lr just before the change {[float(x) for x in saved_lrs if x is not None]}, just after {lrs}",
                UserWarning,
                stacklevel=3,
            )

    # -- construction helpers ----------------------------------------------------------------------------
    def _interval(self, name: str, value: Any) -> Time | None:
        if value is None:
            return None
        interval = run_time(value, name)
        self._check_tokens(name, interval)
        return interval

    def _check_tokens(self, name: str, time: Time) -> None:
        if time.unit is TimeUnit.TOKEN and self.get_num_tokens is None:
            raise ValueError(f"{name}={time} is counted in tokens, but get_num_tokens is None (tokens would stay 0)")

    def schedule_report(self) -> str:
        """Every scheduler of the run resolved (see :mod:`schedulers.tools.report`): for a Cadence schedule its
        time arguments in batches, the run in every unit, the values at the start, the end of warmup, each
        milestone and the end; for a torch, Cerebras or SambaFlow scheduler the values a copy of it takes at
        its step-count arguments (the live scheduler is never stepped)."""
        return self.schedule_report_and_warnings()[0]

    def schedule_report_and_warnings(self) -> tuple[str, list[str]]:
        """The report's text, and a message for each time argument that lies beyond the end of the run
        (both from one resolution, so the warning and the report never disagree)."""
        rows, lines = self._cadence_report()
        state = self.state
        for index, (label, scheduler, key) in enumerate(self.scheduled.others, start=len(self.scheduled.schedules)):
            per_epoch = any(scheduler is other for other in self.scheduled.per_epoch)
            steps = run_steps(state.max_duration, state.dataloader_len, per_epoch=per_epoch)
            rows += stepped_report_rows(label, scheduler, key, steps=steps, per_epoch=per_epoch, index=index)
        if rows:
            lines.append(render_report(rows))
        return "\n\n".join(lines), times_beyond_the_run(rows)

    def _cadence_report(self) -> tuple[list[dict[str, Any]], list[str]]:
        """The Cadence schedules' report rows; or, when the samples or tokens per batch are not known before the
        data is read, no rows and a shorter text per schedule (each time argument resolved, in its own unit)."""
        reportable = [entry for entry in self.scheduled.schedules if isinstance(entry[1], Schedule)]
        if not reportable:
            return [], []
        base_values = {}
        for _, _, key in reportable:
            with contextlib.suppress(KeyError):  # group 0 without the key: the report shows multipliers only
                base_values[key] = self.base_value(key, 0)
        try:
            rows = schedule_report_rows(reportable, self.run, base_values=base_values)
        except (TypeError, ValueError):  # samples/tokens per batch unknown before the data is seen
            texts = [resolved_times_report(label, schedule, key, self.run) for label, schedule, key in reportable]
            return [], ["\n".join(texts)]
        return rows, []

    def _constant_batch_size(self) -> int | None:
        """Samples per optimizer step when every batch has the same size (known without reading data), else None."""
        loader = self.train_dataloader
        batch_size = getattr(loader, "batch_size", None)
        if not batch_size or self.world.size != 1 or self.get_num_samples is not count_samples:
            return None
        try:
            even = getattr(loader, "drop_last", False) or len(loader.dataset) % batch_size == 0
        except (AttributeError, TypeError):
            even = False  # an iterable dataset: its last batch may be short
        return batch_size * self.grad_accum if even else None

    @classmethod
    def from_config(cls, config: dict | str | Path, base_dir: str | Path | None = None, **kwargs: Any) -> Trainer:
        """A ``cls`` built from a Cerebras-style config (a dict, or a YAML file), honouring ``loop.num_steps``;
        see :mod:`trainer.config` (which builds the arguments without importing this module)."""
        from trainer.config._build import trainer_arguments

        return trainer_arguments(config, base_dir, **kwargs).construct(cls)

    def _check_schedule_units(self, entries: Any) -> None:
        if self.get_num_tokens is not None:
            return
        items = entries if isinstance(entries, (list, tuple)) else [entries]
        for index, entry in enumerate(items):
            schedule = entry.get("schedule") if isinstance(entry, dict) else entry
            if isinstance(schedule, Schedule):
                try:
                    curve = schedule.curve(self.run)
                except (TypeError, ValueError):
                    continue  # not resolvable ahead (a state function), or already reported by compilation
                if curve.unit is TimeUnit.TOKEN:
                    raise ValueError(
                        f"schedulers[{index}] ({type(schedule).__name__}) counts tokens, but get_num_tokens is None "
                        "(tokens would stay 0)"
                    )


def _check_loop_arguments(model: Any, grad_accum: Any, step_schedulers_every_batch: Any) -> None:
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    if isinstance(grad_accum, bool) or not isinstance(grad_accum, int) or grad_accum < 1:
        raise ValueError(f"grad_accum={grad_accum!r} must be an int >= 1")
    if step_schedulers_every_batch not in (None, True, False):
        raise ValueError(f"step_schedulers_every_batch={step_schedulers_every_batch!r} must be None, True or False")


def _is_scalar(value: Any) -> bool:
    if isinstance(value, torch.Tensor):
        return value.dim() == 0 and value.is_floating_point()
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# the keywords Trainer() accepts (for the "did you mean" of an unknown one)
_KEYWORDS = tuple(name for name in inspect.signature(Trainer.__init__).parameters if name not in ("self", "unknown"))
