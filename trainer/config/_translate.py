"""The trainer's errors about its arguments, translated into ConfigErrors on the config's key paths."""

from __future__ import annotations

import re

from trainer.config._context import _Context
from trainer.config._errors import ConfigError, _one_line

_LABEL = re.compile(
    r"^(schedulers\[\d+\]|(?:max_duration|eval_interval|save_interval|grad_accum|scale_schedule_ratio|seed"
    r"|the train dataloader|optimizer|max_grad_norm|precision|save_num_checkpoints_to_keep|autoresume)\b)"
)
_OWN_MODULES = ("trainer.", "schedulers.", "timeunits")

# The trainer's Python phrasing, said in config keys: a YAML user has no Python arguments to pass.
_PHRASES = (
    (re.compile(r"\bget_num_tokens is None\b"), "trainer.init.get_num_tokens is not given"),
    (
        re.compile(r"\(pass loss_fn=None to have model\(item\) return the loss\)"),
        "(set trainer.init.loss_fn: null when the model returns the loss)",
    ),
)


def _in_config_terms(message: str) -> str:
    for pattern, replacement in _PHRASES:
        message = pattern.sub(replacement, message)
    return message


def _translate(error: Exception, labels: dict[str, str], paths: list[str], ctx: _Context) -> ConfigError | None:
    """The trainer's ``ValueError``/``TypeError`` about one of its arguments, as a ConfigError on the key path."""
    message = _in_config_terms(_one_line(str(error)))

    def scheduler_path(match: re.Match) -> str:  # in the sentence: the key path alone (the head tells the flag)
        index = int(match.group(1))
        return paths[index] if index < len(paths) else match.group(0)

    head = _LABEL.match(message)
    if head is None:
        if not _raised_by_cadence(error):
            return None  # an error in the user's own code: keep its traceback
        named = [paths[int(i)] for i in re.findall(r"\bschedulers\[(\d+)\]", message) if int(i) < len(paths)]
        path = ctx.where(named[0]) if named else "trainer.init"
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
