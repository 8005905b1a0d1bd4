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

    Args:
        config_path: The YAML config of ``cadence fit``.
        out: The sweep's folder (each point in ``out/<point>``).
        ssr: Scale schedule ratios (give this or ``max_duration``).
        max_duration: Run lengths, or fractions of the config's run (``0.5dur``).
        branch_from_stable: Run lengths only: the largest budget is the main run, the others WSD branches.
        overrides: ``--set`` options (``key=value``) applied to the config of every point.

    Returns:
        The points, smallest budget first (:func:`~trainer.sweep.plan.plan_points`), and the loaded config with
        ``overrides`` applied, whose loggers and callbacks :class:`PointLines` keeps.

    Raises:
        ValueError: ``branch_from_stable`` with ``ssr``, or budgets :func:`~trainer.sweep.plan.config_budgets`
            refuses.
        ConfigError, BranchingError: A mistake in the config or its overrides; schedules that cannot branch.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     config = Path(folder) / "run.yaml"
    ...     _ = config.write_text("trainer: {init: {model: {factory: 'torch.nn:Linear', kwargs: {in_features: 2, "
    ...         "out_features: 1}}, optimizer: SGD, schedulers: [{wsd: {t_warmup: 10ba, t_decay: 0.2dur}}], "
    ...         "loop: {max_steps: 400}}, fit: {train_dataloader: 'itertools:count'}}")
    ...     points, _ = plan_config_sweep(config, out=Path(folder), max_duration=["0.5dur", "1dur"],
    ...                                   branch_from_stable=True)
    >>> [(point.name, str(point.decay_start), point.is_main) for point in points]
    [('max_duration-200ba', '160ba', False), ('max_duration-400ba', '320ba', True)]
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
    """The ``cadence fit`` line of each point (see the module docstring), and the environment it runs in.

    Args:
        config_path: The config every point runs (as written on its line).
        config: That config, loaded, with ``overrides`` applied: its loggers and callbacks are kept, and its
            progress bar setting says whether a point's bar is labelled.
        points: The sweep's plan (the main run of a WSD sweep gets the decay starts of the others).
        overrides: The sweep's ``--set`` options, which come first on every line.

    Returns:
        What the launchers run: a point's arguments, its ``points.txt`` line, its environment and its cluster job.

    >>> from trainer.sweep.plan import budgets_from_ssrs, plan_points
    >>> points = plan_points(budgets_from_ssrs([0.5, 1.0]), Path("out"))
    >>> lines = PointLines("run.yaml", {}, points, ["trainer.init.seed=1"])
    >>> lines.command(points[0]).startswith("cadence fit run.yaml --set trainer.init.seed=1 --set ")
    True
    >>> for value in lines.arguments(points[0])[2::2]:
    ...     print(value)
    trainer.init.seed=1
    trainer.init.loop.scale_schedule_ratio=0.5
    trainer.init.checkpoint.save_folder=out/ssr-0.5
    trainer.init.checkpoint.autoresume=true
    trainer.init.loggers=[{"CSVLogger": {"path": "out/ssr-0.5/metrics.csv"}}]
    """

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
        its progress bar labelled with the point (True), or without a progress bar (False: output to a log).

        Args:
            point: A point of the plan the lines were made for.
            progress: None: the bar as the config says; True: labelled ``<point> [i/n]``; False: no bar.

        Returns:
            The config path, then ``--set`` and a ``key=value`` per setting: the sweep's overrides, the budget,
            the point's folder with autoresume, its ``CSVLogger``, the callbacks and a branch's ``load_path``.
        """
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
        """``point``'s line of ``points.txt``.

        Args:
            point: A point of the plan the lines were made for.

        Returns:
            ``cadence fit`` and the point's :meth:`arguments`, quoted for a POSIX shell.
        """
        return shlex.join(["cadence", "fit", *self.arguments(point)])

    @staticmethod
    def environment(point: SweepPoint) -> dict[str, str]:
        """What the sweep adds to a point's environment: this very Cadence on ``PYTHONPATH``, and for a branch's
        first start the one warning its resume gives on purpose silenced.

        Args:
            point: The point about to start (a branch without a checkpoint of its own starts from the main run's).

        Returns:
            The variables to set (``PYTHONPATH``, and ``PYTHONWARNINGS`` for such a branch), each extending the
            sweep's own value.
        """
        env = {}
        root = str(Path(__file__).resolve().parents[2])  # the children import this very Cadence
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
        if point.is_branch and folders.newest_batch(point.folder) is None:
            env["PYTHONWARNINGS"] = ",".join(filter(None, [os.environ.get("PYTHONWARNINGS"), _RESUME_WARNING]))
        return env

    def job(self, point: SweepPoint) -> PointJob:
        """``point`` as a cluster runs it (:mod:`trainer.sweep.remote`): exactly its line of ``points.txt``.

        Args:
            point: A point of the plan the lines were made for.

        Returns:
            The job: the point's line, the sweep's working folder, the point's environment, its ``log.txt`` and
            its folder (which the job claims where it runs).
        """
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
    """Plan and run the sweep of a config (``cadence sweep``); ``**cluster``: the launcher's options
    (:func:`~trainer.sweep.launchers.make_launcher`).

    Args:
        config_path: The YAML config of ``cadence fit``.
        out: The sweep's folder (each point in ``out/<point>``).
        ssr: Scale schedule ratios (give this or ``max_duration``).
        max_duration: Run lengths, or fractions of the config's run (``0.5dur``).
        branch_from_stable: Run lengths only: the others branch from the largest budget's run (WSD).
        overrides: ``--set`` options (``key=value``) for every point.
        jobs: How many points run at once (None: 1 locally, every point on a cluster).
        forecast: Adds columns to the rows (``--forecast``: :func:`trainer.forecast.sweeps.add_forecasts`).
        launcher: ``"local"`` (processes on this machine), ``"ray"`` or ``"slurm"``.
        dry_run: Write ``OUT/points.txt``, print its lines and run nothing (for ``sbatch --array``).

    Returns:
        The summary rows, one per point (empty with ``dry_run``); ``OUT/summary.csv`` holds them too.

    Raises:
        SweepError, SweepStopped: A point failed or is trained elsewhere; a stop signal stopped the sweep.
        ValueError, ConfigError, BranchingError, ImportError: Bad options, config or schedules; a missing extra.

    >>> import contextlib, io, tempfile
    >>> with tempfile.TemporaryDirectory() as folder, contextlib.redirect_stdout(io.StringIO()) as printed:
    ...     config = Path(folder) / "run.yaml"
    ...     _ = config.write_text("trainer: {init: {model: {factory: 'torch.nn:Linear', kwargs: {in_features: 2, "
    ...         "out_features: 1}}, optimizer: SGD, schedulers: [{wsd: {t_warmup: 10ba, t_decay: 0.2dur}}], "
    ...         "loop: {max_steps: 400}}, fit: {train_dataloader: 'itertools:count'}}")
    ...     rows = sweep_config(config, out=Path(folder), ssr=[0.5, 1], dry_run=True)
    >>> rows, printed.getvalue().count("cadence fit ")
    ([], 2)
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
