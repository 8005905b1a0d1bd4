"""Warmup, Sequence and Product: composition in time units."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import attrs
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import schedulers
from schedulers import (
    ConstantScheduler,
    ConstantWithWarmupScheduler,
    CosineAnnealingScheduler,
    CosineAnnealingWithWarmupScheduler,
    LinearScheduler,
    LinearWithWarmupScheduler,
    MultiStepScheduler,
    MultiStepWithWarmupScheduler,
    PolynomialWithWarmupScheduler,
    Product,
    Run,
    SchedulerState,
    Sequence,
    StepScheduler,
    Warmup,
    evaluate_run,
)
from timeunits import Timestamp


def test_warmup_ramps_to_the_inner_value_then_follows_it():
    curve = Warmup(StepScheduler("4ba", gamma=0.5), t_warmup="6ba").resolve("20ba")
    # inner value at the end of warmup is 0.5 (one step of 4ba passed)
    assert [curve(x) for x in (0, 3, 6, 7, 8, 12)] == [0.0, 0.25, 0.5, 0.5, 0.25, 0.125]


def test_warmup_scaling_follows_scale_warmup():
    plain = Warmup(ConstantScheduler(alpha=1.0), t_warmup="10ba")
    scaled = Warmup(ConstantScheduler(alpha=1.0), t_warmup="10ba", scale_warmup=True)
    assert plain.resolve("100ba", ssr=0.5).times["t_warmup"].value == 10
    assert scaled.resolve("100ba", ssr=0.5).times["t_warmup"].value == 5


def test_warmup_of_cosine_matches_composer_when_shifted_with_sequence():
    """Composer's CosineAnnealingWithWarmup is a ramp followed by a cosine over the rest of the run."""
    composer = CosineAnnealingWithWarmupScheduler(t_warmup="0.1dur", alpha_f=0.2)
    built = Sequence([LinearScheduler(0.0, 1.0), CosineAnnealingScheduler(alpha_f=0.2)], ["0.1dur"])
    for run in ("100ba", "1000sp"):
        for x in range(0, 100 if run == "100ba" else 1000, 7):
            assert built.resolve(run)(x) == pytest.approx(composer.resolve(run)(x), abs=1e-12)


WARMUP_CLASSES = {
    "cosine": lambda tw, sw: CosineAnnealingWithWarmupScheduler(tw, alpha_f=0.1, scale_warmup=sw),
    "linear": lambda tw, sw: LinearWithWarmupScheduler(tw, alpha_i=0.7, alpha_f=0.2, t_max="1.5dur", scale_warmup=sw),
    "constant": lambda tw, sw: ConstantWithWarmupScheduler(tw, alpha=0.6, scale_warmup=sw),
    "polynomial": lambda tw, sw: PolynomialWithWarmupScheduler(tw, power=0.5, t_max="2dur", scale_warmup=sw),
    "multistep": lambda tw, sw: MultiStepWithWarmupScheduler(tw, ["0.05dur", "0.5dur"], gamma=0.3, scale_warmup=sw),
}


@pytest.mark.parametrize("name", list(WARMUP_CLASSES))
@pytest.mark.parametrize("run", [Run("100ba", ssr=0.29), Run("10ep", 7, ssr=0.29), Run("1000tok", ssr=0.5)])
@pytest.mark.parametrize("t_warmup", ["29ba", "0.29dur", "290tok", "0ba"])
@pytest.mark.parametrize("scale_warmup", [False, True])
def test_composer_warmup_classes_are_their_public_composition(name, run, t_warmup, scale_warmup):
    """Each *WithWarmupScheduler resolves to the Sequence of a LinearScheduler ramp and the schedule after it that
    composed(run) shows: the composition, resolved on its own, gives the class's values and unit."""
    schedule = WARMUP_CLASSES[name](t_warmup, scale_warmup)
    in_tokens = run.length.unit.value == "tok"
    if not t_warmup.endswith("dur") and t_warmup.endswith("tok") != in_tokens:  # the warmup's unit is not the run's
        with pytest.raises(ValueError, match="must resolve to one unit"):
            schedule.curve(run)
        return
    curve = schedule.curve(run)
    composed = schedule.composed(run)
    assert isinstance(composed, Sequence) == (curve.times["t_warmup"].value > 0)
    own = composed.resolve(Run(f"{curve.times['t_warmup'].value + 1}{curve.unit.value}"))
    assert own.unit is curve.unit
    xs = torch.arange(0, 300, dtype=torch.float64)
    assert torch.equal(own(xs), curve(xs))
    assert [own(float(x)) for x in range(300)] == [curve(float(x)) for x in range(300)]


