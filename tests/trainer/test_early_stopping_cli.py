"""EarlyStopping's mistakes in a YAML config (issue 26): one line naming the ``trainer.init.callbacks`` entry and
what is accepted, exit status 2, in ``cadence fit CONFIG`` and ``cadence fit CONFIG --dry-run`` alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from trainer.cli import main

HERE = Path(__file__).resolve().parent  # config_fixtures.py lives here


def _config(tmp_path: Path, early_stopping: str) -> Path:
    path = tmp_path / "early.yaml"
    path.write_text(
        "trainer:\n"
        "  init:\n"
        '    model: "config_fixtures:tiny_model"\n'
        "    loss_fn: mse_loss\n"
        "    progress_bar: false\n"
        "    optimizer: {SGD: {lr: 0.1}}\n"
        "    callbacks:\n"
        "      - LRMonitor\n"
        f"      - EarlyStopping: {early_stopping}\n"
        "    loop: {max_steps: 16, eval_frequency: 4}\n"
        "  fit:\n"
        '    train_dataloader: "config_fixtures:train_loader"\n'
        '    val_dataloader: "config_fixtures:eval_loader"\n'
    )
    return path


ENTRY = "trainer.init.callbacks[1].EarlyStopping"


@pytest.mark.parametrize("dry_run", [False, True], ids=["fit", "dry-run"])
@pytest.mark.parametrize(
    "arguments, where, accepted",
    [
        ("{patience: -1}", f"{ENTRY}.patience", "patience=-1 must be >= 0 (a count of evaluations) or a time"),
        ("{patience: 2epp}", f"{ENTRY}.patience", "unit in ep, ba, sp, tok, dur"),
        ("{patience: 2.5}", f"{ENTRY}.patience", "patience=2.5"),
        ("{mode: maxx}", f"{ENTRY}.mode", "mode='maxx' must be one of 'min', 'max'"),
        ("{min_delta: -0.1}", f"{ENTRY}.min_delta", "min_delta=-0.1 must be >= 0"),
        ("{min_delta: small}", f"{ENTRY}.min_delta", "min_delta='small' must be a number"),
        ("{monitor: ''}", f"{ENTRY}.monitor", "must be the name of a metric the run logs"),
        ("{monitor: eval/los}", ENTRY, "it logs eval/loss (did you mean 'eval/loss'?)"),
    ],
)
def test_an_early_stopping_mistake_is_one_line_and_exit_2(
    tmp_path, capsys, monkeypatch, dry_run, arguments, where, accepted
):
    monkeypatch.chdir(HERE)
    code = main(["fit", str(_config(tmp_path, arguments)), *(["--dry-run"] if dry_run else [])])
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert code == 2, captured.err
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(f"cadence: error: {where}: ") and accepted in lines[0]
    assert "Traceback" not in captured.err and captured.out == ""


def test_a_good_early_stopping_runs(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(HERE)
    assert main(["fit", str(_config(tmp_path, "{patience: 2ep, min_delta: 0.0, mode: min}")), "--dry-run"]) == 0
    assert "error" not in capsys.readouterr().err


def test_an_error_in_a_users_own_callback_keeps_its_traceback(tmp_path, monkeypatch):
    """Only Cadence's own refusals become config errors: a bug in the user's class is not hidden behind a line."""
    monkeypatch.chdir(HERE)
    (tmp_path / "user_callbacks.py").write_text(
        "class Broken:\n    def __init__(self):\n        raise ValueError('a bug of the user')\n"
    )
    config = _config(tmp_path, "{patience: 1}")
    config.write_text(config.read_text().replace("      - LRMonitor\n", '      - "user_callbacks:Broken"\n'))
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match="a bug of the user"):
        main(["fit", str(config), "--dry-run"])
