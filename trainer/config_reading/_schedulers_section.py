"""``trainer.init.schedulers``, read by the one reader of the ``{Name: {arguments}}`` layout
(:func:`schedulers.core.schedule_config.read_schedule_config`), and what the trainer gets from it once the horizon is
known: Cadence schedules built now, schedulers built on the optimizer later (also a Cerebras 1.x
``optimizer.learning_rate`` schedule)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import torch
from torch.optim.lr_scheduler import LRScheduler

import schedulers.cerebras  # noqa: F401  (registers the Cerebras names)
import schedulers.sambaflow  # noqa: F401  (registers the SambaFlow names)
from schedulers.cerebras.scheduler import HyperparameterScheduler
from schedulers.core.schedule_config import Kind, ScheduleSpec, read_schedule_config
from timeunits import Time, TimeUnit
from trainer.config_reading._reading import Context, show

# What a top-level item may give next to its name (the trainer applies them to a Cadence schedule).
ITEM_OPTIONS = ("hyperparameter", "param_group_tags", "monitor")
# SambaFlow's num_training_steps defaults to the horizon, which the loop section gives.
_HORIZON_ARGUMENT = "num_training_steps"


def read_schedulers(value: Any, path: str, ctx: Context) -> list[ScheduleSpec]:
    """A list of ``{Name: {arguments}}`` items (one item alone is a list of one): names, arguments, nested items
    and options checked, nothing built.

    Args:
        value: The ``schedulers`` value given.
        path: Its key path (``trainer.init.schedulers``).
        ctx: The reading's context (it imports ``module:Class`` names).

    Returns:
        One :class:`~schedulers.core.schedule_config.ScheduleSpec` per item, in order, for
        :func:`scheduler_entries` once the horizon is known.

    Raises:
        ConfigError: not a list of items, an unknown name or argument (with the closest), or an option
            (``hyperparameter``, ``param_group_tags``, ``monitor``) the item's scheduler does not take.

    >>> specs = read_schedulers({"cosine": {"alpha_f": 0.1}}, "trainer.init.schedulers", Context(None, {}))
    >>> [spec.name for spec in specs]
    ['CosineAnnealingScheduler']
    """
    items = [value] if isinstance(value, (dict, str)) else value
    if not isinstance(items, list):
        raise ctx.error(path, f"must be a list of {{Name: {{arguments}}}} items, got {show(value)}")
    specs = []
    for index, item in enumerate(items):
        with ctx.schedules():
            spec = read_schedule_config(
                item,
                f"{path}[{index}]",
                expected=None,
                import_object=ctx.import_object,
                options=ITEM_OPTIONS,
                supplied_later=(_HORIZON_ARGUMENT,),
            )
        _check_options(spec, f"{path}[{index}]", ctx)
        specs.append(spec)
    return specs


def _check_options(spec: ScheduleSpec, path: str, ctx: Context) -> None:
    """``hyperparameter`` and ``param_group_tags`` next to a name: kept for a Cadence schedule (the trainer
    applies them); for a scheduler built on the optimizer, checked against what it writes and takes."""
    hyperparameter, tags = spec.options.get("hyperparameter"), spec.options.get("param_group_tags")
    if hyperparameter is not None and not isinstance(hyperparameter, str):
        raise ctx.error(
            f"{path}.hyperparameter",
            f"must be a param-group key such as lr or weight_decay, got {show(hyperparameter)}",
        )
    if spec.kind is Kind.SCHEDULE:
        if "monitor" in spec.options:
            raise ctx.error(
                f"{path}.monitor", f"is for torch's ReduceLROnPlateau; {spec.name} takes monitor among its arguments"
            )
        return
    writes = getattr(spec.target, "param_group_key", "lr") if inspect.isclass(spec.target) else "lr"
    if hyperparameter is not None and hyperparameter != writes:
        raise ctx.error(
            f"{path}.hyperparameter",
            f"{spec.name} writes {writes!r}, not {hyperparameter!r} (Cerebras *WD classes write weight_decay; "
            "Cadence schedules take any hyperparameter)",
        )
    if tags is not None:
        if "param_group_tags" not in inspect.signature(spec.target).parameters:
            raise ctx.error(f"{path}.param_group_tags", f"{spec.name} does not take param_group_tags")
        if "param_group_tags" in spec.arguments:
            raise ctx.error(f"{path}.param_group_tags", f"given twice: also in {spec.path}")


def scheduler_entries(specs: list[ScheduleSpec], path: str, horizon: Time, ctx: Context) -> list[Any]:
    """The trainer's ``schedulers`` entries for the items of ``path``: each Cadence schedule built (with its
    hyperparameter and tags), each scheduler built on the optimizer as a factory the trainer calls with its
    optimizer. SambaFlow's ``num_training_steps`` defaults to the horizon (``loop.max_steps``, ``--max_steps``).

    Args:
        specs: The items :func:`read_schedulers` read.
        path: Their key path, for errors and warnings.
        horizon: The run's length (SambaFlow's default ``num_training_steps`` when in ``ba``).
        ctx: The reading's context (``--learning_rate`` among its flags warns for a scheduler ignoring it).

    Returns:
        One entry per item for the trainer's ``schedulers=``: a schedule, a dict with its hyperparameter, tags or
        monitor, or a factory ``optimizer -> scheduler``.

    Raises:
        ConfigError: a schedule that cannot be built, or a horizon not in ``ba`` where ``num_training_steps`` is
            needed and not given.

    >>> ctx, items = Context(None, {}), [{"cosine": {}}, {"StepLR": {"initial_learning_rate": 0.1, "step_size": 2,
    ...                                                            "gamma": 0.5}}]
    >>> scheduler_entries(read_schedulers(items, "s", ctx), "s", Time(10, TimeUnit.BATCH), ctx)
    [CosineAnnealingScheduler(t_max='1.0dur', alpha_f=0.0), <function config:s[1].StepLR at ...>]
    """
    entries = []
    flag_lr = "--learning_rate" in ctx.sources.values()
    for index, spec in enumerate(specs):
        spec = _with_horizon(spec, horizon, ctx)
        if spec.kind is Kind.SCHEDULE:
            with ctx.schedules():
                schedule = spec.build()
            hyperparameter, tags = spec.options.get("hyperparameter"), spec.options.get("param_group_tags")
            if hyperparameter is None and tags is None:
                entries.append(schedule)
            else:
                entries.append(
                    {"schedule": schedule, "hyperparameter": hyperparameter or "lr", "param_group_tags": tags}
                )
            continue
        if flag_lr and _writes_absolute_lr(spec):
            ctx.warn(
                f"{path}[{index}]",
                f"--learning_rate sets the optimizer's lr, but {spec.name} writes absolute learning rates "
                "(its own arguments), so the flag does not change them",
            )
        monitor = spec.options.get("monitor")
        entries.append(
            _factory(spec, ctx) if monitor is None else {"schedule": _factory(spec, ctx), "monitor": monitor}
        )
    return entries


def _with_horizon(spec: ScheduleSpec, horizon: Time, ctx: Context) -> ScheduleSpec:
    """``spec`` with ``num_training_steps`` (which the reader was told comes later) where it is required and not
    given, on it and on every item inside it; an error when the horizon is not in optimizer steps."""

    def inner(value: Any) -> Any:
        if isinstance(value, list):
            return [inner(item) for item in value]
        return _with_horizon(value, horizon, ctx) if isinstance(value, ScheduleSpec) else value

    arguments = {key: inner(value) for key, value in spec.arguments.items()}
    needed = inspect.signature(spec.target).parameters.get(_HORIZON_ARGUMENT) if spec.kind.on_optimizer else None
    if needed is not None and needed.default is inspect.Parameter.empty and _HORIZON_ARGUMENT not in arguments:
        if horizon.unit is not TimeUnit.BATCH:
            raise ctx.error(
                spec.path, f"needs {_HORIZON_ARGUMENT}: the horizon {horizon} is not in optimizer steps (ba)"
            )
        arguments[_HORIZON_ARGUMENT] = horizon.value
    return spec.supplied(**arguments)


def _writes_absolute_lr(spec: ScheduleSpec) -> bool:
    return (
        inspect.isclass(spec.target)
        and issubclass(spec.target, HyperparameterScheduler)
        and getattr(spec.target, "param_group_key", "lr") == "lr"
    )


def _factory(spec: ScheduleSpec, ctx: Context) -> Callable[[torch.optim.Optimizer], LRScheduler]:
    tags = spec.options.get("param_group_tags")
    if tags is not None:
        spec = spec.supplied(param_group_tags=tags)

    def factory(optimizer: torch.optim.Optimizer) -> LRScheduler:  # the trainer calls it with its optimizer
        with ctx.schedules():
            return spec.build(optimizer)

    factory.__qualname__ = f"config:{spec.path}"
    return factory


def learning_rate_factory(learning_rate: Any, path: str, ctx: Context) -> Callable[[torch.optim.Optimizer], Any]:
    """A Cerebras 1.x ``optimizer.learning_rate`` schedule, built on the optimizer by
    :func:`schedulers.cerebras.configure_lr_scheduler`.

    Args:
        learning_rate: The ``learning_rate`` value (a schedule's mapping or a list of them).
        path: Its key path, for errors.
        ctx: The reading's context.

    Returns:
        A factory the trainer calls with its optimizer; it gives the Cerebras scheduler, and raises a
        ConfigError at ``path`` for a schedule :func:`~schedulers.cerebras.configure_lr_scheduler` refuses or an
        empty one.

    >>> factory = learning_rate_factory({"scheduler": "Linear", "initial_learning_rate": 0.1,
    ...     "end_learning_rate": 0.0, "total_iters": 10}, "trainer.init.optimizer.learning_rate", Context(None, {}))
    >>> type(factory(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1))).__name__
    'LinearLR'
    """
    from schedulers.cerebras import configure_lr_scheduler

    def factory(optimizer: torch.optim.Optimizer) -> Any:
        try:
            scheduler = configure_lr_scheduler(optimizer, learning_rate)
        except (TypeError, ValueError) as error:
            raise ctx.error(path, str(error)) from None
        if scheduler is None:
            raise ctx.error(path, "is empty")
        return scheduler

    return factory
