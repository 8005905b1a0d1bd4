"""What the trainer's loop does with each batch: train it (``fit``), or only count it (``preview``).

The loop itself — a batch advances the clock, the batch that completes an epoch closes it, the schedulers
step, the run stops at ``max_duration`` — is :meth:`trainer.Trainer._fit_loop`, written once. A mode gives
it the batches of the epoch, the work of one batch, the callbacks that see it, and what follows a batch:

* :class:`Training` (``fit``): forward, backward and one optimizer step; evaluation and checkpoints at their
  intervals; every callback.
* :class:`Preview` (``Trainer.preview``): no forward, backward or optimizer step; the schedulers step exactly
  as in ``fit`` (torch's "``lr_scheduler.step()`` before ``optimizer.step()``" warning is silenced, since
  no optimizer step is the point); only the callbacks given to ``preview`` see the batches. The data is read
  only when the run needs it to count samples or tokens or to find the end of an epoch.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from timeunits import Timestamp
from trainer.callbacks import CallbackList

if TYPE_CHECKING:
    from trainer.trainer import Trainer

__all__ = ["Preview", "Training"]

# torch warns when a scheduler steps before its optimizer ever did: in a preview that is the point
_STEP_ORDER_WARNING = r"Detected call of `lr_scheduler\.step\(\)` before `optimizer\.step\(\)`"


class Training:
    """``fit``: train every batch; evaluate and checkpoint at their intervals; every callback sees the run.

    Its steps are the trainer's bound methods themselves: the per-batch path pays no extra call.
    """

    def __init__(self, trainer: Trainer) -> None:
        self.hooks = trainer.callbacks
        self.wants_loss = trainer.callbacks.has("on_batch_end")
        self.batches: Callable[[], Iterator[list]] = trainer._epoch_batches
        self.run: Callable[[list], tuple[float, int, int] | None] = trainer._train_batch
        self.after_batch: Callable[[Timestamp, bool, bool], None] = trainer._after_batch

    def context(self) -> contextlib.AbstractContextManager:
        return contextlib.nullcontext()


class Preview:
    """``preview``: count each batch and step the schedulers, without training; ``callbacks`` see the batches
    through ``on_fit_start``, ``on_batch_start``, ``on_epoch_end`` and ``on_fit_end`` (no batch has a loss, so
    ``on_batch_end`` is not called).

    Samples per batch come from the data when the run needs them and they are not a known constant (a
    run in ``sp``/``tok``, a token counter, a loader without a length, a batch size that varies); otherwise
    the loader is not touched and each batch counts the constant batch size.
    """

    def __init__(self, trainer: Trainer, callbacks: Any = ()) -> None:
        self.trainer = trainer
        self.hooks = CallbackList(callbacks)
        self.wants_loss = False
        self.constant_samples = trainer._constant_batch_size()
        self.reads_data = (
            self.constant_samples is None or trainer.get_num_tokens is not None or trainer.state.dataloader_len is None
        )

    def batches(self) -> Iterator[list]:
        if self.reads_data:
            return self.trainer._epoch_batches()
        state = self.trainer.state
        return ([None] for _ in range(state.dataloader_len - state.timestamp.batch_in_epoch.value))

    def run(self, items: list) -> tuple[float, int, int]:
        trainer = self.trainer
        if not self.reads_data:
            return 0.0, self.constant_samples, 0
        samples = sum(trainer.get_num_samples(item) for item in items)
        tokens = sum(trainer.get_num_tokens(item) for item in items) if trainer.get_num_tokens is not None else 0
        return 0.0, int(samples), int(tokens)

    def after_batch(self, before: Timestamp, epoch_done: bool, finished: bool) -> None:
        if epoch_done:
            self.hooks.on_epoch_end(self.trainer)

    @contextlib.contextmanager
    def context(self) -> Iterator[None]:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=_STEP_ORDER_WARNING, category=UserWarning)
            yield
