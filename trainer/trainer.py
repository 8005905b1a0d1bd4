"""``Trainer``: the training loop that owns time.

It counts samples, tokens, batches (optimizer steps) and epochs — globally across DDP ranks — applies
``scale_schedule_ratio`` to ``max_duration`` and to every schedule, steps schedules per batch or per epoch,
and checkpoints everything needed to continue a run exactly. Time moves by the one rule of
:mod:`schedulers.core.clock` (the trainer's state is a :class:`~schedulers.core.clock.Clock`).

Batch ``k`` (counting from 0) trains with every schedule evaluated at the timestamp before it: the
schedules are written at construction (α(0)) and stepped after each optimizer step, once time has
advanced (Composer steps before advancing, so its batch ``k`` trains with α(k − 1); deviation 4).

This module builds the trainer and holds its public methods; each job has its own module, which reads the
trainer's public attributes and never imports this one: the loop (:mod:`trainer.loop`), a trained batch
(:mod:`trainer.training`), a previewed one (:mod:`trainer.preview`), evaluation (:mod:`trainer.evaluation`),
checkpoints (:mod:`trainer.checkpointing`) and what the run tells (:mod:`trainer.report`).
"""

from __future__ import annotations

import inspect
import signal
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import torch

from schedulers import Schedule
from schedulers.core.clock import TrainerState
from schedulers.core.listening import Evaluation, EvaluationListener
from schedulers.core.run import MissingDataloaderLenError, Run
from schedulers.core.schedule_arguments import integer_argument, number_argument
from timeunits import Time, TimeUnit
from trainer import checkpointing, distributed
from trainer.callbacks import CallbackList, EvalHooks, ProgressBar
from trainer.config_reading._build import ConfiguredRun, trainer_arguments
from trainer.data import count_samples, prepare_loader
from trainer.evaluation import EVAL_METRICS, check_listener, deliver, mean_loss
from trainer.loggers import LoggerCallback
from trainer.loop import Loop
from trainer.param_groups import apply_adjust_learning_rate
from trainer.precision import Precision
from trainer.preview import Preview
from trainer.report import announce, close_progress_bars, say, schedule_report_and_warnings
from trainer.scheduled_run import ScheduledRun, build_schedulers
from trainer.seeding import seed_everything
from trainer.signals import exit_status, signal_name, stop_requests
from trainer.trainer_arguments import (
    build_optimizer,
    constant_batch_size,
    dataloader_len,
    no_length_message,
    nonfinite_loss_action,
    one_optimizer,
    optional_count,
    reject_unknown_keywords,
    run_time,
)
from trainer.training import Training, epoch_batches
from trainer.writable_paths import check_writable

__all__ = ["ConfiguredTrainer", "Trainer"]


