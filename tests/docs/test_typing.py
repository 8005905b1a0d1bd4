"""The docs type-check: mypy over the ``python`` blocks of README.md and docs/*.md finds 0 errors.

A reader's type checker sees what mypy sees here: the packages' annotations (each ships ``py.typed``), attrs'
generated ``__init__`` (a time argument accepts ``"0.3dur"``), the lazily imported names of ``trainer``.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy")

_DOCS_TEST = Path(__file__).with_name("test_docs.py")
_spec = importlib.util.spec_from_file_location("cadence_docs_test_docs", _DOCS_TEST)
docs_test = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(docs_test)

# Third-party packages without type information: mypy may not follow them (it would say "missing stubs").
UNTYPED_PACKAGES = ("matplotlib.*", "transformers.*", "accelerate.*", "submitit.*", "ray.*", "yaml.*", "lightning.*")

# Each excused error is (page, mypy's error code, its exact message).

# Results that are None when their input is absent (``steps_this_run`` without --steps_this_run or --max_steps,
# ``configure_lr_scheduler`` without a scheduler config): the pages use them where the input is given, and a
# reader's type checker rightly asks such code to check for None.
OPTIONAL_RESULTS = [
    (
        "docs/sambaflow.md",
        "arg-type",
        'Argument 1 to "range" has incompatible type "int | None"; expected "SupportsIndex"',
    ),
    (
        "docs/migrating-sambaflow.md",
        "arg-type",
        'Argument 1 to "range" has incompatible type "int | None"; expected "SupportsIndex"',
    ),
    ("docs/cerebras.md", "union-attr", 'Item "None" of "LRScheduler | None" has no attribute "milestones"'),
]

# Calls that show an error on purpose (the docs run them inside try/except): mypy is right to refuse them.
DELIBERATE_ERRORS = [
    (
        "docs/time-units.md",
        "arg-type",
        'Argument 1 to "from_input" of "Time" has incompatible type "int | list[int] | None"; '
        'expected "Time | str | int | float"',
    ),
    (
        "docs/time-units.md",
        "arg-type",
        'Argument "samples" to "to_next_batch" of "Timestamp" has incompatible type "float"; expected "int | Time"',
    ),
    ("docs/schedules.md", "attr-defined", '"tuple[Time, ...]" has no attribute "append"'),
    ("docs/schedules.md", "misc", 'Property "gamma" defined in "StepScheduler" is read-only'),
]

# The reader's code, not the library's signatures: mypy cannot follow it. time-units.md: the join of exception
# classes with several bases is not an exception class to mypy; schedules.md: a classmethod converter
# (``converter=Time.from_input``) is one attrs' mypy plugin does not read; trainer-config.md: a nested dict
# literal of mixed values is typed ``dict[str, object]``; sambaflow.md: the model's own ``get_lr_scheduler``
# replaces the imported one, which mypy refuses for functions.
MYPY_CANNOT_FOLLOW = [
    (
        "docs/time-units.md",
        "misc",
        "Exception type must be derived from BaseException (or be a tuple of exception classes)",
    ),
    ("docs/trainer-config.md", "index", 'Value of type "object" is not indexable'),
    ("docs/sambaflow.md", "no-redef", 'Name "get_lr_scheduler" already defined (possibly by an import)'),
    (
        "docs/schedules.md",
        "assignment",
        'Incompatible types in assignment (expression has type "str", variable has type "Time")',
    ),
    (
        "docs/schedules.md",
        "misc",
        "Unsupported converter, only named functions, types and lambdas are currently supported",
    ),
]

_ERROR = re.compile(r"^pages/(?P<module>doc_\d+)\.py:(?P<line>\d+): error: (?P<message>.*?)\s+\[(?P<code>[a-z-]+)\]$")


def _write_modules(folder: Path) -> dict[str, tuple[str, list[int]]]:
    """Write each page with blocks as one module (its blocks in order, one namespace).

    Returns:
        module name -> (the page, the page's line of each of the module's lines).
    """
    modules = {}
    for number, page in enumerate(docs_test.PAGES):
        lines, page_lines = [], []
        for first_line, block in docs_test.python_blocks(page):
            block_lines = block.splitlines()
            lines += block_lines
            page_lines += range(first_line, first_line + len(block_lines))
        if lines:
            name = f"doc_{number}"
            (folder / f"{name}.py").write_text("\n".join(lines) + "\n")
            modules[name] = (str(page.relative_to(docs_test.ROOT)), page_lines)
    return modules


def _config(tmp_path: Path) -> Path:
    untyped = "\n".join(f"[mypy-{package}]\nignore_missing_imports = True\n" for package in UNTYPED_PACKAGES)
    config = tmp_path / "mypy.ini"
    # follow_imports=silent: the library is checked as the docs use it, its own lines are not reported here;
    # allow_redefinition: a page reuses a name for a new value from one block to the next, as readers do.
    # torch is not followed (its types are taken as Any): reading its annotations would take most of a minute.
    config.write_text(
        f"[mypy]\ncache_dir = {tmp_path / 'cache'}\nfollow_imports = silent\nallow_redefinition = True\n"
        f"show_error_codes = True\n[mypy-torch.*]\nfollow_imports = skip\n{untyped}"
    )
    return config


def _excused(page: str, code: str, message: str) -> bool:
    return any(
        page == p and code == c and message == m
        for p, c, m in OPTIONAL_RESULTS + DELIBERATE_ERRORS + MYPY_CANNOT_FOLLOW
    )


def test_docs_code_type_checks(tmp_path: Path) -> None:
    folder = tmp_path / "pages"
    folder.mkdir()
    modules = _write_modules(folder)
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(_config(tmp_path)), *(f"pages/{m}.py" for m in modules)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(docs_test.ROOT), "MYPYPATH": str(docs_test.ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode in (0, 1), result.stderr + result.stdout  # 2: mypy itself failed
    errors, found_count = [], 0
    for line in result.stdout.splitlines():
        found = _ERROR.match(line)
        if not found:
            continue
        found_count += 1
        page, page_lines = modules[found["module"]]
        if not _excused(page, found["code"], found["message"]):
            errors.append(f"{page}:{page_lines[int(found['line']) - 1]}: {found['message']} [{found['code']}]")
    summary = result.stdout.strip().splitlines()[-1]
    expected = "Success: no issues found" if found_count == 0 else f"Found {found_count} error"
    assert summary.startswith(expected), f"not every error was read: {summary}"
    assert not errors, f"mypy finds {len(errors)} errors in the docs' code:\n" + "\n".join(errors)
