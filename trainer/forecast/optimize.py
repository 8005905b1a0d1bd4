"""Recommending a schedule: the lowest forecast final loss at one budget, against the config's own schedule's
(``cadence forecast ... --optimize``, docs/forecast.md, "Recommend").

The candidates keep the config's warmup and peak lr, and never raise the lr after the warmup:

- the free monotone curve that minimizes the law's final loss (:func:`trainer.forecast.monotone.best_curve`,
  as Luo et al. 2025 optimize it), written out as the piecewise-linear schedule of fewest pieces whose forecast
  is within 0.01% of it (:func:`~trainer.forecast.monotone.simplest_curve`; :func:`piecewise_schedule`: a
  ``Sequence`` of ``LinearScheduler`` pieces in ``dur``);
- every :class:`~schedulers.WarmupStableDecayScheduler` with a decay over the last :data:`DECAYS` of the run,
  of each shape in :data:`SHAPES`, to each end value in :data:`ENDS` (36; a decay that would start before the
  warmup ends is left out).

Each is forecast from the lr curve the trainer previews for its ``--set`` line: what is compared is what would
train. The recommendation says whether its 80% interval stands apart from the config's own schedule's. Which
law to fit for it (the multi-power law, on runs whose decays differ) is in docs/forecast.md.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from itertools import product
from typing import Any

import attrs
import torch

from schedulers.core.schedule import Schedule
from timeunits import Time
from trainer.forecast.errors import ForecastError
from trainer.forecast.fitted import FittedLaw
from trainer.forecast.monotone import Knots, best_curve, simplest_curve
from trainer.forecast.predict import Forecast, config_plan, config_trainer, forecaster
from trainer.forecast.recipes import ScheduleRecipe

__all__ = ["DECAYS", "ENDS", "SHAPES", "Recommendation", "piecewise_schedule", "recommend", "schedule_of_setting"]

DECAYS = ("0.1dur", "0.2dur", "0.3dur", "0.5dur", "0.7dur", "0.9dur")
SHAPES = ("linear", "cosine", "1-sqrt")
ENDS = (0.0, 0.1)
SCHEDULERS = "trainer.init.schedulers"


@attrs.frozen
class Recommendation:
    """What ``cadence forecast --optimize`` recommends, beside what it compares it with.

    Args:
        best: The forecast of the candidate with the lowest forecast final loss.
        setting: The ``--set`` line that trains ``best`` with ``cadence fit``.
        baseline: The forecast of the config's own schedule at the same budget.
        tried: Every candidate's forecast (the free curve's first, when it was tried).

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


def _recipe_warmup(recipe: ScheduleRecipe) -> str:
    """A schedule expression's warmup (its ``t_warmup``; none when its lr starts at the peak)."""
    warmup = getattr(recipe.schedule, "t_warmup", None)
    if warmup is not None:
        return str(warmup)
    if float(recipe.lrs()[0]) >= recipe.peak_lr:
        return "0ba"
    name = type(recipe.schedule).__name__
    raise ForecastError(
        f"--optimize keeps the schedule's warmup: {name} has no t_warmup and does not start at the peak"
    )


def schedule_of_setting(setting: str) -> Schedule:
    """The one schedule a candidate's ``trainer.init.schedulers=[...]`` line sets.

    Args:
        setting: A ``--set`` line of :func:`piecewise_schedule` or the WSD family.

    Returns:
        The schedule (read by the one reading of a schedule's config).

    >>> schedule = schedule_of_setting("trainer.init.schedulers=[{wsd: {t_warmup: 0ba, t_decay: 0.2dur}}]")
    >>> type(schedule).__name__, str(schedule.t_decay)
    ('WarmupStableDecayScheduler', '0.2dur')
    """
    from schedulers.core.schedule_config import schedule_from_config
    from trainer.config_reading._reading import yaml_value

    (config,) = yaml_value(setting.partition("=")[2], "--optimize")
    return schedule_from_config(config)


def _with_schedules(forecast: Any) -> Any:
    def candidate(plan: Any, label: str, extra: Sequence[str] = ()) -> Forecast:
        return forecast(plan, label, [schedule_of_setting(setting) for setting in extra])

    return candidate


def piecewise_schedule(warmup: str, knots: Knots) -> str:
    """The schedules' ``--set`` value (YAML) of a linear warmup from 0 to the peak over ``warmup``, then the
    piecewise-linear ``knots`` (multipliers of the peak; milestones in ``dur``, values to 4 decimals).

    Args:
        warmup: The warmup's length, a time string (``"20000tok"``; ``"0ba"``: none).
        knots: The curve after the warmup, its first knot at the warmup's end, its last at the run's end.

    Returns:
        A ``[{Sequence: {schedules: [...], milestones: [...]}}]`` value for ``trainer.init.schedulers``.

    >>> print(piecewise_schedule("10ba", Knots((0.1, 0.8, 1.0), (1.0, 1.0, 0.25))))  # doctest: +NORMALIZE_WHITESPACE
    [{Sequence: {schedules: [{LinearScheduler: {alpha_i: 0.0, alpha_f: 1.0}},
    {LinearScheduler: {alpha_i: 1.0, alpha_f: 1.0}}, {LinearScheduler: {alpha_i: 1.0, alpha_f: 0.25}}],
    milestones: [10ba, 0.8dur]}}]
    """
    values = [round(value, 4) for value in knots.values]
    pieces = [
        f"{{LinearScheduler: {{alpha_i: {a!r}, alpha_f: {b!r}}}}}" for a, b in zip(values[:-1], values[1:], strict=True)
    ]
    milestones = [f"{round(position, 4)!r}dur" for position in knots.positions[1:-1]]
    if Time.from_timestring(warmup).value > 0:
        pieces.insert(0, "{LinearScheduler: {alpha_i: 0.0, alpha_f: 1.0}}")
        milestones.insert(0, warmup)
    return f"[{{Sequence: {{schedules: [{', '.join(pieces)}], milestones: [{', '.join(milestones)}]}}}}]"


