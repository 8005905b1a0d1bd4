"""trainer.forecast: the laws, fitting them to curves they generate, reading run folders, bad input.

The fits here are on curves generated from the laws (with noise); no accuracy threshold on real training
(that is bench/forecast.py's job). The end-to-end run is in test_forecast_cli.py.
"""

from __future__ import annotations

import csv
import json
import math
import warnings
from pathlib import Path
from statistics import NormalDist

import attrs
import pytest
import torch

from trainer.forecast import (
    AnnealingLaw,
    FitError,
    FittedLaw,
    ForecastError,
    MultiPowerLaw,
    RunCurve,
    fit_law,
    load_law,
    lr_areas,
    read_run,
)
from trainer.forecast.fitting import fit_curves
from trainer.forecast.laws import decreases, warmup_updates
from trainer.forecast.predict import forecast_lrs

TRUE = {"L0": 1.5, "A": 3.0, "alpha": 0.5, "C": 0.02, "delay": 6.0}


def wsd(batches: int, warmup: int = 20, decay: float = 0.2, peak: float = 0.01, floor: float = 0.0) -> torch.Tensor:
    lrs = torch.full((batches,), peak, dtype=torch.float64)
    lrs[:warmup] = torch.arange(warmup, dtype=torch.float64) / warmup * peak
    steps = int(batches * decay)
    lrs[batches - steps :] = peak * (floor + (1 - floor) * (1 - torch.arange(1, steps + 1) / steps))
    return lrs


def cosine(batches: int, warmup: int = 20, peak: float = 0.01, floor: float = 0.1) -> torch.Tensor:
    lrs = torch.arange(batches, dtype=torch.float64)
    tau = ((lrs - warmup) / (batches - warmup)).clamp(0, 1)
    decayed = peak * (floor + (1 - floor) * 0.5 * (1 + torch.cos(math.pi * tau)))
    return torch.where(lrs < warmup, lrs / warmup * peak, decayed)


def to_zero(batches: int, warmup: int = 20, decay: float = 0.5, peak: float = 0.01, shape: str = "linear"):
    """Warmup, stable, then a linear or cosine decay over the last ``decay`` that reaches exactly 0."""
    lrs = wsd(batches, warmup, decay, peak, floor=0.0)
    steps = int(batches * decay)
    if shape == "cosine":
        lrs[batches - steps :] = peak * 0.5 * (1 + torch.cos(math.pi * torch.arange(1, steps + 1) / steps))
    assert float(lrs[-1]) == 0.0
    return lrs


def truth(law, parameters, lrs, updates, reference=0.01) -> torch.Tensor:
    """The law's own loss after ``updates`` of a run with ``lrs`` (areas in updates at ``reference``)."""
    p = {k: torch.tensor(v, dtype=torch.float64) for k, v in parameters.items()}
    return law.loss(p, law.at(law.areas(lrs / reference), torch.as_tensor(updates)))


def generated(law, parameters, lrs, every=5, noise=0.003, seed=0, reference=None) -> RunCurve:
    """A run whose eval loss follows ``law`` with ``parameters`` (times 1 + noise), every ``every`` updates; its
    areas are counted at the ``reference`` lr (default: the run's peak)."""
    generator = torch.Generator().manual_seed(seed)
    updates = torch.arange(every, len(lrs) + 1, every)
    clean = truth(law, parameters, lrs, updates, float(lrs.max()) if reference is None else reference)
    noisy = clean * (1 + noise * torch.randn(len(updates), generator=generator, dtype=torch.float64))
    counts = torch.arange(1, len(lrs) + 1, dtype=torch.float64) * 100
    return RunCurve(Path(f"generated-{seed}"), lrs, updates, noisy, "eval/loss", "lr/group0", counts, "token")


# -- the areas --------------------------------------------------------------------------------------------


