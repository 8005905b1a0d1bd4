"""What a matplotlib SVG shows, read back: its texts and, per axes, its view limits and named curves in data
coordinates, so two pictures compare by what a reader sees rather than by bytes.

Pixel coordinates are mapped back to data through each axis' labelled ticks (a linear fit of label value
against tick position), which makes the comparison independent of the layout (another matplotlib lays glyphs
out slightly differently) and of which ticks the autoscaler happened to pick. Curves are the ``<g
id="cadence-curve-N">`` groups that ``plot_schedules`` and the sweep picture name; two curves differ by their
Hausdorff distance (every vertex of one to the nearest segment of the other), measured in fractions of the
axes' spans, so a line simplified to other vertices, or a step drawn by other points, is the same line.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree

import numpy as np

_SVG = "{http://www.w3.org/2000/svg}"
_HREF = "{http://www.w3.org/1999/xlink}href"
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


class Axis:
    """One axis of an axes: its ticks as ``(pixel, label or None)`` and the linear map from pixels to data."""

    def __init__(self, ticks: list[tuple[float, str | None]]) -> None:
        self.ticks = ticks
        self.scale: tuple[float, float] | None = None  # value = offset + slope * pixel

    def fit(self, name: str) -> None:
        labelled = [(pixel, _tick_value(label, name)) for pixel, label in self.ticks if label is not None]
        if len(labelled) < 2:
            return
        pixels, values = np.array(labelled).T
        slope, offset = np.polyfit(pixels, values, 1)
        if np.abs(offset + slope * pixels - values).max() > 1e-6 * np.ptp(values):
            raise ValueError(f"{name}: the tick labels are not on a linear scale: {labelled}")
        self.scale = (offset, slope)

    def to_data(self, pixels: np.ndarray) -> np.ndarray:
        offset, slope = self.scale
        return offset + slope * pixels


class Axes:
    """One axes: its frame in pixels, its x and y axes, and its named curves as ``(N, 2)`` pixel vertices."""

    def __init__(self, name: str, frame: tuple[float, float, float, float], x: Axis, y: Axis, curves: dict) -> None:
        self.name, self.frame, self.x, self.y, self.curves = name, frame, x, y, curves

    def limits(self) -> np.ndarray:
        """``[x_low, x_high, y_low, y_high]`` in data coordinates: the frame's edges through the tick scales."""
        x0, x1, y0, y1 = self.frame
        return np.concatenate([self.x.to_data(np.array([x0, x1])), np.sort(self.y.to_data(np.array([y0, y1])))])

    def curve(self, gid: str, view: np.ndarray) -> np.ndarray:
        """The curve's vertices in data coordinates, as fractions of ``view`` (``[x_low, x_high, y_low, y_high]``:
        0 at a low limit, 1 at the high one)."""
        low_x, high_x, low_y, high_y = view
        pixels = self.curves[gid]
        x = (self.x.to_data(pixels[:, 0]) - low_x) / (high_x - low_x)
        y = (self.y.to_data(pixels[:, 1]) - low_y) / (high_y - low_y)
        return np.stack([x, y], axis=1)


class Picture:
    """An SVG as a reader sees it: ``texts`` (every text but tick labels) and ``axes`` (in drawing order)."""

    def __init__(self, svg: str) -> None:
        root = ElementTree.fromstring(svg)
        self.texts = sorted(_texts(root))
        self.axes = [_axes(group) for group in root.iter(f"{_SVG}g") if re.fullmatch(r"axes_\d+", group.get("id", ""))]
        _share_unlabelled_axes(self.axes)
        for axes in self.axes:
            for which, axis in (("x", axes.x), ("y", axes.y)):
                if axis.scale is None:
                    raise ValueError(f"{axes.name}: its {which} axis has fewer than two labelled ticks to read it by")


def differences(new: str, old: str, tolerance: float) -> list[str]:
    """What ``new`` shows that ``old`` does not (empty when they show the same), curves and limits within
    ``tolerance`` (a fraction of each axes' span)."""
    a, b = Picture(new), Picture(old)
    found = []
    if a.texts != b.texts:
        found.append(f"texts {sorted(set(a.texts) ^ set(b.texts))} differ")
    if len(a.axes) != len(b.axes):
        return [*found, f"{len(a.axes)} axes, not {len(b.axes)}"]
    for new_axes, old_axes in zip(a.axes, b.axes, strict=True):
        name = old_axes.name
        if sorted(new_axes.curves) != sorted(old_axes.curves):
            found.append(f"{name}: curves {sorted(new_axes.curves)}, not {sorted(old_axes.curves)}")
            continue
        view = old_axes.limits()
        spans = np.repeat(view[1::2] - view[::2], 2)
        if (np.abs(new_axes.limits() - view) / spans).max() > tolerance:
            found.append(f"{name}: view limits {new_axes.limits()}, not {view}")
        for gid in sorted(old_axes.curves):
            distance = hausdorff(new_axes.curve(gid, view), old_axes.curve(gid, view), cap=10 * tolerance)
            if distance > tolerance:
                away = f"{distance:.2g}" if np.isfinite(distance) else f"more than {10 * tolerance:g}"
                found.append(f"{name}: {gid} lies {away} of the view from where it was (tolerance {tolerance:g})")
    return found


