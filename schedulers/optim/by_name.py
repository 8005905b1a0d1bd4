"""``configure_optimizer(optimizer_type, params, **kwargs)``: an optimizer by name, Cerebras style.

Names match case-insensitively among ``torch.optim``'s optimizers and Cadence's :class:`Lamb` and
:class:`Lion`. A keyword argument the constructor does not take is a ``ValueError`` naming it (with the
closest accepted name), as in a YAML config; ``learning_rate`` is accepted for ``lr``. Where Cerebras
documents a default that differs from torch's for an optimizer both provide, Cerebras's default is used
(``Adam``/``AdamW`` ``eps=1e-6``, ``AdamW`` ``weight_decay=0.0``, ...): see :data:`CEREBRAS_DEFAULTS`.

>>> import torch
>>> opt = configure_optimizer("adamw", [torch.zeros(2, requires_grad=True)], learning_rate=3e-4)
>>> type(opt).__name__, opt.defaults["lr"], opt.defaults["eps"], opt.defaults["weight_decay"]
('AdamW', 0.0003, 1e-06, 0.0)
"""

from __future__ import annotations

import inspect
from typing import Any

import torch
from torch.optim import Optimizer

from schedulers.core.names import did_you_mean
from schedulers.core.schedule_arguments import number_problem, number_text, same_value
from schedulers.optim.lamb import Lamb
from schedulers.optim.lion import Lion

__all__ = [
    "CEREBRAS_DEFAULTS",
    "OptimizerArgumentError",
    "configure_optimizer",
    "optimizer_class",
    "optimizer_classes",
]

# Cerebras's documented constructor defaults (cerebras.pytorch.optim 2.x signatures) where they differ
# from torch's for the same optimizer. Adafactor is left out: Cerebras's is the Hugging Face algorithm,
# with other arguments than torch's. SGD's lr, required by Cerebras, keeps torch's default.
CEREBRAS_DEFAULTS: dict[type, dict[str, Any]] = {
    torch.optim.Adam: {"eps": 1e-6, "weight_decay": 0.0},
    torch.optim.AdamW: {"eps": 1e-6, "weight_decay": 0.0},
    torch.optim.Adamax: {"lr": 1e-3, "eps": 1e-6, "weight_decay": 0.0},
    torch.optim.Adagrad: {"eps": 1e-6},
    torch.optim.RAdam: {"eps": 1e-6, "weight_decay": 0.0},
    torch.optim.Rprop: {"lr": 1e-3},
}

# Cerebras-only arguments whose only meaningful value is what torch always does: dropped silently when
# they say so, an error otherwise (dropping them would change the algorithm).
_FIXED_IN_TORCH: dict[type, dict[str, Any]] = {
    torch.optim.AdamW: {"correct_bias": True},
}

# Old Cerebras spellings Cerebras itself rejects, with the argument to use instead.
_RENAMED = {
    "weight_decay": ("weight_decay_rate",),
    "betas": ("beta1", "beta2"),
    "eps": ("eps1", "eps2"),
    "etas": ("eta1", "eta2"),
    "step_sizes": ("step_size_min", "step_size_max"),
}


def optimizer_classes() -> dict[str, type[Optimizer]]:
    """Every optimizer :func:`configure_optimizer` knows, by class name: ``torch.optim``'s, Lamb and Lion.

    Returns:
        Class name -> optimizer class, sorted by name without regard to case.

    Example:
        >>> classes = optimizer_classes()
        >>> classes["AdamW"] is torch.optim.AdamW, classes["Lion"].__name__
        (True, 'Lion')
    """
    found = {
        name: obj
        for name, obj in vars(torch.optim).items()
        if inspect.isclass(obj) and issubclass(obj, Optimizer) and obj is not Optimizer
    }
    found.update({"Lamb": Lamb, "Lion": Lion})
    return dict(sorted(found.items(), key=lambda item: item[0].lower()))


