"""Data for the trainer: a resumable, seeded sampler, loader rebuilding, batch counting, skipping.

The trainer owns shuffling (docs/resume.md): ``prepare_loader`` rebuilds a plain
``DataLoader`` around a :class:`ResumableSampler` whose order depends only on ``(seed, epoch)``
and which shards like ``DistributedSampler``. Resuming mid-epoch skips the sampler indices
already trained on, so the resumed epoch yields exactly the batches an uninterrupted run would.

>>> loader = prepare_loader(DataLoader(dataset, batch_size=32, shuffle=True), seed=17)  # doctest: +SKIP
>>> loader.sampler.set_epoch(epoch)                                                     # doctest: +SKIP
>>> loader.sampler.skip(batch_in_epoch * grad_accum * 32)  # resume mid-epoch            # doctest: +SKIP
"""

from __future__ import annotations

import inspect
import itertools
import math
import sys
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import attrs
import torch
from torch.utils.data import (
    BatchSampler,
    DataLoader,
    DistributedSampler,
    IterableDataset,
    RandomSampler,
    Sampler,
    SequentialSampler,
)

from schedulers.core.schedule_arguments import integer_argument
from timeunits import Timestamp

__all__ = [
    "Reshard",
    "ResumableSampler",
    "count_samples",
    "groups_of",
    "prepare_loader",
    "epoch_position",
    "reshard",
    "resume_iterator",
    "rng_neutral_iter",
    "skip_batches",
    "step_items",
    "to_device",
]


# --------------------------------------------------------------------------------------------
# ResumableSampler
# --------------------------------------------------------------------------------------------


