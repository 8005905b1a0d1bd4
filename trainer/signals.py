"""The signals that ask a run to stop cleanly, for ``cadence fit`` and ``cadence sweep`` alike (docs/resume.md).

SIGTERM (a scheduler's preemption notice, ``kill``) and SIGHUP (the terminal went away) do not end the process
on the spot: while a :func:`stop_requests` block runs they call ``on_request(signum)``, and the command stops
at a safe point — ``cadence fit`` after the current batch, with a final checkpoint; ``cadence sweep`` once
every running point has done that — then exits with :func:`exit_status` (``128 + signum``: 143 for SIGTERM,
129 for SIGHUP, as a shell reports a process the signal ended). A signal the process was started ignoring
(``nohup`` ignores SIGHUP) stays ignored. Ctrl-C (SIGINT) keeps Python's ``KeyboardInterrupt``.

>>> import os, signal
>>> seen = []
>>> with stop_requests(seen.append):
...     os.kill(os.getpid(), signal.SIGTERM)
>>> seen, exit_status(signal.SIGTERM), signal_name(signal.SIGHUP)
([<Signals.SIGTERM: 15>], 143, 'SIGHUP')
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator

__all__ = ["STOP_SIGNALS", "exit_status", "signal_name", "stop_requests"]

#: The signals that ask for a clean stop (SIGHUP where the platform has it).
STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)


@contextlib.contextmanager
def stop_requests(on_request: Callable[[signal.Signals], None]) -> Iterator[None]:
    """While in the block, each of :data:`STOP_SIGNALS` calls ``on_request(signum)`` instead of ending the process.

    Handlers can only be set in the main thread: elsewhere the block changes nothing. The previous handlers
    come back at the end, and a signal that was ignored (``SIG_IGN``) is left ignored.

    Args:
        on_request: Called with the signal each time one arrives (from the main thread, between bytecodes).

    Returns:
        A context manager; the block runs with the handlers in place.

    >>> import os
    >>> seen = []
    >>> with stop_requests(seen.append):
    ...     os.kill(os.getpid(), signal.SIGTERM)
    >>> [signal_name(signum) for signum in seen]
    ['SIGTERM']
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def request(signum, frame) -> None:
        on_request(signal.Signals(signum))

    previous = {}
    for signum in STOP_SIGNALS:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            previous[signum] = signal.signal(signum, request)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def exit_status(signum: int) -> int:
    """The exit status of a command stopped by ``signum``: ``128 + signum``, as a shell reports it.

    Args:
        signum: The signal's number (or a ``signal.Signals``).

    Returns:
        The exit status.

    >>> exit_status(signal.SIGTERM), exit_status(signal.SIGHUP)
    (143, 129)
    """
    return 128 + int(signum)


def signal_name(signum: int) -> str:
    """The name of a signal, for messages.

    Args:
        signum: The signal's number (or a ``signal.Signals``).

    Returns:
        Its name: ``"SIGTERM"`` for 15.

    Raises:
        ValueError: No signal has that number.

    >>> signal_name(15)
    'SIGTERM'
    """
    return signal.Signals(signum).name
