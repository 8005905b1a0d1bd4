"""How a config is read: the YAML file, the error and the warning of a key path, the reading context (the flags
that set keys, the config's folder, the schema), the one check of a mapping against its key table
(:func:`read_section`) and the readers of single values that the tables (:mod:`trainer.config_reading._schema`) name.

A reader is ``(value, key path, context) -> the checked value``; a :class:`Section` lists its keys, each with
its reader, default and what to give when it is missing.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

import attrs
import yaml

from schedulers.core.names import did_you_mean, suggest
from schedulers.core.schedule_arguments import choice_problem, integer_problem, number_problem
from schedulers.core.schedule_config import ScheduleConfigError, call_problem, nonfinite_argument
from timeunits import Time
from trainer.trainer_arguments import run_time
from trainer.writable_paths import unwritable_reason

_LONGEST_VALUE_SHOWN = 40


class ConfigError(ValueError):
    """A configuration mistake, raised before training starts; ``str()`` is one line ``"<key path>: <what>"``.

    ``path`` is the key path (``trainer.init.loop.max_steps``), or the file for a YAML syntax error, with
    the command-line flag that set the value when one did (``trainer.init.loop.max_steps (from --max_steps)``).

    Args:
        path: where the mistake is (None: the configuration as a whole).
        message: what is wrong and what is accepted; line breaks become spaces.

    Returns:
        The error, raised when a config, a flag or an override is wrong; ``path`` and ``message`` stay readable
        apart (the CLI prints ``str()`` after ``cadence: error:``).

    Example:
        >>> str(ConfigError("trainer.init.loop.max_steps", "must be an integer >= 1,\\n got 0"))
        'trainer.init.loop.max_steps: must be an integer >= 1, got 0'
    """

    def __init__(self, path: str | None, message: str) -> None:
        self.path = path
        self.message = one_line(message)
        super().__init__(f"{path}: {self.message}" if path else self.message)


class ConfigWarning(UserWarning):
    """A key Cadence reads but does not use (a Cerebras setting with no Cadence counterpart), or a no-op flag.

    Returns:
        The warning, issued (by :meth:`Context.warn`) with the key path and why the key has no effect; the
        config is read on.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     warnings.warn(ConfigWarning("trainer.init.backend: Cadence does not use this Cerebras setting"))
        >>> caught[0].category.__name__
        'ConfigWarning'
    """


def one_line(text: str) -> str:
    """``text`` on one line (a message is one line of a terminal).

    Args:
        text: Any text (or value, read with ``str``).

    Returns:
        ``text`` with each line break and the spaces around it turned into one space, stripped.

    >>> one_line("must be >= 1,\\n   got 0 ")
    'must be >= 1, got 0'
    """
    return re.sub(r"\s*\n\s*", " ", str(text)).strip()


def join(path: str, key: str | int) -> str:
    """``path.key`` or ``path[index]``; a key of the top level (``path == ""``) is its own path.

    Args:
        path: The parent's key path (``""``: the top level).
        key: A mapping's key, or a list's index.

    Returns:
        The child's key path, as messages name it.

    >>> join("trainer.init", "schedulers"), join("trainer.init.schedulers", 0), join("", "trainer")
    ('trainer.init.schedulers', 'trainer.init.schedulers[0]', 'trainer')
    """
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def show(value: Any) -> str:
    """A value as a message shows it: its repr, cut at 80 characters.

    Args:
        value: Any value.

    Returns:
        ``repr(value)``, its first 77 characters and ``...`` when longer than 80.

    >>> show("10ba"), len(show(list(range(100))))
    ("'10ba'", 80)
    """
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _brief(origin: str) -> str:
    """The flag that set a key, as an error names it: a long ``--set`` value is left out (the user wrote it,
    the key path says which one it is, and an error naming several keys would repeat it)."""
    flag, equals, value = origin.partition("=")
    if not flag.startswith("--set ") or not equals or len(value) <= _LONGEST_VALUE_SHOWN:
        return origin
    return f"{flag}=..."


# -- the YAML file --------------------------------------------------------------------------------------


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader with the YAML 1.2 float rule and an error for duplicate keys.

    PyYAML follows YAML 1.1, where a float needs a dot and a signed exponent: ``1e-3``, ``3e4`` and ``1.0e5``
    would be strings. YAML 1.2 (and every Cadence/Cerebras user) reads them as floats.
    """

    def construct_mapping(self, node: yaml.Node, deep: bool = False) -> dict:
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


