"""The agent loop (agents/arena/play.py), game records and exact replays (v1919_env/records.py), `v1919 play`
and `v1919 replay`, and the learned agent."""
from __future__ import annotations

import json

import numpy as np
import pytest

from helpers import agent_fixtures  # noqa: F401  (registers the test agents)
from agents import AgentError, make_agent
from agents.arena.play import default_lineup, parse_agents_arg, run_game, seat_spec
from v1919_env.records import (RECORD_FORMAT, RecordError, find_game, game_result, read_games, replay,
                               result_differences, write_record)
from v1919_env.cli import main


def play(names, seed=0, n=4, **kw):
    specs = [seat_spec(x) if isinstance(x, str) else x for x in names]
    agents = [make_agent(s["agent"], **s["options"]) for s in specs]
    return run_game(agents, specs, num_players=n, seed=seed, **kw)


def test_record_fields_and_exact_replay():
    rec = play(["random"] * 4, seed=5)
    assert rec["format"] == RECORD_FORMAT and rec["version"] == 1
    assert [s["agent"] for s in rec["seats"]] == ["random"] * 4 and all("seed" in s for s in rec["seats"])
    res = rec["result"]
    assert res["forfeit"] is None and res["decisions"] == len(rec["actions"])
    assert sorted(res["ranks"])[0] == 1 and res["winners"] == [p for p in range(4) if res["ranks"][p] == 1]
    assert {"issues", "flags", "strategy", "happiness", "total"} <= set(res["scores"][0])
    g = replay(rec)
    assert g.is_over and result_differences(rec, g) == []
    # same seed: the same game, bit for bit; another seed: another game
    assert play(["random"] * 4, seed=5)["actions"] == rec["actions"]
    assert play(["random"] * 4, seed=6)["actions"] != rec["actions"]


def test_ranks_follow_the_rules_tie_break():
    g = replay(play(["random"] * 3, seed=2, n=3))
    res = game_result(g)
    keys = [(s["total"], s["happiness_level"], s["issues_controlled"]) for s in res["scores"]]
    for p in range(3):
        assert res["ranks"][p] == 1 + sum(k > keys[p] for k in keys)
    assert [s["winner"] for s in res["scores"]] == [p in res["winners"] for p in range(3)]


def test_tampered_record_is_caught():
    rec = play(["random"] * 4, seed=1)
    bad = json.loads(json.dumps(rec))
    bad["result"]["scores"][2]["total"] += 1
    diffs = result_differences(bad, replay(bad))
    assert diffs[0].startswith(f"digest: recorded {rec['digest']!r}") and "edited after it was written" in diffs[0]
    assert diffs[1:] == [f"seat 2 total: recorded {rec['result']['scores'][2]['total'] + 1}, "
                         f"replayed {rec['result']['scores'][2]['total']}"]
    del bad["digest"]                 # a record written before digests: the replay alone judges it
    assert len(result_differences(bad, replay(bad))) == 1
    short = dict(rec, actions=rec["actions"][:-1])
    assert any("not over" in d for d in result_differences(short, replay(short)))
    wrong = dict(rec, actions=[10 ** 6] + rec["actions"][1:])
    with pytest.raises(RecordError, match="step 0"):
        replay(wrong)


@pytest.mark.parametrize("edit", ["negotiation", "label", "agent", "seed of a seat", "tournament"])
def test_a_record_edited_where_the_replay_cannot_see_it_is_not_exact(edit):
    """Flipping negotiation on a game where nobody negotiated, or renaming a seat's agent, replays the
    same moves: the digest written with the record is what tells (issue 43)."""
    rec = play(["random"] * 4, seed=1)
    assert result_differences(rec, replay(rec)) == []
    bad = json.loads(json.dumps(rec))
    if edit == "negotiation":
        bad["negotiation"] = True
    elif edit == "label":
        bad["seats"][0]["label"] = "bogus"
    elif edit == "agent":
        bad["seats"][0]["agent"] = "rulebot"
    elif edit == "seed of a seat":
        bad["seats"][1]["seed"] += 1
    else:
        bad["tournament"] = {"name": "x", "fingerprint": "y"}
    assert [d.split(":")[0] for d in result_differences(bad, replay(bad))] == ["digest"]


