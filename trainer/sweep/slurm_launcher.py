"""The Slurm launcher (``cadence sweep --launcher slurm``), through submitit: the points that can start are
submitted together as one job array, each job running its line of ``points.txt``
(:func:`trainer.sweep.remote.run_job`), so a point on the cluster is the point run locally.

The jobs take ``partition``, ``time`` (Slurm's ``--time``: minutes, ``H:MM:SS`` or ``D-H:MM:SS``),
``cpus_per_point``, ``gpus_per_point`` and any other ``#SBATCH`` option in ``slurm`` (``{"account": "abc"}``
is ``--account=abc``); submitit keeps its files in ``OUT/slurm``. A WSD branch is submitted once the main
run's checkpoint at its decay start is saved. A stop reaches a job as ``scancel --signal=<signal>``, which
the job passes on to its point (it saves a checkpoint and ends); a time limit does the same (Slurm sends
SIGTERM, then SIGKILL after its ``KillWait``), and rerunning the sweep continues. ``cluster="local"`` runs
the same job array with submitit's local executor, on this machine (to try a sweep before the cluster).
submitit is an optional extra: ``pip install 'cadence[slurm]'``.
"""

from __future__ import annotations

import contextlib
import math
import re
import shutil
import signal
import subprocess
import time as clock
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from schedulers.core.schedule_arguments import choice_argument, integer_argument
from trainer.sweep import folders
from trainer.sweep.plan import SweepPoint
from trainer.sweep.remote import run_job, send_signal
from trainer.sweep.running import Outcome

__all__ = ["SlurmLauncher", "slurm_minutes"]

LOCAL_TIME_MIN = 7 * 24 * 60  # submitit's local executor ends a job after its time (its default: 2 minutes)
KILL_WAIT_S = 30.0
_TIME = re.compile(r"^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$")


@attrs.define
class _SlurmPoint:
    job: Any
    log: str


