"""``trainer.data``: ResumableSampler, prepare_loader, count_samples, skip_batches.

docs/trainer.md (Distributed) and docs/resume.md.
"""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.utils.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    DistributedSampler,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

import trainer.data as data_module
from trainer.data import ResumableSampler, count_samples, prepare_loader, skip_batches


class Squares(Dataset):
    """Item i is (tensor([i, i*i]), i): batches show exactly which indices they hold."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int):
        return torch.tensor([i, i * i]), i


def batch_indices(batches) -> list[list[int]]:
    return [batch[1].tolist() for batch in batches]


def run_epoch(loader, epoch: int, skip: int = 0):
    loader.sampler.set_epoch(epoch)
    if skip:
        loader.sampler.skip(skip)
    return list(loader)


def assert_batches_equal(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert torch.equal(x[0], y[0]) and torch.equal(x[1], y[1])


# --------------------------------------------------------------------------------------------
# ResumableSampler: order and determinism
# --------------------------------------------------------------------------------------------


def test_same_seed_and_epoch_give_the_same_order():
    a = ResumableSampler(100, shuffle=True, seed=3)
    b = ResumableSampler(100, shuffle=True, seed=3)
    a.set_epoch(4)
    b.set_epoch(4)
    assert list(a) == list(b) == list(a)
    assert sorted(a) == list(range(100))


def test_different_epochs_and_seeds_give_different_orders():
    sampler = ResumableSampler(100, shuffle=True, seed=3)
    orders = []
    for epoch in range(4):
        sampler.set_epoch(epoch)
        orders.append(list(sampler))
    orders.append(list(ResumableSampler(100, shuffle=True, seed=1000)))
    assert len({tuple(order) for order in orders}) == len(orders)


def test_order_does_not_depend_on_or_advance_the_global_rng():
    torch.manual_seed(0)
    first = list(ResumableSampler(50, shuffle=True, seed=7))
    torch.manual_seed(12345)
    before = torch.get_rng_state()
    second = list(ResumableSampler(50, shuffle=True, seed=7))
    assert first == second
    assert torch.equal(before, torch.get_rng_state())


def test_permutation_is_randperm_of_seed_plus_epoch():
    sampler = ResumableSampler(20, shuffle=True, seed=11)
    sampler.set_epoch(2)
    expected = torch.randperm(20, generator=torch.Generator().manual_seed(13)).tolist()
    assert list(sampler) == expected


def test_sequential_order_without_shuffle():
    sampler = ResumableSampler(7, shuffle=False, seed=5)
    sampler.set_epoch(3)
    assert list(sampler) == list(range(7))
    assert len(sampler) == 7


def test_empty_dataset():
    sampler = ResumableSampler(0, shuffle=True, seed=0, world_size=3, rank=2)
    assert list(sampler) == [] and len(sampler) == 0


# --------------------------------------------------------------------------------------------
# ResumableSampler: sharding
# --------------------------------------------------------------------------------------------


@settings(deadline=None, max_examples=60)
@given(
    num_items=st.integers(1, 40),
    world_size=st.integers(1, 5),
    shuffle=st.booleans(),
    drop_last=st.booleans(),
    seed=st.integers(0, 2**31),
    epoch=st.integers(0, 5),
)
def test_matches_distributed_sampler_on_every_rank(num_items, world_size, shuffle, drop_last, seed, epoch):
    for rank in range(world_size):
        ours = ResumableSampler(
            num_items, shuffle=shuffle, seed=seed, rank=rank, world_size=world_size, drop_last=drop_last
        )
        torch_sampler = DistributedSampler(
            range(num_items), num_replicas=world_size, rank=rank, shuffle=shuffle, seed=seed, drop_last=drop_last
        )
        ours.set_epoch(epoch)
        torch_sampler.set_epoch(epoch)
        assert list(ours) == list(torch_sampler)
        assert len(ours) == len(torch_sampler)


@pytest.mark.parametrize("num_items, world_size", [(10, 3), (10, 4), (2, 5), (12, 4), (1, 1)])
def test_ranks_partition_the_padded_permutation(num_items, world_size):
    seed, epoch = 9, 1
    shards = []
    for rank in range(world_size):
        sampler = ResumableSampler(num_items, shuffle=True, seed=seed, rank=rank, world_size=world_size)
        sampler.set_epoch(epoch)
        shards.append(list(sampler))
    per_rank = math.ceil(num_items / world_size)
    assert all(len(shard) == per_rank for shard in shards)
    permutation = ResumableSampler(num_items, shuffle=True, seed=seed)
    permutation.set_epoch(epoch)
    padded = list(permutation)
    while len(padded) < per_rank * world_size:
        padded += padded[: per_rank * world_size - len(padded)]
    interleaved = [shards[i % world_size][i // world_size] for i in range(per_rank * world_size)]
    assert interleaved == padded  # rank r holds positions r, r + world_size, ...
    assert set().union(*map(set, shards)) == set(range(num_items))


def test_drop_last_shards_are_disjoint_and_drop_the_tail():
    shards = [list(ResumableSampler(10, shuffle=True, seed=2, rank=r, world_size=3, drop_last=True)) for r in range(3)]
    assert [len(s) for s in shards] == [3, 3, 3]
    flat = [i for shard in shards for i in shard]
    assert len(set(flat)) == 9


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"num_items": -1}, ValueError, r"^num_items=-1 must be an integer >= 0$"),
        ({"num_items": 3.5}, ValueError, r"^num_items=3.5 must be an integer >= 0$"),
        ({"rank": 2, "world_size": 2}, ValueError, r"rank=2 must be < world_size=2"),
        ({"rank": -1}, ValueError, r"^rank=-1 must be an integer >= 0$"),
        ({"world_size": 0}, ValueError, r"^world_size=0 must be an integer >= 1$"),
        ({"seed": "1"}, ValueError, r"^seed='1' must be an integer >= -9223372036854775808$"),
    ],
)
def test_constructor_errors_name_the_argument(kwargs, error, message):
    # the counts are checked by schedulers.core.schedule_arguments.integer_argument, the one count check
    arguments = {"num_items": 10, "shuffle": True, "seed": 0, **kwargs}
    num_items = arguments.pop("num_items")
    with pytest.raises(error, match=message):
        ResumableSampler(num_items, **arguments)


def test_set_epoch_rejects_bad_values():
    sampler = ResumableSampler(4, shuffle=True, seed=0)
    with pytest.raises(ValueError, match="epoch=-1"):
        sampler.set_epoch(-1)
    with pytest.raises(ValueError, match=r"^epoch=1.5 must be an integer >= 0$"):
        sampler.set_epoch(1.5)


# --------------------------------------------------------------------------------------------
# ResumableSampler: skip
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rank, world_size", [(0, 1), (1, 3)])
def test_skip_equals_the_tail_of_the_full_iteration(rank, world_size):
    sampler = ResumableSampler(23, shuffle=True, seed=4, rank=rank, world_size=world_size)
    sampler.set_epoch(5)
    full = list(sampler)
    for n in range(len(sampler) + 1):
        sampler.skip(n)
        assert list(sampler) == full[n:]


def test_skip_applies_to_the_next_iteration_only():
    sampler = ResumableSampler(10, shuffle=True, seed=0)
    full = list(sampler)
    sampler.skip(4)
    iterator = iter(sampler)  # consumed when iteration starts ...
    assert list(sampler) == full  # ... so a later iteration is whole again
    assert list(iterator) == full[4:]


def test_skip_survives_set_epoch_and_uses_the_new_epoch():
    sampler = ResumableSampler(10, shuffle=True, seed=0)
    sampler.skip(3)
    sampler.set_epoch(2)
    skipped = list(sampler)
    assert skipped == list(sampler)[3:]
    assert len(sampler) == 10  # len is the whole epoch, skip or not


def test_skipping_more_than_an_epoch_leaves_the_next_iteration_empty():
    sampler = ResumableSampler(10, shuffle=False, seed=0, world_size=3)  # 4 per rank
    sampler.skip(6)  # e.g. two batches of 3 when the last batch is partial
    assert list(sampler) == []
    assert list(sampler) == [0, 3, 6, 9]


def test_skip_rejects_bad_counts():
    sampler = ResumableSampler(10, shuffle=False, seed=0, world_size=3)
    with pytest.raises(ValueError, match="n=-1"):
        sampler.skip(-1)
    with pytest.raises(ValueError, match=r"^n=2.5 must be an integer >= 0$"):
        sampler.skip(2.5)
    sampler.skip(2.0)  # a whole float is the count it spells
    assert list(sampler) == list(ResumableSampler(10, shuffle=False, seed=0, world_size=3))[2:]


# --------------------------------------------------------------------------------------------
# prepare_loader
# --------------------------------------------------------------------------------------------


def test_shuffled_loader_gets_a_shuffling_resumable_sampler():
    loader = DataLoader(Squares(10), batch_size=4, shuffle=True)
    new = prepare_loader(loader, seed=3, rank=0, world_size=1)
    assert new is not loader
    assert isinstance(new.sampler, ResumableSampler)
    assert new.sampler.shuffle and new.sampler.seed == 3 and not new.sampler.drop_last
    assert new.dataset is loader.dataset
    assert len(new) == len(loader) == 3


def test_sequential_loader_stays_in_order():
    loader = DataLoader(Squares(10), batch_size=4)
    new = prepare_loader(loader, seed=3, rank=0, world_size=1)
    assert not new.sampler.shuffle
    assert batch_indices(new) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


@pytest.mark.parametrize("shuffle, drop_last", [(True, True), (False, False)])
def test_distributed_sampler_settings_carry_over_with_the_trainer_rank(shuffle, drop_last):
    dataset = Squares(10)
    sampler = DistributedSampler(dataset, num_replicas=3, rank=0, shuffle=shuffle, seed=99, drop_last=drop_last)
    new = prepare_loader(DataLoader(dataset, batch_size=2, sampler=sampler), seed=5, rank=1, world_size=2)
    resumable = new.sampler
    assert (resumable.shuffle, resumable.drop_last) == (shuffle, drop_last)
    assert (resumable.seed, resumable.rank, resumable.world_size) == (5, 1, 2)


def test_settings_are_preserved():
    def collate(items):
        return torch.stack([x for x, _ in items]), torch.tensor([i for _, i in items])

    def init(worker_id):
        pass

    loader = DataLoader(
        Squares(10),
        batch_size=3,
        shuffle=True,
        collate_fn=collate,
        num_workers=2,
        pin_memory=False,
        drop_last=True,
        timeout=5.0,
        worker_init_fn=init,
        persistent_workers=True,
        prefetch_factor=3,
        multiprocessing_context="spawn",
    )
    new = prepare_loader(loader, seed=0, rank=0, world_size=1)
    for name in (
        "batch_size",
        "collate_fn",
        "num_workers",
        "pin_memory",
        "drop_last",
        "timeout",
        "worker_init_fn",
        "persistent_workers",
        "prefetch_factor",
        "multiprocessing_context",
    ):
        assert getattr(new, name) == getattr(loader, name), name
    assert type(new.batch_sampler) is BatchSampler and new.batch_sampler.drop_last
    assert len(new) == 3


def test_prefetch_factor_is_left_out_without_workers():
    new = prepare_loader(DataLoader(Squares(4), batch_size=2), seed=0, rank=0, world_size=1)
    assert new.num_workers == 0 and new.prefetch_factor is None


def test_batches_are_the_sampler_indices_in_batch_size_chunks():
    dataset = Squares(11)
    new = prepare_loader(DataLoader(dataset, batch_size=4, shuffle=True), seed=8, rank=0, world_size=1)
    new.sampler.set_epoch(1)
    order = new.sampler.epoch_indices()
    batches = run_epoch(new, 1)
    assert batch_indices(batches) == [order[0:4], order[4:8], order[8:11]]
    for batch in batches:
        assert torch.equal(batch[0][:, 1], batch[1] ** 2)  # inputs and targets stay paired


def test_same_seed_and_epoch_give_identical_batches_whatever_the_global_rng():
    loader = DataLoader(Squares(20), batch_size=3, shuffle=True)
    torch.manual_seed(0)
    a = run_epoch(prepare_loader(loader, seed=1, rank=0, world_size=1), 2)
    torch.manual_seed(1)
    b = run_epoch(prepare_loader(loader, seed=1, rank=0, world_size=1), 2)
    c = run_epoch(prepare_loader(loader, seed=1, rank=0, world_size=1), 3)
    assert_batches_equal(a, b)
    assert batch_indices(a) != batch_indices(c)


@pytest.mark.parametrize("rank, world_size, drop_last", [(0, 1, False), (1, 2, False), (0, 3, True)])
def test_resumed_mid_epoch_equals_the_rest_of_an_uninterrupted_epoch(rank, world_size, drop_last):
    batch_size = 3
    loader = DataLoader(Squares(29), batch_size=batch_size, shuffle=True, drop_last=drop_last)
    uninterrupted = run_epoch(prepare_loader(loader, seed=6, rank=rank, world_size=world_size), 4)
    for done in (0, 1, len(uninterrupted) - 1, len(uninterrupted)):
        resumed_loader = prepare_loader(loader, seed=6, rank=rank, world_size=world_size)
        resumed = run_epoch(resumed_loader, 4, skip=done * batch_size)
        assert_batches_equal(resumed, uninterrupted[done:])
        assert_batches_equal(run_epoch(resumed_loader, 4), uninterrupted)  # the next epoch is whole


def test_resumes_with_workers():
    loader = DataLoader(Squares(12), batch_size=2, shuffle=True, num_workers=1)
    new = prepare_loader(loader, seed=2, rank=0, world_size=1)
    full = run_epoch(new, 0)
    assert_batches_equal(run_epoch(new, 0, skip=6), full[3:])


def test_unbatched_loader_is_supported():
    loader = DataLoader(Squares(5), batch_size=None, shuffle=True)
    new = prepare_loader(loader, seed=1, rank=0, world_size=1)
    assert isinstance(new.sampler, ResumableSampler) and new.batch_sampler is None
    items = run_epoch(new, 0, skip=2)
    assert [i for _, i in items] == new.sampler.epoch_indices()[2:]


def test_prepare_loader_is_idempotent():
    loader = DataLoader(Squares(9), batch_size=2, shuffle=True)
    once = prepare_loader(loader, seed=4, rank=0, world_size=1)
    twice = prepare_loader(once, seed=4, rank=0, world_size=1)
    assert twice.sampler.shuffle
    assert_batches_equal(run_epoch(once, 1), run_epoch(twice, 1))


def test_world_size_shards_a_plain_loader():
    loader = DataLoader(Squares(10), batch_size=2)
    ranks = [prepare_loader(loader, seed=0, rank=r, world_size=2) for r in range(2)]
    assert [len(r) for r in ranks] == [3, 3]
    assert batch_indices(ranks[0]) == [[0, 2], [4, 6], [8]]
    assert batch_indices(ranks[1]) == [[1, 3], [5, 7], [9]]


class Stream(IterableDataset):
    def __iter__(self):
        return iter(range(6))


class MyLoader(DataLoader):
    pass


class EvenOddBatches(BatchSampler):
    pass


def unchanged_cases():
    dataset = Squares(8)
    return {
        "iterable dataset": DataLoader(Stream(), batch_size=2),
        "custom batch sampler": DataLoader(dataset, batch_sampler=EvenOddBatches(SequentialSampler(dataset), 2, False)),
        "weighted sampler": DataLoader(dataset, sampler=WeightedRandomSampler([1.0] * 8, 8), batch_size=2),
        "subset sampler": DataLoader(dataset, sampler=SubsetRandomSampler([0, 1, 2]), batch_size=2),
        "with replacement": DataLoader(dataset, sampler=RandomSampler(dataset, replacement=True), batch_size=2),
        "fewer samples": DataLoader(dataset, sampler=RandomSampler(dataset, num_samples=4), batch_size=2),
        "other data source": DataLoader(dataset, sampler=SequentialSampler(range(3)), batch_size=2),
        "DataLoader subclass": MyLoader(dataset, batch_size=2, shuffle=True),
        "not a DataLoader": [(torch.zeros(2), torch.zeros(2))],
    }


@pytest.mark.parametrize("case", list(unchanged_cases()))
def test_loaders_it_cannot_rebuild_are_returned_unchanged(case):
    loader = unchanged_cases()[case]
    assert prepare_loader(loader, seed=0, rank=0, world_size=1) is loader


def test_a_whole_float_count_is_taken_as_its_int_like_at_every_other_door():
    sampler = ResumableSampler(10.0, shuffle=False, seed=0.0, world_size=2.0, rank=1.0)
    assert (sampler.num_items, sampler.world_size, len(sampler), list(sampler)) == (10, 2, 5, [1, 3, 5, 7, 9])
    assert type(sampler.num_items) is int


def test_prepare_loader_checks_seed():
    with pytest.raises(ValueError, match="seed=None must be an integer"):
        prepare_loader(DataLoader(Squares(2)), seed=None, rank=0, world_size=1)


# --------------------------------------------------------------------------------------------
# count_samples
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "batch, expected",
    [
        (torch.zeros(8, 3), 8),
        (torch.zeros(5), 5),
        ((torch.zeros(4, 2), torch.zeros(4)), 4),
        ([torch.zeros(6, 2), torch.zeros(6)], 6),
        ({"input_ids": torch.zeros(3, 128), "labels": torch.zeros(3)}, 3),
        ({"meta": ["a", "b"], "x": {"ids": (torch.tensor(1.0), torch.zeros(7, 2))}}, 7),
        ((torch.tensor(3.0), torch.zeros(2, 9)), 2),  # a 0-d tensor has no batch dimension
        ([np.zeros((5, 2))], 5),
        ((torch.zeros(0, 4), torch.zeros(0)), 0),
    ],
)
def test_count_samples(batch, expected):
    assert count_samples(batch) == expected


@pytest.mark.parametrize(
    "batch, described",
    [
        ([1, 2, 3], r"a list of 3 items: \['int', 'int', 'int'\]"),
        ({"text": "hello"}, r"a dict with keys \['text'\]"),
        ("hello", r"a builtins.str"),
        (torch.tensor(2.0), r"a 0-d tensor"),
        ((), r"a tuple of 0 items"),
    ],
)
def test_count_samples_error_describes_the_batch(batch, described):
    with pytest.raises(
        ValueError, match=rf"count_samples found no tensor with a batch dimension in the batch \({described}"
    ):
        count_samples(batch)


# --------------------------------------------------------------------------------------------
# skip_batches
# --------------------------------------------------------------------------------------------


def test_skip_batches_consumes_and_returns_the_iterator():
    loader = DataLoader(Stream(), batch_size=2)
    iterator = skip_batches(iter(loader), 1)
    assert [b.tolist() for b in iterator] == [[2, 3], [4, 5]]
    assert list(skip_batches([1, 2, 3], 0)) == [1, 2, 3]  # any iterable
    assert list(skip_batches(iter([1, 2, 3]), 3)) == []


def test_skip_batches_running_out_is_an_error():
    with pytest.raises(ValueError, match=r"cannot skip n=5 batches on resume: the loader ran out after 3"):
        skip_batches(iter([1, 2, 3]), 5)
    with pytest.raises(ValueError, match="n=-1"):
        skip_batches([1], -1)


def test_module_docstring_examples_run():
    result = doctest.testmod(data_module)
    assert result.failed == 0 and result.attempted > 0
