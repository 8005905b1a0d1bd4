"""Composer 0.32.1's own ``Trainer`` on a loader of 7 batches a pass, with and without ``__len__``: the lr each
optimizer step trained at, recorded once; the reference of the tests of a loader without a length
(tests/trainer/test_trainer_unsized_loader.py, tests/integrations/test_huggingface.py, test_lightning.py).

How they were recorded: ``python tests/composer_unsized_reference.py`` run in a virtualenv holding torch and
``mosaicml==0.32.1`` (Composer's pins do not resolve beside torch 2.13: ``pip install --no-deps mosaicml==0.32.1``,
then its runtime dependencies one by one, with a stand-in ``torchvision`` module), with this checkout on
``PYTHONPATH``. It runs Composer's ``Trainer`` (``max_duration="21ba"``: Composer refuses a ``max_duration`` in
epochs for a loader without a length) on 7 batches of 2 samples a pass, reads the lr in an
``optimizer.register_step_pre_hook`` (the value ``optimizer.step()`` uses), checks that the loader with
``__len__`` and the one without give the same values, and that they are the values below.

What Composer does (composer/trainer/trainer.py, ``_train_loop``): per batch, it steps its schedulers after the
optimizer step and *before* ``to_next_batch``, so batch ``k`` trains with α at ``k − 1`` batches (Cadence: at ``k``,
docs/composer-deviations.md, deviation 4); per epoch, it steps them *before* ``to_next_epoch``. An epoch's end is
known only when the loader's next ``next()`` raises ``StopIteration``, and Composer closes every epoch there, after
the loop over the loader, sized or not: so a loader without ``__len__`` changes none of its values. A time in
``ep`` (``MultiStepScheduler(milestones=["1ep", "2ep"])``) cannot be read without a length: Composer raises
``RuntimeError: Cannot convert time, as state.dataloader_len is None.``; Cadence a ``MissingDataloaderLenError``.
"""

from __future__ import annotations

BATCHES_PER_PASS = 7  # not 8: an epoch that ends on a power of two hides an off-by-one
RUN_BATCHES = 21  # three passes


def halving_per_epoch(state, ssr: float = 1.0) -> float:
    """0.5 to the power of the epochs completed: a schedule that depends on the epoch count alone.

    Args:
        state: Composer's or Cadence's state (its ``timestamp.epoch.value``).
        ssr: The scale schedule ratio (unused).

    Returns:
        :math:`0.5^{e}` at epoch :math:`e`.
    """
    return 0.5 ** int(state.timestamp.epoch.value)


# (schedule, stepping) -> the lr of each of the 21 optimizer steps (base lr 1.0), with or without __len__ alike.
# "multistep" is Composer's MultiStepScheduler(milestones=["7ba", "14ba"], gamma=0.5).
COMPOSER_LRS = {
    ("halving_per_epoch", "per_batch"): [1.0] * 8 + [0.5] * 7 + [0.25] * 6,
    ("halving_per_epoch", "per_epoch"): [1.0] * 14 + [0.5] * 7,
    ("multistep", "per_batch"): [1.0] * 8 + [0.5] * 7 + [0.25] * 6,
    ("multistep", "per_epoch"): [1.0] * 7 + [0.5] * 7 + [0.25] * 7,
}


def _record() -> dict:  # pragma: no cover - needs Composer, run by hand
    """Composer's values of every case, each run on a loader with ``__len__`` and one without."""
    import torch
    from composer import Trainer
    from composer.models import ComposerModel
    from composer.optim import MultiStepScheduler

    class Regression(ComposerModel):
        def __init__(self) -> None:
            super().__init__()
            self.net = torch.nn.Linear(2, 1)

        def forward(self, batch):
            return self.net(batch[0])

        def loss(self, outputs, batch):
            return torch.nn.functional.mse_loss(outputs, batch[1])

    generator = torch.Generator().manual_seed(0)
    rows = [(torch.randn(2, generator=generator), torch.randn(1, generator=generator)) for _ in range(14)]

    class Streamed(torch.utils.data.IterableDataset):
        def __iter__(self):
            return iter(rows)

    def lrs(schedule, stepping: str, sized: bool) -> list[float]:
        torch.manual_seed(0)
        model = Regression()
        optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
        seen: list[float] = []
        optimizer.register_step_pre_hook(lambda opt, args, kwargs: seen.append(opt.param_groups[0]["lr"]))
        loader = torch.utils.data.DataLoader(rows if sized else Streamed(), batch_size=2)
        Trainer(
            model=model,
            train_dataloader=loader,
            max_duration=f"{RUN_BATCHES}ba",
            optimizers=optimizer,
            schedulers=schedule,
            step_schedulers_every_batch=stepping == "per_batch",
            progress_bar=False,
            log_to_console=False,
            device="cpu",
        ).fit()
        return seen

    schedules = {
        "halving_per_epoch": lambda: halving_per_epoch,
        "multistep": lambda: MultiStepScheduler(milestones=["7ba", "14ba"], gamma=0.5),
    }
    recorded = {}
    for name, stepping in COMPOSER_LRS:
        sized, unsized = (lrs(schedules[name](), stepping, sized) for sized in (True, False))
        assert sized == unsized, (name, stepping, sized, unsized)
        recorded[name, stepping] = sized
    return recorded


if __name__ == "__main__":  # pragma: no cover
    found = _record()
    for case, values in found.items():
        print(case, values, "as recorded" if values == COMPOSER_LRS[case] else f"RECORDED {COMPOSER_LRS[case]}")
    assert found == COMPOSER_LRS