class ResumableSampler(Sampler[int]):
    """This rank's indices of ``range(num_items)`` for one epoch, seeded by ``(seed, epoch)``.

    With ``shuffle=True`` the epoch's permutation is ``torch.randperm(num_items)`` drawn from a
    private ``torch.Generator`` seeded with ``seed + epoch`` (the global RNG is never touched);
    otherwise the order is ``0, 1, ..., num_items - 1``. The list is then sharded exactly like
    ``DistributedSampler(shuffle=shuffle, seed=seed, drop_last=drop_last)``: padded by wrapping
    around (or truncated with ``drop_last``) to a multiple of ``world_size``, and rank ``r`` takes
    positions ``r, r + world_size, ...``. ``len(sampler)`` is this rank's count for a whole epoch.

    ``skip(n)`` makes the next iteration (only) start at this rank's ``n``-th index. ``start_at(p)`` makes it
    continue the epoch's order after its first ``p`` items, whatever the number of ranks that trained them
    (:meth:`indices_from`: a run resumed on another number of ranks, docs/resume.md).

    Args:
        num_items: The dataset's length.
        shuffle: Shuffle each epoch (else read in order).
        seed: The run's seed; epoch ``e`` is shuffled with ``seed + e``.
        rank: This process's rank.
        world_size: The number of ranks the items are dealt out to.
        drop_last: Truncate to a multiple of ``world_size`` instead of padding by wrapping around.

    Returns:
        A sampler for a ``DataLoader`` (what :func:`prepare_loader` puts in a loader it rebuilds).

    Raises:
        ValueError: A count that is not a whole number (``10.0`` is taken as 10), a negative count,
            ``world_size < 1``, or ``rank >= world_size``; each names the argument.

    >>> sampler = ResumableSampler(5, shuffle=False, seed=0, rank=1, world_size=2)
    >>> list(sampler), len(sampler)
    ([1, 3, 0], 3)
    >>> sampler.skip(2); list(sampler), list(sampler)
    ([0], [1, 3, 0])
    """

    def __init__(
        self,
        num_items: int,
        *,
        shuffle: bool,
        seed: int,
        rank: int = 0,
        world_size: int = 1,
        drop_last: bool = False,
    ) -> None:
        self.num_items = integer_argument("num_items", num_items, low=0)
        self.seed = integer_argument("seed", seed, low=-(2**63))
        self.world_size = integer_argument("world_size", world_size, low=1)
        self.rank = integer_argument("rank", rank, low=0)
        if self.rank >= self.world_size:
            raise ValueError(f"rank={rank} must be < world_size={world_size}")
        self.shuffle = bool(shuffle)
        self.drop_last = bool(drop_last)
        self.epoch = 0
        self._skip = 0
        self._start: int | None = None
        if self.drop_last:
            self.num_samples = self.num_items // self.world_size
        else:
            self.num_samples = math.ceil(self.num_items / self.world_size)
        self.total_size = self.num_samples * self.world_size

    def set_epoch(self, epoch: int) -> None:
        """Use the permutation of ``epoch`` from the next iteration on.

        Args:
            epoch: The epoch (an int >= 0).

        Raises:
            ValueError: ``epoch`` is not a whole number >= 0 (``2.0`` is taken as 2).

        >>> sampler = ResumableSampler(4, shuffle=True, seed=0)
        >>> first = list(sampler)
        >>> sampler.set_epoch(1); sorted(sampler) == sorted(first), list(sampler) == first
        (True, False)
        """
        self.epoch = integer_argument("epoch", epoch, low=0)

    def skip(self, n: int) -> None:
        """Make the next iteration skip this rank's first ``n`` indices (resume mid-epoch).

        Later iterations are whole again. ``n`` beyond ``len(self)`` (``batches × batch_size`` when
        the last batch is partial) leaves the next iteration empty.

        Args:
            n: This rank's indices to skip (an int >= 0).

        Raises:
            ValueError: ``n`` is not a whole number >= 0 (``2.0`` is taken as 2).
        """
        self._skip = integer_argument("n", n, low=0)

    def start_at(self, position: int) -> None:
        """Make the next iteration (only) continue the epoch's order after its first ``position`` items
        (:meth:`indices_from`); later iterations are whole again.

        Args:
            position: Items of the epoch's order already done, on any number of ranks (an int >= 0).

        Raises:
            ValueError: ``position`` is not a whole number >= 0 (``2.0`` is taken as 2).

        >>> sampler = ResumableSampler(6, shuffle=False, seed=0)
        >>> sampler.start_at(4); list(sampler), list(sampler)
        ([4, 5], [0, 1, 2, 3, 4, 5])
        """
        self._start = integer_argument("position", position, low=0)

    def __len__(self) -> int:
        return self.num_samples

    def __iter__(self) -> Iterator[int]:
        start, self._skip = self._skip, 0
        position, self._start = self._start, None
        if position is not None:
            return iter(self.indices_from(position)[start:])
        return iter(self.epoch_indices()[start:])

    def indices_from(self, position: int) -> list[int]:
        r"""This rank's indices for the rest of the epoch once the first ``position`` items of its order are done.

        The epoch's order :math:`o` (the seeded permutation) is dealt out from ``position`` on: with :math:`W`
        ranks, rank :math:`r` takes :math:`o_{p + r}, o_{p + r + W}, \ldots`; the rest is padded by wrapping
        around :math:`o` from its start to a multiple of :math:`W` (truncated with ``drop_last``), as
        ``DistributedSampler`` pads a whole epoch. A run on :math:`W` ranks that has done :math:`c` items on
        each rank has done the first :math:`p = cW` items of the order, so ``indices_from(c·W)`` is this rank's
        ``epoch_indices()[c:]``; on another number of ranks it goes on with the items no rank has seen yet.

        Args:
            position: :math:`p`, the items of the epoch's order already done.

        Returns:
            This rank's indices for the rest of the epoch, as above.

        Raises:
            ValueError: ``position`` is not a whole number >= 0 (``2.0`` is taken as 2).

        >>> sampler = ResumableSampler(10, shuffle=False, seed=0, rank=1, world_size=4)
        >>> sampler.indices_from(3), sampler.epoch_indices()
        ([4, 8], [1, 5, 9])
        """
        order = self._ordered_indices()
        rest = order[integer_argument("position", position, low=0) :]
        per_rank = len(rest) // self.world_size if self.drop_last else math.ceil(len(rest) / self.world_size)
        rest = _pad_by_wrapping(rest, per_rank * self.world_size, source=order)[: per_rank * self.world_size]
        return rest[self.rank :: self.world_size]

    def epoch_indices(self) -> list[int]:
        """This rank's full index list for the current epoch (ignores ``skip``).

        Returns:
            Positions ``rank, rank + world_size, ...`` of the epoch's order padded (or truncated) to a multiple
            of ``world_size``: ``len(self)`` indices.

        >>> ResumableSampler(5, shuffle=False, seed=0, rank=0, world_size=2, drop_last=True).epoch_indices()
        [0, 2]
        """
        indices = self._ordered_indices()
        if self.drop_last:
            indices = indices[: self.total_size]
        else:
            indices = _pad_by_wrapping(indices, self.total_size)
        return indices[self.rank : self.total_size : self.world_size]

    def _ordered_indices(self) -> list[int]:
        if not self.shuffle:
            return list(range(self.num_items))
        generator = torch.Generator()
        generator.manual_seed(self.seed + self.epoch)
        return torch.randperm(self.num_items, generator=generator).tolist()

    def __repr__(self) -> str:
        return (
            f"ResumableSampler(num_items={self.num_items}, shuffle={self.shuffle}, seed={self.seed}, "
            f"rank={self.rank}, world_size={self.world_size}, drop_last={self.drop_last}, epoch={self.epoch})"
        )


