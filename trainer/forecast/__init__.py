"""Forecast a budget before paying for it: fit a loss-curve law to logged runs, predict other runs (docs/forecast.md).

- :func:`fit_law` fits a law (:class:`AnnealingLaw`, the default, or :class:`MultiPowerLaw`) to run folders'
  ``metrics.csv`` (:func:`read_run`; several runs, or a sweep folder, at once) and returns a :class:`FittedLaw`
  (``save`` / :func:`load_law`: JSON; ``interval``: the 80% interval of a forecast).
- :func:`forecast_config` predicts the loss curve of a config at each budget, from the lr curve the trainer's
  preview gives; :func:`smallest_budget` and :func:`best_of_grid` choose with the forecasts.

The modules: :mod:`~trainer.forecast.laws` (the laws, pure functions), :mod:`~trainer.forecast.runs` (reading run
folders), :mod:`~trainer.forecast.sums` (the laws' sums over decreases, linear in the log),
:mod:`~trainer.forecast.windows` (a long log's points as window means), :mod:`~trainer.forecast.fitting`,
:mod:`~trainer.forecast.fitted` (a fitted law and its file), :mod:`~trainer.forecast.predict`,
:mod:`~trainer.forecast.picture` (pictures and the text plot), :mod:`~trainer.forecast.optimize` (a recommended
schedule; :mod:`~trainer.forecast.monotone`: the free lr curve it optimizes), :mod:`~trainer.forecast.sweeps`
(``cadence sweep --forecast``, handed to the sweep engine: this package uses :mod:`trainer.sweep`, never the
reverse), :mod:`~trainer.forecast.command` (``cadence forecast``).
"""

from trainer.forecast.errors import FitError, ForecastError
from trainer.forecast.fitted import FittedLaw, load_law
from trainer.forecast.fitting import fit_law
from trainer.forecast.laws import AnnealingLaw, MultiPowerLaw, lr_areas
from trainer.forecast.predict import Forecast, best_of_grid, forecast_config, smallest_budget
from trainer.forecast.runs import RunCurve, read_run

__all__ = [
    "AnnealingLaw",
    "FitError",
    "FittedLaw",
    "Forecast",
    "ForecastError",
    "MultiPowerLaw",
    "RunCurve",
    "best_of_grid",
    "fit_law",
    "forecast_config",
    "load_law",
    "lr_areas",
    "read_run",
    "smallest_budget",
]
