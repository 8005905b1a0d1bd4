"""Starts the work of the tests marked ``@background.ahead(...)`` once the tests are collected (tests/background.py)."""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

import background  # noqa: E402

_TERMINATE_DEFAULT: list = []  # SIGTERM's handler before the session, when the session replaced it


def _terminated(signum, frame) -> None:
    raise KeyboardInterrupt(f"stopped by {signal.Signals(signum).name}")


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "background(work, *params): the test's process work starts with the session")
    # SIGTERM (a CI timeout, `kill`) ends the session as Ctrl-C does: pytest unwinds, the background work's
    # processes are ended and its folders removed. By default SIGTERM would end the process on the spot.
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        _TERMINATE_DEFAULT.append(signal.signal(signal.SIGTERM, _terminated))


def pytest_unconfigure(config) -> None:
    while _TERMINATE_DEFAULT:
        signal.signal(signal.SIGTERM, _TERMINATE_DEFAULT.pop())


def pytest_collection_finish(session) -> None:
    if not session.config.option.collectonly:
        background.start(session.items)


def pytest_sessionfinish(session, exitstatus) -> None:
    background.finish()
