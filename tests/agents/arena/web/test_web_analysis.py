"""The web app's seating choice, legal actions placed on the board, and the analysis of a position
(the search's view of each move, the network's win probability along the game)."""
from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

from agents.arena.web.analysis import check_analysis_spec
from agents.arena.web.app import create_app
from agents.arena.web.store import Store
from helpers.web_tab import tab
from v1919_env.actions import decode
from v1919_env.records import check_record, replay, result_differences

AGENTS = ("random", "rulebot")
ANALYSIS = "ismcts:iterations=60"


@pytest.fixture
def client(tmp_path):
    db = str(tmp_path / "games.sqlite3")
    with TestClient(create_app(db, agents=AGENTS, bot_delay=0, analysis=ANALYSIS)) as c:
        c.db = db
        yield c


def start(client, body) -> str:
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()["game"]


def test_a_chosen_seating_is_played_kept_and_replayed_from_the_record(client):
    gid = start(client, {"num_players": 3, "seats": ["random"] * 3, "seating": ["uk", "usa", "france"]})
    with tab(client, f"/ws/{gid}") as ws:
        m = ws.receive_json()
        assert m["seating"] == ["uk", "usa", "france"]
        while not m["over"]:
            m = ws.receive_json()
    rec = json.loads(client.get(f"/api/games/{gid}/record").text)
    assert rec["seating"] == ["uk", "usa", "france"]
    check_record(rec)
    assert result_differences(rec, replay(rec)) == []
    # any rotation of a seating is the same table
    gid2 = start(client, {"num_players": 4, "seats": ["random"] * 4, "seating": ["usa", "france", "uk", "italy"]})
    assert Store(client.db).load(gid2)[0]["seating"] == ["uk", "italy", "usa", "france"]


def test_the_index_offers_every_clockwise_order_with_uk_first(client):
    html = client.get("/").text
    assert '"4": [["uk", "france", "usa", "italy"]' in html and '["uk", "italy", "usa", "france"]' in html


def test_legal_actions_with_a_place_on_the_board_carry_it(client):
    gid = start(client, {"num_players": 4, "seats": ["human", "random", "random", "random"]})
    with tab(client, f"/ws/{gid}") as ws:
        m = ws.receive_json()
        while not m["human_to_move"]:
            m = ws.receive_json()
    kinds = {decode(a["action"])[0]: a.get("place") for a in m["legal"]}
    assert kinds, m["decision"]
    for a in m["legal"]:
        kind, p = decode(a["action"])
        if kind == "place":         # an issue card, by its slot
            assert a["place"] == {"class": "issue", "slot": str(p["slot"])}
            assert f'class="issue" data-slot="{p["slot"]}"' in m["svg"]
        if kind == "reclaim":       # no place: chosen from the list
            assert "place" not in a


def test_the_analysis_gives_the_search_view_of_every_move_and_the_win_probability(client):
    gid = start(client, {"num_players": 4, "seats": ["human", "random", "random", "random"]})
    with tab(client, f"/ws/{gid}") as ws:
        m = ws.receive_json()
        while not m["human_to_move"] or len(m["legal"]) < 2:
            if m["human_to_move"]:
                ws.send_text(json.dumps({"type": "act", "step": m["step"], "seat": m["to_move"],
                                         "action": m["legal"][0]["action"]}))
            m = ws.receive_json()
        ws.send_text(json.dumps({"type": "analyze", "step": m["step"]}))
        a = ws.receive_json()
    assert a["type"] == "analysis" and a["step"] == m["step"]
    s = a["search"]
    assert s["seat"] == m["to_move"] and s["agent"] == ANALYSIS and s["simulations"] == 60
    assert sorted(x["action"] for x in s["moves"]) == sorted(x["action"] for x in m["legal"])
    assert abs(sum(x["share"] for x in s["moves"]) - 1) < 1e-9
    assert s["moves"] == sorted(s["moves"], key=lambda x: -x["visits"])
    assert all(x["value"] is None or 0 <= x["value"] <= 1 for x in s["moves"])     # ismcts: a win share
    wp = a["win_probability"]
    if wp["error"] is None:         # the train extra is there
        assert len(wp["p"]) == m["step"] + 1
        assert all(len(row) == 4 and abs(sum(row) - 1) < 1e-3 for row in wp["p"])
    else:
        assert "torch" in wp["error"]
    assert str(Store(client.db).load(gid)[0]["seed"]) not in json.dumps(a)


def test_a_stale_analysis_request_is_refused_and_a_game_over_still_gets_its_curve(client):
    gid = start(client, {"num_players": 2, "seats": ["random", "random"]})
    with tab(client, f"/ws/{gid}") as ws:
        m = ws.receive_json()
        while not m["over"]:
            m = ws.receive_json()
        ws.send_text(json.dumps({"type": "analyze", "step": m["step"] - 1}))
        e = ws.receive_json()
        assert e["type"] == "error" and "stale" in e["error"]
        ws.send_text(json.dumps({"type": "analyze", "step": m["step"], "extra": 1}))
        assert "unknown field" in ws.receive_json()["error"]
        ws.send_text(json.dumps({"type": "analyze", "step": m["step"]}))
        a = ws.receive_json()
    assert a["search"] is None
    if a["win_probability"]["error"] is None:
        assert len(a["win_probability"]["p"]) == m["step"] + 1


@pytest.mark.parametrize("spec,said", [("random", "search agent"), ("ismcts:iterations=0", "iterations")])
def test_the_analysis_agent_must_be_a_search(spec, said):
    with pytest.raises(ValueError, match=said):
        check_analysis_spec(spec)


def test_the_curve_follows_an_undo_and_other_moves():
    """The win-probability curve kept between requests is recomputed from where the moves differ."""
    pytest.importorskip("sb3_contrib")
    import numpy as np

    from agents.arena.web.analysis import Analyst
    from agents.arena.win_probability import WinProbability
    from v1919_env.game import Game

    start, rng = Game.new(3, seed=4), np.random.default_rng(1)
    g, actions, choices = start.clone(), [], []
    for k in range(16):
        legal = g.legal_actions()
        if len(legal) > 1:
            choices.append(k)
        actions.append(int(rng.choice(legal)))
        g.step(actions[-1])
    at = choices[len(choices) // 2]             # a move with another legal choice
    other, branch = start.clone(), actions[:at]
    for a in branch:
        other.step(a)
    while len(branch) < len(actions):           # as many moves, another one at `at`
        legal = [int(x) for x in other.legal_actions()]
        branch.append(next(x for x in legal if x != actions[at]) if len(branch) == at else legal[0])
        other.step(branch[-1])
    analyst = Analyst(ANALYSIS, 3, 0)
    analyst.win_probability(start, actions)
    got = analyst.win_probability(start, branch)["p"]
    assert np.allclose(got, WinProbability(3).curve(start, branch), atol=1e-4)
