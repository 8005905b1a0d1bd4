"""SambaFlow's learning-rate flags: ``add_lr_schedule_args(parser)`` and ``get_lr_scheduler(optimizer, args)``.

| flag | type | when not given |
| --- | --- | --- |
| ``--learning_rate`` | float | the optimizer's lr is kept |
| ``--lr_schedule`` | one of the three names | required by ``get_lr_scheduler`` |
| ``--warmup_steps`` | int | 0 (no warmup) |
| ``--max_steps`` | int | required by the two decaying schedules |
| ``--steps_this_run`` | int | ``--max_steps`` |
| ``--end_lr_ratio`` | float | 0.1 (cosine) / 0.0 (polynomial) |

A float is a finite number and an int a whole one, read as every Cadence command line reads them
(``1e3`` is a count); ``nan``, or ``2.5`` for a count, is a parser error naming the flag.
Every flag defaults to ``None`` in the parser, so a caller can tell a flag that was given from one that
was not (the trainer's CLI lets SambaFlow flags override a YAML config only when given); the table's
last column is what :func:`get_lr_scheduler` and :func:`steps_this_run` use in place of ``None``.

>>> import argparse, torch
>>> parser = add_lr_schedule_args(argparse.ArgumentParser())
>>> args = parser.parse_args("--learning_rate 0.5 --lr_schedule polynomial_decay_schedule_with_warmup "
...                          "--warmup_steps 2 --max_steps 10 --steps_this_run 4".split())
>>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
>>> sched = get_lr_scheduler(opt, args)
>>> opt.param_groups[0]["lr"], steps_this_run(args)
(0.0, 4)
"""

from __future__ import annotations

import argparse
import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import torch
from torch.optim import Optimizer

from schedulers.core.names import get_scheduler
from schedulers.core.schedule_arguments import (
    choice_problem,
    count_flag,
    integer_argument,
    number_argument,
    number_flag,
)
from schedulers.families.sambaflow import fraction_argument
from schedulers.sambaflow.schedules import (
    LambdaLR,
    cosine_schedule_with_warmup,
    fixed_lr,
    polynomial_decay_schedule_with_warmup,
)

__all__ = ["LR_SCHEDULES", "add_lr_schedule_args", "get_lr_scheduler", "steps_this_run"]

# SambaFlow's schedule names: the registered names of the three schedules (family "sambaflow")
LR_SCHEDULES = tuple(
    schedule.__name__ for schedule in (cosine_schedule_with_warmup, polynomial_decay_schedule_with_warmup, fixed_lr)
)

# flag -> (type, choices, help); a number or count is read as every Cadence command line reads one (1e3 is a
# count), its range checked by get_lr_scheduler, which also takes flags from a mapping
_FLAGS: dict[str, tuple[Any, tuple[str, ...] | None, str]] = {
    "--learning_rate": (
        number_flag("--learning_rate"),
        None,
        "peak learning rate of a schedule with warmup, or the flat rate with fixed_lr (default: the optimizer's lr)",
    ),
    "--lr_schedule": (str, LR_SCHEDULES, "learning-rate schedule"),
    "--warmup_steps": (
        count_flag("--warmup_steps"),
        None,
        "steps of linear warmup from 0 to --learning_rate; 0 means no warmup (default: 0)",
    ),
    "--max_steps": (
        count_flag("--max_steps"),
        None,
        "steps over which the lr decays: the schedule's horizon, and the run length unless --steps_this_run is given",
    ),
    "--steps_this_run": (
        count_flag("--steps_this_run"),
        None,
        "training steps this run actually takes (default: --max_steps); the lr still decays over --max_steps",
    ),
    "--end_lr_ratio": (
        number_flag("--end_lr_ratio"),
        None,
        "fraction of the peak lr the decay ends at (default: 0.1 for cosine_schedule_with_warmup, "
        "0.0 for polynomial_decay_schedule_with_warmup)",
    ),
}


def add_lr_schedule_args(
    parser: argparse.ArgumentParser, *, extra_schedules: Iterable[str] = ()
) -> argparse.ArgumentParser:
    """Add SambaFlow's learning-rate flags to ``parser`` (or an argument group) and return it.

    ``--lr_schedule`` accepts the three SambaFlow names plus ``extra_schedules``: names of your own
    schedules, which your code builds (``get_lr_scheduler`` builds only the three).

    A flag the parser already has is left alone, so a model that defines its own ``--learning_rate``
    or ``--max_steps`` keeps its definition (type, default, help); it must store into the same
    attribute (``dest``), else this raises a ``ValueError`` naming the flag, since
    :func:`get_lr_scheduler` reads ``args.<flag name>``.

    Args:
        parser: The ``argparse`` parser (or argument group) the flags are added to.
        extra_schedules: Names of your own schedules ``--lr_schedule`` also accepts.

    Returns:
        ``parser``, with the flags it did not have yet.

    Raises:
        ValueError: ``parser`` already has one of the flags, storing into another attribute.

    >>> import argparse
    >>> parser = add_lr_schedule_args(argparse.ArgumentParser())
    >>> args = parser.parse_args(["--lr_schedule", "fixed_lr", "--learning_rate", "0.1"])
    >>> args.lr_schedule, args.learning_rate
    ('fixed_lr', 0.1)
    """
    existing = getattr(parser, "_option_string_actions", {})
    for flag, (kind, choices, help_text) in _FLAGS.items():
        if choices is not None:
            choices = tuple(dict.fromkeys((*choices, *extra_schedules)))
        dest = flag[2:]
        action = existing.get(flag)
        if action is not None:
            if action.dest != dest:
                raise ValueError(
                    f"the parser already has {flag} storing into args.{action.dest}; "
                    f"get_lr_scheduler reads args.{dest}: remove that flag or give it dest={dest!r}"
                )
            continue
        parser.add_argument(flag, type=kind, choices=choices, default=None, help=help_text)
    return parser


