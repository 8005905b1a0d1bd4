"""``budget_sweep(make_trainer, budgets, out=...)``: the sweep of a function that builds a Trainer.

``make_trainer(budget, **run)`` is called once per point with the budget as listed (a scale schedule ratio,
or a run length such as ``"600ba"``) and keyword arguments it must pass on to :class:`~trainer.Trainer`:
``save_folder`` and ``autoresume=True`` (the point's run folder), and for a WSD branch ``load_path`` (the
main run's checkpoint at its decay start). The sweep checks the trainer it gets (its folder, its budget),
adds a ``CSVLogger`` writing the point's ``metrics.csv`` (and, on the main run of a WSD sweep, the
:class:`~trainer.sweep.wsd.DecayStartCheckpoints` callback), and fits it. With ``jobs > 1`` the points run
in ``jobs`` processes started with ``spawn``: ``make_trainer`` must then be importable by name (a function
at the top level of a module, not a lambda or a closure), since it is pickled by reference.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs

from trainer.sweep import folders
from trainer.sweep.engine import check_jobs, run_points
from trainer.sweep.plan import SSR, Budget, SweepPoint, budgets_from_python, main_starts, plan_points
from trainer.sweep.running import Outcome

__all__ = ["PythonLauncher", "budget_sweep", "run_python_point"]

# the warning a branch's first resume gives on purpose (only max_duration changed)
_BRANCH_WARNING = r"resuming from .* with changed settings \(max_duration [^;()]*\)"


def budget_sweep(
    make_trainer: Callable[..., Any],
    budgets: Sequence[Any],
    *,
    out: str | os.PathLike,
    jobs: int = 1,
    branch_from_stable: bool = False,
) -> list[dict[str, Any]]:
    """Train ``make_trainer(budget, **run)`` once per budget into ``out/<point>`` and return the summary rows.

    Rerunning the same call skips finished points and resumes an interrupted one. Writes ``out/summary.csv``
    and, with matplotlib, ``out/sweep.png``; prints a line per point and the summary (docs/sweeps.md).

    Args:
        make_trainer: Builds the Trainer of one budget; it must pass ``**run`` on to ``Trainer``.
        budgets: Scale schedule ratios (numbers) or run lengths (time strings in one unit).
        out: The sweep's folder.
        jobs: How many points run at once (each in its own process when > 1).
        branch_from_stable: Run lengths only: the largest budget is the main run and the others branch from
            it at their decay start (see :mod:`trainer.sweep.wsd`).

    Returns:
        One summary row per point (``point``, ``budget``, ``batches``, ``final_train_loss``, ...).

    Raises:
        TypeError: ``make_trainer`` returned something other than a Trainer.
        ValueError: Bad ``jobs`` or budgets, ratios with ``branch_from_stable``, a ``make_trainer`` that cannot
            be pickled with ``jobs > 1``, or a trainer that does not have the budget or ``**run``.

    >>> import contextlib, io, tempfile, torch
    >>> from trainer import Trainer
    >>> def make_trainer(max_duration, **run):
    ...     model = torch.nn.Linear(2, 1)
    ...     return Trainer(model, [(torch.ones(4, 2), torch.zeros(4, 1))] * 2, max_duration,
    ...                    torch.optim.SGD(model.parameters(), lr=0.1), loss_fn=torch.nn.functional.mse_loss,
    ...                    progress_bar=False, print_schedule_report=False, **run)
    >>> with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(io.StringIO()), \\
    ...         contextlib.redirect_stderr(io.StringIO()):
    ...     rows = budget_sweep(make_trainer, ["2ba", "4ba"], out=out)
    >>> [(row["point"], row["trained_batches"]) for row in rows]
    [('max_duration-2ba', 2), ('max_duration-4ba', 4)]
    """
    from trainer.sweep.wsd import decay_starts

    jobs = check_jobs(jobs)
    planned = budgets_from_python(budgets)
    starts = None
    if branch_from_stable:
        if planned[0].kind == SSR:
            raise ValueError("branch_from_stable branches over run lengths: give budgets such as '300ba', not ratios")
        probe = _check_trainer(make_trainer(planned[-1].argument), planned[-1], None)
        starts = decay_starts(probe, [budget.value for budget in planned])
    if jobs > 1:
        _check_picklable(make_trainer, jobs)
    points = plan_points(planned, Path(out), starts)
    return run_points(points, PythonLauncher(make_trainer, points), Path(out), jobs)


def _check_picklable(make_trainer: Callable[..., Any], jobs: int) -> None:
    """A ValueError unless ``make_trainer`` pickles (by name), as running it in other processes needs."""
    try:
        pickle.dumps(make_trainer)
    except (pickle.PicklingError, AttributeError, TypeError) as error:
        raise ValueError(
            f"with jobs={jobs}, make_trainer must be importable by name (a module-level function) to run in "
            f"other processes; {make_trainer!r} cannot be pickled: {error}"
        ) from None


class PythonLauncher:
    """Runs points by calling ``make_trainer``: in this process with ``jobs=1``, else each in a process started
    with ``spawn`` (a stop signal to the sweep reaches it as it reaches a ``cadence fit`` process).

    Args:
        make_trainer: Builds a point's Trainer (see the module docstring); pickled by name with ``jobs > 1``.
        points: The sweep's plan (the main run of a WSD sweep gets the others' decay starts).

    Returns:
        The launcher of :func:`budget_sweep`. It writes no ``points.txt`` (a point is a call, not a command
        line), and an exception a point raises is the sweep's, raised again once the other points have ended.

    >>> from pathlib import Path
    >>> points = plan_points(budgets_from_python(["2ba", "4ba"]), Path("out"))
    >>> launcher = PythonLauncher(print, points)
    >>> launcher.command(points[0]) is None, launcher.poll(None)
    (True, Outcome(status=0, output='above', error=None))
    """

    passes_claims = True  # the lock stays with this process, which outlives the points

    def __init__(self, make_trainer: Callable[..., Any], points: list[SweepPoint]) -> None:
        self.make_trainer = make_trainer
        self.starts = main_starts(points)
        self.jobs = 1

    def command(self, point: SweepPoint) -> None:
        """No command line: a point is a call of ``make_trainer``, so the sweep writes no ``points.txt``.

        Args:
            point: A point of the plan.
        """
        return None  # a function call, not a command line

    @contextlib.contextmanager
    def session(self, jobs: int) -> Iterator[None]:
        """Around the sweep's runs: ``jobs`` points at once (1: in this process).

        Args:
            jobs: How many points run at once.

        Returns:
            A context manager with nothing to connect to or let go of.
        """
        self.jobs = jobs
        yield

    def start(self, points: list[SweepPoint], claims: dict[str, folders.Claim]) -> list[Any]:
        """Fit ``points``: here and now with ``jobs=1`` (the call returns once they have trained), else each in a
        spawned process.

        Args:
            points: The points to start now.
            claims: The sweep's locks on their folders (this process holds them: it outlives the points).

        Returns:
            One handle per point: None for a point fitted here, else its process and the pipe it reports on.

        Raises:
            Exception: What ``make_trainer`` or the fit of a point run here raised.
        """
        if self.jobs == 1:  # here and now: a point's exception is the sweep's
            for point in points:
                run_python_point(self.make_trainer, point, self.starts)
            return [None] * len(points)
        # imported here: loading multiprocessing's spawn machinery costs time that `import trainer` should not pay
        from multiprocessing import get_context

        context = get_context("spawn")
        handles = []
        for point in points:
            receive, send = context.Pipe(duplex=False)
            process = context.Process(target=_point_process, args=(self.make_trainer, point, self.starts, send))
            process.start()
            send.close()
            handles.append(_PointProcess(process, receive))
        return handles

    def poll(self, handle: _PointProcess | None) -> Outcome | None:
        """The point's outcome once it has ended, else None.

        Args:
            handle: What :meth:`start` gave for the point.

        Returns:
            Status 0 for a point fitted here; for a spawned one its exit status, or status 1 and the exception it
            sent; output ``"above"`` (on the sweep's terminal) either way. None while it runs.
        """
        if handle is None:
            return Outcome(0, "above")
        if handle.error is None and handle.receive.poll():
            handle.error = handle.receive.recv() or False
        if handle.process.is_alive():
            return None
        handle.process.join()
        if handle.error:
            return Outcome(1, "above", handle.error)
        return Outcome(handle.process.exitcode, "above")

    def signal(self, handle: _PointProcess | None, signum: int) -> None:
        """Send ``signum`` to a spawned point's process, if it still runs (a point run here has ended).

        Args:
            handle: What :meth:`start` gave for the point.
            signum: The stop signal to pass on.
        """
        if handle is not None and handle.process.is_alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(handle.process.pid, signum)

    def kill(self, handle: _PointProcess | None) -> None:
        """End a spawned point's process at once and wait for it.

        Args:
            handle: What :meth:`start` gave for the point.
        """
        if handle is not None:
            handle.process.kill()
            handle.process.join()


@attrs.define
class _PointProcess:
    process: Any
    receive: Any
    error: BaseException | bool | None = None  # what the point sent: False (trained), or its exception


def _point_process(make_trainer: Callable[..., Any], point: SweepPoint, starts: dict[str, str], send: Any) -> None:
    """A spawned point: fit it and send False, or the exception it raised (its exit status follows a stop)."""
    try:
        run_python_point(make_trainer, point, starts)
    except SystemExit:  # a stop signal: the trainer saved and exits 128 + the signal
        raise
    except BaseException as error:
        try:
            send.send(error)
        except Exception:  # an exception that does not pickle: its text
            send.send(RuntimeError(f"{type(error).__name__}: {error}"))
        raise SystemExit(1) from None
    send.send(False)


def run_python_point(make_trainer: Callable[..., Any], point: SweepPoint, starts: dict[str, str]) -> float:
    """Build ``point``'s trainer with ``make_trainer``, fit it, and return the wall time in seconds.

    The trainer gets the point's folder with autoresume (a branch: the main run's checkpoint at its decay start),
    a ``CSVLogger`` writing ``metrics.csv``, and, on a WSD sweep's main run, the decay-start checkpoints.

    Args:
        make_trainer: Builds the Trainer of one budget, passing ``**run`` on.
        point: The point to fit.
        starts: The decay starts the main run saves at (:func:`~trainer.sweep.plan.main_starts`; empty: none).

    Returns:
        The seconds from the call of ``make_trainer`` to the end of the fit.

    Raises:
        TypeError, ValueError: ``make_trainer`` returned no Trainer, or one without the budget or ``**run``.

    >>> import contextlib, io, tempfile, torch
    >>> from trainer import Trainer
    >>> def make_trainer(max_duration, **run):
    ...     model = torch.nn.Linear(2, 1)
    ...     return Trainer(model, [(torch.ones(4, 2), torch.zeros(4, 1))] * 2, max_duration,
    ...                    torch.optim.SGD(model.parameters(), lr=0.1), loss_fn=torch.nn.functional.mse_loss,
    ...                    progress_bar=False, print_schedule_report=False, **run)
    >>> with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(io.StringIO()), \\
    ...         contextlib.redirect_stderr(io.StringIO()):
    ...     point = plan_points(budgets_from_python(["2ba"]), Path(out))[0]
    ...     seconds = run_python_point(make_trainer, point, {})
    ...     rows = folders.read_rows(point.folder / folders.METRICS)
    >>> [row["batch"] for row in rows], seconds > 0
    (['1', '2'], True)
    """
    from trainer.callbacks import ProgressBar
    from trainer.loggers import CSVLogger, LoggerCallback
    from trainer.sweep.wsd import DecayStartCheckpoints

    start = time.perf_counter()
    run: dict[str, Any] = {"save_folder": str(point.folder), "autoresume": True}
    if point.is_branch and point.start_folder is not None:
        run["load_path"] = str(point.start_folder)
    with warnings.catch_warnings():
        if point.is_branch:
            warnings.filterwarnings("ignore", message=_BRANCH_WARNING, category=UserWarning)
        trainer = _check_trainer(make_trainer(point.budget.argument, **run), point.budget, point.folder)
    trainer.callbacks.append(LoggerCallback([CSVLogger(point.folder / folders.METRICS)]))  # a resumed run appends
    if point.is_main and starts:
        trainer.callbacks.append(DecayStartCheckpoints(starts))
    for callback in trainer.callbacks:
        if isinstance(callback, ProgressBar) and callback.desc is None:
            callback.desc = point.name
    trainer.fit()
    return time.perf_counter() - start


def _check_trainer(trainer: Any, budget: Budget, folder: Path | None) -> Any:
    """``trainer`` if it is a Trainer built for ``budget`` in ``folder``; else a TypeError/ValueError saying why."""
    from trainer.trainer import Trainer

    call = f"make_trainer({budget.argument!r}, ...)"
    if not isinstance(trainer, Trainer):
        raise TypeError(f"{call} must return a trainer.Trainer, got {type(trainer).__name__}")
    state = trainer.state
    if budget.kind == SSR and state.ssr != budget.value:
        raise ValueError(f"{call} built a trainer with scale_schedule_ratio={state.ssr}: pass the budget on to Trainer")
    if budget.kind != SSR and state.unscaled_max_duration != budget.value:
        raise ValueError(
            f"{call} built a trainer with max_duration={state.unscaled_max_duration}: pass the budget on to Trainer"
        )
    if folder is not None and (trainer.save_folder is None or Path(trainer.save_folder).resolve() != folder.resolve()):
        raise ValueError(f"{call} built a trainer with save_folder={trainer.save_folder}: pass **run on to Trainer")
    return trainer
