"""The rule bot's priorities (EN 'Solitaire Rules', /work/shared/rules/004_c15a55468c612048.txt,
cited as EN:line) on hand-built positions, one test per priority, and its policies for the choices
the rules leave to the player (docs/agents.md)."""
from __future__ import annotations

import numpy as np
import pytest

from v1919_env.actions import decode, encode
from v1919_env.core import layout as L
from v1919_env.core import tables as TB
from v1919_env.core.bots import bot_action, bot_choose, piv, seed_policy_rng
from v1919_env.game import Game

from helpers.scenario import (ISSUE, RIDX, SEAT, act, events, issue_deck, regions, settle_smyrna_to_bela_kun,
                              uprising_example_position)


def bot(g: Game):
    """The bot's decoded action for the pending decision."""
    a = bot_action(g.state, g.T, np.empty(L.MAX_LEGAL, np.int64), seed_policy_rng(0))
    assert a in set(int(x) for x in g.legal_actions())
    return decode(int(a))


def is_(action, kind, **params):
    return action.kind == kind and all(action.params[k] == v for k, v in params.items())


def pos(table, waiting=(), settled=(), players=None, active="uk", **extra):
    """A 3-player position at the active player's turn (draft done, no strategy cards)."""
    placed = [t["issue"] for t in table] + [w["issue"] for w in waiting] + [s["issue"] for s in settled]
    d = {"num_players": 3, "active": active, "table": list(table), "waiting_room": list(waiting),
         "settled": list(settled), "issue_discards": [], "issue_deck": issue_deck(placed=placed),
         "strategies": {"draft_done": True}, "players": players or {}}
    d.update(extra)
    return d


def piv_of(g, nation, issue):
    return piv(g.state, g.T, SEAT[nation], ISSUE[issue]["number"] - 1)


# ----------------------------------------------------------------------------- values (EN:850-854)
def test_piv_is_stars_plus_the_best_options_counters_for_that_seat():
    """EN:854: PIV = value of the best option for that faction; here (no strategy cards yet) a
    counter is worth its flag VP to its own nation only: SOUTH WEST AFRICA 5* +1 UK empire."""
    g = Game.from_dict(pos([{"issue": "South West Africa"}, {"issue": "Kiel Canal"}]))
    assert piv_of(g, "uk", "South West Africa") == 6
    assert piv_of(g, "france", "South West Africa") == 5
    assert piv_of(g, "usa", "Kiel Canal") == 4          # UK-or-USA naval counter: the USA may flag it
    assert piv_of(g, "france", "Kiel Canal") == 3


# ----------------------------------------------------------------------------- political action (EN:903-908)
def test_political_1_settles_the_won_issue_with_the_highest_piv():
    """EN:905: a bot winning issues settles the one with the highest PIV."""
    g = Game.from_dict(pos([{"issue": "Kiel Canal", "cubes": {"uk": 3, "france": 1}},
                            {"issue": "Rheinland", "cubes": {"uk": 2}}]))
    assert is_(bot(g), "settle", slot=1)


def test_political_1_never_settles_an_issue_it_is_not_winning():
    """EN:905 'If it is not winning an Issue, it will not Settle' (it places instead, EN:906)."""
    g = Game.from_dict(pos([{"issue": "Kiel Canal", "cubes": {"uk": 1, "france": 2}},
                            {"issue": "Rheinland", "cubes": {"france": 2}}]))
    assert bot(g).kind == "place"


def test_political_2_places_the_minimum_on_the_two_best_issues():
    """EN:906: two issues it can lead on both, the minimum to lead; the pair the player would pick
    is the highest PIV (RHEINLAND 6 and PRUSSIA 5), the lower slot first."""
    g = Game.from_dict(pos([{"issue": "Kiel Canal"}, {"issue": "Trial of the Kaiser", "cubes": {"france": 2}}],
                           [{"issue": "Rheinland", "cubes": {"usa": 1}}, {"issue": "Prussia"}, {"issue": "Arabia"}]))
    a = bot(g)
    assert is_(a, "place", slot=2, n=2)                  # RHEINLAND: USA has 1, so 2 to lead
    g.step(encode("place", **a.params))
    assert g.decision == "place2"
    assert is_(bot(g), "place", slot=3, n=1)             # PRUSSIA, empty: 1


