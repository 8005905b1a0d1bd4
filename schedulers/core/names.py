"""The one "did you mean" of Cadence: close names for a misspelt one, case-insensitively.

Every lookup that can fail on a name (schedule names, optimizer names, arguments, config keys, expression
keywords) suggests through :func:`suggest`, so suggestions read and rank the same everywhere.

>>> suggest("cosine_with_warmpu", ["cosine_with_warmup", "linear_with_warmup", "wsd"])
['cosine_with_warmup', 'linear_with_warmup']
>>> did_you_mean("t_warmpu", ["t_warmup", "t_max", "alpha_f"], quote=True)
" (did you mean 't_warmup'?)"
>>> did_you_mean("zzz", ["t_warmup"])
''
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["did_you_mean", "suggest"]


def suggest(word: object, candidates: Iterable[str], *, n: int = 3, cutoff: float = 0.6) -> list[str]:
    """Up to ``n`` of ``candidates`` closest to ``word`` (best first), compared case-insensitively and
    returned as the candidates spell them; ``[]`` when none is close (difflib ratio below ``cutoff``)."""
    by_lower: dict[str, str] = {}
    for candidate in candidates:
        by_lower.setdefault(str(candidate).lower(), str(candidate))
    close = difflib.get_close_matches(str(word).lower(), list(by_lower), n=n, cutoff=cutoff)
    return [by_lower[match] for match in close]


def did_you_mean(
    word: object, candidates: Iterable[str], *, n: int = 3, cutoff: float = 0.6, quote: bool = False
) -> str:
    """``" (did you mean A, B?)"`` for the :func:`suggest` matches of ``word``, or ``""`` when there are none;
    ``quote=True`` writes each name as a Python string literal (for keywords and keys)."""
    close = suggest(word, candidates, n=n, cutoff=cutoff)
    if not close:
        return ""
    return f" (did you mean {', '.join(repr(name) if quote else name for name in close)}?)"
