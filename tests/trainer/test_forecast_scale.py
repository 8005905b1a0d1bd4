"""trainer.forecast at the size of real logs: what the laws read grows linearly in the logged updates, the new
sums equal the laws written out (points × decreases, as they were computed before), and a long log is fitted
on window means whose noise is measured inside the windows. No timing: bench/forecast_scale.py measures it."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from trainer.forecast import AnnealingLaw, MultiPowerLaw, RunCurve
from trainer.forecast.fitting import fit_curves
from trainer.forecast.laws import lr_areas
from trainer.forecast.sums import EXACT_DECREASES, decayed_sums
from trainer.forecast.windows import FITTED_POINTS, window_means

MULTI = {"L0": 1.9, "A": 3.1, "alpha": 0.37, "B": 0.43, "C": 1.7, "beta": 0.55, "gamma": 0.62}
ANNEALING = {"L0": 1.9, "A": 3.1, "alpha": 0.37, "C": 0.0013, "delay": 41.0}


def tensors(values: dict[str, float]) -> dict[str, torch.Tensor]:
    return {name: torch.tensor(value, dtype=torch.float64) for name, value in values.items()}


def cosine(n: int, warmup: int = 10, floor: float = 0.1) -> torch.Tensor:
    k = torch.arange(n, dtype=torch.float64)
    tau = ((k - warmup) / (n - warmup)).clamp(0, 1)
    body = floor + (1 - floor) * 0.5 * (1 + torch.cos(math.pi * tau))
    return torch.where(k < warmup, (k + 1) / warmup, body)


def bumpy(n: int = 60) -> torch.Tensor:
    """Warmup, steps down, a re-warmup (negative decreases), a decay to exactly 0 held, then a restart."""
    lrs = torch.ones(n, dtype=torch.float64)
    lrs[:5] = torch.arange(1, 6, dtype=torch.float64) / 5
    lrs[20:30] = 0.5
    lrs[30:35] = torch.tensor([0.6, 0.7, 0.3, 0.2, 0.1], dtype=torch.float64)
    lrs[35:45] = 0.0
    lrs[45:] = 0.25
    return lrs


def written_out(law, p: dict[str, float], lrs: torch.Tensor, updates: list[int]) -> list[float]:
    """The loss after each of ``updates`` from the laws' sums over every decrease, term by term."""
    areas = lr_areas(lrs, 0.0)
    eta, drops, s1 = lrs.tolist(), areas.drops.tolist(), areas.s1.tolist()
    losses = []
    for u in updates:
        total = 0.0
        for k in range(1, u + 1):  # decrease k: Delta_k = drops[k - 1], trained with eta_k = eta[k - 1]
            if drops[k - 1] == 0:
                continue
            if isinstance(law, AnnealingLaw):
                decay = p["delay"] / (1 + p["delay"])
                total += drops[k - 1] * (1 - decay ** (u - k + 1)) * (1 + p["delay"])
            else:
                since = s1[u] - s1[k - 1]
                if eta[k - 1] == 0:
                    g = 1.0 if since > 0 else 0.0  # gamma < 1: nothing is realized while the lr stays 0
                else:
                    g = 1 - (p["C"] * eta[k - 1] ** -p["gamma"] * since + 1) ** -p["beta"]
                total += drops[k - 1] * g
        scale = p["C"] if isinstance(law, AnnealingLaw) else p["B"]
        losses.append(p["L0"] + p["A"] * s1[u] ** -p["alpha"] - scale * total)
    return losses


# -- the sums equal the laws written out ------------------------------------------------------------------


def test_the_blocked_recurrence_equals_the_loop_across_several_levels_of_blocks():
    generator = torch.Generator().manual_seed(5)
    ratios = -torch.rand(2000, generator=generator, dtype=torch.float64) * 0.3
    inputs = torch.randn(2000, generator=generator, dtype=torch.float64)
    expected, y = [], 0.0
    for ratio, x in zip(ratios.tolist(), inputs.tolist(), strict=True):
        y = math.exp(ratio) * y + x
        expected.append(y)
    assert decayed_sums(ratios, inputs, block=8).tolist() == pytest.approx(expected, rel=1e-11, abs=1e-11)


@pytest.mark.parametrize("law, values", [(AnnealingLaw(), ANNEALING), (MultiPowerLaw(), MULTI)])
def test_the_laws_equal_their_sums_written_out_at_points_in_any_order(law, values):
    lrs = bumpy()
    updates = [60, 7, 33, 33, 21, 1 + 35, 44, 46, 12, 59]  # unsorted, repeated, around every change
    got = law.loss(tensors(values), law.at(law.areas(lrs), torch.tensor(updates)))
    assert got.tolist() == pytest.approx(written_out(law, values, lrs, updates), rel=1e-12)


