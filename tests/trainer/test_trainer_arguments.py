"""What the trainer takes and tells: Composer's keyword spellings, unknown keywords, a non-finite loss, the
messages of a run (resumed from, checkpoints in, nothing to train, interrupted), and preview()."""

from __future__ import annotations

import inspect
import math
import re
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from schedulers import LinearScheduler
from timeunits import NonIntegralTimeError, TimeParseError
from trainer import Callback, LRMonitor, Trainer
from trainer.checkpoint_files import list_checkpoints
from trainer.training import NonFiniteLossError


def _data(n: int = 4) -> list:
    generator = torch.Generator().manual_seed(0)
    return [(torch.randn(4, 3, generator=generator), torch.randn(4, 1, generator=generator)) for _ in range(n)]


def _model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Linear(3, 1)


def _trainer(model=None, max_duration="8ba", **kwargs) -> Trainer:
    model = _model() if model is None else model
    kwargs.setdefault("optimizer", torch.optim.SGD(model.parameters(), lr=0.1))
    kwargs.setdefault("loss_fn", F.mse_loss)
    kwargs.setdefault("progress_bar", False)
    return Trainer(model, _data(), max_duration, **kwargs)


# -- keywords ------------------------------------------------------------------------------------------------


def test_composer_spelling_optimizers_schedulers_and_step_schedulers_every_batch():
    model = _model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    monitor = LRMonitor()
    trainer = Trainer(
        model=model,
        train_dataloader=_data(),
        max_duration="2ep",
        optimizers=[optimizer],  # Composer: a list holding the one optimizer (or the optimizer itself)
        schedulers=LinearScheduler(),
        step_schedulers_every_batch=False,
        loss_fn=F.mse_loss,
        callbacks=[monitor],
        progress_bar=False,
    )
    assert trainer.optimizer is optimizer
    trainer.fit()
    assert monitor.values("lr") == [1.0] * 4 + [0.5] * 4  # held for each epoch, as Composer steps per epoch


@pytest.mark.parametrize("bad, error_class", [("1.5ep", NonIntegralTimeError), ("0.3dru", TimeParseError)])
def test_a_max_duration_that_is_not_a_time_keeps_its_class_and_says_it_once(bad, error_class):
    with pytest.raises(error_class) as raised:
        _trainer(max_duration=bad)
    message = str(raised.value)
    assert isinstance(raised.value, ValueError) and message.startswith(f"max_duration={bad!r} is not a time: ")
    assert message.count("is not a time") == 1 and message.count(repr(bad)) == 1, message


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"grad_accum": 0}, "grad_accum=0 must be an integer >= 1"),
        ({"grad_accum": 1.5}, "grad_accum=1.5 must be an integer >= 1"),
        ({"seed": -1}, "seed=-1 must be an integer >= 0"),
        ({"seed": True}, "seed=True must be an integer >= 0"),
        ({"save_num_checkpoints_to_keep": 0}, "save_num_checkpoints_to_keep=0 must be an integer >= 1, or None"),
        ({"max_grad_norm": "1"}, "max_grad_norm='1' must be a finite number > 0, or None"),
    ],
)
def test_counts_and_numbers_are_checked_by_the_one_rule_every_door_uses(arguments, message):
    # schedulers.core.schedule_arguments: integer_problem / number_problem, as the config reader's counts do
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        _trainer(**arguments)


def test_a_whole_float_is_a_count_as_in_a_config():
    trainer = _trainer(grad_accum=2.0, seed=3.0)
    assert trainer.grad_accum == 2 and type(trainer.grad_accum) is int


def test_optimizers_alias_errors():
    model = _model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    with pytest.raises(TypeError, match="both optimizer= and optimizers="):
        Trainer(model, _data(), "1ep", optimizer, optimizers=optimizer)
    with pytest.raises(ValueError, match="exactly one"):
        Trainer(model, _data(), "1ep", optimizers=[optimizer, optimizer])
    with pytest.raises(TypeError, match="needs optimizer="):
        Trainer(model, _data(), "1ep")


