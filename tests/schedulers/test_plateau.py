"""PlateauScheduler: torch's ReduceLROnPlateau decisions, a pure curve of its reductions, composition, state."""

from __future__ import annotations

import re
import warnings

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.optim.lr_scheduler import ReduceLROnPlateau

from schedulers import (
    CosineAnnealingScheduler,
    LinearScheduler,
    PlateauScheduler,
    Product,
    Schedule,
    SchedulerState,
    Sequence,
    Warmup,
    compile_scheduler,
    get_scheduler,
)
from schedulers.core.listening import Evaluation, ReduceLROnPlateauListener
from schedulers.core.plateau import plateau_levels, plateaus_in, preview_note
from schedulers.core.run import Run
from schedulers.tools.cli import main
from timeunits import Timestamp


def _optimizer(lr: float = 1.0) -> torch.optim.Optimizer:
    return torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=lr)


def _run_both(options: dict, min_lr: float, values: list[float], every: int = 1):
    """torch's ReduceLROnPlateau and a compiled PlateauScheduler fed the same metrics, evaluated every ``every``
    batches: the lr of each after each evaluation."""
    reference = _optimizer()
    torch_plateau = ReduceLROnPlateau(reference, min_lr=min_lr, **options)
    ours = _optimizer()
    state = SchedulerState(f"{len(values) * every + 1}ba")
    compiled = compile_scheduler(PlateauScheduler(min_factor=min_lr, **options), ours, state)
    theirs, mine = [], []
    for value in values:
        for _ in range(every):
            state.timestamp = state.timestamp.to_next_batch()
            compiled.step()
        torch_plateau.step(value)
        compiled.observe({"eval/loss": value})
        theirs.append(reference.param_groups[0]["lr"])
        mine.append(ours.param_groups[0]["lr"])
    return theirs, mine, compiled


_OPTIONS = st.fixed_dictionaries(
    {
        "mode": st.sampled_from(["min", "max"]),
        "factor": st.sampled_from([0.1, 0.3, 0.5, 0.7]),
        "patience": st.integers(0, 4),
        "threshold": st.sampled_from([0.0, 1e-4, 0.05, 0.2]),
        "threshold_mode": st.sampled_from(["rel", "abs"]),
        "cooldown": st.integers(0, 3),
        "eps": st.sampled_from([1e-8, 0.05]),
    }
)
_METRICS = st.lists(
    st.one_of(st.sampled_from([1.0, 0.9, 0.99, 0.5, 1.2]), st.floats(-2, 2, allow_nan=False)), min_size=1, max_size=40
)


@settings(max_examples=300, deadline=None)  # the first example pays for imports; timings belong in bench/
@given(options=_OPTIONS, min_lr=st.sampled_from([0.0, 0.01, 0.29]), values=_METRICS)
def test_same_reductions_as_torch_reduce_lr_on_plateau(options, min_lr, values):
    theirs, mine, _ = _run_both(options, min_lr, values)
    assert mine == theirs  # lr 1.0: the multiplier is torch's lr, bit for bit


def test_patience_as_a_time_is_the_evaluations_it_spans():
    values = [1.0, 0.8, 0.8, 0.8, 0.8, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7]
    options = {"factor": 0.5, "cooldown": 1}
    counted, _, _ = _run_both({**options, "patience": 2}, 0.0, values)
    every = 3
    reference = _optimizer()
    state = SchedulerState(f"{len(values) * every + 1}ba")
    compiled = compile_scheduler(PlateauScheduler(patience="6ba", **{**options, "cooldown": "3ba"}), reference, state)
    timed = []
    for value in values:
        for _ in range(every):
            state.timestamp = state.timestamp.to_next_batch()
            compiled.step()
        compiled.observe({"eval/loss": value})
        timed.append(reference.param_groups[0]["lr"])
    assert timed == counted
    assert compiled.scheduler.reductions  # it reduced, at batches of the run
    assert compiled.scheduler.reductions[0].unit.value == "ba"


def test_patience_in_dur_resolves_through_the_run():
    listener = PlateauScheduler(patience="0.1dur", cooldown="2ep").curve(Run("300ba", 30)).plateaus[0]
    assert (listener.patience, listener.cooldown) == (30.0, 60.0)  # floats: counts of time, not evaluations


