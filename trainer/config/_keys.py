"""The keys of the layout: those each mapping accepts, the Cerebras settings Cadence ignores, where each belongs."""

from __future__ import annotations

# Keys of one mapping of which at most one may be given; --set and the flags replace the others.
_EXCLUSIVE = {
    "loop": (
        ("max_steps", "num_epochs", "max_duration"),
        ("eval_frequency", "eval_interval"),
        ("grad_accum_steps", "grad_accum"),
    ),
    "checkpoint": (("steps", "save_interval"), ("autoload_last_checkpoint", "autoresume")),
}


_INIT_KEYS = (
    "model",
    "optimizer",
    "schedulers",
    "loop",
    "checkpoint",
    "seed",
    "device",
    "precision",
    "callbacks",
    "train_dataloader",
    "val_dataloader",
    "eval_dataloader",
    "loss_fn",
    "get_num_samples",
    "get_num_tokens",
    "progress_bar",
    "loggers",
)
_INIT_IGNORED = {
    "backend": "a Cerebras cluster backend; Cadence runs on trainer.init.device",
    "logging": "Cerebras logging settings; Cadence shows a progress bar",
    "model_dir": "Cerebras's output folder; Cadence writes checkpoints to trainer.init.checkpoint.save_folder",
    "sparsity": "Cerebras weight sparsity",
}
_FIT_KEYS = ("train_dataloader", "val_dataloader", "eval_dataloader", "ckpt_path")
_TRAINER_KEYS = ("init", "fit")
_TRAINER_IGNORED = {"validate": "cadence fit only trains", "validate_all": "cadence fit only trains"}
_LOOP_KEYS = (
    "max_steps",
    "num_steps",
    "num_epochs",
    "max_duration",
    "eval_frequency",
    "eval_interval",
    "eval_steps",
    "grad_accum_steps",
    "grad_accum",
    "scale_schedule_ratio",
)
_CHECKPOINT_KEYS = (
    "save_folder",
    "save_interval",
    "steps",
    "load_path",
    "autoload_last_checkpoint",
    "autoresume",
    "save_num_checkpoints_to_keep",
    "load_weights_only",
    "load_strict_model_weights",
    "disable_strict_checkpoint_loading",
)
_CHECKPOINT_IGNORED = {
    "save_initial_checkpoint": "Cadence saves at save_interval and at the end",
}
_PRECISION_KEYS = ("enabled", "fp16_type", "max_gradient_norm", "max_gradient_value")
_PRECISION_IGNORED = {
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
}

# Where a key belongs, for "unknown key" errors that find it elsewhere.
_HOME = {
    **{key: "trainer.init.loop" for key in _LOOP_KEYS},
    **{key: "trainer.init.checkpoint" for key in _CHECKPOINT_KEYS},
    **{key: "trainer.init.precision" for key in _PRECISION_KEYS},
    "ckpt_path": "trainer.fit",
    **{key: "trainer.init" for key in ("model", "optimizer", "schedulers", "seed", "device", "callbacks", "loss_fn")},
    "steps_per_epoch": "trainer.init.loop",
}

_ITEM_OPTIONS = ("hyperparameter", "param_group_tags")
_CHILD_ARGUMENTS = ("schedule", "schedules", "scheduler", "schedulers")
