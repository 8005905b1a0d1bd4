"""A config turned into a trainer's arguments: the tables read (:mod:`trainer.config_reading._schema`), the rules
between keys applied (the horizon and this run's length, evaluation, checkpoints, precision, the schedulers'
horizon), then the model, loaders and callbacks built, seeded. The trainer's own errors come back as
ConfigErrors on key paths. This module does not import ``trainer.trainer``: ``Trainer.from_config`` builds from
it, mixing :class:`ConfiguredRun` into its class."""

from __future__ import annotations

import os
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import attrs
import torch

from timeunits import Time, TimeUnit
from trainer.callbacks import Callback, ProgressBar, as_callbacks
from trainer.checkpoint_files import CheckpointError
from trainer.config_reading._objects import Optimizer, Ref
from trainer.config_reading._reading import ConfigError, Context, check_output, load_config, one_line
from trainer.config_reading._schedulers_section import learning_rate_factory, scheduler_entries
from trainer.config_reading._schema import (
    CHECKPOINT,
    FIT,
    FP16_TYPES,
    INIT,
    LOOP,
    MODEL_DIR_UNUSED,
    PRECISION,
    ROOT,
    read_config,
)
from trainer.seeding import seed_everything

_HORIZONS = (("max_steps", TimeUnit.BATCH), ("num_epochs", TimeUnit.EPOCH), ("max_duration", None))
_CHECKPOINT_ARGUMENTS = (
    "save_folder",
    "save_interval",
    "load_path",
    "autoresume",
    "save_num_checkpoints_to_keep",
    "load_weights_only",
    "load_strict_model_weights",
)


@attrs.define
class TrainerArguments:
    """The keyword arguments of a trainer, built from a config, with what its errors need to name key paths.

    Args:
        kwargs: The trainer's keyword arguments.
        num_steps: ``loop.num_steps`` (the optimizer steps one ``fit()`` takes at most), or None.
        config: The configuration as read.
        labels: A trainer argument's name -> the config's key path, for errors.
        scheduler_paths: Each scheduler entry's key path, for errors.
        ctx: The reading's context (the config's folder, where each value came from).

    Returns:
        What :func:`trainer_arguments` gives; :meth:`construct` builds the trainer from it.

    >>> from trainer import Trainer
    >>> config = {"trainer": {"init": {"model": {"factory": "torch.nn:Linear", "kwargs": {"in_features": 2,
    ...           "out_features": 1}}, "optimizer": {"SGD": {"lr": 0.1}}, "loss_fn": "mse_loss",
    ...           "progress_bar": False, "loop": {"max_steps": 6, "num_steps": 2}},
    ...           "fit": {"train_dataloader": "itertools:count"}}}
    >>> arguments = trainer_arguments(config)
    >>> arguments.num_steps, type(arguments.construct(Trainer)).__name__
    (2, 'ConfiguredTrainer')
    """

    kwargs: dict[str, Any]
    num_steps: int | None
    config: dict
    labels: dict[str, str]
    scheduler_paths: list[str]
    ctx: Context

    def construct(self, cls: type) -> Any:
        """``cls`` (a :class:`~trainer.Trainer` class) with :class:`ConfiguredRun` mixed in, built from these
        arguments.

        Args:
            cls: The trainer class.

        Returns:
            The trainer.

        Raises:
            ConfigError: The trainer refused an argument: its error, on the config's key path.
            CheckpointError: The checkpoint to load cannot be read.
            TypeError: A refusal that names no argument of the config (a bug in user code), as raised.
            ValueError: Likewise.
        """
        try:
            return configured_class(cls)(**self.kwargs, num_steps=self.num_steps, config=self.config)
        except (ConfigError, CheckpointError):
            raise
        except (TypeError, ValueError) as error:
            translated = _translate(error, self.labels, self.scheduler_paths, self.ctx)
            if translated is None:
                raise
            raise translated from error


