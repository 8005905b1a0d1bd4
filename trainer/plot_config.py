"""``cadence plot CONFIG.yaml``: every scheduled hyperparameter of a training config, before training.

The trainer the config describes is built exactly as ``cadence fit`` builds it (the same flags, overrides
and ``scale_schedule_ratio``), then :meth:`trainer.Trainer.preview` runs the trainer's own loop without
training while an :class:`~trainer.LRMonitor` records what every batch would train with: the values are
those ``fit()`` writes, whatever kind of scheduler writes them (Cadence, torch, Cerebras or SambaFlow). The
run is shown to its horizon (``max_duration``; a ``num_steps`` / ``--steps_this_run`` split does not cut
it). The curves are then drawn (or tabulated) by :mod:`schedulers.tools.plotting`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import attrs
import torch

from schedulers.core.clock import batches_in_run
from schedulers.core.plateau import preview_note
from timeunits import Time, TimeUnit
from trainer.callbacks import LRMonitor
from trainer.trainer import Trainer
from trainer.trainer_arguments import constant_batch_size

__all__ = ["ConfigRun", "plot_config", "simulate_config_run"]


@attrs.frozen(eq=False)  # it holds tensors, which compare element by element
class ConfigRun:
    """The values every scheduled hyperparameter takes at every batch of one run of a config.

    ``series`` maps ``"<key>/group<i>"`` to a float64 tensor (the value batch ``k`` trains with);
    ``samples``/``tokens`` are the per-batch counts (tensors; ``tokens`` is None without a token counter);
    ``epochs`` the epochs each batch closed (1 for the last batch of an epoch, else 0).

    Args:
        trainer: The previewed trainer (after the preview: its clock at the run's end).
        series: The recorded values by ``"<key>/group<i>"``.
        samples: Each batch's samples.
        tokens: Each batch's tokens, or None without a token counter.
        epochs: 1 for each batch that closed an epoch, else 0.

    Returns:
        The record :func:`simulate_config_run` makes, which :func:`plot_config` draws.

    >>> import torch
    >>> from schedulers import LinearScheduler
    >>> from trainer import Trainer
    >>> def build(ssr):
    ...     model = torch.nn.Linear(2, 1)
    ...     return Trainer(model, [torch.ones(4, 2)] * 4, "4ba", torch.optim.SGD(model.parameters(), lr=0.1),
    ...                    loss_fn=None, schedulers=LinearScheduler(), scale_schedule_ratio=ssr or 1.0,
    ...                    progress_bar=False)
    >>> run = simulate_config_run(build(None))
    >>> run.num_batches, [round(value, 6) for value in run.series["lr/group0"].tolist()], run.samples.tolist()
    (4, [0.1, 0.075, 0.05, 0.025], [4, 4, 4, 4])
    """

    trainer: Trainer
    series: dict[str, torch.Tensor]
    samples: torch.Tensor
    tokens: torch.Tensor | None
    epochs: torch.Tensor

    @property
    def num_batches(self) -> int:
        """The batches the run trains (the length of each series; 0 when nothing is scheduled)."""
        return len(next(iter(self.series.values()))) if self.series else 0


def simulate_config_run(trainer: Trainer, *, multipliers: bool = False) -> ConfigRun:
    """Run ``trainer``'s loop without training (:meth:`~trainer.Trainer.preview`); record every scheduled value.

    With ``multipliers``, each value is divided by its group's base value (:meth:`~trainer.Trainer.base_value`:
    ``initial_<key>``, else the value before any scheduler wrote it), so curves of different
    hyperparameters share one axis.

    Args:
        trainer: A trainer built from the config, not yet trained (its loop runs to ``max_duration``).
        multipliers: Divide each value by its group's base value.

    Returns:
        A :class:`ConfigRun`: each scheduled value at every batch, and the batches' samples, tokens and epochs.

    >>> import torch
    >>> from schedulers import LinearScheduler
    >>> from trainer import Trainer
    >>> def build(ssr):
    ...     model = torch.nn.Linear(2, 1)
    ...     return Trainer(model, [torch.ones(4, 2)] * 4, "4ba", torch.optim.SGD(model.parameters(), lr=0.1),
    ...                    loss_fn=None, schedulers=LinearScheduler(), scale_schedule_ratio=ssr or 1.0,
    ...                    progress_bar=False)
    >>> [round(value, 6) for value in simulate_config_run(build(None), multipliers=True).series["lr/group0"].tolist()]
    [1.0, 0.75, 0.5, 0.25]
    """
    monitor = LRMonitor()
    trainer.preview([monitor])
    rows = monitor.rows
    names = [name for name in monitor.columns() if name not in LRMonitor.COUNT_COLUMNS]
    series = {}
    for name in names:
        values = torch.tensor([row.get(name, float("nan")) for row in rows], dtype=torch.float64)
        if multipliers:
            key, group = name.rsplit("/group", 1)
            base = trainer.base_value(key, int(group))
            values = values / base if base else torch.zeros_like(values)
        series[name] = values
    end = trainer.state.timestamp
    samples = _per_batch([row["sample"] for row in rows], end.sample.value)
    tokens = _per_batch([row["token"] for row in rows], end.token.value) if trainer.get_num_tokens else None
    epochs = _per_batch([row["epoch"] for row in rows], end.epoch.value)
    return ConfigRun(trainer, series, samples, tokens, epochs)


def _per_batch(before_each: list[int], after_last: int) -> torch.Tensor:
    """Each batch's count from the counts before every batch and the count after the last."""
    counts = torch.tensor([*before_each, after_last], dtype=torch.int64)
    return counts[1:] - counts[:-1]


