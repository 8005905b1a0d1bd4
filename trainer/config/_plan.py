"""The whole layout checked into a plan: every reference imported and every value checked, nothing built yet."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from trainer.config._callbacks import _callbacks, _loggers
from trainer.config._checkpoint import _checkpoint
from trainer.config._context import _Context
from trainer.config._errors import ConfigError, _show
from trainer.config._loop import _Loop, _loop
from trainer.config._optimizer import _optimizer
from trainer.config._precision import _precision
from trainer.config._read import read_section
from trainer.config._references import _check_factory_form, _loss_reference, _Ref, _reference
from trainer.config._schedulers import _schedulers
from trainer.config._schema import FIT, INIT, ROOT, TRAINER


@dataclass
class _Data:
    """The Python objects the config names (imported and checked; called at build time)."""

    model: _Ref
    train: _Ref
    evaluation: _Ref | None
    loss_fn: _Ref | None
    get_num_samples: _Ref | None
    get_num_tokens: _Ref | None


@dataclass
class _Plan:
    data: _Data
    loop: _Loop
    optimizer: Callable[[torch.nn.Module], torch.optim.Optimizer]
    schedulers: list  # trainer entries: Cadence schedules (or dicts) and factories
    scheduler_paths: list[str]
    callbacks: list[_Ref]
    loggers: list[_Ref]
    seed: int
    device: str
    progress_bar: bool
    checkpoint: dict[str, Any]
    precision: str
    max_grad_norm: float | None
    labels: dict[str, str]  # the trainer's argument names -> key paths, for its errors


def _parse(config: Any, ctx: _Context) -> _Plan:
    init, fit = _sections(config, ctx)
    data, train_path = _data(init, fit, ctx)
    loop = _loop(init["loop"], evaluates=data.evaluation is not None, counts_tokens=bool(data.get_num_tokens), ctx=ctx)
    checkpoint = _checkpoint(init, fit, ctx)
    precision, clip_norm, clip_value = _precision(init["precision"], ctx)
    optimizer = _optimizer(init["optimizer"], f"{INIT.path}.optimizer", ctx, clip_value)
    entries, paths = _schedulers(init, loop.max_duration, ctx)
    return _Plan(
        data=data,
        loop=loop,
        optimizer=optimizer,
        schedulers=entries,
        scheduler_paths=paths,
        callbacks=_callbacks(init["callbacks"], f"{INIT.path}.callbacks", ctx),
        loggers=_loggers(init["loggers"], f"{INIT.path}.loggers", ctx),
        seed=init["seed"],
        device=init["device"],
        progress_bar=init["progress_bar"],
        checkpoint=checkpoint,
        precision=precision,
        max_grad_norm=clip_norm,
        labels=_labels(loop, checkpoint, train_path),
    )


def _sections(config: Any, ctx: _Context) -> tuple[dict, dict]:
    """``trainer.init`` and ``trainer.fit`` read against their key tables (and the levels above them)."""
    if not isinstance(config, dict):
        raise ConfigError(None, f"the configuration must be a mapping with a 'trainer' key, got {_show(config)}")
    root = read_section(ROOT, config, ctx)
    if isinstance(root["trainer"], list):
        raise ctx.error("trainer", "a list of trainers (multi-phase Cerebras runs) is not supported: give one mapping")
    trainer = read_section(TRAINER, root["trainer"], ctx, allow_none=False)
    init = read_section(INIT, trainer["init"], ctx, allow_none=False)
    return init, read_section(FIT, trainer["fit"], ctx)


def _data(init: dict, fit: dict, ctx: _Context) -> tuple[_Data, str]:
    """The model, the loaders, the loss and the counters (imports checked now, factories called later)."""
    train_path, train_value = _one_of(ctx, init, fit, "train_dataloader")
    if train_path is None:
        raise ctx.error(f"{FIT.path}.train_dataloader", "missing: give 'module:function' returning the training loader")
    _check_factory_form(train_value, train_path, ctx, "train_dataloader")
    eval_path, eval_value = _one_of(ctx, init, fit, "val_dataloader", "eval_dataloader")
    evaluation = None
    if eval_path is not None:
        _check_factory_form(eval_value, eval_path, ctx, "val_dataloader")
        evaluation = _reference(eval_value, eval_path, ctx, what="val_dataloader", string_calls=True)
    model_path = f"{INIT.path}.model"
    _check_factory_form(init["model"], model_path, ctx, "model")
    counters = {
        key: None
        if init[key] is None
        else _reference(init[key], f"{INIT.path}.{key}", ctx, what=key, string_calls=False)
        for key in ("get_num_samples", "get_num_tokens")
    }
    data = _Data(
        model=_reference(init["model"], model_path, ctx, what="model", string_calls=True),
        train=_reference(train_value, train_path, ctx, what="train_dataloader", string_calls=True),
        evaluation=evaluation,
        loss_fn=_loss_reference(init["loss_fn"], f"{INIT.path}.loss_fn", ctx),
        **counters,
    )
    return data, train_path


def _one_of(ctx: _Context, init: dict, fit: dict, *keys: str) -> tuple[str | None, Any]:
    """The one of ``keys`` given under ``trainer.fit`` or ``trainer.init`` (fit first); two is an error."""
    places = [(FIT.path, fit), (INIT.path, init)]
    found = [(f"{path}.{key}", values[key]) for path, values in places for key in keys if values[key] is not None]
    if len(found) > 1:
        raise ctx.error(found[1][0], f"give it once: {found[0][0]} is also set")
    return found[0] if found else (None, None)


def _labels(loop: _Loop, checkpoint: dict, train_path: str) -> dict[str, str]:
    """The key path of each trainer argument its errors name (``max_duration=...`` → ``loop.max_steps``)."""
    grad_accum = loop.grad_accum_path or "trainer.init.loop.grad_accum_steps"
    return {
        "max_duration": loop.max_duration_path,
        "eval_interval": loop.eval_interval_path,
        "save_interval": checkpoint["save_interval_path"],
        "max_grad_norm": "trainer.init.precision.max_gradient_norm",
        "precision": "trainer.init.precision",
        "save_num_checkpoints_to_keep": "trainer.init.checkpoint.save_num_checkpoints_to_keep",
        "autoresume": checkpoint["autoresume_path"],
        "grad_accum": grad_accum,
        "scale_schedule_ratio": "trainer.init.loop.scale_schedule_ratio",
        "seed": "trainer.init.seed",
        "the train dataloader": loop.grad_accum_path or train_path,
        "optimizer": "trainer.init.optimizer",
    }
