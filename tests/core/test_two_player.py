"""The 2-player game (EN 'Two-Player Rules', EN:771-830): the USA faction run by the player whose
turn it is, the rulebook's USA examples as scenarios, scoring, positions, invariants and the envs."""
from __future__ import annotations

import json

import numpy as np
import pytest

from helpers.events import act as ev_act
from helpers.events import conference_done, happy, regions, to_conference
from helpers.events import position as ev_position
from helpers.scenario import SEAT, act, assert_illegal, issue_deck, legal, option_index
from v1919_env.actions import encode
from v1919_env.core import layout as L
from v1919_env.core.invariants import MESSAGES, random_games_checked
from v1919_env.core.observe import obs_slices
from v1919_env.game import Game, IllegalActionError, PositionError, card_tables

USA = SEAT["usa"]


def random_game(seed: int, until=None) -> Game:
    """A 2-player game played at random from `seed` (until `until(g)` holds, or to the end)."""
    g = Game.new(2, seed=seed)
    rng = np.random.default_rng(seed)
    while not g.is_over and not (until and until(g)):
        acts = g.legal_actions()
        g.step(int(acts[rng.integers(len(acts))]))
    return g


def usa_turn(table, waiting=(), owner="france", players=None, settled=(), happiness=None) -> Game:
    """A 2-player position at the USA political action of `owner`'s turn."""
    placed = [x["issue"] for x in (*table, *waiting) if x] + [x["issue"] for x in settled]
    d = {"num_players": 2, "active": "usa", "first_player": "uk", "two_player": {"turn_owner": owner},
         "table": list(table), "waiting_room": list(waiting), "players": players or {},
         "settled": list(settled), "issue_discards": [], "issue_deck": issue_deck(placed=placed),
         "strategies": {"draft_done": True}}
    if happiness:
        d["happiness"] = happiness
    return Game.from_dict(d)


# ----------------------------------------------------------------------------- setup and turn order
def test_setup_usa_has_influence_only_and_the_strategy_draft_deals_three():
    g = Game.new(2, seed=5)
    d = g.to_dict()
    assert g.num_players == 2 and g.num_factions == 3 and g.two_player
    assert set(d["players"]) == {"uk", "france", "usa"}
    assert d["players"]["usa"]["influence"] == {"available": 15, "exhausted": 0}
    assert d["players"]["usa"]["military"] == {"available": 0, "exhausted": 0, "demobilized": 0, "deployed": {}}
    assert d["players"]["uk"]["military"]["available"] == 3
    assert len(d["strategies"]["dealt"]) == 3                  # one more than the players (EN:202)
    assert d["first_player"] in ("uk", "france") and d["two_player"]["turn_owner"] == d["first_player"]
    assert [r["nation"] for r in g.scores()] == ["uk", "france"]


def test_after_each_turn_the_same_player_takes_a_usa_political_action():
    """French action(s) - USA action by France - UK action(s) - USA action by the UK (EN:789-795)."""
    g = Game.new(2, seed=11)
    first = g.current_player
    other = 1 - first
    seen = []
    while len(seen) < 5:
        key = (g.current_player, g.acting_for, g.active_player)
        if not seen or seen[-1] != key:
            seen.append(key)
        if g.acting_for == USA:
            kinds = {a.kind for a in legal(g)}
            assert kinds <= {"place", "settle", "reclaim", "pass_political"}, kinds   # no military, no end
        g.step(int(g.legal_actions()[0]))
    assert seen == [(first, first, first), (first, USA, USA), (other, other, other), (other, USA, USA),
                    (first, first, first)]


def test_usa_happiness_never_moves_and_it_never_bids_drafts_or_announces():
    """Random games: the USA marker stays put, the USA has no units, and only turn, event and
    option decisions are ever taken for it (EN:779, EN:825)."""
    allowed = {"turn", "place2", "option", "naval", "event_cube", "adv_issue", "adv_event", "add_issue", "keep",
               "uprising_issue", "optional", "choose_player", "choose_region", "branch", "sign", "unsettle",
               "waiting_issue", "keg_region"}
    for seed in range(4):
        g = Game.new(2, seed=seed)
        rng = np.random.default_rng(seed)
        h0 = int(g.state[L.HAPPY + USA])
        for_usa = set()
        while not g.is_over:
            if g.acting_for == USA:
                for_usa.add(g.decision)
                assert g.current_player == int(g.state[L.TURN_OWNER])
            acts = g.legal_actions()
            g.step(int(acts[rng.integers(len(acts))]))
            assert int(g.state[L.HAPPY + USA]) == h0
            assert g.to_dict()["players"]["usa"]["military"]["available"] == 0
        assert for_usa <= allowed, for_usa - allowed
        assert {"turn", "place2"} <= for_usa