@pytest.mark.parametrize(
    "keyword, suggestion",
    [("scheduler", "'schedulers'"), ("max_durations", "'max_duration'"), ("step_scheduler_every_batch", "'step_")],
)
def test_unknown_keyword_is_a_type_error_with_a_suggestion(keyword, suggestion):
    with pytest.raises(TypeError, match=rf"unexpected keyword argument '{keyword}' \(did you mean {suggestion}"):
        _trainer(**{keyword: None})


def _docstring_sections(doc: str) -> dict[str, list[str]]:
    """A Google-style docstring's sections (``Args:``, ``Returns:``, ...), each as its indented lines."""
    sections: dict[str, list[str]] = {}
    current = None
    for line in inspect.cleandoc(doc).splitlines():
        if line and not line.startswith(" ") and line.endswith(":"):
            current = sections.setdefault(line[:-1], [])
        elif current is not None and (line.startswith(" ") or not line):
            current.append(line)
        else:
            current = None
    return sections


def test_the_trainer_docstring_documents_every_argument_with_returns_raises_and_an_example():
    sections = _docstring_sections(Trainer.__doc__)
    documented = [match.group(1) for line in sections["Args"] if (match := re.match(r"^    (\w+): \S", line))]
    accepted = [name for name in inspect.signature(Trainer.__init__).parameters if name not in ("self", "unknown")]
    assert documented == accepted  # every argument, in the signature's order
    assert any(line.strip() for line in sections["Returns"])
    raised = [match.group(1) for line in sections["Raises"] if (match := re.match(r"^    ([\w.]+): \S", line))]
    assert {"TypeError", "ValueError"} <= set(raised)
    assert any(line.strip().startswith(">>> trainer.fit()") for line in sections["Example"])  # run by test_doctests


# -- non-finite loss -------------------------------------------------------------------------------------------


class _PoisonAt(torch.nn.Module):
    """A linear regression that returns its own loss; the loss of batch ``at`` (counting forward passes) is
    inf, its gradients stay finite (the inf is a constant added to the loss)."""

    def __init__(self, at: int) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(3, 1)
        self.at, self.calls = at, 0

    def forward(self, item):
        inputs, targets = item
        loss = F.mse_loss(self.linear(inputs), targets)
        self.calls += 1
        return loss + float("inf") if self.calls == self.at + 1 else loss


def test_nonfinite_loss_stops_before_its_step_and_keeps_the_last_checkpoint(tmp_path, capsys):
    model = _PoisonAt(5)
    trainer = _trainer(model, save_folder=tmp_path, save_interval="2ba", loss_fn=None)
    before = [p.detach().clone() for p in model.parameters()]
    with pytest.raises(NonFiniteLossError, match=r"batch 5 \(epoch 1\) is inf") as caught:
        trainer.fit()
    last = f"the last checkpoint is {tmp_path / 'ba00000004.pt'}"
    assert str(caught.value).endswith(f'{last} (pass on_nonfinite_loss="warn" to train on)')  # Python's words
    assert caught.value.what.endswith(last)  # what cadence fit ends with its own --set
    assert [path.name for path in list_checkpoints(tmp_path)] == ["ba00000002.pt", "ba00000004.pt"]
    assert trainer.state.timestamp.batch.value == 5  # the bad batch was not counted
    assert all(p.grad is None for p in model.parameters())  # its gradients were dropped, never stepped with
    assert any(not torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))  # batches 0-4 did train


def test_nonfinite_loss_warn_trains_on():
    seen = []

    class Losses(Callback):
        def on_batch_end(self, trainer, loss):
            seen.append(loss)

    trainer = _trainer(_PoisonAt(2), on_nonfinite_loss="warn", callbacks=[Losses()], loss_fn=None)
    with pytest.warns(RuntimeWarning, match=r"the loss of batch 2 \(epoch 0\) is inf: training goes on") as caught:
        trainer.fit()
    assert len(caught) == 1  # the step was taken with the batch's (finite) gradients; later losses are finite
    assert trainer.state.timestamp.batch.value == 8 and math.isinf(seen[2]) and math.isfinite(seen[3])
    with pytest.raises(ValueError, match="on_nonfinite_loss='ignore'"):
        _trainer(on_nonfinite_loss="ignore")


# -- what the run tells ------------------------------------------------------------------------------------


