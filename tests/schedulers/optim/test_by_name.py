"""``configure_optimizer`` (docs/cerebras.md, docs/trainer-config.md)."""

from __future__ import annotations

import warnings

import pytest
import torch

from schedulers.optim import (
    CEREBRAS_DEFAULTS,
    Lamb,
    Lion,
    OptimizerArgumentError,
    configure_optimizer,
    optimizer_classes,
)


def params():
    return [torch.zeros(3, requires_grad=True)]


@pytest.mark.parametrize(
    "name, cls",
    [
        ("SGD", torch.optim.SGD),
        ("sgd", torch.optim.SGD),
        ("AdamW", torch.optim.AdamW),
        ("adamw", torch.optim.AdamW),
        ("ADAMW", torch.optim.AdamW),
        (" Adam ", torch.optim.Adam),
        ("rmsprop", torch.optim.RMSprop),
        ("nadam", torch.optim.NAdam),
        ("lamb", Lamb),
        ("LAMB", Lamb),
        ("Lion", Lion),
        ("lion", Lion),
    ],
)
def test_names_match_case_insensitively(name, cls):
    assert type(configure_optimizer(name, params())) is cls


def test_a_class_is_accepted_too():
    assert type(configure_optimizer(Lion, params(), lr=1e-3)) is Lion


def test_known_names():
    names = optimizer_classes()
    for name in (
        "SGD",
        "Adam",
        "AdamW",
        "Adamax",
        "Adagrad",
        "Adadelta",
        "ASGD",
        "NAdam",
        "RAdam",
        "RMSprop",
        "Rprop",
        "Lamb",
        "Lion",
    ):
        assert name in names
    assert "Optimizer" not in names


@pytest.mark.parametrize("value, expected", [(3e-4, 3e-4), ("1e-3", 1e-3), (2, 2)])
def test_learning_rate_is_accepted_for_lr(value, expected):
    opt = configure_optimizer("SGD", params(), learning_rate=value, momentum=0.9)
    assert opt.param_groups[0]["lr"] == expected and opt.param_groups[0]["momentum"] == 0.9


def test_learning_rate_and_the_same_lr_agree():
    assert configure_optimizer("Lion", params(), learning_rate=0.1, lr=0.1).defaults["lr"] == 0.1


def test_learning_rate_and_a_different_lr_is_an_error():
    with pytest.raises(ValueError, match="both lr=0.2 and learning_rate=0.1"):
        configure_optimizer("SGD", params(), learning_rate=0.1, lr=0.2)


def test_a_tensor_lr_is_compared_with_learning_rate_by_value():
    lr = torch.tensor(0.1)  # equal to 0.1 as a float32 scalar
    assert configure_optimizer("SGD", params(), learning_rate=0.1, lr=lr).defaults["lr"] == 0.1
    with pytest.raises(ValueError, match=r"both lr=tensor\(0.2000\) and learning_rate=0.1"):
        configure_optimizer("SGD", params(), learning_rate=0.1, lr=torch.tensor(0.2))


def test_a_schedule_in_learning_rate_is_left_to_the_scheduler():
    schedule = {"scheduler": "Linear", "initial_learning_rate": 0.1, "end_learning_rate": 0.0, "total_iters": 10}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt = configure_optimizer("Adam", params(), learning_rate=schedule)
    assert opt.defaults["lr"] == 1e-3


def test_arguments_the_constructor_does_not_take_are_an_error_naming_them():
    # issue 11 item 12: an error, as in a YAML config (it used to be dropped with a warning)
    with pytest.raises(ValueError, match=r"SGD does not take bogus, unused_flag; it accepts: ") as info:
        configure_optimizer("sgd", params(), lr=0.1, momentum=0.5, bogus=1, unused_flag="x")
    assert "momentum" in str(info.value)  # lists what SGD accepts


def test_a_misspelt_argument_is_an_error_suggesting_the_right_one():
    with pytest.raises(ValueError, match=r"SGD does not take momentun \(did you mean momentum\?\)"):
        configure_optimizer("SGD", params(), momentun=0.9)


def test_a_numeric_argument_needs_a_number():
    with pytest.raises(OptimizerArgumentError, match=r"^SGD: lr='1e-2x' must be a number$") as info:
        configure_optimizer("SGD", params(), lr="1e-2x")
    assert info.value.argument == "lr" and isinstance(info.value, ValueError)
    with pytest.raises(OptimizerArgumentError, match=r"^SGD: momentum=\[0.9\] must be a number$"):
        configure_optimizer("SGD", params(), momentum=[0.9])
    assert configure_optimizer("SGD", params(), lr="1e-2", momentum="0.5").defaults["lr"] == 0.01