# ----------------------------------------------------------------------------- the rulebook's examples
def test_rulebook_usa_places_the_minimum_to_lead_three_on_reparations_one_on_korea():
    """EN:804: USA 1 and UK 3 on Reparations, USA alone with 1 on Korea: France places exactly 3
    USA cubes on Reparations (4 to 3) and exactly 1 on Korea."""
    g = usa_turn(table=[{"issue": "Reconstruction", "cubes": {"usa": 1, "uk": 3}},
                        {"issue": "Korea", "cubes": {"usa": 1}}],
                 players={"usa": {"influence": {"exhausted": 0}}, "uk": {}})
    assert g.current_player == SEAT["france"] and g.acting_for == USA
    places = {(a.params["slot"], a.params["n"]) for a in legal(g) if a.kind == "place"}
    assert places == {(0, 3), (1, 1)}
    assert_illegal(g, "place", slot=0, n=4)
    assert_illegal(g, "place", slot=0, n=2)
    act(g, "place", decision="turn", by="france", slot=0, n=3)
    assert {(a.params["slot"], a.params["n"]) for a in legal(g)} == {(1, 1)}
    assert_illegal(g, "place", slot=1, n=2)
    act(g, "place", decision="place2", by="france", slot=1, n=1)
    table = g.to_dict()["table"]
    assert table[0]["cubes"] == {"uk": 3, "usa": 4} and table[1]["cubes"] == {"usa": 2}
    # the USA action ends France's turn: the UK is next
    assert g.current_player == SEAT["uk"] and g.acting_for == SEAT["uk"] and g.active_player == SEAT["uk"]


def test_illegal_usa_action_names_the_phase_and_the_usa():
    g = usa_turn(table=[{"issue": "Korea", "cubes": {"usa": 1}}, {"issue": "Togo", "cubes": {}}])
    with pytest.raises(IllegalActionError, match=r"not legal in phase 'turn' for FRANCE deciding for the USA "
                                                  r"\(2-player USA rules.*place 1 influence"):
        g.step(encode("place", slot=0, n=5))


def test_rulebook_usa_reclaim_examples_with_france_then_the_uk():
    """EN:822: USA 9 exhausted, France 3: the USA takes back 6, France up to 6 of its own (it has 3).
    Later the UK runs the USA: USA 3 exhausted, UK 12: 3 each."""
    table = [{"issue": "Korea", "cubes": {}}, {"issue": "Togo", "cubes": {}}]
    g = usa_turn(table=table, players={"usa": {"influence": {"available": 6, "exhausted": 9}},
                                       "france": {"influence": {"exhausted": 3}}})
    reclaims = sorted(a.params["n"] for a in legal(g) if a.kind == "reclaim")
    assert reclaims == [0, 1, 2, 3]
    assert all(a.params["recall"] == 0 for a in legal(g) if a.kind == "reclaim")
    assert "USA reclaims 6 influence; FRANCE reclaims 3 of its own" in g.describe(encode("reclaim", n=3, recall=0))
    assert_illegal(g, "reclaim", n=4, recall=0)
    act(g, "reclaim", decision="turn", by="france", n=3, recall=0)
    d = g.to_dict()["players"]
    assert d["usa"]["influence"] == {"available": 12, "exhausted": 3}
    assert d["france"]["influence"] == {"available": 15, "exhausted": 0}
    g = usa_turn(table=table, owner="uk", players={"usa": {"influence": {"available": 12, "exhausted": 3}},
                                                   "uk": {"influence": {"available": 3, "exhausted": 12}}})
    assert sorted(a.params["n"] for a in legal(g) if a.kind == "reclaim") == [0, 1, 2, 3]
    act(g, "reclaim", decision="turn", by="uk", n=3, recall=0)
    d = g.to_dict()["players"]
    assert d["usa"]["influence"] == {"available": 15, "exhausted": 0}
    assert d["uk"]["influence"] == {"available": 6, "exhausted": 9}