def test_composer_warmup_edges_follow_composer():
    # a milestone inside the warmup: the ramp still goes to 1, the decay applies from the warmup's end
    multistep = MultiStepWithWarmupScheduler("10ba", ["5ba", "50ba"], gamma=0.5).resolve("100ba")
    assert [multistep(x) for x in (5, 9, 10, 49, 50)] == [0.5, 0.9, 0.5, 0.5, 0.25]
    # a warmup longer than the run: the whole run ramps
    long = CosineAnnealingWithWarmupScheduler("200ba", t_max="100ba").resolve("100ba")
    assert long(50) == 0.25 and long(100) == 0.5
    # t_max at the warmup's end: no decay after it (Composer)
    flat = LinearWithWarmupScheduler("4ba", alpha_i=0.5, alpha_f=0.0, t_max="4ba").resolve("4ba")
    assert [flat(x) for x in (0, 2, 4, 9)] == [0.0, 0.25, 0.5, 0.5]


def test_composed_shows_the_composition_in_the_runs_counts():
    schedule = CosineAnnealingWithWarmupScheduler("0.1dur", alpha_f=0.1)
    assert schedule.composed(Run("1000ba", ssr=0.5)) == Sequence(
        [LinearScheduler(0.0, 1.0, t_max="50ba"), CosineAnnealingScheduler(t_max="450ba", alpha_f=0.1)], ["50ba"]
    )
    assert (
        repr(schedule) == "CosineAnnealingWithWarmupScheduler(t_warmup='0.1dur', t_max='1.0dur', alpha_f=0.1, "
        "scale_warmup=False)"
    )


def test_sequence_children_see_time_since_their_segment_and_dur_of_their_segment():
    seq = Sequence(
        [ConstantScheduler(0.5, "1dur"), LinearScheduler(1.0, 0.0, "0.5dur"), MultiStepScheduler(["5ba"], 0.1)],
        ["20ba", "60ba"],
    )
    curve = seq.resolve("100ba")
    assert curve.times["schedules[1].t_max"].value == 20  # half of the 40-batch segment
    assert curve(0) == 0.5 and curve(19) == 0.5
    assert curve(20) == 1.0 and curve(30) == 0.5 and curve(40) == 0.0 and curve(59) == 0.0
    assert curve(60) == 1.0 and curve(65) == pytest.approx(0.1)


def test_sequence_milestones_must_increase_and_match_children():
    with pytest.raises(ValueError, match="need 1 milestones"):
        Sequence([LinearScheduler(), LinearScheduler()], [])
    seq = Sequence([LinearScheduler(), LinearScheduler(), LinearScheduler()], ["50ba", "20ba"])
    with pytest.raises(ValueError, match="segment 1 is empty"):
        seq.resolve("100ba")
    with pytest.raises(ValueError, match="schedules\\[1\\]=.*not a Cadence schedule"):
        Sequence([LinearScheduler(), lambda s: 1.0], ["5ba"])


def test_sequence_child_in_another_unit_is_an_error_naming_it():
    seq = Sequence([LinearScheduler(t_max="100sp"), LinearScheduler()], ["0.5dur"])
    with pytest.raises(ValueError, match=r"schedules\[0\]"):
        seq.resolve("100ba")


def test_product_multiplies():
    product = Product([LinearScheduler(), StepScheduler("50ba", gamma=0.5)])
    curve = product.resolve("100ba")
    assert curve(25) == 0.75 and curve(50) == 0.25 and curve(75) == pytest.approx(0.125)


