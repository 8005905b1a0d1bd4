"""The ``cadence`` command: ``cadence fit CONFIG.yaml [--set key.path=value ...] [SambaFlow flags]``.

``cadence sweep CONFIG.yaml --ssr 0.25 0.5 1.0`` runs a budget sweep (:mod:`trainer.sweep`, docs/sweeps.md).
``cadence forecast RUN... --config CONFIG.yaml --budgets 0.5dur 2dur`` forecasts budgets from logged runs
(:mod:`trainer.forecast`, docs/forecast.md).

Also ``python -m trainer fit ...``. Precedence (docs/trainer-config.md): ``--set`` > SambaFlow flags > YAML.
A configuration error prints one line to stderr (``cadence: error: <key path>: <what>``) and exits with 2;
a checkpoint that cannot be loaded, or a nan/inf loss that stops the run, exits with 1 (one line too). After
training, one line sums the run up on stdout (batches trained, the first and last losses, the last evaluation).
``cadence --version`` and ``cadence --help`` import no torch (the commands' own parsers do).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

__all__ = ["build_parser", "main"]

_FIT_DESCRIPTION = """\
Train with the Cerebras-style YAML config CONFIG.yaml (docs/trainer-config.md lists every key):

  trainer:
    init:
      model: "module:function"              # or {factory: "module:function", kwargs: {...}}
      optimizer: {SGD: {lr: 0.01, momentum: 0.9}}
      schedulers: [{CosineDecayLR: {initial_learning_rate: 0.01, end_learning_rate: 0.0, total_iters: 1000}}]
      loop: {max_steps: 1000}              # or num_epochs, or max_duration: "2e6tok"; num_steps: this run
    fit:
      train_dataloader: "module:function"

'module:function' names are imported with the config file's folder and the working directory on sys.path.
"""

_FIT_EPILOG = """\
precedence:
  --set KEY.PATH=VALUE  >  SambaFlow flags  >  the YAML file
  --learning_rate   sets the optimizer's lr (the peak of SambaFlow and Cadence schedules)
  --lr_schedule     replaces trainer.init.schedulers by that SambaFlow schedule
                    (--warmup_steps, --max_steps and --end_lr_ratio shape it)
  --max_steps       the horizon: trainer.init.loop.max_steps (the schedules decay over it)
  --steps_this_run  the steps this run takes: trainer.init.loop.num_steps (the horizon is unchanged)

--set:
  the value is read as YAML (1e-3 is a float, [1, 2] a list, null is None, 10ba a string); list items are
  addressed as schedulers[0] or schedulers.0; setting loop.max_steps removes loop.num_epochs and
  loop.max_duration (likewise eval_frequency/eval_interval, checkpoint.steps/save_interval).
  e.g. --set trainer.init.loop.max_steps=200 --set trainer.init.optimizer.AdamW.lr=3e-4

exit status:
  0 trained (or --dry-run found no problem); 2 a config or command-line error (one line on stderr);
  1 a checkpoint that cannot be loaded, or a nan/inf loss stopped the run (one line on stderr).

examples:
  cadence fit examples/classifier.yaml
  cadence fit examples/charlm.yaml --set trainer.init.loop.max_duration=100_000tok
  cadence fit run.yaml --lr_schedule cosine_schedule_with_warmup --warmup_steps 100 --max_steps 1000 \\
      --steps_this_run 250 --learning_rate 3e-4
