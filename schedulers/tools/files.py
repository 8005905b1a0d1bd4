"""Writing a file so that readers see the old file or the new one, never half of one.

The content goes to a hidden temporary file in the same folder and is flushed to disk (``fsync``); then
``os.replace`` puts it in place, and the folder is synced too so the rename survives a crash. A failure
removes the temporary file and leaves any existing file untouched.

:func:`unwritable_reason` tells, before a run starts, whether a path it will write can be written.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

__all__ = ["TEMP_SUFFIX", "fsync_dir", "check_writable", "temporary_name", "unwritable_reason", "write_atomically"]

#: the suffix of temporary files (listings of a folder's files skip it)
TEMP_SUFFIX = ".tmp"


def temporary_name(folder: Path, name: str) -> Path:
    """A fresh hidden name for a temporary ``name`` in ``folder``."""
    return folder / f".{name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}"


def write_atomically(
    path: str | os.PathLike, write: Callable[[IO[Any]], object], *, binary: bool = False, newline: str | None = None
) -> Path:
    """Call ``write(stream)`` on a temporary file, then move it to ``path`` atomically; return ``path``.

    The file gets the permissions the umask allows (like ``open``), not a temporary file's 0600.

    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "note.txt"
    >>> write_atomically(target, lambda stream: stream.write("done")).read_text()
    'done'
    """
    path = Path(path)
    temporary = temporary_name(path.parent, path.name)
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        text = {} if binary else {"newline": newline, "encoding": "utf-8"}
        with os.fdopen(handle, "wb" if binary else "w", **text) as stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    fsync_dir(path.parent)
    return path


def fsync_dir(folder: Path) -> None:
    """Make a rename inside ``folder`` durable (a no-op where folders cannot be opened, e.g. Windows)."""
    if os.name == "nt":
        return
    handle = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def unwritable_reason(path: str | os.PathLike, *, folder: bool) -> str | None:
    """Why ``path`` cannot be written (a folder to write files in, or a file), or None when it can.

    Missing folders on the way are fine (the writer creates them): the nearest folder that exists must take
    a new file. That is tried, with a hidden file created and removed at once, because permission bits do
    not tell: root passes ``os.access`` on a read-only or virtual file system such as ``/proc``. Nothing is
    left behind and no folder is created.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> unwritable_reason(folder / "run" / "checkpoints", folder=True) is None, list(folder.iterdir())
    (True, [])
    >>> (folder / "notes").write_text("")
    0
    >>> unwritable_reason(folder / "notes" / "metrics.csv", folder=False)  # doctest: +ELLIPSIS
    "cannot create the folder '.../notes': '.../notes' is a file"
    """
    target = Path(path).expanduser()
    if folder and target.exists() and not target.is_dir():
        return f"{str(target)!r} is a file, not a folder"
    if not folder and target.is_dir():
        return f"{str(target)!r} is a folder, not a file"
    place = target if folder else target.parent
    existing = place.absolute()
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    if not existing.is_dir():
        return f"cannot create the folder {str(place)!r}: {str(existing)!r} is a file"
    probe = temporary_name(existing, "cadence-write-check")
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as error:
        if existing == place.absolute():
            return f"cannot write in the folder {str(place)!r} ({error.strerror})"
        return f"cannot create the folder {str(place)!r}: {str(existing)!r} is not writable ({error.strerror})"
    try:
        os.unlink(probe)
    except OSError:
        pass
    if not folder and target.exists() and not os.access(target, os.W_OK):
        return f"cannot write {str(target)!r}: the file is read-only"
    return None


def check_writable(name: str, path: str | os.PathLike, *, folder: bool) -> None:
    """A ValueError ``name='path': why`` when :func:`unwritable_reason` finds ``path`` cannot be written."""
    reason = unwritable_reason(path, folder=folder)
    if reason is not None:
        raise ValueError(f"{name}={os.fspath(path)!r}: {reason}")