def yaml_value(text: str, source: str) -> Any:
    """``text`` read as YAML by the loader of :func:`load_config` (a ``--set`` value); ``source`` names it in errors.

    Args:
        text: YAML text.
        source: What the text is (a file, a ``--set`` flag), where an error says the mistake is.

    Returns:
        The value, YAML 1.2 floats included (``1e-3`` is ``0.001``; ``10ba`` stays a string).

    Raises:
        ConfigError: invalid YAML, at ``source`` (with line and column when known), or a key given twice.

    >>> yaml_value("[1e-3, 10ba, null]", "--set lr")
    [0.001, '10ba', None]
    """
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

    Args:
        path: the YAML file.

    Returns:
        Its top-level mapping (an empty file is ``{}``).

    Raises:
        ConfigError: a missing or unreadable file, a syntax error (with line and column), a key given twice in
            one mapping, or a top level that is not a mapping.

    Example:
        >>> import tempfile
        >>> from pathlib import Path
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     file = Path(folder) / "run.yaml"
        ...     _ = file.write_text("trainer: {init: {optimizer: {AdamW: {lr: 1e-3}}, loop: {max_duration: 2e6tok}}}")
        ...     load_config(file)["trainer"]["init"]
        {'optimizer': {'AdamW': {'lr': 0.001}}, 'loop': {'max_duration': '2e6tok'}}
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(str(file), "no such config file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(str(file), f"cannot read the config: {error}") from None
    data = yaml_value(text, str(file))
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(str(file), f"the top level must be a mapping with a 'trainer' key, got {type(data).__name__}")
    return data


class Context:
    """One reading of a config: the config's folder (for imports), which flag set which key path (for
    messages), and the schema (for "it belongs under ..." hints).

    Args:
        base_dir: The config's folder, put on ``sys.path`` for its ``module:function`` references (None: only
            the working directory).
        sources: Key path -> the flag that set it (``{"trainer.init.loop.max_steps": "--max_steps 100"}``).
        schema: The root :class:`Section`, to say where a misplaced key belongs (None: no such hint).

    Returns:
        The context every reader gets: it makes the errors and warnings of key paths, naming the flags, and
        imports the objects a config names.

    Example:
        >>> ctx = Context(None, {"trainer.init.loop.max_steps": "--max_steps 0"})
        >>> str(ctx.error("trainer.init.loop.max_steps", "must be an integer >= 1, got 0"))
        'trainer.init.loop.max_steps (from --max_steps 0): must be an integer >= 1, got 0'
    """

    def __init__(self, base_dir: Path | None, sources: dict[str, str], schema: Section | None = None) -> None:
        self.base_dir = base_dir
        self.sources = sources
        self.schema = schema

    def where(self, path: str) -> str:
        """``path`` with the flag that set it or a parent (``... (from --max_steps)``), else the flags that set keys
        under it (``... (num_warmup_steps from --warmup_steps)``).

        Args:
            path: A key path.

        Returns:
            ``path`` as an error names it: with the flag that set it (the deepest such key), or up to three flags
            that set keys under it, or alone when no flag is involved.
        """
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
        """The ConfigError at ``path`` (named with the flag that set it).

        Args:
            path: The key path of the mistake.
            message: What is wrong and what is accepted.

        Returns:
            The error, for the caller to raise (``raise ctx.error(...)``), its path read by :meth:`where`.
        """
        return ConfigError(self.where(path), message)

    def warn(self, path: str, message: str) -> None:
        """Warn (a :class:`ConfigWarning`) at ``path``, named by :meth:`where`.

        Args:
            path: The key path the warning is about.
            message: What Cadence does with the key instead.
        """
        warnings.warn(ConfigWarning(f"{self.where(path)}: {message}"), stacklevel=4)

    @contextlib.contextmanager
    def schedules(self) -> Iterator[None]:
        """Errors of the schedule reader (:mod:`schedulers.core.schedule_config`) as ConfigErrors on their key paths.

        Yields:
            Control to the ``with`` body, once; a ScheduleConfigError it raises comes out as a ConfigError.

        Raises:
            ConfigError: the body raised a ScheduleConfigError, at its key path (with the flag that set it).
        """
        try:
            yield
        except ScheduleConfigError as error:
            raise self.error(error.key_path, error.message) from None

    def check_call(
        self, target: Any, arguments: Mapping, name: str, path: str, *, arguments_path: str, leading: int = 0
    ) -> None:
        """``target(<leading>, **arguments)`` binds, by the one check of :func:`schedulers.core.schedule_config.
        call_problem`; else a ConfigError at the argument's key path (under ``arguments_path``) or at ``path``.

        Args:
            target: The callable the config names (a factory, an optimizer class).
            arguments: The keyword arguments the config gives it.
            name: The callable's name in the message.
            path: The key path of the call, for a problem of no single argument.
            arguments_path: The key path of ``arguments``; an argument's problem is at its key under it.
            leading: The positional arguments the call passes before them (an optimizer's parameters: 1).

        Raises:
            ConfigError: an unknown or missing argument (with the closest accepted name), too many positional
                values, or an argument given twice.
        """
        problem = call_problem(target, arguments, name=name, leading=leading)
        if problem is not None:
            at = join(arguments_path, problem.argument) if problem.argument is not None else path
            raise self.error(at, problem.message)

    def import_object(self, reference: str, path: str) -> Any:
        """The object ``"package.module:attribute.path"`` names, imported with the config's folder and the
        working directory on ``sys.path``.

        Args:
            reference: ``"module:attribute"`` (the attribute may be dotted).
            path: The reference's key path, for errors.

        Returns:
            The attribute, imported (the module is imported anew if written since the folder was first listed).

        Raises:
            ConfigError: a reference without ``module:attribute``, a module that cannot be imported (naming the
                folders searched), or a missing attribute (with the closest name).
        """
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
        try:
            module = _import(module_name)
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


Reader = Callable[[Any, str, Context], Any]


def _import(module_name: str) -> Any:
    """The module ``module_name``; a module written after its folder was first listed is found too (the finders'
    caches are cleared when the first try fails)."""
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError:
        importlib.invalidate_caches()
        return importlib.import_module(module_name)


# -- key tables ------------------------------------------------------------------------------------------


@attrs.frozen
class Key:
    """One key: ``read`` checks and converts its value; ``missing`` (when given) makes it required and is what
    the error says to give; ``help`` says what it is.

    Args:
        name: The key's name in its mapping.
        read: Its reader, ``(value, key path, context) -> the checked value``.
        default: Its value when absent (or None).
        missing: When given, the key is required and this is what the error says to give.
        help: What the key is, in words.

    Returns:
        The frozen row of a :class:`Section`'s table, which :func:`read_section` reads the key by.

    Example:
        >>> Key("max_steps", count()).read(1e3, "trainer.init.loop.max_steps", Context(None, {}))
        1000
    """

    name: str
    read: Reader
    default: Any = None
    missing: str | None = None
    help: str = ""


@attrs.frozen
class Section:
    """The keys of one mapping at ``path``, the Cerebras keys Cadence reads past (with the reason), the keys it
    does not support (with the reason) and the groups of keys of which one may be given.

    Args:
        path: The mapping's key path (``""``: the top level).
        keys: Its keys, in reading order.
        ignored: Cerebras keys read past with a warning: name -> why Cadence has no use for it.
        unsupported: Keys refused: name -> why.
        exclusive: Groups of keys of which at most one may be given.
        label: What an unknown key is called in the error (``"key"``, ``"top-level key"``).

    Returns:
        The frozen table :func:`read_section` checks a mapping against (:attr:`by_name` looks a key up).

    Example:
        >>> loop = Section("loop", (Key("max_steps", count()), Key("num_steps", count())),
        ...                exclusive=(("max_steps", "num_steps"),))
        >>> read_section(loop, {"max_steps": 10}, Context(None, {}))
        {'max_steps': 10, 'num_steps': None}
    """

    path: str
    keys: tuple[Key, ...]
    ignored: dict[str, str] = attrs.Factory(dict)
    unsupported: dict[str, str] = attrs.Factory(dict)
    exclusive: tuple[tuple[str, ...], ...] = ()
    label: str = "key"

    @cached_property
    def by_name(self) -> dict[str, Key]:
        return {key.name: key for key in self.keys}

    def at(self, path: str) -> Section:
        """This section's keys at another key path (for mappings that occur in many places).

        Args:
            path: The key path the copy reads at.

        Returns:
            A copy of this section with ``path`` replaced, its errors naming keys under ``path``.
        """
        return attrs.evolve(self, path=path)

    def sections(self) -> Iterator[Section]:
        """This section and every section its keys read, depth first.

        Yields:
            Each :class:`Section` of the tree under this one (itself first): those of keys whose reader was made by
            :func:`section`.
        """
        yield self
        for key in self.keys:
            inner = getattr(key.read, "section", None)
            if inner is not None:
                yield from inner.sections()


def section(table: Section, *, allow_none: bool = True) -> Reader:
    """The reader of a mapping described by ``table`` (``None`` reads as empty unless ``allow_none`` is False).

    Args:
        table: The mapping's keys.
        allow_none: Whether ``None`` (an absent or empty mapping) reads as ``{}``.

    Returns:
        A reader that gives :func:`read_section`'s dict, with ``table`` as its ``section`` attribute (so that
        :meth:`Section.sections` finds nested tables).

    >>> read = section(Section("fit", (Key("ckpt_path", text),)))
    >>> read(None, "trainer.fit", Context(None, {}))
    {'ckpt_path': None}
    """

    def read(value: Any, path: str, ctx: Context) -> dict[str, Any]:
        return read_section(table, value, ctx, allow_none=allow_none)

    read.section = table  # type: ignore[attr-defined]
    return read


def read_section(table: Section, value: Any, ctx: Context, *, allow_none: bool = True) -> dict[str, Any]:
    """``value`` checked against ``table``: every key it gives read by its key's reader, the others at their
    defaults. Unknown keys are errors (naming close keys, or the section a key belongs to), ignored Cerebras
    keys warnings, two keys of one exclusive group an error, and a missing required key an error saying what
    to give. ``None`` values count as absent.

    Args:
        table: The mapping's keys.
        value: The mapping given (None: empty, when ``allow_none``).
        ctx: The reading's context.
        allow_none: Whether ``None`` reads as ``{}``.

    Returns:
        ``{key name: read value or default}`` for every key of ``table``.

    Raises:
        ConfigError: not a mapping, an unknown or unsupported key, a non-finite number, two keys of one exclusive
            group, a missing required key, or what a key's reader raises.

    >>> read_section(Section("loop", (Key("max_steps", count(), missing="max_steps"),)), {}, Context(None, {}))
    Traceback (most recent call last):
    trainer.config_reading._reading.ConfigError: loop.max_steps: missing: max_steps
    """
    given = mapping(value, table.path, ctx, allow_none=allow_none)
    _check_names(table, given, ctx)
    present = {key: item for key, item in given.items() if item is not None and key in table.by_name}
    nonfinite = nonfinite_argument(present)
    if nonfinite is not None:
        raise ctx.error(join(table.path, nonfinite.argument), nonfinite.message)
    for group in table.exclusive:
        both = [key for key in group if key in present]
        if len(both) > 1:
            raise ctx.error(
                join(table.path, both[1]),
                f"give only one of {', '.join(group)} (also {join(table.path, both[0])} is set)",
            )
    values = {}
    for key in table.keys:
        if key.name in present:
            values[key.name] = key.read(present[key.name], join(table.path, key.name), ctx)
        elif key.missing is not None:
            raise ctx.error(join(table.path, key.name), f"missing: {key.missing}")
        elif getattr(key.read, "section", None) is not None:  # an absent section: its keys at their defaults
            values[key.name] = key.read(None, join(table.path, key.name), ctx)
        else:
            values[key.name] = key.default
    return values


def _check_names(table: Section, given: Mapping, ctx: Context) -> None:
    for key in given:
        text = str(key)
        if text in table.by_name:
            continue
        path = join(table.path, text)
        if text in table.unsupported:
            raise ctx.error(path, f"not supported: {table.unsupported[text]}")
        if text in table.ignored:
            ctx.warn(path, f"Cadence does not use this Cerebras setting ({table.ignored[text]}); ignored")
            continue
        accepted = [k.name for k in table.keys]
        close = suggest(text, accepted)
        hint = f"did you mean {', '.join(close)}? " if close else ""
        home = _home_of(text, ctx.schema)
        if home is not None and home != table.path:
            hint = f"it belongs under {home}; " + hint
        raise ctx.error(path, f"unknown {table.label} ({hint}accepted here: {', '.join(accepted)})")


def _home_of(key: str, schema: Section | None) -> str | None:
    """The one section of ``schema`` a key belongs to (for "it belongs under ..." hints), or None."""
    if schema is None:
        return None
    homes = {s.path for s in schema.sections() if s.path and (key in s.by_name or key in s.unsupported)}
    return homes.pop() if len(homes) == 1 else None


# -- readers of single values ----------------------------------------------------------------------------


def mapping(value: Any, path: str, ctx: Context, *, allow_none: bool = True) -> dict:
    """A mapping (``None`` is an empty one unless ``allow_none`` is False).

    Args:
        value: The value given.
        path: Its key path.
        ctx: The reading's context.
        allow_none: Whether ``None`` reads as ``{}``.

    Returns:
        ``value`` itself once checked to be a dict, or ``{}`` for None.

    Raises:
        ConfigError: ``value`` is not a dict (nor an allowed None).

    >>> mapping(None, "trainer.fit", Context(None, {}))
    {}
    """
    if value is None and allow_none:
        return {}
    if not isinstance(value, dict):
        raise ctx.error(path, f"must be a mapping of keys to values, got {show(value)}")
    return value


def count(minimum: int = 1) -> Reader:
    """An integer >= ``minimum``; a whole float (``1e3``, a YAML 1.2 float) is fine.

    Args:
        minimum: The smallest count accepted.

    Returns:
        A reader giving the count as an int; it raises a ConfigError for a bool, a non-integer or a count below
        ``minimum``.

    >>> count(0)(1e3, "trainer.init.seed", Context(None, {}))
    1000
    """

    def read(value: Any, path: str, ctx: Context) -> int:
        problem = integer_problem(value, low=minimum)
        if problem is not None:
            raise ctx.error(path, f"{problem}, got {show(value)}")
        return int(value)

    return read


def number(value: Any, path: str, ctx: Context) -> float:
    """A finite number > 0 (the one check of a number, :func:`schedulers.core.schedule_arguments.number_problem`).

    Args:
        value: The value given.
        path: Its key path.
        ctx: The reading's context.

    Returns:
        ``value`` as a float.

    Raises:
        ConfigError: not a number, not finite, or not above 0, naming ``path``.

    >>> number(1, "trainer.init.loop.scale_schedule_ratio", Context(None, {}))
    1.0
    """
    problem = number_problem(value, low=0.0, low_open=True)
    if problem is not None:
        raise ctx.error(path, f"{problem}, got {show(value)}")
    return float(value)


def flag(value: Any, path: str, ctx: Context) -> bool:
    """``true`` or ``false``.

    Args:
        value: The value given.
        path: Its key path.
        ctx: The reading's context.

    Returns:
        ``value``, checked to be a bool (``1`` or ``"yes"`` is refused).

    Raises:
        ConfigError: not a bool.

    >>> flag(True, "trainer.init.progress_bar", Context(None, {}))
    True
    """
    if not isinstance(value, bool):
        raise ctx.error(path, f"must be true or false, got {show(value)}")
    return value


def text(value: Any, path: str, ctx: Context) -> str:
    """A string.

    Args:
        value: The value given.
        path: Its key path.
        ctx: The reading's context.

    Returns:
        ``value``, checked to be a str.

    Raises:
        ConfigError: not a str.

    >>> text("ckpt/latest", "trainer.fit.ckpt_path", Context(None, {}))
    'ckpt/latest'
    """
    if not isinstance(value, str):
        raise ctx.error(path, f"must be a string, got {show(value)}")
    return value


def choice(names: tuple[str, ...]) -> Reader:
    """One of ``names`` (case-sensitive).

    Args:
        names: The accepted values.

    Returns:
        A reader giving the value when it is one of ``names``; else it raises a ConfigError listing them.

    >>> choice(("raise", "warn"))("warn", "trainer.init.loop.on_nonfinite_loss", Context(None, {}))
    'warn'
    """

    def read(value: Any, path: str, ctx: Context) -> str:
        problem = choice_problem(value, names)
        if problem is not None:
            raise ctx.error(path, f"{problem}, got {show(value)}")
        return value

    return read


def duration(hint: str) -> Reader:
    """A positive time in ep, ba, sp or tok, read as the trainer reads one (:func:`trainer.trainer_arguments.run_time`:
    a bare integer means epochs, as ``Trainer(..., 30)`` and Composer; ``hint`` says what else the key's section
    takes).

    Args:
        hint: What else the section accepts, added to the error for a number without a unit
            (``"or max_steps: an integer"``).

    Returns:
        A reader giving a :class:`~timeunits.Time`; it raises a ConfigError for a float without a unit, a text
        that is no time, a fraction of the run (``dur``), or a time that is not positive.

    >>> duration("or max_steps")("2e6tok", "trainer.init.loop.max_duration", Context(None, {}))
    Time(2000000, TimeUnit.TOKEN)
    >>> duration("or max_steps")(10, "trainer.init.loop.max_duration", Context(None, {}))
    Time(10, TimeUnit.EPOCH)
    """

    def read(value: Any, path: str, ctx: Context) -> Time:
        key = path.rsplit(".", 1)[-1]
        try:
            return run_time(value, key)
        except ValueError as error:  # the trainer's message says what a time is; the key path names the key
            message = str(error).removeprefix(f"{key}=")
            raise ctx.error(path, f"{message} ({hint})" if isinstance(value, float) else message) from None

    return read


def output(*, folder: bool) -> Reader:
    """A path Cadence will write (a folder, or a file): its folder must exist or be creatable, checked now
    so that a bad place fails before training with the key and the folder named.

    Args:
        folder: True for a folder path (the folder itself is written in), False for a file's.

    Returns:
        A reader giving the path as a str; it raises a ConfigError for a value that is not a path or a place
        that cannot be written (:func:`check_output`).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as place:
    ...     output(folder=True)(place + "/ckpt", "trainer.init.checkpoint.save_folder", Context(None, {})) != ""
    True
    """

    def read(value: Any, path: str, ctx: Context) -> str:
        if not isinstance(value, (str, os.PathLike)):
            raise ctx.error(path, f"must be a {'folder' if folder else 'file'} path, got {show(value)}")
        check_output(value, path, ctx, folder=folder)
        return os.fspath(value)

    return read


def check_output(value: str | os.PathLike, path: str, ctx: Context, *, folder: bool) -> None:
    """``value`` can be written (a folder, or a file; missing folders on the way are fine): a ConfigError naming
    ``path`` otherwise, by the one check of :func:`trainer.writable_paths.unwritable_reason`.

    Args:
        value: The folder or file path.
        path: Its key path.
        ctx: The reading's context.
        folder: Whether ``value`` is a folder (else a file).

    Raises:
        ConfigError: the place cannot be written, saying why.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as place:
    ...     path = "trainer.init.loggers[0].CSVLogger.path"
    ...     check_output(place + "/run/m.csv", path, Context(None, {}), folder=False)
    """
    reason = unwritable_reason(value, folder=folder)
    if reason is not None:
        raise ctx.error(path, reason)


def device(value: Any, path: str, ctx: Context) -> str:
    """``cpu``, ``cuda``, ``cuda:N``; Cerebras's ``CPU``/``GPU``; ``CSX`` warns and trains on cpu.

    Args:
        value: The device name given.
        path: Its key path.
        ctx: The reading's context (``CSX`` warns through it).

    Returns:
        The torch device name (``"cpu"``, ``"cuda:1"``).

    Raises:
        ConfigError: not a str, not a device, or CUDA asked for on a machine without it.

    >>> device("CPU", "trainer.init.device", Context(None, {}))
    'cpu'
    """
    import torch

    if not isinstance(value, str):
        raise ctx.error(path, f"must be a device name such as cpu, cuda or cuda:1, got {show(value)}")
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
