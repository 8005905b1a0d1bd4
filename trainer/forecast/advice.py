"""Which run to fit when the fitted runs cannot pin a law: the one source of that advice.

Every message of :mod:`trainer.forecast` that says a fit cannot answer a question (a run that has not decayed, a
decay term one run cannot identify, a loss floor a short curve cannot pin, a decay earlier than any fitted) ends
with :func:`fit_advice`, and docs/forecast.md's table "Which runs to fit on" gives the same runs
(tests/trainer/test_forecast_answers.py holds the two together).
"""

from __future__ import annotations

__all__ = ["WHICH_RUN", "fit_advice"]

#: what the fitted runs lack, and the run that would show it
WHICH_RUN = {
    "decay": "a run evaluated after its lr has decayed (a branch of a WSD sweep, or this run once its decay is logged)",
    "another decay": "a second run that decays at another point (a branch of a WSD sweep), or a run of another "
    "decay shape at full length",
    "earlier decay": "a run that decays like it, at full length",
    "floor": "the eval loss, longer runs, or several runs",
    "floor without eval": "longer runs, or several runs",  # the runs logged no eval loss: never advise fitting it
}


def fit_advice(lack: str) -> str:
    """The advice for what the fitted runs lack.

    Args:
        lack: A key of :data:`WHICH_RUN`: ``"decay"``, ``"another decay"``, ``"earlier decay"``, ``"floor"`` or
            ``"floor without eval"``.

    Returns:
        ``"fit <the run that would show it>"``, to end a one-line message with.

    >>> fit_advice("earlier decay")
    'fit a run that decays like it, at full length'
    """
    return f"fit {WHICH_RUN[lack]}"
