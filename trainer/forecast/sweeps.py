"""``cadence sweep --forecast``: how far a law fitted on the largest point of a sweep forecasts the others
(docs/forecast.md, "Inside sweeps").

The default law (:data:`~trainer.forecast.fitting.DEFAULT_LAW`, as ``cadence forecast`` chooses it) is fitted on the
largest point (the main run of a WSD sweep that branches), and each point
is forecast from the lr its own run logged (a branch read with its main run's rows up to its decay start,
:mod:`trainer.forecast.runs`). It is scored against what the law was fitted on:

- the eval loss: the forecast after the last evaluation's update count, against that evaluation;
- the training loss (a run evaluated fewer than 8 times): the mean forecast over the updates of the last
  :data:`TRAIN_WINDOW` batches, against the mean training loss of those same batches (one batch's loss
  scatters by a few percent).

Each summary row gets the :data:`FORECAST_COLUMNS`: ``forecast_of`` (which loss), ``forecast_final_loss``,
``forecast_measured`` and ``forecast_error`` (forecast / measured - 1); the largest point's error is the fit's
own at its end. The sweep calls :func:`add_forecasts` with its points and rows (``cadence sweep --forecast``
passes it to :func:`trainer.sweep.config_sweep.sweep_config`): this package uses the sweep's, not the other way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trainer.forecast.errors import ForecastError
from trainer.forecast.fitted import FittedLaw
from trainer.forecast.fitting import fit_law
from trainer.forecast.runs import EVAL_LOSS, read_run

__all__ = ["FORECAST_COLUMNS", "TRAIN_WINDOW", "add_forecasts", "scored_forecast"]

FORECAST_COLUMNS = (
    "forecast_of",
    "forecast_final_loss",
    "forecast_low",
    "forecast_high",
    "forecast_measured",
    "forecast_error",
)
#: the last batches whose training loss a training-loss forecast is scored against (their mean)
TRAIN_WINDOW = 10


def add_forecasts(
    points: list[Any], rows: list[dict[str, Any]], log: Callable[[str], None] = print, law: str = "auto"
) -> None:
    """Fit the default law (``law``) on the largest point of a sweep and add the :data:`FORECAST_COLUMNS` to each of its
    summary ``rows`` (empty when the fit fails or is degenerate: the sweep goes on, and the reason is logged in
    one line).

    Args:
        points: The sweep's points (``folder``, ``name``, ``is_main``), one per row.
        rows: Their summary rows (``batches``), updated in place.
        log: Where the lines go.
        law: The law to fit, as :func:`~trainer.forecast.fit_law` takes it (``"auto"``: the default law, said in a
            line, as ``cadence forecast`` chooses it).

    >>> rows = [{"batches": 10}]
    >>> add_forecasts([], [], log=print)
    >>> rows[0].get("forecast_error") is None
    True
    """
    if not points:
        return
    largest = next((point for point in points if point.is_main), None)
    if largest is None:
        largest = max(zip(points, rows, strict=True), key=lambda pair: pair[1]["batches"])[0]
    for row in rows:
        row.update(dict.fromkeys(FORECAST_COLUMNS))
    try:
        fitted = fit_law([largest.folder], law=law)
    except ForecastError as error:
        log(f"sweep: no forecast: {' '.join(str(error).split())}")
        return
    for point, row in zip(points, rows, strict=True):
        try:
            of, forecast, band, measured, reasons = scored_forecast(fitted, point.folder)
        except ForecastError as error:
            log(f"sweep: no forecast of {point.name}: {' '.join(str(error).split())}")
            continue
        for reason in reasons:  # as cadence forecast warns of it: the law is used beyond its fitted runs
            log(f"sweep: the forecast of {point.name} extrapolates: {reason}")
        row.update(forecast_of=of, forecast_final_loss=forecast, forecast_measured=measured)
        row.update(forecast_low=band[0], forecast_high=band[1], forecast_error=forecast / measured - 1)
    log(f"sweep: forecast from {largest.name}: {fitted.summary()}")
    for line in fitted.notes():  # which law and why, and a degenerate fit: as cadence forecast says them
        log(f"sweep: {line}")


def scored_forecast(law: FittedLaw, folder: Any) -> tuple[str, float, tuple[float, float], float, list[str]]:
    """What a run's forecast is scored on (see the module docstring): ``(what, forecast, (low, high), measured,
    reasons)`` (the interval at :data:`~trainer.forecast.fitted.LEVEL`; of a window of batches, the mean of its
    ends; ``reasons``: why the forecast extrapolates, :meth:`~trainer.forecast.FittedLaw.range_warnings`).

    Args:
        law: A fitted law.
        folder: The run's folder.

    Returns:
        ``"eval/loss"`` or ``"train/loss, last 10 batches"``, the forecast, its interval, the measured loss and
        the reasons the forecast extrapolates (empty within the fitted runs' range).

    Raises:
        ForecastError: The run cannot be read (no rows, a gap), or has nothing to score against.

    >>> scored_forecast.__name__
    'scored_forecast'
    """
    on_eval = law.loss_column == EVAL_LOSS
    curve = read_run(folder, loss="eval" if on_eval else "train", lr_column=law.lr_column)
    if len(curve.updates) == 0:
        raise ForecastError(f"{folder}: no {law.loss_column} point to score a forecast against")
    if on_eval:
        updates, what = curve.updates[-1:], EVAL_LOSS
    else:
        updates, what = curve.updates[-TRAIN_WINDOW:], f"{law.loss_column}, last {TRAIN_WINDOW} batches"
    forecast = float(law.predict(curve.lrs, updates).mean())
    band = law.interval(curve.lrs, updates)
    low, high = (forecast, forecast) if band is None else (float(band[0].mean()), float(band[1].mean()))
    measured = float(curve.losses[-len(updates) :].mean())
    return what, forecast, (low, high), measured, law.range_warnings(curve.lrs)
