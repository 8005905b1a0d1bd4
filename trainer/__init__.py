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
"""

from trainer.callbacks import Callback, LRMonitor, ProgressBar
from trainer.loggers import CSVLogger, LoggerCallback, TensorBoardLogger
from trainer.param_groups import apply_adjust_learning_rate, decay_groups, tagged_groups
from trainer.state import TrainerState
from trainer.sweep import budget_sweep
from trainer.trainer import NonFiniteLossError, Trainer

__all__ = [
    "CSVLogger",
    "Callback",
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
