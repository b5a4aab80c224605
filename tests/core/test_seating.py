"""The seating (issue 8 section 4): seats are nations, the players sit around the table in any
order, and every turn order of the rules follows the seating. The Player's Manual sits UK, USA,
Italy, France (IT:1263); the default is UK, France, USA, Italy."""
from __future__ import annotations

import numpy as np
import pytest

import v1919_env
from helpers.events import act as ev_act
from helpers.events import position as ev_position
from helpers.events import to_conference, conference_done
from helpers.scenario import STRATEGY_NUMBER, act, events, issue_deck, option_index, regions, settle_through_step_4
from v1919_env.actions import encode
from v1919_env.core import layout as L
from v1919_env.core.observe import OBS_SIZE, O_ACTIVE, O_PHAPPY, R, observe
from v1919_env.game import Game, PositionError
from v1919_env.seating import parse_seating

MANUAL = ["uk", "usa", "italy", "france"]


def test_default_seating_is_seat_order_and_rotations_are_one_table():
    assert Game.new(4).seating == ["uk", "france", "usa", "italy"]
    assert Game.new(3).seating == ["uk", "france", "usa"]
    assert Game.new(4, seating=["italy", "france", "uk", "usa"]).seating == MANUAL
    assert parse_seating([2, 3, 1, 0], 4) == (0, 2, 3, 1)
    # the seating changes who sits where, not the setup: same seed, same cards dealt
    a, b = Game.new(4, seed=5), Game.new(4, seed=5, seating=MANUAL)
    assert not np.array_equal(a.state, b.state)
    assert np.array_equal(np.delete(a.state, np.s_[L.SEATING:L.SEATING + 4]),
                          np.delete(b.state, np.s_[L.SEATING:L.SEATING + 4]))


@pytest.mark.parametrize("seating, msg", [
    (["uk", "usa", "italy"], "exactly once"), (["uk", "usa", "italy", "uk"], "exactly once"),
    (["uk", "usa", "italy", "japan"], r"seating\[3\]"), ("uk,usa,italy,france", "expected a list"),
    ([0, 1, 2, True], r"seating\[3\]"), ([0, 1, 2, 3.0], r"seating\[3\]")])
def test_bad_seating_is_refused_with_the_field(seating, msg):
    with pytest.raises(ValueError, match=msg):
        Game.new(4, seating=seating)
    with pytest.raises(PositionError, match=msg):
        Game.from_dict({"num_players": 4, "seating": seating})


@pytest.mark.parametrize("players, seating", [(4, MANUAL), (3, ["uk", "usa", "france"]),
                                              (4, ["uk", "france", "usa", "italy"])])
def test_turns_pass_clockwise_by_the_seating(players, seating):
    g = Game.new(players, seed=11, seating=seating)
    rng = np.random.default_rng(0)
    turns, last = [g.active_player], int(g.state[L.TURN_NO])
    while not g.is_over:
        g.step(int(rng.choice(g.legal_actions())))
        if int(g.state[L.TURN_NO]) != last:
            last = int(g.state[L.TURN_NO])
            turns.append(g.active_player)
    assert len(turns) > 20
    nxt = {seating[k]: seating[(k + 1) % players] for k in range(players)}
    names = [v1919_env.core.vocab.NATIONS[p] for p in turns]
    assert all(nxt[a] == b for a, b in zip(names, names[1:]))


def test_positions_round_trip_the_seating():
    g = Game.new(4, seed=3, seating=MANUAL)
    d = g.to_dict()
    assert d["seating"] == MANUAL
    h = Game.from_dict(d)
    assert h == g and h.seating == MANUAL
    assert Game.from_dict({"num_players": 3, "seating": ["usa", "france", "uk"]}).seating == ["uk", "usa", "france"]
    assert Game.from_dict({"num_players": 4}).seating == ["uk", "france", "usa", "italy"]


