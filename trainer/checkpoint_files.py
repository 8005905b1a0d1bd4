"""Checkpoint files: atomic saves, a ``latest`` link, loading with clear errors, RNG state.

A checkpoint folder holds one file per save, named after its batch count, and a ``latest``
relative symlink to the most recent save::

    run/ba00000012.pt
    run/ba00000024.pt
    run/latest -> ba00000024.pt

>>> path = save_checkpoint("run", 24, {"model": model.state_dict(), "batch": 24})  # doctest: +SKIP
>>> load_checkpoint("run")["batch"]                                               # doctest: +SKIP
24

Every file is written to a temp file in the same folder, flushed and fsynced, then moved into
place with ``os.replace``; the ``latest`` link is replaced the same way, so a crash leaves the
previous checkpoint and ``latest`` intact. Payloads hold only values that
``torch.load(weights_only=True)`` accepts (docs/resume.md); ``save_checkpoint`` checks this
before writing, so a bad value fails at save time, naming where it sits in the payload.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import warnings
import zipfile
from collections import OrderedDict
from pathlib import Path
from typing import Any

import torch

from schedulers.core.schedule_arguments import integer_argument
from schedulers.tools.files import TEMP_SUFFIX, fsync_dir, temporary_name, write_atomically

__all__ = [
    "CHECKPOINT_VERSION",
    "VERSION_KEY",
    "LATEST",
    "CheckpointError",
    "checkpoint_name",
    "checkpoint_batch",
    "save_checkpoint",
    "point_latest",
    "load_checkpoint",
    "resolve_checkpoint",
    "list_checkpoints",
    "delete_checkpoint",
    "rng_state",
    "set_rng_state",
]

CHECKPOINT_VERSION = 1
"""Format version written into every checkpoint under :data:`VERSION_KEY`."""

VERSION_KEY = "cadence_checkpoint_version"
DIGEST_KEY = "cadence_checkpoint_digest"
"""The key ``save_checkpoint`` adds to the payload (and ``load_checkpoint`` removes again)."""

LATEST = "latest"
"""Name of the symlink to the most recent checkpoint in a folder."""

_NAME_RE = re.compile(r"^ba(\d{8,})\.pt$")
_TMP_SUFFIX = TEMP_SUFFIX

_SCALAR_TYPES = (type(None), bool, int, float, complex, str, bytes)
_TORCH_VALUE_TYPES = (torch.Size, torch.dtype, torch.device)
_TENSOR_TYPES = (torch.Tensor, torch.nn.Parameter)


class CheckpointError(ValueError):
    """A checkpoint file is missing, truncated, corrupt or not a Cadence checkpoint (a ``ValueError``).

    Args:
        *args: The message, which always names the file.

    Returns:
        The error, raised by :func:`load_checkpoint`, :func:`resolve_checkpoint`, :func:`point_latest` and
        :func:`delete_checkpoint`.

    Example:
        >>> import tempfile
        >>> try:
        ...     load_checkpoint(Path(tempfile.mkdtemp()) / "ba00000001.pt")
        ... except CheckpointError as error:
        ...     print(str(error).endswith("does not exist (neither a file nor a folder)"))
        True
    """


# --------------------------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------------------------


def checkpoint_name(batch: int) -> str:
    """The file name of the checkpoint saved after ``batch`` batches.

    Args:
        batch: The batches the run had trained (an int >= 0).

    Returns:
        ``ba`` and the batch in 8 digits at least, then ``.pt``.

    Raises:
        ValueError: ``batch`` is not an integer >= 0.

    >>> checkpoint_name(12)
    'ba00000012.pt'
    """
    return f"ba{integer_argument('batch', batch, low=0):08d}.pt"


def checkpoint_batch(path: str | os.PathLike) -> int | None:
    """The batch count in a checkpoint file name, or None if the name is not one.

    Args:
        path: A file name or path (only the name is read).

    Returns:
        The batch the name gives, or None when it is not ``ba<batch>.pt``.

    >>> checkpoint_batch("run/ba00000012.pt")
    12
    >>> checkpoint_batch("run/latest") is None
    True
    """
    match = _NAME_RE.match(Path(path).name)
    return int(match.group(1)) if match else None


# --------------------------------------------------------------------------------------------
# Saving
# --------------------------------------------------------------------------------------------


def save_checkpoint(folder: str | os.PathLike, batch: int, payload: dict, *, latest: bool = True) -> Path:
    """Write ``payload`` to ``folder/ba{batch:08d}.pt`` atomically and point ``folder/latest`` at it.

    The folder is created if needed; a file of the same batch is replaced. With ``latest=False`` the link is
    left alone (:func:`point_latest` moves it later: a file a reader should not take yet, such as a WSD decay
    start whose records are not on disk, docs/sweeps.md).

    Args:
        folder: The checkpoint folder.
        batch: The batches trained, which names the file.
        payload: What to save: a dict of tensors and plain values (it must load with ``weights_only=True``).
        latest: Whether ``folder/latest`` points at the new file.

    Returns:
        The file's path.

    Raises:
        ValueError: ``batch`` is not an int >= 0.
        TypeError: ``payload`` is not a dict, or holds a value ``weights_only=True`` would refuse (named).

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> save_checkpoint(folder, 12, {"model": {"w": torch.zeros(2)}}).name, (folder / "latest").resolve().name
    ('ba00000012.pt', 'ba00000012.pt')
    """
    name = checkpoint_name(batch)
    data = _versioned(payload)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    _atomic_torch_save(data, target)
    if latest:
        _point_latest(folder, name)
    return target


def point_latest(path: str | os.PathLike) -> None:
    """Point the ``latest`` link of ``path``'s folder at the checkpoint file ``path`` (atomically).

    Args:
        path: A checkpoint file (``ba<batch>.pt``) that exists.

    Returns:
        None: ``latest`` names the file.

    Raises:
        CheckpointError: ``path`` is not an existing checkpoint file.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> first = save_checkpoint(folder, 1, {"step": 1})
    >>> _ = save_checkpoint(folder, 2, {"step": 2}, latest=False)
    >>> point_latest(folder / "ba00000002.pt"); resolve_checkpoint(folder).name
    'ba00000002.pt'
    """
    path = Path(path)
    if checkpoint_batch(path) is None or not path.is_file():
        raise CheckpointError(f"{path} is not a checkpoint file (ba<batch>.pt)")
    _point_latest(path.parent, path.name)


def _versioned(payload: Any) -> dict:
    """A shallow copy of ``payload`` with the version key added, after checking every value."""
    if not isinstance(payload, dict):
        raise TypeError(f"payload must be a dict, got {type(payload).__name__}")
    for reserved in (VERSION_KEY, DIGEST_KEY):
        if reserved in payload:
            raise ValueError(f"payload key {reserved!r} is reserved for the checkpoint format")
    _check_weights_only_safe(payload, "payload", set())
    return {**payload, VERSION_KEY: CHECKPOINT_VERSION, DIGEST_KEY: content_digest(payload)}


def content_digest(payload: Any) -> str:
    """SHA-256 of a payload's structure and every tensor's bytes.

    torch's zip reader does not check the CRC of tensor data, so a flipped byte inside a tensor loads
    silently; the digest, stored in the file and checked on load, catches it.

    Args:
        payload: A checkpoint's payload (dicts, lists, tensors and plain values).

    Returns:
        The digest, as 64 hex digits.

    >>> content_digest({"w": torch.zeros(2)}) == content_digest({"w": torch.zeros(2)})
    True
    >>> content_digest({"w": torch.zeros(2)}) == content_digest({"w": torch.ones(2)})
    False
    """
    digest = hashlib.sha256()
    _feed(digest, payload)
    return digest.hexdigest()


def _feed(digest: Any, value: Any) -> None:
    if isinstance(value, torch.Tensor):
        tensor = value.detach().cpu().contiguous()
        digest.update(f"T{tensor.dtype}{tuple(tensor.shape)}".encode())
        digest.update(tensor.reshape(-1).view(torch.uint8).numpy().tobytes() if tensor.numel() else b"")
    elif isinstance(value, dict):
        digest.update(f"D{len(value)}".encode())
        for key, item in value.items():
            _feed(digest, key)
            _feed(digest, item)
    elif isinstance(value, (list, tuple)):
        digest.update(f"{type(value).__name__[0]}{len(value)}".encode())
        for item in value:
            _feed(digest, item)
    else:
        digest.update(f"{type(value).__name__}:{value!r};".encode())


def _check_weights_only_safe(value: Any, where: str, active: set[int]) -> None:
    """Raise a TypeError naming ``where`` if ``value`` would not load with weights_only=True."""
    kind = type(value)
    if kind in _SCALAR_TYPES or kind in _TENSOR_TYPES or isinstance(value, _TORCH_VALUE_TYPES):
        return
    if kind not in (list, tuple, dict, OrderedDict):
        raise TypeError(
            f"{where} is a {kind.__module__}.{kind.__qualname__}, which torch.load(weights_only=True) "
            "cannot load; use tensors, numbers, str, bool, None and lists/tuples/dicts of these"
        )
    if id(value) in active:
        raise ValueError(f"{where} contains itself (a reference cycle)")
    active.add(id(value))
    if kind in (list, tuple):
        for index, item in enumerate(value):
            _check_weights_only_safe(item, f"{where}[{index}]", active)
    else:
        for key, item in value.items():
            _check_weights_only_safe(key, f"a key of {where}", active)
            _check_weights_only_safe(item, f"{where}[{key!r}]", active)
    active.discard(id(value))


def _atomic_torch_save(data: dict, target: Path) -> None:
    """torch.save to a temp file next to ``target``, fsync it, ``os.replace`` it, fsync the folder."""
    write_atomically(target, lambda file: torch.save(data, file), binary=True)


def _point_latest(folder: Path, name: str) -> None:
    """Replace ``folder/latest`` by a relative symlink to ``name`` in one ``os.replace``."""
    tmp = temporary_name(folder, LATEST)
    try:
        os.symlink(name, tmp)
        os.replace(tmp, folder / LATEST)
    except BaseException:
        _unlink_quietly(tmp)
        raise
    fsync_dir(folder)


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


# --------------------------------------------------------------------------------------------
# Finding and loading
# --------------------------------------------------------------------------------------------


def resolve_checkpoint(path: str | os.PathLike) -> Path:
    """The checkpoint file ``path`` means: the file itself, or for a folder the target of its ``latest``.

    Args:
        path: A checkpoint file, a ``latest`` link, or a checkpoint folder.

    Returns:
        The file's path.

    Raises:
        CheckpointError: There is no such file (naming the path).

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = save_checkpoint(folder, 24, {"step": 24})
    >>> resolve_checkpoint(folder).name
    'ba00000024.pt'
    """
    path = Path(path)
    if path.is_dir():
        return _resolve_latest(path)
    if path.is_symlink():
        return _follow_link(path)
    if not path.exists():
        raise CheckpointError(f"checkpoint path {path} does not exist (neither a file nor a folder)")
    return path


def _resolve_latest(folder: Path) -> Path:
    link = folder / LATEST
    if link.is_symlink():
        return _follow_link(link)
    if link.is_file():
        return link
    found = ", ".join(p.name for p in list_checkpoints(folder)) or "none"
    raise CheckpointError(f"checkpoint folder {folder} has no '{LATEST}' link (checkpoints in it: {found})")


def _follow_link(link: Path) -> Path:
    """The file a (relative or absolute) symlink names, spelled relative to the link's folder."""
    target = Path(os.readlink(link))
    resolved = target if target.is_absolute() else link.parent / target
    if not resolved.is_file():
        raise CheckpointError(f"checkpoint link {link} points to {target}, which is not a file")
    return resolved


