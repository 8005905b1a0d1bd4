"""The sweep's picture: every point's loss on one axis of samples (tokens when the run counts them), the
scheduled values beneath on the same axis, and the final eval loss (else the final training loss) against
the budget; with ``--forecast``, each point's forecast beside the loss it is scored against (a forecast of the
training loss on an axis of its own). ``cadence sweep`` writes it as ``OUT/sweep.png`` when matplotlib is installed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trainer.sweep import folders

__all__ = ["draw_sweep", "save_picture"]


def _series(point: Any) -> dict[str, Any]:
    rows = folders.read_rows(Path(point.folder) / folders.METRICS)
    trained = [row for row in rows if row.get("train/loss", "") != ""]
    keys = [key for key in (trained[0] if trained else {}) if "/group" in key and trained[0][key] != ""]
    return {"rows": trained, "keys": keys}


def draw_sweep(points: list[Any], summary: list[dict[str, Any]], figure: Any = None, title: str | None = None) -> Any:
    """Draw the sweep of ``points`` (with their ``summary`` rows) on ``figure`` (a new one by default).

    Args:
        points: The sweep's points, whose ``metrics.csv`` rows give the loss and scheduled-value curves.
        summary: Their summary rows (:func:`~trainer.sweep.summary.point_row`, with any forecast columns).
        figure: A matplotlib ``Figure`` to draw on (None: a new one, 10 by 5.5 inches).
        title: The figure's title (``cadence sweep`` gives its compute line).

    Returns:
        The figure: losses and scheduled values against samples (tokens when the runs count them) on the left,
        the final loss (and any forecast) against the budget on the right.

    >>> row = {"point": "ssr-1.0", "samples": 80, "tokens": 0, "final_eval_loss": None, "final_train_loss": 0.25}
    >>> [axes.get_xlabel() for axes in draw_sweep([], [row], title="1 budget").axes]
    ['', 'samples', 'budget (samples)']
    """
    from matplotlib.figure import Figure

    figure = figure or Figure(figsize=(10.0, 5.5), layout="constrained")
    grid = figure.add_gridspec(2, 2, width_ratios=(2.2, 1.0), height_ratios=(1.6, 1.0))
    loss_ax = figure.add_subplot(grid[0, 0])
    schedule_ax = figure.add_subplot(grid[1, 0], sharex=loss_ax)
    on_train = any(str(row.get("forecast_of") or "").startswith("train/") for row in summary)
    budget_ax = figure.add_subplot(grid[0, 1] if on_train else grid[:, 1])
    forecast_ax = figure.add_subplot(grid[1, 1], sharex=budget_ax) if on_train else budget_ax
    series = [_series(point) for point in points]
    unit = "token" if any(row["tokens"] > 0 for row in summary) else "sample"
    curve = 0
    # the longest run first, so the shorter ones (which it hides where they agree) are drawn over it
    for index, point, data in reversed(list(zip(range(len(points)), points, series, strict=True))):
        color = f"C{index % 10}"
        xs = [int(row[unit]) for row in data["rows"]]
        losses = [float(row["train/loss"]) for row in data["rows"]]
        (line,) = loss_ax.plot(xs, losses, color=color, lw=0.8, label=point.name)
        line.set_gid(f"cadence-curve-{curve}")
        curve += 1
        for style, key in zip(("-", "--", ":", "-."), data["keys"], strict=False):
            label = point.name if key == data["keys"][0] else None
            values = [float(row[key]) for row in data["rows"]]
            (line,) = schedule_ax.plot(
                xs, values, color=color, linestyle=style, lw=1.0, drawstyle="steps-post", label=label
            )
            line.set_gid(f"cadence-curve-{curve}")
            curve += 1
    loss_ax.set_ylabel("training loss")
    handles, labels = loss_ax.get_legend_handles_labels()
    loss_ax.legend(handles[::-1], labels[::-1], loc="upper right")
    loss_ax.tick_params(labelbottom=False)
    keys = sorted({key for data in series for key in data["keys"]})
    schedule_ax.set_ylabel(", ".join(keys) if len(keys) <= 2 else "scheduled values")
    schedule_ax.set_xlabel(f"{unit}s")
    _draw_budgets(budget_ax, summary, unit, curve)
    _draw_forecasts(forecast_ax, summary, unit, curve + 1)
    if title:
        figure.suptitle(title, fontsize=10)
    return figure


def _draw_budgets(ax, summary: list[dict[str, Any]], unit: str, gid: int) -> None:
    evaluated = all(row["final_eval_loss"] is not None for row in summary)
    key = "final_eval_loss" if evaluated else "final_train_loss"
    xs = [row[f"{unit}s"] for row in summary]
    (line,) = ax.plot(xs, [row[key] for row in summary], marker="o", color="0.2", lw=1.0)
    line.set_gid(f"cadence-curve-{gid}")
    for row, x in zip(summary, xs, strict=True):
        ax.annotate(row["point"], (x, row[key]), textcoords="offset points", xytext=(4, 4), fontsize=7)
    ax.set_xlim(0, max(xs) * 1.15)
    ax.set_xlabel(f"budget ({unit}s)")
    ax.set_ylabel(key.replace("_", " "))


def _draw_forecasts(ax, summary: list[dict[str, Any]], unit: str, gid: int) -> None:
    """``cadence sweep --forecast``: each point's forecast and its error, beside the loss it is scored against. A
    forecast of the eval loss shares the final eval loss's axis; one of the training loss has its own, with the
    measured training loss of the same batches (docs/forecast.md, "Inside sweeps")."""
    drawn = [row for row in summary if row.get("forecast_final_loss") is not None]
    if not drawn:
        return
    xs = [row[f"{unit}s"] for row in drawn]
    of = drawn[0]["forecast_of"]
    if of.startswith("train/"):
        (line,) = ax.plot(xs, [row["forecast_measured"] for row in drawn], marker="x", color="0.2", lw=1.0)
        line.set_label("measured")
        ax.set_ylabel(of.replace("train/loss", "training loss").replace(",", "\n", 1), fontsize=8)
        ax.set_xlabel(f"budget ({unit}s)")
    (line,) = ax.plot(
        xs, [row["forecast_final_loss"] for row in drawn], marker="o", mfc="none", color="C3", lw=0.8, ls="--"
    )
    line.set_label("forecast")
    line.set_gid(f"cadence-curve-{gid}")
    if all(row.get("forecast_low") is not None for row in drawn):  # the forecast's interval, as a bar
        lows, highs = [row["forecast_low"] for row in drawn], [row["forecast_high"] for row in drawn]
        ax.vlines(xs, lows, highs, color="C3", lw=2, alpha=0.5, label="80% interval")
    for row, x in zip(drawn, xs, strict=True):
        note = f"{row['forecast_error']:+.1%}"
        ax.annotate(note, (x, row["forecast_final_loss"]), textcoords="offset points", xytext=(4, -10), fontsize=7)
    ax.legend(fontsize="small")


def save_picture(path: Path, points: list[Any], summary: list[dict[str, Any]], title: str | None = None) -> Path | None:
    """Write the picture to ``path`` (atomically); None when matplotlib is not installed.

    Args:
        path: The image file; its suffix gives the format (``sweep.png``; none: PNG).
        points: The sweep's points (their ``metrics.csv``).
        summary: Their summary rows.
        title: The figure's title.

    Returns:
        The path written (as :func:`draw_sweep` draws it), or None without matplotlib: the sweep then goes on
        without a picture.

    >>> import tempfile
    >>> row = {"point": "ssr-1.0", "samples": 80, "tokens": 0, "final_eval_loss": None, "final_train_loss": 0.25}
    >>> with tempfile.TemporaryDirectory() as out:
    ...     print(save_picture(Path(out) / "sweep.svg", [], [row]).name)
    sweep.svg
    """
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return None
    from schedulers.tools.files import write_atomically

    figure = draw_sweep(points, summary, title=title)
    suffix = Path(path).suffix.lstrip(".") or "png"
    return write_atomically(path, lambda stream: figure.savefig(stream, format=suffix), binary=True)
