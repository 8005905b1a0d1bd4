"""Distributed data parallel for the trainer: process group, model wrapping, global counts, RNG gathering.

Under ``torchrun`` (``WORLD_SIZE`` > 1 in the environment) the trainer initialises the process group
itself — gloo on CPU, nccl on CUDA — unless one exists. Samples and tokens are summed over ranks every
step, so every rank's clock (and so every rank's lr) is the same.
"""

from __future__ import annotations

import os
from typing import Any

import attrs
import torch
import torch.distributed as dist

__all__ = ["World", "gather_rng", "pick_rng", "rng_note", "setup", "sum_counts", "sum_eval", "wrap_model"]


@attrs.frozen
class World:
    """This process's place in the run: its rank, the number of ranks, and its rank on its machine.

    Args:
        rank: The global rank (0 on one process).
        size: The number of ranks (1 on one process).
        local_rank: The rank on this machine (``LOCAL_RANK`` under torchrun).

    Returns:
        The frozen value; :func:`setup` gives it.

    Example:
        >>> world = World(0, 1, 0)
        >>> world.size, world == World(rank=0, size=1, local_rank=0)
        (1, True)
    """

    rank: int
    size: int
    local_rank: int


def setup(device: torch.device) -> World:
    """This process's place in the run; initialises the process group under torchrun when none exists.

    Args:
        device: The trainer's device: it picks the backend (nccl on CUDA, gloo otherwise), and on CUDA the
            current device (its index, else ``LOCAL_RANK``).

    Returns:
        ``World(0, 1, 0)`` on one process (no ``WORLD_SIZE`` > 1, no process group); else this rank's place
        in the process group.

    Example:
        >>> setup(torch.device("cpu"))  # no torchrun here
        World(rank=0, size=1, local_rank=0)
    """
    size = int(os.environ.get("WORLD_SIZE", "1"))
    if size <= 1 and not (dist.is_available() and dist.is_initialized()):
        return World(0, 1, 0)
    if not dist.is_initialized():
        backend = "nccl" if device.type == "cuda" else "gloo"
        dist.init_process_group(backend=backend)
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    if device.type == "cuda":
        torch.cuda.set_device(device.index if device.index is not None else local_rank)
    return World(dist.get_rank(), dist.get_world_size(), local_rank)


def wrap_model(model: torch.nn.Module, world: World, device: torch.device) -> torch.nn.Module:
    """``model`` itself on one process; a DistributedDataParallel wrapper of it on several.

    Args:
        model: The model, already on ``device``.
        world: This process's place in the run.
        device: The model's device (on CUDA, its index or the local rank is the wrapper's device).

    Returns:
        ``model`` unchanged when ``world.size`` is 1, else a ``DistributedDataParallel`` wrapping it.

    Example:
        >>> model = torch.nn.Linear(2, 1)
        >>> wrap_model(model, World(0, 1, 0), torch.device("cpu")) is model
        True
    """
    if world.size == 1:
        return model
    device_ids = [device.index if device.index is not None else world.local_rank] if device.type == "cuda" else None
    return torch.nn.parallel.DistributedDataParallel(model, device_ids=device_ids)


def sum_counts(samples: int, tokens: int, device: torch.device, nonfinite: bool = False) -> tuple[int, int, bool]:
    """This step's samples and tokens summed over all ranks, and whether any rank's loss was not finite.

    One all-reduce for the three, before the optimizer step, so that every rank stops (or goes on) together.
    It needs a process group (the trainer calls it only on more than one rank).

    Args:
        samples: This rank's samples in the step.
        tokens: This rank's tokens in the step.
        device: Where the reduced tensor lives (the backend's device: CUDA for nccl).
        nonfinite: Whether this rank's loss was not finite.

    Returns:
        ``(samples, tokens, nonfinite)`` over all ranks: the sums, and True when any rank's loss was not finite.

    Example:
        >>> import torch.distributed as dist
        >>> dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
        >>> sum_counts(3, 7, torch.device("cpu"), nonfinite=False)
        (3, 7, False)
        >>> dist.destroy_process_group()
    """
    counts = torch.tensor([samples, tokens, int(nonfinite)], dtype=torch.int64, device=device)
    dist.all_reduce(counts)
    return int(counts[0]), int(counts[1]), bool(counts[2])


