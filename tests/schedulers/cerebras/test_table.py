"""The learning-rate and weight-decay classes are built from one table (schedulers.cerebras.table): for each
row, both classes write its form (a Cadence schedule of schedulers.families.cerebras), with Cerebras's argument names,
signature, docstring, module and registry entry."""

from __future__ import annotations

import inspect
import pickle

import attrs
import pytest
import torch

import schedulers.cerebras as cs
from schedulers.cerebras import lr_scheduler, weight_decay_scheduler
from schedulers.cerebras.scheduler import HyperparameterScheduler
from schedulers.cerebras.table import ROWS, TABLE
from schedulers.core.names import get_scheduler, scheduler_family
from schedulers.families import cerebras as forms

COMPOSITE_FORMS = (forms.Sequential, forms.Chained, forms.ScalePerParam)
LR_CLASSES = {row.stem: getattr(cs, row.lr_class or row.stem + "LR") for row in TABLE}
WD_CLASSES = {row.stem: getattr(cs, row.stem + "WD") for row in TABLE}


def _public_parameters(cls) -> list[tuple[str, object, object]]:
    return [(p.name, p.default, p.kind) for p in inspect.signature(cls).parameters.values()]


@pytest.mark.parametrize("row", TABLE, ids=[row.stem for row in TABLE])
def test_both_families_of_a_row_share_its_closed_form(row):
    lr, wd = LR_CLASSES[row.stem], WD_CLASSES[row.stem]
    assert (lr.form or lr.composes) is (wd.form or wd.composes) is row.form
    assert lr.__mro__[1] is cs.LRScheduler and wd.__mro__[1] is cs.WeightDecayScheduler
    assert attrs.has(row.form) and attrs.fields(row.form) and row.form.__setattr__ is not object.__setattr__  # frozen
    assert (lr.__module__, lr.__qualname__) == ("schedulers.cerebras.lr_scheduler", lr.__name__)
    assert (wd.__module__, wd.__qualname__) == ("schedulers.cerebras.weight_decay_scheduler", wd.__name__)
    assert getattr(cs.optim.lr_scheduler, lr.__name__) is lr and getattr(cs.optim, wd.__name__) is wd
    assert scheduler_family(lr) == scheduler_family(wd) == "cerebras"
    assert get_scheduler(lr.__name__) is lr and get_scheduler(wd.__name__) is wd
    for alias in row.lr_aliases:
        assert get_scheduler(alias) is lr


@pytest.mark.parametrize("row", TABLE, ids=[row.stem for row in TABLE])
def test_signatures_are_the_forms_with_the_learning_rate_names(row):
    if row.form in COMPOSITE_FORMS:  # a composite takes its children, not their forms
        pytest.skip("a composite's signature is Cerebras's, checked in test_values")
    hooks = ("functions", "factor")  # what a subclass's hook gives, not an argument
    keyword = inspect.Parameter.POSITIONAL_OR_KEYWORD
    form = [(p.name, p.default, p.kind) for p in inspect.signature(row.form).parameters.values() if p.name not in hooks]
    form = [("optimizer", inspect.Parameter.empty, keyword), *form, ("param_group_tags", None, keyword)]
    form.append(("state", None, inspect.Parameter.KEYWORD_ONLY))
    assert _public_parameters(WD_CLASSES[row.stem]) == form
    renamed = [(row.lr_names.get(name, name), default, kind) for name, default, kind in form]
    assert _public_parameters(LR_CLASSES[row.stem]) == renamed
    generic_values = {"val", "initial_val", "end_val", "vals", "base_val", "max_val"}
    assert not generic_values & {name for name, _, _ in renamed}, "an lr class shows a generic value name"


@pytest.mark.parametrize("row", TABLE, ids=[row.stem for row in TABLE])
def test_docstrings_show_the_formula_in_each_familys_names(row):
    lr, wd = LR_CLASSES[row.stem].__doc__, WD_CLASSES[row.stem].__doc__
    for doc in (lr, wd):
        assert ":math:" in doc or ".. math::" in doc
        assert "{" + "value}" not in doc and "{" + "initial_val}" not in doc  # the template is filled
    for generic, public in row.lr_names.items():
        assert f"``{public}" in lr and f"``{generic}" in wd


