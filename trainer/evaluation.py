"""Evaluation: the sample-weighted mean loss of a model over a loader, on every rank, without moving training's
random numbers, and the one path an evaluation takes to what listens.

``Trainer.evaluate`` measures ``eval/loss`` and delivers it as one
:class:`~schedulers.core.listening.Evaluation` to every
:class:`~schedulers.core.listening.EvaluationListener` of the run (:func:`deliver`): the callbacks' ``on_eval``,
the compiled schedules that listen, torch's ``ReduceLROnPlateau`` and ``EarlyStopping`` alike. The trainer
checks each listener at its construction by what the protocol exposes (:func:`check_listener`), and knows no
listener's class (docs/plateau.md)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import torch

from schedulers.core.listening import Evaluation, EvaluationListener
from schedulers.core.names import did_you_mean
from trainer import distributed
from trainer.data import rng_neutral_iter, to_device
from trainer.distributed import World
from trainer.training import batch_loss

__all__ = ["EVAL_METRICS", "check_listener", "check_monitor", "deliver", "mean_loss"]

#: The metrics an evaluation logs (``Trainer.evaluate``): what a plateau or early stopping may monitor.
EVAL_METRICS = ("eval/loss",)


def mean_loss(
    model: torch.nn.Module,
    loader: Iterable,
    loss_fn: Callable | None,
    *,
    device: torch.device,
    get_num_samples: Callable[[Any], int],
    world: World,
) -> float:
    """The loss of ``model`` over ``loader``, each item weighted by its samples, summed over every rank.

    .. math:: \\bar L = \\frac{\\sum_i n_i L_i}{\\max(1, \\sum_i n_i)}

    The model is evaluated in ``eval()`` mode without gradients, then put back in the mode it was in; the
    loader is iterated without touching the global torch RNG, so evaluating never shifts training's random
    numbers.

    Args:
        model: The model (DDP-wrapped when distributed).
        loader: The items to evaluate: ``(inputs, targets)`` pairs, or whatever ``model`` takes without ``loss_fn``.
        loss_fn: ``loss_fn(model(inputs), targets)``; None when ``model(item)`` returns the loss.
        device: Where each item goes.
        get_num_samples: The samples of an item (its weight).
        world: This process's place in the run (the sums are all-reduced over its ranks).

    Returns:
        The mean loss, as a Python float (0.0 over an empty loader).

    Raises:
        TypeError: an item is not an ``(inputs, targets)`` pair (with ``loss_fn``), or a loss is not a 0-d tensor.

    Example:
        >>> import torch
        >>> from trainer.data import count_samples
        >>> from trainer.distributed import World
        >>> model = torch.nn.Linear(1, 1, bias=False)
        >>> _ = torch.nn.init.ones_(model.weight)
        >>> items = [(torch.ones(3, 1), torch.zeros(3, 1)), (torch.ones(1, 1), torch.ones(1, 1))]
        >>> mean_loss(model, items, torch.nn.functional.mse_loss, device=torch.device("cpu"),
        ...           get_num_samples=count_samples, world=World(0, 1, 0))  # (3·1 + 1·0) / 4
        0.75
    """
    was_training = model.training
    model.eval()
    total = torch.zeros((), dtype=torch.float64)
    count = 0
    with torch.no_grad():
        for item in rng_neutral_iter(loader):  # evaluating never shifts training's RNG
            item = to_device(item, device)
            samples = get_num_samples(item)
            total += batch_loss(model, item, loss_fn).double().cpu() * samples
            count += samples
    if world.size > 1:
        total, count = distributed.sum_eval(total, count, device)
    model.train(was_training)
    return float(total) / max(count, 1)


def check_monitor(who: str, monitor: str, eval_interval: object) -> None:
    """The one check of something that listens to evaluations: the run evaluates, and logs ``monitor``.

    Args:
        who: What listens, as the error names it (``schedulers[0] (PlateauScheduler)``, ``EarlyStopping``).
        monitor: The metric it listens to.
        eval_interval: The run's evaluation interval (None: it never evaluates).

    Raises:
        ValueError: A metric the run never logs (naming those it logs), or a run without evaluations (naming
            the argument to set).

    Example:
        >>> try:
        ...     check_monitor("EarlyStopping", "val_loss", "100ba")
        ... except ValueError as error:
        ...     print(str(error).split("; ")[1])
        it logs eval/loss (did you mean 'eval/loss'?)
    """
    _check_logged(who, monitor)
    if eval_interval is None:
        raise ValueError(
            f"{who} listens to {monitor} at each evaluation, but this run never evaluates: set eval_interval "
            "and eval_dataloader"
        )


def _check_logged(who: str, monitor: str) -> None:
    if monitor not in EVAL_METRICS:
        hint = did_you_mean(monitor, EVAL_METRICS, quote=True)
        raise ValueError(
            f"{who}: monitor={monitor!r} is not a metric this run logs; it logs {', '.join(EVAL_METRICS)}{hint}"
        )


def check_listener(listener: EvaluationListener, eval_interval: object, max_duration: object = None) -> None:
    """The check at the start of a run of one listener, by what it exposes: each metric it reads is one the run
    logs, and a listener that needs evaluations is in a run that evaluates before its end (one evaluation, at
    the end, can change nothing: a first value always improves).

    Args:
        listener: An :class:`~schedulers.core.listening.EvaluationListener`.
        eval_interval: The run's evaluation interval (None: it never evaluates).
        max_duration: The run's length (None: not checked against it).

    Raises:
        ValueError: In one line, as :func:`check_monitor`, or a run that evaluates only at its end.

    Example:
        >>> from trainer import EarlyStopping
        >>> try:
        ...     check_listener(EarlyStopping(), None)
        ... except ValueError as error:
        ...     print(error)
        EarlyStopping listens to eval/loss at each evaluation, but this run never evaluates: set eval_interval \
