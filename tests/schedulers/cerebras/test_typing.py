"""A type checker reads the Cerebras front end as its users call it: mypy accepts the documented calls with their
keyword names (no "Unexpected keyword argument" from a generated ``__init__``, no "has no attribute" from a dynamic
``__all__``), a custom scheduler written as Cerebras documents it, and the ``cstorch.optim`` namespace; and it
refuses a wrong keyword and a misspelt optimizer (no module ``__getattr__`` that makes every name legal), so the
check can fail. (A mypy run over every page's code blocks is the docs' test.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy")

ROOT = Path(__file__).resolve().parents[3]
CALLS = """
import torch
import schedulers.cerebras as cstorch
from schedulers import SchedulerState
from schedulers.cerebras import CosineDecayLR, CosineDecayWD, LinearLR, SequentialLR, configure_lr_scheduler
from schedulers.cerebras.optim import SGD, AdamW, Lamb

opt: torch.optim.AdamW = cstorch.optim.AdamW([torch.zeros(1, requires_grad=True)], lr=0.1, eps=1e-8)
AdamW([torch.zeros(1, requires_grad=True)], weight_decay=0.1, fused=None)
SGD([torch.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
Lamb([torch.zeros(1, requires_grad=True)]), cstorch.optim.Rprop([torch.zeros(1, requires_grad=True)], etas=(0.4, 1.3))
decay = CosineDecayLR(opt, initial_learning_rate=0.1, end_learning_rate=0.0, total_iters=100)
warmup = cstorch.optim.lr_scheduler.LinearLR(opt, initial_learning_rate=0.0, end_learning_rate=0.1, total_iters="10ba")
SequentialLR(opt, [warmup, decay], milestones=[10], state=SchedulerState("10ep", dataloader_len=100))
CosineDecayWD(opt, initial_val=0.1, end_val=0.0, total_iters="0.5dur", param_group_tags="decay")
cstorch.MultiStepLR(opt, 1.0, 0.5, milestones=[100, "200ba", "3ep"]).step()
cstorch.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=5, mode="triangular2").values_at(range(10))
cstorch.OneCycleLR(opt, initial_learning_rate=0.004, max_lr=0.1, total_steps=100, three_phase=True)
configure_lr_scheduler(opt, {"scheduler": "CosineDecay", "initial_learning_rate": 0.1, "total_iters": 9})


class CustomScheduler(cstorch.optim.lr_scheduler.LRScheduler):
    def __init__(self, optimizer: torch.optim.Optimizer, peak_lr: float, total_iters: int) -> None:
        self.peak_lr = peak_lr
        super().__init__(optimizer, total_iters=total_iters)

    def _get_closed_form_lr(self) -> torch.Tensor:
        return self.peak_lr * torch.clamp(1 - self.last_epoch / self.total_iters, min=0.0)


CustomScheduler(opt, 0.1, 100).step()
"""


def _mypy_errors(tmp_path: Path, sources: dict[str, str]) -> list[str]:
    for name, text in sources.items():
        (tmp_path / name).write_text(text)
    command = [sys.executable, "-m", "mypy", "--follow-imports=silent", "--ignore-missing-imports"]
    command += ["--cache-dir", str(tmp_path / ".mypy_cache"), "--no-error-summary", *sorted(sources)]
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env={"MYPYPATH": str(ROOT)})
    return [line for line in (result.stdout + result.stderr).splitlines() if ": error:" in line]


def test_mypy_accepts_the_documented_cerebras_calls(tmp_path: Path) -> None:
    wrong = CALLS + "CosineDecayLR(opt, initial_val=0.1, end_learning_rate=0.0, total_iters=9)\n"
    misspelt = "import torch\nimport schedulers.cerebras as cstorch\ncstorch.optim.AdamWW([torch.zeros(1)], lr=1e-3)\n"
    sources = {"documented_calls.py": CALLS, "wrong_keyword.py": wrong, "misspelt.py": misspelt}
    errors = _mypy_errors(tmp_path, sources)
    assert [line for line in errors if line.startswith("documented_calls.py")] == []
    assert sorted(line.split(": error: ")[1] for line in errors) == [
        'Module has no attribute "AdamWW"; maybe "AdamW" or "Adam"?  [attr-defined]',
        'Unexpected keyword argument "initial_val" for "CosineDecayLR"  [call-arg]',
    ]