def plot_config(
    build: Callable[[float | None], Trainer],
    *,
    ssrs: tuple[float, ...] | None = None,
    x_unit: str | None = None,
    multipliers: bool = False,
    output: str | None = None,
    csv: str | None = None,
    title: str | None = None,
    width: int | None = None,
    height: int | None = None,
) -> str:
    """Preview the config's run for each ssr (``build(ssr) -> Trainer``; ``build(None)``: the config's own)
    and draw, tabulate or print it. ``csv="-"`` writes the table to stdout.

    Args:
        build: ``build(ssr)`` builds the config's trainer with that ``scale_schedule_ratio`` (None: its own).
        ssrs: Ratios to compare, a run each (None: the config's own ratio).
        x_unit: The x axis's unit, ``ba``, ``ep``, ``sp``, ``tok`` or ``dur`` (None: the run's, ``ba`` for ``ep``).
        multipliers: Plot each value divided by its group's base value.
        output: An image file to draw into (its extension gives the format: png, svg, pdf, ...).
        csv: A CSV file for the exact table, or ``"-"`` for stdout.
        title: The plot's title.
        width: The plot's width (characters of the text plot, pixels of an image).
        height: The plot's height (characters of the text plot, pixels of an image).

    Returns:
        What to print: the text plot, else a note of the files written (empty when only stdout was written).

    Raises:
        ValueError: The config schedules nothing, or several ratios of a run counted in samples or tokens.

    >>> import torch
    >>> from schedulers import LinearScheduler
    >>> from trainer import Trainer
    >>> def build(ssr):
    ...     model = torch.nn.Linear(2, 1)
    ...     return Trainer(model, [torch.ones(4, 2)] * 4, "4ba", torch.optim.SGD(model.parameters(), lr=0.1),
    ...                    loss_fn=None, schedulers=LinearScheduler(), scale_schedule_ratio=ssr, progress_bar=False)
    >>> plot_config(build, width=20, height=3).splitlines()[1]
    '  0.1 ┤⠉⠉⠉⠉⠉⡇⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀'
    """
    if ssrs:
        runs = {ssr: simulate_config_run(build(ssr), multipliers=multipliers) for ssr in ssrs}
    else:  # the config's own scale_schedule_ratio, exactly as `cadence fit` applies it
        first = simulate_config_run(build(None), multipliers=multipliers)
        runs = {first.trainer.state.ssr: first}
    view = _PlotView(runs)
    scheduled = next(iter(runs.values())).trainer.scheduled
    note = preview_note(scheduled.monitored, [schedule for _, schedule, _ in scheduled.schedules])
    if note:  # on stderr: stdout may be the table (--csv -)
        print(f"cadence: note: {note}", file=sys.stderr)
    notes = []
    if output is not None:
        notes.append(view.draw(output, x_unit, multipliers, title, width, height))
    if csv is not None:
        notes.append(view.write_table(csv))
    if output is not None or csv is not None:
        return "\n".join(note for note in notes if note)
    return view.text(x_unit, multipliers, title, width, height)


