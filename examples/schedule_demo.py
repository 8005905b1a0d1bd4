"""Schedule demo: how Composer-style time strings resolve for one run, printed as a table.

Run: ``python examples/schedule_demo.py``. (The trainer will replace this as the main job.)
"""

from __future__ import annotations

from timeunits import Time, Timestamp


def main() -> None:
    batches_per_epoch, samples_per_batch, epochs = 500, 32, 10
    max_duration = Time(epochs * batches_per_epoch, "ba")
    print(f"run: {epochs}ep x {batches_per_epoch}ba/ep = {max_duration}, {samples_per_batch} samples per batch")
    for text in ("0.05dur", "0.3dur", "2ep", "1_000ba", "64_000sp"):
        time = Time.from_timestring(text)
        if time.unit.value == "dur":
            batches = max_duration * time
        elif time.unit.value == "ep":
            batches = Time(time.value * batches_per_epoch, "ba")
        elif time.unit.value == "sp":
            batches = Time(time.value // samples_per_batch, "ba")
        else:
            batches = time
        print(f"  {text:>9} -> {batches}")

    ts = Timestamp()
    for batch in range(max_duration.value):
        ts = ts.to_next_batch(samples=samples_per_batch)
        if (batch + 1) % batches_per_epoch == 0:
            ts = ts.to_next_epoch()
    print(f"end of run: {ts}")


if __name__ == "__main__":
    main()