def _pad_by_wrapping(indices: list[int], size: int, source: list[int] | None = None) -> list[int]:
    """Repeat ``source`` (default: ``indices``) from its start until ``indices`` has ``size`` items
    (DistributedSampler's padding)."""
    source = indices if source is None else source
    missing = size - len(indices)
    if missing <= 0 or not source:
        return indices
    return indices + (source * math.ceil(missing / len(source)))[:missing]


# --------------------------------------------------------------------------------------------
# prepare_loader
# --------------------------------------------------------------------------------------------


def prepare_loader(loader: DataLoader, *, seed: int, rank: int = 0, world_size: int = 1) -> DataLoader:
    """A copy of ``loader`` whose sampler is a :class:`ResumableSampler` (or ``loader`` unchanged).

    The new ``DataLoader`` has the same dataset, batch_size, collate_fn, num_workers, pin_memory,
    drop_last, timeout, worker_init_fn, multiprocessing_context, persistent_workers and
    prefetch_factor. It shuffles when the original sampler was a ``RandomSampler`` (without
    replacement, over the whole dataset) or a ``DistributedSampler(shuffle=True)``, and reads in
    order for a ``SequentialSampler`` or ``DistributedSampler(shuffle=False)``.

    Returned unchanged (the trainer then resumes by consuming and discarding batches): anything
    that is not exactly a ``DataLoader``, an ``IterableDataset``, a dataset without ``len``, a
    ``batch_sampler`` that is not a plain ``BatchSampler``, and any other sampler (weighted,
    subset, with replacement, user-defined), whose meaning a plain shuffle would change.

    Args:
        loader: The user's train loader.
        seed: The run's seed (the sampler shuffles epoch ``e`` with ``seed + e``).
        rank: This process's rank.
        world_size: The number of ranks.

    Returns:
        A new ``DataLoader`` over the same dataset with a :class:`ResumableSampler`, or ``loader`` itself when
        its sampler cannot be replaced.

    Raises:
        ValueError: ``seed`` is not a whole number.

    >>> loader = DataLoader(list(range(10)), batch_size=4, shuffle=True)
    >>> new = prepare_loader(loader, seed=0, rank=0, world_size=2)
    >>> type(new.sampler).__name__, len(new), new.batch_size
    ('ResumableSampler', 2, 4)
    """
    integer_argument("seed", seed, low=-(2**63))
    plan = _sampler_plan(loader)
    if plan is None:
        return loader
    shuffle, drop_last = plan
    sampler = ResumableSampler(
        len(loader.dataset), shuffle=shuffle, seed=seed, rank=rank, world_size=world_size, drop_last=drop_last
    )
    return DataLoader(loader.dataset, sampler=sampler, **_loader_settings(loader))


def _sampler_plan(loader: Any) -> tuple[bool, bool] | None:
    """``(shuffle, drop_last)`` for the ResumableSampler replacing ``loader``'s sampler, or None."""
    if type(loader) is not DataLoader or isinstance(loader.dataset, IterableDataset):
        return None
    if loader.batch_sampler is not None and type(loader.batch_sampler) is not BatchSampler:
        return None
    try:
        size = len(loader.dataset)
    except TypeError:
        return None
    return _replaceable_sampler(loader.sampler, loader.dataset, size)


