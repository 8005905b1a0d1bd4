"""The errors of :mod:`trainer.forecast`: each message is one line naming the input and what is accepted."""

from __future__ import annotations

from typing import Any

__all__ = ["FitError", "ForecastError"]


class ForecastError(ValueError):
    """A run, a law file or a forecast request that cannot be used (the message says which and why).

    Returns:
        The error :mod:`trainer.forecast` raises for what a user gave it; ``cadence forecast`` prints its one
        line and exits 2.

    >>> str(ForecastError("runs/wsd: no metrics.csv"))
    'runs/wsd: no metrics.csv'
    """


class FitError(ForecastError):
    """A fit that failed: it did not converge, or the law does not describe the runs.

    Args:
        message: What failed, in one line.
        fitted: The best fit found, kept as ``.fitted`` for inspection
            (:meth:`~trainer.forecast.FittedLaw.predict` refuses a failed fit); None when there is none.

    Returns:
        A :class:`ForecastError` that also carries the failed fit.

    >>> error = FitError("did not converge", fitted=None)
    >>> isinstance(error, ForecastError), error.fitted
    (True, None)
    """

    def __init__(self, message: str, fitted: Any = None) -> None:
        super().__init__(message)
        self.fitted = fitted
