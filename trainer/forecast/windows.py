r"""A long log's loss points reduced to windows before a fit (docs/forecast.md, "A long log: what a fit costs").

A run logged at every update gives 10^4 to 10^6 loss points; the law is smooth over a few updates and each
point is noisy, so a fit reads :data:`FITTED_POINTS` window means per run instead: consecutive points in
windows of :math:`w = \lceil N / 500 \rceil`, each window's mean loss :math:`\bar L` fitted at its mean update
(the law's curvature over a window is far below the noise of its mean). A run with at most 500 points is
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

__all__ = ["FITTED_POINTS", "Windows", "window_means"]

#: the most loss points of one run a fit reads (more are averaged in windows)
FITTED_POINTS = 500


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


def window_means(updates: torch.Tensor, losses: torch.Tensor, most: int = FITTED_POINTS) -> Windows:
    """The loss points ``(updates, losses)`` (in update order) in at most ``most`` windows of consecutive points,
    all of :math:`\\lceil N / \\text{most} \\rceil` points but the last; O(N).

    Args:
        updates: The update count of each point (increasing), int64.
        losses: The loss of each point, float64.
        most: The most windows.

    Returns:
        The :class:`Windows`: each point its own when there are at most ``most``.

    >>> w = window_means(torch.arange(1, 7), torch.tensor([4.0, 2.0, 3.0, 3.0, 2.0, 2.0], dtype=torch.float64), 3)
    >>> w.updates.tolist(), w.losses.tolist(), w.sizes.tolist(), round(w.noise, 4)
    ([2, 4, 6], [3.0, 3.0, 2.0], [2, 2, 2], 0.2722)
    """
    width = max(math.ceil(len(losses) / most), 1)
    window = torch.arange(len(losses)) // width
    count = int(window[-1]) + 1 if len(losses) else 0
    sizes = torch.bincount(window, minlength=count)
    means = torch.zeros(count, dtype=torch.float64).index_add(0, window, losses) / sizes
    centers = torch.zeros(count, dtype=torch.float64).index_add(0, window, updates.to(torch.float64)) / sizes
    relative = losses / means[window]
    same = window[1:] == window[:-1]
    steps = (relative[1:] - relative[:-1])[same]
    noise = float((steps.pow(2).mean() / 2).sqrt()) if len(steps) else 0.0
    return Windows(centers.round().to(torch.int64), means, sizes, noise)
