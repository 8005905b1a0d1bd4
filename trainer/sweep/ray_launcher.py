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
from dataclasses import dataclass
from typing import Any

from trainer.sweep import folders
from trainer.sweep.plan import SweepPoint
from trainer.sweep.remote import PointActor
from trainer.sweep.running import Outcome

__all__ = ["RayLauncher"]

KILL_WAIT_S = 10.0  # how long a killed point's actor gets to report before it is released


@dataclass
class _RayPoint:
    actor: Any
    ref: Any
    log: str


class RayLauncher:
    """Runs points as Ray actors (see the module docstring); ``lines`` is a
    :class:`~trainer.sweep.config_sweep.PointLines`."""

    passes_claims = False

    def __init__(
        self, lines: Any, *, address: str | None = None, cpus_per_point: float = 1, gpus_per_point: float = 0
    ) -> None:
        import ray  # the ray extra (make_launcher says so when it is missing)

        self.ray = ray
        self.lines = lines
        self.address = address
        self.cpus = _amount("cpus_per_point", cpus_per_point)
        self.gpus = _amount("gpus_per_point", gpus_per_point)
        self._actor = self.ray.remote(PointActor)

    def command(self, point: SweepPoint) -> str:
        return self.lines.command(point)

    @contextlib.contextmanager
    def session(self, jobs: int) -> Iterator[None]:
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
        handles = []
        for point in points:
            job = self.lines.job(point)
            actor = self._actor.options(num_cpus=self.cpus, num_gpus=self.gpus, max_concurrency=2).remote()
            handles.append(_RayPoint(actor, actor.run.remote(job), job.log))
        return handles

    def poll(self, handle: _RayPoint) -> Outcome | None:
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
        handle.actor.stop.remote(int(signum))

    def kill(self, handle: _RayPoint) -> None:
        handle.actor.stop.remote(int(signal.SIGKILL))
        with contextlib.suppress(Exception):
            self.ray.wait([handle.ref], timeout=KILL_WAIT_S)
        self.ray.kill(handle.actor)


def _amount(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{name}={value!r} must be a number >= 0")
    return float(value)
