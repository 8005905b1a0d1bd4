"""Budget sweeps from Python (``trainer.budget_sweep``) and the pieces of ``trainer.sweep``.

The main test: every branch of a warmup-stable-decay sweep equals its standalone run bit for bit (every
parameter, the lr of every batch), and the compute the summary reports is the batches really trained.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path

import pytest
import torch

from schedulers import CosineAnnealingWithWarmupScheduler, WarmupStableDecayScheduler
from timeunits import Time
from trainer import Callback, CSVLogger, LRMonitor, Trainer, budget_sweep
from trainer.checkpoint_files import load_checkpoint
from trainer.sweep import BranchingError, folders
from trainer.sweep.plan import budgets_from_durations, budgets_from_python, budgets_from_ssrs, resolve_fraction
from trainer.sweep.summary import compute_line

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))

import sweep_classifier  # noqa: E402  (examples/sweep_classifier.py: the classifier's make_trainer)

TRAINED = Counter()  # batches each budget really trained, counted by a callback of the trainers built here


class CountBatches(Callback):
    def __init__(self, key) -> None:
        self.key = key

    def on_batch_end(self, trainer, loss: float) -> None:
        TRAINED[self.key] += 1


def tiny_trainer(budget, schedule=None, monitor=None, eval_loader=None, **run) -> Trainer:
    """A 4-16-1 regression of 10 batches per epoch with dropout (so the RNG state matters), WSD by default."""
    torch.manual_seed(0)
    torch.set_num_threads(1)
    data = torch.utils.data.TensorDataset(torch.randn(80, 4), torch.randn(80, 1))
    loader = torch.utils.data.DataLoader(data, batch_size=8, shuffle=True)
    model = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.Dropout(0.2), torch.nn.Linear(16, 1))
    callbacks = [CountBatches(budget)] + ([monitor] if monitor is not None else [])
    return Trainer(
        model,
        loader,
        budget,
        torch.optim.AdamW(model.parameters(), lr=1e-2),
        schedulers=schedule or WarmupStableDecayScheduler("5ba", t_decay="0.25dur", alpha_f=0.1, decay_shape="cosine"),
        loss_fn=torch.nn.functional.mse_loss,
        eval_dataloader=eval_loader or [(torch.ones(4, 4), torch.zeros(4, 1))],
        eval_interval="10ba",
        seed=3,
        progress_bar=False,
        print_schedule_report=False,
        callbacks=callbacks,
        **run,
    )


def _same_weights(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[key], b[key]) for key in a)


def _column(path: Path, name: str) -> list[tuple[int, float]]:
    return [(int(row["batch"]), float(row[name])) for row in folders.read_rows(path) if row.get(name, "") != ""]


def test_every_wsd_branch_equals_its_standalone_run(tmp_path):
    TRAINED.clear()
    budgets = ["24ba", "36ba", "60ba"]  # decays start at 18, 27 and 45 (0.25dur)
    rows = budget_sweep(tiny_trainer, budgets, out=tmp_path / "wsd", branch_from_stable=True)
    sweep_counts = dict(TRAINED)
    assert [row["point"] for row in rows] == ["max_duration-24ba", "max_duration-36ba", "max_duration-60ba"]
    for budget, start in (("24ba", 18), ("36ba", 27)):
        monitor, csv = LRMonitor(), tmp_path / f"alone-{budget}.csv"
        alone = tiny_trainer(budget, monitor=monitor, save_folder=tmp_path / f"alone-{budget}", loggers=CSVLogger(csv))
        alone.fit()
        folder = tmp_path / "wsd" / f"max_duration-{budget}"
        branch = load_checkpoint(folder)
        assert _same_weights(branch["model"], alone.model.state_dict()), budget
        assert _same_weights(branch["model"], load_checkpoint(tmp_path / f"alone-{budget}")["model"])
        assert branch["timestamp"] == alone.state.timestamp.state_dict()
        # the lr of every batch: the main run's up to the decay start, then the branch's own
        lrs = _column(folder / "metrics.csv", "lr/group0")
        assert [lr for _, lr in lrs] == monitor.values("lr") and [b for b, _ in lrs] == list(range(1, len(lrs) + 1))
        # batch `start` (the branch's first) trains with α(start) = 1, the next one decays
        assert lrs[start][1] == 1e-2 > lrs[start + 1][1]
        for name in ("lr/group0", "train/loss", "eval/loss"):
            assert _column(folder / "metrics.csv", name) == _column(csv, name), (budget, name)
        assert load_checkpoint(tmp_path / "wsd" / "decay-starts" / f"{start}ba")["timestamp"]["batch"] == start
    # the compute the summary reports is the batches really trained: 60 + (24 - 18) + (36 - 27)
    assert sweep_counts == {"60ba": 60, "24ba": 6, "36ba": 9}
    assert [row["trained_batches"] for row in rows] == [6, 9, 60]
    assert compute_line(rows) == "3 budgets for 1.25× the largest run (independent runs: 2.00×)"
    assert (tmp_path / "wsd" / "summary.csv").read_text().splitlines()[0].startswith("point,budget,batches,samples")
    assert (tmp_path / "wsd" / "sweep.png").stat().st_size > 0


def _data_loader_eval(budget, **run) -> Trainer:
    """tiny_trainer evaluating a DataLoader (making its iterator draws from torch's global RNG) every 10ba."""
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.ones(8, 4), torch.zeros(8, 1)), 4)
    return tiny_trainer(budget, eval_loader=loader, **run)


