"""Build a :class:`~trainer.Trainer` from a YAML file or a dict in the Cerebras Model Zoo layout.

The layout (every key is in docs/trainer-config.md)::

    trainer:
      init:
        model: "module:function"                  # or {factory: "module:function", kwargs: {...}}
        optimizer: {SGD: {lr: 0.01, momentum: 0.9}}
        schedulers:                               # any registry name: Cerebras, SambaFlow, Composer, Cadence
          - SequentialLR:
              schedulers:
                - LinearLR: {initial_learning_rate: 0.01, end_learning_rate: 0.001, total_iters: 500}
                - CosineDecayLR: {initial_learning_rate: 0.001, end_learning_rate: 0.0001, total_iters: 500}
        loop: {max_steps: 1000, num_steps: 250, eval_frequency: 100}
        checkpoint: {save_folder: run, steps: 100}
        seed: 1
      fit:
        train_dataloader: "module:function"
        val_dataloader: "module:function"

``load_config`` reads YAML with the YAML 1.2 float rule (``1e-3`` is a float), ``apply_sambaflow_flags`` and
``apply_overrides`` (``--set key.path=value``) layer the command line on top, and ``trainer_from_config``
checks everything and builds the trainer. Every mistake is a :class:`ConfigError` (a ``ValueError``) raised
before training starts, naming the key path (``trainer.init.schedulers[0].SequentialLR.schedulers[1]``) and
what is accepted there; known Cerebras keys Cadence does not use are a :class:`ConfigWarning` naming them.

Run length (``loop``): ``max_steps`` (or ``num_epochs``, or ``max_duration`` in any unit) is the global
horizon — it becomes the trainer's ``max_duration``, which every schedule's ``dur`` and the run's end refer
to. ``num_steps`` is the number of optimizer steps *this run* takes, counted from where it starts (a resumed
run starts at the checkpoint's batch): the run stops after ``min(start + num_steps, horizon)`` without
changing the horizon, so the schedules follow the same curve however a run is split (Cerebras ``num_steps``,
SambaFlow ``--steps_this_run``). With ``num_steps`` alone the horizon is ``num_steps`` batches.

This module is the public face: the trainer a config builds, so it sits above :mod:`trainer.trainer`. The
reading is below the trainer, in :mod:`trainer.config_reading` (one module per thing read), which
``Trainer.from_config`` builds from without importing this module: nothing imports in a circle
(docs/architecture.md).

>>> config = {"trainer": {"init": {"model": "torch.nn:Identity", "optimizer": {"SGD": {"lr": 0.1}},
...                                "schedulers": [{"CosineDecayLRR": {}}], "loop": {"max_steps": 10}},
...                       "fit": {"train_dataloader": "builtins:list"}}}
>>> try:
...     trainer_from_config(config)
... except ConfigError as error:
...     print(error)
trainer.init.schedulers[0].CosineDecayLRR: unknown schedule 'CosineDecayLRR' (did you mean CosineDecayLR, ...?); ...
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from timeunits import TimeUnit
from trainer.config_reading._build import LossHistory, trainer_arguments
from trainer.config_reading._command_line import apply_overrides, apply_sambaflow_flags, parse_override
from trainer.config_reading._reading import ConfigError, ConfigWarning, load_config
from trainer.report import reductions_summary
from trainer.trainer import ConfiguredTrainer

__all__ = [
    "ConfigError",
    "ConfigWarning",
    "ConfiguredTrainer",
    "LossHistory",
    "apply_overrides",
    "apply_sambaflow_flags",
    "load_config",
    "parse_override",
    "run_summary",
    "trainer_from_command_line",
    "trainer_from_config",
]


def trainer_from_config(
    config: dict | str | os.PathLike,
    base_dir: str | os.PathLike | None = None,
    *,
    sources: dict[str, str] | None = None,
) -> ConfiguredTrainer:
    """Check ``config`` and build its trainer; call ``.fit()`` on the result to train.

    ``module:function`` references are imported with ``base_dir`` (the config file's folder) and the working
    directory on ``sys.path``. The structure, names, argument lists and imports are checked before any factory
    runs; the model and loaders are built next; then the trainer builds the optimizer and schedulers and checks
    them against the run (units, horizons, tokens). The same as ``ConfiguredTrainer.from_config(config,
    base_dir, sources=sources)``.

    Args:
        config: a dict in the layout of docs/trainer-config.md, or a YAML file's path (read with
            :func:`load_config`; ``base_dir`` then defaults to its folder).
        base_dir: the folder ``module:function`` references are imported from, besides the working directory.
        sources: key paths -> the flag that set them (the CLI fills it), to name the flag in errors.

    Returns:
        The :class:`ConfiguredTrainer` the config describes, checked, ready for ``.fit()``.

    Raises:
        ConfigError: any mistake, before the first batch, naming its key path (and the flag that set it).

    Example:
        >>> config = {"trainer": {"init": {"model": "torch.nn:Identity", "optimizer": {"SGD": {"lr": 0.1}},
        ...                                "schedulers": [{"cosine": {"alpha_ff": 0.1}}], "loop": {"max_steps": 10}},
        ...                       "fit": {"train_dataloader": "builtins:list"}}}
        >>> try:
        ...     trainer_from_config(config)
        ... except ConfigError as error:
        ...     print(error)
        trainer.init.schedulers[0].cosine.alpha_ff: CosineAnnealingScheduler got an unexpected keyword argument
        'alpha_ff' (did you mean 'alpha_f'?); accepted: CosineAnnealingScheduler(t_max='1dur', alpha_f=0.0)
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
    SambaFlow ``flags``, then the ``--set`` ``overrides``, each key path remembering the flag that set it so
    that an error names it (``cadence fit``, ``plot`` and ``sweep`` alike).

    Args:
        path: the YAML file.
        overrides: ``KEY.PATH=VALUE`` texts, applied in order after the flags.
        flags: the argparse namespace of :func:`schedulers.sambaflow.add_lr_schedule_args` (or a mapping, or
            None).
        flag_overrides: ``(KEY=VALUE, flag)`` pairs applied last: a key another flag of the command sets, which
            errors name by that flag (``("trainer.init.loop.scale_schedule_ratio=0.5", "--ssr 0.5")``).

    Returns:
        The :class:`ConfiguredTrainer` of the merged config, ready for ``.fit()``.

    Raises:
        ConfigError: a mistake in the file, a flag or an override, naming the key path and the flag.

    Example:
        >>> import tempfile
        >>> from pathlib import Path
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     file = Path(folder) / "run.yaml"
        ...     _ = file.write_text("trainer: {init: {model: {factory: 'torch.nn:Linear', kwargs: {in_features: 2, "
        ...                         "out_features: 1}}, optimizer: SGD, loop: {max_steps: 4}}, "
        ...                         "fit: {train_dataloader: 'itertools:count'}}")
        ...     trainer = trainer_from_command_line(file, ["trainer.init.loop.max_steps=8"])
        >>> str(trainer.state.max_duration)
        '8ba'
    """
    config = load_config(path)
    sources: dict[str, str] = {}
    if flags is not None:
        config = apply_sambaflow_flags(config, flags, sources=sources)
    config = apply_overrides(config, list(overrides), sources=sources)
    for override, flag in flag_overrides:
        config = apply_overrides(config, [override], sources=sources, flag=flag)
    return trainer_from_config(config, base_dir=Path(path).parent, sources=sources)


def run_summary(trainer: Any) -> str:
    """One line about a finished ``fit()``: the batches trained, the first and last losses, the last evaluation,
    and the plateau reductions of this run (:func:`trainer.report.reductions_summary`).

    Args:
        trainer: a trainer a config built (it has a ``loss_history``).

    Returns:
        The line, without a trailing newline.

    Raises:
        AttributeError: ``trainer`` has no ``loss_history`` (it was not built from a config).

    Example:
        >>> from types import SimpleNamespace
        >>> from timeunits import Time, Timestamp
        >>> history = LossHistory()
        >>> history.start_batch = 0
        >>> for loss in (1.5, 0.5):
        ...     history.on_batch_end(None, loss)
        >>> state = SimpleNamespace(timestamp=Timestamp(batch=2), max_duration=Time(2, "ba"))
        >>> print(run_summary(SimpleNamespace(loss_history=history, state=state)))
        trained batches 0-2 (2 this run) of 2ba; loss 1.5000 (first batch) -> 0.5000 (last batch);
        mean of the first/last 2: 1.0000 -> 1.0000
    """
    history = trainer.loss_history
    state = trainer.state
    end = state.timestamp
    start = history.start_batch if history.start_batch is not None else 0
    unit = state.max_duration.unit
    progress = f"{end.get(unit)} of {state.max_duration}" if unit is not TimeUnit.BATCH else f"of {state.max_duration}"
    parts = [f"trained batches {start}-{end.batch.value} ({history.count} this run) {progress}"]
    if history.count:
        first, last = history.first[0], history.last[-1]
        parts.append(f"loss {first:.4f} (first batch) -> {last:.4f} (last batch)")
        if history.count > 1:
            window = min(history.window, history.count)
            head = sum(history.first[:window]) / window
            tail = sum(list(history.last)[-window:]) / window
            parts.append(f"mean of the first/last {window}: {head:.4f} -> {tail:.4f}")
    if history.eval_metrics:
        parts.append(", ".join(f"{k} {v:.4f}" for k, v in history.eval_metrics.items()))
    reductions = reductions_summary(getattr(trainer, "decisions", []))  # docs/plateau.md: in the run's end line
    if reductions is not None:
        parts.append(reductions)
    return "; ".join(parts)