def test_the_curve_is_its_reductions_and_levels():
    curve = PlateauScheduler(factor=0.29, min_factor=0.05, reductions=["10ba", "20ba", "30ba"]).resolve("100ba")
    assert [curve(x) for x in (0, 9, 10, 19, 20, 30, 99)] == [1.0, 1.0, 0.29, 0.29, 0.29 * 0.29, 0.05, 0.05]
    assert plateau_levels(3, 0.29, 0.05) == (1.0, 0.29, 0.29 * 0.29, 0.05)
    # a tensor of counts (whole-run evaluation, plots) gives the same values
    counts = torch.arange(100, dtype=torch.float64)
    assert curve(counts).tolist() == [curve(float(x)) for x in range(100)]
    # logged reductions are times of the run already trained: the ratio never moves them
    assert PlateauScheduler(reductions=["10ba"]).resolve("100ba", ssr=0.5)(9) == 1.0
    assert PlateauScheduler(reductions=["10ba"]).resolve("100ba", ssr=0.5)(10) == pytest.approx(0.1)


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"factor": 1.0}, "factor"),
        ({"mode": "lowest"}, "mode"),
        ({"threshold_mode": "relative"}, "threshold_mode"),
        ({"patience": -1}, "patience"),
        ({"patience": True}, "patience"),
        ({"cooldown": "soon"}, "cooldown"),
        ({"monitor": ""}, "monitor"),
    ],
)
def test_bad_arguments_name_themselves(arguments, named):
    with pytest.raises(ValueError, match=rf"^{named}="):
        PlateauScheduler(**arguments)


def test_reductions_must_increase():
    with pytest.raises(ValueError, match=r"reductions=\['20ba', '10ba'\] must be increasing times"):
        PlateauScheduler(reductions=["20ba", "10ba"]).resolve("100ba")


def test_a_time_repeated_in_reductions_is_several_reductions_then():
    # a run stepped per epoch logs each reduction inside an epoch at the epoch's start
    curve = PlateauScheduler(factor=0.3, min_factor=0.02, reductions=["8ba", "8ba", "8ba", "16ba"]).resolve("40ba")
    assert [curve(x) for x in (7, 8, 15, 16, 39)] == pytest.approx([1.0, 0.3**3, 0.3**3, 0.02, 0.02], rel=1e-12)


def test_a_value_frozen_and_named_in_the_registry_and_in_configs():
    plateau = PlateauScheduler(factor=0.5, patience="2ep")
    assert plateau == PlateauScheduler(factor=0.5, patience="2ep") and hash(plateau) == hash(eval(repr(plateau)))
    for name in ("PlateauScheduler", "plateau", "reduce_lr_on_plateau"):
        assert get_scheduler(name) is PlateauScheduler
    built = Schedule.from_config({"reduce_lr_on_plateau": {"factor": 0.5, "patience": "2ep", "mode": "max"}})
    assert built == PlateauScheduler(factor=0.5, patience="2ep", mode="max")


def _observe(compiled, state, values, every=1):
    lrs = []
    for value in values:
        for _ in range(every):
            state.timestamp = state.timestamp.to_next_batch()
            compiled.step()
            lrs.append(compiled.optimizer.param_groups[0]["lr"])
        compiled.observe({"eval/loss": value})
    return lrs


def test_after_a_warmup_it_listens_only_once_the_warmup_is_over():
    state = SchedulerState("40ba")
    schedule = Warmup(PlateauScheduler(factor=0.5, patience=0), t_warmup="10ba")
    compiled = compile_scheduler(schedule, _optimizer(), state)
    lrs = _observe(compiled, state, [1.0] * 20, every=2)  # no improvement after the first value
    assert lrs[:10] == pytest.approx([0.1 * i for i in range(1, 11)])  # lrs[i]: the lr of batch i + 1
    # evaluations at 2..8ba fell in the warmup: the first one heard (10ba) sets the best, the next reduces
    assert compiled.scheduler.schedule.reductions[0].value == 12
    assert (lrs[10], lrs[11], lrs[12]) == (1.0, 1.0, 0.5)


def test_in_a_sequence_it_counts_its_own_segment():
    state = SchedulerState("40ba")
    schedule = Sequence([LinearScheduler(0.0, 1.0), PlateauScheduler(factor=0.5, patience=0)], ["10ba"])
    compiled = compile_scheduler(schedule, _optimizer(), state)
    _observe(compiled, state, [1.0] * 20, every=2)
    reductions = compiled.scheduler.schedules[1].reductions
    assert reductions[0].value == 2  # 12ba of the run is 2ba into its segment
    assert compiled.optimizer.param_groups[0]["lr"] == 0.5 ** len(reductions)


def test_as_a_factor_of_a_cosine():
    state = SchedulerState("40ba")
    schedule = Product([CosineAnnealingScheduler(), PlateauScheduler(factor=0.5, patience=1)])
    compiled = compile_scheduler(schedule, _optimizer(), state)
    lrs = _observe(compiled, state, [1.0, 0.5, 0.6, 0.6, 0.6, 0.6], every=4)
    cosine = CosineAnnealingScheduler().resolve("40ba")
    assert lrs[15] == pytest.approx(cosine(16))  # 3 evaluations: no reduction yet
    assert lrs[16] == pytest.approx(0.5 * cosine(17))  # the 4th (16ba) reduced: from batch 16 on, half the cosine