def test_the_areas_count_the_decreases_after_the_warmup_with_momentum():
    # warmup 0 -> 1, stable, two drops of 0.25, a rise of 0.25 (a re-warmup counts negative)
    lrs = torch.tensor([0.0, 0.5, 1.0, 1.0, 0.75, 0.5, 0.75])
    assert decreases(lrs).tolist() == [0.0, 0.0, 0.0, 0.0, 0.25, 0.25, -0.25]
    areas = lr_areas(lrs, decay=0.5)
    assert areas.s1.tolist() == [0.0, 0.0, 0.5, 1.5, 2.5, 3.25, 3.75, 4.5]
    # m: 0, 0, 0, 0, 0.25, 0.375, 0.1875 - 0.25 = -0.0625
    assert areas.s2.tolist() == pytest.approx([0, 0, 0, 0, 0, 0.25, 0.625, 0.5625])
    assert warmup_updates(lrs) == 2
    # a fitted decay (delay 1: lambda = 0.5) gives the same S_2 in closed form
    law, updates = AnnealingLaw(), torch.arange(2, 8)  # after 1 update S_1 = 0 (the lr was 0)
    p = {k: torch.tensor(v, dtype=torch.float64) for k, v in dict(L0=0.0, A=0.0, alpha=1.0, C=-1.0, delay=1.0).items()}
    assert law.loss(p, law.at(law.areas(lrs), updates)).tolist() == pytest.approx(areas.s2[2:].tolist(), abs=1e-12)


def test_the_multi_power_law_equals_its_sum_written_out():
    lrs = torch.tensor([0.2, 0.6, 1.0, 1.0, 0.8, 0.5, 0.5, 0.3, 0.1])
    p = {
        k: torch.tensor(v, dtype=torch.float64)
        for k, v in dict(L0=1.2, A=2.0, alpha=0.4, B=0.7, C=1.3, beta=0.6, gamma=0.5).items()
    }
    law = MultiPowerLaw()
    updates = torch.arange(1, len(lrs) + 1)
    fast = law.loss(p, law.at(law.areas(lrs), updates))
    eta = lrs.tolist()
    for u in updates.tolist():
        drop = 0.0
        for k in range(4, u + 1):  # the lr first decreases at update 5 (index 4): eta_0 is the peak
            since = sum(eta[k - 1 : u])
            g = 1 - (1.3 * eta[k - 1] ** -0.5 * since + 1) ** -0.6
            drop += (eta[k - 2] - eta[k - 1]) * g
        expected = 1.2 + 2.0 * sum(eta[:u]) ** -0.4 - 0.7 * drop
        assert float(fast[u - 1]) == pytest.approx(expected, rel=1e-12)


# -- fitting ----------------------------------------------------------------------------------------------


def test_the_annealing_fit_recovers_the_parameters_of_the_curves_it_generates():
    law = AnnealingLaw()
    runs = [generated(law, TRUE, wsd(300), seed=1), generated(law, TRUE, cosine(300), seed=2)]
    threads = torch.get_num_threads()
    fitted = fit_curves(runs, law=law)
    assert torch.get_num_threads() == threads  # the fit runs on one thread, and gives the others back
    for name, value in TRUE.items():
        assert fitted.parameters[name] == pytest.approx(value, rel=0.1 if name == "delay" else 0.05), name
    assert fitted.error < 0.005 and fitted.systematic_error < 0.002  # the noise is 0.3%
    # a schedule it was not fitted on: its final loss within 0.2% of the law's own
    lrs = wsd(300, decay=0.5)
    truth = law.loss({k: torch.tensor(v) for k, v in TRUE.items()}, law.at(law.areas(lrs / 0.01), torch.tensor([300])))
    assert float(fitted.predict(lrs, torch.tensor([300]))) == pytest.approx(float(truth), rel=0.002)


def test_the_multi_power_fit_forecasts_a_schedule_it_was_not_fitted_on():
    law = MultiPowerLaw()
    truth = dict(L0=1.4, A=3.0, alpha=0.45, B=0.3, C=0.5, beta=0.6, gamma=0.4)
    runs = [generated(law, truth, wsd(150), every=5, noise=0.002), generated(law, truth, cosine(150), every=5, seed=1)]
    fitted = fit_curves(runs, law=law)
    assert fitted.error < 0.004
    lrs = wsd(150, decay=0.5)
    p = {k: torch.tensor(v, dtype=torch.float64) for k, v in truth.items()}
    expected = law.loss(p, law.at(law.areas(lrs / 0.01), torch.tensor([150])))
    assert float(fitted.predict(lrs, torch.tensor([150]))) == pytest.approx(float(expected), rel=0.005)


MULTI_POWER = dict(L0=1.4, A=3.0, alpha=0.45, B=0.3, C=0.5, beta=0.6, gamma=0.4)


