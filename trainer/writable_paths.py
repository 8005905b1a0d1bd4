"""Whether a path a run will write can be written, asked before the run starts (docs/trainer.md).

The trainer's ``save_folder``, its loggers' files and ``LRMonitor``'s CSV are checked at construction, and a
config's output paths as it is read, so that a bad place fails before the first batch, not at the first row.
The writing itself is :func:`schedulers.tools.files.write_atomically`.
"""

from __future__ import annotations

import os
from pathlib import Path

from schedulers.tools.files import temporary_name

__all__ = ["check_writable", "unwritable_reason"]


def unwritable_reason(path: str | os.PathLike, *, folder: bool) -> str | None:
    """Why ``path`` cannot be written (a folder to write files in, or a file), or None when it can.

    Missing folders on the way are fine (the writer creates them): the nearest folder that exists must take
    a new file. That is tried, with a hidden file created and removed at once, because permission bits do
    not tell: root passes ``os.access`` on a read-only or virtual file system such as ``/proc``. Nothing is
    left behind and no folder is created.

    Args:
        path: The folder or file a run will write.
        folder: True for a folder to write files in, False for a file.

    Returns:
        Why it cannot be written (a clause to follow the path in a message), or None when it can.

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
    """Check, before a run starts, that ``path`` can be written.

    Args:
        name: The argument that gave the path, first in the message (``"save_folder"``).
        path: The folder or file.
        folder: True for a folder to write files in, False for a file.

    Returns:
        None when ``path`` can be written.

    Raises:
        ValueError: ``name='path': why`` when :func:`unwritable_reason` finds it cannot be written.

    >>> import tempfile
    >>> notes = Path(tempfile.mkdtemp()) / "notes"
    >>> _ = notes.write_text("")
    >>> check_writable("save_folder", notes, folder=True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: save_folder='.../notes': '.../notes' is a file, not a folder
    """
    reason = unwritable_reason(path, folder=folder)
    if reason is not None:
        raise ValueError(f"{name}={os.fspath(path)!r}: {reason}")