def load_checkpoint(path: str | os.PathLike) -> dict:
    """Load a checkpoint file, or a folder's ``latest``, with ``weights_only=True`` onto the CPU.

    Args:
        path: A checkpoint file, or a folder (its ``latest``).

    Returns:
        The payload given to :func:`save_checkpoint`.

    Raises:
        CheckpointError: A missing, empty, truncated or corrupt file, or one that is not a Cadence checkpoint,
            naming the file.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = save_checkpoint(folder, 12, {"model": {"w": torch.zeros(2)}})
    >>> load_checkpoint(folder)["model"]["w"]
    tensor([0., 0.])
    """
    file = resolve_checkpoint(path)
    if file.is_file() and file.stat().st_size == 0:
        raise CheckpointError(f"checkpoint file {file} is empty (0 bytes)")
    try:
        data = torch.load(file, weights_only=True, map_location="cpu")
    except Exception as exc:  # torch raises OSError, KeyError, EOFError, RuntimeError, ... here
        raise CheckpointError(_describe_load_failure(file, exc)) from exc
    return _unversioned(file, data)


def _describe_load_failure(file: Path, exc: Exception) -> str:
    """A one-line account of why ``torch.load`` failed on ``file``."""
    if isinstance(exc, IsADirectoryError):
        return f"checkpoint path {file} is a folder without a '{LATEST}' link"
    if isinstance(exc, (FileNotFoundError, PermissionError)):
        return f"checkpoint file {file} cannot be opened: {exc.strerror or exc}"
    if not zipfile.is_zipfile(file):
        return f"checkpoint file {file} is truncated or corrupt, or not a torch.save file (no complete zip archive)"
    if "Weights only load failed" in str(exc):
        return (
            f"checkpoint file {file} holds objects that torch.load(weights_only=True) refuses "
            f"({_weights_only_reason(exc)}); it was not written by Cadence's save_checkpoint"
        )
    return f"checkpoint file {file} is corrupt (torch.load said {_summary(exc)})"


