"""Schedule expressions: registered schedule calls with literal arguments, parsed with ``ast``, nothing else runs."""

from __future__ import annotations

import ast
import builtins
import contextlib
import os
import subprocess
import threading
from unittest import mock

import attrs
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from schedulers import (
    CosineAnnealingScheduler,
    CosineAnnealingWithWarmupScheduler,
    LinearScheduler,
    MultiStepScheduler,
    Product,
    Schedule,
    Sequence,
    StepScheduler,
    UnknownSchedulerError,
    Warmup,
    evaluate_run,
    register_scheduler,
)
from schedulers.tools.expressions import ExpressionError, UnknownScheduleNameError, parse_schedule, schedule_names

FUZZ = settings(deadline=None, max_examples=300)


def same_curve(a: Schedule, b: Schedule, max_duration: str = "200ba", **run) -> bool:
    return torch.equal(evaluate_run(a, max_duration, **run), evaluate_run(b, max_duration, **run))


# -- what parses ---------------------------------------------------------------------------------------------


def test_composer_call_with_keywords():
    schedule = parse_schedule("CosineAnnealingWithWarmupScheduler(t_warmup='0.05dur', alpha_f=0.1)")
    assert type(schedule) is CosineAnnealingWithWarmupScheduler
    assert same_curve(schedule, CosineAnnealingWithWarmupScheduler(t_warmup="0.05dur", alpha_f=0.1))


@pytest.mark.parametrize(
    "text",
    [
        "cosine_with_warmup('0.05dur', alpha_f=0.1)",  # alias, positional time
        "COSINEANNEALINGWITHWARMUPSCHEDULER(t_warmup='0.05dur', alpha_f=0.1)",  # case-insensitive
        "CosineAnnealingWithWarmup(t_warmup='0.05dur', alpha_f=0.1)",  # without the family suffix
        "  CosineAnnealingWithWarmupScheduler(\n  t_warmup='0.05dur',\n  alpha_f=+0.1,\n)  ",  # whitespace, sign
    ],
)
def test_names_match_as_the_registry_matches(text):
    assert same_curve(parse_schedule(text), CosineAnnealingWithWarmupScheduler("0.05dur", alpha_f=0.1))


def test_suffixless_name_shared_with_cerebras_picks_the_schedule():
    # 'CosineAnnealing' matches CosineAnnealingScheduler and Cerebras's CosineAnnealingLR: only one is a schedule
    assert type(parse_schedule("CosineAnnealing(alpha_f=0.5)")) is CosineAnnealingScheduler


def test_literals_negative_numbers_lists_tuples_none_and_bools():
    schedule = parse_schedule("MultiStepScheduler(milestones=('10ba', '20ba'), gamma=0.5)")
    assert same_curve(schedule, MultiStepScheduler(["10ba", "20ba"], gamma=0.5))
    assert parse_schedule("LinearScheduler(+1, 0.5)").alpha_i == 1.0
    # a negative number parses, and the schedule refuses it: it would write a negative learning rate
    with pytest.raises(ValueError, match=r"alpha_i=-1 must be >= 0: a negative multiplier"):
        parse_schedule("LinearScheduler(-1, 0.5)")
    assert parse_schedule("CyclicScheduler('10ba', None, 0.1, 'triangular2', 1.0)").t_down is None
    assert parse_schedule("cosine_with_warmup('1ba', scale_warmup=True)").scale_warmup is True
    assert parse_schedule("step('1_000ba')").step_size.value == 1000  # a time string keeps underscores


def test_nested_composites():
    text = "Sequence([LinearScheduler(0.0, 1.0), Product([cosine(), step('50ba', gamma=0.5)])], ['0.1dur'])"
    expected = Sequence(
        [LinearScheduler(0.0, 1.0), Product([CosineAnnealingScheduler(), StepScheduler("50ba", gamma=0.5)])],
        ["0.1dur"],
    )
    assert same_curve(parse_schedule(text), expected)
    warm = parse_schedule("Warmup(StepScheduler('50ba', 0.5), t_warmup='10ba')")
    assert same_curve(warm, Warmup(StepScheduler("50ba", 0.5), t_warmup="10ba"))


