"""What every integration shares: the framework imported lazily, its callback class made once, and the one
adapter through which the framework's events reach a Cadence scheduler.

Another training loop (Hugging Face's ``Trainer``, Lightning's) owns time; Cadence hears four events from it,
and each integration's callback only translates its hooks into them (docs/integrations.md):

* **an optimizer step finished**: :meth:`FrameworkClock.optimizer_step` moves the scheduler's
  :class:`~schedulers.core.clock.Clock` one batch by the one clock rule (the step that completes an epoch
  closes it), or to the framework's step count when it is elsewhere (a resume);
* **a batch is about to train**: :meth:`FrameworkClock.before_batch` brings the clock to the run's batch count
  and writes the schedule's values for it unless the scheduler's ``step()`` already did: a scheduler reads the
  run's clock, not the number of its own ``step()`` calls, so an optimizer that skips batches (a GAN's 1:2
  ratio, accumulation by hand, a step the fp16 scaler skipped) trains each batch with its schedule at that batch;
* **an epoch began**: :meth:`FrameworkClock.epoch_begins` closes the epochs before it that the clock rule
  has not (an epoch of unknown length, or one the framework ended sooner); the values written after the
  epoch's last step were for the epoch before, so the epoch's first batch is written for anew
  (:meth:`FrameworkClock.refresh`), as when the step that completes ``dataloader_len`` steps closes it;
* **an evaluation finished**: :meth:`FrameworkClock.evaluation` delivers its metrics as one
  :class:`~schedulers.core.listening.Evaluation` through the listener protocol, so a plateau reduces exactly
  as under Cadence's trainer (and hears it once: a user's own ``observe()`` at the same time is ignored, with a
  warning); a metric may be named the framework's way or Cadence's (``eval_loss`` is ``eval/loss``).

A scheduler that listens in a run whose framework never evaluates is refused at the start in one line
(:func:`refuse_deaf`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from schedulers.core.clock import Clock, after_batches
from schedulers.core.listening import Decision, Evaluation

__all__ = ["FrameworkClock", "callback_class", "check_counters", "import_framework", "named_both_ways", "refuse_deaf"]

_CLASSES: dict[tuple[str, str], type] = {}


def import_framework(packages: tuple[str, ...], *, integration: str, hint: str) -> Any:
    """The first of ``packages`` that imports, or an ImportError saying what to install.

    Args:
        packages: The module names to try, in order (``("lightning.pytorch", "pytorch_lightning")``).
        integration: The Cadence module that needs it, as the error names it.
        hint: The install command.

    Returns:
        The imported module.

    Raises:
        ImportError: None of them is installed; a package that is installed but fails to import raises its own
            error unchanged.

    >>> import_framework(("math",), integration="example", hint="nothing").__name__
    'math'
    """
    for name in packages:
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name not in (name, name.split(".")[0]):
                raise  # the framework is there but broken: show the real error
    raise ImportError(
        f"{integration} needs {packages[-1].split('.')[0]}, which is not installed: {hint}. "
        "Cadence's test extra installs it (pip install -e '.[test]')."
    )


def callback_class(name: str, behaviour: type, base: type, *, module: str, doc: str, **extra: Any) -> type:
    """The class ``name`` with ``behaviour`` (free of the framework) and the framework's callback ``base``, made
    once per ``(module, base)``.

    Args:
        name: The class name users see (``"CadenceTrainerCallback"``).
        behaviour: The class that does the work.
        base: The framework's callback class.
        module: The module the class claims (for pickling and docs).
        doc: Its docstring.
        **extra: More class attributes.

    Returns:
        The class (the same object on every call with the same module and base).

    >>> class Hooks:
    ...     pass
    >>> first = callback_class("Example", Hooks, object, module=__name__, doc="An example.")
    >>> first is callback_class("Example", Hooks, object, module=__name__, doc="An example."), first.__mro__[1]
    (True, <class 'schedulers.integrations.framework.Hooks'>)
    """
    key = (module, f"{base.__module__}.{base.__qualname__}")
    if key not in _CLASSES:
        _CLASSES[key] = type(name, (behaviour, base), {"__module__": module, "__doc__": doc, **extra})
    return _CLASSES[key]


def check_counters(of: str, **counters: Any) -> None:
    """Each counter given (``get_num_samples=``, ``get_num_tokens=``) is callable.

    Args:
        of: What a counter takes (``"batch"``, ``"inputs"``), for the message.
        **counters: The counters by argument name (None: not given).

    Raises:
        TypeError: One that is not callable, naming it.

    >>> check_counters("batch", get_num_samples=len, get_num_tokens=None)
    """
    for argument, value in counters.items():
        if value is not None and not callable(value):
            raise TypeError(f"{argument} must be a callable {of} -> int, got {value!r}")


def named_both_ways(metrics: Mapping[str, Any], prefix: str = "eval_") -> dict[str, float]:
    """An evaluation's scalar metrics under the framework's names and Cadence's: ``eval_loss`` is also
    ``eval/loss`` (and ``eval/loss`` also ``eval_loss``); values that are not numbers are left out.

    Args:
        metrics: The framework's metrics (floats, ints or 0-d tensors).
        prefix: The framework's prefix of an evaluation metric (Hugging Face's ``eval_``).

    Returns:
        The metrics as floats, each under both names.

    >>> named_both_ways({"eval_loss": 0.5, "epoch": 1, "note": "x"})
    {'eval_loss': 0.5, 'epoch': 1.0, 'eval/loss': 0.5}
    """
    found: dict[str, float] = {}
    for name, value in metrics.items():
        try:
            found[name] = float(value)
        except (TypeError, ValueError, RuntimeError):
            continue
    for name, value in list(found.items()):
        if name.startswith(prefix):
            found.setdefault("eval/" + name[len(prefix) :], value)
        elif name.startswith("eval/"):
            found.setdefault(prefix + name[len("eval/") :], value)
    return found


def refuse_deaf(scheduler: Any, *, evaluates: bool, how: str) -> None:
    """The check at the start of a framework's run: a scheduler that listens needs evaluations.

    Args:
        scheduler: The compiled scheduler (an :class:`~schedulers.core.listening.EvaluationListener`).
        evaluates: Whether the framework's run evaluates.
        how: What to set so that it does, for the message.

    Raises:
        ValueError: In one line, when it listens and the run never evaluates.

    >>> import torch
    >>> from schedulers import PlateauScheduler, SchedulerState, compile_scheduler
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> try:
    ...     refuse_deaf(compile_scheduler(PlateauScheduler(), opt, SchedulerState("9ba")), evaluates=False, how="x")
    ... except ValueError as error:
    ...     print(error)
    PlateauScheduler(...) listens to eval/loss at each evaluation, but this run never evaluates: x
    """
    if evaluates or not getattr(scheduler, "needs_evaluations", False):
        return
    schedule = type(scheduler.scheduler).__name__
    raise ValueError(
        f"{schedule}(...) listens to {', '.join(scheduler.monitors)} at each evaluation, but this run never "
        f"evaluates: {how}"
    )


class FrameworkClock:
    """The one adapter from a framework's events to a compiled scheduler whose state is a
    :class:`~schedulers.core.clock.Clock`: an optimizer step, an epoch, an evaluation.

    Args:
        scheduler: The compiled scheduler (its ``state`` the clock the framework drives).
        door: The integration, as the warning about an evaluation fed twice names it
            (``"the Hugging Face integration"``).

    Returns:
        The adapter.

    >>> import torch
    >>> from schedulers import LinearScheduler, compile_scheduler
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> door = FrameworkClock(compile_scheduler(LinearScheduler(), opt, Clock("4ba", 2)))
    >>> door.optimizer_step(1); door.optimizer_step(3); door.clock.timestamp.batch, door.clock.timestamp.epoch
    (Time(3, TimeUnit.BATCH), Time(1, TimeUnit.EPOCH))
    """

    def __init__(self, scheduler: Any, door: str = "an integration") -> None:
        self.scheduler, self.door = scheduler, door
        self.current = True  # the scheduler's values are those of the clock's time (written since it last moved)

    @property
    def clock(self) -> Clock:
        """The clock the framework drives (the scheduler's state)."""
        return self.scheduler.state

    def optimizer_step(self, batches: int, samples: int = 0, tokens: int = 0) -> None:
        """The framework finished the optimizer step that brought it to ``batches`` steps.

        Args:
            batches: The framework's step count after it.
            samples: The samples it trained on.
            tokens: The tokens it trained on.
        """
        clock = self.clock
        if clock.batches == batches:  # counted already (a second scheduler.step() at the same step)
            return
        self.current = False
        if clock.batches == batches - 1:
            clock.advance(samples, tokens)  # the one clock rule: closes the epoch the step completes
        else:  # not where the framework was (a resume): take its step count
            clock.timestamp = after_batches(
                batches, clock.dataloader_len, clock.samples + samples, clock.tokens + tokens
            )

    def wrote(self) -> None:
        """The scheduler wrote its values for the clock's time (its ``step()``, or a load): they are current."""
        self.current = True

    def before_batch(self, batches: int, samples: int = 0, tokens: int = 0) -> None:
        """The framework is about to train a batch with ``batches`` batches of the run done: the clock is
        brought there (:meth:`optimizer_step`) and, unless the scheduler's ``step()`` wrote since the clock
        last moved, the scheduler is stepped now, so this batch trains with the schedule at ``batches``.

        .. math:: \\text{lr}_{g,k} = s_g \\cdot \\alpha(k) \\quad \\text{for each batch } k \\text{ it trains}

        Args:
            batches: The run's batch count before this batch (the framework's clock).
            samples: The samples trained since the clock's last move (when it moves now).
            tokens: The tokens trained since then.

        >>> import torch
        >>> from schedulers import LinearScheduler, compile_scheduler
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> door = FrameworkClock(compile_scheduler(LinearScheduler(alpha_f=0.0), opt, Clock("8ba")))
        >>> door.before_batch(2); door.clock.batches, opt.param_groups[0]["lr"]  # its optimizer skipped 2 batches
        (2, 0.75)
        """
        self.optimizer_step(batches, samples, tokens)
        self.refresh()

    def refresh(self) -> None:
        """Write the schedule's values for the clock's time, unless the scheduler's ``step()`` wrote them since the
        clock last moved (what :meth:`before_batch` does once the clock is at the run's count).

        >>> import torch
        >>> from schedulers import LinearScheduler, compile_scheduler
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> door = FrameworkClock(compile_scheduler(LinearScheduler(alpha_f=0.0), opt, Clock("8ba")))
        >>> door.optimizer_step(1); opt.param_groups[0]["lr"], door.refresh(), opt.param_groups[0]["lr"]
        (1.0, None, 0.875)
        """
        if not self.current:
            self.scheduler.step()
            self.current = True

    def epoch_begins(self, epoch: int) -> None:
        """The framework begins its epoch ``epoch`` (counting from 0): the epochs before it are closed.

        The batch that completes ``dataloader_len`` batches already closed its epoch (the one clock rule), so
        this is a no-op then; an epoch of unknown length, or one the framework ended sooner, closes here, as
        ``clock.epoch()`` after each pass does in a plain loop. An epoch is never closed at the framework's
        epoch end: a run stopped mid-epoch (``max_steps``) keeps it open, for a resume.

        An epoch closed here leaves the values written after the last step stale (they read the epoch before: its
        end was known only when the framework began the next): the next :meth:`before_batch` or :meth:`refresh`
        writes them for the new epoch, so the epoch's first batch trains as if the epoch's length were known
        (docs/stepping.md, "A loader without a length").

        Args:
            epoch: The framework's index of the epoch it begins.

        >>> import torch
        >>> from schedulers import as_schedule, compile_scheduler
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> halves = as_schedule(lambda state: 0.5**state.timestamp.epoch.value)
        >>> door = FrameworkClock(compile_scheduler(halves, opt, Clock("9ba")))  # no epoch length
        >>> door.epoch_begins(0); door.optimizer_step(1); door.optimizer_step(2); door.epoch_begins(1)
        >>> door.clock.epochs, door.clock.batches, door.clock.batch_in_epoch, door.current
        (1, 2, 0, False)
        >>> door.before_batch(2); opt.param_groups[0]["lr"]  # the epoch's first batch: epoch 1's value
        0.5
        """
        clock = self.clock
        while clock.epochs < epoch:
            clock.timestamp = clock.timestamp.to_next_epoch()
            self.current = False

    def evaluation(self, metrics: Mapping[str, Any], *, counts: bool = True, who: str = "") -> Decision | None:
        """The framework finished an evaluation: deliver it to the scheduler through the listener protocol.

        Args:
            metrics: The framework's metrics (named its way; Cadence's names are added).
            counts: Whether the framework counts it (an evaluation during training).
            who: The framework's setting that names the metrics, for an error.

        Returns:
            What the scheduler decided (a reduction), or None.

        Raises:
            ValueError: In one line, a monitored metric that the evaluation lacks, naming those it has.
        """
        hear: Callable[[Evaluation], Decision | None] | None = getattr(self.scheduler, "hear", None)
        if hear is None or not getattr(self.scheduler, "needs_evaluations", False):
            return None
        named = named_both_ways(metrics)
        missing = [monitor for monitor in self.scheduler.monitors if monitor not in named]
        if missing and counts:
            raise ValueError(
                f"monitor={missing[0]!r} is not among this evaluation's metrics {sorted(named)}{who}: name one "
                "of them in the PlateauScheduler's monitor="
            )
        return hear(Evaluation(named, self.clock.timestamp, counts, door=self.door))
