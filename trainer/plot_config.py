"""``cadence plot CONFIG.yaml``: every scheduled hyperparameter of a training config, before training.

The trainer the config describes is built (model, loaders, optimizer, schedulers — as ``--dry-run`` does)
and its schedulers are stepped exactly as ``fit()`` steps them, without a forward or backward pass: the
values come from the same machinery that will train, whatever kind of scheduler wrote them (Cadence,
torch, Cerebras or SambaFlow). Runs in samples or tokens read the train loader to count them; runs in
batches or epochs do not touch the data. The curves are then drawn (or tabulated) by
:mod:`schedulers.tools.plotting`.
"""

from __future__ import annotations

from typing import Any

import torch

from schedulers.core.base import Curve, Schedule
from schedulers.core.resolution import RunContext
from timeunits import Time, TimeUnit
from trainer.trainer import Trainer

__all__ = ["ConfigRun", "simulate_config_run"]


class ConfigRun:
    """The values every scheduled hyperparameter takes at every batch of one run of a config.

    ``series`` maps ``"<key>/group<i>"`` to a float64 tensor (the value batch ``k`` trains with);
    ``samples``/``tokens`` are per-batch counts (tensors) when the run had to read them, else None.
    """

    def __init__(self, trainer: Trainer, series: dict[str, torch.Tensor], samples, tokens) -> None:
        self.trainer = trainer
        self.series = series
        self.samples = samples
        self.tokens = tokens

    @property
    def num_batches(self) -> int:
        return len(next(iter(self.series.values()))) if self.series else 0


def simulate_config_run(trainer: Trainer, *, multipliers: bool = False) -> ConfigRun:
    """Step ``trainer``'s schedulers through its whole run without training; record every scheduled value.

    With ``multipliers``, each value is divided by the group's base value (``initial_<key>``), so curves of
    different hyperparameters share one axis.
    """
    state, optimizer = trainer.state, trainer.optimizer
    keys = trainer.scheduled_keys
    counts_needed = (
        state.max_duration.unit in (TimeUnit.SAMPLE, TimeUnit.TOKEN)
        or trainer.get_num_tokens is not None
        or state.dataloader_len is None
    )
    constant_samples = trainer._constant_batch_size()
    records: dict[str, list[float]] = {
        f"{key}/group{i}": [] for key in keys for i, group in enumerate(optimizer.param_groups) if key in group
    }
    samples, tokens = [], []
    finished = False
    while not finished:
        epoch_done = False
        batches = trainer._epoch_batches() if counts_needed else _batches_without_data(trainer)
        for items in batches:
            for name in records:
                key, group = name.rsplit("/group", 1)
                param_group = optimizer.param_groups[int(group)]
                value = float(param_group[key])
                if multipliers:
                    base = float(param_group.get(f"initial_{key}", 0.0))
                    value = value / base if base else 0.0
                records[name].append(value)
            n_samples, n_tokens = _counts(trainer, items, constant_samples)
            samples.append(n_samples)
            tokens.append(n_tokens)
            epoch_done = trainer._advance(n_samples, n_tokens)  # the clock and schedulers, as in fit()
            finished = trainer._finished()
            if finished or epoch_done:
                break
        else:
            if state.timestamp.batch_in_epoch.value == 0:
                raise ValueError("the train dataloader yielded no batch in an epoch: nothing to plot")
            trainer._close_epoch()
            finished = trainer._finished()
    series = {name: torch.tensor(values, dtype=torch.float64) for name, values in records.items()}
    return ConfigRun(
        trainer,
        series,
        torch.tensor(samples) if counts_needed or constant_samples else None,
        torch.tensor(tokens) if trainer.get_num_tokens is not None else None,
    )


def _batches_without_data(trainer: Trainer):
    """One placeholder per remaining batch of the epoch (a run in ba/ep needs no data to be counted)."""
    remaining = trainer.state.dataloader_len - trainer.state.timestamp.batch_in_epoch.value
    return ([None] for _ in range(remaining))


