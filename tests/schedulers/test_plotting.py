"""Seeing a schedule before training: figures, exact tables, text plots and ``python -m schedulers plot``."""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
import subprocess
import sys
import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.image  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from schedulers import (  # noqa: E402
    LinearScheduler,
    MultiStepScheduler,
    MultiStepWithWarmupScheduler,
    StepScheduler,
    as_schedule,
    evaluate_run,
    run_timeline,
)
from schedulers.tools.cli import _write_atomically, main  # noqa: E402
from schedulers.tools.expressions import parse_schedule  # noqa: E402
from schedulers.tools.plotting import _keep, plot_schedules, schedule_table, terminal_plot  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
COSINE = "CosineAnnealingWithWarmupScheduler(t_warmup='0.1dur', alpha_f=0.1)"
STEPS = "MultiStepWithWarmupScheduler('1ep', ['4ep', '7ep'], gamma=0.5)"


def cli(*args: str, wait: bool = True):
    """``python -m schedulers ARGS`` in a fresh interpreter with the repo on PYTHONPATH."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "MPLBACKEND": "Agg", "NO_COLOR": "1"}
    env.pop("CADENCE_TRACEBACK", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "schedulers", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=REPO,
    )
    return finish(process) if wait else process


def finish(process) -> subprocess.CompletedProcess:
    stdout, stderr = process.communicate(timeout=600)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def read_csv(path: Path) -> tuple[list[str], list[list[str]]]:
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


# -- figures -------------------------------------------------------------------------------------------------


def test_one_line_per_schedule_and_ssr_with_each_run_as_long_as_the_trainer_makes_it():
    schedules = [("cosine", parse_schedule(COSINE)), ("steps", parse_schedule(STEPS))]
    figure = plot_schedules(schedules, "10ep", dataloader_len=100, ssrs=[0.5, 1.0, 2.0])
    assert isinstance(figure, Figure)
    lines = figure.axes[0].lines
    assert len(lines) == 6
    assert [line.get_label() for line in lines] == [
        f"{name} (ssr={ssr})" for ssr in ("0.5", "1", "2") for name in ("cosine", "steps")
    ]
    for line, ssr in zip(lines, (0.5, 0.5, 1.0, 1.0, 2.0, 2.0), strict=True):
        x = line.get_xdata()
        assert x[0] == 0 and x[-1] == 1000 * ssr  # the run's length in batches: 10ep × 100 × ssr
        assert len(x) == 1000 * ssr + 1  # every batch (under max_points), plus the end of the last one


def test_lines_carry_exactly_the_evaluated_values():
    schedule = parse_schedule(STEPS)
    figure = plot_schedules([schedule], "10ep", dataloader_len=20, ssrs=0.75)
    (line,) = figure.axes[0].lines
    expected = evaluate_run(schedule, "10ep", 20, ssr=0.75)
    assert line.get_ydata()[:-1].tolist() == expected.tolist()
    assert line.get_label() == repr(schedule)  # an unlabelled schedule is labelled by its repr
    assert line.get_drawstyle() == "steps-post"


def test_base_value_scales_the_curve_and_names_the_axis():
    schedule = parse_schedule(COSINE)
    figure = plot_schedules([("cosine", schedule)], "200ba", base_value=3e-4)
    ys = figure.axes[0].lines[0].get_ydata()[:-1]
    assert ys.tolist() == (evaluate_run(schedule, "200ba") * 3e-4).tolist()
    assert "0.0003" in figure.axes[0].get_ylabel()


@pytest.mark.parametrize(
    ("unit", "expected_end", "label"),
    [
        ("ba", 400.0, "batches (ba)"),
        ("ep", 4.0, "epochs (ep)"),
        ("sp", 400.0 * 32, "samples (sp)"),
        ("tok", 400.0 * 1000, "tokens (tok)"),
        ("dur", 1.0, "fraction of the run (dur)"),
    ],
)
def test_x_axis_in_every_unit(unit, expected_end, label):
    schedule = parse_schedule(COSINE)
    figure = plot_schedules(
        [schedule], "4ep", dataloader_len=100, samples_per_batch=32, tokens_per_batch=1000, x_unit=unit
    )
    ax = figure.axes[0]
    x = ax.lines[0].get_xdata()
    timeline = run_timeline("4ep", 100, samples_per_batch=32, tokens_per_batch=1000)
    before = {
        "ba": timeline.counts("ba"),
        "ep": timeline.counts("ba") / 100,  # fractional epochs
        "sp": timeline.counts("sp"),
        "tok": timeline.counts("tok"),
        "dur": timeline.fraction(),
    }[unit]
    assert x[:-1].tolist() == before.tolist()
    assert x[-1] == expected_end and ax.get_xlim() == (0.0, expected_end)
    assert ax.get_xlabel() == label


def test_x_axis_in_tokens_with_a_count_per_batch():
    tokens = torch.tensor([100, 300, 200, 400, 500, 600])
    figure = plot_schedules([LinearScheduler()], "1000tok", tokens_per_batch=tokens, x_unit="tok")
    x = figure.axes[0].lines[0].get_xdata()
    assert x.tolist() == [0, 100, 400, 600, 1000]  # the run ends after the 4th batch (1000 tokens reached)
    dur = plot_schedules([LinearScheduler()], "1000tok", tokens_per_batch=tokens, x_unit="dur")
    assert dur.axes[0].lines[0].get_xdata().tolist() == [0, 0.1, 0.4, 0.6, 1.0]


def test_several_ssrs_in_dur_all_span_the_run():
    figure = plot_schedules([COSINE], "10ep", dataloader_len=50, ssrs=[0.25, 1.0, 4.0], x_unit="dur")
    assert [line.get_xdata()[-1] for line in figure.axes[0].lines] == [1.0, 1.0, 1.0]
    assert [len(line.get_xdata()) for line in figure.axes[0].lines] == [126, 501, 2001]


def test_draws_into_a_given_axes():
    figure = Figure()
    ax = figure.add_subplot()
    assert plot_schedules([COSINE, STEPS], "10ep", dataloader_len=10, ax=ax, title="mine") is figure
    assert len(ax.lines) == 2 and ax.get_title() == "mine"


def test_decimation_bounds_points_and_keeps_every_jump():
    schedule = MultiStepScheduler(["300000ba", "600001ba", "999999ba"], gamma=0.5)
    figure = plot_schedules([schedule], "1000000ba", max_points=500)
    x, y = figure.axes[0].lines[0].get_xdata(), figure.axes[0].lines[0].get_ydata()
    assert len(x) <= 500
    for step in (300000, 600001, 999999):  # both sides of each jump are drawn, one batch apart
        assert {step - 1, step} <= set(x.tolist())
    assert set(y.tolist()) == {1.0, 0.5, 0.25, 0.125}


def test_decimation_keeps_spikes_and_order():
    values = torch.zeros(100_000, dtype=torch.float64)
    values[12_345] = 1.0
    values[77_777] = -1.0
    kept = _keep(values, 200)
    assert len(kept) <= 200 and kept.tolist() == sorted(set(kept.tolist()))
    assert {12_344, 12_345, 12_346, 77_776, 77_777, 77_778} <= set(kept.tolist())
    assert kept[0] == 0 and kept[-1] == 99_999
    assert _keep(values[:150], 200).tolist() == list(range(150))


def test_plot_errors_name_what_is_missing():
    with pytest.raises(ValueError, match="an x axis in ep needs dataloader_len"):
        plot_schedules([COSINE], "100ba", x_unit="ep")
    with pytest.raises(ValueError, match="an x axis in sp needs samples_per_batch"):
        plot_schedules([COSINE], "100ba", x_unit="sp")
    with pytest.raises(ValueError, match="x_unit='min' must be one of"):
        plot_schedules([COSINE], "100ba", x_unit="min")
    with pytest.raises(ValueError, match=r"^max_points=3 must be an integer >= 16, or None for every batch$"):
        plot_schedules([COSINE], "100ba", max_points=3)
    with pytest.raises(ValueError, match=r"^StepScheduler\('1ep'\): step_size=1ep needs dataloader_len"):
        plot_schedules(["StepScheduler('1ep')"], "100ba")
    with pytest.raises(ValueError, match="ssr=0 must be a finite number > 0"):
        plot_schedules([COSINE], "100ba", ssrs=[1, 0])
    with pytest.raises(TypeError, match="is not a Cadence schedule"):
        plot_schedules([lambda state: 1.0], "100ba")
    with pytest.raises(ValueError, match="cannot apply ssr=2"):
        plot_schedules([as_schedule(lambda state: 1.0)], "100ba", ssrs=[2])


def test_missing_matplotlib_is_a_clear_error_naming_the_plot_extra(monkeypatch, capsys, tmp_path):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    with pytest.raises(ImportError, match=r"pip install 'cadence\[plot\]'"):
        plot_schedules([COSINE], "100ba")
    # the table and the text plot need no matplotlib
    assert len(schedule_table([COSINE], "100ba")) == 100 and "lr multiplier" in terminal_plot([COSINE], "100ba")
    assert main(["plot", COSINE, "--max-duration", "100ba", "-o", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "cadence[plot]" in err and err.count("\n") == 1 and not (tmp_path / "x.png").exists()


# -- the exact table -----------------------------------------------------------------------------------------


def test_table_rows_are_exact_and_cover_the_longest_run():
    cosine, steps = parse_schedule(COSINE), parse_schedule(STEPS)
    table = schedule_table(
        [("cosine", cosine), ("steps", steps)], "3ep", dataloader_len=7, samples_per_batch=4, ssrs=[1.0, 0.5]
    )
    assert table.header == [
        "batch",
        "epoch",
        "sample",
        "token",
        "dur (ssr=1)",
        "dur (ssr=0.5)",
        "cosine (ssr=1)",
        "steps (ssr=1)",
        "cosine (ssr=0.5)",
        "steps (ssr=0.5)",
    ]
    rows = list(table)
    assert len(rows) == len(table) == 21
    assert [r[:4] for r in rows[:9]] == [(k, k // 7, 4 * k, None) for k in range(9)]
    assert [r[6] for r in rows] == evaluate_run(cosine, "3ep", 7).tolist()
    half = evaluate_run(steps, "3ep", 7, ssr=0.5).tolist()
    assert len(half) == 10 and [r[9] for r in rows] == half + [None] * 11
    assert [r[5] for r in rows[:10]] == [k / 10 for k in range(10)] and rows[10][5] is None
    assert table.column("steps (ssr=1)") == evaluate_run(steps, "3ep", 7).tolist()


def test_a_single_labelled_recorded_curve_is_accepted_like_a_single_labelled_schedule():
    from schedulers.tools.plotting import RecordedValues

    values = [1.0 - k / 10 for k in range(10)]
    recorded = RecordedValues({1.0: torch.tensor(values, dtype=torch.float64)})
    table = schedule_table(("lr", recorded), "10ba")
    assert table.header[-1] == "lr" and table.column("lr") == values
    assert schedule_table([("lr", recorded)], "10ba").column("lr") == values


def test_csv_from_the_command_line_equals_evaluate_run(tmp_path):
    out = tmp_path / "lr.csv"
    result = cli(
        "plot",
        COSINE,
        STEPS,
        "--max-duration",
        "10ep",
        "--dataloader-len",
        "50",
        "--samples-per-batch",
        "8",
        "--tokens-per-batch",
        "1000",
        "--ssr",
        "0.5",
        "--ssr",
        "1",
        "--csv",
        str(out),
    )
    assert result.returncode == 0, result.stderr
    header, rows = read_csv(out)
    assert header[:4] == ["batch", "epoch", "sample", "token"]
    assert header[4:6] == ["dur (ssr=0.5)", "dur (ssr=1)"]
    assert header[6:] == [f"{e} (ssr={s})" for s in ("0.5", "1") for e in (COSINE, STEPS)]  # quoted labels
    assert len(rows) == 500
    for column, (expression, ssr) in enumerate([(e, s) for s in (0.5, 1.0) for e in (COSINE, STEPS)], start=6):
        expected = evaluate_run(parse_schedule(expression), "10ep", 50, ssr=ssr).tolist()
        cells = [row[column] for row in rows]
        assert [float(c) for c in cells[: len(expected)]] == expected  # exactly, not approximately
        assert all(c == "" for c in cells[len(expected) :])
    assert [int(row[0]) for row in rows] == list(range(500))
    assert [int(row[1]) for row in rows] == [k // 50 for k in range(500)]
    assert [int(row[2]) for row in rows] == [8 * k for k in range(500)]
    assert [int(row[3]) for row in rows] == [1000 * k for k in range(500)]
    assert [float(row[5]) for row in rows] == (torch.arange(500, dtype=torch.float64) / 500).tolist()
    assert "wrote" in result.stdout and not list(tmp_path.glob(".*tmp"))


def test_csv_with_base_lr_is_base_times_alpha(tmp_path):
    out = tmp_path / "lr.csv"
    assert cli("plot", COSINE, "--max-duration", "300ba", "--base-lr", "3e-4", "--csv", str(out)).returncode == 0
    header, rows = read_csv(out)
    assert header == ["batch", "epoch", "sample", "token", "dur", COSINE]
    expected = (evaluate_run(parse_schedule(COSINE), "300ba") * 3e-4).tolist()
    assert [float(row[5]) for row in rows] == expected
    assert all(row[1] == row[2] == row[3] == "" for row in rows)  # not counted: empty, not 0


def test_csv_to_stdout(capsys):
    assert main(["plot", "StepScheduler('2ba', 0.5)", "--max-duration", "4ba", "--csv", "-"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "batch,epoch,sample,token,dur,\"StepScheduler('2ba', 0.5)\"",  # a label with a comma is quoted
        "0,,,,0.0,1.0",
        "1,,,,0.25,1.0",
        "2,,,,0.5,0.5",
        "3,,,,0.75,0.5",
    ]


def test_write_csv_to_a_file_object():
    buffer = io.StringIO()
    schedule_table([("a,b", StepScheduler("2ba", 0.5))], "4ba").write_csv(buffer)
    assert buffer.getvalue() == (
        'batch,epoch,sample,token,dur,"a,b"\n0,,,,0.0,1.0\n1,,,,0.25,1.0\n2,,,,0.5,0.5\n3,,,,0.75,0.5\n'
    )


def test_write_csv_to_a_path_is_whole_or_leaves_the_file_there(tmp_path, monkeypatch):
    table = schedule_table([("step", StepScheduler("2ba", 0.5))], "4ba")
    path = tmp_path / "lr.csv"
    path.write_text("the user's earlier table\n")

    def interrupted(self, j, begin, stop):
        raise KeyboardInterrupt  # ctrl-c after the header is written

    with monkeypatch.context() as patch:
        patch.setattr(type(table), "_cells", interrupted)
        with pytest.raises(KeyboardInterrupt):
            table.write_csv(path)
    assert path.read_text() == "the user's earlier table\n" and os.listdir(tmp_path) == ["lr.csv"]
    table.write_csv(str(path))
    assert path.read_text().splitlines()[-1] == "3,,,,0.75,0.5"


# -- text ------------------------------------------------------------------------------------------------------


def test_terminal_plot_has_axes_labels_and_a_legend():
    text = terminal_plot([("cosine", COSINE)], "10ep", dataloader_len=100, x_unit="ep", width=60, height=12)
    lines = text.splitlines()
    assert lines[0] == "lr multiplier α"
    plot_rows = lines[1:13]
    assert plot_rows[0].startswith("1 ┤") and plot_rows[-1].startswith("0 ┤")  # max and min of the data
    assert all(len(row) == len("1 ┤") + 60 for row in plot_rows)
    assert all(set(row[3:]) <= {chr(c) for c in range(0x2800, 0x2900)} for row in plot_rows)  # braille
    assert lines[13] == "  └" + "─" * 60
    assert lines[14].split() == ["0", "10"]  # x from 0 to the end of the run, in epochs
    assert lines[15].strip() == "epochs (ep)"
    assert lines[16] == "  ⣿ cosine"


def test_terminal_plot_min_max_labels_and_base_lr():
    text = terminal_plot([COSINE], "100ba", base_value=0.5, width=30, height=5)
    assert text.splitlines()[0] == "lr = 0.5 × α"
    assert text.splitlines()[1].startswith("0.5 ┤") and text.splitlines()[5].startswith("  0 ┤")


def test_terminal_plot_several_curves_use_markers_and_a_legend():
    text = terminal_plot(
        [("cosine", COSINE), ("steps", STEPS)],
        "10ep",
        dataloader_len=20,
        ssrs=[0.5, 1],
        width=50,
        height=10,
        title="sweep",
    )
    lines = text.splitlines()
    assert lines[0] == "sweep"
    assert lines[-4:] == ["  * cosine (ssr=0.5)", "  o steps (ssr=0.5)", "  + cosine (ssr=1)", "  x steps (ssr=1)"]
    canvas = "".join(line[line.index("┤" if "┤" in line else "│") + 1 :] for line in lines[2:12])
    assert {"*", "o", "+", "x"} <= set(canvas)


def test_terminal_plot_colour_and_braille_styles():
    text = terminal_plot([COSINE, STEPS], "10ep", dataloader_len=20, color=True, width=40, height=6)
    assert "\x1b[34m" in text and "\x1b[31m" in text and "\x1b[0m" in text
    plain = terminal_plot([COSINE, STEPS], "10ep", dataloader_len=20, style="braille", width=40, height=6)
    assert "\x1b[" not in plain and "⣿" in plain
    with pytest.raises(ValueError, match=r"^width=3 must be an integer >= 8 \(characters\)$"):
        terminal_plot([COSINE], "10ba", width=3)


def test_terminal_plot_a_constant_and_a_short_run():
    text = terminal_plot(["ConstantScheduler()"], "3ba", width=12, height=3)
    rows = text.splitlines()[1:4]
    assert rows[0].startswith("1.5 ┤") and rows[2].startswith("0.5 ┤")
    assert set(rows[1][5:]) == {"⠤"}  # the constant 1 across the whole run


# -- the command line -----------------------------------------------------------------------------------------


def test_png_is_written_atomically_and_reads_back(tmp_path):
    out = tmp_path / "sweep.png"
    result = cli(
        "plot",
        COSINE,
        STEPS,
        "--max-duration",
        "10ep",
        "--dataloader-len",
        "100",
        "--ssr",
        "0.5,1,2",
        "-o",
        str(out),
        "--width",
        "640",
        "--height",
        "360",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"wrote {out} (6 curves)" and result.stderr == ""
    image = matplotlib.image.imread(out)
    assert image.shape[:2] == (360, 640) and image.shape[2] in (3, 4)
    assert image.dtype.kind == "f" and 0.0 <= image.min() < image.max() <= 1.0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sweep.png"]  # no temporary file left behind
    assert oct(out.stat().st_mode & 0o777) == oct(0o666 & ~_current_umask())


def _current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_svg_has_one_path_group_per_curve(tmp_path):
    out = tmp_path / "sweep.svg"
    result = cli(
        "plot",
        COSINE,
        STEPS,
        "--max-duration",
        "10ep",
        "--dataloader-len",
        "100",
        "--ssr",
        "0.5",
        "--ssr",
        "1",
        "--ssr",
        "2",
        "-o",
        str(out),
        "--x",
        "dur",
    )
    assert result.returncode == 0, result.stderr
    svg = out.read_text()
    groups = re.findall(r'<g id="cadence-curve-(\d+)">\s*<path', svg)
    assert sorted(map(int, groups)) == list(range(6))


def test_image_and_csv_together_and_no_text_plot(tmp_path):
    result = cli(
        "plot", COSINE, "--max-duration", "100ba", "-o", str(tmp_path / "a.svg"), "--csv", str(tmp_path / "a.csv")
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"wrote {tmp_path / 'a.svg'} (1 curve)",
        f"wrote {tmp_path / 'a.csv'} (100 rows)",
    ]


def test_without_outputs_the_text_plot_is_printed():
    result = cli(
        "plot",
        COSINE,
        STEPS,
        "--max-duration",
        "10ep",
        "--dataloader-len",
        "50",
        "--width",
        "70",
        "--height",
        "12",
        "--ssr",
        "1,0.5",
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "lr multiplier α"
    assert "epochs (ep)" in result.stdout  # --x defaults to the unit of --max-duration
    assert lines[-4:] == [
        f"  * {COSINE} (ssr=1)",
        f"  o {STEPS} (ssr=1)",
        f"  + {COSINE} (ssr=0.5)",
        f"  x {STEPS} (ssr=0.5)",
    ]
    assert "\x1b[" not in result.stdout  # not a terminal: no colour


def test_help_documents_every_option_with_an_example():
    plot_help, top_help = cli("plot", "--help", wait=False), cli("--help", wait=False)  # in parallel
    result = finish(plot_help)
    assert result.returncode == 0
    for option in (
        "--max-duration",
        "--dataloader-len",
        "--samples-per-batch",
        "--tokens-per-batch",
        "--ssr",
        "--x",
        "--base-lr",
        "-o",
        "--csv",
        "--width",
        "--height",
        "--style",
        "--color",
        "--max-points",
        "--title",
    ):
        assert option in result.stdout
    assert "examples:" in result.stdout and "python -m schedulers plot" in result.stdout
    assert "CosineAnnealingWithWarmupScheduler" in result.stdout  # the names an expression may call
    top = finish(top_help)
    assert top.returncode == 0 and "plot" in top.stdout


ERRORS = [
    # (arguments, a part of the one-line message)
    ([], "give a command: plot"),
    (["plot"], "the following arguments are required"),
    (["plot", COSINE], "--max-duration"),
    (["plot", "cosine(", "--max-duration", "10ba"], "not a Python expression"),
    (["plot", "__import__('os').system('echo pwned')", "--max-duration", "10ba"], "attribute access"),
    (["plot", "cosine(alpha_f=x)", "--max-duration", "10ba"], "the name 'x' is not allowed"),
    (["plot", "CosineAnealingScheduler()", "--max-duration", "10ba"], "did you mean CosineAnnealingScheduler"),
    (["plot", "CosineDecayLR(1.0, 0.0, 10)", "--max-duration", "10ba"], "Cerebras scheduler"),
    (["plot", "StepScheduler('10ba', gamma=-1)", "--max-duration", "10ba"], "gamma=-1 must be >= 0"),
    (["plot", "StepScheduler('10ba', gama=1)", "--max-duration", "10ba"], "unexpected keyword argument 'gama'"),
    (["plot", COSINE, "--max-duration", "10xx"], "unknown unit 'xx'"),
    (["plot", COSINE, "--max-duration", "10bas"], "unknown unit 'bas' (did you mean '10ba'?)"),
    (["plot", "cosine_with_warmup('3epochs')", "--max-duration", "9ep"], "unknown unit 'epochs' (did you mean '3ep'?)"),
    (["plot", "cosine_with_warmup('0.3durr')", "--max-duration", "10ba"], "t_warmup='0.3durr' is not a time: unknown"),
    (["plot", "cosine_with_warmup('0.3durr')", "--max-duration", "10ba"], "(did you mean '0.3dur'?); expected"),
    (["plot", COSINE, "--max-duration", "0.5dur"], "is a fraction of itself"),
    (["plot", COSINE, "--max-duration=-5ba"], "must be positive"),
    (["plot", COSINE, "--max-duration", "0ba"], "must be positive"),
    (["plot", COSINE, "--max-duration", "10ep"], "(give --dataloader-len)"),
    (["plot", "StepScheduler('1ep')", "--max-duration", "10ba"], "(give --dataloader-len)"),
    (["plot", COSINE, "--max-duration", "10sp"], "(give --samples-per-batch)"),
    (["plot", COSINE, "--max-duration", "10ba", "--x", "tok"], "(give --tokens-per-batch)"),
    (["plot", COSINE, "--max-duration", "10ba", "--x", "hours"], "--x='hours' is not a time unit"),
    (["plot", COSINE, "--max-duration", "10ba", "--x", "epochs"], "(did you mean 'ep'?)"),
    (["plot", COSINE, "--max-duration", "10ba", "--dataloader-len", "0"], "--dataloader-len='0' must be an integer"),
    (["plot", COSINE, "--max-duration", "10ba", "--ssr", "0"], "--ssr='0' must be a finite number > 0"),
    (["plot", COSINE, "--max-duration", "10ba", "--ssr", "nan"], "--ssr='nan'"),
    (["plot", COSINE, "--max-duration", "10ba", "--ssr", "0.01"], "use a larger ratio"),
    (["plot", COSINE, "--max-duration", "10ba", "--base-lr", "inf"], "--base-lr='inf' must be a finite number"),
    (["plot", "cosine_with_warmup('1ba', t_max='5ba')", "--max-duration", "10ba"], "t_max=5ba resolves to 5ba"),
    (["plot", COSINE, "--max-duration", "10ba", "-o", "/nonexistent-dir/x.png"], "cannot write"),
    (["plot", COSINE, "--max-duration", "10ba", "-o", "plot.unknown"], "cannot tell the image format"),
    (["plot", COSINE, "--max-duration", "10ba", "--csv", "/"], "it is a directory"),
    (["plot", COSINE, "--max-duration", "10ba", "--bogus"], "unrecognized arguments: --bogus"),
    (["plot", COSINE, "--max-duration", "10ba", "--style", "dots"], "invalid choice: 'dots'"),
]


def in_process(args: list[str]) -> subprocess.CompletedProcess:
    """``python -m schedulers ARGS`` run by the function it calls, ``main(argv)``, in this interpreter."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as done:  # what the interpreter would turn into the exit status
            status = done.code if isinstance(done.code, int) else 1
    return subprocess.CompletedProcess(args, status, out.getvalue(), err.getvalue())


