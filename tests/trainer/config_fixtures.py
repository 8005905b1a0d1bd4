"""Tiny models, loaders and helpers that the config tests reference as ``config_fixtures:NAME``."""

from __future__ import annotations

import torch
from torch.utils.data import DataLoader, TensorDataset


def tiny_model(in_features: int = 4, out_features: int = 1) -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Linear(in_features, out_features)


def regression_data(num_samples: int = 64, in_features: int = 4, seed: int = 0) -> TensorDataset:
    generator = torch.Generator().manual_seed(seed)
    inputs = torch.randn(num_samples, in_features, generator=generator)
    weights = torch.arange(1.0, in_features + 1).unsqueeze(1)
    return TensorDataset(inputs, inputs @ weights)


def train_loader(batch_size: int = 8, num_samples: int = 64) -> DataLoader:
    return DataLoader(regression_data(num_samples), batch_size=batch_size, shuffle=True)


def eval_loader(batch_size: int = 16) -> DataLoader:
    return DataLoader(regression_data(32, seed=1), batch_size=batch_size)


def token_batches(num_batches: int = 6) -> list:
    """Batches of (inputs, targets) whose token count is the number of nonzero inputs."""
    generator = torch.Generator().manual_seed(0)
    batches = []
    for index in range(num_batches):
        inputs = torch.randn(4, 4, generator=generator)
        inputs[:, index % 4 :] = 0.0
        batches.append((inputs, inputs.sum(dim=1, keepdim=True)))
    return batches


def count_tokens(batch) -> int:
    inputs, _ = batch
    return int((inputs != 0).sum())


def not_a_model() -> str:
    return "model"


def optimizer_factory(model: torch.nn.Module, lr: float = 0.05) -> torch.optim.Optimizer:
    return torch.optim.SGD(model.parameters(), lr=lr)


class PoisonedRegression(torch.nn.Module):
    """A linear regression that returns its own loss (``loss_fn: null``); the loss of forward pass ``at``
    (counting from 0) is nan."""

    def __init__(self, at: int, in_features: int = 4) -> None:
        super().__init__()
        self.linear = tiny_model(in_features)
        self.at, self.calls = at, 0

    def forward(self, item):
        inputs, targets = item
        loss = torch.nn.functional.mse_loss(self.linear(inputs), targets)
        self.calls += 1
        return loss * float("nan") if self.calls == self.at + 1 else loss


class UnsizedBatches:
    """Batches without ``len()`` (the trainer learns where an epoch ends when it runs out); with ``shrink``, each
    epoch has one batch fewer than the one before."""

    def __init__(self, batches: list, shrink: bool = False) -> None:
        self.batches = batches
        self.shrink = shrink
        self.epochs = 0

    def __iter__(self):
        cut = len(self.batches) - self.epochs if self.shrink else len(self.batches)
        self.epochs += 1
        return iter(self.batches[: max(cut, 1)])


def unsized_loader(batch_size: int = 4, num_samples: int = 10, shrink: bool = False) -> UnsizedBatches:
    return UnsizedBatches(list(DataLoader(regression_data(num_samples), batch_size=batch_size)), shrink)