def test_political_2_only_pairs_it_can_afford():
    """EN:906 'it must be possible for the Bot to be winning on both': with 2 cubes only pairs of
    empty issues; PRUSSIA (5) with KIEL CANAL (3 + its naval counter) or ARABIA (3 + UK empire)."""
    g = Game.from_dict(pos([{"issue": "Kiel Canal"}, {"issue": "Trial of the Kaiser", "cubes": {"france": 2}}],
                           [{"issue": "Rheinland", "cubes": {"usa": 1}}, {"issue": "Prussia"}, {"issue": "Arabia"}],
                           players={"uk": {"influence": {"available": 2, "exhausted": 13}}}))
    assert is_(bot(g), "place", slot=0, n=1)


def test_political_3_reclaims_six_and_the_exhausted_military_when_it_cannot_place():
    """EN:906-907: not enough influence to lead on two issues -> recover six influence and all
    military "as normal": the exhausted unit comes back, the deployed one stays (rulings A-16; the
    normal Reclaim only *may* recall deployed units, EN:278; "Reclaim inf/mil from Exhausted", EN:971),
    the same reading as the solitaire bots'."""
    g = Game.from_dict(pos([{"issue": "Kiel Canal", "cubes": {"france": 3}}, {"issue": "Rheinland", "cubes": {"usa": 3}}],
                           players={"uk": {"influence": {"available": 1, "exhausted": 14},
                                           "military": {"available": 1, "exhausted": 1, "deployed": {"pacific": 7}}}}))
    assert is_(bot(g), "reclaim", n=6, recall=0)
    g.step(encode("reclaim", n=6, recall=0))
    uk = g.to_dict()["players"]["uk"]["military"]
    assert uk["available"] == 2 and uk["exhausted"] == 0 and uk["deployed"] == {"pacific": 7}


def test_political_4_settles_an_issue_another_player_is_winning():
    """EN:908: nothing to place or recover -> settle an issue another seat is winning (the one worth
    least to its leader: TRIAL OF THE KAISER, 3 for the USA, not RHEINLAND, 6 for France)."""
    g = Game.from_dict(pos([{"issue": "Rheinland", "cubes": {"france": 3}},
                            {"issue": "Trial of the Kaiser", "cubes": {"usa": 3}}],
                           [{"issue": "Prussia", "cubes": {"uk": 8}}, {"issue": "Arabia", "cubes": {"uk": 7}}],
                           players={"uk": {"influence": {"available": 0, "exhausted": 0}}}))
    assert is_(bot(g), "settle", slot=1)


# ----------------------------------------------------------------------------- military action (EN:894-899)
def _military_pos(unrest=5, uk_happy=20, france_col=None, settled=None, uk_mil=None, **extra):
    settled = settled if settled is not None else [{"issue": "Arabia", "controller": "uk", "option": "UK Protectorate"}]
    players = {"uk": {"military": uk_mil or {"available": 3}}}
    if france_col:
        players["france"] = {"military": {"available": 2, "deployed": {"middle_east": france_col}}}
    return pos([{"issue": "Kiel Canal"}, {"issue": "Prussia"}], settled=settled, players=players,
               regions=regions(middle_east=unrest), happiness={"uk": uk_happy, "france": 20, "usa": 20,
                                                               "italy": 20, "japan": 20}, **extra)


def test_military_1_deploys_to_column_7_before_the_political_action():
    """EN:896, 899: unrest on the 4+ column in a region where the bot has the most issues: a unit
    to the 7 column, before the political action."""
    g = Game.from_dict(_military_pos())
    assert is_(bot(g), "deploy", source=0, region=RIDX["middle_east"], column=7)


