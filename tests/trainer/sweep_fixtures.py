"""Helpers of the sweep tests that ``cadence fit`` children import by name (``sweep_fixtures:KillSweepAt``)."""

from __future__ import annotations

import os
import signal
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