def trainer_arguments(
    config: dict | str | os.PathLike,
    base_dir: str | os.PathLike | None = None,
    *,
    sources: dict[str, str] | None = None,
) -> TrainerArguments:
    """Check ``config`` and build the objects it names, seeded by ``trainer.init.seed``.

    Args:
        config: A config dict, or a YAML file's path.
        base_dir: Where ``module:function`` references and relative paths are found; None: the file's folder.
        sources: Where values came from (``--set``, SambaFlow flags), for errors.

    Returns:
        The trainer's keyword arguments with the objects built, and what errors need to name key paths.

    Raises:
        ConfigError: A key or a value the config cannot have, in one line on its key path.

    >>> config = {"trainer": {"init": {"model": {"factory": "torch.nn:Linear", "kwargs": {"in_features": 2,
    ...           "out_features": 1}}, "optimizer": {"SGD": {"lr": 0.1}}, "loss_fn": "mse_loss",
    ...           "progress_bar": False, "loop": {"max_steps": 6, "num_steps": 2}},
    ...           "fit": {"train_dataloader": "itertools:count"}}}
    >>> arguments = trainer_arguments(config)
    >>> str(arguments.kwargs["max_duration"]), arguments.num_steps
    ('6ba', 2)
    """
    if isinstance(config, (str, os.PathLike)):
        path = Path(config)
        config = load_config(path)
        base_dir = path.parent if base_dir is None else base_dir
    ctx = Context(None if base_dir is None else Path(base_dir), dict(sources or {}), ROOT)
    read = read_config(config, ctx)
    init, fit = read["trainer"]["init"], read["trainer"]["fit"]
    loaders = _loaders(init, fit, ctx)
    loop = _Loop.of(init["loop"], evaluates=loaders[1] is not None, counts_tokens=init["get_num_tokens"], ctx=ctx)
    checkpoint = _checkpoint(init["checkpoint"], init["model_dir"], fit["ckpt_path"], ctx)
    precision, clip_norm, clip_value = _precision(init["precision"], ctx)
    schedulers, paths = _schedulers(init, loop.max_duration, ctx)
    seed_everything(init["seed"])  # the model's initial weights and the loaders' data follow trainer.init.seed too
    kwargs = _built(init, loaders, loop.eval_steps, ctx)
    kwargs.update(
        max_duration=loop.max_duration,
        optimizer=_optimizer_of_model(init["optimizer"], clip_value, ctx),
        schedulers=schedulers,
        scale_schedule_ratio=loop.ssr,
        on_nonfinite_loss=loop.on_nonfinite_loss,
        step_schedulers_every_batch=True,  # everything a config builds steps once per batch (docs/stepping.md)
        grad_accum=loop.grad_accum,
        eval_interval=loop.eval_interval if kwargs["eval_dataloader"] is not None else None,
        device=init["device"],
        seed=init["seed"],
        max_grad_norm=clip_norm,
        precision=precision,
        **{key: checkpoint[key] for key in _CHECKPOINT_ARGUMENTS},
    )
    labels = _labels(loop, checkpoint, loaders[2])
    labels.update(_listener_labels(init["callbacks"], kwargs["callbacks"]))
    return TrainerArguments(kwargs, loop.num_steps, config, labels, paths, ctx)


# -- the rules between keys ------------------------------------------------------------------------------


def _loaders(init: dict, fit: dict, ctx: Context) -> tuple[Ref, Ref | None, str]:
    """The train and evaluation loaders, each given under ``trainer.fit`` or ``trainer.init`` (not both), and
    the key path of the train loader."""
    train_path, train = _one_of(ctx, init, fit, "train_dataloader")
    if train is None:
        raise ctx.error(f"{FIT.path}.train_dataloader", "missing: give 'module:function' returning the training loader")
    _, evaluation = _one_of(ctx, init, fit, "val_dataloader", "eval_dataloader")
    return train, evaluation, train_path


def _one_of(ctx: Context, init: dict, fit: dict, *keys: str) -> tuple[str, Any]:
    """The one of ``keys`` given under ``trainer.fit`` or ``trainer.init`` (fit first); two is an error."""
    places = [(FIT.path, fit), (INIT.path, init)]
    found = [(f"{path}.{key}", values[key]) for path, values in places for key in keys if values[key] is not None]
    if len(found) > 1:
        raise ctx.error(found[1][0], f"give it once: {found[0][0]} is also set")
    return found[0] if found else ("", None)


