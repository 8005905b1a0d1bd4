"""Cadence schedules inside other training loops.

* :mod:`schedulers.integrations.lightning`: :func:`~schedulers.integrations.lightning.lightning_scheduler_config`
  returns the ``lr_scheduler`` entry for a LightningModule's ``configure_optimizers``, driven by Lightning's
  own step count (PyTorch Lightning is imported only when it is used).
* A plain PyTorch loop needs no integration: :class:`schedulers.core.clock.Clock` is the state to advance.

docs/integrations.md shows all three, and Hugging Face's ``Trainer`` as well.
"""

__all__: list[str] = []