def test_usa_reclaim_is_forced_when_it_can_neither_place_nor_settle_and_pass_when_nothing_is_left():
    """EN:816: with no place (no cubes) and no settle (empty table), reclaim is all that is left; with
    nothing exhausted either the player passes (rulings A-28, P-17)."""
    table = [{"issue": "Korea", "cubes": {}}, {"issue": "Togo", "cubes": {}}]
    g = usa_turn(table=table, players={"usa": {"influence": {"available": 0, "exhausted": 15}}})
    assert {a.kind for a in legal(g)} == {"reclaim"}
    g = usa_turn(table=[{"issue": "Korea", "cubes": {"usa": 15}}, {"issue": "Togo", "cubes": {}}],
                 owner="uk", players={"usa": {"influence": {"available": 0}}})
    assert {a.kind for a in legal(g)} == {"settle"}
    g = usa_turn(table=[{"issue": "Korea", "cubes": {"uk": 3}}, {"issue": "Togo", "cubes": {}}],
                 owner="uk", players={"usa": {"influence": {"available": 0, "exhausted": 0}},
                                      "uk": {"influence": {"exhausted": 0}}},
                 waiting=[{"issue": "Vietnam", "cubes": {"usa": 15}}])
    assert [a.kind for a in legal(g)] == ["pass_political"]


def test_usa_never_settles_in_favour_of_the_player_running_it():
    """EN:806: France runs the USA: an issue France leads cannot be settled, one the UK or the USA
    leads can."""
    table = [{"issue": "Korea", "cubes": {"france": 2, "usa": 1}}, {"issue": "Togo", "cubes": {"uk": 2}}]
    g = usa_turn(table=table)
    assert {a.params["slot"] for a in legal(g) if a.kind == "settle"} == {1}
    assert_illegal(g, "settle", slot=0)
    g = usa_turn(table=table, owner="uk")
    assert {a.params["slot"] for a in legal(g) if a.kind == "settle"} == {0}


def test_usa_wins_an_issue_takes_the_least_usa_unhappiness_option_ties_for_the_controller():
    """EN:808: Korea's options cost the USA 0 and 1 happiness: only 'Independence'; Togo's cost it
    1, 1 and 2: the player running the USA picks between the first two (P-16)."""
    g = usa_turn(table=[{"issue": "Korea", "cubes": {"usa": 2}}, {"issue": "Togo", "cubes": {"usa": 1}}],
                 waiting=[{"issue": "Vietnam", "cubes": {}}])
    act(g, "settle", decision="turn", by="france", slot=0)
    assert g.decision == "option" and g.current_player == SEAT["france"] and g.acting_for == USA
    assert [a.params["option"] for a in legal(g)] == [option_index("Korea", "Independence")]
    g = usa_turn(table=[{"issue": "Togo", "cubes": {"usa": 2}}, {"issue": "Korea", "cubes": {"usa": 1}}],
                 waiting=[{"issue": "Vietnam", "cubes": {}}], owner="uk")
    act(g, "settle", decision="turn", by="uk", slot=0)
    assert [a.params["option"] for a in legal(g)] == [0, 1]
    assert_illegal(g, "option", option=2)


def test_a_player_settling_an_issue_the_usa_wins_chooses_its_option_by_the_usa_rule():
    """France settles Korea, which the USA leads: the USA controls it, the option by EN:808."""
    d = usa_turn(table=[{"issue": "Korea", "cubes": {"usa": 2, "france": 1}},
                        {"issue": "Togo", "cubes": {}}]).to_dict()
    for k in ("engine", "pending", "turn_state", "two_player"):
        d.pop(k)
    d["active"] = "france"
    g = Game.from_dict(d)
    act(g, "settle", decision="turn", by="france", slot=0)
    assert g.decision == "option" and g.acting_for == USA and g.current_player == SEAT["france"]
    assert [a.params["option"] for a in legal(g)] == [option_index("Korea", "Independence")]


