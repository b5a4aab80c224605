"""The cards' texts on the board (v1919_env/view/card_text.py, issue 42): every issue, event and
strategy card of the shipped set has one, read from the card data; a value the rules texts did not
give is starred, and the text then says what the star means; the board's SVG carries them as titles."""
from __future__ import annotations

import re

from v1919_env.game import Game
from v1919_env.view.card_text import ESTIMATED, event_text, issue_text, strategy_text

CARDS = Game.new(4, seed=0).cards.raw


def _estimated(prov) -> bool:
    return "estimated" in repr(prov)


def test_every_card_has_a_text_from_its_data():
    for make, cards in ((issue_text, CARDS["issues"]), (event_text, CARDS["events"]),
                        (strategy_text, CARDS["strategies"])):
        for card in cards:
            text = make(card)
            assert card["name"] in text and not re.search(r"None|\{|\}|_", text.split("\n* ")[0]), text
            assert ("*" in text) == (ESTIMATED in text)


def test_issue_texts_name_each_option_with_its_effects_and_star_the_estimates():
    for card in CARDS["issues"]:
        text = issue_text(card)
        assert f"{card['stars']}" in text and all(f"- {o['name']}: " in text for o in card["options"])
        options_estimated = any(_estimated(o.get("provenance")) for o in card["options"])
        shown = ("number", "stars") + (("region",) if card["region"] != "none" else ()) + (
            ("no_military",) if card["no_military"] else ())
        assert ("*" in text) == (options_estimated or _estimated({k: v for k, v in card["provenance"].items()
                                                                 if k in shown}))


def test_event_texts_quote_the_card():
    for card in CARDS["events"]:
        text = event_text(card)
        assert card["conference"]["text"] in text and card["crisis"]["text"] in text


def test_the_board_shows_them_on_hover():
    g = Game.new(4, seed=5)
    svg = g.to_svg()
    titles = re.findall(r"<title>(.*?)</title>", svg, re.S)
    assert len(titles) >= 5 + 1                    # the issues on the table and in the waiting room, an event
    assert any("stars" in t for t in titles)
