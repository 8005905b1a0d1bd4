"""``trainer.checkpoint_files``: atomic files, the ``latest`` link, clear load errors, RNG state.

docs/trainer.md (Checkpoints), docs/resume.md.
"""

from __future__ import annotations

import doctest
import os
import pickle
import random
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest
import torch

import trainer.checkpoint_files as ckpt
from trainer.checkpoint_files import (
    CHECKPOINT_VERSION,
    LATEST,
    VERSION_KEY,
    CheckpointError,
    checkpoint_batch,
    checkpoint_name,
    delete_checkpoint,
    list_checkpoints,
    load_checkpoint,
    resolve_checkpoint,
    rng_state,
    save_checkpoint,
    set_rng_state,
)


def sample_payload(batch: int = 12) -> dict:
    return {
        "model": {"w": torch.arange(6, dtype=torch.float32).reshape(2, 3), "b": torch.zeros(3)},
        "timestamp": {"epoch": 1, "batch": batch, "sample": 384},
        "losses": [0.5, 0.25],
        "shape": (2, 3),
        "name": "run",
        "flag": True,
        "nothing": None,
    }


def assert_same(a, b):
    """Deep equality that compares tensors by value and dtype."""
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, torch.Tensor):
        assert a.dtype == b.dtype and torch.equal(a, b)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for key in a:
            assert_same(a[key], b[key])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert_same(x, y)
    else:
        assert a == b


def folder_entries(folder: Path) -> set[str]:
    return set(os.listdir(folder))


# --------------------------------------------------------------------------------------------
# names and saving
# --------------------------------------------------------------------------------------------


def test_checkpoint_name_and_batch_round_trip():
    assert checkpoint_name(0) == "ba00000000.pt"
    assert checkpoint_name(12) == "ba00000012.pt"
    assert checkpoint_name(123_456_789) == "ba123456789.pt"
    assert checkpoint_batch("x/ba00000012.pt") == 12
    assert checkpoint_batch("ba123456789.pt") == 123_456_789
    for name in ("latest", "ba12.pt", ".ba00000012.pt.1.ab.tmp", "ba00000012.pt.tmp"):
        assert checkpoint_batch(name) is None


@pytest.mark.parametrize("batch", [-1, 1.5, True, "12"])
def test_checkpoint_name_rejects_bad_batch(batch):
    with pytest.raises(ValueError, match=rf"^batch={batch!r} must be an integer >= 0$"):
        checkpoint_name(batch)
    assert checkpoint_name(12.0) == "ba00000012.pt"  # a whole number, as every count argument takes it


def test_save_writes_named_file_and_relative_latest_link(tmp_path):
    path = save_checkpoint(tmp_path / "run", 12, sample_payload())
    assert path == tmp_path / "run" / "ba00000012.pt"
    assert path.is_file()
    link = tmp_path / "run" / LATEST
    assert link.is_symlink()
    assert os.readlink(link) == "ba00000012.pt"  # relative: the folder can be moved
    assert folder_entries(tmp_path / "run") == {"ba00000012.pt", LATEST}


def test_round_trip_loads_with_weights_only(tmp_path):
    payload = sample_payload()
    path = save_checkpoint(tmp_path, 12, payload)
    assert_same(load_checkpoint(path), payload)
    raw = torch.load(path, weights_only=True)
    assert raw[VERSION_KEY] == CHECKPOINT_VERSION
    assert VERSION_KEY not in payload  # the caller's dict is not modified


def test_model_and_optimizer_state_dicts_round_trip(tmp_path):
    model = torch.nn.Linear(3, 2)
    # An AdamW state_dict as torch writes it (built by hand: constructing a torch optimizer
    # imports torch._dynamo, seconds of test time).
    optimizer_state = {
        "state": {
            index: {"step": torch.tensor(1.0), "exp_avg": torch.randn_like(p), "exp_avg_sq": torch.rand_like(p)}
            for index, p in enumerate(model.parameters())
        },
        "param_groups": [
            {
                "lr": torch.tensor(0.01),
                "initial_lr": 0.01,
                "betas": (0.9, 0.999),
                "eps": 1e-8,
                "weight_decay": 0.01,
                "amsgrad": False,
                "foreach": None,
                "fused": None,
                "params": [0, 1],
            }
        ],
    }
    payload = {"model": model.state_dict(), "optimizer": optimizer_state, "param": model.weight}
    loaded = load_checkpoint(save_checkpoint(tmp_path, 1, payload))
    assert isinstance(loaded["model"], OrderedDict)
    for key, value in model.state_dict().items():
        assert torch.equal(loaded["model"][key], value)
    assert_same(loaded["optimizer"], optimizer_state)
    assert isinstance(loaded["param"], torch.nn.Parameter)
    torch.nn.Linear(3, 2).load_state_dict(loaded["model"])


