"""When each point of a sweep starts, how a stop reaches the running ones, and what a point's end means
(docs/sweeps.md), for every launcher alike.

- **Start**: a point starts when fewer than ``jobs`` are running and it is ready; a WSD branch is ready once
  the main run's checkpoint at its decay start is complete (its folder's ``latest`` link, set when the
  checkpoint file and the main run's records up to it are on disk: :class:`~trainer.sweep.wsd.DecayStartCheckpoints`),
  so branches train while the main run goes on. Points start in the plan's order.
- **End**: exit status 0 writes ``done.json`` at once (a sweep killed later skips the point); another status
  is a failure, reported once every running point has ended, unless the sweep was stopping (a stopped point
  did not fail). A branch whose main run ended without its decay-start checkpoint fails.
- **SIGTERM or SIGHUP** to the sweep (:mod:`trainer.signals`) is sent on to every running point: each
  finishes its batch, saves a checkpoint and exits as ``cadence fit`` does (128 + the signal). No point starts
  after it, and once the running ones have ended the sweep stops with :class:`~trainer.sweep.engine.SweepStopped`.
- **Ctrl-C**: a terminal sends SIGINT to the sweep and its local points alike (one process group), and each
  stops as ``cadence fit`` does on Ctrl-C. A point still running a moment later (SIGINT was sent to the sweep
  alone, or the point runs elsewhere: Ray, Slurm) gets SIGTERM; a second Ctrl-C while the sweep waits ends
  the points at once.

Either way the sweep waits for every point it started, so none is left behind.
"""

from __future__ import annotations

import contextlib
import signal
import time
from collections.abc import Callable
from typing import Any, Protocol

import attrs

from trainer.signals import signal_name, stop_requests
from trainer.sweep import folders
from trainer.sweep.plan import SweepPoint

__all__ = ["INTERRUPT_GRACE_S", "POLL_S", "Launcher", "Outcome", "SweepError", "SweepStopped", "run_pending"]

#: How long the points get to end on their own after Ctrl-C before they are sent SIGTERM (what
#: ``subprocess.run`` gives a child after Ctrl-C before it kills it).
INTERRUPT_GRACE_S = 0.25
#: How often the sweep looks for ended points and for decay-start checkpoints.
POLL_S = 0.1


class SweepError(RuntimeError):
    """A point of the sweep failed, or another process is training it (the message names it and what to do).

    Returns:
        The error a sweep raises once every running point has ended, when a point exited with another status
        than 0 (its message lists each such point, its status and its log), a WSD branch's main run ended without
        its decay-start checkpoint, or a point's folder is locked by another process. Rerunning the same command
        continues: finished points are skipped.

    >>> print(SweepError("1 point(s) failed: ssr-0.5 (exit status 1; its output: out/ssr-0.5/log.txt)"))
    1 point(s) failed: ssr-0.5 (exit status 1; its output: out/ssr-0.5/log.txt)
    """


class SweepStopped(Exception):
    """A stop signal (SIGTERM, SIGHUP) stopped the sweep once its running points had saved and ended.

    Args:
        signum: The signal that stopped the sweep.

    Returns:
        The exception the sweep raises after a stop signal, once every point it started has ended; ``cadence
        sweep`` exits with 128 + ``signum``, as ``cadence fit`` does, and a rerun continues.

    >>> stopped = SweepStopped(signal.SIGTERM)
    >>> str(stopped), stopped.signum
    ('stopped by SIGTERM', 15)
    """

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by {signal_name(signum)}")
        self.signum = int(signum)


@attrs.frozen
class Outcome:
    """How a point ended: its exit status (0: trained to its end), where its output is (``"above"``: on the
    sweep's own terminal), and for a point run in Python the exception it raised.

    Args:
        status: The exit status (128 + the signal after a stop, as ``cadence fit`` gives).
        output: Where its output went: a log file, ``"above"``, or a log file and what the cluster said.
        error: The exception a point run in Python raised (the sweep raises it again), else None.

    Returns:
        The frozen value a launcher's ``poll`` gives once a point has ended; the sweep records the point as done
        (``done.json``) when ``status`` is 0 and there is no ``error``.

    >>> Outcome(0, "above")
    Outcome(status=0, output='above', error=None)
    """

    status: int
    output: str
    error: BaseException | None = None


