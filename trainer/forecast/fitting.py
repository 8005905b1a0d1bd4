r"""Fitting a law to logged runs: robust, from several starts, in float64.

The parameters :math:`\theta` are fitted as their logarithms (every one is positive) by minimizing the mean
Huber loss of the log residuals,

.. math:: \frac{1}{N} \sum_i H_\delta\bigl(\log \hat L_i(\theta) - \log L_i\bigr), \qquad
          H_\delta(r) = \begin{cases} r^2 / 2\delta & |r| \le \delta \\ |r| - \delta/2 & |r| > \delta \end{cases}

(:math:`\delta = 10^{-3}`, as both papers; divided by :math:`\delta` so that it is in units of the relative
residual), with L-BFGS from every starting point of the law, keeping the best. A run with more than 300 loss
points (a training loss logged at every step) is fitted on window means (:mod:`trainer.forecast.windows`; its
noise measured inside the windows), and the laws' sums cost time and memory linear in the log
(:mod:`trainer.forecast.sums`). A fit fails (a
:class:`~trainer.forecast.FitError` giving its error) when no start reaches finite parameters, when the best
is not a stationary point (unless its decay term runs off to a limit, where the error falls on towards a value
no finite parameters reach: a degenerate fit, kept and said, :attr:`~trainer.forecast.FittedLaw.degenerate`), or
when its systematic error (:mod:`trainer.forecast.fitted`) exceeds
``max_error``.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Sequence

import attrs
import torch

from trainer.forecast.advice import fit_advice
from trainer.forecast.errors import FitError, ForecastError
from trainer.forecast.fitted import MAX_LOG_SD, FittedLaw, after_decay, decay_start, extent
from trainer.forecast.laws import AnnealingLaw, MultiPowerLaw, law_named, warmup_updates
from trainer.forecast.runs import EVAL_LOSS, TRAIN_LOSS, RunCurve, read_run, run_folders
from trainer.forecast.sums import one_thread
from trainer.forecast.windows import Windows, window_means

__all__ = ["DEFAULT_LAW", "HUBER_DELTA", "fit_law", "fit_curves"]

HUBER_DELTA = 1e-3
#: with loss="auto", runs that do not all have 8 evaluations are fitted on the eval loss when each has this many
EVALS_EACH = 3
#: a fit is degenerate when L0 is under this fraction of the smallest loss fitted (docs/forecast.md)
DEGENERATE_L0 = 0.01
#: a fit has converged when one more round of L-BFGS from it lowers the objective by less than this fraction
SETTLED = 1e-3


#: the law fitted when none is named: the better on the forecast bench's held-out runs (docs/forecast.md); the
#: annealing law instead where this one's fit is degenerate and the annealing law's is not
DEFAULT_LAW = "multi-power"
#: why, as ``cadence forecast`` says it: the bench's mean errors, one-run and multi-run fits (docs/forecast.md)
BENCH = (
    "over the forecast bench's 21 seeds this choice missed by 1.0% on average, the multi-power law alone by 1.9%, "
    "the annealing law alone by 1.1% (docs/forecast.md)"
)


def fit_law(
    runs: Sequence[str | os.PathLike | RunCurve],
    *,
    law: str | AnnealingLaw | MultiPowerLaw = "auto",
    loss: str = "auto",
    lr_column: str | None = None,
    max_error: float = 0.03,
) -> FittedLaw:
    """Fit ``law`` to the loss curves of ``runs`` (run folders, their ``metrics.csv``, sweep folders: each of
    their runs, or :class:`RunCurve`); a point shared by two runs (a branch's rows up to its decay start, copied
    from its main run) counts once.

    Args:
        runs: Run folders, their ``metrics.csv`` files, sweep folders (each of their runs) or :class:`RunCurve` values.
        law: ``"annealing"``, ``"multi-power"``, a law object, or ``"auto"``: :data:`DEFAULT_LAW`, or the annealing
            law when its fit fails (the fit's ``choice`` says which and why).
        loss: The curve fitted: ``"eval"``, ``"train"``, or ``"auto"`` (the eval loss when every run has enough
            evaluations); every run is fitted on the same one.
        lr_column: The lr column of the records; None picks the first ``lr/...`` column.
        max_error: The largest mean relative error of a fit that counts as describing the runs.

    Returns:
        A :class:`FittedLaw`: the parameters, their uncertainty (for the intervals) and the runs it was fitted on.

    Raises:
        FitError: The fit did not converge or misses the runs by more than ``max_error`` (its ``fitted`` holds the
            best attempt), or it is degenerate.
        ForecastError: A run that cannot be read, too few points, or a bad argument, in one line.

    >>> fit_law(["runs/nowhere"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    trainer.forecast.errors.ForecastError: runs/nowhere: no metrics.csv (give a run folder ...)
    """
    curves = _curves(runs, loss, lr_column)
    if law == "auto":
        return _fit_default(curves, max_error)
    return fit_curves(curves, law=law_named(law) if isinstance(law, str) else law, max_error=max_error)


def _fit_default(curves: list[RunCurve], max_error: float) -> FittedLaw:
    """:data:`DEFAULT_LAW`; the annealing law where its fit is degenerate and the annealing law's is not, or where it
    fails or the runs have too few points for it (the fit's ``choice`` says which and why; an error of the annealing
    law's own fit is raised)."""
    curves = _counted_once(curves)  # here, so that a run given twice is said once, not once per law fitted
    try:
        fitted = fit_curves(curves, law=law_named(DEFAULT_LAW), max_error=max_error)
    except ForecastError as error:  # the other law: it may describe what this one could not, with fewer points
        fitted = fit_curves(curves, law=law_named("annealing"), max_error=max_error)
        return attrs.evolve(
            fitted, choice=f"the {DEFAULT_LAW} law, the default, failed: {' '.join(str(error).split())}"
        )
    if not fitted.degenerate:
        return attrs.evolve(fitted, choice=f"the default: {BENCH}")
    try:
        other = fit_curves(curves, law=law_named("annealing"), max_error=max_error)
    except ForecastError:
        other = None
    if other is None or other.degenerate:
        return attrs.evolve(fitted, choice=f"the default, its fit degenerate as the annealing law's: {BENCH}")
    return attrs.evolve(other, choice=f"the {DEFAULT_LAW} law's fit is degenerate and this one's is not: {BENCH}")


def _curves(runs, loss: str, lr_column: str | None) -> list[RunCurve]:
    given = [run for run in runs if isinstance(run, RunCurve)]
    folders = run_folders([run for run in runs if not isinstance(run, RunCurve)])
    curves = given + [read_run(run, loss=loss, lr_column=lr_column) for run in folders]
    if len({curve.loss_column for curve in curves}) > 1:  # "auto" chose differently: fit every run on one curve
        curves = _one_loss(curves)
    if loss == "auto" and curves and curves[0].loss_column == TRAIN_LOSS:  # say once which loss, and why
        fewest = min(curves, key=lambda curve: curve.evaluations)
        why = (
            f"no run logged {EVAL_LOSS}"
            if not any(curve.evaluations for curve in curves)
            else f"{fewest.name} logged {fewest.evaluations} {EVAL_LOSS} value(s), too few to fit (--loss eval to try)"
        )
        warnings.warn(f"fitting the training loss ({TRAIN_LOSS}): {why}", stacklevel=3)
    return curves


def _one_loss(curves: list[RunCurve]) -> list[RunCurve]:
    """Runs read on the eval loss by some and the training loss by others (too few evaluations): the eval loss
    when each has at least :data:`EVALS_EACH` evaluations (a sweep's short branch), else the training loss."""
    try:
        evaluated = [read_run(curve.folder, loss="eval", lr_column=curve.lr_column) for curve in curves]
    except ForecastError:
        evaluated = []
    if evaluated and all(len(curve.losses) >= EVALS_EACH for curve in evaluated):
        return evaluated
    return [read_run(curve.folder, loss="train", lr_column=curve.lr_column) for curve in curves]


def _unshared(curves: Sequence[RunCurve]) -> list[RunCurve]:
    """Each point once: a point of a later run at the same update, with the same loss and the same lrs up to it
    as an earlier run's (a branch's rows copied from its main run) is left out."""
    kept: list[RunCurve] = []
    for curve in curves:
        keep = torch.ones(len(curve.updates), dtype=torch.bool)
        for earlier in kept:
            same = _same_prefix(curve.lrs, earlier.lrs)
            known = dict(zip(earlier.updates.tolist(), earlier.losses.tolist(), strict=True))
            for i, (u, value) in enumerate(zip(curve.updates.tolist(), curve.losses.tolist(), strict=True)):
                keep[i] &= not (u <= same and known.get(u) == value)
        kept.append(attrs.evolve(curve, updates=curve.updates[keep], losses=curve.losses[keep]))
    return kept


def _counted_once(curves: Sequence[RunCurve]) -> list[RunCurve]:
    """:func:`_unshared`, leaving out (with a one-line warning) a run whose every point is an earlier run's: the
    same run given twice (or a copy of it) is counted once."""
    kept = []
    for curve, unshared in zip(curves, _unshared(curves), strict=True):
        if len(curve.losses) and not len(unshared.losses):
            message = f"{curve.name}: every point is also an earlier run's (the same run given twice?): counted once"
            warnings.warn(message, stacklevel=3)
            continue
        kept.append(unshared)
    return kept


def _same_prefix(a: torch.Tensor, b: torch.Tensor) -> int:
    """How many first lrs two runs share."""
    n = min(len(a), len(b))
    differ = (a[:n] != b[:n]).nonzero()
    return int(differ[0]) if len(differ) else n


def _after_warmup(curve: RunCurve) -> RunCurve:
    """The points measured once the warmup is over: during it the loss follows the warmup, not the law."""
    keep = curve.updates > warmup_updates(curve.lrs)
    return attrs.evolve(curve, updates=curve.updates[keep], losses=curve.losses[keep])


def _check_columns(curves: Sequence[RunCurve]) -> None:
    for attribute, what in (("loss_column", "losses"), ("lr_column", "lr")):
        columns = sorted({getattr(curve, attribute) for curve in curves})
        if len(columns) > 1:
            raise ForecastError(f"the runs give their {what} in different columns ({', '.join(columns)}): fit one kind")


def fit_curves(curves: Sequence[RunCurve], *, law: AnnealingLaw | MultiPowerLaw, max_error: float = 0.03) -> FittedLaw:
    """Fit ``law`` to curves already read (see :func:`fit_law`, which reads them).

    Args:
        curves: The runs' lr and loss curves.
        law: The law to fit.
        max_error: The largest mean relative error of a fit that counts as describing the runs.

    Returns:
        The :class:`FittedLaw`, as :func:`fit_law` gives it.

    Raises:
        FitError: As :func:`fit_law`.
        ForecastError: No curve, a ``max_error`` that is not a number > 0, or an lr that is 0 throughout.

    >>> from trainer.forecast.laws import law_named
    >>> fit_curves([], law=law_named("annealing"))
    Traceback (most recent call last):
    ...
    trainer.forecast.errors.ForecastError: no run to fit: give at least one run folder
    """
    if not (isinstance(max_error, (int, float)) and max_error > 0):
        raise ForecastError(f"max_error={max_error!r} must be a number > 0 (a relative error, 0.03 is 3%)")
    if not curves:
        raise ForecastError("no run to fit: give at least one run folder")
    _check_columns(curves)
    lr_scale = max(float(curve.lrs.max()) for curve in curves)
    if not lr_scale > 0:
        raise ForecastError(f"the lr of {', '.join(c.name for c in curves)} is 0 throughout: no law applies")
    curves = [_after_warmup(curve) for curve in _counted_once(curves)]
    points = sum(len(curve.losses) for curve in curves)
    needed = 2 * len(law.parameters)
    if points < needed:
        names = ", ".join(curve.name for curve in curves)
        hint = "" if curves[0].loss_column == TRAIN_LOSS else " (evaluate more often, or fit the training loss)"
        raise ForecastError(
            f"{points} {curves[0].loss_column} point(s) in {names}: fitting the {law.name} law "
            f"({len(law.parameters)} parameters) needs at least {needed}{hint}"
        )
    for curve in curves:
        if not len(curve.losses):
            warnings.warn(f"{curve.name}: no loss point after its warmup: left out of the fit", stacklevel=2)
    curves = [curve for curve in curves if len(curve.losses)]
    windows = [window_means(curve.updates, curve.losses) for curve in curves]  # a long log: window means
    reduced = [attrs.evolve(c, updates=w.updates, losses=w.losses) for c, w in zip(curves, windows, strict=True)]
    areas = [law.areas(curve.lrs / lr_scale) for curve in curves]
    with one_thread():
        data = [(law.at(a, curve.updates), curve.losses) for a, curve in zip(areas, reduced, strict=True)]
        theta, objective, settling = _best_fit(law, data, areas, reduced)
        return _fitted(law, curves, windows, data, theta, objective, settling, lr_scale, max_error)


def _objective(law, data, theta: torch.Tensor) -> torch.Tensor:
    p = dict(zip(law.parameters, theta.exp(), strict=True))
    residuals = torch.cat([_log_residuals(law, p, *item) for item in data])
    small = residuals.abs() <= HUBER_DELTA
    huber = torch.where(small, residuals**2 / (2 * HUBER_DELTA), residuals.abs() - HUBER_DELTA / 2)
    return huber.mean()


def _log_residuals(law, p, at: tuple[torch.Tensor, ...], losses: torch.Tensor) -> torch.Tensor:
    predicted = law.loss(p, at)
    return torch.log(predicted.clamp(min=1e-12)) - torch.log(losses)


def _best_fit(law, data, areas, curves) -> tuple[torch.Tensor | None, float, float]:
    """The log-parameters of the best start (None when no start gave a finite objective), its objective, and the
    fraction by which one more round of L-BFGS lowered it (about 0 for a converged fit)."""
    losses = torch.cat([item[1] for item in data])
    first_s1 = min(float(a.s1[c.updates].min()) for a, c in zip(areas, curves, strict=True))
    last_s2 = max(float(a.s2[c.updates].max()) for a, c in zip(areas, curves, strict=True))
    best, best_value = None, math.inf
    for start in law.starts(losses, first_s1, last_s2):
        theta = torch.tensor([math.log(max(start[name], 1e-12)) for name in law.parameters], dtype=torch.float64)
        theta, value = _minimize(law, data, theta)
        if math.isfinite(value) and value < best_value:
            best, best_value = theta, value
    if best is None:
        return None, math.inf, math.inf
    polished, value = _minimize(law, data, best, 400)  # once more from the best: a converged fit stays where it is
    # relative to the objective, but not below 1e-4 (0.01% mean residual): a perfect fit has nothing left to gain
    settling = (best_value - value) / max(abs(best_value), 1e-4) if math.isfinite(value) else math.inf
    return (polished, value, settling) if value <= best_value else (best, best_value, settling)


def _minimize(law, data, theta: torch.Tensor, iterations: int = 150) -> tuple[torch.Tensor, float]:
    theta = theta.clone().requires_grad_(True)
    optimizer = torch.optim.LBFGS(
        [theta], lr=1.0, max_iter=iterations, tolerance_grad=1e-9, tolerance_change=1e-13, line_search_fn="strong_wolfe"
    )

    def closure() -> torch.Tensor:
        optimizer.zero_grad()
        value = _objective(law, data, theta)
        if not torch.isfinite(value):  # a start where the law is not defined: let the line search back off
            return torch.tensor(1e6, dtype=torch.float64, requires_grad=True) + 0 * theta.sum()
        value.backward()
        return value

    try:
        optimizer.step(closure)
    except RuntimeError:  # pragma: no cover - a degenerate line search
        return theta.detach(), math.inf
    with torch.no_grad():
        value = float(_objective(law, data, theta))
    if not torch.isfinite(theta).all():
        return theta.detach(), math.inf
    return theta.detach(), value


def _fitted(law, curves, windows, data, theta, objective, settling, lr_scale, max_error) -> FittedLaw:
    names = ", ".join(curve.name for curve in curves)
    if theta is None:
        raise FitError(f"the {law.name} law did not converge on {names}: no start reached finite parameters")
    parameters = dict(zip(law.parameters, theta.exp().tolist(), strict=True))
    p = {name: torch.tensor(value, dtype=torch.float64) for name, value in parameters.items()}
    with torch.no_grad():
        relative = [torch.expm1(_log_residuals(law, p, *item)) for item in data]
    if any(w.reduced for w in windows):
        error, noise = _windowed_error(relative, windows)
    else:
        error, noise = float(torch.cat(relative).pow(2).mean().sqrt()), _noise(relative)
    fitted = FittedLaw(
        law=law,
        parameters=parameters,
        lr_scale=lr_scale,
        error=error,
        noise=noise,
        points=sum(len(r) for r in relative),
        loss_column=curves[0].loss_column,
        lr_column=curves[0].lr_column,
        runs=[_run_record(law, parameters, curve, lr_scale) for curve in curves],
    )
    fitted = attrs.evolve(fitted, covariance=_covariance(law, data, theta))
    problem = _problem(fitted, objective, settling, max_error, float(torch.cat([item[1] for item in data]).min()))
    if problem:
        failed = attrs.evolve(fitted, converged=False, message=f"{problem} ({names})")
        raise FitError(f"the {law.name} law {problem} on {names}", failed)
    return fitted


def _degenerate(fitted: FittedLaw, floor: float) -> str:
    """Why a fit's parameters say the runs do not determine the law, or "": the loss it tends to (``L0``) near 0,
    under 1% of the smallest loss fitted (``floor``): the power law does the work of a constant, and a longer
    run is forecast to fall on toward 0. (Other parameters may run off together where only a product of them is
    determined, such as the multi-power law's ``B`` and ``C`` when its decays are short; the forecasts depend
    on the product, and their interval says how well it is known.)"""
    l0 = fitted.parameters["L0"]
    if l0 < DEGENERATE_L0 * floor:
        return (
            f"L0 = {l0:.3g}, under {DEGENERATE_L0:.0%} of the smallest loss fitted ({floor:.4g}): the runs do not pin "
            f"the loss the law tends to ({_remedies(fitted)})"
        )
    return ""


def _remedies(fitted: FittedLaw) -> str:
    """What would pin a degenerate law: longer runs, several runs, and the eval loss only when the training loss
    was fitted on runs that logged one."""
    evaluated = fitted.loss_column == TRAIN_LOSS and any(run.get("evaluations") for run in fitted.runs)
    return fit_advice("floor" if evaluated else "floor without eval")


def _problem(fitted: FittedLaw, objective: float, settling: float, max_error: float, floor: float = 0.0) -> str:
    """Why a fit failed, or ""."""
    values = list(fitted.parameters.values())
    if not (math.isfinite(objective) and all(math.isfinite(v) for v in values) and math.isfinite(fitted.error)):
        return "did not converge: its parameters are not finite"
    if settling > SETTLED and not fitted.degenerate:  # a degenerate fit falls on toward its limit: said, not failed
        return f"did not converge: it stopped with fit error {fitted.error:.2%} where the error still falls"
    if fitted.systematic_error > max_error:
        return (
            f"does not describe the runs: fit error {fitted.error:.2%}, of which {fitted.systematic_error:.2%} is "
            f"systematic (beyond the noise of {fitted.noise:.2%}; at most {max_error:.2%} is accepted)"
        )
    degenerate = _degenerate(fitted, floor)
    return f"is degenerate: {degenerate}" if degenerate else ""


def _covariance(law, data, theta: torch.Tensor) -> list[list[float]] | None:
    r"""The covariance of the log-parameters the fitted points leave, :math:`s^2 (J^\top J)^{-1}` (Gauss-Newton on
    the log residuals); a direction the points do not determine gets a standard deviation of at most
    :data:`MAX_LOG_SD` (a factor of e in the parameters: the delay from one decay, the multi-power law's ``B``
    against ``C``). None with no more points than parameters."""

    def residuals(t: torch.Tensor) -> torch.Tensor:
        p = dict(zip(law.parameters, t.exp(), strict=True))
        return torch.cat([_log_residuals(law, p, *item) for item in data])

    r = residuals(theta)
    if len(r) <= len(theta):
        return None
    jacobian = _jacobian(residuals, theta)
    s2 = float(r.pow(2).sum()) / (len(r) - len(theta))
    values, vectors = torch.linalg.eigh(jacobian.T @ jacobian)
    values = values.clamp(min=max(s2, 1e-300) / MAX_LOG_SD**2)
    return (s2 * (vectors / values) @ vectors.T).tolist()


def _jacobian(residuals, theta: torch.Tensor) -> torch.Tensor:
    r""":math:`J = \partial r / \partial \theta` (points × parameters) in one pass per parameter, not one per
    point: the vector-Jacobian product :math:`g(v) = J^\top v` is linear in :math:`v`, so
    :math:`\partial g_i / \partial v = J_{:, i}` (torch's forward mode would do the same, but importing it costs
    seconds)."""
    t = theta.detach().requires_grad_(True)
    r = residuals(t)
    v = torch.zeros_like(r, requires_grad=True)
    (g,) = torch.autograd.grad(r, t, v, create_graph=True)
    columns = []
    for i in range(len(t)):
        (column,) = torch.autograd.grad(g[i], v, retain_graph=True, allow_unused=True)
        columns.append(torch.zeros_like(r) if column is None else column)
    return torch.stack(columns, dim=1).detach()


def _windowed_error(relative: list[torch.Tensor], windows: list[Windows]) -> tuple[float, float]:
    r"""The fit error and the noise of one logged point, from the residuals of window means (``relative``):
    the noise measured inside the windows (:mod:`trainer.forecast.windows`), and the systematic error what the
    window means miss beyond their own noise, :math:`\overline{r_w^2} - \overline{\text{noise}^2 / n_w}`;
    the error is :math:`\sqrt{\text{systematic}^2 + \text{noise}^2}`, what one logged point is off by."""
    pairs = [float((w.sizes - 1).sum()) for w in windows]
    noise2 = sum(n * w.noise**2 for n, w in zip(pairs, windows, strict=True)) / max(sum(pairs), 1.0)
    own = torch.cat([w.noise**2 / w.sizes.to(torch.float64) for w in windows])  # each window mean's noise
    systematic2 = max(float(torch.cat(relative).pow(2).mean() - own.mean()), 0.0)
    return math.sqrt(systematic2 + noise2), math.sqrt(noise2)


def _noise(relative: list[torch.Tensor]) -> float:
    """The scatter of consecutive residuals of each run (see :mod:`trainer.forecast.fitted`)."""
    steps = torch.cat([r[1:] - r[:-1] for r in relative])
    return float((steps.pow(2).mean() / 2).sqrt()) if len(steps) else 0.0


def _run_record(law, parameters: dict[str, float], curve: RunCurve, lr_scale: float) -> dict:
    s1, s2 = extent(law, parameters, curve.lrs / lr_scale)
    return {
        "folder": str(curve.folder),
        "points": len(curve.losses),
        "batches": len(curve.lrs),
        "peak_lr": float(curve.lrs.max()),
        "final_lr": float(curve.lrs[-1]),
        "s1": s1,
        "s2": s2,
        "decay_s1": decay_start(curve.lrs / lr_scale),
        "decayed": after_decay(curve.lrs, curve.updates),  # a fitted point after its decay: its decay terms are seen
        "final_loss": float(curve.losses[-1]),
        "evaluations": curve.evaluations,
        **({} if curve.samples_per_batch is None else {"samples_per_batch": curve.samples_per_batch}),
    }
