"""Recommending a schedule: the forecast final loss over a family of warmup-stable-decay schedules, at one
budget, against the config's own schedule (``cadence forecast ... --optimize``, docs/forecast.md).

The family is every :class:`~schedulers.WarmupStableDecayScheduler` with the config's warmup, a decay over the
last :data:`DECAYS` of the run, of each shape in :data:`SHAPES`, to each end value in :data:`ENDS` (36
monotone schedules after the warmup; linear, cosine or square-root decays to 0 are in it; a decay that would
start before the warmup ends is left out). A parametric family
rather than a free monotone curve: each candidate is a schedule Cadence trains as it is written (the ``--set``
line printed), previewed as the trainer would run it, and a free curve fitted to a law that was never shown
such shapes would recommend what the law cannot know. The recommendation says whether its 80% interval
stands apart from the config's own schedule's.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from typing import Any

from trainer.forecast.errors import ForecastError
from trainer.forecast.fitted import FittedLaw
from trainer.forecast.predict import Forecast, config_plan, config_trainer, forecaster

__all__ = ["DECAYS", "ENDS", "SHAPES", "Recommendation", "recommend"]

DECAYS = ("0.1dur", "0.2dur", "0.3dur", "0.5dur", "0.7dur", "0.9dur")
SHAPES = ("linear", "cosine", "1-sqrt")
ENDS = (0.0, 0.1)


@dataclass(frozen=True)
class Recommendation:
    """What ``cadence forecast --optimize`` recommends, beside what it compares it with.

    Args:
        best: The forecast of the family's schedule with the lowest forecast final loss.
        setting: The ``--set`` line that trains ``best`` with ``cadence fit``.
        baseline: The forecast of the config's own schedule at the same budget.
        tried: Every candidate's forecast.

    Returns:
        The recommendation; :attr:`apart` says whether the intervals tell ``best`` from ``baseline``.

    >>> from types import SimpleNamespace
    >>> best, baseline = SimpleNamespace(final_interval=(2.0, 2.1)), SimpleNamespace(final_interval=(2.05, 2.2))
    >>> Recommendation(best, "--set ...", baseline, [best, baseline]).apart  # the intervals overlap
    False
    """

    best: Forecast
    setting: str
    baseline: Forecast
    tried: list[Forecast]

    @property
    def apart(self) -> bool | None:
        """True when the best's interval lies wholly below the baseline's (None without intervals)."""
        ours, theirs = self.best.final_interval, self.baseline.final_interval
        return None if ours is None or theirs is None else ours[1] < theirs[0]


def _warmup(probe: Any) -> str:
    """The config's warmup, kept by every candidate (its one lr schedule's ``t_warmup``)."""
    schedules = probe.scheduled.schedules
    if len(schedules) != 1 or probe.scheduled.others:
        raise ForecastError("--optimize replaces the config's lr schedule: it needs a config with exactly one")
    label, schedule, _ = schedules[0]
    warmup = getattr(schedule, "t_warmup", None)
    if warmup is None:
        raise ForecastError(f"--optimize keeps the config's warmup: {label} ({type(schedule).__name__}) has none")
    return str(warmup)


def recommend(
    law: FittedLaw,
    config: str | os.PathLike,
    *,
    overrides: Sequence[str] = (),
    budget: Any = None,
    ssr: Any = None,
    flags: Any = None,
    decays: Sequence[str] = DECAYS,
    shapes: Sequence[str] = SHAPES,
    ends: Sequence[float] = ENDS,
) -> Recommendation:
    """Forecast every schedule of the family (see the module docstring) at one budget and recommend the lowest.

    Args:
        law: A fitted law.
        config: The config whose recipe is forecast.
        overrides: ``--set`` values for it.
        budget: A run length (``"1dur"``), or None.
        ssr: A scale schedule ratio, or None (neither: the config's own run).
        flags: Command-line flags for the config, as ``cadence fit`` takes them.
        decays: The decay lengths of the family (fractions of the run).
        shapes: The decay shapes.
        ends: The end values (fractions of the peak lr).

    Returns:
        A :class:`Recommendation`: the lowest forecast of the family with its ``--set`` line, beside the config's
        own schedule's forecast and every candidate's.

    Raises:
        ForecastError: The config has no single lr schedule with a warmup to keep.

    >>> (len(DECAYS) * len(SHAPES) * len(ENDS), ENDS)
    (36, (0.0, 0.1))
    """
    probe = config_trainer(config, overrides, flags)
    warmup = _warmup(probe)
    plan = None
    if budget is not None or ssr is not None:
        once = (None if budget is None else [budget], None if ssr is None else [ssr])
        (plan,) = config_plan(config, overrides, flags, *once, probe=probe)
    forecast = forecaster(law, config, overrides, flags)
    baseline = forecast(plan, "the config's schedule")
    tried, settings = [], []
    for decay, shape, end in product(decays, shapes, ends):
        value = (
            f"[{{WarmupStableDecayScheduler: {{t_warmup: {warmup}, t_decay: {decay}, decay_shape: {shape}, "
            f"alpha_f: {end}}}}}]"
        )
        setting = f"trainer.init.schedulers={value}"
        try:
            tried.append(forecast(plan, f"wsd {decay} {shape} to {end:g}", [setting]))
        except ValueError:  # the decay would start before the warmup ends: not a schedule of the family
            continue
        settings.append(setting)
    if not tried:
        raise ForecastError(f"--optimize: no schedule of the family fits the config's warmup {warmup}")
    best = min(range(len(tried)), key=lambda i: tried[i].final_loss)
    return Recommendation(tried[best], settings[best], baseline, tried)
