"""``cstorch.optim``: the schedulers, ``configure_lr_scheduler``, ``configure_optimizer`` and every optimizer
``configure_optimizer`` resolves (from schedulers.optim, below the front ends), without importing the trainer."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import schedulers.cerebras as cstorch
from trainer.optim import CEREBRAS_DEFAULTS, configure_optimizer, optimizer_classes

ROOT = Path(__file__).resolve().parents[3]


def _run(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_importing_the_cerebras_front_end_does_not_import_the_trainer():
    code = (
        "import sys\n"
        "import schedulers, schedulers.cerebras as cstorch\n"
        "cstorch.optim.lr_scheduler.LinearLR, cstorch.optim.configure_lr_scheduler\n"
        "from schedulers.core.names import get_scheduler\n"
        "get_scheduler('CosineDecayLR')\n"
        "print(sorted(m for m in sys.modules if m == 'trainer' or m.startswith('trainer.')))\n"
        "cstorch.optim.AdamW\n"
        "print('trainer.optim' in sys.modules, 'schedulers.optim' in sys.modules)\n"
    )
    assert _run(code).splitlines() == ["[]", "False True"]


def test_every_optimizer_configure_optimizer_resolves_is_an_attribute():
    names = list(optimizer_classes())
    assert {"SGD", "Adam", "AdamW", "Lamb", "Lion"} <= set(names)
    for name in names:
        cls = getattr(cstorch.optim, name)
        assert issubclass(cls, optimizer_classes()[name]) and cls.__name__ == name
    assert cstorch.optim.configure_optimizer is configure_optimizer
    assert cstorch.optim.SGD is torch.optim.SGD and cstorch.optim.Lamb is optimizer_classes()["Lamb"]
    assert {"configure_optimizer", "AdamW", "LinearLR"} <= set(dir(cstorch.optim))


@pytest.mark.parametrize("cls", list(CEREBRAS_DEFAULTS), ids=lambda cls: cls.__name__)
def test_the_class_builds_what_configure_optimizer_builds(cls):
    params = [torch.zeros(2, requires_grad=True)]
    by_class = getattr(cstorch.optim, cls.__name__)(params, lr=0.01)
    by_name = configure_optimizer(cls.__name__, params, lr=0.01)
    assert isinstance(by_class, cls) and by_class.defaults == by_name.defaults
    for argument, value in CEREBRAS_DEFAULTS[cls].items():
        if argument != "lr":
            assert by_class.defaults[argument] == value


def test_given_arguments_win_over_cerebras_defaults_positionally_too():
    params = [torch.zeros(2, requires_grad=True)]
    adam = cstorch.optim.Adam(params, 0.01, (0.8, 0.9), 1e-8)
    assert (adam.defaults["lr"], adam.defaults["betas"], adam.defaults["eps"]) == (0.01, (0.8, 0.9), 1e-8)
    assert cstorch.optim.AdamW(params, weight_decay=0.1).defaults["weight_decay"] == 0.1


def test_the_optimizers_listed_are_the_ones_configure_optimizer_resolves():
    # a new torch optimizer that optimizer_classes() finds and this namespace lacks fails here
    listed = {
        name
        for name in cstorch.optim.__all__
        if inspect.isclass(value := getattr(cstorch.optim, name)) and issubclass(value, torch.optim.Optimizer)
    }
    assert listed == set(optimizer_classes())
    declared = {
        name
        for name, value in vars(cstorch.optim).items()
        if inspect.isclass(value)
        and issubclass(value, torch.optim.Optimizer)
        and value.__module__ == cstorch.optim.__name__
    }
    assert declared == {cls.__name__ for cls in CEREBRAS_DEFAULTS}


def _parameters(cls: type) -> list[inspect.Parameter]:
    return list(inspect.signature(cls.__init__).parameters.values())[1:]  # after self


@pytest.mark.parametrize("cls", list(CEREBRAS_DEFAULTS), ids=lambda cls: cls.__name__)
def test_a_declared_signature_is_torchs_with_cerebras_defaults(cls):
    ours, torchs = _parameters(getattr(cstorch.optim, cls.__name__)), _parameters(cls)
    assert [(p.name, p.kind) for p in ours] == [(p.name, p.kind) for p in torchs]
    for mine, theirs in zip(ours, torchs, strict=True):
        expected = CEREBRAS_DEFAULTS[cls].get(theirs.name, theirs.default)
        assert mine.default == expected and type(mine.default) is type(expected), mine.name


def _other_value(index: int, default: object) -> object:
    """A valid value unlike ``default`` and unlike the other arguments' (so a swapped argument shows)."""
    if isinstance(default, bool):
        return not default
    if default is None:
        return False
    if isinstance(default, tuple):
        return tuple(_other_value(index, part) for part in default)
    return default * 0.9 + 0.001 * (index + 1)


@pytest.mark.parametrize("cls", list(CEREBRAS_DEFAULTS), ids=lambda cls: cls.__name__)
def test_a_declared_class_hands_every_argument_to_torchs(cls):
    given = {p.name: _other_value(i, p.default) for i, p in enumerate(_parameters(cls)[1:])}
    positional = [given[p.name] for p in _parameters(cls)[1:] if p.kind is p.POSITIONAL_OR_KEYWORD]
    keywords = {p.name: given[p.name] for p in _parameters(cls)[1:] if p.kind is p.KEYWORD_ONLY}
    params = [torch.zeros(2, requires_grad=True)]
    expected = cls(params, **given).defaults
    assert getattr(cstorch.optim, cls.__name__)(params, **given).defaults == expected
    assert getattr(cstorch.optim, cls.__name__)(params, *positional, **keywords).defaults == expected


def test_an_unknown_name_suggests_close_ones():
    with pytest.raises(AttributeError, match=r"has no attribute 'Adamw' \(did you mean AdamW"):
        cstorch.optim.Adamw  # noqa: B018
    assert not hasattr(cstorch.optim, "__wrapped__")
