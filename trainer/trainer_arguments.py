"""The trainer's arguments checked and converted: each helper names the argument it rejects.

Also the one place that knows the trainer's keyword names: an unknown keyword is a TypeError suggesting
the closest accepted one (``did_you_mean``), and Composer's spelling ``optimizers=`` is accepted for
``optimizer=``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from typing import Any

import torch

from schedulers.core.names import did_you_mean
from schedulers.core.run import as_max_duration
from schedulers.core.schedule_arguments import integer_argument
from schedulers.optim import configure_optimizer
from timeunits import Time, TimeUnit
from trainer.data import count_samples

__all__ = [
    "NONFINITE_LOSS_ACTIONS",
    "build_optimizer",
    "constant_batch_size",
    "dataloader_len",
    "no_length_message",
    "nonfinite_loss_action",
    "one_optimizer",
    "optional_count",
    "reject_unknown_keywords",
    "run_time",
]

NONFINITE_LOSS_ACTIONS = ("raise", "warn")


def reject_unknown_keywords(unknown: dict[str, Any], accepted: Iterable[str]) -> None:
    """Refuse the keywords the trainer does not take: a TypeError for the first, suggesting the closest accepted.

    Args:
        unknown: The keywords given that the trainer does not take, with their values.
        accepted: Every keyword the trainer takes.

    Returns:
        None when ``unknown`` is empty.

    Raises:
        TypeError: A keyword the trainer does not take, with "did you mean" and the accepted ones.

    >>> reject_unknown_keywords({"max_duraton": "1ep"}, ["max_duration", "model"])
    Traceback (most recent call last):
    ...
    TypeError: Trainer() got an unexpected keyword argument 'max_duraton' (did you mean 'max_duration'?);
    it accepts max_duration, model
    """
    if not unknown:
        return
    name = sorted(unknown)[0]
    accepted = sorted(accepted)
    raise TypeError(
        f"Trainer() got an unexpected keyword argument {name!r}{did_you_mean(name, accepted, quote=True)}; "
        f"it accepts {', '.join(accepted)}"
    )


def one_optimizer(optimizer: Any, optimizers: Any) -> Any:
    """The one optimizer given: ``optimizer=``, or Composer's ``optimizers=`` (one, or a list or tuple of one).

    Args:
        optimizer: The ``optimizer=`` argument, or None.
        optimizers: The ``optimizers=`` argument, or None.

    Returns:
        The optimizer (or what builds it: a callable, a name).

    Raises:
        TypeError: Neither given, or both.
        ValueError: ``optimizers=`` holds more or fewer than one.

    >>> one_optimizer(None, ["AdamW"])
    'AdamW'
    """
    if optimizers is None:
        if optimizer is None:
            raise TypeError(
                "Trainer() needs optimizer=: a torch optimizer, a callable model -> optimizer, "
                "or a name such as 'AdamW'"
            )
        return optimizer
    if optimizer is not None:
        raise TypeError("Trainer() got both optimizer= and optimizers= (Composer's spelling of it): give one")
    if isinstance(optimizers, (list, tuple)):
        if len(optimizers) != 1:
            raise ValueError(f"optimizers= holds {len(optimizers)} optimizers; the trainer trains with exactly one")
        return optimizers[0]
    return optimizers


def nonfinite_loss_action(value: Any) -> str:
    """``on_nonfinite_loss`` checked: ``"raise"`` or ``"warn"``.

    Args:
        value: The ``on_nonfinite_loss`` argument.

    Returns:
        ``value``, one of :data:`NONFINITE_LOSS_ACTIONS`.

    Raises:
        ValueError: Anything else, naming the accepted values.

    >>> nonfinite_loss_action("warn")
    'warn'
    """
    if value not in NONFINITE_LOSS_ACTIONS:
        raise ValueError(f"on_nonfinite_loss={value!r} must be 'raise' (stop training) or 'warn' (warn and go on)")
    return value


def optional_count(name: str, value: Any) -> int | None:
    """A count that may be left out (``save_num_checkpoints_to_keep``): an int >= 1, or None.

    Args:
        name: The argument's name, for the message.
        value: Its value.

    Returns:
        ``value`` as an int once checked (None keeps every checkpoint), or None.

    Raises:
        ValueError: Not an integer >= 1 nor None, naming the argument.

    >>> optional_count("save_num_checkpoints_to_keep", 3), optional_count("save_num_checkpoints_to_keep", None)
    (3, None)
    """
    return integer_argument(name, value, low=1, optional=True, why="keep every checkpoint")


def run_time(value: Any, name: str = "max_duration") -> Time:
    """A run's length as the trainer takes it: a Time or time string, or an int of epochs (as Composer).

    Args:
        value: The length given.
        name: The argument's name, for the message.

    Returns:
        The length, a Time in ``ep``, ``ba``, ``sp`` or ``tok``.

    Raises:
        ValueError: A length that cannot be a run's (its message names ``name``).

    >>> run_time(3), run_time("100ba")
    (Time(3, TimeUnit.EPOCH), Time(100, TimeUnit.BATCH))
    """
    if isinstance(value, int) and not isinstance(value, bool):
        value = Time(value, TimeUnit.EPOCH)  # Composer: an int means epochs
    return as_max_duration(value, name)


def dataloader_len(loader: Iterable, grad_accum: int) -> int | None:
    """Optimizer steps per epoch: the loader's items over ``grad_accum`` (a remainder is dropped, with a warning).

    Args:
        loader: The train loader.
        grad_accum: Loader items per optimizer step.

    Returns:
        The steps per epoch, or None when the loader has no length (epochs end when it runs out).

    Raises:
        ValueError: The loader has fewer items than ``grad_accum``.

    >>> dataloader_len(range(12), 3), dataloader_len(iter(range(12)), 3)
    (4, None)
    """
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
            stacklevel=4,
        )
    return batches


def no_length_message(error: Exception, loader: Iterable) -> str:
    """The clock's "needs dataloader_len" error said to a Trainer or YAML user, whose epochs have no length
    because the train loader has none (:func:`dataloader_len` is None).

    Args:
        error: The error naming the time that needed batches per epoch (``"schedulers[0]: t_warmup=1ep needs
            dataloader_len ..."``).
        loader: The train loader.

    Returns:
        One line: the time, the loader without a length, and what to do.

    >>> no_length_message(ValueError("t_warmup=1ep needs dataloader_len (batches per epoch)"), iter([]))
    "t_warmup=1ep needs the batches of an epoch, but the train dataloader (list_iterator) has no len(): give \
max_duration and the schedules' times in ba, sp or tok, or a train dataloader with a length"
    """
    what = str(error).split(" needs dataloader_len", 1)[0]
    dataset = getattr(loader, "dataset", None)
    name = type(loader).__name__ + ("" if dataset is None else f" over {type(dataset).__name__}")
    return (
        f"{what} needs the batches of an epoch, but the train dataloader ({name}) has no len(): give max_duration "
        "and the schedules' times in ba, sp or tok, or a train dataloader with a length"
    )


def constant_batch_size(
    loader: Iterable, grad_accum: int, world_size: int, get_num_samples: Callable[[Any], int]
) -> int | None:
    """Samples per optimizer step when every batch has the same size (known without reading data), else None.

    Args:
        loader: The train loader.
        grad_accum: Loader batches per optimizer step.
        world_size: The number of ranks (several: None, since each rank counts its own).
        get_num_samples: The trainer's sample counter (another than the default: None).

    Returns:
        ``batch_size · grad_accum``, or None when a batch's size is not known in advance.

    >>> import torch
    >>> loader = torch.utils.data.DataLoader(list(range(8)), batch_size=4)
    >>> constant_batch_size(loader, 2, 1, count_samples)
    8
    """
    batch_size = getattr(loader, "batch_size", None)
    if not batch_size or world_size != 1 or get_num_samples is not count_samples:
        return None
    try:
        even = getattr(loader, "drop_last", False) or len(loader.dataset) % batch_size == 0
    except (AttributeError, TypeError):
        even = False  # an iterable dataset: its last batch may be short
    return batch_size * grad_accum if even else None


def build_optimizer(optimizer: Any, model: torch.nn.Module) -> torch.optim.Optimizer:
    """The trainer's optimizer: given, built by name (:func:`schedulers.optim.configure_optimizer`), or by a callable.

    Args:
        optimizer: A torch optimizer, a name (``"AdamW"``), ``{Name: {arguments}}``, or a callable model ->
            optimizer.
        model: The model whose parameters a built optimizer trains.

    Returns:
        ``optimizer`` itself when it is one; else the one built by name on ``model.parameters()``, or what the
        callable returned for ``model``.

    Raises:
        ValueError: A dict that does not name one optimizer, or what :func:`configure_optimizer` raises.
        TypeError: Anything else, or a callable that does not return an optimizer.

    >>> model = torch.nn.Linear(2, 1)
    >>> type(build_optimizer({"SGD": {"lr": 0.1}}, model)).__name__
    'SGD'
    """
    if isinstance(optimizer, torch.optim.Optimizer):
        return optimizer
    if isinstance(optimizer, (str, dict)):
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
