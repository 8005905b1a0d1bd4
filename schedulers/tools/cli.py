"""``python -m schedulers plot EXPR [EXPR ...]``: see a schedule before training.

Expressions only (:func:`schedulers.tools.expressions.parse_schedule`); plotting a training config is
``cadence plot``. Without ``-o`` and ``--csv`` the curves are printed as a text plot. Every error is one
line on stderr and exit status 2; files are written to a temporary file, then moved into place.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import textwrap
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from schedulers.core.run import as_max_duration
from schedulers.core.schedule_arguments import count_flag, flag_type, number_argument, number_flag, unit_flag
from schedulers.tools.files import write_atomically
from timeunits import TimeUnit

PROG = "python -m schedulers"

EXAMPLES = """\
examples:
  # a text plot in the terminal
  python -m schedulers plot "CosineAnnealingWithWarmupScheduler(t_warmup='0.05dur', alpha_f=0.1)" \\
      --max-duration 10ep --dataloader-len 500

  # a budget sweep: the same schedule in runs scaled by 0.5, 1 and 2, as an image
  python -m schedulers plot "cosine_with_warmup('0.05dur')" "wsd('0.05dur', t_decay='0.2dur')" \\
      --max-duration 100000ba --ssr 0.5 --ssr 1 --ssr 2 -o sweep.png

  # the exact lr at every batch, in tokens, as CSV
  python -m schedulers plot "linear_with_warmup('1_000_000tok')" --max-duration 100_000_000tok \\
      --tokens-per-batch 65536 --x tok --base-lr 3e-4 --csv lr.csv
"""

EXPRESSIONS = """\
An EXPR is a Python call of a registered schedule with literal arguments only (numbers, strings,
True/False/None, lists/tuples, nested schedule calls), e.g.
  "Sequence([linear(0.0, 1.0), cosine(alpha_f=0.1)], ['0.1dur'])"