@pytest.mark.parametrize("branch", [0, 1])
def test_rulebook_jan_smuts_may_choose_the_usa_and_its_controller_picks_the_branch(branch):
    """EN:812-814: Jan Smuts, 'Choose a player. They either decrease Happiness by 2 or add 2 Unrest
    to Africa.' France may name the USA and then decides for it; less happiness does nothing."""
    pos = ev_position(table_event="Jan Smuts", cube="france", unrest={"africa": 4}, active="france",
                      num_players=2)
    g = to_conference(pos)
    assert g.decision == "choose_player" and g.current_player == SEAT["france"]
    assert {a.params["seat"] for a in legal(g)} == {SEAT["uk"], SEAT["france"], USA}
    ev_act(g, "choose_player", encode("choose_player", seat=USA), "france")
    assert g.decision == "branch" and g.current_player == SEAT["france"] and g.acting_for == USA
    assert {a.params["branch"] for a in legal(g)} == {0, 1}
    before = g.to_dict()
    ev_act(g, "branch", encode("branch", branch=branch), "france")
    assert conference_done(g)
    assert happy(g) == happy(before)
    want = {**regions(before), "africa": (6, 0)} if branch == 1 else regions(before)
    assert regions(g) == want


def test_usa_may_take_a_military_branch_that_does_nothing():
    """EN:812: Ferdinand Foch ('demobilize a Military Unit or lose 2 Happiness') offers the USA both
    branches; neither changes anything."""
    g = to_conference(ev_position(table_event="Ferdinand Foch", cube="uk", active="uk", num_players=2))
    ev_act(g, "choose_player", encode("choose_player", seat=USA), "uk")
    assert {a.params["branch"] for a in legal(g)} == {0, 1}
    before = g.to_dict()
    ev_act(g, "branch", encode("branch", branch=0), "uk")
    assert conference_done(g)
    after = g.to_dict()["players"]
    assert after["usa"] == before["players"]["usa"] and happy(g) == happy(before)
    assert [after[n]["military"] for n in ("uk", "france")] == [before["players"][n]["military"]
                                                               for n in ("uk", "france")]


# ----------------------------------------------------------------------------- scoring
def test_scoring_usa_issues_score_for_nobody_and_happiness_is_six_or_zero():
    """EN:755 (6 / 0) and EN:829: the USA's issues score for nobody; the USA cannot win."""
    g = usa_turn(table=[{"issue": "Korea", "cubes": {}}, {"issue": "Togo", "cubes": {}}],
                 settled=[{"issue": "Rheinland", "controller": "usa", "option": 0},
                          {"issue": "Vietnam", "controller": "uk", "option": 0}],
                 happiness={"uk": 12, "france": 18, "usa": 20, "italy": 20, "japan": 20})
    sc = g.scores()
    assert [r["nation"] for r in sc] == ["uk", "france"]
    assert sc[0]["issues"] == 3 and sc[1]["issues"] == 0
    assert (sc[0]["happiness"], sc[1]["happiness"]) == (0, 6)
    assert sum(r["winner"] for r in sc) == 1


# ----------------------------------------------------------------------------- positions, invariants
def test_positions_round_trip_through_the_usa_action_and_bad_sections_are_named():
    for seed in range(3):
        g = random_game(seed, until=lambda g: g.acting_for == USA and g.decision == "place2")
        d = json.loads(json.dumps(g.to_dict()))
        assert d["two_player"] == {"turn_owner": d["pending"]["player"], "pending_for": "usa"}
        h = Game.from_dict(d)
        assert h.to_dict() == d and list(h.legal_actions()) == list(g.legal_actions())
        assert h.acting_for == USA
    with pytest.raises(PositionError, match="two_player: only a 2-player position"):
        Game.from_dict({"num_players": 3, "two_player": {"turn_owner": "uk"}})
    with pytest.raises(PositionError, match="two_player.turn_owner: needed when the USA faction is active"):
        Game.from_dict({"num_players": 2, "active": "usa"})
    with pytest.raises(PositionError, match="two_player.turn_owner"):
        Game.from_dict({"num_players": 2, "active": "uk", "two_player": {"turn_owner": "france"}})
    with pytest.raises(PositionError, match="players.usa.military"):
        Game.from_dict({"num_players": 2, "players": {"usa": {"military": {"available": 3}}}})
    with pytest.raises(PositionError, match="pending.player"):
        Game.from_dict({"num_players": 2, "pending": {"decision": "turn", "player": "usa"}})


def test_invariants_hold_on_every_step_of_random_two_player_games():
    _, T = card_tables()
    out = np.zeros(40, np.int64)
    for variant in range(4):
        code, game, step = random_games_checked(40, 2, T, 3 + variant, variant, variant % 2, 20000, out)
        assert code == 0, f"variant {variant}: {MESSAGES[code]} in game {game} at step {step}"
        assert out.min() > 50


