"""Worked examples of the English rulebook (/work/shared/rules/004_c15a55468c612048.txt, cited
as EN:line) replayed through the engine.

Each test builds the example's position with `Game.from_dict`, drives it with the actions the
example describes (dice forced where the example states them) and asserts the outcomes the
text states. Positions use the card data's issue / option / event names. Where an example's
own numbers are inconsistent, the test follows the rule and says so in its docstring.
"""
from __future__ import annotations

import pytest

from v1919_env.game import Game

from helpers.scenario import (RBIT, RIDX, SEAT, act, assert_illegal, events, happiness, is_legal, issue_deck, legal,
                              min_place, option_index, player, regions, settle_smyrna_to_bela_kun, settled_map,
                              uprising_example_position)


# ============================================================================ 1. Place Influence
def _place_example_position():
    """EN:254-262 (image lost): France to move. Table: BYELORUS (USA 3, UK 1), SMYRNA (UK 3,
    France 1). Waiting Room: RHEINLAND (France leads), NEW GUINEA & SAMOA (another player 1,
    France 0: France needs 2), SOMALIA (empty)."""
    return {
        "num_players": 3, "active": "france",
        "table": [{"issue": "Byelorussia", "cubes": {"usa": 3, "uk": 1}},
                  {"issue": "Smyrna", "cubes": {"uk": 3, "france": 1}}],
        "waiting_room": [{"issue": "Rheinland", "cubes": {"france": 2, "usa": 1}},
                         {"issue": "New Guinea & Samoa", "cubes": {"uk": 1}},
                         {"issue": "Somalia"}],
        "strategies": {"draft_done": True},
    }


def test_place_influence_example_minimums():
    """EN:256-260: the least France must place on each issue to lead it."""
    g = Game.from_dict(_place_example_position())
    assert g.decision == "turn" and g.current_player == SEAT["france"]
    assert min_place(g, 0) == 4      # BYELORUS: USA has 3 (the single UK cube does not matter)
    assert min_place(g, 1) == 3      # SMYRNA: UK 3, France already 1 -> at least 3 more
    assert min_place(g, 3) == 2      # NEW GUINEA & SAMOA: at least two
    assert min_place(g, 4) == 1      # SOMALIA (empty): one
    assert min_place(g, 2) == 1      # RHEINLAND: France already leads and may still add (at least one)


def test_place_influence_example_placement_and_illegal_placements():
    """EN:262: France places 2 on NEW GUINEA & SAMOA and 4 more on SMYRNA; EN:250-255: exactly two
    issues, leading on both after placing. Illegal placements raise and change nothing."""
    g = Game.from_dict(_place_example_position())
    avail = player(g, "france")["influence"]["available"]
    # too few to lead (ties are not leads), first placement
    assert_illegal(g, "place", slot=0, n=3)          # 3 on BYELORUS only ties the USA
    assert_illegal(g, "place", slot=1, n=2)          # 1 + 2 = 3 only ties the UK on SMYRNA
    assert_illegal(g, "place", slot=3, n=1)          # 1 only ties on NEW GUINEA & SAMOA
    act(g, "place", decision="turn", by="france", slot=3, n=2)
    assert g.decision == "place2" and g.current_player == SEAT["france"]
    # the second placement must be on a different issue and must lead there too
    assert_illegal(g, "place", slot=3, n=1)
    assert_illegal(g, "place", slot=1, n=2)
    act(g, "place", decision="place2", by="france", slot=1, n=4)
    d = g.to_dict()
    assert d["table"][1] == {"issue": "Smyrna", "cubes": {"uk": 3, "france": 5}}
    assert d["waiting_room"][1] == {"issue": "New Guinea & Samoa", "cubes": {"uk": 1, "france": 2}}
    assert d["players"]["france"]["influence"]["available"] == avail - 6
    assert d["turn_state"]["political_done"] is True
    # the political action is done: no second placement / settle / reclaim this turn
    kinds = {a.kind for a in legal(g)}
    assert not kinds & {"place", "settle", "reclaim"}
    assert "end_turn" in kinds


