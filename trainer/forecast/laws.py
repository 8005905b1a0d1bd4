r"""Loss-curve laws: the loss after :math:`u` updates as a function of the learning rates of those updates.

The lr curve is read as the lr of each update, :math:`\eta_1, \dots, \eta_n` (update :math:`k` trains
batch :math:`k` with :math:`\eta_k`), divided by a reference lr :math:`\eta_{ref}` (the peak lr of the runs a
law was fitted on), so that the areas are counted in "updates at the peak lr" and one set of parameters
serves every schedule with that peak. Pure functions of float64 tensors; no training, no files.

**Forward area and annealing area** (Tissue et al., 2024, arXiv 2408.11029):

.. math::
    S_1(u) = \sum_{k=1}^{u} \eta_k, \qquad
    S_2(u) = \sum_{k=1}^{u} m_k, \quad m_k = \lambda\, m_{k-1} + \Delta_k, \quad m_0 = 0

with :math:`\Delta_k = \eta_{k-1} - \eta_k` the decrease of update :math:`k` once the warmup is over
(:math:`\Delta_k = 0` while the lr has not yet decreased: the warmup and a stable phase add nothing) and
:math:`\lambda` the decay of the momentum (0.999 in the paper). :math:`S_1` includes the warmup.

**The annealing law** (:class:`AnnealingLaw`, ibid.): :math:`L(u) = L_0 + A\,S_1(u)^{-\alpha} - C\,S_2(u)`.

**The multi-power law** (:class:`MultiPowerLaw`; Luo et al., 2025, arXiv 2503.12811):

.. math::
    L(u) = L_0 + A\,S_1(u)^{-\alpha} - B \sum_{k=1}^{u} \Delta_k\,
    G\!\left(\eta_k^{-\gamma} \textstyle\sum_{\tau=k}^{u} \eta_\tau\right), \qquad G(x) = 1 - (C x + 1)^{-\beta}

Every parameter is positive; the fit works on their logarithms (:mod:`trainer.forecast.fitting`).
"""

from __future__ import annotations

import attrs
import torch

from trainer.forecast.sums import momentum, momentum_points, multi_power_terms

__all__ = ["LAWS", "AnnealingLaw", "LrAreas", "MultiPowerLaw", "decreases", "law_named", "lr_areas", "warmup_updates"]


def decreases(lrs: torch.Tensor) -> torch.Tensor:
    r""":math:`\Delta_k = \eta_{k-1} - \eta_k` for each update, 0 before the lr first decreases (the warmup
    and a stable phase; :math:`\Delta_1 = 0`).

    Args:
        lrs: The lr of each update, :math:`\eta_1, \dots, \eta_n`.

    Returns:
        A tensor like ``lrs``: :math:`\Delta_k` from the first update whose lr is below the one before it on (an
        increase after it is a negative :math:`\Delta_k`), 0 before it; all 0 when the lr never decreases.

    >>> decreases(torch.tensor([0.5, 1.0, 1.0, 0.75, 0.5, 0.75])).tolist()
    [0.0, 0.0, 0.0, 0.25, 0.25, -0.25]
    """
    steps = torch.zeros_like(lrs)
    steps[1:] = lrs[:-1] - lrs[1:]
    falling = (steps > 0).nonzero()
    if len(falling) == 0:
        return torch.zeros_like(lrs)
    steps[: int(falling[0])] = 0.0  # the warmup's increases are not annealing
    return steps


def warmup_updates(lrs: torch.Tensor) -> int:
    """The updates before the lr first reaches its peak (the warmup): 0 without a warmup.

    Args:
        lrs: The lr of each update.

    Returns:
        How many updates come before the first one at the largest lr (its index); 0 for an empty curve.

    >>> warmup_updates(torch.tensor([0.0, 0.5, 1.0, 1.0, 0.5]))
    2
    """
    return int((lrs >= lrs.max()).nonzero()[0]) if len(lrs) else 0


