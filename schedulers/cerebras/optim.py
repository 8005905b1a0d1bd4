"""The ``cstorch.optim`` namespace, so Cerebras code runs with only its import line changed.

``import cerebras.pytorch as cstorch`` becomes ``import schedulers.cerebras as cstorch``; then
``cstorch.optim.lr_scheduler.LinearLR``, ``cstorch.optim.weight_decay_scheduler.CosineDecayWD`` (also
directly: ``cstorch.optim.LinearLR``) and ``cstorch.optim.configure_lr_scheduler`` resolve as in Cerebras,
and so do the optimizers:

* ``cstorch.optim.configure_optimizer(optimizer_type, params, **kwargs)`` is
  :func:`schedulers.optim.configure_optimizer`;
* every optimizer name it resolves is an attribute: ``cstorch.optim.SGD``, ``Adam``, ``AdamW``, ``RMSprop``,
  ... (torch's optimizers), ``Lamb`` and ``Lion`` (Cadence's). Where Cerebras documents a default that
  differs from torch's (:data:`schedulers.optim.CEREBRAS_DEFAULTS`: ``Adam``/``AdamW`` ``eps=1e-6``,
  ``weight_decay=0.0``, ...), the class here is a subclass of torch's with Cerebras's defaults, so
  ``cstorch.optim.AdamW(params, lr=1e-3)`` builds what ``configure_optimizer("AdamW", params, lr=1e-3)``
  builds; the others (``SGD``, ...) are torch's classes themselves.

>>> import torch
>>> import schedulers.cerebras as cstorch
>>> optimizer = cstorch.optim.AdamW([torch.zeros(1, requires_grad=True)], lr=1e-3)
>>> isinstance(optimizer, torch.optim.AdamW), optimizer.defaults["eps"], cstorch.optim.SGD is torch.optim.SGD
(True, 1e-06, True)
"""

from __future__ import annotations

import inspect
from typing import Any

import torch

from schedulers.cerebras import lr_scheduler, weight_decay_scheduler
from schedulers.cerebras.configure import configure_lr_scheduler
from schedulers.cerebras.lr_scheduler import *  # noqa: F401,F403  (Cerebras exposes its schedulers here too)
from schedulers.cerebras.weight_decay_scheduler import *  # noqa: F401,F403
from schedulers.core.names import did_you_mean
from schedulers.optim import CEREBRAS_DEFAULTS, configure_optimizer, optimizer_classes


def _with_defaults(cls: type, defaults: dict[str, object]) -> type:
    """A subclass of the optimizer ``cls`` named like it, whose arguments default to ``defaults`` instead."""
    signature = inspect.signature(cls.__init__)
    parameters = [
        p.replace(default=defaults[p.name]) if p.name in defaults else p for p in signature.parameters.values()
    ]
    signature = signature.replace(parameters=parameters)

    def __init__(self: torch.optim.Optimizer, *args: Any, **kwargs: Any) -> None:
        bound = signature.bind(self, *args, **kwargs)
        for argument, value in defaults.items():
            bound.arguments.setdefault(argument, value)
        cls.__init__(*bound.args, **bound.kwargs)

    __init__.__signature__ = signature
    __init__.__qualname__ = f"{cls.__name__}.__init__"
    doc = _documented(cls, signature, defaults)
    namespace = {"__init__": __init__, "__module__": __name__, "__qualname__": cls.__name__, "__doc__": doc}
    return type(cls.__name__, (cls,), namespace)


def _documented(cls: type, signature: inspect.Signature, defaults: dict[str, object]) -> str:
    """The docstring of ``cls`` with Cerebras's ``defaults``: its arguments, and an example showing one default."""
    shown = ", ".join(f"{key}={value!r}" for key, value in defaults.items())
    arguments = "\n".join(
        f"        {p.name}: As for torch's ``{cls.__name__}``"
        + (f" (Cerebras's default: ``{defaults[p.name]!r}``)." if p.name in defaults else ".")
        for p in list(signature.parameters.values())[1:]
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    )
    key, value = next(iter(defaults.items()))
    return (
        f"torch's :class:`torch.optim.{cls.__name__}` with Cerebras's defaults ({shown}).\n\n    Args:\n{arguments}\n\n"
        f"    Returns:\n        The optimizer, a ``torch.optim.{cls.__name__}``.\n\n"
        f"    >>> import torch, schedulers.cerebras as cs\n"
        f"    >>> cs.optim.{cls.__name__}([torch.zeros(1, requires_grad=True)]).defaults[{key!r}] == {value!r}\n"
        f"    True\n    "
    )


# Every name configure_optimizer resolves, as an attribute: torch's class, or its subclass with Cerebras's
# documented defaults where they differ (schedulers.optim.CEREBRAS_DEFAULTS).
_OPTIMIZERS: dict[str, type] = {
    name: _with_defaults(cls, CEREBRAS_DEFAULTS[cls]) if CEREBRAS_DEFAULTS.get(cls) else cls
    for name, cls in optimizer_classes().items()
}
globals().update(_OPTIMIZERS)

# The optimizers are attributes, not listed: they are torch's classes (or subclasses of them), documented there.
__all__ = ["configure_lr_scheduler", "configure_optimizer", "lr_scheduler", "weight_decay_scheduler"]
__all__ += lr_scheduler.__all__
__all__ += weight_decay_scheduler.__all__


def __getattr__(name: str) -> Any:  # Any: an optimizer class a type checker cannot see (made above)
    """A name this namespace does not have: an AttributeError suggesting the closest one it has."""
    hint = did_you_mean(name, [*__all__, *_OPTIMIZERS]) if not name.startswith("__") else ""
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}{hint}")