@attrs.define
class _Loop:
    """``trainer.init.loop``: the horizon, the length of this run, evaluation, gradient accumulation, ssr, and
    what a non-finite loss does."""

    max_duration: Time
    max_duration_path: str
    num_steps: int | None
    eval_interval: Time | None
    eval_interval_path: str
    eval_steps: int | None
    grad_accum: int
    grad_accum_path: str | None  # None: not given
    ssr: float
    on_nonfinite_loss: str

    @classmethod
    def of(cls, given: dict, *, evaluates: bool, counts_tokens: object, ctx: Context) -> _Loop:
        """The run's times from ``loop``: the horizon (``max_steps``, ``num_epochs`` or ``max_duration``; with
        ``num_steps`` alone, ``num_steps`` batches), ``num_steps`` when it ends this run before the horizon, and
        the evaluation interval (the horizon when a val loader is given without one)."""
        horizon, horizon_path, num_steps = _horizon(given, ctx)
        frequency = given["eval_frequency"]
        eval_path = f"{LOOP.path}.eval_frequency" if frequency is not None else f"{LOOP.path}.eval_interval"
        interval = Time(frequency, TimeUnit.BATCH) if frequency is not None else given["eval_interval"]
        if not evaluates:
            for key in ("eval_frequency", "eval_interval", "eval_steps"):
                if given[key] is not None:
                    raise ctx.error(f"{LOOP.path}.{key}", "needs trainer.fit.val_dataloader to evaluate on")
        elif interval is None:
            interval, eval_path = horizon, horizon_path  # evaluate once, at the end
        for time, path in ((horizon, horizon_path), (interval, eval_path)):
            if time is not None and time.unit is TimeUnit.TOKEN and not counts_tokens:
                raise ctx.error(
                    path,
                    f"{time} counts tokens: give trainer.init.get_num_tokens ('module:function' counting a batch's "
                    "tokens)",
                )
        accum_key = next((key for key in ("grad_accum_steps", "grad_accum") if given[key] is not None), None)
        return cls(
            max_duration=horizon,
            max_duration_path=horizon_path,
            num_steps=num_steps,
            eval_interval=interval,
            eval_interval_path=eval_path,
            eval_steps=given["eval_steps"],
            grad_accum=given[accum_key] if accum_key else 1,
            grad_accum_path=f"{LOOP.path}.{accum_key}" if accum_key else None,
            ssr=given["scale_schedule_ratio"],
            on_nonfinite_loss=given["on_nonfinite_loss"],
        )


def _horizon(given: dict, ctx: Context) -> tuple[Time, str, int | None]:
    """``(horizon, its key path, num_steps or None when the horizon comes first)``."""
    num_steps = given["num_steps"]
    num_steps_path = f"{LOOP.path}.num_steps"
    for key, unit in _HORIZONS:
        if given[key] is not None:
            horizon = given[key] if unit is None else Time(given[key], unit)
            path = f"{LOOP.path}.{key}"
            break
    else:
        if num_steps is None:
            raise ctx.error(
                LOOP.path,
                "needs the run's length: max_steps (optimizer steps), num_epochs, max_duration (e.g. '2e6tok') "
                "or num_steps",
            )
        return Time(num_steps, TimeUnit.BATCH), num_steps_path, None  # num_steps alone is the horizon
    if num_steps is not None and horizon.unit is TimeUnit.BATCH and num_steps >= horizon.value:
        if num_steps > horizon.value:
            ctx.warn(
                num_steps_path,
                f"{num_steps} steps this run is more than the horizon {ctx.where(path)} = {horizon.value}: "
                f"the run stops at the horizon, after {horizon.value} steps",
            )
        num_steps = None  # the horizon comes first anyway
    return horizon, path, num_steps


_FOLDER = f"{CHECKPOINT.path}.save_folder"
_NEEDS_FOLDER = {
    "steps": f"needs {_FOLDER} (the folder to write checkpoints to)",
    "save_interval": f"needs {_FOLDER} (the folder to write checkpoints to)",
    "autoload_last_checkpoint": f"needs {_FOLDER} (it resumes from the latest checkpoint there)",
    "autoresume": f"needs {_FOLDER} (it resumes from the latest checkpoint there)",
    "save_num_checkpoints_to_keep": f"needs {_FOLDER}",
}


