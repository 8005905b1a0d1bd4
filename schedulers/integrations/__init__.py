"""Cadence schedules inside other training loops.

* :mod:`schedulers.integrations.lightning`: :func:`~schedulers.integrations.lightning.lightning_scheduler_config`
  returns the ``lr_scheduler`` entry for a LightningModule's ``configure_optimizers``, driven by Lightning's
  own step count (PyTorch Lightning is imported only when it is used).
* :mod:`schedulers.integrations.huggingface`: :func:`~schedulers.integrations.huggingface.huggingface_scheduler`
  returns the scheduler for the Hugging Face ``Trainer``'s ``optimizers=`` and the callback that keeps its
  clock at the Trainer's step (transformers is imported only when it is used).
* A plain PyTorch loop needs no integration: :class:`schedulers.core.clock.Clock` is the state to advance.

docs/integrations.md shows all three, with a table of what each supports.
"""

__all__: list[str] = []
