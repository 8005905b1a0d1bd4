"""Every key of the layout, described once: its reader (type and accepted values, or the section it opens),
default, what to give when it is missing, and per section the Cerebras keys Cadence ignores (with the reason),
the keys it does not support, and the groups of keys of which one may be given. :func:`read_config` reads a
whole config through these tables; ``--set`` (``apply_overrides``) uses the same exclusive groups."""

from __future__ import annotations

from typing import Any

from trainer.config_reading._objects import built_by_factory, callbacks, function, loggers, loss, optimizer
from trainer.config_reading._reading import (
    ConfigError,
    Context,
    Key,
    Section,
    choice,
    count,
    device,
    duration,
    flag,
    number,
    output,
    read_section,
    section,
    show,
    text,
)
from trainer.config_reading._schedulers_section import read_schedulers
from trainer.trainer_arguments import NONFINITE_LOSS_ACTIONS

# Cerebras's fp16_type -> the trainer's precision (cbfloat16 has no CPU/GPU twin: bf16, with a warning)
FP16_TYPES = {"float16": "fp16", "bfloat16": "bf16", "cbfloat16": "bf16"}
# model_dir, when no checkpoint is saved there, is a Cerebras setting Cadence does not use (a warning)
MODEL_DIR_UNUSED = "Cerebras's output folder; Cadence writes checkpoints to trainer.init.checkpoint.save_folder"

LOOP = Section(
    "trainer.init.loop",
    (
        Key("max_steps", count(1), help="the horizon in optimizer steps"),
        Key("num_steps", count(1), help="the optimizer steps this run takes"),
        Key("num_epochs", count(1), help="the horizon in epochs"),
        Key("max_duration", duration("the horizon of the run"), help="the horizon as a time string"),
        Key("eval_frequency", count(1), help="evaluate every N optimizer steps"),
        Key("eval_interval", duration("or loop.eval_frequency in steps")),
        Key("eval_steps", count(1), help="batches per evaluation"),
        Key("grad_accum_steps", count(1), help="loader items per optimizer step"),
        Key("grad_accum", count(1), help="another name of grad_accum_steps"),
        Key("scale_schedule_ratio", number, 1.0),
        Key(
            "on_nonfinite_loss",
            choice(NONFINITE_LOSS_ACTIONS),
            "raise",
            help="a nan or inf loss: stop with an error naming the batch (raise), or warn and train on",
        ),
    ),
    unsupported={
        "steps_per_epoch": "an epoch is one pass over the train loader (shorten the loader, or count in batches)"
    },
    exclusive=(
        ("max_steps", "num_epochs", "max_duration"),
        ("eval_frequency", "eval_interval"),
        ("grad_accum_steps", "grad_accum"),
    ),
)
CHECKPOINT = Section(
    "trainer.init.checkpoint",
    (
        Key("save_folder", output(folder=True), help="where checkpoints go"),
        Key("save_interval", duration("or checkpoint.steps in steps")),
        Key("steps", count(1), help="save every N optimizer steps"),
        Key("load_path", text),
        Key("autoload_last_checkpoint", flag, False),
        Key("autoresume", flag, False),
        Key("save_num_checkpoints_to_keep", count(1)),
        Key("load_weights_only", flag, False),
        Key("load_strict_model_weights", flag, True),
        Key("disable_strict_checkpoint_loading", flag, False),
    ),
    ignored={"save_initial_checkpoint": "Cadence saves at save_interval and at the end"},
    exclusive=(
        ("steps", "save_interval"),
        ("autoload_last_checkpoint", "autoresume"),
        ("load_strict_model_weights", "disable_strict_checkpoint_loading"),
    ),
)
PRECISION = Section(
    "trainer.init.precision",
    (
        Key("enabled", flag, False),
        Key("fp16_type", choice(tuple(FP16_TYPES))),
        Key("max_gradient_norm", number),
        Key("max_gradient_value", number),
    ),
    ignored={
        name: "Cadence's fp16 uses torch's GradScaler with its defaults"
        for name in (
            "precision_opt_level",
            "loss_scaling_factor",
            "initial_loss_scale",
            "steps_per_increase",
            "min_loss_scale",
            "max_loss_scale",
            "log_loss_scale",
        )
    },
)


def _precision(value: Any, path: str, ctx: Context) -> dict[str, Any]:
    """``fp32``, ``bf16`` or ``fp16``, or Cerebras's mapping (read against :data:`PRECISION`)."""
    from trainer.precision import PRECISIONS

    if isinstance(value, str):  # None (absent) reads as the mapping's defaults: fp32, no clipping
        if value not in PRECISIONS:
            raise ctx.error(path, f"{value!r} is not a precision: give one of {', '.join(PRECISIONS)}")
        return {"name": value}
    return read_section(PRECISION, value, ctx)