def _summary(exc: BaseException) -> str:
    first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first_line[:200]}" if first_line else type(exc).__name__


def _weights_only_reason(exc: BaseException) -> str:
    for line in str(exc).splitlines():
        if "WeightsUnpickler error" in line:
            return line.strip().split(". Please use", 1)[0][:300]
    return _summary(exc)


def _unversioned(file: Path, data: Any) -> dict:
    """Check the version key of a loaded checkpoint and return the payload without it."""
    if not isinstance(data, dict) or VERSION_KEY not in data:
        got = f"a dict with keys {sorted(map(str, data))[:8]}" if isinstance(data, dict) else type(data).__name__
        raise CheckpointError(
            f"checkpoint file {file} is not a Cadence checkpoint (no {VERSION_KEY!r} key; holds {got})"
        )
    version = data[VERSION_KEY]
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise CheckpointError(f"checkpoint file {file} has an invalid {VERSION_KEY}={version!r}")
    if version > CHECKPOINT_VERSION:
        raise CheckpointError(
            f"checkpoint file {file} has format version {version}; this Cadence reads up to {CHECKPOINT_VERSION}"
        )
    payload = {key: value for key, value in data.items() if key not in (VERSION_KEY, DIGEST_KEY)}
    if DIGEST_KEY in data and data[DIGEST_KEY] != content_digest(payload):
        raise CheckpointError(f"checkpoint file {file} is corrupt: its contents do not match the checksum saved in it")
    return payload