class OptimizerArgumentError(ValueError):
    """A value of one keyword argument that cannot be used (a ``ValueError``).

    Its text after the optimizer's name is the one every number argument of Cadence gives
    (:func:`schedulers.core.schedule_arguments.number_argument`): ``lr='fast' must be a number``.

    Args:
        optimizer: The optimizer's class name, first in the message.
        argument: The keyword argument (``"lr"``), kept as ``.argument``.
        value: The value given, kept as ``.value``.
        problem: What is wrong with it (``"must be a number"``), kept as ``.problem``.

    Returns:
        The error, raised by :func:`configure_optimizer`; a config reader turns it into an error on a key path,
        with the same text after it (``.text``).

    Example:
        >>> try:
        ...     configure_optimizer("SGD", [torch.zeros(1, requires_grad=True)], lr="fast")
        ... except OptimizerArgumentError as error:
        ...     print(error, "|", error.text)
        SGD: lr='fast' must be a number | lr='fast' must be a number
    """

    def __init__(self, optimizer: str, argument: str, value: Any, problem: str) -> None:
        self.argument, self.value, self.problem = argument, value, problem
        self.text = f"{argument}={value!r} {problem}"
        super().__init__(f"{optimizer}: {self.text}")


def configure_optimizer(optimizer_type: str | type[Optimizer], params: Any, **kwargs: Any) -> Optimizer:
    """Build the optimizer named ``optimizer_type`` (any case) on ``params``.

    - ``learning_rate`` is taken as ``lr`` when it is a finite number or a numeric string; a dict or list
      there is a Cerebras schedule configuration and is left to the scheduler (ignored here); anything else is
      an :class:`OptimizerArgumentError`. Giving both ``learning_rate`` and a different ``lr`` is an error.
    - An argument the constructor does not accept is a ``ValueError`` naming it, suggesting the closest
      accepted name and listing them all (``momentun`` → ``momentum``); Cerebras's old spellings
      (``beta1``/``beta2``, ``weight_decay_rate``, ...) are a ``ValueError`` naming the argument to use.
    - An argument whose default is a number takes a finite number (a numeric string such as ``"1e-3"`` is read
      as one); anything else is an :class:`OptimizerArgumentError` naming it (``lr='1e-2x' must be a number``,
      ``lr=nan must be a finite number``).
    - Cerebras's defaults (:data:`CEREBRAS_DEFAULTS`) fill arguments that were not given.
    - An unknown name is a ``ValueError`` listing close names and every known one.

    Args:
        optimizer_type: The optimizer's name (``"adamw"``, ``"Lion"``), or an ``Optimizer`` subclass.
        params: The parameters or param groups, as torch's optimizers take them.
        **kwargs: The optimizer's arguments (``learning_rate`` for ``lr`` too).

    Returns:
        The optimizer, built on ``params``.

    Raises:
        ValueError: An unknown name, an argument the optimizer does not take, or both ``lr`` and a different
            ``learning_rate``; :class:`OptimizerArgumentError` (a ``ValueError``) a value that is not a number.
        TypeError: The optimizer's own constructor refused the arguments.

    Example:
        >>> configure_optimizer("sgd", [torch.zeros(2, requires_grad=True)], momentun=0.9)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: SGD does not take momentun (did you mean momentum?); it accepts: lr, momentum, ...
        >>> configure_optimizer("sgd", [torch.zeros(2, requires_grad=True)], learning_rate="0.1").defaults["lr"]
        0.1
    """
    cls = optimizer_class(optimizer_type)
    kwargs = dict(kwargs)
    parameters = _parameters(cls)
    _take_learning_rate(cls, kwargs)
    _drop_fixed_in_torch(cls, kwargs, parameters)
    _check_names(cls, kwargs, parameters)
    _check_numbers(cls, kwargs, parameters)
    for name, value in CEREBRAS_DEFAULTS.get(cls, {}).items():
        kwargs.setdefault(name, value)
    try:
        return cls(params, **kwargs)
    except TypeError as error:
        raise TypeError(f"could not configure {cls.__name__}: {error}") from error


def _parameters(cls: type[Optimizer]) -> dict[str, inspect.Parameter]:
    """The constructor's parameters after ``params`` (``**kwargs`` included, under its own name)."""
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]  # after self
    if not parameters or parameters[0].name != "params":
        raise ValueError(f"{cls.__name__} cannot be configured by name: its first argument is not 'params'")
    return {p.name: p for p in parameters[1:]}