"""


def build_parser(prog: str = "cadence") -> argparse.ArgumentParser:
    """The ``cadence`` argument parser (subcommands ``fit``, ``plot``, ``sweep`` and ``forecast``).

    Args:
        prog: The program's name in usage lines and messages (``python -m trainer`` passes its own).

    Returns:
        A parser whose ``parse_args`` gives a namespace with ``command`` (the subcommand) and that command's
        options, SambaFlow's learning-rate flags included for ``fit`` and ``plot``.

    Example:
        >>> args = build_parser().parse_args(["fit", "run.yaml", "--set", "trainer.init.loop.max_steps=8"])
        >>> args.command, args.config, args.overrides
        ('fit', 'run.yaml', ['trainer.init.loop.max_steps=8'])
    """
    from schedulers.sambaflow import add_lr_schedule_args  # imports torch, which the commands' parsers need

    parser, commands = _command_parsers(prog)
    _add_fit_arguments(commands["fit"], add_lr_schedule_args)
    _add_plot_arguments(commands["plot"], add_lr_schedule_args)
    _add_sweep_arguments(commands["sweep"])
    _add_forecast_arguments(commands["forecast"])
    return parser


class _OneLineParser(argparse.ArgumentParser):
    """argparse's parser, its usage mistakes on one line as every ``cadence`` error is (argparse would print the
    whole usage first); each command's parser is one too. ``python -m schedulers`` words its mistakes the same way
    with a parser of its own: importing that one would import torch, which ``cadence --help`` must not."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _command_parsers(prog: str) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser and each command's parser, without the commands' arguments: all that ``cadence
    --version`` and ``cadence --help`` need, and no torch import (docs/trainer-config.md)."""
    parser = _OneLineParser(
        prog=prog,
        description="Cadence: train a PyTorch model with time-aware schedules from a YAML config.",
    )
    parser.add_argument("--version", action="version", version=f"cadence {version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    texts = {  # name: (help, description, epilog)
        "fit": ("train from a YAML config", _FIT_DESCRIPTION, _FIT_EPILOG),
        "plot": (
            "draw every scheduled hyperparameter of a config (or schedule expressions) before training",
            _PLOT_DESCRIPTION,
            _PLOT_EPILOG,
        ),
        "sweep": (
            "train a config at several budgets (ssr or max_duration) and compare them",
            "cadence sweep CONFIG.yaml: run the config once per budget, resumably, and summarize.",
            _SWEEP_EPILOG,
        ),
        "forecast": (
            "fit a loss-curve law to logged runs and forecast a config at other budgets",
            "cadence forecast RUN...: fit a loss-curve law to runs; with --config, forecast other runs, each with its "
            "80% interval.",
            _FORECAST_EPILOG,
        ),
    }
    formatter = argparse.RawDescriptionHelpFormatter
    return parser, {
        name: commands.add_parser(name, help=text, description=description, epilog=epilog, formatter_class=formatter)
        for name, (text, description, epilog) in texts.items()
    }


def _add_fit_arguments(fit: argparse.ArgumentParser, add_lr_schedule_args) -> None:
    fit.add_argument("config", metavar="CONFIG.yaml", help="the YAML configuration (Cerebras Model Zoo layout)")
    fit.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY.PATH=VALUE",
        help="override one key of the config (repeatable; wins over the SambaFlow flags and the YAML)",
    )
    fit.add_argument(
        "--dry-run",
        action="store_true",
        help="check the config and build the trainer (model, loaders, optimizer, schedulers), then exit",
    )
    samba = fit.add_argument_group(
        "SambaFlow learning-rate flags", "override the YAML; --set overrides them (see precedence below)"
    )
    add_lr_schedule_args(samba)


_PLOT_DESCRIPTION = """\
Draw every scheduled hyperparameter before training, in one of two modes:

  cadence plot CONFIG.yaml [options]     a training config: the trainer it describes is built (as
                                         cadence fit --dry-run does) and its schedulers are stepped through
                                         the whole run without training; every scheduled hyperparameter of
                                         every param group is drawn (Cadence, torch, Cerebras, SambaFlow)
  cadence plot EXPR [EXPR ...] --max-duration TIME [--dataloader-len N] [options]
                                         schedule expressions, as python -m schedulers plot draws them
                                         (cadence plot EXPR --help lists its options)