def _counts(trainer: Trainer, items: list, constant_samples: int | None) -> tuple[int, int]:
    if items == [None]:
        return constant_samples or 0, 0
    samples = sum(trainer.get_num_samples(item) for item in items)
    tokens = sum(trainer.get_num_tokens(item) for item in items) if trainer.get_num_tokens is not None else 0
    return int(samples), int(tokens)


class TabulatedSchedule(Schedule):
    """Recorded per-batch values as a schedule, so :mod:`schedulers.tools.plotting` draws them like any other.

    ``tables`` maps a scale schedule ratio to the values of the run at that ratio (batch ``k`` → value).
    """

    def __init__(self, tables: dict[float, torch.Tensor]) -> None:
        self.tables = tables

    def _resolve(self, run: RunContext) -> Curve:
        table = self.tables[run.ssr]
        last = len(table) - 1

        def fn(x: Any):
            if isinstance(x, torch.Tensor):
                return table[x.long().clamp(0, last)]
            return float(table[min(int(x), last)])

        return Curve(TimeUnit.BATCH, fn, {})


def plot_config(
    build: Any,
    *,
    ssrs: tuple[float, ...] = (1.0,),
    x_unit: str | None = None,
    multipliers: bool = False,
    output: str | None = None,
    csv: str | None = None,
    title: str | None = None,
    width: int | None = None,
    height: int | None = None,
) -> str:
    """Simulate the config's run for each ssr (``build(ssr) -> Trainer``) and draw, tabulate or print it.

    Returns what to print: the text plot, or a note of the files written.
    """
    from schedulers.tools import plotting
    from schedulers.tools.files import write_atomically

    runs = {ssr: simulate_config_run(build(ssr), multipliers=multipliers) for ssr in ssrs}
    first = runs[ssrs[0]]
    state = first.trainer.state
    in_counts = state.max_duration.unit in (TimeUnit.SAMPLE, TimeUnit.TOKEN) or state.dataloader_len is None
    if in_counts and len(ssrs) > 1:
        raise ValueError("a run counted in samples or tokens is plotted one --ssr at a time (its batches vary)")
    names = list(first.series)
    if not names:
        raise ValueError("the config schedules nothing: there is no hyperparameter to plot")
    # the run plotting scales by each ssr: the unscaled length in batches (exactly what the trainer scales)
    batches = first.num_batches if in_counts else _unscaled_batches(first.trainer)
    schedules = [(name, TabulatedSchedule({ssr: runs[ssr].series[name] for ssr in ssrs})) for name in names]
    common = dict(
        dataloader_len=state.dataloader_len,
        samples_per_batch=first.samples if in_counts else first.trainer._constant_batch_size(),
        tokens_per_batch=first.tokens,
        ssrs=ssrs,
    )
    max_duration = Time(batches, TimeUnit.BATCH)
    unit = x_unit or (TimeUnit.BATCH if state.max_duration.unit is TimeUnit.EPOCH else state.max_duration.unit)
    notes = []
    # the curves are recorded values, not multipliers of one base lr, so the axis says what they are
    y_label = "multiple of each group's base value" if multipliers else "value written into the param group"
    if output is not None:
        figure = plotting.plot_schedules(schedules, max_duration, x_unit=unit, title=title, **common)
        figure.axes[0].set_ylabel(y_label)
        if width and height:
            figure.set_size_inches(width / 100, height / 100)
        extension = output.rsplit(".", 1)[-1].lower()
        write_atomically(output, lambda f: figure.savefig(f, format=extension, dpi=100), binary=True)
        notes.append(f"wrote {output} ({len(figure.axes[0].lines)} curves)")
    if csv is not None:
        table = plotting.schedule_table(schedules, max_duration, **common)
        write_atomically(csv, table.write_csv, newline="")
        notes.append(f"wrote {csv} ({len(table)} rows)")
    if notes:
        return "\n".join(notes)
    text = plotting.terminal_plot(
        schedules, max_duration, x_unit=unit, title=title, width=width or 72, height=height or 16, **common
    )
    return text.replace(plotting.DEFAULT_Y_LABEL, y_label, 1)


def _unscaled_batches(trainer: Trainer) -> int:
    requested = trainer.state.unscaled_max_duration
    if requested.unit is TimeUnit.EPOCH:
        return requested.value * trainer.state.dataloader_len
    return requested.value