# ============================================================================ 2. Reclaim
def test_reclaim_example_italy():
    """EN:276-280: Italy has 8 Influence and 1 Military in Exhausted and 1 Military on the Balkans
    track; it takes back 6 Influence (2 stay) and the exhausted unit, leaving the Balkans unit."""
    g = Game.from_dict({
        "num_players": 4, "active": "italy",
        "players": {"italy": {"influence": {"available": 7, "exhausted": 8},
                              "military": {"available": 1, "exhausted": 1, "deployed": {"balkans": 7}}}},
        "strategies": {"draft_done": True},
    })
    recl = [a.params for a in legal(g) if a.kind == "reclaim"]
    assert max(p["n"] for p in recl) == 6                      # up to six cubes (EN:272)
    assert {p["recall"] for p in recl} == {0, RBIT["balkans"]}  # the deployed unit may stay or come back
    assert {"n": 0, "recall": 0} in recl                       # the exhausted unit alone is a reclaim
    act(g, "reclaim", decision="turn", by="italy", n=6, recall=0)
    it = player(g, "italy")
    assert it["influence"] == {"available": 13, "exhausted": 2}
    assert it["military"]["exhausted"] == 0 and it["military"]["available"] == 2   # must take it back
    assert it["military"]["deployed"] == {"balkans": 7}


def test_reclaim_needs_something_to_reclaim():
    """EN:278: at least one Influence or Military must be reclaimed; with nothing exhausted and
    nothing deployed there is no Reclaim action."""
    g = Game.from_dict({"num_players": 4, "active": "italy", "strategies": {"draft_done": True}})
    assert not [a for a in legal(g) if a.kind == "reclaim"]


# ============================================================================ 3. Settle example
def _settle_example_position(active="france"):
    """EN:300-380: SMYRNA (France 5, UK 3) on the table; HO CHI MINH on the table with a USA cube;
    ARTHUR BALFOUR and CHAIM WEIZMANN waiting; BELA KUN on top of the event deck; Women's
    Suffrage and Disarmament on top of the issue deck. France leads NEW GUINEA & SAMOA (2 v 1)."""
    slots = ["Byelorussia", "Smyrna", "Rheinland", "New Guinea & Samoa", "Somalia"]
    return {
        "num_players": 3, "active": active,
        "table": [{"issue": "Byelorussia", "cubes": {"usa": 3, "uk": 1}},
                  {"issue": "Smyrna", "cubes": {"uk": 3, "france": 5}}],
        "waiting_room": [{"issue": "Rheinland", "cubes": {"france": 2, "usa": 1}},
                         {"issue": "New Guinea & Samoa", "cubes": {"uk": 1, "france": 2}},
                         {"issue": "Somalia"}],
        "issue_discards": ["Kiel Canal"],
        "issue_deck": issue_deck(top=["Women's Suffrage", "Disarmament"], placed=slots + ["Kiel Canal"]),
        "events": events(table="Ho Chi Minh", cube="usa", waiting=["Arthur Balfour", "Chaim Weizmann"],
                         top=["Bela Kun"]),
        "regions": regions(),
        "forced_dice": [1],
        "strategies": {"draft_done": True},
    }


