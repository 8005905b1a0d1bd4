r"""The sums over the lr's decreases that the laws read, at a cost linear in the logged updates
(docs/forecast.md, "A long log: what a fit costs").

A law's loss after :math:`u` updates sums over every decrease :math:`\Delta_k` of the lr up to :math:`u`;
written out for every fitted point that is a (points × decreases) matrix, n × n for a cosine logged at every
update. Here each sum is taken only at the points asked for, in memory that grows linearly:

- **the annealing law's momentum** with a fitted decay, :math:`M(u) = \sum_{j \le u} \Delta_j \lambda^{u-j}`,
  exactly: the decreases between two consecutive points are summed into the later one
  (:func:`momentum_points`), then carried from point to point by the first-order recurrence
  :math:`M(u_i) = \lambda^{u_i - u_{i-1}} M(u_{i-1}) + \text{new}_i` (:func:`decayed_sums`, in blocks);
- **the multi-power law's sum** :math:`\sum_{k \le u} \Delta_k\, G(\eta_k^{-\gamma} (S_1(u) - S_1(k-1)))`
  over at most :data:`EXACT_DECREASES` decreases term by term (exact); over more (a cosine logged at every
  update), the decreases are merged (:func:`multi_power_terms`): those between the same two points, of the
  same sign and in the same share of the lr's total decrease (:data:`MERGED_PARTS` shares) form one term with
  their summed :math:`\Delta`, and their :math:`|\Delta|`-weighted mean start :math:`S_1(k-1)` and
  :math:`\log \eta_k`. A decrease larger than one share (a step decay) or to lr 0 stays its own term, exactly.
  A merged term's argument :math:`x` is the weighted mean of its decreases' (first-order exact); as
  :math:`0 \le G \le 1` is increasing, a merged term is within :math:`|\sum \Delta|\,(G(x_{max}) - G(x_{min}))
  \le \text{total decrease} / 256` of the exact sum of its decreases.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager

import attrs
import torch

__all__ = [
    "EXACT_DECREASES",
    "MERGED_PARTS",
    "decayed_sums",
    "momentum",
    "momentum_points",
    "multi_power_terms",
    "one_thread",
]

#: up to this many decreases of the lr, the multi-power law sums them term by term (exactly)
EXACT_DECREASES = 1024
#: beyond, decreases are merged within shares of 1/MERGED_PARTS of the lr's total decrease
MERGED_PARTS = 256
#: the block of the recurrence's scan (memory: points × BLOCK numbers)
BLOCK = 32
#: the points whose multi-power terms are built together
POINT_BLOCK = 64


def decayed_sums(log_ratios: torch.Tensor, inputs: torch.Tensor, block: int = BLOCK) -> torch.Tensor:
    r""":math:`y_i = e^{l_i}\, y_{i-1} + x_i` (:math:`y_{-1} = 0`) for every :math:`i`, differentiable, in
    :math:`O(n \cdot \text{block})` time and memory: within blocks of ``block`` values the weights
    :math:`e^{c_i - c_j}` (:math:`c` the cumulative :math:`l` of the block, :math:`j \le i`), across blocks the
    same recurrence on the blocks' last values (recursively).

    Args:
        log_ratios: :math:`l_i \le 0`, float64 (a ratio at most 1: no weight overflows).
        inputs: :math:`x_i`, like ``log_ratios``.
        block: The block size.

    Returns:
        :math:`y`, like ``inputs``.

    >>> decayed_sums(torch.log(torch.tensor([0.5, 0.5, 0.5])), torch.tensor([1.0, 1.0, 0.0]), block=2).tolist()
    [1.0, 1.5, 0.75]
    """
    n = len(inputs)
    pad = (-n) % block
    ratios = torch.cat([log_ratios, log_ratios.new_zeros(pad)]).view(-1, block)
    values = torch.cat([inputs, inputs.new_zeros(pad)]).view(-1, block)
    cumulative = torch.cumsum(ratios, dim=1)
    lower = torch.ones(block, block, dtype=torch.bool).tril()
    exponents = (cumulative.unsqueeze(2) - cumulative.unsqueeze(1)).masked_fill(~lower, -math.inf)
    local = (torch.exp(exponents) @ values.unsqueeze(2)).squeeze(2)
    if len(local) > 1:  # carry each block's end into the next: the same recurrence, block-fold shorter
        ends = decayed_sums(cumulative[:, -1], local[:, -1], block)
        carried = torch.cat([ends.new_zeros(1), ends[:-1]])
        local = local + torch.exp(cumulative) * carried.unsqueeze(1)
    return local.flatten()[:n]


def momentum_points(drops: torch.Tensor, updates: torch.Tensor) -> tuple[torch.Tensor, ...]:
    r"""What the momentum :math:`M(u) = \sum_{j \le u} \Delta_j \lambda^{u-j}` at each of ``updates`` depends on,
    for any :math:`\lambda` (:func:`momentum`): each decrease goes to the first point at or after it.

    Args:
        drops: :math:`\Delta_1, \dots, \Delta_n` (:func:`~trainer.forecast.laws.decreases`).
        updates: The update counts (>= 1, any order), int64.

    Returns:
        ``(total, terms, ages, slots, gaps, inverse)``: :math:`\sum_{j \le u} \Delta_j` at each point; the
        decreases :math:`\Delta_j \ne 0` up to the last point, the updates from each to its point
        (:math:`u - j`), its point (an index into the sorted points); the updates between consecutive sorted
        points; and where each point is among the sorted ones. O(n + points) numbers.

    >>> parts = momentum_points(torch.tensor([0.0, 0.0, 0.5, 0.0, 0.25], dtype=torch.float64), torch.tensor([5, 3]))
    >>> parts[0].tolist(), parts[3].tolist()  # the decreases up to 5 and 3; each decrease's (sorted) point
    ([0.75, 0.5], [0, 1])
    """
    order = torch.argsort(updates, stable=True)
    ordered = updates[order]
    js = drops.nonzero().flatten() + 1  # the update each decrease happens at
    slots = torch.searchsorted(ordered, js)  # the first point u >= j
    within = slots < len(ordered)
    js, slots = js[within], slots[within]
    ages = (ordered[slots] - js).to(torch.float64)
    gaps = torch.diff(ordered, prepend=ordered.new_zeros(1)).to(torch.float64)
    total = torch.cat([drops.new_zeros(1), torch.cumsum(drops, 0)])[updates]
    return total, drops[js - 1], ages, slots, gaps, torch.argsort(order)


def momentum(parts: tuple[torch.Tensor, ...], log_decay: torch.Tensor) -> torch.Tensor:
    r""":math:`M(u)` at each point of :func:`momentum_points` for :math:`\log \lambda` = ``log_decay``.

    Args:
        parts: What :func:`momentum_points` gave (its first item is not used).
        log_decay: :math:`\log \lambda < 0`, a float64 scalar (differentiable).

    Returns:
        :math:`M(u)` at each point, in the order the points were given.

    >>> parts = momentum_points(torch.tensor([0.0, 0.0, 0.5, 0.0, 0.25], dtype=torch.float64), torch.tensor([5, 3]))
    >>> momentum(parts, torch.tensor(math.log(0.5), dtype=torch.float64)).tolist()  # 0.5 / 4 + 0.25, 0.5
    [0.375, 0.5]
    """
    _, terms, ages, slots, gaps, inverse = parts
    new = torch.zeros(len(gaps), dtype=torch.float64).index_add(0, slots, terms * torch.exp(ages * log_decay))
    return decayed_sums(gaps * log_decay, new)[inverse]


@attrs.frozen
class _Decreases:
    r"""The decreases :math:`\Delta_k \ne 0` of an lr curve (in update order) and what merging them needs."""

    updates: torch.Tensor  # k, 1-based
    drops: torch.Tensor
    lrs: torch.Tensor  # eta_k
    starts: torch.Tensor  # S_1(k - 1)
    keys: torch.Tensor  # equal keys between the same two points merge
    alone: torch.Tensor  # kept exact: a step decay, a decrease to lr 0, or every one up to EXACT_DECREASES
    part: torch.Tensor  # the share of the total decrease each is in (nondecreasing)
    prefix: torch.Tensor  # (D + 1, 2, 4): cumulative (sum, weight, weight*start, weight*log lr) of the merged, by sign
    parts: torch.Tensor  # (MERGED_PARTS, 2, 4): the same sums over each share
    alone_at: torch.Tensor  # the indices of the decreases kept alone


def _decreases(s1: torch.Tensor, lrs: torch.Tensor, drops: torch.Tensor) -> _Decreases:
    ks = drops.nonzero().flatten()  # update k is index k - 1
    drop, lr, start = drops[ks], lrs[ks], s1[ks]
    count = len(ks)
    sizes = drop.detach().abs()
    share = float(sizes.sum()) / MERGED_PARTS
    if count <= EXACT_DECREASES:
        alone = torch.ones(count, dtype=torch.bool)
    else:
        alone = (sizes > share) | (lr.detach() <= 0)  # a step decay, or a decrease to lr 0: exact
    part = ((torch.cumsum(sizes, 0) - sizes) / max(share, 1e-300)).floor().to(torch.int64).clamp(max=MERGED_PARTS - 1)
    keys = torch.where(alone, 2 * MERGED_PARTS + torch.arange(count), 2 * part + (drop < 0).to(torch.int64))
    weight = drop.abs() * ~alone
    safe = torch.where(lr > 0, lr, torch.ones_like(lr))
    sums = torch.stack([drop * ~alone, weight, weight * start, weight * torch.log(safe)], dim=1)
    signed = torch.stack([sums * (drop > 0).unsqueeze(1), sums * (drop < 0).unsqueeze(1)], dim=1)
    prefix = torch.cat([signed.new_zeros(1, 2, 4), torch.cumsum(signed, 0)])
    bounds = torch.searchsorted(part, torch.arange(MERGED_PARTS + 1))
    parts = prefix[bounds[1:]] - prefix[bounds[:-1]]
    return _Decreases(ks + 1, drop, lr, start, keys, alone, part, prefix, parts, alone.nonzero().flatten())


def _merged(sums: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(drop, lr, start)`` of merged groups from their (sum, weight, weight*start, weight*log lr) rows (each
    weight > 0): the summed decrease, the weighted geometric mean lr and the weighted mean start."""
    return sums[:, 0], torch.exp(sums[:, 3] / sums[:, 1]), sums[:, 2] / sums[:, 1]


