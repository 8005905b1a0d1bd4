"""Every ``cadence forecast`` command of docs/forecast.md's ``bash`` blocks runs, as printed, and exits 0.

The commands are read from the page itself (a command added to it is run here; one that no longer parses or
fails fails here). They run in a scratch folder holding a copy of ``examples/`` (the real log of
``examples/logs/gpt100m-811.csv.gz``, and ``examples/charlm_wsd.yaml``), ``run.yaml`` (the page's placeholder
config: that same config) and the run folders the page names (``runs/wsd``, ``runs/cosine``,
``runs/linear-to-0`` and the sweep folder ``sweep-charlm_wsd``). Those runs are not trained here (minutes of
training): each ``metrics.csv`` is written with the lr curve the config previews for that run (as ``cadence fit``
would log it: every batch's samples, tokens, lr and training loss, an evaluation every 10,000 tokens) and the
loss of a multi-power law with 0.3% noise, the same noise at the same update in every run (a branch of the
sweep shares its main run's points up to its decay, as a branched sweep's runs do).
"""

from __future__ import annotations

import csv
import re
import shlex
import shutil
from pathlib import Path

import pytest
import torch

from trainer.cli import main
from trainer.config import trainer_from_command_line
from trainer.forecast.laws import MultiPowerLaw
from trainer.plot_config import simulate_config_run

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "forecast.md"
_BASH = re.compile(r"^```bash\n(.*?)^```", re.S | re.M)
#: the law the written runs follow (a multi-power fit of examples/charlm.yaml's eval loss, seed 7)
PARAMETERS = {"L0": 1.288, "A": 3.851, "alpha": 0.3467, "B": 0.1161, "C": 0.3004, "beta": 0.1419, "gamma": 2.485}
WARMUP = "t_warmup: 20_000tok"
SCHEDULERS = {  # the page's run folders: the schedulers of each (None: the config's own WSD)
    "wsd": None,
    "cosine": f"[{{CosineAnnealingWithWarmupScheduler: {{{WARMUP}, alpha_f: 0.1}}}}]",
    "linear-to-0": f"[{{LinearWithWarmupScheduler: {{{WARMUP}, alpha_f: 0.0}}}}]",
}
SWEEP_BUDGETS = ("75_000tok", "150_000tok", "300_000tok")  # 0.25, 0.5 and 1dur of the config's horizon
EVAL_EVERY = 10_000  # tokens


def forecast_commands(page: Path = PAGE) -> list[list[str]]:
    """The ``cadence forecast`` commands of the page's ``bash`` blocks (continued lines joined), as argv lists
    without the leading ``cadence``."""
    commands = []
    for block in _BASH.findall(page.read_text()):
        for line in block.replace("\\\n", " ").splitlines():
            if line.strip().startswith("cadence forecast "):
                commands.append(shlex.split(line)[1:])
    return commands


def write_run(folder: Path, config: Path, overrides: list[str]) -> None:
    """A run folder whose ``metrics.csv`` logs ``config``'s previewed lr curve and the law's losses."""
    trainer = trainer_from_command_line(str(config), [*overrides, "trainer.init.progress_bar=false"], None)
    run = simulate_config_run(trainer)
    lrs = run.series["lr/group0"].to(torch.float64)
    samples, tokens = torch.cumsum(run.samples, 0), torch.cumsum(run.tokens, 0)
    law = MultiPowerLaw()
    at = law.at(law.areas(lrs / lrs.max()), torch.arange(1, len(lrs) + 1))
    clean = law.loss({name: torch.tensor(value, dtype=torch.float64) for name, value in PARAMETERS.items()}, at)
    noise = 1 + 0.003 * torch.randn(len(clean), generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    losses = (clean * noise).tolist()
    folder.mkdir(parents=True)
    with open(folder / "metrics.csv", "w", newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(["batch", "sample", "token", "lr/group0", "train/loss", "eval/loss"])
        for k in range(len(lrs)):  # batch k + 1: its lr, its training loss (after k updates), then an evaluation
            before = losses[k - 1] if k else 5.5
            evaluated = int(tokens[k]) // EVAL_EVERY > (int(tokens[k - 1]) // EVAL_EVERY if k else 0)
            row = [k + 1, int(samples[k]), int(tokens[k]), float(lrs[k]), before * 1.02]
            writer.writerow(row + [losses[k] if evaluated or k == len(lrs) - 1 else ""])


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """The folder the page's commands run in (see the module docstring)."""
    folder = tmp_path_factory.mktemp("forecast-page")
    shutil.copytree(ROOT / "examples", folder / "examples")
    config = folder / "examples" / "charlm_wsd.yaml"
    shutil.copy(config, folder / "run.yaml")
    shutil.copy(ROOT / "examples" / "charlm.py", folder / "charlm.py")  # run.yaml's factories, beside it
    for name, schedulers in SCHEDULERS.items():
        write_run(
            folder / "runs" / name, config, [] if schedulers is None else [f"trainer.init.schedulers={schedulers}"]
        )
    for budget in SWEEP_BUDGETS:
        write_run(
            folder / "sweep-charlm_wsd" / f"max_duration-{budget}", config, [f"trainer.init.loop.max_duration={budget}"]
        )
    return folder


def test_the_page_has_its_forecast_commands():
    commands = forecast_commands()
    assert len(commands) == 8  # the first run, the five of `cadence forecast`, the two of another trainer's log
    assert all(command[0] == "forecast" for command in commands)
    assert sum("--schedule" in command for command in commands) == 1
    flags = {flag for command in commands for flag in command}
    assert {"--fit-until", "--fit-from", "--optimize", "--grid", "--target"} <= flags


@pytest.mark.parametrize("command", forecast_commands(), ids=lambda command: " ".join(command[1:4]))
def test_each_forecast_command_of_the_page_runs(command, scratch, monkeypatch, capsys):
    monkeypatch.chdir(scratch)
    saved = [Path(run) for run in command[1:] if run.endswith("forecast-law.json")]
    for law in saved:  # a law the page saved with an earlier command: saved here too when run alone
        if not (scratch / law).is_file():
            assert main(["forecast", str(law.parent)]) == 0
            capsys.readouterr()
    status = main(command)
    out, err = capsys.readouterr()
    assert status == 0, f"cadence {shlex.join(command)}: {err}"
    assert "law on" in out  # each fits (or reads) a law and says so
    if "--config" in command or "--schedule" in command:
        assert "80% interval" in out
    if "-o" in command:
        assert (scratch / command[command.index("-o") + 1]).is_file()
