"""A config read into the trainer's arguments: below :mod:`trainer.trainer`, which builds from it.

:mod:`trainer.config` is the public face (``trainer_from_config``, ``ConfiguredTrainer``); it and
``Trainer.from_config`` build from :func:`trainer.config_reading._build.trainer_arguments`. Each module reads one
thing:

* ``_reading``: the YAML file, one mapping against its key table, and the ``ConfigError`` naming a key path;
* ``_schema``: every key's table (docs/trainer-config.md);
* ``_objects``: the Python objects a config names, and the optimizer;
* ``_schedulers_section``: ``trainer.init.schedulers``, through the one reader of the ``{Name: {arguments}}``
  layout, :func:`schedulers.core.schedule_config.read_schedule_config`;
* ``_command_line``: what the command line layers on the file (SambaFlow flags and ``--set``);
* ``_build``: the rules between keys, and the trainer's arguments.

Nothing here imports :mod:`trainer.trainer` or :mod:`trainer.config` (docs/architecture.md).
"""
