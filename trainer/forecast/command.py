"""``cadence forecast RUN... [--config CONFIG.yaml [--set ...] --budgets 0.25dur 0.5dur 2dur]``.

Fits the law to the runs (or reads a law saved before: a RUN that is a ``.json`` file), saves it, and with
``--config`` forecasts the config at each budget: a table of the final losses, a text plot (or ``-o``: an
image) of the forecast curves beside the measured ones. ``--target LOSS`` adds the smallest budget
predicted to reach it; ``--grid KEY.PATH=V1,V2,...`` forecasts each value of one key and marks the best.
A forecast that extrapolates beyond the fitted runs is flagged in the table and explained in a warning.

A RUN may be another trainer's log (:mod:`trainer.forecast.logs`: ``--step-column``, ``--lr-column``,
``--loss-column``); ``--schedule EXPR --max-duration T`` forecasts a schedule expression in place of a config
(:mod:`trainer.forecast.recipes`; ``--lr`` its peak, else the fitted runs' largest lr); ``--fit-until STEP``
fits a run up to STEP and forecasts the rest from its own lr curve (:mod:`trainer.forecast.held_out`).
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

from trainer.forecast.errors import ForecastError
from trainer.forecast.fitted import LEVEL, FittedLaw, load_law
from trainer.forecast.fitting import fit_law
from trainer.forecast.held_out import fitted_part, held_out, points_from
from trainer.forecast.laws import law_named, warmup_updates
from trainer.forecast.logs import is_log, log_curve, read_log, read_log_series
from trainer.forecast.predict import Forecast, best_of_grid, forecast_config, smallest_budget
from trainer.forecast.recipes import ScheduleRecipe
from trainer.forecast.runs import RunCurve, metrics_path, read_run, run_folders

__all__ = ["LAW_FILE", "run_forecast"]

#: where the fitted law is saved by default: beside the first run's metrics
LAW_FILE = "forecast-law.json"
#: an lr at most this fraction of the peak trains nothing (the recommendation's idle updates)
IDLE = 1e-6
#: how far (a multiplier of the peak lr) a recommendation may end above the fitted runs' ends without a note
ENDS_MARGIN = 0.01


def run_forecast(args: argparse.Namespace) -> str:
    """Run ``cadence forecast`` with parsed ``args``: fit (or load) the law, forecast the config's budgets and grid.

    Args:
        args: ``cadence forecast``'s parsed arguments (the runs, ``--config``, ``--budgets``, ``--ssr``,
            ``--target``, ``--grid``, ``--law``, ``-o``, ...).

    Returns:
        What to print: the law's summary, then (with ``--config``) the forecasts' table with their intervals and
        a text plot, or the line naming the saved picture. Warnings go through :mod:`warnings`.

    Raises:
        ForecastError: A run, a law file or a request that cannot be used, in one line (``cadence`` exits 2).

    >>> from trainer.cli import build_parser
    >>> run_forecast(build_parser().parse_args(["forecast", "no/such/run"]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    trainer.forecast.errors.ForecastError: no/such/run: no metrics.csv (give a run folder ...)
    """
    _check_log_flags(args)
    logs = _read_logs(args)  # before the fit: a log that is not a training log writes nothing
    law, note = _law(args, logs)
    runs = _run_curves(law, _run_folders(args), logs, args)
    lines = [f"{law.summary()}{note}", *law.notes()]
    source = _schedule(args, law) or args.config
    forecasts, chosen = [], []
    if args.fit_until is not None:
        result = held_out(law, logs[_key(args.runs[0])], args.fit_until)
        lines += result.lines(logs[_key(args.runs[0])])
        forecasts = [result.forecast]
    if source is None:
        if args.target is not None or args.grid or args.budgets or args.ssr:
            raise ForecastError(
                "--budgets, --ssr, --target and --grid forecast a config: give --config CONFIG.yaml "
                "(or a schedule: --schedule EXPR --max-duration T)"
            )
        if not forecasts:
            return "\n".join(lines)
    else:
        more, chosen = _forecasts(law, args, source)
        forecasts += more
    lines.append(_table(law, forecasts))
    lines += chosen
    for forecast in forecasts:
        for message in forecast.warnings:
            warnings.warn(f"{forecast.label}: {message}", stacklevel=2)
    if args.output is not None:
        from trainer.forecast.picture import save_forecast_picture

        lines.append(save_forecast_picture(args.output, law, runs, forecasts))
    else:
        from trainer.forecast.picture import forecast_text

        lines.append(forecast_text(law, runs, forecasts, width=args.width or 72, height=args.height or 16))
    return "\n".join(lines)


def _law(args: argparse.Namespace, logs: dict[str, RunCurve]) -> tuple[FittedLaw, str]:
    """The law: loaded (a RUN ending in .json), else fitted (``logs``: the runs already read, by their RUN) and
    saved; and a note saying where it is."""
    saved = [run for run in args.runs if str(run).endswith(".json")]
    if saved:
        if len(args.runs) > 1:
            raise ForecastError(f"{saved[0]} is a saved law: give it alone, or run folders to fit")
        return _saved_law(saved[0], args), f" (read from {saved[0]})"
    name = args.law or ("annealing" if args.decay is not None else "auto")  # --decay is the annealing law's
    if args.decay is not None and name != "annealing":
        raise ForecastError(f"--decay is the annealing law's momentum; the {name} law has none")
    settings = {} if args.decay is None else {"decay": args.decay}
    first = Path(args.runs[0])
    target = args.save or str(first / LAW_FILE if first.is_dir() else metrics_path(first).parent / LAW_FILE)
    if not Path(target).parent.is_dir():  # checked before the fit: a failed save would name a temporary file
        raise ForecastError(f"--save {target}: the folder {Path(target).parent} does not exist")
    fitted = [logs.get(_key(run), run) for run in args.runs]
    if args.fit_until is not None:
        fitted = [fitted_part(logs[_key(args.runs[0])], args.fit_until)]
    if args.fit_from is not None:
        fitted = [points_from(run, args.fit_from) for run in fitted]  # every run read: _read_logs
    law = fit_law(
        fitted, law=name if name == "auto" else law_named(name, settings), loss=args.loss, lr_column=args.lr_column
    )
    law.save(target)
    return law, f"; saved to {target}"


def _saved_law(path: str, args: argparse.Namespace) -> FittedLaw:
    """A saved law, refusing the options that would fit another one (they would be ignored)."""
    law = load_law(path)
    if args.law is not None and args.law != law.law.name:
        raise ForecastError(f"{path} is a saved {law.law.name} law: --law {args.law} fits a new law from run folders")
    wanted = {"eval": "eval/loss", "train": "train/loss"}.get(args.loss)
    for given, option in (
        (args.decay, "--decay"),
        (args.save, "--save"),
        (wanted != law.loss_column and wanted, "--loss"),
    ):
        if given:
            raise ForecastError(
                f"{path} is a saved law (fitted on {law.loss_column}): {option} applies to a fit of run folders"
            )
    return law


def _run_folders(args: argparse.Namespace) -> list[str]:
    """The runs to draw: those fitted (for a saved law, those it names that still exist)."""
    saved = [run for run in args.runs if str(run).endswith(".json")]
    if not saved:
        return [str(folder) for folder in run_folders(args.runs)]
    return [r["folder"] for r in load_law(saved[0]).runs if Path(r["folder"]).exists()]


def _forecasts(law: FittedLaw, args: argparse.Namespace, source) -> tuple[list[Forecast], list[str]]:
    """The forecasts of ``source`` (the config, or ``--schedule``'s recipe) and the lines choosing among them."""
    common = dict(overrides=args.overrides, flags=None)
    if getattr(args, "optimize", False):
        return _optimize(law, args, source, common)
    if args.grid:
        key, values = _grid(args.grid)
        budget = _one(args.budgets, "--budgets", "--grid")
        ssr = _one(args.ssr, "--ssr", "--grid")
        found, best = best_of_grid(law, source, key, values, budget=budget, ssr=ssr, **common)
        return found, [
            f"best of the grid: {found[best].label} (forecast {found[best].final_loss:.4f})",
            *_apart(found, best),
        ]
    if args.target is not None:
        if not (args.budgets or args.ssr):
            raise ForecastError("--target searches between budgets: give --budgets (or --ssr) up to the largest")
        return _target(law, args, source, common)
    return forecast_config(law, source, budgets=args.budgets, ssr=args.ssr, **common), []


def _recommended(source, setting: str) -> str:
    """How to train the recommendation: the config's ``--set`` line, or the ``--schedule`` expression."""
    if isinstance(source, ScheduleRecipe):
        from trainer.forecast.optimize import schedule_of_setting

        return f'--schedule "{source.with_schedule(schedule_of_setting(setting)).expression}"'
    return f"--set '{setting}'"


def _own(source) -> str:
    return "the --schedule given" if isinstance(source, ScheduleRecipe) else "the config's own schedule"


def _optimize(law: FittedLaw, args: argparse.Namespace, source, common: dict) -> tuple[list[Forecast], list[str]]:
    """The recommended schedule of the family (trainer.forecast.optimize) beside the config's own."""
    from trainer.forecast.optimize import recommend

    if args.grid or args.target is not None:
        raise ForecastError("--optimize chooses a schedule at one budget: give it without --grid and --target")
    one = dict(budget=_one(args.budgets, "--budgets", "--optimize"), ssr=_one(args.ssr, "--ssr", "--optimize"))
    found = recommend(law, source, **one, **common)
    ranked = sorted(found.tried, key=lambda f: f.final_loss)[:5]
    shown = f"{found.best.final_loss:.4f} ({_band(found.best)})"
    lines = [
        f"recommended ({found.best.label}, forecast {shown}): {_recommended(source, found.setting)}",
        f"{_own(source)}: forecast {found.baseline.final_loss:.4f} ({_band(found.baseline)})",
    ]
    if found.apart is False:
        lines.append(f"their {LEVEL:.0%} intervals overlap: the forecasts cannot tell the two apart")
    elif found.apart:
        lines.append(f"the recommendation's {LEVEL:.0%} interval lies wholly below the config's")
    lines += _runner_up(law, found) + _idle(found.best) + _beyond_ends(law, found.best)
    if law.law.name == "annealing":  # docs/forecast.md, "Recommend"
        lines.append(
            "note: the annealing law credits each decrease of the lr by its size alone, so it favours decaying to 0; "
            "fit --law multi-power on runs whose decays differ for a recommendation"
        )
    return [found.baseline, *ranked], lines


def _idle(best: Forecast) -> list[str]:
    """A note when the recommendation trains updates after its warmup at lr 0 (more than its last): a law that
    realizes a decrease after a delay (the annealing law) may drop early and wait, though nothing trains then
    (docs/forecast.md, "Does a recommendation win?")."""
    after = best.lrs[warmup_updates(best.lrs) :]
    idle = int((after <= IDLE * float(best.lrs.max())).sum())
    if idle <= 1:
        return []
    return [
        f"note: the recommendation trains {idle} of its {len(best.lrs)} updates ({idle / len(best.lrs):.0%}) at "
        "lr 0, where nothing trains: the law credits a decrease after a delay whether or not anything trains"
    ]


def _beyond_ends(law: FittedLaw, best: Forecast) -> list[str]:
    """A note when the recommendation ends higher (a multiplier of its peak lr) than every fitted run: the law
    then extrapolates to an end value no run showed, and on the bench it did so alike for seeds that measured
    opposite gaps (docs/forecast.md, "Does a recommendation win?"). Laws saved without the runs' last lr: none."""
    ends = [run["final_lr"] / run["peak_lr"] for run in law.runs if "final_lr" in run and run.get("peak_lr")]
    end = float(best.lrs[-1]) / float(best.lrs.max())
    if not ends or end <= max(ends) + ENDS_MARGIN:
        return []
    return [
        f"note: the recommendation ends at {end:.2f} of its peak lr, above every fitted run's end (at most "
        f"{max(ends):.2f}): the law extrapolates there (docs/forecast.md, 'Does a recommendation win?')"
    ]


def _runner_up(law: FittedLaw, found) -> list[str]:
    """The next best candidate, when its forecast is closer to the recommendation's than the noise of one fitted
    point: the law cannot rank the two (docs/forecast.md, "Recommend")."""
    others = [f for f in found.tried if f is not found.best]
    if not others:
        return []
    second = min(others, key=lambda f: f.final_loss)
    gap = second.final_loss / found.best.final_loss - 1
    if gap >= law.noise:
        return []
    return [
        f"the next best candidate ({second.label}) is forecast only {gap:+.2%} higher, within the fit's noise "
        f"({law.noise:.2%}): the forecasts cannot rank the two"
    ]


def _target(law: FittedLaw, args: argparse.Namespace, source, common: dict) -> tuple[list[Forecast], list[str]]:
    """The smallest budget likely to reach the target (its forecast does) and the one that surely does (its
    interval's upper end does)."""
    options = dict(budgets=args.budgets, ssr=args.ssr, **common)
    likely, tried = smallest_budget(law, source, args.target, **options)
    surely, more = smallest_budget(law, source, args.target, surely=True, **options)
    shown = {f.label: f for f in [*tried, *more]}
    found = sorted(shown.values(), key=lambda f: f.final_count)
    largest = found[-1].label
    if likely is None:
        return found, [f"no budget up to {largest} is forecast to reach {args.target:g}"]
    lines = [f"smallest budget forecast to reach {args.target:g}: {likely.label} ({likely.final_loss:.4f})"]
    if likely.final_interval is not None:
        if surely is None:
            lines.append(f"no budget up to {largest} surely reaches it (the {LEVEL:.0%} interval's upper end)")
        else:
            high = surely.final_interval[1]
            lines.append(f"smallest budget that surely reaches it: {surely.label} ({LEVEL:.0%} upper end {high:.4f})")
    return found, lines


def _apart(found: list[Forecast], best: int) -> list[str]:
    """Whether the best of a grid stands apart: a value whose interval holds the best's forecast, and whose
    forecast lies inside the best's interval, cannot be told from it."""
    band = found[best].final_interval
    if band is None:
        return []
    close = [
        f.label
        for i, f in enumerate(found)
        if i != best
        and f.final_interval is not None
        and f.final_interval[0] <= found[best].final_loss
        and f.final_loss <= band[1]
    ]
    if not close:
        return [f"its {LEVEL:.0%} interval holds no other value's forecast: it stands apart"]
    within = f"each forecast inside the other's {LEVEL:.0%} interval"
    return [f"the forecasts cannot tell it from {len(close)} other value(s) ({within}): {', '.join(close)}"]


def _grid(text: str) -> tuple[str, list[str]]:
    key, sep, values = text.partition("=")
    items = [value.strip() for value in values.split(",") if value.strip()]
    if not sep or not key.strip() or not items:
        raise ForecastError(f"--grid {text!r}: expected KEY.PATH=V1,V2,... (a config key and its values)")
    return key.strip(), items


def _one(values, option: str, asking: str):
    """The one value of ``option`` that ``asking`` (``--grid``, ``--optimize``) works at, or None."""
    if not values:
        return None
    if len(values) > 1:
        raise ForecastError(f"{asking} forecasts at one budget: give one value to {option}")
    return values[0]


def _table(law: FittedLaw, forecasts: list[Forecast]) -> str:
    unit = forecasts[0].unit if forecasts else "sample"
    header = ["forecast", "batches", f"{unit}s", f"final {law.loss_column}", f"{LEVEL:.0%} interval", ""]
    rows = [
        [
            f.label,
            str(f.batches),
            str(f.final_count),
            f"{f.final_loss:.4f}",
            _band(f),
            "extrapolates" * bool(f.warnings),
        ]
        for f in forecasts
    ]
    cells = [header, *rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    return "\n".join("  ".join(_align(row, widths)).rstrip() for row in cells)


def _band(forecast: Forecast) -> str:
    band = forecast.final_interval
    return "-" if band is None else f"{band[0]:.4f}-{band[1]:.4f}"


def _align(row: list[str], widths: list[int]) -> list[str]:
    cells = zip(row, widths, strict=True)
    return [cell.ljust(width) if i == 0 else cell.rjust(width) for i, (cell, width) in enumerate(cells)]


def _run_curves(law: FittedLaw, runs: list[str], logs: dict[str, RunCurve], args: argparse.Namespace) -> list[RunCurve]:
    """The fitted runs, read as the law read them (its loss column; a log as read before the fit)."""
    curves = []
    for run in runs:
        if run in logs:  # drawn as fitted: from --fit-from's step on
            curves.append(logs[run] if args.fit_from is None else points_from(logs[run], args.fit_from))
        elif is_log(run):  # a log named by a saved law
            curves.append(read_log(run, **_columns(args)))
        else:
            curves.append(read_run(run, loss="eval" if law.loss_column == "eval/loss" else "train"))
    return curves


def _key(run) -> str:
    """A RUN as a key of the runs read (as :func:`run_folders` spells it)."""
    return str(Path(run))


def _columns(args: argparse.Namespace) -> dict:
    return {"step_column": args.step_column, "lr_column": args.lr_column, "loss_column": args.loss_column}


def _read_logs(args: argparse.Namespace) -> dict[str, RunCurve]:
    """The RUNs that are other trainers' logs, read (their gaps filled by ``--schedule`` where it gives the
    logged lrs); with ``--fit-until``, its one run whatever it is. Keyed by the RUN as given."""
    found = {}
    for run in args.runs:
        if is_log(run):
            series = read_log_series(run, **_columns(args))
            recipe = _recipe(args, args.lr or series.peak_lr)
            found[_key(run)] = log_curve(series, None if recipe is None else recipe.lrs())
        elif args.fit_until is not None or args.fit_from is not None:
            found[_key(run)] = read_run(run, loss=args.loss, lr_column=args.lr_column)
    if not found and (args.step_column or args.loss_column):
        flag = "--step-column" if args.step_column else "--loss-column"
        raise ForecastError(
            f"{flag} names a column of another trainer's log (a CSV or TensorBoard folder); {args.runs[0]} is a "
            "Cadence run or a saved law (--loss chooses its eval or training loss)"
        )
    return found


def _recipe(args: argparse.Namespace, peak_lr: float) -> ScheduleRecipe | None:
    if args.schedule is None:
        return None
    return ScheduleRecipe(args.schedule, args.max_duration, peak_lr, args.dataloader_len)


def _schedule(args: argparse.Namespace, law: FittedLaw) -> ScheduleRecipe | None:
    """``--schedule``'s recipe at ``--lr``, else at the largest lr of the runs the law was fitted on."""
    if args.schedule is None:
        return None
    if args.lr is not None:
        return _recipe(args, args.lr)
    peaks = [run["peak_lr"] for run in law.runs if run.get("peak_lr")]
    if not peaks:
        raise ForecastError("--schedule: the law names no fitted run's peak lr: give the peak with --lr")
    return _recipe(args, max(peaks))


def _check_log_flags(args: argparse.Namespace) -> None:
    """The flags of logs and schedules that cannot apply together, each refused in one line before anything runs."""
    schedule = args.schedule is not None
    if schedule and args.config is not None:
        raise ForecastError("--schedule and --config each give the run to forecast: give one of them")
    if schedule and args.max_duration is None:
        raise ForecastError("--schedule needs --max-duration: its run's length (what 1dur means), e.g. 33908ba")
    for given, flag in (
        (args.max_duration, "--max-duration"),
        (args.lr, "--lr"),
        (args.dataloader_len, "--dataloader-len"),
    ):
        if given is not None and not schedule:
            where = "; a config's run lengths are --budgets" if flag == "--max-duration" else ""
            raise ForecastError(f"{flag} belongs to --schedule (its run's length, peak lr and epochs){where}")
    if schedule and args.overrides:
        raise ForecastError("--set changes a config: with --schedule, write the change into the expression")
    if args.fit_until is not None:
        _check_fit_until(args)
    if args.fit_from is not None and any(str(run).endswith(".json") for run in args.runs):
        raise ForecastError("--fit-from chooses the points a fit starts at: give logs or run folders, not a saved law")
    if args.fit_from is not None and args.fit_until is not None and args.fit_from >= args.fit_until:
        raise ForecastError(f"--fit-from {args.fit_from} must come before --fit-until {args.fit_until}")


def _check_fit_until(args: argparse.Namespace) -> None:
    if len(args.runs) != 1 or str(args.runs[0]).endswith(".json"):
        raise ForecastError("--fit-until fits one run's first part: give one log or run folder")
    others = [
        flag
        for flag, given in (
            ("--config", args.config),
            ("--budgets", args.budgets),
            ("--ssr", args.ssr),
            ("--target", args.target),
            ("--grid", args.grid),
            ("--optimize", args.optimize),
        )
        if given
    ]
    if others:
        raise ForecastError(
            f"--fit-until forecasts the rest of the run from its own lr curve: give it without {others[0]}"
        )