def test_the_fitted_decay_gives_the_fixed_decays_annealing_area_on_a_long_cosine():
    lrs = cosine(20_000)
    updates = torch.tensor([15, 400, 9_999, 10_000, 19_999, 20_000])
    law = AnnealingLaw()
    p = tensors({**ANNEALING, "L0": 0.0, "A": 0.0, "C": -1.0, "delay": 300.0})  # the loss is S_2 itself
    fixed = lr_areas(lrs, 300.0 / 301.0).s2[updates]
    assert law.loss(p, law.at(law.areas(lrs), updates)).tolist() == pytest.approx(fixed.tolist(), rel=1e-9)


def test_beyond_a_thousand_decreases_merged_terms_stay_within_their_bound_and_step_decays_stay_exact():
    n = 3_000
    lrs = cosine(n)
    lrs[1_500:] *= 0.4  # a step decay in the middle: a decrease larger than a share, kept exact
    areas = MultiPowerLaw().areas(lrs)
    assert int((areas.drops != 0).sum()) > EXACT_DECREASES
    updates = [11, 700, 1_499, 1_500, 1_501, 1_530, 2_400, 3_000]
    got = MultiPowerLaw().loss(tensors(MULTI), MultiPowerLaw().at(areas, torch.tensor(updates)))
    expected = torch.tensor(written_out(MultiPowerLaw(), MULTI, lrs, updates), dtype=torch.float64)
    # the bound: B x (the total decrease / 256) per merged share; measured about 1e-5 of the loss
    assert float(((got - expected) / expected).abs().max()) < 1e-4
    assert float((got - expected).abs().max()) <= MULTI["B"] * float(areas.drops.abs().sum()) / 256
    # before the first merged decrease has an effect (the warmup, the stable start) the loss is exact
    assert float(got[0]) == pytest.approx(float(expected[0]), rel=1e-12)


# -- linear memory ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("law", [AnnealingLaw(), MultiPowerLaw()], ids=["annealing", "multi-power"])
def test_what_a_law_reads_at_400_points_of_a_1e5_step_cosine_is_linear_not_points_by_steps(law):
    n, points = 100_000, 400
    updates = torch.unique(torch.linspace(20, n, points).round().to(torch.int64))
    at = law.at(law.areas(cosine(n)), updates)
    numbers = sum(item.numel() for item in at)
    # points x steps would be 4e7 numbers; linear is a few times n plus a few hundred a point
    assert numbers <= 5 * n + 2_000 * points
    assert max(item.numel() for item in at) <= 2 * n + 700 * points


# -- window means -----------------------------------------------------------------------------------------


def test_a_long_log_is_reduced_to_window_means_with_the_noise_measured_inside_the_windows():
    n = 4 * FITTED_POINTS  # from update 200 on (4 updates are 2% of it): windows of 4 points
    levels = 3.0 + 0.1 * torch.arange(FITTED_POINTS, dtype=torch.float64)  # a jump between windows, not noise
    wiggle = torch.tensor([0.03, -0.03, 0.03, -0.03], dtype=torch.float64).repeat(FITTED_POINTS)
    losses = levels.repeat_interleave(4) + wiggle
    windows = window_means(torch.arange(200, 200 + n), losses)
    assert windows.sizes.tolist() == [4] * FITTED_POINTS
    assert windows.losses.tolist() == pytest.approx(levels.tolist(), rel=1e-12)
    assert windows.updates[:3].tolist() == [202, 206, 210]  # 201.5, 205.5, 209.5: each window's middle, rounded
    # consecutive points differ by 0.06 / level inside a window: noise^2 = mean(0.06^2 / level^2) / 2
    expected = math.sqrt(float((0.06**2 / levels**2).mean()) / 2)
    assert windows.noise == pytest.approx(expected, rel=1e-9)
    few = window_means(torch.arange(1, 11), losses[:10])
    assert few.sizes.tolist() == [1] * 10 and few.noise == 0.0 and not few.reduced
    early = window_means(torch.arange(1, n + 1), losses)  # windows of 1 update before update 100, then 2% long
    assert early.sizes[:99].tolist() == [1] * 99 and int(early.sizes.max()) == 4 and early.reduced


def test_a_fit_on_a_long_noisy_log_reads_window_means_and_reports_the_noise_of_one_logged_step():
    n, noise = 20_000, 0.007
    lrs = 1e-3 * cosine(n)
    law = AnnealingLaw()
    p = tensors(ANNEALING)
    updates = torch.arange(1, n + 1)
    clean = law.loss(p, law.at(law.areas(lrs / lrs.max()), updates))
    generator = torch.Generator().manual_seed(11)
    losses = clean * (1 + noise * torch.randn(n, generator=generator, dtype=torch.float64))
    fitted = fit_curves([RunCurve(Path("long"), lrs, updates, losses, "train/loss", "lr")], law=law)
    assert FITTED_POINTS <= fitted.points <= 2 * FITTED_POINTS  # window means, short ones early
    assert fitted.noise == pytest.approx(noise, rel=0.05)
    assert fitted.systematic_error < 0.1 * noise  # the law drew the log
    assert fitted.error == pytest.approx(math.hypot(noise, fitted.systematic_error), rel=0.05)
    final = float(fitted.predict(lrs, torch.tensor([n]))[0])
    assert final == pytest.approx(float(clean[-1]), rel=1e-3)