def test_the_modules_hold_exactly_the_tables_classes():
    def schedulers_in(module):
        return {
            name
            for name, obj in vars(module).items()
            if inspect.isclass(obj) and issubclass(obj, HyperparameterScheduler) and obj.__module__ == module.__name__
        }

    assert schedulers_in(lr_scheduler) == {c.__name__ for c in LR_CLASSES.values()} | {
        "LRScheduler",
        "ChainedScheduler",
    }
    wd_bases = {"WeightDecayScheduler", "WDScheduler"}
    assert schedulers_in(weight_decay_scheduler) == {c.__name__ for c in WD_CLASSES.values()} | wd_bases
    assert set(lr_scheduler.__all__) == schedulers_in(lr_scheduler)
    assert set(weight_decay_scheduler.__all__) == schedulers_in(weight_decay_scheduler)
    assert len(TABLE) == len(ROWS) == 19


def _optimizer():
    return torch.optim.AdamW([torch.zeros(1, requires_grad=True)], lr=1.0, weight_decay=1.0)


def test_lr_names_are_attributes_and_errors_use_them():
    scheduler = cs.OneCycleLR(_optimizer(), initial_learning_rate=0.01, max_lr=0.1, total_steps=100)
    assert (scheduler.initial_learning_rate, scheduler.max_lr) == (scheduler.initial_val, scheduler.max_val)
    with pytest.raises(ValueError, match=r"PiecewiseConstantLR: learning_rates needs one more value"):
        cs.PiecewiseConstantLR(_optimizer(), learning_rates=[0.1], milestones=[5])
    with pytest.raises(ValueError, match=r"PiecewiseConstantWD: vals needs one more value"):
        cs.PiecewiseConstantWD(_optimizer(), vals=[0.1], milestones=[5])


def test_a_wrong_call_names_the_class_and_shows_its_signature():
    with pytest.raises(TypeError, match=r"LinearLR\(optimizer, initial_learning_rate, end_learning_rate, total_iters"):
        cs.LinearLR(_optimizer(), 0.1, total_iters=10)
    with pytest.raises(TypeError, match=r"'initial_val' is called 'initial_learning_rate' here"):
        cs.LinearLR(_optimizer(), initial_val=0.1, end_learning_rate=0.0, total_iters=10)
    with pytest.raises(TypeError):
        cs.LinearWD(_optimizer(), initial_learning_rate=0.1, end_val=0.0, total_iters=10)


def test_positional_and_keyword_calls_agree_and_pickle():
    by_position = cs.CyclicLR(_optimizer(), 0.01, 0.1, 5, 3, "triangular2")
    by_name = cs.CyclicLR(_optimizer(), base_lr=0.01, max_lr=0.1, step_size_up=5, step_size_down=3, mode="triangular2")
    assert torch.equal(by_position.values_at(range(40)), by_name.values_at(range(40)))
    wd = cs.CyclicWD(_optimizer(), base_val=0.01, max_val=0.1, step_size_up=5, step_size_down=3, mode="triangular2")
    assert torch.equal(wd.values_at(range(40)), by_name.values_at(range(40)))
    copy = pickle.loads(pickle.dumps(by_name))
    assert type(copy) is cs.CyclicLR and torch.equal(copy.values_at(range(40)), by_name.values_at(range(40)))


def test_lambda_hooks_per_family():
    class Halving(cs.LambdaLR):
        def set_lr_lambda(self):
            return lambda step: 0.5**step

    assert Halving(_optimizer(), 0.8).values_at([0, 2]).tolist() == [0.8, 0.2]
    with pytest.raises(NotImplementedError, match="set_lr_lambda"):
        cs.LambdaLR(_optimizer(), 0.8)
    with pytest.raises(NotImplementedError, match="set_value_lambda"):
        cs.LambdaWD(_optimizer(), 0.8)
    assert not hasattr(cs.LambdaWD, "set_lr_lambda")
    multiplicative = cs.MultiplicativeLR(_optimizer(), 0.8, coefficient=0.5)
    assert multiplicative.set_lr_lambda()(3) == 0.5 and multiplicative.values_at([2]).tolist() == [0.2]