def _checkpoint(given: dict, model_dir: str | None, ckpt_path: str | None, ctx: Context) -> dict[str, Any]:
    """The trainer's checkpoint arguments from ``trainer.init.checkpoint``, ``trainer.fit.ckpt_path`` and
    ``trainer.init.model_dir`` (plus the key paths of the interval and of autoresume, for error messages)."""
    path = CHECKPOINT.path
    interval_path = f"{path}.steps" if given["steps"] is not None else f"{path}.save_interval"
    save_interval = Time(given["steps"], TimeUnit.BATCH) if given["steps"] is not None else given["save_interval"]
    autoresume_key = "autoresume" if given["autoresume"] else "autoload_last_checkpoint"  # the one given (exclusive)
    autoresume = given["autoload_last_checkpoint"] or given["autoresume"]
    strict = given["load_strict_model_weights"] and not given["disable_strict_checkpoint_loading"]
    if not strict and not given["load_weights_only"]:
        ctx.warn(
            f"{path}.load_weights_only",
            "non-strict loading applies to weights-only loads (load_weights_only: true); resuming a run loads "
            "everything strictly",
        )
    save_folder = _save_folder(given["save_folder"], model_dir, save_interval is not None or autoresume, ctx)
    for key, needed in (
        (interval_path, save_interval is not None),
        (f"{path}.{autoresume_key}", autoresume),
        (f"{path}.save_num_checkpoints_to_keep", given["save_num_checkpoints_to_keep"] is not None),
    ):
        if needed and save_folder is None:
            raise ctx.error(key, _NEEDS_FOLDER[key.rsplit(".", 1)[1]])
    return {
        "save_folder": save_folder,
        "save_interval": save_interval,
        "save_interval_path": interval_path,
        "load_path": _load_path(given["load_path"], ckpt_path, ctx),
        "autoresume": autoresume,
        "autoresume_path": f"{path}.{autoresume_key}",
        "save_num_checkpoints_to_keep": given["save_num_checkpoints_to_keep"],
        "load_weights_only": given["load_weights_only"],
        "load_strict_model_weights": strict,
    }


def _save_folder(save_folder: str | None, model_dir: str | None, saving: bool, ctx: Context) -> str | None:
    """``save_folder``; else Cerebras's ``model_dir`` when saving is asked for (Cerebras saves there)."""
    if model_dir is None:
        return save_folder
    if save_folder is None and saving:
        check_output(model_dir, f"{INIT.path}.model_dir", ctx, folder=True)
        return model_dir
    ctx.warn(f"{INIT.path}.model_dir", f"Cadence does not use this Cerebras setting ({MODEL_DIR_UNUSED}); ignored")
    return save_folder


def _load_path(load_path: str | None, ckpt_path: str | None, ctx: Context) -> str | None:
    if load_path is not None and ckpt_path is not None:
        raise ctx.error(
            f"{FIT.path}.ckpt_path", f"give only one checkpoint to load ({CHECKPOINT.path}.load_path is also set)"
        )
    origin = f"{CHECKPOINT.path}.load_path" if load_path is not None else f"{FIT.path}.ckpt_path"
    chosen = load_path if load_path is not None else ckpt_path
    if chosen is not None and not Path(chosen).exists():
        raise ctx.error(origin, f"{chosen!r} does not exist (relative paths start at the working directory)")
    return chosen


def _precision(given: dict, ctx: Context) -> tuple[str, float | None, float | None]:
    """``(precision, max_grad_norm, max_gradient_value)`` from ``trainer.init.precision``.

    A string is the trainer's precision (``fp32``, ``bf16``, ``fp16``). A mapping is Cerebras's: ``enabled: true``
    turns on mixed precision in ``fp16_type`` (``float16`` → ``fp16``, ``bfloat16`` → ``bf16``; Cerebras's
    ``cbfloat16`` → ``bf16``, with a warning); ``max_gradient_norm`` and ``max_gradient_value`` clip gradients;
    the loss-scaling settings are warnings.
    """
    if "name" in given:
        return given["name"], None, None
    kind, name = given["fp16_type"], "fp32"
    if given["enabled"]:
        name = FP16_TYPES[kind or "float16"]
        if kind == "cbfloat16":
            ctx.warn(
                f"{PRECISION.path}.fp16_type", "cbfloat16 is Cerebras hardware's format; Cadence uses bfloat16 (bf16)"
            )
    elif kind is not None:
        ctx.warn(f"{PRECISION.path}.fp16_type", "has no effect without enabled: true")
    return name, given["max_gradient_norm"], given["max_gradient_value"]


def _optimizer_of_model(optimizer: Optimizer, clip_value: float | None, ctx: Context) -> Callable:
    """What the trainer calls with its model, once the model is on its device."""

    def build(model: torch.nn.Module) -> torch.optim.Optimizer:
        return optimizer.build(model, clip_value, ctx)

    return build


