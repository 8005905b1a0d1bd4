"""``seed_everything``: one seed for Python's ``random``, torch and numpy (the trainer and configs use it)."""

from __future__ import annotations

import random
from typing import Any

import torch

from schedulers.core.schedule_arguments import integer_argument

__all__ = ["seed_everything"]


def seed_everything(seed: Any) -> int:
    """Seed python's ``random``, torch and numpy with ``seed`` (an int >= 0); return it.

    numpy is seeded with ``seed % 2**32`` (its limit), and skipped when it is not installed.

    Args:
        seed: An int >= 0 (a bool is refused).

    Returns:
        ``seed``, so that a caller can log the seed it set.

    Raises:
        ValueError: ``seed`` is not an integer >= 0 (``2.0`` is one).

    >>> import random
    >>> seed_everything(7) == 7 and random.random() == (random.seed(7) or random.random())
    True
    """
    seed = integer_argument("seed", seed, low=0)
    random.seed(seed)
    torch.manual_seed(seed)
    try:
        import numpy

        numpy.random.seed(seed % 2**32)
    except ImportError:  # numpy is a dependency, but the trainer does not need it
        pass
    return seed
