"""Every key of the layout, described once: its reader (type and accepted values), default, what to give when
it is missing, and per section the Cerebras keys Cadence ignores (with the reason), the keys it does not
support, and the groups of keys of which one may be given. :func:`trainer.config._read.read_section`
checks a mapping against its section; ``--set`` (``apply_overrides``) uses the same exclusive groups."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from trainer.arguments import NONFINITE_LOSS_ACTIONS
from trainer.config._values import Reader, choice, count, device, duration, flag, number, output, text

# Cerebras's fp16_type -> the trainer's precision (cbfloat16 has no CPU/GPU twin: bf16, with a warning)
FP16_TYPES = {"float16": "fp16", "bfloat16": "bf16", "cbfloat16": "bf16"}


@dataclass(frozen=True)
class Key:
    """One key: ``read`` checks and converts its value (``None``: the section's own parser reads it)."""

    name: str
    read: Reader | None = None
    default: Any = None
    missing: str | None = None  # required: the error says "missing: <this>"
    help: str = ""


@dataclass(frozen=True)
class Section:
    path: str
    keys: tuple[Key, ...]
    ignored: dict[str, str] = field(default_factory=dict)  # Cerebras keys Cadence reads past, with the reason
    unsupported: dict[str, str] = field(default_factory=dict)  # keys that are an error, with the reason
    exclusive: tuple[tuple[str, ...], ...] = ()
    label: str = "key"

    @cached_property
    def by_name(self) -> dict[str, Key]:
        return {key.name: key for key in self.keys}

    def at(self, path: str) -> Section:
        """This section's keys at another key path (for mappings that occur in many places)."""
        return replace(self, path=path)


ROOT = Section(
    "",
    (Key("trainer", missing="the configuration needs trainer.init (and trainer.fit)"),),
    label="top-level key",
)
TRAINER = Section(
    "trainer",
    (Key("init", missing="it holds model, optimizer, schedulers, loop, ..."), Key("fit")),
    ignored={"validate": "cadence fit only trains", "validate_all": "cadence fit only trains"},
)
_LOADERS = (
    Key("train_dataloader", help="'module:function' returning the training loader"),
    Key("val_dataloader", help="'module:function' returning the evaluation loader"),
    Key("eval_dataloader", help="another name of val_dataloader"),
)
INIT = Section(
    "trainer.init",
    (
        Key("model", missing="give 'module:function' returning a torch.nn.Module"),
        Key("optimizer", missing="give e.g. {SGD: {lr: 0.01, momentum: 0.9}} or {AdamW: {lr: 1e-3}}"),
        Key("schedulers", help="a list of {Name: {arguments}}"),
        Key("loop", missing="give loop.max_steps (the horizon in optimizer steps) or loop.max_duration"),
        Key("checkpoint"),
        Key("seed", count(0), 0, help="seeds Python, torch and numpy, and the trainer's shuffling"),
        Key("device", device, "cpu"),
        Key("precision", help="fp32, bf16, fp16, or Cerebras's mapping"),
        Key("callbacks"),
        *_LOADERS,
        Key("loss_fn"),
        Key("get_num_samples"),
        Key("get_num_tokens"),
        Key("progress_bar", flag, True),
        Key("loggers"),
        Key("model_dir", text, help="Cerebras's output folder: the checkpoint folder when saving is asked for"),
    ),
    ignored={
        "backend": "a Cerebras cluster backend; Cadence runs on trainer.init.device",
        "logging": "Cerebras logging settings; Cadence shows a progress bar",
        "model_dir": "Cerebras's output folder; Cadence writes checkpoints to trainer.init.checkpoint.save_folder",
        "sparsity": "Cerebras weight sparsity",
    },
)
FIT = Section("trainer.fit", (*_LOADERS, Key("ckpt_path", text)))
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
# {factory: "module:function", kwargs: {...}} wherever a Python object is named (placed with Section.at)
FACTORY = Section("", (Key("factory"), Key("kwargs")))
SECTIONS = (ROOT, TRAINER, INIT, FIT, LOOP, CHECKPOINT, PRECISION)


def home_of(key: str) -> str | None:
    """The one section a key belongs to (for "it belongs under ..." hints), or None."""
    homes = [s.path for s in SECTIONS if s.path and (key in s.by_name or key in s.unsupported)]
    return homes[0] if len(homes) == 1 else None


def exclusive_groups(path: str) -> tuple[tuple[str, ...], ...]:
    """The exclusive groups of the section at ``path`` (``trainer.init.loop``), or ``()``."""
    for section in SECTIONS:
        if section.path == path:
            return section.exclusive
    return ()