def _schedulers(init: dict, horizon: Time, ctx: Context) -> tuple[list, list[str]]:
    """The scheduler entries and their key paths, with a Cerebras 1.x ``optimizer.learning_rate`` schedule."""
    path = f"{INIT.path}.schedulers"
    specs = init["schedulers"]
    entries, paths = scheduler_entries(specs, path, horizon, ctx), [f"{path}[{i}]" for i in range(len(specs))]
    lr_schedule = init["optimizer"].lr_schedule
    if lr_schedule is not None:
        if entries:
            raise ctx.error(
                lr_schedule[1], "is a schedule, and trainer.init.schedulers is also given: give one of them"
            )
        entries.append(learning_rate_factory(*lr_schedule, ctx))
        paths.append(lr_schedule[1])
    return entries, paths


def _labels(loop: _Loop, checkpoint: dict, train_path: str) -> dict[str, str]:
    """The key path of each trainer argument its errors name (``max_duration=...`` → ``loop.max_steps``)."""
    grad_accum = loop.grad_accum_path or f"{LOOP.path}.grad_accum_steps"
    return {
        "max_duration": loop.max_duration_path,
        "eval_interval": loop.eval_interval_path,
        "save_interval": checkpoint["save_interval_path"],
        "max_grad_norm": f"{PRECISION.path}.max_gradient_norm",
        "precision": PRECISION.path,
        "save_num_checkpoints_to_keep": f"{CHECKPOINT.path}.save_num_checkpoints_to_keep",
        "autoresume": checkpoint["autoresume_path"],
        "grad_accum": grad_accum,
        "scale_schedule_ratio": f"{LOOP.path}.scale_schedule_ratio",
        "seed": f"{INIT.path}.seed",
        "the train dataloader": loop.grad_accum_path or train_path,
        "optimizer": f"{INIT.path}.optimizer",
    }


def _listener_labels(refs: list[Ref], callbacks: list) -> dict[str, str]:
    """The entry of each callback that listens to evaluations, by the name its errors start with
    (``EarlyStopping: monitor='eval/los' is not a metric this run logs`` -> ``callbacks[0].EarlyStopping``)."""
    labels: dict[str, str] = {}
    for ref, callback in zip(refs, callbacks, strict=True):
        name = getattr(callback, "listener_name", None)
        if isinstance(name, str):
            labels.setdefault(name, ref.path)
    return labels


# -- building what the config names ----------------------------------------------------------------------


def _built(init: dict, loaders: tuple, eval_steps: int | None, ctx: Context) -> dict[str, Any]:
    """The model, the loaders, the loss, the counters, callbacks and loggers: the config's factories called."""
    model = init["model"].build()
    if not isinstance(model, torch.nn.Module):
        raise ctx.error(
            init["model"].path, f"{init['model'].text} returned {type(model).__name__}, not a torch.nn.Module"
        )
    train, evaluation = _loader(loaders[0], ctx), None if loaders[1] is None else _loader(loaders[1], ctx)
    if evaluation is not None and eval_steps is not None:
        evaluation = _Take(evaluation, eval_steps)
    built = {"model": model, "train_dataloader": train, "eval_dataloader": evaluation}
    for key in ("loss_fn", "get_num_samples", "get_num_tokens"):
        ref = init[key]
        built[key] = None if ref is None else ref.build()
        if built[key] is not None and not callable(built[key]):
            raise ctx.error(ref.path, f"{ref.text} gave {type(built[key]).__name__}, which is not callable")
    callbacks = [_callback(ref, ctx) for ref in init["callbacks"]]
    built["callbacks"] = callbacks
    built["progress_bar"] = init["progress_bar"] and not any(isinstance(c, ProgressBar) for c in callbacks)
    built["loggers"] = [ref.build() for ref in init["loggers"]]
    return built


def _callback(ref: Ref, ctx: Context) -> Any:
    """The callback ``ref`` names, built; Cadence's one-line refusal of its arguments (``EarlyStopping(patience=-1)``)
    as a ConfigError at the argument's key path, or at the entry. An error in the user's own code keeps its
    traceback."""
    try:
        return ref.build()
    except (TypeError, ValueError) as error:
        if not _raised_by_cadence(error):
            raise
        argument = re.match(r"(\w+)=", str(error))
        at = f"{ref.path}.{argument.group(1)}" if argument and argument.group(1) in ref.kwargs else ref.path
        raise ctx.error(at, str(error)) from None


