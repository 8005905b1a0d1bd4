"""Forecast a budget before paying for it: fit a loss-curve law to logged runs, predict other runs (docs/forecast.md).

- :func:`fit_law` fits a law (:class:`AnnealingLaw`, the default, or :class:`MultiPowerLaw`) to run folders'
  ``metrics.csv`` (:func:`read_run`; several runs, or a sweep folder, at once) and returns a :class:`FittedLaw`
  (``save`` / :func:`load_law`: JSON; ``interval``: the 80% interval of a forecast).
- :func:`forecast_config` predicts the loss curve of a config at each budget, from the lr curve the trainer's
  preview gives; :func:`smallest_budget` and :func:`best_of_grid` choose with the forecasts.
- :func:`read_log` reads another trainer's log (a CSV, a ``.csv.gz`` or a TensorBoard folder) as the run a law
  is fitted to; a :class:`ScheduleRecipe` (a schedule expression over a run) is forecast in place of a config.

The modules: :mod:`~trainer.forecast.laws` (the laws, pure functions), :mod:`~trainer.forecast.runs` (reading run
folders), :mod:`~trainer.forecast.logs` (reading other trainers' logs), :mod:`~trainer.forecast.recipes` (a
schedule expression as the run to forecast), :mod:`~trainer.forecast.held_out` (a log's held-out end,
``--fit-until``), :mod:`~trainer.forecast.sums` (the laws' sums over decreases, linear in the log),
:mod:`~trainer.forecast.windows` (a long log's points as window means), :mod:`~trainer.forecast.fitting`,
:mod:`~trainer.forecast.fitted` (a fitted law and its file), :mod:`~trainer.forecast.predict`,
:mod:`~trainer.forecast.picture` (pictures and the text plot), :mod:`~trainer.forecast.optimize` (a recommended
schedule; :mod:`~trainer.forecast.monotone`: the free lr curve it optimizes), :mod:`~trainer.forecast.sweeps`
(``cadence sweep --forecast``, handed to the sweep engine: this package uses :mod:`trainer.sweep`, never the
reverse), :mod:`~trainer.forecast.command` (``cadence forecast``), :mod:`~trainer.forecast.advice` (which run to
fit when the fitted runs cannot pin the law).
"""

from trainer.forecast.errors import FitError, ForecastError
from trainer.forecast.fitted import FittedLaw, load_law
from trainer.forecast.fitting import fit_law
from trainer.forecast.laws import AnnealingLaw, MultiPowerLaw, lr_areas
from trainer.forecast.logs import read_log
from trainer.forecast.predict import Forecast, best_of_grid, forecast_config, smallest_budget
from trainer.forecast.recipes import ScheduleRecipe
from trainer.forecast.runs import RunCurve, read_run

__all__ = [
    "AnnealingLaw",
    "FitError",
    "FittedLaw",
    "Forecast",
    "ForecastError",
    "MultiPowerLaw",
    "RunCurve",
    "ScheduleRecipe",
    "best_of_grid",
    "fit_law",
    "forecast_config",
    "load_law",
    "lr_areas",
    "read_log",
    "read_run",
    "smallest_budget",
]