def test_observations_list_the_others_clockwise_by_the_seating():
    # happiness tells the seats apart: relative seat k holds the k-th player clockwise
    d = {"num_players": 4, "seating": MANUAL, "active": "usa",
         "happiness": {"uk": 20, "france": 21, "usa": 22, "italy": 23, "japan": 20}}
    g = Game.from_dict(d)
    out = np.zeros(OBS_SIZE, np.float32)
    observe(g.state, g.T, 3, out)                    # Italy sees France, UK, USA
    assert [round(float(x) * 30) for x in out[O_PHAPPY:O_PHAPPY + 4]] == [23, 21, 20, 22]
    assert out[O_ACTIVE + 3] == 1.0                  # the USA (active) is third clockwise from Italy
    assert out[O_ACTIVE:O_ACTIVE + R].sum() == 1.0


def test_both_envs_take_the_seating():
    env = v1919_env.env(4, seating=MANUAL)
    env.reset(seed=1)
    assert env.game.seating == MANUAL
    genv = v1919_env.gym_env(num_players=4, seat=0, seating=MANUAL)
    genv.reset(seed=1)
    assert genv.unwrapped.game.seating == MANUAL
    with pytest.raises(ValueError, match="seating"):
        v1919_env.env(4, seating=["uk", "uk", "usa", "italy"])
    with pytest.raises(ValueError, match="seating"):
        v1919_env.gym_env(num_players=4, seating=["uk"])


# ----------------------------------------------------------------------------- bidding, draft ties
def _draft_position(seating):
    """EN:682-690 with the Manual's table: France (active) settles Kurdistan (3 stars); the top
    event CHAIM WEIZMANN's crisis checks the Balkans (column 6), die 6: the UK's Fiume is
    unsettled and bid for. Stars: Italy 0, France 3, UK 5 (Fiume), USA 5 (Prussia)."""
    slots = ["Kurdistan", "Togo", "Tyrol", "Korea", "Vietnam"]
    settled = [{"issue": "Fiume", "controller": "uk", "option": "Free City", "naval_uk": 1},
               {"issue": "Prussia", "controller": "usa", "option": "Germany"}]
    return Game.from_dict({
        "num_players": 4, "seating": seating, "active": "france",
        "table": [{"issue": "Kurdistan", "cubes": {"france": 2}}, {"issue": "Togo"}],
        "waiting_room": [{"issue": "Tyrol"}, {"issue": "Korea"}, {"issue": "Vietnam"}],
        "settled": settled, "issue_discards": [],
        "issue_deck": issue_deck(placed=slots + ["Fiume", "Prussia"]),
        "events": events(waiting=["Take Ionescu", "Eleutherios Venizelos"], top=["Chaim Weizmann"]),
        "regions": regions(balkans=6), "forced_dice": [6],
        "strategies": {"dealt": ["14 Points", "Global Trade", "Outlawing War", "Isolationism", "Mobilization"],
                       "draft_done": False},
    })


@pytest.mark.parametrize("seating, bidders, drafters", [
    # the default table: the USA sits next after France, so it wins the 5-star tie with the UK
    (None, ["france", "usa", "italy"], ["italy", "france", "usa", "uk"]),
    # the Manual's table: after the UK the USA bids, then Italy, France; the UK sits next after France
    (MANUAL, ["usa", "italy", "france"], ["italy", "france", "uk", "usa"])])
def test_bidding_and_draft_ties_follow_the_seating(seating, bidders, drafters):
    g = _draft_position(seating)
    settle_through_step_4(g, "france", "Kurdistan", "No Kurdistan")
    act(g, "bid", decision="bid", by="uk", in_region=0, available=0, influence=1)
    for n in bidders:
        act(g, "bid_pass", decision="bid", by=n)
    act(g, "option", decision="option", by="uk", option=option_index("Fiume", "To Yugoslavia"))
    cards = ["Mobilization", "Outlawing War", "14 Points", "Isolationism"]
    for nation, card in zip(drafters, cards):
        act(g, "draft", decision="draft", by=nation, strategy=STRATEGY_NUMBER[card])
    assert g.decision == "turn" and g.seating == (MANUAL if seating else ["uk", "france", "usa", "italy"])


