"""The solitaire example of play (IT:1789-2085): the transcription (tests/helpers/solitaire_example.py)
checked against the card data, then replayed in the engine as far as its decisions are determined."""
from __future__ import annotations

import pytest

from helpers import solitaire_example as X
from helpers.scenario import ALL_EVENTS, ALL_ISSUES, ISSUE
from v1919_env.actions import encode
from v1919_env.cards.names import names_of
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


# ------------------------------------------------------------------------------ the replay
@pytest.fixture(scope="module")
def replayed():
    """The replay, with the game at every turn's end and before every amendment."""
    moments = {}
    g = X.replay(on_turn=lambda game, turn, moment: moments.__setitem__((turn.n, moment), game.clone()))
    return g, moments


def test_example_replays_to_the_end_of_the_text(replayed):
    """Every decision of the script is legal when the script takes it, every rule step is what the
    engine's bots do, and every figure of every turn holds (X.check): Diagram 3's strengths UK 6,
    France 5, USA 3 (IT:1959), the switch to the UK at 'US 9, Francia 9, ed UK 8' (IT:1999), the
    player's 1, 2, 3 VP (IT:2011, 2019, 2035), the UK's mutiny at 10 (IT:2045-2049), and Diagram 7's
    UK 22, France 11, USA 7 with the player as France (IT:2085)."""
    g, moments = replayed
    assert g.solitaire and not g.is_over
    assert moments[(24, "end")].faction_strengths() == [22, 11, 7]
    assert moments[(24, "end")].seat_name(moments[(24, "end")].solo_faction) == "FRANCE"
    assert g.player_vp == 3
    assert g.to_dict()["players"]["usa"]["military"]["deployed"] == {"pacific": 7}


def test_every_turn_was_reached_and_checked(replayed):
    _, moments = replayed
    assert sorted(n for n, m in moments if m == "end") == [t.n for t in X.TURNS]
    # the turns the player or a bot's 'player's choice' decides start at a decision of that turn
    for n, m in moments:
        if m == "start":
            assert moments[(n, m)].turn == n


def test_turn_23_amendment_is_needed_france_settles_disarmament(replayed):
    """IT:2051 has France reclaim; by EN:905 the bot settles Disarmament, which it leads 3-2."""
    _, moments = replayed
    g = moments[(22, "amend")]
    assert g.decision == "turn" and g.seat_name(g.acting_for) == "UK"
    g.step(encode("end_turn"))
    settled = {e["issue"]: e["controller"] for e in g.to_dict()["settled"]}
    assert settled.get("Disarmament") == "france"


def test_turn_7_and_24_amendments_are_needed(replayed):
    """The bots brought down the waiting issue they lead (EN:918), not the text's empty one."""
    _, moments = replayed
    for n, led, text_issue in ((8, "Slovenia & Croatia", "Negotiations with Russia"), (25, "Indemnity", "Byelorussia")):
        d = moments[(n, "amend")].to_dict()
        table = [e["issue"] for e in d["table"] if e]
        assert led in table and text_issue not in table


def test_turn_10_uk_places_the_minimum_not_the_texts_two(replayed):
    _, moments = replayed
    cubes = {e["issue"]: e["cubes"] for e in moments[(10, "end")].to_dict()["table"] if e}
    assert cubes["Negotiations with Russia"]["uk"] == 3


def test_checks_can_fail(replayed):
    """A wrong figure or an illegal scripted decision is reported as a Divergence naming the turn."""
    _, moments = replayed
    g = moments[(7, "end")]
    turn = X.TURNS[6]
    X.check(g, turn)
    wrong = X.Turn(turn.n, turn.faction, turn.by, turn.steps, {"strength": {"uk": 7}})
    with pytest.raises(X.Divergence, match="turn 7"):
        X.check(g, wrong)
    bad = X.S("place", X.TEXT, "IT:1961", cubes={"Slovenia & Croatia": 1, "Negotiations with Russia": 1})
    with pytest.raises(X.Divergence, match="not legal"):
        X.play_step(g.clone(), X.TURNS[7], bad)


def test_replay_is_deterministic(replayed):
    g, _ = replayed
    assert X.replay().to_dict() == g.to_dict()