def test_user_registered_schedule_is_an_expression():
    @register_scheduler(aliases=("expression_test_half",))
    @attrs.frozen
    class ExpressionTestHalf(Schedule):
        value: float = 0.5

        def __call__(self, state, ssr: float = 1.0) -> float:
            return self.value

    assert parse_schedule("expression_test_half(0.25)").value == 0.25
    assert "ExpressionTestHalf" in schedule_names() and "expression_test_half" in schedule_names()


def test_schedule_names_are_only_time_aware_schedules():
    names = schedule_names()
    assert "CosineAnnealingWithWarmupScheduler" in names and "wsd" in names and "Sequence" in names
    assert "CosineDecayLR" not in names and "cosine_schedule_with_warmup" not in names


# -- what does not ---------------------------------------------------------------------------------------------

REJECTED = [
    # (expression, a part the message must name)
    ("__import__('os').system('x')", "__import__('os').system"),
    ("cosine(alpha_f=__import__('os').system('x'))", "__import__('os').system"),
    ("os.system('x')", "os.system"),
    ("schedulers.CosineAnnealingScheduler()", "schedulers.CosineAnnealingScheduler"),
    ("cosine().__class__", "cosine().__class__"),
    ("cosine(alpha_f=(0).__class__)", "(0).__class__"),
    ("cosine(alpha_f=x)", "'x'"),
    ("cosine(alpha_f=[0.1][0])", "subscript"),
    ("cosine(alpha_f=(lambda: 0.1)())", "lambda"),
    ("cosine(alpha_f=[a for a in (1,)])", "comprehension"),
    ("cosine(alpha_f=f'{1}')", "f-string"),
    ("cosine(alpha_f=1+1)", "1+1"),
    ("cosine(alpha_f=-(-1))", "-(-1)"),
    ("cosine(alpha_f=1 if True else 0)", "conditional"),
    ("cosine(alpha_f={'a': 1})", "dict"),
    ("cosine(alpha_f={1})", "set"),
    ("cosine(alpha_f=b'1')", "bytes"),
    ("cosine(alpha_f=1j)", "complex"),
    ("cosine(alpha_f=...)", "... (ellipsis)"),
    ("cosine(*['1dur'])", "*['1dur']"),
    ("cosine(**{'alpha_f': 0.1})", "**{'alpha_f': 0.1}"),
    ("cosine(alpha_f=(x := 1))", "assignment"),
    ("cosine(alpha_f=1 < 2)", "comparison"),
    ("cosine(alpha_f=True and False)", "operator"),
    ("cosine", "write cosine(...)"),
    ("0.1", "not a schedule call"),
    ("'cosine()'", "not a schedule call"),
    ("[cosine()]", "not a schedule call"),
    ("cosine()()", "cosine()"),
    ("cosine(alpha_f=true)", "write True"),
]


@pytest.mark.parametrize(("text", "part"), REJECTED)
def test_anything_else_is_an_expression_error_naming_the_part(text, part):
    with pytest.raises(ExpressionError) as error:
        parse_schedule(text)
    message = str(error.value)
    assert part in message, message
    assert "an expression may contain only calls of registered schedules" in message
    assert isinstance(error.value, ValueError)


@pytest.mark.parametrize("name", ["__import__", "eval", "exec", "open", "getattr", "globals", "compile", "print"])
def test_builtins_are_unknown_schedule_names(name):
    with pytest.raises(UnknownScheduleNameError, match=f"unknown schedule '{name}'"):
        parse_schedule(f"{name}('os')")
    with pytest.raises(UnknownScheduleNameError, match=f"in '{name}\\(1\\)': unknown schedule"):
        parse_schedule(f"cosine(alpha_f={name}(1))")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("cosine(", "not a Python expression"),
        ("cosine() cosine()", "not a Python expression"),
        ("import os", "not a Python expression"),
        ("cosine()\x00", "null bytes|cannot be parsed"),
        ("cosine(alpha_f=1, alpha_f=2)", "keyword argument 'alpha_f' is repeated"),
    ],
)
def test_text_that_is_not_one_expression(text, expected):
    with pytest.raises(ExpressionError, match=expected):
        parse_schedule(text)


