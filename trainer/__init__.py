"""The training loop that owns time: it counts sp/tok/ba/ep, steps schedules, and checkpoints exactly.

>>> import torch
>>> from trainer import Trainer
>>> data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(5)]
>>> model = torch.nn.Linear(3, 1)
>>> trainer = Trainer(model, data, "10ba", torch.optim.SGD(model.parameters(), lr=0.1),
...                   loss_fn=torch.nn.functional.mse_loss, progress_bar=False)
>>> trainer.fit()
>>> str(trainer.state.timestamp.batch), str(trainer.state.timestamp.epoch)
('10ba', '2ep')

The names below are imported at their first use, so that ``import trainer`` loads no torch: the ``cadence``
command lives in this package, and ``cadence --version`` and ``cadence --help`` answer without torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what a type checker sees; at run time __getattr__ below imports each name at first use
    from schedulers.core.clock import TrainerState
    from trainer.callbacks import Callback, LRMonitor, ProgressBar
    from trainer.early_stopping import EarlyStopping
    from trainer.loggers import CSVLogger, LoggerCallback, TensorBoardLogger
    from trainer.param_groups import apply_adjust_learning_rate, decay_groups, tagged_groups
    from trainer.sweep import budget_sweep
    from trainer.trainer import Trainer
    from trainer.training import NonFiniteLossError

__all__ = [
    "CSVLogger",
    "Callback",
    "EarlyStopping",
    "LRMonitor",
    "LoggerCallback",
    "NonFiniteLossError",
    "ProgressBar",
    "TensorBoardLogger",
    "Trainer",
    "TrainerState",
    "apply_adjust_learning_rate",
    "budget_sweep",
    "decay_groups",
    "tagged_groups",
]


def __getattr__(name: str) -> object:
    if name not in __all__:
        raise AttributeError(f"module 'trainer' has no attribute {name!r}")
    from schedulers.core.clock import TrainerState
    from trainer.callbacks import Callback, LRMonitor, ProgressBar
    from trainer.early_stopping import EarlyStopping
    from trainer.loggers import CSVLogger, LoggerCallback, TensorBoardLogger
    from trainer.param_groups import apply_adjust_learning_rate, decay_groups, tagged_groups
    from trainer.sweep import budget_sweep
    from trainer.trainer import Trainer
    from trainer.training import NonFiniteLossError

    exported = {
        "CSVLogger": CSVLogger,
        "Callback": Callback,
        "EarlyStopping": EarlyStopping,
        "LRMonitor": LRMonitor,
        "LoggerCallback": LoggerCallback,
        "NonFiniteLossError": NonFiniteLossError,
        "ProgressBar": ProgressBar,
        "TensorBoardLogger": TensorBoardLogger,
        "Trainer": Trainer,
        "TrainerState": TrainerState,
        "apply_adjust_learning_rate": apply_adjust_learning_rate,
        "budget_sweep": budget_sweep,
        "decay_groups": decay_groups,
        "tagged_groups": tagged_groups,
    }
    globals().update(exported)  # imported once: later lookups find them without this function
    return exported[name]


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