def hausdorff(a: np.ndarray, b: np.ndarray, cap: float) -> float:
    """The symmetric Hausdorff distance between two polylines (``(N, 2)`` vertices, x never decreasing along
    either, as every curve drawn over a run is); any distance beyond ``cap`` is reported as infinite."""
    return max(_farthest_vertex(a, b, cap), _farthest_vertex(b, a, cap))


def _farthest_vertex(points: np.ndarray, line: np.ndarray, cap: float) -> float:
    """The largest distance from a vertex of ``points`` to the polyline ``line`` (inf beyond ``cap``).

    Only segments whose x range comes within ``cap`` of a vertex can be within ``cap`` of it: with x ordered
    along the line they are a run of consecutive segments, found by bisection.
    """
    for curve in (points, line):
        if (np.diff(curve[:, 0]) < 0).any():
            raise ValueError("a curve whose x goes back: the reader compares curves drawn left to right")
    if len(line) == 1:
        line = np.concatenate([line, line])
    start, step = line[:-1], line[1:] - line[:-1]
    low = np.searchsorted(line[1:, 0], points[:, 0] - cap, side="left")
    high = np.searchsorted(start[:, 0], points[:, 0] + cap, side="right")
    window = low[:, None] + np.arange(max(1, int((high - low).max())))
    near = window < high[:, None]
    window = np.minimum(window, len(start) - 1)
    offset, direction = points[:, None, :] - start[window], step[window]
    length = np.maximum((direction * direction).sum(axis=2), 1e-300)
    along = np.clip((offset * direction).sum(axis=2) / length, 0.0, 1.0)
    distance = np.linalg.norm(offset - along[:, :, None] * direction, axis=2)
    nearest = np.where(near, distance, np.inf).min(axis=1)
    return float(np.where(nearest > cap, np.inf, nearest).max())


def _tick_value(label: str, name: str) -> float:
    text = label.replace("\N{MINUS SIGN}", "-").strip()
    if not _NUMBER.fullmatch(text):
        raise ValueError(f"{name}: the tick label {label!r} is not a plain number")
    return float(text)


def _texts(root) -> list[str]:
    """Every text but tick labels (which follow from the data and are read as the axes' scales instead)."""
    ticks = {id(text) for group in root.iter(f"{_SVG}g") if _is_tick(group) for text in group.iter(f"{_SVG}text")}
    return [text.text or "" for text in root.iter(f"{_SVG}text") if id(text) not in ticks]


def _is_tick(group) -> bool:
    return re.fullmatch(r"[xy]tick_\d+", group.get("id", "")) is not None


def _axes(group) -> Axes:
    children = [child for child in group if child.tag == f"{_SVG}g"]
    frame = _path_vertices(next(child for child in children if child.get("id", "").startswith("patch_")))
    axes = [child for child in children if child.get("id", "").startswith("matplotlib.axis_")]
    x, y = (Axis(_ticks(axis, coordinate)) for axis, coordinate in zip(axes, ("x", "y"), strict=True))
    curves = {
        child.get("id"): _path_vertices(child)
        for child in children
        if re.fullmatch(r"cadence-curve-\d+", child.get("id", ""))
    }
    name = group.get("id")
    x.fit(f"{name} x"), y.fit(f"{name} y")
    extent = (frame[:, 0].min(), frame[:, 0].max(), frame[:, 1].min(), frame[:, 1].max())
    return Axes(name, extent, x, y, curves)


def _ticks(axis, coordinate: str) -> list[tuple[float, str | None]]:
    ticks = []
    for tick in (group for group in axis if _is_tick(group)):
        mark = next(tick.iter(f"{_SVG}use"))
        label = next(tick.iter(f"{_SVG}text"), None)
        ticks.append((float(mark.get(coordinate)), None if label is None else label.text))
    return ticks


def _path_vertices(group) -> np.ndarray:
    """The vertices of the first path in ``group`` (``M``/``L`` commands, as matplotlib writes lines and frames)."""
    path = next(element for element in group.iter(f"{_SVG}path") if element.get("d"))
    numbers = [float(n) for n in re.findall(_NUMBER.pattern, path.get("d"))]
    return np.array(numbers).reshape(-1, 2)


def _share_unlabelled_axes(axes_list: list[Axes]) -> None:
    """An axis drawn without labels (``sharex`` with ``labelbottom=False``) reads by the labelled axis whose
    tick marks stand at the same positions."""
    for axes in axes_list:
        for which in ("x", "y"):
            axis = getattr(axes, which)
            if axis.scale is not None:
                continue
            positions = [pixel for pixel, _ in axis.ticks]
            for other in axes_list:
                twin = getattr(other, which)
                marks = [pixel for pixel, _ in twin.ticks]
                same_marks = len(marks) == len(positions) and np.allclose(marks, positions, rtol=0, atol=1e-3)
                if twin.scale is not None and same_marks:
                    axis.scale = twin.scale
                    break