@pytest.mark.parametrize("agent, reason", [
    (seat_spec("test_raises", {"at": 2}), "raised RuntimeError: test agent failure"),
    (seat_spec("test_illegal"), "which is not legal now"),
    (seat_spec("test_illegal", {"value": "x"}), "not an integer action id"),
    (seat_spec("test_illegal", {"value": 10 ** 9}), "outside 0.."),
])
def test_a_failing_agent_forfeits(agent, reason):
    rec = play([agent, "random", "random", "random"], seed=3)
    f = rec["result"]["forfeit"]
    assert f["seat"] == 0 and reason in f["reason"] and f["label"] == agent["label"]
    assert f["step"] == len(rec["actions"])
    assert rec["result"]["ranks"][0] == 4 and 0 not in rec["result"]["winners"]
    assert sorted(rec["result"]["ranks"][1:])[0] == 1
    g = replay(rec)
    assert not g.is_over and result_differences(rec, g) == []


def test_agents_that_read_the_game_get_a_clone():
    rec = play(["test_meddler", "random", "random", "random"], seed=4)
    assert rec["result"]["forfeit"] is None
    assert result_differences(rec, replay(rec)) == []


def test_parse_agents_arg():
    specs = parse_agents_arg("random:seed=3,random,test_raises:at=2,human")
    assert [(s["agent"], s["options"]) for s in specs] == [("random", {"seed": 3}), ("random", {}),
                                                         ("test_raises", {"at": 2}), ("human", {})]
    assert parse_agents_arg("test_illegal:value=5,random")[0]["options"] == {"value": 5}
    assert [s["label"] for s in parse_agents_arg("random,random:seed=1")] == ["random", "random:seed=1"]
    with pytest.raises(AgentError, match="before any agent"):
        parse_agents_arg("seed=3,random")
    with pytest.raises(AgentError, match="empty agent name"):
        parse_agents_arg("random,,random")


def test_demo_lineup_falls_back_to_random_for_missing_agents():
    specs, notes = default_lineup(4, preferred=("random:seed=1", "no_such_bot", "random", "random:bogus=1"))
    assert [s["agent"] for s in specs] == ["random"] * 4
    assert specs[0]["options"] == {"seed": 1}
    assert len(notes) == 2 and "no_such_bot" in notes[0] and "bogus" in notes[1]


def test_cli_play_record_and_replay(tmp_path, capsys):
    path = tmp_path / "g.jsonl"
    assert main(["play", "--agents", "random,random:seed=4,random", "--seed", "9", "--record", str(path)]) == 0
    out = capsys.readouterr().out
    assert "[turn]" in out and "winner" in out and "rank" in out
    rec = read_games(path)[0]
    assert rec["num_players"] == 3 and rec["seed"] == 9
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "ok: the replay reproduces the recorded result of game 0 exactly" in out
    assert out.count("[") >= len(rec["actions"])
    assert main(["replay", str(path), "--to", "10", "--quiet"]) == 0
    assert "stopped after step 10" in capsys.readouterr().out
    assert main(["replay", str(path), "--game", "7"]) == 2
    assert "no game 7" in capsys.readouterr().err
    rec["result"]["winners"] = [0, 1, 2]
    bad = tmp_path / "bad.jsonl"
    with open(bad, "w") as fh:
        write_record(fh, rec)
    assert main(["replay", str(bad), "--quiet"]) == 1
    assert "does NOT reproduce" in capsys.readouterr().err


