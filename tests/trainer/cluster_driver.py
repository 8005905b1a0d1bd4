"""Drives ``cadence sweep --launcher ray`` for tests/trainer/test_sweep_cli.py inside a private network namespace.

Run as ``unshare -n sh -c 'ip link set lo up && exec python cluster_driver.py RESULT.json -- SWEEP ARGS'``:
Ray then listens on 127.0.0.1 of a namespace nobody else shares. The driver

1. starts a Ray head (``ray start --head``, 2 CPUs, no dashboard), runs the sweep on it (``--address``), and
   once ``--marker`` exists sends SIGTERM to the sweep; it records the sweep's exit status and output, each
   point's newest checkpoint, and which processes that trained a point (their pids, from each point's
   ``.sweep.lock``) are still alive;
2. stops the head, and runs the same sweep again with a Ray instance of the sweep's own (no ``--address``).

Each step's exit status and output go to RESULT.json.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

RAY = str(Path(sys.executable).with_name("ray"))


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return state[state.rindex(")") + 2] != "Z"


def sweep(argv: list[str], marker: Path | None, env: dict) -> dict:
    process = subprocess.Popen(
        [sys.executable, "-m", "trainer", "sweep", *argv], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    if marker is not None:
        while not marker.exists() and process.poll() is None:
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=900)
    return {"status": process.returncode, "stdout": stdout.decode(), "stderr": stderr.decode()}


def main() -> None:
    result_path, out, marker, port = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4]
    argv = sys.argv[sys.argv.index("--") + 1 :]
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0", RAY_AUTH_MODE="disabled")  # a private namespace: no token
    head = [RAY, "start", "--head", "--num-cpus=2", "--node-ip-address=127.0.0.1", f"--port={port}"]
    head += ["--include-dashboard=false", "--disable-usage-stats"]
    results: dict = {}
    try:
        subprocess.run(head, env=env, check=True, capture_output=True, timeout=300)
        results["stopped"] = sweep([*argv, "--address", f"127.0.0.1:{port}"], marker, env)
        pids = [int(lock.read_text() or 0) for lock in out.glob("*/.sweep.lock") if lock.read_text().strip()]
        results["left"] = [pid for pid in pids if alive(pid)]
        links = {folder.parent.name: os.readlink(folder) for folder in out.glob("*/latest")}
        results["latest"] = links  # each point's newest checkpoint once the stopped sweep has ended
    finally:
        subprocess.run([RAY, "stop", "--force"], env=env, capture_output=True, timeout=300)
    results["rerun"] = sweep(argv, None, env)
    result_path.write_text(json.dumps(results))


if __name__ == "__main__":
    main()
