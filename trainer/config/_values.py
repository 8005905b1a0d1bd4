"""The readers of single values that the key tables (:mod:`trainer.config._schema`) name: integers, numbers,
booleans, times, choices, devices and output paths, each a ConfigError naming the key path when it fails."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from typing import Any

from schedulers.tools.files import unwritable_reason
from timeunits import Time, TimeUnit
from trainer.config._context import _Context
from trainer.config._errors import _join, _show

Reader = Callable[[Any, str, _Context], Any]


def check_finite(arguments: Mapping, path: str, ctx: _Context) -> None:
    """No value of ``arguments`` is a float nan or inf (YAML ``.nan``, ``.inf``): an error naming the key that
    suggests nothing (a time string made of ``nan`` would be nonsense)."""
    for key, item in arguments.items():
        if isinstance(item, float) and not math.isfinite(item):
            raise ctx.error(_join(path, key), f"{item} is not a number (YAML .nan/.inf): give a finite value")


def _mapping(value: Any, path: str, ctx: _Context, *, allow_none: bool = True) -> dict:
    if value is None and allow_none:
        return {}
    if not isinstance(value, dict):
        raise ctx.error(path, f"must be a mapping of keys to values, got {_show(value)}")
    return value


# -- readers: (value, key path, context) -> the checked value -------------------------------------------------


def count(minimum: int = 1) -> Reader:
    """An integer >= ``minimum``; a whole float (``1e3``, a YAML 1.2 float) is fine."""

    def read(value: Any, path: str, ctx: _Context) -> int:
        return _int(value, path, ctx, minimum=minimum)

    return read


def _int(value: Any, path: str, ctx: _Context, *, minimum: int = 0) -> int:
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ctx.error(path, f"must be an integer >= {minimum}, got {_show(value)}")
    if value < minimum:
        raise ctx.error(path, f"must be an integer >= {minimum}, got {value}")
    return value


def number(value: Any, path: str, ctx: _Context) -> float:
    """A finite number > 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ctx.error(path, f"must be a finite number, got {_show(value)}")
    if value <= 0:
        raise ctx.error(path, f"must be > 0, got {value}")
    return float(value)


def flag(value: Any, path: str, ctx: _Context) -> bool:
    if not isinstance(value, bool):
        raise ctx.error(path, f"must be true or false, got {_show(value)}")
    return value


def text(value: Any, path: str, ctx: _Context) -> str:
    if not isinstance(value, str):
        raise ctx.error(path, f"must be a string, got {_show(value)}")
    return value


def choice(names: tuple[str, ...]) -> Reader:
    """One of ``names`` (case-sensitive)."""

    def read(value: Any, path: str, ctx: _Context) -> str:
        if not isinstance(value, str) or value not in names:
            raise ctx.error(path, f"must be one of {', '.join(names)}, got {_show(value)}")
        return value

    return read


def duration(hint: str) -> Reader:
    """A positive time string in ep, ba, sp or tok (``hint`` says what else the key's section takes)."""

    def read(value: Any, path: str, ctx: _Context) -> Time:
        if isinstance(value, (bool, int, float)):
            raise ctx.error(
                path, f"{value!r} has no unit: give a time string such as '10ep', '1000ba' or '2e6tok' ({hint})"
            )
        try:
            time = Time.from_input(value)
        except ValueError as error:  # timeunits' message names the value and says what a time is
            raise ctx.error(path, str(error)) from None
        if time.unit is TimeUnit.DURATION:
            raise ctx.error(path, f"{time} is a fraction of the run: give it in ep, ba, sp or tok")
        if time.value <= 0:
            raise ctx.error(path, f"{time} must be positive")
        return time

    return read


def output(*, folder: bool) -> Reader:
    """A path Cadence will write (a folder, or a file): its folder must exist or be creatable, checked now
    so that a bad place fails before training with the key and the folder named."""

    def read(value: Any, path: str, ctx: _Context) -> str:
        if not isinstance(value, (str, os.PathLike)):
            raise ctx.error(path, f"must be a {'folder' if folder else 'file'} path, got {_show(value)}")
        check_output(value, path, ctx, folder=folder)
        return os.fspath(value)

    return read


def check_output(value: str | os.PathLike, path: str, ctx: _Context, *, folder: bool) -> None:
    """``value`` can be written (a folder, or a file; missing folders on the way are fine): a ConfigError naming
    ``path`` otherwise, by the one check of :func:`schedulers.tools.files.unwritable_reason`."""
    reason = unwritable_reason(value, folder=folder)
    if reason is not None:
        raise ctx.error(path, reason)


def device(value: Any, path: str, ctx: _Context) -> str:
    """``cpu``, ``cuda``, ``cuda:N``; Cerebras's ``CPU``/``GPU``; ``CSX`` warns and trains on cpu."""
    import torch

    if not isinstance(value, str):
        raise ctx.error(path, f"must be a device name such as cpu, cuda or cuda:1, got {_show(value)}")
    name = value.strip()
    if name.lower() == "csx":
        ctx.warn(path, "CSX is a Cerebras system; Cadence trains on cpu")
        return "cpu"
    name = {"cpu": "cpu", "gpu": "cuda"}.get(name.lower(), name)
    try:
        found = torch.device(name)
    except (RuntimeError, ValueError):
        raise ctx.error(
            path, f"{value!r} is not a device: give cpu, cuda, cuda:N (Cerebras CPU/GPU also work)"
        ) from None
    if found.type == "cuda" and not torch.cuda.is_available():
        raise ctx.error(path, f"{value!r}: CUDA is not available on this machine")
    return str(found)
