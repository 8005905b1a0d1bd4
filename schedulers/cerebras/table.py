r"""The one table of the Cerebras schedulers, from which the learning-rate and weight-decay classes are built.

Each row names a schedule (``"CosineDecay"``), its closed form (a class of
:mod:`schedulers.cerebras.closed_forms` or :mod:`schedulers.cerebras.composites`, evaluated through
:mod:`schedulers.core.kernels`) and the learning-rate names of its value arguments (``initial_val`` ->
``initial_learning_rate``). :func:`build_family` turns the table into one family of classes:

* ``CosineDecayLR(LRScheduler, CosineDecayForm)`` with the learning-rate names (Cerebras's
  ``cerebras.pytorch.optim.lr_scheduler``): its ``__init__`` has the form's signature with the arguments
  renamed, and the form's arguments are readable under the public names too;
* ``CosineDecayWD(WeightDecayScheduler, CosineDecayForm)`` with the form's generic names (Cerebras 2.x's
  ``weight_decay_scheduler``: ``val``, ``initial_val``, ``end_val``, ``vals``, ...).

Every class gets a docstring with its formula, the module it is exported from (so it pickles and
documents as before) and its registry entry (family ``"cerebras"``).

>>> [row.stem for row in TABLE][:3]
['Constant', 'Polynomial', 'Linear']
>>> ROWS["Cyclic"].lr_names
{'base_val': 'base_lr', 'max_val': 'max_lr'}
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from schedulers.cerebras import closed_forms as forms
from schedulers.cerebras import composites
from schedulers.cerebras.scheduler import HyperparameterScheduler
from schedulers.core.registry import register_scheduler

__all__ = ["ROWS", "TABLE", "Family", "Row", "build_family"]

_INITIAL = {"initial_val": "initial_learning_rate"}
_INITIAL_END = {"initial_val": "initial_learning_rate", "end_val": "end_learning_rate"}


@dataclass(frozen=True)
class Row:
    """One schedule of the table.

    ``summary`` is a docstring template: ``{initial_val}`` (any generic argument name) becomes the family's
    argument name, ``{value}`` the scheduled quantity ("learning rate" or "weight decay") and ``{hook}``
    the name of the family's lambda hook.
    ``lr_class``/``lr_aliases``: the learning-rate class's name when it is not ``stem + "LR"``, and its
    registry aliases (Cerebras's and torch's other names for it).
    """

    stem: str
    form: type[HyperparameterScheduler]
    summary: str
    lr_names: Mapping[str, str] = field(default_factory=dict)
    lr_class: str | None = None
    lr_aliases: tuple[str, ...] = ()


TABLE: tuple[Row, ...] = (
    Row(
        "Constant",
        forms.ConstantForm,
        "A constant {value} ``{val}``; ``total_iters`` (optional) is how long, e.g. in a sequence.",
        {"val": "learning_rate"},
    ),
    Row(
        "Polynomial",
        forms.PolynomialForm,
        "Polynomial decay from ``{initial_val}`` to ``{end_val}`` over ``total_iters`` steps, then held; "
        "``cycle=True`` restarts the decay with a longer horizon (TensorFlow's ``PolynomialDecay``).",
        _INITIAL_END,
    ),
    Row(
        "Linear",
        forms.LinearForm,
        "Linear decay from ``{initial_val}`` to ``{end_val}`` over ``total_iters`` steps (polynomial with power 1).",
        _INITIAL_END,
    ),
    Row(
        "Exponential",
        forms.ExponentialForm,
        "``{initial_val} · decay_rate ** (t / total_iters)`` (``staircase``: a whole exponent).",
        _INITIAL,
    ),
    Row(
        "InverseExponentialTimeDecay",
        forms.InverseExponentialTimeDecayForm,
        "``{initial_val} / (1 + decay_rate · t ** step_exponent / total_iters)`` (Keras ``InverseTimeDecay``).",
        _INITIAL,
    ),
    Row(
        "InverseSquareRootDecay",
        forms.InverseSquareRootDecayForm,
        "``{initial_val} · scale / sqrt(max(t, warmup_steps))``.",
        _INITIAL,
    ),
    Row(
        "CosineDecay",
        forms.CosineDecayForm,
        "Half a cosine from ``{initial_val}`` to ``{end_val}`` over ``total_iters`` steps, then held.",
        _INITIAL_END,
    ),
    Row(
        "Sequential",
        composites.SequentialForm,
        "``schedulers[i]`` from ``milestones[i-1]`` until ``milestones[i]``, each seeing the steps since its start "
        "(without ``milestones``: each child lasts its ``total_iters``).",
    ),
    Row(
        "PiecewiseConstant",
        forms.PiecewiseConstantForm,
        "``{vals}[i]`` between ``milestones[i-1]`` and ``milestones[i]`` (one more value than milestones).",
        {"vals": "learning_rates"},
    ),
    Row(
        "MultiStep",
        forms.MultiStepForm,
        "``{initial_val} · gamma ** (milestones reached)`` (torch's ``MultiStepLR``).",
        _INITIAL,
    ),
    Row(
        "Step",
        forms.StepForm,
        "``{initial_val} · gamma ** floor(t / step_size)`` (torch's ``StepLR``).",
        _INITIAL,
    ),
    Row(
        "CosineAnnealing",
        forms.CosineAnnealingForm,
        "Cosine annealing from ``{initial_val}`` to ``eta_min`` over ``T_max`` steps and back "
        "(torch's ``CosineAnnealingLR`` closed form).",
        _INITIAL,
    ),
    Row(
        "Lambda",
        forms.LambdaForm,
        "``{initial_val}`` times the product of the functions of the step ``{hook}()`` returns. A base class: "
        "subclass it and override ``{hook}()`` to return a function of the step (a float64 tensor), or a list of "
        "them, written with torch ops.",
        _INITIAL,
    ),
    Row(
        "CosineAnnealingWarmRestarts",
        forms.CosineAnnealingWarmRestartsForm,
        "SGDR: cosine annealing from ``{initial_val}`` to ``eta_min`` restarting after ``T_0`` steps, then every "
        "``T_mult`` times longer (an integer ``T_mult >= 1``; torch's ``CosineAnnealingWarmRestarts``).",
        _INITIAL,
        lr_class="CosineAnnealingWarmRestarts",
        lr_aliases=("CosineAnnealingWarmRestartsLR",),
    ),
    Row(
        "Multiplicative",
        forms.MultiplicativeForm,
        "``{initial_val} · coefficient ** t``: the {value} multiplied by ``coefficient`` every step.",
        _INITIAL,
    ),
    Row(
        "Chained",
        composites.ChainedForm,
        "The product of ``schedulers``: the first one's {value} times each later one's relative to its value at "
        "step 0.",
        lr_aliases=("ChainedScheduler",),
    ),
    Row(
        "Cyclic",
        forms.CyclicForm,
        "Cyclical {value} between ``{base_val}`` and ``{max_val}`` (torch's ``CyclicLR`` without momentum cycling).",
        {"base_val": "base_lr", "max_val": "max_lr"},
    ),
    Row(
        "OneCycle",
        forms.OneCycleForm,
        "The 1cycle policy from ``{initial_val}`` up to ``{max_val}`` and down to "
        "``{initial_val} / final_div_factor`` over ``total_steps`` (torch's ``OneCycleLR``).",
        {"initial_val": "initial_learning_rate", "max_val": "max_lr"},
    ),
    Row(
        "ScalePerParam",
        composites.ScalePerParamForm,
        "``scheduler``'s {value} times each param group's ``adjust_learning_rate`` entry (µP-style per-layer scaling).",
    ),
)

ROWS: dict[str, Row] = {row.stem: row for row in TABLE}

# the symbols the closed forms' formulas use for the generic arguments, for each class's legend
_SYMBOLS = {"val": "v", "initial_val": "v_0", "end_val": "v_1", "vals": "v_i", "total_iters": "T"}


@dataclass(frozen=True)
class Family:
    """One family of classes built from the table.

    ``lambda_hook`` is the family's name for the method returning the function(s) of the step of the
    lambda-style schedules (``set_lr_lambda``; the forms' own name is ``set_value_lambda``).
    ``extras`` adds attributes to some classes, by stem (e.g. a property under a family-specific name).
    """

    base: type[HyperparameterScheduler]
    suffix: str
    module: str
    value: str
    learning_rate_names: bool
    lambda_hook: str = "set_value_lambda"
    extras: Mapping[str, Mapping[str, object]] = field(default_factory=dict)

    def class_name(self, row: Row) -> str:
        if self.learning_rate_names and row.lr_class is not None:
            return row.lr_class
        return row.stem + self.suffix

    def names(self, row: Row) -> dict[str, str]:
        """Generic argument name -> this family's name, for the arguments it renames."""
        return dict(row.lr_names) if self.learning_rate_names else {}


def build_family(family: Family) -> dict[str, type]:
    """Every class of ``family`` by name, in table order, registered in the registry (family "cerebras")."""
    classes = {}
    for row in TABLE:
        cls = _build_class(family, row)
        aliases = row.lr_aliases if family.learning_rate_names else ()
        register_scheduler(cls, aliases=aliases, family="cerebras")
        classes[cls.__name__] = cls
    return classes


def _build_class(family: Family, row: Row) -> type:
    name = family.class_name(row)
    names = family.names(row)
    namespace: dict[str, object] = {
        "__module__": family.module,
        "__qualname__": name,
        "__doc__": _docstring(family, row, names),
    }
    if names:
        namespace["_argument_names"] = names  # also makes the public names readable attributes
        namespace["__init__"] = _renaming_init(name, family.module, row.form, names)
    if hasattr(row.form, "set_value_lambda") and family.lambda_hook != "set_value_lambda":
        namespace.update(_lambda_hook(name, family.lambda_hook))
    namespace.update(family.extras.get(row.stem, {}))
    return type(name, (family.base, row.form), namespace)


def _renaming_init(name: str, module: str, form: type, names: Mapping[str, str]) -> Callable:
    """An ``__init__`` with ``form``'s signature, its arguments renamed by ``names``, calling ``form.__init__``."""
    generic = inspect.signature(form.__init__)
    public = generic.replace(
        parameters=[p.replace(name=names.get(p.name, p.name)) for p in generic.parameters.values()]
    )
    to_generic = {public_name: generic_name for generic_name, public_name in names.items()}
    shown = public.replace(parameters=list(public.parameters.values())[1:])  # without self, as users call it

    def __init__(self, *args, **kwargs):
        generic_names = [key for key in kwargs if key in names]
        if generic_names:  # the weight-decay spelling of an argument, given to the learning-rate class
            renamed = "; ".join(f"{key!r} is called {names[key]!r} here" for key in generic_names)
            raise TypeError(f"{name}{shown}: {renamed}")
        try:
            bound = public.bind(self, *args, **kwargs)
        except TypeError as error:
            raise TypeError(f"{name}{shown}: {error}") from None
        arguments = {to_generic.get(key, key): value for key, value in bound.arguments.items()}
        del arguments["self"]
        form.__init__(self, **arguments)

    __init__.__signature__ = public
    __init__.__qualname__ = f"{name}.__init__"
    __init__.__module__ = module
    return __init__


def _lambda_hook(name: str, hook: str) -> dict[str, object]:
    """The family's lambda hook ``hook``: a method delegating to the form's ``set_value_lambda``, which a user
    subclass overrides instead (either name works), and ``_lambda_hook`` telling the form to call it."""

    def set_lambda(self):
        return self.set_value_lambda()

    set_lambda.__name__ = hook
    set_lambda.__qualname__ = f"{name}.{hook}"
    set_lambda.__doc__ = (
        f"The function(s) of the step the closed form uses (Cerebras's name for ``set_value_lambda``): "
        f"override ``{hook}()`` in a subclass to set your own."
    )
    return {hook: set_lambda, "_lambda_hook": lambda self: hook}


def _docstring(family: Family, row: Row, names: Mapping[str, str]) -> str:
    """The row's summary in this family's names, then the closed form's formula and what its symbols are."""
    parameters = inspect.signature(row.form.__init__).parameters
    words = {generic: names.get(generic, generic) for generic in parameters}
    summary = row.summary.format_map({**words, "value": family.value, "hook": family.lambda_hook})
    legend = [
        f":math:`{symbol}` is ``{words[generic]}``" + ("" if generic != "vals" else " (entry :math:`i`)")
        for generic, symbol in _SYMBOLS.items()
        if generic in parameters
    ]
    form = inspect.cleandoc(row.form.__doc__ or "")
    where = "Here :math:`t` is the number of steps taken (``last_epoch``)"
    where += (", " + ", ".join(legend) if legend else "") + "."
    return f"{summary}\n\n{form}\n\n{where}\n"
