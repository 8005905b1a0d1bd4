"""A run's records on disk: CSV files of rows stamped with the run's counts, kept in step with its checkpoints.

``CSVLogger``'s file, ``LRMonitor``'s ``csv_path`` and a sweep point's ``metrics.csv`` are such files: the
columns ``batch, epoch, sample, token``, then one column per value in order of first appearance (or in an
order given). Two rules make the records of a stopped, killed or resumed run equal an uninterrupted run's
(docs/resume.md, "Stopping and resuming keep the records"):

1. **Rows reach the file before a checkpoint that claims them is written**: the trainer calls
   ``on_before_checkpoint`` and a :class:`RowFile` flushes and calls ``fsync``.
2. **A run that resumes from the checkpoint at batch b keeps the rows up to b and appends after them**: the
   rows a killed attempt wrote after its last checkpoint go (:func:`keep_rows_through`, the one cut-back
   rule; ``cadence sweep`` uses it too, to start a WSD branch from the main run's rows).
3. **A run that starts fresh (at batch 0) replaces what an earlier attempt left**, even an attempt stopped
   before its first checkpoint: a new CSV file (unless ``CSVLogger(append=True)``), and TensorBoard hides the
   folder's earlier steps. :func:`first_replaced_batch` says where a run's records start, for both cases.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "metrics.csv")
>>> first = RowFile(path)
>>> for batch in (1, 2, 3):
...     first.add((batch, 0, 8 * batch, 0), {"loss": 1 / batch})
>>> first.close()                                   # killed after batch 3; its checkpoint was at batch 2
>>> resumed = RowFile(path)
>>> resumed.resume(2)
>>> resumed.add((3, 0, 24, 0), {"loss": 0.3})
>>> resumed.close()
>>> print(open(path).read(), end="")
batch,epoch,sample,token,loss
1,0,8,0,1.0
2,0,16,0,0.5
3,0,24,0,0.3
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import IO

from schedulers.tools.files import write_atomically

__all__ = [
    "COUNT_COLUMNS",
    "RowFile",
    "csv_cell",
    "first_replaced_batch",
    "keep_rows_through",
    "read_rows",
    "read_table",
    "write_table",
]

#: The first columns of every row file: the timestamp's totals.
COUNT_COLUMNS = ("batch", "epoch", "sample", "token")


def first_replaced_batch(start_batch: int) -> int:
    """The first batch whose records a run that starts at ``start_batch`` writes anew (rules 2 and 3 above).

    A run resumed from the checkpoint at batch :math:`b > 0` keeps the records through :math:`b`, so it
    replaces those from :math:`b + 1`; a run that starts at batch 0 owns none of the records it finds, so it
    replaces them all, from batch 0.

    Args:
        start_batch: The batch count the run starts at (its checkpoint's; 0 for a fresh run).

    Returns:
        :math:`b + 1` for :math:`b > 0`, else 0.

    >>> first_replaced_batch(14), first_replaced_batch(0)
    (15, 0)
    """
    return int(start_batch) + 1 if start_batch > 0 else 0


def read_table(path: str | os.PathLike) -> tuple[list[str], list[list[str]]]:
    """A CSV's header and rows (a last line cut short by a kill, with no line end, is left out).

    Args:
        path: The CSV file.

    Returns:
        ``(header, rows)``: the column names and each row's cells, as text.

    >>> import os, tempfile
    >>> path = write_table(os.path.join(tempfile.mkdtemp(), "t.csv"), ["batch", "loss"], [[1, 0.5]])
    >>> read_table(path)
    (['batch', 'loss'], [['1', '0.5']])
    """
    return _read(Path(path))[:2]


def csv_cell(value: object) -> str:
    """How Cadence writes one value in a CSV cell: nothing for None, ``repr`` for a float (it reads back exactly,
    ``nan`` and ``inf`` included), ``str`` for anything else.

    Args:
        value: The cell's value.

    Returns:
        The cell's text.

    >>> [csv_cell(value) for value in (None, 0.1, 3, "ssr-0.5", float("inf"))]
    ['', '0.1', '3', 'ssr-0.5', 'inf']
    """
    if value is None:
        return ""
    return repr(value) if isinstance(value, float) else str(value)


def write_table(path: str | os.PathLike, header: Sequence[str], rows: Iterable[Sequence[object]]) -> Path:
    """Write a CSV file atomically (a temporary file in the same folder, ``fsync``, then renamed): ``header``,
    then ``rows``, each cell written by :func:`csv_cell`. The one CSV writer of the trainer (:func:`read_table`
    reads it back).

    Args:
        path: The file; its folder must exist.
        header: The column names.
        rows: One sequence of values per row, in the order of ``header``.

    Returns:
        ``path``, as a Path.

    >>> import os, tempfile
    >>> path = write_table(os.path.join(tempfile.mkdtemp(), "t.csv"), ["point", "loss"], [["a", 0.5], ["b", None]])
    >>> print(path.read_text(), end="")
    point,loss
    a,0.5
    b,
    """

    def write(stream) -> None:
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(header)
        writer.writerows([csv_cell(value) for value in row] for row in rows)

    write_atomically(path, write, newline="")
    return Path(path)


def read_rows(path: str | os.PathLike) -> list[dict[str, str]]:
    """A CSV's rows as dicts (empty cells, and cells a short row lacks, are empty strings).

    Args:
        path: The CSV file.

    Returns:
        One dict per row, column name to cell text.

    >>> import os, tempfile
    >>> path = write_table(os.path.join(tempfile.mkdtemp(), "t.csv"), ["batch", "loss"], [[1, None]])
    >>> read_rows(path)
    [{'batch': '1', 'loss': ''}]
    """
    header, rows = read_table(path)
    return [dict(zip(header, row + [""] * (len(header) - len(row)), strict=False)) for row in rows]


def keep_rows_through(
    path: str | os.PathLike, last_batch: int, *, source: str | os.PathLike | None = None
) -> list[str] | None:
    """Keep in ``path`` the rows of ``source`` (default: ``path`` itself) whose ``batch`` is at most ``last_batch``.

    ``path`` is rewritten atomically, and only when it changes: a row goes, a torn last line goes, or it is a copy.

    Args:
        path: The CSV file to keep rows in.
        last_batch: The last batch whose rows stay (a checkpoint's batch).
        source: The file the rows come from (None: ``path`` itself).

    Returns:
        The header, or None when ``source`` is missing or empty (then nothing is written).

    Raises:
        ValueError: ``source``'s header does not start with :data:`COUNT_COLUMNS`, or a row's batch is not a
            whole number.

    >>> import os, tempfile
    >>> path = write_table(os.path.join(tempfile.mkdtemp(), "m.csv"), COUNT_COLUMNS, [[1, 0, 8, 0], [2, 0, 16, 0]])
    >>> keep_rows_through(path, 1), read_table(path)[1]
    (['batch', 'epoch', 'sample', 'token'], [['1', '0', '8', '0']])
    """
    path = Path(path)
    source = path if source is None else Path(source)
    if not source.is_file() or source.stat().st_size == 0:
        return None
    header, rows, complete = _read(source)
    _check_header(source, header)
    try:
        kept = [row for row in rows if int(row[0]) <= last_batch]
    except ValueError:
        raise ValueError(f"{str(source)!r} has a row whose batch is not a whole number") from None
    if source != path or len(kept) != len(rows) or not complete:
        write_table(path, header, kept)
    return header


class RowFile:
    """One CSV file of rows stamped with counts, written as they come (docs/resume.md).

    - ``add(counts, values)`` writes a row: the four counts, then ``values`` (name -> float, written with
      ``repr`` so they read back exactly; a value a row lacks is an empty cell). A name not seen before widens
      the header: the file is rewritten once, atomically, with earlier rows padded. With ``order`` (a sort
      key), the value columns are kept sorted by it.
    - The file is created by the first row: a fresh file, or (``append=True``) after an existing file's rows.
      :meth:`resume` instead keeps an existing file's rows up to a checkpoint's batch, then appends.
    - :meth:`flush` puts the rows on disk (``fsync``); :meth:`close` flushes and closes; adding a row after
      ``close()`` appends to the same file.

    Args:
        path: The CSV file.
        append: Whether the first row goes after an existing file's rows (else the file starts afresh).
        order: A sort key for the value columns; None keeps them in the order they first came.

    Returns:
        The file's writer; nothing is written before the first :meth:`add`.

    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     rows = RowFile(Path(folder) / "lr.csv")
    ...     rows.add((1, 1, 32, 0), {"lr/group0": 0.5})
    ...     rows.add((2, 1, 64, 0), {"lr/group0": 0.25, "loss/train": 1.5})
    ...     rows.close()
    ...     print((Path(folder) / "lr.csv").read_text().strip())
    batch,epoch,sample,token,lr/group0,loss/train
    1,1,32,0,0.5,
    2,1,64,0,0.25,1.5
    """

    def __init__(
        self, path: str | os.PathLike, *, append: bool = False, order: Callable[[str], object] | None = None
    ) -> None:
        self.path = Path(path)
        self.append = bool(append)
        self.order = order
        self._columns: list[str] = list(COUNT_COLUMNS)
        self._known: set[str] = set()  # the value columns
        self._stream: IO[str] | None = None
        self._writer = None
        self._started = False  # whether this file was created or adopted (then later rows append)
        self._header_written = False

    @property
    def columns(self) -> list[str]:
        """The columns so far: the four counts, then the value columns."""
        return list(self._columns)

    def resume(self, last_batch: int) -> None:
        """The run goes on after ``last_batch``: keep the file's rows up to it, drop later ones, append after them.

        Args:
            last_batch: The batch the run resumes after (its checkpoint's); 0 keeps no row.
        """
        self.close()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        header = keep_rows_through(self.path, last_batch)
        self._started = True
        if header is None:
            self._columns, self._known, self._header_written = list(COUNT_COLUMNS), set(), False
        else:
            self._adopt(header)

    def add(self, counts: Sequence[int], values: dict[str, float]) -> None:
        """Write one row (not yet flushed: see :meth:`flush`).

        Args:
            counts: The row's batch, epoch, sample and token counts, in that order.
            values: The row's values by column name; a new name widens the header.

        Raises:
            ValueError: A value's name is one of the count columns.
        """
        if self._stream is None:
            self._open()
        new = [name for name in values if name not in self._known]
        if new:
            clash = [name for name in new if name in COUNT_COLUMNS]
            if clash:
                raise ValueError(f"the name {clash[0]!r} clashes with the CSV count column of the same name")
            self._widen(new)
        if not self._header_written:
            self._writer.writerow(self._columns)
            self._header_written = True
        row = [str(count) for count in counts]
        row.extend(csv_cell(values.get(name)) for name in self._columns[len(COUNT_COLUMNS) :])
        self._writer.writerow(row)

    def flush(self, *, durable: bool = True) -> None:
        """Hand the rows written so far to the OS, and with ``durable`` to the disk.

        Args:
            durable: Whether to ``fsync`` too (a row that must survive a power cut); False only flushes.
        """
        stream = self._stream
        if stream is not None:
            stream.flush()
            if durable:
                os.fsync(stream.fileno())

    def close(self) -> None:
        """Flush (``fsync``) and close; safe to call twice."""
        self.flush()
        stream, self._stream, self._writer = self._stream, None, None
        if stream is not None:
            stream.close()

    def _open(self) -> None:
        """At first use, adopt an existing file (``append=True``) or start a new one; later, append."""
        if not self._started:
            self._started = True
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.append and self.path.is_file() and self.path.stat().st_size > 0:
                self._adopt(read_table(self.path)[0])
            else:
                self._open_stream("w")
                return
        self._open_stream("a")

    def _adopt(self, header: list[str]) -> None:
        _check_header(self.path, header)
        self._columns, self._known = list(header), set(header[len(COUNT_COLUMNS) :])
        self._header_written = True

    def _open_stream(self, mode: str) -> None:
        self._stream = open(self.path, mode, newline="", encoding="utf-8")
        self._writer = csv.writer(self._stream, lineterminator="\n")

    def _widen(self, new: list[str]) -> None:
        """Add value columns; once the header is written, rewrite the file with it (atomically, rows padded).
        The columns change only once the file has them: a rewrite interrupted (Ctrl-C, a full disk) leaves the
        file and the columns as they were, and the next row with the new names widens the file again."""
        names = self._columns[len(COUNT_COLUMNS) :] + new
        if self.order is not None:
            names.sort(key=self.order)
        old, columns = self._columns, list(COUNT_COLUMNS) + names
        if self._header_written:
            self.close()
            rows = [dict(zip(old, row, strict=False)) for row in read_table(self.path)[1]]
            write_table(self.path, columns, [[row.get(name, "") for name in columns] for row in rows])
            self._open_stream("a")
        self._columns = columns
        self._known.update(new)


def _read(path: Path) -> tuple[list[str], list[list[str]], bool]:
    """Header, rows, and whether the file ended with a line end (else its torn last line is left out)."""
    with open(path, newline="", encoding="utf-8") as stream:
        text = stream.read()
    complete = text.endswith("\n") or not text
    if not complete:
        text = text[: text.rfind("\n") + 1]
    table = [row for row in csv.reader(io.StringIO(text, newline="")) if row]
    return (table[0] if table else []), table[1:], complete


def _check_header(path: Path, header: list[str]) -> None:
    if tuple(header[: len(COUNT_COLUMNS)]) != COUNT_COLUMNS:
        raise ValueError(
            f"cannot append to {str(path)!r}: its header {header!r} does not start with {', '.join(COUNT_COLUMNS)}"
        )
