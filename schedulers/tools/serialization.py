"""Schedules as plain configs and back: ``{ClassName: {argument: value, ...}}``, YAML- and JSON-safe.

:func:`schedule_to_config` writes a schedule as a one-key mapping from its registered class name to its
constructor arguments: times as time strings (``"0.05dur"``, ``"10ep"``), numbers, bools, strings and
``None`` as themselves, lists as lists, and nested schedules (``Warmup.schedule``, ``Sequence.schedules``,
``Product.schedules``) as nested configs. :func:`schedule_from_config` is the inverse; it looks names up in
the registry (:func:`schedulers.core.names.get_scheduler`), so aliases and any case work there too. The layout
is the one the trainer's YAML uses for an entry of ``trainer.init.schedulers``.

>>> from schedulers import CosineAnnealingWithWarmupScheduler
>>> config = schedule_to_config(CosineAnnealingWithWarmupScheduler(t_warmup="0.05dur", alpha_f=0.1))
>>> config["CosineAnnealingWithWarmupScheduler"]
{'t_warmup': '0.05dur', 't_max': '1.0dur', 'alpha_f': 0.1, 'scale_warmup': False}
>>> schedule_from_config({"cosine_with_warmup": {"t_warmup": "0.05dur", "alpha_f": 0.1}})
CosineAnnealingWithWarmupScheduler(t_warmup='0.05dur', t_max='1.0dur', alpha_f=0.1, scale_warmup=False)

Every argument is written by default, defaults included, so a saved config rebuilds the same schedule
even if a default changes in a later release, and it records every hyperparameter of the run;
``include_defaults=False`` writes only the arguments that differ from the defaults (required ones always).

A schedule *is* its class plus its config: :func:`schedules_equal` compares exactly that (for Cadence's
frozen attrs schedule classes it agrees with ``==``). A schedule class must be registered; its arguments are
its attrs fields. ``as_schedule(fn)`` schedules are functions of the state and have no config
(:class:`ScheduleNotSerializableError`). The conversion itself lives in :mod:`schedulers.core.schedule_config`, so that
``Schedule.to_config()`` / ``Schedule.from_config()`` need nothing outside the engine.
"""

from __future__ import annotations

from schedulers.core.schedule_config import (
    ScheduleConfigError,
    ScheduleNotSerializableError,
    schedule_from_config,
    schedule_to_config,
)

__all__ = [
    "ScheduleConfigError",
    "ScheduleNotSerializableError",
    "schedule_from_config",
    "schedule_to_config",
    "schedules_equal",
]


def schedules_equal(a: object, b: object) -> bool:
    """Whether two schedules are the same schedule: the same class and the same :func:`schedule_to_config`.

    Args:
        a: A schedule.
        b: Another schedule.

    Returns:
        True when both are of one class and their configs are equal (arguments written differently but meaning
        the same time, ``"1dur"`` and ``"1.0dur"``, compare equal).

    Raises:
        ScheduleNotSerializableError: A schedule of a class the config cannot write.

    >>> from schedulers import CosineAnnealingScheduler
    >>> schedules_equal(CosineAnnealingScheduler("1dur"), CosineAnnealingScheduler(t_max="1.0dur"))
    True
    """
    if type(a) is not type(b):
        return False
    return schedule_to_config(a) == schedule_to_config(b)  # type: ignore[arg-type]
