"""The board picture as an `H x W x 3` uint8 array (render_mode="rgb_array"), painted with Pillow
from the same scene as the SVG (`board_scene.py`). Pillow is in the `render` extra."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from v1919_env.view.scene import Circle, Poly, Rect, Scene, Text, board_scene

INSTALL_HINT = "pip install 'v1919-env[render]'"
_ANCHOR = {"start": "ls", "middle": "ms", "end": "rs"}


def _pil():
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as e:
        raise ImportError(f"render_mode='rgb_array' needs Pillow, from the render extra: {INSTALL_HINT}") from e
    return Image, ImageDraw, ImageFont


@lru_cache(maxsize=None)
def _font(size: int):
    _, _, ImageFont = _pil()
    try:
        return ImageFont.load_default(size)      # Pillow's built-in scalable font (FreeType)
    except TypeError as e:   # pragma: no cover - Pillow < 10.1
        raise ImportError(f"rgb_array rendering needs Pillow >= 10.1: {INSTALL_HINT}") from e


@lru_cache(maxsize=8192)
def _text_mask(text: str, size: int, anchor: str):
    """(left, top, mask) of a text drawn at the origin; cached, as a game's frames repeat their labels
    (Pillow's glyph rendering is most of the cost of a frame)."""
    Image, ImageDraw, _ = _pil()
    font = _font(size)
    left, top, right, bottom = font.getbbox(text, anchor=anchor)
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, 255, font, anchor)
    return left, top, mask


@lru_cache(maxsize=None)
def _rgb(color: str) -> tuple:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def scene_rgb(scene: Scene) -> np.ndarray:
    """Paint a scene: (height, width, 3) uint8."""
    Image, ImageDraw, _ = _pil()
    img = Image.new("RGB", (scene.width, scene.height), _rgb(scene.background))
    dr = ImageDraw.Draw(img)
    for it in scene.items:
        if isinstance(it, Rect):
            # SVG's rect covers [x, x+w); Pillow's box is inclusive of both corners
            dr.rectangle((it.x, it.y, it.x + it.w - 1, it.y + it.h - 1), _rgb(it.fill),
                         _rgb(it.stroke) if it.stroke else None, it.width if it.stroke else 0)
        elif isinstance(it, Circle):
            dr.ellipse((it.cx - it.r, it.cy - it.r, it.cx + it.r, it.cy + it.r), _rgb(it.fill),
                       _rgb(it.stroke) if it.stroke else None, it.width if it.stroke else 0)
        elif isinstance(it, Text):
            left, top, mask = _text_mask(it.text, it.size, _ANCHOR[it.anchor])
            img.paste(_rgb(it.fill), (it.x + left, it.y + top), mask)
        elif isinstance(it, Poly):
            dr.polygon(it.points, _rgb(it.fill), _rgb(it.stroke) if it.stroke else None)
        else:
            raise TypeError(f"not a drawing primitive: {it!r}")
    return np.array(img, dtype=np.uint8)          # a writable copy: callers may draw on their frames


def board_rgb(game) -> np.ndarray:
    """The whole table of `game` as an (800, 1280, 3) uint8 array (same drawing as `Game.to_svg()`)."""
    return scene_rgb(board_scene(game))
