"""Optimizer param groups: weight-decay splits, tagged groups by name pattern, per-group lr factors.

Every helper returns plain torch param-group dicts (``{"params": [...], "tags": [...], ...}``) to pass to any
``torch.optim`` optimizer (or :func:`trainer.optim.configure_optimizer`). The ``"tags"`` entry is a list of str,
which schedulers' ``param_group_tags`` select on (:mod:`schedulers.core.torch_scheduler`); a list (not a set) keeps
``optimizer.state_dict()`` loadable with ``torch.load(weights_only=True)``.

- :func:`decay_groups`: weight decay for weight matrices only; biases, other 1-D (and 0-D) parameters and
  the parameters of normalization layers get ``weight_decay=0.0`` (embeddings too, on request).
- :func:`tagged_groups`: Cerebras-style groups chosen by glob patterns on ``named_parameters()`` names,
  each with its tag and its own options (``lr``, ``weight_decay``, ``adjust_learning_rate``, ...).
- :func:`apply_adjust_learning_rate`: multiply each group's ``lr`` (and ``initial_lr``) by its
  ``adjust_learning_rate`` entry, once.

>>> import torch
>>> model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.LayerNorm(8), torch.nn.Linear(8, 2))
>>> groups = decay_groups(model, 0.1)
>>> [(g["tags"], g["weight_decay"], len(g["params"])) for g in groups]
[(['decay'], 0.1, 2), (['no_decay'], 0.0, 4)]
>>> groups = tagged_groups(model, [{"params": "2.*", "tag": "head", "lr": 0.01}], default_tag="body")
>>> [(g["tags"], g.get("lr"), len(g["params"])) for g in groups]
[(['head'], 0.01, 2), (['body'], None, 4)]
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from typing import Any

import torch
from torch import nn

from schedulers.core.schedule_arguments import number_argument

__all__ = [
    "ADJUSTED_MARKER",
    "NORM_LAYERS",
    "apply_adjust_learning_rate",
    "decay_groups",
    "tagged_groups",
]


def _norm_layers() -> tuple[type[nn.Module], ...]:
    layers: list[type[nn.Module]] = [nn.LayerNorm, nn.GroupNorm, nn.LocalResponseNorm]
    # _NormBase covers BatchNorm1d/2d/3d, SyncBatchNorm, the lazy variants and InstanceNorm1d/2d/3d
    from torch.nn.modules.batchnorm import _NormBase

    layers.append(_NormBase)
    rms_norm = getattr(nn, "RMSNorm", None)  # torch >= 2.4
    if rms_norm is not None:
        layers.append(rms_norm)
    return tuple(layers)


#: The module types whose parameters :func:`decay_groups` never decays by default: LayerNorm, GroupNorm,
#: LocalResponseNorm, every BatchNorm/SyncBatchNorm/InstanceNorm (torch's ``_NormBase``) and RMSNorm.
NORM_LAYERS: tuple[type[nn.Module], ...] = _norm_layers()

_EMBEDDINGS = (nn.Embedding, nn.EmbeddingBag)

#: The param-group key :func:`apply_adjust_learning_rate` sets to the factor it applied.
ADJUSTED_MARKER = "adjust_learning_rate_applied"


# -----------------------------------------------------------------------------------------------------
# decay / no-decay
# -----------------------------------------------------------------------------------------------------


def decay_groups(
    model: nn.Module,
    weight_decay: float,
    *,
    no_decay: Iterable[type[nn.Module] | str] = NORM_LAYERS,
    no_decay_embeddings: bool = False,
) -> list[dict[str, Any]]:
    """Split ``model``'s parameters into a decayed and a non-decayed param group.

    A parameter goes to the ``"no_decay"`` group (``weight_decay=0.0``) when any of these holds:

    - it has at most one dimension (biases, norm scales and shifts, scalar gains);
    - a module that owns it is an instance of a module type in ``no_decay`` (default :data:`NORM_LAYERS`:
      the normalization layers), or, with ``no_decay_embeddings=True``, an ``nn.Embedding``/``nn.EmbeddingBag``;
    - its ``named_parameters()`` name matches a glob pattern (a str) in ``no_decay``, e.g. ``"*.pos_emb"``
      (``fnmatch``, case-sensitive; ``*`` also crosses dots).

    Every other parameter (linear and convolution weights, ...) goes to the ``"decay"`` group. A parameter
    shared by several modules (tied weights) appears once, and is not decayed when any of its owners says so.

    Args:
        model: The module whose ``named_parameters()`` are split.
        weight_decay: The decayed group's ``weight_decay``, a finite number >= 0.
        no_decay: Module types and name patterns (str) whose parameters are not decayed.
        no_decay_embeddings: Whether embeddings' parameters are not decayed either.

    Returns:
        ``[decay_group, no_decay_group]``, each ``{"params": [...], "weight_decay": ..., "tags": [...]}``
        (tagged ``"decay"`` or ``"no_decay"``) with its parameters in ``named_parameters()`` order; a group with
        no parameter is left out. Other options (``lr``, ...) come from the optimizer's defaults.

    Raises:
        TypeError: ``model`` not an ``nn.Module``, or a ``no_decay`` entry neither a module type nor a str.
        ValueError: ``weight_decay`` not a finite number >= 0.

    >>> emb = torch.nn.Sequential(torch.nn.Embedding(10, 4), torch.nn.Linear(4, 4))
    >>> [(g["tags"], len(g["params"])) for g in decay_groups(emb, 0.1, no_decay_embeddings=True)]
    [(['decay'], 1), (['no_decay'], 2)]
    """
    weight_decay = number_argument("weight_decay", weight_decay, low=0.0)
    if not isinstance(model, nn.Module):
        raise TypeError(f"decay_groups needs a torch.nn.Module, got {type(model).__name__}")
    exempt_types, patterns = _no_decay_rules(no_decay, no_decay_embeddings)
    exempt_ids = {
        id(p)
        for module in model.modules()
        if isinstance(module, exempt_types)
        for p in module.parameters(recurse=False)
    }
    decay: list[nn.Parameter] = []
    kept: list[nn.Parameter] = []
    for name, param in model.named_parameters():
        exempt = id(param) in exempt_ids or any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)
        (kept if param.dim() <= 1 or exempt else decay).append(param)
    groups = [
        {"params": decay, "weight_decay": weight_decay, "tags": ["decay"]},
        {"params": kept, "weight_decay": 0.0, "tags": ["no_decay"]},
    ]
    return [group for group in groups if group["params"]]


def _no_decay_rules(
    no_decay: Iterable[type[nn.Module] | str], embeddings: bool
) -> tuple[tuple[type[nn.Module], ...], list[str]]:
    """``(module types, name patterns)`` of ``decay_groups``'s ``no_decay`` (plus the embeddings on request)."""
    if isinstance(no_decay, (str, type)):
        no_decay = (no_decay,)
    module_types: list[type[nn.Module]] = []
    patterns: list[str] = []
    for index, entry in enumerate(no_decay):
        if isinstance(entry, str):
            patterns.append(entry)
        elif isinstance(entry, type) and issubclass(entry, nn.Module):
            module_types.append(entry)
        else:
            raise TypeError(
                f"no_decay[{index}]={entry!r} must be an nn.Module subclass or a glob pattern on parameter names"
            )
    if embeddings:
        module_types.extend(_EMBEDDINGS)
    return tuple(module_types), patterns


