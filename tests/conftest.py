"""Starts the work of the tests marked ``@background.ahead(...)`` once the tests are collected (tests/background.py)."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

import background  # noqa: E402


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "background(work, *params): the test's process work starts with the session")


def pytest_collection_finish(session) -> None:
    if not session.config.option.collectonly:
        background.start(session.items)


def pytest_sessionfinish(session, exitstatus) -> None:
    background.finish()
