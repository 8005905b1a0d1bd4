"""The Python objects a config names, read and checked but not called: ``module:function`` references and
``{factory, kwargs}`` mappings (the model, the loaders, the loss, the counters), Cadence's callbacks and
loggers by name, and the optimizer (``{Name: {arguments}}``, Cerebras 1.x, or a factory of the model)."""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable
from typing import Any

import attrs
import torch

from schedulers.core.names import did_you_mean
from trainer.config_reading._reading import Context, Key, Section, check_output, join, mapping, read_section, show

# {factory: "module:function", kwargs: {...}} wherever a Python object is named (placed with Section.at)


def _factory_name(value: Any, path: str, ctx: Context) -> str:
    if not isinstance(value, str):
        raise ctx.error(path, f"must be 'module:function', got {show(value)}")
    return value


FACTORY = Section("", (Key("factory", _factory_name), Key("kwargs", mapping, {})))


@attrs.define
class Ref:
    """A resolved ``module:function`` (or factory) reference: ``target`` is used as is unless ``call``.

    Args:
        path: The reference's key path.
        text: The reference as written (``"torch.nn:Linear"``), for messages.
        target: The imported object.
        kwargs: The arguments a call passes (the ``kwargs`` of a factory mapping).
        call: Whether :meth:`build` calls ``target`` (a factory) or gives it as is (a function, a module).

    Returns:
        The checked reference; nothing is called until :meth:`build`.

    Example:
        >>> ref = Ref("trainer.init.model", "torch.nn:Linear", torch.nn.Linear, {"in_features": 2, "out_features": 1})
        >>> ref.build().out_features
        1
    """

    path: str
    text: str
    target: Any
    kwargs: dict = attrs.Factory(dict)
    call: bool = True

    def build(self) -> Any:
        """The object the reference stands for, made now.

        Returns:
            ``target(**kwargs)`` (on a deep copy of the kwargs, so that each build is fresh) when ``call``, else
            ``target`` itself.
        """
        return self.target(**copy.deepcopy(self.kwargs)) if self.call else self.target


def reference(value: Any, path: str, ctx: Context, *, what: str, string_calls: bool) -> Ref:
    """``"module:function"`` or ``{factory: "module:function", kwargs: {...}}``.

    A string names a factory called without arguments when ``string_calls`` (model, loaders), else the
    object itself (a function; a class is instantiated). The dict form always calls the factory.

    Args:
        value: The value given.
        path: Its key path.
        ctx: The reading's context (it imports).
        what: What the value is, in messages (``"model"``).
        string_calls: Whether a bare string names a factory to call (else the object is used as is).

    Returns:
        The reference, imported and its call checked against the target's signature, not called yet.

    Raises:
        ConfigError: a value of neither form, a mapping without ``factory``, or a target that is not callable.

    >>> reference("torch.nn:Identity", "trainer.init.model", Context(None, {}), what="model", string_calls=True).call
    True
    """
    if isinstance(value, str):
        target = ctx.import_object(value, path)
        if string_calls and (
            isinstance(target, (torch.nn.Module, torch.utils.data.DataLoader)) or not callable(target)
        ):
            return Ref(path, value, target, call=False)
        if string_calls or inspect.isclass(target):
            ctx.check_call(target, {}, value, path, arguments_path=path)
            return Ref(path, value, target)
        if not callable(target):
            raise ctx.error(path, f"{value!r} is {type(target).__name__}, not a function")
        return Ref(path, value, target, call=False)
    if isinstance(value, dict):
        if "factory" not in value:
            read_section(FACTORY.at(path), value, ctx)  # an unknown key first
            raise ctx.error(path, f"{what} as a mapping needs 'factory: module:function' (and optional 'kwargs')")
        given = read_section(FACTORY.at(path), value, ctx)
        target = ctx.import_object(given["factory"], join(path, "factory"))
        if not callable(target):
            raise ctx.error(join(path, "factory"), f"{given['factory']!r} is {type(target).__name__}, not callable")
        ctx.check_call(target, given["kwargs"], given["factory"], path, arguments_path=join(path, "kwargs"))
        return Ref(path, given["factory"], target, dict(given["kwargs"]))
    raise ctx.error(
        path, f"{what} must be 'module:function' or {{factory: 'module:function', kwargs: {{...}}}}, got {show(value)}"
    )