def _far_groups(d: _Decreases, far: int) -> tuple[torch.Tensor, ...]:
    """The groups of the first ``far`` decreases (before a block's first point), from the prefix sums: the shares
    wholly before, the share cut at ``far``, and each decrease kept alone; O(shares + alone) numbers."""
    if far == 0:
        return (d.drops[:0],) * 3
    share = int(d.part[far - 1])
    cut = d.prefix[far] - d.prefix[int(torch.searchsorted(d.part, share))]
    sums = torch.cat([d.parts[:share].reshape(-1, 4), cut]) if bool((~d.alone).any()) else d.prefix[:0, 0]
    sums = sums[sums[:, 1] > 0]
    single = d.alone_at[: int(torch.searchsorted(d.alone_at, far))]  # O(log n), not O(far), a block
    merged = _merged(sums)
    return tuple(torch.cat([a, b[single]]) for a, b in zip(merged, (d.drops, d.lrs, d.starts), strict=True))


def _near_groups(d: _Decreases, far: int, reach: int, points: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """The groups of decreases ``far .. reach - 1`` (within a block): merged by key between the same two points;
    with the first point (index in ``points``) each applies from."""
    chosen = slice(far, reach)
    keys, alone, drop = d.keys[chosen], d.alone[chosen], d.drops[chosen]
    gaps = torch.searchsorted(points, d.updates[chosen])  # the first point at or after each decrease
    width = int(keys.max()) + 1 if len(keys) else 1
    groups, member = torch.unique(gaps * width + keys, return_inverse=True)
    weight = drop.abs()
    safe = torch.where(d.lrs[chosen] > 0, d.lrs[chosen], torch.ones_like(weight))
    rows = torch.stack([drop, weight, weight * d.starts[chosen], weight * torch.log(safe)], dim=1)
    total, lr, start = _merged(rows.new_zeros(len(groups), 4).index_add(0, member, rows))
    first = torch.full((len(groups),), len(keys), dtype=torch.int64).scatter_reduce(
        0, member, torch.arange(len(keys)), "amin"
    )
    single = torch.zeros(len(groups), dtype=torch.bool).index_fill(0, member[alone], True)
    if len(keys):  # a decrease kept alone: exactly its own lr and start
        lr = torch.where(single, d.lrs[chosen][first], lr)
        start = torch.where(single, d.starts[chosen][first], start)
    return total, lr, start, groups // width


def multi_power_terms(
    s1: torch.Tensor, lrs: torch.Tensor, drops: torch.Tensor, updates: torch.Tensor
) -> tuple[torch.Tensor, ...]:
    r"""The terms of the multi-power law's sum at each of ``updates``: for each point, the decreases (merged as
    the module docstring says) up to it; O(n) once, then O(:data:`MERGED_PARTS` + decreases) a block of
    :data:`POINT_BLOCK` points.

    Args:
        s1: :math:`S_1(0), \dots, S_1(n)`.
        lrs: :math:`\eta_1, \dots, \eta_n`.
        drops: :math:`\Delta_1, \dots, \Delta_n`.
        updates: The update counts (>= 1, any order), int64.

    Returns:
        ``(point, drop, lr, since)``, one entry per term: the index of its point in ``updates``, its
        :math:`\Delta`, :math:`\eta` and area since, :math:`S_1(u) - S_1(k - 1)` (> 0 unless the lr is 0 from
        :math:`k` to :math:`u`). At most about points × (2 × :data:`MERGED_PARTS` + :data:`POINT_BLOCK`) terms
        beyond :data:`EXACT_DECREASES` decreases.

    >>> lrs = torch.tensor([1.0, 1.0, 0.5, 0.5], dtype=torch.float64)
    >>> s1 = torch.cat([lrs.new_zeros(1), torch.cumsum(lrs, 0)])
    >>> drops = torch.tensor([0.0, 0.0, 0.5, 0.0], dtype=torch.float64)
    >>> [t.tolist() for t in multi_power_terms(s1, lrs, drops, torch.tensor([4, 2]))]  # after 4: since 0.5 + 0.5
    [[0], [0.5], [0.5], [1.0]]
    """
    d = _decreases(s1, lrs, drops)
    order = torch.argsort(updates, stable=True)
    pieces = [_block_terms(s1, d, updates[block], block) for block in order.split(POINT_BLOCK)]
    return tuple(torch.cat(column) for column in zip(*pieces, strict=True)) if pieces else (updates,) + (s1[:0],) * 3


def _block_terms(s1: torch.Tensor, d: _Decreases, points: torch.Tensor, positions: torch.Tensor):
    """The terms of a block of sorted points (at ``positions`` of the updates): decreases up to the block's
    first point apply to all of it; each later one from the first point at or after it."""
    far = int(torch.searchsorted(d.updates, points[:1], right=True))
    reach = int(torch.searchsorted(d.updates, points[-1:], right=True))
    before = _far_groups(d, far)
    *near, gaps = _near_groups(d, far, reach, points)
    total, lr, start = (torch.cat([a, b]) for a, b in zip(before, near, strict=True))
    gaps = torch.cat([gaps.new_zeros(len(before[0])), gaps])
    point, group = (torch.arange(len(points)).unsqueeze(1) >= gaps.unsqueeze(0)).nonzero(as_tuple=True)
    return positions[point], total[group], lr[group], s1[points][point] - start[group]


@contextmanager
def one_thread() -> Iterator[None]:
    """Run the block with torch on one thread (restored after): the laws' tensors are a few thousand to a few
    hundred thousand numbers, where more threads only add synchronisation (5x to 60x slower on a busy machine).

    Returns:
        A context manager.

    >>> with one_thread():
    ...     torch.get_num_threads()
    1
    """
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