def one_line_error_failures(results) -> list:
    """The (arguments, status, stderr, stdout) of each result that is not one error line and exit status 2."""
    failures = []
    for (args, part), result in results:
        lines = result.stderr.splitlines()
        if not (
            result.returncode == 2
            and len(lines) == 1
            and part in lines[0]
            and "Traceback" not in result.stderr
            and lines[0].startswith("python -m schedulers: error: ")
            and result.stdout == ""
        ):
            failures.append((args, result.returncode, result.stderr, result.stdout[:200]))
    return failures


def test_every_error_is_one_line_on_stderr_with_exit_status_2(tmp_path, monkeypatch):
    # in process (a subprocess per case imports torch each time); the environment `cli` gives its subprocess
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("CADENCE_TRACEBACK", raising=False)
    monkeypatch.chdir(tmp_path)  # a relative -o lands here, not in the repo
    filters, showwarning = list(warnings.filters), warnings.showwarning
    figures = plt.get_fignums()
    results = [(case, in_process(case[0])) for case in ERRORS]
    assert one_line_error_failures(results) == []
    # nothing left behind for later tests: warning filters and display, pyplot figures, files
    assert warnings.filters == filters and warnings.showwarning is showwarning
    assert plt.get_fignums() == figures and list(tmp_path.iterdir()) == []


