r"""A fitted law: its parameters, how well it fits, the runs it came from and the range they cover; saved as a
small JSON file (written atomically) and read back.

**Intervals.** A forecast :math:`\hat L` comes with an interval at ``level`` (80% by default),
:math:`\hat L\,e^{\pm z\,\sigma}` with :math:`z` the normal quantile and, on the relative scale,

.. math:: \sigma^2 = g^\top \Sigma\, g + \text{noise}^2 + \text{systematic}^2
          + [u \ge u_{out}]\,(c\,\text{error})^2, \qquad \Sigma = s^2 (J^\top J)^{-1}

:math:`\Sigma` is the covariance of the log-parameters :math:`\theta` that the fitted points leave (Gauss-Newton:
:math:`J` the derivatives of the log residuals by :math:`\theta`, :math:`s^2` their sum of squares over
:math:`N - p`), :math:`g = \partial \log \hat L / \partial \theta` (a parameter the runs do not determine, such
as the delay from a single decay, has a large variance, and widens the forecasts that depend on it); the noise
is what one measured point scatters by, and the systematic error the misfit of the law's shape. It is the
interval of a measured loss: the noise of the run forecast is in it. The last term is the misfit of a shape the
fitted runs never showed: from the first update :math:`u_{out}` at which the run leaves their range (the reasons
:meth:`FittedLaw.range_warnings` gives), the law's error there is unknown to the fit, and is taken as
:math:`c = 1.5` times its error on the runs it saw (``EXTRAPOLATION_SCALE``: measured on the forecast bench,
docs/forecast.md, "How sure a forecast is").

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
from trainer.forecast.errors import ForecastError
from trainer.forecast.laws import AnnealingLaw, LrAreas, MultiPowerLaw, decreases, law_named, lr_areas
from trainer.forecast.sums import one_thread

__all__ = ["EXTRAPOLATION_SCALE", "FORMAT", "LEVEL", "FittedLaw", "decay_start", "extent", "load_law", "run_areas"]

FORMAT = "cadence-forecast-law"
#: how far beyond the fitted runs a forecast may reach before it is flagged (docs/forecast.md)
S1_MARGIN = 1.05
S2_MARGIN = 2.0
PEAK_MARGIN = 0.05
#: a decay starting before this fraction of the earliest fitted decay's start (in S1) is flagged
DECAY_MARGIN = 0.95
#: an extrapolated forecast's unseen misfit, as a multiple of the fit error (docs/forecast.md)
EXTRAPOLATION_SCALE = 1.5
#: the probability a forecast's interval holds, by default
LEVEL = 0.8
#: the step in a log-parameter of the central differences of a forecast
_STEP = 1e-5
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
        return self._losses(lrs, updates, [self.tensors()])[0]

    def _losses(
        self, lrs: torch.Tensor, updates: torch.Tensor | None, sets: list[dict[str, torch.Tensor]]
    ) -> torch.Tensor:
        """The law's loss at ``updates`` of a run with ``lrs`` (:meth:`predict`) for each set of parameters: what
        the loss depends on is built once a block of points (it does not depend on the parameters), and only one
        block's at a time (the multi-power law's terms are about 600 numbers a point).

        Returns:
            A (sets × points) tensor.
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
        blocks = []
        with one_thread(), torch.no_grad():
            for block in updates.split(_PREDICTED_BLOCK):
                at = self.law.at(areas, block)
                blocks.append(torch.stack([self.law.loss(p, at) for p in sets]))
        return torch.cat(blocks, dim=1) if blocks else torch.zeros(len(sets), 0, dtype=torch.float64)

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
        theta = torch.tensor([math.log(self.parameters[name]) for name in self.law.parameters], dtype=torch.float64)
        shifts = _STEP * torch.eye(len(theta), dtype=torch.float64)
        sets = [self.tensors()] + [self._with(theta + sign * shift).tensors() for shift in shifts for sign in (1, -1)]
        losses = self._losses(lrs, updates, sets)  # d log L / d theta_i by central differences: p pairs of forecasts
        central, up, down = losses[0], losses[1::2], losses[2::2]
        g = ((up.log() - down.log()) / (2 * _STEP)).T
        spread = ((g @ torch.tensor(self.covariance, dtype=torch.float64)) * g).sum(dim=1).clamp(min=0)
        unseen = torch.zeros_like(spread)
        departure = self.departure(lrs)
        if departure is not None:  # the misfit of a shape the fitted runs never showed, from where the run leaves them
            unseen[torch.as_tensor(updates) >= departure] = self.extrapolation_error**2
        sigma = (spread + self.noise**2 + self.systematic_error**2 + unseen).sqrt()
        z = NormalDist().inv_cdf(0.5 + level / 2)
        return central * torch.exp(-z * sigma), central * torch.exp(z * sigma)

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
                "how an earlier decay is realized is extrapolated (fit a run that decays like it, at full length)",
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
            ``fit error <e>% (noise <n>%, systematic <s>%)``, the parameters to 4 significant digits.
        """
        values = ", ".join(f"{name}={value:.4g}" for name, value in self.parameters.items())
        return (
            f"{self.law.name} law on {self.loss_column} of {len(self.runs)} run(s), {self.points} points: {values}; "
            f"fit error {self.error:.2%} (noise {self.noise:.2%}, systematic {self.systematic_error:.2%})"
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
