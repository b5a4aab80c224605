"""The board picture as SVG (`Game.to_svg()`), written from the scene of `board_scene.py`."""
from __future__ import annotations

from html import escape

from v1919_env.view.scene import Circle, Poly, Rect, Scene, Text, board_scene

FONT = "DejaVu Sans, Arial, Helvetica, sans-serif"


def _attrs(cls, data) -> str:
    out = f' class="{cls}"' if cls else ""
    return out + "".join(f' data-{k}="{escape(str(v))}"' for k, v in data)


def _stroke(stroke, width) -> str:
    return f' stroke="{stroke}" stroke-width="{width}"' if stroke else ""


def svg_element(item) -> str:
    """One primitive as one SVG element (the replay viewer stores these once and reuses them)."""
    if isinstance(item, Rect):
        head = (f'<rect x="{item.x}" y="{item.y}" width="{item.w}" height="{item.h}" fill="{item.fill}"'
                f'{_stroke(item.stroke, item.width)}{_attrs(item.cls, item.data)}')
        return f"{head}><title>{escape(item.title)}</title></rect>" if item.title else head + "/>"
    if isinstance(item, Circle):
        return (f'<circle cx="{item.cx}" cy="{item.cy}" r="{item.r}" fill="{item.fill}"'
                f'{_stroke(item.stroke, item.width)}{_attrs(item.cls, item.data)}/>')
    if isinstance(item, Text):
        weight = ' font-weight="bold"' if item.bold else ""
        return (f'<text x="{item.x}" y="{item.y}" font-size="{item.size}" fill="{item.fill}" '
                f'text-anchor="{item.anchor}"{weight}{_attrs(item.cls, item.data)}>'
                + (f"<title>{escape(item.title)}</title>" if item.title else "") + f"{escape(item.text)}</text>")
    if isinstance(item, Poly):
        pts = " ".join(f"{x},{y}" for x, y in item.points)
        return f'<polygon points="{pts}" fill="{item.fill}"{_stroke(item.stroke, 1)}{_attrs(item.cls, item.data)}/>'
    raise TypeError(f"not a drawing primitive: {item!r}")


def svg_open(width: int, height: int, background: str) -> str:
    """The SVG root element and background (everything before the primitives)."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="{FONT}">'
            f'<rect x="0" y="0" width="{width}" height="{height}" fill="{background}"/>')


def scene_parts(scene: Scene) -> list[str]:
    """The SVG of a scene as its pieces: the root and background, one element a primitive, the end
    (joined, scene_svg; a page that keeps them can be sent only the pieces that changed)."""
    return [svg_open(scene.width, scene.height, scene.background), *map(svg_element, scene.items), "</svg>"]


def scene_svg(scene: Scene) -> str:
    return "".join(scene_parts(scene))


def board_svg(game) -> str:
    """The whole table of `game` as a standalone SVG document (a string)."""
    return scene_svg(board_scene(game))
