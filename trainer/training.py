"""What ``fit`` does with each batch: forward, backward and one optimizer step; evaluation and checkpoints at
their intervals (:class:`Training`, the loop's :class:`~trainer.loop.Mode` for ``fit``).

A batch of ``grad_accum`` loader items is one optimizer step. Its loss is checked before that step: a nan or
inf stops training with :class:`NonFiniteLossError` (``on_nonfinite_loss="raise"``), or warns and trains on.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Protocol

import torch

from schedulers.core.clock import Clock
from timeunits import Time, Timestamp
from trainer import distributed
from trainer.callbacks import CallbackList
from trainer.data import ResumableSampler, groups_of, resume_iterator, to_device
from trainer.distributed import World
from trainer.precision import Precision

__all__ = ["NonFiniteLossError", "Trainee", "Training", "batch_loss", "epoch_batches"]


class NonFiniteLossError(FloatingPointError):
    """A batch's loss was nan or inf (``on_nonfinite_loss="raise"``): training stopped before its optimizer step.

    ``str(error)`` ends with the way out in Python's words (``on_nonfinite_loss="warn"``); :attr:`what` is the
    message without it, for a front end that spells that setting its own way (``cadence fit``: ``--set ...``).

    Args:
        message: What happened: the batch, its loss and where the last checkpoint is (:attr:`what`).

    Returns:
        The error, raised by ``Trainer.fit`` before the bad batch's optimizer step.

    Example:
        >>> import torch
        >>> from trainer import NonFiniteLossError, Trainer
        >>> model = torch.nn.Linear(1, 1)
        >>> data = [(torch.ones(2, 1), torch.full((2, 1), float("inf")))]
        >>> trainer = Trainer(model, data, "1ba", torch.optim.SGD(model.parameters(), lr=0.1),
        ...                   loss_fn=torch.nn.functional.mse_loss, progress_bar=False)
        >>> try:
        ...     trainer.fit()
        ... except NonFiniteLossError as error:
        ...     print(error.what.split(";")[0])
        the loss of batch 0 (epoch 0) is inf: training stopped before its optimizer step
    """

    @property
    def what(self) -> str:
        """What happened: the batch, its loss and where the last checkpoint is."""
        return str(self.args[0]) if self.args else ""

    def __str__(self) -> str:
        return f'{self.what} (pass on_nonfinite_loss="warn" to train on)'


class Trainee(Protocol):
    """What training a batch reads on the trainer (a :class:`~trainer.Trainer` is one): the interface
    :class:`Training` uses. It writes ``last_grad_norm`` (with ``max_grad_norm``).

    >>> import torch
    >>> from trainer import Trainer
    >>> model = torch.nn.Linear(1, 1)
    >>> trainer: Trainee = Trainer(model, [(torch.ones(2, 1), torch.ones(2, 1))], "1ba",
    ...                            torch.optim.SGD(model.parameters(), lr=0.1), loss_fn=torch.nn.functional.mse_loss,
    ...                            progress_bar=False)
    >>> trainer.on_nonfinite_loss, trainer.max_grad_norm, trainer.last_grad_norm
    ('raise', None, None)
    """

    model: torch.nn.Module
    train_model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    precision: Precision
    loss_fn: Callable | None
    device: torch.device
    world: World
    state: Clock
    callbacks: CallbackList
    get_num_samples: Callable[[Any], int]
    get_num_tokens: Callable[[Any], int] | None
    max_grad_norm: float | None
    last_grad_norm: float | None
    on_nonfinite_loss: str
    eval_interval: Time | None
    save_interval: Time | None

    def evaluate(self, *, counts: bool = False) -> dict[str, float]:
        """Evaluate the model on the eval data (:meth:`trainer.Trainer.evaluate`).

        Args:
            counts: Whether this is one of the run's own evaluations, which every listener hears (a plateau,
                early stopping); otherwise only the callbacks' ``on_eval`` hears it.

        Returns:
            The metrics by name (``{"eval/loss": mean}``).
        """
        ...

    def save_checkpoint(self) -> Path | None:
        """Save a checkpoint of the run now (:meth:`trainer.Trainer.save_checkpoint`).

        Returns:
            Where it was saved, or None when this process saves nothing (not rank 0, or no ``save_folder``).
        """
        ...


class Training:
    """``fit``: train every batch; evaluate and checkpoint at their intervals; every callback sees the run.

    Built by ``fit`` for one call; :class:`~trainer.loop.Loop` calls :meth:`run` for each batch.

    Args:
        trainer: The trainer whose model, optimizer and settings train each batch (a :class:`Trainee`).
        epoch_batches: ``epoch_batches()`` gives the rest of the epoch's loader items in groups of
            ``grad_accum`` (:func:`epoch_batches`).
        where_the_last_checkpoint_is: ``where_the_last_checkpoint_is()`` completes the message of a
            non-finite loss.

    Returns:
        The loop's mode for ``fit``: :meth:`run` trains one batch, :meth:`after_batch` evaluates and checkpoints.

    Example:
        >>> import torch
        >>> from trainer import Trainer
        >>> model = torch.nn.Linear(3, 1)
        >>> data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(2)]
        >>> trainer = Trainer(model, data, "2ba", torch.optim.SGD(model.parameters(), lr=0.1),
        ...                   loss_fn=torch.nn.functional.mse_loss, progress_bar=False)
        >>> mode = Training(trainer, lambda: iter([[item] for item in data]), lambda: "no checkpoint")
        >>> loss, samples, tokens = mode.run([data[0]])  # forward, backward and one optimizer step
        >>> samples, tokens, loss > 0
        (4, 0, True)
    """

    def __init__(
        self,
        trainer: Trainee,
        epoch_batches: Callable[[], Iterator[list]],
        where_the_last_checkpoint_is: Callable[[], str],
    ) -> None:
        self.trainer = trainer
        self.hooks = trainer.callbacks
        self.wants_loss = trainer.callbacks.has("on_batch_end")
        self.batches = epoch_batches
        self._where_the_last_checkpoint_is = where_the_last_checkpoint_is
        self._moves_data = trainer.device.type != "cpu"
        # one process in fp32 needs no autocast, scaler or no_sync: the per-batch path skips them
        self._plain_step = trainer.world.size == 1 and trainer.precision.dtype is None

    def context(self) -> contextlib.AbstractContextManager:
        """The context of a training loop: none (the trainer set the model's train mode before).

        Returns:
            A context that does nothing (``contextlib.nullcontext()``).
        """
        return contextlib.nullcontext()

    def run(self, items: list) -> tuple[float, int, int] | None:
        """Forward, backward and one optimizer step over ``grad_accum`` items.

        A non-finite loss (on any rank) is handled before the optimizer step, as ``on_nonfinite_loss`` says.

        Args:
            items: The loader items of one optimizer step (``grad_accum`` of them).

        Returns:
            ``(loss, samples, tokens)``: the batch's loss (summed over its items, each divided by their number),
            its samples and tokens summed over ranks; or None when the fp16 scaler skipped the optimizer step.

        Raises:
            NonFiniteLossError: The loss is nan or inf on some rank and ``on_nonfinite_loss`` is ``"raise"``.
            TypeError: An item or a loss of the wrong shape (:func:`batch_loss`).
        """
        trainer = self.trainer
        total, samples, tokens = self._backward(items)
        loss = float(total)
        nonfinite = not math.isfinite(loss)
        if trainer.world.size > 1:
            samples, tokens, nonfinite = distributed.sum_counts(samples, tokens, trainer.device, nonfinite)
        if nonfinite:
            self._nonfinite_loss(loss)
        if trainer.max_grad_norm is not None:
            trainer.precision.unscale(trainer.optimizer)  # clip the true gradients, not the scaled ones
            trainer.last_grad_norm = float(
                torch.nn.utils.clip_grad_norm_(trainer.model.parameters(), trainer.max_grad_norm)
            )
        stepped = trainer.precision.step(trainer.optimizer)
        trainer.optimizer.zero_grad(set_to_none=True)
        if not stepped:
            return None
        return loss, int(samples), int(tokens)

    def _backward(self, items: list) -> tuple[torch.Tensor, int, int]:
        """Forward and backward over the micro-batches: their summed (detached) loss, samples and tokens."""
        trainer = self.trainer
        n = len(items)
        samples = tokens = 0
        total = None
        for i, item in enumerate(items):
            if self._moves_data:
                item = to_device(item, trainer.device)
            if self._plain_step:
                loss = batch_loss(trainer.train_model, item, trainer.loss_fn)
                if n > 1:
                    loss = loss / n
                loss.backward()
            else:
                loss = self._precise_backward(item, n, sync=trainer.world.size == 1 or i == n - 1)
            detached = loss.detach()
            total = detached if total is None else total + detached
            samples += trainer.get_num_samples(item)
            if trainer.get_num_tokens is not None:
                tokens += trainer.get_num_tokens(item)
        return total, samples, tokens

    def _precise_backward(self, item: Any, n: int, *, sync: bool) -> torch.Tensor:
        """Forward under autocast and a scaled backward; DDP gradient sync only on the last micro-batch."""
        trainer = self.trainer
        model = trainer.train_model
        with contextlib.nullcontext() if sync else model.no_sync():
            with trainer.precision.autocast():
                loss = batch_loss(model, item, trainer.loss_fn)
            if n > 1:
                loss = loss / n
            trainer.precision.backward(loss)
        return loss

    def _nonfinite_loss(self, loss: float) -> None:
        """``on_nonfinite_loss``: stop before the optimizer step (gradients dropped), or warn and go on."""
        trainer = self.trainer
        timestamp = trainer.state.timestamp
        where = f"batch {timestamp.batch.value} (epoch {timestamp.epoch.value})"
        if trainer.on_nonfinite_loss == "warn":
            warnings.warn(
                f"the loss of {where} is {loss}: training goes on (on_nonfinite_loss='warn')",
                RuntimeWarning,
                stacklevel=5,
            )
            return
        trainer.optimizer.zero_grad(set_to_none=True)
        raise NonFiniteLossError(
            f"the loss of {where} is {loss}{' (on some rank)' if trainer.world.size > 1 else ''}: training stopped "
            f"before its optimizer step; "
            f"{self._where_the_last_checkpoint_is()}"
        )

    def after_batch(self, before: Timestamp, epoch_done: bool, finished: bool) -> None:
        """What follows a trained batch: ``on_epoch_end`` when it closed the epoch, then an evaluation when time
        crossed an ``eval_interval`` multiple (heard by the plateau listeners and early stopping) or this call
        ends, then a checkpoint when time crossed a ``save_interval`` multiple.

        Args:
            before: The timestamp before the batch (the interval multiples crossed are counted from it).
            epoch_done: The batch closed its epoch.
            finished: This ``fit`` call ends with the batch (it evaluates, unheard unless the run is done).
        """
        trainer = self.trainer
        if epoch_done:
            trainer.callbacks.on_epoch_end(trainer)
        if trainer.eval_interval is not None:
            # the run's evaluations (each interval, and its end) are what listeners hear; the one that ends a
            # fit(duration) call is not, so a run split over calls decides as the uninterrupted one
            heard = _crossed(trainer.eval_interval, before, trainer.state) or trainer.state.done
            if heard or finished:  # a plateau and early stopping decide before the checkpoint saves their state
                trainer.evaluate(counts=heard)
        if trainer.save_interval is not None and _crossed(trainer.save_interval, before, trainer.state):
            trainer.save_checkpoint()


def _crossed(interval: Time, before: Timestamp, state: Clock) -> bool:
    """Whether time passed a multiple of ``interval`` since ``before``."""
    count = Timestamp.counter(interval.unit)
    return count(state.timestamp) // interval.value > count(before) // interval.value


def epoch_batches(
    loader: Iterable, state: Clock, *, grad_accum: int, seed: int, skipped_in_epoch: int, position: int | None = None
) -> Iterator[list]:
    """Groups of ``grad_accum`` loader items for the rest of the current epoch (skipping those already seen).

    The epoch is ``state``'s: a loader the trainer rebuilt (its :class:`~trainer.data.ResumableSampler`) is
    set to it and reshuffled from ``(seed, epoch)``, and the ``batch_in_epoch + skipped_in_epoch`` groups
    already used are skipped, so that a resumed epoch reads what the uninterrupted one would have. At most
    ``dataloader_len`` groups in all are taken from an epoch; a group ``grad_accum`` items cannot fill is dropped.

    Args:
        loader: The train loader (as ``prepare_loader`` made it).
        state: The run's clock: its epoch and position in the epoch.
        grad_accum: Loader items per optimizer step.
        seed: The run's seed (the workers' base seed of each epoch derives from it).
        skipped_in_epoch: Optimizer steps the fp16 scaler skipped in this epoch (their items were used).
        position: For a run resumed on another number of ranks, where in the epoch's order its items go on
            (:func:`trainer.data.reshard`, docs/resume.md); None: after the groups already used.

    Returns:
        The rest of the epoch's optimizer steps, each a list of ``grad_accum`` loader items, at most
        ``dataloader_len`` minus the steps already done.

    Raises:
        ValueError: the loader runs out before the items a resumed epoch must skip.

    Example:
        >>> from schedulers.core.clock import Clock
        >>> clock = Clock("2ep", dataloader_len=2)
        >>> _ = clock.batch()  # one batch of the epoch is done
        >>> list(epoch_batches(["a", "b", "c", "d", "e"], clock, grad_accum=2, seed=0, skipped_in_epoch=0))
        [['c', 'd']]
    """
    timestamp, n, sampler = state.timestamp, grad_accum, getattr(loader, "sampler", None)
    if isinstance(sampler, ResumableSampler):  # a loader the trainer rebuilt: it owns its randomness
        sampler.set_epoch(timestamp.epoch.value)
        # workers' base seed from (seed, epoch), not from the global RNG at the moment iter() is called
        loader.generator = torch.Generator().manual_seed((seed * 1_000_003 + timestamp.epoch.value) % 2**63)
    elif hasattr(sampler, "set_epoch"):
        sampler.set_epoch(timestamp.epoch.value)
    done_in_epoch = timestamp.batch_in_epoch.value + skipped_in_epoch  # loader groups already used
    iterator = resume_iterator(loader, sampler, done_in_epoch * n, position)
    remaining = None if state.dataloader_len is None else state.dataloader_len - done_in_epoch
    groups = ([item] for item in iterator) if n == 1 else groups_of(iterator, n)
    yield from groups if remaining is None else itertools.islice(groups, max(remaining, 0))


def batch_loss(model: torch.nn.Module, item: Any, loss_fn: Callable | None) -> torch.Tensor:
    """``loss_fn(model(inputs), targets)`` for an ``(inputs, targets)`` item, or ``model(item)`` without ``loss_fn``.

    Args:
        model: The model to run.
        item: One loader item.
        loss_fn: ``loss_fn(outputs, targets)``, or None when the model returns its loss.

    Returns:
        The loss the backward pass starts from (a 0-d tensor, attached to the graph).

    Raises:
        TypeError: with ``loss_fn``, an item that is not an ``(inputs, targets)`` pair; a loss that is not a
            0-d tensor.

    Example:
        >>> import torch
        >>> model = torch.nn.Identity()
        >>> batch_loss(model, (torch.ones(2), torch.zeros(2)), torch.nn.functional.mse_loss)
        tensor(1.)
    """
    if loss_fn is None:
        loss = model(item)
    else:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise TypeError(
                "with loss_fn, each loader item must be an (inputs, targets) pair; "
                f"got {type(item).__name__} (pass loss_fn=None to have model(item) return the loss)"
            )
        inputs, targets = item
        loss = loss_fn(model(inputs), targets)
    if not isinstance(loss, torch.Tensor) or loss.dim() != 0:
        raise TypeError(f"the loss must be a 0-d tensor, got {type(loss).__name__} {getattr(loss, 'shape', '')}")
    return loss