def built_by_factory(what: str) -> Callable[[Any, str, Context], Ref]:
    """The reader of ``model`` and the loaders: ``module:function`` called without arguments, or a factory; a
    mapping of Cerebras Model Zoo settings is an error saying Cadence does not build from them.

    Args:
        what: What the key names, in messages (``"model"``, ``"train_dataloader"``).

    Returns:
        A reader giving a :class:`Ref` to call (:func:`reference` with ``string_calls``); it raises a ConfigError
        for a string without ``:`` or a mapping without ``factory``.

    >>> read = built_by_factory("model")
    >>> read({"factory": "torch.nn:Linear", "kwargs": {"in_features": 2, "out_features": 1}},
    ...      "trainer.init.model", Context(None, {})).build()
    Linear(in_features=2, out_features=1, bias=True)
    """

    def read(value: Any, path: str, ctx: Context) -> Ref:
        if isinstance(value, str) and ":" not in value:
            raise ctx.error(path, f"{what} must be 'module:function' (e.g. 'mymodels:make_model'), got {show(value)}")
        if isinstance(value, dict) and "factory" not in value:
            keys = ", ".join(map(str, value)) or "no keys"
            raise ctx.error(
                path,
                f"{what} must be 'module:function' or {{factory: 'module:function', kwargs: {{...}}}}; Cadence does "
                f"not build Cerebras Model Zoo {what}s from their settings (got {keys})",
            )
        return reference(value, path, ctx, what=what, string_calls=True)

    return read


def function(what: str) -> Callable[[Any, str, Context], Ref]:
    """The reader of ``get_num_tokens`` and ``get_num_samples``: the function itself, or a factory of it.

    Args:
        what: What the key names, in messages.

    Returns:
        A reader giving a :class:`Ref` whose :meth:`Ref.build` is the function (a string is not called).

    >>> read = function("get_num_tokens")
    >>> read("builtins:len", "trainer.init.get_num_tokens", Context(None, {})).build()([1, 2, 3])
    3
    """

    def read(value: Any, path: str, ctx: Context) -> Ref:
        return reference(value, path, ctx, what=what, string_calls=False)

    return read


def loss(value: Any, path: str, ctx: Context) -> Ref:
    """``loss_fn``: a ``torch.nn.functional`` name, ``module:function``, or a factory (``null``: the model
    returns the loss, read as absent).

    Args:
        value: The value given.
        path: Its key path.
        ctx: The reading's context.

    Returns:
        A :class:`Ref` whose :meth:`Ref.build` is the loss function.

    Raises:
        ConfigError: a name that is no ``torch.nn.functional`` function (with the closest loss), or what
            :func:`reference` raises.

    >>> loss("mse_loss", "trainer.init.loss_fn", Context(None, {})).build() is torch.nn.functional.mse_loss
    True
    """
    if isinstance(value, str) and ":" not in value:
        found = getattr(torch.nn.functional, value.strip(), None)
        if found is None or not callable(found) or value.startswith("_"):
            names = [n for n in dir(torch.nn.functional) if n.endswith("loss") or n in ("cross_entropy", "nll_loss")]
            hint = did_you_mean(value, names, cutoff=0.5)
            raise ctx.error(
                path,
                f"{value!r} is not a torch.nn.functional loss{hint}; give a name such as cross_entropy, "
                "'module:function', {factory: ..., kwargs: ...}, or null when the model returns the loss",
            )
        return Ref(path, value, found, call=False)
    return reference(value, path, ctx, what="loss_fn", string_calls=False)


# -- callbacks and loggers -------------------------------------------------------------------------------


@attrs.frozen
class _Kind:
    """What a list of named items holds: Cadence's names, their arguments that are paths Cadence writes
    (``True``: a folder, ``False``: a file), and the forms an item takes (for the error)."""

    what: str
    known: tuple[str, ...]  # "module:Class" names
    outputs: dict[str, dict[str, bool]]
    forms: str
    bare_names: bool  # whether an item may be just a name