def test_python_m_schedulers_reports_an_error_as_one_line_and_exit_status_2():
    # the `python -m schedulers` door itself: an argparse error, an expression error, a value error
    cases = [ERRORS[1], ERRORS[5], ERRORS[10]]
    processes = [(case, cli(*case[0], wait=False)) for case in cases]  # in parallel: each imports torch
    assert one_line_error_failures([(case, finish(process)) for case, process in processes]) == []


def test_a_failed_run_leaves_an_existing_output_untouched(tmp_path):
    out = tmp_path / "keep.png"
    out.write_bytes(b"previous")
    result = in_process(["plot", "cosine(alpha_f=x)", "--max-duration", "10ba", "-o", str(out)])
    assert result.returncode == 2 and out.read_bytes() == b"previous"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.png"]  # no temporary file left beside it


def test_atomic_write_never_leaves_half_a_file(tmp_path):
    out = tmp_path / "data.csv"
    out.write_text("old")

    def fail_midway(f):
        f.write("half")
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError, match="disk on fire"):
        _write_atomically(str(out), fail_midway, binary=False)
    assert out.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["data.csv"]
    _write_atomically(str(out), lambda f: f.write("new"), binary=False)
    assert out.read_text() == "new" and [p.name for p in tmp_path.iterdir()] == ["data.csv"]