class _PlotView:
    """The recorded runs as :mod:`schedulers.tools.plotting` takes them: labelled curves over one run length."""

    def __init__(self, runs: dict[float, ConfigRun]) -> None:
        first = next(iter(runs.values()))
        state = first.trainer.state
        names = list(first.series)
        if not names:
            raise ValueError("the config schedules nothing: there is no hyperparameter to plot")
        in_counts = state.max_duration.unit in (TimeUnit.SAMPLE, TimeUnit.TOKEN) or state.dataloader_len is None
        if in_counts and len(runs) > 1:
            raise ValueError("a run counted in samples or tokens is plotted one --ssr at a time (its batches vary)")
        dataloader_len = state.dataloader_len
        if in_counts:  # the recorded run as it is, to its own (scaled) length: dur is progress in its unit
            by_ssr = {1.0: first}
            self.max_duration = state.max_duration
            if dataloader_len is None and state.max_duration.unit is TimeUnit.EPOCH:
                dataloader_len = _recorded_epoch_length(first)
        else:  # the unscaled length in batches, which plotting scales by each ssr exactly as the trainer did
            by_ssr = runs
            self.max_duration = Time(_unscaled_batches(first.trainer), TimeUnit.BATCH)
        from schedulers.tools.plotting import RecordedValues

        trained = first.trainer
        constant = constant_batch_size(
            trained.train_dataloader, trained.grad_accum, trained.world.size, trained.get_num_samples
        )
        self.curves = [(name, RecordedValues({ssr: run.series[name] for ssr, run in by_ssr.items()})) for name in names]
        self.common = dict(
            dataloader_len=dataloader_len,
            samples_per_batch=first.samples if in_counts else constant,
            tokens_per_batch=first.tokens,
            ssrs=tuple(by_ssr),
        )
        self.unit = TimeUnit.BATCH if state.max_duration.unit is TimeUnit.EPOCH else state.max_duration.unit

    def draw(self, output: str, x_unit, multipliers: bool, title, width, height) -> str:
        from schedulers.tools import plotting
        from schedulers.tools.files import write_atomically

        figure = plotting.plot_schedules(
            self.curves, self.max_duration, x_unit=x_unit or self.unit, title=title, **self.common
        )
        figure.axes[0].set_ylabel(_y_label(multipliers))
        if width and height:
            figure.set_size_inches(width / 100, height / 100)
        extension = output.rsplit(".", 1)[-1].lower()
        write_atomically(output, lambda f: figure.savefig(f, format=extension, dpi=100), binary=True)
        return f"wrote {output} ({len(figure.axes[0].lines)} curves)"

    def write_table(self, csv: str) -> str:
        from schedulers.tools import plotting
        from schedulers.tools.files import write_atomically

        table = plotting.schedule_table(self.curves, self.max_duration, **self.common)
        if csv == "-":
            table.write_csv(sys.stdout)
            sys.stdout.flush()
            return ""
        write_atomically(csv, table.write_csv, newline="")
        return f"wrote {csv} ({len(table)} rows)"

    def text(self, x_unit, multipliers: bool, title, width, height) -> str:
        from schedulers.tools import plotting

        text = plotting.terminal_plot(
            self.curves,
            self.max_duration,
            x_unit=x_unit or self.unit,
            title=title,
            width=width or 72,
            height=height or 16,
            **self.common,
        )
        return text.replace(plotting.DEFAULT_Y_LABEL, _y_label(multipliers), 1)


def _y_label(multipliers: bool) -> str:
    # the curves are recorded values, not multipliers of one base lr, so the axis says what they are
    return "multiple of each group's base value" if multipliers else "value written into the param group"


def _recorded_epoch_length(run: ConfigRun) -> int:
    """The batches per epoch of a run in epochs whose loader has no ``len()``, from the epochs the preview closed.

    Every epoch must have as many batches (then the run is exactly that of a loader of this length, and its
    epochs and ``dur`` are exact); otherwise its progress within an epoch is unknown, which is one line.
    """
    closed_after = torch.nonzero(run.epochs).flatten() + 1  # the batch count at each epoch end
    lengths = torch.diff(closed_after, prepend=closed_after.new_zeros(1)).unique().tolist()
    if len(lengths) != 1:
        raise ValueError(
            f"max_duration={run.trainer.state.max_duration}: the train dataloader has no len() and its epochs had "
            f"{', '.join(map(str, lengths))} batches, so where a batch lies in the run is unknown; "
            "give max_duration in ba, sp or tok to plot it"
        )
    return lengths[0]


def _unscaled_batches(trainer: Trainer) -> int:
    """The batches of the unscaled run (in ``ba`` or ``ep`` with a known epoch length), by the clock's rule."""
    state = trainer.state
    return batches_in_run(state.unscaled_max_duration, state.dataloader_len, None, None)
