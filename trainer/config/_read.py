"""The one check of a config mapping against its key table (a :class:`~trainer.config._schema.Section`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schedulers.core.names import suggest
from trainer.config._context import _Context
from trainer.config._errors import _join
from trainer.config._schema import Section, home_of
from trainer.config._values import _mapping, check_finite


def read_section(section: Section, value: Any, ctx: _Context, *, allow_none: bool = True) -> dict[str, Any]:
    """``value`` checked against ``section``: every key it gives read by its key's reader, the others at their
    defaults. Unknown keys are errors (naming close keys, or the section a key belongs to), ignored Cerebras
    keys warnings, two keys of one exclusive group an error, and a missing required key an error saying what
    to give. ``None`` values count as absent."""
    given = _mapping(value, section.path, ctx, allow_none=allow_none)
    _check_names(section, given, ctx)
    present = {key: item for key, item in given.items() if item is not None and key in section.by_name}
    check_finite(present, section.path, ctx)
    for group in section.exclusive:
        both = [key for key in group if key in present]
        if len(both) > 1:
            raise ctx.error(
                _join(section.path, both[1]),
                f"give only one of {', '.join(group)} (also {_join(section.path, both[0])} is set)",
            )
    values = {}
    for key in section.keys:
        path = _join(section.path, key.name)
        if key.name not in present:
            if key.missing is not None:
                raise ctx.error(path, f"missing: {key.missing}")
            values[key.name] = key.default
        else:
            values[key.name] = present[key.name] if key.read is None else key.read(present[key.name], path, ctx)
    return values


def _check_names(section: Section, given: Mapping, ctx: _Context) -> None:
    for key in given:
        text = str(key)
        if text in section.by_name:
            continue
        path = _join(section.path, text)
        if text in section.unsupported:
            raise ctx.error(path, f"not supported: {section.unsupported[text]}")
        if text in section.ignored:
            ctx.warn(path, f"Cadence does not use this Cerebras setting ({section.ignored[text]}); ignored")
            continue
        accepted = [k.name for k in section.keys]
        close = suggest(text, accepted)
        hint = f"did you mean {', '.join(close)}? " if close else ""
        home = home_of(text)
        if home is not None and home != section.path:
            hint = f"it belongs under {home}; " + hint
        raise ctx.error(path, f"unknown {section.label} ({hint}accepted here: {', '.join(accepted)})")
