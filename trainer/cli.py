"""The ``cadence`` command: ``cadence fit CONFIG.yaml [--set key.path=value ...] [SambaFlow flags]``.

Also ``python -m trainer fit ...``. Precedence (API.md clarification 13): ``--set`` > SambaFlow flags > YAML.
A configuration error prints one line to stderr (``cadence: error: <key path>: <what>``) and exits with 2;
a checkpoint that cannot be loaded exits with 1. After training, one line sums the run up on stdout
(batches trained, the first and last losses, the last evaluation).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import warnings
from pathlib import Path
from typing import Iterator, Sequence

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
  1 a checkpoint that cannot be loaded.

examples:
  cadence fit examples/classifier.yaml
  cadence fit examples/charlm.yaml --set trainer.init.loop.max_duration=100_000tok
  cadence fit run.yaml --lr_schedule cosine_schedule_with_warmup --warmup_steps 100 --max_steps 1000 \\
      --steps_this_run 250 --learning_rate 3e-4
"""


def build_parser(prog: str = "cadence") -> argparse.ArgumentParser:
    """The ``cadence`` argument parser (subcommand ``fit``)."""
    from schedulers.sambaflow import add_lr_schedule_args

    parser = argparse.ArgumentParser(
        prog=prog,
        description="Cadence: train a PyTorch model with time-aware schedules from a YAML config.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    fit = commands.add_parser(
        "fit",
        help="train from a YAML config",
        description=_FIT_DESCRIPTION,
        epilog=_FIT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
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

    plot = commands.add_parser(
        "plot",
        help="draw every scheduled hyperparameter of a config (or schedule expressions) before training",
        description=(
            "cadence plot CONFIG.yaml: build the trainer the config describes, step its schedulers through the "
            "whole run without training, and draw every scheduled hyperparameter of every param group. "
            "cadence plot EXPR ...: the same as python -m schedulers plot (see its --help)."
        ),
    )
    plot.add_argument("config", metavar="CONFIG.yaml", help="the YAML configuration")
    plot.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY.PATH=VALUE")
    plot.add_argument(
        "--ssr",
        type=float,
        action="append",
        help="a scale schedule ratio, overriding the config's (repeat to overlay runs)",
    )
    plot.add_argument("--x", dest="x_unit", choices=["ba", "ep", "sp", "tok", "dur"], help="the x axis unit")
    plot.add_argument("--multipliers", action="store_true", help="plot each value over its param group's base value")
    plot.add_argument("-o", "--output", help="write an image (.png, .svg, ...)")
    plot.add_argument("--csv", help="write one row per batch (- for stdout)")
    plot.add_argument("--title")
    plot.add_argument("--width", type=int)
    plot.add_argument("--height", type=int)
    add_lr_schedule_args(plot.add_argument_group("SambaFlow learning-rate flags", "as cadence fit takes them"))
    return parser


@contextlib.contextmanager
def _plain_warnings() -> Iterator[None]:
    """Warnings as one line each, ``cadence: warning: ...``, without the source line."""
    shown = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        print(f"cadence: warning: {message}", file=sys.stderr if file is None else file)

    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = shown


def main(argv: Sequence[str] | None = None, prog: str = "cadence") -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) >= 2 and argv[0] == "plot" and not _looks_like_config(argv[1]):
        from schedulers.tools.cli import main as plot_expressions  # cadence plot EXPR ...

        return plot_expressions(argv, prog=prog)
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    if args.command == "fit":
        return _fit(args)
    if args.command == "plot":
        return _plot_config(args)
    parser.error(f"unknown command {args.command!r}")  # pragma: no cover - argparse rejects it first
    return 2


def _looks_like_config(argument: str) -> bool:
    return argument.lower().endswith((".yaml", ".yml")) or Path(argument).is_file()


def _plot_config(args: argparse.Namespace) -> int:
    from trainer.config import ConfigError, apply_overrides, apply_sambaflow_flags, load_config, trainer_from_config
    from trainer.plot_config import plot_config

    def build(ssr: float | None):  # exactly as _fit builds the trainer; --ssr (when given) overrides the config's
        config = load_config(args.config)
        sources: dict[str, str] = {}
        config = apply_sambaflow_flags(config, args, sources=sources)
        overrides = [*args.overrides] + ([] if ssr is None else [f"trainer.init.loop.scale_schedule_ratio={ssr}"])
        config = apply_overrides(config, overrides, sources=sources)
        return trainer_from_config(config, base_dir=Path(args.config).parent, sources=sources)

    with _plain_warnings():
        try:
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
        except (ConfigError, ValueError, TypeError, OSError) as error:
            print(f"cadence: error: {' '.join(str(error).split())}", file=sys.stderr)
            return 2
    if text:  # with --csv -, stdout holds the CSV alone
        print(text, file=sys.stderr if args.csv == "-" else sys.stdout)
    return 0


def _fit(args: argparse.Namespace) -> int:
    from trainer.checkpoint import CheckpointError
    from trainer.config import (
        ConfigError,
        apply_overrides,
        apply_sambaflow_flags,
        load_config,
        run_summary,
        trainer_from_config,
    )

    with _plain_warnings():
        try:
            config = load_config(args.config)
            sources: dict[str, str] = {}
            config = apply_sambaflow_flags(config, args, sources=sources)
            config = apply_overrides(config, args.overrides, sources=sources)
            trainer = trainer_from_config(config, base_dir=Path(args.config).parent, sources=sources)
            if args.dry_run:
                state = trainer.state
                print(
                    f"cadence: {args.config} is valid: max_duration {state.max_duration}, "
                    f"{state.dataloader_len} batches per epoch, "
                    f"{len(trainer.schedulers)} scheduler(s) on {', '.join(trainer.scheduled_keys) or 'nothing'}"
                    + (f", {trainer.num_steps} steps this run" if trainer.num_steps is not None else "")
                )
                print(trainer.schedule_report())
                return 0
            trainer.fit()
        except ConfigError as error:
            print(f"cadence: error: {error}", file=sys.stderr)
            return 2
        except CheckpointError as error:
            print(f"cadence: error: {' '.join(str(error).split())}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print("cadence: interrupted", file=sys.stderr)
            return 130
    if trainer.is_rank_zero:
        print(f"cadence: {run_summary(trainer)}", flush=True)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
