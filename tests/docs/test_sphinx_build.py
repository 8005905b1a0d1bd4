"""The documentation site builds, offline, with every Sphinx warning an error; its pictures are not stale.

The build is a pytest test (docs/architecture.md) so the README's test command covers it: a broken
reference, a page missing from the toctree, a malformed docstring or a bad Markdown link fails here.
Under ``CI=true`` a missing ``sphinx``/``myst_parser``/``matplotlib`` fails instead of skipping.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
IMAGES = DOCS / "images"


def _require(*modules: str) -> None:
    """Import ``modules``, or skip — except under CI, where a missing docs dependency is a failure."""
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if not missing:
        return
    message = f"the docs build needs {', '.join(missing)} (pip install -e '.[test]')"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


def test_sphinx_build_has_no_warnings(tmp_path: Path) -> None:
    _require("sphinx", "myst_parser")
    out = tmp_path / "html"
    # In a subprocess: autodoc (autodoc_preserve_defaults) rewrites the signatures of the classes it
    # documents, which must not leak into the other tests of this process.
    build = subprocess.run(
        [
            sys.executable,
            "-W",
            "ignore::DeprecationWarning",
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-q",
            "-b",
            "html",
            "-d",
            str(tmp_path / "doctrees"),
            str(DOCS),
            str(out),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))},
        timeout=600,
    )
    assert build.returncode == 0, (
        f"sphinx-build reported warnings (every warning is an error):\n{build.stderr}{build.stdout}"[-8000:]
    )
    for page in ("index", "getting-started", "schedules", "api/schedulers", "api/cerebras", "api/trainer"):
        assert (out / f"{page}.html").is_file(), f"{page}.html was not built"
    # The API reference really is generated from the docstrings.
    api = (out / "api" / "schedulers.html").read_text()
    assert 'id="schedulers.families.composer.CosineAnnealingWithWarmupScheduler"' in api
    assert 'id="schedulers.cerebras.lr_scheduler.CosineDecayLR"' in (out / "api" / "cerebras.html").read_text()
    # Every picture docs/schedules.md shows is copied into the site.
    schedules = (DOCS / "schedules.md").read_text()
    for name in re.findall(r"\(images/([\w.-]+\.svg)\)", schedules):
        assert (out / "_images" / name).is_file(), f"{name} is not in the built site"


def test_every_public_module_is_in_the_api_reference() -> None:
    """A new module gets a place in docs/api/ (an ``.. automodule::`` line), so the reference stays complete."""
    documented = set()
    for page in (DOCS / "api").glob("*.md"):
        documented.update(re.findall(r"^\.\. automodule:: ([\w.]+)\s*$", page.read_text(), re.M))
    modules = set()
    for package in ("timeunits", "schedulers", "trainer"):
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            if not any(part.startswith("_") for part in parts):
                modules.add(".".join(parts))
    missing = sorted(modules - documented)
    assert not missing, f"modules missing from docs/api/*.md (add an automodule block): {missing}"
    unknown = sorted(documented - modules)
    assert not unknown, f"docs/api/*.md documents modules that do not exist: {unknown}"


# -- pictures ---------------------------------------------------------------------------------------------

_CREATOR = re.compile(r"<dc:creator>\s*<cc:Agent>\s*<dc:title>Matplotlib v([^,<]+)")


def _load_make_pictures():
    spec = importlib.util.spec_from_file_location("cadence_docs_make_pictures", DOCS / "make_pictures.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _structure(svg: str) -> dict:
    """What a picture shows, independent of the renderer's exact coordinates: its curves and its texts."""
    return {
        "curves": len(re.findall(r'<g id="cadence-curve-\d+">', svg)),  # plot_schedules names each curve
        "texts": sorted(re.findall(r"<text[^>]*>([^<]*)</text>", svg)),
    }


def test_pictures_are_up_to_date(tmp_path: Path) -> None:
    _require("matplotlib")
    make_pictures = _load_make_pictures()
    written = make_pictures.main(tmp_path)
    committed = sorted(p.name for p in IMAGES.glob("*.svg"))
    assert sorted(p.name for p in written) == committed, (
        "docs/images/ does not hold exactly the pictures docs/make_pictures.py makes: "
        "run `python docs/make_pictures.py` and commit docs/images/"
    )
    import matplotlib

    for path in written:
        assert _structure(path.read_text())["curves"] >= 1, f"{path.name} draws no curve"
    assert _structure((IMAGES / "scale-schedule-ratio.svg").read_text())["curves"] == 6  # 3 ssrs x 2 panels
    stale = []
    for path in written:
        new, old = path.read_text(), (IMAGES / path.name).read_text()
        made_with = _CREATOR.search(old)
        if made_with and made_with.group(1) == matplotlib.__version__:
            # Same matplotlib as the committed pictures: the files must be identical, byte for byte.
            if path.read_bytes() != (IMAGES / path.name).read_bytes():
                stale.append(path.name)
        elif _structure(new) != _structure(old):
            # Another matplotlib lays glyphs and ticks out slightly differently: compare what is drawn.
            stale.append(path.name)
    assert not stale, f"stale pictures {stale}: run `python docs/make_pictures.py` and commit docs/images/"


def test_every_picture_is_shown_somewhere() -> None:
    pages = "".join(page.read_text() for page in DOCS.rglob("*.md"))
    unused = [p.name for p in IMAGES.glob("*.svg") if f"images/{p.name}" not in pages]
    assert not unused, f"pictures no page shows: {unused}"