# ----------------------------------------------------------------------------- roll-offs
def _rolloff_position(seating, dice):
    """UK, France and USA each control one Middle East issue and nobody has a unit there; France
    (active) settles Kurdistan and Arthur Balfour's crisis checks the Middle East: uprising die 6,
    then the roll-off, tied players rolling in seat order (clockwise from the UK)."""
    slots = ["Kurdistan", "Togo", "Tyrol", "Korea", "Vietnam"]
    settled = [{"issue": "Syria", "controller": "uk", "option": "Independent"},
               {"issue": "Arabia", "controller": "usa", "option": "Hejaz Independent"}]
    return Game.from_dict({
        "num_players": 3, "seating": seating, "active": "france",
        "table": [{"issue": "Kurdistan", "cubes": {"france": 2}}, {"issue": "Togo"}],
        "waiting_room": [{"issue": "Tyrol"}, {"issue": "Korea"}, {"issue": "Vietnam"}],
        "settled": settled, "issue_discards": [],
        "issue_deck": issue_deck(placed=slots + ["Syria", "Arabia"]),
        "events": events(waiting=["Take Ionescu", "Eleutherios Venizelos"], top=["Arthur Balfour"]),
        "regions": regions(middle_east=5), "forced_dice": list(dice),
        "strategies": {"dealt": ["14 Points", "Global Trade", "Outlawing War", "Isolationism"], "draft_done": True}})


@pytest.mark.parametrize("seating, affected, next_bidder", [
    # seat order UK, France, USA: UK 6, France 6, USA 2; the UK and France reroll 3, 5
    (None, "france", "usa"),
    # seat order UK, USA, France: UK 6, USA 6, France 2; the UK and the USA reroll 3, 5
    (["uk", "usa", "france"], "usa", "france")])
def test_roll_off_dice_are_rolled_in_seat_order(seating, affected, next_bidder):
    g = _rolloff_position(seating, [6, 6, 6, 2, 3, 5])
    settle_through_step_4(g, "france", "Kurdistan", "No Kurdistan")
    assert g.to_dict()["forced_dice"] == []
    lost = {"france": "Kurdistan", "usa": "Arabia"}[affected]
    assert lost not in {s["issue"] for s in g.to_dict()["settled"]}
    # the affected player bids first (EN:591), then the next player clockwise
    act(g, "bid_pass", decision="bid", by=affected)
    assert v1919_env.core.vocab.NATIONS[g.current_player] == next_bidder


# ----------------------------------------------------------------------------- 'ending with you'
@pytest.mark.parametrize("seating, active, order", [
    (None, "uk", ["france", "usa", "italy", "uk"]),
    (MANUAL, "uk", ["usa", "italy", "france", "uk"]),
    (MANUAL, "france", ["uk", "usa", "italy", "france"])])
def test_ending_with_you_goes_clockwise_by_the_seating(seating, active, order):
    """John Maynard Keynes: 'Ending with you, each player either recovers 4 Influence from
    Exhausted or increases Happiness by 2' (rulings A-40): each player in turn picks a branch."""
    players = {n: {"influence": {"exhausted": 5}} for n in ("uk", "france", "usa", "italy")}
    pos = ev_position(table_event="John Maynard Keynes", players=players, active=active,
                      table=[{"issue": "Kurdistan", "cubes": {active: 2}}, None])
    pos["seating"] = seating
    g = to_conference(pos)
    for who in order:
        ev_act(g, "branch", encode("branch", branch=1), who)
    assert conference_done(g)


def test_modifier_announcers_and_mutinies_go_clockwise_from_the_active_player():
    from v1919_env.core.turn import mutiny_player
    from v1919_env.core.uprising import modifier_announcer
    players = {n: {"military": {"available": 2, "deployed": {"europe": c}}}
               for n, c in (("uk", 5), ("france", 6), ("usa", 7), ("italy", 8))}
    for seating, want in ((None, ["uk", "france", "usa"]), (MANUAL, ["france", "uk", "usa"])):
        g = Game.from_dict({"num_players": 4, "seating": seating, "active": "italy", "players": players,
                            "regions": regions(europe=4)})
        got = [modifier_announcer(g.state, g.T, 0, k) for k in range(4)]
        assert [v1919_env.core.vocab.NATIONS[p] for p in got if p >= 0] == want
        g.state[L.HAPPY:L.HAPPY + 4] = 1           # everyone over the unit limit: Italy first
        assert mutiny_player(g.state, g.T) == 3
        g.state[L.HAPPY + 3] = 20
        assert v1919_env.core.vocab.NATIONS[mutiny_player(g.state, g.T)] == ("uk" if seating is None else "france")