@pytest.mark.parametrize(("law", "parameters"), [(AnnealingLaw(), TRUE), (MultiPowerLaw(), MULTI_POWER)])
def test_every_law_fits_and_forecasts_decays_to_exactly_zero(law, parameters):
    """Linear and cosine decays that end at lr 0 (a common schedule): fitted on, and forecast, finite."""
    runs = [
        generated(law, parameters, to_zero(200, decay=0.2), seed=4),
        generated(law, parameters, cosine(200), seed=5),
    ]
    fitted = fit_curves(runs, law=law)
    assert all(math.isfinite(value) for value in fitted.parameters.values())
    for shape in ("linear", "cosine"):
        lrs = to_zero(200, decay=0.6, shape=shape)
        forecast = forecast_lrs(fitted, lrs, torch.arange(1, 201), "token", label=shape)
        assert torch.isfinite(forecast.losses).all()
        assert forecast.final_loss == pytest.approx(float(truth(law, parameters, lrs, [200])), rel=0.01), shape


@pytest.mark.parametrize("gamma", [0.5, 1.0, 2.0])
def test_a_later_decrease_to_lr_0_does_not_change_an_earlier_loss(gamma):
    """The loss after u updates depends on the lrs up to u only: a decrease at a later update counts nothing yet,
    whether it goes to 0.25 or to exactly 0 (before, a later drop to 0 counted in full for gamma > 1)."""
    law, parameters = MultiPowerLaw(), {**MULTI_POWER, "gamma": gamma}
    to_quarter = torch.tensor([1.0, 1.0, 0.5, 0.25], dtype=torch.float64)
    to_zero_lr = torch.tensor([1.0, 1.0, 0.5, 0.0], dtype=torch.float64)
    for updates in ([1, 2, 3], [3]):
        early = truth(law, parameters, to_zero_lr, updates, reference=1.0)
        assert early.tolist() == truth(law, parameters, to_quarter, updates, reference=1.0).tolist()
    assert (
        truth(law, parameters, to_zero_lr, [4], reference=1.0).tolist()
        != truth(law, parameters, to_quarter, [4], reference=1.0).tolist()
    )  # at the drop itself, the two differ


@pytest.mark.parametrize(("gamma", "near"), [(0.5, 1e-12), (3.0, 1e-9), (6.0, 1e-9)])
def test_a_forecast_of_a_decay_to_exactly_0_is_the_limit_of_decays_to_nearly_0(gamma, near):
    """At every gamma (for gamma > 1 the last decrease, to 0, counts in full: its limit is 1, not 0), the forecast
    of a linear decay that ends at exactly lr 0 is that of the same decay ending at ``near`` of the peak (small
    enough that its term is within 1e-9 of the limit)."""
    runs = [{"s1": 1e3, "s2": 1e3, "peak_lr": 0.01}]
    parameters = {**MULTI_POWER, "gamma": gamma}
    fitted = FittedLaw(MultiPowerLaw(), parameters, 0.01, 0.003, 0.003, 50, "eval/loss", "lr/group0", runs)
    zero = to_zero(200, decay=0.3)
    counts = torch.arange(1, 201, dtype=torch.float64)
    nearly = torch.cat([zero[:-1], torch.tensor([near * 0.01], dtype=torch.float64)])  # only its last lr is 0
    at_zero, at_near = (forecast_lrs(fitted, lrs, counts, "sample", label="to 0") for lrs in (zero, nearly))
    assert at_zero.losses.tolist() == pytest.approx(at_near.losses.tolist(), rel=1e-8)


def test_the_multi_power_law_at_lr_0_is_the_limit_of_its_terms():
    """At lr 0 the multi-power law takes its terms' limits: the loss of an lr that falls to 1e-9 and then to 0
    is the loss of an lr that stays at 1e-9 (to 1e-6), and nothing changes while the lr stays 0 (gamma < 1)."""
    law = MultiPowerLaw()
    zero = torch.cat([to_zero(120), torch.zeros(15, dtype=torch.float64)])
    near = zero.clamp(min=1e-9 * 0.01)
    updates = torch.arange(21, 136)
    at_zero, at_near = truth(law, MULTI_POWER, zero, updates), truth(law, MULTI_POWER, near, updates)
    assert torch.isfinite(at_zero).all()
    assert at_zero.tolist() == pytest.approx(at_near.tolist(), rel=1e-6)
    assert at_zero[-16:].tolist() == pytest.approx([float(at_zero[-1])] * 16, rel=1e-12)  # lr 0: nothing trains
    steep = {**MULTI_POWER, "gamma": 30.0}  # gamma > 1: the last decrease counts in full at once
    assert torch.isfinite(truth(law, steep, zero, updates)).all()
    p = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in MULTI_POWER.items()}
    law.loss(p, law.at(law.areas(zero / 0.01), updates)).sum().backward()
    assert all(torch.isfinite(value.grad) for value in p.values())  # a fit on a run that reaches 0 has gradients