Without -o and --csv the curves are printed as a text plot. An error is one line on stderr (exit status 2).
"""

_PLOT_EPILOG = """\
expression mode (EXPR is a call of a registered schedule with literal arguments, quoted for the shell):
  --max-duration TIME     the run's length: 10ep, 100000ba, 2e9tok (required)
  --dataloader-len N      batches per epoch (times in ep, or --x ep)
  --samples-per-batch N, --tokens-per-batch N   for times in sp or tok
  --ssr RATIO             scale schedule ratio (repeat, or 0.5,1,2, to overlay a budget sweep)
  --base-lr LR            plot LR x alpha instead of alpha
  -o FILE, --csv FILE, --x UNIT, --title, --width, --height: as in config mode

images (-o) need matplotlib: pip install 'cadence[plot]'

examples:
  cadence plot examples/classifier.yaml                       # a text plot in the terminal
  cadence plot run.yaml --set trainer.init.loop.max_steps=2000 -o lr.png
  cadence plot run.yaml --ssr 0.5 --ssr 1 --ssr 2 --multipliers -o sweep.svg
  cadence plot run.yaml --lr_schedule cosine_schedule_with_warmup --warmup_steps 100 --max_steps 1000 \\
      --csv lr.csv
  cadence plot "cosine_with_warmup('0.05dur')" --max-duration 10ep --dataloader-len 500
  cadence plot "wsd('0.05dur', t_decay='0.2dur')" --max-duration 100000ba --ssr 0.5,1,2 -o wsd.png
"""


def _add_plot_arguments(plot: argparse.ArgumentParser, add_lr_schedule_args) -> None:
    """``cadence plot``: its config-mode options; the help describes the expression mode too."""
    from schedulers.core.schedule_arguments import count_flag, number_flag, unit_flag

    ssr = number_flag("--ssr")  # its range is the config's or the plan's to check, naming the key
    plot.add_argument("config", metavar="CONFIG.yaml", help="the YAML configuration (or EXPR: see above)")
    plot.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY.PATH=VALUE",
        help="override one key of the config (repeatable; as in cadence fit)",
    )
    plot.add_argument(
        "--ssr", type=ssr, action="append", help="a scale schedule ratio, overriding the config's (repeatable)"
    )
    plot.add_argument(
        "--x", dest="x_unit", type=unit_flag("--x"), metavar="UNIT", help="the x axis unit: ba, ep, sp, tok or dur"
    )
    plot.add_argument(
        "--multipliers", action="store_true", help="plot each value over its group's base value (shared axis)"
    )
    plot.add_argument("-o", "--output", metavar="FILE", help="write an image (.png, .svg, .pdf, ...; needs matplotlib)")
    plot.add_argument("--csv", metavar="FILE", help="write the value of every curve at every batch (- for stdout)")
    plot.add_argument("--title", help="the plot's title")
    plot.add_argument("--width", type=count_flag("--width", low=1), help="characters (text plot) or pixels (-o)")
    plot.add_argument("--height", type=count_flag("--height", low=1), help="lines (text plot) or pixels (-o)")
    samba = plot.add_argument_group("SambaFlow learning-rate flags", "override the YAML, as in cadence fit")
    add_lr_schedule_args(samba)


def version() -> str:
    """Cadence's version: the installed distribution's, else the source tree's pyproject.toml, else unknown.

    Returns:
        The version text (``"0.4.0"``), or ``"unknown (not installed)"`` when neither source can be read;
        ``cadence --version`` prints it.

    Example:
        >>> version() != ""
        True
    """
    from importlib import metadata

    try:
        return metadata.version("cadence")
    except metadata.PackageNotFoundError:
        pass
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    try:
        import tomllib

        return str(tomllib.loads(pyproject.read_text())["project"]["version"])
    except (OSError, KeyError, ValueError, ImportError):
        return "unknown (not installed)"


_SWEEP_EPILOG = """\
budgets (one kind):
  --ssr R ...             scale schedule ratios: the run and every schedule scaled, as fit's
                          --set trainer.init.loop.scale_schedule_ratio=R
  --max-duration T ...    run lengths (10ep, 600ba, 2e6tok) or fractions of the config's horizon (0.5dur);
  --budgets T ...         the same option by another name

