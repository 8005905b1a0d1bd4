"""Names: the one table from schedule names to classes, and the one "did you mean".

One registry from every public schedule name to its class, for YAML, the CLI and Python alike.

Names are matched case-insensitively: a full class name (``CosineAnnealingWithWarmupScheduler``,
``CosineDecayLR``), a short alias (``cosine_with_warmup``, ``wsd``), or a full name without its family
suffix (``CosineDecay`` for ``CosineDecayLR``) when that is unambiguous. A name that matches more than
one entry is an error listing the full names.

The registry knows no front end: each family registers its classes when its module is imported, and
``import schedulers`` imports all of Cadence's (Composer's, the extended ones, Cerebras's, SambaFlow's), so
every lookup sees every built-in name.

>>> from schedulers.core.names import get_scheduler
>>> get_scheduler("cosine_with_warmup").__name__
'CosineAnnealingWithWarmupScheduler'

The one "did you mean" of Cadence, :func:`suggest` and :func:`did_you_mean`, is re-exported here from
:mod:`timeunits.suggestions`, where it sits so that a misspelt time unit is answered by the same rule.

>>> did_you_mean("t_warmpu", ["t_warmup", "t_max", "alpha_f"], quote=True)
" (did you mean 't_warmup'?)"
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

from timeunits.suggestions import did_you_mean, suggest

__all__ = [
    "UnknownSchedulerError",
    "get_scheduler",
    "register_scheduler",
    "registered_schedulers",
    "scheduler_family",
    "did_you_mean",
    "suggest",
]


# What a name registers: a schedule class, or a function that builds a scheduler (SambaFlow's names).
Registered = Callable[..., Any]


T = TypeVar("T", bound=Registered)


# The suffixes that mark a family's full names (Composer: Scheduler; Cerebras: LR or WD).
_SUFFIXES = ("scheduler", "lr", "wd")


_BY_NAME: dict[str, Registered] = {}


_BY_ALIAS: dict[str, Registered] = {}


_FAMILY: dict[Registered, str] = {}


class UnknownSchedulerError(ValueError, KeyError):
    """A schedule name that is not registered, or that matches several entries.

    A ``ValueError`` (a bad value) and a ``KeyError`` (a failed lookup), so either ``except`` catches it.

    Args:
        reason: The message without the list of known names (what is wrong with the name, with close names),
            kept as ``.reason`` for a caller that lists the names it accepts its own way; None: the message.

    Returns:
        The error, raised by :func:`get_scheduler` (and :func:`scheduler_family`) for a name it cannot resolve.

    >>> try:
    ...     get_scheduler("cosine_with_warmpu")
    ... except UnknownSchedulerError as error:
    ...     print(error.reason)
    unknown schedule 'cosine_with_warmpu' (did you mean cosine_with_warmup, linear_with_warmup, ...?)
    """

    def __init__(self, *args: object, reason: str | None = None) -> None:
        super().__init__(*args)
        self.reason = str(self) if reason is None else reason

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


@overload
def register_scheduler(cls: T, *, aliases: tuple[str, ...] = (), family: str = "user") -> T: ...


@overload
def register_scheduler(
    cls: None = None, *, aliases: tuple[str, ...] = (), family: str = "user"
) -> Callable[[T], T]: ...


def register_scheduler(
    cls: T | None = None, *, aliases: tuple[str, ...] = (), family: str = "user"
) -> T | Callable[[T], T]:
    """Register a schedule class under its class name and ``aliases``; usable as a decorator.

    Names are matched case-insensitively. A user's class may replace another user's class of the same name.

    Args:
        cls: The class to register, or None when called with keywords as a decorator (``@register_scheduler(
            aliases=...)``).
        aliases: Short names it is also found by.
        family: The family it belongs to: ``"user"`` for yours (Cadence's own use ``composer``, ``cadence``,
            ``cerebras``, ``sambaflow``).

    Returns:
        ``cls`` itself, or (without ``cls``) the decorator that registers and returns its class.

    Raises:
        ValueError: The class name is already registered by another class of a built-in family, or an alias
            already names another class.

    >>> from schedulers import Schedule
    >>> @register_scheduler(aliases=("my_flat",))
    ... class MyFlatSchedule(Schedule):
    ...     pass
    >>> get_scheduler("my_flat") is MyFlatSchedule
    True
    """

    def register(target: T) -> T:
        key = target.__name__.lower()
        owner = _BY_NAME.get(key)
        if owner is not None and owner is not target:
            if _FAMILY.get(owner) != "user" or family != "user":
                raise ValueError(
                    f"a schedule named {target.__name__} is already registered ({_describe(owner)}); "
                    "choose another class name"
                )
        for alias in aliases:
            alias_key = alias.lower()
            holder = _BY_ALIAS.get(alias_key) or _BY_NAME.get(alias_key)
            if holder is not None and holder is not target:
                raise ValueError(f"alias {alias!r} already names {_describe(holder)}")
        _BY_NAME[key] = target
        for alias in aliases:
            _BY_ALIAS[alias.lower()] = target
        _FAMILY[target] = family
        return target

    return register if cls is None else register(cls)


def get_scheduler(
    name: str, *, family: str | None = None, where: Callable[[Registered], bool] | None = None
) -> Registered:
    """The class registered as ``name``: a full class name, an alias, or a full name without its family suffix.

    Both filters apply before a name is ambiguous and to the close names suggested; an exact name or alias that
    ``where`` drops is unknown, not read as another entry's shortened name.

    Args:
        name: The name, matched case-insensitively (surrounding spaces ignored).
        family: Keep only that family's entries (and the user's); None: every family.
        where: Keep only the entries it is true for (e.g. schedule classes); None: all.

    Returns:
        The registered class.

    Raises:
        UnknownSchedulerError: ``name`` not a string, unknown (with close names), or ambiguous.

    >>> get_scheduler("cosinedecaylr").__name__, get_scheduler("Exponential", family="composer").__name__
    ('CosineDecayLR', 'ExponentialScheduler')
    """
    if not isinstance(name, str):
        raise UnknownSchedulerError(f"a schedule name must be a string, got {name!r}")
    key = name.strip().lower()

    def of_family(found: list) -> list:
        found = [cls for cls in dict.fromkeys(found) if cls is not None]
        return [cls for cls in found if _keeps(cls, family, None)]

    # an exact name or alias is never read as a shortened full name, even when ``where`` drops it
    found = of_family([_BY_NAME.get(key), _BY_ALIAS.get(key)]) or of_family(
        [cls for full, cls in _BY_NAME.items() if _strip_suffix(full) == key]
    )
    unique = found if where is None else [cls for cls in found if where(cls)]
    if len(unique) == 1:
        return unique[0]
    if len(unique) > 1:
        names = ", ".join(sorted(cls.__name__ for cls in unique))
        raise UnknownSchedulerError(f"schedule name {name!r} is ambiguous: it matches {names}; use a full name")
    known = registered_schedulers(family, where=where)
    reason = f"unknown schedule {name!r}{did_you_mean(key, known)}"
    raise UnknownSchedulerError(f"{reason}; known: {', '.join(sorted(known))}", reason=reason)


def registered_schedulers(
    family: str | None = None, *, where: Callable[[Registered], bool] | None = None
) -> dict[str, Registered]:
    """Every registered name and alias, to its class (or, for SambaFlow's names, its function).

    Args:
        family: Keep only that family's entries (and the user's); None: every family.
        where: Keep only the classes it is true for; None: all.

    Returns:
        A new dict from each class name and alias (as registered) to its class.

    >>> names = registered_schedulers("composer")
    >>> names["StepScheduler"] is get_scheduler("step"), "CosineDecayLR" in names
    (True, False)
    """
    names = {cls.__name__: cls for cls in _BY_NAME.values()}
    names.update({alias: cls for alias, cls in _BY_ALIAS.items()})
    if family is not None or where is not None:
        names = {n: c for n, c in names.items() if _keeps(c, family, where)}
    return names


def _keeps(cls: Registered, family: str | None, where: Callable[[Registered], bool] | None) -> bool:
    return (family is None or _FAMILY[cls] in (family, "user")) and (where is None or where(cls))


def scheduler_family(cls: Registered) -> str:
    """The family a registered schedule class (or SambaFlow builder) belongs to.

    Args:
        cls: A class or function registered with :func:`register_scheduler`.

    Returns:
        The family it was registered in: ``"composer"``, ``"cadence"``, ``"cerebras"``, ``"sambaflow"`` or
        ``"user"`` (what :func:`registered_schedulers` filters on).

    Raises:
        UnknownSchedulerError: ``cls`` is not registered.

    >>> scheduler_family(get_scheduler("step")), scheduler_family(get_scheduler("CosineDecayLR"))
    ('composer', 'cerebras')
    """
    try:
        return _FAMILY[cls]
    except KeyError:
        raise UnknownSchedulerError(f"{cls!r} is not a registered schedule") from None


def _strip_suffix(full: str) -> str:
    for suffix in _SUFFIXES:
        if full.endswith(suffix) and len(full) > len(suffix):
            return full[: -len(suffix)]
    return full


def _describe(cls: Registered) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"