def test_cli_play_rejects_bad_agents(capsys):
    assert main(["play", "--agents", "random,random,random,random,random"]) == 2     # one agent: solitaire
    assert "1 (solitaire), 2, 3 or 4 agents" in capsys.readouterr().err
    assert main(["play", "--agents", "random,nobody,random,random"]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err


def test_read_games_errors(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text('{"format": "other"}\n')
    with pytest.raises(RecordError, match="line 1: format"):
        read_games(p)
    rec = play(["random"] * 4, seed=0)
    p.write_text(json.dumps(rec) + "\nnot json\n" + json.dumps(rec) + "\n")
    with pytest.raises(RecordError, match="line 2: not JSON"):
        read_games(p)
    p.write_text(json.dumps(rec) + "\n" + json.dumps(rec)[:50])
    with pytest.raises(RecordError, match="incomplete"):
        read_games(p)
    assert find_game([rec], None) is rec
    with pytest.raises(RecordError, match="holds no game"):
        find_game([], 0)


# ---------------------------------------------------------------------- learned
@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    import v1919_env

    torch.set_num_threads(1)
    env = v1919_env.gym_env(num_players=4, obs_mode="dict")
    model = MaskablePPO("MultiInputPolicy", env, n_steps=16, batch_size=16, seed=0,
                        policy_kwargs={"net_arch": [16]})
    path = tmp_path_factory.mktemp("ckpt") / "tiny.zip"
    model.save(path)
    return str(path)


def test_learned_agent_plays_legal_reproducible_games(checkpoint):
    det = seat_spec("learned", {"path": checkpoint})
    rec = play([det, "random", "random", "random"], seed=2)
    assert rec["result"]["forfeit"] is None and result_differences(rec, replay(rec)) == []
    assert play([det, "random", "random", "random"], seed=2)["actions"] == rec["actions"]
    sampled = seat_spec("learned", {"path": checkpoint, "deterministic": False})
    a = play([sampled, "random", "random", "random"], seed=2)
    assert a["result"]["forfeit"] is None
    assert play([sampled, "random", "random", "random"], seed=2)["actions"] == a["actions"]


def test_learned_agent_masks_and_refuses_bad_files(checkpoint, tmp_path):
    agent = make_agent("learned", path=checkpoint)
    mask = np.zeros(agent.model.action_space.n, np.int8)
    mask[[3, 17]] = 1
    obs = np.zeros(agent.model.observation_space["observation"].shape, np.float32)
    p = agent.action_probabilities(obs, mask)
    assert p[[3, 17]].sum() == pytest.approx(1.0) and np.count_nonzero(p) <= 2
    assert agent.act(obs, mask) in (3, 17)
    with pytest.raises(AgentError, match="no checkpoint file"):
        make_agent("learned", path=str(tmp_path / "none.zip"))
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip")
    with pytest.raises(AgentError, match="cannot load"):
        make_agent("learned", path=str(junk))


def test_demo_plays_the_preferred_bots_when_registered(capsys):
    from agents import agent_names
    from agents.arena.play import DEMO_LINEUP

    specs, notes = default_lineup(4)
    for text, spec in zip(DEMO_LINEUP, specs):
        name = text.partition(":")[0]
        assert spec["agent"] == (name if name in agent_names() else "random") or any(text in n for n in notes)
    assert main(["demo", "--agents", "random,random:seed=2,random", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "-- turn 1:" in out and "winner" in out and "random:seed=2" in out
    assert main(["demo", "--agents", "random,random,random", "--players", "4"]) == 2


def test_the_scoring_table_shows_whole_agent_labels(capsys):
    """A label with its options is printed whole, not cut at the column width."""
    long = "ismcts:iterations=3,rollout=random,explore=0.7,widen=1.0"
    assert main(["demo", "--agents", f"{long},random,random", "--seed", "4", "--no-log"]) == 0
    rows = [r for r in capsys.readouterr().out.splitlines() if r.startswith(("uk ", "france ", "usa "))]
    assert any(long + " " in r for r in rows)


def test_learned_agent_reads_vector_checkpoints(tmp_path):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    import v1919_env

    env = v1919_env.gym_env(num_players=4, obs_mode="vector")
    path = tmp_path / "vec.zip"
    MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16, seed=0, policy_kwargs={"net_arch": [8]}).save(path)
    agent = make_agent("learned", path=str(path))
    assert not agent.dict_obs
    rec = play([seat_spec("learned", {"path": str(path)}), "random", "random", "random"], seed=1)
    assert rec["result"]["forfeit"] is None


@pytest.mark.slow
def test_learned_agent_in_tournament_workers(checkpoint, tmp_path):
    from agents.arena.tournament import config_from_dict, play_games

    cfg = config_from_dict({"num_players": 4, "games": 4, "workers": 1, "agents": [
        {"name": "learned", "options": {"path": checkpoint, "deterministic": False}},
        "random", "random:seed=1", "random:seed=2"]})
    assert play_games(cfg, tmp_path, progress=False)["played"] == 4
    recs = read_games(tmp_path / "games.jsonl")
    assert all(r["result"]["forfeit"] is None for r in recs)
    assert all(result_differences(r, replay(r)) == [] for r in recs)


def test_agents_import_without_torch():
    import subprocess
    import sys

    code = ("import sys, agents, agents.arena.play, v1919_env.records, agents.arena.tournament, agents.arena.commands; "
            "agents.agent_options('learned'); assert 'torch' not in sys.modules, 'torch imported'")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
