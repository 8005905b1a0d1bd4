"""Callbacks: hooks the trainer calls during ``fit()``, a tqdm progress bar and a hyperparameter monitor.

A callback subclasses :class:`Callback` and overrides the hooks it needs. The trainer wraps its callbacks in a
:class:`CallbackList`, which works out once which callbacks override which hook, so a hook nobody overrides
costs one loop over an empty tuple per call.

Hooks, in the order the trainer calls them:

- ``on_fit_start(trainer)``: once, before the first batch (after a resume has been applied).
- ``on_batch_start(trainer)``: before each batch's forward pass, after the schedulers have set this batch's
  hyperparameters; ``trainer.state.timestamp`` counts the batches already done (0 for the first batch).
- ``on_batch_end(trainer, loss)``: after the optimizer step and the timestamp advance; ``loss`` is the batch's
  loss as a float (summed over the gradient-accumulation micro-batches).
- ``on_epoch_end(trainer)``: after the last batch of an epoch closed the epoch.
- ``on_eval(trainer, metrics)``: after an evaluation, with a dict of metric name to value.
  (A callback may instead hear evaluations through the one listener protocol,
  :class:`schedulers.core.listening.EvaluationListener`: ``hear(evaluation)``, checked at start by its
  ``monitors`` and ``needs_evaluations``, as ``EarlyStopping`` does; docs/plateau.md.)
- ``on_before_checkpoint(trainer)``: before a checkpoint file is written (rank 0): a callback that writes
  records (a CSV, event files) puts on disk what it holds up to now, since the checkpoint claims it
  (docs/resume.md).
- ``on_checkpoint(trainer, path)``: after a checkpoint file was written.
- ``on_fit_end(trainer)``: once, after the last batch.

What a callback may read from the trainer: ``trainer.state`` (``timestamp``, ``max_duration``,
``dataloader_len``), ``trainer.optimizer``, ``trainer.model``, ``trainer.scheduled_keys`` (the hyperparameter
names the schedulers write, e.g. ``["lr", "weight_decay"]``) and ``trainer.is_rank_zero``.

>>> class CountBatches(Callback):
...     def __init__(self):
...         self.batches = 0
...     def on_batch_end(self, trainer, loss):
...         self.batches += 1
>>> counter = CountBatches()
>>> callbacks = CallbackList([counter, Callback()])
>>> callbacks.hooks("on_batch_end") == (counter.on_batch_end,), callbacks.hooks("on_batch_start")
(True, ())
>>> callbacks.on_batch_end(None, 0.5); call_hooks(callbacks, "on_batch_end", None, 0.25); counter.batches
2
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TextIO

from schedulers.core.listening import EvaluationListener
from schedulers.core.schedule_arguments import number_argument
from timeunits import Timestamp, TimeUnit
from trainer.records import COUNT_COLUMNS, RowFile, write_table
from trainer.writable_paths import check_writable

__all__ = [
    "HOOK_NAMES",
    "Callback",
    "CallbackList",
    "EvalHooks",
    "as_callbacks",
    "call_hooks",
    "ProgressBar",
    "LRMonitor",
]

#: The hooks a callback can override, in the order a run calls them.
HOOK_NAMES = (
    "on_fit_start",
    "on_batch_start",
    "on_batch_end",
    "on_epoch_end",
    "on_eval",
    "on_before_checkpoint",
    "on_checkpoint",
    "on_fit_end",
)


class Callback:
    """Base class of trainer callbacks: every hook does nothing; override the ones you need.

    Hooks that are not overridden cost nothing per batch: :class:`CallbackList` leaves them out. The module
    docstring lists the hooks in the order a run calls them, and what a callback may read from the trainer.

    Returns:
        A callback that does nothing; a subclass's instance, handed to ``Trainer(callbacks=...)`` or
        ``fit(callbacks=...)``, has its overridden hooks called.

    >>> import torch
    >>> from trainer import Trainer
    >>> class Losses(Callback):
    ...     def __init__(self):
    ...         self.losses = []
    ...     def on_batch_end(self, trainer, loss):
    ...         self.losses.append(loss)
    >>> model, losses = torch.nn.Linear(2, 1), Losses()
    >>> trainer = Trainer(model, [(torch.ones(4, 2), torch.zeros(4, 1))] * 2, "2ep",
    ...                   torch.optim.SGD(model.parameters(), lr=0.1), loss_fn=torch.nn.functional.mse_loss,
    ...                   callbacks=[losses], progress_bar=False)
    >>> trainer.fit(); len(losses.losses)
    4
    """

    def on_fit_start(self, trainer: Any) -> None:
        """Once, before the first batch of ``fit()``.

        Args:
            trainer: The :class:`~trainer.Trainer` running (read its ``state``, ``optimizer``, ``model``).
        """

    def on_batch_start(self, trainer: Any) -> None:
        """Before each batch's forward pass, with this batch's hyperparameters already set.

        Args:
            trainer: The :class:`~trainer.Trainer` running (read its ``state``, ``optimizer``, ``model``).
        """

    def on_batch_end(self, trainer: Any, loss: float) -> None:
        """After each batch's optimizer step and timestamp advance.

        Args:
            trainer: The :class:`~trainer.Trainer` running (read its ``state``, ``optimizer``, ``model``).
            loss: The batch's loss as a float (summed over the gradient-accumulation micro-batches).
        """

    def on_epoch_end(self, trainer: Any) -> None:
        """After the batch that closed an epoch.

        Args:
            trainer: The :class:`~trainer.Trainer` running (read its ``state``, ``optimizer``, ``model``).
        """

    def on_eval(self, trainer: Any, metrics: dict) -> None:
        """After an evaluation, with its metrics.

        Args:
            trainer: The :class:`~trainer.Trainer` running (read its ``state``, ``optimizer``, ``model``).
            metrics: Each metric's name to its value (``{"eval/loss": ...}``).
        """

    def on_before_checkpoint(self, trainer: Any) -> None:
        """Before a checkpoint is written: put on disk every record up to now (the checkpoint claims it).

        Args:
            trainer: The :class:`~trainer.Trainer` running (read its ``state``, ``optimizer``, ``model``).
        """

    def on_checkpoint(self, trainer: Any, path: str | os.PathLike) -> None:
        """After a checkpoint was written to ``path``.

        Args:
            trainer: The :class:`~trainer.Trainer` running (read its ``state``, ``optimizer``, ``model``).
            path: The checkpoint file written.
        """

    def on_fit_end(self, trainer: Any) -> None:
        """Once, after the last batch of ``fit()``.

        Args:
            trainer: The :class:`~trainer.Trainer` running (read its ``state``, ``optimizer``, ``model``).
        """


_BASE_HOOKS = {name: getattr(Callback, name) for name in HOOK_NAMES}


def _overridden_hook(callback: object, name: str) -> Callable | None:
    """``callback``'s bound ``name`` hook, or None when it is missing or :class:`Callback`'s no-op."""
    hook = getattr(callback, name, None)
    if hook is None or getattr(hook, "__func__", None) is _BASE_HOOKS[name]:
        return None
    if not callable(hook):
        raise TypeError(f"{type(callback).__name__}.{name} is not callable ({hook!r})")
    return hook


def as_callbacks(callbacks: Iterable[object] | object | None) -> tuple[object, ...]:
    """What ``callbacks=`` may be, as a tuple: None (none), one callback, or any iterable of them.

    Args:
        callbacks: None, one callback (a :class:`Callback` is one even if it is iterable), or an iterable of them.

    Returns:
        The callbacks in order, unchecked (:class:`CallbackList` checks each): ``()`` for None, a 1-tuple for a
        single callback.

    >>> as_callbacks(None), len(as_callbacks(Callback())), len(as_callbacks([Callback(), Callback()]))
    ((), 1, 2)
    """
    if callbacks is None:
        return ()
    if isinstance(callbacks, Callback) or not isinstance(callbacks, Iterable):
        return (callbacks,)
    return tuple(callbacks)


class CallbackList:
    """The trainer's callbacks, with each hook's overriding methods bound once, in list order.

    ``callbacks`` is None, one callback, or an iterable of them. A callback is a :class:`Callback` or any object
    with at least one hook method (duck typing); anything else is a TypeError naming its index. Calling a hook
    on the list (``callbacks.on_batch_end(trainer, loss)``) calls it on every callback that overrides it; a
    hook nobody overrides is a loop over an empty tuple. :meth:`has` lets the trainer skip preparing a hook's
    arguments (e.g. ``loss.item()``, a device sync) when nobody listens. Exceptions raised by a callback
    propagate unchanged.

    Args:
        callbacks: None, one callback, or an iterable of them (see :func:`as_callbacks`).

    Returns:
        The list: iterate it for the callbacks, call a hook on it to call every override of that hook.

    Raises:
        TypeError: A class given instead of an instance, or an object with no hook (nor ``hear``), naming its
            index.

    >>> class Ends(Callback):
    ...     def on_fit_end(self, trainer):
    ...         print("end of", trainer)
    >>> callbacks = CallbackList([Ends(), Callback()])
    >>> len(callbacks), callbacks.has("on_fit_end"), callbacks.has("on_batch_end")
    (2, True, False)
    >>> callbacks.on_fit_end("the run")
    end of the run
    """

    __slots__ = ("_callbacks", "_hooks") + tuple(f"_{name}" for name in HOOK_NAMES)

    def __init__(self, callbacks: Iterable[object] | object | None = None) -> None:
        self._callbacks: tuple[object, ...] = ()
        self._rebuild(as_callbacks(callbacks))

    def _rebuild(self, callbacks: tuple[object, ...]) -> None:
        hooks: dict[str, list[Callable]] = {name: [] for name in HOOK_NAMES}
        for index, callback in enumerate(callbacks):
            if isinstance(callback, type):
                raise TypeError(
                    f"callbacks[{index}] is the class {callback.__name__}, not an instance: write {callback.__name__}()"
                )
            found = False
            for name in HOOK_NAMES:
                hook = _overridden_hook(callback, name)
                if hook is not None:
                    hooks[name].append(hook)
                    found = True
            if not found and not isinstance(callback, (Callback, EvaluationListener)):
                raise TypeError(
                    f"callbacks[{index}] ({type(callback).__name__}) is not a Callback and has none of the hooks "
                    f"{', '.join(HOOK_NAMES)} (nor hear(evaluation), the listener protocol)"
                )
        self._callbacks = callbacks
        self._hooks = {name: tuple(methods) for name, methods in hooks.items()}
        for name, methods in self._hooks.items():
            setattr(self, f"_{name}", methods)

    # -- the list -----------------------------------------------------------------------------------
    @property
    def callbacks(self) -> tuple[object, ...]:
        """The callbacks, in call order."""
        return self._callbacks

    def append(self, callback: object) -> None:
        """Add a callback at the end (hooks are re-bound).

        Args:
            callback: A :class:`Callback` or an object with a hook method.

        Raises:
            TypeError: ``callback`` is a class or has no hook (as the constructor says).
        """
        self._rebuild(self._callbacks + (callback,))

    def extend(self, callbacks: Iterable[object]) -> None:
        """Add callbacks at the end (hooks are re-bound).

        Args:
            callbacks: The callbacks, in the order their hooks are called.

        Raises:
            TypeError: One is a class or has no hook (as the constructor says).
        """
        self._rebuild(self._callbacks + tuple(callbacks))

    def __iter__(self):
        return iter(self._callbacks)

    def __len__(self) -> int:
        return len(self._callbacks)

    def __repr__(self) -> str:
        return f"CallbackList([{', '.join(type(c).__name__ for c in self._callbacks)}])"

    # -- dispatch -----------------------------------------------------------------------------------
    def hooks(self, name: str) -> tuple[Callable, ...]:
        """The bound methods that override a hook.

        Args:
            name: A hook's name (``"on_batch_end"``, ...).

        Returns:
            Each callback's override of ``name`` bound to it, in callback order; empty when nobody overrides it.

        Raises:
            ValueError: ``name`` is not a hook.
        """
        try:
            return self._hooks[name]
        except KeyError:
            raise ValueError(f"unknown callback hook {name!r}; the hooks are {', '.join(HOOK_NAMES)}") from None

    def has(self, name: str) -> bool:
        """Whether any callback overrides a hook, so the trainer can skip preparing its arguments.

        Args:
            name: A hook's name.

        Returns:
            True when at least one callback overrides ``name``.

        Raises:
            ValueError: ``name`` is not a hook.
        """
        return bool(self.hooks(name))

    def call(self, name: str, *args: Any) -> None:
        """Call a hook by name on every callback that overrides it.

        Args:
            name: A hook's name.
            *args: The hook's arguments after ``self`` (``trainer``, then ``loss``, ``metrics`` or ``path``).

        Raises:
            ValueError: ``name`` is not a hook.
        """
        for hook in self.hooks(name):
            hook(*args)

    def on_fit_start(self, trainer: Any) -> None:
        """Call every callback's ``on_fit_start`` (before the first batch; :meth:`Callback.on_fit_start`).

        Args:
            trainer: The :class:`~trainer.Trainer` running.
        """
        for hook in self._on_fit_start:
            hook(trainer)

    def on_batch_start(self, trainer: Any) -> None:
        """Call every callback's ``on_batch_start`` (before a batch's forward pass; :meth:`Callback.on_batch_start`).

        Args:
            trainer: The :class:`~trainer.Trainer` running.
        """
        for hook in self._on_batch_start:
            hook(trainer)

    def on_batch_end(self, trainer: Any, loss: float) -> None:
        """Call every callback's ``on_batch_end`` (after a batch's optimizer step; :meth:`Callback.on_batch_end`).

        Args:
            trainer: The :class:`~trainer.Trainer` running.
            loss: The batch's loss as a float.
        """
        for hook in self._on_batch_end:
            hook(trainer, loss)

    def on_epoch_end(self, trainer: Any) -> None:
        """Call every callback's ``on_epoch_end`` (after the batch that closed an epoch; :meth:`Callback.on_epoch_end`).

        Args:
            trainer: The :class:`~trainer.Trainer` running.
        """
        for hook in self._on_epoch_end:
            hook(trainer)

    def on_eval(self, trainer: Any, metrics: dict) -> None:
        """Call every callback's ``on_eval`` (after an evaluation; :meth:`Callback.on_eval`).

        Args:
            trainer: The :class:`~trainer.Trainer` running.
            metrics: Each metric's name to its value.
        """
        for hook in self._on_eval:
            hook(trainer, metrics)

    def on_before_checkpoint(self, trainer: Any) -> None:
        """Call every callback's ``on_before_checkpoint`` (before a checkpoint is written).

        Args:
            trainer: The :class:`~trainer.Trainer` running.
        """
        for hook in self._on_before_checkpoint:
            hook(trainer)

    def on_checkpoint(self, trainer: Any, path: str | os.PathLike) -> None:
        """Call every callback's ``on_checkpoint`` (after a checkpoint was written; :meth:`Callback.on_checkpoint`).

        Args:
            trainer: The :class:`~trainer.Trainer` running.
            path: The checkpoint file written.
        """
        for hook in self._on_checkpoint:
            hook(trainer, path)

    def on_fit_end(self, trainer: Any) -> None:
        """Call every callback's ``on_fit_end`` (after the last batch; :meth:`Callback.on_fit_end`).

        Args:
            trainer: The :class:`~trainer.Trainer` running.
        """
        for hook in self._on_fit_end:
            hook(trainer)


class EvalHooks:
    """The callbacks' ``on_eval`` as an :class:`~schedulers.core.listening.EvaluationListener`: the trainer delivers
    every evaluation (whether or not it counts) through the one listener path, and this calls ``on_eval(trainer,
    metrics)`` on each callback that overrides it.

    Args:
        trainer: What the hooks get as ``trainer``.
        callbacks: The trainer's :class:`CallbackList`.

    Returns:
        The listener; it reads no particular metric and needs no evaluation.

    >>> from schedulers.core.listening import Evaluation
    >>> class Seen(Callback):
    ...     def on_eval(self, trainer, metrics):
    ...         print(trainer, metrics)
    >>> EvalHooks("the trainer", CallbackList([Seen()])).hear(Evaluation({"eval/loss": 0.5}))
    the trainer {'eval/loss': 0.5}
    """

    listener_name = "callbacks' on_eval"
    monitors: tuple[str, ...] = ()
    needs_evaluations = False

    def __init__(self, trainer: Any, callbacks: CallbackList) -> None:
        self.trainer, self.callbacks = trainer, callbacks

    def hear(self, evaluation: Any) -> None:
        """Call every ``on_eval`` with the evaluation's metrics (a new dict each time).

        Args:
            evaluation: The :class:`~schedulers.core.listening.Evaluation`.

        Returns:
            None: a callback ends a run itself (``trainer.request_stop``).
        """
        self.callbacks.on_eval(self.trainer, dict(evaluation.metrics))


def call_hooks(callbacks: CallbackList | Iterable[object] | None, hook_name: str, *args: Any) -> None:
    """Call ``hook_name(*args)`` on every callback that overrides it.

    With a :class:`CallbackList` this is :meth:`CallbackList.call`; any other iterable is wrapped first (which
    re-inspects every callback, so per-batch code should keep a CallbackList).

    Args:
        callbacks: A :class:`CallbackList`, or what :class:`CallbackList` takes (None, one, an iterable).
        hook_name: A hook's name (``"on_checkpoint"``, ...).
        *args: The hook's arguments (``trainer``, then ``loss``, ``metrics`` or ``path``).

    Raises:
        ValueError: ``hook_name`` is not a hook.
        TypeError: A callback that is not one (see :class:`CallbackList`).

    >>> class Saved(Callback):
    ...     def on_checkpoint(self, trainer, path):
    ...         print("saved", path)
    >>> call_hooks([Saved()], "on_checkpoint", None, "ckpt/ep1.pt")
    saved ckpt/ep1.pt
    """
    if not isinstance(callbacks, CallbackList):
        callbacks = CallbackList(callbacks)
    callbacks.call(hook_name, *args)


def _is_rank_zero(trainer: Any) -> bool:
    flag = getattr(trainer, "is_rank_zero", True)
    return bool(flag() if callable(flag) else flag)


# ---------------------------------------------------------------------------------------------------------
# ProgressBar
# ---------------------------------------------------------------------------------------------------------


class ProgressBar(Callback):
    """A tqdm progress bar over the run, in the unit of ``max_duration``, on rank 0 only, written to stderr.

    - ``max_duration`` in ``ba``, ``sp`` or ``tok``: the bar counts that unit up to ``max_duration.value``
      (``sp`` and ``tok`` with SI prefixes: ``1.20M/3.00Mtok``).
    - ``max_duration`` in ``ep`` with a known ``dataloader_len``: the bar counts **batches**, up to
      ``epochs × dataloader_len``; its position is ``epoch × dataloader_len + batch_in_epoch`` and its label
      shows the epoch (``ep 2/3``). Whole batches give an exact count, a batch rate and an ETA, which
      fractional epochs would round away.
    - ``max_duration`` in ``ep`` with no ``dataloader_len`` (a loader without a length): the bar counts epochs,
      moving at each epoch end.

    The position follows ``trainer.state.timestamp`` (so a resumed run starts where it left off) and stops at
    the total: the batch that crosses ``max_duration`` in ``sp`` or ``tok`` shows as 100%. The postfix
    describes the batch the count shows, the last one done: its loss and the ``lr`` of group 0 it trained with
    (read at batch start: by batch end the schedulers have stepped to the next batch's value). It is written
    when tqdm draws the bar (at most once per ``refresh_interval`` seconds, tqdm's ``mininterval``, or when
    tqdm's monitor thread redraws), from the batch done at that moment, so count and postfix never disagree;
    a batch costs an lr read and a ``tqdm.update``. The bar is created at fit start on ``sys.stderr`` (or
    ``file``) and closed at fit end, showing the final count.

    Evaluation metrics are printed above the bar as one line.

    Args:
        refresh_interval: The least number of seconds between two drawings (tqdm's ``mininterval``), >= 0.
        file: The stream the bar is written to (None: ``sys.stderr`` at fit start).
        desc: A prefix of the bar's label.
        tqdm_kwargs: Other keyword arguments, passed to ``tqdm`` (``leave``, ``position``, ``ncols``, ...).

    Returns:
        The callback; ``Trainer(progress_bar=True)`` (the default) adds one itself.

    Raises:
        ValueError: ``refresh_interval`` not a finite number >= 0.

    >>> import io, torch
    >>> from trainer import Trainer
    >>> stream, model = io.StringIO(), torch.nn.Linear(2, 1)
    >>> trainer = Trainer(model, [(torch.ones(4, 2), torch.zeros(4, 1))] * 2, "2ep",
    ...                   torch.optim.SGD(model.parameters(), lr=0.1), loss_fn=torch.nn.functional.mse_loss,
    ...                   callbacks=[ProgressBar(file=stream, desc="demo")], progress_bar=False)
    >>> trainer.fit()
    >>> stream.getvalue().rsplit("\\r", 1)[-1].split("|")[0], "4/4" in stream.getvalue()
    ('demo ep 2/2: 100%', True)
    """

    def __init__(
        self,
        *,
        refresh_interval: float = 0.1,
        file: TextIO | None = None,
        desc: str | None = None,
        **tqdm_kwargs: Any,
    ) -> None:
        self.refresh_interval = number_argument("refresh_interval", refresh_interval, low=0.0)  # seconds
        self.file = file
        self.desc = desc
        self.tqdm_kwargs = tqdm_kwargs
        self.bar = None  # the tqdm instance while a fit runs on rank 0
        self._file: TextIO | None = None
        self._counter: Callable[[Timestamp], int] = Timestamp.counter(TimeUnit.BATCH)
        self._total = 0
        self._epochs: int | None = None  # max_duration in ep: the number of epochs (for the label)
        self._batch_lr: Any = None  # group 0's lr when the current batch started (the lr it trains with)
        self._done: tuple[Any, Any] | None = None  # (loss, lr) of the last batch done: what the postfix shows

    # -- set-up ---------------------------------------------------------------------------------------
    def on_fit_start(self, trainer: Any) -> None:
        self.close()
        if not _is_rank_zero(trainer):
            return
        state = trainer.state
        max_duration = state.max_duration
        unit = TimeUnit(max_duration.unit)
        self._epochs = None
        if unit is TimeUnit.EPOCH:
            self._epochs = int(max_duration.value)
            batches_per_epoch = state.dataloader_len
            if batches_per_epoch is not None:
                batches_per_epoch = int(batches_per_epoch)
                self._counter = lambda ts: ts.count(TimeUnit.EPOCH) * batches_per_epoch + ts.batch_in_epoch.value
                self._total = self._epochs * batches_per_epoch
                shown_unit = TimeUnit.BATCH
            else:
                self._counter = Timestamp.counter(TimeUnit.EPOCH)
                self._total = self._epochs
                shown_unit = TimeUnit.EPOCH
        else:
            self._counter = Timestamp.counter(unit)
            self._total = int(max_duration.value)
            shown_unit = unit

        self._file = self.file if self.file is not None else sys.stderr
        options = dict(
            total=self._total,
            initial=min(self._counter(state.timestamp), self._total),
            unit=shown_unit.value,
            unit_scale=shown_unit in (TimeUnit.SAMPLE, TimeUnit.TOKEN),
            mininterval=self.refresh_interval,
            file=self._file,
            desc=self._label(state.timestamp),
            dynamic_ncols="ncols" not in self.tqdm_kwargs,
        )
        options.update(self.tqdm_kwargs)
        self._done = self._batch_lr = None
        self.bar = _bar_class()(postfix_of=lambda: self.postfix, **options)

    def _label(self, timestamp: Timestamp) -> str | None:
        parts = [self.desc] if self.desc else []
        if self._epochs is not None:
            parts.append(f"ep {min(timestamp.count(TimeUnit.EPOCH) + 1, self._epochs)}/{self._epochs}")
        return " ".join(parts) or None

    # -- per batch ------------------------------------------------------------------------------------
    def _advance(self, trainer: Any) -> None:
        bar = self.bar
        position = self._counter(trainer.state.timestamp)
        if position > self._total:
            position = self._total
        if position != bar.n:
            bar.update(position - bar.n)

    @property
    def postfix(self) -> str:
        """What the bar shows after its count: the last batch's loss and the lr it trained with ("" before one)."""
        done = self._done
        if done is None:
            return ""
        loss, lr = done
        return f"loss={float(loss):.4g}" + ("" if lr is None else f", lr={float(lr):.4g}")

    def on_batch_start(self, trainer: Any) -> None:
        if self.bar is not None:
            lr = _group_lr(trainer)
            # a tensor lr is filled in place when the schedulers step: keep its value, not the tensor
            self._batch_lr = lr if lr is None or isinstance(lr, (int, float)) else float(lr)

    def on_batch_end(self, trainer: Any, loss: float) -> None:
        if self.bar is None:
            return
        self._done = (loss, self._batch_lr)  # one assignment: a redraw from tqdm's thread sees a whole batch
        self._advance(trainer)

    def on_epoch_end(self, trainer: Any) -> None:
        if self.bar is None:
            return
        if self._epochs is not None:
            self.bar.set_description_str(self._label(trainer.state.timestamp), refresh=False)
        self._advance(trainer)

    def on_eval(self, trainer: Any, metrics: dict) -> None:
        if self.bar is None:
            return
        shown = ", ".join(f"{name}={_format_metric(value)}" for name, value in metrics.items())
        self.bar.write(f"[eval {trainer.state.timestamp.batch}] {shown}", file=self._file)

    def on_fit_end(self, trainer: Any) -> None:
        if self.bar is None:
            return
        self._advance(trainer)
        self.close()

    def close(self) -> None:
        """Close the bar (called at fit end; safe to call again or when no bar is open)."""
        bar, self.bar = self.bar, None
        if bar is not None:
            bar.close()


@functools.cache
def _bar_class() -> type:
    """tqdm's bar, asking for its postfix each time it draws (tqdm draws on its own schedule)."""
    try:
        from tqdm.std import tqdm
    except ImportError as error:  # pragma: no cover - tqdm is a dependency
        raise ImportError("ProgressBar needs tqdm: pip install tqdm") from error

    class _Bar(tqdm):
        def __init__(self, *args: Any, postfix_of: Callable[[], str], **kwargs: Any) -> None:
            self._postfix_of = postfix_of  # before tqdm's __init__, which draws the bar once
            super().__init__(*args, **kwargs)

        @property
        def format_dict(self) -> dict:  # what every drawing of the bar formats
            self.postfix = self._postfix_of() or None
            return super().format_dict

    return _Bar


def _group_lr(trainer: Any) -> Any:
    """Param group 0's ``lr`` (None when there is none)."""
    try:
        return trainer.optimizer.param_groups[0].get("lr")
    except (AttributeError, IndexError):
        return None


def _format_metric(value: Any) -> str:
    try:
        return f"{float(value):.4g}"
    except (TypeError, ValueError):
        return str(value)


# ---------------------------------------------------------------------------------------------------------
# LRMonitor
# ---------------------------------------------------------------------------------------------------------


class LRMonitor(Callback):
    """Records, before every batch, the scheduled hyperparameters each param group trains that batch with.

    In ``on_batch_start`` (after the schedulers set the batch's values, before its forward pass) one row is
    recorded: ``batch``, ``epoch``, ``sample``, ``token`` (the timestamp's totals, i.e. the counts *before* this
    batch: the first batch is ``batch=0``) and ``"<key>/group<i>"`` = ``float(param_groups[i][key])`` for every
    key in ``trainer.scheduled_keys`` (or ``keys``, when given; ``lr`` when nothing is scheduled, so a run with a
    constant lr records it) and every param group ``i`` that has the key. 0-d tensor values are stored as
    floats. Only rank 0 records (others keep no rows and write no file).

    ``write_csv(path)`` writes the rows atomically (a temp file in the same folder, fsync, ``os.replace``):
    columns ``batch, epoch, sample, token``, then the value columns sorted by key name and then group number
    (``lr/group2`` before ``lr/group10``); a value a row lacks is an empty cell; floats are written with
    ``repr`` so they read back exactly.

    With ``csv_path``, the run's rows go to that file in the same format as the run goes: before each
    checkpoint (so a checkpoint never claims a row the file lacks) and at fit end. A run that starts after
    batch 0 (resumed from the checkpoint at batch ``b``) keeps the file's rows before ``b`` and appends, so a
    killed and resumed run writes the rows of an uninterrupted one (:mod:`trainer.records`, docs/resume.md).

    Args:
        keys: The param-group keys recorded (a str or several); None: the trainer's ``scheduled_keys``, or ``lr``
            when no scheduler is given (the optimizer's constant lr).
        csv_path: A CSV file the rows are written to as the run goes; None: none (call :meth:`write_csv`).

    Returns:
        The callback; read what it recorded with :attr:`rows`, :meth:`values` and :meth:`columns`.

    Raises:
        ValueError: ``csv_path`` cannot be written (naming it), checked at construction.

    >>> import os, tempfile, torch
    >>> from schedulers import LinearScheduler
    >>> from trainer import Trainer
    >>> model, monitor = torch.nn.Linear(2, 1), LRMonitor()
    >>> trainer = Trainer(model, [(torch.ones(4, 2), torch.zeros(4, 1))] * 2, "2ep",
    ...                   torch.optim.SGD(model.parameters(), lr=0.1), loss_fn=torch.nn.functional.mse_loss,
    ...                   schedulers=LinearScheduler(), callbacks=[monitor], progress_bar=False,
    ...                   print_schedule_report=False)
    >>> trainer.fit()
    >>> [round(lr, 4) for lr in monitor.values("lr")], monitor.columns()
    ([0.1, 0.075, 0.05, 0.025], ['batch', 'epoch', 'sample', 'token', 'lr/group0'])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     monitor.write_csv(os.path.join(folder, "lr.csv")).read_text().splitlines()[:2]
    ['batch,epoch,sample,token,lr/group0', '0,0,0,0,0.1']
    """

    COUNT_COLUMNS = COUNT_COLUMNS

    def __init__(self, *, keys: Iterable[str] | None = None, csv_path: str | os.PathLike | None = None) -> None:
        if isinstance(keys, str):
            keys = (keys,)
        self.keys = None if keys is None else tuple(keys)
        if csv_path is not None:  # written as the run goes: a bad place fails now, not at the first checkpoint
            check_writable("LRMonitor csv_path", csv_path, folder=False)
        self.csv_path = csv_path
        self._rows: list[dict[str, float | int]] = []
        self._active: bool | None = None  # whether this process records (rank 0), set at fit start
        self._file = None if csv_path is None else RowFile(csv_path, order=_column_order)
        self._unwritten: list[dict[str, float | int]] = []  # rows not in csv_path yet

    def on_fit_start(self, trainer: Any) -> None:
        self._active = _is_rank_zero(trainer)
        start = trainer.state.timestamp.count(TimeUnit.BATCH)
        if self._active and self._file is not None and start > 0:
            self._file.resume(start - 1)  # a row is stamped before its batch: the run goes on with row `start`

    def on_batch_start(self, trainer: Any) -> None:
        active = self._active
        if active is None:
            active = self._active = _is_rank_zero(trainer)
        if not active:
            return
        timestamp = trainer.state.timestamp
        row: dict[str, float | int] = {
            "batch": timestamp.count(TimeUnit.BATCH),
            "epoch": timestamp.count(TimeUnit.EPOCH),
            "sample": timestamp.count(TimeUnit.SAMPLE),
            "token": timestamp.count(TimeUnit.TOKEN),
        }
        keys = self.keys if self.keys is not None else (getattr(trainer, "scheduled_keys", ()) or ("lr",))
        groups = trainer.optimizer.param_groups
        for key in keys:
            for index, group in enumerate(groups):
                value = group.get(key)
                if value is not None:
                    row[f"{key}/group{index}"] = float(value)
        self._rows.append(row)
        if self._file is not None:
            self._unwritten.append(row)

    def on_before_checkpoint(self, trainer: Any) -> None:
        self._write_unwritten()

    def on_fit_end(self, trainer: Any) -> None:
        self._write_unwritten()
        if self._file is not None:
            self._file.close()

    def _write_unwritten(self) -> None:
        """Put the rows recorded since the last write into ``csv_path``, on disk (``fsync``)."""
        if self._file is None or not self._unwritten:
            return
        for row in self._unwritten:
            counts = [row[column] for column in self.COUNT_COLUMNS]
            self._file.add(counts, {name: value for name, value in row.items() if name not in self.COUNT_COLUMNS})
        self._unwritten.clear()
        self._file.flush()

    # -- reading ---------------------------------------------------------------------------------------
    @property
    def rows(self) -> list[dict[str, float | int]]:
        """The recorded rows, oldest first (a new list; one dict per batch)."""
        return list(self._rows)

    def columns(self) -> list[str]:
        """The CSV columns: the four counts, then every recorded value column, sorted by key and group.

        Returns:
            ``["batch", "epoch", "sample", "token", "lr/group0", ...]``.
        """
        seen: set[str] = set()
        for row in self._rows:
            seen.update(row)
        seen.difference_update(self.COUNT_COLUMNS)
        return list(self.COUNT_COLUMNS) + sorted(seen, key=_column_order)

    def values(self, key: str, group: int = 0) -> list[float]:
        """``key``'s value for param group ``group`` at every recorded batch that had it.

        Args:
            key: The hyperparameter (``"lr"``, ``"weight_decay"``, ...).
            group: The param group's index.

        Returns:
            The values, oldest first (empty when nothing was recorded).

        Raises:
            KeyError: Rows were recorded but none has ``key`` for ``group`` (the error lists the columns).
        """
        column = f"{key}/group{group}"
        values = [row[column] for row in self._rows if column in row]
        if not values and self._rows:
            known = [name for name in self.columns() if name not in self.COUNT_COLUMNS]
            raise KeyError(f"LRMonitor recorded no {column!r}; recorded columns: {', '.join(known) or 'none'}")
        return values

    def clear(self) -> None:
        """Forget the recorded rows."""
        self._rows.clear()

    # -- writing ---------------------------------------------------------------------------------------
    def write_csv(self, path: str | os.PathLike) -> Path | None:
        """Write the rows to ``path`` atomically and return it; on a rank other than 0, write nothing (None).

        Args:
            path: The CSV file (its folder is created).

        Returns:
            ``path`` as a Path, or None on a rank other than 0.
        """
        if self._active is False:
            return None
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        columns = self.columns()
        return write_table(path, columns, ([row.get(column) for column in columns] for row in self._rows))


def _column_order(column: str) -> tuple[str, int, str]:
    key, _, group = column.rpartition("/group")
    if key and group.isdigit():
        return (key, int(group), "")
    return (column, -1, column)