def list_checkpoints(folder: str | os.PathLike) -> list[Path]:
    """The checkpoint files in ``folder`` (``ba*.pt``), sorted by batch; temp files are ignored.

    Args:
        folder: The checkpoint folder; one that does not exist has no checkpoints.

    Returns:
        The files' paths, by batch.

    Raises:
        NotADirectoryError: ``folder`` is a file.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> for batch in (24, 12):
    ...     _ = save_checkpoint(folder, batch, {"step": batch})
    >>> [p.name for p in list_checkpoints(folder)]
    ['ba00000012.pt', 'ba00000024.pt']
    """
    folder = Path(folder)
    if not folder.exists():
        return []
    if not folder.is_dir():
        raise NotADirectoryError(f"checkpoint folder {folder} is not a folder")
    found = [(checkpoint_batch(p), p) for p in folder.iterdir() if checkpoint_batch(p) is not None]
    return [path for _, path in sorted(found)]


def delete_checkpoint(path: str | os.PathLike) -> bool:
    """Delete a checkpoint file unless its folder's ``latest`` points to it.

    Args:
        path: A checkpoint file (only ``ba*.pt`` files can be deleted).

    Returns:
        True if the file was deleted, False if it was kept because ``latest`` points to it.

    Raises:
        ValueError: ``path`` is not named like a checkpoint file.
        CheckpointError: The file does not exist.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> old, new = (save_checkpoint(folder, batch, {"step": batch}) for batch in (1, 2))
    >>> delete_checkpoint(old), delete_checkpoint(new), [p.name for p in list_checkpoints(folder)]
    (True, False, ['ba00000002.pt'])
    """
    path = Path(path)
    if checkpoint_batch(path) is None:
        raise ValueError(f"{path} is not a checkpoint file name (ba<batch>.pt); refusing to delete it")
    if not path.is_file():
        raise CheckpointError(f"checkpoint file {path} does not exist")
    if _is_latest_target(path):
        return False
    os.unlink(path)
    fsync_dir(path.parent)
    return True


def _is_latest_target(path: Path) -> bool:
    link = path.parent / LATEST
    if not link.exists():
        return False
    return os.path.samefile(link, path)


