"""The one "did you mean" of Cadence: close names for a misspelt one, case-insensitively.

Every lookup that can fail on a name (schedule names, optimizer names, arguments, config keys, expression
keywords, time units) suggests through :func:`suggest`, so suggestions read and rank the same everywhere. It
lives at the bottom layer, beside the time strings, so that a misspelt unit (``"30bas"``) is answered by the same
rule as a misspelt schedule; :mod:`schedulers.core.names` re-exports it.

>>> suggest("cosine_with_warmpu", ["cosine_with_warmup", "linear_with_warmup", "wsd"])
['cosine_with_warmup', 'linear_with_warmup']
>>> did_you_mean("t_warmpu", ["t_warmup", "t_max", "alpha_f"], quote=True)
" (did you mean 't_warmup'?)"
>>> did_you_mean("zzz", ["t_warmup"])
''
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

__all__ = ["did_you_mean", "suggest"]


def suggest(
    word: object,
    candidates: Iterable[str],
    *,
    n: int = 3,
    cutoff: float = 0.6,
    meaning: Mapping[str, str] | None = None,
) -> list[str]:
    """The candidates closest to a misspelt name, best first, compared case-insensitively.

    Args:
        word: The name that was not found (any value; it is compared as ``str(word)``).
        candidates: The names that would have been accepted.
        n: At most this many suggestions.
        cutoff: The least :class:`difflib.SequenceMatcher` ratio (0 to 1) a candidate needs to be suggested.
        meaning: What a candidate suggests when it is not itself (``{"epoch": "3ep"}``: ``"epochs"`` is compared
            with ``"epoch"`` and suggests ``"3ep"``); None, or a candidate it leaves out: the candidate.

    Returns:
        Up to ``n`` suggestions, each once, spelt as the candidates (or ``meaning``) spell them (not lower-cased),
        closest first; ``[]`` when none is close enough.

    >>> suggest("STEP", ["step", "Stepped", "cosine"])
    ['step', 'Stepped']
    >>> suggest("xyz", ["step"])
    []
    >>> units = {"ep": "3ep", "epoch": "3ep", "ba": "3ba", "batch": "3ba"}
    >>> suggest("epochs", units, meaning=units)
    ['3ep']
    """
    meaning = meaning or {}
    by_lower: dict[str, str] = {}
    for candidate in candidates:
        by_lower.setdefault(str(candidate).lower(), str(meaning.get(candidate, candidate)))
    close = difflib.get_close_matches(str(word).lower(), list(by_lower), n=len(by_lower), cutoff=cutoff)
    return list(dict.fromkeys(by_lower[match] for match in close))[:n]


def did_you_mean(
    word: object,
    candidates: Iterable[str],
    *,
    n: int = 3,
    cutoff: float = 0.6,
    quote: bool = False,
    meaning: Mapping[str, str] | None = None,
) -> str:
    """The " (did you mean ...?)" tail of an error message about an unknown name.

    Args:
        word: The name that was not found.
        candidates: The names that would have been accepted.
        n: At most this many suggestions (see :func:`suggest`).
        cutoff: The least similarity ratio a suggestion needs (see :func:`suggest`).
        quote: Write each name as a Python string literal (``'t_warmup'``), for keywords and keys.
        meaning: What a candidate suggests when it is not itself (see :func:`suggest`).

    Returns:
        ``" (did you mean A, B?)"`` naming the :func:`suggest` matches, to append to a message; ``""`` when
        none is close, so the message reads the same without it.

    >>> f"unknown key 'alpah_f'{did_you_mean('alpah_f', ['alpha_f', 't_max'], quote=True)}"
    "unknown key 'alpah_f' (did you mean 'alpha_f'?)"
    """
    close = suggest(word, candidates, n=n, cutoff=cutoff, meaning=meaning)
    if not close:
        return ""
    return f" (did you mean {', '.join(repr(name) if quote else name for name in close)}?)"
