r"""A schedule expression as the run to forecast, without a trainer config (``cadence forecast LOG --schedule
EXPR --max-duration T``; docs/forecast.md, "Forecasting from another trainer's log").

The expression is the language of ``python -m schedulers plot`` (:func:`schedulers.tools.expressions.parse_schedule`)
and its lr curve is the plot's: :math:`\eta_k = \eta_{\text{peak}}\,\alpha_k`, with :math:`\alpha_k` the schedule
at every batch of the run (:func:`schedulers.core.evaluate.evaluate_run`, the one evaluation the plot, the
report and the trainer's preview share). ``max_duration`` is the run's own length (``1dur``); a budget is another
length (``0.5dur`` of it, ``600ba``) or a scale schedule ratio, as for a config: the schedule's ``dur`` times
scale with each run length, its absolute times stay.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import attrs
import torch

from schedulers.core.schedule import Schedule
from timeunits import Time
from trainer.forecast.errors import ForecastError
from trainer.sweep.plan import SSR, Budget, config_budgets

__all__ = ["ScheduleRecipe"]


@attrs.frozen
class ScheduleRecipe:
    """A schedule expression over a run of ``max_duration``, at a peak lr: the lr curve to forecast.

    Args:
        expression: A schedule expression (``"wsd('0ba', t_decay='0.2dur', alpha_f=0.1)"``).
        max_duration: The run's length (``ep``, ``ba``, ``sp`` or ``tok``): what ``1dur`` means.
        peak_lr: The lr the schedule's multipliers scale (``--lr``, or the log's largest lr).
        dataloader_len: Batches per epoch (for times in epochs); None: none.

    Returns:
        The recipe: :meth:`lrs` its lr at every batch of a budget's run, :meth:`plan` the budgets.

    Raises:
        ExpressionError: From :func:`~schedulers.tools.expressions.parse_schedule`, an expression that is not one.

    >>> recipe = ScheduleRecipe("StepScheduler('2ba', gamma=0.5)", Time(4, "ba"), 0.1)
    >>> recipe.lrs().tolist()
    [0.1, 0.1, 0.05, 0.05]
    """

    expression: str
    max_duration: Time
    peak_lr: float
    dataloader_len: int | None = None
    schedule: Schedule = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        from schedulers.tools.expressions import parse_schedule

        object.__setattr__(self, "schedule", parse_schedule(self.expression))

    def with_schedule(self, schedule: Schedule) -> ScheduleRecipe:
        """The recipe with another schedule (an ``--optimize`` candidate), the run and peak unchanged.

        Args:
            schedule: The schedule to forecast in place of the expression's.

        Returns:
            A recipe whose expression is ``schedule``'s call (its ``repr``).

        >>> from schedulers import CosineAnnealingScheduler
        >>> ScheduleRecipe("wsd('0ba')", Time(4, "ba"), 0.1).with_schedule(CosineAnnealingScheduler()).expression
        "CosineAnnealingScheduler(t_max='1.0dur', alpha_f=0.0)"
        """
        return attrs.evolve(self, expression=repr(schedule))

    def setting(self, text: str) -> ScheduleRecipe:
        """The recipe with one argument of its schedule set (a ``--grid`` value): ``KEY=VALUE``, the value a
        Python literal (``alpha_f=0.05``) or else a string (``t_decay=0.1dur``); the schedule checks it.

        Args:
            text: ``KEY=VALUE``.

        Returns:
            A recipe whose expression is the changed schedule's call (its ``repr``), the rest unchanged.

        Raises:
            ForecastError: ``KEY`` is not an argument of the schedule, or the schedule refuses the value.

        >>> recipe = ScheduleRecipe("wsd('0ba', t_decay='0.2dur')", Time(10, "ba"), 0.1).setting("t_decay=0.5dur")
        >>> recipe.expression.split(", ")[:2]
        ["WarmupStableDecayScheduler(t_warmup='0ba'", "t_decay='0.5dur'"]
        >>> [round(lr, 6) for lr in recipe.lrs().tolist()]
        [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.08, 0.06, 0.04, 0.02]
        """
        from schedulers.core.names import did_you_mean

        key, _, value = (part.strip() for part in text.partition("="))
        name = type(self.schedule).__name__
        arguments = [field.name for field in attrs.fields(type(self.schedule)) if field.init]
        if key not in arguments:
            raise ForecastError(
                f"--grid {key}: {name} has no argument {key!r}{did_you_mean(key, arguments, quote=True)} "
                f"(its arguments: {', '.join(arguments)})"
            )
        try:
            literal = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            literal = value  # a time string such as 0.1dur
        try:
            changed = attrs.evolve(self.schedule, **{key: literal})
        except (ValueError, TypeError) as error:
            raise ForecastError(f"--grid {key}={value}: {' '.join(str(error).split())}") from None
        return self.with_schedule(changed)

    def run(self, budget: Budget | None = None) -> Any:
        """The run a budget trains: the recipe's own (None), at a scale schedule ratio, or of another length.

        Args:
            budget: A :class:`~trainer.sweep.plan.Budget` (a run length or a ratio); None: ``max_duration``.

        Returns:
            The :class:`~schedulers.core.run.Run`, as the plot and the trainer take it.
        """
        from schedulers.core.run import as_run

        if budget is None:
            return as_run(self.max_duration, self.dataloader_len)
        if budget.kind == SSR:
            return as_run(self.max_duration, self.dataloader_len, scale_schedule_ratio=budget.value)
        return as_run(budget.value, self.dataloader_len)

    def lrs(self, budget: Budget | None = None) -> torch.Tensor:
        """The lr of every batch of a budget's run: ``peak_lr`` times the schedule's multiplier there.

        Args:
            budget: The budget (see :meth:`run`); None: the recipe's own run.

        Returns:
            A float64 tensor, one lr per batch (the values ``python -m schedulers plot EXPR --max-duration T
            --base-lr LR --csv`` prints).

        Raises:
            ValueError: The schedule's own checks for the run (a time in epochs without ``dataloader_len``, ...).
        """
        from schedulers.core.evaluate import evaluate_run

        try:
            alphas = evaluate_run(self.schedule, self.run(budget))
        except ValueError as error:
            hint = " (give --dataloader-len)" if "dataloader_len" in str(error) and self.dataloader_len is None else ""
            raise ForecastError(f"--schedule {self.expression!r}: {' '.join(str(error).split())}{hint}") from None
        return alphas.to(torch.float64) * self.peak_lr

    def plan(self, budgets: Sequence[Any] | None, ssr: Sequence[Any] | None) -> list[Budget]:
        """The budgets, resolved as a config's are against its horizon (:func:`~trainer.sweep.plan.config_budgets`).

        Args:
            budgets: Run lengths (``"0.5dur"`` of ``max_duration``, ``"600ba"``); None: see ``ssr``.
            ssr: Scale schedule ratios; None: none.

        Returns:
            One :class:`~trainer.sweep.plan.Budget` per length or ratio, smallest first.

        >>> recipe = ScheduleRecipe("cosine()", Time(400, "ba"), 0.1)
        >>> [budget.name for budget in recipe.plan(["0.5dur", "600ba"], None)]
        ['max_duration-200ba', 'max_duration-600ba']
        """
        horizon = SimpleNamespace(unscaled_max_duration=self.max_duration, dataloader_len=self.dataloader_len)
        return config_budgets(horizon, ssr=ssr, max_duration=budgets)