def test_a_branch_whose_decay_starts_on_an_evaluation_batch_equals_its_standalone_run(tmp_path):
    # decays start at 30 and 60 (0.25dur of 40ba and 80ba), both batches the main run evaluates at
    budget_sweep(_data_loader_eval, ["40ba", "80ba"], out=tmp_path / "wsd", branch_from_stable=True)
    alone = _data_loader_eval("40ba")
    alone.fit()
    branch = load_checkpoint(tmp_path / "wsd" / "max_duration-40ba")
    assert _same_weights(branch["model"], alone.model.state_dict())


INTERRUPT = {"at": None}


class InterruptOnce(Callback):
    """Raises KeyboardInterrupt (like Ctrl-C) as batch ``INTERRUPT["at"]`` ends, once."""

    def on_batch_end(self, trainer, loss: float) -> None:
        if trainer.state.timestamp.batch.value == INTERRUPT["at"]:
            INTERRUPT["at"] = None
            raise KeyboardInterrupt


def checkpointing_trainer(budget, **run) -> Trainer:
    trainer = tiny_trainer(budget, schedule=CosineAnnealingWithWarmupScheduler("0.2dur"), save_interval="10ba", **run)
    trainer.callbacks.append(InterruptOnce())
    return trainer


def test_an_interrupted_sweep_resumes_and_equals_an_uninterrupted_one(tmp_path):
    budgets = ["20ba", "40ba"]
    whole = budget_sweep(checkpointing_trainer, budgets, out=tmp_path / "whole")
    INTERRUPT["at"] = 25  # in the second point, after its checkpoint at batch 20
    with pytest.raises(KeyboardInterrupt):
        budget_sweep(checkpointing_trainer, budgets, out=tmp_path / "cut")
    assert folders.finished(tmp_path / "cut" / "max_duration-20ba") is not None
    assert folders.finished(tmp_path / "cut" / "max_duration-40ba") is None
    # rows 21-24 were logged after the checkpoint at 20 (batch 25 raised before the logger saw it)
    assert _column(tmp_path / "cut" / "max_duration-40ba" / "metrics.csv", "train/loss")[-1][0] == 24
    TRAINED.clear()
    again = budget_sweep(checkpointing_trainer, budgets, out=tmp_path / "cut")
    assert TRAINED == {"40ba": 20}  # the finished point is skipped; the other resumes at its checkpoint (20)
    strip = [{key: value for key, value in row.items() if key != "wall_time_s"} for row in whole]
    assert [{key: value for key, value in row.items() if key != "wall_time_s"} for row in again] == strip
    for budget in budgets:
        cut, full = (tmp_path / name / f"max_duration-{budget}" for name in ("cut", "whole"))
        assert _same_weights(load_checkpoint(cut)["model"], load_checkpoint(full)["model"])
        for name in ("lr/group0", "train/loss", "eval/loss"):
            assert _column(cut / "metrics.csv", name) == _column(full / "metrics.csv", name), name


