"""Every door hears the run: a plateau under Hugging Face and Lightning reduces as their own plateau does, and a
door that cannot deliver evaluations to a schedule that listens refuses it at the start in one line.

transformers, accelerate and Lightning are in the test extra (docs/integrations.md). Every run is tiny and
writes only below the test's tmp_path.
"""

from __future__ import annotations

import importlib
import os
import warnings

import pytest
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau

from schedulers import PlateauScheduler, Warmup
from schedulers.integrations.huggingface import huggingface_scheduler
from schedulers.integrations.lightning import lightning_scheduler_config

_IN_CI = os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")
os.environ.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HF_HUB_DISABLE_TELEMETRY="1")


def _import(*names: str):
    for name in names:
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError:
            continue
    message = f"{names[-1]} is not installed: pip install -e '.[test]'"
    if _IN_CI:
        raise ImportError(message)  # docs/integrations.md: in CI a missing dependency fails
    pytest.skip(message, allow_module_level=True)


_import("accelerate")
transformers = _import("transformers")
pl = _import("lightning.pytorch", "pytorch_lightning")

pytestmark = [
    pytest.mark.filterwarnings("ignore::FutureWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:.*does not have many workers:UserWarning"),
]

BASE_LR = 0.1
# factor 0.5, patience 1, a threshold few evaluations beat: several reductions in 30 steps
PLATEAU = {"factor": 0.5, "patience": 1, "threshold": 0.2}


