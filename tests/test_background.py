"""A session stopped by Ctrl-C or SIGTERM ends its background work's processes and removes its folders
(tests/background.py, docs/architecture.md "Tests and benchmarks")."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

CONFTEST = f"""
import importlib.util

_spec = importlib.util.spec_from_file_location("cadence_tests_conftest", {str(TESTS / "conftest.py")!r})
_cadence = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_cadence)  # the suite's hooks, as the README's test command runs them
globals().update({{name: getattr(_cadence, name) for name in dir(_cadence) if name.startswith("pytest_")}})
"""

MODULE = """
import time
from pathlib import Path

import background

MARKS = Path(__file__).parent / "marks"


def _sleeper(folder, env):
    process = background.popen(["sleep", "300"], start_new_session=True)
    (MARKS / "pid.part").write_text(str(process.pid))
    (MARKS / "pid.part").replace(MARKS / "pid")  # whole or absent: the test reads it as soon as it appears
    process.wait()
    return process.returncode


def test_waits():
    (MARKS / "waiting").write_text("")
    time.sleep(300)


@background.ahead(_sleeper)
def test_sleeper():
    background.result(_sleeper)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _wait_for(path: Path, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while not path.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.05)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_stopped_session_ends_its_background_processes_and_removes_their_folders(tmp_path, signum):
    session = tmp_path / "session"
    (session / "marks").mkdir(parents=True)
    (session / "conftest.py").write_text(CONFTEST)
    (session / "test_stopped.py").write_text(MODULE)
    temporary = tmp_path / "tmp"  # the work's folders are made here
    temporary.mkdir()
    env = {**os.environ, "TMPDIR": str(temporary), "PYTHONDONTWRITEBYTECODE": "1"}
    pytest_session = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", str(session)],
        cwd=session,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        _wait_for(session / "marks" / "waiting", pytest_session)
        _wait_for(session / "marks" / "pid", pytest_session)
        sleeper = int((session / "marks" / "pid").read_text())
        assert _alive(sleeper)
        assert [p.name for p in temporary.iterdir()][0].startswith("cadence-background-")
        pytest_session.send_signal(signum)
        output, _ = pytest_session.communicate(timeout=120)
    finally:
        pytest_session.kill()
    assert pytest_session.returncode == 2, output  # pytest's "interrupted"
    deadline = time.monotonic() + 10
    while _alive(sleeper) and time.monotonic() < deadline:  # killed; reaped by the ended session's exit
        time.sleep(0.05)
    assert not _alive(sleeper)
    assert list(temporary.iterdir()) == []
