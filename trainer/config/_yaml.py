"""Reading a YAML config: PyYAML's safe loader with the YAML 1.2 float rule and no duplicate keys."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import yaml

from trainer.config._errors import ConfigError


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader with the YAML 1.2 float rule and an error for duplicate keys.

    PyYAML follows YAML 1.1, where a float needs a dot and a signed exponent: ``1e-3``, ``3e4`` and ``1.0e5``
    would be strings. YAML 1.2 (and every Cadence/Cerebras user) reads them as floats.
    """

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, Any] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                except TypeError:  # an unhashable key: PyYAML reports it below
                    continue
                if duplicate:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping",
                        node.start_mark,
                        f"found duplicate key {key!r} (first at line {seen[key].line + 1})",
                        key_node.start_mark,
                    )
                seen[key] = key_node.start_mark
        return super().construct_mapping(node, deep=deep)


# Floats PyYAML 1.1 leaves as strings: an exponent without a dot or without a sign (1e-3, 3e4, 1.0e5, .5e3),
# and a signed number starting with a dot (-.5). Integers never match (PyYAML's int resolver runs first anyway).
_YAML12_FLOAT = re.compile(
    r"""^(?:[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)[eE][-+]?[0-9]+
        |[-+]\.[0-9][0-9_]*)$""",
    re.X,
)
_Loader.add_implicit_resolver("tag:yaml.org,2002:float", _YAML12_FLOAT, list("-+0123456789."))


def _yaml_load(text: str, source: str) -> Any:
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506  (a SafeLoader subclass)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark is not None else source
        problem = error.problem or error.context or "invalid YAML"
        raise ConfigError(where, f"invalid YAML: {problem}") from None
    except yaml.YAMLError as error:
        raise ConfigError(source, f"invalid YAML: {error}") from None


def load_config(path: str | os.PathLike) -> dict:
    """The YAML file ``path`` as a dict (YAML 1.2 floats: ``1e-3`` is ``0.001``; duplicate keys are errors).

    A missing file, a syntax error (with line and column) or a top level that is not a mapping is a
    :class:`ConfigError`.
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(str(file), "no such config file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(str(file), f"cannot read the config: {error}") from None
    data = _yaml_load(text, str(file))
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(str(file), f"the top level must be a mapping with a 'trainer' key, got {type(data).__name__}")
    return data
