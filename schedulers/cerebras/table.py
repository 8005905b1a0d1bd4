"""The table of the Cerebras schedules: which learning-rate and weight-decay classes share a form, and their names.

Each row is a schedule's form (a frozen Cadence schedule of :mod:`schedulers.families.cerebras`:
the generic signature, its checks and the closed form, evaluated through :mod:`schedulers.core.kernels`). Both
families declare their classes in source on that form (``class CosineDecayLR(LRScheduler)`` with
``form = forms.CosineDecay`` in :mod:`schedulers.cerebras.lr_scheduler`, and ``CosineDecayWD`` in
:mod:`schedulers.cerebras.weight_decay_scheduler`; a composite composes it of its children's forms);
:func:`register_family` puts each family's classes in the registry (family ``"cerebras"``), the learning-rate
ones with their aliases.

>>> [row.stem for row in TABLE][:3]
['Constant', 'Polynomial', 'Linear']
>>> ROWS["Cyclic"].lr_names
{'base_val': 'base_lr', 'max_val': 'max_lr'}
"""

from __future__ import annotations

import attrs

from schedulers.core.names import get_scheduler, register_scheduler
from schedulers.families import cerebras as forms

__all__ = ["ROWS", "TABLE", "Row", "register_family"]


@attrs.frozen
class Row:
    """One schedule of the table.

    ``lr_class``/``lr_aliases``: the learning-rate class's name when it is not ``stem + "LR"``, and its
    registry aliases (Cerebras's and torch's other names for it).

    Args:
        form: The form (a value class) both classes of the schedule write; its name is the schedule's name without
            a family suffix (``"CosineDecay"``), the row's ``stem``.
        lr_class: The learning-rate class's name when it is not ``stem + "LR"``.
        lr_aliases: The learning-rate class's other registry names.

    Returns:
        The row, a frozen value.

    >>> next(row for row in TABLE if row.stem == "CosineAnnealingWarmRestarts").class_name(learning_rate=True)
    'CosineAnnealingWarmRestarts'
    """

    form: type[forms.Form]
    lr_class: str | None = None
    lr_aliases: tuple[str, ...] = ()

    @property
    def stem(self) -> str:
        """The schedule's name without a family suffix: its form's (``"CosineDecay"``)."""
        return self.form.__name__

    def class_name(self, learning_rate: bool) -> str:
        """The name of this row's class in the learning-rate (``...LR``) or weight-decay (``...WD``) family.

        Args:
            learning_rate: True for the learning-rate family, False for the weight-decay one.

        Returns:
            The class name (``"CosineDecayLR"``, ``"CosineDecayWD"``).
        """
        if learning_rate:
            return self.lr_class or self.stem + "LR"
        return self.stem + "WD"

    @property
    def lr_names(self) -> dict[str, str]:
        """The form's argument names the learning-rate class renames, to their names there (the class's
        ``LRScheduler._family_names`` of the form's fields)."""
        names = get_scheduler(self.class_name(learning_rate=True), family="cerebras")._family_names
        return {name: renamed for name, renamed in names.items() if name in attrs.fields_dict(self.form)}


TABLE: tuple[Row, ...] = (
    Row(forms.Constant),
    Row(forms.Polynomial),
    Row(forms.Linear),
    Row(forms.Exponential),
    Row(forms.InverseExponentialTimeDecay),
    Row(forms.InverseSquareRootDecay),
    Row(forms.CosineDecay),
    Row(forms.Sequential),
    Row(forms.PiecewiseConstant),
    Row(forms.MultiStep),
    Row(forms.Step),
    Row(forms.CosineAnnealing),
    Row(forms.Lambda),
    Row(
        forms.CosineAnnealingWarmRestarts,
        lr_class="CosineAnnealingWarmRestarts",
        lr_aliases=("CosineAnnealingWarmRestartsLR",),
    ),
    Row(forms.Multiplicative),
    Row(forms.Chained, lr_aliases=("ChainedScheduler",)),
    Row(forms.Cyclic),
    Row(forms.OneCycle),
    Row(forms.ScalePerParam),
)

ROWS: dict[str, Row] = {row.stem: row for row in TABLE}


def register_family(namespace: dict[str, object], *, learning_rate: bool) -> None:
    """Register the class of every row in ``namespace`` (a module's ``vars()``), in table order (family
    "cerebras"); each must write its row's schedule.

    Args:
        namespace: The module's names (``vars()`` of :mod:`schedulers.cerebras.lr_scheduler`).
        learning_rate: True for the learning-rate classes (``...LR``), False for the weight-decay ones (``...WD``).

    Raises:
        TypeError: A class that does not write its row's schedule.

    >>> from schedulers import get_scheduler
    >>> get_scheduler("CosineDecayWD", family="cerebras").__name__
    'CosineDecayWD'
    """
    for row in TABLE:
        cls = namespace[row.class_name(learning_rate)]
        if (cls.form or cls.composes) is not row.form:
            raise TypeError(f"{cls.__qualname__} must write {row.form.__qualname__}, its row's schedule")
        register_scheduler(cls, aliases=row.lr_aliases if learning_rate else (), family="cerebras")
