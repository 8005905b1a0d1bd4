"""``cadence sweep --forecast``: how far a law fitted on one point forecasts the others (docs/forecast.md).

The annealing law (:mod:`trainer.forecast`) is fitted on the largest point (the main run of a WSD sweep),
and each point's final loss is forecast from the lr its own run logged, at the update count of the loss it
is compared with: the final eval loss (after the last update) when the law was fitted on the eval loss,
else the final training loss (before the last update). Each summary row gets ``forecast_final_loss`` and
``forecast_error`` (forecast / measured - 1); the largest point's is the fit's own error at its end.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["FORECAST_COLUMNS", "add_forecasts"]

FORECAST_COLUMNS = ("forecast_final_loss", "forecast_error")


def add_forecasts(points: list[Any], rows: list[dict[str, Any]], log: Callable[[str], None] = print) -> None:
    """Fit on the largest point and add the :data:`FORECAST_COLUMNS` to ``rows`` (empty when the fit fails: the
    sweep goes on, and the reason is logged)."""
    from trainer.forecast.errors import ForecastError
    from trainer.forecast.fitting import fit_law
    from trainer.forecast.runs import read_run

    largest = next((point for point in points if point.is_main), None)
    if largest is None:
        largest = max(zip(points, rows, strict=True), key=lambda pair: pair[1]["batches"])[0]
    for row in rows:
        row.update(dict.fromkeys(FORECAST_COLUMNS))
    try:
        law = fit_law([largest.folder])
    except ForecastError as error:
        log(f"sweep: no forecast: {' '.join(str(error).split())}")
        return
    on_eval = law.loss_column == "eval/loss"
    for point, row in zip(points, rows, strict=True):
        measured = row["final_eval_loss" if on_eval else "final_train_loss"]
        lrs = read_run(point.folder, loss="train").lrs
        forecast = float(law.predict(lrs, [len(lrs) if on_eval else len(lrs) - 1])[0])
        row["forecast_final_loss"] = forecast
        row["forecast_error"] = forecast / measured - 1 if measured else None
    log(f"sweep: forecast from {largest.name}: {law.summary()}")
