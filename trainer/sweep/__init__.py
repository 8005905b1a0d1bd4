"""Budget sweeps: train one recipe at several compute budgets and compare them (docs/sweeps.md).

- ``cadence sweep CONFIG --ssr 0.25 0.5 1.0`` (or ``--max-duration 2ep 4ep 8ep``): one ordinary run folder
  per budget under ``--out``, the ``cadence fit`` command of each in ``points.txt``, ``--jobs N`` points at
  once, ``summary.csv`` and ``sweep.png`` at the end; rerunning the command skips finished points and
  resumes an interrupted one (:mod:`trainer.sweep.config_sweep`).
- ``cadence sweep CONFIG --branch-from-stable --budgets 0.25dur 0.5dur 1dur``: with a warmup-stable-decay
  schedule, one main run to the largest budget and a short decay branch per smaller budget, each equal to
  its standalone run (:mod:`trainer.sweep.wsd`).
- :func:`budget_sweep` does the same for a function ``make_trainer(budget, **run) -> Trainer``
  (:mod:`trainer.sweep.python_sweep`).

- ``cadence sweep ... --launcher ray`` or ``--launcher slurm``: the same points on a cluster
  (:mod:`trainer.sweep.launchers`, docs/cluster.md).

The modules: :mod:`~trainer.sweep.plan` (budgets and points), :mod:`~trainer.sweep.folders` (a point's
folder, finished or resumable), :mod:`~trainer.sweep.engine` (skip, run, summarize),
:mod:`~trainer.sweep.running` (when each point starts, how a stop reaches it: every launcher's),
the launchers (:mod:`~trainer.sweep.local_launcher`, :mod:`~trainer.sweep.ray_launcher`,
:mod:`~trainer.sweep.slurm_launcher`, a point's cluster job :mod:`~trainer.sweep.remote`),
:mod:`~trainer.sweep.summary` (``summary.csv`` and the compute figure), :mod:`~trainer.sweep.picture`.
"""

from trainer.sweep.python_sweep import budget_sweep
from trainer.sweep.running import SweepError
from trainer.sweep.wsd import BranchingError, DecayStartCheckpoints

__all__ = ["BranchingError", "DecayStartCheckpoints", "SweepError", "budget_sweep"]
