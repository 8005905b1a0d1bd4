"""compile_scheduler: a real torch LRScheduler driving any scalar hyperparameter from a time-aware schedule."""

from __future__ import annotations

import io
import math

import attrs
import pytest
import torch

from schedulers import (
    CosineAnnealingWithWarmupScheduler,
    LinearScheduler,
    PlateauScheduler,
    Schedule,
    SchedulerState,
    StepScheduler,
    Warmup,
    as_schedule,
    compile_scheduler,
)
from schedulers.core.run import Run
from schedulers.core.schedule import Curve
from schedulers.core.torch_scheduler import CompiledScheduler


def _model_and_groups(optimizer_cls=torch.optim.SGD, **kwargs):
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 1))
    groups = [
        {"params": model[0].parameters(), "lr": 0.1, "weight_decay": 0.01},
        {"params": model[1].parameters(), "lr": 0.02, "weight_decay": 0.0},
    ]
    return model, optimizer_cls(groups, **kwargs)


def _advance(state: SchedulerState, batches: int = 1) -> None:
    for _ in range(batches):
        state.timestamp = state.timestamp.to_next_batch(samples=8)


@pytest.mark.parametrize("optimizer_cls", [torch.optim.SGD, torch.optim.AdamW])
def test_lr_and_weight_decay_written_to_every_group_with_per_group_bases(optimizer_cls):
    _, opt = _model_and_groups(optimizer_cls)
    state = SchedulerState("100ba")
    lr_schedule = CosineAnnealingWithWarmupScheduler(t_warmup="10ba", alpha_f=0.1)
    wd_schedule = LinearScheduler(alpha_i=1.0, alpha_f=0.5)
    lr_sched = compile_scheduler(lr_schedule, opt, state)
    wd_sched = compile_scheduler(wd_schedule, opt, state, hyperparameter="weight_decay")
    assert isinstance(lr_sched, torch.optim.lr_scheduler.LRScheduler)
    assert [g["lr"] for g in opt.param_groups] == [0.0, 0.0]  # α(0) written at construction
    for _ in range(1, 100):
        _advance(state)
        lr_sched.step()
        wd_sched.step()
        lr_alpha = lr_schedule(state)
        wd_alpha = wd_schedule(state)
        assert opt.param_groups[0]["lr"] == pytest.approx(0.1 * lr_alpha, rel=1e-15)
        assert opt.param_groups[1]["lr"] == pytest.approx(0.02 * lr_alpha, rel=1e-15)
        assert opt.param_groups[0]["weight_decay"] == pytest.approx(0.01 * wd_alpha, rel=1e-15)
        assert opt.param_groups[1]["weight_decay"] == 0.0
    assert lr_sched.get_last_lr() == [g["lr"] for g in opt.param_groups]
    assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.02]
    assert [g["initial_weight_decay"] for g in opt.param_groups] == [0.01, 0.0]
    assert lr_sched.base_lrs == [0.1, 0.02]


def test_values_follow_the_state_not_the_step_count():
    _, opt = _model_and_groups()
    state = SchedulerState("100ba")
    sched = compile_scheduler(StepScheduler("10ba", gamma=0.5), opt, state)
    _advance(state, 25)  # the loop advanced time without stepping the scheduler
    sched.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1 * 0.25)
    assert sched.last_epoch == 1


def test_state_dict_round_trip_mid_run_gives_identical_next_values():
    _, opt = _model_and_groups()
    state = SchedulerState("50ba")
    sched = compile_scheduler(CosineAnnealingWithWarmupScheduler(t_warmup="5ba"), opt, state)
    for _ in range(17):
        _advance(state)
        sched.step()
    buffer = io.BytesIO()
    torch.save({"sched": sched.state_dict(), "opt": opt.state_dict(), "ts": state.timestamp.state_dict()}, buffer)
    expected = []
    for _ in range(10):
        _advance(state)
        sched.step()
        expected.append([g["lr"] for g in opt.param_groups])

    buffer.seek(0)
    saved = torch.load(buffer, weights_only=True)
    _, opt2 = _model_and_groups()
    opt2.load_state_dict(saved["opt"])
    from timeunits import Timestamp

    state2 = SchedulerState("50ba", Timestamp.from_state_dict(saved["ts"]))
    sched2 = compile_scheduler(CosineAnnealingWithWarmupScheduler(t_warmup="5ba"), opt2, state2)
    sched2.load_state_dict(saved["sched"])
    assert sched2.last_epoch == 17
    resumed = []
    for _ in range(10):
        _advance(state2)
        sched2.step()
        resumed.append([g["lr"] for g in opt2.param_groups])
    assert resumed == expected