def test_save_overwrites_the_same_batch(tmp_path):
    save_checkpoint(tmp_path, 5, {"v": 1})
    save_checkpoint(tmp_path, 5, {"v": 2})
    assert load_checkpoint(tmp_path) == {"v": 2}
    assert folder_entries(tmp_path) == {"ba00000005.pt", LATEST}


def test_saved_file_permissions_follow_the_umask(tmp_path):
    umask = os.umask(0)
    os.umask(umask)
    path = save_checkpoint(tmp_path, 1, {"v": 1})
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask


@pytest.mark.parametrize(
    "payload, where",
    [
        ({"rng": ("MT19937", np.zeros(3))}, r"payload\['rng'\]\[1\] is a numpy.ndarray"),
        ({"steps": {1: np.int64(3)}}, r"payload\['steps'\]\[1\] is a numpy.int64"),
        ({"unit": {"ep"}}, r"payload\['unit'\] is a builtins.set"),
        ({"fn": len}, r"payload\['fn'\]"),
        ({(1, object()): 1}, r"a key of payload\[1\] is a builtins.object"),
    ],
)
def test_save_rejects_values_weights_only_cannot_load_naming_where(tmp_path, payload, where):
    with pytest.raises(TypeError, match=where):
        save_checkpoint(tmp_path, 1, payload)
    assert folder_entries(tmp_path) == set()


def test_save_rejects_non_dict_reserved_key_and_cycles(tmp_path):
    with pytest.raises(TypeError, match="payload must be a dict, got list"):
        save_checkpoint(tmp_path, 1, [1, 2])
    with pytest.raises(ValueError, match=VERSION_KEY):
        save_checkpoint(tmp_path, 1, {VERSION_KEY: 1})
    loop: list = []
    loop.append(loop)
    with pytest.raises(ValueError, match="reference cycle"):
        save_checkpoint(tmp_path, 1, {"loop": loop})


# --------------------------------------------------------------------------------------------
# atomicity
# --------------------------------------------------------------------------------------------


def assert_previous_checkpoint_intact(folder: Path) -> None:
    assert folder_entries(folder) == {"ba00000012.pt", LATEST}, "no new file and no temp file may remain"
    assert resolve_checkpoint(folder) == folder / "ba00000012.pt"
    assert_same(load_checkpoint(folder), sample_payload(12))
    assert [p.name for p in list_checkpoints(folder)] == ["ba00000012.pt"]