def test_military_1_column_8_when_7_is_occupied_and_nothing_when_both_are():
    """EN:896: the 8 column if the 7 is occupied; no unit when the 8 is occupied too."""
    g = Game.from_dict(_military_pos(france_col=7))
    assert is_(bot(g), "deploy", source=0, region=RIDX["middle_east"], column=8)
    d = _military_pos(france_col=7)
    d["players"]["usa"] = {"military": {"available": 2, "deployed": {"middle_east": 8}}}
    g = Game.from_dict(d)
    assert bot(g).kind == "place"


def test_military_1_column_8_when_7_would_force_a_demobilization():
    """EN:896: the 7 column costs happiness (board); at the edge of the 3-unit zone that would force
    a demobilization (EN:533), so the unit goes to the 8 column."""
    g0 = Game.from_dict(_military_pos())
    allowed = g0.T[TB.T_UNITS_ALLOWED:TB.T_UNITS_ALLOWED + 31]
    loss7 = int(g0.T[TB.T_DEP_HAPPY + 7])
    edge = min(h for h in range(31) if allowed[h] >= 3)            # lowest happiness allowing 3 units
    assert loss7 > 0
    g = Game.from_dict(_military_pos(uk_happy=edge))
    assert is_(bot(g), "deploy", source=0, region=RIDX["middle_east"], column=8)


def test_military_1_needs_unrest_4_and_most_or_tied_issues():
    """EN:896: unrest on column 3 is not enough; nor is having fewer issues there than another
    player; tied for most is enough ('most or tied for most')."""
    assert bot(Game.from_dict(_military_pos(unrest=3))).kind == "place"
    fewer = [{"issue": "Arabia", "controller": "uk", "option": "UK Protectorate"},
             {"issue": "Syria", "controller": "france", "option": "French Mandate"},
             {"issue": "Palestine", "controller": "france", "option": "French Mandate"}]
    assert bot(Game.from_dict(_military_pos(settled=fewer))).kind == "place"
    tied = fewer[:2]
    assert bot(Game.from_dict(_military_pos(settled=tied))).kind == "deploy"


def test_military_3_region_with_most_issues_wins_the_unit():
    """EN:898: several regions qualify: where the bot has the most issues."""
    settled = [{"issue": "Arabia", "controller": "uk", "option": "UK Protectorate"},
               {"issue": "Togo", "controller": "uk", "option": "UK Mandate"},
               {"issue": "Somalia", "controller": "uk", "option": "Remains British"}]
    d = _military_pos(settled=settled)
    d["regions"] = regions(middle_east=5, africa=5)
    assert is_(bot(Game.from_dict(d)), "deploy", region=RIDX["africa"], column=7)


def test_military_2_demobilizes_when_two_happiness_from_a_forced_demobilization():
    """EN:897: 1 or 2 happiness from a forced demobilization and the next demobilize space gives 2+:
    demobilize (the exhausted unit first, project policy); 3 away: no."""
    g0 = Game.from_dict(_military_pos(unrest=1))
    allowed = g0.T[TB.T_UNITS_ALLOWED:TB.T_UNITS_ALLOWED + 31]
    edge = min(h for h in range(31) if allowed[h] >= 3)
    mil = {"available": 2, "exhausted": 1}
    assert int(g0.T[TB.T_DEMOB_VAL + 3 * TB.MAX_DEMOB]) >= 2
    for h, expect in ((edge, True), (edge + 1, True), (edge + 2, False)):
        a = bot(Game.from_dict(_military_pos(unrest=1, uk_happy=h, uk_mil=mil)))
        assert (a.kind == "demobilize" and a.params["source"] == 1) == expect, (h, a)


def test_military_after_the_political_action_and_then_end_turn():
    """EN:899: the criteria are checked again after the political action; when none holds the bot
    ends its turn."""
    g = Game.from_dict(_military_pos(turn_state={"political_done": True, "military_done": False}))
    assert is_(bot(g), "deploy", region=RIDX["middle_east"], column=7)
    g = Game.from_dict(_military_pos(unrest=1, turn_state={"political_done": True, "military_done": False}))
    assert bot(g).kind == "end_turn"