def _loader(ref: Ref, ctx: Context) -> Any:
    loader = ref.build()
    if not isinstance(loader, Iterable):
        raise ctx.error(
            ref.path,
            f"{ref.text} returned {type(loader).__name__}, which is not iterable (a DataLoader or a list of batches)",
        )
    return loader


@attrs.frozen
class _Take:
    """The first ``count`` items of ``loader`` each time it is iterated (``loop.eval_steps``)."""

    loader: Iterable
    count: int

    def __iter__(self) -> Iterator[Any]:
        for index, item in enumerate(self.loader):
            if index >= self.count:
                return
            yield item

    def __len__(self) -> int:
        try:
            return min(len(self.loader), self.count)  # type: ignore[arg-type]
        except TypeError:
            return self.count


# -- the trainer's errors in config terms ----------------------------------------------------------------

_LABEL = re.compile(
    r"^(schedulers\[\d+\]|(?:max_duration|eval_interval|save_interval|grad_accum|scale_schedule_ratio|seed"
    r"|the train dataloader|optimizer|max_grad_norm|precision|save_num_checkpoints_to_keep|autoresume)\b)"
)
_OWN_MODULES = ("trainer.", "schedulers.", "timeunits")
# The trainer's Python phrasing, said in config keys: a YAML user has no Python arguments to pass.
_PHRASES = (
    (
        re.compile(r"\bset eval_interval and eval_dataloader\b"),
        "give trainer.fit.val_dataloader and trainer.init.loop.eval_frequency",
    ),
    (re.compile(r"\bget_num_tokens is None\b"), "trainer.init.get_num_tokens is not given"),
    (
        re.compile(r"\(pass loss_fn=None to have model\(item\) return the loss\)"),
        "(set trainer.init.loss_fn: null when the model returns the loss)",
    ),
)


def _translate(error: Exception, labels: dict[str, str], paths: list[str], ctx: Context) -> ConfigError | None:
    """The trainer's ``ValueError``/``TypeError`` about one of its arguments, as a ConfigError on the key path."""
    message = one_line(str(error))
    for pattern, replacement in _PHRASES:
        message = pattern.sub(replacement, message)

    def scheduler_path(match: re.Match) -> str:  # in the sentence: the key path alone (the head tells the flag)
        index = int(match.group(1))
        return paths[index] if index < len(paths) else match.group(0)

    head = _LABEL.match(message)
    listener = re.match(r"(\w+): ", message)
    if head is None and listener is not None and listener.group(1) in labels:  # a callback's check at the start
        return ConfigError(ctx.where(labels[listener.group(1)]), message)
    if head is None:
        if not _raised_by_cadence(error):
            return None  # an error in the user's own code: keep its traceback
        named = [paths[int(i)] for i in re.findall(r"\bschedulers\[(\d+)\]", message) if int(i) < len(paths)]
        path = ctx.where(named[0]) if named else INIT.path
        return ConfigError(path, re.sub(r"\bschedulers\[(\d+)\]", scheduler_path, message))
    label = head.group(1)
    if label.startswith("schedulers["):
        path = ctx.where(scheduler_path(re.match(r"schedulers\[(\d+)\]", label)))
    else:
        path = ctx.where(labels[label])
    rest = message[head.end() :]
    if label.startswith("schedulers[") and rest.startswith(":"):
        rest = rest[1:].strip()  # "schedulers[0]: what" -> "<path>: what"
    else:
        rest = message  # the label is part of the sentence ("max_duration=5tok is ...", "... and schedulers[1] ...")
    return ConfigError(path, re.sub(r"\bschedulers\[(\d+)\]", scheduler_path, rest))


def _raised_by_cadence(error: BaseException) -> bool:
    traceback = error.__traceback__
    last = None
    while traceback is not None:
        last = traceback
        traceback = traceback.tb_next
    if last is None:
        return False
    module = last.tb_frame.f_globals.get("__name__", "")
    return module.startswith(_OWN_MODULES)


# -- what a configured trainer adds ----------------------------------------------------------------------


