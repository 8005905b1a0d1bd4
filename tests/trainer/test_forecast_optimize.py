"""trainer.forecast.monotone and the schedule --optimize writes: the free lr curve improves a generated law's
final loss, never rises after the warmup, and is written out as a schedule Cadence trains as described.

Laws with known parameters (no fit, no training): no accuracy or timing threshold (bench/forecast_optimize.py
measures whether a recommendation wins when trained). The end-to-end run is in test_forecast_cli.py.
"""

from __future__ import annotations

import attrs
import pytest
import torch

from schedulers import Schedule
from trainer.forecast import AnnealingLaw, FittedLaw, MultiPowerLaw
from trainer.forecast.monotone import Knots, best_curve, final_loss, simplest_curve, simplify, trained_loss
from trainer.forecast.optimize import piecewise_schedule

MULTI_POWER = dict(L0=1.4, A=3.0, alpha=0.45, B=0.4, C=0.5, beta=0.6, gamma=0.4)
ANNEALING = dict(L0=1.5, A=3.0, alpha=0.5, C=0.003, delay=6.0)
PEAK = 0.01


def fitted(law, parameters: dict, lr_scale: float = PEAK) -> FittedLaw:
    return FittedLaw(law, dict(parameters), lr_scale, 0.003, 0.003, 100, "eval/loss", "lr/group0")


LAWS = {
    "multi-power": fitted(MultiPowerLaw(), MULTI_POWER),
    "annealing, fitted momentum": fitted(AnnealingLaw(), ANNEALING),
    "annealing, fixed momentum": fitted(AnnealingLaw(0.9), {k: v for k, v in ANNEALING.items() if k != "delay"}),
}


def cosine_run(batches: int = 301, warmup: int = 20, floor: float = 0.1) -> tuple[torch.Tensor, torch.Tensor]:
    """A warmup then a cosine decay to ``floor`` of the peak; and the fraction of the run at each update."""
    steps = torch.arange(batches, dtype=torch.float64)
    progress = ((steps - warmup) / (batches - warmup)).clamp(0, 1)
    lrs = PEAK * (floor + (1 - floor) * (1 + torch.cos(torch.pi * progress)) / 2)
    lrs[:warmup] = PEAK * (steps[:warmup] + 1) / (warmup + 1)
    return lrs, steps / batches


def loss_of(law: FittedLaw, lrs: torch.Tensor) -> float:
    with torch.no_grad():
        return float(final_loss(law)(lrs / law.lr_scale))


def follow(curve: Knots, lrs: torch.Tensor, positions: torch.Tensor, warmup: int = 20) -> torch.Tensor:
    """The run's lrs with ``curve`` after the warmup (times the peak)."""
    return torch.cat([lrs[:warmup], PEAK * curve.at(positions[warmup:])])


@pytest.mark.parametrize("name", list(LAWS))
def test_the_final_loss_is_the_laws_forecast_of_the_last_update(name):
    law = LAWS[name]
    lrs, _ = cosine_run()
    assert loss_of(law, lrs) == pytest.approx(float(law.predict(lrs, torch.tensor([len(lrs)]))[0]), rel=1e-9)


@pytest.mark.parametrize("name", list(LAWS))
def test_the_free_curve_lowers_the_laws_final_loss_and_never_rises(name):
    law = LAWS[name]
    lrs, positions = cosine_run()
    curve = best_curve(law, lrs, positions, knots=20)
    values = torch.tensor(curve.values)
    assert len(values) == 21 and curve.positions[0] == pytest.approx(float(positions[20])) and curve.positions[-1] == 1
    assert bool((values[1:] <= values[:-1]).all()) and bool((values >= 0).all()) and float(values[0]) <= 1
    ours = loss_of(law, follow(curve, lrs, positions))
    assert ours < loss_of(law, lrs)  # better than the cosine it started from
    assert ours < loss_of(law, torch.cat([lrs[:20], torch.full((len(lrs) - 20,), PEAK, dtype=torch.float64)]))


