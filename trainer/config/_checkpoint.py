"""``trainer.init.checkpoint`` (with ``trainer.fit.ckpt_path`` and ``trainer.init.model_dir``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from timeunits import Time, TimeUnit
from trainer.config._context import _Context
from trainer.config._read import read_section
from trainer.config._schema import CHECKPOINT, INIT
from trainer.config._values import check_output


def _checkpoint(init: dict, fit: dict, ctx: _Context) -> dict[str, Any]:
    """The trainer's checkpoint arguments from ``trainer.init.checkpoint``, ``trainer.fit.ckpt_path`` and
    ``trainer.init.model_dir`` (plus the key paths of the interval and of autoresume, for error messages)."""
    path = CHECKPOINT.path
    given = read_section(CHECKPOINT, init["checkpoint"], ctx)
    interval_path = f"{path}.steps" if given["steps"] is not None else f"{path}.save_interval"
    save_interval = Time(given["steps"], TimeUnit.BATCH) if given["steps"] is not None else given["save_interval"]
    autoresume_key = "autoresume" if given["autoresume"] else "autoload_last_checkpoint"  # the one given (exclusive)
    autoresume = given["autoload_last_checkpoint"] or given["autoresume"]
    strict = given["load_strict_model_weights"] and not given["disable_strict_checkpoint_loading"]
    if not strict and not given["load_weights_only"]:
        ctx.warn(
            f"{path}.load_weights_only",
            "non-strict loading applies to weights-only loads (load_weights_only: true); resuming a run loads "
            "everything strictly",
        )
    save_folder = _save_folder(given["save_folder"], init["model_dir"], save_interval is not None or autoresume, ctx)
    for key, needed in (
        (interval_path, save_interval is not None),
        (f"{path}.{autoresume_key}", autoresume),
        (f"{path}.save_num_checkpoints_to_keep", given["save_num_checkpoints_to_keep"] is not None),
    ):
        if needed and save_folder is None:
            raise ctx.error(key, _NEEDS_FOLDER[key.rsplit(".", 1)[1]])
    return {
        "save_folder": save_folder,
        "save_interval": save_interval,
        "save_interval_path": interval_path,
        "load_path": _load_path(given["load_path"], fit.get("ckpt_path"), ctx),
        "autoresume": autoresume,
        "autoresume_path": f"{path}.{autoresume_key}",
        "save_num_checkpoints_to_keep": given["save_num_checkpoints_to_keep"],
        "load_weights_only": given["load_weights_only"],
        "load_strict_model_weights": strict,
    }


_FOLDER = "trainer.init.checkpoint.save_folder"
_NEEDS_FOLDER = {
    "steps": f"needs {_FOLDER} (the folder to write checkpoints to)",
    "save_interval": f"needs {_FOLDER} (the folder to write checkpoints to)",
    "autoload_last_checkpoint": f"needs {_FOLDER} (it resumes from the latest checkpoint there)",
    "autoresume": f"needs {_FOLDER} (it resumes from the latest checkpoint there)",
    "save_num_checkpoints_to_keep": f"needs {_FOLDER}",
}


def _save_folder(save_folder: str | None, model_dir: str | None, saving: bool, ctx: _Context) -> str | None:
    """``save_folder``; else Cerebras's ``model_dir`` when saving is asked for (Cerebras saves there)."""
    if model_dir is None:
        return save_folder
    if save_folder is None and saving:
        check_output(model_dir, "trainer.init.model_dir", ctx, folder=True)
        return model_dir
    ctx.warn(
        "trainer.init.model_dir", f"Cadence does not use this Cerebras setting ({INIT.ignored['model_dir']}); ignored"
    )
    return save_folder


def _load_path(load_path: str | None, ckpt_path: str | None, ctx: _Context) -> str | None:
    if load_path is not None and ckpt_path is not None:
        raise ctx.error(
            "trainer.fit.ckpt_path", f"give only one checkpoint to load ({CHECKPOINT.path}.load_path is also set)"
        )
    origin = f"{CHECKPOINT.path}.load_path" if load_path is not None else "trainer.fit.ckpt_path"
    chosen = load_path if load_path is not None else ckpt_path
    if chosen is not None and not Path(chosen).exists():
        raise ctx.error(origin, f"{chosen!r} does not exist (relative paths start at the working directory)")
    return chosen
