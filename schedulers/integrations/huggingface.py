"""Cadence schedules in the Hugging Face ``Trainer``, on the Trainer's own clock.

:func:`huggingface_scheduler` returns what the Trainer takes: the scheduler for
``optimizers=(optimizer, scheduler)`` and the callback that keeps the scheduler's clock::

    scheduler, callback = huggingface_scheduler(schedule, optimizer, args, train_dataset)
    trainer = Trainer(model=model, args=args, train_dataset=train_dataset,
                      optimizers=(optimizer, scheduler), callbacks=[callback])

How the time is read (docs/integrations.md has the details):

* batches are the Trainer's ``state.global_step`` (optimizer steps: with ``gradient_accumulation_steps=n``
  one batch is ``n`` loader batches, the epoch's last, shorter accumulation is a batch too). The callback
  moves the scheduler's :class:`~schedulers.core.clock.Clock` one batch in ``on_optimizer_step``, after the
  optimizer step and before the Trainer calls ``scheduler.step()``, so optimizer step ``k`` (from 0) trains
  with the schedule at ``k`` batches, as in Cadence's trainer and :func:`~schedulers.evaluate_run`.
  Epochs close and ``done`` turns true by the clock's one rule (``schedulers.core.clock``).
* ``max_duration`` is ``max_steps`` in ``ba`` when it is set (> 0, as the Trainer reads it), else
  ``num_train_epochs`` in ``ep`` (a fractional number of epochs is ``ceil(num_train_epochs · L)`` in ``ba``,
  the Trainer's own count);
* ``dataloader_len`` (``L``, optimizer steps per epoch) is the Trainer's ``num_update_steps_per_epoch``:

  .. math:: L = \\max\\left(\\left\\lceil \\frac{\\text{batches per process}}{\\text{gradient\\_accumulation\\_steps}}
            \\right\\rceil, 1\\right)

  where the batches per process are those of the Trainer's loader sharded by accelerate over the
  processes. Before training it is worked out from the train dataset's length; when training starts, the
  callback reads it again from the Trainer's own loader.
* a step the Trainer skips (mixed precision overflow: it then does not call ``scheduler.step()``) still
  counts, as it does for the Trainer (``global_step`` and ``max_steps`` count it): the callback writes the
  values for the new time in ``on_step_end``, so the next step never trains at the previous lr.
* samples (and tokens, given a counter) are counted from the inputs of every training forward of the model
  (summed over processes); tokens can also be the Trainer's own ``num_input_tokens_seen``.
* resuming (``trainer.train(resume_from_checkpoint=...)``): the scheduler's ``state_dict`` carries the
  clock, which the Trainer saves with each checkpoint and restores; the clock then continues at the
  restored ``global_step``.

transformers is imported only when this module needs it.
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs
import torch

from schedulers.core.clock import Clock, after_batches
from schedulers.core.run import as_dataloader_len, as_max_duration
from schedulers.core.torch_scheduler import CompiledScheduler

# The Lightning integration's counting helpers: one rule for which runs count samples, one batch-size probe.
from schedulers.integrations.counting import enable_counting, samples_in, steps_per_epoch, tokens_in
from schedulers.integrations.framework import (
    FrameworkClock,
    callback_class,
    check_counters,
    import_framework,
    refuse_deaf,
)
from timeunits import Time, TimeUnit

# CadenceTrainerCallback is made on first use by the module's __getattr__ (it subclasses transformers' TrainerCallback)
__all__ = ["CadenceTrainerCallback", "HuggingFaceScheduler", "TrainerSchedule", "huggingface_scheduler"]  # noqa: F822

_WHO = "CadenceTrainerCallback"
_INSTALL_HINT = "pip install transformers accelerate  (or: pip install -e '.[huggingface]')"


@attrs.frozen
class TrainerSchedule:
    """What :func:`huggingface_scheduler` returns: ``scheduler`` for ``optimizers=``, ``callback`` for ``callbacks=``.

    Args:
        scheduler: The :class:`HuggingFaceScheduler` the Trainer steps (``optimizers=(optimizer, scheduler)``).
        callback: The ``CadenceTrainerCallback`` that moves the scheduler's clock (``callbacks=[callback]``).

    Returns:
        A pair: unpack it as ``scheduler, callback`` or read the two by name.

    >>> scheduler, callback = TrainerSchedule(scheduler=None, callback="cb")
    >>> callback
    'cb'
    """

    scheduler: HuggingFaceScheduler
    callback: Any

    def __iter__(self) -> Iterator[Any]:
        """The scheduler, then the callback: what ``scheduler, callback = huggingface_scheduler(...)`` unpacks.

        Returns:
            An iterator over ``(scheduler, callback)``.

        >>> list(TrainerSchedule(scheduler="s", callback="cb"))
        ['s', 'cb']
        """
        return iter((self.scheduler, self.callback))


def huggingface_scheduler(
    schedule: Callable[..., float],
    optimizer: torch.optim.Optimizer,
    args: Any,
    train_dataset: Any = None,
    *,
    hyperparameter: str = "lr",
    ssr: float = 1.0,
    max_duration: Time | str | None = None,
    dataloader_len: int | Time | None = None,
    get_num_samples: Callable[[Any], int] | None = None,
    get_num_tokens: Callable[[Any], int] | None = None,
    param_groups: Sequence[int] | None = None,
) -> TrainerSchedule:
    """The scheduler and the callback that run ``schedule`` in a Hugging Face ``Trainer`` built from ``args``; a
    plateau inside hears each evaluation while training, as ``reduce_lr_on_plateau`` would (docs/integrations.md).

    Args:
        schedule: A Cadence schedule or any ``(state, ssr) -> float`` callable.
        optimizer: The optimizer the Trainer gets in ``optimizers=``.
        args: The Trainer's ``TrainingArguments``.
        train_dataset: The train dataset or its number of samples (for a run or schedule in epochs).
        hyperparameter: The param-group key driven (:func:`~schedulers.compile_scheduler`'s).
        ssr: The scale schedule ratio.
        max_duration: The run's length, instead of ``max_steps``/``num_train_epochs``.
        dataloader_len: Optimizer steps per epoch, instead of the Trainer's count.
        get_num_samples: ``inputs -> samples`` of one training forward (default: the first tensor's length).
        get_num_tokens: ``inputs -> tokens`` of one training forward (default: the Trainer's own count, if on).
        param_groups: The indices of the groups driven (None: all).

    Returns:
        ``TrainerSchedule(scheduler, callback)`` for ``optimizers=(optimizer, scheduler)``, ``callbacks=[callback]``;
        with one warning if ``args`` set ``lr_scheduler_type``, ``warmup_steps``, ``lr_scheduler_kwargs``.

    Raises:
        TypeError: ``args`` not ``TrainingArguments``, or a counter that is not callable.
        ValueError: No length, tokens without a count, or a plateau with ``eval_strategy="no"`` (one line).

    Example:
        >>> import schedulers, torch, transformers
        >>> args = transformers.TrainingArguments(output_dir="/tmp/out", max_steps=10, use_cpu=True, report_to="none")
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
        >>> huggingface_scheduler(schedulers.LinearScheduler(), opt, args).scheduler.state.max_duration
        Time(10, TimeUnit.BATCH)
    """
    callback_class = _callback_class()
    _check_args(args)
    check_counters("inputs", get_num_samples=get_num_samples, get_num_tokens=get_num_tokens)
    given_len = as_dataloader_len(dataloader_len)
    per_epoch = given_len if given_len is not None else _steps_per_epoch_of(train_dataset, args)
    length = as_max_duration(max_duration) if max_duration is not None else _run_length(args, per_epoch)
    clock = Clock(length, per_epoch)
    fixed = {"fixed_max_duration": max_duration is not None, "fixed_dataloader_len": given_len is not None}
    scheduler = HuggingFaceScheduler(
        schedule, optimizer, clock, ssr, hyperparameter=hyperparameter, param_groups=param_groups, **fixed
    )
    callback = callback_class(scheduler, get_num_samples, get_num_tokens, _trainer_counts_tokens(args))
    enable_counting(schedule, clock, scheduler.ssr, callback)
    _check_start(scheduler, args)
    return TrainerSchedule(scheduler, callback)


def _check_start(scheduler: HuggingFaceScheduler, args: Any) -> None:
    """A schedule that listens needs the Trainer to evaluate; Hugging Face's own scheduler settings are unused."""
    scheduler.listener_name = type(scheduler.scheduler).__name__  # who reduced, in the line it says
    refuse_deaf(
        scheduler,
        evaluates=_strategy(args.eval_strategy) != "no",
        how="set eval_strategy='steps' (with eval_steps) or 'epoch' in TrainingArguments, and give the Trainer an "
        "eval_dataset",
    )
    _warn_replaced(args)


class HuggingFaceScheduler(CompiledScheduler):
    """A compiled Cadence scheduler whose state is a :class:`~schedulers.core.clock.Clock` kept at the Trainer's step.

    :func:`huggingface_scheduler` makes it, with the callback that moves the clock. ``state_dict()`` carries
    the clock, so a run resumed from a Trainer checkpoint continues its counts.

    Args:
        schedule: A Cadence schedule or any ``(state, ssr) -> float`` callable.
        optimizer: The optimizer the Trainer gets in ``optimizers=``.
        clock: The clock the callback moves (its ``max_duration`` and ``dataloader_len`` the Trainer's).
        ssr: The scale schedule ratio.
        hyperparameter: The param-group key driven.
        param_groups: The indices of the groups driven (None: all).
        fixed_max_duration: Keep ``clock.max_duration`` when training starts, instead of the Trainer's.
        fixed_dataloader_len: Keep ``clock.dataloader_len`` when training starts, instead of the Trainer's.

    Returns:
        A torch ``LRScheduler`` whose ``step()`` writes the schedule's value at the clock's time.

    Raises:
        TypeError: A schedule that is not callable, or an optimizer that is not a torch optimizer.
        ValueError: A bad ``ssr`` or ``param_groups`` (:class:`CompiledScheduler`'s checks).

    >>> import torch
    >>> from schedulers import LinearScheduler
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = HuggingFaceScheduler(LinearScheduler(alpha_f=0.0), opt, Clock("4ba", 2))
    >>> sched.advance_to(1); sched.step(); sched.state.batches, opt.param_groups[0]["lr"]
    (1, 0.75)
    """

    state: Clock

    def __init__(
        self,
        schedule: Callable[..., float],
        optimizer: torch.optim.Optimizer,
        clock: Clock,
        ssr: float = 1.0,
        *,
        hyperparameter: str = "lr",
        param_groups: Sequence[int] | None = None,
        fixed_max_duration: bool = False,
        fixed_dataloader_len: bool = False,
    ) -> None:
        super().__init__(schedule, optimizer, clock, ssr, hyperparameter=hyperparameter, param_groups=param_groups)
        # given to huggingface_scheduler: kept when training starts, instead of the Trainer's
        self._fixed = (fixed_max_duration, fixed_dataloader_len)
        # the one adapter of the framework's events (integrations.framework)
        self.framework = FrameworkClock(self, "the Hugging Face integration")
        # what load_state_dict warned while the Trainer hid UserWarnings (it loads scheduler.pt under
        # catch_warnings): said again when training starts
        self.held_warnings: list[warnings.WarningMessage] = []

    def step(self, epoch: None = None) -> None:  # type: ignore[override]
        super().step(epoch)
        self.framework.wrote()

    # -- what the callback calls ------------------------------------------------------------------
    def advance_to(self, batches: int, samples: int = 0, tokens: int = 0) -> None:
        """Count the optimizer step that brought the Trainer to ``batches`` steps (before ``step()`` is called).

        Args:
            batches: The Trainer's ``global_step`` after the step.
            samples: The samples the step trained on (0 when not counted).
            tokens: The tokens the step trained on (0 when not counted).

        >>> import torch
        >>> from schedulers import LinearScheduler
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = HuggingFaceScheduler(LinearScheduler(), opt, Clock("4ba", 2))
        >>> sched.advance_to(1, samples=8); sched.advance_to(2, samples=8); sched.state.timestamp.epoch
        Time(1, TimeUnit.EPOCH)
        """
        self.framework.optimizer_step(batches, samples, tokens)

    def follow_trainer(self, args: Any, global_step: int, loader_batches: int | None, tokens: int | None) -> None:
        """At the start of training: take the Trainer's lengths and step count, then write the values.

        Args:
            args: The Trainer's ``TrainingArguments`` (``max_steps``, ``num_train_epochs``,
                ``gradient_accumulation_steps``).
            global_step: The Trainer's step count when training starts (0, or where a resume put it).
            loader_batches: The length of the Trainer's train loader (None without one).
            tokens: The Trainer's ``num_input_tokens_seen`` when tokens are the Trainer's count, else None.

        >>> import torch, transformers
        >>> from schedulers import LinearScheduler
        >>> args = transformers.TrainingArguments(output_dir="/tmp/out", num_train_epochs=2, use_cpu=True,
        ...                                       report_to="none", gradient_accumulation_steps=2)
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = HuggingFaceScheduler(LinearScheduler(), opt, Clock("2ep", 9))
        >>> sched.follow_trainer(args, global_step=0, loader_batches=9, tokens=None)
        >>> sched.state.dataloader_len, sched.state.max_duration
        (5, Time(2, TimeUnit.EPOCH))
        """
        clock = self.state
        fixed_duration, fixed_len = self._fixed
        before = clock.dataloader_len
        if not fixed_len:
            clock.dataloader_len = steps_per_epoch(loader_batches, args.gradient_accumulation_steps)
        if not fixed_duration:
            clock.max_duration = _run_length(args, clock.dataloader_len)
        if clock.batches != global_step or clock.dataloader_len != before:
            # a new run on this Trainer (step 0), a resume without the scheduler's state, or other epochs
            kept = global_step > 0
            samples, counted = (clock.samples, clock.tokens) if kept else (0, 0)
            tokens = counted if tokens is None else tokens
            clock.timestamp = after_batches(global_step, clock.dataloader_len, samples, tokens)
        self.last_epoch = global_step
        self._apply()
        self.framework.wrote()

    # -- checkpoints ------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The compiled scheduler's bookkeeping and the clock (plain ints and strings)."""
        state = super().state_dict()
        state["clock"] = self.state.state_dict()
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the clock (a resumed run), then the bookkeeping, and write the values for the restored time.

        A warning given here is also kept, and said again when training starts: the Trainer loads
        ``scheduler.pt`` under ``warnings.catch_warnings`` and drops every ``UserWarning``.
        """
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if state_dict.get("clock") is not None:
                self.state.load_state_dict(state_dict["clock"])
            super().load_state_dict(state_dict)
        self.held_warnings = list(caught)
        for held in caught:  # as usual too, for a caller that does not hide them
            warnings.warn_explicit(held.message, held.category, held.filename, held.lineno)
        self.framework.wrote()


class _TrainerClock:
    """What :class:`CadenceTrainerCallback` does, free of transformers so that this module imports without it.

    It moves the scheduler's clock at every optimizer step and counts samples and tokens from the model's
    training forwards (a forward pre-hook, attached while training).
    """

    def __init__(
        self,
        scheduler: HuggingFaceScheduler,
        get_num_samples: Callable[[Any], int] | None = None,
        get_num_tokens: Callable[[Any], int] | None = None,
        trainer_tokens: bool = False,
    ) -> None:
        super().__init__()
        if not isinstance(scheduler, HuggingFaceScheduler):
            raise TypeError(
                f"CadenceTrainerCallback keeps the clock of a HuggingFaceScheduler, got {type(scheduler).__name__}: "
                "make both with huggingface_scheduler()"
            )
        self.scheduler = scheduler
        self.get_num_samples = get_num_samples
        self.get_num_tokens = get_num_tokens
        self.trainer_tokens = trainer_tokens and get_num_tokens is None  # a counter given wins
        self.count_samples = get_num_samples is not None
        self._pending = [0, 0]
        self._hook: Any = None
        self._training = False  # between on_train_begin and on_train_end, after the first optimizer step
        self._epoch = scheduler.state.epochs - 1  # the Trainer's index of its epoch in progress (it gives none)

    @property
    def count_tokens(self) -> bool:
        """Whether tokens are counted (by ``get_num_tokens`` or by the Trainer)."""
        return self.get_num_tokens is not None or self.trainer_tokens

    @property
    def _counts_inputs(self) -> bool:
        return self.count_samples or self.get_num_tokens is not None

    # -- Trainer events (the callback class adds transformers' TrainerCallback as a base) ----------------
    def on_train_begin(self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any) -> None:
        """Training starts: check the Trainer steps this scheduler, take its lengths and step count, and attach
        the sample and token counter to the model.

        Args:
            args: The Trainer's ``TrainingArguments``.
            state: The Trainer's ``TrainerState``.
            control: The Trainer's ``TrainerControl``.
            model: The model trained (its training forwards are counted).
            **kwargs: The Trainer's objects (``lr_scheduler``, ``train_dataloader``, ...).

        Raises:
            ValueError: The Trainer steps another lr scheduler, or resumes a run that counts samples or tokens
                without the scheduler's state.

        >>> from types import SimpleNamespace
        >>> import torch, transformers
        >>> from schedulers import LinearScheduler
        >>> args = transformers.TrainingArguments(output_dir="/tmp/out", max_steps=4, use_cpu=True, report_to="none")
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched, callback = huggingface_scheduler(LinearScheduler(), opt, args)
        >>> state = SimpleNamespace(global_step=0, num_input_tokens_seen=0)
        >>> try:
        ...     callback.on_train_begin(args, state, None, lr_scheduler=None)
        ... except ValueError as error:
        ...     print(str(error)[:50])
        the Trainer steps another lr scheduler than the on
        """
        clock = self.scheduler.state
        if self.scheduler.hyperparameter == "lr" and kwargs.get("lr_scheduler") is not self.scheduler:
            raise ValueError(
                "the Trainer steps another lr scheduler than the one this CadenceTrainerCallback keeps, and both "
                "would write the lr: pass optimizers=(optimizer, scheduler) with the scheduler of "
                "huggingface_scheduler()"
            )
        if self._counts_inputs and state.global_step not in (0, clock.batches):
            raise ValueError(
                f"resuming at global step {state.global_step}, but the scheduler's state (scheduler.pt) was not "
                f"restored, so the samples or tokens counted before it are unknown: resume from a checkpoint "
                f"saved with the optimizer and scheduler (save_only_model=False)"
            )
        for held in self.scheduler.held_warnings:  # hidden by the Trainer while it loaded scheduler.pt
            warnings.warn(f"while resuming: {held.message}", RuntimeWarning, stacklevel=2)
        self.scheduler.held_warnings = []
        loader = kwargs.get("train_dataloader")
        tokens = state.num_input_tokens_seen if self.trainer_tokens else None
        self.scheduler.follow_trainer(args, state.global_step, _length(loader), tokens)
        self._pending = [0, 0]
        self._training = False
        self._epoch = self.scheduler.state.epochs - 1  # the Trainer begins the clock's epoch next
        if self._counts_inputs and model is not None and self._hook is None:
            self._hook = model.register_forward_pre_hook(self._count_inputs, with_kwargs=True)

    def on_epoch_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """The Trainer begins an epoch: the epochs before it are closed (a no-op when the step that completed
        ``dataloader_len`` steps closed it; an epoch of unknown length closes here), through the adapter, and the
        values written for the epoch's first step (:meth:`FrameworkClock.refresh`: an epoch closed here makes the
        values of the last step stale).

        Args:
            args: The Trainer's ``TrainingArguments``.
            state: The Trainer's ``TrainerState``.
            control: The Trainer's ``TrainerControl``.
            **kwargs: The Trainer's objects.

        >>> from types import SimpleNamespace
        >>> import torch, transformers
        >>> from schedulers import LinearScheduler
        >>> args = transformers.TrainingArguments(output_dir="/tmp/out", max_steps=4, use_cpu=True, report_to="none")
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched, callback = huggingface_scheduler(LinearScheduler(), opt, args)  # no epoch length
        >>> callback.on_epoch_begin(args, None, None)
        >>> callback.on_optimizer_step(args, SimpleNamespace(global_step=0), None)
        >>> callback.on_epoch_begin(args, None, None); sched.state.epochs, sched.state.batches
        (1, 1)
        """
        self._epoch += 1
        framework = self.scheduler.framework
        framework.epoch_begins(self._epoch)
        framework.refresh()

    def on_optimizer_step(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """The optimizer stepped: move the clock one batch, with the samples and tokens of that step (before the
        Trainer calls ``scheduler.step()`` and adds 1 to ``global_step``).

        Args:
            args: The Trainer's ``TrainingArguments``.
            state: The Trainer's ``TrainerState``.
            control: The Trainer's ``TrainerControl``.
            **kwargs: The Trainer's objects.

        >>> from types import SimpleNamespace
        >>> import torch, transformers
        >>> from schedulers import LinearScheduler
        >>> args = transformers.TrainingArguments(output_dir="/tmp/out", max_steps=4, use_cpu=True, report_to="none")
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched, callback = huggingface_scheduler(LinearScheduler(), opt, args)
        >>> callback.on_optimizer_step(args, SimpleNamespace(global_step=0), None); sched.state.batches
        1
        """
        samples, tokens = self._settle(args)
        if self.trainer_tokens:
            tokens = state.num_input_tokens_seen - self.scheduler.state.tokens
        self.scheduler.advance_to(state.global_step + 1, samples, tokens)
        self._training = True

    def on_evaluate(self, args: Any, state: Any, control: Any, metrics: Any = None, **kwargs: Any) -> None:
        """An evaluation finished: a schedule that listens hears its metrics (``eval_loss`` is ``eval/loss``).

        Only an evaluation while training counts, as the Trainer steps its own ``reduce_lr_on_plateau`` then:
        not ``eval_on_start`` (before the first step), nor one the user runs after ``train()``.

        Args:
            args: The Trainer's ``TrainingArguments``.
            state: The Trainer's ``TrainerState``.
            control: The Trainer's ``TrainerControl``.
            metrics: The evaluation's metrics, with the Trainer's ``eval_`` prefix.
            **kwargs: The Trainer's objects.

        Raises:
            ValueError: A monitored metric the evaluation lacks (:meth:`FrameworkClock.evaluation`).

        >>> from types import SimpleNamespace
        >>> import torch, transformers
        >>> from schedulers import PlateauScheduler
        >>> args = transformers.TrainingArguments(output_dir="/tmp/out", max_steps=9, eval_strategy="steps",
        ...                                       eval_steps=1, use_cpu=True, report_to="none")
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched, callback = huggingface_scheduler(PlateauScheduler(factor=0.5, patience=0), opt, args)
        >>> state = SimpleNamespace(global_step=0, is_world_process_zero=False)
        >>> for step in range(2):
        ...     callback.on_optimizer_step(args, state, None); state.global_step += 1; sched.step()
        ...     callback.on_evaluate(args, state, None, metrics={"eval_loss": 1.0})
        >>> opt.param_groups[0]["lr"]
        0.5
        """
        decision = self.scheduler.framework.evaluation(
            metrics or {}, counts=self._training, who=" (the Trainer's, with their eval_ prefix)"
        )
        if decision is not None and state.is_world_process_zero:
            print(f"cadence: {decision.line}", file=sys.stderr, flush=True)

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """The step ended: the next one trains at ``global_step``, so the scheduler is brought there through the
        integrations' one path (:meth:`FrameworkClock.before_batch`), which steps it if the Trainer did not: a
        step the fp16 loss scaler skipped still counts, as ``global_step`` counts it, and a scheduler the Trainer
        never steps (another hyperparameter's) follows the same clock.

        Args:
            args: The Trainer's ``TrainingArguments``.
            state: The Trainer's ``TrainerState``.
            control: The Trainer's ``TrainerControl``.
            **kwargs: The Trainer's objects.

        >>> from types import SimpleNamespace
        >>> import torch, transformers
        >>> from schedulers import LinearScheduler
        >>> args = transformers.TrainingArguments(output_dir="/tmp/out", max_steps=4, use_cpu=True, report_to="none")
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched, callback = huggingface_scheduler(LinearScheduler(alpha_f=0.0), opt, args)
        >>> callback.on_optimizer_step(args, SimpleNamespace(global_step=0), None)  # no scheduler.step() after it
        >>> callback.on_step_end(args, SimpleNamespace(global_step=1), None); opt.param_groups[0]["lr"]
        0.75
        """
        self.scheduler.framework.before_batch(state.global_step)

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """Training ended: evaluations no longer count, and the counter leaves the model.

        Args:
            args: The Trainer's ``TrainingArguments``.
            state: The Trainer's ``TrainerState``.
            control: The Trainer's ``TrainerControl``.
            **kwargs: The Trainer's objects.

        >>> import torch, transformers
        >>> from schedulers import LinearScheduler
        >>> args = transformers.TrainingArguments(output_dir="/tmp/out", max_steps=4, use_cpu=True, report_to="none")
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> callback = huggingface_scheduler(LinearScheduler(), opt, args).callback
        >>> callback.on_train_end(args, None, None); callback._training
        False
        """
        self._training = False
        if self._hook is not None:
            self._hook.remove()
            self._hook = None

    # -- counting -------------------------------------------------------------------------------------
    def _count_inputs(self, module: torch.nn.Module, args: tuple, kwargs: dict) -> None:
        if not (module.training and torch.is_grad_enabled()):  # evaluation and prediction are no training
            return
        inputs = kwargs if kwargs or len(args) != 1 else args[0]
        if self.count_samples:
            self._pending[0] += samples_in(inputs, self.get_num_samples, who=_WHO, factory="huggingface_scheduler")
        if self.get_num_tokens is not None:
            self._pending[1] += tokens_in(inputs, self.get_num_tokens)

    def _settle(self, args: Any) -> tuple[int, int]:
        """The counts of the optimizer step that just ended, summed over processes."""
        samples, tokens = self._pending
        self._pending = [0, 0]
        if self._counts_inputs and args.world_size > 1 and torch.distributed.is_initialized():
            counts = torch.tensor([samples, tokens], dtype=torch.int64, device=args.device)
            torch.distributed.all_reduce(counts)
            samples, tokens = (int(value) for value in counts.tolist())
        return samples, tokens

    def __repr__(self) -> str:
        return f"CadenceTrainerCallback(clock={self.scheduler.state!r})"


# -- internals ------------------------------------------------------------------------------------------


def _import_transformers():
    """transformers, or an ImportError saying what to install (integrations.framework)."""
    return import_framework(("transformers",), integration="schedulers.integrations.huggingface", hint=_INSTALL_HINT)


def _callback_class() -> type:
    """``CadenceTrainerCallback``: :class:`_TrainerClock` with transformers' ``TrainerCallback`` as a base."""
    base = _import_transformers().TrainerCallback
    return callback_class("CadenceTrainerCallback", _TrainerClock, base, module=__name__, doc=_CALLBACK_DOC)


_CALLBACK_DOC = """A Hugging Face ``TrainerCallback`` that keeps a HuggingFaceScheduler's clock at the Trainer's step.

:func:`huggingface_scheduler` makes it with its scheduler; pass it in ``Trainer(callbacks=[...])``.

Args:
    scheduler: The :class:`HuggingFaceScheduler` whose clock it moves.
    get_num_samples: ``inputs -> samples`` of one training forward (None: the first tensor's length, when
        samples are counted).
    get_num_tokens: ``inputs -> tokens`` of one training forward (None: tokens are not counted by it).
    trainer_tokens: Take tokens from the Trainer's ``num_input_tokens_seen`` (when no ``get_num_tokens``).

Returns:
    The callback: it moves the clock at each optimizer step, counts samples and tokens from the model's
    training forwards, and delivers each evaluation to a schedule that listens.

Raises:
    TypeError: ``scheduler`` is not a :class:`HuggingFaceScheduler`.

>>> import torch, transformers
>>> from schedulers import LinearScheduler
>>> args = transformers.TrainingArguments(output_dir="/tmp/out", max_steps=10, use_cpu=True, report_to="none")
>>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
>>> callback = huggingface_scheduler(LinearScheduler(), opt, args).callback
>>> type(callback).__name__, isinstance(callback, transformers.TrainerCallback)
('CadenceTrainerCallback', True)
"""

# the callback's example, run by the doctests whether or not the class was made yet (it exists only once
# transformers is imported)
__test__ = {"CadenceTrainerCallback": _CALLBACK_DOC}


def __getattr__(name: str) -> Any:
    # CadenceTrainerCallback subclasses transformers' TrainerCallback, so it exists only once transformers is imported.
    if name == "CadenceTrainerCallback":
        return _callback_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _check_args(args: Any) -> None:
    training_arguments = _import_transformers().TrainingArguments
    if not isinstance(args, training_arguments):
        raise TypeError(
            f"args must be the Trainer's transformers.TrainingArguments, got {type(args).__name__}: pass the same "
            "args you give the Trainer"
        )


def _strategy(value: Any) -> str:
    """An ``IntervalStrategy`` or its string, as the string (``"no"``, ``"steps"``, ``"epoch"``)."""
    return str(getattr(value, "value", value))


def _warn_replaced(args: Any) -> None:
    """One warning naming the ``TrainingArguments`` of Hugging Face's own scheduler that are set: Cadence's
    schedule replaces them (the Trainer builds no scheduler when ``optimizers=`` carries one)."""
    given = []
    if _strategy(args.lr_scheduler_type) != "linear":
        given.append(f"lr_scheduler_type={_strategy(args.lr_scheduler_type)!r}")
    for name in ("warmup_steps", "warmup_ratio"):
        if getattr(args, name, 0):
            given.append(f"{name}={getattr(args, name)!r}")
    if args.lr_scheduler_kwargs:
        given.append(f"lr_scheduler_kwargs={args.lr_scheduler_kwargs!r}")
    if given:
        warnings.warn(
            f"TrainingArguments {', '.join(given)} {'is' if len(given) == 1 else 'are'} not used: Cadence's schedule "
            "replaces Hugging Face's scheduler (write a warmup in the schedule, e.g. Warmup(..., t_warmup='0.1dur'))",
            UserWarning,
            stacklevel=4,  # the user's call of huggingface_scheduler, past _check_start
        )


def _trainer_counts_tokens(args: Any) -> bool:
    return args.include_num_input_tokens_seen not in ("no", False, None)


def _steps_per_epoch_of(train_dataset: Any, args: Any) -> int | None:
    """The Trainer's optimizer steps per epoch for ``train_dataset`` (a dataset or its number of samples)."""
    if train_dataset is None:
        return None
    if isinstance(train_dataset, int) and not isinstance(train_dataset, bool):
        samples = train_dataset
    else:
        samples = _length(train_dataset)
        if samples is None:  # an iterable dataset: the Trainer has no epochs to count either
            return None
    if samples < 0:
        raise ValueError(f"train_dataset={samples} must be a dataset or its number of samples (>= 0)")
    return steps_per_epoch(_loader_batches(samples, args), args.gradient_accumulation_steps)


def _loader_batches(samples: int, args: Any) -> int:
    """The batches one process's train loader yields in an epoch of ``samples`` samples.

    torch's ``DataLoader`` makes :math:`B = \\lceil N / b \\rceil` batches of ``b = args.train_batch_size``
    (:math:`\\lfloor N / b \\rfloor` with ``dataloader_drop_last``); accelerate deals them out to the
    ``P = args.world_size`` processes: :math:`\\lceil B / P \\rceil` each (:math:`\\lfloor B / P \\rfloor` with
    drop_last; a process's own share with ``even_batches=False``), or all ``B`` with ``split_batches``.
    """
    batch, drop_last = args.train_batch_size, args.dataloader_drop_last
    total = samples // batch if drop_last else math.ceil(samples / batch)
    processes, config = args.world_size, args.accelerator_config
    if processes <= 1 or getattr(config, "split_batches", False):
        return total
    share, left = divmod(total, processes)
    if left == 0 or drop_last:
        return share
    if getattr(config, "even_batches", True):
        return share + 1
    return share + int(args.process_index < left)


def _run_length(args: Any, per_epoch: int | None) -> Time:
    """The run's length as the Trainer counts it: ``max_steps`` if set, else ``num_train_epochs``."""
    if args.max_steps > 0:
        return Time(int(args.max_steps), TimeUnit.BATCH)
    epochs = float(args.num_train_epochs)
    if epochs <= 0:
        raise ValueError(
            f"the Trainer's run has no length to schedule over (max_steps={args.max_steps}, num_train_epochs="
            f"{args.num_train_epochs}): set one of them, or give max_duration= to huggingface_scheduler"
        )
    if per_epoch is None:
        raise ValueError(
            f"num_train_epochs={args.num_train_epochs} counts epochs, and an epoch's optimizer steps come from "
            "the train dataset's length: pass train_dataset= (the dataset or its number of samples), "
            "dataloader_len= or max_duration= to huggingface_scheduler"
        )
    if epochs.is_integer():
        return Time(int(epochs), TimeUnit.EPOCH)
    return Time(math.ceil(epochs * per_epoch), TimeUnit.BATCH)  # the Trainer's max_steps for part of an epoch


def _length(value: Any) -> int | None:
    try:
        return len(value)
    except TypeError:
        return None
