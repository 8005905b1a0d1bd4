"""Cadence schedules inside MosaicML Composer's own ``Trainer``: its state read in Cadence's units.

Composer calls a scheduler as ``scheduler(state, ssr)`` with its ``State``, whose ``timestamp``,
``max_duration`` and ``dataloader_len`` are Composer's own ``Time``/``Timestamp`` objects. A Cadence schedule
reads them as they are (:meth:`timeunits.Time.from_input` reads a ``Time``'s ``.value`` and ``.unit.value``; a
schedule counts a foreign ``Timestamp`` by its ``batch.value``, ...), so it is passed straight to Composer's
``Trainer``::

    from composer import Trainer
    from schedulers import CosineAnnealingWithWarmupScheduler

    trainer = Trainer(..., max_duration="3ep",
                      schedulers=CosineAnnealingWithWarmupScheduler(t_warmup="0.3dur", alpha_f=0.1))

:func:`composer_schedule` gives the same values; it is for a function of your own written against Cadence's
values, which it calls on a view of Composer's state in Cadence's units (a ``Timestamp``'s ``epoch``,
``batch``, ``sample``, ``token`` and their ``*_in_epoch``).

Composer is never imported: anything shaped like its state works (docs/migrating-composer.md).
"""

from __future__ import annotations

from typing import Any

from schedulers.core.run import as_dataloader_len, as_max_duration
from timeunits import Time, Timestamp

__all__ = ["ComposerState", "composer_schedule", "composer_time", "composer_timestamp"]

_COUNTS = ("epoch", "batch", "sample", "token")


def composer_time(value: Any) -> Any:
    """A Composer ``Time`` (anything with ``.value`` and ``.unit.value``) as Cadence's :class:`~timeunits.Time`;
    Cadence's own, a string, an int or None as they are.

    Args:
        value: The time.

    Returns:
        Cadence's ``Time``, or ``value`` unchanged.

    >>> from types import SimpleNamespace
    >>> composer_time(SimpleNamespace(value=3, unit=SimpleNamespace(value="ep")))
    Time(3, TimeUnit.EPOCH)
    """
    if isinstance(value, Time) or not hasattr(value, "value") or not hasattr(getattr(value, "unit", None), "value"):
        return value
    return Time(value.value, value.unit.value)


def composer_timestamp(timestamp: Any) -> Timestamp:
    """A Composer ``Timestamp`` (its counts as ``Time`` objects) as Cadence's :class:`~timeunits.Timestamp`.

    Args:
        timestamp: Composer's timestamp, or Cadence's (returned as it is).

    Returns:
        Cadence's ``Timestamp`` with the same epoch, batch, sample and token counts, in total and in the epoch.

    >>> from types import SimpleNamespace
    >>> def t(n, unit): return SimpleNamespace(value=n, unit=SimpleNamespace(value=unit))
    >>> theirs = SimpleNamespace(epoch=t(1, "ep"), batch=t(7, "ba"), sample=t(28, "sp"), token=t(0, "tok"),
    ...                          batch_in_epoch=t(2, "ba"), sample_in_epoch=t(8, "sp"), token_in_epoch=t(0, "tok"))
    >>> composer_timestamp(theirs).batch, composer_timestamp(theirs).batch_in_epoch
    (Time(7, TimeUnit.BATCH), Time(2, TimeUnit.BATCH))
    """
    if isinstance(timestamp, Timestamp):
        return timestamp
    counts = {name: int(getattr(timestamp, name).value) for name in _COUNTS}
    counts.update(
        {f"{name}_in_epoch": int(getattr(timestamp, f"{name}_in_epoch").value) for name in _COUNTS if name != "epoch"}
    )
    return Timestamp(**counts)


class ComposerState:
    """Composer's ``State`` in Cadence's schedule protocol: ``timestamp``, ``max_duration`` and
    ``dataloader_len`` read from it as Cadence's values (``max_duration`` and ``dataloader_len`` are the same
    objects while Composer's are, so a schedule resolves once per run).

    Args:
        state: Composer's state (or anything shaped like it).

    Returns:
        The view.

    >>> from types import SimpleNamespace
    >>> def t(n, unit): return SimpleNamespace(value=n, unit=SimpleNamespace(value=unit))
    >>> theirs = SimpleNamespace(max_duration=t(3, "ep"), dataloader_len=t(10, "ba"))
    >>> view = ComposerState(theirs)
    >>> view.max_duration, view.dataloader_len
    (Time(3, TimeUnit.EPOCH), 10)
    """

    def __init__(self, state: Any) -> None:
        self.state = state
        self._read: dict[str, tuple[Any, Any]] = {}

    def _converted(self, name: str, convert: Any) -> Any:
        given = getattr(self.state, name)
        seen = self._read.get(name)
        if seen is None or seen[0] is not given:
            seen = self._read[name] = (given, None if given is None else convert(composer_time(given)))
        return seen[1]

    @property
    def max_duration(self) -> Time:
        """Composer's ``max_duration`` as Cadence's ``Time``."""
        return self._converted("max_duration", as_max_duration)

    @property
    def dataloader_len(self) -> int | None:
        """Composer's ``dataloader_len`` (a ``Time`` in ``ba``) as an int, or None."""
        return self._converted("dataloader_len", as_dataloader_len)

    @property
    def timestamp(self) -> Timestamp:
        """Composer's ``timestamp`` as Cadence's."""
        return composer_timestamp(self.state.timestamp)


class composer_schedule:  # named as a function: to its user it wraps a schedule for Composer's Trainer
    """A Cadence schedule as a Composer scheduler: called with Composer's ``State``, it reads it in Cadence's
    units (:class:`ComposerState`) and gives the schedule's multiplier.

    Args:
        schedule: A Cadence schedule or any ``(state, ssr) -> float`` callable.

    Returns:
        A callable ``(state, ssr=1.0) -> float`` to give Composer's ``Trainer(schedulers=...)``.

    >>> from types import SimpleNamespace
    >>> from schedulers import LinearScheduler
    >>> def t(n, unit): return SimpleNamespace(value=n, unit=SimpleNamespace(value=unit))
    >>> now = SimpleNamespace(epoch=t(0, "ep"), batch=t(5, "ba"), sample=t(0, "sp"), token=t(0, "tok"),
    ...                       batch_in_epoch=t(5, "ba"), sample_in_epoch=t(0, "sp"), token_in_epoch=t(0, "tok"))
    >>> composer_schedule(LinearScheduler())(SimpleNamespace(timestamp=now, max_duration=t(10, "ba"),
    ...                                                      dataloader_len=t(10, "ba")))
    0.5
    """

    def __init__(self, schedule: Any) -> None:
        self.schedule = schedule
        self._views: dict[int, ComposerState] = {}

    def __call__(self, state: Any, ssr: float = 1.0) -> float:
        """The multiplier at Composer's ``state`` (Composer's scheduler protocol).

        Args:
            state: Composer's ``State`` (``timestamp``, ``max_duration``, ``dataloader_len``), read through one
                :class:`ComposerState` view per state object.
            ssr: The scale schedule ratio Composer calls the scheduler with.

        Returns:
            The wrapped schedule's α at the state's time, as the class example shows.
        """
        view = self._views.get(id(state))
        if view is None or view.state is not state:
            view = self._views[id(state)] = ComposerState(state)
        return self.schedule(view, ssr)

    def __repr__(self) -> str:
        return f"composer_schedule({self.schedule!r})"
