r"""SambaFlow's multiplier as a Cadence schedule: a linear warmup, then a cosine or linear decay, of the step.

With :math:`W` = ``num_warmup_steps``, :math:`T` = ``num_training_steps`` and :math:`r` = ``end_ratio``:

.. math::
    \alpha(k) = \begin{cases}
        k / W & k \le W \quad\text{(linear warmup from 0; skipped when } W = 0\text{)} \\
        r + (1 - r)\,d(p), \quad p = \min\!\left(\frac{k - W}{\max(1, T - W)}, 1\right) & k > W
    \end{cases}

- cosine: :math:`d(p) = \tfrac12\bigl(1 + \cos(2\pi c\,p)\bigr)` with :math:`c` = ``num_cycles``
  (Hugging Face's ``get_cosine_schedule_with_warmup``; :math:`c = 1/2` is one half-wave, 1 → r);
- linear (SambaFlow's "polynomial"): :math:`d(p) = 1 - p`;
- fixed: :math:`\alpha = 1`.

A SambaFlow step is a batch of the step-counting clock (:mod:`schedulers.core.torch_scheduler`): :math:`W` and
:math:`T` are counts of batches, resolved against a :class:`~schedulers.core.run.Run` like every Cadence time
(:meth:`Run.count <schedulers.core.run.Run.count>`, so a scale schedule ratio scales them by the one rule). The
curves are :func:`schedulers.core.kernels.warmup` (through :func:`~schedulers.core.composition.warmup_ramp`),
:func:`~schedulers.core.kernels.cosine_wave` and :func:`~schedulers.core.kernels.linear`. The front end that
writes it into param groups is :mod:`schedulers.sambaflow` (docs/sambaflow.md).

>>> alpha = SambaFlowLambda("cosine", num_warmup_steps=2, num_training_steps=6)
>>> [round(alpha(k), 4) for k in range(8)]
[0.0, 0.5, 1.0, 0.8536, 0.5, 0.1464, 0.0, 0.0]
>>> alpha.curve(Run("8ba", ssr=0.5)).times["num_training_steps"]
Time(3, TimeUnit.BATCH)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import attrs

from schedulers.core import kernels
from schedulers.core.composition import warmup_ramp
from schedulers.core.kernels import ops
from schedulers.core.run import Run
from schedulers.core.schedule import Curve, Schedule
from schedulers.core.schedule_arguments import (
    choice_argument,
    integer_argument,
    named_converter,
    number_argument,
    number_problem,
)
from timeunits import Time, TimeUnit

__all__ = ["KINDS", "SambaFlowLambda", "fraction_argument"]

#: the decays: ``"cosine"``, ``"linear"`` (SambaFlow's "polynomial") and ``"fixed"`` (α = 1)
KINDS = ("cosine", "linear", "fixed")


def fraction_argument(name: str, value: object) -> float:
    """A fraction of the peak lr: a number in [0, 1] (``end_ratio``; ``--end_lr_ratio`` of the SambaFlow flags).

    Args:
        name: The argument's name, which the error starts with.
        value: The value given (what is a number is :func:`timeunits.is_number`'s rule).

    Returns:
        The value as a float.

    Raises:
        ValueError: Not a number in [0, 1], naming ``name``.

    >>> fraction_argument("end_ratio", 1.5)
    Traceback (most recent call last):
    ...
    ValueError: end_ratio=1.5 must be a number in [0, 1] (a fraction of the peak lr)
    """
    if number_problem(value, low=0.0) is not None or not float(value) <= 1.0:
        raise ValueError(f"{name}={value!r} must be a number in [0, 1] (a fraction of the peak lr)")
    return float(value)


def _steps_run(ssr: float) -> Run:
    """A run whose counts of batches are the scheduler's steps, scaled by ``ssr`` (its length is never read)."""
    return Run(Time(1, TimeUnit.BATCH), ssr=ssr, scaled=True)


@attrs.frozen
class SambaFlowLambda(Schedule):
    """The multiplier α(step) of one SambaFlow schedule, a Cadence schedule of plain numbers.

    Called with a step (an int, a float, or a floating tensor for a whole run at once) it is the lambda torch's
    ``LambdaLR`` calls; called with a state it is any Cadence schedule (the schedule-call protocol). Its curve
    for a run (:meth:`~schedulers.core.schedule.Schedule.curve`) has its step counts resolved against the run.

    Args:
        kind: ``"cosine"``, ``"linear"`` (SambaFlow's "polynomial") or ``"fixed"`` (α = 1).
        num_warmup_steps: The steps of the linear warmup from 0 (a whole number >= 0).
        num_training_steps: The step the decay ends at (a whole number >= ``num_warmup_steps``).
        end_ratio: The multiplier the decay ends at, in [0, 1].
        num_cycles: The cosine periods over the decay (0.5: one half period).

    Returns:
        The multiplier: calling it with a step gives α at that step (a float, or a tensor for a tensor).

    Raises:
        ValueError: An unknown ``kind``, or a step count or ratio out of its range.

    >>> alpha = SambaFlowLambda("linear", num_warmup_steps=2, num_training_steps=6, end_ratio=0.5)
    >>> [alpha(k) for k in range(8)]
    [0.0, 0.5, 1.0, 0.875, 0.75, 0.625, 0.5, 0.5]
    """

    kind: str = attrs.field(converter=named_converter(choice_argument, choices=KINDS))
    num_warmup_steps: int = attrs.field(default=0, converter=named_converter(integer_argument, low=0))
    num_training_steps: int = attrs.field(default=0, converter=named_converter(integer_argument, low=0))
    end_ratio: float = attrs.field(default=0.0, converter=named_converter(fraction_argument))
    num_cycles: float = attrs.field(default=0.5, converter=named_converter(number_argument, low=0.0))
    #: the family the tools name a ``LambdaLR`` of these multipliers with (``schedulers.tools.stepped``)
    report_family: ClassVar[str] = "SambaFlow"

    def __attrs_post_init__(self) -> None:
        if self.num_warmup_steps > self.num_training_steps:
            raise ValueError(
                f"num_warmup_steps={self.num_warmup_steps} must not exceed num_training_steps={self.num_training_steps}"
            )

    def __call__(self, step: Any, ssr: float = 1.0) -> Any:
        """α after ``step`` optimizer steps (the lambda ``LambdaLR`` calls); given a state, α at its timestamp.

        Args:
            step: The step count (an int or float, or a tensor of them), or a state (``.timestamp``, ...).
            ssr: The scale schedule ratio, for a state.

        Returns:
            α at ``step``, a float for a number and a tensor of the same shape for a tensor.

        >>> SambaFlowLambda("linear", 10, 100)(5), SambaFlowLambda("linear", 10, 100)(55)
        (0.5, 0.5)
        """
        if hasattr(step, "timestamp"):
            return Schedule.__call__(self, step, ssr)
        return self.curve(_steps_run(1.0)).fn(float(step) if isinstance(step, int) else step)

    def scaled(self, ssr: float) -> SambaFlowLambda:
        """The same schedule with its step counts those of a run scaled by ``ssr`` (:meth:`Run.count
        <schedulers.core.run.Run.count>`: whole counts by deviation 2's rule, ``100 × 0.29`` is 29).

        A warmup may truncate to 0 (no warmup); a positive ``num_training_steps`` may not.

        Args:
            ssr: The scale schedule ratio, a finite number > 0.

        Returns:
            A new :class:`SambaFlowLambda` with both step counts scaled; this one is unchanged.

        Raises:
            ValueError: ``ssr`` is not a finite number > 0, or it scales a positive ``num_training_steps`` to 0.

        >>> SambaFlowLambda("linear", 10, 100).scaled(0.25)
        SambaFlowLambda(kind='linear', num_warmup_steps=2, num_training_steps=25, end_ratio=0.0, num_cycles=0.5)
        """
        return self._counted(_steps_run(number_argument("ssr", ssr, low=0.0, low_open=True)))

    def _counted(self, run: Run) -> SambaFlowLambda:
        """This schedule with its step counts resolved against ``run``."""
        if run.ssr == 1.0:
            return self
        warmup, training = (run.count(name, Time(getattr(self, name), TimeUnit.BATCH)).value for name in _COUNTS)
        if self.num_training_steps > 0 and training == 0:
            raise ValueError(
                f"num_training_steps={self.num_training_steps} scaled by ssr={run.ssr} truncates to 0; "
                "it must stay at least 1"
            )
        return attrs.evolve(self, num_warmup_steps=warmup, num_training_steps=training)

    def _resolve(self, run: Run) -> Curve:
        counted = self._counted(run)
        times = {name: Time(getattr(counted, name), TimeUnit.BATCH) for name in _COUNTS}
        return Curve(TimeUnit.BATCH, counted._closed_form(), times)

    def _closed_form(self) -> Callable[[Any], Any]:
        r"""α as one function of the step, composed of the kernels once: Cadence's warmup ramp (none when
        :math:`W = 0`) in front of the decay :math:`r + (1 - r)\,d(p)`. At :math:`k = W` the decay gives
        :math:`r + (1 - r) \cdot 1`, which is exactly 1.0 in floating point for any :math:`r \in [0, 1]`, the
        ramp's end."""
        if self.kind == "fixed":
            return lambda x: kernels.constant(x, 1.0)
        warmup, ratio, rate = self.num_warmup_steps, self.end_ratio, 2.0 * self.num_cycles
        linear = self.kind == "linear"
        span = max(1, self.num_training_steps - warmup)
        kernel = kernels.cosine if rate <= 1.0 else kernels.cosine_wave  # equal within one half-wave; cosine is cheaper

        def decay(x: Any) -> Any:
            p = ops(x).clamp((x - warmup) / span, 0.0, 1.0)
            return ratio + (1.0 - ratio) * (kernels.linear(p, 1.0, 0.0) if linear else kernel(rate * p))

        return warmup_ramp(warmup, 1.0, decay)


_COUNTS = ("num_warmup_steps", "num_training_steps")