def test_a_forecast_follows_the_peak_lr_of_the_run_it_forecasts():
    """Runs at peaks 0.01 and 0.02 fitted together: a forecast at 0.015 is the law's at 0.015 (a forecast
    that ignored the peak would give every peak the same loss)."""
    law = AnnealingLaw()
    runs = [
        generated(law, TRUE, wsd(300, peak=0.01), seed=6, reference=0.01),
        generated(law, TRUE, wsd(300, peak=0.02), seed=7, reference=0.01),
    ]
    fitted = fit_curves(runs, law=law)
    finals = {}
    for peak in (0.005, 0.015):
        lrs = wsd(300, decay=0.4, peak=peak)
        finals[peak] = forecast_lrs(fitted, lrs, torch.arange(1, 301), "token", label=str(peak)).final_loss
        assert finals[peak] == pytest.approx(float(truth(law, TRUE, lrs, [300], reference=0.01)), rel=0.005)
    assert finals[0.005] > finals[0.015] * 1.02  # on this law a lower peak trains less far


def test_the_80_percent_intervals_cover_generated_measurements_at_about_their_rate():
    """Ten runs generated from the law (0.5% noise), each fitted alone; their forecasts of three other schedules
    within the fitted range (a rerun, a shorter decay, a shorter run: no unseen misfit is added) against a
    measurement generated the same way: about 80% inside (24 of 30 expected; 20 with these fixed seeds, as 20
    points of one run estimate the noise a little low)."""
    law = AnnealingLaw(decay=0.9)
    parameters = {k: v for k, v in TRUE.items() if k != "delay"}
    inside, total = 0, 0
    for seed in range(10):
        fitted = fit_curves([generated(law, parameters, wsd(200), every=10, noise=0.005, seed=100 + seed)], law=law)
        generator = torch.Generator().manual_seed(1000 + seed)
        for lrs in (wsd(200), wsd(200, decay=0.15), wsd(195)):
            assert fitted.departure(lrs) is None
            measured = float(truth(law, parameters, lrs, [len(lrs)])) * (
                1 + 0.005 * float(torch.randn(1, generator=generator, dtype=torch.float64))
            )
            low, high = fitted.interval(lrs, torch.tensor([len(lrs)]))
            inside += float(low) <= measured <= float(high)
            total += 1
    assert 0.6 <= inside / total <= 0.95
    wide = fitted.interval(cosine(200), torch.tensor([200]), level=0.95)
    narrow = fitted.interval(cosine(200), torch.tensor([200]), level=0.5)
    assert wide[0] < narrow[0] < narrow[1] < wide[1]
    with pytest.raises(ForecastError, match=r"level=1\.5 must be a probability in \(0, 1\)"):
        fitted.interval(cosine(200), torch.tensor([200]), level=1.5)


def test_a_delay_one_decay_cannot_pin_widens_the_forecasts_that_depend_on_it():
    """The delay from one WSD decay is poorly determined; with a second run that decays elsewhere (a cosine), the
    interval of a forecast of a long early decay narrows."""
    law = AnnealingLaw()
    one = fit_curves([generated(law, TRUE, wsd(300), seed=8)], law=law)
    two = fit_curves([generated(law, TRUE, wsd(300), seed=8), generated(law, TRUE, cosine(300), seed=9)], law=law)
    lrs, end = wsd(300, decay=0.7), torch.tensor([300])
    widths = [float(fit.interval(lrs, end)[1] / fit.interval(lrs, end)[0]) for fit in (one, two)]
    assert widths[0] > widths[1]


def test_a_law_that_does_not_describe_the_runs_fails_with_its_error_and_predicts_nothing():
    lrs = wsd(200)
    updates = torch.arange(25, 201, 5)
    rising = 2.0 + 0.005 * updates.to(torch.float64)  # a loss that rises: no law of a falling loss fits it
    run = RunCurve(Path("rising"), lrs, updates, rising, "eval/loss", "lr/group0")
    with pytest.raises(
        FitError, match=r"annealing law (does not describe|did not converge).*fit error \d+\.\d+%"
    ) as caught:
        fit_curves([run], law=AnnealingLaw())
    failed = caught.value.fitted
    assert not failed.converged and failed.error > 0.03
    with pytest.raises(ForecastError, match="this fit failed, so it predicts nothing"):
        failed.predict(lrs)


