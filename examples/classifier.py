"""A small MLP classifier on Gaussian blobs generated from a seed (no download), for ``classifier.yaml``.

    cadence fit examples/classifier.yaml

The blobs' centres come from ``seed``; the training and validation samples are drawn around them from
``seed + 1`` and ``seed + 2``, so both splits are the same on every machine and every run.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

__all__ = ["blobs", "make_model", "train_loader", "val_loader"]


def blobs(
    num_samples: int,
    *,
    num_classes: int = 4,
    num_features: int = 16,
    spread: float = 2.0,
    seed: int = 0,
    split: int = 0,
) -> TensorDataset:
    """``num_samples`` points around ``num_classes`` random centres (balanced classes), as ``(x, label)``."""
    centres = torch.randn(num_classes, num_features, generator=torch.Generator().manual_seed(seed))
    generator = torch.Generator().manual_seed(seed + 1 + split)
    labels = torch.arange(num_samples) % num_classes
    labels = labels[torch.randperm(num_samples, generator=generator)]
    inputs = 1.5 * centres[labels] + spread * torch.randn(num_samples, num_features, generator=generator)
    return TensorDataset(inputs, labels)


def make_model(
    num_features: int = 16, hidden: int = 64, num_classes: int = 4, num_threads: int | None = None
) -> nn.Module:
    """A two-hidden-layer MLP returning class logits; ``num_threads`` (optional) sets torch's CPU threads
    (a model this small trains fastest on one)."""
    if num_threads is not None:
        torch.set_num_threads(num_threads)
    return nn.Sequential(
        nn.Linear(num_features, hidden),
        nn.ReLU(),
        nn.Linear(hidden, hidden),
        nn.ReLU(),
        nn.Linear(hidden, num_classes),
    )


def train_loader(batch_size: int = 64, num_samples: int = 4096, seed: int = 0, **blob_options) -> DataLoader:
    """The training split, shuffled (the trainer reseeds the order from its own seed and the epoch)."""
    dataset = blobs(num_samples, seed=seed, split=0, **blob_options)
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, drop_last=True)


def val_loader(batch_size: int = 256, num_samples: int = 1024, seed: int = 0, **blob_options) -> DataLoader:
    """The validation split: other samples around the same centres."""
    return DataLoader(blobs(num_samples, seed=seed, split=1, **blob_options), batch_size=batch_size)