def test_settle_example_smyrna_steps_1_to_5():
    """EN:300-380, the SMYRNA settle, step by step."""
    g = Game.from_dict(_settle_example_position())
    fr0, uk0, us0 = (player(g, n)["influence"] for n in ("france", "uk", "usa"))
    act(g, "settle", decision="turn", by="france", slot=1)
    # Step 1 (EN:335-337): France's 5 to Exhausted; half of the UK's 3 (1) to Exhausted, 2 back
    fr, uk = player(g, "france")["influence"], player(g, "uk")["influence"]
    assert fr == {"available": fr0["available"], "exhausted": fr0["exhausted"] + 5}
    assert uk == {"available": uk0["available"] + 2, "exhausted": uk0["exhausted"] + 1}
    # Step 1e: France controls it and picks the middle option, To Greece (EN:344, 318-320):
    # UK Happiness -1, Middle East Unrest +2, a UK-or-USA naval counter, France picks USA
    assert g.decision == "option" and g.current_player == SEAT["france"]
    act(g, "option", option=option_index("Smyrna", "To Greece"))
    assert g.to_dict()["happiness"]["uk"] == 19
    assert g.to_dict()["regions"]["middle_east"] == {"unrest": 3, "powder_keg": 0}
    act(g, "naval_flag", decision="naval", by="france", flag=1)
    sm = settled_map(g)["Smyrna"]
    assert sm["controller"] == "france" and sm["option"] == "To Greece" and "naval_uk" not in sm
    # Step 2 (EN:339-341): HO CHI MINH has a USA cube: the USA decides the Optional event and
    # adds a Powder Keg in the Pacific, which pushes the Unrest counter one space right
    assert g.decision == "optional" and g.current_player == SEAT["usa"]
    act(g, "accept", yes=1)
    d = g.to_dict()
    assert d["regions"]["pacific"] == {"unrest": 2, "powder_keg": 1}
    assert d["players"]["usa"]["influence"] == {"available": us0["available"], "exhausted": us0["exhausted"] + 1}
    assert d["events"]["discards"][-1] == "Ho Chi Minh"
    # Step 3 (EN:358): France moves NEW GUINEA & SAMOA down (cubes travel) and brings ARTHUR BALFOUR
    # to the table with a French cube
    act(g, "advance_issue", decision="adv_issue", by="france", slot=1)
    assert g.to_dict()["table"][1] == {"issue": "New Guinea & Samoa", "cubes": {"uk": 1, "france": 2}}
    act(g, "advance_event", decision="adv_event", by="france", slot=0)
    act(g, "accept", decision="event_cube", by="france", yes=1)
    d = g.to_dict()
    assert d["events"]["table"] == {"event": "Arthur Balfour", "cube": "france"}
    assert d["players"]["france"]["influence"]["available"] == fr0["available"] - 1
    # Step 4 (EN:367): draw Women's Suffrage and Disarmament, keep Disarmament in the space New
    # Guinea & Samoa left, Women's Suffrage to the discard pile
    act(g, "add_issue", decision="add_issue", by="france", source=3)
    act(g, "keep", decision="keep", by="france", which=1)
    # Step 5 (EN:377): BELA KUN goes to the Waiting Room and its Crisis (Uprising Check) runs:
    # Middle East (3) is the highest track; the forced die 1 is rolled there (no Uprising at 3)
    d = g.to_dict()
    assert d["waiting_room"][1] == {"issue": "Disarmament", "cubes": {}}
    assert d["issue_discards"][-1] == "Women's Suffrage"
    assert d["events"]["waiting_room"] == ["Bela Kun", "Chaim Weizmann"]
    assert d["forced_dice"] == []            # the uprising check rolled its die
    assert d["regions"]["middle_east"] == {"unrest": 3, "powder_keg": 0}
    # settle over; France may still take its military action
    assert g.decision == "turn" and g.current_player == SEAT["france"]
    assert d["turn_state"]["political_done"] is True


def test_settle_play_note_non_controlling_settler_recovers_all():
    """EN:322: if the UK settles SMYRNA, France still controls it and picks the option, but the
    UK gets all three of its cubes back (EN:307 step 1c)."""
    g = Game.from_dict(_settle_example_position(active="uk"))
    fr0, uk0 = player(g, "france")["influence"], player(g, "uk")["influence"]
    act(g, "settle", decision="turn", by="uk", slot=1)
    assert player(g, "uk")["influence"] == {"available": uk0["available"] + 3, "exhausted": uk0["exhausted"]}
    assert player(g, "france")["influence"]["exhausted"] == fr0["exhausted"] + 5
    assert g.decision == "option" and g.current_player == SEAT["france"]


# ============================================================================ 4. Deploy
def test_deploy_example_uk_middle_east_column_6():
    """EN:464 and EN:495-497: the UK has one unit Available, one Exhausted and one in the Pacific.
    It may deploy to Europe only the Available unit or the Pacific one. It deploys the Available
    unit to the Middle East, column 6: +3 Influence from Exhausted, -2 Happiness, and the Unrest
    counter (in the right-most column) shifts back to column 5, left of the unit."""
    g = Game.from_dict({
        "num_players": 3, "active": "uk",
        "players": {"uk": {"influence": {"available": 10, "exhausted": 5},
                           "military": {"available": 1, "exhausted": 1, "deployed": {"pacific": 7}}}},
        "regions": regions(middle_east=8),
        "strategies": {"draft_done": True},
    })
    to_europe = {a.params["source"] for a in legal(g) if a.kind == "deploy" and a.params["region"] == RIDX["europe"]}
    assert to_europe == {0, 1 + RIDX["pacific"]}
    act(g, "deploy", decision="turn", by="uk", source=0, region=RIDX["middle_east"], column=6)
    d = g.to_dict()
    assert d["players"]["uk"]["influence"] == {"available": 13, "exhausted": 2}
    assert d["happiness"]["uk"] == 18
    assert d["regions"]["middle_east"]["unrest"] == 5
    assert d["players"]["uk"]["military"]["deployed"] == {"middle_east": 6, "pacific": 7}


