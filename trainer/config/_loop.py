"""``trainer.init.loop``: the horizon, the length of this run, evaluation, gradient accumulation, ssr, and what
a non-finite loss does."""

from __future__ import annotations

from dataclasses import dataclass

from timeunits import Time, TimeUnit
from trainer.config._context import _Context
from trainer.config._read import read_section
from trainer.config._schema import LOOP

_HORIZONS = (("max_steps", TimeUnit.BATCH), ("num_epochs", TimeUnit.EPOCH), ("max_duration", None))


@dataclass
class _Loop:
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


def _loop(value: object, *, evaluates: bool, counts_tokens: bool, ctx: _Context) -> _Loop:
    """The run's times from ``loop``: the horizon (``max_steps``, ``num_epochs`` or ``max_duration``; with
    ``num_steps`` alone, ``num_steps`` batches), ``num_steps`` when it ends this run before the horizon, and
    the evaluation interval (the horizon when a val loader is given without one)."""
    given = read_section(LOOP, value, ctx)
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
                f"{time} counts tokens: give trainer.init.get_num_tokens ('module:function' counting a batch's tokens)",
            )
    accum_key = next((key for key in ("grad_accum_steps", "grad_accum") if given[key] is not None), None)
    return _Loop(
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


def _horizon(given: dict, ctx: _Context) -> tuple[Time, str, int | None]:
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
