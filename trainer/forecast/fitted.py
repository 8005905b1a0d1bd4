r"""A fitted law: its parameters, how well it fits, the runs it came from and the range they cover; saved as a
small JSON file (written atomically) and read back.

**Intervals.** A forecast :math:`\hat L` comes with an interval at ``level`` (80% by default),
:math:`\hat L\,e^{\pm z\,\sigma}` with :math:`z` the normal quantile and, on the relative scale,

.. math:: \sigma^2 = \text{noise}^2 + \text{systematic}^2
          + \max\bigl(g^\top \Sigma\, g,\ [u \ge u_{out}]\,(c\,\text{error})^2\bigr)
          + \Bigl(k\,\text{error}\,\log_2^+ \frac{u}{n_{fit}}\Bigr)^2,
          \qquad \Sigma = s^2 (J^\top J)^{-1}

:math:`\Sigma` is the covariance of the log-parameters :math:`\theta` that the fitted points leave (Gauss-Newton:
:math:`J` the derivatives of the log residuals by :math:`\theta`, :math:`s^2` their sum of squares over
:math:`N - p`), :math:`g = \partial \log \hat L / \partial \theta` (a parameter the runs do not determine, such
as the delay from a single decay, has a large variance, and widens the forecasts that depend on it); the noise
is what one measured point scatters by, and the systematic error the misfit of the law's shape. It is the
interval of a measured loss: the noise of the run forecast is in it. The next term is the misfit of a shape the
fitted runs never showed: from the first update :math:`u_{out}` at which the run leaves their range (the reasons
:meth:`FittedLaw.range_warnings` gives), the law's error there is unknown to the fit, and is taken as
:math:`c = 2.25` times its error on the runs it saw (``EXTRAPOLATION_SCALE``), unless the parameters' spread is
larger already (a decay parameter the runs leave loose spreads exactly the forecasts of a decay they did not show:
the two allow for one doubt, so the larger counts, not both). The last term is for a run longer than every fitted
one (its updates :math:`u` beyond the largest fitted run's, :math:`n_{fit}`): it extrapolates the power law in
time, by :math:`k = 1.75` times the error per doubling of the updates (``TIME_SCALE``). The two multiples and the
form were chosen on the forecast bench's seeds 3-8 and checked on 15 seeds not used to choose them; the cap on
an undetermined direction's standard deviation (``MAX_LOG_SD``, a factor of e in a parameter: the linearized law
saturates long before the factor of 20 once used) is measured on the bench too (docs/forecast.md, "How sure a
forecast is").

The fit error is the root mean square of the relative residuals :math:`r_i = \hat L_i / L_i - 1` over the
fitted points; the noise is what consecutive points of one run scatter by,
:math:`\sqrt{\tfrac12 \overline{(r_i - r_{i-1})^2}}` (a smooth misfit hardly changes from one point to the
next; noise does), and the systematic error :math:`\sqrt{\max(\text{error}^2 - \text{noise}^2, 0)}` is the
part of the error that noise does not explain (docs/forecast.md).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from statistics import NormalDist
from typing import Any

import attrs
import torch

from schedulers.tools.files import write_atomically
from trainer.forecast.advice import fit_advice
from trainer.forecast.errors import ForecastError
from trainer.forecast.laws import AnnealingLaw, LrAreas, MultiPowerLaw, decreases, law_named, lr_areas
from trainer.forecast.sums import one_thread

__all__ = [
    "DECAY_TERMS",
    "EXTRAPOLATION_SCALE",
    "FORMAT",
    "LEVEL",
    "FittedLaw",
    "after_decay",
    "decay_start",
    "extent",
    "load_law",
    "run_areas",
]

FORMAT = "cadence-forecast-law"
#: how far beyond the fitted runs a forecast may reach before it is flagged (docs/forecast.md)
S1_MARGIN = 1.05
S2_MARGIN = 2.0
PEAK_MARGIN = 0.05
#: a decay starting before this fraction of the earliest fitted decay's start (in S1) is flagged
DECAY_MARGIN = 0.95
#: an extrapolated forecast's unseen misfit, as a multiple of the fit error (docs/forecast.md)
EXTRAPOLATION_SCALE = 2.25
#: a forecast longer than the fitted runs: its misfit per doubling of the longest one's updates, a multiple of the
#: fit error (docs/forecast.md)
TIME_SCALE = 1.75
#: the probability a forecast's interval holds, by default
LEVEL = 0.8
#: the step in a log-parameter of the central differences of a forecast
_STEP = 1e-5
#: a decay parameter further than this factor from 1 has reached a limit of its term: the fit is degenerate
DEGENERATE_RANGE = 1e3
#: the largest standard deviation of a log-parameter in a fit's covariance (e: a factor of 2.7; docs/forecast.md)
MAX_LOG_SD = 1.0
#: a decay parameter whose log has this standard deviation (at the covariance's cap) is not determined
UNDETERMINED_SD = 0.99 * MAX_LOG_SD
#: each law's parameters that only a decay of the lr determines
DECAY_TERMS = {"annealing": ("C", "delay"), "multi-power": ("B", "C", "beta", "gamma")}
#: the points of a forecast whose law terms are built at once (bounds its memory)
_PREDICTED_BLOCK = 1024


@attrs.frozen
class FittedLaw:
    """A law with fitted ``parameters``; ``lr_scale`` is :math:`\\eta_{ref}` (the fitted runs' peak lr).

    ``runs`` describes each fitted run (``folder``, ``points``, ``batches``, ``peak_lr``, ``s1``: the forward
    area after its last update, ``s2``: its largest annealing area and ``decay_s1``: the forward area before
    its lr first falls, None if it never does; the areas normalized by ``lr_scale``).

    Args:
        law: The law fitted (:class:`~trainer.forecast.laws.AnnealingLaw` or
            :class:`~trainer.forecast.laws.MultiPowerLaw`).
        parameters: The fitted value of each of ``law.parameters``, by name (each > 0).
        lr_scale: :math:`\\eta_{ref}`, what the lrs are divided by before the law reads them.
        error: The root mean square of the relative residuals over the fitted points.
        noise: What one measured point scatters by, relative (see the module docstring).
        points: How many loss points were fitted.
        loss_column: The loss column fitted (``train/loss`` or ``eval/loss``).
        lr_column: The lr column the runs were read with (``lr/group<i>``).
        runs: One dict per fitted run (``folder``, ``points``, ``batches``, ``peak_lr``, ``s1``, ``s2``).
        converged: Whether the fit converged; a failed fit predicts nothing.
        message: What the optimizer said (why a fit failed).
        covariance: The covariance of the log-parameters, in the order of ``law.parameters``; None: no intervals.
        choice: Why this law was fitted when none was named (the default, or the default's fit failed); "": named.

    Returns:
        The fit, which forecasts the loss of any lr curve (:meth:`predict`, :meth:`interval`), says when that
        extrapolates (:meth:`range_warnings`) and saves as JSON (:meth:`save`, read back by :func:`load_law`).

    >>> law = FittedLaw(AnnealingLaw(0.9), {"L0": 2.0, "A": 1.0, "alpha": 0.5, "C": 0.1}, 1.0, 0.05, 0.03, 10,
    ...                 "train/loss", "lr/group0", runs=[{"s1": 4.0, "s2": 1.0, "peak_lr": 1.0}])
    >>> [round(x, 4) for x in law.predict(torch.tensor([1.0, 1.0, 1.0, 0.5])).tolist()]
    [3.0, 2.7071, 2.5774, 2.4845]
    >>> round(law.systematic_error, 4)
    0.04
    """

    law: AnnealingLaw | MultiPowerLaw
    parameters: dict[str, float]
    lr_scale: float
    error: float
    noise: float
    points: int
    loss_column: str
    lr_column: str
    runs: list[dict[str, Any]] = attrs.field(factory=list)
    converged: bool = True
    message: str = ""
    covariance: list[list[float]] | None = None  # of the log-parameters, in the order of ``law.parameters``
    choice: str = ""  # why this law was fitted, when it was not named (trainer.forecast.fitting.DEFAULT_LAW)

    @property
    def systematic_error(self) -> float:
        """The part of the fit error that noise does not explain (the misfit of the law's shape).

        Returns:
            :math:`\\sqrt{\\max(\\text{error}^2 - \\text{noise}^2, 0)}`, relative like both.
        """
        return math.sqrt(max(self.error**2 - self.noise**2, 0.0))

    def tensors(self) -> dict[str, torch.Tensor]:
        """The parameters as the law's :meth:`loss` takes them.

        Returns:
            Each parameter's name to a float64 scalar tensor of its value.
        """
        return {name: torch.tensor(value, dtype=torch.float64) for name, value in self.parameters.items()}

    def predict(self, lrs: torch.Tensor, updates: torch.Tensor | None = None) -> torch.Tensor:
        """The loss after each of ``updates`` (default: after every update, ``1..n``) of a run whose updates
        train with ``lrs`` (the lr of each, as logged or previewed). Refuses a fit that failed.

        Args:
            lrs: The lr of each update of the run, in the units of the fitted runs' lr column.
            updates: The update counts (each in ``1..len(lrs)``); None: every one.

        Returns:
            A float64 tensor like ``updates``: the law's loss after each, from the areas of ``lrs / lr_scale``.

        Raises:
            ForecastError: When the fit failed (not converged), or ``lrs`` is empty.
        """
        if not self.converged:
            raise ForecastError(f"this fit failed, so it predicts nothing: {self.message}")
        lrs = torch.as_tensor(lrs, dtype=torch.float64)
        if len(lrs) == 0:
            raise ForecastError("the run has no update: there is no loss to predict")
        areas = self.law.areas(lrs / self.lr_scale)
        if updates is None:
            updates = torch.arange(1, len(lrs) + 1)
        updates = torch.as_tensor(updates, dtype=torch.int64)
        self._check_decay(lrs, updates)
        losses = self._losses(areas, updates)[0]
        bad = (~torch.isfinite(losses)) | (losses <= 0)
        if bool(bad.any()):  # a loss the law cannot mean: the fit does not support this run (docs/forecast.md)
            u, value = int(updates[bad][0]), float(losses[bad][0])
            raise ForecastError(
                f"the {self.law.name} law forecasts a loss of {value:.4g} after update {u} of this run, which no "
                "run can measure: the fit does not support a forecast this far from the fitted runs"
            )
        return losses

    def _losses(
        self, areas: LrAreas, updates: torch.Tensor, sets: list[dict[str, torch.Tensor]] | None = None
    ) -> torch.Tensor:
        """The law's loss at ``updates``, unchecked, for each set of parameters (None: the fitted ones): what the
        loss depends on is built once a block of points (it does not depend on the parameters), and only one
        block's at a time (the multi-power law's terms are about 600 numbers a point).

        Returns:
            A (sets × points) tensor.
        """
        sets = [self.tensors()] if sets is None else sets
        blocks = []
        with one_thread(), torch.no_grad():
            for block in updates.split(_PREDICTED_BLOCK):
                at = self.law.at(areas, block)
                blocks.append(torch.stack([self.law.loss(p, at) for p in sets]))
        return torch.cat(blocks, dim=1) if blocks else torch.zeros(len(sets), 0, dtype=torch.float64)

    @property
    def decay_seen(self) -> bool:
        """Whether some fitted loss point comes after a decrease of its run's lr: without one, the law's decay terms
        (:data:`DECAY_TERMS`) are not determined, and a run that decays cannot be forecast.

        Returns:
            True when a fitted run's record says ``decayed`` (a law saved before it was recorded: True).
        """
        return not self.runs or any(run.get("decayed", True) for run in self.runs)

    @property
    def degenerate(self) -> str:
        r"""Why the fitted runs do not identify the law's decay term, in one line, or "": a decay parameter at the edge
        of its range (beyond :data:`DEGENERATE_RANGE` of 1: the term has reached a limit, such as the multi-power
        law's :math:`\beta \to 0, \gamma \to \infty`, where a decrease is realized at once by how low the lr goes)
        or not determined (its log-parameter's standard deviation at the covariance's cap).

        Returns:
            The sentence naming those parameters and the run that would pin them (:func:`fit_advice`); "" for a fit
            whose decay terms are identified, or that saw no decay (:attr:`decay_seen` says so instead).
        """
        if not self.decay_seen or self.covariance is None:
            return ""
        found = []
        for i, name in enumerate(self.law.parameters):
            value, sd = self.parameters[name], math.sqrt(max(self.covariance[i][i], 0.0))
            if name in self.decay_terms and (
                abs(math.log(value)) > math.log(DEGENERATE_RANGE) or sd >= UNDETERMINED_SD
            ):
                found.append(f"{name}={value:.3g}" + (" (not determined)" if sd >= UNDETERMINED_SD else ""))
        if not found:
            return ""
        return (
            f"the {self.law.name} law's fit is degenerate: {', '.join(found)}: the runs pin how much a decay lowers "
            f"the loss, not how it is realized, so a forecast of another decay shape rests on the limit the fit chose "
            f"({fit_advice('another decay')})"
        )

    def notes(self) -> list[str]:
        """What ``cadence forecast`` and ``cadence sweep --forecast`` say of the fit beside its summary, one line each.

        Returns:
            ``law: <name>, <why>`` when the law was not named (:attr:`choice`), and ``note: <why>`` when the fit is
            degenerate (:attr:`degenerate`); each only when there is something to say.
        """
        return [f"law: {self.law.name}, {self.choice}"] * bool(self.choice) + [f"note: {self.degenerate}"] * bool(
            self.degenerate
        )

    @property
    def decay_terms(self) -> tuple[str, ...]:
        """The parameters of this law that only a decay of the lr determines (:data:`DECAY_TERMS`).

        Returns:
            Their names, in the order of ``law.parameters`` (``C`` and ``delay`` for the annealing law, ``C`` alone
            with a fixed decay; ``B``, ``C``, ``beta``, ``gamma`` for the multi-power law).
        """
        return tuple(name for name in self.law.parameters if name in DECAY_TERMS[self.law.name])

    def _check_decay(self, lrs: torch.Tensor, updates: torch.Tensor) -> None:
        """Refuse, in one line, the loss after a decrease of the lr from a law whose fitted runs never decayed."""
        if not self.decay_seen and after_decay(lrs, updates):
            first = int(_first_fall(torch.as_tensor(lrs, dtype=torch.float64)))
            raise ForecastError(
                f"the fitted runs have not decayed (no fitted loss comes after a fall of their lr), so the "
                f"{self.law.name} law's decay term ({', '.join(self.decay_terms)}) is not determined and "
                f"this run, whose lr falls from update {first + 1} on, cannot be forecast: {fit_advice('decay')}"
            )

    def interval(
        self, lrs: torch.Tensor, updates: torch.Tensor, level: float = LEVEL
    ) -> tuple[torch.Tensor, torch.Tensor] | None:
        """The ``level`` interval of the loss after each of ``updates`` (see the module docstring): ``(low,
        high)``, or None for a law saved without its covariance.

        Args:
            lrs: The lr of each update of the run.
            updates: The update counts (>= 1).
            level: The probability the interval holds, in (0, 1).

        Returns:
            The lower and upper ends, tensors like ``updates``.

        Raises:
            ForecastError: ``level`` is not in (0, 1), or the fit failed.

        >>> FittedLaw(AnnealingLaw(0.9), {}, 1.0, 0.0, 0.0, 0, "eval/loss", "lr/group0").interval([1.0], [1]) is None
        True
        """
        if not (isinstance(level, float) and 0 < level < 1):
            raise ForecastError(f"level={level!r} must be a probability in (0, 1), such as 0.8")
        if self.covariance is None:
            return None
        central = self.predict(lrs, updates)
        sigma = torch.stack(list(self.variance_terms(lrs, updates).values())).sum(dim=0).sqrt()
        z = NormalDist().inv_cdf(0.5 + level / 2)
        low, high = central * torch.exp(-z * sigma), central * torch.exp(z * sigma)
        if not bool(torch.isfinite(low).all() and torch.isfinite(high).all()):  # never a nan bound
            raise ForecastError(
                f"the {self.law.name} law's interval of this run is not finite: the fit does not support it"
            )
        return low, high

    def variance_terms(self, lrs: torch.Tensor, updates: torch.Tensor) -> dict[str, torch.Tensor]:
        r"""The terms of :math:`\sigma^2`, the variance of the log of the loss after each of ``updates`` (see the
        module docstring), each >= 0: their sum is what :meth:`interval` spreads.

        Args:
            lrs: The lr of each update of the run.
            updates: The update counts (>= 1).

        Returns:
            A tensor like ``updates`` for each term: ``parameters`` (:math:`g^\top \Sigma g`), ``noise`` and
            ``systematic`` (their squares), ``unseen`` (:attr:`extrapolation_error` squared from the departure, less
            the parameters' spread where that is larger: :math:`\max(\text{spread}, \text{unseen})` is what
            counts) and ``longer`` (``TIME_SCALE`` × error × the doublings of the updates beyond the longest fitted
            run's, squared).

        Raises:
            ForecastError: The fit failed, or has no covariance (a law saved without one).
        """
        if self.covariance is None:
            raise ForecastError("this law was saved without its covariance: it has no interval")
        updates = torch.as_tensor(updates, dtype=torch.int64)
        areas = self.law.areas(torch.as_tensor(lrs, dtype=torch.float64) / self.lr_scale)
        theta = torch.tensor([math.log(self.parameters[name]) for name in self.law.parameters], dtype=torch.float64)
        shifts = _STEP * torch.eye(len(theta), dtype=torch.float64)
        sets = [self._with(theta + sign * shift).tensors() for shift in shifts for sign in (1, -1)]
        losses = self._losses(areas, updates, sets)  # d log L / d theta_i by central differences: p pairs of forecasts
        g = ((losses[0::2].log() - losses[1::2].log()) / (2 * _STEP)).T
        spread = ((g @ torch.tensor(self.covariance, dtype=torch.float64)) * g).sum(dim=1).clamp(min=0)
        unseen = torch.zeros_like(spread)
        departure = self.departure(lrs)
        if departure is not None:  # the misfit of a shape the fitted runs never showed, from where the run leaves them
            unseen[updates >= departure] = self.extrapolation_error**2
        # every saved law records its runs' lengths; one built by hand without them gets no time term
        longest = max((run["batches"] for run in self.runs if "batches" in run), default=math.inf)
        longer = (updates.to(torch.float64) / longest).log2().clamp(min=0)  # doublings past the longest fitted run
        constant = torch.ones_like(spread)
        return {
            "parameters": spread,
            "noise": constant * self.noise**2,
            "systematic": constant * self.systematic_error**2,
            "unseen": (unseen - spread).clamp(min=0),  # one doubt: what the spread already allows is not counted twice
            "longer": (TIME_SCALE * self.error * longer) ** 2,
        }

    def _with(self, theta: torch.Tensor) -> FittedLaw:
        parameters = dict(zip(self.law.parameters, theta.exp().tolist(), strict=True))
        return attrs.evolve(self, parameters=parameters)

    @property
    def extrapolation_error(self) -> float:
        """The misfit taken for a shape the fitted runs never showed (see the module docstring).

        Returns:
            ``EXTRAPOLATION_SCALE`` × :attr:`error`, relative.
        """
        return EXTRAPOLATION_SCALE * self.error

    def range_warnings(self, lrs: torch.Tensor) -> list[str]:
        """What makes a forecast of a run with ``lrs`` an extrapolation (each with the fitted range).

        Args:
            lrs: The lr of each update of the run.

        Returns:
            One sentence per reason, empty when the run lies within the fitted range: its lr area :math:`S_1`
            beyond 1.05 × the fitted runs' largest, its annealing area :math:`S_2` beyond 2 × theirs, its lr
            falling from an :math:`S_1` under 0.95 × the earliest at which a fitted run's fell (an earlier decay
            than any fitted), or its peak lr more than 5% outside theirs.
        """
        return [message for _, message in self._departures(lrs)]

    def departure(self, lrs: torch.Tensor) -> int | None:
        """The first update at which a run with ``lrs`` leaves the fitted range (for any of the reasons of
        :meth:`range_warnings`), from which its interval holds :attr:`extrapolation_error`.

        Args:
            lrs: The lr of each update of the run.

        Returns:
            The update count (1-based), or None when the run stays within the fitted range.

        >>> law = FittedLaw(AnnealingLaw(0.9), {"L0": 2.0, "A": 1.0, "alpha": 0.5, "C": 0.1}, 1.0, 0.05, 0.03, 10,
        ...                 "train/loss", "lr/group0", runs=[{"s1": 4.0, "s2": 1.0, "peak_lr": 1.0}])
        >>> law.departure(torch.ones(4)), law.departure(torch.ones(6))
        (None, 5)
        """
        return min((update for update, _ in self._departures(lrs)), default=None)

    def _departures(self, lrs: torch.Tensor) -> list[tuple[int, str]]:
        """Each way the run leaves the fitted range: the first update past it (1-based) and the sentence saying so."""
        lrs = torch.as_tensor(lrs, dtype=torch.float64)
        fitted = self.ranges()
        areas = run_areas(self.law, self.parameters, lrs / self.lr_scale)
        found = []
        s1, s1_limit = float(areas.s1[-1]), fitted["s1"][1] * S1_MARGIN
        if s1 > s1_limit:
            span = _span(fitted["s1"])
            message = f"its lr area S1 = {s1:.4g} (in updates at the peak lr) is beyond the fitted runs' {span}"
            found.append((_first(areas.s1[1:] > s1_limit), message + ": the law extrapolates in time"))
        s2, s2_limit = float(areas.s2.max()), fitted["s2"][1] * S2_MARGIN + 1e-9
        if s2 > s2_limit:
            never = " (they never decreased the lr)" if fitted["s2"][1] == 0 else ""
            message = f"its annealing area S2 = {s2:.4g} is beyond the fitted runs' {_span(fitted['s2'])}{never}"
            found.append((_first(areas.s2[1:] > s2_limit), message))
        found += self._decay_departure(lrs / self.lr_scale)
        low, high = fitted["peak_lr"]
        peak = float(lrs.max())
        if not low * (1 - PEAK_MARGIN) <= peak <= high * (1 + PEAK_MARGIN):
            above = lrs > high * (1 + PEAK_MARGIN)  # a run whose peak stays below theirs is outside from the start
            update = _first(above) if bool(above.any()) else 1
            found.append((update, f"its peak lr {peak:.4g} is outside the fitted runs' {_span(fitted['peak_lr'])}"))
        return found

    def _decay_departure(self, normalized: torch.Tensor) -> list[tuple[int, str]]:
        """A decay that starts earlier than every fitted run's: its first falling update and the warning (runs saved
        before ``decay_s1`` was recorded, and runs that never decay, say nothing)."""
        starts = [r["decay_s1"] for r in self.runs if r.get("decay_s1") is not None]
        start = decay_start(normalized)
        if not starts or start is None or start >= min(starts) * DECAY_MARGIN:
            return []
        return [
            (
                _first_fall(normalized) + 1,  # the update it falls at (a start implies one)
                f"its lr falls from S1 = {start:.4g} on, earlier than any fitted run's (from S1 = {min(starts):.4g}): "
                f"how an earlier decay is realized is extrapolated ({fit_advice('earlier decay')})",
            )
        ]

    def ranges(self) -> dict[str, tuple[float, float]]:
        """The smallest and largest ``s1``, ``s2`` and ``peak_lr`` of the fitted runs.

        Returns:
            ``{"s1": (low, high), "s2": (low, high), "peak_lr": (low, high)}`` over :attr:`runs`, the range a
            forecast stays in to be no extrapolation.
        """
        keys = ("s1", "s2", "peak_lr")
        return {key: (min(r[key] for r in self.runs), max(r[key] for r in self.runs)) for key in keys}

    # -- the JSON file -------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The law as the JSON file holds it.

        Returns:
            A JSON-ready dict: ``format`` and ``version``, the law's name and settings, its parameters, ``lr_scale``,
            the loss and lr columns, the fit's figures (``fit``: converged, errors, points, message, covariance)
            and the fitted runs; :func:`load_law` reads it back.
        """
        return {
            "format": FORMAT,
            "version": 1,
            "law": self.law.name,
            "settings": self.law.settings,
            "parameters": dict(self.parameters),
            "lr_scale": self.lr_scale,
            "loss": self.loss_column,
            "lr": self.lr_column,
            "fit": {
                "converged": self.converged,
                "error": self.error,
                "noise": self.noise,
                "systematic_error": self.systematic_error,
                "points": self.points,
                "message": self.message,
                "covariance": self.covariance,
            },
            "runs": self.runs,
            "choice": self.choice,
        }

    def save(self, path: str | os.PathLike) -> Path:
        """Write the law to ``path`` as JSON, atomically.

        Args:
            path: The file to write (replaced whole, or left as it was).

        Returns:
            The path written, as :func:`~schedulers.tools.files.write_atomically` gives it.
        """
        text = json.dumps(self.to_json(), indent=2) + "\n"
        return write_atomically(path, lambda stream: stream.write(text))

    def summary(self) -> str:
        """One line: the law, its parameters and its fit error.

        Returns:
            ``<law> law on <loss column> of <n> run(s), <points> points: <name>=<value>, ...;`` followed by
            ``fit error <e>% (noise <n>%, systematic <s>%)``, the parameters to 4 significant digits (the decay
            terms marked "not determined" when no fitted point comes after a decay).
        """
        values = ", ".join(f"{name}={value:.4g}" for name, value in self.parameters.items())
        undetermined = "" if self.decay_seen else f" ({', '.join(self.decay_terms)}: not determined, no decay seen)"
        errors = f"fit error {self.error:.2%} (noise {self.noise:.2%}, systematic {self.systematic_error:.2%})"
        return (
            f"{self.law.name} law on {self.loss_column} of {len(self.runs)} run(s), {self.points} points: {values}"
            f"{undetermined}; {errors}"
        )


def load_law(path: str | os.PathLike) -> FittedLaw:
    """A law saved by :meth:`FittedLaw.save` (a file that is not one is a :class:`ForecastError`).

    Args:
        path: The JSON file.

    Returns:
        The :class:`FittedLaw` it holds, equal to the one saved (a file without a covariance: no intervals).

    Raises:
        ForecastError: When the file cannot be read or is not JSON, is not a saved law (no ``format`` of
            :data:`FORMAT`), or has an entry missing or malformed.

    >>> import os, tempfile
    >>> law = FittedLaw(AnnealingLaw(0.9), {"L0": 2.0, "A": 1.0, "alpha": 0.5, "C": 0.1}, 1.0, 0.05, 0.03, 10,
    ...                 "train/loss", "lr/group0", runs=[{"s1": 4.0, "s2": 1.0, "peak_lr": 1.0}])
    >>> path = law.save(os.path.join(tempfile.mkdtemp(), "law.json"))
    >>> load_law(path) == law
    True
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ForecastError(f"{path}: cannot read a saved law ({error})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ForecastError(f'{path}: not a law saved by cadence forecast (no "format": "{FORMAT}")')
    try:
        fit = data["fit"]
        return FittedLaw(
            law=law_named(data["law"], data.get("settings")),
            parameters={str(k): float(v) for k, v in data["parameters"].items()},
            lr_scale=float(data["lr_scale"]),
            error=float(fit["error"]),
            noise=float(fit["noise"]),
            points=int(fit["points"]),
            loss_column=str(data["loss"]),
            lr_column=str(data["lr"]),
            runs=list(data["runs"]),
            converged=bool(fit["converged"]),
            message=str(fit.get("message", "")),
            covariance=_matrix(fit.get("covariance"), len(data["parameters"])),
            choice=str(data.get("choice", "")),  # laws saved before the default was chosen: ""
        )
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise ForecastError(f"{path}: a saved law with a missing or malformed entry ({error})") from None


def extent(
    law: AnnealingLaw | MultiPowerLaw, parameters: dict[str, float], normalized: torch.Tensor
) -> tuple[float, float]:
    """A run's forward area after its last update and its largest annealing area (with the annealing law's
    momentum, else the paper's 0.999), from its normalized lrs: what :meth:`FittedLaw.range_warnings` compares.

    Args:
        law: The law (an annealing law's momentum, from ``parameters`` when fitted, counts its :math:`S_2`).
        parameters: The law's fitted parameters.
        normalized: The run's lrs divided by the law's ``lr_scale``.

    Returns:
        ``(s1, s2)``: :math:`S_1(n)` after the last update and the largest :math:`S_2(u)` over the run.

    >>> extent(AnnealingLaw(0.5), {}, torch.tensor([1.0, 1.0, 0.5, 0.5]))
    (3.0, 0.75)
    """
    areas = run_areas(law, parameters, normalized)
    return float(areas.s1[-1]), float(areas.s2.max())


def run_areas(law: AnnealingLaw | MultiPowerLaw, parameters: dict[str, float], normalized: torch.Tensor) -> LrAreas:
    """A run's areas as the fitted range counts them: :math:`S_2` with the annealing law's momentum (from
    ``parameters`` when fitted), else the paper's 0.999.

    Args:
        law: The law.
        parameters: The law's fitted parameters.
        normalized: The run's lrs divided by the law's ``lr_scale``.

    Returns:
        The run's :class:`~trainer.forecast.laws.LrAreas`.

    >>> run_areas(AnnealingLaw(0.5), {}, torch.tensor([1.0, 1.0, 0.5, 0.5])).s2.tolist()
    [0.0, 0.0, 0.0, 0.5, 0.75]
    """
    return lr_areas(normalized, law.momentum(parameters) if isinstance(law, AnnealingLaw) else 0.999)


def decay_start(normalized: torch.Tensor) -> float | None:
    r"""Where a run's decay starts: the forward area :math:`S_1` trained before the first update whose lr is
    below the one before it (the annealing area's first :math:`\Delta_k`), or None when the lr never falls.

    Args:
        normalized: The run's lrs divided by the law's ``lr_scale``.

    Returns:
        :math:`S_1(k - 1)` for the first falling update :math:`k`, or None.

    >>> decay_start(torch.tensor([0.5, 1.0, 1.0, 0.5, 0.25])), decay_start(torch.tensor([0.5, 1.0]))
    (2.5, None)
    """
    normalized = torch.as_tensor(normalized, dtype=torch.float64)
    first = _first_fall(normalized)
    return None if first is None else float(normalized[:first].sum())


def after_decay(lrs: torch.Tensor, updates: torch.Tensor) -> bool:
    """Whether the loss after some of ``updates`` comes after a fall of the lr (what determines a law's decay terms).

    Args:
        lrs: The lr of each update of the run.
        updates: Update counts (>= 1).

    Returns:
        True when the largest of ``updates`` is past the first update whose lr is below the one before it.

    >>> lrs = torch.tensor([0.5, 1.0, 1.0, 0.5])
    >>> after_decay(lrs, torch.tensor([2, 3])), after_decay(lrs, [4])
    (False, True)
    """
    first = _first_fall(torch.as_tensor(lrs, dtype=torch.float64))
    updates = torch.as_tensor(updates, dtype=torch.int64)
    return first is not None and len(updates) > 0 and int(updates.max()) > first


def _first_fall(normalized: torch.Tensor) -> int | None:
    """The index of the first update whose lr is below the one before it, or None."""
    falling = decreases(normalized).nonzero()
    return int(falling[0]) if len(falling) else None


def _first(crossed: torch.Tensor) -> int:
    """The first update (1-based) at which ``crossed``, one boolean per update, holds (some update does)."""
    return int(crossed.nonzero()[0]) + 1


def _matrix(value: Any, size: int) -> list[list[float]] | None:
    """A saved covariance: None (a law saved before intervals), or ``size`` × ``size`` numbers."""
    if value is None:
        return None
    rows = [[float(x) for x in row] for row in value]
    if len(rows) != size or any(len(row) != size for row in rows):
        raise ValueError(f"covariance must be {size} × {size}")
    return rows


def _span(bounds: tuple[float, float]) -> str:
    low, high = bounds
    return f"{low:.4g}" if low == high else f"[{low:.4g}, {high:.4g}]"
