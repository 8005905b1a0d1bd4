"""Running a planned sweep: skip finished points, run the rest through a launcher, record each point's wall
time, then write ``summary.csv`` and ``sweep.png``.

How a point runs is the launcher's business, and a launcher is a small adapter (:class:`Launcher`): local
``cadence fit`` processes (:mod:`trainer.sweep.local_launcher`), Ray (:mod:`trainer.sweep.ray_launcher`), Slurm
through submitit (:mod:`trainer.sweep.slurm_launcher`), or calls of a Python function
(:mod:`trainer.sweep.python_sweep`). When each point starts, how a stop reaches it and what its end means
is written once, in :mod:`trainer.sweep.running`; this module orders and records.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from schedulers.core.schedule_arguments import integer_argument
from schedulers.tools.files import write_atomically
from trainer.sweep import folders
from trainer.sweep.picture import save_picture
from trainer.sweep.plan import SweepPoint
from trainer.sweep.running import Launcher, SweepError, run_pending
from trainer.sweep.summary import compute_line, point_row, table, write_summary

__all__ = ["check_jobs", "run_points"]  # Launcher, Outcome, SweepError, SweepStopped: trainer.sweep.running

POINTS_FILE = "points.txt"
SUMMARY_FILE = "summary.csv"
PICTURE_FILE = "sweep.png"


def check_jobs(jobs: Any) -> int:
    """The points run at once, checked.

    Args:
        jobs: ``--jobs`` as given.

    Returns:
        ``jobs`` as an int >= 1.

    Raises:
        ValueError: ``jobs`` is not an integer >= 1 (a bool is not), naming it.

    >>> check_jobs(2)
    2
    """
    return integer_argument("jobs", jobs, low=1, why="the points run at once")


def run_points(
    points: list[SweepPoint],
    launcher: Launcher,
    out: Path,
    jobs: int,
    log: Callable[[str], None] = print,
    forecast: Callable[[list[SweepPoint], list[dict[str, Any]], Callable[[str], None]], None] | None = None,
    dry_run: bool = False,
) -> list[dict[str, Any]]:
    """Run every unfinished point of ``points`` with ``launcher``, ``jobs`` at once (a WSD branch as soon as its
    decay start is saved), and return the summary rows (``forecast(points, rows, log)`` adds columns to the rows
    before they are written: ``cadence sweep --forecast`` passes :func:`trainer.forecast.sweeps.add_forecasts`).

    Args:
        points: The sweep's points (a finished point is skipped; a point's folder is claimed while it runs).
        launcher: What runs a point (local processes, Ray, Slurm).
        out: The sweep's folder (``points.txt``, ``summary.csv``, the picture).
        jobs: The points run at once.
        log: Where the sweep's lines go.
        forecast: Adds forecast columns to the summary rows, or None.
        dry_run: Only write ``points.txt`` and print its lines.

    Returns:
        The summary rows, one per point (empty with ``dry_run``).

    >>> import tempfile
    >>> from trainer.sweep.launchers import make_launcher
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     run_points([], make_launcher("local", None, Path(folder)), Path(folder), 1, dry_run=True)
    []
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    commands = [launcher.command(point) for point in points]
    if any(commands):
        text = "".join(f"{command}\n" for command in commands if command)
        write_atomically(out / POINTS_FILE, lambda stream: stream.write(text))
        log(f"sweep: one command per point in {out / POINTS_FILE}")
    if dry_run:
        for command in commands:
            log(command)
        return []
    claims: dict[str, folders.Claim] = {}
    try:
        for point in points:
            if folders.finished(point.folder) is not None:
                log(f"sweep: {point.name} is finished (skipped)")
            else:
                claims[point.name] = _claim(point)  # before its CSV is touched
        pending = [point for point in points if point.name in claims]
        if pending:
            with launcher.session(jobs):
                run_pending(pending, points, launcher, jobs, claims, log)
    finally:
        for held in claims.values():
            held.release()
    return _summarize(points, out, log, forecast)


def _summarize(points: list[SweepPoint], out: Path, log: Callable[[str], None], forecast: Any) -> list[dict]:
    rows = [point_row(point) for point in points]
    if forecast is not None:  # cadence sweep --forecast: trainer.forecast.sweeps.add_forecasts
        forecast(points, rows, log)
    write_summary(out / SUMMARY_FILE, rows)
    line = compute_line(rows)
    picture = save_picture(out / PICTURE_FILE, points, rows, title=line)
    log(table(rows))
    log(f"sweep: {line}; summary in {out / SUMMARY_FILE}" + (f", picture in {picture}" if picture else ""))
    return rows


def _claim(point: SweepPoint) -> folders.Claim:
    try:
        return folders.claim(point.folder)
    except folders.FolderInUse as error:
        raise SweepError(f"{point.name}: {error}") from None
