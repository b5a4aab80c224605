"""The solitaire example of play (IT:1789-2085): the transcription (tests/solitaire_example.py)
checked against the card data, then replayed in the engine as far as its decisions are determined."""
from __future__ import annotations

import pytest

import solitaire_example as X
from scenario_helpers import ALL_EVENTS, ALL_ISSUES, ISSUE
from v1919_env.card_names import names_of
from v1919_env.cards import load_card_set


@pytest.fixture(scope="module")
def names():
    return names_of(load_card_set(None))


# ------------------------------------------------------------------------------ the transcription
def test_cited_card_numbers_name_the_cards_the_script_uses(names):
    for number, name in X.CITED_NUMBERS["issues"].items():
        assert names.issue_at(names.issue(number)) == name, f"issue ({number})"
    for number, name in X.CITED_NUMBERS["events"].items():
        assert names.event_at(names.event(number)) == name, f"event ({number})"
    for name in X.UNNUMBERED["issues"]:
        assert name in ALL_ISSUES
    for name in X.UNNUMBERED["events"]:
        assert name in ALL_EVENTS


def test_every_card_the_script_names_is_cited_or_inferred():
    known_issues = set(X.CITED_NUMBERS["issues"].values()) | set(X.UNNUMBERED["issues"]) | set(X.START_TABLE)
    known_events = set(X.CITED_NUMBERS["events"].values()) | set(X.UNNUMBERED["events"]) | {X.START_EVENT}
    for turn, step in X.replay_steps():
        for key in ("issue", "keep", "discard"):
            if key in step.params:
                assert step.params[key] in known_issues, (turn.n, step)
        for issue in step.params.get("cubes", {}):
            assert issue in known_issues, (turn.n, step)
        if "event" in step.params:
            assert step.params["event"] in known_events, (turn.n, step)


def test_options_exist_on_their_issues():
    for turn, step in X.replay_steps():
        if step.kind == "option":
            names = [o["name"] for o in ISSUE[step.params["issue"]]["options"]]
            assert step.params["option"] in names, (turn.n, step.params)


def test_setup_decks_hold_every_card_once():
    d = X.setup_position(ALL_ISSUES, ALL_EVENTS)
    placed = [e["issue"] for e in d["table"] + d["waiting_room"]] + d["issue_discards"] + d["issue_deck"]
    assert sorted(placed) == sorted(ALL_ISSUES)
    deck = d["issue_deck"]
    assert deck.index(X.GE) == 20                        # 20 issues under GAME END (EN:862)
    assert deck[::-1][:len(X.ISSUE_DRAWS)] == X.ISSUE_DRAWS
    assert len(deck) - 1 - deck.index(X.GE) - len(X.ISSUE_DRAWS) == 11     # 'circa 11' left (IT:2079)
    ev = d["events"]
    assert sorted([ev["table"]["event"], *ev["waiting_room"], *ev["deck"]]) == sorted(ALL_EVENTS)
    assert ev["deck"][::-1][:len(X.EVENT_DRAWS)] == X.EVENT_DRAWS


def test_draws_follow_the_deck_order():
    """Each draw step takes the next two cards of ISSUE_DRAWS, and each crisis the next event."""
    draws = [(s.params["keep"], s.params["discard"]) for _, s in X.replay_steps() if s.kind == "draw"]
    assert [c for pair in draws for c in sorted(pair)] == \
        [c for k in range(0, len(X.ISSUE_DRAWS), 2) for c in sorted(X.ISSUE_DRAWS[k:k + 2])]
    crises = [s.params["event"] for _, s in X.replay_steps() if s.kind == "crisis"]
    assert crises == X.EVENT_DRAWS


def test_turn_order_and_controllers():
    """Turns go UK, France, USA round after round (EN:876); the player is the USA until the uprising
    of turn 14, the UK until the unsettle of turn 24, then France; the others are bots."""
    order = ["uk", "france", "usa"]
    player = "usa"
    for t in X.TURNS:
        assert t.faction == order[(t.n - 1) % 3], t.n
        assert t.by == ("player" if t.faction == player else "bot"), t.n
        for s in t.steps:
            if s.kind == "switch":
                player = s.params["faction"]


def test_steps_are_marked_and_slips_say_what_the_rules_give():
    for turn, step in X.replay_steps():
        assert step.basis in X.BASES and step.cite.startswith("IT:")
        if step.basis in (X.SLIP, X.INFERRED, X.FREE) and step.kind != "end_turn":
            assert step.why, (turn.n, step)
        if step.basis == X.SLIP:
            assert "rule_gives" in step.params or "text_says" in step.params, (turn.n, step)
    with pytest.raises(ValueError, match="basis"):
        X.Step("place", "maybe", "IT:1")