each point is a run folder OUT/<point> (checkpoints, metrics.csv); OUT/points.txt holds one cadence fit line
per point; OUT/summary.csv and OUT/sweep.png come at the end. Rerun the same command after an interruption:
finished points are skipped and an interrupted one resumes from its newest checkpoint.

--branch-from-stable (a WarmupStableDecayScheduler with an absolute t_warmup and t_max in dur): one main run
to the largest budget saves a checkpoint where each smaller budget's decay starts, and each smaller budget
is a branch from it, equal to its own run; with --jobs 2 or more a branch starts as soon as its decay start
is saved, while the main run goes on.

--launcher ray or slurm runs each line of OUT/points.txt on a cluster (OUT and the config on a file system
every node sees); SIGTERM, SIGHUP and Ctrl-C stop every point cleanly there too (docs/cluster.md).

examples:
  cadence sweep examples/classifier.yaml --ssr 0.25 0.5 1.0 --out runs/ssr
  cadence sweep examples/classifier_wsd.yaml --branch-from-stable --budgets 0.25dur 0.5dur 1dur --jobs 3
  cadence sweep run.yaml --budgets 0.25dur 0.5dur 1dur --launcher ray --address auto --gpus-per-point 1
  cadence sweep run.yaml --budgets 0.25dur 0.5dur 1dur --launcher slurm --partition gpu --time 4:00:00 \\
      --gpus-per-point 1 --slurm account=abc