def _replaceable_sampler(sampler: Any, dataset: Any, size: int) -> tuple[bool, bool] | None:
    if type(sampler) is ResumableSampler:
        return (sampler.shuffle, sampler.drop_last) if sampler.num_items == size else None
    if type(sampler) is SequentialSampler:
        return (False, False) if sampler.data_source is dataset else None
    if type(sampler) is RandomSampler:
        plain = not sampler.replacement and sampler.num_samples == size and sampler.data_source is dataset
        return (True, False) if plain else None
    if type(sampler) is DistributedSampler:
        return (sampler.shuffle, sampler.drop_last) if sampler.dataset is dataset else None
    return None


_OPTIONAL_SETTINGS = {"pin_memory_device": "", "in_order": True}


def _loader_settings(loader: DataLoader) -> dict[str, Any]:
    """The keyword arguments that rebuild ``loader``'s batching and worker behaviour."""
    settings = {
        "batch_size": loader.batch_size,
        "drop_last": loader.drop_last,
        "collate_fn": loader.collate_fn,
        "num_workers": loader.num_workers,
        "pin_memory": loader.pin_memory,
        "timeout": loader.timeout,
        "worker_init_fn": loader.worker_init_fn,
        "multiprocessing_context": loader.multiprocessing_context,
        "persistent_workers": loader.persistent_workers,
    }
    if loader.num_workers > 0:
        settings["prefetch_factor"] = loader.prefetch_factor
    accepted = inspect.signature(DataLoader.__init__).parameters
    for name, default in _OPTIONAL_SETTINGS.items():
        value = getattr(loader, name, default)
        if name in accepted and value != default:
            settings[name] = value
    return settings


# --------------------------------------------------------------------------------------------
# Counting and skipping
# --------------------------------------------------------------------------------------------


def count_samples(batch: Any) -> int:
    """The number of samples in ``batch``: the first dimension of its first tensor.

    Tensors (and numpy arrays) are searched depth-first through tuples, lists and mappings, in
    order; 0-d tensors are passed over. A batch without one raises a ValueError describing it.

    Args:
        batch: A loader item: a tensor, an array, or tuples, lists and mappings holding them.

    Returns:
        The first dimension of the first tensor (or numpy array) with at least one dimension.

    Raises:
        ValueError: The batch holds no such tensor (the message describes the batch).

    >>> count_samples((torch.zeros(8, 3), torch.zeros(8)))
    8
    >>> count_samples({"meta": ["a"], "input_ids": torch.zeros(4, 128)})
    4
    """
    found = _first_batch_dim(batch)
    if found is None:
        raise ValueError(
            f"count_samples found no tensor with a batch dimension in the batch ({_describe(batch)}); "
            "pass get_num_samples= to count this kind of batch"
        )
    return found


def _first_batch_dim(value: Any) -> int | None:
    if isinstance(value, torch.Tensor) or _is_numpy_array(value):
        return int(value.shape[0]) if value.ndim > 0 else None
    if isinstance(value, Mapping):
        children: Iterable[Any] = value.values()
    elif isinstance(value, (tuple, list)):
        children = value
    else:
        return None
    for child in children:
        found = _first_batch_dim(child)
        if found is not None:
            return found
    return None


def _is_numpy_array(value: Any) -> bool:
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, numpy.ndarray)


def _describe(batch: Any) -> str:
    if isinstance(batch, Mapping):
        return f"a {type(batch).__name__} with keys {list(batch)[:8]}"
    if isinstance(batch, (tuple, list)):
        return f"a {type(batch).__name__} of {len(batch)} items: {[type(x).__name__ for x in batch][:8]}"
    if isinstance(batch, torch.Tensor):
        return "a 0-d tensor"
    return f"a {type(batch).__module__}.{type(batch).__qualname__}"