Quote each expression for the shell. Names match case-insensitively and include short aliases.
"""


class _UsageError(Exception):
    """A command-line mistake: reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse prints usage + message over two lines; one line is enough
        raise _UsageError(f"{message} (see {self.prog} --help)")


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The ``python -m schedulers`` argument parser (subcommand ``plot``).

    Args:
        prog: the program name its messages show (``cadence`` when ``cadence plot EXPR`` runs it).

    Returns:
        The parser; a usage mistake raises a one-line error instead of exiting.

    >>> args = build_parser().parse_args(["plot", "cosine()", "--max-duration", "10ba", "--ssr", "0.5,1"])
    >>> args.expressions, str(args.max_duration), args.ssr
    (['cosine()'], '10ba', [[0.5, 1.0]])
    """
    from schedulers.tools.expressions import schedule_names

    parser = _Parser(
        prog=prog,
        description="Cadence schedules from the command line.",
        epilog="Run '%(prog)s plot --help' for the plot command.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    names = textwrap.fill(", ".join(schedule_names()), width=100, initial_indent="  ", subsequent_indent="  ")
    plot = commands.add_parser(
        "plot",
        help="plot schedule expressions over a run (text, image or CSV)",
        description=textwrap.fill(
            "Plot one or more schedule expressions over a run of --max-duration: as a text plot in the terminal "
            "(the default), an image (-o) or the exact per-batch values (--csv). With several --ssr values each "
            "run is scaled as the trainer scales it (max_duration × ssr, and every schedule time with it), one "
            "curve per expression and ssr. An error is one line on stderr and exit status 2; files are written "
            "atomically (a temporary file, then a rename).",
            width=100,
        )
        + "\n\n"
        + EXPRESSIONS,
        epilog=f"{EXAMPLES}\nschedule names:\n{names}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    plot.add_argument("expressions", nargs="+", metavar="EXPR", help="a schedule expression (see above)")
    _add_run_arguments(plot)
    _add_view_arguments(plot)
    _add_output_arguments(plot)
    return parser


def _add_run_arguments(plot: argparse.ArgumentParser) -> None:
    """The run: its length, batches per epoch, samples and tokens per batch, scale schedule ratios."""
    run = plot.add_argument_group("the run")
    add_length_arguments(
        run,
        required=True,
        length_help="length of the run: <number><unit> with unit ep, ba, sp or tok (e.g. 10ep, 100000ba, 2e9tok)",
        epoch_help="batches per epoch (needed when the run or a schedule time is in epochs, or for --x ep)",
    )
    run.add_argument(
        "--samples-per-batch",
        type=count_flag("--samples-per-batch", low=1),
        metavar="N",
        help="samples in each batch (needed for times in sp and --x sp)",
    )
    run.add_argument(
        "--tokens-per-batch",
        type=count_flag("--tokens-per-batch", low=1),
        metavar="N",
        help="tokens in each batch (needed for times in tok and --x tok)",
    )
    run.add_argument(
        "--ssr",
        action="append",
        type=_ssrs,
        metavar="RATIO",
        help="scale schedule ratio of a run; repeat it (or give a comma list: 0.5,1,2) to overlay a budget "
        "sweep (default: 1)",
    )


def add_length_arguments(group: Any, *, required: bool, length_help: str, epoch_help: str) -> None:
    """``--max-duration TIME`` and ``--dataloader-len N``, read as this command reads them (``cadence forecast
    --schedule`` adds them too).

    Args:
        group: The parser (or argument group) to add them to.
        required: Whether ``--max-duration`` must be given.
        length_help: The help of ``--max-duration``.
        epoch_help: The help of ``--dataloader-len``.

    >>> parser = argparse.ArgumentParser()
    >>> add_length_arguments(parser, required=False, length_help="", epoch_help="")
    >>> args = parser.parse_args(["--max-duration", "10ep", "--dataloader-len", "5"])
    >>> str(args.max_duration), args.dataloader_len
    ('10ep', 5)
    """
    group.add_argument("--max-duration", required=required, type=max_duration_flag, metavar="TIME", help=length_help)
    group.add_argument("--dataloader-len", type=count_flag("--dataloader-len", low=1), metavar="N", help=epoch_help)


def _add_view_arguments(plot: argparse.ArgumentParser) -> None:
    """The plot: x axis, base lr, title, size, style, colour, points per line."""
    view = plot.add_argument_group("the plot")
    view.add_argument(
        "--x",
        dest="x_unit",
        type=unit_flag("--x"),
        metavar="UNIT",
        help="x axis unit: ba, ep (fractional epochs), sp, tok or dur (each run from 0 to 1); "
        "default: the unit of --max-duration",
    )
    view.add_argument(
        "--base-lr",
        type=number_flag("--base-lr"),
        metavar="LR",
        help="plot the lr, LR × α, instead of the multiplier α",
    )
    view.add_argument("--title", help="title of the plot (default: a description of the run)")
    view.add_argument(
        "--width",
        type=count_flag("--width", low=1),
        metavar="N",
        help="width: characters for the text plot (default: fits the terminal), pixels for -o (default 800)",
    )
    view.add_argument(
        "--height",
        type=count_flag("--height", low=1),
        metavar="N",
        help="height: characters for the text plot (default 16), pixels for -o (default 450)",
    )
    view.add_argument(
        "--style",
        choices=("braille", "ascii"),
        help="text plot: braille dots, or a marker character per curve (default: braille for one curve or "
        "with colour, else ascii)",
    )
    view.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="text plot colours (default: auto, when stdout is a terminal and NO_COLOR is unset)",
    )
    view.add_argument(
        "--max-points",
        type=count_flag("--max-points", low=16),
        default=4000,
        metavar="N",
        help="image: at most N points per line, keeping every jump (default 4000); CSV is always exact",
    )


def _add_output_arguments(plot: argparse.ArgumentParser) -> None:
    """Where the curves go: an image, a CSV, or (neither) the text plot."""
    out = plot.add_argument_group("output (without -o and --csv the text plot is printed)")
    out.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write an image; the format follows the extension (.png, .svg, .pdf, ...); needs matplotlib "
        "(pip install 'cadence[plot]')",
    )
    out.add_argument(
        "--csv",
        metavar="FILE",
        help="write the exact value of every curve at every batch: batch, epoch, sample, token, dur, one column "
        "per curve ('-': to stdout)",
    )


@contextlib.contextmanager
def plain_warnings(prog: str) -> Iterator[None]:
    """Warnings as one line each on stderr, ``PROG: warning: ...``, without the source line.

    Both commands use it: ``python -m schedulers`` (and ``cadence plot EXPR``, which runs it as ``cadence``)
    and the trainer's ``cadence fit`` / ``sweep`` / ``plot CONFIG``.

    Args:
        prog: the program name each line starts with.

    Returns:
        A context manager; on leaving it, warnings show as before.

    >>> import contextlib, io
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err), warnings.catch_warnings(), plain_warnings("cadence"):
    ...     warnings.simplefilter("always")
    ...     warnings.warn("a   spaced   warning")
    >>> print(err.getvalue(), end="")
    cadence: warning: a spaced warning
    """
    shown = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        print(f"{prog}: warning: {' '.join(str(message).split())}", file=sys.stderr if file is None else file)

    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = shown


def main(argv: list[str] | None = None, prog: str = PROG) -> int:
    """Run the command line: parse ``argv``, plot, and report any error as one line on stderr.

    Args:
        argv: the arguments after the program name; None: ``sys.argv[1:]``.
        prog: the program name its messages show.

    Returns:
        The exit status: 0, 2 after a one-line error (``CADENCE_TRACEBACK=1`` raises it instead), 130 when
        interrupted.

    >>> import contextlib, io
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     main(["plot", "StepScheduler('10ba', gama=0.5)", "--max-duration", "10ba"])
    2
    >>> print(err.getvalue().split(";")[0])  # doctest: +NORMALIZE_WHITESPACE
    python -m schedulers: error: "StepScheduler('10ba', gama=0.5)": StepScheduler got an unexpected keyword
    argument 'gama' (did you mean 'gamma'?)
    """
    try:
        with warnings.catch_warnings(), plain_warnings(prog):
            return _main(argv, prog)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # noqa: BLE001 - a command line reports, it does not dump tracebacks
        if os.environ.get("CADENCE_TRACEBACK"):
            raise
        print(f"{prog}: error: {_one_line(error)}", file=sys.stderr)
        return 2


def _main(argv: list[str] | None, prog: str) -> int:
    parser = build_parser(prog)
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help
        return int(done.code or 0)
    if args.command is None:
        raise _UsageError(f"give a command: plot (see {prog} --help)")
    return _plot(args)


_FLAGS = {
    "dataloader_len": "--dataloader-len",
    "samples_per_batch": "--samples-per-batch",
    "tokens_per_batch": "--tokens-per-batch",
}


def _plot(args: argparse.Namespace) -> int:
    try:
        return _plot_or_raise(args)
    except ValueError as error:  # name the flags that give what the library asks for
        missing = [flag for name, flag in _FLAGS.items() if name in str(error) and getattr(args, name) is None]
        if missing:
            raise _UsageError(f"{_one_line(error)} (give {' and '.join(missing)})") from None
        raise


def _plot_or_raise(args: argparse.Namespace) -> int:
    from schedulers.core.plateau import plateaus_in, preview_note
    from schedulers.core.run import as_run
    from schedulers.tools import plotting
    from schedulers.tools.expressions import parse_schedule

    schedules = [(text.strip(), parse_schedule(text)) for text in args.expressions]
    monitored = [(label, p.monitor) for label, s in schedules for p in plateaus_in(s)]
    note = preview_note(monitored, [s for _, s in schedules])
    if note:  # on stderr: stdout may be the table (--csv -)
        print(f"cadence: note: {note}", file=sys.stderr)
    ssrs = [ssr for group in (args.ssr or [[1.0]]) for ssr in group]
    x_unit = plotting.check_x_unit(
        args.x_unit or args.max_duration.unit, args.dataloader_len, args.samples_per_batch, args.tokens_per_batch
    )
    if args.output is not None:  # check what can be checked before evaluating a long run
        image_format = _image_format(args.output)
        width, height = args.width or 800, args.height or 450
        if width < 100 or height < 100:
            raise _UsageError(f"-o {args.output}: --width and --height are pixels for an image: at least 100 each")
    run = as_run(
        args.max_duration,
        args.dataloader_len,
        samples_per_batch=args.samples_per_batch,
        tokens_per_batch=args.tokens_per_batch,
    )
    runs = plotting._Runs(schedules, run, ssrs, args.base_lr)
    if args.output is None and args.csv is None:
        print(_text_plot(runs, args, x_unit))
        return 0
    if args.output is not None:
        size = (width / 100, height / 100)
        figure = plotting._plot(runs, x_unit=x_unit, title=args.title, max_points=args.max_points, size=size)
        _write_atomically(args.output, lambda f: figure.savefig(f, format=image_format, dpi=100), binary=True)
        print(f"wrote {args.output} ({len(runs.curves)} curve{'s' if len(runs.curves) != 1 else ''})")
    if args.csv == "-":
        plotting._table(runs).write_csv(sys.stdout)
    elif args.csv is not None:
        table = plotting._table(runs)
        _write_atomically(args.csv, table.write_csv, binary=False)
        print(f"wrote {args.csv} ({len(table)} rows)")
    return 0


def _text_plot(runs, args: argparse.Namespace, x_unit: TimeUnit) -> str:
    from schedulers.tools import plotting

    color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty() and not os.environ.get("NO_COLOR"))
    width = args.width or max(shutil.get_terminal_size((100, 24)).columns - 12, 20)
    return plotting._text(
        runs,
        x_unit=x_unit,
        title=args.title,
        width=max(width, 8),
        height=max(args.height or 16, 2),
        style=args.style,
        color=color,
    )


def _image_format(path: str) -> str:
    from schedulers.tools.plotting import require_matplotlib

    require_matplotlib()  # a clear error naming the plot extra if matplotlib is missing
    from matplotlib.backend_bases import FigureCanvasBase

    supported = FigureCanvasBase.get_supported_filetypes()
    extension = os.path.splitext(path)[1].lower().lstrip(".")
    if extension not in supported:
        known = ", ".join(f".{name}" for name in sorted(supported))
        raise _UsageError(f"cannot tell the image format of -o {path!r} from its extension: use one of {known}")
    return extension


def _write_atomically(path: str, write: Callable, *, binary: bool) -> None:
    """Write ``path`` atomically (see :mod:`schedulers.tools.files`); an OS error is a usage error naming it."""
    if os.path.isdir(path):
        raise _UsageError(f"cannot write {path!r}: it is a directory")
    try:
        write_atomically(path, write, binary=binary, newline=None if binary else "")
    except OSError as error:
        raise _UsageError(f"cannot write {path!r}: {error.strerror or error}") from None


# -- argument types: each error names the flag and what it accepts ------------------------------------------


#: the reading of ``--max-duration`` (a run's length in ep, ba, sp or tok); ``cadence forecast --schedule`` reads it too
max_duration_flag = flag_type("--max-duration", lambda text: as_max_duration(text, "--max-duration"))


def _ssrs(text: str) -> list[float]:
    values = []
    for part in text.split(","):
        try:
            values.append(number_argument("--ssr", part, low=0.0, low_open=True, text=True))
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"--ssr={text!r} must be a finite number > 0, or a comma list of them (0.5,1,2)"
            ) from None
    return values


def _one_line(error: object) -> str:
    text = str(error) or type(error).__name__
    if isinstance(error, BaseException) and not isinstance(error, (ValueError, _UsageError, OSError, ImportError)):
        text = f"{type(error).__name__}: {text}"
    return " ".join(text.split())