def test_non_strings_and_huge_inputs_are_expression_errors():
    with pytest.raises(ExpressionError, match="must be a string"):
        parse_schedule(CosineAnnealingScheduler())
    with pytest.raises(ExpressionError, match="characters long"):
        parse_schedule("cosine(alpha_f=" + "1" * 20_000 + ")")
    with pytest.raises(ExpressionError, match="nest deeper"):
        parse_schedule("cosine(alpha_f=" + "[" * 100 + "]" * 100 + ")")
    with pytest.raises(ExpressionError):
        parse_schedule("(" * 5000 + ")" * 5000)  # no RecursionError


def test_unknown_name_is_the_registry_error_with_close_names():
    with pytest.raises(UnknownSchedulerError) as error:
        parse_schedule("CosineAnealingWithWarmupScheduler(t_warmup='1ba')")
    assert isinstance(error.value, UnknownScheduleNameError) and isinstance(error.value, ExpressionError)
    assert isinstance(error.value, ValueError)
    message = str(error.value)
    assert "unknown schedule 'CosineAnealingWithWarmupScheduler'" in message
    assert "did you mean CosineAnnealingWithWarmupScheduler" in message


@pytest.mark.parametrize(
    ("text", "family"),
    [("CosineDecayLR(1.0, 0.0, 100)", "Cerebras"), ("cosine_schedule_with_warmup(1, 10)", "SambaFlow")],
)
def test_optimizer_bound_schedulers_are_not_expressions(text, family):
    with pytest.raises(UnknownSchedulerError, match=f"is a {family} scheduler bound to an optimizer"):
        parse_schedule(text)


def test_bad_argument_values_are_the_schedules_own_error_prefixed_with_the_expression():
    with pytest.raises(ValueError) as error:
        parse_schedule("StepScheduler('10ba', gamma=-1)")
    assert not isinstance(error.value, ExpressionError)
    assert str(error.value) == "\"StepScheduler('10ba', gamma=-1)\": gamma=-1 must be >= 0"
    with pytest.raises(ValueError, match=r"in \"step\('x'\)\": step_size='x' is not a time"):
        parse_schedule("Sequence([linear(), step('x')], ['0.5dur'])")


def test_bad_argument_names_and_counts_list_the_signature():
    accepted = r"; accepted: StepScheduler\(step_size, gamma=0.1\)$"
    with pytest.raises(ExpressionError, match=r"got an unexpected keyword argument 'gama' \(did you mean 'gamma'\?\)"):
        parse_schedule("StepScheduler('10ba', gama=0.5)")
    with pytest.raises(ExpressionError, match=r": StepScheduler is missing required argument 'step_size'" + accepted):
        parse_schedule("StepScheduler()")
    with pytest.raises(ExpressionError, match=r"takes 2 positional arguments but 3 were given" + accepted):
        parse_schedule("StepScheduler('1ba', 0.1, 3)")
    with pytest.raises(ExpressionError, match=r"StepScheduler got multiple values for argument 'step_size'" + accepted):
        parse_schedule("StepScheduler('1ba', step_size='2ba')")


def test_a_misspelt_keyword_is_named_with_the_close_ones():
    with pytest.raises(ExpressionError, match=r"unexpected keyword argument 't_warmpu' \(did you mean 't_warmup'"):
        parse_schedule("CosineAnnealingWithWarmupScheduler(t_warmpu='0.1dur')")


def test_nan_as_a_time_names_the_argument_and_suggests_no_time():
    with pytest.raises(ValueError, match=r"t_warmup='\.nan' is not a time") as error:
        parse_schedule("CosineAnnealingWithWarmupScheduler(t_warmup='.nan')")
    assert "did you mean" not in str(error.value)


