"""A call checked against its signature before it is made: the one check of the keyword arguments a config
gives a class or function (a schedule, a scheduler built on an optimizer, a model or data factory).

A mistake is an :class:`ArgumentProblem`: the argument it is about (``None`` when it is about the call as a
whole) and one message, so a misspelt argument reads the same wherever a config names a callable, in Python's
own words with the closest accepted name (:func:`schedulers.core.names.did_you_mean`) and the signature:

>>> def make_model(in_features: int = 4, out_features: int = 1) -> None: ...
>>> print(call_problem(make_model, {"in_feature": 3}, name="make_model").message)
make_model got an unexpected keyword argument 'in_feature' (did you mean 'in_features'?); accepted:
make_model(in_features=4, out_features=1)
>>> call_problem(make_model, {"in_features": 3}, name="make_model") is None
True
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Collection, Mapping
from typing import Any

import attrs

from schedulers.core.names import did_you_mean

__all__ = ["ArgumentProblem", "call_problem", "signature_of", "signature_text"]

_NAMED = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


@attrs.frozen
class ArgumentProblem:
    """What is wrong with a call's arguments: ``argument`` (the keyword it is about, or None for the call as a
    whole, e.g. a missing argument) and ``message`` (one line, without a key path).

    Args:
        argument: the keyword argument at fault, or None.
        message: what is wrong and what is accepted.

    Example:
        >>> ArgumentProblem("gama", "StepScheduler got an unexpected keyword argument 'gama'").argument
        'gama'
    """

    argument: str | None
    message: str


def signature_of(target: Callable[..., Any]) -> inspect.Signature | None:
    """``inspect.signature(target)``, or None for a callable that has none (some builtins).

    Args:
        target: a class or function.

    Returns:
        Its signature, or None.

    Raises:
        Nothing: a callable without a signature is None.

    Example:
        >>> str(signature_of(lambda x, y=1: None))
        '(x, y=1)'
    """
    try:
        return inspect.signature(target)
    except (TypeError, ValueError):
        return None


def signature_text(name: str, target: Callable[..., Any], *, hidden: Collection[str] = ()) -> str:
    """``Name(a, b=1, *, c=None)``: how ``target`` is called, without annotations, ``self`` or the ``hidden``
    parameters (those Cadence fills in itself, such as a Cerebras scheduler's ``state``).

    Args:
        name: the name to show (a registry name, or ``module:function`` as the config wrote it).
        target: the class or function.
        hidden: parameter names left out.

    Returns:
        The call's text; ``Name(...)`` when ``target`` has no signature.

    Raises:
        Nothing.

    Example:
        >>> def scheduler(optimizer, total_iters, gamma=0.5, *, state=None): ...
        >>> signature_text("StepLR", scheduler, hidden=("state",))
        'StepLR(optimizer, total_iters, gamma=0.5)'
    """
    signature = signature_of(target)
    if signature is None:
        return f"{name}(...)"
    parts, star = [], False
    for parameter in signature.parameters.values():
        if parameter.name == "self" or (parameter.name in hidden and parameter.kind is not parameter.VAR_KEYWORD):
            continue
        if parameter.kind is parameter.VAR_POSITIONAL:
            parts.append(f"*{parameter.name}")
            star = True
        elif parameter.kind is parameter.VAR_KEYWORD:
            parts.append(f"**{parameter.name}")
        else:
            if parameter.kind is parameter.KEYWORD_ONLY and not star:
                parts.append("*")
                star = True
            default = parameter.default
            parts.append(parameter.name if default is parameter.empty else f"{parameter.name}={default!r}")
    return f"{name}({', '.join(parts)})"


def call_problem(
    target: Callable[..., Any],
    arguments: Mapping[Any, Any],
    *,
    name: str,
    leading: int = 0,
    filled: Mapping[str, str] | None = None,
    later: Collection[str] = (),
) -> ArgumentProblem | None:
    """What is wrong with calling ``target(<leading positional values>, **arguments)``, or None when it binds.

    Checked in this order: argument names that are not strings; an argument Cadence fills in itself
    (``filled``: name -> what fills it); the first argument ``target`` does not take (with the closest name it
    takes); then every required argument not given (``later`` names are given by the caller afterwards).

    Args:
        target: the class or function to be called.
        arguments: the keyword arguments a config gives.
        name: how messages name ``target``.
        leading: how many leading positional parameters the caller passes itself (1: an optimizer).
        filled: parameters the caller fills in, which a config must not give, with what fills them.
        later: required parameters the caller supplies when the config does not.

    Returns:
        The first :class:`ArgumentProblem`, or None.

    Raises:
        Nothing: the problem is returned, for the caller to raise with its key path.

    Example:
        >>> def step(step_size, gamma=0.1): ...
        >>> call_problem(step, {"gamma": 0.5}, name="StepScheduler").message
        "StepScheduler is missing required argument 'step_size'; accepted: StepScheduler(step_size, gamma=0.1)"
    """
    signature = signature_of(target)
    if signature is None:
        return None
    filled = dict(filled or {})
    parameters = [p for p in signature.parameters.values() if p.name != "self"]
    passed = {p.name for p in [p for p in parameters if p.kind in _POSITIONAL][:leading]}
    accepted = signature_text(name, target, hidden=[key for key in filled if key not in passed])
    given_wrongly = _given_wrongly(arguments, filled, passed)
    if given_wrongly is not None:
        return given_wrongly
    unexpected = _unexpected(parameters, arguments, set(filled) | passed)
    if unexpected is not None:
        return ArgumentProblem(
            unexpected[0],
            f"{name} got an unexpected keyword argument {unexpected[0]!r}{unexpected[1]}; accepted: {accepted}",
        )
    given = set(arguments) | set(filled) | passed | set(later)
    missing = [
        p.name for p in parameters if p.default is p.empty and p.kind in _NAMED + _POSITIONAL and p.name not in given
    ]
    if missing:
        listed = ", ".join(map(repr, missing))
        plural = "s" if len(missing) > 1 else ""
        return ArgumentProblem(None, f"{name} is missing required argument{plural} {listed}; accepted: {accepted}")
    return None


def _given_wrongly(arguments: Mapping, filled: Mapping[str, str], passed: set[str]) -> ArgumentProblem | None:
    """An argument name that is not a string, or an argument the caller fills in itself."""
    strange = [key for key in arguments if not isinstance(key, str)]
    if strange:
        return ArgumentProblem(None, f"argument names must be strings, got {strange!r}")
    for key in arguments:
        if key in filled or key in passed:
            return ArgumentProblem(key, f"is filled in by Cadence ({filled.get(key, 'the call')}); remove it")
    return None


def _unexpected(parameters: list[inspect.Parameter], arguments: Mapping, taken: set[str]) -> tuple[str, str] | None:
    """The first argument no parameter takes, with the " (did you mean ...?)" of the closest that does."""
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return None
    named = [p.name for p in parameters if p.kind in _NAMED and p.name not in taken]
    for key in arguments:
        if key not in named:
            return key, did_you_mean(key, named, n=1, quote=True)
    return None
