"""Callbacks the sweep and record tests give ``cadence fit`` children by name (``sweep_fixtures:KillSweepAt``)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from trainer.callbacks import Callback


class KillSweepAt(Callback):
    """SIGKILLs the whole process group (the sweep and its child) once, as batch ``batch`` ends.

    ``marker`` is created first, so the rerun of the same command trains on instead of dying again.
    """

    def __init__(self, batch: int, marker: str) -> None:
        self.batch = batch
        self.marker = Path(marker)

    def on_batch_end(self, trainer, loss: float) -> None:
        if trainer.state.timestamp.batch.value == self.batch and not self.marker.exists():
            self.marker.write_text("killed\n")
            os.killpg(os.getpgid(0), signal.SIGKILL)


class SignalAt(Callback):
    """Sends the signal named ``send`` (``"SIGTERM"``) once, as batch ``batch`` ends, to this process (``to="self"``),
    to its parent (``"parent"``: the sweep that started it) or to its process group (``"group"``: what a terminal
    does on Ctrl-C). ``marker`` is created first, so the rerun of the same command trains on. It runs before
    the trainer's own loggers see the batch (config callbacks come first).
    """

    def __init__(self, batch: int, send: str, marker: str, to: str = "self") -> None:
        self.batch = batch
        self.signal = signal.Signals[send]
        self.marker = Path(marker)
        self.to = to

    def on_batch_end(self, trainer, loss: float) -> None:
        if trainer.state.timestamp.batch.value == self.batch and not self.marker.exists():
            self.marker.write_text(f"{self.signal.name} at {self.batch}\n")
            if self.to == "group":
                os.killpg(os.getpgid(0), self.signal)
            else:
                os.kill(os.getpid() if self.to == "self" else os.getppid(), self.signal)


class OrphanAt(Callback):
    """As batch ``batch`` ends, once (``marker``): SIGKILL the parent (the sweep), then wait for the file ``go`` to
    appear before training on, an orphan (what a point did when its sweep was killed)."""

    def __init__(self, batch: int, marker: str, go: str) -> None:
        self.batch = batch
        self.marker = Path(marker)
        self.go = Path(go)

    def on_batch_end(self, trainer, loss: float) -> None:
        if trainer.state.timestamp.batch.value == self.batch and not self.marker.exists():
            self.marker.write_text("orphaned\n")
            os.kill(os.getppid(), signal.SIGKILL)
            while not self.go.exists():
                time.sleep(0.05)


class WaitForPoints(Callback):
    """In the point whose folder is named ``point`` only, as batch ``batch`` ends: wait until every file of
    ``files`` exists (at most ``limit`` seconds), then write to ``marker`` whether they all did. A sweep that
    runs WSD branches while its main run goes on lets this main run wait for the branches' ``done.json``; one
    that runs them after the main run never shows them in time."""

    def __init__(self, point: str, batch: int, files: list[str], marker: str, limit: float = 300.0) -> None:
        self.point, self.batch, self.limit = point, batch, limit
        self.files = [Path(file) for file in files]
        self.marker = Path(marker)

    def on_batch_end(self, trainer, loss: float) -> None:
        if Path(trainer.save_folder).name != self.point or trainer.state.timestamp.batch.value != self.batch:
            return
        deadline = time.monotonic() + self.limit
        while not all(file.exists() for file in self.files) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.marker.write_text("seen\n" if all(file.exists() for file in self.files) else "not seen\n")


class StallAt(Callback):
    """In the point whose folder is named ``point`` only, once (``marker``): as batch ``batch`` ends, write
    ``marker`` and wait (at most ``limit`` seconds) until a stop signal reaches the trainer, so that the stop a
    test sends once ``marker`` exists finds the point at that batch."""

    def __init__(self, point: str, batch: int, marker: str, limit: float = 120.0) -> None:
        self.point, self.batch, self.marker, self.limit = point, batch, Path(marker), limit

    def on_batch_end(self, trainer, loss: float) -> None:
        if Path(trainer.save_folder).name != self.point or trainer.state.timestamp.batch.value != self.batch:
            return
        if self.marker.exists():
            return
        self.marker.write_text(f"{os.getpid()}\n")
        deadline = time.monotonic() + self.limit
        while trainer.stop_signal is None and time.monotonic() < deadline:
            time.sleep(0.05)