def test_the_multi_power_optimum_holds_the_peak_then_decays_without_reaching_zero():
    """With a saturating annealing term, a decrease late in the run barely pays: the optimum stays at the peak
    for a while and ends above 0 (as Luo et al. find), where the annealing law would drop to 0."""
    lrs, positions = cosine_run()
    curve = best_curve(LAWS["multi-power"], lrs, positions, knots=20)
    assert curve.values[1] == pytest.approx(1.0, abs=1e-3) and 0.0 < curve.values[-1] < 0.9


def test_the_simplest_curve_has_fewer_pieces_and_nearly_the_optimums_loss():
    law = LAWS["multi-power"]
    lrs, positions = cosine_run()
    free = best_curve(law, lrs, positions, knots=20)
    simple = simplest_curve(law, lrs, positions, free, within=1e-3)
    assert len(simple.values) < len(free.values)
    assert simple.positions[0] == free.positions[0] and simple.positions[-1] == 1.0
    assert all(b <= a for a, b in zip(simple.values[:-1], simple.values[1:], strict=True))
    optimum = loss_of(law, follow(free, lrs, positions))
    assert loss_of(law, follow(simple, lrs, positions)) <= optimum * (1 + 1e-3) + 1e-9


@pytest.mark.parametrize("name", list(LAWS))
def test_the_simplest_curves_values_are_refitted_not_the_free_curves_at_its_knots(name):
    """The schedule written out keeps the simplified knots' positions, but their values are optimized again
    under the law: it forecasts lower than the free curve's own values at those knots."""
    law = LAWS[name]
    lrs, positions = cosine_run()
    free = best_curve(law, lrs, positions, knots=20)
    simple = simplest_curve(law, lrs, positions, free, within=1e-3)
    at_knots = Knots(simple.positions, tuple(free.at(torch.tensor(simple.positions, dtype=torch.float64)).tolist()))
    assert len(simple.values) < len(free.values)
    objective = trained_loss(law)  # what the knots are optimized for
    with torch.no_grad():
        refitted, copied = (float(objective(follow(c, lrs, positions) / PEAK)) for c in (simple, at_knots))
    assert refitted < copied - 1e-7


@pytest.mark.parametrize("name", list(LAWS))
def test_the_recommended_curve_trains_every_update_it_holds(name):
    """An update at lr 0 trains nothing: the curve written out never holds lr 0 (at most its last update reaches
    it), though the annealing law, reading its decreases by updates, would credit waiting there."""
    law = LAWS[name]
    lrs, positions = cosine_run()
    free = best_curve(law, lrs, positions, knots=20)
    for curve in (free, simplest_curve(law, lrs, positions, free)):
        after = follow(curve, lrs, positions)[20:]
        assert int((after <= 1e-6 * PEAK).sum()) <= 1, curve


def test_the_annealing_objective_realizes_a_decrease_over_the_area_trained_after_it():
    """At the peak lr the objective is the law's own loss; a drop to 0 followed by waiting realizes nothing more
    there, while the law's own loss (by updates) keeps falling."""
    law = LAWS["annealing, fitted momentum"]
    objective, own = trained_loss(law), final_loss(law)
    stable = torch.ones(50, dtype=torch.float64)
    assert float(objective(stable)) == pytest.approx(float(own(stable)), rel=1e-12)
    dropped = [torch.cat([torch.ones(40), torch.zeros(n)]).to(torch.float64) for n in (1, 10)]
    assert float(objective(dropped[1])) == pytest.approx(float(objective(dropped[0])), rel=1e-12)
    assert float(own(dropped[1])) < float(own(dropped[0])) - 1e-4


def test_simplify_keeps_the_knots_a_curve_bends_at_and_stays_within_its_tolerance():
    positions = tuple(i / 10 for i in range(11))
    values = (1.0,) * 6 + (0.8, 0.6, 0.4, 0.3, 0.29)
    kept = simplify(Knots(positions, values), tolerance=0.02)
    assert kept.positions[0] == 0.0 and kept.positions[-1] == 1.0 and 0.5 in kept.positions
    x = torch.tensor(positions, dtype=torch.float64)
    assert float((kept.at(x) - torch.tensor(values, dtype=torch.float64)).abs().max()) <= 0.02
    assert simplify(Knots(positions, values), tolerance=1.0).positions == (0.0, 1.0)