def test_composites_evaluate_as_schedules_and_in_whole_runs():
    seq = Sequence(
        [Warmup(ConstantScheduler(1.0), "10ba"), Product([CosineAnnealingScheduler(), LinearScheduler(1.0, 0.5)])],
        ["0.2dur"],
    )
    alphas = evaluate_run(seq, "50ba")
    state = SchedulerState("50ba")
    for k in range(50):
        assert seq(state) == pytest.approx(alphas[k].item(), abs=1e-12)
        state.timestamp = state.timestamp.to_next_batch()


@settings(deadline=None, max_examples=60)
@given(milestone=st.integers(1, 99), x=st.integers(0, 150))
def test_sequence_float_and_tensor_paths_agree(milestone, x):
    seq = Sequence([LinearScheduler(0.0, 1.0), CosineAnnealingScheduler(alpha_f=0.1)], [f"{milestone}ba"])
    curve = seq.resolve("100ba")
    tensor = curve(torch.tensor([float(x)], dtype=torch.float64))
    assert abs(curve(float(x)) - tensor.item()) <= 1e-12


def test_composite_traces_under_torch_compile_without_graph_breaks():
    import torch._dynamo

    torch._dynamo.reset()
    seq = Sequence([Warmup(LinearScheduler(1.0, 0.5), "5ba"), CosineAnnealingScheduler()], ["0.3dur"])
    curve = seq.resolve("100ba")
    compiled = torch.compile(curve.fn, fullgraph=True, backend="eager")
    x = torch.arange(100, dtype=torch.float64)
    torch.testing.assert_close(compiled(x), curve.fn(x), rtol=1e-12, atol=1e-12)


def test_state_protocol_with_epochs():
    seq = Sequence([ConstantScheduler(0.5), ConstantScheduler(0.25)], ["1ep"])
    state = SchedulerState("3ep", Timestamp(epoch=1, batch=10), dataloader_len=10)
    assert seq(state) == 0.25


def test_repr_is_the_call_that_builds_the_schedule():
    import schedulers

    for schedule in (
        MultiStepScheduler(["10ba", "0.5dur"], gamma=0.5),
        Sequence([LinearScheduler(0.0, 1.0), CosineAnnealingScheduler(alpha_f=0.1)], ["0.1dur"]),
        Warmup(Product([StepScheduler("2ep"), ConstantScheduler(0.5)]), "1ep", scale_warmup=True),
    ):
        rebuilt = eval(repr(schedule), vars(schedulers))  # noqa: S307  (our own repr, in a test)
        assert repr(rebuilt) == repr(schedule)
        torch.testing.assert_close(
            evaluate_run(rebuilt, "20ep", 10, samples_per_batch=8),
            evaluate_run(schedule, "20ep", 10, samples_per_batch=8),
        )


def test_one_warmup_ramp_for_warmup_and_the_composer_warmup_classes():
    """Warmup and Composer's *WithWarmupScheduler share the ramp (kernels.warmup): equal values, float and tensor."""
    from schedulers import ConstantWithWarmupScheduler
    from schedulers.core import kernels
    from schedulers.core.composition import warmup_ramp

    composite = Warmup(ConstantScheduler(0.5, t_max="2dur"), t_warmup="10ba").resolve("100ba")
    composer = ConstantWithWarmupScheduler("10ba", alpha=0.5).resolve("100ba")
    x = torch.arange(30, dtype=torch.float64)
    assert torch.equal(composite(x), composer(x))
    assert [composite(float(k)) for k in range(30)] == [composer(float(k)) for k in range(30)]
    assert composer(4.0) == 0.5 * kernels.warmup(4.0, 10) == 0.2
    ramped = warmup_ramp(10, 0.5, lambda x: 0.5)
    assert [ramped(float(k)) for k in range(30)] == [composer(float(k)) for k in range(30)]
    assert warmup_ramp(0, 0.5, abs) is abs  # no warmup: the main curve itself