def sum_eval(total: torch.Tensor, count: int, device: torch.device) -> tuple[torch.Tensor, int]:
    """An evaluation's loss sum and sample count, summed over all ranks (in float64, one all-reduce).

    Args:
        total: This rank's sum of the evaluation loss.
        count: This rank's evaluated samples.
        device: Where the reduced tensor lives (the backend's device).

    Returns:
        ``(total, count)`` over all ranks: the loss sum as a float64 tensor on the CPU, and the sample count;
        the mean loss is their quotient.

    Example:
        >>> import torch.distributed as dist
        >>> dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
        >>> sum_eval(torch.tensor(2.5), 4, torch.device("cpu"))
        (tensor(2.5000, dtype=torch.float64), 4)
        >>> dist.destroy_process_group()
    """
    both = torch.tensor([float(total), float(count)], dtype=torch.float64, device=device)
    dist.all_reduce(both)
    return both[0].cpu(), int(both[1])


def gather_rng(world: World, state: dict) -> list[dict]:
    """Every rank's RNG state, in rank order (each rank gets the list; rank 0 saves it).

    Args:
        world: This process's place in the run; on several ranks every rank must call this (an all-gather).
        state: This rank's RNG state (:func:`trainer.checkpoint_files.rng_state`).

    Returns:
        One state per rank, index = rank: ``[state]`` on one process.

    Example:
        >>> gather_rng(World(0, 1, 0), {"torch": "..."})
        [{'torch': '...'}]
    """
    if world.size == 1:
        return [state]
    states: list[Any] = [None] * world.size
    dist.all_gather_object(states, state)
    return states


def pick_rng(world: World, states: Any) -> dict | None:
    """This rank's RNG state from a checkpoint's list; None for a rank the saved run did not have (a run resumed
    on more ranks: that rank keeps the state seeded at construction, see :func:`rng_note`).

    Args:
        world: This process's place in the resumed run.
        states: The checkpoint's ``rng`` entry: a list of per-rank states (a single dict is taken as this
            rank's).

    Returns:
        The state at ``world.rank``; ``states`` itself when it is a dict; None when the list is shorter than the
        rank.

    Raises:
        ValueError: ``states`` is neither a dict nor a non-empty list, naming its type.

    Example:
        >>> pick_rng(World(1, 2, 1), [{"rank": 0}, {"rank": 1}])
        {'rank': 1}
        >>> pick_rng(World(2, 3, 0), [{"rank": 0}, {"rank": 1}]) is None
        True
    """
    if isinstance(states, dict):
        return states
    if not isinstance(states, list) or not states:
        raise ValueError(f"a checkpoint's rng entry must be a list of per-rank states, got {type(states).__name__}")
    return states[world.rank] if world.rank < len(states) else None


def rng_note(saved: int, world_size: int) -> str | None:
    """What a checkpoint of ``saved`` ranks' random states means on ``world_size`` ranks (for the resume warning).

    Args:
        saved: The number of ranks whose RNG states the checkpoint holds.
        world_size: The number of ranks of the resumed run.

    Returns:
        A clause naming the ranks with no saved state, or the saved states not used; None when the counts match.

    >>> rng_note(2, 4)
    'ranks 2-3 have no saved random state and keep the one seeded at construction'
    >>> rng_note(2, 1)
    "rank 1's random state is not used"
    """
    if saved < world_size:
        ranks = f"rank {saved} has" if world_size - saved == 1 else f"ranks {saved}-{world_size - 1} have"
        return f"{ranks} no saved random state and keep the one seeded at construction"
    if saved > world_size:
        ranks = f"rank {world_size}'s" if saved - world_size == 1 else f"ranks {world_size}-{saved - 1}'s"
        return f"{ranks} random state is not used" if saved - world_size == 1 else f"{ranks} random states are not used"
    return None
