"""The documentation build: every ``python`` block in README.md and docs/ runs, and every relative link resolves."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
_LINK = re.compile(r"\[[^\]]*\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _ids(pages):
    return [str(page.relative_to(ROOT)) for page in pages]


@pytest.mark.parametrize("page", PAGES, ids=_ids(PAGES))
def test_python_blocks_run(page: Path, tmp_path, monkeypatch) -> None:
    # Blocks of one page share a namespace, like a reader pasting them in order.
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__docs__"}
    for number, block in enumerate(_BLOCK.findall(page.read_text()), start=1):
        # dont_inherit: a block must not pick up this file's `from __future__ import annotations`
        code = compile(block, f"{page.name}[block {number}]", "exec", dont_inherit=True)
        exec(code, namespace)


@pytest.mark.parametrize("page", PAGES, ids=_ids(PAGES))
def test_relative_links_resolve(page: Path) -> None:
    for target in _LINK.findall(page.read_text()):
        if re.match(r"^[a-z]+:", target):
            continue
        assert (page.parent / target).exists(), f"{page.relative_to(ROOT)} links to missing {target}"


def test_every_docs_page_is_linked_from_the_index() -> None:
    index = (ROOT / "docs" / "index.md").read_text()
    for page in (ROOT / "docs").glob("*.md"):
        if page.name != "index.md":
            assert f"({page.name})" in index, f"docs/index.md does not link {page.name}"