"""


def _add_sweep_arguments(sweep: argparse.ArgumentParser) -> None:
    from schedulers.core.schedule_arguments import count_flag, number_flag

    ssr = number_flag("--ssr")  # its range is the config's or the plan's to check, naming the key
    sweep.add_argument("config", metavar="CONFIG.yaml", help="the YAML configuration")
    budgets = sweep.add_mutually_exclusive_group(required=True)
    budgets.add_argument("--ssr", nargs="+", type=ssr, metavar="R", help="scale schedule ratios")
    budgets.add_argument("--max-duration", "--budgets", dest="max_duration", nargs="+", metavar="T", help="run lengths")
    sweep.add_argument("--branch-from-stable", action="store_true", help="WSD: branch each decay from one main run")
    sweep.add_argument("--out", metavar="DIR", help="the sweep's folder (default: sweep-<config name>)")
    sweep.add_argument(
        "--jobs",
        type=count_flag("--jobs", low=1),
        metavar="N",
        help="points run at once (default: 1 locally, every point on a cluster)",
    )
    sweep.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY.PATH=VALUE")
    sweep.add_argument("--forecast", action="store_true", help="fit a loss law on the largest point, forecast the rest")
    sweep.add_argument("--dry-run", action="store_true", help="write OUT/points.txt and print its lines; run nothing")
    cluster = sweep.add_argument_group("launchers (docs/cluster.md)")
    cluster.add_argument("--launcher", choices=("local", "ray", "slurm"), default="local", help="what runs the points")
    for flag, what in (("--cpus-per-point", "CPUs"), ("--gpus-per-point", "GPUs")):
        reserve = f"ray, slurm: {what} each point reserves"
        cluster.add_argument(flag, type=number_flag(flag, low=0.0), metavar="N", help=reserve)
    cluster.add_argument("--address", metavar="HOST:PORT", help="ray: the cluster (default: a Ray of the sweep's own)")
    cluster.add_argument("--partition", metavar="NAME", help="slurm: the partition")
    cluster.add_argument("--time", metavar="T", help="slurm: each job's time limit (minutes, H:MM:SS, D-H:MM:SS)")
    cluster.add_argument(
        "--slurm",
        action="append",
        default=[],
        type=_key_value,
        metavar="KEY=VALUE",
        help="slurm: any #SBATCH --KEY=VALUE (repeat)",
    )
    cluster.add_argument(
        "--submitit-cluster", choices=("slurm", "local"), help="slurm: 'local' runs the job array on this machine"
    )


_FORECAST_EPILOG = """\
RUN is a run folder (its metrics.csv: the lr of every batch and the loss), a law saved before (.json), or
another trainer's log: a CSV, a .csv.gz or a TensorBoard folder with a step, an lr and a loss column, found by
their common names (step, global_step, _step, trainer/global_step; lr, learning_rate, lr-AdamW; loss,
train/loss, lm loss, Metrics/loss) or named with --step-column, --lr-column and --loss-column.
The law (default: the multi-power law, the better on the forecast bench; the annealing law where its fit
fails or is degenerate and the annealing law's is not; one line says which and why) is fitted on the eval
loss when every run has 8 evaluations or more, else on the training loss, and saved (default
RUN/forecast-law.json, or beside the log). A forecast's lr curve is the config's own, previewed as cadence plot
previews it, or --schedule's, as python -m schedulers plot draws it.

Every forecast is printed with its 80% interval: the range in which the loss that run would measure lies
with probability 0.8, from the parameters' uncertainty, the noise of one measured point, the law's misfit
of the fitted runs and, for a run beyond them (flagged "extrapolates"), a measured allowance for the
unseen shape and length. A run that has not decayed forecasts no decay, and a fit whose decay term the
runs cannot identify says so, each in one line naming the run to fit. docs/forecast.md: the laws, the
fit error, the interval, and when not to trust a forecast.

examples:
  cadence forecast runs/wsd --config run.yaml --budgets 0.25dur 0.5dur 2dur
  cadence forecast runs/wsd --config run.yaml --budgets 0.5dur 1dur 2dur --target 1.9
  cadence forecast runs/wsd/forecast-law.json --config run.yaml --budgets 1dur \\
      --grid trainer.init.schedulers.0.WarmupStableDecayScheduler.t_decay=0.1dur,0.2dur,0.3dur
  cadence forecast log.csv.gz --fit-until 30517 -o fit.png
  cadence forecast log.csv.gz --schedule "wsd('0ba', t_decay='0.2dur', alpha_f=0.1)" --max-duration 33908ba
"""


def _add_forecast_arguments(forecast: argparse.ArgumentParser) -> None:
    from schedulers.core.schedule_arguments import count_flag, number_flag

    ssr = number_flag("--ssr")  # its range is the config's or the plan's to check, naming the key
    forecast.add_argument(
        "runs", nargs="+", metavar="RUN", help="run folders or logs (CSV, .csv.gz, TensorBoard) to fit, or a law"
    )
    forecast.add_argument("--config", metavar="CONFIG.yaml", help="the config to forecast")
    forecast.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY.PATH=VALUE")
    budgets = forecast.add_mutually_exclusive_group()
    budgets.add_argument("--budgets", dest="budgets", nargs="+", metavar="T", help="run lengths")
    budgets.add_argument("--ssr", nargs="+", type=ssr, metavar="R", help="scale schedule ratios")
    forecast.add_argument(
        "--target",
        type=number_flag("--target", low=0.0, low_open=True),
        metavar="LOSS",
        help="the smallest budget forecast to reach LOSS",
    )
    forecast.add_argument(
        "--grid",
        metavar="KEY.PATH=V1,V2,...",
        help="forecast each value of one config key (with --schedule: one argument of its schedule) at one budget",
    )
    forecast.add_argument("--optimize", action="store_true", help="recommend a monotone lr schedule at one budget")
    forecast.add_argument(
        "--law",
        choices=["annealing", "multi-power"],
        help="the law to fit (default: multi-power; annealing where its fit fails or is degenerate)",
    )
    forecast.add_argument(
        "--decay",
        type=number_flag("--decay"),
        metavar="LAMBDA",
        help="annealing law: a fixed momentum (the paper's 0.999), not fitted",
    )
    forecast.add_argument("--loss", default="auto", choices=["auto", "eval", "train"], help="the loss to fit")
    forecast.add_argument("--save", metavar="FILE.json", help="where to save the fitted law")
    forecast.add_argument("-o", "--output", metavar="FILE", help="draw an image (.png, .svg; needs matplotlib)")
    forecast.add_argument("--width", type=count_flag("--width", low=1), help="characters of the text plot")
    forecast.add_argument("--height", type=count_flag("--height", low=1), help="lines of the text plot")
    _add_log_arguments(forecast)


def _add_log_arguments(forecast: argparse.ArgumentParser) -> None:
    """Another trainer's log (its columns, a held-out end) and a schedule expression to forecast."""
    from schedulers.core.schedule_arguments import count_flag, number_flag
    from schedulers.tools.cli import add_length_arguments

    log = forecast.add_argument_group("another trainer's log, and a schedule without a config (docs/forecast.md)")
    log.add_argument("--step-column", metavar="NAME", help="the log's step column (default: found by name)")
    log.add_argument("--lr-column", metavar="NAME", help="the log's lr column or tag (default: found by name)")
    log.add_argument("--loss-column", metavar="NAME", help="the log's loss column or tag (default: found by name)")
    log.add_argument(
        "--fit-until",
        type=count_flag("--fit-until", low=1),
        metavar="STEP",
        help="fit the log up to STEP, forecast the rest from its own lr curve, print measured vs forecast",
    )
    log.add_argument(
        "--fit-from",
        type=count_flag("--fit-from", low=1),
        metavar="STEP",
        help="fit the loss points from STEP on (the lr curve still counts from step 1): leave out a first transient; "
        "one STEP for every run given",
    )
    log.add_argument(
        "--schedule", metavar="EXPR", help="a schedule expression to forecast (as python -m schedulers plot takes)"
    )
    add_length_arguments(
        log,
        required=False,
        length_help="--schedule's run length (its 1dur; --budgets: other lengths, its dur times scaled with each)",
        epoch_help="--schedule's batches per epoch (for times in epochs)",
    )
    log.add_argument(
        "--lr",
        type=number_flag("--lr", low=0.0, low_open=True),
        metavar="LR",
        help="--schedule's peak lr (default: the largest lr of the fitted runs)",
    )


def main(argv: Sequence[str] | None = None, prog: str = "cadence") -> int:
    """Run the command line ``argv``: ``cadence fit``, ``plot``, ``sweep`` or ``forecast``.

    A mistake in the config or the command line prints one line on stderr (no traceback); so does Ctrl-C.

    Args:
        argv: The arguments after the program's name (None: ``sys.argv[1:]``).
        prog: The program's name in messages.

    Returns:
        The exit status: 0 done (or ``--dry-run`` found no problem), 2 a config or command-line error, 1 a
        checkpoint that cannot be loaded or a nan/inf loss that stopped the run, 130 after Ctrl-C.

    Example:
        >>> import tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> config = Path(folder.name) / "run.yaml"
        >>> _ = config.write_text('''trainer:
        ...   init:
        ...     model: {factory: "torch.nn:Linear", kwargs: {in_features: 2, out_features: 1}}
        ...     optimizer: {SGD: {lr: 0.1}}
        ...     loop: {max_steps: 4}
        ...   fit: {train_dataloader: "itertools:count"}
        ... ''')
        >>> main(["fit", str(config), "--dry-run"])
        cadence: ...run.yaml is valid: max_duration 4ba, ...
        0
        >>> folder.cleanup()
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _run(argv, prog)
    except KeyboardInterrupt:  # the trainer has said where its last checkpoint is: no traceback here
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130


def _run(argv: list[str], prog: str) -> int:
    if argv[:1] == ["plot"]:
        mode = _plot_mode(argv[1:])
        if mode == "expressions":
            from schedulers.tools.cli import main as plot_expressions  # cadence plot EXPR ...

            return plot_expressions(argv, prog=prog)
        if mode != "config":
            print(f"{prog}: error: {mode}", file=sys.stderr)
            return 2
    if not argv or argv[0] not in (
        "fit",
        "plot",
        "sweep",
        "forecast",
    ):  # --version, --help or a mistake: told without torch
        _command_parsers(prog)[0].parse_args(argv)
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    if args.command == "fit":
        return _fit(args)
    if args.command == "plot":
        return _plot_config(args)
    if args.command == "sweep":
        return _sweep(args)
    if args.command == "forecast":
        return _forecast(args)
    parser.error(f"unknown command {args.command!r}")  # pragma: no cover - argparse rejects it first
    return 2


def _plot_mode(arguments: list[str]) -> str:
    """``"config"`` or ``"expressions"`` for ``cadence plot ARGUMENTS``, else the error to print: the first
    argument names a config file (``.yaml``/``.yml``, or an existing file) or is a schedule expression."""
    if not arguments or arguments[0].startswith("-"):  # --help, or options first
        return "expressions" if any(a.startswith("--max-duration") for a in arguments) else "config"
    target = arguments[0]
    if _looks_like_config(target):
        return "config"
    from schedulers.core.names import did_you_mean
    from schedulers.tools.expressions import schedule_names

    names = {name.lower() for name in schedule_names()}
    if "(" in target or target.strip().lower() in names:  # the expression parser reports its own mistakes
        return "expressions"
    folder = Path(target).parent
    configs = [str(folder / p.name) if str(folder) != "." else p.name for p in _configs_in(folder)]
    return (
        f"no such file or schedule expression: {target!r}{did_you_mean(target, configs)} "
        "(give a config file CONFIG.yaml, or a schedule call such as \"cosine_with_warmup('0.05dur')\")"
    )


def _configs_in(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.suffix.lower() in (".yaml", ".yml"))
    except OSError:
        return []


def _looks_like_config(argument: str) -> bool:
    return argument.lower().endswith((".yaml", ".yml")) or Path(argument).is_file()


def _plot_config(args: argparse.Namespace) -> int:
    from schedulers.tools.cli import plain_warnings
    from schedulers.tools.plotting import require_matplotlib
    from trainer.config import ConfigError, trainer_from_command_line
    from trainer.plot_config import plot_config

    def build(ssr: float | None):  # exactly as _fit builds the trainer; --ssr (when given) overrides the config's
        ssr_set = [] if ssr is None else [(f"trainer.init.loop.scale_schedule_ratio={ssr!r}", f"--ssr {ssr!r}")]
        return trainer_from_command_line(args.config, args.overrides, args, flag_overrides=ssr_set)

    with plain_warnings("cadence"):
        try:
            if args.output is not None:
                require_matplotlib()  # before the run is previewed; missing, it is one line naming the extra
            text = plot_config(
                build,
                ssrs=tuple(args.ssr or ()),
                x_unit=args.x_unit,
                multipliers=args.multipliers,
                output=args.output,
                csv=args.csv,
                title=args.title,
                width=args.width,
                height=args.height,
            )
        except (ConfigError, ValueError, TypeError, OSError, ImportError) as error:
            return _error(error)
    if text:  # with --csv -, stdout holds the CSV alone
        print(text, file=sys.stderr if args.csv == "-" else sys.stdout)
    return 0


def _sweep(args: argparse.Namespace) -> int:
    from schedulers.tools.cli import plain_warnings
    from trainer.config import ConfigError
    from trainer.signals import exit_status
    from trainer.sweep import SweepError
    from trainer.sweep.config_sweep import sweep_config
    from trainer.sweep.running import SweepStopped

    out = args.out or f"sweep-{Path(args.config).stem}"
    with plain_warnings("cadence"):
        try:
            sweep_config(
                args.config,
                out=out,
                ssr=args.ssr,
                max_duration=args.max_duration,
                branch_from_stable=args.branch_from_stable,
                jobs=args.jobs,
                overrides=args.overrides,
                forecast=_sweep_forecast() if args.forecast else None,
                launcher=args.launcher,
                dry_run=args.dry_run,
                **_cluster_options(args),
            )
        except (ConfigError, SweepError, ValueError, TypeError, OSError, ImportError) as error:  # CheckpointError too
            return _error(error)
        except KeyboardInterrupt:
            print(f"cadence: interrupted; rerun the same command to continue the sweep in {out}", file=sys.stderr)
            return 130
        except SweepStopped as stopped:
            print(
                f"cadence: {stopped} (each running point saved a checkpoint and ended); rerun the same command to "
                f"continue the sweep in {out}",
                file=sys.stderr,
            )
            return exit_status(stopped.signum)
    return 0


def _sweep_forecast():
    from trainer.forecast.sweeps import add_forecasts  # forecast uses the sweep's modules, not the other way

    return add_forecasts


def _key_value(text: str) -> tuple[str, str]:
    """``--slurm account=abc`` as ``("account", "abc")``."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip("- "):
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE (e.g. --slurm account=abc)")
    return key.strip("- "), value


def _cluster_options(args: argparse.Namespace) -> dict:
    """The launcher options given on the command line (those left out are None: the launcher's defaults)."""
    slurm = dict(args.slurm)
    return {
        "cpus_per_point": args.cpus_per_point,
        "gpus_per_point": args.gpus_per_point,
        "address": args.address,
        "partition": args.partition,
        "time": args.time,
        "slurm": slurm or None,
        "cluster": args.submitit_cluster,
    }


def _forecast(args: argparse.Namespace) -> int:
    from schedulers.tools.cli import plain_warnings
    from schedulers.tools.plotting import require_matplotlib
    from trainer.config import ConfigError
    from trainer.forecast.command import run_forecast

    with plain_warnings("cadence"):
        try:
            if args.output is not None:
                require_matplotlib()  # before the fit; missing, it is one line naming the extra
            text = run_forecast(args)
        except (ConfigError, ValueError, TypeError, OSError, ImportError) as error:  # a ForecastError is a ValueError
            return _error(error)
    print(text)
    return 0


def _fit(args: argparse.Namespace) -> int:
    from schedulers.tools.cli import plain_warnings
    from trainer.checkpoint_files import CheckpointError
    from trainer.config import ConfigError, run_summary, trainer_from_command_line
    from trainer.training import NonFiniteLossError

    with plain_warnings("cadence"):
        try:
            trainer = trainer_from_command_line(args.config, args.overrides, args)
            if args.dry_run:
                state = trainer.state
                print(
                    f"cadence: {args.config} is valid: max_duration {state.max_duration}, "
                    f"{state.dataloader_len} batches per epoch, "
                    f"{_count_schedulers(trainer)} scheduler(s) on {', '.join(trainer.scheduled_keys) or 'nothing'}"
                    + (f", {trainer.num_steps} steps this run" if trainer.num_steps is not None else "")
                )
                report, beyond = trainer.schedule_report_and_warnings()
                print(report)
                for message in beyond:  # what fit() would warn at its start
                    print(f"cadence: warning: {message}", file=sys.stderr)
                return 0
            trainer.fit()
        except (ConfigError, CheckpointError) as error:
            return _error(error)
        except NonFiniteLossError as error:  # the run failed: its way out as this command spells it
            print(f"cadence: error: {error.what} (to train on, add --set {_NONFINITE_KEY}=warn)", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print("cadence: interrupted", file=sys.stderr)
            return 130
    if trainer.is_rank_zero:
        print(f"cadence: {run_summary(trainer)}", flush=True)
    return 0


_NONFINITE_KEY = "trainer.init.loop.on_nonfinite_loss"


def _error(error: BaseException) -> int:
    """Report ``error`` in one line on stderr; the exit status: 1 when a checkpoint or a sweep's point failed (the
    command can be rerun), 2 for a mistake in the config or the command line."""
    from trainer.checkpoint_files import CheckpointError
    from trainer.sweep import SweepError

    print(f"cadence: error: {' '.join(str(error).split())}", file=sys.stderr)
    return 1 if isinstance(error, (CheckpointError, SweepError)) else 2


def _count_schedulers(trainer) -> int:
    """The schedulers the config gave (several Cadence schedules on one key are compiled into one)."""
    return len(trainer.scheduled.schedules) + len(trainer.scheduled.others)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
