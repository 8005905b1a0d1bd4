"""Code lines of a package or file: what a reader reads, docstrings, comments and blank lines left out.

Run: ``python bench/code_lines.py schedulers/cerebras schedulers trainer`` (issue 25 counts the Cerebras front end
this way). Prints one line per file and a total per argument.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path


def code_lines(path: Path) -> int:
    """The lines of ``path`` that are code: not blank, not a comment, not part of a docstring."""
    source = path.read_text(encoding="utf-8")
    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                docstrings.update(range(first.lineno, first.end_lineno + 1))
    return sum(
        1
        for number, line in enumerate(source.splitlines(), 1)
        if line.strip() and not line.strip().startswith("#") and number not in docstrings
    )


def main(arguments: list[str]) -> None:
    for argument in arguments:
        root = Path(argument)
        files = sorted(root.rglob("*.py")) if root.is_dir() else [root]
        total = 0
        for path in files:
            count = code_lines(path)
            total += count
            print(f"{count:6d}  {path}")
        print(f"{total:6d}  total of {argument}\n")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", default=["schedulers/cerebras"], help="packages or files to count")
    main(parser.parse_args().paths)
