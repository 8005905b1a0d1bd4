"""``cadence sweep`` on the embedded classifier (examples/classifier.yaml, classifier_wsd.yaml).

Each point equals the ``cadence fit`` its line of ``points.txt`` runs; a sweep killed mid-point (SIGKILL to
the sweep and its child) and rerun equals an uninterrupted one; SIGTERM, SIGHUP or SIGINT to a sweep (one
point or two at a time) stops every point cleanly, leaves no process behind, and the rerun equals an
uninterrupted sweep; a point another process still trains is not started twice; every WSD branch equals
its standalone run bit for bit, and the compute the summary reports is the batches the children really trained.
"""

from __future__ import annotations

import csv
import importlib
import importlib.util
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from trainer.checkpoint_files import load_checkpoint
from trainer.cli import build_parser
from trainer.sweep import folders

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
for _path in (HERE, HERE.parent):  # record_checks, sweep_fixtures; background
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import background  # noqa: E402  (tests/background.py, on sys.path through tests/conftest.py)
from record_checks import assert_same_csv, same_value  # noqa: E402

CLASSIFIER = ROOT / "examples" / "classifier.yaml"
WSD = ROOT / "examples" / "classifier_wsd.yaml"
SHORT = ["--set", "trainer.init.loop.max_steps=200", "--set", "trainer.init.checkpoint.steps=20"]