def test_crash_inside_torch_save_keeps_previous_checkpoint(tmp_path, monkeypatch):
    save_checkpoint(tmp_path, 12, sample_payload(12))
    real_save = torch.save

    def save_half_then_crash(obj, file, *args, **kwargs):
        real_save(obj, file, *args, **kwargs)
        file.truncate(file.tell() // 2)
        raise OSError("disk full")

    monkeypatch.setattr(torch, "save", save_half_then_crash)
    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(tmp_path, 24, sample_payload(24))
    assert_previous_checkpoint_intact(tmp_path)


def test_crash_before_the_file_is_moved_into_place_keeps_previous_checkpoint(tmp_path, monkeypatch):
    save_checkpoint(tmp_path, 12, sample_payload(12))

    def crash(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        save_checkpoint(tmp_path, 24, sample_payload(24))
    monkeypatch.undo()
    assert_previous_checkpoint_intact(tmp_path)


def test_crash_while_replacing_latest_keeps_latest_on_the_previous_file(tmp_path, monkeypatch):
    save_checkpoint(tmp_path, 12, sample_payload(12))
    real_replace = os.replace

    def crash_on_latest(src, dst):
        if Path(dst).name == LATEST:
            raise OSError("power cut")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", crash_on_latest)
    with pytest.raises(OSError, match="power cut"):
        save_checkpoint(tmp_path, 24, sample_payload(24))
    monkeypatch.undo()
    # The new file is complete; latest still names the old one; the temp link is gone.
    assert folder_entries(tmp_path) == {"ba00000012.pt", "ba00000024.pt", LATEST}
    assert resolve_checkpoint(tmp_path) == tmp_path / "ba00000012.pt"
    assert_same(load_checkpoint(tmp_path / "ba00000024.pt"), sample_payload(24))


def test_latest_is_replaced_by_one_rename_never_deleted(tmp_path, monkeypatch):
    save_checkpoint(tmp_path, 12, sample_payload(12))
    calls = []
    real_replace, real_unlink, real_symlink = os.replace, os.unlink, os.symlink

    def record(name, real):
        def wrapper(*args, **kwargs):
            calls.append((name, *[Path(a).name if isinstance(a, (str, os.PathLike)) else a for a in args]))
            return real(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(os, "replace", record("replace", real_replace))
    monkeypatch.setattr(os, "unlink", record("unlink", real_unlink))
    monkeypatch.setattr(os, "remove", record("remove", os.remove))
    monkeypatch.setattr(os, "symlink", record("symlink", real_symlink))
    save_checkpoint(tmp_path, 24, sample_payload(24))
    monkeypatch.undo()
    symlinks = [c for c in calls if c[0] == "symlink"]
    assert len(symlinks) == 1 and symlinks[0][1] == "ba00000024.pt"
    temp_link = symlinks[0][2]
    assert temp_link.startswith(".") and temp_link.endswith(".tmp")
    assert ("replace", temp_link, LATEST) in calls
    assert not [c for c in calls if c[0] in ("unlink", "remove")]
    assert os.readlink(tmp_path / LATEST) == "ba00000024.pt"


def test_checkpoint_file_is_fsynced_before_the_rename(tmp_path, monkeypatch):
    events = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (events.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(os, "replace", lambda a, b: (events.append(f"replace {Path(b).name}"), real_replace(a, b))[1])
    save_checkpoint(tmp_path, 3, {"v": 1})
    monkeypatch.undo()
    # file fsync, rename, folder fsync, link rename, folder fsync
    assert events == ["fsync", "replace ba00000003.pt", "fsync", f"replace {LATEST}", "fsync"]


def test_list_checkpoints_sorts_by_batch_and_ignores_other_files(tmp_path):
    for batch in (24, 3, 123_456_789, 12):
        save_checkpoint(tmp_path, batch, {"batch": batch})
    (tmp_path / ".ba00000030.pt.123.abcd.tmp").write_bytes(b"partial")
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "ba00000099.pt.tmp").write_bytes(b"partial")
    names = [p.name for p in list_checkpoints(tmp_path)]
    assert names == ["ba00000003.pt", "ba00000012.pt", "ba00000024.pt", "ba123456789.pt"]
    assert load_checkpoint(tmp_path) == {"batch": 12}  # latest = most recent save


def test_list_checkpoints_of_missing_folder_and_of_a_file(tmp_path):
    assert list_checkpoints(tmp_path / "nope") == []
    (tmp_path / "file").write_text("x")
    with pytest.raises(NotADirectoryError, match="file"):
        list_checkpoints(tmp_path / "file")


# --------------------------------------------------------------------------------------------
# folder vs file paths
# --------------------------------------------------------------------------------------------


def test_folder_file_and_link_paths_resolve_to_the_checkpoint_file(tmp_path):
    save_checkpoint(tmp_path, 12, {"batch": 12})
    newest = save_checkpoint(tmp_path, 24, {"batch": 24})
    assert resolve_checkpoint(tmp_path) == newest
    assert resolve_checkpoint(str(tmp_path)) == newest
    assert resolve_checkpoint(tmp_path / LATEST) == newest
    assert resolve_checkpoint(tmp_path / "ba00000012.pt") == tmp_path / "ba00000012.pt"
    assert load_checkpoint(tmp_path) == {"batch": 24}
    assert load_checkpoint(str(tmp_path / LATEST)) == {"batch": 24}
    assert load_checkpoint(tmp_path / "ba00000012.pt") == {"batch": 12}


def test_moved_folder_still_resolves_latest(tmp_path):
    save_checkpoint(tmp_path / "a", 7, {"batch": 7})
    os.rename(tmp_path / "a", tmp_path / "b")
    assert load_checkpoint(tmp_path / "b") == {"batch": 7}


def test_missing_file_folder_without_latest_and_dangling_latest(tmp_path):
    with pytest.raises(
        CheckpointError, match=r"checkpoint path .*ba00000001\.pt does not exist \(neither a file nor a folder\)"
    ):
        load_checkpoint(tmp_path / "ba00000001.pt")
    with pytest.raises(CheckpointError, match=rf"folder {tmp_path} has no 'latest' link \(checkpoints in it: none\)"):
        load_checkpoint(tmp_path)
    save_checkpoint(tmp_path, 1, {"v": 1})
    os.unlink(tmp_path / LATEST)
    with pytest.raises(CheckpointError, match=r"checkpoints in it: ba00000001\.pt"):
        load_checkpoint(tmp_path)
    os.symlink("ba00000009.pt", tmp_path / LATEST)
    with pytest.raises(CheckpointError, match=r"latest points to ba00000009\.pt, which is not a file"):
        load_checkpoint(tmp_path)


# --------------------------------------------------------------------------------------------
# truncated, corrupt, foreign files
# --------------------------------------------------------------------------------------------


def test_checkpoint_error_is_a_value_error():
    assert issubclass(CheckpointError, ValueError)


@pytest.mark.parametrize("fraction", [0.5, 0.9, 0.1])
def test_truncated_file_is_a_clear_error_naming_it(tmp_path, fraction):
    good = save_checkpoint(tmp_path / "good", 12, sample_payload())
    data = good.read_bytes()
    bad = tmp_path / "ba00000012.pt"
    bad.write_bytes(data[: int(len(data) * fraction)])
    with pytest.raises(CheckpointError, match=rf"checkpoint file {bad} is truncated or corrupt") as info:
        load_checkpoint(bad)
    assert "Traceback" not in str(info.value)
    assert len(str(info.value).splitlines()) == 1


def test_latest_pointing_at_a_truncated_file_names_that_file(tmp_path):
    path = save_checkpoint(tmp_path, 12, sample_payload())
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match=rf"{path} is truncated"):
        load_checkpoint(tmp_path)


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "is empty"),
        (b"hello world, not a checkpoint " * 10, "is truncated or corrupt"),
        (b"\x80\x02garbage", "is truncated or corrupt"),
        (pickle.dumps({"a": 1}, protocol=2), "is truncated or corrupt"),
    ],
)
def test_garbage_file_is_a_clear_error_naming_it(tmp_path, content, message):
    bad = tmp_path / "ba00000001.pt"
    bad.write_bytes(content)
    with pytest.raises(CheckpointError, match=rf"checkpoint file {bad} {message}") as info:
        load_checkpoint(bad)
    assert "weights_only" not in str(info.value)  # torch's advice to load unsafely is not repeated