@attrs.frozen
class LrAreas:
    r"""An lr curve (normalized) and its areas after :math:`u = 0, \dots, n` updates (index :math:`u`).

    Args:
        lrs: :math:`\eta_1, \dots, \eta_n`, the normalized lr of each update.
        s1: :math:`S_1(0), \dots, S_1(n)`, the forward area after each number of updates (:math:`n + 1` values).
        s2: :math:`S_2(0), \dots, S_2(n)`, the annealing area after each number of updates.
        drops: :math:`\Delta_1, \dots, \Delta_n` (:func:`decreases`).

    Returns:
        The areas a law reads its points from (:func:`lr_areas` makes it); float64 tensors.

    >>> areas = LrAreas(torch.tensor([1.0, 0.5]), torch.tensor([0.0, 1.0, 1.5]), torch.tensor([0.0, 0.0, 0.5]),
    ...                 torch.tensor([0.0, 0.5]))
    >>> areas.s1[2].item(), areas.s2[2].item()
    (1.5, 0.5)
    """

    lrs: torch.Tensor  # eta_1 .. eta_n
    s1: torch.Tensor  # S_1(0) .. S_1(n)
    s2: torch.Tensor  # S_2(0) .. S_2(n)
    drops: torch.Tensor = attrs.field(repr=False)  # Delta_1 .. Delta_n


def lr_areas(lrs: torch.Tensor, decay: float = 0.999) -> LrAreas:
    r"""The forward area :math:`S_1` and the annealing area :math:`S_2` (momentum ``decay`` :math:`\lambda`)
    after every number of updates, of the (normalized) lrs of updates :math:`1 \dots n`.

    Args:
        lrs: The normalized lr of each update, :math:`\eta_k / \eta_{ref}`.
        decay: :math:`\lambda`, the momentum of the annealing area, in [0, 1).

    Returns:
        The :class:`LrAreas` of the curve: :math:`S_1(u) = \sum_{k \le u} \eta_k` and
        :math:`S_2(u) = \sum_{k \le u} m_k` with :math:`m_k = \lambda m_{k-1} + \Delta_k`, for
        :math:`u = 0, \dots, n` (both 0 at :math:`u = 0`), float64.

    >>> areas = lr_areas(torch.tensor([1.0, 1.0, 0.5, 0.5]), decay=0.5)
    >>> areas.s1.tolist(), areas.s2.tolist()
    ([0.0, 1.0, 2.0, 2.5, 3.0], [0.0, 0.0, 0.0, 0.5, 0.75])
    """
    lrs = torch.as_tensor(lrs, dtype=torch.float64)
    drops = decreases(lrs)
    momentum, running, s2 = 0.0, 0.0, [0.0]
    for drop in drops.tolist():  # a first-order recurrence: a loop over floats is fast enough (~10M/s)
        momentum = decay * momentum + drop
        running += momentum
        s2.append(running)
    zero = lrs.new_zeros(1)
    return LrAreas(lrs, torch.cat([zero, torch.cumsum(lrs, 0)]), torch.tensor(s2, dtype=torch.float64), drops)