def test_on_another_hyperparameter_and_one_param_group():
    params = [torch.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)]
    optimizer = torch.optim.AdamW([{"params": [params[0]]}, {"params": [params[1]]}], lr=0.1, weight_decay=0.29)
    state = SchedulerState("10ba")
    compiled = compile_scheduler(
        PlateauScheduler(factor=0.5, patience=0, mode="max"),
        optimizer,
        state,
        hyperparameter="weight_decay",
        param_groups=[1],
    )
    _observe(compiled, state, [0.9, 0.8])
    assert [g["weight_decay"] for g in optimizer.param_groups] == [0.29, 0.145]
    assert [g["lr"] for g in optimizer.param_groups] == [0.1, 0.1]


def test_state_dict_restores_the_reductions_and_counters():
    values = [1.0, 0.9, 0.95, 0.95, 0.8, 0.85, 0.85, 0.85]
    state = SchedulerState("30ba")
    whole = compile_scheduler(PlateauScheduler(factor=0.5, patience=1), _optimizer(), state)
    expected = _observe(whole, state, values, every=3)
    state = SchedulerState("30ba")
    first = compile_scheduler(PlateauScheduler(factor=0.5, patience=1), _optimizer(), state)
    got = _observe(first, state, values[:3], every=3)  # mid-patience: one bad evaluation counted
    saved, timestamp = first.state_dict(), state.timestamp
    state = SchedulerState("30ba", timestamp)
    second = compile_scheduler(PlateauScheduler(factor=0.5, patience=1), _optimizer(), state)
    second.load_state_dict(saved)
    got += _observe(second, state, values[3:], every=3)
    assert got == expected


def test_a_plain_schedule_listens_to_nothing():
    compiled = compile_scheduler(CosineAnnealingScheduler(), _optimizer(), SchedulerState("10ba"))
    assert compiled.monitors == [] and compiled.observe({"eval/loss": 1.0}) is False
    assert "plateaus" not in compiled.state_dict()


def test_a_live_plateau_is_given_no_reductions():
    with pytest.raises(ValueError, match="reductions"):
        compile_scheduler(PlateauScheduler(reductions=["5ba"]), _optimizer(), SchedulerState("10ba"))


def test_a_missing_metric_names_what_the_evaluation_gave():
    compiled = compile_scheduler(PlateauScheduler(monitor="eval/acc"), _optimizer(), SchedulerState("10ba"))
    with pytest.raises(KeyError, match="eval/acc"):
        compiled.observe({"eval/loss": 1.0})


def test_preview_note_and_the_plot_command(capsys):
    assert preview_note([]) is None
    logged = PlateauScheduler(reductions=["10ba"])
    note = preview_note([("it", "eval/loss")], [logged])
    assert "depends on that metric" in note and "10ba" in note
    assert plateaus_in(Product([CosineAnnealingScheduler(), logged])) == [logged]
    assert main(["plot", "plateau(factor=0.5)", "--max-duration", "100ba"]) == 0
    captured = capsys.readouterr()
    notes = [line for line in captured.err.splitlines() if "note:" in line]
    assert len(notes) == 1 and "without a reduction" in notes[0]
    assert "note" not in captured.out  # stdout is the plot (or the table)


# -- an evaluation is heard once ---------------------------------------------------------------------------------

_TWICE = r"was fed the evaluation at \d+ba twice"


def _fed_twice(caught) -> list[str]:
    return [str(w.message) for w in caught if re.search(_TWICE, str(w.message))]


def test_two_observe_calls_at_one_batch_count_once_with_one_warning():
    values = [1.0, 0.9, 0.95, 0.95, 0.8, 0.85]  # torch reduces once (patience 1); each fed twice, thrice
    theirs, _, _ = _run_both({"factor": 0.5, "patience": 1}, 0.0, values, every=3)
    state = SchedulerState("30ba")
    compiled = compile_scheduler(PlateauScheduler(factor=0.5, patience=1), _optimizer(), state)
    lrs = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for value in values:
            for _ in range(3):
                state.timestamp = state.timestamp.to_next_batch()
                compiled.step()
            compiled.observe({"eval/loss": value})  # the user's loop
            assert compiled.observe({"eval/loss": value}) is False  # the same evaluation again: ignored
            lrs.append(compiled.optimizer.param_groups[0]["lr"])
    assert lrs == theirs == [1.0, 1.0, 1.0, 0.5, 0.5, 0.5]  # counted twice: [1, 1, 0.5, 0.25, 0.25, 0.125]
    said = _fed_twice(caught)
    assert len(said) == 1  # once, however many evaluations came twice
    assert said[0].startswith("a compiled schedule was fed the evaluation at 3ba twice, first by observe() called by ")
    assert "then by observe() called by user code: the second is ignored" in said[0]
    assert "integrations now feed every evaluation themselves" in said[0]
    assert caught[0].filename == __file__  # it points at the user's line


