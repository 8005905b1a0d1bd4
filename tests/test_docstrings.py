"""Every public name is documented like the anchors (the kernels, Composer's schedules, the clock), and every
public function is typed.

The rule (docs/architecture.md, "Documented and typed"), for each name in ``schedulers.__all__`` and
``trainer.__all__``:

- its own docstring (not one inherited), in Google style;
- ``Args:`` when its call takes named parameters, naming each of them (a class: its constructor's; ``*args`` and
  ``**kwargs`` need no entry);
- ``Returns:`` (``Yields:`` for a generator): what the call gives. A function returning None says so; a class
  says what its instance is and does (a schedule: what calling it returns; an error: when it is raised);
- ``Raises:``: what the call raises, or that it raises nothing of its own;
- a runnable example (``>>>`` lines, bare or under ``Example:``) that tests/docs/test_doctests.py runs: the
  doctest finder of the name's own module collects it.

The public methods and properties a name's class defines (on it or on a Cadence base class) have a docstring;
a method also has ``Args:`` naming each of its parameters when it takes any, and ``Returns:`` unless it returns
None. A method overriding a Cadence base class's method inherits the base's docstring, and is checked on it.

Typing: every public function and method (and ``__init__``, ``__call__``) of the modules the API reference
documents (docs/api/) annotates each parameter (``self`` and ``cls`` aside) and its return; the kernels take and
return ``kernels.Number`` (``float | torch.Tensor``).
"""

from __future__ import annotations

import ast
import doctest
import importlib
import inspect
import re
from pathlib import Path

import pytest

import schedulers
import trainer

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"schedulers": schedulers, "trainer": trainer}
NAMES = [f"{package}.{name}" for package, module in PACKAGES.items() for name in module.__all__]
_SECTION = re.compile(r"^(Args|Arguments|Returns|Yields|Raises|Example|Examples|Attributes|Note|Notes):\s*$")
_ENTRY = re.compile(r"^ {4}\**(\w+)(?: \([^)]*\))?:")


def _public(qualified: str) -> object:
    package, name = qualified.split(".")
    return getattr(PACKAGES[package], name)


