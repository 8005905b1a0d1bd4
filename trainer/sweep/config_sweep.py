"""``cadence sweep CONFIG``: one ``cadence fit`` process per point, each an ordinary run folder.

Every point runs ``cadence fit CONFIG`` with the sweep's ``--set`` options, then its budget
(``trainer.init.loop.scale_schedule_ratio`` or ``trainer.init.loop.max_duration``), its folder
(``checkpoint.save_folder``, ``checkpoint.autoresume=true``) and a ``CSVLogger`` writing
``metrics.csv``; the main run of a WSD sweep also gets a :class:`~trainer.sweep.wsd.DecayStartCheckpoints`
callback, and a branch ``checkpoint.load_path`` (the main run's checkpoint at its decay start). These are
the lines of ``OUT/points.txt``, so any point can be run on its own, and a killed point continues from its
newest checkpoint. With ``jobs=1`` a point's progress bar is labelled with the point; with more, each
point's output goes to ``OUT/<point>/log.txt``.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from trainer.sweep import folders
from trainer.sweep.engine import Finish, SweepStopped, check_jobs, run_points
from trainer.sweep.plan import SweepPoint, config_budgets, main_starts, plan_points
from trainer.sweep.processes import PointProcesses

__all__ = ["ConfigLauncher", "plan_config_sweep", "sweep_config"]

_RESUME_WARNING = "ignore:resuming from"  # a branch starts from a run of another max_duration on purpose


def plan_config_sweep(
    config_path: str | os.PathLike,
    *,
    out: str | os.PathLike,
    ssr: Sequence[Any] | None = None,
    max_duration: Sequence[Any] | None = None,
    branch_from_stable: bool = False,
    overrides: Sequence[str] = (),
) -> tuple[list[SweepPoint], dict]:
    """The points of a config sweep, and the config (with ``overrides``) they start from.

    Builds the config's trainer once, here: configuration errors (:class:`~trainer.config.ConfigError`)
    come before any point runs, a ``dur`` budget becomes a fraction of the config's horizon, and
    branching checks the schedules (:class:`~trainer.sweep.wsd.BranchingError`).
    """
    from trainer.config import apply_overrides, load_config, trainer_from_command_line
    from trainer.sweep.wsd import decay_starts

    if branch_from_stable and ssr is not None:
        raise ValueError(
            "--branch-from-stable branches over run lengths: give --budgets (or --max-duration), not --ssr"
        )
    config = apply_overrides(load_config(config_path), list(overrides))  # what every point starts from
    # built as `cadence fit` builds a point (which has a save_folder; `out` itself never holds checkpoints)
    probe_sets = ["trainer.init.progress_bar=false", f"trainer.init.checkpoint.save_folder={out}"]
    probe = trainer_from_command_line(config_path, [*overrides, *probe_sets])
    budgets = config_budgets(probe.state, ssr=ssr, max_duration=max_duration)
    if ssr is not None:
        return plan_points(budgets, Path(out)), config
    starts = decay_starts(probe, [budget.value for budget in budgets]) if branch_from_stable else None
    return plan_points(budgets, Path(out), starts), config


class ConfigLauncher:
    """Runs points as ``python -m trainer fit`` processes (see the module docstring)."""

    def __init__(self, config_path: str | os.PathLike, config: dict, points: list[SweepPoint], overrides=()) -> None:
        self.config_path = str(config_path)
        init = config.get("trainer", {}).get("init", {}) or {}
        self.loggers = _as_list(init.get("loggers"))
        self.callbacks = _as_list(init.get("callbacks"))
        self.shows_progress = init.get("progress_bar", True) is not False
        self.overrides = list(overrides)
        self.starts = main_starts(points)
        self.total = len(points)
        self.order = {point.name: index for index, point in enumerate(points, 1)}

    def arguments(self, point: SweepPoint, *, progress: bool | None = None) -> list[str]:
        """The ``cadence fit`` arguments of ``point``: as the config says (``progress=None``, ``points.txt``), with
        its progress bar labelled with the point (True), or without a progress bar (False: output to a log)."""
        sets = [*self.overrides, point.budget.override]
        sets += [f"trainer.init.checkpoint.save_folder={point.folder}", "trainer.init.checkpoint.autoresume=true"]
        logger = {"CSVLogger": {"path": str(point.folder / folders.METRICS)}}  # a resumed run appends
        sets.append(f"trainer.init.loggers={json.dumps([*self.loggers, logger])}")
        callbacks = list(self.callbacks)
        if point.is_main and self.starts:
            callbacks.append({"trainer.sweep.wsd:DecayStartCheckpoints": {"starts": self.starts}})
        if progress is not None and self.shows_progress:
            if progress:
                callbacks.append({"ProgressBar": {"desc": f"{point.name} [{self.order[point.name]}/{self.total}]"}})
            sets.append("trainer.init.progress_bar=false")  # no bar, or the labelled one instead of the default
        if callbacks != self.callbacks:
            sets.append(f"trainer.init.callbacks={json.dumps(callbacks)}")
        if point.is_branch and point.start_folder is not None:
            sets.append(f"trainer.init.checkpoint.load_path={point.start_folder}")
        return [self.config_path, *(part for value in sets for part in ("--set", value))]

    def command(self, point: SweepPoint) -> str:
        return shlex.join(["cadence", "fit", *self.arguments(point)])

    def run(self, points: list[SweepPoint], jobs: int, finish: Finish, claims: dict[str, folders.Claim]) -> None:
        processes = PointProcesses()

        def report(point: SweepPoint, outcome: tuple[int, float, str] | None) -> None:
            if outcome is not None and (outcome[0] == 0 or not processes.stopping):  # a stopped point did not fail
                finish(point, *outcome)

        with processes.forwarding_signals():
            try:
                if jobs == 1:  # in this thread: Ctrl-C stops the sweep at the running point
                    for point in points:
                        report(point, self._run_one(point, jobs, claims[point.name], processes))
                else:
                    self._run_pool(points, jobs, claims, processes, report)
            except KeyboardInterrupt:
                processes.interrupt()
                raise
        if processes.stopping:
            raise SweepStopped(processes.signum)

    def _run_pool(self, points, jobs: int, claims, processes: PointProcesses, report) -> None:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(self._run_one, p, jobs, claims[p.name], processes): p for p in points}
            try:
                for future in as_completed(futures):
                    report(futures[future], future.result())
            except BaseException as error:  # the points not started yet never start
                if isinstance(error, KeyboardInterrupt):
                    processes.interrupt()  # before waiting for the pool, which waits for the running points
                pool.shutdown(wait=True, cancel_futures=True)
                raise

    def _run_one(
        self, point: SweepPoint, jobs: int, claim: folders.Claim, processes: PointProcesses
    ) -> tuple[int, float, str] | None:
        """Run ``point``'s ``cadence fit``: its exit status, seconds and where its output is; None when the sweep
        stopped before it started. The process holds the sweep's lock on the point's folder too."""
        argv = [sys.executable, "-m", "trainer", "fit", *self.arguments(point, progress=jobs == 1)]
        popen = {"env": self._environment(point), "pass_fds": () if claim.fd is None else (claim.fd,)}
        start = time.perf_counter()
        if jobs == 1:
            if not processes.stopping:
                print(f"sweep: [{self.order[point.name]}/{self.total}] {point.name}", flush=True)
            status = _start_and_wait(argv, claim, processes, popen)
            return None if status is None else (status, time.perf_counter() - start, "above")
        log = point.folder / folders.LOG
        with open(log, "ab") as stream:
            status = _start_and_wait(argv, claim, processes, dict(popen, stdout=stream, stderr=subprocess.STDOUT))
        if status is None:
            return None
        seconds = time.perf_counter() - start
        word = "done" if status == 0 else "stopped" if processes.stopping else "FAILED"
        print(f"sweep: {point.name} {word} in {seconds:.1f} s (log: {log})", flush=True)
        return status, seconds, str(log)

    @staticmethod
    def _environment(point: SweepPoint) -> dict[str, str]:
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[2])  # the children import this very Cadence
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
        if point.is_branch and folders.newest_batch(point.folder) is None:
            env["PYTHONWARNINGS"] = ",".join(filter(None, [env.get("PYTHONWARNINGS"), _RESUME_WARNING]))
        return env


def _start_and_wait(argv: list[str], claim: folders.Claim, processes: PointProcesses, popen: dict) -> int | None:
    """Start a point's process and wait for it: its exit status, or None when the sweep stopped before."""
    process = processes.start(argv, **popen)
    if process is None:
        return None
    claim.record(process.pid)
    return processes.wait(process)


def sweep_config(
    config_path: str | os.PathLike,
    *,
    out: str | os.PathLike,
    ssr: Sequence[Any] | None = None,
    max_duration: Sequence[Any] | None = None,
    branch_from_stable: bool = False,
    jobs: int = 1,
    overrides: Sequence[str] = (),
    forecast: bool = False,
) -> list[dict[str, Any]]:
    """Plan and run the sweep of a config (``cadence sweep``); returns the summary rows (``forecast``: with how
    far a law fitted on the largest point forecasts each, :mod:`trainer.sweep.forecasting`)."""
    jobs = check_jobs(jobs)
    points, config = plan_config_sweep(
        config_path,
        out=out,
        ssr=ssr,
        max_duration=max_duration,
        branch_from_stable=branch_from_stable,
        overrides=overrides,
    )
    launcher = ConfigLauncher(config_path, config, points, overrides)
    return run_points(points, launcher, Path(out), jobs, forecast=forecast)


def _as_list(value: Any) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]
