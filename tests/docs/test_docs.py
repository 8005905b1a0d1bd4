"""The documentation build: every ``python`` block in README.md and docs/ runs, and every relative link resolves."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
_LINK = re.compile(r"\[[^\]]*\]\(([^)#\s]+)(?:#[^)]*)?\)")


def python_blocks(page: Path) -> list[tuple[int, str]]:
    """The page's ``python`` blocks in the order a reader (and :func:`test_python_blocks_run`) runs them.

    Each is (the page's line number of the block's first code line, the code); tests/docs/test_typing.py
    type-checks the same blocks.
    """
    text = page.read_text()
    return [(text.count("\n", 0, match.start(1)) + 1, match.group(1)) for match in _BLOCK.finditer(text)]


def _ids(pages):
    return [str(page.relative_to(ROOT)) for page in pages]


@pytest.mark.parametrize("page", PAGES, ids=_ids(PAGES))
def test_python_blocks_run(page: Path, tmp_path, monkeypatch) -> None:
    # Blocks of one page share a namespace, like a reader pasting them in order.
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__docs__"}
    for number, (_, block) in enumerate(python_blocks(page), start=1):
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


def test_trainer_md_lists_every_trainer_argument_with_its_default() -> None:
    import inspect

    from trainer import Trainer

    page = (ROOT / "docs" / "trainer.md").read_text()
    rows = dict(re.findall(r"^\| `(\w+)` \| ([^|]+?) \|", page, re.M))
    for parameter in inspect.signature(Trainer.__init__).parameters.values():
        if parameter.name in ("self", "unknown"):
            continue
        assert parameter.name in rows, f"docs/trainer.md's argument table lacks {parameter.name}"
        want = "required" if parameter.default is parameter.empty else f"`{parameter.default!r}`".replace("'", '"')
        assert rows[parameter.name] == want, f"{parameter.name}: the table says {rows[parameter.name]}, not {want}"


@pytest.mark.parametrize("page", PAGES, ids=_ids(PAGES))
def test_user_facing_snippets_do_not_import_pytest(page: Path) -> None:
    for _, block in python_blocks(page):
        assert not re.search(r"^\s*(import pytest|from pytest\b)", block, re.M), f"{page.name} imports pytest"