def test_piecewise_picks_the_piece_by_comparison_on_numbers_and_agrees_with_the_tensor_path():
    """On an int or float count only the piece that holds is called (at a boundary: the next piece, read from its
    start); on a float64 tensor every piece is evaluated; both give the same floats, for two pieces and three."""
    from schedulers.core.composition import piecewise

    calls = []

    def first(x):
        calls.append("first")
        return x / 7

    two = piecewise((7,), (first, lambda x: 1.0 - x / 29), starts=(0, 7))
    three = piecewise((7, 20), (lambda x: x / 7, lambda x: 1.0 - x / 29, lambda x: 0.25 + x * 0), starts=(0, 7, 20))
    counts = list(range(30))
    tensor = torch.tensor(counts, dtype=torch.float64)
    for curve in (two, three):
        assert [curve(k) for k in counts] == [curve(float(k)) for k in counts] == curve(tensor).tolist()
    assert two(6) == 6 / 7 and two(7) == 1.0 and two(29) == 1.0 - 22 / 29
    assert three(19) == 1.0 - 12 / 29 and three(20) == 0.25
    calls.clear()
    two(7)
    assert calls == []  # past the boundary the first piece is not evaluated


@pytest.mark.parametrize("max_duration", ["137ba", "4000sp"])
@pytest.mark.parametrize("ssr", [1.0, 0.29])
def test_a_schedule_bound_to_its_run_gives_its_curve_bit_for_bit(max_duration, ssr):
    """The trainer's path (``bind``: a two-piece curve picks its piece in the closure reading the count, a kernel of a
    fraction is called there) gives the resolved curve's floats exactly, in batches and in samples, with a ratio
    that rounds counts."""
    run = Run(max_duration, ssr=ssr)
    for schedule in (
        CosineAnnealingScheduler(t_max="0.7dur", alpha_f=0.05),  # a kernel alone, held past its period
        LinearScheduler(1.0, 0.2, "0.5dur"),
        CosineAnnealingWithWarmupScheduler("0.29dur", alpha_f=0.1),
        LinearWithWarmupScheduler("0.05dur", alpha_i=0.8, alpha_f=0.1),
        Warmup(CosineAnnealingScheduler(), "0.1dur"),
        Sequence([LinearScheduler(0.0, 1.0), CosineAnnealingScheduler(), ConstantScheduler(0.2)], ["0.1dur", "0.6dur"]),
    ):
        alpha, curve = schedule.bind(run), schedule.curve(run)
        state = SchedulerState(run.length)
        for _ in range(160):
            count = state.timestamp.count(curve.unit)
            assert alpha(state) == curve(count) == curve(float(count)), (schedule, count)
            state.timestamp = state.timestamp.to_next_batch(samples=32)


def _calls_of(resolve, root):
    """The functions of Cadence's code (timeunits, schedulers, trainer under ``root``) that ``resolve()`` calls, as
    ``(file, qualified name)``, one entry per call."""
    project = tuple(str(root / package) + os.sep for package in ("timeunits", "schedulers", "trainer"))
    calls = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(project):
            calls.append((os.path.basename(frame.f_code.co_filename), frame.f_code.co_qualname))

    sys.setprofile(profile)
    try:
        resolve()
    finally:
        sys.setprofile(None)
    return calls


def test_a_composed_schedule_resolves_without_rebuilding_or_rechecking_its_parts():
    """One curve(run) of a warmup + cosine resolves its times once and builds its curve from the counts: the
    schedule's arguments were checked when it was built and no check runs again (no argument check, no Sequence
    built or resolved), and the whole resolution stays within a budget of calls (bench/curve_calls.py measures it;
    it was 195 calls before this budget)."""
    run = Run("100ba", 10)
    CosineAnnealingWithWarmupScheduler(t_warmup="0.3dur", alpha_f=0.1).curve(run)  # first uses outside the count
    schedule = CosineAnnealingWithWarmupScheduler(t_warmup="0.3dur", alpha_f=0.1)
    calls = _calls_of(lambda: schedule.curve(run), Path(schedulers.__file__).resolve().parent.parent)
    rechecks = {"time_argument", "number_argument", "multiplier_argument", "milestones_argument", "integer_argument"}
    assert [name for file, name in calls if file == "schedule_arguments.py" and name in rechecks] == []
    assert [name for name in dict(calls).values() if name.startswith("Sequence.")] == []
    assert [name for file, name in calls if name == "Time.from_input"] == ["Time.from_input"] * 5  # each time once
    assert len(calls) <= 120
    assert schedule.curve(run)(15) == CosineAnnealingWithWarmupScheduler("0.3dur", alpha_f=0.1).resolve(run)(15) == 0.5


