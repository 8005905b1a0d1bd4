"""The trainer a config builds (:class:`ConfiguredTrainer`) and :func:`trainer_from_config`.

This module sits above both ``trainer.trainer`` and the config's checking and building
(:mod:`trainer.config._arguments`), which do not import it: ``Trainer.from_config`` goes through
``_arguments`` directly, so no import cycle joins the trainer and its configuration.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from trainer.config._arguments import trainer_arguments
from trainer.config._overrides import apply_overrides
from trainer.config._run import ConfiguredRun, register_configured
from trainer.config._sambaflow_flags import apply_sambaflow_flags
from trainer.config._yaml import load_config
from trainer.trainer import Trainer


class ConfiguredTrainer(ConfiguredRun, Trainer):
    """The :class:`~trainer.Trainer` a config builds: the same trainer, plus ``num_steps`` and a loss history.

    ``num_steps`` (``loop.num_steps``, ``--steps_this_run``) is how many optimizer steps one ``fit()`` takes at
    most, counted from the timestamp it starts at (after a resume); ``max_duration`` stays the horizon every
    schedule sees. ``config`` is the configuration it was built from, ``loss_history`` a
    :class:`~trainer.config.LossHistory`.
    """


register_configured(Trainer, ConfiguredTrainer)  # Trainer.from_config builds this class


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
    The same as ``ConfiguredTrainer.from_config(config, base_dir, sources=sources)``.
    """
    return trainer_arguments(config, base_dir, sources=sources).construct(ConfiguredTrainer)


def trainer_from_command_line(
    path: str | os.PathLike,
    overrides: Sequence[str] = (),
    flags: Any = None,
    *,
    flag_overrides: Sequence[tuple[str, str]] = (),
) -> ConfiguredTrainer:
    """The trainer ``cadence fit PATH [SambaFlow flags] --set KEY=VALUE ...`` builds: the YAML file, then the
    SambaFlow ``flags`` (an argparse namespace, or None), then the ``--set`` ``overrides``, each key path
    remembering the flag that set it so that an error names it (``cadence fit``, ``plot`` and ``sweep`` alike).
    ``flag_overrides`` are ``(KEY=VALUE, flag)`` pairs applied last: a key another flag of the command sets,
    which errors name by that flag (``("trainer.init.loop.scale_schedule_ratio=0.5", "--ssr 0.5")``)."""
    config = load_config(path)
    sources: dict[str, str] = {}
    if flags is not None:
        config = apply_sambaflow_flags(config, flags, sources=sources)
    config = apply_overrides(config, list(overrides), sources=sources)
    for override, flag in flag_overrides:
        config = apply_overrides(config, [override], sources=sources, flag=flag)
    return trainer_from_config(config, base_dir=Path(path).parent, sources=sources)
