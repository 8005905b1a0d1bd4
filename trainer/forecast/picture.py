"""Pictures of a forecast: the measured loss of the fitted runs, the law's curve through them, and the
forecast curves of other runs, on one axis of tokens (samples when the runs count no token).

:func:`draw_forecast` draws them with matplotlib (loss above, lr beneath); :func:`forecast_text` as a text
plot, with :func:`schedulers.tools.plotting.text_plot` (the text plot of ``cadence plot``).
"""

from __future__ import annotations

import os
from typing import Any

import torch

from trainer.forecast.fitted import FittedLaw
from trainer.forecast.laws import warmup_updates
from trainer.forecast.predict import Forecast, law_updates
from trainer.forecast.runs import RunCurve

__all__ = ["draw_forecast", "forecast_lines", "forecast_text", "save_forecast_picture"]

Line = tuple[str, torch.Tensor, torch.Tensor]  # label, x, y
#: the curves a text plot tells apart: text_plot draws with 8 markers, then repeats them
TEXT_MARKERS = 8


def _fitted_lines(law: FittedLaw, runs: list[RunCurve]) -> list[tuple[Line, Line]]:
    """For each run: its measured points and the law's curve over it."""
    pairs = []
    for run in runs:
        shown = run.updates > warmup_updates(run.lrs)  # the law describes the run after its warmup
        updates = run.updates[shown]
        measured = (f"measured {run.folder.name or run.folder}", run.counts[updates - 1], run.losses[shown])
        updates = law_updates(run.lrs)
        if len(run.updates):  # from the first point fitted (--fit-from leaves out a first transient the law misses)
            updates = updates[updates >= int(run.updates.min())]
        if not law.decay_seen and len(run.updates):  # no decay seen: the law is drawn to the last measured point only
            updates = updates[updates <= int(run.updates.max())]
        fitted = (f"law on {run.folder.name or run.folder}", run.counts[updates - 1], law.predict(run.lrs, updates))
        pairs.append((measured, fitted))
    return pairs


def forecast_lines(law: FittedLaw, runs: list[RunCurve], forecasts: list[Forecast]) -> list[Line]:
    """Every curve of the picture: each run measured and fitted, then each forecast.

    Args:
        law: The fitted law (its curve is drawn over each run).
        runs: The runs it was fitted on: their measured losses and the law's curve over them.
        forecasts: The forecasts to draw beside them.

    Returns:
        ``(label, x, y)`` per curve, x in tokens (samples when the runs count none): for each run its measured
        points after the warmup (``measured <run>``) and the law's curve over it (``law on <run>``), then each
        forecast (``forecast <label>``).

    >>> from pathlib import Path
    >>> from trainer.forecast.laws import AnnealingLaw
    >>> from trainer.forecast.predict import forecast_lrs
    >>> law = FittedLaw(AnnealingLaw(0.9), {"L0": 2.0, "A": 1.0, "alpha": 0.5, "C": 0.1}, 1.0, 0.01, 0.01, 3,
    ...                 "train/loss", "lr/group0", runs=[{"s1": 4.0, "s2": 1.0, "peak_lr": 1.0}])
    >>> lrs = torch.tensor([1.0, 1.0, 1.0, 0.5], dtype=torch.float64); counts = torch.tensor([8.0, 16, 24, 32])
    >>> run = RunCurve(Path("runs/a"), lrs, torch.tensor([1, 2, 3]), law.predict(lrs, torch.tensor([1, 2, 3])),
    ...                "train/loss", "lr/group0", counts)
    >>> forecast = forecast_lrs(law, lrs, counts, "sample", label="same")
    >>> [label for label, x, y in forecast_lines(law, [run], [forecast])]
    ['measured a', 'law on a', 'forecast same']
    """
    lines = [line for pair in _fitted_lines(law, runs) for line in pair]
    lines += [(f"forecast {f.label}", f.counts[f.updates - 1], f.losses) for f in forecasts]
    return lines