def test_game_new_rejects_other_player_counts_naming_the_field():
    for bad in (0, 5, True, 2.0):          # 1 is the solitaire game (tests/core/test_solitaire_core.py)
        with pytest.raises(ValueError, match=r"num_players must be the integer 1 \(solitaire\), 2, 3 or 4"):
            Game.new(bad)


def test_same_seed_same_actions_same_game():
    a, b = random_game(21), random_game(21)
    assert a == b and a.to_dict() == b.to_dict()


# ----------------------------------------------------------------------------- environments
def test_pettingzoo_two_agents_and_the_observation_says_when_acting_for_the_usa():
    from pettingzoo.test import api_test

    from v1919_env import env as aec_env

    api_test(aec_env(2), num_cycles=400)
    e = aec_env(2)
    e.reset(seed=4)
    assert e.possible_agents == ["uk", "france"]
    o, n = obs_slices()["decider"][:2]
    rng = np.random.default_rng(0)
    seen = set()
    for agent in e.agent_iter(600):
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        decider = int(np.argmax(obs["observation"][o:o + n]))       # relative seat the decision is for
        seat = e.possible_agents.index(agent)
        assert decider == (0 if info["acting_for"] == agent else (USA - seat) % 3)
        seen.add((agent, info["acting_for"]))
        if info["acting_for"] == "usa":
            assert info["active"] == agent        # the USA is run by the player whose turn it is
        ids = obs["action_mask"].nonzero()[0]
        e.step(int(ids[rng.integers(len(ids))]))
    assert seen == {("uk", "uk"), ("france", "france"), ("uk", "usa"), ("france", "usa")}


def test_gymnasium_two_player_episode_ends_with_a_win_loss_reward():
    from gymnasium.utils.env_checker import check_env

    from v1919_env.envs.gymnasium_env import Versailles1919Env

    check_env(Versailles1919Env(num_players=2), skip_render_check=True)
    env = Versailles1919Env(num_players=2, seat=1)
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    done, reward = False, 0.0
    while not done:
        ids = obs["action_mask"].nonzero()[0]
        obs, reward, term, trunc, info = env.step(int(ids[rng.integers(len(ids))]))
        done = term or trunc
    assert reward in (-1.0, 1.0, 0.0) and len(info["scores"]) == 2


def test_cli_demo_two_players_prints_the_usa_actions(capsys):
    from v1919_env.cli import main

    assert main(["demo", "--players", "2", "--agents", "rulebot,random", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "FRANCE  for USA [turn]" in out or "UK      for USA [turn]" in out
    assert "GAME OVER" in out and "usa" in out


def test_board_picture_shows_the_usa_faction_without_a_happiness_marker():
    g = random_game(3, until=lambda g: g.decisions_taken >= 40 and g.acting_for == USA)
    svg = g.to_svg()
    assert f"{g.seat_name(g.current_player)} decides for USA" in svg
    assert 'class="happy" data-nation="usa"' not in svg and 'class="happy" data-nation="uk"' in svg
    assert "influence only" in svg and 'data-seat="usa"' in svg
    assert f"by {g.seat_name(g.current_player)} for USA" in g.render()


def test_bidding_for_an_issue_the_usa_controlled_starts_with_the_player_whose_turn_it_is():
    """EN:591: the bidding starts with the issue's controller; the USA is controlled by the player
    whose turn it is (EN:791) and does not bid (EN:825), so that player bids first (rulings A-19 c),
    whoever it is; the other player follows."""
    first_bidders = {}
    for seed in range(200):
        g = Game.new(2, seed=seed)
        rng = np.random.default_rng(seed)
        while not g.is_over:
            s = g.state
            f = L.STACK + (int(s[L.SP]) - 1) * L.FRAME_W
            if (g.decision == "bid" and s[f + L.F_PROC] == L.P_BID and s[f + L.F_A0 + 2] == USA
                    and s[L.BID_HIGH] == -1 and s[L.BID_PASSED] == 1 << USA):
                owner = int(s[L.TURN_OWNER])
                assert g.current_player == owner, (seed, g.decisions_taken)
                first_bidders[owner] = first_bidders.get(owner, 0) + 1
            acts = g.legal_actions()
            g.step(int(acts[rng.integers(len(acts))]))
        if len(first_bidders) == 2 and min(first_bidders.values()) >= 3:
            break
    assert set(first_bidders) == {SEAT["uk"], SEAT["france"]}, first_bidders     # both turn owners were seen
