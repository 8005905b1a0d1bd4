"""``Trainer``: the training loop that owns time.

It counts samples, tokens, batches (optimizer steps) and epochs — globally across DDP ranks — applies
``scale_schedule_ratio`` to ``max_duration`` and to every schedule, steps schedules per batch or per epoch,
and checkpoints everything needed to continue a run exactly.

Batch ``k`` (counting from 0) trains with every schedule evaluated at the timestamp before it: the
schedules are written at construction (α(0)) and stepped after each optimizer step, once time has
advanced (Composer steps before advancing, so its batch ``k`` trains with α(k − 1); deviation 4).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import signal
import sys
import threading
import warnings
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import torch

from schedulers import Schedule
from schedulers.core.resolution import check_ssr, scale_max_duration
from schedulers.core.state import as_max_duration
from schedulers.tools.report import resolved_times_report, schedule_report
from timeunits import Time, Timestamp, TimeUnit
from trainer import checkpoint as checkpoints
from trainer import distributed
from trainer.callbacks import CallbackList, ProgressBar
from trainer.data import ResumableSampler, count_samples, prepare_loader, skip_batches
from trainer.loggers import LoggerCallback
from trainer.param_groups import apply_adjust_learning_rate
from trainer.precision import Precision
from trainer.scheduling import ScheduledRun, build_schedulers
from trainer.seeding import seed_everything
from trainer.state import TrainerState

__all__ = ["Trainer"]


class Trainer:
    """Train ``model`` on ``train_dataloader`` for ``max_duration`` with time-aware schedules.

    ``optimizer`` is an optimizer, a callable ``model -> optimizer`` (Cerebras style), or a name with
    arguments for :func:`trainer.optim.configure_optimizer` (``"AdamW"`` or ``{"AdamW": {"lr": 1e-3}}``).
    ``schedulers`` is one entry or a list: Cadence schedules (compiled here, several on one hyperparameter
    multiply), torch ``LRScheduler`` objects, callables ``optimizer -> LRScheduler``, or dicts
    ``{"schedule", "hyperparameter", "param_group_tags"}`` (see :mod:`trainer.scheduling`).
    ``max_duration`` is a Time or time string in ``ep``, ``ba``, ``sp`` or ``tok`` (an int means epochs).

    Each loader item is ``(inputs, targets)`` → ``loss_fn(model(inputs), targets)``, or with ``loss_fn=None``
    ``model(item)`` returns the loss. ``grad_accum=n`` makes ``n`` consecutive items one optimizer step.
    """

    def __init__(
        self,
        model: torch.nn.Module,
        train_dataloader: Iterable,
        max_duration: Time | str | int,
        optimizer: Any,
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
    ) -> None:
        if not isinstance(model, torch.nn.Module):
            raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
        if isinstance(grad_accum, bool) or not isinstance(grad_accum, int) or grad_accum < 1:
            raise ValueError(f"grad_accum={grad_accum!r} must be an int >= 1")
        if step_schedulers_every_batch not in (None, True, False):
            raise ValueError(f"step_schedulers_every_batch={step_schedulers_every_batch!r} must be None, True or False")
        ssr = check_ssr(scale_schedule_ratio, "scale_schedule_ratio")
        self.seed = seed_everything(seed)
        self.device = torch.device(device)
        self.world = distributed.setup(self.device)
        self.is_rank_zero = self.world.rank == 0
        self.loss_fn = loss_fn
        self.grad_accum = grad_accum
        self.get_num_samples = get_num_samples or count_samples
        self.get_num_tokens = get_num_tokens
        self.print_schedule_report = bool(print_schedule_report)
        self.max_grad_norm = _optional_positive("max_grad_norm", max_grad_norm)
        self.last_grad_norm: float | None = None
        self.precision = Precision(precision, self.device)
        self._moves_data = self.device.type != "cpu"
        self.keep_checkpoints = _optional_count("save_num_checkpoints_to_keep", save_num_checkpoints_to_keep)

        self.model = model.to(self.device)
        self.train_model = distributed.wrap_model(self.model, self.world, self.device)
        # one process in fp32 needs no autocast, scaler or no_sync: the per-batch path skips them
        self._plain_step = self.world.size == 1 and self.precision.dtype is None
        self.train_dataloader = prepare_loader(
            train_dataloader, seed=self.seed, rank=self.world.rank, world_size=self.world.size
        )
        self._sampler = getattr(self.train_dataloader, "sampler", None)
        dataloader_len = _dataloader_len(self.train_dataloader, grad_accum)

        requested = _max_duration(max_duration)
        self._check_tokens("max_duration", requested)
        self.state = TrainerState(
            scale_max_duration(requested, ssr, dataloader_len),
            dataloader_len,
            unscaled_max_duration=requested,
            ssr=ssr,
            grad_accum=grad_accum,
        )
        self._limit = self._stop = (Timestamp.counter(self.state.max_duration.unit), self.state.max_duration.value)
        self.optimizer = _build_optimizer(optimizer, self.model)
        apply_adjust_learning_rate(self.optimizer)  # before schedules take each group's base value
        self.scheduled: ScheduledRun = build_schedulers(
            schedulers, self.optimizer, self.state, ssr, step_schedulers_every_batch
        )
        self._check_schedule_units(schedulers)
        self.eval_dataloader = eval_dataloader
        self.eval_interval = self._interval("eval_interval", eval_interval)
        self.save_folder = None if save_folder is None else Path(save_folder)
        self.save_interval = self._interval("save_interval", save_interval)
        if self.save_interval is not None and self.save_folder is None:
            raise ValueError(f"save_interval={save_interval!r} needs save_folder")
        if self.eval_interval is not None and eval_dataloader is None:
            raise ValueError(f"eval_interval={eval_interval!r} needs eval_dataloader")
        self.callbacks = CallbackList(callbacks)
        self.loggers = [] if loggers is None else list(loggers) if isinstance(loggers, (list, tuple)) else [loggers]
        if self.loggers:
            self.callbacks.append(LoggerCallback(self.loggers))
        if progress_bar:
            self.callbacks.append(ProgressBar())
        self.last_loss: float | None = None
        self._last_saved_batch: int | None = None
        self._terminate_requested = False
        self._skipped_in_epoch = 0  # optimizer steps the fp16 scaler skipped in this epoch (their data is used)
        self._batches_in_epoch = Timestamp.counter(TimeUnit.BATCH, in_epoch=True)
        if autoresume:
            if self.save_folder is None:
                raise ValueError("autoresume=True needs save_folder (it resumes from save_folder's latest checkpoint)")
            if checkpoints.list_checkpoints(self.save_folder) or (self.save_folder / checkpoints.LATEST).exists():
                load_path, load_weights_only = self.save_folder, False  # a preempted run continues exactly
        if load_path is not None:
            if load_weights_only:
                self._load_weights(load_path, strict=load_strict_model_weights)
            else:
                self._resume(load_path)

    # -- what callbacks and loggers read ---------------------------------------------------------
    @property
    def schedulers(self) -> list:
        """Every scheduler of the run (compiled Cadence schedules included)."""
        return self.scheduled.all

    @property
    def scheduled_keys(self) -> list[str]:
        """The param-group hyperparameters something schedules (``["lr", "weight_decay"]``, ...)."""
        return self.scheduled.keys

    # -- the loop ------------------------------------------------------------------------------------
    def fit(self, duration: Time | str | int | None = None) -> None:
        """Train until ``max_duration`` (in its own unit), then save a final checkpoint if ``save_folder`` is set.

        ``duration`` (a time; an int means epochs) stops this call earlier, after at most that much more
        training; every schedule still sees ``max_duration`` as the run's length (a run split over several
        jobs, like ``--steps_this_run``).
        """
        state = self.state
        self._limit = (Timestamp.counter(state.max_duration.unit), state.max_duration.value)
        self._stop = self._limit
        if duration is not None:
            more = _max_duration(duration, "duration")
            self._check_tokens("duration", more)
            count = Timestamp.counter(more.unit)
            self._stop = (count, count(state.timestamp) + more.value)
        hooks = self.callbacks
        wants_loss = hooks.has("on_batch_end")
        if self.print_schedule_report and self.is_rank_zero and self.scheduled.all:
            print(self.schedule_report(), file=sys.stderr, flush=True)
        hooks.on_fit_start(self)
        with _sigterm_requests(self):
            self._fit_loop(wants_loss)
        if self.save_folder is not None and self._last_saved_batch != state.timestamp.batch.value:
            self.save_checkpoint()
        hooks.on_fit_end(self)
        if self._terminate_requested:
            raise SystemExit(128 + signal.SIGTERM)

    def _finished(self) -> bool:
        (reached, limit), (stop_count, stop_at) = self._limit, self._stop
        timestamp = self.state.timestamp
        return reached(timestamp) >= limit or stop_count(timestamp) >= stop_at

    def _fit_loop(self, wants_loss: bool) -> None:
        state, hooks = self.state, self.callbacks
        self.train_model.train()  # once: evaluate() restores it
        while not self._finished() and not self._terminate_requested:
            epoch_done = False
            for items in self._epoch_batches():
                before = state.timestamp
                hooks.on_batch_start(self)
                trained = self._train_batch(items)
                if trained is None:  # the fp16 scaler skipped the step: no optimizer step, so no batch in time
                    self._skipped_in_epoch += 1
                    continue
                loss, samples, tokens = trained
                epoch_done = self._advance(samples, tokens)
                if wants_loss:
                    self.last_loss = float(loss)
                    hooks.on_batch_end(self, self.last_loss)
                finished = self._finished()
                self._after_batch(before, epoch_done, finished)
                if finished or epoch_done or self._terminate_requested:
                    break
            else:  # the loader ran out before dataloader_len batches, or it has no length
                if state.timestamp.batch_in_epoch.value == 0:
                    raise RuntimeError(f"the train dataloader yielded no batch in epoch {state.timestamp.epoch}")
                before = state.timestamp
                self._close_epoch()
                self._after_batch(before, True, self._finished())

    def _advance(self, samples: int, tokens: int) -> bool:
        """One optimizer step of time: the clock moves, the epoch's last batch closes it, and the schedulers step
        (per-batch ones every time, per-epoch ones when the epoch closed). Returns whether it closed."""
        state = self.state
        state.timestamp = state.timestamp.to_next_batch(samples, tokens)
        epoch_done = self._batches_in_epoch(state.timestamp) == state.dataloader_len
        if epoch_done:
            state.timestamp = state.timestamp.to_next_epoch()
        for scheduler in self.scheduled.per_batch:
            scheduler.step()
        if epoch_done:
            self._close_epoch(advanced=True)
        return epoch_done

    def _close_epoch(self, *, advanced: bool = False) -> None:
        """Close the epoch (unless the clock already did) and step the per-epoch schedulers."""
        if not advanced:
            self.state.timestamp = self.state.timestamp.to_next_epoch()
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
        iterator = _resume_iterator(self.train_dataloader, self._sampler, done_in_epoch * n)
        remaining = None if self.state.dataloader_len is None else self.state.dataloader_len - done_in_epoch
        groups = ([item] for item in iterator) if n == 1 else _groups_of(iterator, n)
        yield from groups if remaining is None else itertools.islice(groups, max(remaining, 0))

    def _train_batch(self, items: list) -> tuple[torch.Tensor, int, int] | None:
        """Forward, backward and one optimizer step over ``grad_accum`` items.

        Returns the batch's loss and its (global) samples and tokens, or None when the fp16 scaler skipped the
        optimizer step.
        """
        n = len(items)
        samples = tokens = 0
        total = None
        for i, item in enumerate(items):
            if self._moves_data:
                item = _to_device(item, self.device)
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
        if self.max_grad_norm is not None:
            self.precision.unscale(self.optimizer)  # clip the true gradients, not the scaled ones
            self.last_grad_norm = float(torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_grad_norm))
        stepped = self.precision.step(self.optimizer)
        self.optimizer.zero_grad(set_to_none=True)
        if not stepped:
            return None
        if self.world.size > 1:
            samples, tokens = distributed.sum_counts(samples, tokens, self.device)
        return total, int(samples), int(tokens)

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
            for item in self.eval_dataloader:
                item = _to_device(item, self.device)
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
            "max_duration": str(self.state.unscaled_max_duration),
            "scaled_max_duration": str(self.state.max_duration),
            "scale_schedule_ratio": self.state.ssr,
            "dataloader_len": self.state.dataloader_len,
            "grad_accum": self.grad_accum,
            "seed": self.seed,
            "world_size": self.world.size,
        }

    def save_checkpoint(self) -> Path | None:
        """Save a checkpoint named by the batch count into ``save_folder`` (rank 0 writes; all ranks gather)."""
        if self.save_folder is None:
            raise ValueError("save_checkpoint() needs save_folder")
        payload = self.state_dict()
        self._last_saved_batch = self.state.timestamp.batch.value
        if not self.is_rank_zero:
            return None
        path = checkpoints.save_checkpoint(self.save_folder, self._last_saved_batch, payload)
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
        for scheduler, saved in zip(self.schedulers, payload["schedulers"]):
            scheduler.load_state_dict(saved)
        self.precision.load_state_dict(payload.get("precision", {}))
        self._skipped_in_epoch = int(payload.get("precision", {}).get("skipped_in_epoch", 0))
        checkpoints.set_rng_state(distributed.pick_rng(self.world, payload["rng"]))
        self._warn_on_changed_settings(payload["run"], saved_lrs, file)
        self._last_saved_batch = self.state.timestamp.batch.value

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

    def _warn_on_changed_settings(self, saved: dict, saved_lrs: list, file: Path) -> None:
        now = self._run_settings()
        changed = [
            f"{key} {saved.get(key)} -> {now[key]}"
            for key in ("max_duration", "scale_schedule_ratio", "dataloader_len", "grad_accum")
            if saved.get(key) != now[key]
        ]
        if changed and self.is_rank_zero:
            lrs = [float(group["lr"]) for group in self.optimizer.param_groups]
            warnings.warn(
                f"resuming from {file} with changed settings ({'; '.join(changed)}): the constructor's arguments "
                f"win; lr just before the change {[float(x) for x in saved_lrs if x is not None]}, just after {lrs}",
                UserWarning,
                stacklevel=3,
            )

    # -- construction helpers ----------------------------------------------------------------------------
    def _interval(self, name: str, value: Any) -> Time | None:
        if value is None:
            return None
        interval = _max_duration(value, name)
        self._check_tokens(name, interval)
        return interval

    def _check_tokens(self, name: str, time: Time) -> None:
        if time.unit is TimeUnit.TOKEN and self.get_num_tokens is None:
            raise ValueError(f"{name}={time} is counted in tokens, but get_num_tokens is None (tokens would stay 0)")

    def schedule_report(self) -> str:
        """Every schedule of the run resolved: time arguments in batches, the run in every unit, the values
        at the start, the end of warmup, each milestone and the end (see :mod:`schedulers.tools.report`)."""
        state = self.state
        lines = []
        reportable = [entry for entry in self.scheduled.schedules if isinstance(entry[1], Schedule)]
        if reportable:
            base_values = {
                key: float(self.optimizer.param_groups[0].get(f"initial_{key}", 0.0)) for _, _, key in reportable
            }
            try:
                lines.append(
                    schedule_report(
                        reportable,
                        state.unscaled_max_duration,
                        dataloader_len=state.dataloader_len,
                        samples_per_batch=self._constant_batch_size(),
                        ssr=state.ssr,
                        base_values=base_values,
                    )
                )
            except (TypeError, ValueError):  # samples/tokens per batch unknown before the data is seen
                lines.extend(
                    resolved_times_report(label, schedule, key, state.max_duration, state.dataloader_len, state.ssr)
                    for label, schedule, key in reportable
                )
        for label, scheduler, key in self.scheduled.others:
            values = ", ".join(f"{float(group[key]):.6g}" for group in self.optimizer.param_groups if key in group)
            lines.append(f"{key}: {label} {type(scheduler).__name__} (steps by itself; {key} now {values})")
        return "\n".join(lines)

    def _constant_batch_size(self) -> int | None:
        batch_size = getattr(self.train_dataloader, "batch_size", None)
        drops_last = getattr(self.train_dataloader, "drop_last", False)
        if batch_size and drops_last is not None and self.world.size == 1:
            return batch_size * self.grad_accum if self.get_num_samples is count_samples else None
        return None

    @classmethod
    def from_config(cls, config: dict | str | Path, base_dir: str | Path | None = None, **kwargs: Any) -> Trainer:
        """A ``cls`` built from a Cerebras-style config (a dict, or a YAML file), honouring ``loop.num_steps``;
        see :mod:`trainer.config` (which builds the arguments without importing this module)."""
        from trainer.config._arguments import trainer_arguments

        return trainer_arguments(config, base_dir, **kwargs).construct(cls)

    def _check_schedule_units(self, entries: Any) -> None:
        if self.get_num_tokens is not None:
            return
        items = entries if isinstance(entries, (list, tuple)) else [entries]
        for index, entry in enumerate(items):
            schedule = entry.get("schedule") if isinstance(entry, dict) else entry
            if isinstance(schedule, Schedule):
                try:
                    curve = schedule.resolve(self.state.max_duration, self.state.dataloader_len, self.state.ssr)
                except (TypeError, ValueError):
                    continue  # not resolvable ahead (a state function), or already reported by compilation
                if curve.unit is TimeUnit.TOKEN:
                    raise ValueError(
                        f"schedulers[{index}] ({type(schedule).__name__}) counts tokens, but get_num_tokens is None "
                        "(tokens would stay 0)"
                    )


@contextlib.contextmanager
def _sigterm_requests(trainer: Trainer):
    """While fitting, SIGTERM asks for a final checkpoint after the current batch, then exit (preemption)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def request(signum, frame):
        trainer._terminate_requested = True

    previous = signal.signal(signal.SIGTERM, request)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _optional_positive(name: str, value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name}={value!r} must be a finite number > 0, or None")
    return float(value)


