"""``cadence sweep CONFIG``: one ``cadence fit`` process per point, each an ordinary run folder.

Every point runs ``cadence fit CONFIG`` with the sweep's ``--set`` options, then its budget
(``trainer.init.loop.scale_schedule_ratio`` or ``trainer.init.loop.max_duration``), its folder
(``checkpoint.save_folder``, ``checkpoint.autoresume=true``) and a ``CSVLogger`` writing
``metrics.csv``; the main run of a WSD sweep also gets a :class:`~trainer.sweep.wsd.DecayStartCheckpoints`
callback, and a branch ``checkpoint.load_path`` (the main run's checkpoint at its decay start). These are
the lines of ``OUT/points.txt``, so any point can be run on its own, and a killed point continues from its
newest checkpoint. A launcher runs them (:mod:`trainer.sweep.launchers`): local processes, where with
``jobs=1`` a point's progress bar is labelled with the point and with more each point's output goes to
``OUT/<point>/log.txt``; Ray or Slurm, which run each line as it is written.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from trainer.sweep import folders
from trainer.sweep.engine import check_jobs, run_points
from trainer.sweep.plan import SweepPoint, config_budgets, main_starts, plan_points
from trainer.sweep.remote import PointJob

__all__ = ["PointLines", "plan_config_sweep", "sweep_config"]

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


class PointLines:
    """The ``cadence fit`` line of each point (see the module docstring), and the environment it runs in."""

    def __init__(
        self, config_path: str | os.PathLike, config: dict, points: list[SweepPoint], overrides: Sequence[str] = ()
    ) -> None:
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
        """``point``'s line of ``points.txt``."""
        return shlex.join(["cadence", "fit", *self.arguments(point)])

    @staticmethod
    def environment(point: SweepPoint) -> dict[str, str]:
        """What the sweep adds to a point's environment: this very Cadence on ``PYTHONPATH``, and for a branch's
        first start the one warning its resume gives on purpose silenced."""
        env = {}
        root = str(Path(__file__).resolve().parents[2])  # the children import this very Cadence
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
        if point.is_branch and folders.newest_batch(point.folder) is None:
            env["PYTHONWARNINGS"] = ",".join(filter(None, [os.environ.get("PYTHONWARNINGS"), _RESUME_WARNING]))
        return env

    def job(self, point: SweepPoint) -> PointJob:
        """``point`` as a cluster runs it (:mod:`trainer.sweep.remote`): exactly its line of ``points.txt``."""
        log = point.folder / folders.LOG
        return PointJob(self.command(point), os.getcwd(), self.environment(point), str(log), str(point.folder))


def sweep_config(
    config_path: str | os.PathLike,
    *,
    out: str | os.PathLike,
    ssr: Sequence[Any] | None = None,
    max_duration: Sequence[Any] | None = None,
    branch_from_stable: bool = False,
    jobs: int | None = None,
    overrides: Sequence[str] = (),
    forecast: Callable[..., None] | None = None,
    launcher: str = "local",
    dry_run: bool = False,
    **cluster: Any,
) -> list[dict[str, Any]]:
    """Plan and run the sweep of a config (``cadence sweep``); returns the summary rows (``forecast``: a function
    adding columns to them, as :func:`trainer.forecast.sweeps.add_forecasts` does for ``--forecast``).

    ``launcher`` runs the points: ``"local"`` (processes on this machine), ``"ray"`` or ``"slurm"``, with that
    launcher's ``cluster`` options (:func:`trainer.sweep.launchers.make_launcher`). ``jobs`` points run at once
    (default: 1 locally, every point on a cluster); a WSD branch starts once its decay start is saved.
    ``dry_run`` writes ``OUT/points.txt`` and prints its lines, and runs nothing (for ``sbatch --array``).
    """
    from trainer.sweep.launchers import make_launcher

    points, config = plan_config_sweep(
        config_path,
        out=out,
        ssr=ssr,
        max_duration=max_duration,
        branch_from_stable=branch_from_stable,
        overrides=overrides,
    )
    lines = PointLines(config_path, config, points, overrides)
    runner = make_launcher("local" if dry_run else launcher, lines, Path(out), **({} if dry_run else cluster))
    jobs = check_jobs((1 if launcher == "local" else len(points)) if jobs is None else jobs)
    return run_points(points, runner, Path(out), jobs, forecast=forecast, dry_run=dry_run)


def _as_list(value: Any) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]