def test_ssr_sweep_in_processes_equals_the_sweep_in_this_process(tmp_path):
    """jobs=2 spawns two processes, each importing examples/sweep_classifier.py's make_ssr_trainer by name."""
    here = budget_sweep(sweep_classifier.make_ssr_trainer, [0.15, 0.3], out=tmp_path / "here")
    there = budget_sweep(sweep_classifier.make_ssr_trainer, [0.3, 0.15], out=tmp_path / "there", jobs=2)
    assert [row["batches"] for row in there] == [90, 180] and [row["point"] for row in there] == ["ssr-0.15", "ssr-0.3"]
    for a, b in zip(here, there, strict=True):
        assert a["final_train_loss"] == b["final_train_loss"] and a["final_eval_loss"] == b["final_eval_loss"]
        folder = Path(a["point"])
        weights = [load_checkpoint(tmp_path / side / folder)["model"] for side in ("here", "there")]
        assert _same_weights(*weights)
    with pytest.raises(ValueError, match="make_trainer must be importable by name"):
        budget_sweep(lambda ssr, **run: None, [0.5, 1.0], out=tmp_path / "lambda", jobs=2)


def _cosine(budget, **run):
    return tiny_trainer(budget, schedule=CosineAnnealingWithWarmupScheduler("5ba"), **run)


def _dur_warmup(budget, **run):
    return tiny_trainer(budget, schedule=WarmupStableDecayScheduler("0.1dur"), **run)


def _absolute_t_max(budget, **run):
    return tiny_trainer(budget, schedule=WarmupStableDecayScheduler("5ba", t_decay="10ba", t_max="50ba"), **run)


@pytest.mark.parametrize(
    "make, message",
    [
        (_cosine, "CosineAnnealingWithWarmupScheduler on lr) is not warmup-stable-decay: branching needs every"),
        (_dur_warmup, "t_warmup=0.1dur is a fraction of the run, so every budget would warm up differently"),
        (_absolute_t_max, "t_max=50ba is absolute, so the decay would not follow the budget"),
    ],
)
def test_branching_refuses_schedules_that_do_not_share_their_stable_phase(tmp_path, make, message):
    with pytest.raises(BranchingError, match=message.replace("(", r"\(").replace(")", r"\)")) as caught:
        budget_sweep(make, ["20ba", "40ba"], out=tmp_path / "refused", branch_from_stable=True)
    assert "WarmupStableDecayScheduler" in str(caught.value)
    assert not (tmp_path / "refused").exists()  # refused before anything ran


def test_branching_refuses_a_warmup_longer_than_a_budgets_stable_phase(tmp_path):
    with pytest.raises(BranchingError, match="budget 4ba: .*t_warmup=5ba"):
        budget_sweep(tiny_trainer, ["4ba", "40ba"], out=tmp_path / "short", branch_from_stable=True)
    with pytest.raises(ValueError, match="branch_from_stable branches over run lengths"):
        budget_sweep(tiny_trainer, [0.5, 1.0], out=tmp_path / "ssr", branch_from_stable=True)


def test_make_trainer_must_pass_the_budget_and_the_run_on(tmp_path):
    with pytest.raises(ValueError, match=r"make_trainer\('40ba', ...\) built a trainer with save_folder=None"):
        budget_sweep(lambda budget, **run: tiny_trainer(budget), ["40ba"], out=tmp_path / "a")
    with pytest.raises(ValueError, match="built a trainer with max_duration=40ba: pass the budget on to Trainer"):
        budget_sweep(lambda budget, **run: tiny_trainer("40ba", **run), ["20ba"], out=tmp_path / "b")
    with pytest.raises(ValueError, match="built a trainer with scale_schedule_ratio=1.0"):
        budget_sweep(lambda ssr, **run: tiny_trainer("40ba", **run), [0.5], out=tmp_path / "c")
    with pytest.raises(TypeError, match="must return a trainer.Trainer, got NoneType"):
        budget_sweep(lambda ssr, **run: None, [0.5], out=tmp_path / "d")


