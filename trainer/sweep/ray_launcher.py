"""The Ray launcher (``cadence sweep --launcher ray``): each point a Ray actor that runs its line of
``points.txt`` (:func:`trainer.sweep.remote.run_job`), so a point on the cluster is the point run locally.

``address`` connects to a running Ray cluster (``ray start --head`` printed it; ``"auto"``: the cluster
started on this machine); without it the sweep starts a Ray instance of its own on this machine, on
127.0.0.1, with ``jobs × cpus_per_point`` CPUs, and shuts it down at the end. Each point's actor reserves
``cpus_per_point`` CPUs and ``gpus_per_point`` GPUs. A stop reaches a point through its actor's ``stop``
call, which sends the signal on to the point's process; an ended point's actor is released at once.
Ray is an optional extra: ``pip install 'cadence[ray]'``.
"""

from __future__ import annotations

import contextlib
import math
import signal
from collections.abc import Iterator
from typing import Any

import attrs

from schedulers.core.schedule_arguments import number_argument
from trainer.sweep import folders
from trainer.sweep.plan import SweepPoint
from trainer.sweep.remote import PointActor
from trainer.sweep.running import Outcome

__all__ = ["RayLauncher"]

KILL_WAIT_S = 10.0  # how long a killed point's actor gets to report before it is released


@attrs.define
class _RayPoint:
    actor: Any
    ref: Any
    log: str


class RayLauncher:
    """Runs points as Ray actors (see the module docstring).

    Args:
        lines: The points' lines and jobs (a :class:`~trainer.sweep.config_sweep.PointLines`).
        address: A running Ray cluster's address (``"auto"``: the one started on this machine); None: the sweep
            starts a Ray instance of its own, on 127.0.0.1, for its session.
        cpus_per_point: The CPUs each point's actor reserves (a number >= 0; fractions allowed).
        gpus_per_point: The GPUs each point's actor reserves (a number >= 0).

    Returns:
        The launcher of ``cadence sweep --launcher ray``; building it imports Ray and connects to nothing (its
        session does). The point's job takes the folder's lock where it runs.

    Raises:
        ValueError: ``cpus_per_point`` or ``gpus_per_point`` is not a number >= 0.

    >>> from pathlib import Path
    >>> from trainer.sweep.config_sweep import PointLines
    >>> from trainer.sweep.plan import budgets_from_ssrs, plan_points
    >>> points = plan_points(budgets_from_ssrs([0.5]), Path("out"))
    >>> launcher = RayLauncher(PointLines("run.yaml", {}, points), address="auto", cpus_per_point=2)
    >>> launcher.cpus, launcher.gpus, launcher.passes_claims
    (2.0, 0.0, False)
    >>> RayLauncher(PointLines("run.yaml", {}, points), gpus_per_point=-1)
    Traceback (most recent call last):
    ValueError: gpus_per_point=-1 must be >= 0
    """

    passes_claims = False

    def __init__(
        self, lines: Any, *, address: str | None = None, cpus_per_point: float = 1, gpus_per_point: float = 0
    ) -> None:
        import ray  # the ray extra (make_launcher says so when it is missing)

        self.ray = ray
        self.lines = lines
        self.address = address
        self.cpus = number_argument("cpus_per_point", cpus_per_point, low=0.0)
        self.gpus = number_argument("gpus_per_point", gpus_per_point, low=0.0)
        self._actor = self.ray.remote(PointActor)

    def command(self, point: SweepPoint) -> str:
        """The line of ``points.txt`` that runs ``point`` on its own (what its actor runs).

        Args:
            point: A point of the plan.

        Returns:
            The point's ``cadence fit`` line (:meth:`~trainer.sweep.config_sweep.PointLines.command`).
        """
        return self.lines.command(point)

    @contextlib.contextmanager
    def session(self, jobs: int) -> Iterator[None]:
        """Connect to Ray for the sweep's runs, and shut the connection down after (a connection the caller
        opened is left to them).

        Args:
            jobs: How many points run at once; a Ray instance of the sweep's own gets ``jobs × cpus_per_point``
                CPUs.

        Returns:
            A context manager holding the connection.
        """
        ray = self.ray
        if ray.is_initialized():  # the caller's own connection (the Python API): theirs to close
            yield
            return
        if self.address:
            ray.init(address=self.address, log_to_driver=False)
        else:
            cpus = max(1, math.ceil(jobs * max(self.cpus, 0.001)))
            local = {"include_dashboard": False, "_node_ip_address": "127.0.0.1", "log_to_driver": False}
            ray.init(address="local", num_cpus=cpus, **local)
        try:
            yield
        finally:
            ray.shutdown()

    def start(self, points: list[SweepPoint], claims: dict[str, folders.Claim]) -> list[_RayPoint]:
        """Start one actor per point, with its resources, running the point's job.

        Args:
            points: The points to start now.
            claims: Released by the sweep already: each job claims its folder where it runs.

        Returns:
            One handle per point: its actor, the pending result of its run and its log file.
        """
        handles = []
        for point in points:
            job = self.lines.job(point)
            actor = self._actor.options(num_cpus=self.cpus, num_gpus=self.gpus, max_concurrency=2).remote()
            handles.append(_RayPoint(actor, actor.run.remote(job), job.log))
        return handles

    def poll(self, handle: _RayPoint) -> Outcome | None:
        """The point's outcome once its actor's run has returned (the actor is then released), else None.

        Args:
            handle: What :meth:`start` gave for the point.

        Returns:
            The job's exit status and log; status 1 and Ray's first line when the actor or its node died.
        """
        ray = self.ray
        ready, _ = ray.wait([handle.ref], timeout=0)
        if not ready:
            return None
        try:
            outcome = Outcome(int(ray.get(handle.ref)), handle.log)
        except ray.exceptions.RayError as error:  # the actor died, or the node did
            first = (str(error).strip().splitlines() or [type(error).__name__])[0]
            outcome = Outcome(1, f"{handle.log} (Ray: {first[:200]})")
        ray.kill(handle.actor)
        return outcome

    def signal(self, handle: _RayPoint, signum: int) -> None:
        """Pass ``signum`` on to the point through its actor's ``stop`` (also before the point has started).

        Args:
            handle: What :meth:`start` gave for the point.
            signum: The stop signal.
        """
        handle.actor.stop.remote(int(signum))

    def kill(self, handle: _RayPoint) -> None:
        """SIGKILL the point through its actor, wait up to ``KILL_WAIT_S`` for it to report, and release the actor.

        Args:
            handle: What :meth:`start` gave for the point.
        """
        handle.actor.stop.remote(int(signal.SIGKILL))
        with contextlib.suppress(Exception):
            self.ray.wait([handle.ref], timeout=KILL_WAIT_S)
        self.ray.kill(handle.actor)
