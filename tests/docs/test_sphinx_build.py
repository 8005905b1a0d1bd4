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
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))

import background  # noqa: E402  (tests/background.py)

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


def _sphinx_build(folder: Path, env: dict) -> tuple[subprocess.CompletedProcess, Path]:
    """The site built into ``folder`` (tests/background.py starts it with the session: a minute of the suite's time
    on the machine's other core). In a subprocess: autodoc (autodoc_preserve_defaults) rewrites the signatures of the
    classes it documents, which must not leak into the other tests of this process."""
    out = folder / "html"
    argv = [sys.executable, "-W", "ignore::DeprecationWarning", "-m", "sphinx", "-W", "--keep-going", "-q"]
    argv += ["-b", "html", "-d", str(folder / "doctrees"), str(DOCS), str(out)]
    env = {**env, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))}
    return background.run(argv, cwd=ROOT, env=env), out


@background.ahead(_sphinx_build)
def test_sphinx_build_has_no_warnings() -> None:
    _require("sphinx", "myst_parser")
    build, out = background.result(_sphinx_build)
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
#
# A picture is compared by what it shows (docs/make_pictures.py): its texts, and per axes its view limits and
# its curves in data coordinates, within a fraction of the axes' spans. A closed form of the code must match
# to 1e-4 of an axis (the SVG's rounding and the last bits of a float are far below it, a changed schedule far
# above); a picture drawn from training to 1% of an axis, since its floats differ in the last decimals from
# one CPU to another (never bytes: a fresh clone on another machine must pass).

CLOSED_FORM_TOLERANCE, TRAINED_TOLERANCE = 1e-4, 1e-2


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def make_pictures():
    _require("matplotlib")
    return _load("cadence_docs_make_pictures", DOCS / "make_pictures.py")


@pytest.fixture(scope="module")
def svg_picture():
    return _load("cadence_docs_svg_picture", Path(__file__).with_name("svg_picture.py"))


@pytest.fixture(scope="module")
def trained_sweep(make_pictures, tmp_path_factory):
    """The docs' budget sweep, trained once for the tests of this module."""
    return make_pictures.train_sweep(tmp_path_factory.mktemp("sweep"))


def _tolerance(make_pictures, name: str) -> float:
    return TRAINED_TOLERANCE if name in make_pictures.FROM_TRAINING else CLOSED_FORM_TOLERANCE


def test_pictures_are_up_to_date(tmp_path: Path, make_pictures, svg_picture, trained_sweep) -> None:
    written = make_pictures.main(tmp_path, sweep=trained_sweep)
    committed = sorted(p.name for p in IMAGES.glob("*.svg"))
    assert sorted(p.name for p in written) == committed, (
        "docs/images/ does not hold exactly the pictures docs/make_pictures.py makes: "
        "run `python docs/make_pictures.py` and commit docs/images/"
    )
    stale = {}
    for path in written:
        shown = svg_picture.Picture(path.read_text())
        assert sum(len(axes.curves) for axes in shown.axes) >= 1, f"{path.name} draws no curve"
        found = svg_picture.differences(
            path.read_text(), (IMAGES / path.name).read_text(), _tolerance(make_pictures, path.stem)
        )
        if found:
            stale[path.name] = found
    ssr = svg_picture.Picture((IMAGES / "scale-schedule-ratio.svg").read_text())
    assert [len(axes.curves) for axes in ssr.axes] == [3, 3]  # 3 ssrs x 2 panels
    assert not stale, f"stale pictures {stale}: run `python docs/make_pictures.py` and commit docs/images/"


def _scaled(read_rows, columns: tuple[str, ...], factor):
    """``read_rows`` with the value of ``columns`` in row ``i`` multiplied by ``factor(i)``."""

    def read(path):
        rows = read_rows(path)
        for index, row in enumerate(rows):
            for column in columns:
                if row.get(column, "") != "":
                    row[column] = repr(float(row[column]) * factor(index))
        return rows

    return read


def test_a_picture_from_training_tolerates_another_cpus_floats(make_pictures, svg_picture, trained_sweep, monkeypatch):
    """The trained floats moved in their 5th decimal (what another CPU gives) draw a picture whose bytes differ
    but which shows the same; a different schedule (peak lr 0.08, not 0.1) is a stale picture."""
    from trainer.sweep import folders

    committed = (IMAGES / "budget-sweep.svg").read_text()
    points, rows = trained_sweep
    read_rows = folders.read_rows
    losses = _scaled(read_rows, ("train/loss", "eval/loss"), lambda index: 1 + 3e-5 * (-1) ** index)
    monkeypatch.setattr(folders, "read_rows", losses)
    summary = [
        {**row, **{key: row[key] * (1 - 3e-5) for key in ("final_eval_loss", "final_train_loss") if row[key]}}
        for row in rows
    ]
    drawn = make_pictures.svg(lambda: make_pictures.sweep_picture(points, summary))
    assert drawn != committed  # compared byte for byte, this machine's picture would be stale
    assert svg_picture.differences(drawn, committed, TRAINED_TOLERANCE) == []

    monkeypatch.setattr(folders, "read_rows", _scaled(read_rows, ("lr/group0",), lambda index: 0.8))
    drawn = make_pictures.svg(lambda: make_pictures.sweep_picture(points, rows))
    found = svg_picture.differences(drawn, committed, TRAINED_TOLERANCE)
    assert found and all(difference.startswith("axes_2: ") for difference in found), found


def test_a_closed_form_picture_fails_on_any_visible_change(make_pictures, svg_picture, monkeypatch) -> None:
    """A picture of a schedule tolerates the last bits of its floats, not a changed argument."""
    import schedulers.tools.plotting as plotting

    committed = (IMAGES / "StepScheduler.svg").read_text()
    ((template, *values),) = [entry for entry in make_pictures.SCHEDULES if entry[0].startswith("StepScheduler(")]
    evaluate = plotting._evaluate
    monkeypatch.setattr(plotting, "_evaluate", lambda *args: evaluate(*args) * (1 + 1e-12))
    drawn = make_pictures.svg(lambda: make_pictures._schedule_picture(template, tuple(values)))
    assert svg_picture.differences(drawn, committed, CLOSED_FORM_TOLERANCE) == []
    monkeypatch.undo()
    parse = make_pictures.parse_schedule  # the title stays; the schedule drawn under it decays by 0.55
    monkeypatch.setattr(make_pictures, "parse_schedule", lambda text: parse(text.replace("gamma=0.5", "gamma=0.55")))
    drawn = make_pictures.svg(lambda: make_pictures._schedule_picture(template, tuple(values)))
    found = svg_picture.differences(drawn, committed, CLOSED_FORM_TOLERANCE)
    assert any("cadence-curve-0" in difference for difference in found), found


def test_every_picture_is_shown_somewhere() -> None:
    pages = "".join(page.read_text() for page in DOCS.rglob("*.md"))
    unused = [p.name for p in IMAGES.glob("*.svg") if f"images/{p.name}" not in pages]
    assert not unused, f"pictures no page shows: {unused}"