@pytest.mark.parametrize("name", list(WARMUP_CLASSES))
def test_the_parts_a_warmup_class_builds_are_what_their_constructors_build(name):
    """The parts of composed(run) are built from values already checked, without checking them again: each equals,
    and reads as, the part its public constructor builds from the same arguments."""
    composed = WARMUP_CLASSES[name]("0.29dur", False).composed(Run("100ba", ssr=0.5))
    for part in composed.schedules:
        rebuilt = attrs.evolve(part)  # the constructor, every converter run
        assert rebuilt == part and repr(rebuilt) == repr(part)
        assert [type(getattr(part, f.name)) for f in attrs.fields(type(part))] == [
            type(getattr(rebuilt, f.name)) for f in attrs.fields(type(part))
        ]


def test_only_a_class_checked_by_its_converters_alone_is_built_from_checked_values():
    """Schedule._of_checked skips the converters: a class that checks more (an __attrs_post_init__, a validator)
    or a field left out is refused, never built half-checked."""
    assert LinearScheduler._of_checked(alpha_i=0.0, alpha_f=1.0, t_max=Run("10ba").length) == LinearScheduler(
        0.0, 1.0, t_max="10ba"
    )
    with pytest.raises(TypeError, match="needs exactly"):
        LinearScheduler._of_checked(alpha_i=0.0, alpha_f=1.0)
    with pytest.raises(TypeError, match="converters alone"):
        Sequence._of_checked(schedules=(LinearScheduler(),), milestones=())
    with pytest.raises(TypeError, match="converters alone"):
        schedulers.FunctionSchedule._of_checked(fn=lambda state: 1.0)


class _WholeRunSequence(Sequence):
    """A core Sequence on the rule of Cerebras's SequentialLR (docs/cerebras.md, "Composites")."""

    segment_times = False


def test_a_sequence_of_whole_run_times_reads_a_dur_of_the_run_and_allows_empty_segments():
    parts = [ConstantScheduler(alpha=0.9), LinearScheduler(1.0, 0.0, t_max="0.29dur"), ConstantScheduler(alpha=0.3)]
    composer = Sequence(parts, ["10ba", "30ba"]).resolve("100ba")
    whole_run = _WholeRunSequence(parts, ["10ba", "30ba"]).resolve("100ba")
    # the linear child sees the steps since 10ba either way; its 0.29dur is 0.29 of its 20ba segment (5.8 -> 5
    # batches, done at 15) in Composer's rule, 29 batches of the run in the whole run's
    assert composer.times["schedules[1].t_max"].value == 5 and whole_run.times["schedules[1].t_max"].value == 29
    assert composer(13) == pytest.approx(1 - 3 / 5) and whole_run(13) == pytest.approx(1 - 3 / 29)
    assert composer(30) == whole_run(30) == 0.3
    with pytest.raises(ValueError, match="segment 1 is empty"):
        Sequence(parts, ["10ba", "10ba"]).resolve("100ba")
    empty = _WholeRunSequence(parts, ["10ba", "10ba"]).resolve("100ba")  # the later child from the milestone on
    assert [empty(x) for x in (9, 10, 99)] == [0.9, 0.3, 0.3]
    assert empty(torch.tensor([9.0, 10.0, 99.0], dtype=torch.float64)).tolist() == [0.9, 0.3, 0.3]
    past_the_end = _WholeRunSequence(parts, ["10ba", "150ba"]).resolve("100ba")
    assert past_the_end(99) == 0.0 and past_the_end(20) == pytest.approx(1 - 10 / 29)  # the run ends first