def test_budgets_are_planned_smallest_first_and_bad_ones_are_named():
    assert [b.name for b in budgets_from_python([1.0, 0.25])] == ["ssr-0.25", "ssr-1.0"]
    assert [b.argument for b in budgets_from_python(["4ep", "2ep"])] == ["2ep", "4ep"]
    assert budgets_from_ssrs([2])[0].override == "trainer.init.loop.scale_schedule_ratio=2.0"
    assert budgets_from_durations(["300ba"])[0].override == "trainer.init.loop.max_duration=300ba"
    for bad, message in [
        ([0.5, "2ep"], "mix numbers"),
        (["2ep", "300ba"], r"mix units \(ba, ep\)"),
        (["2ep", "2ep"], "budget 2ep is given twice"),
        ([0.0], r"^ssr=0.0 must be a finite number > 0$"),
        ([float("nan")], r"^ssr=nan must be a finite number > 0$"),
        (["2 epochs"], r"^budget '2 epochs' is not a time: unknown unit 'epochs' \(did you mean '2ep'\?\); expected"),
        (["1.5ba"], "^budget '1.5ba' is not a time: 1.5 is not a whole number"),
        (["0.5dur"], "is a fraction of a run"),
        ([], "budgets is empty"),
    ]:
        with pytest.raises(ValueError, match=message):
            budgets_from_python(bad)


def test_fractions_of_the_horizon_resolve_exactly():
    assert resolve_fraction("0.29dur", Time(100, "ba"), None) == Time(29, "ba")  # not 28 (0.29 * 100 < 29)
    assert resolve_fraction("0.5dur", Time(3, "ep"), 10) == Time(15, "ba")
    assert resolve_fraction("1dur", Time(3, "ep"), 10) == Time(3, "ep")
    assert resolve_fraction("120ba", Time(3, "ep"), 10) == Time(120, "ba")
    with pytest.raises(ValueError, match=r"budget '0.333dur' is 99.9 ba of the horizon 300ba, not a whole count"):
        resolve_fraction("0.333dur", Time(300, "ba"), None)


def _tiny_trainer(folder: Path, *callbacks, eval_interval=None, **run) -> Trainer:
    torch.manual_seed(0)
    data = torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randn(64, 1))
    loader = torch.utils.data.DataLoader(data, batch_size=8, shuffle=True)
    model = torch.nn.Linear(4, 1)
    return Trainer(
        model, loader, "12ba", torch.optim.SGD(model.parameters(), lr=0.05),
        schedulers=WarmupStableDecayScheduler("2ba", t_decay="0.25dur"), loss_fn=torch.nn.functional.mse_loss,
        eval_dataloader=loader if eval_interval else None, eval_interval=eval_interval,
        loggers=[CSVLogger(folder / "metrics.csv")], callbacks=list(callbacks), progress_bar=False,
        print_schedule_report=False, **run,
    )  # fmt: skip


def test_a_decay_start_is_complete_only_once_the_main_runs_records_up_to_it_are_on_disk(tmp_path):
    """A branch may start as soon as its decay start's ``latest`` appears, while the main run goes on: by then
    the batch's row and its evaluation must be on disk, as the branch starts from them (docs/sweeps.md)."""
    from trainer.sweep.wsd import DecayStartCheckpoints

    start = tmp_path / "decay-starts" / "4ba"
    seen = {}

    class Probe(Callback):
        def on_batch_end(self, trainer, loss):
            if trainer.state.timestamp.batch.value == 4:
                seen["end"] = (start / "ba00000004.pt").is_file(), (start / "latest").exists()

        def on_batch_start(self, trainer):
            if trainer.state.timestamp.batch.value == 4:
                rows = folders.read_rows(tmp_path / "main" / "metrics.csv")  # what a branch would copy now
                seen["next"] = (start / "latest").exists(), [(r["batch"], r["eval/loss"] != "") for r in rows][-2:]

    _tiny_trainer(tmp_path / "main", DecayStartCheckpoints({"4ba": str(start)}), Probe(), eval_interval="4ba").fit()
    assert seen["end"] == (True, False)  # the file as the batch ends; not yet `latest`
    assert seen["next"] == (True, [("4", False), ("4", True)])  # batch 4's row and its evaluation, then `latest`
    assert folders.newest_batch(start) == 4