_CALLBACKS = _Kind(
    "callback",
    ("trainer.callbacks:LRMonitor", "trainer.callbacks:ProgressBar", "trainer.early_stopping:EarlyStopping"),
    {"LRMonitor": {"csv_path": False}},
    "{Name: {arguments}}, 'module:Class' or {factory: ..., kwargs: ...}",
    True,
)
_LOGGERS = _Kind(
    "logger",
    ("trainer.loggers:CSVLogger", "trainer.loggers:TensorBoardLogger"),
    {"CSVLogger": {"path": False, "hparams_path": False}, "TensorBoardLogger": {"log_dir": True}},
    "{Name: {arguments}} or {factory: ..., kwargs: ...}",
    False,
)


def callbacks(value: Any, path: str, ctx: Context) -> list[Ref]:
    """``[LRMonitor: {csv_path: lr.csv}, ProgressBar, "module:Class", {factory, kwargs}, ...]``.

    Cadence's callbacks go by name (any case); their arguments are checked against the class, and a file
    they write must be writable.

    Args:
        value: The list given (one item alone is a list of one).
        path: Its key path.
        ctx: The reading's context.

    Returns:
        One :class:`Ref` per item, in order, to build the callbacks from.

    Raises:
        ConfigError: an item of no accepted form, an unknown name (with the closest), bad arguments, or an
            output that cannot be written.

    >>> [ref.build() for ref in callbacks(["ProgressBar"], "trainer.init.callbacks", Context(None, {}))]
    [<trainer.callbacks.ProgressBar object at ...>]
    """
    return _items(value, path, ctx, _CALLBACKS)


def loggers(value: Any, path: str, ctx: Context) -> list[Ref]:
    """``[{CSVLogger: {path: metrics.csv}}, {TensorBoardLogger: {log_dir: tb}}, {"module:Class": {...}}, ...]``.

    Args:
        value: The list given (one item alone is a list of one).
        path: Its key path.
        ctx: The reading's context.

    Returns:
        One :class:`Ref` per logger, in order, its arguments checked and its output place writable.

    Raises:
        ConfigError: an item of no accepted form, an unknown logger (with the closest name), bad arguments, or
            an output that cannot be written.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     refs = loggers([{"CSVLogger": {"path": f"{folder}/m.csv"}}], "trainer.init.loggers", Context(None, {}))
    >>> refs[0].target.__name__, refs[0].path
    ('CSVLogger', 'trainer.init.loggers[0].CSVLogger')
    """
    return _items(value, path, ctx, _LOGGERS)


def _items(value: Any, path: str, ctx: Context, kind: _Kind) -> list[Ref]:
    found = []
    for index, item in enumerate(value if isinstance(value, list) else [value]):
        item_path = f"{path}[{index}]"
        if isinstance(item, dict) and "factory" in item:
            found.append(reference(item, item_path, ctx, what=f"a {kind.what}", string_calls=True))
        elif isinstance(item, str) and kind.bare_names:
            found.append(_named(item, {}, item_path, ctx, kind))
        elif isinstance(item, dict) and len(item) == 1:
            ((name, arguments),) = item.items()
            found.append(_named(name, mapping(arguments, f"{item_path}.{name}", ctx), item_path, ctx, kind))
        else:
            raise ctx.error(item_path, f"a {kind.what} is {kind.forms}, got {show(item)}")
    return found


def _named(name: Any, arguments: dict, item_path: str, ctx: Context, kind: _Kind) -> Ref:
    named = f"{item_path}.{name}"
    if ":" in str(name):
        target = ctx.import_object(str(name), named)
    else:
        target = _known(str(name), named, ctx, kind)
    if not callable(target):
        raise ctx.error(named, f"{name} is not a class or a function")
    ctx.check_call(target, arguments, str(name), named, arguments_path=named)
    for argument, folder in kind.outputs.get(getattr(target, "__name__", ""), {}).items():
        if arguments.get(argument) is not None:
            check_output(arguments[argument], f"{named}.{argument}", ctx, folder=folder)
    return Ref(named, str(name), target, dict(arguments))


def _known(name: str, path: str, ctx: Context, kind: _Kind) -> Any:
    names = {reference.split(":")[1]: reference for reference in kind.known}
    for short, reference in names.items():
        if short.lower() == name.lower():
            return ctx.import_object(reference, path)
    raise ctx.error(
        path,
        f"unknown {kind.what} {name!r}{did_you_mean(name, names)}; Cadence's {kind.what}s are "
        f"{' and '.join(names)}, or give 'module:Class'",
    )


# -- the optimizer ---------------------------------------------------------------------------------------