@attrs.frozen
class AnnealingLaw:
    r""":math:`L(u) = L_0 + A\,S_1(u)^{-\alpha} - C\,S_2(u)` (see the module docstring).

    ``decay`` is :math:`\lambda`, fixed during the fit (the paper's 0.999), or None: fitted, as a fifth
    parameter ``delay`` :math:`= \lambda / (1 - \lambda)` (the mean delay, in updates, with which a decrease
    of the lr lowers the loss), with the annealing area in closed form,

    .. math:: S_2(u) = \sum_{j \le u} \Delta_j\, \frac{1 - \lambda^{u - j + 1}}{1 - \lambda}

    where :math:`1 / (1 - \lambda) = 1 + \text{delay}`.

    Args:
        decay: :math:`\lambda` in [0, 1), fixed; None: fitted (the parameter ``delay``).

    Returns:
        The law (frozen): ``parameters`` names what a fit finds (``L0``, ``A``, ``alpha``, ``C``, and ``delay``
        when the decay is fitted); :meth:`areas`, :meth:`at` and :meth:`loss` compute the loss of an lr curve.

    Raises:
        ValueError: When ``decay`` is not a number in [0, 1) (a bool is refused).

    >>> law = AnnealingLaw(0.5)
    >>> p = {name: torch.tensor(value, dtype=torch.float64) for name, value in
    ...      {"L0": 2.0, "A": 1.0, "alpha": 0.5, "C": 0.1}.items()}
    >>> areas = law.areas(torch.tensor([1.0, 1.0, 0.5, 0.5], dtype=torch.float64))
    >>> [round(x, 6) for x in law.loss(p, law.at(areas, torch.tensor([1, 4]))).tolist()]  # 2 + 3^-0.5 - 0.1*0.75
    [3.0, 2.50235]
    >>> AnnealingLaw().parameters
    ('L0', 'A', 'alpha', 'C', 'delay')
    """

    decay: float | None = attrs.field(default=None)
    name: str = attrs.field(default="annealing", init=False)
    parameters: tuple[str, ...] = attrs.field(init=False)

    @decay.validator
    def _check_decay(self, attribute: attrs.Attribute, decay: float | None) -> None:
        if decay is not None and (isinstance(decay, bool) or not (isinstance(decay, (int, float)) and 0 <= decay < 1)):
            raise ValueError(f"decay={decay!r} must be a number in [0, 1) (the momentum of the annealing area)")

    @parameters.default
    def _parameters(self) -> tuple[str, ...]:
        return ("L0", "A", "alpha", "C") if self.decay is not None else ("L0", "A", "alpha", "C", "delay")

    @property
    def settings(self) -> dict[str, float | None]:
        """What the law is built with, as a saved law keeps it.

        Returns:
            ``{"decay": λ}`` (a float), or ``{"decay": None}`` when the decay is fitted; ``AnnealingLaw(**settings)``
            builds the law again.
        """
        return {"decay": None if self.decay is None else float(self.decay)}

    def momentum(self, parameters: dict[str, float]) -> float:
        r""":math:`\lambda`: ``decay``, or the fitted one.

        Args:
            parameters: The fitted parameters (``delay`` is read when the decay is fitted).

        Returns:
            ``decay`` when fixed, else :math:`\text{delay} / (1 + \text{delay})`.
        """
        return self.decay if self.decay is not None else parameters["delay"] / (1 + parameters["delay"])

    def areas(self, lrs: torch.Tensor) -> LrAreas:
        """The areas of a normalized lr curve, as :meth:`at` reads them.

        Args:
            lrs: The normalized lr of each update.

        Returns:
            :func:`lr_areas` with the fixed ``decay``; with a fitted one, with 0.9 (its :math:`S_2` is not used:
            :meth:`loss` builds :math:`S_2` from the decreases and the fitted delay).
        """
        return lr_areas(lrs, 0.9 if self.decay is None else self.decay)  # a fitted decay: S_2 is built in loss()

    def at(self, areas: LrAreas, updates: torch.Tensor) -> tuple[torch.Tensor, ...]:
        r"""What the loss after each of ``updates`` (update counts >= 1) depends on: :math:`S_1, S_2` there (with a
        fitted decay: :math:`S_1`, and what the momentum at the points is built from, O(n) numbers).

        Args:
            areas: The curve's areas (:meth:`areas`).
            updates: The update counts, an int64 tensor.

        Returns:
            ``(S1, S2)``, each a tensor like ``updates``; with a fitted decay ``(S1, *parts)``, ``parts`` from
            :func:`~trainer.forecast.sums.momentum_points` (the decreases up to the last point, each with the
            point it first counts at: never a points × decreases matrix).
        """
        if self.decay is not None:
            return areas.s1[updates], areas.s2[updates]
        return (areas.s1[updates], *momentum_points(areas.drops, updates))

    def loss(self, p: dict[str, torch.Tensor], at: tuple[torch.Tensor, ...]) -> torch.Tensor:
        r"""The loss at the points ``at`` (from :meth:`at`) with the parameters ``p``.

        Args:
            p: Each parameter's value, a float64 tensor (:meth:`FittedLaw.tensors`), by name.
            at: What :meth:`at` gave for the points.

        Returns:
            :math:`L_0 + A\,S_1^{-\alpha} - C\,S_2` at each point, with a fitted decay
            :math:`S_2 = (1 + \text{delay}) \sum_{j \le u} \Delta_j (1 - \lambda^{u - j + 1})
            = (1 + \text{delay}) \sum_{j \le u} \Delta_j - \text{delay}\, M(u)`, :math:`M(u) = \sum_{j \le u}
            \Delta_j \lambda^{u - j}` (:func:`~trainer.forecast.sums.momentum`),
            :math:`\lambda = \text{delay} / (1 + \text{delay})`; differentiable in ``p``.
        """
        if self.decay is not None:
            s1, s2 = at
        else:
            s1, *parts = at
            log_decay = torch.log(p["delay"]) - torch.log1p(p["delay"])
            s2 = (1 + p["delay"]) * parts[0] - p["delay"] * momentum(tuple(parts), log_decay)
        return p["L0"] + p["A"] * s1 ** -p["alpha"] - p["C"] * s2

    def starts(self, losses: torch.Tensor, first_s1: float, last_s2: float) -> list[dict[str, float]]:
        """Starting points for the fit, from the losses, the smallest :math:`S_1` and the largest :math:`S_2`.

        Args:
            losses: The fitted runs' loss points.
            first_s1: The smallest :math:`S_1` of a fitted point.
            last_s2: The largest :math:`S_2` of a fitted point.

        Returns:
            Four guesses (``L0`` at 0.5 and 0.9 of the lowest loss, ``alpha`` 0.3 and 0.7; ``A`` so that
            :math:`L_0 + A\\,S_1^{-\\alpha}` at ``first_s1`` is the highest loss, ``C`` a tenth of the losses'
            span over ``last_s2``, ``delay`` 9, that is :math:`\\lambda = 0.9`), each a value for every parameter.
        """
        low, high = float(losses.min()), float(losses.max())
        drop = max(high - low, 1e-3 * high)
        guesses = []
        for floor in (0.5, 0.9):
            for alpha in (0.3, 0.7):
                base = floor * low
                guesses.append(
                    {
                        "L0": base,
                        "A": max(high - base, 1e-6) * first_s1**alpha,
                        "alpha": alpha,
                        "C": 0.1 * drop / max(last_s2, 1e-9),
                        "delay": 9.0,  # lambda = 0.9 (used when the decay is fitted)
                    }
                )
        return guesses


