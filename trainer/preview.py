"""What ``Trainer.preview`` does with each batch: count it, so that the schedulers step exactly as in ``fit``
(:class:`Preview`, the loop's :class:`~trainer.loop.Mode` for ``preview``).

No forward, backward or optimizer step; torch's "``lr_scheduler.step()`` before ``optimizer.step()``"
warning is silenced, since no optimizer step is the point. Only the callbacks given to ``preview`` see the
batches. The data is read only when the run needs it to count samples or tokens or to find the end of an epoch.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from schedulers.core.clock import Clock
from timeunits import Timestamp
from trainer.callbacks import CallbackList
from trainer.distributed import World
from trainer.trainer_arguments import constant_batch_size

__all__ = ["Preview", "Previewed"]

# torch warns when a scheduler steps before its optimizer ever did: in a preview that is the point
_STEP_ORDER_WARNING = r"Detected call of `lr_scheduler\.step\(\)` before `optimizer\.step\(\)`"


class Previewed(Protocol):
    """What a preview reads on the trainer (a :class:`~trainer.Trainer` is one): the interface
    :class:`Preview` uses.

    >>> import torch
    >>> from trainer import Trainer
    >>> model = torch.nn.Linear(3, 1)
    >>> trainer: Previewed = Trainer(model, [torch.randn(4, 3)] * 2, "1ep", torch.optim.SGD(model.parameters(), lr=0.1),
    ...                              loss_fn=None, progress_bar=False)
    >>> trainer.state.dataloader_len, trainer.grad_accum, trainer.get_num_samples(torch.randn(4, 3))
    (2, 1, 4)
    """

    state: Clock
    train_dataloader: Iterable
    grad_accum: int
    world: World
    get_num_samples: Callable[[Any], int]
    get_num_tokens: Callable[[Any], int] | None


class Preview:
    """``preview``: count each batch and step the schedulers, without training; ``callbacks`` see the batches
    through ``on_fit_start``, ``on_batch_start``, ``on_epoch_end`` and ``on_fit_end`` (no batch has a loss, so
    ``on_batch_end`` is not called).

    Samples per batch come from the data when the run needs them and they are not a known constant (a
    run in ``sp``/``tok``, a token counter, a loader without a length, a batch size that varies); otherwise
    the loader is not touched and each batch counts the constant batch size.

    Args:
        trainer: The trainer whose run is previewed (a :class:`Previewed`).
        epoch_batches: ``epoch_batches()`` gives the rest of the epoch's loader items, as ``fit`` reads them.
        callbacks: The callbacks that see the previewed batches (e.g. an :class:`~trainer.LRMonitor`).

    Returns:
        The loop's mode for ``preview``: :meth:`run` counts one batch, :meth:`after_batch` calls the epoch-end hooks.

    Raises:
        TypeError: a callback that is not one (as ``Trainer(callbacks=...)`` says).

    Example:
        >>> import torch
        >>> from trainer import Trainer
        >>> loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(8, 3)), batch_size=4)
        >>> model = torch.nn.Linear(3, 1)
        >>> trainer = Trainer(model, loader, "2ep", torch.optim.SGD(model.parameters(), lr=0.1),
        ...                   loss_fn=None, progress_bar=False)
        >>> mode = Preview(trainer, lambda: iter([]))
        >>> mode.reads_data, mode.run([None])  # a constant batch size: the data is not read
        (False, (0.0, 4, 0))
    """

    def __init__(self, trainer: Previewed, epoch_batches: Callable[[], Iterator[list]], callbacks: Any = ()) -> None:
        self.trainer = trainer
        self.hooks = CallbackList(callbacks)
        self.wants_loss = False
        self._epoch_batches = epoch_batches
        self.constant_samples = constant_batch_size(
            trainer.train_dataloader, trainer.grad_accum, trainer.world.size, trainer.get_num_samples
        )
        self.reads_data = (
            self.constant_samples is None or trainer.get_num_tokens is not None or trainer.state.dataloader_len is None
        )

    def batches(self) -> Iterator[list]:
        """The rest of the epoch: the loader's items when the preview reads data, else placeholders.

        Returns:
            One list of items per optimizer step; without reading data, ``[None]`` for each batch left in the
            epoch (``dataloader_len`` minus the batches done).
        """
        if self.reads_data:
            return self._epoch_batches()
        state = self.trainer.state
        return ([None] for _ in range(state.dataloader_len - state.timestamp.batch_in_epoch.value))

    def run(self, items: list) -> tuple[float, int, int]:
        """Count one batch, without training it.

        Args:
            items: The loader items of one optimizer step (``[None]`` when the data is not read).

        Returns:
            ``(0.0, samples, tokens)``: no loss, and the batch's samples and tokens (the constant batch size
            and no tokens when the data is not read).
        """
        trainer = self.trainer
        if not self.reads_data:
            return 0.0, self.constant_samples, 0
        samples = sum(trainer.get_num_samples(item) for item in items)
        tokens = sum(trainer.get_num_tokens(item) for item in items) if trainer.get_num_tokens is not None else 0
        return 0.0, int(samples), int(tokens)

    def after_batch(self, before: Timestamp, epoch_done: bool, finished: bool) -> None:
        """Call the callbacks' ``on_epoch_end`` when the batch closed its epoch (nothing else follows a batch).

        Args:
            before: The timestamp before the batch (unused: a preview evaluates and saves nothing).
            epoch_done: The batch closed its epoch.
            finished: The preview reached its end (unused).
        """
        if epoch_done:
            self.hooks.on_epoch_end(self.trainer)

    @contextlib.contextmanager
    def context(self) -> Iterator[None]:
        """The preview's context: torch's warning about a scheduler stepping before its optimizer is silenced.

        Yields:
            None, once, for the whole loop.
        """
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=_STEP_ORDER_WARNING, category=UserWarning)
            yield