@pytest.fixture(autouse=True)
def _in_tmp_path_on_one_thread(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# -- Hugging Face --------------------------------------------------------------------------------------------


class Regression(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.layer = torch.nn.Linear(3, 1)

    def forward(self, x, labels):
        out = self.layer(x)
        return {"loss": torch.nn.functional.mse_loss(out, labels), "logits": out}


def _data(samples: int, seed: int) -> list[dict[str, torch.Tensor]]:
    generator = torch.Generator().manual_seed(seed)
    return [
        {"x": torch.randn(3, generator=generator), "labels": torch.randn(1, generator=generator)}
        for _ in range(samples)
    ]


class LRs(transformers.TrainerCallback):
    """The lr of every optimizer step, by the step."""

    def __init__(self) -> None:
        self.lrs: dict[int, float] = {}

    def on_pre_optimizer_step(self, args, state, control, optimizer=None, **kwargs):
        self.lrs[state.global_step] = optimizer.param_groups[0]["lr"]


def _args(**changes) -> transformers.TrainingArguments:
    settings = dict(
        output_dir="out",
        max_steps=30,
        per_device_train_batch_size=4,
        learning_rate=BASE_LR,
        eval_strategy="steps",
        eval_steps=3,
        save_strategy="steps",
        save_steps=12,
        use_cpu=True,
        report_to="none",
        disable_tqdm=True,
        seed=0,
    )
    settings.update(changes)
    return transformers.TrainingArguments(**settings)


def _hf_run(cadence: bool, resume_from: str | None = None, **changes) -> dict[int, float]:
    return _hf_trained(cadence, resume_from, **changes)[1].lrs


def _hf_trained(cadence: bool, resume_from: str | None = None, **changes):
    """A Trainer trained with Cadence's plateau or Hugging Face's own, the lr recorder and the optimizer."""
    model = Regression()
    optimizer = torch.optim.SGD(model.parameters(), lr=BASE_LR)
    train, evaluation = _data(40, 1), _data(12, 2)
    callbacks = [recorder := LRs()]
    if cadence:
        args = _args(**changes)
        scheduler, clock = huggingface_scheduler(PlateauScheduler(**PLATEAU), optimizer, args, train)
        callbacks.append(clock)
    else:  # Hugging Face's own plateau, on the same metric (eval_loss)
        args = _args(lr_scheduler_type="reduce_lr_on_plateau", lr_scheduler_kwargs=PLATEAU, **changes)
        scheduler = None
    trainer = transformers.Trainer(
        model=model,
        args=args,
        train_dataset=train,
        eval_dataset=evaluation,
        optimizers=(optimizer, scheduler),
        callbacks=callbacks,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        trainer.train(resume_from_checkpoint=resume_from)
    return trainer, recorder, optimizer


def test_hugging_face_plateau_reduces_as_hugging_faces_own_plateau_and_after_a_resume() -> None:
    theirs = _hf_run(cadence=False)
    ours = _hf_run(cadence=True)
    assert sorted(ours) == sorted(theirs) == list(range(30))
    assert len(set(theirs.values())) >= 3  # at least two reductions happened
    for step in theirs:
        assert ours[step] == pytest.approx(theirs[step], rel=1e-12), step
    resumed = _hf_run(cadence=True, resume_from="out/checkpoint-12")
    assert sorted(resumed) == list(range(12, 30))
    for step in resumed:
        assert resumed[step] == pytest.approx(theirs[step], rel=1e-12), step


def test_hugging_face_plateau_with_eval_on_start_reduces_as_hugging_faces_own_plateau() -> None:
    """The Trainer's evaluation before the first step (``eval_on_start``) does not step its own plateau: Cadence's
    does not hear it either, and cuts the lr at exactly the same steps."""
    theirs = _hf_run(cadence=False, eval_on_start=True)
    ours = _hf_run(cadence=True, eval_on_start=True)
    assert sorted(ours) == sorted(theirs) == list(range(30))
    cuts = [step for step in range(1, 30) if theirs[step] < theirs[step - 1]]
    assert len(cuts) >= 2
    assert [step for step in range(1, 30) if ours[step] < ours[step - 1]] == cuts
    for step in theirs:
        assert ours[step] == pytest.approx(theirs[step], rel=1e-12), step


@pytest.mark.parametrize("prefix", ["test", "eval"])
def test_hugging_face_evaluations_after_training_neither_raise_nor_change_the_lr(prefix) -> None:
    """Evaluations the user runs after ``train()`` (a test set's, named ``test_loss``, or the eval set's again,
    three times: enough to reduce a plateau of patience 1 that heard them) leave the lr as training left it."""
    trainer, recorder, optimizer = _hf_trained(cadence=True)
    scheduler = trainer.lr_scheduler
    trained = (optimizer.param_groups[0]["lr"], scheduler.get_last_lr(), scheduler.scheduler.reductions)
    assert trained[0] < BASE_LR  # the plateau reduced while training
    for _ in range(3):
        metrics = trainer.evaluate(metric_key_prefix=prefix)
        assert f"{prefix}_loss" in metrics
    assert (optimizer.param_groups[0]["lr"], scheduler.get_last_lr(), scheduler.scheduler.reductions) == trained


def test_hugging_face_metric_named_either_way() -> None:
    named = {}
    for monitor in ("eval/loss", "eval_loss"):
        model = Regression()
        optimizer = torch.optim.SGD(model.parameters(), lr=BASE_LR)
        train = _data(40, 1)
        plateau = PlateauScheduler(monitor=monitor, **PLATEAU)
        scheduler, clock = huggingface_scheduler(plateau, optimizer, _args(max_steps=12), train)
        trainer = transformers.Trainer(
            model=model,
            args=_args(max_steps=12),
            train_dataset=train,
            eval_dataset=_data(12, 2),
            optimizers=(optimizer, scheduler),
            callbacks=[clock],
        )
        trainer.train()
        named[monitor] = scheduler.scheduler.reductions
    assert named["eval/loss"] == named["eval_loss"] and named["eval/loss"]


def test_hugging_face_refuses_a_listening_schedule_without_an_eval_strategy() -> None:
    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=BASE_LR)
    schedule = Warmup(PlateauScheduler(), t_warmup="2ba")
    with pytest.raises(
        ValueError, match=r"^Warmup\(\.\.\.\) listens to eval/loss .* never evaluates: set eval_strategy"
    ):
        huggingface_scheduler(schedule, optimizer, _args(eval_strategy="no"), 40)


def test_hugging_face_says_once_that_its_own_scheduler_settings_are_replaced() -> None:
    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=BASE_LR)
    args = _args(lr_scheduler_type="cosine", warmup_steps=3, lr_scheduler_kwargs={"num_cycles": 2})
    with pytest.warns(UserWarning) as caught:
        huggingface_scheduler(PlateauScheduler(), optimizer, args, 40)
    said = [str(w.message) for w in caught if "Cadence's schedule replaces" in str(w.message)]
    assert len(said) == 1
    (replaced,) = [w for w in caught if "Cadence's schedule replaces" in str(w.message)]
    assert replaced.filename == __file__, replaced.filename  # it points at the user's line, not the integration
    assert "lr_scheduler_type='cosine'" in said[0] and "warmup_steps=3" in said[0] and "num_cycles" in said[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing set: nothing said
        huggingface_scheduler(PlateauScheduler(), optimizer, _args(), 40)


def test_a_warning_given_while_the_trainer_loads_scheduler_pt_reaches_the_user() -> None:
    _hf_run(cadence=True)  # checkpoint-12 of a run of 10 steps an epoch
    model = Regression()
    optimizer = torch.optim.SGD(model.parameters(), lr=BASE_LR)
    train = _data(24, 1)  # 6 steps an epoch now
    scheduler, clock = huggingface_scheduler(PlateauScheduler(**PLATEAU), optimizer, _args(), train)
    trainer = transformers.Trainer(
        model=model,
        args=_args(),
        train_dataset=train,
        eval_dataset=_data(12, 2),
        optimizers=(optimizer, scheduler),
        callbacks=[clock],
    )
    with pytest.warns(RuntimeWarning, match=r"while resuming: .*dataloader_len 10 -> 6"):
        trainer.train(resume_from_checkpoint="out/checkpoint-12")


# -- Lightning -----------------------------------------------------------------------------------------------


class Validated(pl.LightningModule):
    """A linear regression that logs ``val_loss`` and records the lr of every training batch."""

    def __init__(self, schedule, config_changes=None, **kwargs) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.layer = torch.nn.Linear(3, 1)
        self.schedule, self.config_changes, self.kwargs = schedule, config_changes or {}, kwargs
        self.lrs: dict[int, float] = {}
        self.heard: list[tuple[int, float]] = []

    def training_step(self, batch, batch_idx):
        self.lrs[self.trainer.global_step] = self.optimizers().param_groups[0]["lr"]
        x, y = batch
        return torch.nn.functional.mse_loss(self.layer(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", torch.nn.functional.mse_loss(self.layer(x), y))

    def on_validation_end(self):
        if not self.trainer.sanity_checking:
            self.heard.append((self.trainer.global_step, float(self.trainer.callback_metrics["val_loss"])))

    def configure_optimizers(self):
        optimizer = torch.optim.SGD(self.parameters(), lr=BASE_LR)
        config = lightning_scheduler_config(self.schedule, optimizer, self, **self.kwargs)
        return {"optimizer": optimizer, "lr_scheduler": {**config, **self.config_changes}}


class NotValidated(Validated):
    validation_step = pl.LightningModule.validation_step


def _loader(samples: int, seed: int) -> torch.utils.data.DataLoader:
    generator = torch.Generator().manual_seed(seed)
    data = torch.utils.data.TensorDataset(torch.randn(samples, 3, generator=generator), torch.randn(samples, 1))
    return torch.utils.data.DataLoader(data, batch_size=4)


def _quiet_lightning(**changes) -> pl.Trainer:
    """A Lightning Trainer on the CPU that writes and prints nothing: 30 steps, a validation every 3."""
    settings = dict(
        accelerator="cpu",
        devices=1,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        max_steps=30,
        val_check_interval=3,
        num_sanity_val_steps=1,
    )
    return pl.Trainer(**{**settings, **changes})


def _lightning_fit(module: Validated, **changes) -> None:
    trainer = _quiet_lightning(**changes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trainer.fit(module, _loader(160, 1), _loader(12, 2))


def test_lightning_plateau_reduces_as_torch_reduce_lr_on_plateau_fed_the_monitored_metric() -> None:
    module = Validated(Warmup(PlateauScheduler(**PLATEAU), t_warmup="0ba"), monitor="val_loss")
    _lightning_fit(module)
    assert [step for step, _ in module.heard] == list(range(3, 31, 3))  # the sanity check is not heard
    reference = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=BASE_LR)
    torch_plateau = ReduceLROnPlateau(reference, **PLATEAU)
    expected, heard = {}, list(module.heard)
    for step in range(30):
        while heard and heard[0][0] <= step:
            torch_plateau.step(heard.pop(0)[1])
        expected[step] = reference.param_groups[0]["lr"]
    assert len(set(expected.values())) >= 3  # at least two reductions happened
    assert sorted(module.lrs) == list(range(30))
    for step in expected:
        assert module.lrs[step] == pytest.approx(expected[step], rel=1e-12), step


def test_lightning_config_monitor_key_feeds_the_plateau_too() -> None:
    by_argument = Validated(PlateauScheduler(**PLATEAU), monitor="val_loss")
    _lightning_fit(by_argument)
    by_key = Validated(PlateauScheduler(**PLATEAU), config_changes={"monitor": "val_loss"})
    _lightning_fit(by_key)
    assert by_key.lrs == by_argument.lrs and len(set(by_key.lrs.values())) >= 2


def test_lightning_refuses_a_listening_schedule_without_a_monitor() -> None:
    with pytest.raises(ValueError, match=r"^PlateauScheduler\(\.\.\.\) listens to eval/loss, but Lightning names no "):
        _lightning_fit(Validated(PlateauScheduler()))


def test_lightning_refuses_reduce_on_plateau_with_the_way_that_works() -> None:
    changes = {"reduce_on_plateau": True, "monitor": "val_loss"}
    with pytest.raises(ValueError, match=r"^reduce_on_plateau=True .*drop reduce_on_plateau and pass monitor="):
        _lightning_fit(Validated(PlateauScheduler(), config_changes=changes))


def test_lightning_refuses_a_listening_schedule_in_a_run_that_never_validates() -> None:
    with pytest.raises(ValueError, match=r"never evaluates: give the LightningModule a validation_step"):
        _lightning_fit(NotValidated(PlateauScheduler(), monitor="val_loss"), num_sanity_val_steps=0)
    with pytest.raises(ValueError, match=r"never evaluates: .*limit_val_batches > 0"):
        _lightning_fit(Validated(PlateauScheduler(), monitor="val_loss"), limit_val_batches=0)


# -- an evaluation is heard once (issue 38): the glue users wrote before the integrations fed evaluations ------

ONCE = {"factor": 0.5, "patience": 1}  # torch's threshold: fed twice, the plateau would reduce at 9, 12 and 15


def _fed_twice(caught) -> list[warnings.WarningMessage]:
    return [w for w in caught if " was fed the evaluation at " in str(w.message)]


class HuggingFaceGlue(transformers.TrainerCallback):
    """The old glue: each evaluation's loss told to the scheduler by hand."""

    def __init__(self, scheduler) -> None:
        self.scheduler = scheduler

    def on_evaluate(self, args, state, control, metrics=None, **kwargs):
        self.scheduler.observe({"eval/loss": metrics["eval_loss"]})


def _hf_glued(glue_first: bool, **changes) -> tuple[list[float], float, list[warnings.WarningMessage]]:
    model = Regression()
    optimizer = torch.optim.SGD(model.parameters(), lr=BASE_LR)
    train = _data(40, 1)
    args = _args(**changes)
    scheduler, clock = huggingface_scheduler(PlateauScheduler(**ONCE), optimizer, args, train)
    glue, recorder = HuggingFaceGlue(scheduler), LRs()
    trainer = transformers.Trainer(
        model=model,
        args=args,
        train_dataset=train,
        eval_dataset=_data(12, 2),
        optimizers=(optimizer, scheduler),
        callbacks=[recorder, *((glue, clock) if glue_first else (clock, glue))],
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer.train()
    return [recorder.lrs[step] for step in sorted(recorder.lrs)], optimizer.param_groups[0]["lr"], caught


@pytest.mark.parametrize("glue_first", [False, True], ids=["glue-after", "glue-before"])
def test_hugging_face_with_old_glue_reduces_as_hugging_faces_own_plateau(glue_first) -> None:
    model = Regression()
    optimizer = torch.optim.SGD(model.parameters(), lr=BASE_LR)
    args = _args(max_steps=15, lr_scheduler_type="reduce_lr_on_plateau", lr_scheduler_kwargs=ONCE)
    theirs = transformers.Trainer(
        model=model,
        args=args,
        train_dataset=_data(40, 1),
        eval_dataset=_data(12, 2),
        optimizers=(optimizer, None),
        callbacks=[recorder := LRs()],
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        theirs.train()
    their_lrs = [recorder.lrs[step] for step in sorted(recorder.lrs)]
    assert their_lrs == [0.1] * 12 + [0.05] * 3 and optimizer.param_groups[0]["lr"] == 0.05
    lrs, last, caught = _hf_glued(glue_first, max_steps=15)
    assert lrs == pytest.approx(their_lrs, rel=1e-12) and last == pytest.approx(0.05, rel=1e-12)  # fed twice: 0.0125
    said = _fed_twice(caught)
    assert len(said) == 1
    doors = ("observe() called by user code", "the Hugging Face integration")
    first, then = doors[::-1] if not glue_first else doors
    assert str(said[0].message).startswith(f"PlateauScheduler was fed the evaluation at 3ba twice, first by {first}, ")
    assert f"then by {then}: the second is ignored" in str(said[0].message)
    assert "Hugging Face and Lightning integrations now feed every evaluation themselves" in str(said[0].message)


class LightningGlue(Validated):
    """The old glue: each validation's loss told to the scheduler by hand, at the end of the validation epoch."""

    def on_validation_epoch_end(self):
        if not self.trainer.sanity_checking:
            self.lr_schedulers().observe({"eval/loss": self.trainer.callback_metrics["val_loss"]})


class TorchPlateau(Validated):
    def configure_optimizers(self):
        optimizer = torch.optim.SGD(self.parameters(), lr=BASE_LR)
        return {
            "optimizer": optimizer,
            "lr_scheduler": {"scheduler": ReduceLROnPlateau(optimizer, **ONCE)} | self.kwargs,
        }


def _diverging_loader(samples: int, seed: int, sign: float) -> torch.utils.data.DataLoader:
    """y = sign * sum(x): validated on the opposite sign, the loss worsens every epoch after the first."""
    x = torch.randn(samples, 3, generator=torch.Generator().manual_seed(seed))
    return torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, sign * x.sum(1, keepdim=True)), batch_size=4)


def _lightning_epochs(module: Validated) -> tuple[list[float], list[warnings.WarningMessage]]:
    trainer = _quiet_lightning(max_steps=-1, max_epochs=5, val_check_interval=None, num_sanity_val_steps=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer.fit(module, _diverging_loader(40, 1, 1.0), _diverging_loader(12, 2, -1.0))
    return [module.lrs[step] for step in range(0, 50, 10)], caught  # the lr of each epoch's first batch


def test_lightning_with_old_glue_halves_as_torchs_reduce_lr_on_plateau() -> None:
    theirs, _ = _lightning_epochs(TorchPlateau(None, monitor="val_loss"))
    assert theirs == [0.1, 0.1, 0.1, 0.05, 0.05]
    ours, caught = _lightning_epochs(LightningGlue(PlateauScheduler(**ONCE), monitor="val_loss"))
    assert ours == pytest.approx(theirs, rel=1e-12)  # fed twice: 0.1, 0.1, 0.05, 0.025, 0.0125
    said = _fed_twice(caught)
    assert len(said) == 1
    assert str(said[0].message).startswith(
        "PlateauScheduler was fed the evaluation at 10ba twice, first by observe() called by user code, then by the "
        "Lightning integration: the second is ignored"
    )


class ManualPerEpoch(Validated):
    """Manual optimization, the scheduler stepped once an epoch: validations inside the epoch are still heard."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.automatic_optimization = False

    def training_step(self, batch, batch_idx):
        optimizer = self.optimizers()
        self.lrs[batch_idx + 10 * self.current_epoch] = optimizer.param_groups[0]["lr"]
        x, y = batch
        optimizer.zero_grad()
        self.manual_backward(torch.nn.functional.mse_loss(self.layer(x), y))
        optimizer.step()

    def on_train_epoch_end(self):
        self.lr_schedulers().step()


def test_lightning_hears_each_validation_at_its_batch_when_the_scheduler_steps_once_an_epoch() -> None:
    module = ManualPerEpoch(PlateauScheduler(factor=0.5, patience=0), monitor="val_loss", max_duration="4ep")
    trainer = _quiet_lightning(max_steps=-1, max_epochs=4, val_check_interval=5, num_sanity_val_steps=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer.fit(module, _loader(40, 1), _loader(12, 2))
    assert not _fed_twice(caught)
    assert [step for step, _ in module.heard] == list(range(5, 41, 5))  # twice an epoch (manual: batches started)
    reference = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=BASE_LR)
    torch_plateau, reduced_at = ReduceLROnPlateau(reference, factor=0.5, patience=0), []
    for step, value in module.heard:
        before = reference.param_groups[0]["lr"]
        torch_plateau.step(value)
        if reference.param_groups[0]["lr"] != before:
            reduced_at.append(step)
    scheduler = trainer.lr_scheduler_configs[0].scheduler
    assert [r.value for r in scheduler.scheduler.reductions] == reduced_at and len(reduced_at) >= 2
