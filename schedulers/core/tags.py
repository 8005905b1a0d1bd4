"""``param_group_tags``: which optimizer param groups a scheduler writes to.

A scheduler built with ``param_group_tags=None`` writes to every param group. With a tag (a str) or
tags (a list, tuple or set), it writes only to the groups whose ``"tags"`` entry (a str, or a list or
set of str) shares at least one tag with it, as in Cerebras 2.x.

>>> groups = [{"tags": "decay"}, {"tags": ["no_decay", "bias"]}, {}]
>>> [matches(normalize_tags(["bias"]), g) for g in groups]
[False, True, False]
"""

from __future__ import annotations

import torch

__all__ = ["group_tags", "matches", "normalize_tags", "targeted_groups"]


def normalize_tags(param_group_tags: object) -> frozenset[str] | None:
    """``param_group_tags`` as a frozenset of tags (None stays None); duplicates are an error, as in Cerebras.

    Args:
        param_group_tags: None (every group), a tag (str), or a non-empty list, tuple or set of tags.

    Returns:
        The tags as a frozenset, or None when ``param_group_tags`` is None.

    Raises:
        ValueError: ``param_group_tags`` is of another type, empty, holds a non-str, or repeats a tag.

    >>> sorted(normalize_tags(["bias", "norm"])), normalize_tags("bias"), normalize_tags(None)
    (['bias', 'norm'], frozenset({'bias'}), None)
    """
    if param_group_tags is None:
        return None
    if isinstance(param_group_tags, str):
        return frozenset((param_group_tags,))
    if isinstance(param_group_tags, (list, tuple, set, frozenset)):
        tags = list(param_group_tags)
        if not tags or not all(isinstance(tag, str) for tag in tags):
            raise ValueError(f"param_group_tags={param_group_tags!r} must be a tag (str) or a non-empty list of tags")
        if len(set(tags)) != len(tags):
            raise ValueError(f"param_group_tags={param_group_tags!r} contains duplicate values")
        return frozenset(tags)
    raise ValueError(f"param_group_tags={param_group_tags!r} must be None, a tag (str) or a list of tags")


def group_tags(group: dict) -> frozenset[str]:
    """The tags of one param group: its ``"tags"`` entry as a set (a str is one tag).

    Args:
        group: An optimizer param group (a dict), with or without a ``"tags"`` entry.

    Returns:
        Its tags as a frozenset, empty when the group has no ``"tags"``.

    >>> group_tags({"tags": "decay"}), group_tags({"lr": 0.1})
    (frozenset({'decay'}), frozenset())
    """
    tags = group.get("tags")
    if not tags:
        return frozenset()
    if isinstance(tags, str):
        return frozenset((tags,))
    return frozenset(tags)


def matches(tags: frozenset[str] | None, group: dict) -> bool:
    """Whether a scheduler with ``tags`` writes to ``group``.

    Args:
        tags: The scheduler's tags, as :func:`normalize_tags` gives them (None: every group).
        group: An optimizer param group.

    Returns:
        True when ``tags`` is None or shares a tag with the group's :func:`group_tags`.

    >>> matches(frozenset({"bias"}), {"tags": ["bias", "no_decay"]}), matches(frozenset({"bias"}), {})
    (True, False)
    """
    return tags is None or not tags.isdisjoint(group_tags(group))


def targeted_groups(optimizer: torch.optim.Optimizer, tags: frozenset[str] | None, owner: str) -> list[int]:
    """Indices of the param groups ``tags`` select; a ValueError naming ``owner`` when there are none.

    Args:
        optimizer: The optimizer whose ``param_groups`` are read.
        tags: The scheduler's tags, as :func:`normalize_tags` gives them (None: every group).
        owner: The scheduler's name, for the error.

    Returns:
        The indices in ``optimizer.param_groups`` of the groups :func:`matches` selects, in order.

    Raises:
        ValueError: No param group has any of ``tags`` (the message lists the groups' tags).

    >>> import torch
    >>> weight, bias = torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(2))
    >>> optimizer = torch.optim.SGD([{"params": [weight]}, {"params": [bias], "tags": "bias"}], lr=0.1)
    >>> targeted_groups(optimizer, frozenset({"bias"}), "LinearScheduler"), targeted_groups(optimizer, None, "x")
    ([1], [0, 1])
    """
    indices = [i for i, group in enumerate(optimizer.param_groups) if matches(tags, group)]
    if not indices:
        available = sorted(set().union(*(group_tags(group) for group in optimizer.param_groups)))
        raise ValueError(
            f"{owner} was given param_group_tags={sorted(tags)} but no param group of the optimizer has any of "
            f"them; tags of its param groups: {available or 'none'} (a group's tags are its 'tags' entry)"
        )
    return indices