def _optional_count(name: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name}={value!r} must be an int >= 1, or None (keep every checkpoint)")
    return value


def _max_duration(value: Any, name: str = "max_duration") -> Time:
    if isinstance(value, int) and not isinstance(value, bool):
        value = Time(value, TimeUnit.EPOCH)  # Composer: an int means epochs
    return as_max_duration(value, name)


def _dataloader_len(loader: Iterable, grad_accum: int) -> int | None:
    try:
        items = len(loader)
    except TypeError:
        return None  # an iterable of unknown length: epochs end when it runs out
    batches, leftover = divmod(items, grad_accum)
    if batches == 0:
        raise ValueError(f"the train dataloader has {items} items per epoch, fewer than grad_accum={grad_accum}")
    if leftover:
        warnings.warn(
            f"grad_accum={grad_accum} does not divide the {items} loader items of an epoch: the last {leftover} "
            f"of each epoch are dropped ({batches} optimizer steps per epoch)",
            UserWarning,
            stacklevel=3,
        )
    return batches


def _build_optimizer(optimizer: Any, model: torch.nn.Module) -> torch.optim.Optimizer:
    if isinstance(optimizer, torch.optim.Optimizer):
        return optimizer
    if isinstance(optimizer, (str, dict)):
        from trainer.optim import configure_optimizer

        if isinstance(optimizer, str):
            return configure_optimizer(optimizer, model.parameters())
        if len(optimizer) != 1:
            raise ValueError(f"optimizer={optimizer!r} must name one optimizer, e.g. {{'AdamW': {{'lr': 1e-3}}}}")
        ((name, kwargs),) = optimizer.items()
        return configure_optimizer(name, model.parameters(), **(kwargs or {}))
    if callable(optimizer):
        built = optimizer(model)
        if not isinstance(built, torch.optim.Optimizer):
            raise TypeError(f"optimizer is a callable, so it must return a torch optimizer; it returned {built!r}")
        return built
    raise TypeError(
        f"optimizer={optimizer!r} must be a torch optimizer, a callable model -> optimizer, or a name such as 'AdamW'"
    )