and eval_dataloader
    """
    for monitor in listener.monitors:
        if listener.needs_evaluations:
            check_monitor(listener.listener_name, monitor, eval_interval)
        else:
            _check_logged(listener.listener_name, monitor)
    if listener.needs_evaluations and _only_at_the_end(eval_interval, max_duration):
        raise ValueError(
            f"{listener.listener_name} listens to {', '.join(listener.monitors)} at each evaluation, but this run "
            f"evaluates only at its end (every {eval_interval} of {max_duration}), which can change nothing: set "
            "eval_interval and eval_dataloader to evaluate during the run"
        )


def deliver(
    evaluation: Evaluation,
    listeners: Iterable[EvaluationListener],
    *,
    stop: Callable[[str], None],
    say: Callable[[str], None],
) -> list[str]:
    """The one path of an evaluation: every listener hears it, in order; what they decide is said or acted on.

    Args:
        evaluation: The evaluation (its metrics, its time, whether it counts).
        listeners: What hears it.
        stop: Called with the line of a decision that ends the run (the trainer's ``request_stop``).
        say: Called with the line of any other decision (a plateau's reduction), for the user.

    Returns:
        The lines of the decisions that did not stop the run.

    Example:
        >>> from schedulers.core.listening import Decision
        >>> class Halves:
        ...     listener_name, monitors, needs_evaluations = "Halves", ["eval/loss"], True
        ...     def hear(self, evaluation):
        ...         return Decision("halved")
        >>> deliver(Evaluation({"eval/loss": 1.0}), [Halves()], stop=print, say=print)
        halved
        ['halved']
    """
    said = []
    for listener in listeners:
        decision = listener.hear(evaluation)
        if decision is None:
            continue
        if decision.stops:
            stop(decision.line)
        else:
            say(decision.line)
            said.append(decision.line)
    return said


def _only_at_the_end(eval_interval: Any, max_duration: Any) -> bool:
    """Whether an interval in the run's own unit reaches its end at the first evaluation."""
    if eval_interval is None or max_duration is None or getattr(eval_interval, "unit", None) != max_duration.unit:
        return False
    return eval_interval.value >= max_duration.value
