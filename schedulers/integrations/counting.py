"""What the integrations count for a schedule in samples or tokens, shared by Lightning and Hugging Face.

Another trainer owns the loop, so Cadence counts what each optimizer step consumed from the batches it sees:
samples by default as the leading dimension of the batch's first tensor (or ``get_num_samples(batch)``),
tokens only through a ``get_num_tokens(batch)`` counter. Steps per epoch follow the client's rounding: an
epoch's last, partial accumulation still makes an optimizer step (docs/integrations.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import torch

from schedulers.core.base import FunctionSchedule, Schedule
from schedulers.core.run import Run
from timeunits import TimeUnit

__all__ = ["enable_counting", "first_dim", "samples_in", "steps_per_epoch", "tokens_in"]


def steps_per_epoch(batches: float | None, accumulate: int) -> int | None:
    """Optimizer steps in an epoch of ``batches`` loader batches: :math:`\\lceil b / a \\rceil` (None if unknown).

    >>> steps_per_epoch(25, 4)
    7
    """
    if batches is None or not math.isfinite(batches) or batches <= 0:
        return None
    return math.ceil(int(batches) / max(1, int(accumulate)))


def enable_counting(schedule: Callable[..., float], state: Any, ssr: float, counter: Any) -> None:
    """Turn on ``counter.count_samples`` when the run needs samples; a run in tokens without a counter is an error.

    ``state`` has ``max_duration`` and ``dataloader_len``; ``counter`` has ``count_samples`` (set here) and
    ``count_tokens`` (whether a token counter was given). A schedule without a closed form may read anything,
    so samples are counted for it.
    """
    units = {state.max_duration.unit}
    known = isinstance(schedule, Schedule) and not isinstance(schedule, FunctionSchedule)
    if known:
        units.add(schedule.curve(Run.of_state(state, ssr)).unit)  # the curve its steps will read
    if TimeUnit.TOKEN in units and not counter.count_tokens:
        where = f"max_duration={state.max_duration}" if state.max_duration.unit is TimeUnit.TOKEN else repr(schedule)
        raise ValueError(
            f"{where} counts tokens, but get_num_tokens is None (tokens would stay 0): pass get_num_tokens="
        )
    if TimeUnit.SAMPLE in units or not known:
        counter.count_samples = True


def samples_in(batch: Any, get_num_samples: Callable[[Any], Any] | None, *, who: str, factory: str) -> int:
    """The samples of ``batch``: ``get_num_samples(batch)``, else the leading dimension of its first tensor.

    ``who`` (the callback) and ``factory`` (the call that takes ``get_num_samples=``) name the way out of an error.
    """
    if get_num_samples is not None:
        return _checked("get_num_samples", get_num_samples(batch))
    found = first_dim(batch)
    if found is None:
        raise ValueError(
            f"{who} found no tensor with a batch dimension in a {type(batch).__name__} batch, and the schedule "
            f"counts samples: pass get_num_samples= to {factory}"
        )
    return found


def tokens_in(batch: Any, get_num_tokens: Callable[[Any], Any]) -> int:
    """The tokens of ``batch`` by the user's counter."""
    return _checked("get_num_tokens", get_num_tokens(batch))


def first_dim(value: Any) -> int | None:
    """The leading dimension of the first tensor in ``value`` (depth first through mappings and sequences)."""
    if isinstance(value, torch.Tensor):
        return int(value.shape[0]) if value.dim() > 0 else None
    if isinstance(value, Mapping):
        children = list(value.values())
    elif isinstance(value, (tuple, list)):
        children = value
    else:
        return None
    for child in children:
        found = first_dim(child)
        if found is not None:
            return found
    return None


def _checked(argument: str, value: Any) -> int:
    try:
        count = int(value)
    except (TypeError, ValueError):
        count = -1
    if count < 0 or (isinstance(value, float) and not value.is_integer()):
        raise ValueError(f"{argument} returned {value!r} for a batch; it must return a count >= 0")
    return count
