"""``cadence sweep`` on the embedded classifier (examples/classifier.yaml, classifier_wsd.yaml).

Each point equals the ``cadence fit`` its line of ``points.txt`` runs; a sweep killed mid-point (SIGKILL to
the sweep and its child) and rerun equals an uninterrupted one; every WSD branch equals its standalone run
bit for bit, and the compute the summary reports is the batches the children really trained.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from trainer.checkpoint import load_checkpoint
from trainer.cli import build_parser
from trainer.sweep import folders

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CLASSIFIER = ROOT / "examples" / "classifier.yaml"
WSD = ROOT / "examples" / "classifier_wsd.yaml"
SHORT = ["--set", "trainer.init.loop.max_steps=200", "--set", "trainer.init.checkpoint.steps=20"]


def cadence(*args: str, **popen) -> subprocess.CompletedProcess:
    """``python -m trainer ARGS`` in tests/trainer (so ``sweep_fixtures`` is importable by the children)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    argv = [sys.executable, "-m", "trainer", *args]
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


def _alone(line: str, folder: Path, *extra: str) -> subprocess.CompletedProcess:
    """The ``points.txt`` line run by hand into ``folder`` (later ``--set``s win), with its own CSV."""
    argv = shlex.split(line)
    assert argv[:2] == ["cadence", "fit"]
    logger = json.dumps([{"CSVLogger": {"path": str(folder / "metrics.csv")}}])
    sets = ["--set", f"trainer.init.checkpoint.save_folder={folder}", "--set", f"trainer.init.loggers={logger}"]
    return cadence("fit", *argv[2:], *sets, *extra)


@pytest.fixture(scope="module")
def ssr_sweep(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    out = tmp_path_factory.mktemp("ssr") / "sweep"
    result = cadence("sweep", str(CLASSIFIER), "--ssr", "0.5", "0.25", *SHORT, "--out", str(out))
    assert result.returncode == 0, result.stderr[-3000:]
    return out, result


def test_every_ssr_point_equals_the_cadence_fit_line_it_prints(ssr_sweep, tmp_path):
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
    for line, row in zip(lines, rows, strict=True):
        alone = _alone(line, tmp_path / row["point"])
        assert alone.returncode == 0, alone.stderr[-3000:]
        point = out / row["point"]
        assert _same_weights(point, tmp_path / row["point"])
        assert _columns(point / "metrics.csv") == _columns(tmp_path / row["point"] / "metrics.csv")
        assert row["final_eval_loss"] == _columns(point / "metrics.csv")["eval/loss"][-1][1]


def test_a_killed_sweep_rerun_with_the_same_command_equals_an_uninterrupted_one(ssr_sweep, tmp_path):
    whole, _ = ssr_sweep
    out = tmp_path / "sweep"
    killer = json.dumps([{"sweep_fixtures:KillSweepAt": {"batch": 70, "marker": str(tmp_path / "killed")}}])
    command = ["sweep", str(CLASSIFIER), "--ssr", "0.5", "0.25", *SHORT, "--out", str(out)]
    command += ["--set", f"trainer.init.callbacks={killer}"]
    killed = cadence(*command, start_new_session=True)  # its own process group: the kill takes sweep and child
    assert killed.returncode == -signal.SIGKILL
    assert (tmp_path / "killed").exists() and folders.finished(out / "ssr-0.5") is None
    assert folders.newest_batch(out / "ssr-0.5") == 60  # checkpoints every 20 batches; killed at 70
    rerun = cadence(*command)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert "ssr-0.25 is finished (skipped)" in rerun.stdout
    assert "trained batches 60-100 (40 this run)" in rerun.stdout
    assert _summary(out / "summary.csv") == _summary(whole / "summary.csv")
    for point in ("ssr-0.25", "ssr-0.5"):
        assert _same_weights(out / point, whole / point)
        assert _columns(out / point / "metrics.csv") == _columns(whole / point / "metrics.csv")


def test_every_wsd_branch_equals_its_standalone_run(tmp_path):
    out = tmp_path / "wsd"
    budgets = ["--budgets", "0.25dur", "0.5dur", "1dur"]
    result = cadence("sweep", str(WSD), "--branch-from-stable", *budgets, *SHORT, "--out", str(out), "--jobs", "2")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "max_duration-50ba branches from the main run at its decay start 40ba" in result.stdout
    # the compute figure is the batches the children really trained (each child's summary line counts them)
    names = ("max_duration-50ba", "max_duration-100ba", "max_duration-200ba")
    logs = {name: (out / name / "log.txt").read_text() for name in names}
    trained = {p: int(re.search(r"\((\d+) this run\)", text).group(1)) for p, text in logs.items()}
    assert trained == {"max_duration-50ba": 10, "max_duration-100ba": 20, "max_duration-200ba": 200}
    assert "3 budgets for 1.15× the largest run (independent runs: 1.75×)" in result.stdout
    assert [row["trained_batches"] for row in _summary(out / "summary.csv")] == ["10", "20", "200"]
    assert not any("resuming from" in text for text in logs.values())  # the branch's resume is on purpose
    lines = (out / "points.txt").read_text().splitlines()
    assert "load_path=" in lines[0] and "DecayStartCheckpoints" in lines[2]
    for line, point in zip(lines[:2], ("max_duration-50ba", "max_duration-100ba"), strict=True):
        alone = _alone(line, tmp_path / point, "--set", "trainer.init.checkpoint.load_path=null")
        assert alone.returncode == 0, alone.stderr[-3000:]
        assert "(50 this run)" in alone.stdout or "(100 this run)" in alone.stdout  # from batch 0
        assert _same_weights(out / point, tmp_path / point)
        assert _columns(out / point / "metrics.csv") == _columns(tmp_path / point / "metrics.csv")


def test_branching_a_config_without_a_wsd_schedule_is_refused_in_one_line():
    result = cadence("sweep", str(CLASSIFIER), "--branch-from-stable", "--budgets", "0.5dur", "1dur")
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("cadence: error: schedulers[0] (SequentialLR on lr) steps by itself: branching needs")
    assert "WarmupStableDecayScheduler" in line
    result = cadence("sweep", str(WSD), "--branch-from-stable", "--ssr", "0.5", "1")
    assert result.returncode == 2 and "give --budgets (or --max-duration), not --ssr" in result.stderr


def test_a_ratio_that_leaves_no_run_is_refused_before_any_point_runs(tmp_path):
    out = tmp_path / "sweep"
    result = cadence("sweep", str(CLASSIFIER), "--ssr", "1", "0.001", "--out", str(out))
    assert result.returncode == 2, result.stderr[-2000:]
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("cadence: error: ") and "0ba" in line
    assert not (out / "points.txt").exists()  # nothing planned, nothing trained


def test_a_bad_set_is_named_as_cadence_fit_names_it(tmp_path):
    result = cadence("sweep", str(CLASSIFIER), "--ssr", "1", "--set", "trainer.init.loop.max_steps=-1")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "cadence: error: trainer.init.loop.max_steps (from --set trainer.init.loop.max_steps=-1): "
        "must be an integer >= 1, got -1"
    )


def test_ctrl_c_stops_a_sweep_at_its_running_point(tmp_path, monkeypatch):
    from trainer.sweep import config_sweep

    started = []

    def interrupted(self, point, jobs):
        started.append(point.name)
        raise KeyboardInterrupt

    monkeypatch.setattr(config_sweep.ConfigLauncher, "_run_one", interrupted)
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
