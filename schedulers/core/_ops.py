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
    """``x`` limited to ``[lo, hi]``.

    Args:
        x: The number.
        lo: The least value returned.
        hi: The greatest value returned.

    Returns:
        ``lo`` below ``lo``, ``hi`` above ``hi``, else ``x`` itself.

    >>> FloatOps.clamp(1.5, 0.0, 1.0), FloatOps.clamp(0.25, 0.0, 1.0)
    (1.0, 0.25)
    """
    return lo if x < lo else hi if x > hi else x


def _float_pow(base, exponent):
    """``base ** exponent``, ``inf`` where Python would raise ``OverflowError`` (as a tensor gives).

    Args:
        base: A number ``>= 0``.
        exponent: The power.

    Returns:
        :math:`\\mathrm{base}^{\\mathrm{exponent}}`, or ``math.inf`` beyond the float range.

    >>> FloatOps.pow(0.5, 2), FloatOps.pow(10.0, 400)
    (0.25, inf)
    """
    try:
        return base**exponent
    except OverflowError:  # a tensor gives inf here; the float path must agree, not raise
        return math.inf


def _float_minimum(a, b):
    """The smaller of two numbers.

    Args:
        a: A number.
        b: A number.

    Returns:
        ``a`` when ``a <= b``, else ``b``.
    """
    return a if a <= b else b


def _float_maximum(a, b):
    """The larger of two numbers.

    Args:
        a: A number.
        b: A number.

    Returns:
        ``a`` when ``a >= b``, else ``b``.
    """
    return a if a >= b else b


def _float_where(c, a, b):
    """``a`` where ``c`` holds, else ``b`` (both already evaluated by the caller).

    Args:
        c: The condition, a bool.
        a: The value when ``c`` is true.
        b: The value when ``c`` is false.

    Returns:
        ``a if c else b``.
    """
    return a if c else b


def _float_bucket(x, boundaries):
    """How many of the sorted ``boundaries`` are ``<= x`` (``bisect_right``).

    Args:
        x: The count.
        boundaries: A sorted tuple of numbers.

    Returns:
        The index of the interval ``x`` lies in, 0 before the first boundary.
    """
    return bisect.bisect_right(boundaries, x)


def _float_take(table, index):
    """``table[index]``: a value per interval, at an index made by ``bucket``.

    Args:
        table: A tuple of numbers.
        index: An index into it.

    Returns:
        The entry of ``table`` at ``index``.
    """
    return table[index]


def _float_full_like(x, value):
    """A constant shaped like ``x``: for a number, just the constant.

    Args:
        x: The number the result stands beside (unused: a number has no shape).
        value: The constant.

    Returns:
        ``value`` as a float: on the number path the constant needs no shape.
    """
    return float(value)


def _float_piecewise(x, boundaries, pieces):
    """``pieces[i](x)`` for the interval ``i = bucket(x, boundaries)``; only that piece is evaluated.

    Args:
        x: The count.
        boundaries: A sorted tuple of numbers.
        pieces: ``len(boundaries) + 1`` functions of ``x``, one per interval.

    Returns:
        The value of the piece whose interval holds ``x``.

    >>> FloatOps.piecewise(5.0, (2.0,), (lambda x: 0.0, lambda x: x))
    5.0
    """
    # only the piece that applies is evaluated: the per-step path pays for one piece, not all
    return pieces[bisect.bisect_right(boundaries, x)](x)


class FloatOps:
    """Ops on Python numbers: ``math``, builtins and the ``_float_*`` functions above.

    Returns:
        The namespace itself is used, never an instance: ``ops(x)`` returns the class for a Python number, and a
        kernel calls its static functions (``o.cos``, ``o.clamp``, ...), each a plain ``math``/builtin call.

    >>> o = ops(0.5)
    >>> o is FloatOps, o.floor(2.5), o.minimum(0.5, 2.0)
    (True, 2, 0.5)
    """

    cos = math.cos
    sqrt = math.sqrt
    floor = math.floor
    # Plain functions, not staticmethods: the class is never instantiated, so ``FloatOps.clamp`` is the function
    # itself, and CPython specializes ``o.clamp(...)`` on a class attribute that is a plain function (it does not
    # on a staticmethod): the per-step path (docs/architecture.md, "A step is a few calls").
    pow = _float_pow
    clamp = _float_clamp
    minimum = _float_minimum
    maximum = _float_maximum
    where = _float_where
    bucket = _float_bucket
    take = _float_take
    full_like = _float_full_like
    piecewise = _float_piecewise


def _constant(values, like):
    # A fresh small tensor per call: cheap next to the vectorised work and safe under torch.compile,
    # where a module-level cache would be a traced side effect.
    return torch.tensor(values, dtype=like.dtype, device=like.device)


