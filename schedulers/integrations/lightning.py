"""Cadence schedules in PyTorch Lightning, driven by Lightning's own clock.

:func:`lightning_scheduler_config` returns the ``lr_scheduler`` entry of ``configure_optimizers``::

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
        schedule = CosineAnnealingWithWarmupScheduler(t_warmup="0.1dur", alpha_f=0.1)
        return {"optimizer": opt, "lr_scheduler": lightning_scheduler_config(schedule, opt, self)}

How the time is read:

* batches are ``trainer.global_step`` (optimizer steps: with ``accumulate_grad_batches=n`` one batch is
  ``n`` loader batches, and Lightning's last, shorter accumulation of an epoch is a batch too); under manual
  optimization, where ``global_step`` counts every optimizer's ``step()`` (two per batch with two optimizers),
  they are the training batches Lightning has started instead (:func:`_batches`). Never the number of
  ``scheduler.step()`` calls: each ``step()``, and the start of every batch, moves the scheduler's
  :class:`~schedulers.core.clock.Clock` to it through the integrations' one adapter
  (:class:`~schedulers.integrations.framework.FrameworkClock`, as Hugging Face's callback does), so an
  optimizer that skips batches (a generator stepped every 2nd batch) trains each with its schedule at it; the batch
  that completes an epoch closes it, as in Cadence's trainer, and an epoch Lightning ends sooner closes when
  it begins the next (``trainer.current_epoch``);
* ``max_duration`` is ``trainer.max_steps`` in ``ba`` or ``trainer.max_epochs`` in ``ep`` (whichever ends the
  run first when both are set), unless given;
* ``dataloader_len`` (batches per epoch) is ``ceil(trainer.num_training_batches / accumulate_grad_batches)``,
  unless given;
* samples and tokens are counted by :class:`CadenceClockCallback`, which sees every loader batch
  (``on_train_batch_start``) and adds it to the count of the optimizer step it belongs to (summed over
  processes under DDP). It is attached to the Trainer by :func:`lightning_scheduler_config` when the
  Trainer has none. The counts are saved in the scheduler's ``state_dict``, so a resumed run continues them.

Lightning steps ``interval="step"`` schedulers after every optimizer step, before ``on_train_batch_end``;
Lightning's ``global_step`` has already moved then, so optimizer step ``k`` (counting from 0) trains with
the schedule at ``k`` batches, as in Cadence's trainer. PyTorch Lightning (``lightning.pytorch`` or
``pytorch_lightning``) is imported only when this module needs it.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch

from schedulers.core.clock import Clock
from schedulers.core.run import as_dataloader_len, as_max_duration
from schedulers.core.torch_scheduler import CompiledScheduler
from schedulers.integrations.counting import enable_counting, samples_in, steps_per_epoch, tokens_in
from schedulers.integrations.framework import (
    FrameworkClock,
    callback_class,
    check_counters,
    import_framework,
    refuse_deaf,
)
from timeunits import Time, Timestamp, TimeUnit

# CadenceClockCallback is made on first use by the module's __getattr__ (it subclasses Lightning's Callback)
__all__ = ["CadenceClockCallback", "LightningScheduler", "LightningState", "lightning_scheduler_config"]  # noqa: F822

# The packages Lightning ships under, in the order they are tried when nothing says which one is in use.
_PACKAGES = ("lightning.pytorch", "pytorch_lightning")
_WHO = "CadenceClockCallback"
_INSTALL_HINT = "pip install pytorch_lightning  (or: pip install lightning)"


def lightning_scheduler_config(
    schedule: Callable[..., float],
    optimizer: torch.optim.Optimizer,
    trainer: Any,
    *,
    interval: str = "step",
    hyperparameter: str = "lr",
    ssr: float = 1.0,
    max_duration: Time | str | None = None,
    dataloader_len: int | Time | None = None,
    get_num_samples: Callable[[Any], int] | None = None,
    get_num_tokens: Callable[[Any], int] | None = None,
    param_groups: Sequence[int] | None = None,
    name: str | None = None,
    monitor: str | None = None,
) -> dict[str, Any]:
    """Lightning's ``lr_scheduler`` config dict for ``schedule``, fed by the Trainer's clock and validation.

    Args:
        schedule: A Cadence schedule or any ``(state, ssr) -> float`` callable.
        optimizer: The optimizer of ``configure_optimizers``.
        trainer: The Trainer, or the LightningModule attached to it (``self``).
        interval: Must be ``"step"``: a Cadence schedule changes per optimizer step.
        hyperparameter: The param-group key driven (:func:`~schedulers.compile_scheduler`'s).
        ssr: The scale schedule ratio (Lightning's ``max_steps`` is the run's length as it is).
        max_duration: The run's length, instead of ``max_steps``/``max_epochs``.
        dataloader_len: Optimizer steps per epoch, instead of Lightning's count.
        get_num_samples: ``batch -> samples`` (default: the first tensor's length).
        get_num_tokens: ``batch -> tokens`` (needed for a run or schedule in ``tok``).
        param_groups: The indices of the groups driven (None: all).
        name: What ``LearningRateMonitor`` shows.
        monitor: The logged metric a schedule that listens (a plateau) hears at the end of each validation.

    Returns:
        ``{"scheduler": ..., "interval": "step", "frequency": 1}`` (plus ``"name"``/``"monitor"`` when given).

    Raises:
        ValueError: Another ``interval``, no length, tokens without a counter; at the start of training, one line:
            a plateau with no monitor, ``reduce_on_plateau=True`` or no validation.
        TypeError: ``trainer`` neither a Trainer nor an attached module, or a counter that is not callable.

    Example:
        >>> from schedulers import LinearScheduler
        >>> lightning_scheduler_config(LinearScheduler(), None, None, interval="epoch")
        Traceback (most recent call last):
        ValueError: interval='epoch': a Cadence schedule is read at Lightning's step count ...
    """
    _check_interval(interval)
    check_counters("batch", get_num_samples=get_num_samples, get_num_tokens=get_num_tokens)
    trainer = _find_trainer(trainer)
    clock = _clock_callback(trainer, get_num_samples, get_num_tokens)
    if dataloader_len is None:
        _load_train_dataloader(trainer)
    state = LightningState(trainer, clock, max_duration=max_duration, dataloader_len=dataloader_len)
    scheduler = LightningScheduler(
        schedule, optimizer, state, ssr, hyperparameter=hyperparameter, param_groups=param_groups
    )
    enable_counting(schedule, state, scheduler.ssr, clock)
    return _config(scheduler, name, monitor)


def _config(scheduler: LightningScheduler, name: str | None, monitor: str | None) -> dict[str, Any]:
    scheduler.monitor = monitor
    scheduler.listener_name = type(scheduler.scheduler).__name__ if name is None else name  # in the line it says
    config: dict[str, Any] = {"scheduler": scheduler, "interval": "step", "frequency": 1}
    config.update({key: value for key, value in (("name", name), ("monitor", monitor)) if value is not None})
    return config


def _check_interval(interval: str) -> None:
    if interval != "step":
        raise ValueError(
            f"interval={interval!r}: a Cadence schedule is read at Lightning's step count and must be "
            "stepped after every optimizer step (interval='step'); a schedule in epochs still changes per "
            "batch, and holding it for a whole epoch would train with stale values"
        )


class LightningState(Clock):
    """The :class:`~schedulers.core.clock.Clock` of a Lightning run, moved by Lightning's events through the
    integrations' one adapter (:class:`~schedulers.integrations.framework.FrameworkClock`), as Hugging Face's.

    Each optimizer step moves it to ``trainer.global_step`` with the samples and tokens ``clock`` (a
    :class:`CadenceClockCallback`) counted for that step; the batch that completes an epoch closes it, and an
    epoch Lightning ends sooner closes when Lightning begins the next (``trainer.current_epoch``).

    Args:
        trainer: The Lightning Trainer (``num_training_batches``, ``accumulate_grad_batches``, ``max_steps``,
            ``max_epochs``).
        clock: The Trainer's ``CadenceClockCallback`` (its sample and token counts).
        max_duration: The run's length, instead of Lightning's ``max_steps``/``max_epochs``.
        dataloader_len: Optimizer steps per epoch, instead of Lightning's count.

    Returns:
        A Clock every schedule reads (the schedule protocol); the scheduler's adapter moves it.

    Raises:
        ValueError: No length: neither ``max_duration`` nor Lightning's ``max_steps``/``max_epochs``.

    >>> from types import SimpleNamespace
    >>> trainer = SimpleNamespace(global_step=0, current_epoch=0, num_training_batches=9,
    ...                           accumulate_grad_batches=2, max_steps=-1, max_epochs=3)
    >>> state = LightningState(trainer, _ClockCounts())
    >>> state.max_duration, state.dataloader_len  # ceil(9 / 2) optimizer steps an epoch
    (Time(3, TimeUnit.EPOCH), 5)
    """

    def __init__(
        self,
        trainer: Any,
        clock: _ClockCounts,
        *,
        max_duration: Time | str | None = None,
        dataloader_len: int | Time | None = None,
    ) -> None:
        self.trainer = trainer
        self.clock = clock
        self._given_len = as_dataloader_len(dataloader_len)
        per_epoch = self._given_len if self._given_len is not None else self._lightning_len()
        if max_duration is None:
            length = _lightning_max_duration(trainer, per_epoch)
        else:
            length = as_max_duration(max_duration)
        self._length_from_max_steps = max_duration is None and length.unit == TimeUnit.BATCH
        super().__init__(length, per_epoch)

    def check_manual_length(self) -> None:
        """Under manual optimization, a length taken from ``max_steps`` holds only while each batch makes one
        optimizer step: Lightning's ``max_steps`` counts every optimizer's ``step()``.

        Raises:
            ValueError: One line, when ``global_step`` and the batches started differ (several optimizers, or
                steps skipped), naming ``max_duration=``.

        >>> from types import SimpleNamespace
        >>> trainer = SimpleNamespace(num_training_batches=4, accumulate_grad_batches=1, max_steps=8, max_epochs=None)
        >>> state = LightningState(trainer, _ClockCounts())
        >>> trainer.global_step, trainer.lightning_module = 2, SimpleNamespace(automatic_optimization=False)
        >>> trainer.fit_loop = SimpleNamespace(epoch_loop=SimpleNamespace(batch_progress=SimpleNamespace(
        ...     total=SimpleNamespace(started=1))))
        >>> state.check_manual_length()
        Traceback (most recent call last):
        ValueError: under manual optimization Lightning's max_steps=8 counts every optimizer.step() ...
        """
        if not self._length_from_max_steps or not _manual(self.trainer):
            return
        steps, batches = self.trainer.global_step, _batches(self.trainer)
        if steps != batches:
            raise ValueError(
                f"under manual optimization Lightning's max_steps={self.trainer.max_steps} counts every "
                f"optimizer.step() ({steps} after {batches} batches here), not batches: give "
                "lightning_scheduler_config the run's length in batches (max_duration='...ba') or use max_epochs"
            )

    def _lightning_len(self) -> int | None:
        return steps_per_epoch(self.trainer.num_training_batches, self.trainer.accumulate_grad_batches)

    def follow_loader(self) -> None:
        """Take Lightning's optimizer steps per epoch again (its loader may be reloaded), unless given.

        >>> from types import SimpleNamespace
        >>> trainer = SimpleNamespace(num_training_batches=9, accumulate_grad_batches=1, max_steps=20, max_epochs=None)
        >>> state = LightningState(trainer, _ClockCounts())
        >>> trainer.num_training_batches = 4; state.follow_loader(); state.dataloader_len
        4
        """
        if self._given_len is None:
            per_epoch = self._lightning_len()
            if per_epoch != self._dataloader_len:
                self.dataloader_len = per_epoch

    def __repr__(self) -> str:
        return (
            f"LightningState(max_duration={self._max_duration}, dataloader_len={self._dataloader_len}, "
            f"timestamp={self.timestamp!r})"
        )


class LightningScheduler(CompiledScheduler):
    """A compiled Cadence scheduler on a :class:`LightningState`; :func:`lightning_scheduler_config` makes it.

    ``step()`` first settles the clock's sample and token counts for the optimizer step that just ended;
    ``state_dict()`` carries them, so a run resumed with ``ckpt_path=`` continues the counts.

    Args:
        scheduler: A Cadence schedule or any ``(state, ssr) -> float`` callable.
        optimizer: The optimizer of ``configure_optimizers``.
        state: The :class:`LightningState` of the Trainer.
        ssr: The scale schedule ratio.
        hyperparameter: The param-group key driven.
        param_groups: The indices of the groups driven (None: all).

    Returns:
        A torch ``LRScheduler`` whose ``step()`` writes the schedule's value at Lightning's step.

    Raises:
        TypeError: A schedule that is not callable, or an optimizer that is not a torch optimizer.
        ValueError: A bad ``ssr`` or ``param_groups`` (:class:`CompiledScheduler`'s checks).

    >>> import torch
    >>> from types import SimpleNamespace
    >>> from schedulers import LinearScheduler
    >>> trainer = SimpleNamespace(global_step=0, current_epoch=0, num_training_batches=4,
    ...                           accumulate_grad_batches=1, max_steps=4, max_epochs=None)
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = LightningScheduler(LinearScheduler(alpha_f=0.0), opt, LightningState(trainer, _ClockCounts()))
    >>> trainer.global_step = 1; sched.step(); opt.param_groups[0]["lr"]
    0.75
    """

    state: LightningState
    #: the logged metric a schedule that listens hears (lightning_scheduler_config's monitor=, or the config's)
    monitor: str | None = None

    @property
    def framework(self) -> FrameworkClock:
        """The one adapter of Lightning's events to this scheduler's clock (integrations.framework)."""
        adapter = self.__dict__.get("_framework")
        if adapter is None:
            adapter = self.__dict__["_framework"] = FrameworkClock(self, "the Lightning integration")
        return adapter

    def step(self, epoch: None = None) -> None:  # type: ignore[override]
        """Settle the counts of the optimizer step that ended, move the clock to Lightning's step through the
        adapter, then write the values.

        Raises:
            ValueError: Lightning passed a metric (``reduce_on_plateau=True``): one line saying what works.
        """
        if epoch is not None and not isinstance(epoch, int):
            raise ValueError(_REDUCE_ON_PLATEAU)
        self.follow_step()
        super().step(epoch)
        self.framework.wrote()

    def follow_step(self) -> None:
        """Lightning finished an optimizer step: settle its counts and move the clock to ``global_step``.

        >>> import torch
        >>> from types import SimpleNamespace
        >>> from schedulers import LinearScheduler
        >>> trainer = SimpleNamespace(global_step=0, num_training_batches=2,
        ...                           accumulate_grad_batches=1, max_steps=4, max_epochs=None)
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = LightningScheduler(LinearScheduler(), opt, LightningState(trainer, _ClockCounts()))
        >>> trainer.global_step = 2; sched.follow_step(); sched.state.epochs, sched.state.batch_in_epoch
        (1, 0)
        """
        self.framework.optimizer_step(*self._run_clock())

    def follow_batch(self) -> None:
        """Lightning is about to train a batch: the clock is brought to the run's batch count and, unless this
        scheduler's ``step()`` already wrote for it, the values for it are written (through the integrations'
        one path, :meth:`FrameworkClock.before_batch`). An optimizer stepped only on some batches (a GAN's
        generator every 2nd batch, accumulation by hand under manual optimization) so trains batch ``k`` with
        its schedule at ``k``, whether or not its scheduler was stepped since.

        >>> import torch
        >>> from types import SimpleNamespace
        >>> from schedulers import LinearScheduler
        >>> trainer = SimpleNamespace(global_step=0, num_training_batches=8,
        ...                           accumulate_grad_batches=1, max_steps=8, max_epochs=None)
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = LightningScheduler(LinearScheduler(alpha_f=0.0), opt, LightningState(trainer, _ClockCounts()))
        >>> trainer.global_step = 2; sched.follow_batch(); opt.param_groups[0]["lr"]  # no step() for 2 batches
        0.75
        """
        self.framework.before_batch(*self._run_clock())

    def _run_clock(self) -> tuple[int, int, int]:
        """The run's batches, with the samples and tokens counted since the clock's last move (counts settled)."""
        clock, counts = self.state, self.state.clock
        counts.settle(self.state.trainer)
        clock.check_manual_length()
        return _batches(self.state.trainer), counts.samples - clock.samples, counts.tokens - clock.tokens

    def follow_epoch(self, epoch: int) -> None:
        """Lightning begins its epoch ``epoch``: the clock is brought to the run's batch count (a scheduler whose
        optimizer skipped the last batches is behind it), the epochs before it are closed, and steps per epoch
        read again.

        Args:
            epoch: Lightning's ``current_epoch``.

        >>> import torch
        >>> from types import SimpleNamespace
        >>> from schedulers import LinearScheduler
        >>> trainer = SimpleNamespace(global_step=0, num_training_batches=float("inf"),
        ...                           accumulate_grad_batches=1, max_steps=4, max_epochs=None)
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = LightningScheduler(LinearScheduler(), opt, LightningState(trainer, _ClockCounts()))
        >>> trainer.global_step = 1; sched.follow_step(); sched.follow_epoch(1); sched.state.epochs
        1
        """
        self.framework.optimizer_step(*self._run_clock())  # first: an epoch closed behind the run's count is short
        self.framework.epoch_begins(epoch)
        self.state.follow_loader()

    def check_start(self, config: Any, module: Any) -> None:
        """At the start of training: a schedule that listens has a monitor, hears validation, and Lightning
        does not step it with a metric (``reduce_on_plateau``).

        Args:
            config: Lightning's ``LRSchedulerConfig`` of this scheduler.
            module: The LightningModule.

        Raises:
            ValueError: In one line, naming what to change.
        """
        if not self.needs_evaluations:
            return
        if getattr(config, "reduce_on_plateau", False):
            raise ValueError(_REDUCE_ON_PLATEAU)
        self.monitor = self.monitor or getattr(config, "monitor", None)
        if self.monitor is None:
            raise ValueError(
                f"{type(self.scheduler).__name__}(...) listens to {', '.join(self.monitors)}, but Lightning names "
                "no monitor: pass monitor='val_loss' (the metric your validation_step logs) to "
                "lightning_scheduler_config"
            )
        own = [name for name in self.monitors if name not in ("eval/loss", self.monitor)]
        if own:
            raise ValueError(
                f"the PlateauScheduler monitors {own[0]!r} but lightning_scheduler_config's monitor is "
                f"{self.monitor!r}: give the metric once (monitor= of lightning_scheduler_config)"
            )
        trainer = self.state.trainer
        base = _import_lightning(_package_of(trainer)).LightningModule
        overridden = getattr(type(module), "validation_step", None) is not base.validation_step
        refuse_deaf(
            self,
            evaluates=overridden and trainer.limit_val_batches != 0,
            how="give the LightningModule a validation_step and the Trainer val data (limit_val_batches > 0)",
        )

    def hear_validation(self, trainer: Any) -> None:
        """The end of a validation run while fitting: the monitored metric, through the listener protocol, at
        Lightning's step (the clock follows it first, as :meth:`follow_step` does, so each validation is heard at its
        own batch even when a manually optimized module steps the scheduler less often).

        Args:
            trainer: The Lightning Trainer (its ``callback_metrics`` hold the logged metrics).

        Raises:
            ValueError: In one line, the monitor is not among the metrics Lightning logged.

        >>> import torch
        >>> from types import SimpleNamespace
        >>> from schedulers import PlateauScheduler
        >>> trainer = SimpleNamespace(global_step=1, current_epoch=0, num_training_batches=4, is_global_zero=False,
        ...                           accumulate_grad_batches=1, max_steps=8, max_epochs=None, callback_metrics={})
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = LightningScheduler(PlateauScheduler(factor=0.5, patience=0), opt,
        ...                            LightningState(trainer, _ClockCounts()))
        >>> sched.monitor = "val_loss"
        >>> for step in (1, 2):
        ...     trainer.global_step = step; sched.step()  # Lightning steps the scheduler before it validates
        ...     trainer.callback_metrics = {"val_loss": torch.tensor(1.0)}
        ...     sched.hear_validation(trainer)
        >>> opt.param_groups[0]["lr"]
        0.5
        """
        if not self.needs_evaluations or self.monitor is None:
            return
        metrics = dict(trainer.callback_metrics)
        if self.monitor not in metrics:
            raise ValueError(
                f"monitor={self.monitor!r} is not among the metrics Lightning logged {sorted(metrics)}: log it in "
                "validation_step or name one of them in lightning_scheduler_config's monitor="
            )
        heard = {name: metrics[self.monitor] for name in self.monitors}
        self.follow_step()  # at Lightning's step: a scheduler stepped less often (manual optimization) lags behind
        decision = self.framework.evaluation({**metrics, **heard})
        if decision is not None and trainer.is_global_zero:
            print(f"cadence: {decision.line}", file=sys.stderr, flush=True)

    def state_dict(self) -> dict[str, Any]:
        """The compiled scheduler's bookkeeping and, under ``"clock"``, the callback's sample and token counts.

        Returns:
            Plain numbers and strings (:meth:`CompiledScheduler.state_dict`'s, and :meth:`_ClockCounts.counts_state`).
        """
        state = super().state_dict()
        state["clock"] = {**self.state.clock.counts_state(), "timestamp": self.state.timestamp.state_dict()}
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the callback's counts (a resumed run), then the bookkeeping, and write the values.

        Args:
            state_dict: What :meth:`state_dict` gave.
        """
        saved = state_dict.get("clock")
        if saved is not None:
            self.state.clock.load_counts_state(saved)
            if saved.get("timestamp") is not None:
                self.state.timestamp = Timestamp.from_state_dict(saved["timestamp"])
            else:  # saved before the clock was: where Lightning's step and the counts say
                self.framework.optimizer_step(
                    int(saved.get("step") or 0), self.state.clock.samples, self.state.clock.tokens
                )
        super().load_state_dict(state_dict)
        self.framework.wrote()


class _ClockCounts:
    """What :class:`CadenceClockCallback` does, free of Lightning so that this module imports without it.

    Each loader batch's samples and tokens are added to a pending count when the batch starts; when
    Lightning's ``global_step`` has moved (checked at the next hook, or by the scheduler's ``step()``), the
    pending counts belong to the optimizer step that ended and join the totals (summed over processes).
    """

    def __init__(
        self,
        get_num_samples: Callable[[Any], int] | None = None,
        get_num_tokens: Callable[[Any], int] | None = None,
    ) -> None:
        for argument, value in (("get_num_samples", get_num_samples), ("get_num_tokens", get_num_tokens)):
            if value is not None and not callable(value):
                raise TypeError(f"{argument} must be a callable batch -> int, got {value!r}")
        super().__init__()
        self.get_num_samples = get_num_samples
        self.get_num_tokens = get_num_tokens
        self.count_samples = get_num_samples is not None
        self.samples = 0
        self.tokens = 0
        self.epoch_start: tuple[int, int, int, int] | None = None  # (epoch, step, samples, tokens) at its start
        self._pending = [0, 0]
        self._step: int | None = None  # the global_step the totals are settled for

    @property
    def count_tokens(self) -> bool:
        """Whether tokens are counted (a ``get_num_tokens`` was given)."""
        return self.get_num_tokens is not None

    # -- Lightning hooks (the callback class adds Lightning's Callback as a base) ----------------------
    def on_train_epoch_start(self, trainer: Any, pl_module: Any) -> None:
        """An epoch starts: settle the counts, and note where the epoch starts (its step, samples and tokens).

        Args:
            trainer: The Lightning Trainer.
            pl_module: The LightningModule.

        >>> from types import SimpleNamespace
        >>> import torch
        >>> counts, trainer = _ClockCounts(), SimpleNamespace(global_step=0, current_epoch=0)
        >>> trainer.current_epoch, trainer.global_step = 1, 5
        >>> counts.on_train_epoch_start(trainer, None); counts.epoch_start
        (1, 5, 0, 0)
        """
        self.settle(trainer)
        epoch = trainer.current_epoch
        if self.epoch_start is None or self.epoch_start[0] != epoch:
            self.epoch_start = (epoch, _batches(trainer), self.samples, self.tokens)
        for _, scheduler in _cadence_schedulers(trainer):
            scheduler.follow_epoch(epoch)

    def on_train_batch_start(self, trainer: Any, pl_module: Any, batch: Any, batch_idx: int) -> None:
        """A loader batch starts: each Cadence scheduler is brought to the run's batch count
        (:meth:`LightningScheduler.follow_batch`), and the batch's samples and tokens join the count of the
        optimizer step it belongs to.

        Args:
            trainer: The Lightning Trainer.
            pl_module: The LightningModule.
            batch: The loader batch.
            batch_idx: Its index in the epoch.

        Raises:
            ValueError: A batch whose samples cannot be counted (no tensor, and no ``get_num_samples``).

        >>> from types import SimpleNamespace
        >>> import torch
        >>> counts, trainer = _ClockCounts(), SimpleNamespace(global_step=0, current_epoch=0)
        >>> counts.count_samples = True
        >>> counts.on_train_batch_start(trainer, None, (torch.zeros(4, 3),), 0)
        >>> trainer.global_step = 1; counts.settle(trainer); counts.samples  # 4 samples once the step is done
        4
        """
        self.settle(trainer)
        for _, scheduler in _cadence_schedulers(trainer):
            scheduler.follow_batch()
        if self.count_samples:
            self._pending[0] += samples_in(batch, self.get_num_samples, who=_WHO, factory="lightning_scheduler_config")
        if self.get_num_tokens is not None:
            self._pending[1] += tokens_in(batch, self.get_num_tokens)

    def on_train_batch_end(self, trainer: Any, pl_module: Any, outputs: Any, batch: Any, batch_idx: int) -> None:
        """A loader batch ended: settle the counts if Lightning's step moved.

        Args:
            trainer: The Lightning Trainer.
            pl_module: The LightningModule.
            outputs: What ``training_step`` returned.
            batch: The loader batch.
            batch_idx: Its index in the epoch.

        >>> from types import SimpleNamespace
        >>> import torch
        >>> counts, trainer = _ClockCounts(), SimpleNamespace(global_step=0, current_epoch=0)
        >>> counts.on_train_batch_end(trainer, None, None, None, 0); counts.samples
        0
        """
        self.settle(trainer)

    def on_train_start(self, trainer: Any, pl_module: Any) -> None:
        """Training starts: each Cadence scheduler checks it can hear what it needs
        (:meth:`LightningScheduler.check_start`).

        Args:
            trainer: The Lightning Trainer.
            pl_module: The LightningModule.

        Raises:
            ValueError: In one line, a schedule that listens without a monitor or without validation.

        >>> from types import SimpleNamespace
        >>> import torch
        >>> counts, trainer = _ClockCounts(), SimpleNamespace(global_step=0, current_epoch=0)
        >>> trainer.lr_scheduler_configs = []  # no Cadence scheduler: nothing to check
        >>> counts.on_train_start(trainer, None)
        """
        for config, scheduler in _cadence_schedulers(trainer):
            scheduler.check_start(config, pl_module)

    def on_validation_end(self, trainer: Any, pl_module: Any) -> None:
        """A validation while fitting ended (not the sanity check): each Cadence scheduler hears it
        (:meth:`LightningScheduler.hear_validation`).

        Args:
            trainer: The Lightning Trainer.
            pl_module: The LightningModule.

        Raises:
            ValueError: In one line, the monitor is not among the metrics Lightning logged.

        >>> from types import SimpleNamespace
        >>> import torch
        >>> counts, trainer = _ClockCounts(), SimpleNamespace(global_step=0, current_epoch=0)
        >>> trainer.sanity_checking = True  # the sanity check is not heard
        >>> counts.on_validation_end(trainer, None)
        """
        if trainer.sanity_checking or getattr(trainer.state, "fn", None) != "fit":
            return
        for _, scheduler in _cadence_schedulers(trainer):
            scheduler.hear_validation(trainer)

    # -- counting -------------------------------------------------------------------------------------
    def settle(self, trainer: Any) -> None:
        """Move the pending counts into the totals once Lightning's ``global_step`` has moved past them
        (summed over processes).

        Args:
            trainer: The Lightning Trainer (its ``global_step``, and ``strategy`` under several processes).

        >>> from types import SimpleNamespace
        >>> import torch
        >>> counts, trainer = _ClockCounts(), SimpleNamespace(global_step=0, current_epoch=0)
        >>> counts.settle(trainer); counts._pending = [8, 0]; counts.settle(trainer); counts.samples  # same step
        0
        >>> trainer.global_step = 1; counts.settle(trainer); counts.samples
        8
        """
        step = _batches(trainer)
        if step == self._step:
            return
        if self._step is None:  # the first look: the totals start at this step
            self._step = step
            return
        self._step = step
        samples, tokens = self._pending
        self._pending = [0, 0]
        if (self.count_samples or self.count_tokens) and getattr(trainer, "world_size", 1) > 1:
            counts = torch.tensor([samples, tokens], dtype=torch.int64, device=trainer.strategy.root_device)
            counts = trainer.strategy.reduce(counts, reduce_op="sum")
            samples, tokens = (int(value) for value in counts.tolist())
        self.samples += samples
        self.tokens += tokens

    def counts_state(self) -> dict[str, Any]:
        """The settled counts as plain numbers (what the scheduler's ``state_dict`` carries).

        Returns:
            ``{"step", "samples", "tokens", "epoch_start"}``: the step the totals are settled for, the totals, and
            where the epoch in progress started; :meth:`load_counts_state` takes it.

        >>> from types import SimpleNamespace
        >>> import torch
        >>> counts, trainer = _ClockCounts(), SimpleNamespace(global_step=0, current_epoch=0)
        >>> counts.counts_state()
        {'step': None, 'samples': 0, 'tokens': 0, 'epoch_start': None}
        """
        return {
            "step": self._step,
            "samples": self.samples,
            "tokens": self.tokens,
            "epoch_start": None if self.epoch_start is None else list(self.epoch_start),
        }

    def load_counts_state(self, state: Mapping[str, Any]) -> None:
        """Continue from :meth:`counts_state` (a resumed run).

        Args:
            state: What :meth:`counts_state` gave.

        >>> counts = _ClockCounts()
        >>> counts.load_counts_state({"step": 3, "samples": 24, "tokens": 0, "epoch_start": [0, 0, 0, 0]})
        >>> counts.samples, counts.epoch_start
        (24, (0, 0, 0, 0))
        """
        self._step = state.get("step")
        self.samples = int(state.get("samples", 0))
        self.tokens = int(state.get("tokens", 0))
        start = state.get("epoch_start")
        self.epoch_start = None if start is None else tuple(int(value) for value in start)
        self._pending = [0, 0]

    def __repr__(self) -> str:
        return f"CadenceClockCallback(samples={self.samples}, tokens={self.tokens}, step={self._step})"


# -- internals ------------------------------------------------------------------------------------------


def _import_lightning(package: str | None = None):
    """``lightning.pytorch`` or ``pytorch_lightning`` (or ``package``); an ImportError saying what to install."""
    packages = (package,) if package else _PACKAGES
    return import_framework(packages, integration="schedulers.integrations.lightning", hint=_INSTALL_HINT)


def _callback_class(package: str | None = None) -> type:
    """``CadenceClockCallback`` as a subclass of ``package``'s ``Callback`` (one class per Lightning package)."""
    module = _import_lightning(package)
    cls = callback_class(
        "CadenceClockCallback",
        _ClockCounts,
        module.Callback,
        module=__name__,
        doc=_CALLBACK_DOC,
        state_key=property(lambda self: "CadenceClockCallback", doc=_STATE_KEY_DOC),
    )
    cls.__qualname__ = _qualname(module.__name__)
    return cls


_STATE_KEY_DOC = "The key of the callback's state in a checkpoint: one callback per Trainer, whatever its counters."


def _cadence_schedulers(trainer: Any) -> list[tuple[Any, LightningScheduler]]:
    """``(config, scheduler)`` of each Cadence scheduler the Trainer steps."""
    configs = getattr(trainer, "lr_scheduler_configs", None) or []
    return [(config, config.scheduler) for config in configs if isinstance(config.scheduler, LightningScheduler)]


_REDUCE_ON_PLATEAU = (
    "reduce_on_plateau=True steps a scheduler with a metric, but a Cadence schedule hears Lightning's validation "
    "itself: drop reduce_on_plateau and pass monitor='val_loss' to lightning_scheduler_config"
)


def _qualname(package: str) -> str:
    return "_CadenceClockCallback_" + package.replace(".", "_")


_CALLBACK_DOC = """A Lightning callback that counts the samples and tokens of every training batch for Cadence.

``CadenceClockCallback(get_num_samples=None, get_num_tokens=None)``. :func:`lightning_scheduler_config`
attaches one when the Trainer has none; pass your own in ``Trainer(callbacks=[...])`` to set the counters
once for every schedule. Without ``get_num_samples``, samples are counted (when a schedule needs them) as
the leading dimension of the batch's first tensor; without ``get_num_tokens`` tokens stay 0.

Args:
    get_num_samples: ``batch -> samples`` (None: the leading dimension of the batch's first tensor).
    get_num_tokens: ``batch -> tokens`` (None: tokens are not counted).

Returns:
    The callback: it counts each loader batch into the optimizer step it belongs to, and has each Cadence
    scheduler check its start and hear each validation.

Raises:
    TypeError: A counter that is not callable.

>>> from schedulers.integrations.lightning import CadenceClockCallback
>>> callback = CadenceClockCallback(get_num_tokens=len)
>>> callback.count_tokens, callback.state_key
(True, 'CadenceClockCallback')
"""

# the callback's example, run by the doctests under each package's class name whether or not the class was made
# yet (it exists only once Lightning is imported); one string per package: the doctest finder runs a string once
__test__ = {_qualname(package): f"{_CALLBACK_DOC}\n(the class for {package})\n" for package in _PACKAGES}


def __getattr__(name: str) -> Any:
    # CadenceClockCallback subclasses Lightning's Callback, so it exists only once Lightning is imported.
    if name == "CadenceClockCallback":
        return _callback_class()
    for package in _PACKAGES:
        if name == _qualname(package):  # how pickle finds the class of either package
            return _callback_class(package)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _find_trainer(source: Any) -> Any:
    """The Trainer itself, or the Trainer a LightningModule is attached to."""
    if hasattr(source, "fit_loop") and hasattr(source, "global_step"):
        return source
    try:
        trainer = source.trainer
    except (AttributeError, RuntimeError):
        trainer = None
    if trainer is None or not hasattr(trainer, "fit_loop"):
        raise TypeError(
            f"lightning_scheduler_config needs the Trainer or a LightningModule attached to one, got "
            f"{type(source).__name__}: call it inside configure_optimizers and pass self (or self.trainer)"
        )
    return trainer


def _package_of(trainer: Any) -> str | None:
    module = type(trainer).__module__
    if module.startswith("lightning.pytorch"):
        return "lightning.pytorch"
    if module.startswith("pytorch_lightning"):
        return "pytorch_lightning"
    return None


def _clock_callback(trainer: Any, get_num_samples: Callable | None, get_num_tokens: Callable | None) -> _ClockCounts:
    """The Trainer's CadenceClockCallback (attached now if it has none), with the counters asked for."""
    callbacks = trainer.callbacks
    clock = next((callback for callback in callbacks if isinstance(callback, _ClockCounts)), None)
    if clock is None:
        clock = _callback_class(_package_of(trainer))(get_num_samples, get_num_tokens)
        callbacks.append(clock)
        return clock
    for argument, given in (("get_num_samples", get_num_samples), ("get_num_tokens", get_num_tokens)):
        present = getattr(clock, argument)
        if given is not None and present is not None and given is not present:
            raise ValueError(
                f"{argument} is given both to lightning_scheduler_config and to the Trainer's "
                "CadenceClockCallback: give it once (the callback counts for every schedule)"
            )
        if given is not None:
            setattr(clock, argument, given)
    clock.count_samples = clock.count_samples or clock.get_num_samples is not None
    return clock


def _load_train_dataloader(trainer: Any) -> None:
    """Have Lightning set up the train dataloader now (as ``trainer.estimated_stepping_batches`` does)."""
    if math.isfinite(trainer.num_training_batches) or trainer.train_dataloader is not None:
        return
    if getattr(trainer.state, "fn", None) != "fit":
        return
    trainer.fit_loop.setup_data()


def _manual(trainer: Any) -> bool:
    """Whether the Trainer's module optimizes by hand (``automatic_optimization = False``)."""
    module = getattr(trainer, "lightning_module", None)
    return module is not None and not getattr(module, "automatic_optimization", True)


def _batches(trainer: Any) -> int:
    """The batches a schedule has seen: Lightning's optimizer steps (``global_step``), or under manual
    optimization the training batches Lightning has started (``global_step`` counts every optimizer's
    ``step()`` there; a scheduler stepped in ``training_step`` of batch ``k`` moves to ``k + 1``)."""
    if _manual(trainer):
        return trainer.fit_loop.epoch_loop.batch_progress.total.started
    return trainer.global_step


def _lightning_max_duration(trainer: Any, per_epoch: int | None) -> Time:
    """The run's length as the Trainer will stop it: ``max_steps`` or ``max_epochs``, whichever comes first."""
    steps, epochs = trainer.max_steps, trainer.max_epochs
    by_steps = steps is not None and steps > 0
    by_epochs = epochs is not None and epochs > 0
    if by_steps and (not by_epochs or per_epoch is None or steps < epochs * per_epoch):
        return Time(int(steps), TimeUnit.BATCH)
    if by_epochs:
        return Time(int(epochs), TimeUnit.EPOCH)
    raise ValueError(
        f"the Trainer's run has no length to schedule over (max_steps={steps}, max_epochs={epochs}): set one "
        "of them, or give max_duration= to lightning_scheduler_config"
    )