def forecast_text(
    law: FittedLaw, runs: list[RunCurve], forecasts: list[Forecast], *, width: int = 72, height: int = 16
) -> str:
    """The curves as a text plot.

    Args:
        law: The fitted law (its curve is drawn over each run).
        runs: The runs it was fitted on: their measured losses and the law's curve over them.
        forecasts: The forecasts to draw beside them.
        width: The plot's width in characters.
        height: The plot's height in lines.

    Returns:
        The text plot of :func:`forecast_lines` (x: tokens or samples, y: the law's loss column), one marker per
        curve; when there are more forecasts than markers, evenly spaced ones and the best, with a last line
        saying how many of them are shown.

    >>> from pathlib import Path
    >>> from trainer.forecast.laws import AnnealingLaw
    >>> from trainer.forecast.predict import forecast_lrs
    >>> law = FittedLaw(AnnealingLaw(0.9), {"L0": 2.0, "A": 1.0, "alpha": 0.5, "C": 0.1}, 1.0, 0.01, 0.01, 3,
    ...                 "train/loss", "lr/group0", runs=[{"s1": 4.0, "s2": 1.0, "peak_lr": 1.0}])
    >>> lrs = torch.tensor([1.0, 1.0, 1.0, 0.5], dtype=torch.float64); counts = torch.tensor([8.0, 16, 24, 32])
    >>> run = RunCurve(Path("runs/a"), lrs, torch.tensor([1, 2, 3]), law.predict(lrs, torch.tensor([1, 2, 3])),
    ...                "train/loss", "lr/group0", counts)
    >>> forecast = forecast_lrs(law, lrs, counts, "sample", label="same")
    >>> text = forecast_text(law, [run], [forecast], width=40, height=8)
    >>> "train/loss" in text and "forecast same" in text
    True
    """
    from schedulers.tools.plotting import text_plot

    shown, note = _few(law, runs, forecasts)
    lines = [(label, x, float(x[-1]), y) for label, x, y in forecast_lines(law, runs, shown)]
    unit = _unit(runs, forecasts)
    return text_plot(lines, x_label=f"{unit}s", y_label=law.loss_column, width=width, height=height) + note


def _few(law: FittedLaw, runs: list[RunCurve], forecasts: list[Forecast]) -> tuple[list[Forecast], str]:
    """The forecasts the text plot can tell apart (one marker each): all when they fit, else evenly spaced ones
    and the best, and a line saying so."""
    room = TEXT_MARKERS - 2 * len(runs)
    if len(forecasts) <= room:
        return forecasts, ""
    room = max(room, 1)
    best = min(range(len(forecasts)), key=lambda i: forecasts[i].final_loss)
    others = [i for i in range(len(forecasts)) if i != best]
    picked = {others[round(i * (len(others) - 1) / max(room - 2, 1))] for i in range(room - 1)} | {best}
    shown = [forecast for i, forecast in enumerate(forecasts) if i in picked]
    return shown, f"\n(the text plot shows {len(shown)} of the {len(forecasts)} forecasts; -o FILE.png draws them all)"


def _first_point(runs: list[RunCurve]) -> int:
    """The first update with a point fitted among ``runs`` (1 without one): the law is drawn from there."""
    return min((int(run.updates.min()) for run in runs if len(run.updates)), default=1)


def _draw_one_forecast(
    loss_ax: Any, lr_ax: Any, index: int, forecast: Forecast, measured: tuple[float, float] | None, start: int = 1
) -> None:
    """One forecast: its curve dashed from update ``start`` (the first point fitted: the law says nothing before
    it), its end a circle, its interval a band and a bar, the measured end a cross."""
    color = f"C{index % 10}"
    shown = forecast.updates >= min(start, int(forecast.updates[-1]))
    x = forecast.counts[forecast.updates[shown] - 1]
    loss_ax.plot(x, forecast.losses[shown], "--", color=color, lw=1.2, label=f"forecast {forecast.label}")
    loss_ax.plot([float(x[-1])], [forecast.final_loss], "o", color=color, markersize=5)
    if forecast.low is not None:  # the interval: a band along the curve, a bar at its end
        loss_ax.fill_between(x, forecast.low[shown], forecast.high[shown], color=color, alpha=0.12, lw=0)
        low, high = forecast.final_interval
        loss_ax.plot([float(x[-1])] * 2, [low, high], "-", color=color, lw=2, gid=f"cadence-interval-{index}")
    if measured is not None:
        loss_ax.plot([measured[0]], [measured[1]], "x", color=color, markersize=8, mew=2)
    lr_ax.plot(forecast.counts, forecast.lrs, color=color, lw=1.0, drawstyle="steps-post")