def cadence(*args: str, environ: dict | None = None, **popen) -> subprocess.CompletedProcess:
    """``python -m trainer ARGS`` in tests/trainer (so ``sweep_fixtures`` is importable by the children), in
    ``environ`` (default: this process's environment)."""
    env = dict(os.environ if environ is None else environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    argv = [sys.executable, "-m", "trainer", *args]
    if environ is not None:  # a background work (tests/background.py)
        return background.run(argv, cwd=HERE, env=env, **popen)
    return subprocess.run(argv, cwd=HERE, env=env, capture_output=True, text=True, timeout=600, **popen)


def _columns(path: Path, names=("train/loss", "lr/group0", "eval/loss")) -> dict[str, list]:
    rows = folders.read_rows(path)
    return {name: [(row["batch"], row[name]) for row in rows if row.get(name, "") != ""] for name in names}


def _same_weights(a: Path, b: Path) -> bool:
    x, y = load_checkpoint(a)["model"], load_checkpoint(b)["model"]
    return x.keys() == y.keys() and all(torch.equal(x[key], y[key]) for key in x)


def _summary(path: Path) -> list[dict]:
    with open(path, newline="") as stream:
        return [{k: v for k, v in row.items() if k != "wall_time_s"} for row in csv.DictReader(stream)]


def _alone(lines: list[str], folders_: list[Path], env: dict, *extra: str) -> list[subprocess.CompletedProcess]:
    """Each ``points.txt`` line run by hand into its folder (later ``--set``s win), with its own CSV; the runs
    start together (they are independent)."""
    runs = []
    for line, folder in zip(lines, folders_, strict=True):
        argv = shlex.split(line)
        assert argv[:2] == ["cadence", "fit"]
        logger = json.dumps([{"CSVLogger": {"path": str(folder / "metrics.csv")}}])
        sets = ["--set", f"trainer.init.checkpoint.save_folder={folder}", "--set", f"trainer.init.loggers={logger}"]
        argv = [sys.executable, "-m", "trainer", "fit", *argv[2:], *sets, *extra]
        env_ = dict(env, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
        pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
        runs.append((argv, background.popen(argv, cwd=HERE, env=env_, text=True, **pipes)))
    done = []
    for argv, process in runs:
        with process:
            stdout, stderr = process.communicate(timeout=600)
        done.append(subprocess.CompletedProcess(argv, process.returncode, stdout, stderr))
    return done


def _ssr_sweep(folder: Path, env: dict) -> tuple[Path, subprocess.CompletedProcess]:
    out = folder / "sweep"
    return out, cadence("sweep", str(CLASSIFIER), "--ssr", "0.5", "0.25", *SHORT, "--out", str(out), environ=env)


@pytest.fixture(scope="module")
def ssr_sweep() -> tuple[Path, subprocess.CompletedProcess]:
    """The uninterrupted ssr sweep the tests compare with (tests/background.py starts it with the session: each
    test using it is marked ``background.ahead(_ssr_sweep)``)."""
    out, result = background.result(_ssr_sweep)
    assert result.returncode == 0, result.stderr[-3000:]
    return out, result


def _ssr_points_alone(folder: Path, env: dict) -> tuple[Path, list[subprocess.CompletedProcess]]:
    """Each line of the ssr sweep's ``points.txt`` run by hand (tests/background.py starts it with the session)."""
    out, _ = background.result(_ssr_sweep)
    lines = (out / "points.txt").read_text().splitlines()
    return folder, _alone(lines, [folder / f"line-{number}" for number in range(len(lines))], env)


@background.ahead(_ssr_points_alone)
@background.ahead(_ssr_sweep)
def test_every_ssr_point_equals_the_cadence_fit_line_it_prints(ssr_sweep):
    out, result = ssr_sweep
    assert "[1/2] ssr-0.25" in result.stdout and "[2/2] ssr-0.5" in result.stdout
    assert "ssr-0.25 [1/2]:" in result.stderr  # the point's progress bar names it
    lines = (out / "points.txt").read_text().splitlines()
    assert len(lines) == 2 and "trainer.init.loop.scale_schedule_ratio=0.25" in lines[0]
    rows = _summary(out / "summary.csv")
    assert [(row["point"], row["batches"], row["samples"], row["trained_batches"]) for row in rows] == [
        ("ssr-0.25", "50", "3200", "50"),
        ("ssr-0.5", "100", "6400", "100"),
    ]
    assert (out / "sweep.png").stat().st_size > 0
    folder, runs = background.result(_ssr_points_alone)
    for number, (row, alone) in enumerate(zip(rows, runs, strict=True)):
        assert alone.returncode == 0, alone.stderr[-3000:]
        point, by_hand = out / row["point"], folder / f"line-{number}"
        assert _same_weights(point, by_hand)
        assert _columns(point / "metrics.csv") == _columns(by_hand / "metrics.csv")
        assert row["final_eval_loss"] == _columns(point / "metrics.csv")["eval/loss"][-1][1]


def _killed_sweep(folder: Path, env: dict) -> dict:
    """The ssr sweep SIGKILLed with its child at batch 70 of ssr-0.5, what it left, and the rerun of the same
    command (tests/background.py starts it with the session)."""
    out = folder / "sweep"
    killer = json.dumps([{"sweep_fixtures:KillSweepAt": {"batch": 70, "marker": str(folder / "killed")}}])
    command = ["sweep", str(CLASSIFIER), "--ssr", "0.5", "0.25", *SHORT, "--out", str(out)]
    command += ["--set", f"trainer.init.callbacks={killer}"]
    # its own process group: the kill takes sweep and child
    killed = cadence(*command, environ=env, start_new_session=True)
    return {
        "out": out, "killed": killed, "marker": (folder / "killed").exists(),
        "finished": folders.finished(out / "ssr-0.5"), "newest": folders.newest_batch(out / "ssr-0.5"),
        "rerun": cadence(*command, environ=env),
    }  # fmt: skip


@background.ahead(_killed_sweep)
@background.ahead(_ssr_sweep)
def test_a_killed_sweep_rerun_with_the_same_command_equals_an_uninterrupted_one(ssr_sweep):
    whole, _ = ssr_sweep
    seen = background.result(_killed_sweep)
    out = seen["out"]
    assert seen["killed"].returncode == -signal.SIGKILL
    assert seen["marker"] and seen["finished"] is None
    assert seen["newest"] == 60  # checkpoints every 20 batches; killed at 70
    rerun = seen["rerun"]
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert "ssr-0.25 is finished (skipped)" in rerun.stdout
    assert "trained batches 60-100 (40 this run)" in rerun.stdout
    assert _summary(out / "summary.csv") == _summary(whole / "summary.csv")
    for point in ("ssr-0.25", "ssr-0.5"):
        assert _same_weights(out / point, whole / point)
        assert _columns(out / point / "metrics.csv") == _columns(whole / point / "metrics.csv")


WSD_BUDGETS = ["--budgets", "0.25dur", "0.5dur", "1dur"]
WSD_POINTS = ("max_duration-50ba", "max_duration-100ba", "max_duration-200ba")


def _sequential_wsd_sweep(folder: Path, env: dict) -> tuple[Path, subprocess.CompletedProcess]:
    out = folder / "sequential"
    argv = ["sweep", str(WSD), "--branch-from-stable", *WSD_BUDGETS, *SHORT, "--out", str(out), "--jobs", "1"]
    return out, cadence(*argv, environ=env)


@pytest.fixture(scope="module")
def sequential_wsd_sweep() -> Path:
    """The branched sweep one point at a time: the main run, then each branch (tests/background.py starts it with
    the session: each test using it is marked ``background.ahead(_sequential_wsd_sweep)``)."""
    out, result = background.result(_sequential_wsd_sweep)
    assert result.returncode == 0, result.stderr[-3000:]
    return out


def _branched_sweep(folder: Path, env: dict) -> dict:
    """The branched sweep with 3 jobs, and its branches' ``points.txt`` lines run by hand (tests/background.py
    starts it with the session)."""
    out = folder / "wsd"
    # the main run waits at batch 120 (both decay starts, 40 and 80, are behind it) until both branches are done:
    # only a sweep that starts each branch at its decay start, with the main run still going, gets there
    done = [str(out / name / folders.DONE) for name in WSD_POINTS[:2]]
    wait = {"point": WSD_POINTS[2], "batch": 120, "files": done, "marker": str(folder / "seen")}
    callbacks = json.dumps([{"sweep_fixtures:WaitForPoints": wait}])
    result = cadence(
        "sweep", str(WSD), "--branch-from-stable", *WSD_BUDGETS, *SHORT, "--out", str(out), "--jobs", "3",
        "--set", f"trainer.init.callbacks={callbacks}", environ=env,
    )  # fmt: skip
    if result.returncode != 0:
        return {"out": out, "result": result}
    lines = (out / "points.txt").read_text().splitlines()
    by_hand = [folder / point for point in WSD_POINTS[:2]]
    alone = _alone(lines[:2], by_hand, env, "--set", "trainer.init.checkpoint.load_path=null")
    return {"out": out, "result": result, "seen": (folder / "seen").read_text(), "alone": alone, "by_hand": by_hand}


@background.ahead(_branched_sweep)
@background.ahead(_sequential_wsd_sweep)
def test_every_wsd_branch_equals_its_standalone_run_and_branches_train_while_the_main_run_goes_on(
    sequential_wsd_sweep,
):
    seen = background.result(_branched_sweep)
    out, result = seen["out"], seen["result"]
    assert result.returncode == 0, result.stderr[-3000:]
    assert seen["seen"] == "seen\n"
    assert "max_duration-50ba branches from the main run at its decay start 40ba" in result.stdout
    # the compute figure is the batches the children really trained (each child's summary line counts them)
    logs = {name: (out / name / "log.txt").read_text() for name in WSD_POINTS}
    trained = {p: int(re.search(r"\((\d+) this run\)", text).group(1)) for p, text in logs.items()}
    assert trained == {"max_duration-50ba": 10, "max_duration-100ba": 20, "max_duration-200ba": 200}
    assert "3 budgets for 1.15× the largest run (independent runs: 1.75×)" in result.stdout
    assert [row["trained_batches"] for row in _summary(out / "summary.csv")] == ["10", "20", "200"]
    assert not any("resuming from" in text for text in logs.values())  # the branch's resume is on purpose
    # bit for bit the sequential sweep: weights, every row of every point, the summary
    sequential = sequential_wsd_sweep
    for name in WSD_POINTS:
        assert _same_weights(out / name, sequential / name), name
        assert _columns(out / name / "metrics.csv") == _columns(sequential / name / "metrics.csv")  # every row
    assert _summary(out / "summary.csv") == _summary(sequential / "summary.csv")
    lines = (out / "points.txt").read_text().splitlines()
    assert "load_path=" in lines[0] and "DecayStartCheckpoints" in lines[2]
    for alone, point, by_hand in zip(seen["alone"], WSD_POINTS[:2], seen["by_hand"], strict=True):
        assert alone.returncode == 0, alone.stderr[-3000:]
        assert "(50 this run)" in alone.stdout or "(100 this run)" in alone.stdout  # from batch 0
        assert _same_weights(out / point, by_hand)
        assert _columns(out / point / "metrics.csv") == _columns(by_hand / "metrics.csv")


def _assert_same_sweep(out: Path, whole: Path) -> None:
    """``out``'s summary and every point's ``metrics.csv`` are the uninterrupted sweep's (record_checks' rules)."""
    got, want = _summary(out / "summary.csv"), _summary(whole / "summary.csv")
    trained = ("final_train_loss", "final_eval_loss")
    assert [{k: v for k, v in row.items() if k not in trained} for row in got] == [
        {k: v for k, v in row.items() if k not in trained} for row in want
    ]
    for got_row, want_row in zip(got, want, strict=True):
        assert all(same_value(name, got_row[name], want_row[name]) for name in trained), (got_row, want_row)
        assert_same_csv(out / got_row["point"] / "metrics.csv", whole / want_row["point"] / "metrics.csv")


def _in_own_group(
    *args: str, environ: dict, send: tuple[list[Path], int] | None = None
) -> tuple[subprocess.CompletedProcess, int]:
    """``cadence ARGS`` as the leader of its own process group (as a terminal's job is), and that group's id.

    With ``send=(markers, signum)``: once every file of ``markers`` exists, ``signum`` goes to the sweep alone."""
    env = dict(environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    argv = [sys.executable, "-m", "trainer", *args]
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    with background.popen(argv, cwd=HERE, env=env, text=True, start_new_session=True, **pipes) as process:
        if send is not None:
            markers, signum = send
            while not all(marker.exists() for marker in markers) and process.poll() is None:
                time.sleep(0.05)
            process.send_signal(signum)
        stdout, stderr = process.communicate(timeout=600)
    return subprocess.CompletedProcess(argv, process.returncode, stdout, stderr), process.pid


def _stat(pid: int | str, field: int = 0) -> str | None:
    """Field ``field`` of /proc/PID/stat after the command (0: the state, 2: the process group); None when gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()[field]


def _left_in_group(group: int) -> list[str]:
    """The processes still in process group ``group`` (read from /proc), with their command lines."""
    left = []
    for folder in Path("/proc").glob("[0-9]*"):
        if _stat(folder.name, 2) == str(group):
            try:
                command = (folder / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:  # it ended while we looked
                continue
            left.append(f"{folder.name}: {command[:200]}")
    return left


STOPS = [  # jobs, the batch whose end sends the signal, the signal, to whom (see sweep_fixtures.SignalAt)
    (1, 30, "SIGHUP", "parent"),  # in the first point: the second never starts
    (2, 40, "SIGTERM", "parent"),  # both points running, each held at batch 40 until the stop reaches it
    (1, 70, "SIGINT", "group"),  # Ctrl-C in a terminal, in the second point: the sweep and its point get SIGINT
    (2, 40, "SIGINT", "parent"),  # SIGINT to the sweep alone: its points get SIGTERM
]
SSR_POINTS = ("ssr-0.25", "ssr-0.5")


def _stop_callbacks(tmp_path: Path, jobs: int, batch: int, name: str, to: str) -> tuple[list[dict], list[Path]]:
    """One point at a time: the point at ``batch`` sends the signal itself. Two: each point waits at ``batch``
    (StallAt) until a stop reaches it, and the test signals the sweep once both wait there, so a stop that
    missed a running point leaves that point to train on to its end. Returns the callbacks and the markers."""
    if jobs == 1:
        marker = tmp_path / "sent"
        return [{"sweep_fixtures:SignalAt": {"batch": batch, "send": name, "marker": str(marker), "to": to}}], [marker]
    markers = [tmp_path / f"stalled-{point}" for point in SSR_POINTS]
    stalls = [
        {"sweep_fixtures:StallAt": {"point": point, "batch": batch, "marker": str(marker), "limit": 60.0}}
        for point, marker in zip(SSR_POINTS, markers, strict=True)
    ]
    return stalls, markers


def _stopped_sweep(folder: Path, env: dict, jobs: int, batch: int, name: str, to: str) -> dict:
    """The ssr sweep stopped by ``name`` (see STOPS), what it left, and its rerun (tests/background.py starts it
    with the session). What the stop left is read as soon as the stopped sweep has ended."""
    out = folder / "sweep"
    signum = getattr(signal, name)
    stop, markers = _stop_callbacks(folder, jobs, batch, name, to)
    command = ["sweep", str(CLASSIFIER), "--ssr", "0.5", "0.25", *SHORT, "--out", str(out), "--jobs", str(jobs)]
    command += ["--set", f"trainer.init.callbacks={json.dumps(stop)}"]
    stopped, group = _in_own_group(*command, environ=env, send=None if jobs == 1 else (markers, signum))
    return {
        "out": out, "stopped": stopped, "markers": all(marker.exists() for marker in markers),
        "left": _left_in_group(group), "summary": (out / "summary.csv").exists(),
        "finished": {point: folders.finished(out / point) is not None for point in SSR_POINTS},
        "newest": {point: folders.newest_batch(out / point) for point in SSR_POINTS},
        "second_rows": (out / "ssr-0.5" / "metrics.csv").exists(), "rerun": cadence(*command, environ=env),
    }  # fmt: skip


@pytest.mark.parametrize("jobs, batch, name, to", STOPS, ids=[f"jobs{s[0]}-{s[2]}-at{s[1]}-to-{s[3]}" for s in STOPS])
@background.ahead(_stopped_sweep, "jobs", "batch", "name", "to")
@background.ahead(_ssr_sweep)
def test_a_signal_stops_the_sweep_and_every_point_cleanly_and_a_rerun_equals_an_uninterrupted_one(
    ssr_sweep, jobs, batch, name, to
):
    whole, _ = ssr_sweep
    seen = background.result(_stopped_sweep, jobs, batch, name, to)
    out, stopped, signum = seen["out"], seen["stopped"], getattr(signal, name)
    assert seen["markers"]
    assert stopped.returncode == 128 + signum, stopped.stderr[-3000:]
    if jobs == 2:  # the stop reached every running point: each saved where it waited and ended unfinished
        for point in SSR_POINTS:
            assert not seen["finished"][point], f"{point} trained on to its end after the stop"
            assert seen["newest"][point] == batch, point
    assert seen["left"] == [], f"processes left behind: {seen['left']}"
    if name != "SIGINT":
        assert f"cadence: stopped by {name} (each running point saved a checkpoint and ended)" in stopped.stderr
    else:
        assert "cadence: interrupted; rerun the same command to continue the sweep" in stopped.stderr
    assert not seen["summary"]
    if jobs == 1 and batch == 30:  # the stop came in the first point: the second never started
        assert not seen["second_rows"] and seen["newest"]["ssr-0.5"] is None
    if batch == 70:
        assert seen["finished"]["ssr-0.25"]
    rerun = seen["rerun"]
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    _assert_same_sweep(out, whole)


def _orphaned_point(folder: Path, env: dict) -> dict:
    """A sweep killed by its point's child at batch 70 (the child trains on, an orphan, once ``go`` exists), the
    same command rerun while the orphan still trains, then once it has ended (tests/background.py starts it
    with the session)."""
    out, go = folder / "sweep", folder / "go"
    orphan = [{"sweep_fixtures:OrphanAt": {"batch": 70, "marker": str(folder / "orphaned"), "go": str(go)}}]
    command = ["sweep", str(CLASSIFIER), "--ssr", "0.5", *SHORT, "--out", str(out), "--jobs", "2"]
    command += ["--set", f"trainer.init.callbacks={json.dumps(orphan)}"]
    killed = cadence(*command, environ=env)  # the child SIGKILLs the sweep at batch 70 and waits for `go`
    pid = int((out / "ssr-0.5" / folders.LOCK).read_text()) if killed.returncode == -signal.SIGKILL else None
    try:
        refused = cadence(*command, environ=env) if pid is not None else None
    finally:
        go.touch()
    while pid is not None and _stat(pid) not in (None, "Z"):  # the orphan trains to its end (nobody can wait())
        time.sleep(0.1)
    rerun = cadence(*command, environ=env) if pid is not None else None
    return {"out": out, "killed": killed, "pid": pid, "refused": refused, "rerun": rerun}


@background.ahead(_orphaned_point)
@background.ahead(_ssr_sweep)
def test_a_point_that_outlived_its_killed_sweep_is_not_started_twice(ssr_sweep):
    """The issue's rows 16001-19000: a rerun trained a point while the killed sweep's child still trained it."""
    whole, _ = ssr_sweep
    seen = background.result(_orphaned_point)
    out, pid = seen["out"], seen["pid"]
    assert seen["killed"].returncode == -signal.SIGKILL
    # the child's pid, which the sweep recorded
    refused = seen["refused"]
    assert refused.returncode == 1, refused.stderr[-3000:]
    (line,) = refused.stderr.strip().splitlines()
    assert line.startswith(f"cadence: error: ssr-0.5: {out / 'ssr-0.5'} is being trained by another process ")
    assert f"(pid {pid};" in line
    rerun = seen["rerun"]
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert_same_csv(out / "ssr-0.5" / "metrics.csv", whole / "ssr-0.5" / "metrics.csv")


def refused(capsys, *args: str) -> subprocess.CompletedProcess:
    """``cadence ARGS`` run in this process, for a command refused before it trains (no interpreter to start)."""
    from trainer.cli import main

    capsys.readouterr()
    try:
        status = main(list(args))
    except SystemExit as stop:  # argparse's refusals
        status = stop.code
    captured = capsys.readouterr()
    return subprocess.CompletedProcess(["cadence", *args], status, captured.out, captured.err)


def test_branching_a_config_without_a_wsd_schedule_is_refused_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    result = refused(capsys, "sweep", str(CLASSIFIER), "--branch-from-stable", "--budgets", "0.5dur", "1dur")
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("cadence: error: schedulers[0] (SequentialLR on lr) steps by itself: branching needs")
    assert "WarmupStableDecayScheduler" in line
    result = refused(capsys, "sweep", str(WSD), "--branch-from-stable", "--ssr", "0.5", "1")
    assert result.returncode == 2 and "give --budgets (or --max-duration), not --ssr" in result.stderr
    assert list(tmp_path.iterdir()) == []  # refused before anything was written


def test_a_ratio_that_leaves_no_run_is_refused_before_any_point_runs(tmp_path, capsys):
    out = tmp_path / "sweep"
    result = refused(capsys, "sweep", str(CLASSIFIER), "--ssr", "1", "0.001", "--out", str(out))
    assert result.returncode == 2, result.stderr[-2000:]
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("cadence: error: ") and "0ba" in line
    assert not (out / "points.txt").exists()  # nothing planned, nothing trained


def test_a_bad_set_is_named_as_cadence_fit_names_it(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    result = refused(capsys, "sweep", str(CLASSIFIER), "--ssr", "1", "--set", "trainer.init.loop.max_steps=-1")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "cadence: error: trainer.init.loop.max_steps (from --set trainer.init.loop.max_steps=-1): "
        "must be an integer >= 1, got -1"
    )


def test_ctrl_c_stops_a_sweep_at_its_running_point(tmp_path, monkeypatch):
    from trainer.sweep import config_sweep, local_launcher

    started = []

    def interrupted(self, point, claim):
        started.append(point.name)
        raise KeyboardInterrupt

    monkeypatch.setattr(local_launcher.LocalLauncher, "_start", interrupted)
    with pytest.raises(KeyboardInterrupt):
        config_sweep.sweep_config(CLASSIFIER, out=tmp_path / "sweep", ssr=[0.25, 0.5, 1.0], jobs=1)
    assert started == ["ssr-0.25"]  # the points after the one Ctrl-C stopped never start


def test_the_sweep_command_line():
    args = build_parser().parse_args(["sweep", "run.yaml", "--budgets", "0.5dur", "1dur", "--jobs", "2"])
    assert (args.command, args.max_duration, args.ssr, args.jobs) == ("sweep", ["0.5dur", "1dur"], None, 2)
    args = build_parser().parse_args(["sweep", "run.yaml", "--ssr", "0.5", "1", "--set", "a.b=1"])
    assert (args.ssr, args.overrides, args.out, args.branch_from_stable) == ([0.5, 1.0], ["a.b=1"], None, False)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["sweep", "run.yaml", "--ssr", "0.5", "--max-duration", "2ep"])


_IN_CI = os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def _require(module: str, why: str) -> None:
    """``module`` importable (and ``unshare`` usable, for Ray); under CI=true a missing one fails, else skips."""
    problem = None
    try:
        importlib.import_module(module)
    except ImportError:
        problem = f"{module} is not installed: pip install -e '.[test]' ({why})"
    if problem is None and module == "ray" and (shutil.which("unshare") is None or os.geteuid() != 0):
        problem = "Ray's test runs in a private network namespace: it needs unshare and root"
    if problem is not None:
        if _IN_CI:
            raise ImportError(problem)  # docs/architecture.md: in CI a missing optional dependency fails
        pytest.skip(problem)


def _ray_sweep(folder: Path, env: dict) -> tuple[Path, subprocess.CompletedProcess, dict] | None:
    """The Ray sweep of the test below, stopped and rerun by cluster_driver.py in a private network namespace
    (started with the session by tests/background.py); None where Ray cannot run (the test says why)."""
    if importlib.util.find_spec("ray") is None or shutil.which("unshare") is None or os.geteuid() != 0:
        return None
    out, marker, result = folder / "ray", folder / "stalled", folder / "result.json"
    stall = [{"sweep_fixtures:StallAt": {"point": WSD_POINTS[2], "batch": 100, "marker": str(marker)}}]
    argv = [str(WSD), "--branch-from-stable", *WSD_BUDGETS, *SHORT, "--out", str(out), "--launcher", "ray"]
    argv += ["--jobs", "2", "--set", f"trainer.init.callbacks={json.dumps(stall)}"]
    driver = [sys.executable, str(HERE / "cluster_driver.py"), str(result), str(out), str(marker), "6379", "--"]
    command = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$0" "$@"', *driver, *argv]
    env = dict(env, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    done = background.run(command, timeout=1200, cwd=HERE, env=env, start_new_session=True)
    return out, done, (json.loads(result.read_text()) if result.exists() else {})


@background.ahead(_ray_sweep)
@background.ahead(_sequential_wsd_sweep)
def test_a_ray_sweep_equals_the_local_one_and_stops_and_resumes_as_it_does(sequential_wsd_sweep):
    """On a Ray head (2 CPUs, 127.0.0.1 of a private network namespace), SIGTERM to the sweep while the main run
    is at batch 100 stops every point cleanly (exit 143, no point's process left); the rerun, on a Ray instance of
    the sweep's own, resumes and equals the local sequential sweep bit for bit."""
    _require("ray", "the ray extra")
    out, done, steps = background.result(_ray_sweep)
    assert done.returncode == 0, done.stderr[-3000:]
    stopped, rerun = steps["stopped"], steps["rerun"]
    assert stopped["status"] == 128 + signal.SIGTERM, stopped["stderr"][-3000:]
    assert "cadence: stopped by SIGTERM (each running point saved a checkpoint and ended)" in stopped["stderr"]
    assert steps["left"] == []
    assert steps["latest"][WSD_POINTS[2]] == "ba00000100.pt"  # the main run saved where the stop found it
    assert rerun["status"] == 0, rerun["stderr"][-3000:]
    for name in WSD_POINTS:
        assert _same_weights(out / name, sequential_wsd_sweep / name), name
        assert _columns(out / name / "metrics.csv") == _columns(sequential_wsd_sweep / name / "metrics.csv")
    assert _summary(out / "summary.csv") == _summary(sequential_wsd_sweep / "summary.csv")


def _slurm_sweep(folder: Path, env: dict) -> dict | None:
    """The Slurm sweep of the test below: Ctrl-C once its ssr-0.5 point waits at batch 40, what is left then, and
    the rerun (started with the session by tests/background.py); None without submitit (the test says why)."""
    if importlib.util.find_spec("submitit") is None:
        return None
    out, marker = folder / "slurm", folder / "stalled"
    stall = [{"sweep_fixtures:StallAt": {"point": "ssr-0.5", "batch": 40, "marker": str(marker)}}]
    command = ["sweep", str(CLASSIFIER), "--ssr", "0.5", "0.25", *SHORT, "--out", str(out), "--launcher", "slurm"]
    command += ["--submitit-cluster", "local", "--set", f"trainer.init.callbacks={json.dumps(stall)}"]
    argv = [sys.executable, "-m", "trainer", *command]
    sweep_env = dict(env, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    with background.popen(argv, cwd=HERE, env=sweep_env, text=True, **pipes) as sweep:
        while not marker.exists() and sweep.poll() is None:
            time.sleep(0.05)
        sweep.send_signal(signal.SIGINT)
        stdout, stderr = sweep.communicate(timeout=600)
    pid = int((out / "ssr-0.5" / folders.LOCK).read_text())
    return {
        "out": out, "status": sweep.returncode, "stdout": stdout, "stderr": stderr,
        "newest": folders.newest_batch(out / "ssr-0.5"), "point_state": _stat(pid),
        "submitted": list((out / "slurm").glob("*_submitted.pkl")), "rerun": cadence(*command, environ=env),
    }  # fmt: skip


@background.ahead(_slurm_sweep)
@background.ahead(_ssr_sweep)
def test_a_slurm_job_array_equals_the_local_sweep_and_ctrl_c_stops_it_cleanly(ssr_sweep):
    """submitit's local executor runs the job array; Ctrl-C (SIGINT to the sweep alone) reaches each job as
    SIGTERM, which passes it on to its point: the point saves and ends, the sweep exits 130, and the rerun equals
    the local sweep."""
    _require("submitit", "the slurm extra")
    whole, _ = ssr_sweep
    seen = background.result(_slurm_sweep)
    out, stdout, stderr = seen["out"], seen["stdout"], seen["stderr"]
    assert seen["status"] == 130, stderr[-3000:]
    assert "cadence: interrupted; rerun the same command to continue the sweep" in stderr
    assert seen["newest"] == 40  # the job passed the stop on: the point saved and ended
    assert seen["point_state"] in (None, "Z")  # its process had ended when the sweep did
    assert "[1/2] ssr-0.25" in stdout and "[2/2] ssr-0.5" in stdout  # one array: both submitted at once
    assert seen["submitted"]  # submitit's files
    rerun = seen["rerun"]
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    _assert_same_sweep(out, whole)
