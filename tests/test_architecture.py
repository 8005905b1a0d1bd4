"""The architecture stays as docs/architecture.md draws it: layers that import one way, no import cycles,
short functions, and code that cites only the repo's own docs.

Imports are read from the source (every ``import`` statement, also inside functions and under
``if TYPE_CHECKING:``, and ``importlib.import_module("...")`` of a written name), so neither a lazy import nor a
type-checking one can hide a cycle. Importing ``a.b.c`` also runs ``a/__init__.py`` and ``a/b/__init__.py``:
those packages count as imported too (except the importing module's own packages, which ran before it), and
``from a import name`` reads ``a``'s attributes, lazy ones included.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("timeunits", "schedulers", "trainer")
MAX_FUNCTION_LINES = 60


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    return {_module_name(path): path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}


MODULES = _sources()


def _packages_run(name: str, module: str) -> list[str]:
    """The packages whose ``__init__`` importing ``name`` runs: its prefixes, less ``module``'s own packages
    (Python ran those before ``module``)."""
    parts = name.split(".")
    own = {".".join(module.split(".")[:i]) for i in range(1, module.count(".") + 2)}
    return [prefix for i in range(1, len(parts)) if (prefix := ".".join(parts[:i])) not in own]


def _written_import(node: ast.AST) -> str | None:
    """The module of ``importlib.import_module("a.b")`` or ``__import__("a.b")`` written with a constant name."""
    if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)):
        return None
    function = node.func
    called = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None)
    name = node.args[0].value
    return name if called in ("import_module", "__import__") and isinstance(name, str) else None


def _imported(node: ast.AST, module: str, modules: Collection[str]) -> list[str]:
    """The project modules an import statement loads: ``from a import b`` loads ``a.b`` when it is a module, and
    ``a`` itself (whose attributes it reads) when it is not; either way the packages on the way run."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
        if node.level:  # the project writes absolute imports only
            raise AssertionError(f"{module}: relative import 'from {'.' * node.level}{node.module or ''}'")
        base = node.module or ""
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
    elif (written := _written_import(node)) is not None:
        names = [written]
    else:
        return []
    names += [package for name in names for package in _packages_run(name, module)]
    return [name for name in names if name.split(".")[0] in PACKAGES and name in modules]


def _imports_in(source: str, module: str, modules: Collection[str] = MODULES) -> set[str]:
    """Every project module ``source`` imports: at the top, inside functions, and under ``if TYPE_CHECKING:``
    (a type checker follows those, and a cycle through them is still two modules that need each other)."""
    found = {name for node in ast.walk(ast.parse(source)) for name in _imported(node, module, modules)}
    found.discard(module)
    return found


def _imports(module: str) -> set[str]:
    return _imports_in(MODULES[module].read_text(), module)


GRAPH = {module: _imports(module) for module in MODULES}


def _cycle_from(start: str, graph: Mapping[str, set[str]] = GRAPH) -> list[str] | None:
    """A shortest import path from ``start`` back to itself, or None."""
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for module in frontier:
            for target in sorted(graph.get(module, ())):
                if target == start:
                    return [*paths[module], start]
                if target not in paths:
                    paths[target] = [*paths[module], target]
                    following.append(target)
        frontier = following
    return None


def _cycles(graph: Mapping[str, set[str]]) -> list[str]:
    cycles = {tuple(sorted(set(cycle))): cycle for module in graph if (cycle := _cycle_from(module, graph))}
    return [" -> ".join(cycle) for cycle in cycles.values()]


def test_imports_are_read_everywhere_type_checking_blocks_included() -> None:
    source = """
from __future__ import annotations
from typing import TYPE_CHECKING
import timeunits
if TYPE_CHECKING:
    from trainer.trainer import Trainer
else:
    from trainer import loop
def later():
    from trainer.preview import Preview
"""
    assert _imports_in(source, "trainer.example") == {"timeunits", "trainer.trainer", "trainer.loop", "trainer.preview"}


def test_imports_count_the_packages_they_run() -> None:
    """``from schedulers.core.kernels import cosine`` runs ``schedulers/__init__.py`` and
    ``schedulers/core/__init__.py``; a module's own packages ran before it and do not count; ``from trainer import
    Trainer`` reads the package's (lazy) attribute; ``importlib.import_module("...")`` is an import too."""
    source = """
import importlib
from schedulers.core.kernels import cosine
from trainer import Trainer
from trainer import loop
def later():
    importlib.import_module("trainer.config")
"""
    found = _imports_in(source, "trainer.sweep.example")
    assert found == {
        "schedulers",
        "schedulers.core",
        "schedulers.core.kernels",
        "trainer",
        "trainer.loop",
        "trainer.config",
    }