def test_a_run_resumed_past_a_decay_start_whose_latest_is_missing_sets_it(tmp_path):
    """Killed after saving the decay start's file but before its ``latest``: the resumed run's own checkpoint
    claims those records, so the decay start is complete at fit start."""
    from trainer.checkpoint_files import save_checkpoint
    from trainer.sweep.wsd import DecayStartCheckpoints

    start = tmp_path / "decay-starts" / "4ba"
    first = _tiny_trainer(tmp_path / "main", save_folder=tmp_path / "main", save_interval="6ba")
    first.fit("6ba")
    save_checkpoint(start, 4, first.state_dict(), latest=False)  # what a kill between the two leaves
    resumed = _tiny_trainer(
        tmp_path / "main", DecayStartCheckpoints({"4ba": str(start)}), save_folder=tmp_path / "main", autoresume=True
    )
    assert folders.newest_batch(start) is None
    resumed.fit("1ba")
    assert folders.newest_batch(start) == 4


def test_dry_run_writes_points_txt_and_trains_nothing(tmp_path, capsys):
    from trainer.sweep.config_sweep import sweep_config

    out = tmp_path / "sweep"
    config = EXAMPLES / "classifier_wsd.yaml"
    rows = sweep_config(config, out=out, max_duration=["0.25dur", "1dur"], branch_from_stable=True, dry_run=True)
    lines = (out / "points.txt").read_text().splitlines()
    printed = capsys.readouterr().out
    assert rows == [] and len(lines) == 2 and all(line in printed for line in lines)
    assert not any(out.glob("*/metrics.csv")) and not (out / "summary.csv").exists()


def test_a_launcher_is_named_and_given_only_its_own_options(tmp_path, monkeypatch):
    from trainer.sweep.launchers import make_launcher

    expected = r"^launcher='rey' must be one of 'local', 'ray', 'slurm' \(did you mean 'ray'\?\)$"
    with pytest.raises(ValueError, match=expected):
        make_launcher("rey", None, tmp_path)
    message = r"^the ray launcher does not take partition \(it takes address, cpus_per_point, gpus_per_point\)$"
    with pytest.raises(ValueError, match=message):
        make_launcher("ray", None, tmp_path, partition="gpu")
    with pytest.raises(ValueError, match=r"^the local launcher does not take address \(it takes no options\)$"):
        make_launcher("local", None, tmp_path, address="auto")
    monkeypatch.setitem(sys.modules, "submitit", None)  # not installed
    with pytest.raises(ImportError, match=r"^--launcher slurm needs submitit: pip install 'cadence\[slurm\]'$"):
        make_launcher("slurm", None, tmp_path)


def test_slurm_times_and_a_missing_sbatch_are_one_line(tmp_path, monkeypatch):
    if os.environ.get("CI", "") != "true":  # in CI the test extra has it: a missing one fails
        pytest.importorskip("submitit")
    from trainer.sweep.slurm_launcher import SlurmLauncher, slurm_minutes

    times = (90, "90", "1:30:00", "2-12", "1-0:00:01", "10:30")
    assert [slurm_minutes(time) for time in times] == [90, 90, 90, 3600, 1441, 11]
    for bad in ("1h", "0", "", "1:2:3:4"):
        with pytest.raises(ValueError, match="is not a Slurm time|must be more than 0"):
            slurm_minutes(bad)
    monkeypatch.setenv("PATH", str(tmp_path))  # no sbatch here
    with pytest.raises(ValueError, match="^--launcher slurm found no sbatch or srun on PATH: run the sweep on a Slurm"):
        SlurmLauncher(None, tmp_path)
    message = r"^cpus_per_point=1.5 must be an integer >= 0 \(Slurm counts whole CPUs and GPUs\)$"
    with pytest.raises(ValueError, match=message):
        SlurmLauncher(None, tmp_path, cluster="local", cpus_per_point=1.5)
    assert SlurmLauncher(None, tmp_path, cluster="local", cpus_per_point=2.0).parameters["cpus_per_task"] == 2


