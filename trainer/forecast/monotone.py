r"""The lr curve after the warmup that minimizes a fitted law's final loss: free, monotone non-increasing, as
Luo et al. (2025, arXiv 2503.12811) optimize it under the multi-power law (docs/forecast.md, "Recommend").

The curve is a multiplier :math:`v(x)` of the peak lr over the fraction :math:`x` of the run, linear between
:data:`KNOTS` + 1 evenly spaced knots from the warmup's end (the first knot) to the run's end (the last),
the warmup itself kept as it is. Monotone by construction: the knot values are running products

.. math:: v_i = \prod_{j \le i} r_j, \qquad r_j = (1 - \epsilon)\,\sigma(z_j) \in (0, 1)

of free :math:`z_j`, minimized by L-BFGS from two starts (the run's own curve, and the peak held to the end),
the best kept. The loss minimized is the law's final loss (:meth:`~trainer.forecast.laws.MultiPowerLaw.loss`),
with gradients through the areas, each decrease realized over the lr area trained after it (:func:`trained_loss`:
the annealing law reads its delay in updates, and would credit waiting at lr 0, where nothing trains).
:func:`simplest_curve` then finds the curve of fewest linear pieces whose final
loss is within :data:`WITHIN` of that optimum (a law fitted on noisy points cannot tell such curves apart),
so that the schedule written out (a ``Sequence`` of linear pieces) is short and smooth; that schedule, not
the free curve, is what ``cadence forecast --optimize`` forecasts and recommends.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import attrs
import torch

from trainer.forecast.fitted import FittedLaw
from trainer.forecast.laws import AnnealingLaw, LrAreas, decreases, warmup_updates

__all__ = [
    "KNOTS",
    "TOLERANCE",
    "TOLERANCES",
    "WITHIN",
    "Knots",
    "best_curve",
    "final_loss",
    "simplest_curve",
    "simplify",
    "trained_loss",
]

#: the knots of the free curve after the warmup
KNOTS = 40
#: how far (a multiplier of the peak) the schedule written out may stray from the free curve
TOLERANCE = 0.01
#: the simplifications tried by :func:`simplest_curve` (multipliers of the peak)
TOLERANCES = (0.02, 0.05, 0.1, 0.2, 0.5)
#: how much (relative) the final loss may rise for a curve of fewer pieces: far below what a fit resolves
WITHIN = 1e-4
#: keeps every ratio of consecutive knots below 1, so that every update after the warmup decreases the lr a
#: little and the law's gradient reaches it (an lr that does not change is not a decrease the law sees)
_EPSILON = 1e-9


@attrs.frozen
class Knots:
    """A piecewise-linear multiplier of the peak lr: ``values[i]`` at the fraction ``positions[i]`` of the run,
    linear between them; the first at the warmup's end, the last at the run's end (1.0); non-increasing.

    Args:
        positions: The knots' fractions of the run, increasing.
        values: The multipliers of the peak lr at them.

    Returns:
        The curve; :meth:`at` evaluates it.

    >>> Knots((0.1, 1.0), (1.0, 0.5)).values[-1]
    0.5
    """

    positions: tuple[float, ...]
    values: tuple[float, ...]

    def at(self, x: torch.Tensor) -> torch.Tensor:
        """The multiplier at the fractions ``x`` of the run (held before the first knot and after the last).

        Args:
            x: Fractions of the run (float64 for exact positions).

        Returns:
            The multipliers, a float64 tensor like ``x``.

        >>> Knots((0.1, 0.5, 1.0), (1.0, 1.0, 0.2)).at(torch.tensor([0.0, 0.3, 0.75, 1.0])).tolist()
        [1.0, 1.0, 0.6, 0.2]
        """
        values = torch.tensor(self.values, dtype=torch.float64)
        return _interpolation(torch.tensor(self.positions, dtype=torch.float64), torch.as_tensor(x)) @ values


def final_loss(law: FittedLaw) -> Callable[[torch.Tensor], torch.Tensor]:
    """The law's loss after the last update of a run whose updates train with ``lrs`` (normalized by the law's
    ``lr_scale``), differentiable in ``lrs`` wherever the lr decreases.

    Args:
        law: A fitted law (either law; the annealing law's fixed momentum is taken as its closed form).

    Returns:
        A function of the normalized lrs (a float64 tensor) giving the final loss (a 0-d tensor).

    >>> from trainer.forecast.laws import MultiPowerLaw
    >>> p = {"L0": 2.0, "A": 1.0, "alpha": 0.5, "B": 0.5, "C": 1.0, "beta": 0.5, "gamma": 0.5}
    >>> law = FittedLaw(MultiPowerLaw(), p, 1.0, 0.0, 0.0, 0, "eval/loss", "lr/group0")
    >>> final = final_loss(law)
    >>> bool(final(torch.tensor([1.0] * 8 + [0.5] * 2)) < final(torch.tensor([1.0] * 10)))  # the drop helps
    True
    """
    shape, p = law.law, law.tensors()
    if isinstance(shape, AnnealingLaw) and shape.decay is not None:  # S_2 by the closed form: differentiable
        delay = max(shape.decay, 1e-12) / (1 - shape.decay)
        shape, p = AnnealingLaw(None), {**p, "delay": torch.tensor(delay, dtype=torch.float64)}

    def final(lrs: torch.Tensor) -> torch.Tensor:
        zero = lrs.new_zeros(1)
        areas = LrAreas(lrs, torch.cat([zero, torch.cumsum(lrs, 0)]), lrs.new_zeros(len(lrs) + 1), decreases(lrs))
        return shape.loss(p, shape.at(areas, torch.tensor([len(lrs)])))[0]

    return final


def trained_loss(law: FittedLaw) -> Callable[[torch.Tensor], torch.Tensor]:
    r"""What the curve is optimized for: the law's final loss (:func:`final_loss`), except that the annealing law's
    decreases are realized over the lr area trained after them, not over updates: an update at lr 0 trains
    nothing, so it realizes nothing (docs/forecast.md, "Recommend"). With :math:`a_j = \sum_{	au=j}^{n} \eta_	au`
    (normalized; :math:`n - j + 1` at the peak lr, where the two agree),

    .. math:: S_2(n) = (1 + 	ext{delay}) \sum_j \Delta_j igl(1 - \lambda^{a_j}igr)

    Read with update ages, the law credits a decrease after its delay whether or not anything trains, and its
    optimum drops to 0 early and waits (on the bench, 9–21% of the run at lr 0, which lost 1.4–4.2%). The
    multi-power law counts its decreases by the area after them already: its objective is its final loss.

    Args:
        law: A fitted law.

    Returns:
        A function of the normalized lrs (a float64 tensor) giving the loss to minimize (a 0-d tensor).

    >>> p = {"L0": 2.0, "A": 1.0, "alpha": 0.5, "C": 0.05, "delay": 4.0}
    >>> law = FittedLaw(AnnealingLaw(), p, 1.0, 0.0, 0.0, 0, "eval/loss", "lr/group0")
    >>> waits, trains = torch.tensor([1.0] * 6 + [0.0] * 4), torch.tensor([1.0] * 6 + [0.5] * 4)
    >>> own, trained = final_loss(law), trained_loss(law)
    >>> bool(own(waits) < own(trains)), bool(trained(waits) > trained(trains))  # waiting at lr 0 pays, by updates
    (True, True)
    """
    if not isinstance(law.law, AnnealingLaw):
        return final_loss(law)
    p = law.tensors()
    delay = p["delay"] if law.law.decay is None else torch.tensor(max(law.law.decay, 1e-12) / (1 - law.law.decay))
    log_decay = torch.log(delay) - torch.log1p(delay)
    fixed = AnnealingLaw(0.5)  # its loss reads (S1, S2) as given: S2 is the one built here

    def trained(lrs: torch.Tensor) -> torch.Tensor:
        after = torch.flip(torch.cumsum(torch.flip(lrs, [0]), 0), [0])  # a_j: the area from update j to the end
        s2 = (1 + delay) * (decreases(lrs) * (1 - torch.exp(after * log_decay))).sum()
        return fixed.loss(p, (lrs.sum().reshape(1), s2.reshape(1)))[0]

    return trained


def best_curve(law: FittedLaw, lrs: torch.Tensor, positions: torch.Tensor, knots: int = KNOTS) -> Knots:
    r"""The monotone curve after the warmup that minimizes the law's final loss (see the module docstring).

    Args:
        law: The fitted law.
        lrs: The lr of each update of the run to improve (its warmup is kept; its peak is the curve's 1.0).
        positions: The fraction of the run at the start of each update (0 for the first), increasing.
        knots: The knots of the curve after the warmup, >= 1.

    Returns:
        The :class:`Knots` of the best curve found, ``knots`` + 1 of them.

    Raises:
        ValueError: ``lrs`` and ``positions`` differ in length, or the run has no update after its warmup.

    >>> from trainer.forecast.laws import MultiPowerLaw
    >>> p = {"L0": 2.0, "A": 1.0, "alpha": 0.5, "B": 0.5, "C": 1.0, "beta": 0.5, "gamma": 0.5}
    >>> law = FittedLaw(MultiPowerLaw(), p, 1.0, 0.0, 0.0, 0, "eval/loss", "lr/group0")
    >>> lrs = torch.tensor([0.5] + [1.0] * 99, dtype=torch.float64)
    >>> curve = best_curve(law, lrs, torch.arange(100) / 100, knots=10)
    >>> curve.values[-1] < curve.values[0] == max(curve.values)  # it decays, and never rises
    True
    """
    lrs, positions, warmup = _checked(lrs, positions)
    grid = torch.linspace(float(positions[warmup]), 1.0, knots + 1, dtype=torch.float64)
    peak = float(lrs.max())
    own = tuple((lrs[warmup:] / peak).tolist())  # the run's own curve: a start
    starts = [_logits(own, positions[warmup:], grid), torch.full((knots + 1,), 20.0, dtype=torch.float64)]
    return _best_at(law, lrs, positions, grid, starts)[0]


def simplest_curve(
    law: FittedLaw, lrs: torch.Tensor, positions: torch.Tensor, curve: Knots, within: float = WITHIN
) -> Knots:
    r"""The curve of fewest pieces whose final loss is within ``within`` (relative) of ``curve``'s: ``curve``
    simplified (:func:`simplify`) at each of :data:`TOLERANCES`, its kept knots' values optimized again under the
    law; ``curve`` simplified at :data:`TOLERANCE` when none is close enough. A law fitted to noisy points cannot
    tell curves this close apart, and the fewer pieces, the less the schedule depends on its quirks (a free
    optimum may hold steps the law barely prefers).

    Args:
        law: The fitted law.
        lrs: The lr of each update of the run (its warmup and peak are kept), as :func:`best_curve` takes it.
        positions: The fraction of the run at the start of each update.
        curve: The curve to simplify (from :func:`best_curve`, on the same run).
        within: The largest relative rise of the final loss accepted for fewer pieces (>= 0).

    Returns:
        The simplest curve found.

    >>> from trainer.forecast.laws import MultiPowerLaw
    >>> p = {"L0": 2.0, "A": 1.0, "alpha": 0.5, "B": 0.5, "C": 1.0, "beta": 0.5, "gamma": 0.5}
    >>> law = FittedLaw(MultiPowerLaw(), p, 1.0, 0.0, 0.0, 0, "eval/loss", "lr/group0")
    >>> lrs, positions = torch.tensor([0.5] + [1.0] * 99, dtype=torch.float64), torch.arange(100) / 100
    >>> free = best_curve(law, lrs, positions, knots=10)
    >>> len(simplest_curve(law, lrs, positions, free).values) <= len(simplify(free).values)
    True
    """
    lrs, positions, _ = _checked(lrs, positions)
    goal = _loss_of(law, lrs, positions, curve) * (1 + within)
    chosen = simplify(curve)
    for tolerance in TOLERANCES:
        fewer = simplify(curve, tolerance)
        grid = torch.tensor(fewer.positions, dtype=torch.float64)
        refit, value = _best_at(law, lrs, positions, grid, [_logits(fewer.values, grid, grid)])
        if value <= goal and len(refit.values) <= len(chosen.values):
            chosen = refit
    return chosen


def _checked(lrs, positions) -> tuple[torch.Tensor, torch.Tensor, int]:
    """The lrs and positions as float64 tensors, and the warmup's updates; a ValueError for a run with no curve."""
    lrs = torch.as_tensor(lrs, dtype=torch.float64)
    positions = torch.as_tensor(positions, dtype=torch.float64)
    if len(lrs) != len(positions):
        raise ValueError(f"{len(lrs)} lrs but {len(positions)} positions: give one position per update")
    warmup = warmup_updates(lrs)
    if warmup >= len(lrs) - 1 or not float(lrs.max()) > 0:
        raise ValueError("the run has no update after its warmup ends at a peak lr > 0: there is no curve to choose")
    return lrs, positions, warmup


def _objective(law: FittedLaw, lrs: torch.Tensor, positions: torch.Tensor, grid: torch.Tensor):
    """The final loss of the run whose lr after the warmup follows the knot values at ``grid``."""
    warmup, peak = warmup_updates(lrs), float(lrs.max())
    spread = _interpolation(grid, positions[warmup:])
    head, scale, final = lrs[:warmup] / peak, peak / law.lr_scale, trained_loss(law)
    return lambda values: final(torch.cat([head, spread @ values]) * scale)


def _loss_of(law: FittedLaw, lrs: torch.Tensor, positions: torch.Tensor, curve: Knots) -> float:
    grid = torch.tensor(curve.positions, dtype=torch.float64)
    with torch.no_grad():
        return float(_objective(law, lrs, positions, grid)(torch.tensor(curve.values, dtype=torch.float64)))


def _best_at(law: FittedLaw, lrs, positions, grid: torch.Tensor, starts: list) -> tuple[Knots, float]:
    """The best monotone knot values at ``grid`` from each of ``starts`` (logits), and their final loss."""
    objective = _objective(law, lrs, positions, grid)

    def loss(z: torch.Tensor) -> torch.Tensor:
        return objective(torch.cumprod((1 - _EPSILON) * torch.sigmoid(z), 0))

    best, value = min((_minimize(loss, start) for start in starts), key=lambda found: found[1])
    values = torch.cumprod((1 - _EPSILON) * torch.sigmoid(best), 0)
    return Knots(tuple(grid.tolist()), tuple(values.tolist())), value


def _logits(own: tuple[float, ...], positions: torch.Tensor, grid: torch.Tensor) -> torch.Tensor:
    """The :math:`z` that give the run's own curve (sampled at the knots) as a start."""
    at_knots = torch.tensor(own, dtype=torch.float64)[torch.searchsorted(positions, grid).clamp(max=len(own) - 1)]
    at_knots = torch.cummin(at_knots.clamp(min=1e-6), 0).values
    ratios = (at_knots / torch.cat([at_knots.new_ones(1), at_knots[:-1]])).clamp(1e-6, 1 - 1e-6)
    return torch.log(ratios) - torch.log1p(-ratios)


def _minimize(loss: Callable[[torch.Tensor], torch.Tensor], start: torch.Tensor) -> tuple[torch.Tensor, float]:
    """L-BFGS on ``loss`` from ``start``: the point reached and its loss (inf when it is not finite)."""
    z = start.clone().requires_grad_(True)
    optimizer = torch.optim.LBFGS(
        [z], lr=1.0, max_iter=500, tolerance_grad=1e-12, tolerance_change=1e-14, line_search_fn="strong_wolfe"
    )

    def closure() -> torch.Tensor:
        optimizer.zero_grad()
        value = loss(z)
        value.backward()
        return value

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a few hundred numbers: more threads only add synchronisation
    try:
        optimizer.step(closure)
    except RuntimeError:  # pragma: no cover - a degenerate line search
        return start, math.inf
    finally:
        torch.set_num_threads(threads)
    with torch.no_grad():
        value = float(loss(z))
    return z.detach(), value if math.isfinite(value) else math.inf


def _interpolation(grid: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """The (len(x) × len(grid)) matrix that interpolates values at ``grid`` linearly at ``x`` (held outside)."""
    grid, x = grid.to(torch.float64), x.to(torch.float64).clamp(float(grid[0]), float(grid[-1]))
    if len(grid) == 1:
        return torch.ones(len(x), 1, dtype=torch.float64)
    right = torch.searchsorted(grid, x, right=True).clamp(1, len(grid) - 1)
    left = right - 1
    width = grid[right] - grid[left]
    weight = ((x - grid[left]) / width).clamp(0.0, 1.0)
    matrix = torch.zeros(len(x), len(grid), dtype=torch.float64)
    rows = torch.arange(len(x))
    matrix[rows, left] = 1 - weight
    matrix[rows, right] += weight
    return matrix


def simplify(curve: Knots, tolerance: float = TOLERANCE) -> Knots:
    """The fewest of ``curve``'s knots (its first and last always) whose piecewise-linear curve stays within
    ``tolerance`` of it at every knot (Douglas–Peucker): a stable phase becomes one piece.

    Args:
        curve: The knots.
        tolerance: The largest distance allowed, a multiplier of the peak lr (>= 0).

    Returns:
        The kept knots, in order; still non-increasing when ``curve`` is.

    >>> simplify(Knots((0.0, 0.25, 0.5, 0.75, 1.0), (1.0, 1.0, 1.0, 0.5, 0.0))).positions
    (0.0, 0.5, 1.0)
    """
    positions, values = (torch.tensor(v, dtype=torch.float64) for v in (curve.positions, curve.values))
    keep, pending = {0, len(positions) - 1}, [(0, len(positions) - 1)]
    while pending:
        first, last = pending.pop()
        if last - first < 2:
            continue
        inside = slice(first + 1, last)
        line = _interpolation(positions[[first, last]], positions[inside]) @ values[[first, last]]
        distance = (values[inside] - line).abs()
        worst = int(torch.argmax(distance))
        if float(distance[worst]) > tolerance:
            keep.add(first + 1 + worst)
            pending += [(first, first + 1 + worst), (first + 1 + worst, last)]
    kept = sorted(keep)
    return Knots(tuple(curve.positions[i] for i in kept), tuple(curve.values[i] for i in kept))
