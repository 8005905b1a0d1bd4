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

from schedulers.core.run import Run
from schedulers.core.schedule import FunctionSchedule, Schedule
from timeunits import TimeUnit

__all__ = ["enable_counting", "first_dim", "samples_in", "steps_per_epoch", "tokens_in"]


def steps_per_epoch(batches: float | None, accumulate: int) -> int | None:
    """Optimizer steps in an epoch of ``batches`` loader batches: :math:`\\lceil b / a \\rceil`.

    Args:
        batches: The loader's batches per epoch :math:`b`; None, infinite or <= 0 when unknown.
        accumulate: Batches per optimizer step :math:`a` (gradient accumulation; below 1 counts as 1).

    Returns:
        The steps per epoch, the last step taking the leftover batches; None when ``batches`` is unknown.

    >>> steps_per_epoch(25, 4)
    7
    """
    if batches is None or not math.isfinite(batches) or batches <= 0:
        return None
    return math.ceil(int(batches) / max(1, int(accumulate)))


def enable_counting(schedule: Callable[..., float], state: Any, ssr: float, counter: Any) -> None:
    """Turn on ``counter.count_samples`` when the run needs samples; a run in tokens without a counter is an error.

    A schedule without a closed form may read anything, so samples are counted for it.

    Args:
        schedule: The schedule the integration drives.
        state: The run as the integration sees it (``max_duration``, ``dataloader_len``).
        ssr: The scale schedule ratio.
        counter: The integration's counter: ``count_samples`` is set here, ``count_tokens`` says whether the
            user gave a token counter.

    Raises:
        ValueError: The run or the schedule counts tokens and no token counter was given (naming
            ``get_num_tokens=``).

    >>> from types import SimpleNamespace
    >>> from schedulers import LinearScheduler, SchedulerState
    >>> counter = SimpleNamespace(count_samples=False, count_tokens=False)
    >>> enable_counting(LinearScheduler(t_max="640sp"), SchedulerState("10ba"), 1.0, counter)
    >>> counter.count_samples
    True
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

    Args:
        batch: One loader batch (tensors, possibly in mappings and sequences).
        get_num_samples: The user's counter, or None to read the batch's first tensor.
        who: The callback, as an error names it.
        factory: The call that takes ``get_num_samples=``, as an error names it (the way out).

    Returns:
        The count, a whole number >= 0.

    Raises:
        ValueError: The counter gave no whole count >= 0, or the batch holds no tensor with a batch dimension.

    >>> import torch
    >>> samples_in({"x": torch.zeros(8, 3)}, None, who="CadenceCallback", factory="lightning_scheduler_config")
    8
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
    """The tokens of ``batch`` by the user's counter.

    Args:
        batch: One loader batch.
        get_num_tokens: The user's counter of a batch's tokens.

    Returns:
        The count, a whole number >= 0.

    Raises:
        ValueError: The counter gave no whole count >= 0.

    >>> tokens_in([[1, 2, 3], [4, 5]], lambda batch: sum(map(len, batch)))
    5
    """
    return _checked("get_num_tokens", get_num_tokens(batch))


def first_dim(value: Any) -> int | None:
    """The leading dimension of the first tensor in ``value`` (depth first through mappings and sequences).

    Args:
        value: A tensor, or mappings and sequences holding tensors.

    Returns:
        The first tensor's ``shape[0]``; None when no tensor with a dimension is found.

    >>> import torch
    >>> first_dim(("ids", {"x": torch.zeros(4, 2)})), first_dim(torch.tensor(1.0))
    (4, None)
    """
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