def test_too_few_points_to_fit_is_one_line_naming_the_run_and_the_count():
    run = RunCurve(
        Path("short"), wsd(100), torch.tensor([30, 60, 90]), torch.tensor([3.0, 2.5, 2.2]), "eval/loss", "lr/group0"
    )
    with pytest.raises(
        ForecastError, match=r"3 eval/loss point\(s\) in short: .*annealing law \(5 parameters\) needs at least 10"
    ):
        fit_curves([run], law=AnnealingLaw())


def test_a_forecast_beyond_the_fitted_runs_is_flagged_with_the_fitted_range():
    law = AnnealingLaw(decay=0.9)
    fitted = fit_curves([generated(law, {**TRUE, "C": 0.004}, wsd(300), seed=3)], law=law)
    inside = forecast_lrs(fitted, wsd(300, decay=0.15), torch.arange(300), "token", label="shorter decay")
    assert inside.warnings == ()
    longer = forecast_lrs(fitted, wsd(600), torch.arange(600), "token", label="double")
    (message,) = [m for m in longer.warnings if "S1" in m]
    assert "beyond the fitted runs' 2" in message and "extrapolates in time" in message  # S1 of the fitted run: 2xx
    hotter = forecast_lrs(fitted, wsd(300, peak=0.02), torch.arange(300), "token", label="hot")
    assert any("peak lr 0.02 is outside the fitted runs' 0.01" in m for m in hotter.warnings)


def test_a_decay_that_starts_before_every_fitted_runs_is_flagged_with_where_theirs_start():
    law = AnnealingLaw(decay=0.9)
    fitted = fit_curves(
        [generated(law, {**TRUE, "C": 0.004}, lrs, seed=3) for lrs in (wsd(300), wsd(200, decay=0.3))], law=law
    )
    # the earliest fitted decay starts after 140 updates: S1 = 9.5 of warmup + 120 at the peak
    assert sorted(run["decay_s1"] for run in fitted.runs) == pytest.approx([129.5, 229.5])  # sums: not by bits
    for lrs in (wsd(300, decay=0.15), wsd(300, decay=0.5), wsd(200, decay=0.3), wsd(150, decay=0.01)):
        assert fitted.range_warnings(lrs) == []  # each decays from S1 >= 0.95 x 129.5
    half = fitted.range_warnings(wsd(150))
    assert half == [
        "its lr falls from S1 = 109.5 on, earlier than any fitted run's (from S1 = 129.5): how an earlier decay "
        "is realized is extrapolated (fit a run that decays like it, at full length)"
    ]
    # a cosine falls from its second update at the peak
    assert any("from S1 = 10.5 on" in m for m in fitted.range_warnings(cosine(300)))
    flat = wsd(300, decay=0.0)
    assert all("falls" not in m for m in fitted.range_warnings(flat))  # no decay: nothing to place
    saved_before = attrs.evolve(fitted, runs=[{k: v for k, v in r.items() if k != "decay_s1"} for r in fitted.runs])
    assert saved_before.range_warnings(wsd(150)) == []  # a law saved without it: nothing known, nothing said


