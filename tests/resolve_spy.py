"""Counting how often schedules are resolved: the one spy both resolution-count tests use."""

from __future__ import annotations

from collections.abc import Iterable


def count_outermost_resolutions(monkeypatch, classes: Iterable[type]) -> list[str]:
    """Spy on ``_resolve`` of each class (still resolving) and return the list the outermost calls are appended to.

    A warmup class resolves through the schedules it composes; their ``_resolve`` calls inside it are part of the
    one resolution and are not counted again.
    """
    calls, depth = [], [0]
    for cls in classes:

        def spy(self, run, _original=cls._resolve):
            if depth[0] == 0:
                calls.append(type(self).__name__)
            depth[0] += 1
            try:
                return _original(self, run)
            finally:
                depth[0] -= 1

        monkeypatch.setattr(cls, "_resolve", spy)
    return calls