def get_lr_scheduler(optimizer: Optimizer, args: Any) -> LambdaLR:
    """The schedule ``args.lr_schedule`` on ``optimizer``, built from SambaFlow's flags.

    ``args`` is an ``argparse.Namespace`` (or any object with those attributes, or a mapping).
    ``--learning_rate``, when given, becomes ``lr`` and ``initial_lr`` of every param group (the peak);
    ``--max_steps`` is ``num_training_steps``; ``--steps_this_run`` does not change the schedule (see
    :func:`steps_this_run`). The returned scheduler is stepped once per optimizer step.

    Args:
        optimizer: The optimizer whose param groups the schedule drives.
        args: The parsed flags (``lr_schedule``, ``learning_rate``, ``warmup_steps``, ``max_steps``,
            ``end_lr_ratio``, ``steps_this_run``).

    Returns:
        The SambaFlow ``LambdaLR`` of the schedule ``--lr_schedule`` names.

    Raises:
        ValueError: A missing or unknown ``--lr_schedule``, a decaying schedule without ``--max_steps``, or a
            flag out of its range.

    >>> import argparse, torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> args = argparse.Namespace(lr_schedule="polynomial_decay_schedule_with_warmup", learning_rate=0.1,
    ...                           warmup_steps=2, max_steps=10, end_lr_ratio=None, steps_this_run=None)
    >>> sched = get_lr_scheduler(opt, args)
    >>> opt.param_groups[0]["lr"], sched.lr_lambdas[0](2)
    (0.0, 1.0)
    """
    schedule = _schedule(_get(args, "lr_schedule"))
    learning_rate = _get(args, "learning_rate")
    warmup = _count(args, "warmup_steps", default=0)
    max_steps = _count(args, "max_steps", default=None)
    steps_this_run(args)  # validate it here too, so a bad flag fails before training starts
    arguments = {}
    end_ratio = inspect.signature(schedule).parameters.get("end_ratio")
    if end_ratio is not None:  # a decaying schedule: its horizon and end ratio
        name = schedule.__name__
        if max_steps is None:
            raise ValueError(f"--max_steps is required with --lr_schedule {name}")
        if warmup > max_steps:
            raise ValueError(f"--warmup_steps {warmup} must not exceed --max_steps {max_steps}")
        ratio = _get(args, "end_lr_ratio")
        if ratio is None:
            ratio = end_ratio.default  # the schedule's own default: one place says what it is
        else:
            ratio = fraction_argument("--end_lr_ratio", ratio)
        arguments = {"num_warmup_steps": warmup, "num_training_steps": max_steps, "end_ratio": ratio}
    if learning_rate is not None:
        _set_peak(optimizer, learning_rate)
    return schedule(optimizer, **arguments)


def _schedule(name: Any) -> Callable[..., LambdaLR]:
    """The schedule ``--lr_schedule`` names, from the registry: one of :data:`LR_SCHEDULES` (any case)."""
    if name is None:
        raise ValueError(f"--lr_schedule is required: one of {', '.join(LR_SCHEDULES)}")
    key = name.strip().lower() if isinstance(name, str) else name
    problem = choice_problem(key, LR_SCHEDULES)
    if problem is not None:
        raise ValueError(
            f"--lr_schedule {name!r} {problem}: get_lr_scheduler builds only these; "
            "build your own schedules in your code"
        )
    return get_scheduler(key, family="sambaflow")


def steps_this_run(args: Any) -> int | None:
    """The number of optimizer steps this run takes: ``--steps_this_run``, else ``--max_steps``, else None.

    Args:
        args: The parsed flags (``steps_this_run`` and ``max_steps`` are read).

    Returns:
        The step count, or None when neither flag is given.

    Raises:
        ValueError: A flag that is not a whole number of steps.

    >>> import argparse
    >>> steps_this_run(argparse.Namespace(max_steps=1000, steps_this_run=None))
    1000
    >>> steps_this_run(argparse.Namespace(max_steps=1000, steps_this_run=250))
    250
    """
    run = _count(args, "steps_this_run", default=None)
    return run if run is not None else _count(args, "max_steps", default=None)


def _get(args: Any, name: str) -> Any:
    if isinstance(args, Mapping):
        return args.get(name)
    return getattr(args, name, None)


def _count(args: Any, name: str, *, default: int | None) -> int | None:
    value = _get(args, name)
    if value is None:
        return default
    return integer_argument(f"--{name}", value, low=0)


def _set_peak(optimizer: Optimizer, learning_rate: Any) -> None:
    """Make ``learning_rate`` the peak of every param group: ``lr`` and ``initial_lr`` (the schedule's base)."""
    learning_rate = number_argument("--learning_rate", learning_rate, low=0.0, text=True)
    for group in optimizer.param_groups:
        if isinstance(group["lr"], torch.Tensor):
            group["lr"].fill_(learning_rate)  # a tensor lr stays the same tensor (compiled steps keep it)
            group["initial_lr"] = group["lr"].clone()
        else:
            group["lr"] = learning_rate
            group["initial_lr"] = learning_rate