def test_corrupt_bytes_inside_a_complete_archive(tmp_path):
    path = save_checkpoint(tmp_path, 12, {"w": torch.arange(1000)})
    data = bytearray(path.read_bytes())
    start = data.index(b"data.pkl") + 100  # inside the pickled object table
    data[start : start + 40] = b"\xff" * 40
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match=rf"checkpoint file {path}"):
        load_checkpoint(path)


class Foreign:
    pass


def test_file_with_objects_weights_only_refuses(tmp_path):
    path = tmp_path / "ba00000001.pt"
    torch.save({"obj": Foreign(), VERSION_KEY: 1}, path)
    with pytest.raises(
        CheckpointError, match=rf"checkpoint file {path} holds objects that .*weights_only=True.* refuses"
    ) as info:
        load_checkpoint(path)
    assert "Unsupported global" in str(info.value) and "Foreign" in str(info.value)
    assert "add_safe_globals" not in str(info.value)  # no advice to trust the file


@pytest.mark.parametrize(
    "content, message",
    [
        (
            {"model": {}},
            r"is not a Cadence checkpoint \(no 'cadence_checkpoint_version' key; holds a dict with keys \['model'\]\)",
        ),
        ([1, 2], r"is not a Cadence checkpoint .*holds list"),
        (torch.zeros(2), r"is not a Cadence checkpoint .*holds Tensor"),
        ({VERSION_KEY: CHECKPOINT_VERSION + 1}, rf"has format version {CHECKPOINT_VERSION + 1}"),
        ({VERSION_KEY: "1"}, r"has an invalid cadence_checkpoint_version='1'"),
    ],
)
def test_not_a_cadence_checkpoint(tmp_path, content, message):
    path = tmp_path / "model.pt"
    torch.save(content, path)
    with pytest.raises(CheckpointError, match=rf"checkpoint file {path} {message}"):
        load_checkpoint(path)


def test_load_never_touches_the_global_rng_or_needs_a_device(tmp_path):
    path = save_checkpoint(tmp_path, 1, {"w": torch.ones(2)})
    before = torch.get_rng_state()
    assert load_checkpoint(path)["w"].device.type == "cpu"
    assert torch.equal(before, torch.get_rng_state())


# --------------------------------------------------------------------------------------------
# delete_checkpoint
# --------------------------------------------------------------------------------------------


def test_delete_checkpoint_never_deletes_latest_target(tmp_path):
    old = save_checkpoint(tmp_path, 12, {"v": 12})
    new = save_checkpoint(tmp_path, 24, {"v": 24})
    assert delete_checkpoint(new) is False
    assert new.is_file()
    assert delete_checkpoint(old) is True
    assert not old.exists()
    assert list_checkpoints(tmp_path) == [new]
    assert load_checkpoint(tmp_path) == {"v": 24}


