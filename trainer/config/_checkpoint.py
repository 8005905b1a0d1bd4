"""``trainer.init.checkpoint`` (with ``trainer.fit.ckpt_path`` and ``trainer.init.model_dir``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from timeunits import Time, TimeUnit
from trainer.config._context import _Context
from trainer.config._errors import _show
from trainer.config._keys import _CHECKPOINT_IGNORED, _CHECKPOINT_KEYS, _EXCLUSIVE, _INIT_IGNORED
from trainer.config._values import _bool, _check_keys, _int, _mapping, _time


def _checkpoint(init: dict, fit: dict, ctx: _Context) -> dict[str, Any]:
    """The trainer's checkpoint arguments from ``trainer.init.checkpoint``, ``trainer.fit.ckpt_path`` and
    ``trainer.init.model_dir`` (plus the key paths of the interval and of autoresume, for error messages)."""
    path = "trainer.init.checkpoint"
    checkpoint = _mapping(init.get("checkpoint"), path, ctx)
    _check_keys(checkpoint, path, _CHECKPOINT_KEYS, ctx, ignored=_CHECKPOINT_IGNORED)
    for group in _EXCLUSIVE["checkpoint"]:
        present = [key for key in group if checkpoint.get(key) is not None]
        if len(present) > 1:
            raise ctx.error(
                f"{path}.{present[1]}", f"give only one of {', '.join(group)} (also {path}.{present[0]} is set)"
            )
    save_interval, interval_path = None, f"{path}.save_interval"
    if checkpoint.get("steps") is not None:
        interval_path = f"{path}.steps"
        save_interval = Time(_int(checkpoint["steps"], interval_path, ctx, minimum=1), TimeUnit.BATCH)
    elif checkpoint.get("save_interval") is not None:
        save_interval = _time(checkpoint["save_interval"], interval_path, ctx, hint="or checkpoint.steps in steps")

    save_folder = checkpoint.get("save_folder")
    if save_folder is not None and not isinstance(save_folder, str):
        raise ctx.error(f"{path}.save_folder", f"must be a folder path, got {_show(save_folder)}")
    autoresume, autoresume_path = False, f"{path}.autoresume"
    for key in ("autoload_last_checkpoint", "autoresume"):
        if checkpoint.get(key) is not None:
            autoresume_path = f"{path}.{key}"
            autoresume = _bool(checkpoint[key], autoresume_path, ctx)
    keep = None
    if checkpoint.get("save_num_checkpoints_to_keep") is not None:
        keep = _int(checkpoint["save_num_checkpoints_to_keep"], f"{path}.save_num_checkpoints_to_keep", ctx, minimum=1)
    weights_only = False
    if checkpoint.get("load_weights_only") is not None:
        weights_only = _bool(checkpoint["load_weights_only"], f"{path}.load_weights_only", ctx)
    strict = True
    if checkpoint.get("load_strict_model_weights") is not None:
        strict = _bool(checkpoint["load_strict_model_weights"], f"{path}.load_strict_model_weights", ctx)
    if checkpoint.get("disable_strict_checkpoint_loading") is not None:
        key = f"{path}.disable_strict_checkpoint_loading"
        if checkpoint.get("load_strict_model_weights") is not None:
            raise ctx.error(key, "give only one of disable_strict_checkpoint_loading, load_strict_model_weights")
        strict = not _bool(checkpoint["disable_strict_checkpoint_loading"], key, ctx)
    if not strict and not weights_only:
        ctx.warn(
            f"{path}.load_weights_only",
            "non-strict loading applies to weights-only loads (load_weights_only: true); resuming a run loads "
            "everything strictly",
        )

    model_dir = init.get("model_dir")
    if model_dir is not None:
        if save_folder is None and (save_interval is not None or autoresume) and isinstance(model_dir, str):
            save_folder = model_dir  # Cerebras writes its checkpoints into model_dir
        else:
            ctx.warn(
                "trainer.init.model_dir",
                f"Cadence does not use this Cerebras setting ({_INIT_IGNORED['model_dir']}); ignored",
            )
    if save_interval is not None and save_folder is None:
        raise ctx.error(interval_path, f"needs {path}.save_folder (the folder to write checkpoints to)")
    if autoresume and save_folder is None:
        raise ctx.error(autoresume_path, f"needs {path}.save_folder (it resumes from the latest checkpoint there)")
    if keep is not None and save_folder is None:
        raise ctx.error(f"{path}.save_num_checkpoints_to_keep", f"needs {path}.save_folder")

    load_path = None
    given = [
        (p, v)
        for p, v in (
            (f"{path}.load_path", checkpoint.get("load_path")),
            ("trainer.fit.ckpt_path", fit.get("ckpt_path")),
        )
        if v is not None
    ]
    if len(given) > 1:
        raise ctx.error("trainer.fit.ckpt_path", f"give only one checkpoint to load ({path}.load_path is also set)")
    if given:
        origin, load_path = given[0]
        if not isinstance(load_path, str):
            raise ctx.error(origin, f"must be a checkpoint file or folder, got {_show(load_path)}")
        if not Path(load_path).exists():
            raise ctx.error(origin, f"{load_path!r} does not exist (relative paths start at the working directory)")
    return {
        "save_folder": save_folder,
        "save_interval": save_interval,
        "save_interval_path": interval_path,
        "load_path": load_path,
        "autoresume": autoresume,
        "autoresume_path": autoresume_path,
        "save_num_checkpoints_to_keep": keep,
        "load_weights_only": weights_only,
        "load_strict_model_weights": strict,
    }
