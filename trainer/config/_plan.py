"""The whole layout checked into a plan: every reference imported and every value checked, nothing built yet."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Callable

import torch

from timeunits import Time, TimeUnit
from trainer.config._callbacks import _callbacks, _loggers
from trainer.config._checkpoint import _checkpoint
from trainer.config._context import _Context
from trainer.config._errors import ConfigError, _show
from trainer.config._keys import (
    _EXCLUSIVE,
    _FIT_KEYS,
    _INIT_IGNORED,
    _INIT_KEYS,
    _LOOP_KEYS,
    _TRAINER_IGNORED,
    _TRAINER_KEYS,
)
from trainer.config._optimizer import _optimizer
from trainer.config._precision import _precision
from trainer.config._references import _check_factory_form, _loss_reference, _Ref, _reference
from trainer.config._schedulers import _schedulers
from trainer.config._values import _bool, _check_keys, _int, _mapping, _number, _time


@dataclass
class _Plan:
    model: _Ref
    optimizer: Callable[[torch.nn.Module], torch.optim.Optimizer]
    schedulers: list  # trainer entries: Cadence schedules (or dicts) and factories
    scheduler_paths: list[str]
    train: _Ref
    evaluation: _Ref | None
    eval_steps: int | None
    loss_fn: _Ref | None
    get_num_samples: _Ref | None
    get_num_tokens: _Ref | None
    callbacks: list[_Ref]
    max_duration: Time
    max_duration_path: str
    num_steps: int | None
    eval_interval: Time | None
    eval_interval_path: str
    grad_accum: int
    ssr: float
    seed: int
    device: str
    checkpoint: dict[str, Any]
    progress_bar: bool
    precision: str
    max_grad_norm: float | None
    loggers: list[_Ref]
    labels: dict[str, str]


def _parse(config: Any, ctx: _Context) -> _Plan:
    if not isinstance(config, dict):
        raise ConfigError(None, f"the configuration must be a mapping with a 'trainer' key, got {_show(config)}")
    for key in config:
        if key != "trainer":
            close = difflib.get_close_matches(str(key), ["trainer"], n=1)
            hint = "did you mean trainer? " if close else ""
            raise ctx.error(
                str(key), f"unknown top-level key ({hint}the configuration has one top-level key, 'trainer')"
            )
    if "trainer" not in config:
        raise ConfigError("trainer", "missing: the configuration needs trainer.init (and trainer.fit)")
    trainer = config["trainer"]
    if isinstance(trainer, list):
        raise ctx.error("trainer", "a list of trainers (multi-phase Cerebras runs) is not supported: give one mapping")
    trainer = _mapping(trainer, "trainer", ctx, allow_none=False)
    _check_keys(trainer, "trainer", _TRAINER_KEYS, ctx, ignored=_TRAINER_IGNORED)
    if "init" not in trainer:
        raise ctx.error("trainer.init", "missing: it holds model, optimizer, schedulers, loop, ...")
    init = _mapping(trainer["init"], "trainer.init", ctx, allow_none=False)
    fit = _mapping(trainer.get("fit"), "trainer.fit", ctx)
    _check_keys(
        init,
        "trainer.init",
        (*_INIT_KEYS, "model_dir"),
        ctx,
        ignored={k: v for k, v in _INIT_IGNORED.items() if k != "model_dir"},
    )
    _check_keys(fit, "trainer.fit", _FIT_KEYS, ctx)

    # -- loaders, loss and counters (imports checked now, factories called at build time)
    train_path, train_value = _one_of(
        ctx,
        ("trainer.fit.train_dataloader", fit, "train_dataloader"),
        ("trainer.init.train_dataloader", init, "train_dataloader"),
    )
    if train_path is None:
        raise ctx.error("trainer.fit.train_dataloader", "missing: give 'module:function' returning the training loader")
    _check_factory_form(train_value, train_path, ctx, "train_dataloader")
    train = _reference(train_value, train_path, ctx, what="train_dataloader", string_calls=True)
    eval_path, eval_value = _one_of(
        ctx,
        ("trainer.fit.val_dataloader", fit, "val_dataloader"),
        ("trainer.fit.eval_dataloader", fit, "eval_dataloader"),
        ("trainer.init.val_dataloader", init, "val_dataloader"),
        ("trainer.init.eval_dataloader", init, "eval_dataloader"),
    )
    evaluation = None
    if eval_path is not None and eval_value is not None:
        _check_factory_form(eval_value, eval_path, ctx, "val_dataloader")
        evaluation = _reference(eval_value, eval_path, ctx, what="val_dataloader", string_calls=True)
    if "model" not in init or init["model"] is None:
        raise ctx.error("trainer.init.model", "missing: give 'module:function' returning a torch.nn.Module")
    _check_factory_form(init["model"], "trainer.init.model", ctx, "model")
    model = _reference(init["model"], "trainer.init.model", ctx, what="model", string_calls=True)
    loss_fn = _loss_reference(init.get("loss_fn"), "trainer.init.loss_fn", ctx)
    counters = {}
    for key in ("get_num_samples", "get_num_tokens"):
        value = init.get(key)
        counters[key] = (
            None if value is None else _reference(value, f"trainer.init.{key}", ctx, what=key, string_calls=False)
        )

    # -- loop
    loop_path = "trainer.init.loop"
    if init.get("loop") is None:
        raise ctx.error(loop_path, "missing: give loop.max_steps (the horizon in optimizer steps) or loop.max_duration")
    loop = _mapping(init["loop"], loop_path, ctx)
    if "steps_per_epoch" in loop:
        raise ctx.error(
            f"{loop_path}.steps_per_epoch",
            "not supported: an epoch is one pass over the train loader (shorten the loader, or count in batches)",
        )
    _check_keys(loop, loop_path, _LOOP_KEYS, ctx)
    for group in _EXCLUSIVE["loop"]:
        present = [key for key in group if loop.get(key) is not None]
        if len(present) > 1:
            raise ctx.error(
                f"{loop_path}.{present[1]}",
                f"give only one of {', '.join(group)} (also {loop_path}.{present[0]} is set)",
            )
    num_steps = None
    if loop.get("num_steps") is not None:
        num_steps = _int(loop["num_steps"], f"{loop_path}.num_steps", ctx, minimum=1)
    if loop.get("max_steps") is not None:
        duration_path = f"{loop_path}.max_steps"
        max_duration = Time(_int(loop["max_steps"], duration_path, ctx, minimum=1), TimeUnit.BATCH)
    elif loop.get("num_epochs") is not None:
        duration_path = f"{loop_path}.num_epochs"
        max_duration = Time(_int(loop["num_epochs"], duration_path, ctx, minimum=1), TimeUnit.EPOCH)
    elif loop.get("max_duration") is not None:
        duration_path = f"{loop_path}.max_duration"
        max_duration = _time(loop["max_duration"], duration_path, ctx, hint="the horizon of the run")
    elif num_steps is not None:
        duration_path = f"{loop_path}.num_steps"
        max_duration = Time(num_steps, TimeUnit.BATCH)
        num_steps = None  # the horizon itself
    else:
        raise ctx.error(
            loop_path,
            "needs the run's length: max_steps (optimizer steps), num_epochs, max_duration (e.g. '2e6tok') "
            "or num_steps",
        )
    if num_steps is not None and max_duration.unit is TimeUnit.BATCH and num_steps >= max_duration.value:
        num_steps = None  # the horizon comes first anyway
    grad_accum = 1
    for key in ("grad_accum_steps", "grad_accum"):
        if loop.get(key) is not None:
            grad_accum = _int(loop[key], f"{loop_path}.{key}", ctx, minimum=1)
    ssr = 1.0
    if loop.get("scale_schedule_ratio") is not None:
        ssr = _number(loop["scale_schedule_ratio"], f"{loop_path}.scale_schedule_ratio", ctx)
    eval_interval, eval_interval_path = None, f"{loop_path}.eval_interval"
    if loop.get("eval_frequency") is not None:
        eval_interval_path = f"{loop_path}.eval_frequency"
        eval_interval = Time(_int(loop["eval_frequency"], eval_interval_path, ctx, minimum=1), TimeUnit.BATCH)
    elif loop.get("eval_interval") is not None:
        eval_interval = _time(loop["eval_interval"], eval_interval_path, ctx, hint="or loop.eval_frequency in steps")
    eval_steps = None
    if loop.get("eval_steps") is not None:
        eval_steps = _int(loop["eval_steps"], f"{loop_path}.eval_steps", ctx, minimum=1)
    if evaluation is None:
        for key, value in (
            ("eval_frequency", loop.get("eval_frequency")),
            ("eval_interval", loop.get("eval_interval")),
            ("eval_steps", eval_steps),
        ):
            if value is not None:
                raise ctx.error(f"{loop_path}.{key}", "needs trainer.fit.val_dataloader to evaluate on")
    elif eval_interval is None:
        eval_interval, eval_interval_path = max_duration, duration_path  # evaluate once, at the end
    tokens = counters["get_num_tokens"] is not None
    for time, path in ((max_duration, duration_path), (eval_interval, eval_interval_path)):
        if time is not None and time.unit is TimeUnit.TOKEN and not tokens:
            raise ctx.error(
                path,
                f"{time} counts tokens: give trainer.init.get_num_tokens ('module:function' counting a batch's tokens)",
            )

    # -- seed, device, progress bar
    seed = 0 if init.get("seed") is None else _int(init["seed"], "trainer.init.seed", ctx)
    device = _device(init.get("device"), "trainer.init.device", ctx)
    progress_bar = (
        True if init.get("progress_bar") is None else _bool(init["progress_bar"], "trainer.init.progress_bar", ctx)
    )

    # -- checkpoint
    checkpoint = _checkpoint(init, fit, ctx)

    # -- precision: autocast and gradient clipping
    precision_name, clip_norm, clip_value = _precision(init.get("precision"), "trainer.init.precision", ctx)

    # -- optimizer and schedulers
    optimizer = _optimizer(init.get("optimizer"), "trainer.init.optimizer", ctx, clip_value)
    entries, paths = _schedulers(init, max_duration, ctx)

    # -- callbacks and loggers
    callbacks = _callbacks(init.get("callbacks"), "trainer.init.callbacks", ctx)
    loggers = _loggers(init.get("loggers"), "trainer.init.loggers", ctx)

    labels = {
        "max_duration": duration_path,
        "eval_interval": eval_interval_path,
        "save_interval": checkpoint["save_interval_path"],
        "max_grad_norm": "trainer.init.precision.max_gradient_norm",
        "precision": "trainer.init.precision",
        "save_num_checkpoints_to_keep": "trainer.init.checkpoint.save_num_checkpoints_to_keep",
        "autoresume": checkpoint["autoresume_path"],
        "grad_accum": f"{loop_path}.grad_accum"
        if loop.get("grad_accum") is not None
        else f"{loop_path}.grad_accum_steps",
        "scale_schedule_ratio": f"{loop_path}.scale_schedule_ratio",
        "seed": "trainer.init.seed",
        "the train dataloader": (
            f"{loop_path}.grad_accum"
            if loop.get("grad_accum") is not None
            else f"{loop_path}.grad_accum_steps"
            if loop.get("grad_accum_steps") is not None
            else train_path
        ),
        "optimizer": "trainer.init.optimizer",
    }
    return _Plan(
        model=model,
        optimizer=optimizer,
        schedulers=entries,
        scheduler_paths=paths,
        train=train,
        evaluation=evaluation,
        eval_steps=eval_steps,
        loss_fn=loss_fn,
        get_num_samples=counters["get_num_samples"],
        get_num_tokens=counters["get_num_tokens"],
        callbacks=callbacks,
        max_duration=max_duration,
        max_duration_path=duration_path,
        num_steps=num_steps,
        eval_interval=eval_interval,
        eval_interval_path=eval_interval_path,
        grad_accum=grad_accum,
        ssr=ssr,
        seed=seed,
        device=device,
        checkpoint=checkpoint,
        progress_bar=progress_bar,
        precision=precision_name,
        max_grad_norm=clip_norm,
        loggers=loggers,
        labels=labels,
    )


def _one_of(ctx: _Context, *places: tuple[str, dict, str]) -> tuple[str | None, Any]:
    found = [(path, mapping[key]) for path, mapping, key in places if mapping.get(key) is not None]
    if len(found) > 1:
        raise ctx.error(found[1][0], f"give it once: {found[0][0]} is also set")
    return found[0] if found else (None, None)


def _device(value: Any, path: str, ctx: _Context) -> str:
    if value is None:
        return "cpu"
    if not isinstance(value, str):
        raise ctx.error(path, f"must be a device name such as cpu, cuda or cuda:1, got {_show(value)}")
    name = value.strip()
    cerebras = {"cpu": "cpu", "gpu": "cuda"}
    if name.lower() == "csx":
        ctx.warn(path, "CSX is a Cerebras system; Cadence trains on cpu")
        return "cpu"
    name = cerebras.get(name.lower(), name)
    try:
        device = torch.device(name)
    except (RuntimeError, ValueError):
        raise ctx.error(
            path, f"{value!r} is not a device: give cpu, cuda, cuda:N (Cerebras CPU/GPU also work)"
        ) from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ctx.error(path, f"{value!r}: CUDA is not available on this machine")
    return str(device)