def test_warnings_are_one_line(capsys):
    assert main(["plot", "cosine_with_warmup('0.01dur')", "--max-duration", "10ba", "--width", "20"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("python -m schedulers: warning: CosineAnnealingWithWarmupScheduler: t_warmup=0.01dur")
    assert err.count("\n") == 1


# -- a million batches ----------------------------------------------------------------------------------------


def test_a_million_batch_plot_is_quick(tmp_path):
    schedule = MultiStepWithWarmupScheduler("0.01dur", ["0.3dur", "0.6dur"], gamma=0.5)
    start = time.perf_counter()
    figure = plot_schedules([("steps", schedule), ("cosine", COSINE)], "1000000ba", ssrs=[0.5, 1.0])
    figure.savefig(tmp_path / "million.png")
    in_process = time.perf_counter() - start
    assert all(len(line.get_xdata()) <= 4000 for line in figure.axes[0].lines)

    start = time.perf_counter()
    result = cli("plot", COSINE, "--max-duration", "1000000ba", "-o", str(tmp_path / "cli.png"))
    command = time.perf_counter() - start
    assert result.returncode == 0, result.stderr

    start = time.perf_counter()
    text = terminal_plot([COSINE], "1000000ba")
    text_seconds = time.perf_counter() - start
    assert "1000000" in text.splitlines()[-3]  # the x axis ends at the run's end

    start = time.perf_counter()
    buffer = io.StringIO()
    schedule_table([COSINE], "1000000ba").write_csv(buffer)
    csv_seconds = time.perf_counter() - start
    assert buffer.getvalue().count("\n") == 1_000_001
    print(
        f"\n1,000,000 batches: plot_schedules (2 schedules x 2 ssrs) + PNG {in_process:.2f}s in process; "
        f"'python -m schedulers plot ... -o' {command:.2f}s including interpreter start and imports; "
        f"terminal_plot {text_seconds:.2f}s; exact CSV {csv_seconds:.2f}s"
    )


@pytest.mark.parametrize(
    ("flag", "text", "problem"),
    [
        ("--width", "2.5", "must be an integer >= 1"),
        ("--max-points", "3", "must be an integer >= 16"),
        ("--dataloader-len", "0", "must be an integer >= 1"),
        ("--base-lr", "nan", "must be a finite number"),
    ],
)
def test_a_bad_flag_gets_the_words_of_the_one_check(flag, text, problem):
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        assert main(["plot", COSINE, "--max-duration", "10ba", flag, text]) == 2
    assert f"argument {flag}: {flag}={text!r} {problem} (see " in stderr.getvalue()


def test_counts_on_the_command_line_may_be_written_as_python_reads_them():
    with contextlib.redirect_stdout(io.StringIO()) as stdout:
        assert main(["plot", COSINE, "--max-duration", "10ep", "--dataloader-len", "1_000", "--width", "2e1"]) == 0
    assert "epochs (ep)" in stdout.getvalue()