def _to_device(item: Any, device: torch.device) -> Any:
    if device.type == "cpu":
        return item
    if isinstance(item, torch.Tensor):
        return item.to(device, non_blocking=True)
    if isinstance(item, (list, tuple)):
        return type(item)(_to_device(x, device) for x in item)
    if isinstance(item, dict):
        return {key: _to_device(value, device) for key, value in item.items()}
    return item


def _resume_iterator(loader: Iterable, sampler: Any, skip: int) -> Iterator:
    """An iterator over ``loader`` past its first ``skip`` items (the sampler skips them unloaded when it can)."""
    batch_size = getattr(loader, "batch_size", None)
    # with workers, replaying the skipped batches through them reproduces their random streams exactly
    in_process = getattr(loader, "num_workers", 0) == 0
    if skip and isinstance(sampler, ResumableSampler) and batch_size and in_process:
        sampler.skip(skip * batch_size)
        return _rng_neutral_iter(loader)
    iterator = _rng_neutral_iter(loader)
    return skip_batches(iterator, skip) if skip else iterator  # others: consumed and discarded


def _groups_of(iterator: Iterator, n: int) -> Iterator[list]:
    """Consecutive groups of ``n`` items; leftovers that do not fill a group are dropped (warned at construction)."""
    while len(items := list(itertools.islice(iterator, n))) == n:
        yield items


def _rng_neutral_iter(loader: Iterable) -> Iterator:
    """``iter(loader)`` without touching the global torch RNG.

    A DataLoader draws its workers' base seed from the global generator each time an iterator is made; a
    resumed run makes one mid-epoch where the uninterrupted run did not, so the draw would shift every later
    random number (dropout, ...) and break bit-exact resume.
    """
    state = torch.random.get_rng_state()
    iterator = iter(loader)
    torch.random.set_rng_state(state)
    return iterator
