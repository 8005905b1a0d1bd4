"""Writing a file so that readers see the old file or the new one, never half of one.

The content goes to a hidden temporary file in the same folder and is flushed to disk (``fsync``); then
``os.replace`` puts it in place, and the folder is synced too so the rename survives a crash. A failure
removes the temporary file and leaves any existing file untouched.

One atomic write for the whole project: the CLI's pictures and reports, and the trainer's checkpoints, CSV files,
records and sweep summaries, import it from here (down the layers, docs/architecture.md). Whether a path a run
will write can be written is the trainer's question: :mod:`trainer.writable_paths`.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

__all__ = ["TEMP_SUFFIX", "fsync_dir", "temporary_name", "write_atomically"]

#: the suffix of temporary files (listings of a folder's files skip it)
TEMP_SUFFIX = ".tmp"


def temporary_name(folder: Path, name: str) -> Path:
    """A fresh hidden name for a temporary ``name`` in ``folder`` (listings skip it by its :data:`TEMP_SUFFIX`).

    Args:
        folder: The folder the temporary file goes in (the target's, so that a rename is atomic).
        name: The name of the file it becomes.

    Returns:
        The path: ``.<name>.<pid>.<random>.tmp`` in ``folder``.

    >>> temporary_name(Path("run"), "latest").name.startswith(".latest."), temporary_name(Path("run"), "x").suffix
    (True, '.tmp')
    """
    return folder / f".{name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}"


def write_atomically(
    path: str | os.PathLike, write: Callable[[IO[Any]], object], *, binary: bool = False, newline: str | None = None
) -> Path:
    """Call ``write(stream)`` on a temporary file, then move it to ``path`` atomically; return ``path``.

    The file gets the permissions the umask allows (like ``open``), not a temporary file's 0600.

    Args:
        path: The file to write.
        write: Called with the open temporary file; it writes the content.
        binary: Open the file in binary mode (``torch.save``), else as UTF-8 text.
        newline: The text mode's ``newline`` (``""`` for the csv module).

    Returns:
        ``path``, as a Path.

    Raises:
        OSError: The file cannot be written (the temporary file is removed, an existing file kept); anything
            ``write`` raises, likewise.

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
    """Make a rename inside ``folder`` durable (a no-op where folders cannot be opened, e.g. Windows).

    Args:
        folder: The folder whose entries changed.

    Returns:
        None: the folder's entries are on disk.

    Raises:
        OSError: The folder cannot be opened or synced.

    >>> import tempfile
    >>> fsync_dir(Path(tempfile.mkdtemp()))
    """
    if os.name == "nt":
        return
    handle = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(handle)
    finally:
        os.close(handle)
