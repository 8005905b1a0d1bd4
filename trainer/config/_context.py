"""The parse context: key paths with the flags that set them, warnings, and ``module:function`` imports."""

from __future__ import annotations

import importlib
import sys
import warnings
from pathlib import Path
from typing import Any

from schedulers.core.names import did_you_mean
from trainer.config._errors import ConfigError, ConfigWarning

_LONGEST_VALUE_SHOWN = 40


def _brief(origin: str) -> str:
    """The flag that set a key, as an error names it: a long ``--set`` value is left out (the user wrote it,
    the key path says which one it is, and an error naming several keys would repeat it)."""
    flag, equals, value = origin.partition("=")
    if not flag.startswith("--set ") or not equals or len(value) <= _LONGEST_VALUE_SHOWN:
        return origin
    return f"{flag}=..."


class _Context:
    def __init__(self, base_dir: Path | None, sources: dict[str, str]) -> None:
        self.base_dir = base_dir
        self.sources = sources

    def where(self, path: str) -> str:
        """``path`` with the flag that set it or a parent (``... (from --max_steps)``), else the flags that set keys
        under it (``... (num_warmup_steps from --warmup_steps)``)."""
        best = None
        below = []
        for key, origin in ((key, _brief(origin)) for key, origin in self.sources.items()):
            if path == key or path.startswith(key + ".") or path.startswith(key + "["):
                if best is None or len(key) > len(best[0]):
                    best = (key, origin)
            elif key.startswith(path + ".") or key.startswith(path + "["):
                below.append(f"{key[len(path) :].lstrip('.')} from {origin}")
        if best is not None:
            return f"{path} (from {best[1]})"
        return f"{path} ({'; '.join(below[:3])})" if below else path

    def error(self, path: str, message: str) -> ConfigError:
        return ConfigError(self.where(path), message)

    def warn(self, path: str, message: str) -> None:
        warnings.warn(ConfigWarning(f"{self.where(path)}: {message}"), stacklevel=4)

    def import_object(self, reference: str, path: str) -> Any:
        """The object ``"package.module:attribute.path"`` names, imported with the config's folder and the
        working directory on ``sys.path``."""
        module_name, sep, attribute = reference.partition(":")
        module_name, attribute = module_name.strip(), attribute.strip()
        if not sep or not module_name or not attribute:
            raise self.error(
                path, f"{reference!r} must name a function as 'module:function' (e.g. 'mymodels:make_model')"
            )
        for folder in (Path.cwd(), self.base_dir):  # the config's folder ends up first
            if folder is not None:
                entry = str(Path(folder).resolve())
                if entry not in sys.path:
                    sys.path.insert(0, entry)
        importlib.invalidate_caches()  # a module written after the folder was first listed
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            searched = ", ".join(
                dict.fromkeys(str(Path(f).resolve()) for f in (self.base_dir, Path.cwd()) if f is not None)
            )
            raise self.error(
                path, f"cannot import {module_name!r} ({error}); searched {searched} and sys.path"
            ) from None
        target: Any = module
        for part in attribute.split("."):
            if not hasattr(target, part):
                hint = did_you_mean(part, [n for n in dir(target) if not n.startswith("_")])
                raise self.error(path, f"{module_name} has no attribute {attribute!r}{hint}")
            target = getattr(target, part)
        return target
