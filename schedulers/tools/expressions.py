"""Schedules written as Python call expressions, parsed safely (``ast``, never ``eval``).

An expression is a call of a registered Cadence schedule (Composer's schedulers, Cadence's own, the
composites ``Sequence``/``Product``/``Warmup`` and user-registered :class:`~schedulers.core.schedule.Schedule`
subclasses), with literal arguments only::

    CosineAnnealingWithWarmupScheduler(t_warmup='0.05dur', alpha_f=0.1)
    cosine_with_warmup('500ba')
    Sequence([LinearScheduler(0.0, 1.0), CosineAnnealingScheduler()], ['0.1dur'])

Allowed: numbers (with an optional sign), strings, ``True``/``False``/``None``, lists and tuples of these,
and nested calls of registered schedules. Anything else — names, attribute access, subscripts, operators,
lambdas, comprehensions, f-strings, ``*args``/``**kwargs`` — is an :class:`ExpressionError` naming the part.
Only the registered schedule constructors are ever called, so an expression cannot run other code.

Cerebras and SambaFlow schedulers are bound to an optimizer and count optimizer steps: they are not
expressions (use their Composer/Cadence counterparts, or plot a config with ``cadence plot``).

>>> parse_schedule("CosineAnnealingWithWarmupScheduler(t_warmup='0.05dur', alpha_f=0.1)")
CosineAnnealingWithWarmupScheduler(t_warmup='0.05dur', t_max='1.0dur', alpha_f=0.1, scale_warmup=False)
"""

from __future__ import annotations

import ast

from schedulers.core.names import UnknownSchedulerError, get_scheduler, registered_schedulers, scheduler_family
from schedulers.core.schedule import Schedule
from schedulers.core.schedule_config import call_problem, unknown_name_message

__all__ = ["ExpressionError", "UnknownScheduleNameError", "parse_schedule", "schedule_names"]

#: what an expression may contain, for error messages
ALLOWED = (
    "calls of registered schedules with literal arguments: numbers, strings, True/False/None, "
    "lists/tuples of these, and nested schedule calls"
)

_MAX_LENGTH = 10_000  # characters; a schedule expression is a line, not a program
_MAX_DEPTH = 32  # nesting of calls and lists


class ExpressionError(ValueError):
    """An expression that is not a schedule call with literal arguments, or a call whose arguments do not fit the
    schedule (:func:`schedulers.core.schedule_config.call_problem`'s message, as every config door gives it).

    Args:
        message: the expression, then what is wrong with it (the offending part named).

    Returns:
        The error (a ``ValueError``).

    >>> try:
    ...     parse_schedule("StepScheduler('10ba', gama=0.5)")
    ... except ExpressionError as error:
    ...     print(str(error).split(": ", 1)[1].split(";")[0])
    StepScheduler got an unexpected keyword argument 'gama' (did you mean 'gamma'?)
    """


class UnknownScheduleNameError(ExpressionError, UnknownSchedulerError):
    """A call of a name that is not a registered Cadence schedule (also the registry's error type); its message
    after the expression is the one every door gives (:func:`schedulers.core.schedule_config.unknown_name_message`).

    Args:
        message: the expression, then the registry's reason, the close names and the schedule names.
        reason: The message without the list of schedule names, kept as ``.reason`` (None: the message).

    Returns:
        The error (an :class:`ExpressionError` and an :class:`~schedulers.core.names.UnknownSchedulerError`).

    >>> try:
    ...     parse_schedule("cosinne()")
    ... except UnknownScheduleNameError as error:
    ...     print(str(error).split("; ")[0])
    'cosinne()': unknown schedule 'cosinne' (did you mean cosine?)
    """

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


def schedule_names() -> list[str]:
    """Every name (class names and aliases) an expression may call, sorted case-insensitively.

    Returns:
        The names.

    >>> "cosine_with_warmup" in schedule_names(), "CosineDecayLR" in schedule_names()
    (True, False)
    """
    return sorted(registered_schedulers(where=_is_schedule), key=str.lower)