# --------------------------------------------------------------------------------------------
# RNG state
# --------------------------------------------------------------------------------------------


def rng_state() -> dict:
    """The state of every global RNG, as weights_only-safe values.

    Returns:
        A dict by RNG: ``"python"`` (``random``), ``"torch"`` (CPU generator), ``"numpy"`` (global RNG, when
        numpy is importable), ``"cuda"`` (all devices, when CUDA is available).

    >>> state = rng_state(); a = torch.rand(1)
    >>> set_rng_state(state); bool(torch.rand(1) == a)
    True
    """
    state: dict[str, Any] = {"python": _python_state(), "torch": torch.get_rng_state()}
    numpy_state = _numpy_state()
    if numpy_state is not None:
        state["numpy"] = numpy_state
    if torch.cuda.is_available():
        state["cuda"] = list(torch.cuda.get_rng_state_all())
    return state


def set_rng_state(state: dict) -> None:
    """Restore the global RNGs from a dict made by :func:`rng_state` (possibly after a save/load).

    A numpy or CUDA entry that cannot be restored here (numpy missing, CUDA unavailable) is skipped
    with a warning.

    Args:
        state: A dict made by :func:`rng_state`.

    Returns:
        None: the RNGs continue from ``state``.

    Raises:
        TypeError: ``state`` is not a dict.
        ValueError: An unknown key, or an entry that is not a state :func:`rng_state` made.

    >>> import random
    >>> state = rng_state(); first = random.random()
    >>> set_rng_state(state); random.random() == first
    True
    """
    if not isinstance(state, dict):
        raise TypeError(f"RNG state must be a dict made by rng_state(), got {type(state).__name__}")
    unknown = sorted(set(state) - {"python", "torch", "numpy", "cuda"})
    if unknown:
        raise ValueError(f"RNG state has unknown keys {unknown}; expected python, torch, numpy, cuda")
    if "python" in state:
        _set_python_state(state["python"])
    if "torch" in state:
        torch.set_rng_state(_byte_tensor(state["torch"], "torch"))
    if "numpy" in state:
        _set_numpy_state(state["numpy"])
    if "cuda" in state:
        _set_cuda_state(state["cuda"])


def _python_state() -> dict:
    version, internal, gauss_next = random.getstate()
    return {"version": version, "state": tuple(internal), "gauss_next": gauss_next}


def _set_python_state(state: Any) -> None:
    try:
        random.setstate((int(state["version"]), tuple(int(x) for x in state["state"]), state["gauss_next"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"RNG state['python'] is not a state made by rng_state(): {exc}") from exc


def _numpy_state() -> dict | None:
    try:
        import numpy as np
    except ImportError:
        return None
    name, keys, pos, has_gauss, cached_gaussian = np.random.get_state(legacy=True)
    return {
        "bit_generator": str(name),
        "keys": torch.from_numpy(keys.astype(np.int64)),
        "pos": int(pos),
        "has_gauss": int(has_gauss),
        "cached_gaussian": float(cached_gaussian),
    }


def _set_numpy_state(state: Any) -> None:
    try:
        import numpy as np
    except ImportError:
        warnings.warn("the RNG state holds a numpy state but numpy is not importable; skipped", stacklevel=3)
        return
    try:
        keys = np.asarray(torch.as_tensor(state["keys"]).numpy(), dtype=np.int64).astype(np.uint32)
        np.random.set_state(
            (state["bit_generator"], keys, int(state["pos"]), int(state["has_gauss"]), float(state["cached_gaussian"]))
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"RNG state['numpy'] is not a state made by rng_state(): {exc}") from exc


def _set_cuda_state(states: Any) -> None:
    if not torch.cuda.is_available():
        warnings.warn("the RNG state holds CUDA states but CUDA is not available; skipped", stacklevel=3)
        return
    count = torch.cuda.device_count()
    if len(states) != count:
        warnings.warn(
            f"the RNG state holds {len(states)} CUDA device states but {count} devices are visible; "
            f"restoring the first {min(len(states), count)}",
            stacklevel=3,
        )
    for device, device_state in enumerate(list(states)[:count]):
        torch.cuda.set_rng_state(_byte_tensor(device_state, f"cuda[{device}]"), device)


def _byte_tensor(value: Any, key: str) -> torch.Tensor:
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"RNG state[{key!r}] must be a uint8 tensor, got {type(value).__name__}")
    return value.detach().to(device="cpu", dtype=torch.uint8)
