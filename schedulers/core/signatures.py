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
import math
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

import attrs

from schedulers.core.names import did_you_mean

__all__ = [
    "ArgumentProblem",
    "call_problem",
    "nonfinite_argument",
    "signature_of",
    "signature_text",
    "unknown_name_message",
]

_NAMED = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


@attrs.frozen
class ArgumentProblem:
    """What is wrong with a call's arguments: ``argument`` (the keyword it is about, or None for the call as a
    whole, e.g. a missing argument) and ``message`` (one line, without a key path).

    Args:
        argument: the keyword argument at fault, or None.
        message: what is wrong and what is accepted.

    Returns:
        The problem, for the caller to raise with its key path.

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
        Its signature (a class: its constructor's, ``self`` left out), or None when Python cannot read one,
        so a caller that shows or checks parameters can skip the check instead of failing.

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
    positional: int = 0,
) -> ArgumentProblem | None:
    """What is wrong with calling ``target(<leading positional values>, **arguments)``, or None when it binds.

    Checked in this order: argument names that are not strings; an argument Cadence fills in itself
    (``filled``: name -> what fills it); more positional values than ``target`` takes; the first argument
    ``target`` does not take (with the closest name it takes); an argument given both by position and by name;
    then every required argument not given (``later`` names are given by the caller afterwards). Every door
    (YAML, ``--set``, ``Schedule.from_config``, schedule expressions) checks here: one mistake, one message.

    Args:
        target: the class or function to be called.
        arguments: the keyword arguments a config gives.
        name: how messages name ``target``.
        leading: how many leading positional parameters the caller passes itself (1: an optimizer).
        filled: parameters the caller fills in, which a config must not give, with what fills them.
        later: required parameters the caller supplies when the config does not.
        positional: how many values the text itself gives by position, after the ``leading`` ones (a schedule
            expression's ``cosine_with_warmup('500ba')``).

    Returns:
        The first :class:`ArgumentProblem`, or None.

    Example:
        >>> def step(step_size, gamma=0.1): ...
        >>> call_problem(step, {"gamma": 0.5}, name="StepScheduler").message
        "StepScheduler is missing required argument 'step_size'; accepted: StepScheduler(step_size, gamma=0.1)"
        >>> call_problem(step, {"step_size": "5ba"}, name="StepScheduler", positional=1).message
        "StepScheduler got multiple values for argument 'step_size'; accepted: StepScheduler(step_size, gamma=0.1)"
    """
    signature = signature_of(target)
    if signature is None:
        return None
    filled = dict(filled or {})
    passed, named, required, takes_any = _parameters(signature, leading, filled)
    for key in arguments:
        if not isinstance(key, str):
            return ArgumentProblem(None, f"argument names must be strings, got {key!r}")
        if key in filled or key in passed:
            return ArgumentProblem(key, f"is filled in by Cadence ({filled.get(key, 'the call')}); remove it")
    by_position, extra = _by_position(signature, leading, positional) if positional else ([], False)
    unexpected = None if takes_any else next((key for key in arguments if key not in named), None)
    repeated = next((key for key in arguments if key in by_position), None) if by_position else None
    missing = [key for key in required if key not in arguments and key not in later and key not in by_position]
    if unexpected is None and repeated is None and not missing and not extra:
        return None
    accepted = signature_text(name, target, hidden=[key for key in filled if key not in passed])
    if extra:
        given = f"{len(by_position)} positional argument{'s' * (len(by_position) != 1)} but {positional} were given"
        return ArgumentProblem(None, f"{name} takes {given}; accepted: {accepted}")
    return _keyword_problem(name, accepted, unexpected, named, repeated, missing)


def _keyword_problem(
    name: str, accepted: str, unexpected: str | None, named: list[str], repeated: str | None, missing: list[str]
) -> ArgumentProblem:
    """The problem of a call whose keywords do not bind: the first unexpected one (with the closest name it
    takes), then one given by position too, then the required ones missing."""
    if unexpected is not None:
        hint = did_you_mean(unexpected, named, n=1, quote=True)
        return ArgumentProblem(
            unexpected, f"{name} got an unexpected keyword argument {unexpected!r}{hint}; accepted: {accepted}"
        )
    if repeated is not None:
        return ArgumentProblem(repeated, f"{name} got multiple values for argument {repeated!r}; accepted: {accepted}")
    listed = f"argument{'s' * (len(missing) > 1)} {', '.join(map(repr, missing))}"
    return ArgumentProblem(None, f"{name} is missing required {listed}; accepted: {accepted}")


def _by_position(signature: inspect.Signature, leading: int, positional: int) -> tuple[list[str], bool]:
    """The parameters the ``positional`` values after the ``leading`` ones fill, and whether values are left
    over (more than the signature takes by position, without ``*args``)."""
    slots = [p for p in signature.parameters.values() if p.name != "self" and p.kind in _POSITIONAL][leading:]
    takes_rest = any(p.kind is p.VAR_POSITIONAL for p in signature.parameters.values())
    return [p.name for p in slots[:positional]], positional > len(slots) and not takes_rest


def unknown_name_message(reason: str, schedule_names: Iterable[str]) -> str:
    """The one message for a name that is not registered, whichever door read it (YAML, ``--set``,
    ``Schedule.from_config``, a schedule expression): the registry's reason (with its close names), then the
    schedule names every door takes, then where every registered name is listed.

    Args:
        reason: :attr:`UnknownSchedulerError.reason <schedulers.core.registry.UnknownSchedulerError>`, e.g.
            ``"unknown schedule 'cosinne' (did you mean cosine?)"``.
        schedule_names: the full names of the registered Cadence schedule classes.

    Returns:
        The message, without a location prefix.

    Example:
        >>> unknown_name_message("unknown schedule 'stepp' (did you mean step?)", ["LinearScheduler", "StepScheduler"])
        "unknown schedule 'stepp' (did you mean step?); schedule names: LinearScheduler, StepScheduler (every \
registered name: schedulers.registered_schedulers())"
    """
    names = ", ".join(sorted(schedule_names))
    return f"{reason}; schedule names: {names} (every registered name: schedulers.registered_schedulers())"


def _parameters(
    signature: inspect.Signature, leading: int, filled: Mapping[str, str]
) -> tuple[set[str], list[str], list[str], bool]:
    """``(passed, named, required, takes_any)``: the leading positional parameters the caller passes, the
    parameters a config may give by name, the required ones a config must give, and whether ``**kwargs``
    takes any name."""
    passed: set[str] = set()
    named: list[str] = []
    required: list[str] = []
    takes_any = False
    for parameter in signature.parameters.values():
        if parameter.name == "self" or parameter.kind is parameter.VAR_POSITIONAL:
            continue
        if parameter.kind is parameter.VAR_KEYWORD:
            takes_any = True
        elif parameter.kind in _POSITIONAL and len(passed) < leading:
            passed.add(parameter.name)
        elif parameter.name not in filled:
            if parameter.kind in _NAMED:
                named.append(parameter.name)
            if parameter.default is parameter.empty:
                required.append(parameter.name)
    return passed, named, required, takes_any


def nonfinite_argument(arguments: Mapping[Any, Any]) -> ArgumentProblem | None:
    """The first value of ``arguments`` that is a float nan or inf (YAML ``.nan``, ``.inf``), as a problem: read
    as a time it would make nonsense such as ``nanep``, so a config's reader rejects it before anything reads it.

    Args:
        arguments: a mapping of a config (a schedule's arguments, a section of the trainer's config).

    Returns:
        The :class:`ArgumentProblem` of the first non-finite value, or None.

    Example:
        >>> nonfinite_argument({"t_warmup": float("nan")})
        ArgumentProblem(argument='t_warmup', message='nan is not a number (YAML .nan/.inf): give a finite value')
    """
    for key, item in arguments.items():
        if isinstance(item, float) and not math.isfinite(item):
            return ArgumentProblem(str(key), f"{item} is not a number (YAML .nan/.inf): give a finite value")
    return None
