"""A tiny op namespace chosen by the input's type, so each kernel is written once.

``ops(x)`` returns :class:`FloatOps` for Python numbers (the per-step hot path: ``math`` and builtins
only, no torch call) and :class:`TensorOps` for floating-point tensors (whole-run evaluation, traceable
by ``torch.compile(fullgraph=True)``). Both expose the same names with the same meaning, so a kernel
body such as ``o.clamp(x / t, 0.0, 1.0)`` needs no Python branch on the *values* of ``x``.

>>> import torch
>>> t = torch.tensor([0.5, 2.5], dtype=torch.float64)
>>> ops(2.5).floor(2.5), ops(t).floor(t)
(2, tensor([0., 2.], dtype=torch.float64))

Conventions kept by every op:

- ``bucket(x, boundaries)`` is the number of boundaries ``<= x`` (``bisect_right``); ``boundaries``
  is a sorted tuple of Python numbers. On tensors the count has ``x``'s dtype, so ``gamma ** count``
  stays in float64.
- ``take(table, index)`` reads a tuple of numbers at an index produced by ``bucket``.
- ``piecewise(x, boundaries, pieces)`` is ``pieces[i](x)`` where ``i`` is ``bucket(x, boundaries)``
  (``len(pieces) == len(boundaries) + 1``); on floats only that piece is evaluated.
- ``pow(base, exponent)`` needs ``base >= 0``; a result beyond the float range is ``inf`` on both paths.
- ``where(c, a, b)`` on floats is ``a if c else b``; both ``a`` and ``b`` are evaluated either way,
  so neither may raise (kernels guard their denominators statically).
- On tensors, Python numbers next to a tensor operand take its dtype; ``where`` between two numbers
  gives float64 (torch alone would give float32). ``minimum``/``maximum`` need one tensor operand.
"""

import bisect
import math

import torch

__all__ = ["FloatOps", "TensorOps", "ops"]


def _float_clamp(x, lo, hi):
    return lo if x < lo else hi if x > hi else x


def _float_pow(base, exponent):
    try:
        return base**exponent
    except OverflowError:  # a tensor gives inf here; the float path must agree, not raise
        return math.inf


class FloatOps:
    """Ops on Python numbers: ``math`` and builtins (a builtin is not a descriptor, so no ``staticmethod``)."""

    cos = math.cos
    sqrt = math.sqrt
    floor = math.floor
    pow = staticmethod(_float_pow)
    clamp = staticmethod(_float_clamp)

    @staticmethod
    def minimum(a, b):
        return a if a <= b else b

    @staticmethod
    def maximum(a, b):
        return a if a >= b else b

    @staticmethod
    def where(c, a, b):
        return a if c else b

    @staticmethod
    def bucket(x, boundaries):
        return bisect.bisect_right(boundaries, x)

    @staticmethod
    def take(table, index):
        return table[index]

    @staticmethod
    def full_like(x, value):
        return float(value)

    @staticmethod
    def piecewise(x, boundaries, pieces):
        # only the piece that applies is evaluated: the per-step path pays for one piece, not all
        return pieces[bisect.bisect_right(boundaries, x)](x)


def _constant(values, like):
    # A fresh small tensor per call: cheap next to the vectorised work and safe under torch.compile,
    # where a module-level cache would be a traced side effect.
    return torch.tensor(values, dtype=like.dtype, device=like.device)


def _tensor_where(c, a, b):
    if not isinstance(a, torch.Tensor) and not isinstance(b, torch.Tensor):
        # two numbers: torch would choose its default dtype (float32); the tensor path is float64
        a = torch.tensor(a, dtype=torch.float64, device=c.device)
    return torch.where(c, a, b)


def _tensor_minimum(a, b):
    if not isinstance(a, torch.Tensor):
        a, b = b, a
    return torch.minimum(a, b) if isinstance(b, torch.Tensor) else torch.clamp(a, max=b)


def _tensor_maximum(a, b):
    if not isinstance(a, torch.Tensor):
        a, b = b, a
    return torch.maximum(a, b) if isinstance(b, torch.Tensor) else torch.clamp(a, min=b)


class TensorOps:
    """The same ops on floating-point tensors of any shape, elementwise."""

    cos = torch.cos
    sqrt = torch.sqrt
    floor = torch.floor
    pow = torch.pow
    clamp = torch.clamp
    where = staticmethod(_tensor_where)
    full_like = torch.full_like
    minimum = staticmethod(_tensor_minimum)
    maximum = staticmethod(_tensor_maximum)

    @staticmethod
    def bucket(x, boundaries):
        return torch.bucketize(x, _constant(boundaries, x), right=True).to(x.dtype)

    @staticmethod
    def take(table, index):
        # torch.take is elementwise for any index shape, so a 0-d index traces without a graph break
        return torch.take(_constant(table, index), index.long())

    @staticmethod
    def piecewise(x, boundaries, pieces):
        result = pieces[-1](x)
        for boundary, piece in zip(reversed(boundaries), reversed(pieces[:-1]), strict=True):
            result = torch.where(x < boundary, piece(x), result)
        return result


def ops(x):
    """The op namespace for ``x``: :class:`TensorOps` for a floating tensor, else :class:`FloatOps`.

    Raises ``TypeError`` for an integer or bool tensor, whose true divisions would silently
    fall back to float32.
    """
    kind = type(x)
    if kind is float or kind is int:  # the hot path, ahead of the slower isinstance check on torch.Tensor
        return FloatOps
    if isinstance(x, torch.Tensor):
        if not x.is_floating_point():
            raise TypeError(f"a tensor x must have a floating dtype (float64 recommended), got {x.dtype}")
        return TensorOps
    return FloatOps
