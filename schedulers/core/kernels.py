r"""The kernels: each curve written once, on a float and on a tensor, and the float and tensor ops they run on.

Closed-form learning-rate curves, each written once for Python floats and torch tensors.

Every kernel is a pure function of a progress value ``x`` (a fraction of a period in ``[0, 1]``, or an
elapsed count such as batches or tokens, always ``>= 0``) and static Python parameters, and returns the
multiplier :math:`\alpha` (``cyclic`` and ``one_cycle`` return absolute values, as torch does).

- On a Python ``float`` (or ``int``) the kernel uses ``math`` only: this is the per-step hot path. A kernel of a
  fraction (``frac``: a quotient, so a float on that path) picks :class:`~schedulers.core.kernels.FloatOps` itself
  for a float and asks :func:`~schedulers.core.kernels.ops` otherwise: one call less per step (docs/architecture.md).
- On a floating tensor of any shape it evaluates elementwise in the tensor's dtype (use float64 to
  agree with the float path), and traces under ``torch.compile(fullgraph=True)`` without graph breaks.

Nothing branches on the values of ``x``: the body goes through the op namespace of
:mod:`schedulers.core.kernels` (``where``, ``clamp``, ``floor``, ``bucket``, ...). Python ``if`` appears only on
static parameters. Bad parameters raise ``ValueError`` naming the argument and what is accepted.
A value beyond the float range (a growing ``gamma > 1`` run far enough) is ``inf`` on both paths.

>>> import torch
>>> cosine(0.5), cosine(torch.tensor([0.0, 0.5, 1.0], dtype=torch.float64))
(0.5, tensor([1.0000, 0.5000, 0.0000], dtype=torch.float64))

A tiny op namespace chosen by the input's type, so each kernel is written once.

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
from collections.abc import Callable, Sequence

import torch

from schedulers.core.schedule_arguments import choice_problem

__all__ = [
    "ANNEAL_STRATEGIES",
    "Number",
    "CYCLIC_MODES",
    "DECAY_SHAPES",
    "constant",
    "cosine",
    "cosine_wave",
    "cyclic",
    "exponential",
    "inverse_sqrt",
    "inverse_time",
    "linear",
    "multistep",
    "one_cycle",
    "piecewise_constant",
    "polynomial",
    "restart_boundaries",
    "step",
    "warm_restarts",
    "warmup",
    "warmup_stable_decay",
]

#: What a kernel takes and returns: a Python number (the per-step path; an int is fine) or a floating tensor
#: (whole-run evaluation), evaluated elementwise in its dtype.
Number = float | torch.Tensor


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
    def bucket(x: torch.Tensor, boundaries: tuple[float, ...]) -> torch.Tensor:
        """How many of the sorted ``boundaries`` are ``<= x``, elementwise.

        Args:
            x: A floating tensor of counts.
            boundaries: A sorted tuple of numbers.

        Returns:
            A tensor of ``x``'s shape and dtype (so ``gamma ** count`` stays in float64) holding each interval index.
        """
        return torch.bucketize(x, _constant(boundaries, x), right=True).to(x.dtype)

    @staticmethod
    def take(table: tuple[float, ...], index: torch.Tensor) -> torch.Tensor:
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
    def piecewise(
        x: torch.Tensor, boundaries: tuple[float, ...], pieces: Sequence[Callable[[torch.Tensor], torch.Tensor]]
    ) -> torch.Tensor:
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


def ops(x: Number) -> type[FloatOps] | type[TensorOps]:
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


_INF = math.inf


# how many interval ends restart_boundaries keeps of shrinking lengths past the horizon (a bound on its work)
_MAX_SHRINKING_ENDS = 2**20


# The choices of the kernels' string parameters; the schedules built on them offer exactly these.
CYCLIC_MODES = ("triangular", "triangular2", "exp_range")


ANNEAL_STRATEGIES = ("cos", "linear")


DECAY_SHAPES = ("linear", "cosine", "1-sqrt")


def _bad(name, accepted, value):
    # the words of every argument check (schedulers.core.schedule_arguments): "step_size=0 must be ..."
    return ValueError(f"{name}={value!r} must be {accepted}")


def _bad_choice(name, value, choices):
    return ValueError(f"{name}={value!r} {choice_problem(value, choices)}")


# Tuples already checked on the float path, keyed by (id, strict); holding each tuple keeps its id
# from being reused, and the `is` test below makes a stale entry harmless.
_CHECKED = {}


def _check_increasing(name, values, *, strict, memo):
    """Check a tuple of finite numbers is sorted (strictly when ``strict``); ``bucket`` relies on it.

    ``memo`` (the float path) skips tuples already checked, since a schedule passes the same tuple
    every step. The tensor path never memoises: a module-level dict read inside ``torch.compile``
    would add guards that recompile whenever the dict changes.
    """
    if memo and _CHECKED.get((id(values), strict)) is values:
        return
    if type(values) is not tuple:
        raise _bad(name, "a tuple of numbers", values)
    if not all(map(math.isfinite, values)):
        raise _bad(name, "a tuple of finite numbers", values)
    if list(values) != sorted(values) or (strict and len(set(values)) != len(values)):
        raise _bad(name, "strictly increasing" if strict else "sorted in increasing order", values)
    if memo:
        if len(_CHECKED) >= 256:
            _CHECKED.clear()
        _CHECKED[(id(values), strict)] = values


def constant(x: Number, alpha: float) -> Number:
    r"""Hold one value.

    .. math:: \alpha(x) = \alpha

    Args:
        x: The count (or fraction): a float, or a floating tensor evaluated elementwise.
        alpha: The value held.

    Returns:
        The multiplier, a float for a float ``x`` and a tensor of ``x``'s shape and dtype for a tensor.

    >>> constant(0.7, 0.5)
    0.5
    """
    return ops(x).full_like(x, alpha)


def linear(frac: Number, start: float, end: float) -> Number:
    r"""Move in a straight line from ``start`` to ``end`` as ``frac`` goes from 0 to 1, then hold.

    .. math:: \alpha(f) = s + (e - s)\,\mathrm{clamp}(f, 0, 1)

    Args:
        frac: The fraction of the period, clamped to [0, 1]: a float or a floating tensor.
        start: The value at 0.
        end: The value at 1 and after.

    Returns:
        The multiplier, a float for a float ``x`` and a tensor of ``x``'s shape and dtype for a tensor.

    >>> linear(0.25, 1.0, 0.0), linear(2.0, 1.0, 0.5)
    (0.75, 0.5)
    """
    o = FloatOps if type(frac) is float else ops(frac)
    return start + (end - start) * o.clamp(frac, 0.0, 1.0)


def cosine(frac: Number, start: float = 1.0, end: float = 0.0) -> Number:
    r"""Half a cosine from ``start`` down (or up) to ``end`` as ``frac`` goes from 0 to 1, then hold.

    .. math:: \alpha(f) = e + (s - e)\,\frac{1 + \cos(\pi\,\mathrm{clamp}(f, 0, 1))}{2}

    Args:
        frac: The fraction of the period, clamped to [0, 1]: a float or a floating tensor.
        start: The value at 0.
        end: The value at 1 and after.

    Returns:
        The multiplier, a float for a float ``x`` and a tensor of ``x``'s shape and dtype for a tensor.

    >>> cosine(0.5), cosine(1.0, start=1.0, end=0.1)
    (0.5, 0.1)
    """
    o = FloatOps if type(frac) is float else ops(frac)
    return end + (start - end) * (1.0 + o.cos(math.pi * o.clamp(frac, 0.0, 1.0))) / 2


def polynomial(frac: Number, power: float, start: float = 1.0, end: float = 0.0) -> Number:
    r"""Decay from ``start`` to ``end`` as a power of the fraction left, then hold.

    .. math:: \alpha(f) = e + (s - e)\,(1 - \mathrm{clamp}(f, 0, 1))^{\kappa}, \qquad \kappa \ge 0

    Args:
        frac: The fraction of the period, clamped to [0, 1]: a float or a floating tensor.
        power: The exponent, a finite number >= 0.
        start: The value at 0.
        end: The value at 1 and after.

    Returns:
        The multiplier, a float for a float ``x`` and a tensor of ``x``'s shape and dtype for a tensor.

    Raises:
        ValueError: ``power`` not a finite number >= 0.

    >>> polynomial(0.5, 2.0), polynomial(1.0, 2.0, end=0.25)
    (0.25, 0.25)
    """
    if not 0 <= power < _INF:
        raise _bad("power", "a finite number >= 0", power)
    o = FloatOps if type(frac) is float else ops(frac)
    return end + (start - end) * o.pow(1 - o.clamp(frac, 0.0, 1.0), power)


def exponential(x: Number, gamma: float, period: float) -> Number:
    r"""Decay by a factor ``gamma`` every ``period``, smoothly.

    .. math:: \alpha(x) = \gamma^{x / \rho}

    Args:
        x: The count (or fraction): a float, or a floating tensor evaluated elementwise.
        gamma: The factor per period, a finite number >= 0.
        period: The period, a finite number > 0.

    Returns:
        The multiplier, a float for a float ``x`` and a tensor of ``x``'s shape and dtype for a tensor.

    Raises:
        ValueError: ``gamma`` or ``period`` out of range, naming it.

    >>> exponential(2.0, 0.5, 1.0), exponential(1.0, 0.25, 2.0)
    (0.25, 0.5)
    """
    if not 0 <= gamma < _INF:
        raise _bad("gamma", "a finite number >= 0", gamma)
    if not 0 < period < _INF:
        raise _bad("period", "a finite number > 0", period)
    return ops(x).pow(gamma, x / period)


def step(x: Number, step_size: float, gamma: float) -> Number:
    r"""Decay by a factor ``gamma`` at every whole multiple of ``step_size``.

    .. math:: \alpha(x) = \gamma^{\lfloor x / \rho \rfloor}

    Args:
        x: The count (or fraction): a float, or a floating tensor evaluated elementwise.
        step_size: The period, a finite number > 0.
        gamma: The factor per period, a finite number >= 0.

    Returns:
        The multiplier, a float for a float ``x`` and a tensor of ``x``'s shape and dtype for a tensor.

    Raises:
        ValueError: ``step_size`` or ``gamma`` out of range, naming it.

    >>> step(9.0, 10.0, 0.1), step(10.0, 10.0, 0.5), step(25.0, 10.0, 0.5)
    (1.0, 0.5, 0.25)
    """
    if not 0 < step_size < _INF:
        raise _bad("step_size", "a finite number > 0", step_size)
    if not 0 <= gamma < _INF:
        raise _bad("gamma", "a finite number >= 0", gamma)
    o = ops(x)
    return o.pow(gamma, o.floor(x / step_size))


def multistep(x: Number, milestones: tuple[float, ...], gamma: float) -> Number:
    r"""Decay by a factor ``gamma`` at each milestone reached (a milestone counts from ``x = m`` on).

    .. math:: \alpha(x) = \gamma^{\#\{i : m_i \le x\}}

    ``milestones`` is a sorted tuple; a repeated milestone counts twice.

    Args:
        x: The count (or fraction): a float, or a floating tensor evaluated elementwise.
        milestones: The counts of the decays, a sorted tuple.
        gamma: The factor per milestone, a finite number >= 0.

    Returns:
        The multiplier, a float for a float ``x`` and a tensor of ``x``'s shape and dtype for a tensor.

    Raises:
        ValueError: ``milestones`` not a sorted tuple, or ``gamma`` out of range.

    >>> multistep(4.0, (5, 8), 0.1), multistep(5.0, (5, 8), 0.5), multistep(9.0, (5, 8), 0.5)
    (1.0, 0.5, 0.25)
    """
    o = ops(x)
    _check_increasing("milestones", milestones, strict=False, memo=o is FloatOps)
    if not 0 <= gamma < _INF:
        raise _bad("gamma", "a finite number >= 0", gamma)
    return o.pow(gamma, o.bucket(x, milestones))


def warmup(x: Number, t_warmup: float, start: float = 0.0) -> Number:
    r"""Ramp linearly from ``start`` to 1 over ``[0, t_warmup]``, then hold 1.

    .. math:: \alpha(x) = s + (1 - s)\,\mathrm{clamp}(x / t_w, 0, 1), \qquad t_w > 0

    Args:
        x: The count (or fraction): a float, or a floating tensor evaluated elementwise.
        t_warmup: The ramp's length, a finite number > 0.
        start: The value at 0.

    Returns:
        The multiplier, a float for a float ``x`` and a tensor of ``x``'s shape and dtype for a tensor.

    Raises:
        ValueError: ``t_warmup`` not a finite number > 0.

    >>> warmup(5.0, 10.0), warmup(10.0, 10.0), warmup(0.0, 10.0, start=0.1)
    (0.5, 1.0, 0.1)
    """
    if not 0 < t_warmup < _INF:
        raise _bad("t_warmup", "a finite number > 0", t_warmup)
    return start + (1 - start) * ops(x).clamp(x / t_warmup, 0.0, 1.0)


def restart_boundaries(t_0: int, t_mult: float, horizon: int = 2**53) -> tuple[int, ...]:
    r"""The interval ends of cosine annealing with warm restarts, for :func:`warm_restarts`.

    Interval lengths follow Composer: :math:`L_0 = t_0`, :math:`L_{k+1} = \lfloor t_{mult} L_k \rfloor`
    (integer truncation, so not geometric), and the ends are :math:`e_k = L_0 + \dots + L_k`.
    Growing lengths are followed until an end lies past ``horizon`` (the largest ``x`` the caller will
    evaluate; by default every count a float64 holds exactly, as Composer's cycles never stop); from an
    end where the length stops changing (:math:`L_{k+1} = L_k`) the intervals repeat, which
    :func:`warm_restarts` does by itself, so ``t_mult = 1`` needs a single end. Shrinking lengths
    (``t_mult < 1``) are finitely many and kept past ``horizon`` too, up to the last positive one (or up to
    ``2**20`` ends, which only a ``t_mult`` within about ``1e-6`` of 1 needs): past the end of a run the
    intervals keep shrinking, as Composer's do.

    Raises ``ValueError`` if a length reaches 0 at or before ``horizon`` (Composer raises when it gets there).

    Args:
        t_0: The first interval's length, a finite number > 0.
        t_mult: Each interval's factor on the last (truncated to a whole count), a finite number >= 0.
        horizon: The largest count the caller evaluates.

    Returns:
        The interval ends, increasing.

    Raises:
        ValueError: An argument out of range, or a length that reaches 0 at or before ``horizon``.

    >>> restart_boundaries(10, 2.0, 100), restart_boundaries(10, 1.0, 10**9), restart_boundaries(3, 1.5, 20)
    ((10, 30, 70, 150), (10,), (3, 7, 13, 22))
    >>> restart_boundaries(60, 0.5, 100)  # lengths 60, 30, 15, 7, 3, 1 (then 0)
    (60, 90, 105, 112, 115, 116)
    """
    if not 0 < t_0 < _INF:
        raise _bad("t_0", "a finite number > 0", t_0)
    if not 0 <= t_mult < _INF:
        raise _bad("t_mult", "a finite number >= 0", t_mult)
    if not 0 <= horizon < _INF:
        raise _bad("horizon", "a finite number >= 0", horizon)
    ends = [t_0]
    length = t_0
    while ends[-1] <= horizon or (t_mult < 1 and len(ends) < _MAX_SHRINKING_ENDS):
        following = int(t_mult * length)
        if following == 0 and ends[-1] <= horizon:
            raise ValueError(
                f"t_mult={t_mult!r} with t_0={t_0!r} shrinks the interval between restarts to 0 after "
                f"{ends[-1]!r}, before the horizon {horizon!r} is covered"
            )
        if following in (0, length):
            break
        length = following
        ends.append(ends[-1] + length)
    return tuple(ends)


def warm_restarts(x: Number, boundaries: tuple[int, ...], alpha_f: float = 0.0) -> Number:
    r"""Cosine annealing from 1 to ``alpha_f`` that restarts at each interval end (SGDR, Composer style).

    With interval ends :math:`e_0 < e_1 < \dots < e_n` (from :func:`restart_boundaries`) and
    :math:`e_{-1} = 0`, for :math:`x \in [e_{k-1}, e_k)`:

    .. math::
        \tau = \frac{x - e_{k-1}}{e_k - e_{k-1}}, \qquad
        \alpha(x) = \alpha_f + (1 - \alpha_f)\,\frac{1 + \cos(\pi \tau)}{2}

    At an end a new interval begins (:math:`\tau = 0`, :math:`\alpha = 1`). Past :math:`e_n` the
    intervals repeat the last length :math:`e_n - e_{n-1}`: exact when the lengths have stopped
    changing (always for ``t_mult = 1``); growing lengths need a ``horizon`` covering every ``x``. Past
    the end of shrinking lengths (where Composer's next interval would be 0 long and it raises) the
    last positive length repeats.

    Args:
        x: The count (or fraction): a float, or a floating tensor evaluated elementwise.
        boundaries: The interval ends (:func:`restart_boundaries`), strictly increasing, the first > 0.
        alpha_f: The value at each interval's end.

    Returns:
        The multiplier, a float for a float ``x`` and a tensor of ``x``'s shape and dtype for a tensor.

    Raises:
        ValueError: ``boundaries`` empty, not increasing, or starting at 0.

    >>> ends = restart_boundaries(10, 2.0, 100)
    >>> warm_restarts(5.0, ends), warm_restarts(10.0, ends), warm_restarts(20.0, ends)
    (0.5, 1.0, 0.5)
    """
    o = ops(x)
    _check_increasing("boundaries", boundaries, strict=True, memo=o is FloatOps)
    if not boundaries or boundaries[0] <= 0:
        raise _bad("boundaries", "a non-empty tuple of interval ends, the first > 0", boundaries)
    n = len(boundaries)
    last = boundaries[-1]
    period = last - boundaries[-2] if n > 1 else last
    # k indexes the interval [start, end) holding x while x < last; past it the periodic tail takes over
    k = o.minimum(o.bucket(x, boundaries), n - 1)
    end = o.take(boundaries, k)
    start = o.where(k > 0, o.take(boundaries, o.maximum(k - 1, 0)), 0.0)
    inside = x < last
    begin = o.where(inside, start, last + o.floor((x - last) / period) * period)
    length = o.where(inside, end - start, period)
    return cosine((x - begin) / length, 1.0, alpha_f)


def inverse_sqrt(x: Number, scale: float = 1.0, warmup: float = 1.0) -> Number:
    r"""Inverse square-root decay, flat before ``warmup`` (Cerebras ``InverseSquareRootDecayLR``).

    .. math:: \alpha(x) = \frac{\mathrm{scale}}{\sqrt{\max(x, w)}}, \qquad w > 0

    Args:
        x: The count (or fraction): a float, or a floating tensor evaluated elementwise.
        scale: The numerator.
        warmup: The count the curve is flat before, a finite number > 0.

    Returns:
        The multiplier, a float for a float ``x`` and a tensor of ``x``'s shape and dtype for a tensor.

    Raises:
        ValueError: ``warmup`` not a finite number > 0.

    >>> inverse_sqrt(0.0, warmup=4.0), inverse_sqrt(16.0, scale=2.0, warmup=4.0)
    (0.5, 0.5)
    """
    if not 0 < warmup < _INF:
        raise _bad("warmup", "a finite number > 0", warmup)
    o = ops(x)
    return scale / o.sqrt(o.maximum(x, warmup))


def inverse_time(x: Number, exponent: float, period: float, rate: float, staircase: bool = False) -> Number:
    r"""Inverse time decay (Keras ``InverseTimeDecay`` with a step exponent, Cerebras's form).

    .. math:: \alpha(x) = \frac{1}{1 + r\,a}, \qquad a = \frac{x^{e}}{T}
              \;(\lfloor x^{e} / T \rfloor \text{ with staircase})

    Args:
        x: The count (or fraction): a float, or a floating tensor evaluated elementwise.
        exponent: The power of ``x``.
        period: The decay period :math:`T`, a finite number > 0.
        rate: The decay rate :math:`r`.
        staircase: Whether the progress is floored to whole periods.

    Returns:
        The multiplier, a float for a float ``x`` and a tensor of ``x``'s shape and dtype for a tensor.

    Raises:
        ValueError: ``period`` not a finite number > 0.

    >>> inverse_time(4.0, 1.0, 2.0, 0.5), inverse_time(3.0, 1.0, 2.0, 1.0, staircase=True)
    (0.5, 0.5)
    """
    if not 0 < period < _INF:
        raise _bad("period", "a finite number > 0", period)
    o = ops(x)
    progress = o.pow(x, exponent) / period
    if staircase:
        progress = o.floor(progress)
    return 1.0 / (1.0 + rate * progress)


def cyclic(
    x: Number,
    base: float,
    peak: float,
    step_size_up: float = 2000,
    step_size_down: float | None = None,
    mode: str = "triangular",
    gamma: float = 1.0,
) -> Number:
    r"""Cyclical learning rate between ``base`` and ``peak``, exactly ``torch.optim.lr_scheduler.CyclicLR``.

    ``x`` is torch's ``last_epoch`` (optimizer steps taken). With :math:`u` = ``step_size_up``,
    :math:`d` = ``step_size_down`` (default :math:`u`), :math:`T = u + d` and :math:`r = u / T`:

    .. math::
        c = \lfloor 1 + x / T \rfloor, \quad p = 1 + x / T - c, \quad
        h = \begin{cases} p / r & p \le r \\ (p - 1) / (r - 1) & p > r \end{cases}

    .. math::
        \mathrm{lr}(x) = b + (P - b)\,h\,\sigma, \qquad
        \sigma = 1 \text{ (triangular)}, \; 2^{-(c - 1)} \text{ (triangular2)}, \;
        \gamma^{x} \text{ (exp\_range)}

    Args:
        x: torch's ``last_epoch`` (optimizer steps taken): a float or a floating tensor.
        base: The lowest value.
        peak: The highest value of the first cycle.
        step_size_up: The steps of the rising side, a finite number > 0.
        step_size_down: The steps of the falling side (None: ``step_size_up``), a finite number >= 0.
        mode: ``triangular``, ``triangular2`` or ``exp_range``.
        gamma: The factor per step of ``exp_range``, > 0.

    Returns:
        The absolute value (``base=1``, ``peak=max_lr/base_lr``: a multiplier), a float or a tensor like ``x``.

    Raises:
        ValueError: An argument out of range or an unknown ``mode``, naming it.

    >>> cyclic(0, 0.1, 1.0, 10), cyclic(10, 0.1, 1.0, 10), cyclic(25, 0.0, 1.0, 10, mode="triangular2")
    (0.1, 1.0, 0.25)
    """
    _check_cyclic(step_size_up, step_size_down, mode, gamma)
    up = float(step_size_up)
    down = up if step_size_down is None else float(step_size_down)
    total = up + down
    ratio = up / total
    o = ops(x)
    cycle = o.floor(1 + x / total)
    position = 1.0 + x / total - cycle
    if down == 0:  # no falling side: position stays in [0, 1) = [0, ratio)
        height = position / ratio
    else:
        height = o.where(position <= ratio, position / ratio, (position - 1) / (ratio - 1))
    amplitude = (peak - base) * height
    if mode == "triangular":
        return base + amplitude
    if mode == "triangular2":  # 0.5 ** n == 1 / 2.0 ** n exactly, and underflows instead of overflowing
        return base + amplitude * o.pow(0.5, cycle - 1)
    return base + amplitude * o.pow(gamma, x)


def _check_cyclic(step_size_up: float, step_size_down: float | None, mode: str, gamma: float) -> None:
    if not 0 < step_size_up < _INF:
        raise _bad("step_size_up", "a finite number > 0", step_size_up)
    if step_size_down is not None and not 0 <= step_size_down < _INF:
        raise _bad("step_size_down", "None or a finite number >= 0", step_size_down)
    if mode not in CYCLIC_MODES:
        raise _bad_choice("mode", mode, CYCLIC_MODES)
    if mode == "exp_range" and not 0 < gamma < _INF:
        raise _bad("gamma", "a finite number > 0 with mode 'exp_range'", gamma)


def _anneal_cos(o, start, end, pct):
    return end + (start - end) / 2.0 * (o.cos(math.pi * pct) + 1)


def _anneal_linear(o, start, end, pct):
    return (end - start) * pct + start


def _one_cycle_phases(total_steps, max_lr, initial_lr, min_lr, pct_start, three_phase):
    """The phases of :func:`one_cycle` as ``(end, start value, end value)``, its arguments checked."""
    if type(total_steps) is not int or total_steps <= 0:
        raise _bad("total_steps", "an int > 0", total_steps)
    if not 0 <= pct_start <= 1:
        raise _bad("pct_start", "a number in [0, 1]", pct_start)
    first_end = float(pct_start * total_steps) - 1
    if first_end == 0:
        raise ValueError(
            f"pct_start * total_steps must not be 1 (the first phase would have zero length), "
            f"got pct_start={pct_start!r}, total_steps={total_steps!r}"
        )
    last_step = total_steps - 1
    if three_phase:
        second_end = float(2 * pct_start * total_steps) - 2
        return ((first_end, initial_lr, max_lr), (second_end, max_lr, initial_lr), (last_step, initial_lr, min_lr))
    return ((first_end, initial_lr, max_lr), (last_step, max_lr, min_lr))


def one_cycle(
    x: Number,
    total_steps: int,
    max_lr: float,
    initial_lr: float,
    min_lr: float,
    pct_start: float = 0.3,
    anneal_strategy: str = "cos",
    three_phase: bool = False,
) -> Number:
    r"""The 1cycle policy, exactly ``torch.optim.lr_scheduler.OneCycleLR``'s lr after ``x`` steps.

    With :math:`N` = ``total_steps`` and :math:`q` = ``pct_start`` the phases end at
    :math:`a = qN - 1` and :math:`N - 1` (three-phase: :math:`a`, :math:`2qN - 2`, :math:`N - 1`):
    ``initial_lr`` → ``max_lr`` → ``min_lr`` (three-phase: ``initial_lr`` → ``max_lr`` → ``initial_lr`` →
    ``min_lr``). A phase :math:`(s, e]` (the first is :math:`[0, e]`) anneals from its start value
    :math:`v_0` to its end value :math:`v_1` with :math:`\tau = (x - s) / (e - s)`:

    .. math::
        \text{cos: } v_1 + \frac{v_0 - v_1}{2}\,(\cos(\pi \tau) + 1), \qquad
        \text{linear: } (v_1 - v_0)\,\tau + v_0

    Past step :math:`N - 1` the value holds at ``min_lr`` (torch extrapolates at step :math:`N` and
    raises beyond). ``pct_start * total_steps == 1`` is rejected: torch divides 0 by 0 at step 0.

    Args:
        x: The optimizer steps taken: a float or a floating tensor.
        total_steps: :math:`N`, the steps of the cycle.
        max_lr: The peak value.
        initial_lr: The value at step 0 (torch: ``max_lr / div_factor``, default 25).
        min_lr: The value at the end (torch: ``initial_lr / final_div_factor``, default 1e4).
        pct_start: :math:`q`, the fraction of the cycle spent rising.
        anneal_strategy: ``cos`` or ``linear``.
        three_phase: Whether the value comes back to ``initial_lr`` before annealing to ``min_lr``.

    Returns:
        The absolute value (not a multiplier), a float or a tensor like ``x``.

    Raises:
        ValueError: An argument out of range or an unknown ``anneal_strategy``, naming it.

    >>> [one_cycle(x, 100, max_lr=1.0, initial_lr=0.25, min_lr=0.0025) for x in (0, 29, 99)]
    [0.25, 1.0, 0.0025]
    """
    phases = _one_cycle_phases(total_steps, max_lr, initial_lr, min_lr, pct_start, three_phase)
    if anneal_strategy not in ANNEAL_STRATEGIES:
        raise _bad_choice("anneal_strategy", anneal_strategy, ANNEAL_STRATEGIES)
    last_step = total_steps - 1
    anneal = _anneal_cos if anneal_strategy == "cos" else _anneal_linear
    o = ops(x)
    pieces, begin = [], 0.0
    for end, start_lr, end_lr in phases:
        # only a later phase can have zero length, and it then lies past last_step where min_lr holds
        span = end - begin if end != begin else 1.0
        pieces.append((end, anneal(o, start_lr, end_lr, (x - begin) / span)))
        begin = end
    lr = pieces[-1][1]
    for end, value in reversed(pieces[:-1]):
        lr = o.where(x <= end, value, lr)
    return o.where(x > last_step, min_lr, lr)


def warmup_stable_decay(
    x: Number,
    t_warmup: float,
    t_stable_end: float,
    t_end: float,
    alpha_f: float = 0.0,
    decay_shape: str = "linear",
) -> Number:
    r"""Warmup-stable-decay: ramp 0 → 1, hold 1, then decay to ``alpha_f`` and hold.

    With :math:`p = \mathrm{clamp}((x - t_s) / (t_e - t_s), 0, 1)` and
    :math:`0 \le t_w \le t_s < t_e` (no ramp when :math:`t_w = 0`):

    .. math::
        \alpha(x) = \mathrm{clamp}(x / t_w, 0, 1)\,\bigl(\alpha_f + (1 - \alpha_f)\,g(p)\bigr), \qquad
        g(p) = 1 - p \text{ (linear)}, \; \tfrac{1 + \cos \pi p}{2} \text{ (cosine)}, \;
        1 - \sqrt{p} \text{ (1-sqrt)}

    The product is the three phases at once: :math:`g(0) = 1` during the ramp and the ramp is 1 after it.

    Args:
        x: The count (or fraction): a float, or a floating tensor evaluated elementwise.
        t_warmup: The ramp's end :math:`t_w`, a finite number >= 0.
        t_stable_end: Where the decay starts :math:`t_s`, >= ``t_warmup``.
        t_end: Where the decay ends :math:`t_e`, > ``t_stable_end``.
        alpha_f: The value at the end.
        decay_shape: ``linear``, ``cosine`` or ``1-sqrt``.

    Returns:
        The multiplier, a float for a float ``x`` and a tensor of ``x``'s shape and dtype for a tensor.

    Raises:
        ValueError: The times out of order or range, or an unknown ``decay_shape``, naming it.

    >>> warmup_stable_decay(5.0, 10.0, 50.0, 100.0), warmup_stable_decay(50.0, 10.0, 50.0, 100.0)
    (0.5, 1.0)
    >>> warmup_stable_decay(62.5, 10.0, 50.0, 100.0, alpha_f=0.5, decay_shape="1-sqrt")
    0.75
    """
    if not 0 <= t_warmup < _INF:
        raise _bad("t_warmup", "a finite number >= 0", t_warmup)
    if not t_warmup <= t_stable_end < _INF:
        raise _bad("t_stable_end", f"a finite number >= t_warmup ({t_warmup!r})", t_stable_end)
    if not t_stable_end < t_end < _INF:
        raise _bad("t_end", f"a finite number > t_stable_end ({t_stable_end!r})", t_end)
    if decay_shape not in DECAY_SHAPES:
        raise _bad_choice("decay_shape", decay_shape, DECAY_SHAPES)
    o = ops(x)
    p = o.clamp((x - t_stable_end) / (t_end - t_stable_end), 0.0, 1.0)
    if decay_shape == "linear":
        shape = 1 - p
    elif decay_shape == "cosine":
        shape = (1 + o.cos(math.pi * p)) / 2
    else:
        shape = 1 - o.sqrt(p)
    alpha = alpha_f + (1 - alpha_f) * shape
    if t_warmup > 0:
        alpha = o.clamp(x / t_warmup, 0.0, 1.0) * alpha
    return alpha


def cosine_wave(frac: Number, start: float = 1.0, end: float = 0.0) -> Number:
    r"""A cosine from ``start`` to ``end`` as ``frac`` goes from 0 to 1 that goes on past 1: back to ``start`` at
    2, and so on with period 2 (torch's ``CosineAnnealingLR`` closed form, Hugging Face's cosine with cycles).

    .. math:: \alpha(f) = e + (s - e)\,\frac{1 + \cos(\pi f)}{2}, \qquad f \ge 0

    Evaluated as :func:`cosine` of :math:`f` folded into :math:`[0, 1]` (a triangle wave, which leaves
    :math:`\cos(\pi f)` unchanged), so the two agree exactly on :math:`[0, 1]`.

    Args:
        frac: The fraction of a half period, >= 0: a float or a floating tensor.
        start: The value at 0, 2, 4, ...
        end: The value at 1, 3, 5, ...

    Returns:
        The multiplier, a float for a float ``x`` and a tensor of ``x``'s shape and dtype for a tensor.

    >>> cosine_wave(0.5), cosine_wave(1.5), cosine_wave(2.0, start=1.0, end=0.1), cosine_wave(3.0)
    (0.5, 0.5, 1.0, 0.0)
    """
    o = FloatOps if type(frac) is float else ops(frac)
    folded = frac - 2.0 * o.floor(frac / 2.0)
    return cosine(o.minimum(folded, 2.0 - folded), start, end)


def piecewise_constant(x: Number, boundaries: tuple[float, ...], values: tuple[float, ...]) -> Number:
    r"""Hold ``values[i]`` from boundary :math:`b_{i-1}` (0 for the first) until :math:`b_i` (Cerebras's
    ``PiecewiseConstantLR``, Keras's ``PiecewiseConstantDecay`` with the switch at the boundary).

    .. math:: \alpha(x) = v_{\#\{i : b_i \le x\}}

    ``boundaries`` is a strictly increasing tuple; ``values`` a tuple with one more entry.

    Args:
        x: The count (or fraction): a float, or a floating tensor evaluated elementwise.
        boundaries: The counts where the value changes, strictly increasing.
        values: The values, one more than ``boundaries``.

    Returns:
        The value, a float or a tensor like ``x``.

    Raises:
        ValueError: ``boundaries`` not increasing, or ``values`` of the wrong length.

    >>> piecewise_constant(4.0, (5, 8), (1.0, 0.5, 0.1)), piecewise_constant(5.0, (5, 8), (1.0, 0.5, 0.1))
    (1.0, 0.5)
    """
    o = ops(x)
    _check_increasing("boundaries", boundaries, strict=True, memo=o is FloatOps)
    if type(values) is not tuple or len(values) != len(boundaries) + 1:
        raise _bad("values", f"a tuple of {len(boundaries) + 1} numbers (one more than boundaries)", values)
    return o.take(values, o.bucket(x, boundaries))