def _accepted(parameters: dict[str, inspect.Parameter]) -> tuple[list[str], bool]:
    named = [n for n, p in parameters.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    return named, any(p.kind is p.VAR_KEYWORD for p in parameters.values())


def _drop_fixed_in_torch(cls: type, kwargs: dict[str, Any], parameters: dict[str, inspect.Parameter]) -> None:
    for name, fixed in _FIXED_IN_TORCH.get(cls, {}).items():
        if name in kwargs and name not in parameters:
            if kwargs[name] != fixed:
                raise ValueError(
                    f"{cls.__name__}({name}={kwargs[name]!r}) is not supported: torch's {cls.__name__} "
                    f"always behaves as {name}={fixed!r}"
                )
            del kwargs[name]


def _check_names(cls: type, kwargs: dict[str, Any], parameters: dict[str, inspect.Parameter]) -> None:
    """Cerebras's renamed arguments and arguments the constructor does not take are errors naming them."""
    accepted, takes_any = _accepted(parameters)
    if takes_any:
        return
    renamed = [(new, old) for new, olds in _RENAMED.items() if new in accepted for old in olds if old in kwargs]
    if renamed:
        fixes = "; ".join(f"use {new} instead of {old}" for new, old in renamed)
        raise ValueError(f"{cls.__name__} got arguments Cerebras no longer supports: {fixes}")
    unknown = sorted(name for name in kwargs if name not in accepted)
    if unknown:
        named = ", ".join(name + did_you_mean(name, accepted) for name in unknown)
        raise ValueError(f"{cls.__name__} does not take {named}; it accepts: {', '.join(accepted)}")


def _check_numbers(cls: type, kwargs: dict[str, Any], parameters: dict[str, inspect.Parameter]) -> None:
    """Arguments whose default is a number get finite numbers (numeric strings are read as floats)."""
    for name, value in list(kwargs.items()):
        parameter = parameters.get(name)
        default = None if parameter is None else parameter.default
        if isinstance(default, bool) or not isinstance(default, (int, float)) or isinstance(value, torch.Tensor):
            continue
        kwargs[name] = _number(cls, name, value)


def _number(cls: type, name: str, value: Any) -> Any:
    """``value`` (a numeric string read as a float) when it is a finite number, else the argument's error."""
    number = number_text(value)
    problem = number_problem(number)
    if problem is not None:
        raise OptimizerArgumentError(cls.__name__, name, value, problem)
    return number


def optimizer_class(optimizer_type: str | type[Optimizer]) -> type[Optimizer]:
    """The optimizer class named ``optimizer_type``, in any case (a class passes through).

    Args:
        optimizer_type: A name among :func:`optimizer_classes`, or an ``Optimizer`` subclass.

    Returns:
        The class.

    Raises:
        ValueError: An unknown name (naming close ones and every known one), or neither a name nor a class.

    Example:
        >>> optimizer_class("adamw") is torch.optim.AdamW
        True
        >>> optimizer_class("adamx")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: unknown optimizer 'adamx' (did you mean ...?); known: ...
    """
    if inspect.isclass(optimizer_type) and issubclass(optimizer_type, Optimizer):
        return optimizer_type
    known = optimizer_classes()
    if not isinstance(optimizer_type, str):
        raise ValueError(f"optimizer_type must be a name such as 'AdamW', got {optimizer_type!r}")
    by_lower = {name.lower(): cls for name, cls in known.items()}
    key = optimizer_type.strip().lower()
    if key in by_lower:
        return by_lower[key]
    hint = did_you_mean(key, known, cutoff=0.5)
    raise ValueError(f"unknown optimizer {optimizer_type!r}{hint}; known: {', '.join(known)}")


def _take_learning_rate(cls: type, kwargs: dict[str, Any]) -> None:
    """Move a scalar ``learning_rate`` into ``lr``; leave a schedule configuration out."""
    if "learning_rate" not in kwargs:
        return
    learning_rate = kwargs.pop("learning_rate")
    if learning_rate is None or isinstance(learning_rate, (dict, list)):
        return  # a Cerebras schedule configuration: the scheduler's business
    if not isinstance(learning_rate, torch.Tensor):
        learning_rate = _number(cls, "learning_rate", learning_rate)  # read as the other numeric arguments are
    if "lr" in kwargs and not same_value(kwargs["lr"], learning_rate):
        raise ValueError(f"{cls.__name__} got both lr={kwargs['lr']!r} and learning_rate={learning_rate!r}; give one")
    kwargs["lr"] = learning_rate
