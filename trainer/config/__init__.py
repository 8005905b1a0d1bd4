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

The modules, each reading one thing: ``_command_line`` (the YAML file, SambaFlow flags, ``--set``),
``_schema`` (every key's table, read by ``_reading.read_section``), ``_objects`` (the Python objects a config
names, and the optimizer), ``_schedulers`` (``trainer.init.schedulers``, through the one reader of the
``{Name: {arguments}}`` layout, :func:`schedulers.core.config.read_schedule_config`), ``_build`` (the rules
between keys, and the trainer's arguments) and ``_configured`` (the trainer a config builds).

>>> config = {"trainer": {"init": {"model": "torch.nn:Identity", "optimizer": {"SGD": {"lr": 0.1}},
...                                "schedulers": [{"CosineDecayLRR": {}}], "loop": {"max_steps": 10}},
...                       "fit": {"train_dataloader": "builtins:list"}}}
>>> try:
...     trainer_from_config(config)
... except ConfigError as error:
...     print(error)
trainer.init.schedulers[0].CosineDecayLRR: unknown schedule 'CosineDecayLRR' (did you mean CosineDecayLR, ...?); see ...
"""

from __future__ import annotations

from trainer.config._build import LossHistory
from trainer.config._command_line import apply_overrides, apply_sambaflow_flags, load_config, parse_override
from trainer.config._configured import ConfiguredTrainer, run_summary, trainer_from_command_line, trainer_from_config
from trainer.config._reading import ConfigError, ConfigWarning

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
