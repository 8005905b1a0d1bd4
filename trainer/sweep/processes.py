"""The ``cadence fit`` processes of a running sweep, and how a signal to the sweep reaches them (docs/sweeps.md).

- **SIGTERM or SIGHUP** to the sweep (:mod:`trainer.stopping`) is sent on to every running point: each
  finishes its batch, saves a checkpoint and exits as ``cadence fit`` does (128 + the signal). No point starts
  after it, and once the running ones have ended the sweep stops with :class:`~trainer.sweep.engine.SweepStopped`.
- **Ctrl-C**: a terminal sends SIGINT to the sweep and its points alike (they share a process group), and each
  point stops as ``cadence fit`` does on Ctrl-C. A point still running a moment later (SIGINT was sent to the
  sweep alone) gets SIGTERM; a second Ctrl-C while the sweep waits kills the points at once.

Either way the sweep waits for every point it started, so none is left behind.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from typing import Any

from trainer.stopping import stop_requests

__all__ = ["PointProcesses"]

#: How long the points get to end on their own after Ctrl-C before they are sent SIGTERM (what
#: ``subprocess.run`` gives a child after Ctrl-C before it kills it).
INTERRUPT_GRACE_S = 0.25


class PointProcesses:
    """The running points of a sweep (see the module docstring). Thread-safe for starting and waiting."""

    def __init__(self) -> None:
        self._running: set[subprocess.Popen] = set()
        self.signum: int | None = None  # the signal that stops the sweep (SIGINT after Ctrl-C)
        self._forward: int | None = None  # the signal a point gets (SIGTERM after Ctrl-C)

    @property
    def stopping(self) -> bool:
        return self.signum is not None

    @contextlib.contextmanager
    def forwarding_signals(self) -> Iterator[None]:
        """While in the block, SIGTERM and SIGHUP stop the sweep (see the module docstring)."""
        with stop_requests(self._stop):
            yield

    def start(self, argv: Sequence[str], **popen: Any) -> subprocess.Popen | None:
        """Start a point's process, or None when the sweep is stopping (then no point starts)."""
        if self.stopping:
            return None
        process = subprocess.Popen(argv, **popen)
        self._running.add(process)
        forward = self._forward
        if forward is not None:  # the stop came while it started: it gets the signal too
            _send(process, forward)
        return process

    def wait(self, process: subprocess.Popen) -> int:
        """Wait for a point's process to end; its exit status (interrupted, the process stays a running point)."""
        status = process.wait()
        self._running.discard(process)
        return status

    def _stop(self, signum: int) -> None:
        """A stop signal (in the main thread, between two bytecodes): send it on to every running point."""
        self.signum = self._forward = signum
        for process in list(self._running):
            _send(process, signum)

    def interrupt(self) -> None:
        """After Ctrl-C: no point starts; the running ones get a moment, then SIGTERM; wait for all of them."""
        if self.signum is None:
            self.signum = signal.SIGINT
        self._forward = self._forward or signal.SIGTERM
        deadline = time.monotonic() + INTERRUPT_GRACE_S
        for process in list(self._running):
            try:
                process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _send(process, self._forward)
        try:
            for process in list(self._running):
                process.wait()
        except KeyboardInterrupt:  # a second Ctrl-C: stop the points now
            for process in list(self._running):
                process.kill()
                process.wait()
            raise


def _send(process: subprocess.Popen, signum: int) -> None:
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signum)
