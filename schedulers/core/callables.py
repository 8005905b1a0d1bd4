"""The one rule that says what a callable is: a schedule, a state function, or a scheduler factory.

Cadence accepts three kinds of callables, and everything that takes one (``compile_scheduler``, the
trainer's ``schedulers=``) decides with :func:`callable_kind`:

* a **schedule** ``(state, ssr) -> α``: a :class:`schedulers.Schedule`, or a callable with exactly two
  positional parameters (``def f(state, ssr=1.0)``, ``lambda s, r: ...``), or ``*args`` and at most two
  required ones. A callable whose signature cannot be read (a builtin) is taken to follow this, the
  documented protocol;
* a **one-argument** callable ``f(x)`` (any other callable that takes one positional argument, e.g.
  ``def f(optimizer, gamma=0.5, last_epoch=-1)``): what ``x`` is depends on the caller. ``compile_scheduler`` reads it
  as a function of the state (it works when ``ssr`` is 1); the trainer reads it as a factory
  ``optimizer -> LRScheduler`` (Cerebras style), so a function of the state given to the trainer must be
  wrapped with :func:`schedulers.as_schedule`. A class (``functools.partial`` of one included) is one too;
* anything else is **not a schedule** (a callable needing three positional arguments, a non-callable).

>>> from schedulers import LinearScheduler
>>> callable_kind(LinearScheduler()), callable_kind(lambda state, ssr=1.0: 1.0), callable_kind(lambda x: x)
(<CallableKind.SCHEDULE: 'schedule'>, <CallableKind.SCHEDULE: 'schedule'>, <CallableKind.ONE_ARGUMENT: 'one-argument'>)
"""

from __future__ import annotations

import enum
import functools
import inspect
import math
from typing import Any

__all__ = ["CallableKind", "callable_kind"]


class CallableKind(enum.Enum):
    """What :func:`callable_kind` found.

    ``SCHEDULE``: ``(state, ssr) -> α``; ``ONE_ARGUMENT``: a state function (for ``compile_scheduler``) or an
    optimizer factory (for the trainer); ``OTHER``: not callable, or not with one or two positional arguments.

    Returns:
        The member ``CallableKind(value)`` looks up (``"schedule"``, ``"one-argument"`` or ``"other"``).

    >>> CallableKind("one-argument")
    <CallableKind.ONE_ARGUMENT: 'one-argument'>
    """

    SCHEDULE = "schedule"  # (state, ssr) -> α
    ONE_ARGUMENT = "one-argument"  # a state function (compile_scheduler) or an optimizer factory (trainer)
    OTHER = "other"  # not callable, or not with one or two positional arguments


def callable_kind(candidate: Any) -> CallableKind:
    """Classify ``candidate`` by the rule of this module (a Schedule first, then its positional arity).

    Args:
        candidate: Anything a user passed where a schedule is expected.

    Returns:
        ``SCHEDULE`` for a :class:`~schedulers.Schedule`, a callable with two positional parameters (or
        ``*args``) or one whose signature cannot be read; ``ONE_ARGUMENT`` for a class or a callable taking one
        positional argument; ``OTHER`` otherwise.

    >>> callable_kind(lambda state, ssr, extra: 1.0), callable_kind(3.0)
    (<CallableKind.OTHER: 'other'>, <CallableKind.OTHER: 'other'>)
    """
    from schedulers.core.base import Schedule  # base imports the engine; this module stays import-light

    if isinstance(candidate, Schedule):
        return CallableKind.SCHEDULE
    if not callable(candidate):
        return CallableKind.OTHER
    if isinstance(_unwrap_partials(candidate), type):
        return CallableKind.ONE_ARGUMENT  # a class, or a partial of one: built from its one argument (an optimizer)
    arity = _positional_arity(candidate)
    if arity is None:
        return CallableKind.SCHEDULE  # builtins and C callables: assume the documented (state, ssr) protocol
    required, most = arity
    if required <= 2 and most in (2, math.inf):
        return CallableKind.SCHEDULE
    if required <= 1 <= most:
        return CallableKind.ONE_ARGUMENT
    return CallableKind.OTHER


def _unwrap_partials(candidate: Any) -> Any:
    """The callable under any nesting of ``functools.partial``."""
    while isinstance(candidate, functools.partial):
        candidate = candidate.func
    return candidate


def _positional_arity(candidate: Any) -> tuple[int, float] | None:
    """(required, most) positional arguments of ``candidate`` (``most`` is inf with ``*args``); None if unknown."""
    try:
        parameters = inspect.signature(candidate).parameters.values()
    except (TypeError, ValueError):
        return None
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = sum(1 for p in positional if p.default is p.empty)
    most = math.inf if any(p.kind is p.VAR_POSITIONAL for p in parameters) else len(positional)
    return required, most
