r"""A long log's loss points reduced to windows before a fit (docs/forecast.md, "A long log: what a fit costs").

A run logged at every update gives 10^4 to 10^6 loss points; the law is smooth over a few updates and each
point is noisy, so a fit reads window means instead: windows of consecutive updates, each at most
:math:`(u_{last} - u_{first} + 1) / 300` updates wide and at most 2% of the update it starts at (early, where
the loss curves most, they are short: :func:`window_bounds`), each window's mean loss :math:`\bar L` fitted at
its mean update (the law's curvature over a window biases its mean by under 1e-5, far below its noise); about
300 windows plus a few hundred early ones, whatever the length of the log. A run with at most 300 points is
fitted point by point, as before.

The noise of one logged point is measured inside the windows, from the differences of consecutive points
relative to their window's mean (a smooth curve hardly changes from one update to the next; noise does):

.. math:: \text{noise}^2 = \frac{\sum_w \sum_{i} (L_i - L_{i-1})^2 / \bar L_w^2}{2 \sum_w (n_w - 1)}

over the pairs of consecutive points of the same window.
"""

from __future__ import annotations

import math

import attrs
import torch

__all__ = ["FITTED_POINTS", "WINDOW_SHARE", "Windows", "window_bounds", "window_means"]

#: a run with more loss points than this is fitted on window means (about this many, and more early on)
FITTED_POINTS = 300
#: the most a window spans, as a fraction of the update it starts at (its mean's bias from the curvature of a
#: power law is about alpha (alpha + 1) / 24 times its square: under 1e-5)
WINDOW_SHARE = 0.02


@attrs.frozen
class Windows:
    """A run's loss points reduced to window means.

    Args:
        updates: Each window's mean update count, rounded (int64).
        losses: Each window's mean loss (float64).
        sizes: How many logged points each window holds (int64).
        noise: The relative scatter of one logged point, measured inside the windows (0 with one point each).

    Returns:
        What :func:`window_means` gives; the fit reads ``updates`` and ``losses``.

    >>> Windows(torch.tensor([2]), torch.tensor([3.0]), torch.tensor([4]), 0.01).reduced
    True
    """

    updates: torch.Tensor
    losses: torch.Tensor
    sizes: torch.Tensor
    noise: float

    @property
    def reduced(self) -> bool:
        """Whether some window holds more than one point.

        Returns:
            True when the points were averaged, False when each is its own window (the points as logged).
        """
        return bool((self.sizes > 1).any())


def window_bounds(first: int, last: int, most: int = FITTED_POINTS) -> torch.Tensor:
    r"""Where the windows over updates ``first..last`` start (and the last one ends): each spans at most
    :math:`(\text{last} - \text{first} + 1) / \text{most}` updates and at most :data:`WINDOW_SHARE` of the
    update it starts at, so that early, where the loss curves most, windows are short.

    Args:
        first: The first update with a point.
        last: The last update with a point.
        most: How many windows of equal width the run would be cut into.

    Returns:
        Increasing update counts, ``first`` first and ``last + 1`` last (int64); about ``most`` plus
        :math:`\log(\text{width} / (\text{share} \cdot \text{first})) / \text{share}` windows.

    >>> window_bounds(1, 1000, 10).tolist()[:6], window_bounds(1, 1000, 10).tolist()[-3:]
    ([1, 2, 3, 4, 5, 6], [979, 998, 1001])
    """
    width = max(math.ceil((last - first + 1) / most), 1)
    bounds = [first]
    while bounds[-1] <= last:
        bounds.append(min(bounds[-1] + max(1, min(width, int(WINDOW_SHARE * bounds[-1]))), last + 1))
    return torch.tensor(bounds, dtype=torch.int64)


def window_means(updates: torch.Tensor, losses: torch.Tensor, most: int = FITTED_POINTS) -> Windows:
    """The loss points ``(updates, losses)`` (in update order) averaged in the windows of :func:`window_bounds`
    when there are more than ``most``; O(N).

    Args:
        updates: The update count of each point (increasing), int64.
        losses: The loss of each point, float64.
        most: The most points fitted one by one (and the windows of equal width beyond).

    Returns:
        The :class:`Windows`: each point its own when there are at most ``most``.

    >>> losses = torch.tensor([4.0, 2.0, 3.0, 3.0, 2.0, 2.0], dtype=torch.float64)
    >>> w = window_means(torch.arange(101, 107), losses, 3)  # 2 updates a window: 2% of 101
    >>> w.updates.tolist(), w.losses.tolist(), w.sizes.tolist(), round(w.noise, 4)
    ([102, 104, 106], [3.0, 3.0, 2.0], [2, 2, 2], 0.2722)
    """
    if len(losses) <= most:
        window = torch.arange(len(losses))
    else:
        bounds = window_bounds(int(updates[0]), int(updates[-1]), most)
        found = torch.searchsorted(bounds, updates, right=True)  # nondecreasing: number the windows with points
        window = torch.cumsum(torch.cat([found.new_zeros(1), (found[1:] != found[:-1]).to(torch.int64)]), 0)
    count = int(window[-1]) + 1 if len(losses) else 0
    sizes = torch.bincount(window, minlength=count)
    means = torch.zeros(count, dtype=torch.float64).index_add(0, window, losses) / sizes
    centers = torch.zeros(count, dtype=torch.float64).index_add(0, window, updates.to(torch.float64)) / sizes
    relative = losses / means[window]
    same = window[1:] == window[:-1]
    steps = (relative[1:] - relative[:-1])[same]
    noise = float((steps.pow(2).mean() / 2).sqrt()) if len(steps) else 0.0
    return Windows(centers.round().to(torch.int64), means, sizes, noise)