# ============================================================================ 5. Demobilize and Mutiny
def test_demobilize_example_second_demobilization():
    """EN:541: the UK (3 units, Happiness 11) demobilizes as the second player to do so (the USA
    already did): +4 Happiness, 11 -> 15."""
    g = Game.from_dict({
        "num_players": 3, "active": "uk", "happiness": happiness(uk=11),
        "players": {"usa": {"military": {"demobilized": 1}}},
        "strategies": {"draft_done": True},
    })
    assert g.to_dict()["demobilize_next"] == 1
    act(g, "demobilize", decision="turn", by="uk", source=0)
    d = g.to_dict()
    assert d["happiness"]["uk"] == 15
    assert d["players"]["uk"]["military"]["demobilized"] == 1
    assert d["demobilize_next"] == 2


def test_mutiny_example_uk_drops_to_10():
    """EN:543 with EN:529-537: had the UK (3 units) dropped to 10 it would have to demobilize a
    unit into the '1' box (+1 only), not onto the track."""
    g = Game.from_dict({
        "num_players": 3, "active": "uk", "happiness": happiness(uk=12),
        "players": {"usa": {"military": {"demobilized": 1}}},
        "strategies": {"draft_done": True},
    })
    act(g, "deploy", decision="turn", by="uk", source=0, region=RIDX["africa"], column=6)   # -2 -> 10
    assert g.to_dict()["happiness"]["uk"] == 10
    assert g.decision == "mutiny" and g.current_player == SEAT["uk"]
    assert {a.kind for a in legal(g)} == {"demobilize"}
    act(g, "demobilize", source=0)
    d = g.to_dict()
    assert d["happiness"]["uk"] == 11
    assert d["players"]["uk"]["military"]["demobilized"] == 1
    assert d["demobilize_next"] == 1          # the '1' box, not the next track space (+4)
    assert g.decision == "turn" and g.current_player == SEAT["uk"]


@pytest.mark.parametrize("start,end,mutiny", [(12, 10, False), (7, 5, False), (6, 4, True)])
def test_mutiny_example_usa_with_two_units(start, end, mutiny):
    """EN:545-547: the USA with only two units is fine in the 10-and-below zone and mutinies only
    when Happiness drops to 4 or less."""
    g = Game.from_dict({
        "num_players": 3, "active": "usa", "happiness": happiness(usa=start),
        "players": {"usa": {"military": {"demobilized": 1}}},
        "strategies": {"draft_done": True},
    })
    act(g, "deploy", decision="turn", by="usa", source=0, region=RIDX["africa"], column=6)
    assert g.to_dict()["happiness"]["usa"] == end
    if mutiny:
        assert g.decision == "mutiny" and g.current_player == SEAT["usa"]
    else:
        assert g.decision == "turn" and g.current_player == SEAT["usa"]


def test_happiness_zero_is_permanent():
    """EN:398 and EN:523: a nation at 0 Happiness stays there; a demobilization does not raise it."""
    g = Game.from_dict({"num_players": 3, "active": "uk", "happiness": happiness(uk=0),
                        "players": {"uk": {"military": {"demobilized": 2}}},
                        "strategies": {"draft_done": True}})
    act(g, "demobilize", decision="turn", by="uk", source=0)
    assert g.to_dict()["happiness"]["uk"] == 0