def test_the_run_tells_where_checkpoints_go_where_it_resumed_and_when_nothing_is_left(tmp_path, capsys):
    _trainer(save_folder=tmp_path, save_interval="4ba", print_schedule_report=False).fit(duration="4ba")
    assert capsys.readouterr().err.splitlines() == [f"checkpoints in {tmp_path}"]

    resumed = _trainer(load_path=tmp_path, save_folder=tmp_path, print_schedule_report=False)
    resumed.fit()
    assert capsys.readouterr().err.splitlines() == [
        f"resumed from {tmp_path / 'ba00000004.pt'} at 4ba",
        f"checkpoints in {tmp_path}",
    ]

    again = _trainer(load_path=tmp_path, save_folder=tmp_path)
    again.fit()
    assert capsys.readouterr().err.splitlines() == [
        f"resumed from {tmp_path / 'ba00000008.pt'} at 8ba",
        "the run already reached 8ba: nothing to train",
    ]
    assert [path.name for path in list_checkpoints(tmp_path)] == ["ba00000004.pt", "ba00000008.pt"]


def test_ctrl_c_says_where_the_last_checkpoint_is_and_reraises(tmp_path, capsys):
    class CtrlC(Callback):
        def on_batch_start(self, trainer):
            if trainer.state.timestamp.batch.value == 3:
                raise KeyboardInterrupt

    trainer = _trainer(save_folder=tmp_path, save_interval="2ba", callbacks=[CtrlC()], print_schedule_report=False)
    with pytest.raises(KeyboardInterrupt):
        trainer.fit()
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"interrupted at 3ba: the last checkpoint is {tmp_path / 'ba00000002.pt'}"
    )
    without = _trainer(callbacks=[CtrlC()], print_schedule_report=False)
    with pytest.raises(KeyboardInterrupt):
        without.fit()
    assert capsys.readouterr().err.splitlines()[-1] == "interrupted at 3ba: no checkpoint (save_folder is None)"


# -- preview ----------------------------------------------------------------------------------------------


def test_preview_records_what_fit_trains_with_and_spends_the_trainer(capsys):
    def build():
        model = _model()
        return _trainer(
            model, "3ep", optimizer=torch.optim.SGD(model.parameters(), lr=0.5), schedulers=LinearScheduler()
        )

    previewed, trained = LRMonitor(), LRMonitor()
    preview = build()
    steps = []
    preview.optimizer.register_step_post_hook(lambda *args: steps.append(1))
    preview.preview([previewed])
    assert steps == [] and capsys.readouterr().err == ""  # no optimizer step, no report, no message
    fit = build()
    fit.callbacks.append(trained)
    fit.fit()
    assert previewed.rows == trained.rows and len(trained.rows) == 12
    with pytest.raises(RuntimeError, match="build a new one"):
        preview.fit()


# -- every place a run writes is checked when it is built ---------------------------------------------------


def _writers(place):
    """Each object of a run that writes to a path, built with ``place`` as that path (or its folder)."""
    from trainer import CSVLogger, TensorBoardLogger

    return {
        "save_folder": lambda: _trainer(save_folder=place / "run"),
        "CSVLogger path": lambda: CSVLogger(place / "metrics.csv"),
        "CSVLogger hparams_path": lambda: CSVLogger("metrics.csv", hparams_path=place / "h.json"),
        "TensorBoardLogger log_dir": lambda: TensorBoardLogger(place / "tb"),
        "LRMonitor csv_path": lambda: LRMonitor(csv_path=place / "lr.csv"),
    }


@pytest.mark.parametrize("name", list(_writers(None)))
def test_a_place_that_cannot_be_written_fails_when_its_writer_is_built(tmp_path, name):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    with pytest.raises(ValueError, match=rf"^{name}='{blocker}.*': cannot create the folder '{blocker}.*' is a file"):
        _writers(blocker)[name]()
    if Path("/proc/self").is_dir():  # takes no new file, even from root (whom os.access always answers yes)
        with pytest.raises(ValueError, match=rf"^{name}='/proc/nope.*': cannot create the folder '/proc/nope.*"):
            _writers(Path("/proc/nope"))[name]()
    assert sorted(tmp_path.iterdir()) == [blocker]


def test_a_place_that_can_be_written_is_not_created_before_it_is_written(tmp_path):
    for build in _writers(tmp_path / "out").values():
        build()
    assert list(tmp_path.iterdir()) == []
