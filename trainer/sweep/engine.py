"""Running a planned sweep: skip finished points, run the rest (the main run of a WSD sweep first), record
each point's wall time, then write ``summary.csv`` and ``sweep.png``.

How a point runs is the launcher's business (:mod:`trainer.sweep.config_sweep` starts ``cadence fit``
processes, :mod:`trainer.sweep.python_sweep` calls a function); this module only orders and records.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from schedulers.tools.files import write_atomically
from trainer.stopping import signal_name
from trainer.sweep import folders
from trainer.sweep.picture import save_picture
from trainer.sweep.plan import SweepPoint
from trainer.sweep.summary import compute_line, point_row, table, write_summary

__all__ = ["Finish", "Launcher", "SweepError", "SweepStopped", "check_jobs", "run_points"]

POINTS_FILE = "points.txt"
SUMMARY_FILE = "summary.csv"
PICTURE_FILE = "sweep.png"


class SweepError(RuntimeError):
    """A point of the sweep failed, or another process is training it (the message names it and what to do)."""


class SweepStopped(Exception):
    """A stop signal (SIGTERM, SIGHUP) stopped the sweep once its running points had saved and ended."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by {signal_name(signum)}")
        self.signum = int(signum)


Finish = Callable[[SweepPoint, int, float, str], None]


class Launcher(Protocol):
    def command(self, point: SweepPoint) -> str | None:
        """The shell command that runs ``point`` on its own (for ``points.txt``), or None."""

    def run(self, points: list[SweepPoint], jobs: int, finish: Finish, claims: dict[str, folders.Claim]) -> None:
        """Run ``points``, ``jobs`` at once, calling ``finish(point, exit status, seconds, where its output is)``
        as each one ends; ``claims[point.name]`` is the sweep's lock on the point's folder (a process that
        trains the point should hold it too). A stop signal ends it with :class:`SweepStopped`."""


def check_jobs(jobs: Any) -> int:
    """``jobs`` (the points run at once) if it is an int >= 1; else a ValueError naming it."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs={jobs!r} must be an int >= 1 (the points run at once)")
    return jobs


def run_points(
    points: list[SweepPoint],
    launcher: Launcher,
    out: Path,
    jobs: int,
    log: Callable[[str], None] = print,
    forecast: bool = False,
) -> list[dict[str, Any]]:
    """Run every unfinished point of ``points`` with ``launcher`` and return the summary rows (with
    ``forecast``, each row also says how far a law fitted on the largest point forecasts it)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    commands = [launcher.command(point) for point in points]
    if any(commands):
        text = "".join(f"{command}\n" for command in commands if command)
        write_atomically(out / POINTS_FILE, lambda stream: stream.write(text))
        log(f"sweep: one command per point in {out / POINTS_FILE}")
    main = [point for point in points if point.is_main]
    phases = [main, [point for point in points if not point.is_main]] if main else [points]
    for phase in phases:
        _run_phase(phase, launcher, jobs, main[0].folder if main else None, log)
    rows = [point_row(point) for point in points]
    if forecast:
        from trainer.sweep.forecasting import add_forecasts

        add_forecasts(points, rows, log)
    write_summary(out / SUMMARY_FILE, rows)
    line = compute_line(rows)
    picture = save_picture(out / PICTURE_FILE, points, rows, title=line)
    log(table(rows))
    log(f"sweep: {line}; summary in {out / SUMMARY_FILE}" + (f", picture in {picture}" if picture else ""))
    return rows


def _run_phase(
    phase: list[SweepPoint], launcher: Launcher, jobs: int, main_folder: Path | None, log: Callable[[str], None]
) -> None:
    claims: dict[str, folders.Claim] = {}
    try:
        for point in phase:
            if folders.finished(point.folder) is not None:
                log(f"sweep: {point.name} is finished (skipped)")
            else:
                claims[point.name] = _claim(point)  # before its CSV is touched
                _prepare(point, main_folder, log)
        pending = [point for point in phase if point.name in claims]
        if pending:
            _launch(pending, launcher, jobs, claims)
    finally:
        for held in claims.values():
            held.release()


def _claim(point: SweepPoint) -> folders.Claim:
    try:
        return folders.claim(point.folder)
    except folders.FolderInUse as error:
        raise SweepError(f"{point.name}: {error}") from None


def _prepare(point: SweepPoint, main_folder: Path | None, log: Callable[[str], None]) -> None:
    folders.prepare(point, main_folder)
    if point.is_branch:
        start = f"its decay start {point.decay_start}" if point.start_folder else "batch 0 (its decay starts at 0)"
        log(f"sweep: {point.name} branches from the main run at {start} with max_duration {point.budget.value}")


def _launch(pending: list[SweepPoint], launcher: Launcher, jobs: int, claims: dict[str, folders.Claim]) -> None:
    failed = []

    def finish(point: SweepPoint, status: int, seconds: float, output: str) -> None:
        if status == 0:  # recorded at once: a sweep killed later skips this point
            folders.mark_done(point.folder, {"wall_time_s": seconds, "start_batch": folders.start_batch(point)})
        else:
            failed.append(f"{point.name} (exit status {status}; its output: {output})")

    launcher.run(pending, jobs, finish, claims)
    if failed:
        raise SweepError(f"{len(failed)} point(s) failed: {'; '.join(failed)}; rerun the same command to continue")