def test_an_extrapolated_forecast_adds_the_unseen_misfit_from_the_update_it_leaves_the_fitted_range():
    """sigma^2 gains (2.25 x the fit error)^2, less what the parameters' spread already allows (the larger of the
    two counts), from the first update outside the fitted runs' range, for each reason the range warnings give;
    nothing before it, nothing for a run within the range."""
    law = AnnealingLaw(decay=0.9)
    fitted = fit_curves(
        [generated(law, {**TRUE, "C": 0.004}, lrs, seed=3) for lrs in (wsd(300), wsd(200, decay=0.3))], law=law
    )
    assert fitted.extrapolation_error == pytest.approx(2.25 * fitted.error)
    half = wsd(150)  # flat for 120 updates: the 121st is the first at a lower lr, earlier (in S1) than any fitted
    assert fitted.departure(half) == 121
    assert fitted.departure(wsd(300, peak=0.02)) == 12  # the warmup's lr 0.011 > 1.05 x 0.01 at its 12th update
    longer = wsd(400)
    out = fitted.departure(longer)
    s1 = torch.cumsum(longer / fitted.lr_scale, 0)
    limit = 1.05 * max(run["s1"] for run in fitted.runs)
    assert float(s1[out - 2]) <= limit < float(s1[out - 1])  # the first update whose S1 passes 1.05 x theirs
    assert fitted.departure(wsd(300, decay=0.15)) is None and fitted.range_warnings(wsd(300, decay=0.15)) == []
    # fitted on runs that never decayed: a decay leaves their range (S2 > 0) at its first falling update
    flat = attrs.evolve(fitted, runs=[{"s1": 400.0, "s2": 0.0, "peak_lr": 0.01}])
    assert flat.departure(wsd(300)) == 241 and "they never decreased the lr" in flat.range_warnings(wsd(300))[0]

    def variance(of: FittedLaw, lrs: torch.Tensor, updates: torch.Tensor) -> torch.Tensor:
        low, high = of.interval(lrs, updates)
        return (torch.log(high / low) / (2 * NormalDist().inv_cdf(0.9))) ** 2

    # the same fit told of a run that decays as early: the same parameters and covariance, nothing unseen
    told = attrs.evolve(fitted, runs=[*fitted.runs, {**fitted.runs[0], "decay_s1": 100.0}])
    assert told.departure(half) is None
    updates = torch.tensor([60, 120, 121, 150])
    added = variance(fitted, half, updates) - variance(told, half, updates)
    spread = fitted.variance_terms(half, updates)["parameters"]
    assert bool((spread[2:] < 0.5 * fitted.extrapolation_error**2).all())  # the unseen misfit is the larger here
    expected = [0, 0, *(fitted.extrapolation_error**2 - spread[2:]).tolist()]
    assert added.tolist() == pytest.approx(expected, rel=1e-6, abs=1e-12)


def test_the_time_term_counts_doublings_of_the_updates_beyond_the_longest_fitted_run_not_of_s1():
    """sigma^2's time term is (1.75 x error x log2(u / n_fit))^2 for u updates past the longest fitted run's n_fit:
    a run of 3 x 300 updates gets log2(3) doublings at its end and none at update 300; a run as long as the fitted
    one at twice their peak lr (twice their S1, a flag of its own) gets none, and a shorter one none either."""
    law = AnnealingLaw(decay=0.9)
    fitted = fit_curves(
        [generated(law, {**TRUE, "C": 0.004}, lrs, seed=3) for lrs in (wsd(300), wsd(200, decay=0.3))], law=law
    )
    assert max(run["batches"] for run in fitted.runs) == 300
    longer = fitted.variance_terms(wsd(900), torch.tensor([250, 300, 600, 900]))["longer"]
    per_doubling = (1.75 * fitted.error) ** 2
    assert longer.tolist() == pytest.approx([0, 0, per_doubling, per_doubling * math.log2(3) ** 2], rel=1e-9)
    hotter = wsd(300, peak=0.02)
    assert fitted.range_warnings(hotter)  # flagged for its lr, which the unseen misfit allows for
    assert fitted.variance_terms(hotter, torch.tensor([300]))["longer"].tolist() == [0.0]
    assert fitted.variance_terms(wsd(150), torch.tensor([150]))["longer"].tolist() == [0.0]
    unmeasured = attrs.evolve(fitted, runs=[{k: v for k, v in run.items() if k != "batches"} for run in fitted.runs])
    assert unmeasured.variance_terms(wsd(900), torch.tensor([900]))["longer"].tolist() == [0.0]  # built by hand


def test_the_unseen_misfit_and_the_parameters_spread_count_once_the_larger():
    """Where a forecast leaves the fitted range, sigma^2 holds max(spread, (2.25 x error)^2), not their sum: a fit
    on one decay (the delay loose, a wide spread for other decays) adds nothing for an earlier decay where its
    spread is the larger, and a fit on two decays adds the difference where the unseen misfit is."""
    law = AnnealingLaw(decay=0.9)
    two = fit_curves(
        [generated(law, {**TRUE, "C": 0.004}, lrs, seed=3) for lrs in (wsd(300), wsd(200, decay=0.3))], law=law
    )
    delayed = AnnealingLaw()  # with its delay, which one short decay leaves loose
    one = fit_curves([generated(delayed, TRUE, wsd(300, decay=0.1), seed=5)], law=delayed)
    cosine = 0.01 * (0.5 + 0.5 * torch.cos(torch.pi * torch.arange(1, 301, dtype=torch.float64) / 300))
    at = torch.tensor([300])
    cases = []
    for fitted in (one, two):
        terms = fitted.variance_terms(cosine, at)
        assert fitted.departure(cosine) is not None
        spread, unseen = float(terms["parameters"][0]), fitted.extrapolation_error**2
        assert float(terms["parameters"][0] + terms["unseen"][0]) == pytest.approx(max(spread, unseen), rel=1e-9)
        cases.append(spread > unseen)
    assert cases == [True, False]  # both sides of the max are exercised