def test_happiness_stops_at_30_and_still_falls_from_there():
    """EN:398: a Happiness marker that would move above 30 stops at 30; decreases still apply."""
    g = Game.from_dict({"num_players": 3, "active": "uk", "happiness": happiness(uk=28),
                        "strategies": {"draft_done": True}})
    act(g, "demobilize", decision="turn", by="uk", source=0)              # the 5 space: 28 + 5
    assert g.to_dict()["happiness"]["uk"] == 30
    g = Game.from_dict({"num_players": 3, "active": "uk", "happiness": happiness(uk=30),
                        "strategies": {"draft_done": True}})
    act(g, "deploy", decision="turn", by="uk", source=0, region=RIDX["europe"], column=6)   # -2
    assert g.to_dict()["happiness"]["uk"] == 28


# ============================================================================ 6. Comprehensive Uprising Check
def test_comprehensive_uprising_check_example():
    """EN:626-676, the whole BELA KUN uprising check."""
    g = Game.from_dict(uprising_example_position(dice=[2, 5]))
    assert g.scores()[SEAT["uk"]]["flags"] == 1          # the UK naval counter on Open City
    settle_smyrna_to_bela_kun(g)
    # Determine regions (EN:634-640): Europe and the Middle East tie at column 5 (4 or higher).
    # The UK (unit in ME column 6) announces -1 for the Middle East before the dice are rolled.
    d = g.to_dict()
    assert d["regions"]["europe"]["unrest"] == d["regions"]["middle_east"]["unrest"] == 5
    assert g.decision == "modifier" and g.current_player == SEAT["uk"]
    act(g, "modifier", delta=-1)
    # Europe rolls 2: no uprising. The Middle East rolls 5 - 1 = 4: uprising.
    # Determine the unsettled issue (EN:646-648): UK 2 ME issues, France 1 (Smyrna), USA 0 ->
    # the UK; Constantinople (6) over Arabia (3). Bid for control (EN:652-664):
    assert g.decision == "bid" and g.current_player == SEAT["uk"]
    assert g.to_dict()["forced_dice"] == []
    sm = settled_map(g)
    assert "Constantinople" not in sm and sm["Arabia"]["controller"] == "uk"
    act(g, "bid", in_region=1, available=0, influence=2)                 # UK 2M (in-region x2) + 2I
    act(g, "bid", decision="bid", by="france", in_region=0, available=2, influence=4)
    act(g, "bid", decision="bid", by="usa", in_region=0, available=2, influence=6)
    # the UK cannot beat 2M + 6I (its best is 2M + 6I) and has to pass; France raises to 2M + 7I
    assert g.decision == "bid" and g.current_player == SEAT["france"]
    act(g, "bid", in_region=0, available=2, influence=7)
    # the USA cannot go to 2M + 8I; only 3 military would beat France; it passes
    assert g.decision == "bid" and g.current_player == SEAT["usa"]
    assert not is_legal(g, "bid", in_region=0, available=2, influence=8)
    assert all(a.params["available"] == 3 for a in legal(g) if a.kind == "bid")
    act(g, "bid_pass")
    # France moves both units and 7 Influence to Exhausted and loses 2 Happiness (EN:664)
    d = g.to_dict()
    fr = d["players"]["france"]
    assert fr["influence"]["available"] == 3 and fr["influence"]["exhausted"] == 5 + 7
    assert fr["military"]["available"] == 0 and fr["military"]["exhausted"] == 3
    assert d["happiness"]["france"] == 18
    # the losers' bids stay where they were (EN:601)
    assert d["players"]["usa"]["influence"]["available"] == 6 and d["players"]["usa"]["military"]["available"] == 3
    assert d["players"]["uk"]["influence"]["available"] == 6
    assert d["players"]["uk"]["military"]["deployed"] == {"middle_east": 6, "pacific": 7}
    assert d["happiness"]["usa"] == 20 and d["happiness"]["uk"] == 19   # (UK -1 came from Smyrna To Greece)
    # Reset region unrest (EN:668): ME powder keg 1 -> 2, Unrest to column 3
    assert d["regions"]["middle_east"] == {"unrest": 3, "powder_keg": 2}
    # Select the option (EN:672): France gives Constantinople to Turkey: the UK naval counter of
    # Open City is removed and Balkans Unrest +1
    assert g.decision == "option" and g.current_player == SEAT["france"]
    act(g, "option", option=option_index("Constantinople", "To Turkey"))
    c = settled_map(g)["Constantinople"]
    assert c["controller"] == "france" and c["option"] == "To Turkey" and "naval_uk" not in c
    d = g.to_dict()
    assert d["regions"]["balkans"]["unrest"] == 2
    assert d["regions"]["europe"] == {"unrest": 5, "powder_keg": 0}
    assert g.scores()[SEAT["uk"]]["flags"] == 0          # ... is gone
    # Strategy cards (EN:676): already chosen earlier, so no draft; back to France's turn
    assert g.decision == "turn" and g.current_player == SEAT["france"]
    assert all(p["strategy"] is None for p in d["players"].values())