def test_no_warning_when_everything_is_used():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        configure_optimizer("AdamW", params(), lr=1e-3, betas=(0.8, 0.9), eps=1e-8, weight_decay=0.1, amsgrad=True)


@pytest.mark.parametrize(
    "name, close", [("adamm", "Adam"), ("Lambda", "Lamb"), ("RMSProp2", "RMSprop"), ("lino", "Lion")]
)
def test_unknown_names_list_close_ones(name, close):
    with pytest.raises(ValueError, match=rf"unknown optimizer '{name}' \(did you mean [^)]*{close}") as info:
        configure_optimizer(name, params())
    assert "known: " in str(info.value) and "SGD" in str(info.value)


def test_a_non_name_is_an_error():
    with pytest.raises(ValueError, match="optimizer_type"):
        configure_optimizer(42, params())


# -------------------------------------------------------------------------- Cerebras's defaults


@pytest.mark.parametrize(
    "name, expected",
    [
        ("Adam", {"lr": 1e-3, "eps": 1e-6, "weight_decay": 0.0, "betas": (0.9, 0.999)}),
        ("AdamW", {"lr": 1e-3, "eps": 1e-6, "weight_decay": 0.0, "betas": (0.9, 0.999)}),
        ("Adamax", {"lr": 1e-3, "eps": 1e-6, "weight_decay": 0.0}),
        ("Adagrad", {"lr": 1e-2, "eps": 1e-6}),
        ("RAdam", {"lr": 1e-3, "eps": 1e-6}),
        ("Rprop", {"lr": 1e-3}),
        ("NAdam", {"lr": 2e-3, "eps": 1e-8}),  # the same in both
        ("Lamb", {"lr": 1e-3, "eps": 1e-6, "weight_decay": 0.0, "betas": (0.9, 0.999)}),
        ("Lion", {"lr": 1e-4, "weight_decay": 0.0, "betas": (0.9, 0.99)}),
    ],
)
def test_cerebras_documented_defaults(name, expected):
    opt = configure_optimizer(name, params())
    assert {key: opt.defaults[key] for key in expected} == expected


def test_given_values_win_over_cerebras_defaults():
    opt = configure_optimizer("adamw", params(), eps=1e-8, weight_decay=0.01)
    assert (opt.defaults["eps"], opt.defaults["weight_decay"]) == (1e-8, 0.01)


def test_direct_construction_keeps_torch_defaults():
    assert torch.optim.AdamW(params()).defaults["weight_decay"] == 0.01  # only configure_optimizer changes them
    assert set(CEREBRAS_DEFAULTS) >= {torch.optim.Adam, torch.optim.AdamW}


def test_cerebras_correct_bias():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        configure_optimizer("AdamW", params(), correct_bias=True)  # what torch always does
    with pytest.raises(ValueError, match="correct_bias=False"):
        configure_optimizer("AdamW", params(), correct_bias=False)


@pytest.mark.parametrize(
    "kwargs, fix",
    [
        ({"beta1": 0.9, "beta2": 0.99}, "use betas instead of beta1"),
        ({"weight_decay_rate": 0.1}, "use weight_decay instead of weight_decay_rate"),
    ],
)
def test_old_cerebras_spellings_name_the_new_argument(kwargs, fix):
    with pytest.raises(ValueError, match=fix):
        configure_optimizer("Adam", params(), **kwargs)


def test_param_groups_pass_through():
    a, b = torch.zeros(2, requires_grad=True), torch.zeros(2, requires_grad=True)
    opt = configure_optimizer("SGD", [{"params": [a]}, {"params": [b], "lr": 0.5}], learning_rate=0.1)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]


def test_constructor_errors_surface_with_the_class_name():
    with pytest.raises(ValueError, match="lr"):
        configure_optimizer("Lion", params(), lr=-1.0)


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"learning_rate": True}, "SGD: learning_rate=True must be a number"),
        ({"learning_rate": "abc"}, "SGD: learning_rate='abc' must be a number"),
        ({"learning_rate": "inf"}, "SGD: learning_rate='inf' must be a finite number"),
        ({"lr": float("nan")}, "SGD: lr=nan must be a finite number"),
        ({"momentum": " 1e-2x"}, "SGD: momentum=' 1e-2x' must be a number"),
        ({"momentum": float("inf")}, "SGD: momentum=inf must be a finite number"),
    ],
)
def test_learning_rate_and_numeric_arguments_are_read_one_way(arguments, message):
    with pytest.raises(OptimizerArgumentError) as raised:
        configure_optimizer("SGD", [torch.zeros(1, requires_grad=True)], **arguments)
    assert str(raised.value) == message