def test_reloaded_optimizer_keeps_initial_value_so_alpha_is_not_applied_twice():
    _, opt = _model_and_groups()
    state = SchedulerState("10ba")
    compile_scheduler(LinearScheduler(), opt, state)
    _advance(state, 5)
    saved = opt.state_dict()
    _, opt2 = _model_and_groups()
    opt2.load_state_dict(saved)  # brings lr = 0.1 * α(0) = 0.1 and initial_lr = 0.1
    opt2.param_groups[0]["lr"] = 0.05  # as if the saved lr were mid-schedule
    compile_scheduler(LinearScheduler(), opt2, state)
    assert opt2.param_groups[0]["lr"] == pytest.approx(0.1 * 0.5)


def test_tensor_hyperparameters_stay_the_same_tensor_updated_in_place():
    model = torch.nn.Linear(2, 2)
    lr = torch.tensor(0.01)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=torch.tensor(0.1))
    state = SchedulerState("10ba")
    lr_tensor = opt.param_groups[0]["lr"]
    sched = compile_scheduler(LinearScheduler(alpha_f=0.5), opt, state)
    wd = compile_scheduler(LinearScheduler(alpha_f=0.0), opt, state, hyperparameter="weight_decay")
    _advance(state, 4)
    sched.step()
    wd.step()
    assert opt.param_groups[0]["lr"] is lr_tensor
    assert isinstance(opt.param_groups[0]["weight_decay"], torch.Tensor)
    assert opt.param_groups[0]["lr"].item() == pytest.approx(0.01 * 0.8)
    assert opt.param_groups[0]["weight_decay"].item() == pytest.approx(0.1 * 0.6)
    assert isinstance(opt.param_groups[0]["initial_lr"], torch.Tensor)


def test_plain_callables_with_and_without_ssr():
    _, opt = _model_and_groups()
    state = SchedulerState("10ba")
    two = compile_scheduler(lambda state, ssr=1.0: 0.5 * ssr, opt, state, ssr=2.0)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1)
    assert two.ssr == 2.0
    compile_scheduler(as_schedule(lambda state: 0.25), opt, state)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.025)
    with pytest.raises(ValueError, match="ssr=0.5"):
        compile_scheduler(lambda state: 1.0, opt, state, ssr=0.5)


def test_ssr_reaches_the_schedule():
    _, opt = _model_and_groups()
    state = SchedulerState("50ba")
    _advance(state, 5)
    sched = compile_scheduler(StepScheduler("10ba", gamma=0.5), opt, state, ssr=0.5)
    assert isinstance(sched, CompiledScheduler)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.05)  # step_size 5 at ssr 0.5


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"hyperparameter": "betas"}, ValueError, "only a float or a 0-d tensor"),
        ({"hyperparameter": "nope"}, ValueError, "no 'nope'"),
        ({"ssr": 0}, ValueError, "ssr=0"),
        ({"ssr": math.inf}, ValueError, "ssr=inf"),
    ],
)
def test_bad_arguments_are_clear_errors(kwargs, error, match):
    opt = torch.optim.AdamW(torch.nn.Linear(2, 2).parameters(), lr=0.1)
    with pytest.raises(error, match=match):
        compile_scheduler(LinearScheduler(), opt, SchedulerState("10ba"), **kwargs)


def test_non_callable_and_bad_state_are_type_errors():
    opt = torch.optim.SGD(torch.nn.Linear(2, 2).parameters(), lr=0.1)
    with pytest.raises(TypeError, match="callable"):
        compile_scheduler(0.5, opt, SchedulerState("10ba"))
    with pytest.raises(TypeError, match="timestamp"):
        compile_scheduler(LinearScheduler(), opt, object())
    sched = compile_scheduler(LinearScheduler(), opt, SchedulerState("10ba"))
    with pytest.raises(TypeError, match="no epoch argument"):
        sched.step(3)


