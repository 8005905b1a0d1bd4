"""The errors of :mod:`trainer.forecast`: each message is one line naming the input and what is accepted."""

from __future__ import annotations

from typing import Any

__all__ = ["FitError", "ForecastError"]


class ForecastError(ValueError):
    """A run, a law file or a forecast request that cannot be used (the message says which and why)."""


class FitError(ForecastError):
    """A fit that failed: it did not converge, or the law does not describe the runs. ``fitted`` is the best fit
    found (for inspection; :meth:`~trainer.forecast.FittedLaw.predict` refuses a failed fit)."""

    def __init__(self, message: str, fitted: Any = None) -> None:
        super().__init__(message)
        self.fitted = fitted