class Trainer:
    """Train ``model`` on ``train_dataloader`` for ``max_duration`` with time-aware schedules.

    The first four arguments may be positional; docs/trainer.md explains each in a table and the main ones in
    more words. Each loader item is ``(inputs, targets)`` → ``loss_fn(model(inputs), targets)``, or with
    ``loss_fn=None`` ``model(item)`` returns the loss. A nan or inf loss stops training with
    :class:`~trainer.NonFiniteLossError` naming the batch, before its optimizer step and before any checkpoint
    of it.

    Args:
        model: The ``torch.nn.Module`` to train; moved to ``device`` (and DDP-wrapped under ``torchrun``).
        train_dataloader: Any iterable of items; a plain ``DataLoader`` is rebuilt around a sampler the trainer
            reshuffles from ``seed`` and the epoch, so that a resumed run reads the same batches.
        max_duration: The run's length: a Time or time string in ``ep``, ``ba``, ``sp`` or ``tok`` (an int
            means epochs). The run stops after the batch that reaches it.
        optimizer: An optimizer, a callable ``model -> optimizer`` (Cerebras style), or a name with arguments
            for :func:`trainer.optim.configure_optimizer` (``"AdamW"`` or ``{"AdamW": {"lr": 1e-3}}``).
        schedulers: One entry or a list: Cadence schedules (compiled here; several on one hyperparameter
            multiply), torch ``LRScheduler`` objects (Cerebras's and SambaFlow's included), callables
            ``optimizer -> LRScheduler``, or dicts ``{"schedule", "hyperparameter", "param_group_tags"}``
            (see :mod:`trainer.scheduled_run`).
        loss_fn: ``loss_fn(model(inputs), targets)`` for each ``(inputs, targets)`` item; None when
            ``model(item)`` returns the loss.
        scale_schedule_ratio: Composer's ssr: scales ``max_duration`` (epochs becoming exact batches) and
            every schedule's times.
        step_schedulers_every_batch: True steps every scheduler once per batch, False once per epoch (Cadence
            schedules held for the epoch); None, Composer's default: Cadence's per batch, a torch scheduler you
            built per epoch (docs/stepping.md).
        grad_accum: Consecutive loader items per optimizer step (one ``ba``); each item's loss is divided by it.
        eval_dataloader: Items to evaluate the mean loss on (:meth:`evaluate`), at ``eval_interval``.
        eval_interval: A time between evaluations (and one at the end of the run); needs ``eval_dataloader``.
        device: Where the model and each batch go.
        seed: Seeds Python, torch and numpy, and the trainer's shuffling.
        callbacks: One :class:`~trainer.Callback` (or any object with hook methods) or a list of them.
        save_folder: Where checkpoints go; a final one is saved at the end of :meth:`fit`.
        save_interval: A time between checkpoints; needs ``save_folder``.
        load_path: A checkpoint file, or a folder (its ``latest``), to resume from.
        progress_bar: Show a tqdm bar (time in ``max_duration``'s unit, loss, lr).
        get_num_samples: ``item -> int``; by default the first dimension of the item's first tensor.
        get_num_tokens: ``item -> int``; needed for any time in ``tok`` (tokens stay 0 without it).
        max_grad_norm: Clip the gradients' total norm to this before every optimizer step; None: no clipping.
        precision: ``"fp32"``, ``"bf16"`` (autocast) or ``"fp16"`` (autocast and a gradient scaler).
        autoresume: Resume from ``save_folder``'s latest checkpoint when there is one (needs ``save_folder``).
        save_num_checkpoints_to_keep: Keep only the newest N checkpoint files; None keeps all.
        load_weights_only: Load only the model's weights from ``load_path`` and start a new run.
        load_strict_model_weights: With ``load_weights_only``, every weight must match the model's.
        loggers: One logger or a list (:class:`~trainer.CSVLogger`, :class:`~trainer.TensorBoardLogger`, or
            any object with ``log_metrics``, ``log_hyperparameters`` and ``close``).
        print_schedule_report: Print the schedule report (docs/report.md) on stderr at the start of :meth:`fit`;
            None (the default) prints it when ``progress_bar`` is on, so ``progress_bar=False`` is a quiet console.
        on_nonfinite_loss: ``"raise"`` stops at a nan or inf loss with :class:`~trainer.NonFiniteLossError`;
            ``"warn"`` warns and trains on.
        optimizers: Composer's spelling of ``optimizer``: one optimizer, or a list or tuple holding one.

    Returns:
        A trainer at the start of its run (or where the checkpoint it resumed from left off): every schedule
        has written the value batch 0 trains with. :meth:`fit` trains; :meth:`preview` steps the schedules
        without training.

    Raises:
        TypeError: an unknown keyword (with the closest accepted one), ``optimizer`` and ``optimizers`` both
            given or neither, a ``model`` that is not a module, or a callback that is not one.
        ValueError: an argument out of its range (named, with what it accepts), a time in ``tok`` without
            ``get_num_tokens``, an interval without its loader or folder, a ``save_folder`` that cannot be
            written, or weights that do not fit the model.
        trainer.checkpoint_files.CheckpointError: ``load_path`` is not a readable Cadence checkpoint.

    Example:
        >>> import torch
        >>> from schedulers import CosineAnnealingWithWarmupScheduler
        >>> from trainer import LRMonitor, Trainer
        >>> _ = torch.manual_seed(0)
        >>> model = torch.nn.Linear(3, 1)
        >>> data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(5)]  # 5 batches of 4 samples
        >>> monitor = LRMonitor()
        >>> trainer = Trainer(model, data, "2ep", torch.optim.SGD(model.parameters(), lr=0.1),
        ...                   schedulers=CosineAnnealingWithWarmupScheduler(t_warmup="0.2dur"),
        ...                   loss_fn=torch.nn.functional.mse_loss, callbacks=[monitor],
        ...                   progress_bar=False, print_schedule_report=False)
        >>> trainer.fit()
        >>> str(trainer.state.timestamp.batch), str(trainer.state.timestamp.sample)
        ('10ba', '40sp')
        >>> [round(lr, 4) for lr in monitor.values("lr")[:4]]  # warmup over 2 batches, then the cosine
        [0.0, 0.05, 0.1, 0.0962]
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
        print_schedule_report: bool | None = None,
        on_nonfinite_loss: str = "raise",
        optimizers: Any = None,
        **unknown: Any,
    ) -> None:
        reject_unknown_keywords(unknown, _KEYWORDS)
        optimizer = one_optimizer(optimizer, optimizers)
        grad_accum = _check_loop_arguments(model, grad_accum, step_schedulers_every_batch)
        self.on_nonfinite_loss = nonfinite_loss_action(on_nonfinite_loss)
        self._setup_process(seed, device, precision, max_grad_norm, save_num_checkpoints_to_keep)
        # the console shows the run (the bar, the report) or stays quiet, unless the report is asked for on its own
        self.print_schedule_report = bool(progress_bar if print_schedule_report is None else print_schedule_report)
        self.loss_fn = loss_fn
        self._setup_data(model, train_dataloader, grad_accum, get_num_samples, get_num_tokens)
        self._setup_clock(max_duration, scale_schedule_ratio)
        self._setup_schedules(optimizer, schedulers, step_schedulers_every_batch)
        self._setup_outputs(eval_dataloader, eval_interval, save_folder, save_interval)
        self._setup_callbacks(callbacks, loggers, progress_bar)
        self._check_listeners()
        if autoresume:
            load_path, load_weights_only = checkpointing.autoresume_path(self.save_folder, load_path, load_weights_only)
        if load_path is not None:
            if load_weights_only:
                checkpointing.load_weights(self.model, load_path, strict=load_strict_model_weights)
            else:
                checkpointing.resume(self, self._loop, self._last_checkpoint, load_path)

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
        self.keep_checkpoints = optional_count("save_num_checkpoints_to_keep", keep_checkpoints)

    def _setup_data(self, model, train_dataloader, grad_accum, get_num_samples, get_num_tokens) -> None:
        """The model on its device (DDP-wrapped when distributed) and the train loader the trainer iterates."""
        self.grad_accum = grad_accum
        self.get_num_samples = get_num_samples or count_samples
        self.get_num_tokens = get_num_tokens
        self.model = model.to(self.device)
        self.train_model = distributed.wrap_model(self.model, self.world, self.device)
        self.train_dataloader = prepare_loader(
            train_dataloader, seed=self.seed, rank=self.world.rank, world_size=self.world.size
        )

    def _setup_clock(self, max_duration: Any, scale_schedule_ratio: Any) -> None:
        """The run, built once (``max_duration`` scaled by the ratio, batches per epoch after ``grad_accum``), and
        its clock; the schedules, the report and the checkpoints read this one value."""
        requested = run_time(max_duration)
        self._check_tokens("max_duration", requested)
        self.run = Run(
            requested,
            dataloader_len(self.train_dataloader, self.grad_accum),
            samples_per_batch=constant_batch_size(
                self.train_dataloader, self.grad_accum, self.world.size, self.get_num_samples
            ),
            scale_schedule_ratio=scale_schedule_ratio,
        )
        self.state = TrainerState(self.run, grad_accum=self.grad_accum)
        self._spent_by_preview = False

    def _setup_schedules(self, optimizer: Any, schedulers: Any, every_batch: bool | None) -> None:
        """The optimizer, each group's base values (before any scheduler writes), the compiled schedulers, and
        the loop that steps them."""
        self.optimizer = build_optimizer(optimizer, self.model)
        apply_adjust_learning_rate(self.optimizer)  # before schedules take each group's base value
        self._base_values = [
            {key: float(value) for key, value in group.items() if _is_scalar(value)}
            for group in self.optimizer.param_groups
        ]
        try:
            self.scheduled: ScheduledRun = build_schedulers(
                schedulers, self.optimizer, self.state, self.run, every_batch
            )
        except MissingDataloaderLenError as error:  # the clock's wording; a Trainer or YAML user sets no state
            raise MissingDataloaderLenError(no_length_message(error, self.train_dataloader)) from None
        self._check_schedule_units(schedulers)
        scheduled = self.scheduled
        self._loop = Loop(self.state, scheduled.per_batch, scheduled.per_epoch, time_readers=scheduled.time_readers)

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
        self._last_checkpoint = checkpointing.LastCheckpoint()

    def _setup_callbacks(self, callbacks: Any, loggers: Any, progress_bar: bool) -> None:
        self.callbacks = CallbackList(callbacks)
        self.loggers = [] if loggers is None else list(loggers) if isinstance(loggers, (list, tuple)) else [loggers]
        if self.loggers:
            self.callbacks.append(LoggerCallback(self.loggers))
        if progress_bar:
            self.callbacks.append(ProgressBar())

    def _check_listeners(self) -> None:
        """Whatever listens to evaluations (a plateau, torch's ReduceLROnPlateau, early stopping) needs a run
        that evaluates and logs its metric: checked now, before any training, by the one listener protocol."""
        heard = [callback for callback in self.callbacks if isinstance(callback, EvaluationListener)]
        self._listeners = [EvalHooks(self, self.callbacks), *self.scheduled.evaluation_listeners, *heard]
        for listener in self._listeners:
            check_listener(listener, self.eval_interval, self.state.max_duration)
        self.decisions: list[str] = []  # what the listeners decided (a plateau's reductions), one line each

    # -- what callbacks and loggers read ---------------------------------------------------------
    @property
    def schedulers(self) -> list:
        """Every scheduler of the run (compiled Cadence schedules included)."""
        return self.scheduled.all

    @property
    def stop_signal(self) -> signal.Signals | None:
        """The stop signal (SIGTERM, SIGHUP) that reached the running ``fit``, or None: the run ends after the
        current batch with a checkpoint (docs/trainer.md). A callback may read it to stop waiting."""
        return self._loop.stop_signal

    @property
    def scheduled_keys(self) -> list[str]:
        """The param-group hyperparameters something schedules (``["lr", "weight_decay"]``, ...)."""
        return self.scheduled.keys

    def base_value(self, key: str, group: int = 0) -> float:
        """Param group ``group``'s base value of ``key``: what a multiplier of the schedule multiplies.

        It is ``group["initial_<key>"]`` when a scheduler keeps one there (Cadence's compiled schedules and
        torch's schedulers do), else the group's value when the trainer got the optimizer, before any
        scheduler wrote it (Cerebras's schedulers keep no ``initial_lr``).

        Args:
            key: The hyperparameter (``"lr"``, ``"weight_decay"``, ...).
            group: The param group's index.

        Returns:
            The base value, a float.

        Raises:
            KeyError: the group had no scalar ``key`` when the trainer got the optimizer.
            IndexError: no param group ``group``.
        """
        param_group = self.optimizer.param_groups[group]
        initial = param_group.get(f"initial_{key}")
        if initial is not None and _is_scalar(initial):
            return float(initial)
        try:
            return self._base_values[group][key]
        except (IndexError, KeyError):
            raise KeyError(f"param group {group} had no scalar {key!r} when the trainer got the optimizer") from None

    # -- the run -------------------------------------------------------------------------------------
    def fit(self, duration: Time | str | int | None = None) -> None:
        """Train until ``max_duration`` (in its own unit), then save a final checkpoint if ``save_folder`` is set.

        ``duration`` (a time; an int means epochs) stops this call earlier, after at most that much more
        training; every schedule still sees ``max_duration`` as the run's length (a run split over several
        jobs, like ``--steps_this_run``). Rank 0 tells on stderr where it resumed from, where checkpoints go,
        and when there is nothing left to train; Ctrl-C prints where the last checkpoint is, then re-raises.
        SIGTERM or SIGHUP (:mod:`trainer.signals`) ends the run after the current batch: a final checkpoint
        (with ``save_folder``), ``on_fit_end``, one line saying where the checkpoint is, then ``SystemExit``
        with 128 + the signal (143 for SIGTERM). Afterwards ``state.timestamp`` says where the run is.

        Args:
            duration: At most this much more training in this call (a time; an int means epochs); None trains
                to ``max_duration``.

        Raises:
            NonFiniteLossError: a batch's loss was nan or inf (``on_nonfinite_loss="raise"``).
            RuntimeError: the trainer ran :meth:`preview` (its clock is at the end), or an epoch yielded no batch.
            SystemExit: SIGTERM or SIGHUP stopped the run (status 128 + the signal).
            ValueError: a ``duration`` that is not a time (or counts tokens without ``get_num_tokens``).
        """
        if self._spent_by_preview:
            raise RuntimeError("this trainer ran preview(), which moved its clock to the end: build a new one to fit")
        loop, last = self._loop, self._last_checkpoint
        loop.stop_after(self._duration(duration))
        resumed_from, last.resumed_from = last.resumed_from, None  # told once
        announce(self, resumed_from=resumed_from, finished=loop.finished())
        hooks = self.callbacks
        hooks.on_fit_start(self)
        with stop_requests(loop.request_stop):  # also over the final save: a signal then waits for it
            try:
                self.train_model.train()  # once: evaluate() restores it
                loop.run(Training(self, self._epoch_batches, self._where_the_last_checkpoint_is), self)
            except BaseException as error:
                close_progress_bars(self.callbacks)  # what is said next (a message, a traceback) on its own line
                if isinstance(error, KeyboardInterrupt):
                    say(self, f"interrupted at {self.state.timestamp.batch}: {self._where_the_last_checkpoint_is()}")
                raise
            if self.save_folder is not None and last.batch != self.state.timestamp.batch.value:
                self.save_checkpoint()
            hooks.on_fit_end(self)
        if loop.end_reason:
            reason, loop.end_reason = loop.end_reason, None
            say(self, f"{reason}; stopped at {self.state.timestamp.batch}: {self._where_the_last_checkpoint_is()}")
        signum = loop.stop_signal
        if signum:
            where = self._where_the_last_checkpoint_is()
            say(self, f"stopped by {signal_name(signum)} at {self.state.timestamp.batch}: {where}")
            raise SystemExit(exit_status(signum))

    def preview(self, callbacks: Any = ()) -> None:
        """Run the loop to ``max_duration`` without training: the schedulers step exactly as ``fit()`` steps them.

        No forward, backward or optimizer step, no evaluation, checkpoint, report or message; only
        ``callbacks`` (e.g. an :class:`~trainer.LRMonitor`) see the batches, through ``on_fit_start``,
        ``on_batch_start``, ``on_epoch_end`` and ``on_fit_end`` (a previewed batch has no loss, so no
        ``on_batch_end``), and what they record is what ``fit()`` would train with. The data is read only when
        needed to count samples or tokens. The clock ends at ``max_duration``, so the trainer cannot ``fit()``
        afterwards: build a new one.

        Args:
            callbacks: The callbacks that see the previewed batches (one, or a list).

        Raises:
            RuntimeError: the trainer already ran ``preview()``.
            TypeError: a callback that is not one.

        Example:
            >>> import torch
            >>> from schedulers import LinearScheduler
            >>> from trainer import LRMonitor, Trainer
            >>> model = torch.nn.Linear(2, 1)
            >>> trainer = Trainer(model, [(torch.ones(4, 2), torch.ones(4, 1))] * 2, "4ba",
            ...                   torch.optim.SGD(model.parameters(), lr=1.0), schedulers=LinearScheduler(1.0, 0.0),
            ...                   loss_fn=torch.nn.functional.mse_loss, progress_bar=False)
            >>> monitor = LRMonitor()
            >>> trainer.preview([monitor])
            >>> monitor.values("lr")  # what fit() would train each batch with
            [1.0, 0.75, 0.5, 0.25]
        """
        if self._spent_by_preview:
            raise RuntimeError("this trainer already ran preview(): build a new one")
        self._spent_by_preview = True
        self._loop.stop_after(None)
        mode = Preview(self, self._epoch_batches, callbacks)
        mode.hooks.on_fit_start(self)
        self.train_model.train()
        self._loop.run(mode, self)
        mode.hooks.on_fit_end(self)

    def request_stop(self, reason: str) -> None:
        """End the run after the current batch (a callback's decision, such as :class:`~trainer.EarlyStopping`):
        ``fit`` then saves its final checkpoint (with ``save_folder``), calls ``on_fit_end`` and says ``reason``
        in one line on stderr.

        Args:
            reason: Why, in words.

        Example:
            >>> import torch
            >>> from trainer import Callback, Trainer
            >>> class StopAtThree(Callback):
            ...     def on_batch_end(self, trainer, loss):
            ...         if trainer.state.timestamp.batch.value == 3:
            ...             trainer.request_stop("enough")
            >>> model = torch.nn.Linear(1, 1)
            >>> trainer = Trainer(model, [(torch.ones(2, 1), torch.ones(2, 1))], "10ba",
            ...                   torch.optim.SGD(model.parameters(), lr=0.1), loss_fn=torch.nn.functional.mse_loss,
            ...                   callbacks=[StopAtThree()], progress_bar=False)
            >>> trainer.fit()
            >>> str(trainer.state.timestamp.batch)
            '3ba'
        """
        self._loop.request_end(str(reason))

    def _duration(self, duration: Any) -> Time | None:
        """``fit(duration)`` checked: how much more this call trains, or None (to ``max_duration``)."""
        if duration is None:
            return None
        more = run_time(duration, "duration")
        self._check_tokens("duration", more)
        return more

    def _epoch_batches(self) -> Iterator[list]:
        """Groups of ``grad_accum`` loader items for the rest of the current epoch (skipping those already seen)."""
        return epoch_batches(
            self.train_dataloader,
            self.state,
            grad_accum=self.grad_accum,
            seed=self.seed,
            skipped_in_epoch=self._loop.skipped_in_epoch,
            position=self._resume_position(),
        )

    def _resume_position(self) -> int | None:
        """Where a run resumed on another number of ranks goes on in its first epoch (once; then None)."""
        position, self._loop.resume_position = self._loop.resume_position, None
        return position

    def _where_the_last_checkpoint_is(self) -> str:
        return self._last_checkpoint.where(self.save_folder)

    # -- evaluation ------------------------------------------------------------------------------------
    def evaluate(self, *, counts: bool = False) -> dict[str, float]:
        """The sample-weighted mean loss over ``eval_dataloader`` (all ranks), delivered to every listener.

        Evaluating never shifts training's random numbers, and leaves the model in the mode it found it in
        (:func:`trainer.evaluation.mean_loss`). The evaluation reaches the callbacks' ``on_eval``, and, when it
        counts, the schedules that listen, torch's ``ReduceLROnPlateau`` and ``EarlyStopping``, through one
        path (:func:`trainer.evaluation.deliver`); a reduction is said in one line, a stop ends the run.

        Args:
            counts: Whether it is one of the run's evaluations (``fit`` passes True at each ``eval_interval``
                and the run's end), which plateaus and early stopping count.

        Returns:
            ``{"eval/loss": mean}``.

        Raises:
            ValueError: the trainer has no ``eval_dataloader``.
            TypeError: an item or a loss of the wrong shape.

        Example:
            >>> import torch
            >>> from trainer import Trainer
            >>> model = torch.nn.Linear(1, 1, bias=False)
            >>> _ = torch.nn.init.zeros_(model.weight)
            >>> items = [(torch.ones(4, 1), torch.full((4, 1), 2.0))]
            >>> trainer = Trainer(model, items, "1ba", torch.optim.SGD(model.parameters(), lr=0.1),
            ...                   loss_fn=torch.nn.functional.mse_loss, eval_dataloader=items, progress_bar=False)
            >>> trainer.evaluate()
            {'eval/loss': 4.0}
        """
        if self.eval_dataloader is None:
            raise ValueError("evaluate() needs eval_dataloader")
        loss = mean_loss(
            self.train_model,
            self.eval_dataloader,
            self.loss_fn,
            device=self.device,
            get_num_samples=self.get_num_samples,
            world=self.world,
        )
        metrics = dict(zip(EVAL_METRICS, (loss,), strict=True))
        evaluation = Evaluation(metrics, self.state.timestamp, counts, door="the Trainer")
        self.decisions += deliver(evaluation, self._listeners, stop=self.request_stop, say=lambda line: say(self, line))
        return metrics

    # -- checkpoints -----------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to continue the run exactly (weights_only-safe; :func:`trainer.checkpointing.run_state`).

        Returns:
            ``{"model", "optimizer", "schedulers", "timestamp", "rng", "precision", "run", "callbacks"}``, which
            a checkpoint holds and ``load_path=`` restores; ``rng`` holds every rank's RNG states.
        """
        return checkpointing.run_state(self, self._loop.skipped_in_epoch, self._loop.epoch_start)

    def save_checkpoint(self) -> Path | None:
        """Save a checkpoint named by the batch count into ``save_folder`` (rank 0 writes; all ranks gather).

        Returns:
            The file (``save_folder/ba00000012.pt``), or None on a rank other than 0.

        Raises:
            ValueError: the trainer has no ``save_folder``.
        """
        if self.save_folder is None:
            raise ValueError("save_checkpoint() needs save_folder")
        return checkpointing.save(self, self._last_checkpoint, self.state_dict())

    # -- the report ------------------------------------------------------------------------------------
    def schedule_report(self) -> str:
        """Every scheduler of the run resolved (see :mod:`schedulers.tools.report`): for a Cadence schedule its
        time arguments in batches, the run in every unit, the values at the start, the end of warmup, each
        milestone and the end; for a torch, Cerebras or SambaFlow scheduler the values a copy of it takes at
        its step-count arguments (the live scheduler is never stepped).

        Returns:
            The report's text (docs/report.md).
        """
        return self.schedule_report_and_warnings()[0]

    def schedule_report_and_warnings(self) -> tuple[str, list[str]]:
        """The report's text, and a message for each time argument that lies beyond the end of the run
        (both from one resolution, so the warning and the report never disagree).

        Returns:
            ``(report, warnings)``: the text of :meth:`schedule_report` and a list of messages.
        """
        return schedule_report_and_warnings(self)

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

    @classmethod
    def from_config(cls, config: dict | str | Path, base_dir: str | Path | None = None, **kwargs: Any) -> Trainer:
        """A ``cls`` built from a Cerebras-style config (a dict, or a YAML file), honouring ``loop.num_steps``;
        see :mod:`trainer.config`. ``Trainer.from_config`` builds a :class:`ConfiguredTrainer`, whatever was imported
        first; a subclass builds a ``Configured<Name>`` subclass of itself.

        Args:
            config: The config: a dict, or the path of a YAML file.
            base_dir: The folder ``module:function`` references are imported from, besides the working
                directory (None: the YAML file's folder).
            kwargs: Trainer arguments that win over the config's.

        Returns:
            The trainer the config describes.
        """
        built = ConfiguredTrainer if cls is Trainer else cls  # the one class a config builds for a Trainer
        return trainer_arguments(config, base_dir, **kwargs).construct(built)

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


class ConfiguredTrainer(ConfiguredRun, Trainer):
    """The :class:`~trainer.Trainer` a config builds: the same trainer, plus ``num_steps`` and a loss history.

    ``num_steps`` (``loop.num_steps``, ``--steps_this_run``) is how many optimizer steps one ``fit()`` takes at
    most, counted from the timestamp it starts at (after a resume); ``max_duration`` stays the horizon every
    schedule sees. ``config`` is the configuration it was built from, ``loss_history`` a
    :class:`~trainer.config.LossHistory`.

    Args:
        *args: :class:`~trainer.Trainer`'s arguments.
        num_steps: the optimizer steps one ``fit()`` takes at most (None: up to the horizon).
        config: the configuration the trainer was built from.
        **kwargs: :class:`~trainer.Trainer`'s keyword arguments.

    Returns:
        The trainer; ``fit()`` trains at most ``num_steps`` optimizer steps.

    Raises:
        TypeError, ValueError: as :class:`~trainer.Trainer` does; :func:`trainer_from_config` reports them as
            :class:`ConfigError` on key paths.

    Example:
        >>> config = {"trainer": {"init": {"model": {"factory": "torch.nn:Linear", "kwargs": {"in_features": 2,
        ...           "out_features": 1}}, "optimizer": {"SGD": {"lr": 0.1}}, "loss_fn": "mse_loss",
        ...           "progress_bar": False, "loop": {"max_steps": 6, "num_steps": 2}},
        ...           "fit": {"train_dataloader": "itertools:count"}}}
        >>> trainer = ConfiguredTrainer.from_config(config)
        >>> trainer.num_steps, str(trainer.state.max_duration)
        (2, '6ba')
    """


def _check_loop_arguments(model: Any, grad_accum: Any, step_schedulers_every_batch: Any) -> int:
    """Check the loop's arguments before anything is set up; gives ``grad_accum`` as an int."""
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    if step_schedulers_every_batch not in (None, True, False):
        raise ValueError(f"step_schedulers_every_batch={step_schedulers_every_batch!r} must be None, True or False")
    return integer_argument("grad_accum", grad_accum, low=1)


def _is_scalar(value: Any) -> bool:
    if isinstance(value, torch.Tensor):
        return value.dim() == 0 and value.is_floating_point()
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# the keywords Trainer() accepts (for the "did you mean" of an unknown one)
_KEYWORDS = tuple(name for name in inspect.signature(Trainer.__init__).parameters if name not in ("self", "unknown"))
