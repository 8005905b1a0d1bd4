"""``--set key.path=value``: key paths, and setting values in a copy of the config."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable
from typing import Any

from trainer.config._errors import ConfigError
from trainer.config._schema import exclusive_groups
from trainer.config._yaml import _yaml_load

_TOKEN = re.compile(r"([^.\[\]]+)|\[(-?\d+)\]")


def _parse_path(text: str) -> list[str | int]:
    tokens: list[str | int] = []
    position = 0
    text = text.strip()
    while position < len(text):
        if text[position] == "." and tokens:
            position += 1
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise ValueError(f"bad key path {text!r}: expected names separated by '.' and [index] for list items")
        name, index = match.groups()
        if name is not None:
            tokens.append(int(name) if name.isdigit() else name)
        else:
            tokens.append(int(index))
        position = match.end()
    if not tokens:
        raise ValueError("empty key path")
    return tokens


def _path_text(tokens: Iterable[str | int]) -> str:
    out = ""
    for token in tokens:
        out += f"[{token}]" if isinstance(token, int) else (f".{token}" if out else str(token))
    return out


def parse_override(text: str) -> tuple[list[str | int], Any]:
    """``"trainer.init.loop.max_steps=100"`` → ``(["trainer", "init", "loop", "max_steps"], 100)``.

    The value is read as YAML (``1e-3`` a float, ``[1, 2]`` a list, ``null`` None, ``10ba`` a string); list items
    are addressed as ``schedulers[0]`` or ``schedulers.0``.
    """
    key, sep, value = str(text).partition("=")
    if not sep:
        raise ConfigError(f"--set {text}", "expected KEY.PATH=VALUE, e.g. trainer.init.loop.max_steps=100")
    try:
        tokens = _parse_path(key)
    except ValueError as error:
        raise ConfigError(f"--set {text}", str(error)) from None
    return tokens, _yaml_load(value, f"--set {text}") if value.strip() else None


def _find_key(mapping: dict, key: str) -> str:
    """``key`` itself, or the one key of ``mapping`` equal to it ignoring case (``sgd`` for ``SGD``)."""
    if key in mapping:
        return key
    folded = [k for k in mapping if isinstance(k, str) and k.lower() == key.lower()]
    return folded[0] if len(folded) == 1 else key


def apply_overrides(
    config: dict, overrides: Iterable[str], *, sources: dict[str, str] | None = None, flag: str | None = None
) -> dict:
    """A copy of ``config`` with each ``"key.path=value"`` of ``overrides`` set, in order (``--set``).

    Missing mappings on the way are created; a list item must exist. Setting one of a group of alternatives
    (``loop.max_steps`` / ``num_epochs`` / ``max_duration``, ``loop.eval_frequency`` / ``eval_interval``,
    ``checkpoint.steps`` / ``save_interval``, ...: the exclusive groups of the key tables) removes the others
    from the same mapping. ``sources`` (optional) records which flag set which key, for error messages:
    ``--set key.path=value``, or ``flag`` when another flag of the command asked for these overrides
    (``cadence plot --ssr 0.5`` sets ``trainer.init.loop.scale_schedule_ratio``).
    """
    config = copy.deepcopy(config)
    for text in overrides:
        tokens, value = parse_override(text)
        where = flag or f"--set {text}"
        if not isinstance(tokens[0], str):
            raise ConfigError(where, "a key path starts with a name, e.g. trainer.init...")
        node: Any = config
        for position in range(len(tokens) - 1):
            node = _step(node, tokens, position, where)
        _set(node, tokens, value, where, sources)
        if sources is not None:
            sources[_path_text(tokens)] = where
    return config


def _step(node: Any, tokens: list[str | int], position: int, where: str) -> Any:
    """The child of ``node`` at ``tokens[position]`` (a mapping created when missing); the token is rewritten
    to the key or index it found (``sgd`` → ``SGD``, ``-1`` → the last index)."""
    token, walked, following = tokens[position], tokens[:position], tokens[position + 1]
    if isinstance(node, dict):
        token = tokens[position] = _key(node, token, walked, where)
        if node.get(token) is None:
            if not isinstance(following, str):
                raise ConfigError(where, f"{_path_text([*walked, token])} is not a list")
            node[token] = {}
        return node[token]
    token = tokens[position] = _index(node, token, walked, where)
    if node[token] is None and isinstance(following, str):
        node[token] = {}
    return node[token]


def _set(node: Any, tokens: list[str | int], value: Any, where: str, sources: dict[str, str] | None) -> None:
    walked = tokens[:-1]
    if not isinstance(node, dict):
        tokens[-1] = _index(node, tokens[-1], walked, where)
        node[tokens[-1]] = value
        return
    token = tokens[-1] = _key(node, tokens[-1], walked, where)
    for alternatives in exclusive_groups(_path_text(walked)):
        for other in alternatives if token in alternatives else ():
            if other != token:
                node.pop(other, None)
                if sources is not None:
                    sources.pop(_path_text([*walked, other]), None)
    node[token] = value


def _key(node: dict, token: str | int, walked: list[str | int], where: str) -> str:
    if not isinstance(token, str):
        raise ConfigError(where, f"{_path_text(walked) or 'the top level'} is a mapping, not a list")
    return _find_key(node, token)


def _index(node: Any, token: str | int, walked: list[str | int], where: str) -> int:
    if not isinstance(node, list):
        raise ConfigError(where, f"{_path_text(walked)} is {node!r}, not a mapping or a list")
    if not isinstance(token, int):
        raise ConfigError(where, f"{_path_text(walked)} is a list: address its items as [0], [1], ...")
    if not -len(node) <= token < len(node):
        raise ConfigError(where, f"{_path_text(walked)} has {len(node)} items, there is no [{token}]")
    return token % len(node)