def test_comprehensive_uprising_check_roll_of_4_is_no_uprising():
    """EN:644: had the Middle East roll been 4 or less (4 - 1 = 3), no uprising; the check ends."""
    g = Game.from_dict(uprising_example_position(dice=[2, 4]))
    settle_smyrna_to_bela_kun(g)
    act(g, "modifier", decision="modifier", by="uk", delta=-1)
    assert g.decision == "turn" and g.current_player == SEAT["france"]
    d = g.to_dict()
    assert settled_map(g)["Constantinople"]["controller"] == "uk"
    assert d["regions"]["middle_east"] == {"unrest": 5, "powder_keg": 1}
    assert d["forced_dice"] == []


def test_comprehensive_uprising_check_tied_players_unit_owner_chooses():
    """EN:650: had the UK and France both controlled two ME issues, the player with the military
    unit furthest along the track (the UK's, the only one) decides who is affected."""
    g = Game.from_dict(uprising_example_position(dice=[2, 5], france_extra_me_issue=True))
    settle_smyrna_to_bela_kun(g)
    act(g, "modifier", decision="modifier", by="uk", delta=-1)
    assert g.decision == "affected" and g.current_player == SEAT["uk"]
    assert {a.params["seat"] for a in legal(g)} == {SEAT["uk"], SEAT["france"]}


def test_qa_usa_raising_to_three_units_pays_only_its_final_bid():
    """Q&A IT:2336-2347 on this example: had the USA raised to 3 units after France's 2M + 7I,
    it would win and lose only its final bid (3 units, Happiness -3); the Influence it bid
    before comes back. France, unable to beat 3 units (2 available, its third Exhausted), passes
    and keeps everything."""
    g = Game.from_dict(uprising_example_position(dice=[2, 5]))
    settle_smyrna_to_bela_kun(g)
    act(g, "modifier", delta=-1)
    act(g, "bid", in_region=1, available=0, influence=2)
    act(g, "bid", decision="bid", by="france", in_region=0, available=2, influence=4)
    act(g, "bid", decision="bid", by="usa", in_region=0, available=2, influence=6)
    act(g, "bid", decision="bid", by="france", in_region=0, available=2, influence=7)
    act(g, "bid", decision="bid", by="usa", in_region=0, available=3, influence=0)
    # France cannot beat 3 units: it passes without a decision (project ruling P-02)
    assert g.decision == "option" and g.current_player == SEAT["usa"]
    d = g.to_dict()
    assert d["players"]["usa"]["influence"] == {"available": 6, "exhausted": 9}
    assert d["players"]["usa"]["military"]["available"] == 0 and d["players"]["usa"]["military"]["exhausted"] == 3
    assert d["happiness"]["usa"] == 17
    assert d["players"]["france"]["influence"] == {"available": 10, "exhausted": 5}
    assert d["players"]["france"]["military"]["available"] == 2 and d["happiness"]["france"] == 20


