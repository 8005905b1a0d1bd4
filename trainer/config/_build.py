"""Building the trainer from a config: the plan, then the model and loaders, then the trainer itself."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import torch

from trainer.callbacks import ProgressBar
from trainer.checkpoint import CheckpointError
from trainer.config._context import _Context
from trainer.config._errors import ConfigError
from trainer.config._plan import _parse
from trainer.config._references import _Ref
from trainer.config._schedulers import _configure_lr_scheduler_factory
from trainer.config._trainer import ConfiguredTrainer
from trainer.config._translate import _translate
from trainer.config._yaml import load_config
from trainer.trainer import seed_everything


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


def trainer_from_config(
    config: dict | str | os.PathLike,
    base_dir: str | os.PathLike | None = None,
    *,
    sources: dict[str, str] | None = None,
) -> ConfiguredTrainer:
    """Check ``config`` and build its trainer; call ``.fit()`` on the result to train.

    ``config`` is a dict in the layout of this module (or a YAML file's path, read with :func:`load_config`;
    ``base_dir`` then defaults to its folder). ``module:function`` references are imported with ``base_dir``
    (the config file's folder) and the working directory on ``sys.path``. Every mistake is a
    :class:`ConfigError` naming its key path, raised before the first batch: the structure, names, argument
    lists and imports are checked before any factory runs; the model and loaders are built next; then the
    trainer builds the optimizer and schedulers and checks them against the run (units, horizons, tokens).
    ``sources`` maps key paths to the flag that set them (the CLI fills it), to name the flag in errors.
    """
    if isinstance(config, (str, os.PathLike)):
        path = Path(config)
        config = load_config(path)
        base_dir = path.parent if base_dir is None else base_dir
    ctx = _Context(None if base_dir is None else Path(base_dir), dict(sources or {}))
    plan = _parse(config, ctx)
    optimizer_factory = plan.optimizer
    lr_schedule = getattr(optimizer_factory, "lr_schedule", None)
    entries = list(plan.schedulers)
    paths = list(plan.scheduler_paths)
    if lr_schedule is not None:  # Cerebras 1.x: optimizer.learning_rate is a schedule
        if entries:
            raise ctx.error(
                lr_schedule[1], "is a schedule, and trainer.init.schedulers is also given: give one of them"
            )
        entries.append(_configure_lr_scheduler_factory(*lr_schedule, ctx))
        paths.append(lr_schedule[1])

    seed_everything(plan.seed)  # the model's initial weights and the loaders' data follow trainer.init.seed too
    model = plan.model.build()
    if not isinstance(model, torch.nn.Module):
        raise ctx.error(plan.model.path, f"{plan.model.text} returned {type(model).__name__}, not a torch.nn.Module")
    train = plan.train.build()
    _check_iterable(train, plan.train, ctx)
    evaluation = None
    if plan.evaluation is not None:
        evaluation = plan.evaluation.build()
        _check_iterable(evaluation, plan.evaluation, ctx)
        if plan.eval_steps is not None:
            evaluation = _Take(evaluation, plan.eval_steps)
    extras = {}
    for key in ("loss_fn", "get_num_samples", "get_num_tokens"):
        ref = getattr(plan, key)
        extras[key] = None if ref is None else ref.build()
        if extras[key] is not None and not callable(extras[key]):
            raise ctx.error(ref.path, f"{ref.text} gave {type(extras[key]).__name__}, which is not callable")
    callbacks = [ref.build() for ref in plan.callbacks]

    labels = dict(plan.labels)
    try:
        trainer = ConfiguredTrainer(
            model=model,
            train_dataloader=train,
            max_duration=plan.max_duration,
            optimizer=optimizer_factory,
            schedulers=entries,
            loss_fn=extras["loss_fn"],
            scale_schedule_ratio=plan.ssr,
            step_schedulers_every_batch=True,  # everything a config builds steps once per batch (clarification 1)
            grad_accum=plan.grad_accum,
            eval_dataloader=evaluation,
            eval_interval=plan.eval_interval if evaluation is not None else None,
            device=plan.device,
            seed=plan.seed,
            callbacks=callbacks,
            save_folder=plan.checkpoint["save_folder"],
            save_interval=plan.checkpoint["save_interval"],
            load_path=plan.checkpoint["load_path"],
            autoresume=plan.checkpoint["autoresume"],
            save_num_checkpoints_to_keep=plan.checkpoint["save_num_checkpoints_to_keep"],
            load_weights_only=plan.checkpoint["load_weights_only"],
            load_strict_model_weights=plan.checkpoint["load_strict_model_weights"],
            progress_bar=plan.progress_bar and not any(isinstance(c, ProgressBar) for c in callbacks),
            get_num_samples=extras["get_num_samples"],
            get_num_tokens=extras["get_num_tokens"],
            max_grad_norm=plan.max_grad_norm,
            precision=plan.precision,
            loggers=[ref.build() for ref in plan.loggers],
            num_steps=plan.num_steps,
            config=config,
        )
    except (ConfigError, CheckpointError):
        raise
    except (TypeError, ValueError) as error:
        translated = _translate(error, labels, paths, ctx)
        if translated is None:
            raise
        raise translated from error
    return trainer


def _check_iterable(loader: Any, ref: _Ref, ctx: _Context) -> None:
    if not isinstance(loader, Iterable):
        raise ctx.error(
            ref.path,
            f"{ref.text} returned {type(loader).__name__}, which is not iterable (a DataLoader or a list of batches)",
        )