@pytest.mark.parametrize("warmup", ["7ba", "0ba"])
def test_the_written_schedule_trains_the_knots(warmup):
    """Resolved for a run as the trainer resolves it, the --set value gives the warmup ramp, then the knots'
    values at their positions (in dur) and linear between them."""
    start = 0.07 if warmup == "7ba" else 0.0
    knots = Knots((start, 0.6, 0.8, 1.0), (1.0, 1.0, 0.5, 0.2513))
    text = piecewise_schedule(warmup, knots)
    import yaml

    (item,) = yaml.safe_load(text)
    curve = Schedule.from_config(item).resolve("100ba")
    if warmup == "7ba":
        assert curve(0) == 0.0 and curve(3.5) == pytest.approx(0.5)
    for x in (10, 40, 60, 70, 80, 90, 100):
        assert curve(x) == pytest.approx(float(knots.at(torch.tensor([x / 100], dtype=torch.float64))[0]), abs=1e-12), x


def test_one_piece_is_written_as_a_sequence_too():
    item = __import__("yaml").safe_load(piecewise_schedule("0ba", Knots((0.0, 1.0), (1.0, 0.3))))[0]
    curve = Schedule.from_config(item).resolve("10ba")
    assert [round(curve(x), 12) for x in (0, 5, 10)] == [1.0, 0.65, 0.3]


def test_a_run_without_updates_after_its_warmup_is_one_line():
    lrs = torch.linspace(0.001, 0.01, 10, dtype=torch.float64)
    with pytest.raises(ValueError, match="no update after its warmup ends"):
        best_curve(LAWS["multi-power"], lrs[:-1], torch.arange(9) / 10)
    with pytest.raises(ValueError, match="10 lrs but 9 positions"):
        best_curve(LAWS["multi-power"], lrs, torch.arange(9) / 10)


def _recommended(lrs: list[float]):
    from trainer.forecast.predict import Forecast

    lrs = torch.tensor(lrs, dtype=torch.float64)
    counts = torch.arange(1, len(lrs) + 1, dtype=torch.float64) * 8
    return Forecast("r", lrs, counts, "sample", torch.tensor([len(lrs)]), torch.tensor([2.0], dtype=torch.float64))


def test_a_recommendation_that_holds_lr_0_says_how_many_updates_train_nothing():
    from trainer.forecast.command import _idle

    warmup = [0.25, 0.5, 0.75]
    held = _idle(_recommended(warmup + [1.0] * 6 + [0.5, 0.0, 0.0, 0.0]))
    assert len(held) == 1 and "3 of its 13 updates (23%) at lr 0" in held[0]
    assert _idle(_recommended(warmup + [1.0] * 6 + [0.5, 0.25, 0.0])) == []  # only the last update: no note
    assert _idle(_recommended(warmup + [1.0] * 6 + [0.5, 0.1, 0.1])) == []  # a decay to 0.1 trains throughout
    assert _idle(_recommended([0.0, 0.0] + warmup + [1.0] * 6)) == []  # the warmup's lr 0 is not counted


def test_a_recommendation_ending_above_every_fitted_run_says_the_law_extrapolates():
    from trainer.forecast.command import _beyond_ends

    runs = [{"peak_lr": 0.02, "final_lr": 0.002}, {"peak_lr": 0.02, "final_lr": 0.0}]  # ends 0.1 and 0 of the peak
    law = attrs.evolve(LAWS["multi-power"], runs=runs)
    warmup = [0.25, 0.5, 0.75]
    (note,) = _beyond_ends(law, _recommended(warmup + [1.0] * 6 + [0.6, 0.29]))
    assert "ends at 0.29 of its peak lr" in note and "at most 0.10" in note
    assert _beyond_ends(law, _recommended(warmup + [1.0] * 6 + [0.5, 0.105])) == []  # within the margin
    assert _beyond_ends(law, _recommended(warmup + [1.0] * 6 + [0.5, 0.0])) == []
    old = attrs.evolve(law, runs=[{"peak_lr": 0.02, "s1": 1.0, "s2": 0.5}])  # saved before runs kept their last lr
    assert _beyond_ends(old, _recommended(warmup + [1.0] * 6 + [0.6, 0.29])) == []