@attrs.frozen
class MultiPowerLaw:
    r"""The multi-power law of Luo et al. (see the module docstring): seven parameters
    :math:`L_0, A, \alpha, B, C, \beta, \gamma`:

    .. math::
        L(u) = L_0 + A\,S_1(u)^{-\alpha} - B \sum_{k \le u} \Delta_k
        \left(1 - \left(C\,\eta_k^{-\gamma} \textstyle\sum_{\tau=k}^{u} \eta_\tau + 1\right)^{-\beta}\right)

    Returns:
        The law (frozen, no setting): :meth:`areas`, :meth:`at` and :meth:`loss` compute the loss of an lr curve.

    >>> law = MultiPowerLaw()
    >>> p = {name: torch.tensor(value, dtype=torch.float64) for name, value in
    ...      {"L0": 2.0, "A": 1.0, "alpha": 0.5, "B": 1.0, "C": 1.0, "beta": 1.0, "gamma": 1.0}.items()}
    >>> areas = law.areas(torch.tensor([1.0, 1.0, 0.5, 0.5], dtype=torch.float64))
    >>> [round(x, 6) for x in law.loss(p, law.at(areas, torch.tensor([1, 3, 4]))).tolist()]
    [3.0, 2.382456, 2.244017]
    """

    name: str = attrs.field(default="multi-power", init=False)
    parameters: tuple[str, ...] = attrs.field(default=("L0", "A", "alpha", "B", "C", "beta", "gamma"), init=False)

    @property
    def settings(self) -> dict[str, float]:
        """What the law is built with, as a saved law keeps it.

        Returns:
            An empty dict: the multi-power law has no setting (:func:`law_named` refuses one).
        """
        return {}

    def areas(self, lrs: torch.Tensor) -> LrAreas:
        """The areas of a normalized lr curve, as :meth:`at` reads them.

        Args:
            lrs: The normalized lr of each update.

        Returns:
            :func:`lr_areas` with momentum 0: its :math:`S_1` and decreases are used, its :math:`S_2` is not.
        """
        return lr_areas(lrs, 0.0)  # S_2 is not used; S_1 and the decreases are

    def at(self, areas: LrAreas, updates: torch.Tensor) -> tuple[torch.Tensor, ...]:
        r"""What the loss after each of ``updates`` depends on: :math:`S_1(u)`, and one term per decrease
        :math:`k \le u` of the lr and point (merged beyond :data:`~trainer.forecast.sums.EXACT_DECREASES`
        decreases: :func:`~trainer.forecast.sums.multi_power_terms`): its :math:`\Delta_k`, :math:`\eta_k` and
        area since, :math:`\sum_{\tau=k}^{u} \eta_\tau`.

        Args:
            areas: The curve's areas (:meth:`areas`).
            updates: The update counts, an int64 tensor.

        Returns:
            ``(S1, point, drops, lrs, since)``: :math:`S_1(u)` like ``updates``, then per term the index of its
            point in ``updates``, its :math:`\Delta`, :math:`\eta` and area since (bounded in memory: about
            points × 600 numbers at most, never points × decreases).
        """
        return (areas.s1[updates], *multi_power_terms(areas.s1, areas.lrs, areas.drops, updates))

    def loss(self, p: dict[str, torch.Tensor], at: tuple[torch.Tensor, ...]) -> torch.Tensor:
        r"""The loss at the points ``at`` (from :meth:`at`) with the parameters ``p``.

        A decrease to :math:`\eta_k = 0` takes the limit :math:`\eta_k \to 0` of its term: with
        :math:`R = \sum_{\tau=k+1}^{u} \eta_\tau`, :math:`\eta_k^{-\gamma}(\eta_k + R) = \eta_k^{1-\gamma} +
        \eta_k^{-\gamma} R`, so :math:`G = 1` once a later update trains (:math:`R > 0`), and while the lr stays
        0, :math:`G = 0` for :math:`\gamma < 1` (nothing trains, nothing is realized), :math:`G(C)` for
        :math:`\gamma = 1` and 1 for :math:`\gamma > 1`. Finite, with finite gradients, at every lr >= 0.

        Args:
            p: Each parameter's value, a float64 tensor (:meth:`FittedLaw.tensors`), by name.
            at: What :meth:`at` gave for the points.

        Returns:
            :math:`L_0 + A\,S_1^{-\alpha} - B \sum_k \Delta_k\, G(\eta_k^{-\gamma} \sum_{\tau=k}^{u} \eta_\tau)`
            at each point, :math:`G(x) = 1 - (C x + 1)^{-\beta}` (computed as
            :math:`1 - e^{-\beta\, \mathrm{softplus}(\log C + \log x)}`); differentiable in ``p``.
        """
        s1, point, drops, lrs, since = at
        zero = lrs <= 0
        safe_lrs = torch.where(zero, torch.ones_like(lrs), lrs)  # the other branch is chosen there: no inf, no nan
        safe_since = torch.where(zero, torch.ones_like(since), since)
        log_x = torch.log(safe_since.clamp(min=1e-300)) - p["gamma"] * torch.log(safe_lrs)
        realized = 1.0 - torch.exp(-p["beta"] * torch.nn.functional.softplus(torch.log(p["C"]) + log_x))
        at_one = 1.0 - (p["C"] + 1.0) ** -p["beta"]
        still = torch.where(p["gamma"] < 1, torch.zeros_like(at_one), torch.where(p["gamma"] > 1, 1.0, at_one))
        limit = torch.where(since > 0, torch.ones_like(since), still)
        realized = torch.where(zero, limit, realized)
        summed = torch.zeros_like(s1).index_add(0, point, realized * drops)  # each point's terms
        return p["L0"] + p["A"] * s1 ** -p["alpha"] - p["B"] * summed

    def starts(self, losses: torch.Tensor, first_s1: float, last_s2: float) -> list[dict[str, float]]:
        """Starting points for the fit, from the losses and the smallest :math:`S_1`.

        Args:
            losses: The fitted runs' loss points.
            first_s1: The smallest :math:`S_1` of a fitted point.
            last_s2: The largest :math:`S_2` of a fitted point (not used by this law).

        Returns:
            Two guesses far apart (each start is costly): ``L0`` at 0.5 and 0.9 of the lowest loss with ``alpha``
            0.3 and 0.7, ``A`` so that :math:`L_0 + A\\,S_1^{-\\alpha}` at ``first_s1`` is the highest loss, ``B``
            half the losses' span, ``C`` 1, ``beta`` and ``gamma`` 0.5.
        """
        low, high = float(losses.min()), float(losses.max())
        guesses = []
        for floor, alpha in ((0.5, 0.3), (0.9, 0.7)):  # each start is costly: two far apart
            base = floor * low
            guesses.append(
                {
                    "L0": base,
                    "A": max(high - base, 1e-6) * first_s1**alpha,
                    "alpha": alpha,
                    "B": 0.5 * max(high - low, 1e-3),
                    "C": 1.0,
                    "beta": 0.5,
                    "gamma": 0.5,
                }
            )
        return guesses