# ----------------------------------------------------------------------------- settling (EN:914-921)
def _reference_option(issue: str, nation: str) -> int:
    """EN:916 by hand: the highest value (stars + own-flag counters; UK-or-USA naval counters count
    for the UK and the USA), then the least unhappiness for the nation, then the first."""
    best = None
    for k, o in enumerate(ISSUE[issue]["options"]):
        v = sum(c["count"] for c in o.get("counters", []) if c.get("flag") == nation or
                (c.get("flag") == "uk_or_usa" and nation in ("uk", "usa")))
        key = (v, o.get("happiness", {}).get(nation, 0))
        if best is None or key > best[0]:
            best = (key, k)
    return best[1]


@pytest.mark.parametrize("issue,nation", [("Kiel Canal", "uk"), ("Kiel Canal", "france"), ("Syria", "france"),
                                          ("Rheinland", "usa"), ("Togo", "uk"), ("Prussia", "france")])
def test_settling_1_option_with_the_highest_piv_then_least_unhappiness(issue, nation):
    """EN:916: the bot picks the highest-PIV option; ties: the least unhappiness for its nation."""
    g = Game.from_dict(pos([{"issue": issue, "cubes": {nation: 2}}, {"issue": "Trial of the Kaiser"}], active=nation))
    act(g, "settle", decision="turn", by=nation, slot=0)
    assert g.decision == "option"
    assert is_(bot(g), "option", option=_reference_option(issue, nation))


def test_settling_3_advances_a_won_issue_else_an_empty_one():
    """EN:918: bring down an issue the bot is winning, else one with no influence at all."""
    waiting = [{"issue": "Prussia", "cubes": {"france": 1}}, {"issue": "Arabia"},
               {"issue": "Rheinland", "cubes": {"uk": 2, "usa": 1}}]
    g = Game.from_dict(pos([{"issue": "Kiel Canal", "cubes": {"uk": 2}}, {"issue": "Trial of the Kaiser"}], waiting))
    act(g, "settle", slot=0)
    act(g, "option", decision="option", option=1)
    act(g, "naval_flag", decision="naval", flag=0)
    assert g.decision == "adv_issue"
    assert is_(bot(g), "advance_issue", slot=2)           # RHEINLAND, won by the UK
    waiting[2] = {"issue": "Rheinland", "cubes": {"usa": 1}}
    g = Game.from_dict(pos([{"issue": "Kiel Canal", "cubes": {"uk": 2}}, {"issue": "Trial of the Kaiser"}], waiting))
    act(g, "settle", slot=0)
    act(g, "option", option=1)
    act(g, "naval_flag", flag=0)
    assert is_(bot(g), "advance_issue", slot=1)           # ARABIA, no influence


def test_settling_4_5_no_event_cube_and_draws_keeping_the_top_card():
    """EN:919: no influence on an event; EN:920: the bot never takes from the discards: the top card
    of the deck goes to the waiting room, the next one to the discards."""
    d = pos([{"issue": "Kiel Canal", "cubes": {"uk": 2}}, {"issue": "Trial of the Kaiser"}],
            [{"issue": "Prussia"}, {"issue": "Arabia"}, {"issue": "Rheinland"}],
            events=events(waiting=["Bela Kun", "Vladimir Lenin"]))
    d["issue_discards"] = ["Togo"]
    d["issue_deck"] = issue_deck(top=["Syria", "Palestine"], placed=["Kiel Canal", "Trial of the Kaiser", "Prussia",
                                                                    "Arabia", "Rheinland", "Togo"])
    g = Game.from_dict(d)
    for kind in ("settle", "option", "naval_flag", "advance_issue", "advance_event"):
        g.step(encode(kind, **bot(g).params) if bot(g).kind == kind else int(g.legal_actions()[0]))
    if g.decision == "event_cube":
        assert is_(bot(g), "accept", yes=0)
        g.step(encode("accept", yes=0))
    assert g.decision == "add_issue"
    assert is_(bot(g), "add_issue", source=3)
    g.step(encode("add_issue", source=3))
    assert g.decision == "keep" and is_(bot(g), "keep", which=0)
    g.step(encode("keep", which=0))
    dd = g.to_dict()
    assert "Syria" in [w["issue"] for w in dd["waiting_room"]] and dd["issue_discards"][-1] == "Palestine"