def parse_schedule(text: str) -> Schedule:
    """The schedule an expression such as ``"cosine_with_warmup(t_warmup='0.1dur')"`` describes.

    Names are matched as the registry matches them (case-insensitive, aliases, full names). Errors:
    :class:`ExpressionError` for anything but a schedule call with literal arguments;
    :class:`UnknownScheduleNameError` (a :class:`~schedulers.core.names.UnknownSchedulerError`) for a name
    that is not a registered schedule, with close names; a schedule's own ``ValueError`` for bad argument
    values, its message prefixed with the expression.

    Args:
        text: the expression.

    Returns:
        The schedule it calls (nested calls built first).

    Raises:
        ExpressionError: anything but a schedule call with literal arguments, or arguments that do not fit the
            schedule's signature.
        UnknownScheduleNameError: a name that is not a registered schedule.
        ValueError: the schedule's own check of an argument's value, prefixed with the expression.

    >>> sequence = parse_schedule("Sequence([linear(0.0, 1.0), cosine()], ['0.1dur'])")
    >>> [type(s).__name__ for s in sequence.schedules], [str(m) for m in sequence.milestones]
    (['LinearScheduler', 'CosineAnnealingScheduler'], ['0.1dur'])
    >>> parse_schedule("__import__('os').system('echo hi')")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    schedulers.tools.expressions.ExpressionError: "__import__('os').system('echo hi')": attribute access ...
    """
    if not isinstance(text, str):
        raise ExpressionError(f"a schedule expression must be a string, got {text!r}")
    source = text.strip()
    if not source:
        raise ExpressionError('empty schedule expression: expected e.g. "CosineAnnealingScheduler(alpha_f=0.1)"')
    if len(source) > _MAX_LENGTH:
        raise ExpressionError(f"schedule expression is {len(source)} characters long: at most {_MAX_LENGTH}")
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as error:
        where = f" at column {error.offset}" if error.offset else ""
        raise ExpressionError(f"{_short(source)!r} is not a Python expression ({error.msg}{where})") from None
    except (ValueError, RecursionError, MemoryError) as error:  # e.g. null bytes, absurd nesting or digits
        raise ExpressionError(f"{_short(source)!r} cannot be parsed: {error or type(error).__name__}") from None
    return _Builder(source).schedule(tree.body)