def test_load_state_dict_for_another_hyperparameter_is_refused():
    opt = torch.optim.AdamW(torch.nn.Linear(2, 2).parameters(), lr=0.1)
    state = SchedulerState("10ba")
    lr = compile_scheduler(LinearScheduler(), opt, state)
    wd = compile_scheduler(LinearScheduler(), opt, state, hyperparameter="weight_decay")
    with pytest.raises(ValueError, match="weight_decay"):
        lr.load_state_dict(wd.state_dict())


def test_param_groups_limit_the_groups_driven():
    _, opt = _model_and_groups()
    state = SchedulerState("10ba")
    sched = compile_scheduler(LinearScheduler(), opt, state, param_groups=[1])
    state.timestamp = state.timestamp.copy(batch=5)
    sched.step()
    assert opt.param_groups[0]["lr"] == 0.1 and "initial_lr" not in opt.param_groups[0]
    assert opt.param_groups[1]["lr"] == pytest.approx(0.01)
    with pytest.raises(ValueError, match="param_groups=\\[2\\]"):
        compile_scheduler(LinearScheduler(), opt, state, param_groups=[2])


def test_keeps_driving_the_groups_after_the_optimizer_loads_a_state_dict():
    """torch's Optimizer.load_state_dict replaces its param-group dicts; the scheduler must follow."""
    _, opt = _model_and_groups()
    state = SchedulerState("10ba")
    sched = compile_scheduler(LinearScheduler(), opt, state, param_groups=[0, 1])
    opt.load_state_dict(opt.state_dict())
    state.timestamp = state.timestamp.copy(batch=5)
    sched.step()
    assert [g["lr"] for g in opt.param_groups] == pytest.approx([0.05, 0.01])


# --------------------------------------------------------------------------- a failed call changes nothing


def _snapshot(opt) -> list[dict]:
    """Each param group's keys and values (tensors cloned, so in-place writes show)."""
    return [
        {k: v.detach().clone() if isinstance(v, torch.Tensor) else v for k, v in g.items()} for g in opt.param_groups
    ]


def _assert_untouched(opt, before: list[dict]) -> None:
    after = _snapshot(opt)
    assert [sorted(g) for g in after] == [sorted(g) for g in before]  # no initial_<key> added anywhere
    for group_after, group_before in zip(after, before, strict=True):
        for key, old in group_before.items():
            new = group_after[key]
            if key == "params":
                assert len(new) == len(old) and all(p is q for p, q in zip(new, old, strict=True))
            elif isinstance(old, torch.Tensor):
                assert torch.equal(new, old), key
            else:
                assert new == old or (new != new and old != old), (key, new, old)  # nan stays nan


def _bad_late_group(opt, key: str, value) -> None:
    opt.param_groups[1][key] = value


@pytest.mark.parametrize(
    "spoil, kwargs, match",
    [
        (lambda opt: _bad_late_group(opt, "lr", [0.1]), {}, "param group 1's 'lr'"),
        (lambda opt: _bad_late_group(opt, "lr", True), {}, "param group 1's 'lr'"),
        (lambda opt: _bad_late_group(opt, "lr", math.nan), {}, "param group 1's 'initial_lr'"),
        (lambda opt: _bad_late_group(opt, "lr", torch.tensor([0.1, 0.2])), {}, "shape"),
        (lambda opt: _bad_late_group(opt, "initial_lr", math.inf), {}, "param group 1's 'initial_lr'"),
        (lambda opt: _bad_late_group(opt, "initial_lr", "0.1"), {}, "param group 1's 'initial_lr'"),
        (lambda opt: opt.param_groups[1].pop("weight_decay"), {"hyperparameter": "weight_decay"}, "no 'weight_decay'"),
        (lambda opt: None, {"param_groups": [0, 5]}, "param_groups"),
        (lambda opt: None, {"param_groups": [1, 1]}, "repeats"),
        (lambda opt: None, {"ssr": -1.0}, "ssr"),
    ],
    ids=["list", "bool", "nan", "vector", "inf-initial", "str-initial", "missing-key", "index", "repeat", "ssr"],
)
def test_a_failed_call_leaves_the_optimizer_untouched(spoil, kwargs, match):
    _, opt = _model_and_groups()
    spoil(opt)
    before = _snapshot(opt)
    with pytest.raises(ValueError, match=match):
        compile_scheduler(LinearScheduler(), opt, SchedulerState("10ba"), **kwargs)
    _assert_untouched(opt, before)