def test_a_cycle_through_a_package_init_is_found() -> None:
    """The cycle issue 25 found: ``Trainer.from_config`` imported ``trainer.config._build`` in a function, which
    runs ``trainer/config/__init__.py``, which imported ``trainer.trainer``. Neither module imports the other."""
    sources = {
        "trainer.trainer": "def from_config():\n    from trainer.config._build import trainer_arguments\n",
        "trainer.config": "from trainer.config._build import trainer_arguments\nfrom trainer.trainer import Trainer\n",
        "trainer.config._build": "import torch\n",
    }
    graph = {module: _imports_in(source, module, sources) for module, source in sources.items()}
    assert [sorted(cycle.split(" -> ")[1:]) for cycle in _cycles(graph)] == [["trainer.config", "trainer.trainer"]]


def test_no_import_cycles() -> None:
    described = _cycles(GRAPH)
    assert not described, (
        "import cycles (every import counts, also inside functions, under TYPE_CHECKING and through the package "
        "__init__ an import runs):\n" + "\n".join(described)
    )


def test_forecast_and_sweep_import_one_way() -> None:
    """The sweep knows no forecast; the forecast reads the sweep's folders (docs/architecture.md)."""
    sweep_to_forecast = {
        module: sorted(name for name in GRAPH[module] if name.startswith("trainer.forecast"))
        for module in GRAPH
        if module.startswith("trainer.sweep")
    }
    assert not {module: found for module, found in sweep_to_forecast.items() if found}


def test_the_config_reading_sits_below_the_trainer() -> None:
    """``Trainer.from_config`` builds from trainer.config_reading, and trainer.config (which subclasses the
    Trainer) builds on both: the reading imports neither (docs/architecture.md)."""
    above = {"trainer.trainer", "trainer.config"}
    wrong = {module: sorted(GRAPH[module] & above) for module in GRAPH if module.startswith("trainer.config_reading")}
    assert not {module: found for module, found in wrong.items() if found}
    assert "trainer.config_reading._build" in GRAPH["trainer.trainer"]


def _private_reads_of_a_trainer(module: str) -> list[str]:
    """``trainer._x`` and ``....trainer._x``: another module reaching into the trainer's private attributes."""
    found = []
    for node in ast.walk(ast.parse(MODULES[module].read_text())):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = node.value
            if (isinstance(owner, ast.Name) and owner.id == "trainer") or (
                isinstance(owner, ast.Attribute) and owner.attr == "trainer"
            ):
                found.append(f"{module}:{node.lineno} {ast.unparse(node)}")
    return found


def test_the_trainer_is_used_through_its_public_attributes() -> None:
    """The loop and the trainer's other jobs (training, preview, evaluation, checkpoints, the report) read the
    trainer's public attributes, and the trainer hands them its private parts itself: a job never reaches
    into it (docs/architecture.md)."""
    found = [hit for module in MODULES if module != "trainer.trainer" for hit in _private_reads_of_a_trainer(module)]
    assert not found, "\n".join(found)


def _layer(module: str) -> str:
    parts = module.split(".")
    if parts[0] != "schedulers" or len(parts) == 1:
        return parts[0]
    return f"schedulers.{parts[1]}"


# What each layer may import (besides itself): dependencies point trainer -> schedulers -> timeunits, and
# inside schedulers: tools and front ends -> families -> core.
LAYERS = {
    "timeunits": set(),
    "schedulers.core": {"timeunits"},
    "schedulers.families": {"timeunits", "schedulers.core"},
    "schedulers.optim": {"timeunits", "schedulers.core"},
    "schedulers.cerebras": {"timeunits", "schedulers.core", "schedulers.families", "schedulers.optim"},
    "schedulers.sambaflow": {"timeunits", "schedulers.core", "schedulers.families"},
    "schedulers.integrations": {"timeunits", "schedulers.core"},
    "schedulers.tools": {
        "timeunits",
        "schedulers",
        "schedulers.core",
        "schedulers.families",
        "schedulers.cerebras",
        "schedulers.sambaflow",
        "schedulers.optim",
    },
    "schedulers.__main__": {"schedulers.tools"},
}


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _layer(m) in LAYERS))
def test_layers_import_one_way(module: str) -> None:
    allowed = LAYERS[_layer(module)] | {_layer(module)}
    wrong = sorted(target for target in GRAPH[module] if _layer(target) not in allowed)
    assert not wrong, f"{module} ({_layer(module)}) may import only {sorted(allowed)}; it imports {wrong}"


