"""The errors and warnings of a configuration, and the key paths and values their messages show."""

from __future__ import annotations

import re
from typing import Any


class ConfigError(ValueError):
    """A configuration mistake, raised before training starts; ``str()`` is one line ``"<key path>: <what>"``.

    ``path`` is the key path (``trainer.init.loop.max_steps``), or the file for a YAML syntax error, with
    the command-line flag that set the value when one did (``trainer.init.loop.max_steps (from --max_steps)``).
    """

    def __init__(self, path: str | None, message: str) -> None:
        self.path = path
        self.message = _one_line(message)
        super().__init__(f"{path}: {self.message}" if path else self.message)


class ConfigWarning(UserWarning):
    """A key Cadence reads but does not use (a Cerebras setting with no Cadence counterpart), or a no-op flag."""


def _one_line(text: str) -> str:
    return re.sub(r"\s*\n\s*", " ", str(text)).strip()


def _join(path: str, key: str | int) -> str:
    """``path.key`` or ``path[index]``; a key of the top level (``path == ""``) is its own path."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
