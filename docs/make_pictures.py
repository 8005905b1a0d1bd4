"""Draw the pictures of docs/schedules.md from the code: one per schedule class, and the ssr overlay; and the
picture of docs/sweeps.md, from a real (small) budget sweep of examples/sweep_classifier.py; and the picture of
docs/plateau.md, from a short real run of examples/plateau_classifier.py.

    python docs/make_pictures.py            # rewrites docs/images/*.svg
    python docs/make_pictures.py OUT_DIR    # writes them elsewhere (the docs test compares the two)

Every picture is drawn by :func:`schedulers.tools.plotting.plot_schedules` from the schedule expressions listed
below (each is also the picture's title), so a picture can only show what the code computes; there is one
per schedule class of ``schedulers.families.composer`` and ``schedulers.families.extended`` (checked when drawing).

The SVGs are deterministic (a fixed ``svg.hashsalt``, no date, text as ``<text>``): regenerating them with
the same matplotlib on the same machine gives the same bytes. ``tests/docs/test_sphinx_build.py`` redraws
them and compares what they show (texts, view limits, curves in data coordinates): a closed form to 1e-4
of each axis, a picture drawn from training (:data:`FROM_TRAINING`, whose floats differ in the last
decimals from one CPU to another) to 1% of it. Each schedule run is 10 epochs of 50 batches.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the packages, when Cadence is not installed

import functools  # noqa: E402
import io  # noqa: E402
import re  # noqa: E402
import tempfile  # noqa: E402
from collections.abc import Callable  # noqa: E402

import matplotlib  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import schedulers.families.composer  # noqa: E402
import schedulers.families.extended  # noqa: E402
from schedulers.tools.expressions import parse_schedule  # noqa: E402
from schedulers.tools.plotting import plot_schedules  # noqa: E402

IMAGES = HERE / "images"
RUN = {"max_duration": "10ep", "dataloader_len": 50}  # 500 batches: every batch is drawn
SIZE = (6.0, 3.0)
STYLE = {
    "svg.hashsalt": "cadence-docs",  # ids of clip paths etc. do not change between runs
    "svg.fonttype": "none",  # text stays text: small files, no glyph outlines that vary with the font version
    "font.size": 9,
    "axes.titlesize": 9,
    "legend.fontsize": 8,
}

# One picture per schedule class: the expression drawn is also the picture's title, so the title cannot
# disagree with the curve. An expression with ``{}`` is drawn once per value, one curve each, labelled with
# the argument that varies.
SCHEDULES = [
    ('StepScheduler("2ep", gamma=0.5)',),
    ('MultiStepScheduler(["3ep", "6ep", "8ep"], gamma=0.5)',),
    ('ConstantScheduler(alpha=0.5, t_max="0.6dur")',),
    ("LinearScheduler(alpha_i=1.0, alpha_f=0.1)",),
    ('ExponentialScheduler(0.8, decay_period="1ep")',),
    ("CosineAnnealingScheduler(alpha_f=0.1)",),
    ('CosineAnnealingWarmRestartsScheduler("1ep", t_mult={})', "1.0", "2.0"),
    ("PolynomialScheduler(power={}, alpha_f=0.1)", "0.5", "2.0"),
    ('MultiStepWithWarmupScheduler("1ep", ["4ep", "7ep"], gamma=0.5)',),
    ('ConstantWithWarmupScheduler("1ep", alpha=0.8)',),
    ('LinearWithWarmupScheduler("1ep", alpha_f=0.1)',),
    ('CosineAnnealingWithWarmupScheduler("1ep", alpha_f=0.1)',),
    ('PolynomialWithWarmupScheduler("1ep", power=2.0, alpha_f=0.1)',),
    ('WarmupStableDecayScheduler("1ep", t_decay="0.3dur", decay_shape={})', '"linear"', '"cosine"', '"1-sqrt"'),
    ('InverseSquareRootScheduler("1ep")',),
    ("OneCycleScheduler(three_phase={})", "False", "True"),
    ('CyclicScheduler("1ep", base_ratio=0.1, mode={})', '"triangular"', '"triangular2"'),
]

# The overlay of scale schedule ratios: one panel per scale_warmup.
SSR_SCHEDULE = 'CosineAnnealingWithWarmupScheduler("2ep", alpha_f=0.1, scale_warmup={})'
SSRS = (0.5, 1.0, 1.5)


def _class_name(expression: str) -> str:
    return expression.split("(", 1)[0]


def _curves(template: str, values: tuple[str, ...]) -> tuple[str, list]:
    """The title (``...`` for the varying argument) and the ``(label, schedule)`` pairs of one picture."""
    if not values:
        return template, [(template, parse_schedule(template))]
    argument = re.search(r"(\w+=)?\{\}", template).group(1) or ""
    title = template.replace("{}", "...")
    return title, [(f"{argument}{value}", parse_schedule(template.format(value))) for value in values]


def _check_one_per_class() -> None:
    classes = set(schedulers.families.composer.__all__) | set(schedulers.families.extended.__all__)
    drawn = [_class_name(template) for template, *_ in SCHEDULES]
    if sorted(drawn) != sorted(classes):
        raise AssertionError(
            f"one picture per schedule class: missing {sorted(classes - set(drawn))}, "
            f"repeated or unknown {sorted(n for n in drawn if drawn.count(n) > 1 or n not in classes)}"
        )


def _schedule_picture(template: str, values: tuple[str, ...]) -> Figure:
    title, curves = _curves(template, values)
    figure = Figure(figsize=SIZE, layout="constrained")
    ax = figure.add_subplot()
    plot_schedules(curves, x_unit="ep", title=title, ax=ax, **RUN)
    if len(curves) == 1:
        ax.get_legend().remove()  # the title names the one curve
    return figure


def _ssr_picture() -> Figure:
    """The same schedule at several scale schedule ratios, with and without ``scale_warmup``."""
    figure = Figure(figsize=(9.0, 3.4), layout="constrained")
    figure.suptitle(SSR_SCHEDULE.format("..."), fontsize=9)
    left, right = figure.subplots(1, 2, sharey=True)
    for ax, scale_warmup in ((left, "False"), (right, "True")):
        schedule = parse_schedule(SSR_SCHEDULE.format(scale_warmup))
        plot_schedules(
            [("cosine with warmup", schedule)],
            ssrs=SSRS,
            x_unit="ba",
            ax=ax,
            title=f"scale_warmup={scale_warmup}",
            **RUN,
        )
    right.set_ylabel("")
    return figure


def train_sweep(out: Path) -> tuple[list, list[dict]]:
    """Run the WSD sweep of examples/sweep_classifier.py (150, 300 and 600 batches, branched) into ``out``, on
    one thread; return its points and summary rows, which :func:`sweep_picture` draws."""
    import contextlib
    import io

    import torch

    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import sweep_classifier
    finally:
        sys.path.remove(str(ROOT / "examples"))
    from trainer.sweep import budget_sweep
    from trainer.sweep.plan import budgets_from_durations, plan_points

    threads = torch.get_num_threads()
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            rows = budget_sweep(sweep_classifier.make_trainer, SWEEP_BUDGETS, out=out, branch_from_stable=True)
        finally:
            torch.set_num_threads(threads)
    return plan_points(budgets_from_durations(SWEEP_BUDGETS), Path(out)), rows


def sweep_picture(points: list, rows: list[dict]) -> Figure:
    """The trained sweep, drawn by the code that draws ``cadence sweep``'s ``sweep.png``."""
    from trainer.sweep.picture import draw_sweep
    from trainer.sweep.summary import compute_line

    return draw_sweep(points, rows, Figure(figsize=(9.0, 4.8), layout="constrained"), title=compute_line(rows))