_precision.section = PRECISION  # type: ignore[attr-defined]

_LOADERS = (
    Key("train_dataloader", built_by_factory("train_dataloader"), help="returns the training loader"),
    Key("val_dataloader", built_by_factory("val_dataloader"), help="returns the evaluation loader"),
    Key("eval_dataloader", built_by_factory("val_dataloader"), help="another name of val_dataloader"),
)
INIT = Section(
    "trainer.init",
    (
        Key("model", built_by_factory("model"), missing="give 'module:function' returning a torch.nn.Module"),
        Key("optimizer", optimizer, missing="give e.g. {SGD: {lr: 0.01, momentum: 0.9}} or {AdamW: {lr: 1e-3}}"),
        Key(
            "loop",
            section(LOOP),
            missing="give loop.max_steps (the horizon in optimizer steps) or loop.max_duration",
        ),
        Key("checkpoint", section(CHECKPOINT)),
        Key("seed", count(0), 0, help="seeds Python, torch and numpy, and the trainer's shuffling"),
        Key("device", device, "cpu"),
        Key("precision", _precision, help="fp32, bf16, fp16, or Cerebras's mapping"),
        Key("callbacks", callbacks, ()),
        *_LOADERS,
        Key("loss_fn", loss, help="null: the model returns the loss"),
        Key("get_num_samples", function("get_num_samples")),
        Key("get_num_tokens", function("get_num_tokens")),
        Key("progress_bar", flag, True),
        Key("loggers", loggers, ()),
        Key("model_dir", text, help="Cerebras's output folder: the checkpoint folder when saving is asked for"),
        # read last, after the optimizer and the loop: the schedules come next to what they are built on
        Key("schedulers", read_schedulers, (), help="a list of {Name: {arguments}}"),
    ),
    ignored={
        "backend": "a Cerebras cluster backend; Cadence runs on trainer.init.device",
        "logging": "Cerebras logging settings; Cadence shows a progress bar",
        "sparsity": "Cerebras weight sparsity",
    },
)
FIT = Section("trainer.fit", (*_LOADERS, Key("ckpt_path", text)))
TRAINER = Section(
    "trainer",
    (  # fit first: init's schedulers are the last keys read, next to the rules that build them
        Key("fit", section(FIT)),
        Key("init", section(INIT, allow_none=False), missing="it holds model, optimizer, schedulers, loop, ..."),
    ),
    ignored={"validate": "cadence fit only trains", "validate_all": "cadence fit only trains"},
)


def _trainer(value: Any, path: str, ctx: Context) -> dict[str, Any]:
    if isinstance(value, list):
        raise ctx.error(path, "a list of trainers (multi-phase Cerebras runs) is not supported: give one mapping")
    return read_section(TRAINER, value, ctx, allow_none=False)


_trainer.section = TRAINER  # type: ignore[attr-defined]

ROOT = Section(
    "",
    (Key("trainer", _trainer, missing="the configuration needs trainer.init (and trainer.fit)"),),
    label="top-level key",
)
SECTIONS = tuple(ROOT.sections())


def read_config(config: Any, ctx: Context) -> dict[str, Any]:
    """The whole config read through the tables: ``{"trainer": {"init": {...}, "fit": {...}}}`` with every key
    at its reader's value or its default. Nothing is built or called yet.

    Args:
        config: The config, as :func:`~trainer.config_reading._reading.load_config` gives it.
        ctx: The reading's context (the config's folder, the flags that set keys).

    Returns:
        ``{"trainer": {"init": {...}, "fit": {...}}}`` holding every key of the layout, read or at its default.

    Raises:
        ConfigError: ``config`` is not a mapping, or the first mistake :func:`read_section` finds, at its key path.

    >>> config = {"trainer": {"init": {"model": "torch.nn:Identity", "optimizer": "SGD", "loop": {"max_steps": 4}},
    ...                       "fit": {"train_dataloader": "builtins:list"}}}
    >>> read = read_config(config, Context(None, {}))["trainer"]["init"]["loop"]
    >>> read["max_steps"], read["scale_schedule_ratio"]
    (4, 1.0)
    """
    if not isinstance(config, dict):
        raise ConfigError(None, f"the configuration must be a mapping with a 'trainer' key, got {show(config)}")
    return read_section(ROOT, config, ctx)


def exclusive_groups(path: str) -> tuple[tuple[str, ...], ...]:
    """The exclusive groups of the section at ``path`` (``trainer.init.loop``), or ``()``.

    Args:
        path: A section's key path.

    Returns:
        The groups of keys of which one may be given there (``--set`` drops the others of a key's group);
        ``()`` for a path of no section.

    >>> exclusive_groups("trainer.init.loop")[0]
    ('max_steps', 'num_epochs', 'max_duration')
    """
    for table in SECTIONS:
        if table.path == path:
            return table.exclusive
    return ()