class Launcher(Protocol):
    """Starts points and reports their end; :mod:`trainer.sweep.running` decides when and what follows.

    The launchers of :mod:`trainer.sweep.launchers` and :class:`~trainer.sweep.python_sweep.PythonLauncher`
    meet it; a launcher only starts, polls, signals and kills, and :func:`run_pending` does the rest.

    >>> import contextlib
    >>> class Instant:                    # every point "ends" with status 0 as soon as it starts
    ...     passes_claims = True
    ...     def command(self, point): return None
    ...     def session(self, jobs): return contextlib.nullcontext()
    ...     def start(self, points, claims): return [0] * len(points)
    ...     def poll(self, handle): return Outcome(handle, "above")
    ...     def signal(self, handle, signum): pass
    ...     def kill(self, handle): pass
    >>> Instant().poll(Instant().start(["a point"], {})[0])
    Outcome(status=0, output='above', error=None)
    """

    #: whether a started point's process holds the sweep's lock on its folder (inherited); else the sweep
    #: releases it as the point starts and the point's job takes it itself (another machine)
    passes_claims: bool

    def command(self, point: SweepPoint) -> str | None:
        """The shell command that runs ``point`` on its own (a line of ``points.txt``), or None.

        Args:
            point: A point of the plan.

        Returns:
            The line written to ``points.txt`` for the point; None when the launcher runs no command (a Python
            function), and then there is no ``points.txt``.
        """

    def session(self, jobs: int) -> contextlib.AbstractContextManager:
        """Around the sweep's runs (``jobs`` at once): connect to a cluster and let go of it after.

        Args:
            jobs: How many points the sweep runs at once.

        Returns:
            A context manager that the sweep holds while any point may start or run.
        """

    def start(self, points: list[SweepPoint], claims: dict[str, folders.Claim]) -> list[Any]:
        """Start ``points`` (one handle each); ``claims[name]`` is the sweep's lock on a point's folder.

        Args:
            points: The points to start now, ready and in plan order.
            claims: Each point's name to the sweep's lock on its folder (released before the call when
                ``passes_claims`` is False).

        Returns:
            One handle per point, in order, which the sweep gives back to :meth:`poll`, :meth:`signal` and
            :meth:`kill`.
        """

    def poll(self, handle: Any) -> Outcome | None:
        """The outcome of a started point once it has ended, else None (never blocks).

        Args:
            handle: What :meth:`start` gave for the point.

        Returns:
            How the point ended, or None while it runs; the sweep polls every ``POLL_S`` seconds.
        """

    def signal(self, handle: Any, signum: int) -> None:
        """Send a stop signal on to a running point (it saves a checkpoint and ends, as ``cadence fit`` does).

        Args:
            handle: What :meth:`start` gave for the point.
            signum: The signal (SIGTERM, SIGHUP or SIGINT).
        """

    def kill(self, handle: Any) -> None:
        """End a running point at once, and wait until it has (after a second Ctrl-C).

        Args:
            handle: What :meth:`start` gave for the point.
        """


@attrs.define
class _Running:
    point: SweepPoint
    handle: Any
    started: float


def run_pending(
    pending: list[SweepPoint],
    points: list[SweepPoint],
    launcher: Launcher,
    jobs: int,
    claims: dict[str, folders.Claim],
    log: Callable[[str], None] = print,
) -> None:
    """Run ``pending`` (unfinished points of the plan ``points``, each claimed in ``claims``) with ``launcher``.

    When a point starts, what a stop does and what an end means: the module docstring. A point that ends with
    status 0 gets ``done.json`` at once.

    Args:
        pending: The points to run, in plan order.
        points: The whole plan (for the ``[i/n]`` of the log and a WSD sweep's main run).
        launcher: Starts the points and reports their end.
        jobs: How many points run at once.
        claims: Each pending point's name to the sweep's lock on its folder.
        log: Where the progress lines go.

    Raises:
        SweepError: A point failed (once the others have ended).
        SweepStopped: A stop signal stopped the sweep.
        KeyboardInterrupt: Ctrl-C, once every point has ended.
        BaseException: The first exception a point run in Python raised (``budget_sweep``), once the others ended.

    >>> import contextlib, tempfile
    >>> from pathlib import Path
    >>> from trainer.sweep.plan import budgets_from_ssrs, plan_points
    >>> class Instant:                    # Launcher's example, less signal and kill (nothing stops here)
    ...     passes_claims = True
    ...     def command(self, point): return None
    ...     def session(self, jobs): return contextlib.nullcontext()
    ...     def start(self, points, claims): return [0] * len(points)
    ...     def poll(self, handle): return Outcome(handle, "above")
    >>> with tempfile.TemporaryDirectory() as out:
    ...     points = plan_points(budgets_from_ssrs([0.5, 1]), Path(out))
    ...     claims = {point.name: folders.claim(point.folder) for point in points}
    ...     run_pending(points, points, Instant(), 2, claims)
    ...     print([sorted(folders.finished(point.folder)) for point in points][0])
    ...     for claim in claims.values():
    ...         claim.release()
    sweep: [1/2] ssr-0.5
    sweep: [2/2] ssr-1.0
    ['start_batch', 'wall_time_s']
    """
    _Sweep(points, launcher, jobs, claims, log).run(pending)


