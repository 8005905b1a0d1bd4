r"""What every Cadence scheduler does at a step: write :math:`s_g \cdot \alpha` into one key of its param groups.

:class:`GroupWriter` is the torch ``LRScheduler`` part shared by Cadence's two clocks (docs/architecture.md):

* :class:`~schedulers.core.compile.CompiledScheduler`: α is a Cadence schedule at the run's time (``state``);
* :class:`~schedulers.core.step_counting.StepCountingScheduler`: α is a closed form of its own count of
  ``step()`` calls (the Cerebras and SambaFlow front ends).

Each clock defines ``step()`` and :meth:`~GroupWriter.current_alpha`; the writer owns the param groups: which
are driven, each one's scale :math:`s_g`, and writing a float (or a 0-d tensor, in place, so a compiled
optimizer step keeps its graph).
"""

from __future__ import annotations

from typing import Any

import torch
from torch.optim.lr_scheduler import LRScheduler

__all__ = ["GroupWriter"]


class GroupWriter(LRScheduler):
    r"""Writes :math:`s_g \cdot \alpha` into ``hyperparameter`` of each driven param group :math:`g`.

    Not built directly: a clock subclasses it, sets up the groups with :meth:`_drive`, and says what α is now
    (:meth:`current_alpha`).

    Args:
        optimizer: torch's constructor argument; each clock has its own constructor and calls :meth:`_drive`.
        last_epoch: torch's constructor argument (the step count lives in the writer).

    Returns:
        The base class of Cadence's schedulers; its instances are theirs.

    >>> from schedulers.core.compile import CompiledScheduler
    >>> from schedulers.core.step_counting import StepCountingScheduler
    >>> issubclass(CompiledScheduler, GroupWriter), issubclass(StepCountingScheduler, GroupWriter)
    (True, True)
    """

    #: who this scheduler is in a message about what it heard (the trainer names it by its entries)
    listener_name: str = "a compiled schedule"

    def _drive(
        self, optimizer: torch.optim.Optimizer, hyperparameter: str, indices: list[int], scales: list[float]
    ) -> None:
        """Drive ``hyperparameter`` of the param groups ``indices``, group ``indices[i]`` scaled by ``scales[i]``."""
        self.optimizer = optimizer
        self.hyperparameter = hyperparameter
        self.param_groups = indices
        self.base_values = scales
        if hyperparameter == "lr":
            self.base_lrs = list(scales)  # what torch's own schedulers expose
        groups = optimizer.param_groups
        one_float = len(indices) == 1 and not isinstance(groups[indices[0]][hyperparameter], torch.Tensor)
        self._single = (indices[0], scales[0]) if one_float else None
        if not hasattr(self, "_count"):  # not self.__dict__: reading it once makes every attribute slower
            self._count = 0
        self._step_count = 1

    def current_alpha(self) -> float:
        """α now: the value each driven group's scale is multiplied by at the current step.

        Returns:
            The multiplier the clock gives for its current time or count.

        Raises:
            NotImplementedError: On the base class, which has no clock.
        """
        raise NotImplementedError(f"{type(self).__name__} must say what alpha is now (current_alpha)")

    def _apply(self, alpha: float | None = None) -> None:
        """Write ``scale · α`` into the driven groups; ``alpha`` defaults to α now."""
        if alpha is None:
            alpha = self.current_alpha()
        single = self._single
        if single is not None:  # the common case, kept to a few operations: one group, a float value
            index, scale = single
            # the groups looked up each time: an optimizer's load_state_dict replaces them
            self.optimizer.param_groups[index][self.hyperparameter] = value = scale * alpha
            self._written = value  # a number, not a list: one allocation less per step (see _last_lr)
            return
        groups, key = self.optimizer.param_groups, self.hyperparameter
        values = self._values(alpha)
        for index, value in zip(self.param_groups, values, strict=True):
            group = groups[index]
            if isinstance(group[key], torch.Tensor):
                group[key].fill_(value)  # in place: a compiled optimizer step keeps its graph
            else:
                group[key] = value
        self._written = values

    @property
    def _last_lr(self) -> list[Any]:
        """The values of the last write, one per driven group (torch's attribute), as a new list."""
        written = self._written
        return list(written) if isinstance(written, list) else [written]

    @_last_lr.setter
    def _last_lr(self, values: list[Any]) -> None:
        self._written = list(values)

    def _values(self, alpha: float) -> list[float]:
        return [scale * alpha for scale in self.base_values]

    @property
    def last_epoch(self) -> Any:
        """The number of ``step()`` calls since construction (torch's name for it)."""
        return self._count

    @last_epoch.setter
    def last_epoch(self, value: Any) -> None:
        self._set_count(int(value))

    def _set_count(self, count: int) -> None:
        self._count = count

    def get_lr(self) -> list[float]:
        """The values the next write would use (torch's protocol).

        Returns:
            One value per driven param group: ``scale · α`` at the current count or time.
        """
        return self._values(self.current_alpha())

    def get_last_lr(self) -> list[Any]:
        """The values written by the last construction, ``step()`` or ``load_state_dict()``.

        Returns:
            One value per driven param group, as last written.
        """
        return self._last_lr