def _free(law: FittedLaw, forecast: Any, plan: Any, warmup: str, baseline: Forecast) -> tuple[Forecast, str]:
    """The free monotone curve's schedule (see the module docstring) and its forecast."""
    counts = baseline.counts.to(torch.float64)
    positions = torch.cat([counts.new_zeros(1), counts[:-1]]) / counts[-1]  # the run's fraction at each update
    knots = simplest_curve(law, baseline.lrs, positions, best_curve(law, baseline.lrs, positions))
    setting = f"{SCHEDULERS}={piecewise_schedule(warmup, knots)}"
    label = f"monotone, {len(knots.values) - 1} linear piece(s) to {knots.values[-1]:.2g}"
    return forecast(plan, label, [setting]), setting


def _family(forecast: Any, plan: Any, warmup: str, decays, shapes, ends) -> tuple[list[Forecast], list[str]]:
    """The WSD family's forecasts and ``--set`` lines (see the module docstring)."""
    tried, settings = [], []
    for decay, shape, end in product(decays, shapes, ends):
        value = (
            f"[{{WarmupStableDecayScheduler: {{t_warmup: {warmup}, t_decay: {decay}, decay_shape: {shape}, "
            f"alpha_f: {end}}}}}]"
        )
        setting = f"{SCHEDULERS}={value}"
        try:
            tried.append(forecast(plan, f"wsd {decay} {shape} to {end:g}", [setting]))
        except ValueError:  # the decay would start before the warmup ends: not a schedule of the family
            continue
        settings.append(setting)
    return tried, settings


def recommend(
    law: FittedLaw,
    config: str | os.PathLike | ScheduleRecipe,
    *,
    overrides: Sequence[str] = (),
    budget: Any = None,
    ssr: Any = None,
    flags: Any = None,
    decays: Sequence[str] = DECAYS,
    shapes: Sequence[str] = SHAPES,
    ends: Sequence[float] = ENDS,
    free: bool = True,
) -> Recommendation:
    """Forecast every candidate (see the module docstring) at one budget and recommend the lowest.

    Args:
        law: A fitted law.
        config: The config whose recipe is forecast, or a schedule expression's
            :class:`~trainer.forecast.recipes.ScheduleRecipe` (its warmup kept; each candidate in its place).
        overrides: ``--set`` values for it.
        budget: A run length (``"1dur"``), or None.
        ssr: A scale schedule ratio, or None (neither: the config's own run).
        flags: Command-line flags for the config, as ``cadence fit`` takes them.
        decays: The decay lengths of the WSD family (fractions of the run; none: no family).
        shapes: The decay shapes.
        ends: The end values (fractions of the peak lr).
        free: Whether the free monotone curve is a candidate.

    Returns:
        A :class:`Recommendation`: the lowest forecast with its ``--set`` line, beside the config's own schedule's
        forecast and every candidate's.

    Raises:
        ForecastError: The config has no single lr schedule with a warmup to keep, or no candidate fits it.

    >>> (len(DECAYS) * len(SHAPES) * len(ENDS), ENDS)
    (36, (0.0, 0.1))
    """
    recipe = isinstance(config, ScheduleRecipe)
    probe = None if recipe else config_trainer(config, overrides, flags)
    warmup = _recipe_warmup(config) if recipe else _warmup(probe)
    plan = None
    if budget is not None or ssr is not None:
        once = (None if budget is None else [budget], None if ssr is None else [ssr])
        (plan,) = config_plan(config, overrides, flags, *once, probe=probe)
    forecast = forecaster(law, config, overrides, flags)
    if recipe:  # each candidate's --set line read as the schedule it sets, forecast in the expression's place
        forecast = _with_schedules(forecast)
    baseline = forecast(plan, "the --schedule given" if recipe else "the config's schedule")
    tried, settings = _family(forecast, plan, warmup, decays, shapes, ends)
    if free:
        found, setting = _free(law, forecast, plan, warmup, baseline)
        tried, settings = [found, *tried], [setting, *settings]
    if not tried:
        raise ForecastError(f"--optimize: no candidate schedule fits the config's warmup {warmup}")
    best = min(range(len(tried)), key=lambda i: tried[i].final_loss)
    return Recommendation(tried[best], settings[best], baseline, tried)
