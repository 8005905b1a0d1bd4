"""Turning a product of a count and a fraction into a whole count."""

from __future__ import annotations

__all__ = ["whole_count"]


def whole_count(x: float) -> int:
    r"""``x`` as a count: the nearest integer when within ``1e-9·max(1, |x|)`` of it, else ``trunc(x)``.

    Floating-point products such as ``0.29 * 100 = 28.999999999999996`` land a hair below the count they
    denote; Composer truncates them (28), Cadence takes the count meant (29). Anything farther from an
    integer is truncated toward zero, as ``int()`` does.

    Args:
        x: A count computed as a product (an int is returned as is).

    Returns:
        The whole count ``x`` denotes: :math:`\operatorname{round}(x)` if
        :math:`|x - \operatorname{round}(x)| \le 10^{-9} \max(1, |x|)`, else :math:`\operatorname{trunc}(x)`.

    >>> whole_count(0.29 * 100), whole_count(2.5), whole_count(-2.5), whole_count(7)
    (29, 2, -2, 7)
    """
    if isinstance(x, int):
        return x
    nearest = round(x)
    if abs(x - nearest) <= 1e-9 * max(1.0, abs(x)):
        return int(nearest)
    return int(x)