def test_delete_checkpoint_refuses_other_files_and_missing_ones(tmp_path):
    save_checkpoint(tmp_path, 1, {"v": 1})
    (tmp_path / "notes.txt").write_text("x")
    for name in (LATEST, "notes.txt"):
        with pytest.raises(ValueError, match=f"{name} is not a checkpoint file name"):
            delete_checkpoint(tmp_path / name)
    with pytest.raises(CheckpointError, match="ba00000002.pt does not exist"):
        delete_checkpoint(tmp_path / "ba00000002.pt")
    assert folder_entries(tmp_path) == {"ba00000001.pt", LATEST, "notes.txt"}


def test_delete_checkpoint_in_a_folder_without_latest(tmp_path):
    path = save_checkpoint(tmp_path, 1, {"v": 1})
    os.unlink(tmp_path / LATEST)
    assert delete_checkpoint(path) is True
    assert folder_entries(tmp_path) == set()


# --------------------------------------------------------------------------------------------
# RNG state
# --------------------------------------------------------------------------------------------


def draw_everything():
    return (
        [random.random() for _ in range(3)],
        random.gauss(0.0, 1.0),
        torch.rand(4),
        torch.randn(3),
        np.random.rand(3),
        np.random.standard_normal(),
    )


def assert_draws_equal(a, b):
    assert a[0] == b[0] and a[1] == b[1]
    assert torch.equal(a[2], b[2]) and torch.equal(a[3], b[3])
    assert np.array_equal(a[4], b[4]) and a[5] == b[5]


def test_rng_round_trip_through_a_checkpoint_gives_identical_random_numbers(tmp_path):
    random.seed(1)
    torch.manual_seed(2)
    np.random.seed(3)
    random.gauss(0.0, 1.0)  # leaves a cached gauss_next
    np.random.standard_normal()  # leaves a cached numpy gaussian
    state = rng_state()
    expected = draw_everything()
    path = save_checkpoint(tmp_path, 1, {"rng": state})  # checks weights_only safety too
    random.seed(99)
    torch.manual_seed(99)
    np.random.seed(99)
    set_rng_state(load_checkpoint(path)["rng"])
    assert_draws_equal(draw_everything(), expected)


def test_rng_state_keys_and_types():
    state = rng_state()
    expected = {"python", "torch", "numpy"} | ({"cuda"} if torch.cuda.is_available() else set())
    assert set(state) == expected
    assert state["torch"].dtype == torch.uint8
    assert state["python"]["version"] == random.getstate()[0]
    assert all(type(x) is int for x in state["python"]["state"])
    assert state["numpy"]["keys"].dtype == torch.int64
    assert state["numpy"]["keys"].max() < 2**32


def test_set_rng_state_restores_only_what_is_given():
    torch.manual_seed(5)
    only_torch = {"torch": rng_state()["torch"]}
    expected = torch.rand(2)
    random.seed(7)
    python_next = random.random()
    random.seed(7)
    set_rng_state(only_torch)
    assert torch.equal(torch.rand(2), expected)
    assert random.random() == python_next


def test_set_rng_state_errors_name_the_problem():
    with pytest.raises(TypeError, match="must be a dict made by rng_state"):
        set_rng_state([1])
    with pytest.raises(ValueError, match=r"unknown keys \['jax'\]"):
        set_rng_state({"jax": 1})
    with pytest.raises(ValueError, match=r"state\['python'\]"):
        set_rng_state({"python": {"version": 3}})
    with pytest.raises(ValueError, match=r"state\['numpy'\]"):
        set_rng_state({"numpy": {"keys": torch.zeros(3, dtype=torch.int64)}})
    with pytest.raises(TypeError, match=r"state\['torch'\] must be a uint8 tensor"):
        set_rng_state({"torch": [1, 2]})


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-only path")
def test_cuda_state_without_cuda_is_skipped_with_a_warning():
    with pytest.warns(UserWarning, match="CUDA is not available"):
        set_rng_state({"cuda": [torch.get_rng_state()]})


def test_numpy_state_without_numpy_is_skipped_with_a_warning(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_numpy(name, *args, **kwargs):
        if name == "numpy":
            raise ImportError("no numpy")
        return real_import(name, *args, **kwargs)

    state = rng_state()
    monkeypatch.setattr(builtins, "__import__", no_numpy)
    assert "numpy" not in rng_state()
    with pytest.warns(UserWarning, match="numpy is not importable"):
        set_rng_state({"numpy": state["numpy"]})


def test_module_docstring_examples_run():
    result = doctest.testmod(ckpt, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