# -----------------------------------------------------------------------------------------------------
# tagged groups by name pattern
# -----------------------------------------------------------------------------------------------------


def tagged_groups(
    model: nn.Module,
    specs: Sequence[dict[str, Any]],
    *,
    default_tag: str | None = None,
) -> list[dict[str, Any]]:
    """Param groups chosen by glob patterns on parameter names, Cerebras style.

    Each spec is a dict ``{"params": PATTERN_OR_PATTERNS, "tag": TAG, **options}``:

    - ``params``: a glob pattern (str) or a list of them, matched with ``fnmatch.fnmatchcase`` against the
      names of ``model.named_parameters()`` (``"*.emb*"``, ``"encoder.layers.*.bias"``; ``*`` also crosses
      dots, so ``"*.emb*"`` does not match a top-level ``"emb.weight"``: write ``"emb*"`` or ``"*emb*"``);
    - ``tag`` (a str) or ``tags`` (a list of str): the group's tags (optional);
    - every other key (``lr``, ``weight_decay``, ``adjust_learning_rate``, ``betas``, ...) is copied into the group.

    The groups come in spec order, each with its parameters in ``named_parameters()`` order, then one default
    group holding every parameter no spec matched (``tags=[default_tag]``, or no ``tags`` entry when
    ``default_tag`` is None; no options, so the optimizer's defaults apply); the default group is left out
    when every parameter was matched. ``specs`` is not modified.

    Args:
        model: The module whose ``named_parameters()`` are grouped.
        specs: The specs (one dict is one spec).
        default_tag: The default group's tag (None: no ``tags`` entry).

    Returns:
        The param groups, ready for a ``torch.optim`` optimizer.

    Raises:
        TypeError: ``model`` not an ``nn.Module``, a spec not a dict, or ``default_tag`` not a str.
        ValueError: A parameter matched by two specs (naming it and both patterns), a pattern that matches no
            parameter (naming it), a spec without ``params``, or with both ``tag`` and ``tags``, or bad tags.

    >>> model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 1))
    >>> groups = tagged_groups(model, [{"params": "*.bias", "tags": ["bias"], "weight_decay": 0.0}])
    >>> [(g.get("tags"), g.get("weight_decay"), len(g["params"])) for g in groups]
    [(['bias'], 0.0, 2), (None, None, 2)]
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"tagged_groups needs a torch.nn.Module, got {type(model).__name__}")
    if isinstance(specs, dict):
        specs = [specs]
    if default_tag is not None and not isinstance(default_tag, str):
        raise TypeError(f"default_tag={default_tag!r} must be a str or None")
    named = list(model.named_parameters())
    parsed = [_parse_spec(index, spec) for index, spec in enumerate(specs)]
    owner = _owners([name for name, _ in named], [patterns for patterns, _ in parsed], type(model).__name__)
    groups: list[dict[str, Any]] = []
    for index, (_, options) in enumerate(parsed):
        params = [param for name, param in named if owner.get(name, (None,))[0] == index]
        groups.append({"params": params, **options})
    rest = [param for name, param in named if name not in owner]
    if rest:
        default: dict[str, Any] = {"params": rest}
        if default_tag is not None:
            default["tags"] = [default_tag]
        groups.append(default)
    return groups


def _owners(names: list[str], patterns: list[list[str]], model: str) -> dict[str, tuple[int, str]]:
    """Parameter name -> (spec index, pattern that matched it); a pattern matching nothing, or a parameter
    matched by two specs, is a ValueError naming them."""
    owner: dict[str, tuple[int, str]] = {}
    for index, spec_patterns in enumerate(patterns):
        for pattern in spec_patterns:
            matched = [name for name in names if fnmatch.fnmatchcase(name, pattern)]
            if not matched:
                raise ValueError(
                    f"specs[{index}] pattern {pattern!r} matches no parameter of {model}; "
                    f"its parameters are: {_shorten(names)}"
                )
            for name in matched:
                previous = owner.get(name)
                if previous is not None and previous[0] != index:
                    raise ValueError(
                        f"parameter {name!r} is matched by specs[{previous[0]}] pattern {previous[1]!r} and by "
                        f"specs[{index}] pattern {pattern!r}; each parameter may belong to one group only"
                    )
                owner.setdefault(name, (index, pattern))
    return owner


def _parse_spec(index: int, spec: Any) -> tuple[list[str], dict[str, Any]]:
    if not isinstance(spec, dict):
        raise TypeError(f"specs[{index}] must be a dict like {{'params': ['*.bias'], 'tag': 'bias'}}, got {spec!r}")
    if "params" not in spec:
        raise ValueError(f"specs[{index}] has no 'params' (a glob pattern or a list of them): {spec!r}")
    options = {key: value for key, value in spec.items() if key not in ("params", "tag", "tags")}
    patterns = spec["params"]
    if isinstance(patterns, str):
        patterns = [patterns]
    if (
        not isinstance(patterns, (list, tuple))
        or not patterns
        or not all(isinstance(pattern, str) and pattern for pattern in patterns)
    ):
        raise ValueError(
            f"specs[{index}]['params']={spec['params']!r} must be a glob pattern or a non-empty list of them "
            "(parameter names, not tensors)"
        )
    if "tag" in spec and "tags" in spec:
        raise ValueError(f"specs[{index}] has both 'tag' and 'tags'; give one")
    if "tag" in spec or "tags" in spec:
        tags = spec.get("tag", spec.get("tags"))
        tags = [tags] if isinstance(tags, str) else tags
        if (
            not isinstance(tags, (list, tuple, set, frozenset))
            or not tags
            or not all(isinstance(tag, str) and tag for tag in tags)
        ):
            raise ValueError(
                f"specs[{index}] tag(s) {spec.get('tag', spec.get('tags'))!r} must be a str or a list of str"
            )
        options["tags"] = sorted(tags) if isinstance(tags, (set, frozenset)) else list(tags)
    return list(patterns), options


def _shorten(names: list[str], limit: int = 12) -> str:
    if len(names) <= limit:
        return ", ".join(names) or "none"
    return ", ".join(names[:limit]) + f", ... ({len(names) - limit} more)"


# -----------------------------------------------------------------------------------------------------
# adjust_learning_rate
# -----------------------------------------------------------------------------------------------------


def apply_adjust_learning_rate(optimizer: torch.optim.Optimizer) -> torch.optim.Optimizer:
    """Multiply each param group's ``lr`` by its ``adjust_learning_rate`` entry, once; return ``optimizer``.

    For every group with an ``adjust_learning_rate`` factor ``a`` (a finite number >= 0), ``lr`` becomes
    ``a × lr``, and so does ``initial_lr`` when the group has one (the base value schedules multiply). The group
    then records ``a`` as ``group["adjust_learning_rate_applied"]`` (:data:`ADJUSTED_MARKER`), and a later call
    leaves it alone: calling twice, or after ``optimizer.load_state_dict()`` restored already-scaled groups
    (the marker is saved with them), never scales twice. A group whose marker differs from its current
    factor is a ``ValueError``. A 0-d tensor ``lr`` is scaled in place. Groups without the key are untouched.

    Call it when the optimizer is built, before schedulers are created: Cadence's compiled schedules and
    torch schedulers take each group's base lr when they are constructed. Cerebras schedulers write absolute
    values and scale per group through :class:`~schedulers.cerebras.ScalePerParamLR` instead (which reads the
    same ``adjust_learning_rate`` entries), so the factor is applied once in either path.

    Args:
        optimizer: The optimizer whose groups are scaled.

    Returns:
        ``optimizer`` itself, its groups' ``lr`` (and ``initial_lr``) multiplied by their factors.

    Raises:
        TypeError: ``optimizer`` not a torch optimizer.
        ValueError: A factor not a finite number >= 0, a factor other than the one already applied, a group
            without ``lr``, or an ``lr`` (``initial_lr``) that is not a number or a 0-d tensor.

    >>> import torch
    >>> w = torch.zeros(1, requires_grad=True)
    >>> opt = torch.optim.SGD([{"params": [w], "adjust_learning_rate": 0.5}], lr=0.1)
    >>> apply_adjust_learning_rate(apply_adjust_learning_rate(opt)).param_groups[0]["lr"]
    0.05
    """
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"apply_adjust_learning_rate needs a torch optimizer, got {type(optimizer).__name__}")
    for index, group in enumerate(optimizer.param_groups):
        if "adjust_learning_rate" in group:
            _adjust_group(index, group)
    return optimizer


def _adjust_group(index: int, group: dict[str, Any]) -> None:
    """Scale param group ``index``'s ``lr`` (and ``initial_lr``) by its ``adjust_learning_rate``, once."""
    factor = number_argument(f"param_groups[{index}]['adjust_learning_rate']", group["adjust_learning_rate"], low=0.0)
    if ADJUSTED_MARKER in group:
        applied = group[ADJUSTED_MARKER]
        if applied != factor:
            raise ValueError(
                f"param_groups[{index}]'s lr was already scaled by adjust_learning_rate={applied!r}, but its "
                f"adjust_learning_rate is now {factor!r}; rebuild the optimizer to apply a new factor"
            )
        return
    if "lr" not in group:
        raise ValueError(f"param_groups[{index}] has adjust_learning_rate but no 'lr' to scale")
    lr = group["lr"]
    group["lr"] = _scaled(f"param_groups[{index}]['lr']", lr, factor)
    if "initial_lr" in group and group["initial_lr"] is not lr:  # the same tensor was scaled in place
        group["initial_lr"] = _scaled(f"param_groups[{index}]['initial_lr']", group["initial_lr"], factor)
    group[ADJUSTED_MARKER] = factor


def _scaled(name: str, value: Any, factor: float) -> Any:
    if isinstance(value, torch.Tensor):
        if value.dim() != 0:
            raise ValueError(f"{name} is a tensor of shape {tuple(value.shape)}; only scalar lrs can be scaled")
        with torch.no_grad():
            value.mul_(factor)
        return value
    return number_argument(name, value) * factor
