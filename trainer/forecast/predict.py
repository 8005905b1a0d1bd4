"""Forecasting runs of a config with a fitted law, and choosing with the forecasts.

The lr curve of a forecast comes from the trainer the config describes, built as ``cadence fit`` builds it
and stepped through its run by :meth:`trainer.Trainer.preview` (as ``cadence plot CONFIG`` does,
:func:`trainer.plot_config.simulate_config_run`): what is forecast is what would train. A budget is what
``cadence sweep`` calls one (:func:`trainer.sweep.plan.config_budgets`): a run length (``0.5dur`` of the
config's horizon, ``600ba``, ``2e6tok``) or a scale schedule ratio.

- :func:`forecast_config`: the loss curve and the final loss of the config at each budget.
- :func:`smallest_budget`: the smallest budget predicted to reach a target loss (bisection between budgets).
- :func:`best_of_grid`: at one budget, the best value of one config key (a schedule argument) of a grid.

In place of a config, :func:`forecast_config` and :func:`smallest_budget` take a
:class:`~trainer.forecast.recipes.ScheduleRecipe`: a schedule expression over a run, its lr curve the one
``python -m schedulers plot`` draws (``cadence forecast --schedule``).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import torch

from schedulers.core.schedule import Schedule
from timeunits import Time
from trainer.forecast.errors import ForecastError
from trainer.forecast.fitted import PEAK_MARGIN, FittedLaw
from trainer.forecast.laws import warmup_updates
from trainer.forecast.recipes import ScheduleRecipe
from trainer.sweep.plan import MAX_DURATION, SSR, Budget, config_budgets

__all__ = [
    "Forecast",
    "best_of_grid",
    "curve_updates",
    "forecast_config",
    "forecast_lrs",
    "law_updates",
    "smallest_budget",
]

_LR_GROUP = re.compile(r"lr/group\d+$")
#: the most points of a forecast curve (evenly spaced updates, the last one included)
CURVE_POINTS = 400


@attrs.frozen
class Forecast:
    """The forecast of one run: its lr at every update, the loss after ``updates[i]`` updates (``losses``),
    the x of every update in ``unit`` (``"token"`` or ``"sample"``: the count after it), and why the forecast
    extrapolates (``warnings``: empty when the run lies within the fitted range).

    Args:
        label: What the forecast is named in tables and legends (a budget's name, ``key=value`` of a grid).
        lrs: The lr of every update of the run (float64).
        counts: The tokens (or samples) trained after each update, the pictures' x.
        unit: What ``counts`` counts: ``"token"`` or ``"sample"``.
        updates: The update counts the losses are forecast after (>= 1, increasing, the last one included).
        losses: The forecast loss after each of ``updates``.
        warnings: Why the forecast extrapolates beyond the fitted runs (:meth:`FittedLaw.range_warnings`).
        budget: The budget the run was forecast at; None: the config's own run.
        low: The lower end of each loss's interval (:meth:`FittedLaw.interval`); None without one.
        high: The upper end of each loss's interval; None without one.

    Returns:
        The forecast :func:`forecast_lrs` makes (frozen): its final loss, count and interval as properties.

    >>> lrs = torch.tensor([1.0, 1.0, 0.5], dtype=torch.float64)
    >>> forecast = Forecast("run", lrs, torch.tensor([8.0, 16.0, 24.0]), "sample", torch.tensor([2, 3]),
    ...                     torch.tensor([2.5, 2.25], dtype=torch.float64))
    >>> forecast.batches, forecast.final_loss, forecast.final_count, forecast.final_interval
    (3, 2.25, 24, None)
    """

    label: str
    lrs: torch.Tensor
    counts: torch.Tensor
    unit: str
    updates: torch.Tensor
    losses: torch.Tensor
    warnings: tuple[str, ...] = ()
    budget: Budget | None = None
    low: torch.Tensor | None = None  # the 80% interval of each loss (FittedLaw.interval); None without one
    high: torch.Tensor | None = None

    @property
    def final_interval(self) -> tuple[float, float] | None:
        """The interval of the final loss (``(low, high)``), or None for a law saved without its covariance."""
        return None if self.low is None or self.high is None else (float(self.low[-1]), float(self.high[-1]))

    @property
    def batches(self) -> int:
        """The length of the forecast run.

        Returns:
            The batches (updates) the run trains: one per entry of ``lrs``.
        """
        return len(self.lrs)

    @property
    def final_loss(self) -> float:
        """The loss after the last update (what the run's final evaluation measures)."""
        return float(self.losses[-1])

    @property
    def final_count(self) -> int:
        """Where the run ends on the x axis.

        Returns:
            The tokens (or samples, per ``unit``) trained after the last update, as a whole number.
        """
        return int(self.counts[-1])


def curve_updates(batches: int, points: int = CURVE_POINTS) -> torch.Tensor:
    """At most ``points`` update counts from 1 to ``batches``, evenly spaced, ``batches`` included.

    Args:
        batches: The updates of the run (its last update count).
        points: The most update counts to give.

    Returns:
        An int64 tensor of increasing update counts: every one of ``1..batches`` when they are at most
        ``points``, else ``points`` of them (fewer when rounding repeats one), evenly spaced.

    >>> curve_updates(10, 4).tolist()
    [1, 4, 7, 10]
    """
    if batches <= points:
        return torch.arange(1, batches + 1)
    return torch.unique(torch.linspace(1, batches, points).round().to(torch.int64))


def law_updates(lrs: torch.Tensor, points: int = CURVE_POINTS) -> torch.Tensor:
    """Where a law's curve is drawn: :func:`curve_updates` once the warmup is over (the law is fitted there) and
    once some lr has been trained with (before, nothing is learnt), and always the last update.

    Args:
        lrs: The lr of every update of the run.
        points: The most update counts of :func:`curve_updates` to start from.

    Returns:
        The update counts of :func:`curve_updates` after the warmup (:func:`~trainer.forecast.laws.warmup_updates`)
        whose lr area is > 0; empty when the lr is 0 throughout.

    >>> law_updates(torch.tensor([0.0, 0.5, 1.0, 1.0, 0.5])).tolist()
    [3, 4, 5]
    """
    updates = curve_updates(len(lrs), points)
    keep = (updates > warmup_updates(lrs)) & (torch.cumsum(lrs, 0)[updates - 1] > 0)
    return updates[keep]


def forecast_lrs(
    law: FittedLaw, lrs: torch.Tensor, counts: torch.Tensor, unit: str, *, label: str, budget: Budget | None = None
) -> Forecast:
    """The forecast of a run that trains with ``lrs`` (one per update).

    Args:
        law: The fitted law that forecasts.
        lrs: The lr of every update of the run (as previewed), in the units of the law's lr column.
        counts: The tokens (or samples) trained after each update.
        unit: What ``counts`` counts: ``"token"`` or ``"sample"``.
        label: The forecast's name (in errors, tables and legends).
        budget: The budget the run is at, kept on the forecast; None: the config's own run.

    Returns:
        The :class:`Forecast` of the loss at :func:`law_updates` of the run, with its interval (when the law has a
        covariance) and the law's range warnings for these lrs.

    Raises:
        ForecastError: When the lr is 0 throughout (no law applies) or the run ends in its warmup (the lr still rises
            at its last update: the law is fitted after the warmup); from :meth:`FittedLaw.predict` and
            :meth:`FittedLaw.interval`, named by ``label``: the fit failed, the run decays and the fitted runs did
            not, or a loss or bound is not finite or not above 0.

    >>> from trainer.forecast.laws import AnnealingLaw
    >>> law = FittedLaw(AnnealingLaw(0.9), {"L0": 2.0, "A": 1.0, "alpha": 0.5, "C": 0.1}, 0.1, 0.01, 0.01, 3,
    ...                 "train/loss", "lr/group0", runs=[{"s1": 8.0, "s2": 4.0, "peak_lr": 0.1}])
    >>> lrs = torch.tensor([0.1, 0.1, 0.1, 0.05], dtype=torch.float64)
    >>> forecast = forecast_lrs(law, lrs, torch.tensor([8.0, 16.0, 24.0, 32.0]), "sample", label="wsd")
    >>> forecast.updates.tolist(), round(forecast.final_loss, 4), forecast.warnings
    ([1, 2, 3, 4], 2.4845, ())
    """
    updates = law_updates(lrs)
    if len(updates) == 0:
        raise ForecastError(f"{label}: the run's lr is 0 throughout: no law applies")
    if _ends_in_warmup(law, lrs):
        raise ForecastError(
            f"{label}: the run ends in its warmup (its lr still rises at its last batch, {len(lrs)}): outside what "
            "the fit can say (the law is fitted after the warmup); give a budget past the warmup"
        )
    try:  # a loss or a bound the fit cannot support is refused by the law, in one line: named here
        losses = law.predict(lrs, updates)
        band = law.interval(lrs, updates)
    except ForecastError as error:
        raise ForecastError(f"{label}: {error}") from None
    low, high = (None, None) if band is None else band
    return Forecast(label, lrs, counts, unit, updates, losses, tuple(law.range_warnings(lrs)), budget, low, high)


def _ends_in_warmup(law: FittedLaw, lrs: torch.Tensor) -> bool:
    """Whether a run's lr still rises at its last update, below the fitted runs' peak (more than the 5% a peak
    may differ by unflagged): its warmup has not ended, and the law, fitted after the warmup, says nothing there."""
    if len(lrs) < 2 or warmup_updates(lrs) < len(lrs) - 1 or not float(lrs[-1]) > float(lrs[-2]):
        return False
    peaks = [run["peak_lr"] for run in law.runs if run.get("peak_lr")]
    return not peaks or float(lrs[-1]) < min(peaks) * (1 - PEAK_MARGIN)


def _previewed(config: str | os.PathLike, overrides: Sequence[str], flags: Any, lr_column: str):
    """The lr of every update of the config's run, the samples or tokens after each (the trainer's preview), their
    unit, and the samples of a batch (the median)."""
    from trainer.config import trainer_from_command_line
    from trainer.plot_config import simulate_config_run

    trainer = trainer_from_command_line(config, [*overrides, "trainer.init.progress_bar=false"], flags)
    run = simulate_config_run(trainer)
    batches = len(run.samples)
    if not _LR_GROUP.match(lr_column):  # a law fitted on another trainer's log: its lr column is the first group's
        lr_column = "lr/group0"
    if lr_column in run.series:
        lrs = run.series[lr_column]
    else:  # the lr is not scheduled: every batch trains with the group's lr
        group = int(lr_column.rsplit("group", 1)[-1])
        groups = trainer.optimizer.param_groups
        if group >= len(groups):
            raise ForecastError(f"{config}: the law was fitted on {lr_column}; the optimizer has {len(groups)} groups")
        lrs = torch.full((batches,), float(groups[group]["lr"]), dtype=torch.float64)
    counted = run.tokens if run.tokens is not None and int(run.tokens.sum()) > 0 else run.samples
    unit = "token" if counted is run.tokens else "sample"
    return lrs, torch.cumsum(counted, 0), unit, float(run.samples.to(torch.float64).median())


def _check_batch_size(law: FittedLaw, config: str | os.PathLike, samples_per_batch: float) -> None:
    """A config whose batches hold another number of samples than the fitted runs' is one line: the law counts
    updates, and another batch size changes what an update is (docs/forecast.md, "When not to trust a forecast").
    Runs logged without a ``sample`` column (and laws saved before it was recorded) are not checked."""
    fitted = sorted({run["samples_per_batch"] for run in law.runs if run.get("samples_per_batch") is not None})
    if fitted and not any(math.isclose(samples_per_batch, value, rel_tol=1e-9) for value in fitted):
        theirs = " or ".join(f"{value:g}" for value in fitted)
        raise ForecastError(
            f"{config}: its batches hold {samples_per_batch:g} samples, the fitted runs' {theirs}: the law counts "
            "updates, and another batch size changes what an update is (fit on runs of this batch size)"
        )


def forecaster(
    law: FittedLaw, config: str | os.PathLike | ScheduleRecipe, overrides: Sequence[str], flags: Any
) -> Callable[..., Forecast]:
    """``forecast(budget, label, extra=())``: the forecast of the config (with ``overrides`` and ``extra``
    ``--set`` values) at a budget (None: its own run).

    Args:
        law: The fitted law that forecasts; its lr column is the lr previewed.
        config: The YAML config file (as ``cadence fit`` reads it), or a schedule expression's
            :class:`~trainer.forecast.recipes.ScheduleRecipe` (its lr curve the plot's; no overrides).
        overrides: ``KEY.PATH=VALUE`` texts applied to it, as ``--set``.
        flags: The SambaFlow flags' namespace (or a mapping), as ``cadence fit`` takes them; None: none.

    Returns:
        A function of ``(budget, label, extra=())`` that builds the config's trainer (``overrides``, ``extra``,
        then the budget's override), previews its run and returns :func:`forecast_lrs` of its lr curve.

    >>> from trainer.forecast.laws import AnnealingLaw
    >>> law = FittedLaw(AnnealingLaw(0.9), {"L0": 2.0, "A": 1.0, "alpha": 0.5, "C": 0.1}, 0.1, 0.01, 0.01, 3,
    ...                 "train/loss", "lr/group0", runs=[{"s1": 8.0, "s2": 4.0, "peak_lr": 0.1}])
    >>> import tempfile; from pathlib import Path
    >>> config = Path(tempfile.mkdtemp()) / "run.yaml"
    >>> _ = config.write_text("trainer: {init: {model: {factory: 'torch.nn:Linear', kwargs: {in_features: 2, "
    ...     "out_features: 1}}, optimizer: {SGD: {lr: 0.1}}, schedulers: [{LinearScheduler: {alpha_f: 0.1}}], "
    ...     "loop: {max_steps: 8}}, fit: {train_dataloader: {factory: 'torch:ones', kwargs: {size: [8, 4, 2]}}}}")
    >>> forecast = forecaster(law, config, [], None)
    >>> own = forecast(None, "own")
    >>> own.batches, round(own.final_loss, 4), own.final_count
    (8, 2.1948, 32)
    """

    if isinstance(config, ScheduleRecipe):
        return _recipe_forecaster(law, config)

    def forecast(budget: Budget | None, label: str, extra: Sequence[str] = ()) -> Forecast:
        sets = [*overrides, *extra] + ([] if budget is None else [budget.override])
        lrs, counts, unit, samples_per_batch = _previewed(config, sets, flags, law.lr_column)
        _check_batch_size(law, config, samples_per_batch)
        return forecast_lrs(law, lrs, counts, unit, label=label, budget=budget)

    return forecast


def _recipe_forecaster(law: FittedLaw, recipe: ScheduleRecipe) -> Callable[..., Forecast]:
    """``forecast(budget, label, extra=())`` of a schedule expression's run (``extra``: ``KEY=VALUE`` arguments of
    its schedule, :meth:`~trainer.forecast.recipes.ScheduleRecipe.setting`, or a schedule in its place)."""

    def forecast(budget: Budget | None, label: str, extra: Sequence[str] = ()) -> Forecast:
        changed = recipe
        for setting in extra:  # KEY=VALUE: an argument of the schedule (a grid's value); a schedule: a candidate
            changed = changed.with_schedule(setting) if isinstance(setting, Schedule) else changed.setting(setting)
        lrs = changed.lrs(budget)
        steps = torch.arange(1, len(lrs) + 1, dtype=torch.float64)
        return forecast_lrs(law, lrs, steps, "step", label=label, budget=budget)

    return forecast


def config_trainer(config: str | os.PathLike, overrides: Sequence[str], flags: Any) -> Any:
    """The config's trainer (built, not run): its horizon and its schedules.

    Args:
        config: The YAML config file (as ``cadence fit`` reads it).
        overrides: ``KEY.PATH=VALUE`` texts applied to it, as ``--set``.
        flags: The SambaFlow flags' namespace (or a mapping), as ``cadence fit`` takes them; None: none.

    Returns:
        The trainer ``cadence fit`` would build (progress bar off), to read its horizon and schedules from.

    Raises:
        ConfigError: From :func:`trainer.config.trainer_from_command_line`: a mistake in the config, a flag or an
            override.

    >>> import tempfile; from pathlib import Path
    >>> config = Path(tempfile.mkdtemp()) / "run.yaml"
    >>> _ = config.write_text("trainer: {init: {model: {factory: 'torch.nn:Linear', kwargs: {in_features: 2, "
    ...     "out_features: 1}}, optimizer: {SGD: {lr: 0.1}}, schedulers: [{LinearScheduler: {alpha_f: 0.1}}], "
    ...     "loop: {max_steps: 8}}, fit: {train_dataloader: {factory: 'torch:ones', kwargs: {size: [8, 4, 2]}}}}")
    >>> str(config_trainer(config, ["trainer.init.loop.max_steps=6"], None).state.max_duration)
    '6ba'
    """
    from trainer.config import trainer_from_command_line

    return trainer_from_command_line(config, [*overrides, "trainer.init.progress_bar=false"], flags)


def config_plan(
    config: str | os.PathLike | ScheduleRecipe,
    overrides: Sequence[str],
    flags: Any,
    budgets: Sequence[Any] | None,
    ssr: Sequence[Any] | None,
    probe: Any = None,
) -> list[Budget]:
    """The budgets of the config (run lengths or ratios), as ``cadence sweep`` plans them.

    Args:
        config: The YAML config file (as ``cadence fit`` reads it).
        overrides: ``KEY.PATH=VALUE`` texts applied to it, as ``--set``.
        flags: The SambaFlow flags' namespace (or a mapping), as ``cadence fit`` takes them; None: none.
        budgets: Run lengths (``"0.5dur"``, ``"600ba"``, ...); None: none.
        ssr: Scale schedule ratios; None: none.
        probe: The config's trainer when already built (:func:`config_trainer`); None: built here.

    Returns:
        One :class:`~trainer.sweep.plan.Budget` per run length or ratio, as
        :func:`~trainer.sweep.plan.config_budgets` resolves them against the config's horizon.

    Raises:
        ConfigError: From :func:`trainer.config.trainer_from_command_line`: a mistake in the config, a flag or an
            override.

    >>> import tempfile; from pathlib import Path
    >>> config = Path(tempfile.mkdtemp()) / "run.yaml"
    >>> _ = config.write_text("trainer: {init: {model: {factory: 'torch.nn:Linear', kwargs: {in_features: 2, "
    ...     "out_features: 1}}, optimizer: {SGD: {lr: 0.1}}, schedulers: [{LinearScheduler: {alpha_f: 0.1}}], "
    ...     "loop: {max_steps: 8}}, fit: {train_dataloader: {factory: 'torch:ones', kwargs: {size: [8, 4, 2]}}}}")
    >>> [budget.name for budget in config_plan(config, [], None, ["0.5dur", "1dur"], None)]
    ['max_duration-4ba', 'max_duration-8ba']
    """
    if isinstance(config, ScheduleRecipe):
        return config.plan(budgets, ssr)
    probe = probe or config_trainer(config, overrides, flags)
    return config_budgets(probe.state, ssr=ssr, max_duration=budgets)


_SCHEDULE_KEY = re.compile(r"trainer\.init\.schedulers\.(\d+)\.([A-Za-z_]\w*)\.")


def _check_grid_key(probe: Any, key: str) -> None:
    """A grid key naming another schedule class than the config's (which would add a second schedule to the
    mapping) is one line naming the config's."""
    import schedulers

    match = _SCHEDULE_KEY.match(key)
    if match is None:
        return
    index, named = int(match[1]), match[2]
    found = {label: type(schedule).__name__ for label, schedule, _ in probe.scheduled.schedules}
    actual = found.get(f"schedulers[{index}]")
    if actual is not None and named != actual and named in schedulers.__all__:
        raise ForecastError(
            f"--grid {key}: the config's schedule {index} is {actual}, not {named} "
            f"(give trainer.init.schedulers.{index}.{actual}.<argument>)"
        )


def forecast_config(
    law: FittedLaw,
    config: str | os.PathLike | ScheduleRecipe,
    *,
    overrides: Sequence[str] = (),
    budgets: Sequence[Any] | None = None,
    ssr: Sequence[Any] | None = None,
    flags: Any = None,
) -> list[Forecast]:
    """The forecast of ``config`` (with ``overrides``, as ``--set``) at each budget: run lengths (``budgets``)
    or scale schedule ratios (``ssr``); neither: the config's own run.

    Args:
        law: The fitted law that forecasts.
        config: The YAML config file (as ``cadence fit`` reads it).
        overrides: ``KEY.PATH=VALUE`` texts applied to it, as ``--set``.
        budgets: Run lengths (``"0.5dur"``, ``"600ba"``, ``"2e6tok"``); None: none.
        ssr: Scale schedule ratios; None: none.
        flags: The SambaFlow flags' namespace (or a mapping); None: none.

    Returns:
        One :class:`Forecast` per budget, in the order given (each labelled with the budget's name); a single one
        labelled ``config`` when neither ``budgets`` nor ``ssr`` is given.

    Raises:
        ConfigError: From :func:`trainer.config.trainer_from_command_line`: a mistake in the config, a flag or an
            override.
        ForecastError: From :func:`forecast_lrs`, when a budget's lr curve admits no forecast.

    >>> from trainer.forecast.laws import AnnealingLaw
    >>> law = FittedLaw(AnnealingLaw(0.9), {"L0": 2.0, "A": 1.0, "alpha": 0.5, "C": 0.1}, 0.1, 0.01, 0.01, 3,
    ...                 "train/loss", "lr/group0", runs=[{"s1": 8.0, "s2": 4.0, "peak_lr": 0.1}])
    >>> import tempfile; from pathlib import Path
    >>> config = Path(tempfile.mkdtemp()) / "run.yaml"
    >>> _ = config.write_text("trainer: {init: {model: {factory: 'torch.nn:Linear', kwargs: {in_features: 2, "
    ...     "out_features: 1}}, optimizer: {SGD: {lr: 0.1}}, schedulers: [{LinearScheduler: {alpha_f: 0.1}}], "
    ...     "loop: {max_steps: 8}}, fit: {train_dataloader: {factory: 'torch:ones', kwargs: {size: [8, 4, 2]}}}}")
    >>> [(f.label, round(f.final_loss, 4)) for f in forecast_config(law, config, budgets=["0.5dur", "1dur"])]
    [('max_duration-4ba', 2.4881), ('max_duration-8ba', 2.1948)]
    """
    forecast = forecaster(law, config, overrides, flags)
    if budgets is None and ssr is None:
        return [forecast(None, "schedule" if isinstance(config, ScheduleRecipe) else "config")]
    return [forecast(budget, budget.name) for budget in config_plan(config, overrides, flags, budgets, ssr)]


def best_of_grid(
    law: FittedLaw,
    config: str | os.PathLike | ScheduleRecipe,
    key: str,
    values: Sequence[Any],
    *,
    overrides: Sequence[str] = (),
    budget: Any = None,
    ssr: Any = None,
    flags: Any = None,
) -> tuple[list[Forecast], int]:
    """The forecast of ``config`` with ``key`` (a ``--set`` key path, e.g. a schedule argument) set to each of
    ``values``, at one budget (a run length, or ``ssr``; neither: the config's own); and the index of the best
    (the lowest final loss).

    Args:
        law: The fitted law that forecasts.
        config: The YAML config file (as ``cadence fit`` reads it).
        key: The ``--set`` key path the grid varies (e.g. ``trainer.init.schedulers.0.<Class>.<argument>``); for a
            :class:`~trainer.forecast.recipes.ScheduleRecipe`, an argument of its schedule (``t_decay``).
        values: The values of ``key`` to forecast, in order.
        overrides: ``KEY.PATH=VALUE`` texts applied to the config first, as ``--set``.
        budget: The one run length to forecast at; None: see ``ssr``.
        ssr: The one scale schedule ratio to forecast at; None with ``budget`` None: the config's own run.
        flags: The SambaFlow flags' namespace (or a mapping); None: none.

    Returns:
        The forecast of each value (labelled ``key=value``, in the order of ``values``) and the index of the one
        with the lowest final loss.

    Raises:
        ForecastError: When ``values`` is empty, or ``key`` names another schedule class than the config's.
        ConfigError: From :func:`trainer.config.trainer_from_command_line`: a mistake in the config, a flag or an
            override.

    >>> from trainer.forecast.laws import AnnealingLaw
    >>> law = FittedLaw(AnnealingLaw(0.9), {"L0": 2.0, "A": 1.0, "alpha": 0.5, "C": 0.1}, 0.1, 0.01, 0.01, 3,
    ...                 "train/loss", "lr/group0", runs=[{"s1": 8.0, "s2": 4.0, "peak_lr": 0.1}])
    >>> import tempfile; from pathlib import Path
    >>> config = Path(tempfile.mkdtemp()) / "run.yaml"
    >>> _ = config.write_text("trainer: {init: {model: {factory: 'torch.nn:Linear', kwargs: {in_features: 2, "
    ...     "out_features: 1}}, optimizer: {SGD: {lr: 0.1}}, schedulers: [{LinearScheduler: {alpha_f: 0.1}}], "
    ...     "loop: {max_steps: 8}}, fit: {train_dataloader: {factory: 'torch:ones', kwargs: {size: [8, 4, 2]}}}}")
    >>> found, best = best_of_grid(law, config, "trainer.init.schedulers.0.LinearScheduler.alpha_f", [0.5, 0.0])
    >>> found[best].label, [round(f.final_loss, 4) for f in found]
    ('trainer.init.schedulers.0.LinearScheduler.alpha_f=0.0', [2.256, 2.1833])
    """
    if not values:
        raise ForecastError(f"the grid of {key} has no value")
    plan = _grid_plan(config, key, overrides, flags, budget, ssr)
    forecast = forecaster(law, config, overrides, flags)
    found = [forecast(plan, f"{key}={value}", [f"{key}={value}"]) for value in values]
    best = min(range(len(found)), key=lambda i: found[i].final_loss)
    return found, best


def _grid_plan(config, key: str, overrides: Sequence[str], flags: Any, budget: Any, ssr: Any) -> Budget | None:
    """The one budget of a grid (None: the config's own run), its key checked against the config's schedules
    (a recipe's grid key is an argument of its schedule, checked as each value is set)."""
    probe = None
    if not isinstance(config, ScheduleRecipe):
        probe = config_trainer(config, overrides, flags)
        _check_grid_key(probe, key)
    if budget is None and ssr is None:
        return None
    once = (None if budget is None else [budget], None if ssr is None else [ssr])
    return config_plan(config, overrides, flags, *once, probe=probe)[0]


def smallest_budget(
    law: FittedLaw,
    config: str | os.PathLike | ScheduleRecipe,
    target: float,
    *,
    overrides: Sequence[str] = (),
    budgets: Sequence[Any] | None = None,
    ssr: Sequence[Any] | None = None,
    flags: Any = None,
    tolerance: float = 0.01,
    surely: bool = False,
) -> tuple[Forecast | None, list[Forecast]]:
    """The smallest budget predicted to reach the loss ``target``: the first of ``budgets`` (or ``ssr``) that
    reaches it, narrowed by bisection against the one before it (or 0) to ``tolerance`` of its size, assuming a
    larger budget reaches a lower loss. Returns it (None when even the largest does not) and every forecast made.
    ``surely``: the budget whose interval's upper end reaches the target (the forecast itself reaches it at a
    smaller one, "likely"; a law without intervals: the same).

    Args:
        law: The fitted law that forecasts.
        config: The YAML config file (as ``cadence fit`` reads it).
        target: The loss to reach.
        overrides: ``KEY.PATH=VALUE`` texts applied to the config, as ``--set``.
        budgets: Run lengths to try, smallest first; None: see ``ssr``.
        ssr: Scale schedule ratios to try, smallest first; None: none.
        flags: The SambaFlow flags' namespace (or a mapping); None: none.
        tolerance: How close (relative to the budget's size) the bisection narrows.
        surely: Ask the interval's upper end to reach ``target``, not the forecast itself.

    Returns:
        ``(found, tried)``: the forecast at the smallest budget predicted to reach ``target`` (None when the
        largest does not), and every forecast made on the way, in the order made.

    Raises:
        ConfigError: From :func:`trainer.config.trainer_from_command_line`: a mistake in the config, a flag or an
            override.
        ForecastError: From :func:`forecast_lrs`, when a budget's lr curve admits no forecast.

    >>> from trainer.forecast.laws import AnnealingLaw
    >>> law = FittedLaw(AnnealingLaw(0.9), {"L0": 2.0, "A": 1.0, "alpha": 0.5, "C": 0.1}, 0.1, 0.01, 0.01, 3,
    ...                 "train/loss", "lr/group0", runs=[{"s1": 8.0, "s2": 4.0, "peak_lr": 0.1}])
    >>> import tempfile; from pathlib import Path
    >>> config = Path(tempfile.mkdtemp()) / "run.yaml"
    >>> _ = config.write_text("trainer: {init: {model: {factory: 'torch.nn:Linear', kwargs: {in_features: 2, "
    ...     "out_features: 1}}, optimizer: {SGD: {lr: 0.1}}, schedulers: [{LinearScheduler: {alpha_f: 0.1}}], "
    ...     "loop: {max_steps: 8}}, fit: {train_dataloader: {factory: 'torch:ones', kwargs: {size: [8, 4, 2]}}}}")
    >>> found, tried = smallest_budget(law, config, 2.4, budgets=["0.5dur", "1dur"])
    >>> found.label, [forecast.label for forecast in tried]
    ('max_duration-5ba', ['max_duration-4ba', 'max_duration-8ba', 'max_duration-6ba', 'max_duration-5ba'])
    """
    forecast = forecaster(law, config, overrides, flags)
    tried: list[Forecast] = []
    low = 0.0
    reaches = _reaches(target, surely)
    for budget in config_plan(config, overrides, flags, budgets, ssr):
        tried.append(forecast(budget, budget.name))
        if reaches(tried[-1]):
            return _bisect(forecast, tried, low, budget, reaches, tolerance), tried
        low = _size(budget)
    return None, tried


def _reaches(target: float, surely: bool) -> Callable[[Forecast], bool]:
    def reaches(forecast: Forecast) -> bool:
        band = forecast.final_interval
        return (band[1] if surely and band is not None else forecast.final_loss) <= target

    return reaches


def _bisect(forecast, tried: list[Forecast], low: float, budget: Budget, reaches, tolerance: float) -> Forecast:
    best, high = tried[-1], _size(budget)
    while high - low > tolerance * high:
        middle = _budget_of(budget, (low + high) / 2)
        if middle is None or _size(middle) in (low, high):
            break  # whole counts: nothing between them
        try:
            tried.append(forecast(middle, middle.name))
        except ValueError:  # a budget too small for the config (its warmup does not fit): reaching needs more
            low = _size(middle)
            continue
        if reaches(tried[-1]):
            best, high = tried[-1], _size(middle)
        else:
            low = _size(middle)
    return best


def _size(budget: Budget) -> float:
    return float(budget.value) if budget.kind == SSR else float(budget.value.value)


def _budget_of(like: Budget, size: float) -> Budget | None:
    if like.kind == SSR:
        return Budget(SSR, round(size, 6))
    count = int(round(size))
    return Budget(MAX_DURATION, Time(count, like.value.unit)) if count > 0 else None