def test_timeunits_imports_no_torch() -> None:
    heavy = [
        f"{module}: {name}"
        for module in MODULES
        if _layer(module) == "timeunits"
        for node in ast.walk(ast.parse(MODULES[module].read_text()))
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for name in ([a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""])
        if name.split(".")[0] in ("torch", "numpy")
    ]
    assert not heavy, heavy


def _long_functions() -> list[str]:
    found = []
    for module, path in MODULES.items():
        if _layer(module) == "timeunits":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({length} lines)")
    return found


def test_functions_stay_short() -> None:
    """A function over 60 lines (docstring included) is a design question: split it along its seams."""
    assert not _long_functions(), "\n".join(_long_functions())


def _value_class_idioms(source: str) -> list[str]:
    """The dataclasses and ``NamedTuple``s a module declares (by decorator or base, however imported)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            marks = [*node.decorator_list, *node.bases]
            names = {ast.unparse(mark.func if isinstance(mark, ast.Call) else mark).split(".")[-1] for mark in marks}
            if names & {"dataclass", "NamedTuple"}:
                found.append(f"{node.name} ({', '.join(sorted(names & {'dataclass', 'NamedTuple'}))})")
    return found


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("@dataclasses.dataclass(frozen=True)\nclass A: pass", ["A (dataclass)"]),
        ("@dataclass\nclass B: pass", ["B (dataclass)"]),
        ("class C(typing.NamedTuple): pass", ["C (NamedTuple)"]),
        ("@attrs.frozen\nclass D: pass", []),
    ],
)
def test_the_value_class_check_sees_each_idiom(source: str, expected: list[str]) -> None:
    assert _value_class_idioms(source) == expected


def test_small_value_classes_are_attrs_classes() -> None:
    """One way to write a small value class (docs/architecture.md): attrs, never a dataclass or a NamedTuple."""
    found = [f"{module}: {hit}" for module, path in MODULES.items() for hit in _value_class_idioms(path.read_text())]
    assert not found, found


_OUTSIDE = re.compile(r"\bAPI\.md\b|\bDESIGN\.md\b|\.\./shared\b|\bclarification \d+\b", re.I)


def test_code_and_docs_cite_only_the_repo() -> None:
    """Comments and docs point to docs/ pages, never to files a user of the repo does not have."""
    files = [path for path in MODULES.values()]
    files += sorted((ROOT / "docs").rglob("*.md")) + sorted((ROOT / "tests").rglob("*.py"))
    files += [ROOT / "README.md", *sorted((ROOT / "examples").glob("*")), *sorted((ROOT / "bench").glob("*.py"))]
    hits = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in files
        if path.is_file() and path != Path(__file__)
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        if _OUTSIDE.search(line)
    ]
    assert not hits, "\n".join(hits)


def _documented_reader_path() -> list[str]:
    """The files of the table in docs/architecture.md, "Following one schedule to the lr it writes", in order."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = page.split("## Following one schedule to the lr it writes", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([^`]+\.py)` \|", section, flags=re.MULTILINE)


def test_the_documented_reading_path_is_the_path_the_code_takes() -> None:
    # the trace of bench/reader_path.py: the project files entered from the schedule's construction to the first
    # lr write, in first-entry order; a file added to (or dropped from) the path must be added to the guide too
    import importlib.util

    spec = importlib.util.spec_from_file_location("reader_path", ROOT / "bench" / "reader_path.py")
    reader_path = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reader_path)
    trace = reader_path.follow(ROOT)
    assert _documented_reader_path() == [trace.shown(filename) for filename in trace.files]


def _documented_compile_path() -> list[str]:
    """The files docs/architecture.md lists for ``compile_scheduler`` alone, in order."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    paragraph = page.split("The same schedule driven by `compile_scheduler(", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"`((?:schedulers|timeunits|trainer)/[a-z_/]+\.py)`", paragraph)


def test_the_documented_compile_scheduler_path_is_the_path_the_code_takes() -> None:
    # bench/reader_path.py's second trace: from the schedule's construction through compile_scheduler alone to
    # the first lr write
    import importlib.util

    spec = importlib.util.spec_from_file_location("reader_path", ROOT / "bench" / "reader_path.py")
    reader_path = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reader_path)
    trace = reader_path.follow_compile(ROOT)
    files = [trace.shown(filename) for filename in trace.files]
    assert _documented_compile_path() == files
    assert f"enters {len(files)} files" in " ".join(
        (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").split()
    )