def test_literal_strings_are_never_code():
    with pytest.raises(ValueError, match="is not a time"):
        parse_schedule("cosine(t_max=\"__import__('os').system('touch /tmp/cadence-pwned')\")")


# -- nothing outside the whitelist ever executes -------------------------------------------------------------


@contextlib.contextmanager
def tripwires():
    """Record any call of a canary builtin, eval/exec, os.system or subprocess.Popen inside the block.

    Only around parse_schedule itself: pytest and hypothesis use exec for their own machinery. Only in this
    thread: the tests' background work (tests/background.py) opens files, imports and starts processes in
    another thread meanwhile, and goes through to the real functions.
    """
    calls, owner = [], threading.get_ident()

    def trap(name, real=None):
        def record(*args, **kwargs):
            if real is not None and threading.get_ident() != owner:
                return real(*args, **kwargs)
            calls.append((name, args))
            raise AssertionError(f"{name} was called")

        return record

    with contextlib.ExitStack() as stack:
        stack.enter_context(mock.patch.object(builtins, "cadence_canary", trap("cadence_canary"), create=True))
        for name in ("eval", "exec", "breakpoint", "input", "open", "__import__"):
            stack.enter_context(mock.patch.object(builtins, name, trap(name, getattr(builtins, name))))
        stack.enter_context(mock.patch.object(os, "system", trap("os.system", os.system)))
        stack.enter_context(mock.patch.object(subprocess, "Popen", trap("subprocess.Popen", subprocess.Popen)))
        yield calls


def test_tripwires_trap_this_thread_and_let_other_threads_through():
    """The tests' background work runs in another thread meanwhile (tests/background.py): it must not trip them."""
    seen = {}

    def elsewhere():
        seen["opened"] = open(__file__).close() is None  # the real open, closed at once

    with tripwires() as calls:
        other = threading.Thread(target=elsewhere)
        other.start()
        other.join()
        with pytest.raises(AssertionError, match="open was called"):
            open(__file__)
    assert seen == {"opened": True}
    assert [name for name, _ in calls] == ["open"]


def parse_guarded(text: str):
    """parse_schedule(text) with the tripwires set: the schedule, or the ValueError it raised."""
    with tripwires() as calls:
        try:
            result = parse_schedule(text)
        except ValueError as error:
            result = error
    assert calls == [], f"{text!r} ran {calls}"
    return result


NAMES = [
    "cosine",
    "CosineAnnealingScheduler",
    "step",
    "Sequence",
    "cadence_canary",
    "__import__",
    "eval",
    "exec",
    "open",
    "os",
    "getattr",
    "globals",
    "Schedule",
    "type",
    "print",
    "CosineDecayLR",
]
LITERALS = ["0.1", "-1", "'1ba'", "'0.5dur'", "None", "True", "'__import__(\"os\")'", "1e3", "b'x'", "1j"]


def _schedules(depth: int):
    """Mostly valid schedule expressions (the whitelist's side of the fuzz)."""
    alpha = st.sampled_from(["0.0", "0.1", "-0.5", "+1", "1e-3", "True", "None", "'0.1'"])
    leaf = st.one_of(
        alpha.map(lambda a: f"cosine(alpha_f={a})"),
        st.sampled_from(["'10ba'", "'0.1dur'", "'1ba'", "'0ba'", "10"]).map(lambda t: f"step({t}, gamma=0.5)"),
        st.just("CosineAnnealingScheduler()"),
    )
    if depth == 0:
        return leaf
    inner = _schedules(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(inner, inner).map(lambda p: f"Sequence([{p[0]}, {p[1]}], ['0.5dur'])"),
        st.tuples(inner, inner).map(lambda p: f"Sequence(({p[0]}, {p[1]}), ('0.5dur',))"),
    )


