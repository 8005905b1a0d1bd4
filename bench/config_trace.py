"""How far a config value travels: the Python calls from ``cadence fit`` reading ``t_warmup: 0.3dur`` to the
first learning rate written into a param group.

Run: ``python bench/config_trace.py [--root PATH] [--show]``. ``--root`` runs another checkout's code (e.g. an
exported ``main``) with this script; ``--show`` prints the file of every call.

The run is ``cadence fit`` on a copy of ``examples/classifier.yaml`` whose schedule is
``CosineAnnealingWithWarmupScheduler: {t_warmup: 0.3dur, alpha_f: 0.1}``, traced with ``sys.setprofile``:

* the trace starts at the first call of a function of the project (``trainer/``, ``schedulers/``,
  ``timeunits/``) handed the value ``"0.3dur"`` or a mapping holding it as a value (the schedule's arguments),
  after the YAML file is loaded: where the config reader starts reading the schedule;
* it stops at the first ``group["lr"] = ...`` of a param group (the optimizer's groups are watched by a dict
  subclass whose ``__setitem__`` ends the trace);
* it counts Python calls (not C calls), the distinct files they run in, the changes of the running file (a call
  into another file, or a return to the caller's file), and the returns to a file already left before, over
  every file and over the project's files alone (Python 3.11 counts a comprehension as a call).

A second window, "reading the config", runs from the call of ``load_config`` to the call of ``Trainer.__init__``
(the YAML read, checked and built into the trainer's arguments; its every-file count holds the imports the
config's factories trigger, so read its project line). The first line printed is ``trainer/config``'s modules,
lines and import floors (the modules on its longest chain of imports between its own modules).

This is a measurement, not a gate: fewer calls, files and changes mean a value is read in fewer places.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

HERE = Path(__file__).resolve().parent
VALUE = "0.3dur"
SCHEDULE = "      - CosineAnnealingWithWarmupScheduler: {t_warmup: 0.3dur, alpha_f: 0.1}\n"


def _config(folder: Path, examples: Path) -> Path:
    """examples/classifier.yaml with its schedulers replaced by one warmup schedule, 20 steps, no evaluation."""
    lines = (examples / "classifier.yaml").read_text().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.strip() == "schedulers:")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].strip() == "loop:")
    text = "".join([*lines[: start + 1], SCHEDULE, *lines[end:]])
    text = text.replace("max_steps: 300", "max_steps: 20").replace("eval_frequency: 100", "eval_frequency: 20")
    path = folder / "trace.yaml"
    path.write_text(text)
    shutil.copy(examples / "classifier.py", folder / "classifier.py")
    return path


def _holds_value(value: object) -> bool:
    if isinstance(value, str):
        return value == VALUE
    return isinstance(value, Mapping) and any(isinstance(v, str) and v == VALUE for v in value.values())


class Moves:
    """The changes of the running file: how many, and how many go back to a file already left."""

    def __init__(self) -> None:
        self.current: str | None = None
        self.left: set[str] = set()
        self.changes = 0
        self.returns_to_left = 0

    def enter(self, filename: str) -> None:
        if filename == self.current:
            return
        if self.current is not None:
            self.left.add(self.current)
            self.changes += 1
        if filename in self.left:
            self.returns_to_left += 1
        self.current = filename


class Window:
    """The calls and file changes of one stretch of the run."""

    def __init__(self, project: tuple[str, ...]) -> None:
        self.project = project
        self.active = False
        self.done = False
        self.calls: list[str] = []
        self.every_file = Moves()
        self.project_files = Moves()  # the same, counting only the project's files

    def record(self, frame, event: str) -> None:  # noqa: ANN001
        if not self.active or self.done:
            return
        if event == "call":
            filename = frame.f_code.co_filename
            self.calls.append(filename)
        elif event == "return" and frame.f_back is not None:
            filename = frame.f_back.f_code.co_filename
        else:
            return
        self.every_file.enter(filename)
        if filename.startswith(self.project):
            self.project_files.enter(filename)

    def lines(self) -> list[str]:
        project = [f for f in self.calls if f.startswith(self.project)]
        return [
            f"  {label}: {len(calls)} calls across {len(set(calls))} files; the running file changed "
            f"{moves.changes} times, {moves.returns_to_left} of them back to a file already left"
            for label, calls, moves in (
                ("every file", self.calls, self.every_file),
                ("trainer/, schedulers/, timeunits/", project, self.project_files),
            )
        ]


class Trace:
    """The profile function. ``value``: from the first project function handed ``0.3dur`` to the first lr
    write; ``reading``: from the call of ``load_config`` to the call of ``Trainer.__init__`` (the config read,
    checked and built into the trainer's arguments)."""

    def __init__(self, root: Path) -> None:
        self.project = tuple(str(root / package) + os.sep for package in ("trainer", "schedulers", "timeunits"))
        self.trainer_module = str(root / "trainer" / "trainer.py")
        self.loaded = False  # the YAML file has been read
        self.value = Window(self.project)
        self.reading = Window(self.project)
        self.started_in = ""

    def __call__(self, frame, event, arg):  # noqa: ANN001 (sys.setprofile's signature)
        code = frame.f_code
        if event == "call" and code.co_name == "load_config" and not self.reading.done:
            self.reading.active = True
        if event == "call" and code.co_name == "__init__" and code.co_filename == self.trainer_module:
            self.reading.done = True
        if event == "return" and code.co_name == "load_config":
            self.loaded = True
        if not self.value.active and self._takes_the_value(frame, event):
            self.value.active = True
            self.started_in = f"{Path(code.co_filename).name}:{code.co_name}"
        self.value.record(frame, event)
        self.reading.record(frame, event)

    def _takes_the_value(self, frame, event: str) -> bool:  # noqa: ANN001
        code = frame.f_code
        if event != "call" or not self.loaded or not code.co_filename.startswith(self.project):
            return False
        arguments = [frame.f_locals.get(name) for name in code.co_varnames[: code.co_argcount]]
        return any(_holds_value(value) for value in arguments)

    @property
    def done(self) -> bool:
        return self.value.done

    def stop(self) -> None:
        if self.value.active and not self.value.done:
            self.value.done = True
            sys.setprofile(None)


class _WatchedGroup(dict):
    trace: Trace | None = None

    def __setitem__(self, key, value):  # noqa: ANN001
        if key == "lr" and self.trace is not None:
            self.trace.stop()
        super().__setitem__(key, value)


def _watch_param_groups(trace: Trace) -> None:
    import torch

    original = torch.optim.Optimizer.add_param_group
    _WatchedGroup.trace = trace

    def add_param_group(self, param_group):  # noqa: ANN001
        original(self, param_group)
        self.param_groups[-1] = _WatchedGroup(self.param_groups[-1])

    torch.optim.Optimizer.add_param_group = add_param_group


def _floors(root: Path) -> str:
    """The modules and lines of trainer/config, and its import floors: the modules on the longest chain of
    imports between its own modules (every import statement counts, also inside functions)."""
    import ast
    from functools import cache

    folder = root / "trainer" / "config_reading"  # the public face trainer/config.py reads through it
    paths = {f"trainer.config_reading.{p.stem}": p for p in folder.glob("*.py") if p.stem != "__init__"}
    paths["trainer.config"] = root / "trainer" / "config.py"
    imports: dict[str, set[str]] = {}
    for name, path in paths.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                found |= {f"{node.module}.{a.name}" for a in node.names} | {node.module}
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
        imports[name] = (found & set(paths)) - {name}

    @cache
    def chain(name: str) -> tuple[str, ...]:
        below = max((chain(other) for other in imports[name]), key=len, default=())
        return (name, *below)

    lines = sum(len(p.read_text().splitlines()) for p in paths.values())
    longest = max((chain(name) for name in paths), key=len)
    return f"trainer/config: {len(paths)} modules, {lines} lines; {len(longest)} import floors: " + " -> ".join(
        n.removeprefix("trainer.config_reading.") for n in longest
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=HERE.parent, help="the checkout whose code runs")
    parser.add_argument("--show", action="store_true", help="print the calls per file")
    args = parser.parse_args()
    root = args.root.resolve()
    print(_floors(root))
    sys.path.insert(0, str(root))
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from trainer.cli import main as cadence

    trace = Trace(root)
    _watch_param_groups(trace)
    with tempfile.TemporaryDirectory() as folder:
        config = _config(Path(folder), root / "examples")
        sys.setprofile(trace)
        try:
            status = cadence(["fit", str(config)])
        finally:
            sys.setprofile(None)
    if status != 0 or not trace.done:
        raise SystemExit(f"the run failed (status {status}) or wrote no lr after reading {VALUE}")
    print(f"code: {root}")
    print("reading the config: from load_config to Trainer.__init__")
    print("\n".join(trace.reading.lines()))
    print(f"from {VALUE} read (in {trace.started_in}) to the first lr write:")
    print("\n".join(trace.value.lines()))
    if args.show:
        for filename, count in Counter(trace.value.calls).most_common():
            shown = os.path.relpath(filename, root) if filename.startswith(str(root)) else filename
            print(f"  {count:5d}  {shown}")


if __name__ == "__main__":
    main()