def test_a_schedule_failing_against_the_state_leaves_the_optimizer_untouched():
    # The schedule's own check (a step that truncates to 0 batches at this ssr) is the last one to run.
    _, opt = _model_and_groups()
    opt.param_groups[0]["lr"] = torch.tensor(0.1)  # a tensor value too: it must not be filled in place
    before = _snapshot(opt)
    with pytest.raises(ValueError, match="step_size"):
        compile_scheduler(StepScheduler("1ba"), opt, SchedulerState("10ba"), 0.5)
    _assert_untouched(opt, before)


def test_a_failed_call_keeps_an_existing_initial_value():
    _, opt = _model_and_groups()
    compile_scheduler(LinearScheduler(), opt, SchedulerState("10ba"))
    before = _snapshot(opt)
    opt.param_groups[1]["lr"] = [0.5]
    before[1]["lr"] = [0.5]
    with pytest.raises(ValueError):
        compile_scheduler(StepScheduler("1ba", gamma=0.5), opt, SchedulerState("10ba"))
    _assert_untouched(opt, before)


@pytest.mark.parametrize("hyperparameter", [None, 0, b"lr", ["lr"], ""])
def test_hyperparameter_that_is_not_a_key_string_is_a_type_error(hyperparameter):
    _, opt = _model_and_groups()
    before = _snapshot(opt)
    with pytest.raises(TypeError, match=r"hyperparameter must be a param-group key string such as 'lr'") as info:
        compile_scheduler(LinearScheduler(), opt, SchedulerState("10ba"), hyperparameter=hyperparameter)
    assert repr(hyperparameter) in str(info.value)
    _assert_untouched(opt, before)


def test_torchs_step_count_follows_the_steps_and_not_a_restored_count():
    """``_step_count`` (torch's: calls of step() plus one) moves with each step; setting ``last_epoch`` or loading a
    state_dict moves the count only. ``get_last_lr`` is a new list each time, equal to what was written."""
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.3)
    state = SchedulerState("10ba")
    sched = compile_scheduler(LinearScheduler(), opt, state)
    assert (sched._step_count, sched.last_epoch) == (1, 0)
    for _ in range(3):
        state.timestamp = state.timestamp.to_next_batch(samples=4)
        sched.step()
    assert (sched._step_count, sched.last_epoch) == (4, 3)
    sched.last_epoch = 7
    assert (sched._step_count, sched.last_epoch) == (4, 7)
    sched.load_state_dict({**sched.state_dict(), "last_epoch": 2})
    assert (sched._step_count, sched.last_epoch) == (4, 2)
    last = sched.get_last_lr()
    assert last == [opt.param_groups[0]["lr"]] == [0.3 * 0.7] and last is not sched.get_last_lr()
    last.append(1.0)
    assert sched.get_last_lr() == [0.3 * 0.7]


@attrs.frozen
class _HalvedItsOwnWay(Schedule):
    """A schedule of one's own that defines ``__call__`` (so the compiled scheduler asks no curve for plateaus)."""

    inner: Schedule

    def __call__(self, state, ssr=1.0):
        return 0.5 * self.inner(state, ssr)

    def _resolve(self, run):
        inner = self.inner.curve(run)
        return Curve(inner.unit, lambda x: 0.5 * inner.fn(x), {}, inner.plateaus)


@pytest.mark.parametrize("ssr", [1.0, Run("10ba")])
def test_a_plateau_is_found_in_a_schedule_of_any_kind(ssr):
    """Whether a compiled schedule listens is read from its resolved curve, and a schedule that defines its own
    ``__call__`` is looked into; either way a plateau inside is found (and a schedule with none hears nothing)."""
    schedules = {
        "warmup": Warmup(PlateauScheduler(monitor="eval/acc", mode="max"), "2ba"),
        "own call": _HalvedItsOwnWay(PlateauScheduler(monitor="eval/acc", mode="max")),
        "own call, no plateau": _HalvedItsOwnWay(LinearScheduler()),
        "no plateau": Warmup(LinearScheduler(), "2ba"),
    }
    heard = {}
    for name, schedule in schedules.items():
        _, opt = _model_and_groups()
        compiled = compile_scheduler(schedule, opt, SchedulerState("10ba"), ssr=ssr)
        heard[name] = (compiled.monitors, compiled.needs_evaluations)
    assert heard == {
        "warmup": (["eval/acc"], True),
        "own call": (["eval/acc"], True),
        "own call, no plateau": ([], False),
        "no plateau": ([], False),
    }