@attrs.define
class Optimizer:
    """``trainer.init.optimizer`` read: ``build(model, clip_value)`` makes it once the model is on its device.

    ``lr_schedule`` is a Cerebras 1.x ``learning_rate`` schedule given inside the optimizer (with its key path),
    for :func:`schedulers.cerebras.configure_lr_scheduler`.

    Args:
        path: The key path of the optimizer's arguments.
        cls: A torch optimizer class (``{Name: {arguments}}``); None with a ``factory``.
        arguments: Its arguments without ``params`` (or None).
        groups: Cerebras-style param groups chosen by name pattern (None: every parameter in one group).
        factory: A factory called as ``factory(model, **kwargs)`` (instead of ``cls``).
        lr_schedule: ``(Cerebras 1.x learning_rate schedule, its key path)``, or None.

    Returns:
        The read optimizer, checked; :meth:`build` makes the torch optimizer once there is a model.

    Example:
        >>> spec = optimizer({"SGD": {"lr": 0.1}}, "trainer.init.optimizer", Context(None, {}))
        >>> spec.build(torch.nn.Linear(2, 1), None, Context(None, {})).defaults["lr"]
        0.1
    """

    path: str
    cls: type | None = None  # a torch optimizer class ({Name: {arguments}}), else a factory of the model
    arguments: dict = attrs.Factory(dict)  # for configure_optimizer (without params), or the factory's
    groups: list | None = None  # Cerebras-style param groups by name pattern
    factory: Ref | None = None
    lr_schedule: tuple[Any, str] | None = None

    def build(self, model: torch.nn.Module, clip_value: float | None, ctx: Context) -> torch.optim.Optimizer:
        """The torch optimizer of ``model``'s parameters (by param group when ``groups``).

        Args:
            model: The model, on its device.
            clip_value: Clip each gradient to ``[-clip_value, clip_value]`` before each step (None: no clipping).
            ctx: The reading's context, for errors.

        Returns:
            The optimizer built by ``cls`` or ``factory``, with a step pre-hook clipping gradients when
            ``clip_value`` is given.

        Raises:
            ConfigError: a factory that returns no torch optimizer, param group patterns that match wrongly, or
                arguments the optimizer refuses.
        """
        if self.factory is not None:
            made = self.factory.target(model, **self.factory.kwargs)
            if not isinstance(made, torch.optim.Optimizer):
                raise ctx.error(self.path, f"{self.factory.text} returned {type(made).__name__}, not a torch optimizer")
            return _with_clipping(made, clip_value)
        return _with_clipping(_configure(self, _parameters(self, model, ctx), ctx), clip_value)


def optimizer(value: Any, path: str, ctx: Context) -> Optimizer:
    """``Name``, ``{Name: {arguments}}``, Cerebras 1.x ``{optimizer_type: Name, learning_rate: ..., ...}``, or
    ``{factory: "module:function", kwargs: {...}}`` (called as ``factory(model, **kwargs)``).

    The arguments and their values are checked now, on a stand-in parameter, before any model is built.
    ``params`` (Cerebras style) is a list of param groups chosen by name patterns
    (:func:`trainer.param_groups.tagged_groups`): ``[{params: "*.bias", tag: no_decay, weight_decay: 0.0}]``.

    Args:
        value: The value given.
        path: Its key path (``trainer.init.optimizer``).
        ctx: The reading's context.

    Returns:
        The :class:`Optimizer` to build once the model exists, its arguments already checked.

    Raises:
        ConfigError: a factory that is not callable or bad arguments for it, an unknown optimizer (with the
            closest name), an argument it refuses, or malformed param groups.

    >>> optimizer({"AdamW": {"lr": -1}}, "trainer.init.optimizer", Context(None, {}))
    Traceback (most recent call last):
    trainer.config_reading._reading.ConfigError: trainer.init.optimizer.AdamW: Invalid learning rate: -1
    """
    if isinstance(value, dict) and "factory" in value:
        given = read_section(FACTORY.at(path), value, ctx)
        target = ctx.import_object(given["factory"], join(path, "factory"))
        if not callable(target):
            raise ctx.error(join(path, "factory"), f"{given['factory']!r} is not callable")
        ctx.check_call(target, given["kwargs"], given["factory"], path, arguments_path=join(path, "kwargs"), leading=1)
        return Optimizer(path, factory=Ref(path, given["factory"], target, dict(given["kwargs"])))
    spec = _named_optimizer(value, path, ctx)
    stand_in = [torch.zeros(1, requires_grad=True)]
    if spec.groups is None:
        _configure(spec, stand_in, ctx)  # arguments and values, checked before any model is built
    else:
        options = [{k: v for k, v in g.items() if k not in ("params", "tag")} for g in spec.groups]
        groups = [{"params": [torch.zeros(1, requires_grad=True)], **o} for o in options]
        _configure(spec, [*groups, {"params": stand_in}], ctx)
    return spec