class SlurmLauncher:
    """Runs points as a Slurm job array (see the module docstring).

    Args:
        lines: The points' lines and jobs (a :class:`~trainer.sweep.config_sweep.PointLines`).
        out: The sweep's folder; submitit keeps its files in ``out/slurm``.
        partition: Slurm's ``--partition`` (None: the cluster's default).
        time: Slurm's ``--time`` per job (:func:`slurm_minutes`); None: the cluster's default (locally a week).
        cpus_per_point: CPUs per job (``--cpus-per-task``, a whole number >= 0; None: the cluster's default).
        gpus_per_point: GPUs per job (a whole number >= 0).
        slurm: More ``#SBATCH`` options: ``{"account": "abc"}`` is ``--account=abc``.
        cluster: ``"slurm"``, or ``"local"``: submitit's local executor, on this machine.

    Returns:
        The launcher of ``cadence sweep --launcher slurm``; building it submits nothing (its session makes the
        executor, each :meth:`start` one array). Each job claims its point's folder where it runs.

    Raises:
        ValueError: ``cluster`` is neither, ``sbatch`` or ``srun`` is missing for ``"slurm"``, or a time or
            count is not one Slurm takes.

    >>> from trainer.sweep.config_sweep import PointLines
    >>> from trainer.sweep.plan import budgets_from_ssrs, plan_points
    >>> lines = PointLines("run.yaml", {}, plan_points(budgets_from_ssrs([0.5]), Path("out")))
    >>> SlurmLauncher(lines, Path("out"), time="1:30:00", slurm={"account": "abc"}, cluster="local").parameters
    {'name': 'cadence-sweep', 'gpus_per_node': 0, 'timeout_min': 90, 'slurm_additional_parameters': {'account': 'abc'}}
    >>> SlurmLauncher(lines, Path("out"), cluster="cloud")
    Traceback (most recent call last):
    ValueError: cluster='cloud' must be one of 'slurm', 'local'
    """

    passes_claims = False

    def __init__(
        self,
        lines: Any,
        out: Path,
        *,
        partition: str | None = None,
        time: str | int | None = None,
        cpus_per_point: int | None = None,
        gpus_per_point: int = 0,
        slurm: dict[str, Any] | None = None,
        cluster: str = "slurm",
    ) -> None:
        import submitit  # the slurm extra (make_launcher says so when it is missing)

        self.submitit = submitit
        choice_argument("cluster", cluster, ("slurm", "local"))  # local: submitit's local executor
        missing = [tool for tool in ("sbatch", "srun") if shutil.which(tool) is None]
        if cluster == "slurm" and missing:
            raise ValueError(
                f"--launcher slurm found no {' or '.join(missing)} on PATH: run the sweep on a Slurm login node "
                "(or try it on this machine with submitit's local executor: --submitit-cluster local)"
            )
        self.lines, self.folder, self.cluster = lines, Path(out) / "slurm", cluster
        minutes = slurm_minutes(time) if time is not None else (LOCAL_TIME_MIN if cluster == "local" else None)
        self.parameters = {"name": "cadence-sweep", "gpus_per_node": _count("gpus_per_point", gpus_per_point)}
        if minutes is not None:
            self.parameters["timeout_min"] = minutes
        if cpus_per_point is not None:
            self.parameters["cpus_per_task"] = _count("cpus_per_point", cpus_per_point)
        if partition:
            self.parameters["slurm_partition"] = str(partition)
        if slurm:  # written as `#SBATCH --key=value` (an underscore becomes a dash)
            self.parameters["slurm_additional_parameters"] = dict(slurm)
        self.executor: Any = None

    def command(self, point: SweepPoint) -> str:
        """The line of ``points.txt`` that runs ``point`` on its own (what its job runs).

        Args:
            point: A point of the plan.

        Returns:
            The point's ``cadence fit`` line (:meth:`~trainer.sweep.config_sweep.PointLines.command`).
        """
        return self.lines.command(point)

    @contextlib.contextmanager
    def session(self, jobs: int) -> Iterator[None]:
        """Make submitit's executor for the sweep's runs, with the launcher's options.

        Args:
            jobs: How many jobs of an array run at once (``--array``'s ``%`` limit).

        Returns:
            A context manager holding the executor.
        """
        self.executor = self.submitit.AutoExecutor(folder=self.folder, cluster=self.cluster)
        self.executor.update_parameters(**self.parameters, slurm_array_parallelism=jobs)
        yield

    def start(self, points: list[SweepPoint], claims: dict[str, folders.Claim]) -> list[_SlurmPoint]:
        """Submit ``points`` as one job array, each job running its point's line.

        Args:
            points: The points to start now.
            claims: Released by the sweep already: each job claims its folder where it runs.

        Returns:
            One handle per point: its submitit job and its log file.
        """
        jobs = [self.lines.job(point) for point in points]
        with self.executor.batch():  # one array
            submitted = [self.executor.submit(run_job, job) for job in jobs]
        return [_SlurmPoint(handle, job.log) for handle, job in zip(submitted, jobs, strict=True)]

    def poll(self, handle: _SlurmPoint) -> Outcome | None:
        """The point's outcome once its job is done, else None.

        Args:
            handle: What :meth:`start` gave for the point.

        Returns:
            The job's exit status and log; status 1 and submitit's first line when the job failed, timed out or
            was cancelled.
        """
        if not handle.job.done():
            return None
        try:
            return Outcome(int(handle.job.result()), handle.log)
        except Exception as error:  # the job failed, timed out or was cancelled: submitit says how
            first = (str(error).strip().splitlines() or [type(error).__name__])[0]
            return Outcome(1, f"{handle.log} (Slurm job {handle.job.job_id}: {first[:200]})")

    def signal(self, handle: _SlurmPoint, signum: int) -> None:
        """Pass ``signum`` on to the point's job (``scancel --signal``; locally SIGTERM to the job's controller).

        Args:
            handle: What :meth:`start` gave for the point.
            signum: The stop signal.
        """
        job = handle.job
        if self.cluster == "local":  # the local job's controller passes SIGTERM on to the job
            send_signal(job._process, signal.SIGTERM)
        else:
            name = signal.Signals(signum).name.removeprefix("SIG")
            subprocess.run(["scancel", f"--signal={name}", str(job.job_id)], check=False, capture_output=True)

    def kill(self, handle: _SlurmPoint) -> None:
        """Cancel the point's job and wait up to ``KILL_WAIT_S`` for it to be done.

        Args:
            handle: What :meth:`start` gave for the point.
        """
        handle.job.cancel(check=False)
        deadline = clock.monotonic() + KILL_WAIT_S
        while not handle.job.done() and clock.monotonic() < deadline:
            clock.sleep(0.1)


def slurm_minutes(value: str | int) -> int:
    """Slurm's ``--time`` in whole minutes: ``90`` (minutes), ``"1:30:00"``, ``"2-0:00:00"`` (days-hours).

    Args:
        value: Minutes (an int or its text), ``M:S``, ``H:M:S``, ``D-H``, ``D-H:M`` or ``D-H:M:S``.

    Returns:
        The time in minutes, rounded up (submitit's ``timeout_min``).

    Raises:
        ValueError: ``value`` is not a Slurm time, or is 0.

    >>> slurm_minutes("90"), slurm_minutes("1:30:00"), slurm_minutes("2-12"), slurm_minutes("10:30")
    (90, 90, 3600, 11)
    """
    text = str(value).strip()
    match = _TIME.match(text)
    if match is None or isinstance(value, bool):
        raise ValueError(f"time {value!r} is not a Slurm time: give minutes (90), H:MM:SS (1:30:00) or D-H:MM:SS")
    days, first, second, third = (None if part is None else int(part) for part in match.groups())
    if days is not None:  # D-H, D-H:M, D-H:M:S
        seconds = ((days * 24 + first) * 60 + (second or 0)) * 60 + (third or 0)
    elif third is not None:  # H:M:S
        seconds = (first * 60 + second) * 60 + third
    elif second is not None:  # M:S
        seconds = first * 60 + second
    else:
        seconds = first * 60
    if seconds <= 0:
        raise ValueError(f"time {value!r} must be more than 0")
    return math.ceil(seconds / 60)


def _count(name: str, value: Any) -> int:
    return integer_argument(name, value, low=0, why="Slurm counts whole CPUs and GPUs")