def sections(doc: str) -> dict[str, list[str]]:
    """A Google-style docstring's sections, each as its lines (indented as written, blank lines kept)."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in inspect.cleandoc(doc).splitlines():
        match = _SECTION.match(line)
        if match:
            current = found.setdefault(match.group(1), [])
        elif current is not None and (line.startswith(" ") or not line.strip()):
            current.append(line)
        else:
            current = None
    return found


def _documented(lines: list[str]) -> list[str]:
    return [match.group(1) for line in lines if (match := _ENTRY.match(line))]


def _named_parameters(obj: object, *, skip_first: bool = False) -> list[str] | None:
    """The named parameters of calling ``obj`` (None: a builtin exception's message, no named parameter)."""
    if inspect.isclass(obj) and getattr(obj, "_is_protocol", False):
        return []  # a protocol is met, never constructed
    try:
        parameters = list(inspect.signature(obj).parameters.values())
    except ValueError:
        return None
    if skip_first:
        parameters = parameters[1:]
    return [p.name for p in parameters if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def _returns_none(function: object) -> bool:
    return inspect.signature(function).return_annotation in (None, "None")


def _has_example_run_by_doctest(obj: object) -> bool:
    """The doctest finder of ``obj``'s module (what tests/docs/test_doctests.py runs) collects an example of it."""
    module = importlib.import_module(obj.__module__)
    wanted = f"{module.__name__}.{obj.__qualname__}"
    finder = doctest.DocTestFinder(exclude_empty=True)
    return any(test.name == wanted and test.examples for test in finder.find(module))


def name_problems(obj: object) -> list[str]:
    """What a public name's docstring lacks under the rule of this module's docstring."""
    doc = obj.__doc__
    if not doc or not doc.strip():
        return ["no docstring of its own"]
    found = sections(doc)
    problems = []
    parameters = _named_parameters(obj)
    if parameters:
        if "Args" not in found and "Arguments" not in found:
            problems.append("no Args section")
        else:
            missing = [p for p in parameters if p not in _documented(found.get("Args", found.get("Arguments", [])))]
            problems += [f"Args does not name {p!r}" for p in missing]
    if not any(line.strip() for line in found.get("Returns", found.get("Yields", []))):
        problems.append("no Returns section")
    if not any(line.strip() for line in found.get("Raises", [])):
        problems.append("no Raises section")
    if ">>>" not in doc:
        problems.append("no example")
    elif not _has_example_run_by_doctest(obj):
        problems.append(f"its example is not collected by the doctests of {obj.__module__}")
    return problems


def _cadence_classes(cls: type) -> list[type]:
    return [klass for klass in cls.__mro__ if klass.__module__.split(".")[0] in PACKAGES]


def _overrides(cls: type, name: str, owner: type) -> bool:
    return any(name in vars(base) for base in _cadence_classes(cls)[_cadence_classes(cls).index(owner) + 1 :])


def _members() -> list[tuple[str, type, str]]:
    """``(label, owner class, name)`` of each public method and property the exported classes define."""
    members = {}
    for qualified in NAMES:
        obj = _public(qualified)
        if not inspect.isclass(obj):
            continue
        for owner in _cadence_classes(obj):
            for name, value in vars(owner).items():
                public = not name.startswith("_") or name == "__call__"
                member = isinstance(value, (property, staticmethod, classmethod)) or inspect.isfunction(value)
                if public and member and not _overrides(obj, name, owner):
                    members[f"{owner.__module__}.{owner.__qualname__}.{name}"] = (owner, name)
    return [(label, owner, name) for label, (owner, name) in sorted(members.items())]


def member_problems(owner: type, name: str) -> list[str]:
    """What a public method's or property's docstring lacks under the rule of this module's docstring."""
    value = inspect.getattr_static(owner, name)
    function = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
    doc = function.__doc__
    if not doc or not doc.strip():
        return ["no docstring"]
    if isinstance(value, property):
        return []
    found = sections(doc)
    parameters = _named_parameters(function, skip_first=not isinstance(value, staticmethod))
    problems = [f"Args does not name {p!r}" for p in parameters or [] if p not in _documented(found.get("Args", []))]
    if not _returns_none(function) and not any(line.strip() for line in found.get("Returns", found.get("Yields", []))):
        problems.append("no Returns section")
    return problems


@pytest.mark.parametrize("qualified", NAMES)
def test_every_public_name_has_args_returns_raises_and_an_example(qualified: str) -> None:
    problems = name_problems(_public(qualified))
    assert not problems, f"{qualified}: " + "; ".join(problems)


@pytest.mark.parametrize(("label", "owner", "name"), _members(), ids=[label for label, _, _ in _members()])
def test_public_methods_document_their_parameters_and_return(label: str, owner: type, name: str) -> None:
    problems = member_problems(owner, name)
    assert not problems, f"{label}: " + "; ".join(problems)


# -- the checker itself ----------------------------------------------------------------------------------------


def _function_with(doc: str):  # noqa: ANN202  (a function made to be checked)
    def scale(value: float, factor: float = 2.0) -> float:
        return value * factor

    scale.__doc__ = doc
    scale.__module__ = __name__
    return scale


_COMPLETE = """Multiply.

    Args:
        value: A number.
        factor: Another.

    Returns:
        The product.

    Raises:
        Nothing of its own.

    >>> 1
    1
    """


def test_the_checker_names_what_a_docstring_lacks() -> None:
    assert name_problems(_function_with(_COMPLETE.replace("        factor: Another.\n", ""))) == [
        "Args does not name 'factor'",
        "its example is not collected by the doctests of tests.test_docstrings",  # a function built in a test
    ]
    lacking = name_problems(_function_with("Multiply.\n\n    Args:\n        value: A.\n        factor: B.\n"))
    assert lacking == ["no Returns section", "no Raises section", "no example"]
    assert name_problems(_function_with("")) == ["no docstring of its own"]


class _Checked:
    def speed(self, distance: float, *, seconds: float) -> float:
        """Speed.

        Args:
            distance: Metres.

        Returns:
            Metres per second.
        """
        return distance / seconds

    def reset(self, to: float) -> None:
        """Reset.

        Args:
            to: The value.
        """

    @property
    def unit(self) -> str:
        return "m/s"


def test_the_checker_names_what_a_method_lacks() -> None:
    assert member_problems(_Checked, "speed") == ["Args does not name 'seconds'"]
    assert member_problems(_Checked, "reset") == []  # returns None: no Returns needed
    assert member_problems(_Checked, "unit") == ["no docstring"]


def test_sections_keep_indented_lines_and_end_at_the_next_paragraph() -> None:
    found = sections("Title.\n\n    Args:\n        a: One\n            more.\n\n    Back to prose.\n")
    assert found == {"Args": ["    a: One", "        more.", ""]}
    assert _documented(found["Args"]) == ["a"]


# -- typing ----------------------------------------------------------------------------------------------------

# Where an annotation cannot be written, and why. Nothing yet: keep it empty unless a signature truly can't be
# typed (a parameter whose type depends on an optional package that may be absent is still typed, as a string).
UNTYPED: dict[str, str] = {}


def _documented_modules() -> list[str]:
    found = set()
    for page in sorted((ROOT / "docs" / "api").glob("*.md")):
        found.update(re.findall(r"^\.\. automodule:: (\S+)", page.read_text(), re.M))
    return sorted(found)


def _source(module: str) -> Path:
    path = ROOT.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def _public_functions(tree: ast.Module) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef, bool]]:
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    found = [(node.name, node, False) for node in tree.body if isinstance(node, functions)]
    for cls in (node for node in tree.body if isinstance(node, ast.ClassDef) and not node.name.startswith("_")):
        found += [(f"{cls.name}.{node.name}", node, True) for node in cls.body if isinstance(node, functions)]
    return [
        (name, node, method)
        for name, node, method in found
        if not name.rpartition(".")[2].startswith("_") or name.rpartition(".")[2] in ("__init__", "__call__")
    ]