def test_a_forecasts_interval_widens_by_the_unseen_misfit_at_the_first_update_outside_the_fitted_range():
    """A second check of where an extrapolated interval starts, through :func:`forecast_lrs` and from the range's
    definition (not :meth:`FittedLaw.departure`): the squared half-width of the log-interval, per update, jumps by
    (2.25 x the fit error)^2 less the parameters' spread there (the larger of the two counts) between the last
    update inside the fitted range and the first outside it, and nowhere else does it move by a tenth of that."""
    law = AnnealingLaw(decay=0.9)
    fitted = fit_curves(
        [generated(law, {**TRUE, "C": 0.004}, lrs, seed=3) for lrs in (wsd(300), wsd(200, decay=0.3))], law=law
    )
    s1_limit = 1.05 * max(run["s1"] for run in fitted.runs)
    longer = wsd(400)
    leaves = {  # the first update outside the range, 1-based
        "an earlier decay": (wsd(150), 121),  # flat for 120 updates, its lr falls at the 121st
        "a longer run": (longer, int((torch.cumsum(longer / fitted.lr_scale, 0) <= s1_limit).sum()) + 1),
    }
    z = NormalDist().inv_cdf(0.9)
    for label, (lrs, first_outside) in leaves.items():
        forecast = forecast_lrs(fitted, lrs, torch.arange(1.0, len(lrs) + 1), "sample", label=label)
        assert forecast.updates.tolist() == list(range(21, len(lrs) + 1))  # every update after the warmup
        spread = (torch.log(forecast.high / forecast.low) / (2 * z)) ** 2
        steps = spread[1:] - spread[:-1]  # steps[i]: from update 21 + i to 22 + i
        jump = first_outside - 22
        parameters = float(fitted.variance_terms(lrs, torch.tensor([first_outside]))["parameters"][0])
        assert parameters < 0.5 * fitted.extrapolation_error**2, label  # the unseen misfit is the larger
        assert float(steps[jump]) == pytest.approx(fitted.extrapolation_error**2 - parameters, rel=0.05), label
        others = torch.cat([steps[:jump], steps[jump + 1 :]]).abs()
        assert float(others.max()) < 0.1 * fitted.extrapolation_error**2, label


def test_a_saved_law_reads_back_equal(tmp_path):
    law = AnnealingLaw(decay=0.99)
    fitted = fit_curves([generated(law, {**TRUE, "C": 0.004}, wsd(300), seed=4)], law=law)
    path = fitted.save(tmp_path / "law.json")
    data = json.loads(path.read_text())
    assert data["law"] == "annealing" and data["settings"] == {"decay": 0.99}
    assert data["runs"][0]["folder"] == "generated-4" and data["fit"]["converged"] is True
    again = load_law(path)
    assert again == fitted
    assert list(tmp_path.iterdir()) == [path]  # written atomically: no temporary file left


def test_a_file_that_is_not_a_saved_law_is_one_line(tmp_path):
    (tmp_path / "other.json").write_text('{"format": "something"}')
    with pytest.raises(ForecastError, match="not a law saved by cadence forecast"):
        load_law(tmp_path / "other.json")
    (tmp_path / "cut.json").write_text('{"format": "cadence-forecast-law", "law": "annealing"}')
    with pytest.raises(ForecastError, match="a saved law with a missing or malformed entry"):
        load_law(tmp_path / "cut.json")


def test_an_unknown_law_name_suggests_the_known_ones():
    with pytest.raises(ValueError, match="law='multipower' must be one of 'annealing', 'multi-power'.*did you mean"):
        fit_law(
            [RunCurve(Path("any"), wsd(40), torch.arange(5, 41), torch.ones(36), "eval/loss", "lr/group0")],
            law="multipower",
        )


# -- reading run folders ----------------------------------------------------------------------------------


def write_metrics(folder: Path, rows: list[dict], header: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "metrics.csv", "w", newline="") as stream:
        writer = csv.DictWriter(stream, header)
        writer.writeheader()
        writer.writerows(rows)
    return folder


def logged_rows(batches: int = 40, evals_every: int = 4) -> list[dict]:
    lrs = wsd(batches, warmup=4)
    rows = []
    for batch in range(1, batches + 1):
        row = {"batch": batch, "epoch": 0, "sample": 8 * batch, "token": 0}
        rows.append({**row, "train/loss": 3.0 / batch**0.3, "lr/group0": float(lrs[batch - 1])})
        if batch % evals_every == 0:
            rows.append({**row, "eval/loss": 3.1 / batch**0.3})
    return rows