SWEEP_BUDGETS = ["150ba", "300ba", "600ba"]

#: The pictures drawn from training runs: their floats differ in the last decimals from one CPU to another,
#: so the docs test compares what they show within a tolerance; the others are closed forms of the code.
FROM_TRAINING = ("budget-sweep", "plateau-run")


def drawings(sweep: tuple[list, list[dict]] | None = None) -> dict[str, Callable[[], Figure]]:
    """How to draw every picture, by file name (without ``.svg``). ``sweep`` is a sweep already trained by
    :func:`train_sweep` (by default it is trained, in a temporary folder, when its picture is drawn)."""
    _check_one_per_class()
    draw = {
        _class_name(template): functools.partial(_schedule_picture, template, tuple(values))
        for template, *values in SCHEDULES
    }
    draw["scale-schedule-ratio"] = _ssr_picture
    draw["budget-sweep"] = functools.partial(_trained_sweep_picture, sweep)
    draw["plateau-run"] = plateau_picture
    return draw


def plateau_picture() -> Figure:
    """A short real run of examples/plateau_classifier.py (warmup, plateau, early stopping): the eval loss and
    the lr it caused, drawn by the example's own ``draw``."""
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import plateau_classifier
    finally:
        sys.path.remove(str(ROOT / "examples"))
    return plateau_classifier.draw(plateau_classifier.train(), Figure(figsize=(7.0, 4.6), layout="constrained"))


def _trained_sweep_picture(sweep: tuple[list, list[dict]] | None) -> Figure:
    if sweep is not None:
        return sweep_picture(*sweep)
    with tempfile.TemporaryDirectory() as out:
        return sweep_picture(*train_sweep(Path(out)))  # drawn before the folder (its metrics) is removed


def svg(draw: Callable[[], Figure]) -> str:
    """The SVG of the figure ``draw()`` makes, drawn and saved in the pictures' style (which is then restored)."""
    buffer = io.StringIO()
    with matplotlib.rc_context(STYLE):
        draw().savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


def main(out_dir: Path | str = IMAGES, sweep: tuple[list, list[dict]] | None = None) -> list[Path]:
    """Write every picture as ``<name>.svg`` into ``out_dir``; returns the paths written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, draw in drawings(sweep).items():
        path = out / f"{name}.svg"
        path.write_text(svg(draw), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in main(*sys.argv[1:2]):
        print(path)
