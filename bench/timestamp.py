"""Cost of advancing a Timestamp and of parsing a time string, next to baselines in the same process.

Run: ``python bench/timestamp.py``. Target: ``Timestamp.to_next_batch`` under 1 µs.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import compare, report  # noqa: E402

from timeunits import Time, Timestamp  # noqa: E402
from timeunits.parsing import parse_timestring  # noqa: E402

_parse_uncached = parse_timestring.__wrapped__


def main() -> None:
    ts = Timestamp(epoch=1, batch=10, sample=320, token=40960, batch_in_epoch=2, sample_in_epoch=64)
    counters = (1, 10, 320, 40960, 2, 64, 0)

    def tuple_baseline():
        e, b, s, t, bie, sie, tie = counters
        return (e, b + 1, s + 32, t + 4096, bie + 1, sie + 32, tie + 4096)

    medians = compare(
        {
            "7-field tuple advance (baseline)": tuple_baseline,
            "Timestamp.to_next_batch(32, 4096)": lambda: ts.to_next_batch(32, 4096),
            "Timestamp.to_next_epoch()": ts.to_next_epoch,
            "Timestamp.count('ba')": lambda: ts.count("ba"),
        }
    )
    report("Advancing time", medians, "7-field tuple advance (baseline)")

    medians = compare(
        {
            "float('0.3') (baseline)": lambda: float("0.3"),
            "Time.from_timestring('0.3dur')": lambda: Time.from_timestring("0.3dur"),
            "Time.from_timestring('4_000tok')": lambda: Time.from_timestring("4_000tok"),
            "parse '0.3dur', cache bypassed": lambda: _parse_uncached("0.3dur"),
            "parse '4_000tok', cache bypassed": lambda: _parse_uncached("4_000tok"),
            "Time(10, 'ep')": lambda: Time(10, "ep"),
        },
        number=50_000,
    )
    report("Parsing and constructing", medians, "float('0.3') (baseline)")


if __name__ == "__main__":
    main()