def _named_optimizer(value: Any, path: str, ctx: Context) -> Optimizer:
    from schedulers.optim import optimizer_class

    lr_schedule = None
    if isinstance(value, str):
        name, arguments, name_path, arguments_path = value, {}, path, path
    elif isinstance(value, dict) and "optimizer_type" in value:
        arguments = dict(value)
        name, name_path, arguments_path = arguments.pop("optimizer_type"), f"{path}.optimizer_type", path
        if not isinstance(name, str):
            raise ctx.error(name_path, f"must be an optimizer name such as SGD or AdamW, got {show(name)}")
        if isinstance(arguments.get("learning_rate"), (dict, list)):
            lr_schedule = (arguments.pop("learning_rate"), f"{path}.learning_rate")
            arguments.setdefault("lr", 1.0)  # the Cerebras schedule writes absolute learning rates
    elif isinstance(value, dict) and len(value) == 1:
        ((name, arguments),) = value.items()
        name_path = arguments_path = f"{path}.{name}"
        arguments = dict(mapping(arguments, name_path, ctx))
    else:
        raise ctx.error(path, f"must name one optimizer, e.g. {{SGD: {{lr: 0.01}}}}, got {show(value)}")
    try:
        cls = optimizer_class(str(name))
    except ValueError as error:
        raise ctx.error(name_path, str(error)) from None
    if not all(isinstance(key, str) for key in arguments):
        raise ctx.error(arguments_path, f"argument names must be strings, got {list(arguments)!r}")
    groups = _groups(arguments.pop("params", None), f"{arguments_path}.params", ctx)
    return Optimizer(arguments_path, cls, arguments, groups, lr_schedule=lr_schedule)


def _groups(groups: Any, path: str, ctx: Context) -> list | None:
    if groups is None:
        return None
    groups = [groups] if isinstance(groups, dict) else groups
    if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
        raise ctx.error(path, f"must be a list of {{params: PATTERN, tag: TAG, ...options}}, got {show(groups)}")
    for index, group in enumerate(groups):
        if "params" not in group:
            raise ctx.error(f"{path}[{index}]", "needs params: a name pattern (or a list of them)")
    return groups


def _configure(spec: Optimizer, parameters: Any, ctx: Context) -> torch.optim.Optimizer:
    from schedulers.optim import OptimizerArgumentError, configure_optimizer

    try:
        return configure_optimizer(spec.cls, parameters, **spec.arguments)
    except OptimizerArgumentError as error:
        raise ctx.error(f"{spec.path}.{error.argument}", error.text) from None
    except (TypeError, ValueError) as error:
        raise ctx.error(spec.path, str(error)) from None


def _parameters(spec: Optimizer, model: torch.nn.Module, ctx: Context) -> Any:
    from trainer.param_groups import tagged_groups

    if spec.groups is None:
        return model.parameters()
    try:
        return tagged_groups(model, spec.groups)
    except (TypeError, ValueError) as error:
        raise ctx.error(f"{spec.path}.params", str(error)) from None


def _with_clipping(optimizer: torch.optim.Optimizer, clip_value: float | None) -> torch.optim.Optimizer:
    """Clip each gradient to ``[-clip_value, clip_value]`` in an optimizer step pre-hook (the trainer calls
    ``optimizer.step()`` itself; with fp16 the scaler has unscaled the gradients by then). The trainer clips
    the norm itself (``max_grad_norm``)."""
    if clip_value is None:
        return optimizer
    parameters = [p for group in optimizer.param_groups for p in group["params"]]

    def clip(_optimizer: Any, _args: Any, _kwargs: Any) -> None:
        torch.nn.utils.clip_grad_value_(parameters, clip_value)

    optimizer.register_step_pre_hook(clip)
    return optimizer