def skip_batches(loader_iter: Iterable, n: int) -> Iterator:
    """Consume and discard the first ``n`` items of ``loader_iter``; return the iterator.

    Used to resume mid-epoch when the sampler cannot skip (an ``IterableDataset``, a custom
    sampler). Running out before ``n`` items is a ValueError.

    Args:
        loader_iter: The loader, or an iterator over it.
        n: The items to discard (an int >= 0).

    Returns:
        An iterator positioned after the first ``n`` items.

    Raises:
        ValueError: ``n`` is not a whole number >= 0, or the loader ran out before ``n`` items.

    >>> it = skip_batches(iter([10, 11, 12, 13]), 2)
    >>> list(it)
    [12, 13]
    """
    integer_argument("n", n, low=0)
    iterator = iter(loader_iter)
    for skipped in range(n):
        try:
            next(iterator)
        except StopIteration:
            raise ValueError(f"cannot skip n={n} batches on resume: the loader ran out after {skipped}") from None
    return iterator


def to_device(item: Any, device: torch.device) -> Any:
    """``item`` with its tensors moved to ``device`` (through lists, tuples and dicts), without blocking.

    Args:
        item: A loader item: a tensor, or lists, tuples and dicts holding tensors (other values are kept).
        device: Where the model is.

    Returns:
        ``item`` itself on the CPU; else a copy of its containers holding the tensors on ``device``.

    >>> to_device({"x": torch.ones(1)}, torch.device("cpu"))
    {'x': tensor([1.])}
    """
    if device.type == "cpu":
        return item
    if isinstance(item, torch.Tensor):
        return item.to(device, non_blocking=True)
    if isinstance(item, (list, tuple)):
        return type(item)(to_device(x, device) for x in item)
    if isinstance(item, dict):
        return {key: to_device(value, device) for key, value in item.items()}
    return item


def resume_iterator(loader: Iterable, sampler: Any, skip: int, position: int | None = None) -> Iterator:
    """An iterator over ``loader`` past its first ``skip`` items (the sampler skips them unloaded when it can);
    with ``position`` (a run resumed on another number of ranks: :func:`reshard`), past the first ``position``
    items of the epoch's order instead.

    Args:
        loader: The train loader.
        sampler: Its sampler (a :class:`ResumableSampler` skips unloaded; with workers, the skipped batches are
            replayed through them to reproduce their random streams).
        skip: Loader items already used in the epoch.
        position: Items of the epoch's order already done on any number of ranks (:func:`reshard`), or None.

    Returns:
        An iterator over the rest of the epoch, made without touching the global torch RNG.

    Raises:
        ValueError: A loader that cannot skip ran out before ``skip`` items.

    >>> loader = prepare_loader(DataLoader(list(range(16)), batch_size=2), seed=0)
    >>> next(resume_iterator(loader, loader.sampler, 3))
    tensor([6, 7])
    """
    if position is not None and isinstance(sampler, ResumableSampler):
        sampler.start_at(position)
        return rng_neutral_iter(loader)
    batch_size = getattr(loader, "batch_size", None)
    # with workers, replaying the skipped batches through them reproduces their random streams exactly
    in_process = getattr(loader, "num_workers", 0) == 0
    if skip and isinstance(sampler, ResumableSampler) and batch_size and in_process:
        sampler.skip(skip * batch_size)
        return rng_neutral_iter(loader)
    iterator = rng_neutral_iter(loader)
    return skip_batches(iterator, skip) if skip else iterator  # others: consumed and discarded


def groups_of(iterator: Iterator, n: int) -> Iterator[list]:
    """Consecutive groups of ``n`` items; leftovers that do not fill a group are dropped (warned at construction).

    Args:
        iterator: Loader items.
        n: Items per group (``grad_accum``).

    Yields:
        Lists of ``n`` consecutive items.

    >>> list(groups_of(iter(range(7)), 3))
    [[0, 1, 2], [3, 4, 5]]
    """
    while len(items := list(itertools.islice(iterator, n))) == n:
        yield items


def rng_neutral_iter(loader: Iterable) -> Iterator:
    """``iter(loader)`` without touching the global torch RNG.

    A DataLoader draws its workers' base seed from the global generator each time an iterator is made; a
    resumed run makes one mid-epoch where the uninterrupted run did not, so the draw would shift every later
    random number (dropout, ...) and break bit-exact resume. Evaluation iterates this way too, so a run's
    random numbers do not depend on when it evaluates (a WSD branch that starts where the main run evaluated
    equals its own run, docs/sweeps.md).

    Args:
        loader: Anything iterable (a DataLoader draws from the global RNG when its iterator is made).

    Returns:
        ``iter(loader)``; the global torch RNG state is as it was before.

    >>> state = torch.random.get_rng_state()
    >>> iterator = rng_neutral_iter(DataLoader(list(range(4)), batch_size=2, shuffle=True))
    >>> torch.equal(state, torch.random.get_rng_state())
    True
    """
    state = torch.random.get_rng_state()
    iterator = iter(loader)
    torch.random.set_rng_state(state)
    return iterator


