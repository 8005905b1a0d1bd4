r"""The held-out test any log allows: fit on its first part, forecast the rest from its own lr curve, and compare
with what it measured (``cadence forecast LOG --fit-until STEP``; docs/forecast.md, "Forecasting from another
trainer's log").

The measured final loss is the mean of the losses logged in the last :math:`W` steps of the log, with
:math:`W = \min(500, \max(1, \lfloor n / 20 \rfloor))` for a log of :math:`n` steps (500 on a real run: one step's
loss is noisy, about 1% on a language model, so one row is no measure); the forecast is the law's mean over the
same steps, so the two see the same stretch of the curve.
"""

from __future__ import annotations

import attrs

from trainer.forecast.errors import ForecastError
from trainer.forecast.fitted import FittedLaw
from trainer.forecast.predict import Forecast, forecast_lrs
from trainer.forecast.runs import RunCurve

__all__ = ["END_WINDOW", "HeldOut", "end_window", "fitted_part", "held_out"]

#: the most steps at the end of a log whose mean loss is its measured final loss
END_WINDOW = 500


def end_window(steps: int) -> int:
    """How many last steps the measured final loss is the mean over (see the module docstring).

    Args:
        steps: The updates of the log.

    Returns:
        :math:`\\min(500, \\max(1, \\lfloor n / 20 \\rfloor))`.

    >>> end_window(33908), end_window(1000), end_window(10)
    (500, 50, 1)
    """
    return min(END_WINDOW, max(1, steps // 20))


def fitted_part(run: RunCurve, step: int) -> RunCurve:
    """The run up to ``step``: the lr of updates ``1..step`` and the loss points after at most ``step`` updates.

    Args:
        run: The whole log.
        step: The last step fitted (``--fit-until``).

    Returns:
        The run cut at ``step`` (the same columns and unit).

    Raises:
        ForecastError: ``step`` leaves fewer steps than the end window to hold out, or no loss point before it.

    >>> import torch
    >>> run = RunCurve("log.csv", torch.ones(40, dtype=torch.float64), torch.arange(1, 41),
    ...                torch.linspace(3, 2, 40, dtype=torch.float64), "loss", "lr", torch.arange(1.0, 41), "step")
    >>> part = fitted_part(run, 30)
    >>> len(part.lrs), part.updates[-1].item()
    (30, 30)
    """
    n, window = len(run.lrs), end_window(len(run.lrs))
    if step >= n - window:
        raise ForecastError(
            f"--fit-until {step}: {run.name} has {n} steps; the measured end is the mean of its last {window}, so fit "
            f"until step {n - window - 1} at most"
        )
    keep = run.updates <= step
    if not bool(keep.any()):
        raise ForecastError(f"--fit-until {step}: {run.name} logs no {run.loss_column} up to step {step}")
    counts = None if run.counts is None else run.counts[:step]
    return attrs.evolve(run, lrs=run.lrs[:step], updates=run.updates[keep], losses=run.losses[keep], counts=counts)


def points_from(run: RunCurve, step: int) -> RunCurve:
    """The run with its loss points from ``step`` on (``--fit-from``): the lr curve stays whole (the law's areas
    count from the first update), only the points fitted start later: the first steps of a run without a warmup
    fall faster than a power of the lr area (docs/forecast.md).

    Args:
        run: The log or run.
        step: The first step whose loss is fitted.

    Returns:
        The run with the loss points measured after ``step`` updates or more.

    Raises:
        ForecastError: No loss point from ``step`` on.

    >>> import torch
    >>> run = RunCurve("log.csv", torch.ones(40, dtype=torch.float64), torch.arange(1, 41),
    ...                torch.linspace(3, 2, 40, dtype=torch.float64), "loss", "lr", torch.arange(1.0, 41), "step")
    >>> part = points_from(run, 10)
    >>> len(part.lrs), part.updates[0].item(), len(part.losses)
    (40, 10, 31)
    """
    keep = run.updates >= step
    if not bool(keep.any()):
        raise ForecastError(f"--fit-from {step}: {run.name} logs no {run.loss_column} from step {step} on")
    return attrs.evolve(run, updates=run.updates[keep], losses=run.losses[keep])


@attrs.frozen
class HeldOut:
    """A law's forecast of a log's held-out end beside what the log measured there.

    Args:
        step: The last step fitted.
        window: The last steps the final losses are the mean over.
        measured: The mean loss the log measured over them.
        forecast: The law's forecast of the whole log from its own lr curve (its ``losses`` at every update of the
            window, its interval the final loss's).
        predicted: The forecast's mean over the same steps.

    Returns:
        The comparison; :attr:`error` is relative, :meth:`lines` say it.

    >>> from types import SimpleNamespace
    >>> round(HeldOut(480, 30, 2.5, SimpleNamespace(final_interval=None), 2.51).error, 6)
    0.004
    """

    step: int
    window: int
    measured: float
    forecast: Forecast
    predicted: float

    @property
    def error(self) -> float:
        """The forecast's relative error, ``predicted / measured - 1``."""
        return self.predicted / self.measured - 1

    def lines(self, run: RunCurve) -> list[str]:
        """What ``cadence forecast --fit-until`` prints about it.

        Args:
            run: The whole log.

        Returns:
            Two lines: what was fitted and forecast, and the measured final loss beside the forecast one.
        """
        n, column = len(run.lrs), run.loss_column
        band = self.forecast.final_interval
        interval = "" if band is None else f"; 80% interval at the end {band[0]:.4f}-{band[1]:.4f}"
        return [
            f"fitted on {run.name} up to step {self.step}, forecast from its own lr curve to its end (step {n - 1})",
            f"final {column}: measured {self.measured:.4f} (mean of the last {self.window} steps), forecast "
            f"{self.predicted:.4f} (mean over the same steps{interval}): error {self.error:+.2%}",
        ]


def held_out(law: FittedLaw, run: RunCurve, step: int) -> HeldOut:
    """Forecast ``run`` from its own lr curve with ``law`` (fitted up to ``step``) and compare its end.

    Args:
        law: The law fitted on :func:`fitted_part` of ``run``.
        run: The whole log.
        step: The last step fitted.

    Returns:
        The :class:`HeldOut` comparison.

    Raises:
        ForecastError: The log measures no loss in its end window, or the law has no finite forecast on it.

    >>> import torch
    >>> from trainer.forecast.laws import AnnealingLaw
    >>> law = FittedLaw(AnnealingLaw(0.9), {"L0": 2.0, "A": 1.0, "alpha": 0.5, "C": 0.1}, 1.0, 0.01, 0.01, 3,
    ...                 "loss", "lr", runs=[{"s1": 30.0, "s2": 0.0, "peak_lr": 1.0}])
    >>> run = RunCurve("log.csv", torch.ones(40, dtype=torch.float64), torch.arange(1, 41),
    ...                torch.full((40,), 2.2, dtype=torch.float64), "loss", "lr", torch.arange(1.0, 41), "step")
    >>> result = held_out(law, run, 30)
    >>> result.window, round(result.measured, 4), round(result.predicted, 4)
    (2, 2.2, 2.1602)
    """
    n = len(run.lrs)
    window = end_window(n)
    last = run.updates >= n - window  # the losses logged at steps n - W .. n - 1
    if not bool(last.any()):
        raise ForecastError(f"{run.name}: no {run.loss_column} logged in its last {window} steps: nothing to compare")
    label = f"{run.name} after step {step}"
    forecast = forecast_lrs(law, run.lrs, run.counts, run.unit, label=label)
    predicted = law.predict(run.lrs, run.updates[last])
    return HeldOut(step, window, float(run.losses[last].mean()), forecast, float(predicted.mean()))