class _Sweep:
    def __init__(self, points, launcher: Launcher, jobs: int, claims, log) -> None:
        self.launcher, self.jobs, self.claims, self.log = launcher, jobs, claims, log
        self.order = {point.name: index for index, point in enumerate(points, 1)}
        self.total = len(points)
        self.main_folder = next((point.folder for point in points if point.is_main), None)
        self.waiting: list[SweepPoint] = []
        self.running: list[_Running] = []
        self.signum: int | None = None  # the signal that stops the sweep (SIGINT after Ctrl-C)
        self.failed: list[str] = []
        self.error: BaseException | None = None  # the first exception a point run in Python raised

    def run(self, pending: list[SweepPoint]) -> None:
        self.waiting = list(pending)
        with stop_requests(self._stop):
            try:
                while self.running or (self.waiting and self.signum is None and self.error is None):
                    started = self._start_ready()
                    if not self._collect() and not started:
                        time.sleep(POLL_S)
            except KeyboardInterrupt:
                self._interrupt()
                raise
            except BaseException:  # a bug, or a point run in this process raised: the others stop and end first
                self._stop_all(signal.SIGTERM)
                raise
        if self.error is not None:
            raise self.error
        if self.signum is not None:
            raise SweepStopped(self.signum)
        if self.failed:
            raise SweepError(
                f"{len(self.failed)} point(s) failed: {'; '.join(self.failed)}; rerun the same command to continue"
            )

    # -- starting ----------------------------------------------------------------------------------------------
    def _ready(self, point: SweepPoint) -> bool:
        return not point.is_branch or point.start_folder is None or folders.newest_batch(point.start_folder) is not None

    def _start_ready(self) -> bool:
        if self.signum is not None or self.error is not None:
            return False
        ready = [point for point in self.waiting if self._ready(point)][: self.jobs - len(self.running)]
        if not ready:
            self._fail_blocked()
            return False
        for point in ready:
            self.waiting.remove(point)
            self._prepare(point)
            self.log(f"sweep: [{self.order[point.name]}/{self.total}] {point.name}")
        claims = {point.name: self.claims[point.name] for point in ready}
        if not self.launcher.passes_claims:  # the point's job takes the lock itself, wherever it runs
            for claim in claims.values():
                claim.release()
        now = time.perf_counter()  # before: a point run in this process has ended when start returns
        handles = self.launcher.start(ready, claims)
        for point, handle in zip(ready, handles, strict=True):
            self.running.append(_Running(point, handle, now))
            if self.signum is not None:  # the stop came while it started: it gets the signal too
                self.launcher.signal(handle, self.signum)
        return True

    def _prepare(self, point: SweepPoint) -> None:
        folders.prepare(point, self.main_folder)
        if point.is_branch:
            start = f"its decay start {point.decay_start}" if point.start_folder else "batch 0 (its decay starts at 0)"
            self.log(
                f"sweep: {point.name} branches from the main run at {start} with max_duration {point.budget.value}"
            )

    def _fail_blocked(self) -> None:
        """Fail the branches that wait for a decay start that no running or waiting main run can save."""
        if any(run.point.is_main for run in self.running) or any(point.is_main for point in self.waiting):
            return
        for point in [point for point in self.waiting if not self._ready(point)]:
            self.waiting.remove(point)
            self.failed.append(
                f"{point.name} (the main run ended without its decay-start checkpoint in {point.start_folder})"
            )

    # -- ending ------------------------------------------------------------------------------------------------
    def _collect(self) -> bool:
        """Record every point that has ended; whether one had."""
        ended = False
        for run in list(self.running):
            outcome = self.launcher.poll(run.handle)
            if outcome is not None:
                self.running.remove(run)
                self._finish(run, outcome, time.perf_counter() - run.started)
                ended = True
        return ended

    def _finish(self, run: _Running, outcome: Outcome, seconds: float) -> None:
        point = run.point
        if outcome.status == 0 and outcome.error is None:  # recorded at once: a sweep killed later skips this point
            folders.mark_done(point.folder, {"wall_time_s": seconds, "start_batch": folders.start_batch(point)})
        elif self.signum is None and outcome.error is not None:
            self.error = self.error or outcome.error
        elif self.signum is None:
            self.failed.append(f"{point.name} (exit status {outcome.status}; its output: {outcome.output})")
        if outcome.output != "above":
            word = "done" if outcome.status == 0 else "stopped" if self.signum is not None else "FAILED"
            self.log(f"sweep: {point.name} {word} in {seconds:.1f} s (log: {outcome.output})")

    # -- stopping ----------------------------------------------------------------------------------------------
    def _stop(self, signum: int) -> None:
        """A stop signal (in the main thread, between two bytecodes): send it on to every running point."""
        self.signum = signum
        for run in list(self.running):
            self.launcher.signal(run.handle, signum)

    def _stop_all(self, signum: int) -> None:
        with contextlib.suppress(BaseException):
            self._stop(signum)
            self._wait_all()

    def _interrupt(self) -> None:
        """After Ctrl-C: no point starts; the running ones get a moment, then SIGTERM; wait for all of them."""
        if self.signum is None:
            self.signum = signal.SIGINT
        deadline = time.monotonic() + INTERRUPT_GRACE_S
        while self.running and time.monotonic() < deadline:
            if not self._collect():
                time.sleep(min(POLL_S, INTERRUPT_GRACE_S / 5))
        for run in list(self.running):
            self.launcher.signal(run.handle, signal.SIGTERM)
        try:
            self._wait_all()
        except KeyboardInterrupt:  # a second Ctrl-C: end the points now
            for run in list(self.running):
                self.launcher.kill(run.handle)
            self._collect()
            raise

    def _wait_all(self) -> None:
        while self.running:
            if not self._collect():
                time.sleep(POLL_S)
