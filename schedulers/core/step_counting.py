r"""Cadence's second clock: a scheduler whose α is a closed form of its own count of ``step()`` calls.

The Cerebras and SambaFlow front ends count optimizer steps, as their originals do. After :math:`k` calls to
``step()`` (construction is the first, so :math:`k` is ``last_epoch``) a :class:`StepCountingScheduler` writes

.. math:: g[h] = s_g \cdot f(k)

into each driven param group :math:`g`, where :math:`f` is the front end's curve, resolved for the run (its step
counts in ``ep`` or ``dur`` read against the run's state, and scaled by the run's ratio) by the front end's
``curve_for(state, ssr)``. The count is also kept as a 0-d int64 tensor written in place, so a closed form
traced by ``torch.compile`` takes the step as an input: one graph serves every step (docs/cerebras.md).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import torch

from schedulers.core.group_writer import GroupWriter
from schedulers.core.run import Run
from schedulers.core.schedule_arguments import integer_argument, number_argument
from schedulers.core.state import ScheduleState

__all__ = ["StepCountingScheduler"]


class StepCountingScheduler(GroupWriter):
    """A scheduler that counts its own steps: the value after ``k`` calls to ``step()`` is ``scale · f(k)``.

    Not built directly: a front end subclasses it, sets ``self._curve`` (:math:`f`, a function of the step
    count taking a float) and calls :meth:`_start` with the groups it drives; :meth:`attach_state` asks the front
    end for the curve of a run with ``curve_for(state, ssr)``.

    Args:
        optimizer: torch's constructor argument; each front end has its own constructor and calls :meth:`_start`.
        last_epoch: torch's constructor argument (the count is set by :meth:`_start`).

    Returns:
        The base class of the Cerebras and SambaFlow schedulers.

    >>> import torch, schedulers.cerebras as cs
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> scheduler = cs.LinearLR(opt, 1.0, 0.0, total_iters=4)
    >>> isinstance(scheduler, StepCountingScheduler), scheduler.step(), opt.param_groups[0]["lr"]
    (True, None, 0.75)
    """

    #: the run's state and ratio the curve was resolved for (None: not attached to a run)
    state: ScheduleState | None = None
    ssr: float = 1.0
    run: Run | None = None

    def _start(
        self, optimizer: torch.optim.Optimizer, key: str, indices: list[int], scales: list[float], count: int
    ) -> None:
        """Drive the groups and hold the step count ``count`` (also as a tensor); writes nothing."""
        self._drive(optimizer, key, indices, scales)
        self._count = count
        tensor = torch.tensor(count, dtype=torch.int64)
        self._step_tensor, self._step_view = tensor, tensor.numpy()

    def _set_count(self, count: int) -> None:
        self._count = count
        self._step_view[()] = count

    def __getstate__(self) -> dict[str, Any]:
        return {key: value for key, value in self.__dict__.items() if key != "_step_view"}  # a view: made again

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._step_view = self._step_tensor.numpy()

    def current_alpha(self) -> float:
        """:math:`f(k)` at the current count :math:`k`.

        Returns:
            The curve's value at ``last_epoch``.
        """
        return self._curve(float(self._count))

    def step(self, epoch: int | None = None) -> None:
        """Count one step and write ``scale · f(k)`` (f evaluated before the count moves, so a step that raises
        is not counted).

        Args:
            epoch: The step to jump to (deprecated in torch, warned); None for the next step.

        Raises:
            ValueError: ``epoch`` is not a whole number >= 0.
        """
        if epoch is not None:
            self._jump(epoch)
            return
        count = self._count + 1
        alpha = self._curve(float(count))
        self._step_view[()] = count
        self._count = count
        self._step_count += 1
        self._apply(alpha)

    def _jump(self, epoch: int) -> None:
        warnings.warn(
            "passing a step to step() is deprecated (as in torch); call step() once per optimizer step",
            UserWarning,
            stacklevel=3,
        )
        alpha = self._curve(float(integer_argument("epoch", epoch, low=0)))
        self._set_count(int(epoch))
        self._step_count += 1
        self._apply(alpha)

    def attach_state(self, state: ScheduleState | None, ssr: float | Run = 1.0) -> StepCountingScheduler:
        """Resolve the curve for the run of ``state`` (its ``ep``/``dur`` step counts) scaled by ``ssr``, then
        write the value at the current count. The trainer calls this with its clock and its Run.

        Args:
            state: Anything with ``.max_duration``, ``.dataloader_len`` and ``.timestamp``.
            ssr: The scale schedule ratio, or the :class:`~schedulers.core.run.Run` ``state`` counts (its ratio
                is then the one kept, also over a ratio saved in a checkpoint).

        Returns:
            This scheduler, with the value at its count written.

        Raises:
            ValueError: A ratio the curve cannot take, or a step count the run cannot resolve (nothing has
                changed then).
        """
        run = ssr if isinstance(ssr, Run) else None
        ratio = run.ssr if run is not None else number_argument("ssr", ssr, low=0.0, low_open=True)
        self._curve = self.curve_for(state, ratio)  # before anything changes: a refused ratio changes nothing
        self.state, self.ssr, self.run = state, ratio, run
        self._apply()
        return self

    def get_last_lr(self) -> list[Any]:
        """The values written by the last construction, ``step()`` or ``load_state_dict()``, as torch's and
        Cerebras's schedulers give them.

        Returns:
            Every param group's value of the key (a tensor as a copy), driven or not.
        """
        key = self.hyperparameter
        return [g[key].clone() if isinstance(g[key], torch.Tensor) else g[key] for g in self.optimizer.param_groups]

    def curve_for(self, state: ScheduleState | None, ssr: float) -> Callable[[float], float]:
        """The front end's curve :math:`f` of the step count, for the run of ``state`` scaled by ``ssr``.

        Args:
            state: The run's state (None: no run attached).
            ssr: The scale schedule ratio.

        Returns:
            A function of the step count (a float) giving the value.

        Raises:
            NotImplementedError: On a class that does not define it.
        """
        raise NotImplementedError(f"{type(self).__name__} counts its steps, so it must define curve_for(state, ssr)")