# ============================================================================ 8. Strategy draft order
def test_strategy_draft_order_lowest_stars_first_ties_clockwise_from_active():
    """EN:682-690: after the first uprising the lowest star total picks first; ties go to the
    player closest clockwise to the Active Player (the Active Player wins the tie).
    France (active) settles Kurdistan (3 stars); the top event CHAIM WEIZMANN's crisis checks the
    highest region, the Balkans (column 6, 3+), die 6: the UK's Fiume is unsettled, the UK alone
    bids and keeps it. Stars: Italy 0, France 3, USA 3 (Trial of the Kaiser), UK 5.
    Order: Italy, France (tie with the USA, France is active), USA, UK."""
    slots = ["Kurdistan", "Togo", "Tyrol", "Korea", "Vietnam"]
    settled = [{"issue": "Fiume", "controller": "uk", "option": "Free City", "naval_uk": 1},
               {"issue": "Trial of the Kaiser", "controller": "usa", "option": "No Trial"}]
    g = Game.from_dict({
        "num_players": 4, "active": "france",
        "table": [{"issue": "Kurdistan", "cubes": {"france": 2}}, {"issue": "Togo"}],
        "waiting_room": [{"issue": "Tyrol"}, {"issue": "Korea"}, {"issue": "Vietnam"}],
        "settled": settled, "issue_discards": [],
        "issue_deck": issue_deck(placed=slots + ["Fiume", "Trial of the Kaiser"]),
        "events": events(waiting=["Take Ionescu", "Eleutherios Venizelos"], top=["Chaim Weizmann"]),
        "regions": regions(balkans=6),
        "forced_dice": [6],
        "strategies": {"dealt": ["14 Points", "Global Trade", "Outlawing War", "Isolationism", "Mobilization"],
                       "draft_done": False},
    })
    act(g, "settle", decision="turn", by="france", slot=0)
    act(g, "option", decision="option", by="france", option=option_index("Kurdistan", "No Kurdistan"))
    act(g, "advance_issue", decision="adv_issue", by="france", slot=0)
    act(g, "advance_event", decision="adv_event", by="france", slot=0)
    act(g, "add_issue", decision="add_issue", by="france", source=3)
    act(g, "keep", decision="keep", by="france", which=0)
    act(g, "bid", decision="bid", by="uk", in_region=0, available=0, influence=1)
    for n in ("france", "usa", "italy"):
        act(g, "bid_pass", decision="bid", by=n)
    act(g, "option", decision="option", by="uk", option=option_index("Fiume", "To Yugoslavia"))
    picks = [("italy", "Mobilization"), ("france", "Outlawing War"), ("usa", "14 Points"), ("uk", "Isolationism")]
    from helpers.scenario import STRATEGY_NUMBER
    for nation, card in picks:
        act(g, "draft", decision="draft", by=nation, strategy=STRATEGY_NUMBER[card])
    d = g.to_dict()
    assert {n: d["players"][n]["strategy"] for n, _ in picks} == dict(picks)
    assert d["strategies"]["draft_done"] is True
    assert g.decision == "turn" and g.current_player == SEAT["france"]


# ============================================================================ 9. Happiness scoring
@pytest.mark.parametrize("hap,expected", [
    ({"uk": 22, "usa": 20, "france": 18}, {"uk": 6, "usa": 3, "france": 0}),   # EN:761 Example 1
    ({"uk": 22, "usa": 22, "france": 18}, {"uk": 6, "usa": 6, "france": 0}),   # EN:761 tie variant
    ({"uk": 22, "usa": 18, "france": 18}, {"uk": 6, "usa": 3, "france": 3}),   # EN:763 Example 2
    ({"uk": 22, "usa": 20, "france": 0}, {"uk": 6, "usa": 3, "france": -5}),   # EN:759 zero box -5
])
def test_happiness_scoring_examples(hap, expected):
    """EN:751-763: 3-player Happiness VP 6/3/0; ties score the higher level and skip the next;
    a nation in the zero box loses five points."""
    # at Happiness 0 a nation keeps at most one unit (EN:533): France's others are demobilized
    players = {"france": {"military": {"demobilized": 2}}} if hap["france"] == 0 else {}
    g = Game.from_dict({"num_players": 3, "happiness": happiness(**hap), "players": players,
                        "strategies": {"draft_done": True}})
    got = {s["nation"]: s["happiness"] for s in g.scores()}
    assert got == expected


def test_happiness_scoring_four_players():
    """EN:755: four players score 6/4/2/0."""
    g = Game.from_dict({"num_players": 4, "happiness": happiness(uk=25, france=20, usa=15, italy=10),
                        "players": {"italy": {"military": {"demobilized": 1}}},   # 10 allows two units
                        "strategies": {"draft_done": True}})
    assert {s["nation"]: s["happiness"] for s in g.scores()} == {"uk": 6, "france": 4, "usa": 2, "italy": 0}