def draw_forecast(
    law: FittedLaw,
    runs: list[RunCurve],
    forecasts: list[Forecast],
    *,
    measured: dict[str, tuple[float, float]] | None = None,
    title: str | None = None,
    figure: Any = None,
) -> Any:
    """Draw the loss (measured points, the law's curves, the forecasts) above the lr of every run.

    Args:
        law: The fitted law (its curve is drawn over each run).
        runs: The runs it was fitted on: their measured losses and the law's curve over them.
        forecasts: The forecasts to draw beside them.
        measured: The final ``(count, loss)`` measured of a forecast run, by the forecast's label, drawn as a cross
            beside the forecast's end (a circle); None: none.
        title: The figure's title; None: the law's :meth:`~FittedLaw.summary`.
        figure: A matplotlib figure to draw in; None: a new one (9 × 6 inches).

    Returns:
        The matplotlib figure, with two axes sharing x (tokens or samples): the loss (measured points, the law's
        curves, each forecast dashed with its interval as a band and a bar at its end) above the lr of every run
        and forecast.

    Raises:
        ImportError: From :func:`~schedulers.tools.plotting.require_matplotlib`, when matplotlib is not installed.

    >>> from pathlib import Path
    >>> from trainer.forecast.laws import AnnealingLaw
    >>> from trainer.forecast.predict import forecast_lrs
    >>> law = FittedLaw(AnnealingLaw(0.9), {"L0": 2.0, "A": 1.0, "alpha": 0.5, "C": 0.1}, 1.0, 0.01, 0.01, 3,
    ...                 "train/loss", "lr/group0", runs=[{"s1": 4.0, "s2": 1.0, "peak_lr": 1.0}])
    >>> lrs = torch.tensor([1.0, 1.0, 1.0, 0.5], dtype=torch.float64); counts = torch.tensor([8.0, 16, 24, 32])
    >>> run = RunCurve(Path("runs/a"), lrs, torch.tensor([1, 2, 3]), law.predict(lrs, torch.tensor([1, 2, 3])),
    ...                "train/loss", "lr/group0", counts)
    >>> forecast = forecast_lrs(law, lrs, counts, "sample", label="same")
    >>> figure = draw_forecast(law, [run], [forecast], measured={"same": (32.0, 2.6)})
    >>> [ax.get_ylabel() for ax in figure.axes]
    ['train/loss', 'lr/group0']
    """
    from schedulers.tools.plotting import require_matplotlib

    Figure = require_matplotlib()
    figure = figure or Figure(figsize=(9.0, 6.0), layout="constrained")
    loss_ax, lr_ax = figure.subplots(2, 1, sharex=True, height_ratios=(2.2, 1.0))
    for index, ((label, x, y), (law_label, fx, fy)) in enumerate(_fitted_lines(law, runs)):
        loss_ax.plot(x, y, ".", color="0.35", markersize=3, label=label, gid=f"cadence-measured-{index}")
        loss_ax.plot(fx, fy, "-", color="0.1", lw=1.2, label=law_label, gid=f"cadence-law-{index}")
        lr_ax.plot(runs[index].counts, runs[index].lrs, color="0.35", lw=1.0, drawstyle="steps-post")
    for index, forecast in enumerate(forecasts):
        _draw_one_forecast(loss_ax, lr_ax, index, forecast, (measured or {}).get(forecast.label), _first_point(runs))
    loss_ax.set_ylabel(law.loss_column)
    loss_ax.legend(fontsize="small", loc="upper right")
    loss_ax.grid(True, alpha=0.3)
    lr_ax.set_ylabel(law.lr_column)
    lr_ax.set_xlabel(f"{_unit(runs, forecasts)}s")
    lr_ax.grid(True, alpha=0.3)
    figure.suptitle(title or law.summary(), fontsize=9)
    return figure


def save_forecast_picture(
    path: str | os.PathLike, law: FittedLaw, runs: list[RunCurve], forecasts: list[Forecast], **options: Any
) -> str:
    """Draw the forecast into an image file (atomically; the format from the suffix); the note to print.

    Args:
        path: The image file to write; its suffix names the format (``.png``, ``.svg``, ``.pdf``; none: PNG).
        law: The fitted law (its curve is drawn over each run).
        runs: The runs it was fitted on: their measured losses and the law's curve over them.
        forecasts: The forecasts to draw beside them.
        **options: Passed on to :func:`draw_forecast` (``measured``, ``title``, ``figure``).

    Returns:
        The line to print once the file is written, ``wrote <path>``.

    Raises:
        ImportError: From :func:`draw_forecast`, when matplotlib is not installed.

    >>> from pathlib import Path
    >>> from trainer.forecast.laws import AnnealingLaw
    >>> from trainer.forecast.predict import forecast_lrs
    >>> law = FittedLaw(AnnealingLaw(0.9), {"L0": 2.0, "A": 1.0, "alpha": 0.5, "C": 0.1}, 1.0, 0.01, 0.01, 3,
    ...                 "train/loss", "lr/group0", runs=[{"s1": 4.0, "s2": 1.0, "peak_lr": 1.0}])
    >>> lrs = torch.tensor([1.0, 1.0, 1.0, 0.5], dtype=torch.float64); counts = torch.tensor([8.0, 16, 24, 32])
    >>> run = RunCurve(Path("runs/a"), lrs, torch.tensor([1, 2, 3]), law.predict(lrs, torch.tensor([1, 2, 3])),
    ...                "train/loss", "lr/group0", counts)
    >>> forecast = forecast_lrs(law, lrs, counts, "sample", label="same")
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "forecast.svg")
    >>> save_forecast_picture(path, law, [run], [forecast]) == f"wrote {path}" and os.path.getsize(path) > 0
    True
    """
    from schedulers.tools.files import write_atomically

    figure = draw_forecast(law, runs, forecasts, **options)
    suffix = str(path).rsplit(".", 1)[-1].lower() if "." in str(path) else "png"
    write_atomically(path, lambda stream: figure.savefig(stream, format=suffix, dpi=100), binary=True)
    return f"wrote {path}"


def _unit(runs: list[RunCurve], forecasts: list[Forecast]) -> str:
    units = {run.unit for run in runs} | {forecast.unit for forecast in forecasts}
    return next(iter(units)) if len(units) == 1 else " or ".join(sorted(units, reverse=True))  # token or sample
