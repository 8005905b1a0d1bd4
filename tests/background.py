"""Slow work a test needs from other processes, started when the session starts and run beside the tests before it.

The README's test command runs in one pytest process, which keeps one core busy; a few tests spend most of their
time waiting for processes of their own (the Sphinx build, a Ray cluster, a Slurm job array). Their process work
runs here, one piece at a time in a background thread started by ``tests/conftest.py`` once the tests are
collected, so it uses the machine's other core while the tests before it run. The test then waits for what its
work returns and makes every check it made before: only where the processes run moves, not what is checked.

A test module writes the work as a function ``work(folder, env, *params) -> value`` (``folder`` is fresh and
empty, ``env`` is the environment as the session started, before any test changed it; processes are started with
:func:`run` or :func:`popen` so that an interrupted session ends them) and marks each test that uses it::

    @background.ahead(_sphinx_build)                  # or ahead(_work, "jobs", "name"): with the test's params
    def test_sphinx_build(): value = background.result(_sphinx_build)

Work no selected test uses never starts; a test whose work has not started yet runs it itself (``-k``, ``-x``).
The work must not import anything (the import lock is the main thread's) nor read ``os.environ`` or the working
folder (tests change both): it takes ``env`` and absolute paths.
"""

from __future__ import annotations

import collections
import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ENVIRON = dict(os.environ)  # imported while tests are collected: no test has changed the environment yet
_LOCK = threading.Lock()
_QUEUE: collections.deque = collections.deque()
_WORKS: dict[tuple, _Work] = {}
_CURRENT = threading.local()
_FOLDER: list[Path] = []
_ENDING = threading.Event()  # the session is over: a work starts no more processes


class _Work:
    """One piece of work: queued, then run (by the background thread or by the test), then its value or error."""

    def __init__(self, function: Callable, params: tuple) -> None:
        self.function, self.params = function, params
        self.started = False
        self.done = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None
        self.processes: list[subprocess.Popen] = []

    def run(self) -> None:
        _CURRENT.work = self
        try:
            folder = Path(tempfile.mkdtemp(prefix=f"{self.function.__name__}-", dir=_base()))
            self.value = self.function(folder, dict(ENVIRON), *self.params)
        except BaseException as error:  # handed to the test that asks for the value
            self.error = error
        finally:
            _CURRENT.work = None
            self.done.set()

    def end(self) -> None:
        """SIGKILL what the work started and still runs (its process group when it leads one)."""
        for process in self.processes:
            if process.poll() is None:
                with contextlib.suppress(OSError):
                    if os.getpgid(process.pid) == process.pid:
                        os.killpg(process.pid, signal.SIGKILL)
                    else:
                        process.kill()


def _base() -> Path:
    with _LOCK:
        if not _FOLDER:
            _FOLDER.append(Path(tempfile.mkdtemp(prefix="cadence-background-")))
        return _FOLDER[0]


def ahead(function: Callable, *param_names: str) -> pytest.MarkDecorator:
    """Mark a test whose ``function`` work starts with the session (with the test's ``param_names`` values)."""
    return pytest.mark.background.with_args(function, *param_names)


def _key(function: Callable, params: tuple) -> tuple:
    return (function, *params)


def start(items: list) -> None:
    """Queue the work of the collected ``items``, in the order they run, and start the background thread."""
    for item in items:
        for mark in item.iter_markers("background"):
            function, *names = mark.args
            params = tuple(item.callspec.params[name] for name in names)
            with _LOCK:
                if _key(function, params) not in _WORKS:
                    _WORKS[_key(function, params)] = work = _Work(function, params)
                    _QUEUE.append(work)
    if _QUEUE:
        threading.Thread(target=_drain, name="tests-background", daemon=True).start()


def _drain() -> None:
    while True:
        with _LOCK:
            if not _QUEUE:
                return
            work = _QUEUE.popleft()
            work.started = True
        work.run()


def result(function: Callable, *params: Any) -> Any:
    """The value of ``function``'s work with ``params``: waited for, or run here if it has not started.

    Raises:
        BaseException: What the work raised.
    """
    with _LOCK:
        work = _WORKS.get(_key(function, params))
        if work is None:
            work = _WORKS[_key(function, params)] = _Work(function, params)
        elif not work.started:
            _QUEUE.remove(work)
        mine = not work.started
        work.started = True
    if mine:
        work.run()
    work.done.wait()
    if work.error is not None:
        raise work.error
    return work.value


def popen(argv: list[str], **options: Any) -> subprocess.Popen:
    """``subprocess.Popen`` for a work: ended if the session ends before it does.

    Raises:
        RuntimeError: The session has ended (stopped early: ``-x``, Ctrl-C).
    """
    work = getattr(_CURRENT, "work", None)
    with _LOCK:
        if _ENDING.is_set():
            raise RuntimeError("the test session has ended: no new process")
        process = subprocess.Popen(argv, **options)
        if work is not None:
            work.processes.append(process)
    return process


def run(argv: list[str], timeout: float = 600, **options: Any) -> subprocess.CompletedProcess:
    """``subprocess.run(argv, capture_output=True, text=True)`` for a work (see :func:`popen`)."""
    with popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **options) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except BaseException:
            process.kill()
            raise
    return subprocess.CompletedProcess(argv, process.returncode, stdout, stderr)


def finish() -> None:
    """End the work still running (a session stopped early), wait for it, and remove the work's folders."""
    with _LOCK:
        _ENDING.set()
        _QUEUE.clear()
        works = list(_WORKS.values())
    for work in works:
        if work.started and not work.done.is_set():
            work.end()
            work.done.wait(timeout=60)
    for folder in _FOLDER:
        shutil.rmtree(folder, ignore_errors=True)
