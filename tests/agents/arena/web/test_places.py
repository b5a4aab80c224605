"""Legal actions chosen on the board: every place the web app marks is an element of the SVG."""
import re
from html import unescape

import numpy as np
import pytest

from agents.arena.web.places import action_place, drawn_places
from v1919_env.actions import decode
from v1919_env.game import Game
from v1919_env.view.scene import board_scene
from v1919_env.view.svg import scene_svg

ELEMENT = re.compile(r"<(?:rect|circle|text|polygon)\b([^>]*)>")
ATTR = re.compile(r'([\w-]+)="([^"]*)"')


def svg_elements(svg: str) -> list[dict]:
    """The attributes of every drawn element, as the browser's querySelector sees them."""
    return [{k: unescape(v) for k, v in ATTR.findall(attrs)} for attrs in ELEMENT.findall(svg)]


def selected(elements: list[dict], place: dict) -> list[dict]:
    """What the page's selector for `place` finds (page.py: `placeSelector`)."""
    return [e for e in elements
            if all(v in e.get("class", "").split() if k == "class" else e.get(f"data-{k}") == v
                   for k, v in place.items())]


@pytest.mark.parametrize("num_players", [1, 2, 3, 4])
def test_every_place_marked_is_an_element_of_the_board_and_the_rest_are_listed(num_players):
    kinds_on_board = set()
    for seed in range(2):
        g, rng = Game.new(num_players, seed=seed), np.random.default_rng(seed)
        for _ in range(250):
            if g.is_over:
                break
            acts = g.legal_actions()
            scene = board_scene(g)
            places = drawn_places(g, scene, acts)
            elements = svg_elements(scene_svg(scene))
            for a in acts:
                place = action_place(g, int(a))
                if int(a) in places:
                    assert selected(elements, places[int(a)]), (g.describe(int(a)), places[int(a)])
                    kinds_on_board.add(decode(int(a))[0])
                elif place is not None:          # a place that is not drawn (a discarded issue)
                    assert not selected(elements, place), g.describe(int(a))
            g.step(int(rng.choice(acts)))
    assert {"place", "settle", "deploy"} <= kinds_on_board


def test_the_places_of_the_main_action_kinds():
    g = Game.new(4, seed=3)
    for a in g.legal_actions():
        kind, p = decode(int(a))
        place = action_place(g, int(a))
        if kind == "place":
            assert place == {"class": "issue", "slot": str(p["slot"])}
    assert action_place(g, 0) is None           # end_turn: from the list only