def _tensor_where(c, a, b):
    """``torch.where(c, a, b)``, in float64 when ``a`` and ``b`` are both numbers (torch would give float32).

    Args:
        c: A bool tensor.
        a: A tensor or number, taken where ``c`` is true.
        b: A tensor or number, taken where ``c`` is false.

    Returns:
        A tensor of ``c``'s shape, elementwise ``a`` or ``b``.

    >>> import torch
    >>> TensorOps.where(torch.tensor([True, False]), 1.0, 0.0)
    tensor([1., 0.], dtype=torch.float64)
    """
    if not isinstance(a, torch.Tensor) and not isinstance(b, torch.Tensor):
        # two numbers: torch would choose its default dtype (float32); the tensor path is float64
        a = torch.tensor(a, dtype=torch.float64, device=c.device)
    return torch.where(c, a, b)


def _tensor_minimum(a, b):
    """Elementwise minimum of a tensor and a tensor or number (at least one operand is a tensor).

    Args:
        a: A tensor or number.
        b: A tensor or number.

    Returns:
        A tensor of the tensor operand's dtype: ``torch.minimum``, or ``torch.clamp(max=...)`` with a number.
    """
    if not isinstance(a, torch.Tensor):
        a, b = b, a
    return torch.minimum(a, b) if isinstance(b, torch.Tensor) else torch.clamp(a, max=b)


def _tensor_maximum(a, b):
    """Elementwise maximum of a tensor and a tensor or number (at least one operand is a tensor).

    Args:
        a: A tensor or number.
        b: A tensor or number.

    Returns:
        A tensor of the tensor operand's dtype: ``torch.maximum``, or ``torch.clamp(min=...)`` with a number.
    """
    if not isinstance(a, torch.Tensor):
        a, b = b, a
    return torch.maximum(a, b) if isinstance(b, torch.Tensor) else torch.clamp(a, min=b)


class TensorOps:
    """The same ops on floating-point tensors of any shape, elementwise.

    Returns:
        The namespace itself is used, never an instance: ``ops(x)`` returns the class for a floating tensor,
        and each op is a torch call, so a kernel written with it traces under ``torch.compile(fullgraph=True)``.

    >>> import torch
    >>> x = torch.tensor([0.5, 3.0], dtype=torch.float64)
    >>> ops(x) is TensorOps, ops(x).bucket(x, (1.0, 2.0))
    (True, tensor([0., 2.], dtype=torch.float64))
    """

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
        """How many of the sorted ``boundaries`` are ``<= x``, elementwise.

        Args:
            x: A floating tensor of counts.
            boundaries: A sorted tuple of numbers.

        Returns:
            A tensor of ``x``'s shape and dtype (so ``gamma ** count`` stays in float64) holding each interval index.
        """
        return torch.bucketize(x, _constant(boundaries, x), right=True).to(x.dtype)

    @staticmethod
    def take(table, index):
        """``table`` read at each entry of ``index``.

        Args:
            table: A tuple of numbers.
            index: A tensor of indices (a :meth:`bucket` result, in a floating dtype).

        Returns:
            A tensor of ``index``'s shape and dtype holding ``table[i]`` for each index ``i``.
        """
        # torch.take is elementwise for any index shape, so a 0-d index traces without a graph break
        return torch.take(_constant(table, index), index.long())

    @staticmethod
    def piecewise(x, boundaries, pieces):
        """``pieces[i](x)`` where ``i = bucket(x, boundaries)``, elementwise; every piece is evaluated.

        Args:
            x: A floating tensor of counts.
            boundaries: A sorted tuple of numbers.
            pieces: ``len(boundaries) + 1`` functions of a tensor, one per interval.

        Returns:
            A tensor of ``x``'s shape, each entry from the piece whose interval holds it.
        """
        result = pieces[-1](x)
        for boundary, piece in zip(reversed(boundaries), reversed(pieces[:-1]), strict=True):
            result = torch.where(x < boundary, piece(x), result)
        return result


def ops(x):
    """The op namespace for ``x``: :class:`TensorOps` for a floating tensor, else :class:`FloatOps`.

    Args:
        x: What a kernel is evaluated at: a Python number or a floating-point tensor.

    Returns:
        The class whose static ops a kernel calls on ``x`` (``ops(x).cos(...)``), so the same body serves the
        per-step float path and the whole-run tensor path.

    Raises:
        TypeError: An integer or bool tensor, whose true divisions would silently fall back to float32.

    >>> import torch
    >>> ops(3) is FloatOps, ops(torch.zeros(2, dtype=torch.float64)) is TensorOps
    (True, True)
    >>> ops(torch.zeros(2, dtype=torch.long))
    Traceback (most recent call last):
    ...
    TypeError: a tensor x must have a floating dtype (float64 recommended), got torch.int64
    """
    kind = type(x)
    if kind is float or kind is int:  # the hot path, ahead of the slower isinstance check on torch.Tensor
        return FloatOps
    if isinstance(x, torch.Tensor):
        if not x.is_floating_point():
            raise TypeError(f"a tensor x must have a floating dtype (float64 recommended), got {x.dtype}")
        return TensorOps
    return FloatOps