def _hostile(depth: int):
    """Expressions built from anything: names, attributes, subscripts, lambdas, comprehensions, f-strings, ..."""
    leaf = st.one_of(st.sampled_from(LITERALS), st.sampled_from(NAMES), _schedules(1))
    if depth == 0:
        return leaf
    inner = _hostile(depth - 1)
    arguments = st.lists(
        st.one_of(inner, st.tuples(st.sampled_from(["alpha_f", "t_max", "gamma", "x"]), inner).map("=".join)),
        max_size=3,
    ).map(", ".join)
    return st.one_of(
        leaf,
        st.tuples(st.one_of(st.sampled_from(NAMES), inner.map(lambda e: f"({e})")), arguments).map(
            lambda p: f"{p[0]}({p[1]})"
        ),
        st.tuples(inner, st.sampled_from(["system", "__class__", "__globals__", "read"])).map(".".join),
        st.lists(inner, max_size=3).map(lambda items: f"[{', '.join(items)}]"),
        st.tuples(inner, inner).map(lambda p: f"{p[0]}[{p[1]}]"),
        inner.map(lambda e: f"(lambda: {e})()"),
        inner.map(lambda e: f"[cadence_canary() for _ in [{e}]]"),
        inner.map(lambda e: f"f'{{{e}}}'"),
        inner.map(lambda e: f"-{e}"),
        st.tuples(inner, inner).map(lambda p: f"{p[0]} + {p[1]}"),
        st.tuples(_schedules(1), inner).map(lambda p: f"Sequence([{p[0]}, {p[1]}], ['0.5dur'])"),
    )


ALLOWED_NODES = (
    ast.Expression,
    ast.Call,
    ast.Name,
    ast.Load,
    ast.Constant,
    ast.List,
    ast.Tuple,
    ast.keyword,
    ast.UnaryOp,
    ast.USub,
    ast.UAdd,
)


def check_whitelisted(text: str) -> object:
    """parse_schedule under tripwires; a result that is a schedule must come from whitelisted nodes only."""
    schedule = parse_guarded(text)
    if isinstance(schedule, Schedule):
        tree = ast.parse(text.strip(), mode="eval")
        assert all(isinstance(node, ALLOWED_NODES) for node in ast.walk(tree)), text
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                assert isinstance(node.func, ast.Name) and node.func.id in SCHEDULE_NAMES, text
    else:
        assert isinstance(schedule, ValueError)
    return schedule


SCHEDULE_NAMES = ("cosine", "CosineAnnealingScheduler", "step", "Sequence")


@FUZZ
@given(_hostile(3))
def test_fuzz_nothing_outside_the_whitelist_executes(text):
    check_whitelisted(text)


@FUZZ
@given(_schedules(3))
def test_fuzz_whitelisted_expressions_build_schedules(text):
    result = check_whitelisted(text)
    if isinstance(result, ValueError):  # only the schedules' own argument checks (bools, None, strings as alpha)
        assert not isinstance(result, ExpressionError), result


@FUZZ
@given(st.text(alphabet="cosine()[]{}.,_'\"=:+-*/ 0123456789abdrtxyz\\\n#@!%^&|<>~`;", max_size=60))
def test_fuzz_arbitrary_text_is_a_value_error_or_a_schedule(text):
    assert isinstance(parse_guarded(text), (Schedule, ValueError))


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os').system('x')",
        "cadence_canary()",
        "cosine(alpha_f=cadence_canary())",
        "Sequence([cadence_canary()], ['0.5dur'])",
        "Sequence([cosine(), cosine()], [cadence_canary()])",
        "open('x').read()",
        "eval('cosine()')",
        "exec('import os')",
        "cosine(alpha_f=(lambda: cadence_canary())())",
        "cosine(alpha_f=[cadence_canary() for _ in [1]][0])",
        "cosine(alpha_f=f'{cadence_canary()}')",
        "cosine(t_max=\"__import__('os').system('x')\")",
    ],
)
def test_dangerous_expressions_are_rejected_before_anything_runs(text):
    assert isinstance(parse_guarded(text), ValueError)


def test_tripwires_work():
    with pytest.raises(AssertionError, match="cadence_canary was called"), tripwires() as calls:
        builtins.cadence_canary()
    assert calls
