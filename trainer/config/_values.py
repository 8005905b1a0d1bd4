"""Checks of one value or mapping of the config (keys, integers, numbers, booleans, times), as ConfigErrors."""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping
from typing import Any

from timeunits import Time, TimeUnit
from trainer.config._context import _Context
from trainer.config._errors import _join, _show
from trainer.config._keys import _HOME


def _check_keys(
    mapping: dict,
    path: str,
    accepted: Iterable[str],
    ctx: _Context,
    *,
    ignored: Mapping[str, str] | None = None,
) -> None:
    """Unknown keys of ``mapping`` are errors (with close names), ``ignored`` ones warnings."""
    accepted = list(accepted)
    ignored = ignored or {}
    for key in mapping:
        if key in accepted:
            continue
        text = str(key)
        if text in ignored:
            ctx.warn(_join(path, text), f"Cadence does not use this Cerebras setting ({ignored[text]}); ignored")
            continue
        close = difflib.get_close_matches(text, accepted, n=3, cutoff=0.6)
        hint = f"did you mean {', '.join(close)}? " if close else ""
        home = _HOME.get(text)
        if home is not None and home != path:
            hint = f"it belongs under {home}; " + hint
        raise ctx.error(_join(path, text), f"unknown key ({hint}accepted here: {', '.join(accepted)})")


def _mapping(value: Any, path: str, ctx: _Context, *, allow_none: bool = True) -> dict:
    if value is None and allow_none:
        return {}
    if not isinstance(value, dict):
        raise ctx.error(path, f"must be a mapping of keys to values, got {_show(value)}")
    return value


def _int(value: Any, path: str, ctx: _Context, *, minimum: int = 0) -> int:
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)  # 1e3 (a YAML 1.2 float) is a fine count
    if isinstance(value, bool) or not isinstance(value, int):
        raise ctx.error(path, f"must be an integer >= {minimum}, got {_show(value)}")
    if value < minimum:
        raise ctx.error(path, f"must be an integer >= {minimum}, got {value}")
    return value


def _number(value: Any, path: str, ctx: _Context, *, positive: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ctx.error(path, f"must be a finite number, got {_show(value)}")
    if positive and value <= 0:
        raise ctx.error(path, f"must be > 0, got {value}")
    return float(value)


def _bool(value: Any, path: str, ctx: _Context) -> bool:
    if not isinstance(value, bool):
        raise ctx.error(path, f"must be true or false, got {_show(value)}")
    return value


def _time(value: Any, path: str, ctx: _Context, *, hint: str) -> Time:
    if isinstance(value, bool) or isinstance(value, (int, float)):
        raise ctx.error(
            path, f"{value!r} has no unit: give a time string such as '10ep', '1000ba' or '2e6tok' ({hint})"
        )
    try:
        time = Time.from_input(value)
    except (TypeError, ValueError) as error:
        raise ctx.error(path, f"{_show(value)} is not a time string such as '10ep' or '1000ba': {error}") from None
    if time.unit is TimeUnit.DURATION:
        raise ctx.error(path, f"{time} is a fraction of the run: give it in ep, ba, sp or tok")
    if time.value <= 0:
        raise ctx.error(path, f"{time} must be positive")
    return time