class _Builder:
    """Walks the tree: checks every node against the whitelist, then calls only registered schedules."""

    def __init__(self, source: str) -> None:
        self.source = source

    def schedule(self, node: ast.expr) -> Schedule:
        if not isinstance(node, ast.Call):
            if isinstance(node, ast.Name) and _lookup_quietly(node.id) is not None:
                self.fail(node, f"{node.id!r} is a name, not a call: write {node.id}(...) to build the schedule")
            self.fail(node, f"{self.describe(node)} is not a schedule call")
        return self.call(node, depth=0)

    def call(self, node: ast.Call, depth: int) -> Schedule:
        if depth > _MAX_DEPTH:
            self.fail(node, f"schedule calls nest deeper than {_MAX_DEPTH} levels")
        if not isinstance(node.func, ast.Name):
            self.fail(node.func, f"{self.describe(node.func)} is not allowed (only a schedule's name can be called)")
        cls = self.lookup(node.func, node)
        args = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                self.fail(arg, f"argument unpacking {self.segment(arg)!r} is not allowed")
            args.append(self.value(arg, depth + 1))
        kwargs = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                self.fail(keyword.value, f"keyword unpacking '**{self.segment(keyword.value)}' is not allowed")
            if keyword.arg in kwargs:
                self.fail(keyword, f"the keyword argument {keyword.arg!r} is repeated")
            kwargs[keyword.arg] = self.value(keyword.value, depth + 1)
        prefix = self.where(node)
        problem = call_problem(cls, kwargs, name=cls.__name__, positional=len(args))
        if problem is not None:  # the one check of every door (YAML, --set, from_config): the same message
            raise ExpressionError(f"{prefix}: {problem.message}")
        try:
            return cls(*args, **kwargs)
        except Exception as error:  # the schedule's own validation, prefixed with the call
            if isinstance(error, ValueError) and len(error.args) == 1 and isinstance(error.args[0], str):
                error.args = (f"{prefix}: {error.args[0]}",)
                raise error.with_traceback(None) from None
            detail = str(error) if isinstance(error, (ValueError, TypeError)) else f"{type(error).__name__}: {error}"
            raise ExpressionError(f"{prefix}: {detail}") from None

    def value(self, node: ast.expr, depth: int) -> object:
        if depth > _MAX_DEPTH:
            self.fail(node, f"arguments nest deeper than {_MAX_DEPTH} levels")
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (bool, int, float, str)) or node.value is None:
                return node.value
            self.fail(node, f"the literal {self.segment(node)} ({type(node.value).__name__}) is not allowed")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = node.operand
            if isinstance(operand, ast.Constant) and type(operand.value) in (int, float):
                return -operand.value if isinstance(node.op, ast.USub) else operand.value
            self.fail(node, f"the sign in {self.segment(node)!r} applies only to a number")
        if isinstance(node, (ast.List, ast.Tuple)):
            items = []
            for item in node.elts:
                if isinstance(item, ast.Starred):
                    self.fail(item, f"unpacking {self.segment(item)!r} is not allowed")
                items.append(self.value(item, depth + 1))
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.Call):
            return self.call(node, depth)
        if isinstance(node, ast.Name):
            self.fail(node, f"the name {node.id!r} is not allowed{_name_hint(node.id)}")
        self.fail(node, f"{self.describe(node)} is not allowed")
        raise AssertionError("unreachable")

    def lookup(self, name_node: ast.Name, call: ast.Call) -> type:
        name = name_node.id
        try:
            return get_scheduler(name, where=_is_schedule)
        except UnknownSchedulerError as error:
            unknown = error
        try:
            found = get_scheduler(name)
        except UnknownSchedulerError:
            found = None
        if found is not None:  # registered, but not a time-aware schedule (Cerebras, SambaFlow)
            family = _FRONT_ENDS.get(scheduler_family(found), "step-indexed")
            raise UnknownScheduleNameError(
                f"{self.where(call)}: {found.__name__} is a {family} scheduler bound to an optimizer, "
                f"not a schedule expression; use a Composer/Cadence schedule; {_names_text()}"
            )
        raise UnknownScheduleNameError(f"{self.where(call)}: {unknown_name_message(unknown.reason, _full_names())}")

    # -- messages --------------------------------------------------------------------------------------

    def fail(self, node: ast.AST, what: str) -> None:
        raise ExpressionError(f"{_short(self.source)!r}: {what}; an expression may contain only {ALLOWED}")

    def where(self, node: ast.AST) -> str:
        """The expression, and the call inside it when that is not the whole expression, for a message prefix."""
        call = self.segment(node)
        return repr(_short(self.source)) + ("" if call == self.source else f": in {call!r}")

    def segment(self, node: ast.AST) -> str:
        return _short(ast.get_source_segment(self.source, node) or ast.unparse(node))

    def describe(self, node: ast.AST) -> str:
        kinds = {
            ast.Attribute: "attribute access",
            ast.Subscript: "subscript",
            ast.Lambda: "lambda",
            ast.JoinedStr: "f-string",
            ast.BinOp: "operator",
            ast.BoolOp: "operator",
            ast.Compare: "comparison",
            ast.IfExp: "conditional expression",
            ast.Dict: "dict",
            ast.Set: "set",
            ast.ListComp: "comprehension",
            ast.SetComp: "comprehension",
            ast.DictComp: "comprehension",
            ast.GeneratorExp: "generator expression",
            ast.NamedExpr: "assignment expression",
            ast.Await: "await",
            ast.Yield: "yield",
            ast.YieldFrom: "yield",
            ast.Starred: "unpacking",
            ast.UnaryOp: "operator",
            ast.Name: "name",
            ast.Constant: "literal",
            ast.Call: "call",
            ast.List: "list",
            ast.Tuple: "tuple",
        }
        kind = next((label for node_type, label in kinds.items() if isinstance(node, node_type)), "expression")
        return f"{kind} {self.segment(node)!r}"


def _name_hint(name: str) -> str:
    """What a bare name in an argument was probably meant to be."""
    if name in ("true", "false", "none", "null"):
        return f" (write {name.capitalize() if name != 'null' else 'None'})"
    if _lookup_quietly(name) is not None:
        return f" (write {name}(...) to build the schedule)"
    return " (write strings in quotes, e.g. '0.1dur')"


def _lookup_quietly(name: str) -> type | None:
    """The registered Schedule subclass ``name`` refers to, or None (not found, or ambiguous among schedules)."""
    try:
        return get_scheduler(name, where=_is_schedule)
    except UnknownSchedulerError:
        return None


def _is_schedule(cls: object) -> bool:
    return isinstance(cls, type) and issubclass(cls, Schedule)


# the front ends' names in a message, by their registered family (schedulers.core.names.scheduler_family)
_FRONT_ENDS = {"cerebras": "Cerebras", "sambaflow": "SambaFlow"}


def _full_names() -> list[str]:
    """The class names of the registered schedules (what the config reader lists too)."""
    return sorted({cls.__name__ for cls in registered_schedulers(where=_is_schedule).values()})


def _names_text() -> str:
    return f"schedule names: {', '.join(_full_names())}"


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