HEADER = ["batch", "epoch", "sample", "token", "train/loss", "lr/group0", "eval/loss"]


def test_a_run_reads_the_lr_of_each_batch_and_the_loss_after_its_updates(tmp_path):
    folder = write_metrics(tmp_path / "run", logged_rows(), HEADER)
    run = read_run(folder, loss="train")
    assert len(run.lrs) == 40 and run.lrs[0] == 0.0 and run.lr_column == "lr/group0"
    # batch 1 trained with lr 0 (nothing learnt): the first point is the loss of batch 3, after 2 updates
    assert run.updates[:2].tolist() == [2, 3] and float(run.losses[0]) == pytest.approx(3.0 / 3**0.3)
    evaluated = read_run(folder, loss="auto")  # 10 evaluations: the eval loss
    assert evaluated.loss_column == "eval/loss" and evaluated.updates[:2].tolist() == [4, 8]
    assert evaluated.unit == "sample" and evaluated.counts[3] == 32


def test_a_run_without_an_lr_column_is_one_line(tmp_path):
    rows = [{k: v for k, v in row.items() if k != "lr/group0"} for row in logged_rows()]
    folder = write_metrics(tmp_path / "run", rows, [c for c in HEADER if c != "lr/group0"])
    with pytest.raises(
        ForecastError, match=r"run/metrics.csv: no lr column \(lr/group0, \.\.\.\): the run's learning rate"
    ):
        read_run(folder)


def test_a_run_without_a_loss_column_or_metrics_is_one_line(tmp_path):
    rows = [{k: v for k, v in row.items() if k not in ("train/loss", "eval/loss")} for row in logged_rows()]
    folder = write_metrics(tmp_path / "run", rows, ["batch", "epoch", "sample", "token", "lr/group0"])
    with pytest.raises(ForecastError, match="no train/loss column: it is not the metrics of a training run"):
        read_run(folder)
    with pytest.raises(ForecastError, match="no metrics.csv"):
        read_run(tmp_path / "nothing-here")
    unevaluated = write_metrics(tmp_path / "plain", [r for r in logged_rows() if "eval/loss" not in r], HEADER)
    with pytest.raises(ForecastError, match="no eval/loss: the run was not evaluated"):
        read_run(unevaluated, loss="eval")


def test_a_gap_in_the_batches_is_refused(tmp_path):
    rows = [row for row in logged_rows() if row["batch"] not in (7, 8)]
    folder = write_metrics(tmp_path / "run", rows, HEADER)
    with pytest.raises(
        ForecastError, match=r"2 of batches 1\.\.40 have no row \(the first: 7\): the lr curve has a gap"
    ):
        read_run(folder)


def test_a_run_without_an_eval_loss_says_the_training_loss_is_fitted_and_advises_nothing_it_cannot_give(tmp_path):
    """Without an eval loss the training loss is fitted, and said once; a degenerate fit then advises longer or
    more runs, not the eval loss the run does not have (a run that has one is advised to fit it)."""
    plain = write_metrics(tmp_path / "plain", [row for row in logged_rows() if "eval/loss" not in row], HEADER)
    with pytest.warns(UserWarning) as said, pytest.raises(FitError) as failed:  # a pure power law: L0 -> 0
        fit_law([plain])
    assert [str(w.message) for w in said] == ["fitting the training loss (train/loss): no run logged eval/loss"]
    assert str(failed.value).endswith("(fit longer runs, or several runs) on " + str(plain))
    rows = [row for row in logged_rows() if row["batch"] <= 20 or "eval/loss" not in row]  # 5 evaluations
    few = write_metrics(tmp_path / "few", rows, HEADER)
    with pytest.warns(UserWarning, match=r"few logged 5 eval/loss value\(s\), too few to fit \(--loss eval to try\)"):
        with pytest.raises(FitError, match=r"\(fit the eval loss, longer runs, or several runs\)"):
            fit_law([few])
    evaluated = write_metrics(tmp_path / "evaluated", logged_rows(), HEADER)
    with warnings.catch_warnings(), pytest.raises(FitError, match=r"\(fit the eval loss, longer runs, or several"):
        warnings.simplefilter("error")  # the training loss chosen: no note
        fit_law([evaluated], loss="train")