def test_slurm_options_reach_the_job_arrays_sbatch_script(tmp_path, monkeypatch):
    """A fake ``sbatch`` keeps the script submitit writes for the array: partition, time, CPUs, GPUs, any other
    ``#SBATCH`` option, and the array of the points submitted together."""
    if os.environ.get("CI", "") != "true":
        pytest.importorskip("submitit")
    from trainer.sweep.plan import Budget, SweepPoint
    from trainer.sweep.remote import PointJob
    from trainer.sweep.slurm_launcher import SlurmLauncher

    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    sbatch = bin_folder / "sbatch"
    sbatch.write_text(f'#!/bin/sh\ncp "$1" {tmp_path}/submitted.sh\necho "Submitted batch job 4242"\n')
    sbatch.chmod(0o755)
    (bin_folder / "srun").write_text("#!/bin/sh\n")  # submitit looks for it
    (bin_folder / "srun").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_folder}{os.pathsep}{os.environ['PATH']}")

    class Lines:
        def job(self, point):
            return PointJob(f"cadence fit run.yaml # {point.name}", str(tmp_path), {}, str(tmp_path / "log"), "x")

    points = [SweepPoint(Budget("ssr", ratio), tmp_path / f"ssr-{ratio}") for ratio in (0.5, 1.0)]
    launcher = SlurmLauncher(
        Lines(), tmp_path / "out", partition="gpu", time="1:30:00", cpus_per_point=8, gpus_per_point=1,
        slurm={"account": "abc", "mail_type": "END"},
    )  # fmt: skip
    with launcher.session(3):
        handles = launcher.start(points, {})
    script = (tmp_path / "submitted.sh").read_text()
    for option in ("--partition=gpu", "--time=90", "--cpus-per-task=8", "--gpus-per-node=1", "--account=abc"):
        assert f"#SBATCH {option}\n" in script, option
    assert "#SBATCH --mail-type=END\n" in script and "#SBATCH --array=0-1%2\n" in script
    assert [handle.job.job_id for handle in handles] == ["4242_0", "4242_1"]


def test_a_point_forked_from_the_sweep_is_its_command_holding_its_own_lock_alone(tmp_path, monkeypatch):
    """The local launcher's warm start (trainer/sweep/local_launcher.py): the child runs ``python -m trainer ARGS``
    with the point's environment, output in its log, the stop signals back to their defaults, and of the sweep's
    locks only its own folder's; its exit status is the command's."""
    import signal
    import time

    from trainer import signals
    from trainer.sweep import local_launcher

    own, other = folders.claim(tmp_path / "own"), folders.claim(tmp_path / "other")
    ready, go = tmp_path / "ready", tmp_path / "go"

    def command(name, run_name, alter_sys):  # in the child: what `python -m trainer` would run
        default = signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
        print(f"{name} {run_name} {sys.argv[1:]} {os.environ['CADENCE_POINT']} default={default}")
        ready.touch()
        while not go.exists():
            time.sleep(0.02)
        raise SystemExit(7)

    monkeypatch.setattr(local_launcher.runpy, "run_module", command)
    log = tmp_path / "log.txt"
    try:
        with signals.stop_requests(lambda signum: None):  # the sweep's own stop handlers, as it starts points
            child = local_launcher._Fork.start(["fit", "run.yaml"], {"CADENCE_POINT": "p1"}, log, own.fd)
        while not ready.exists():
            time.sleep(0.02)
        assert child.poll() is None
        other.release()
        folders.claim(tmp_path / "other").release()  # the child did not keep the other point's lock
        own.release()
        with pytest.raises(folders.FolderInUse):  # it keeps its own
            folders.claim(tmp_path / "own")
    finally:
        go.touch()
    assert child.wait() == 7 and child.poll() == 7
    assert log.read_text() == "trainer __main__ ['fit', 'run.yaml'] p1 default=True\n"
    assert "CADENCE_POINT" not in os.environ