# --------------------------------------------------------------------------------------------
# Resuming with steps of another size (another number of ranks, batch size or grad_accum)
# --------------------------------------------------------------------------------------------


@attrs.frozen
class Reshard:
    """Where a run resumed with steps of another size goes on: its timestamp (the in-epoch batch count in this
    run's steps), the position in the epoch's order its sampler starts at (None: the loader is not one the
    trainer rebuilds), and what it could not keep as it was (for the resume warning).

    Args:
        timestamp: The resumed run's timestamp.
        position: The position in the epoch's order its sampler starts at, or None.
        notes: What changed, one sentence each.

    Returns:
        The value :func:`reshard` gives the trainer.

    >>> Reshard(Timestamp(batch=4), 8, []).position
    8
    """

    timestamp: Timestamp
    position: int | None
    notes: list[str]


def step_items(batch_size: int | None, grad_accum: int, world_size: int) -> int | None:
    r"""Items of the epoch's order one optimizer step takes: :math:`g\,b\,W` (None: loader batches of unknown size).

    Args:
        batch_size: :math:`b`, the loader's batch size (None: not a loader that batches a dataset).
        grad_accum: :math:`g`, loader batches per optimizer step.
        world_size: :math:`W`, the number of ranks.

    Returns:
        :math:`g\,b\,W`, or None.

    >>> step_items(8, 2, 4), step_items(None, 1, 1)
    (64, None)
    """
    return None if not batch_size else batch_size * grad_accum * world_size


def epoch_position(start: tuple[int, int], done: int, items: int | None) -> int | None:
    r"""Items of the epoch's order done after ``done`` steps of the epoch: :math:`P_0 + (d - d_0)\,g\,b\,W`.

    A run takes :math:`g\,b\,W` items a step from where its steps of the epoch began: item 0 after batch 0
    (``start = (0, 0)``), or, in the epoch a run resumed with steps of another size, item :math:`P_0` after
    batch :math:`d_0` (:func:`reshard`). A checkpoint keeps the result, so a resume reads where the epoch is
    whatever step sizes it went through.

    Args:
        start: :math:`(P_0, d_0)`, where this run's steps of the epoch began.
        done: :math:`d`, steps of the epoch done (those the fp16 scaler skipped included).
        items: :math:`g\,b\,W` (:func:`step_items`); None: unknown.

    Returns:
        The position, or None when ``items`` is unknown.

    >>> epoch_position((0, 0), 5, 8), epoch_position((40, 2), 3, 16)
    (40, 56)
    """
    return None if items is None else start[0] + (done - start[1]) * items