LAWS = ("annealing", "multi-power")


def law_named(name: str, settings: dict | None = None) -> AnnealingLaw | MultiPowerLaw:
    """The law called ``name`` (``"annealing"`` or ``"multi-power"``) with its ``settings``.

    Args:
        name: One of :data:`LAWS`.
        settings: The law's settings (a saved law's ``settings``: ``{"decay": ...}`` for the annealing law); None:
            its defaults.

    Returns:
        A new :class:`AnnealingLaw` or :class:`MultiPowerLaw` built with ``settings``.

    Raises:
        ValueError: When ``name`` is not a law (the message suggests the nearest), the multi-power law is given
            settings, or the annealing law's decay is not in [0, 1).
        TypeError: When the annealing law is given a setting other than ``decay``.

    >>> law_named("annealing", {"decay": 0.999})
    AnnealingLaw(decay=0.999, name='annealing', parameters=('L0', 'A', 'alpha', 'C'))
    >>> law_named("anealing")
    Traceback (most recent call last):
        ...
    ValueError: law='anealing' must be one of 'annealing', 'multi-power' (did you mean 'annealing'?)
    """
    settings = dict(settings or {})
    if name == "annealing":
        return AnnealingLaw(**settings)
    if name == "multi-power":
        if settings:
            raise ValueError(f"the multi-power law takes no settings (got {sorted(settings)})")
        return MultiPowerLaw()
    from schedulers.core.schedule_arguments import choice_problem

    raise ValueError(f"law={name!r} {choice_problem(name, LAWS)}")