class LossHistory(Callback):
    """Keeps the first and last losses of a run (rank 0 sees the same values as the others).

    Args:
        window: how many losses are kept at each end of the run.

    Returns:
        The callback; the run's end line reads ``first``, ``last``, ``count`` and ``eval_metrics`` from it.

    Example:
        >>> history = LossHistory(window=2)
        >>> for loss in (4.0, 3.0, 2.0, 1.0):
        ...     history.on_batch_end(None, loss)
        >>> history.count, history.first, list(history.last)
        (4, [4.0, 3.0], [2.0, 1.0])
    """

    def __init__(self, window: int = 10) -> None:
        self.window = window
        self.count = 0
        self.first: list[float] = []
        self.last: deque[float] = deque(maxlen=window)
        self.eval_metrics: dict[str, float] | None = None
        self.start_batch: int | None = None

    def on_fit_start(self, trainer: Any) -> None:
        self.start_batch = trainer.state.timestamp.batch.value

    def on_batch_end(self, trainer: Any, loss: float) -> None:
        self.count += 1
        if len(self.first) < self.window:
            self.first.append(loss)
        self.last.append(loss)

    def on_eval(self, trainer: Any, metrics: dict) -> None:
        self.eval_metrics = dict(metrics)


class ConfiguredRun:
    """Mixed into a trainer class before it (``class ConfiguredTrainer(ConfiguredRun, Trainer)``).

    ``num_steps`` (``loop.num_steps``, ``--steps_this_run``) is how many optimizer steps one ``fit()`` takes at
    most, counted from the timestamp it starts at (after a resume); ``max_duration`` stays the horizon every
    schedule sees. ``config`` is the configuration it was built from, ``loss_history`` a :class:`LossHistory`.

    Args:
        *args: The trainer's positional arguments.
        num_steps: The optimizer steps one ``fit()`` takes at most; None: up to ``max_duration``.
        config: The configuration the trainer was built from.
        **kwargs: The trainer's keyword arguments.

    Returns:
        The trainer, with a :class:`LossHistory` among its callbacks.

    >>> from trainer import Trainer
    >>> config = {"trainer": {"init": {"model": {"factory": "torch.nn:Linear", "kwargs": {"in_features": 2,
    ...           "out_features": 1}}, "optimizer": {"SGD": {"lr": 0.1}}, "loss_fn": "mse_loss",
    ...           "progress_bar": False, "loop": {"max_steps": 6, "num_steps": 2}},
    ...           "fit": {"train_dataloader": "itertools:count"}}}
    >>> trainer = trainer_arguments(config).construct(Trainer)
    >>> trainer.num_steps, str(trainer.state.max_duration), type(trainer.loss_history).__name__
    (2, '6ba', 'LossHistory')
    """

    def __init__(self, *args: Any, num_steps: int | None = None, config: dict | None = None, **kwargs: Any) -> None:
        self.num_steps = num_steps
        self.config = config
        self.loss_history = LossHistory()
        callbacks = as_callbacks(kwargs.pop("callbacks", ()))  # the rule Trainer's callbacks= follows
        super().__init__(*args, callbacks=[*callbacks, self.loss_history], **kwargs)

    def fit(self, duration: Any = None) -> None:
        """Train until ``max_duration``, or until this call has taken ``num_steps`` optimizer steps.

        Args:
            duration: How long this call trains (as :meth:`trainer.Trainer.fit` takes it); None: ``num_steps``
                batches, or up to ``max_duration`` without them.
        """
        if duration is None and self.num_steps is not None:
            duration = Time(self.num_steps, TimeUnit.BATCH)
        super().fit(duration)  # type: ignore[misc]


_CONFIGURED: dict[type, type] = {}  # the Configured<Name> class made for each trainer subclass, once


def configured_class(cls: type) -> type:
    """``cls`` with :class:`ConfiguredRun` mixed in.

    Args:
        cls: A trainer class.

    Returns:
        ``cls`` itself when it has :class:`ConfiguredRun` (``trainer.ConfiguredTrainer`` is the ``Trainer``'s), or a
        new ``Configured<Name>`` class (made once per class).

    >>> import torch
    >>> class MyTrainer(torch.nn.Module):
    ...     pass
    >>> configured_class(MyTrainer).__name__, configured_class(MyTrainer) is configured_class(MyTrainer)
    ('ConfiguredMyTrainer', True)
    """
    if issubclass(cls, ConfiguredRun):
        return cls
    if cls not in _CONFIGURED:
        namespace = {"__module__": cls.__module__, "__doc__": ConfiguredRun.__doc__}
        _CONFIGURED[cls] = type(f"Configured{cls.__name__}", (ConfiguredRun, cls), namespace)
    return _CONFIGURED[cls]
