"""The launchers of ``cadence sweep`` by name (docs/cluster.md): ``local`` (processes on this machine),
``ray`` (a Ray cluster, or a Ray instance of the sweep's own) and ``slurm`` (a Slurm job array, through
submitit). Each runs the points' lines of ``points.txt``; which options each takes is its constructor's.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path
from typing import Any

from schedulers.core.schedule_arguments import choice_problem

__all__ = ["LAUNCHERS", "make_launcher"]

LAUNCHERS = ("local", "ray", "slurm")
EXTRAS = {"ray": "ray", "slurm": "submitit"}  # a launcher's extra (pip install 'cadence[ray]') and its module


def make_launcher(name: str, lines: Any, out: Path, **options: Any) -> Any:
    """The launcher ``name`` for the points whose lines ``lines`` holds, with its ``options``:

    - ``local``: none;
    - ``ray``: ``address``, ``cpus_per_point``, ``gpus_per_point`` (:class:`~trainer.sweep.ray_launcher.RayLauncher`);
    - ``slurm``: ``partition``, ``time``, ``cpus_per_point``, ``gpus_per_point``, ``slurm`` (more ``#SBATCH``
      options), ``cluster`` (:class:`~trainer.sweep.slurm_launcher.SlurmLauncher`).

    Args:
        name: ``local``, ``ray`` or ``slurm`` (``--launcher``).
        lines: The points' ``cadence fit`` lines and environments (a :class:`~trainer.sweep.config_sweep.PointLines`).
        out: The sweep's folder (the Slurm launcher writes its job array's scripts and logs there).
        **options: The launcher's options as the CLI gives them; None means not given.

    Returns:
        The launcher, which the sweep's runner drives (start, poll, signal, kill).

    Raises:
        ImportError: The launcher's extra (``ray``, ``submitit``) is not installed, naming the pip line.
        ValueError: An unknown launcher (with "did you mean"), or an option it does not take.

    >>> make_launcher("local", lines=None, out=Path(".")).jobs
    1
    >>> make_launcher("locl", lines=None, out=Path("."))
    Traceback (most recent call last):
    ...
    ValueError: launcher='locl' must be one of 'local', 'ray', 'slurm' (did you mean 'local'?)
    """
    if name in EXTRAS:
        try:
            importlib.import_module(EXTRAS[name])
        except ImportError:
            raise ImportError(f"--launcher {name} needs {EXTRAS[name]}: pip install 'cadence[{name}]'") from None
    if name == "local":
        from trainer.sweep.local_launcher import LocalLauncher as launcher
    elif name == "ray":
        from trainer.sweep.ray_launcher import RayLauncher as launcher
    elif name == "slurm":
        from trainer.sweep.slurm_launcher import SlurmLauncher as launcher
    else:
        raise ValueError(f"launcher={name!r} {choice_problem(name, LAUNCHERS)}")
    accepted = [key for key, p in inspect.signature(launcher).parameters.items() if p.kind is p.KEYWORD_ONLY]
    given = {key: value for key, value in options.items() if value is not None}
    unknown = sorted(set(given) - set(accepted))
    if unknown:
        takes = ", ".join(accepted) or "no options"
        raise ValueError(f"the {name} launcher does not take {', '.join(unknown)} (it takes {takes})")
    arguments = (lines, Path(out)) if name == "slurm" else (lines,)
    return launcher(*arguments, **given)