def unannotated(node: ast.FunctionDef | ast.AsyncFunctionDef, *, method: bool) -> list[str]:
    """The parameters (and ``return``) of a function definition that have no annotation."""
    arguments = node.args
    parameters = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
    if method and not static:
        parameters = parameters[1:]
    parameters += [p for p in (arguments.vararg, arguments.kwarg) if p is not None]
    missing = [p.arg for p in parameters if p.annotation is None]
    return missing + (["return"] if node.returns is None else [])


def test_the_api_reference_lists_modules_that_exist() -> None:
    modules = _documented_modules()
    assert "schedulers.core.kernels" in modules and "trainer.callbacks" in modules
    assert all(_source(module).is_file() for module in modules), [m for m in modules if not _source(m).is_file()]


@pytest.mark.parametrize("module", _documented_modules())
def test_every_public_function_is_annotated(module: str) -> None:
    tree = ast.parse(_source(module).read_text())
    missing = [
        f"{module}:{node.lineno} {name} ({', '.join(names)})"
        for name, node, method in _public_functions(tree)
        if (names := unannotated(node, method=method)) and f"{module}.{name}" not in UNTYPED
    ]
    assert not missing, "unannotated:\n" + "\n".join(missing)


def test_the_annotation_check_finds_a_missing_annotation() -> None:
    tree = ast.parse("class A:\n    def f(self, x, *, y: int):\n        pass\n\ndef g(a: int) -> int:\n    return a\n")
    found = {name: unannotated(node, method=method) for name, node, method in _public_functions(tree)}
    assert found == {"A.f": ["x", "return"], "g": []}


def test_kernels_take_and_return_the_number_alias() -> None:
    from schedulers.core import kernels

    curves = [getattr(kernels, name) for name in kernels.__all__ if inspect.isfunction(getattr(kernels, name))]
    number = ("Number", kernels.Number)  # as written, or evaluated (kernels.py does not postpone annotations)
    wrong = [
        curve.__name__
        for curve in curves
        if curve is not kernels.restart_boundaries  # boundaries from whole counts, not a curve
        and not (
            next(iter(inspect.signature(curve).parameters.values())).annotation in number
            and curve.__annotations__["return"] in number
        )
    ]
    assert len(curves) > 15 and not wrong, wrong