# ----------------------------------------------------------------------------- uprisings and bids (EN:924-947)
def test_uprising_modifier_minus_one_when_it_would_be_affected():
    """EN:926 with EN:634-640's example: the UK (most Middle East issues, unit in column 6) applies -1."""
    g = Game.from_dict(uprising_example_position(dice=[2, 5]))
    settle_smyrna_to_bela_kun(g)
    assert g.decision == "modifier" and g.current_player == SEAT["uk"]
    assert is_(bot(g), "modifier", delta=-1)


def test_uprising_modifier_plus_one_when_it_would_not_be_affected():
    """EN:926: otherwise +1 (here the UK controls nothing in the Middle East)."""
    d = uprising_example_position(dice=[2, 5])
    d["settled"] = [{"issue": "Constantinople", "controller": "usa", "option": "Open City"},
                    {"issue": "Arabia", "controller": "usa", "option": "Hejaz Independent"}]
    g = Game.from_dict(d)
    settle_smyrna_to_bela_kun(g)
    assert g.decision == "modifier" and g.current_player == SEAT["uk"]
    assert is_(bot(g), "modifier", delta=1)


def test_bids_units_by_the_chart_in_region_first_influence_piv_and_the_equal_bid_rule():
    """EN:934-945 on EN:652-664's position. The UK (3 units in play: bids 2, but only its in-region
    unit can be used) offers that unit and its PIV of CONSTANTINOPLE (6 + its own naval counter on
    Open City) capped by its 6 available cubes. France (3 units: 2 from Available) would make the
    same offer (strength 2, PIV 6) and has more influence than the UK, so it bids 1 more (EN:945)."""
    g = Game.from_dict(uprising_example_position(dice=[2, 5]))
    settle_smyrna_to_bela_kun(g)
    act(g, "modifier", delta=-1)
    assert g.decision == "bid" and g.current_player == SEAT["uk"]
    uk_inf = g.to_dict()["players"]["uk"]["influence"]["available"]
    assert is_(bot(g), "bid", in_region=1, available=0, influence=min(7, uk_inf))
    g.step(encode("bid", **bot(g).params))
    assert g.current_player == SEAT["france"]
    assert is_(bot(g), "bid", in_region=0, available=2, influence=min(7, uk_inf) + 1)


def test_bid_passes_when_its_offer_cannot_beat_the_standing_bid():
    """EN:947: a bot bids its chart offer or nothing."""
    g = Game.from_dict(uprising_example_position(dice=[2, 5]))
    settle_smyrna_to_bela_kun(g)
    act(g, "modifier", delta=-1)
    act(g, "bid", in_region=1, available=0, influence=6)
    act(g, "bid", by="france", in_region=0, available=2, influence=10)
    assert g.current_player == SEAT["usa"]
    assert bot(g).kind == "bid_pass"          # USA: 2 units + PIV 6 < France's 2 + 10


# ----------------------------------------------------------------------------- every decision
@pytest.mark.parametrize("players", [3, 4])
def test_the_bot_names_a_legal_action_itself_at_every_decision(players):
    """bot_choose (before bot_action's fallback to the first legal id) is legal at every decision of
    rule-bot games mixed with random seats, in every variant."""
    from v1919_env.core.step import legal
    buf = np.empty(L.MAX_LEGAL, np.int64)
    kinds = set()
    for k, var in enumerate(("standard", "short15", "long10", "longest")):
        for seed in range(3):
            g = Game.new(players, seed=100 * k + seed, variant=var)
            rng, r = seed_policy_rng(seed), np.random.default_rng(seed)
            while not g.is_over:
                n = legal(g.state, g.T, buf)
                if n > 1 and (seed == 0 or g.current_player != 1):
                    a = int(bot_choose(g.state, g.T, buf, n, rng))
                    assert a in set(buf[:n].tolist()), (g.decision, decode(a))
                    kinds.add(g.decision)
                else:
                    a = int(buf[r.integers(n)])
                g.step(a)
    assert {"turn", "place2", "option", "bid", "adv_issue", "keep", "add_issue"} <= kinds