def test_evaluations_at_different_times_are_each_heard():
    # one batch apart, and (a clock moved by epochs only) at the same batch count in other epochs
    for move in (lambda t: t.to_next_batch(), lambda t: t.to_next_epoch()):
        state = SchedulerState("10ep", dataloader_len=4)
        compiled = compile_scheduler(PlateauScheduler(factor=0.5, patience=0), _optimizer(), state)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # nothing is said
            for _ in range(2):
                state.timestamp = move(state.timestamp)
                compiled.observe({"eval/loss": 1.0})
        assert compiled.optimizer.param_groups[0]["lr"] == 0.5  # the 2nd reduced


def test_after_a_resume_the_checkpoints_evaluation_is_not_heard_again():
    state = SchedulerState("30ba")
    first = compile_scheduler(PlateauScheduler(factor=0.5, patience=0), _optimizer(), state)
    _observe(first, state, [1.0, 1.0], every=3)  # heard at 3ba and 6ba: one reduction, at 6ba
    saved = first.state_dict()
    assert saved["heard"] == {"time": [0, 6, 0, 0], "door": "observe() called by user code"}
    resumed_state = SchedulerState("30ba", state.timestamp)
    resumed = compile_scheduler(PlateauScheduler(factor=0.5, patience=0), _optimizer(), resumed_state)
    resumed.load_state_dict(saved)
    with pytest.warns(UserWarning, match=r"first by observe\(\) called by user code before the checkpoint this run"):
        assert resumed.observe({"eval/loss": 1.0}) is False  # the evaluation at 6ba, already counted
    assert resumed.optimizer.param_groups[0]["lr"] == 0.5
    assert _observe(resumed, resumed_state, [1.0], every=3) == [0.5, 0.5, 0.5]  # 9ba: heard
    assert resumed.optimizer.param_groups[0]["lr"] == 0.25
    older = dict(saved)
    del older["heard"]  # a checkpoint from before the rule: nothing heard yet
    again = compile_scheduler(
        PlateauScheduler(factor=0.5, patience=0), _optimizer(), SchedulerState("30ba", state.timestamp)
    )
    again.load_state_dict(older)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # heard, without a word
        assert again.observe({"eval/loss": 0.5}) is False  # an improvement: no reduction
    assert again.state_dict()["heard"]["time"] == [0, 6, 0, 0]


def test_heard_once_tells_times_apart_by_each_count_without_building_a_time(monkeypatch):
    from schedulers.core.listening import HeardOnce

    def no_time(self):
        raise AssertionError("admits built a Time")

    heard = HeardOnce()
    times = [Timestamp(epoch=1, batch=6, sample=48, token=96)]
    times += [  # each differs from the first in one count only
        Timestamp(epoch=2, batch=6, sample=48, token=96, batch_in_epoch=6, sample_in_epoch=48, token_in_epoch=96),
        Timestamp(epoch=1, batch=7, sample=48, token=96),
        Timestamp(epoch=1, batch=6, sample=49, token=96),
        Timestamp(epoch=1, batch=6, sample=48, token=97),
    ]
    for name in ("epoch", "batch", "sample", "token"):
        monkeypatch.setattr(Timestamp, name, property(no_time))
    with pytest.warns(UserWarning, match="x was fed the evaluation at 6ba twice"):
        admitted = [heard.admits(t, "the Trainer", "x") for time in times for t in (times[0], time)]
    assert admitted == [True, False, False, True, True, True, True, True, True, True]
    assert heard.state_dict() == {"time": [1, 6, 48, 97], "door": "the Trainer"}


def test_torch_plateau_listener_hears_an_evaluation_once():
    optimizer = _optimizer()
    listener = ReduceLROnPlateauListener(ReduceLROnPlateau(optimizer, factor=0.5, patience=0), listener_name="torch's")
    with pytest.warns(
        UserWarning, match=r"^torch's was fed the evaluation at 2ba twice, first by the Trainer, then by"
    ):
        for door in ("the Trainer", "the Trainer", "user code"):
            listener.hear(Evaluation({"eval/loss": 1.0}, Timestamp(batch=2), door=door))
    assert optimizer.param_groups[0]["lr"] == 1.0  # heard once: the first value sets the best
    assert listener.hear(Evaluation({"eval/loss": 1.0}, Timestamp(batch=4))) is not None
