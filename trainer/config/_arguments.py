"""A config turned into the arguments of a trainer: the plan checked, then the model, loaders and callbacks
built. This module does not import ``trainer.trainer``: ``Trainer.from_config`` builds from it."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from trainer.callbacks import ProgressBar
from trainer.checkpoint import CheckpointError
from trainer.config._context import _Context
from trainer.config._errors import ConfigError
from trainer.config._plan import _parse, _Plan
from trainer.config._references import _Ref
from trainer.config._run import configured_class
from trainer.config._schedulers import _configure_lr_scheduler_factory
from trainer.config._translate import _translate
from trainer.config._yaml import load_config
from trainer.seeding import seed_everything


@dataclass
class TrainerArguments:
    """The keyword arguments of a trainer, built from a config, with what its errors need to name key paths."""

    kwargs: dict[str, Any]
    num_steps: int | None
    config: dict
    labels: dict[str, str]
    scheduler_paths: list[str]
    ctx: _Context

    def construct(self, cls: type) -> Any:
        """``cls`` (a :class:`~trainer.Trainer` class) with :class:`~trainer.config._run.ConfiguredRun` mixed in,
        built from these arguments; the trainer's own errors come back as ConfigErrors on key paths."""
        try:
            return configured_class(cls)(**self.kwargs, num_steps=self.num_steps, config=self.config)
        except (ConfigError, CheckpointError):
            raise
        except (TypeError, ValueError) as error:
            translated = _translate(error, self.labels, self.scheduler_paths, self.ctx)
            if translated is None:
                raise
            raise translated from error


def trainer_arguments(
    config: dict | str | os.PathLike,
    base_dir: str | os.PathLike | None = None,
    *,
    sources: dict[str, str] | None = None,
) -> TrainerArguments:
    """Check ``config`` (a dict, or a YAML file's path; ``base_dir`` defaults to its folder) and build the
    objects it names, seeded by ``trainer.init.seed``; see :func:`trainer.config.trainer_from_config`."""
    if isinstance(config, (str, os.PathLike)):
        path = Path(config)
        config = load_config(path)
        base_dir = path.parent if base_dir is None else base_dir
    ctx = _Context(None if base_dir is None else Path(base_dir), dict(sources or {}))
    plan = _parse(config, ctx)
    schedulers, paths = _all_schedulers(plan, ctx)
    seed_everything(plan.seed)  # the model's initial weights and the loaders' data follow trainer.init.seed too
    kwargs = _built(plan, ctx)
    kwargs.update(
        max_duration=plan.loop.max_duration,
        optimizer=plan.optimizer,
        schedulers=schedulers,
        scale_schedule_ratio=plan.loop.ssr,
        on_nonfinite_loss=plan.loop.on_nonfinite_loss,
        step_schedulers_every_batch=True,  # everything a config builds steps once per batch (docs/stepping.md)
        grad_accum=plan.loop.grad_accum,
        eval_interval=plan.loop.eval_interval if kwargs["eval_dataloader"] is not None else None,
        device=plan.device,
        seed=plan.seed,
        max_grad_norm=plan.max_grad_norm,
        precision=plan.precision,
        **{key: plan.checkpoint[key] for key in _CHECKPOINT_ARGUMENTS},
    )
    return TrainerArguments(kwargs, plan.loop.num_steps, config, dict(plan.labels), paths, ctx)


_CHECKPOINT_ARGUMENTS = (
    "save_folder",
    "save_interval",
    "load_path",
    "autoresume",
    "save_num_checkpoints_to_keep",
    "load_weights_only",
    "load_strict_model_weights",
)


def _all_schedulers(plan: _Plan, ctx: _Context) -> tuple[list, list[str]]:
    """The scheduler entries and their key paths, with a Cerebras 1.x ``optimizer.learning_rate`` schedule."""
    entries, paths = list(plan.schedulers), list(plan.scheduler_paths)
    lr_schedule = plan.optimizer.lr_schedule  # type: ignore[attr-defined]
    if lr_schedule is not None:
        if entries:
            raise ctx.error(
                lr_schedule[1], "is a schedule, and trainer.init.schedulers is also given: give one of them"
            )
        entries.append(_configure_lr_scheduler_factory(*lr_schedule, ctx))
        paths.append(lr_schedule[1])
    return entries, paths


def _built(plan: _Plan, ctx: _Context) -> dict[str, Any]:
    """The model, the loaders, the loss, the counters, callbacks and loggers: the config's factories called."""
    data = plan.data
    model = data.model.build()
    if not isinstance(model, torch.nn.Module):
        raise ctx.error(data.model.path, f"{data.model.text} returned {type(model).__name__}, not a torch.nn.Module")
    train = _loader(data.train, ctx)
    evaluation = None if data.evaluation is None else _loader(data.evaluation, ctx)
    if evaluation is not None and plan.loop.eval_steps is not None:
        evaluation = _Take(evaluation, plan.loop.eval_steps)
    built = {"model": model, "train_dataloader": train, "eval_dataloader": evaluation}
    for key in ("loss_fn", "get_num_samples", "get_num_tokens"):
        ref = getattr(data, key)
        built[key] = None if ref is None else ref.build()
        if built[key] is not None and not callable(built[key]):
            raise ctx.error(ref.path, f"{ref.text} gave {type(built[key]).__name__}, which is not callable")
    callbacks = [ref.build() for ref in plan.callbacks]
    built["callbacks"] = callbacks
    built["progress_bar"] = plan.progress_bar and not any(isinstance(c, ProgressBar) for c in callbacks)
    built["loggers"] = [ref.build() for ref in plan.loggers]
    return built


def _loader(ref: _Ref, ctx: _Context) -> Any:
    loader = ref.build()
    if not isinstance(loader, Iterable):
        raise ctx.error(
            ref.path,
            f"{ref.text} returned {type(loader).__name__}, which is not iterable (a DataLoader or a list of batches)",
        )
    return loader


class _Take:
    """The first ``count`` items of ``loader`` each time it is iterated (``loop.eval_steps``)."""

    def __init__(self, loader: Iterable, count: int) -> None:
        self.loader, self.count = loader, count

    def __iter__(self):
        for index, item in enumerate(self.loader):
            if index >= self.count:
                return
            yield item

    def __len__(self) -> int:
        try:
            return min(len(self.loader), self.count)  # type: ignore[arg-type]
        except TypeError:
            return self.count