def reshard(
    saved: dict,
    timestamp: Timestamp,
    skipped: int,
    *,
    world_size: int,
    loader: Any,
    grad_accum: int,
    steps: int | None,
    position: int | None = None,
) -> Reshard | None:
    r"""The rule for resuming a checkpoint whose steps took another number of items: another number of ranks,
    loader batch size or ``grad_accum`` (docs/resume.md).

    After :math:`d` steps of an epoch (fp16-skipped ones included) of :math:`W` ranks, ``grad_accum`` :math:`g` and
    loader batches of :math:`b`, the first :math:`P = d\,g\,b\,W` items of its order are done (or the checkpoint's
    ``epoch_position``). The resumed run deals out the rest from :math:`P` in its own batches
    (:meth:`ResumableSampler.indices_from`), each sample once, and the in-epoch batch count becomes :math:`L' - R'`
    (:math:`L'` its steps per epoch, :math:`R'` those the rest fills); samples and tokens go on as saved.

    Args:
        saved: The checkpoint's ``world_size``, ``batch_size`` and ``grad_accum``.
        timestamp: The saved timestamp.
        skipped: Optimizer steps the fp16 scaler skipped in the saved epoch.
        world_size: :math:`W'`, this run's number of ranks.
        loader: This run's train loader (its ``batch_size``, ``drop_last`` and sampler).
        grad_accum: This run's ``grad_accum``.
        steps: :math:`L'`, this run's optimizer steps per epoch (None: unknown).
        position: The checkpoint's ``epoch_position`` (None: an older checkpoint, :math:`d\,g\,b\,W`).

    Returns:
        A :class:`Reshard` (``position`` None: a loader not rebuilt); None: a plain resume (the same step).

    >>> loader, saved = prepare_loader(DataLoader(list(range(16)), batch_size=2), seed=0), {"world_size": 2}
    >>> resumed = reshard(saved, Timestamp(batch_in_epoch=2), 0, world_size=1, loader=loader, grad_accum=1, steps=8)
    >>> resumed.position, str(resumed.timestamp.batch_in_epoch)  # 8 items done: 4 of the 8 batches left
    (8, '4ba')
    """
    batch_size = getattr(loader, "batch_size", None)
    was_shape = (saved.get("batch_size", batch_size), int(saved.get("grad_accum") or grad_accum))
    was_world = int(saved.get("world_size") or 1)
    was = step_items(was_shape[0], was_shape[1], was_world)
    now = step_items(batch_size, grad_accum, world_size)
    done = timestamp.batch_in_epoch.value + skipped
    if position is None:
        position = epoch_position((0, 0), done, was)
    same_step = (was_shape, was_world) == ((batch_size, grad_accum), world_size)
    if same_step and position in (None, epoch_position((0, 0), done, now)):
        return None
    notes = [_step_note(timestamp, was, was_world, now, world_size)]
    sampler = getattr(loader, "sampler", None)
    if not isinstance(sampler, ResumableSampler) or position is None or not batch_size or steps is None:
        return Reshard(timestamp, None, [*notes, _not_rebuilt(done * grad_accum)])
    in_epoch = _batch_in_epoch(sampler, loader, position, grad_accum, steps, notes)
    if position:
        notes.append(
            f"this epoch goes on after item {position} of its order, each sample once "
            f"(batch {in_epoch} of the epoch's {steps}{_on_ranks(world_size)})"
        )
    return Reshard(Timestamp.from_state_dict({**timestamp.state_dict(), "batch_in_epoch": in_epoch}), position, notes)


def _batch_in_epoch(
    sampler: ResumableSampler, loader: Any, position: int, grad_accum: int, steps: int, notes: list[str]
) -> int:
    """:math:`L' - R'`: this run's steps per epoch less the steps the rest of the order from ``position`` fills
    (a short last batch dropped under ``drop_last``, said in ``notes``)."""
    batch_size = loader.batch_size
    batches, short = divmod(len(sampler.indices_from(min(position, sampler.num_items))), batch_size)
    if short and loader.drop_last:
        notes.append(f"the last {short} items of this epoch's rest fill no batch of {batch_size} (drop_last)")
    batches += bool(short and not loader.drop_last)
    return max(steps - batches // grad_accum, 0)


def _not_rebuilt(skipped_items: int) -> str:
    """The note of a resume whose loader the trainer does not rebuild: it skips items, not the ones trained."""
    return (
        f"the train loader is not one the trainer rebuilds (docs/resume.md): each rank skips its first "
        f"{skipped_items} loader items of the epoch, which are not the ones the saved run trained"
    )


def _on_ranks(ranks: int) -> str:
    return f" on {ranks} ranks" if ranks > 1 else ""


def _step_note(timestamp: Timestamp, was: int | None, was_world: int, now: int | None, world_size: int) -> str:
    """What a step of another size means for the clock (one sentence of the resume warning)."""
    size = "loader items of unknown size" if now is None else f"{now} dataset items{_on_ranks(world_size)}"
    before = "" if was is None else f" (was {was}{f' on {was_world}' if was_world != world_size else ''})"
    return (
        f"a step now trains {size}{before}: samples and tokens go on from {timestamp.sample.value} and "
        f"{timestamp.token.value}, so schedules in sp and tok keep their values, and times in ba and ep count "
        "steps of the new size"
    )
