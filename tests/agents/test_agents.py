"""The compiled-policy agents (rulebot, greedy, ismcts) and their search kernels: legal actions over
whole games, determinism, no reading of hidden information, registry errors, pickling, and the
search parts (determinization, tree, selection rule, rollout) tested alone."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

from agents import AgentError, agent_names, make_agent, parse_agent_spec
from v1919_env.core import layout as L
from v1919_env.core import tables as TB
from v1919_env.core.bots import POLICY_RANDOM, POLICY_RULEBOT, play_games, rollout, seed_policy_rng
from v1919_env.core.bots import bot_action
from v1919_env.core.search import tree_add, tree_reset, uct_score, widening_limit
from v1919_env.core.tree import determinize, tree_find
from v1919_env.actions import NUM_ACTIONS
from v1919_env.game import Game
from agents.seat import observe_seat

from helpers.games import mid_game, play, reorder_hidden  # noqa: E402

FAST = {"random": {}, "rulebot": {}, "greedy": {"samples": 1}, "ismcts": {"iterations": 6}}
VARIANTS = ("standard", "short15", "long10", "longest")


# ----------------------------------------------------------------------------- registry and construction
def test_registry_lists_the_agents_and_rejects_unknown_names_and_options():
    assert {"random", "rulebot", "greedy", "ismcts"} <= set(agent_names())
    with pytest.raises(AgentError, match="unknown agent 'rulebott'.*rulebot"):
        make_agent("rulebott")
    with pytest.raises(AgentError, match="no option 'iters'.*iterations"):
        make_agent("ismcts", iters=5)
    with pytest.raises(AgentError, match="rollout must be one of random, rulebot"):
        make_agent("ismcts", rollout="greedy")
    for opts, msg in (({"widen": -1}, "widen must be a number >= 0"), ({"iterations": 0}, "iterations must be an integer >= 1"),
                      ({"iterations": "abc"}, "iterations must be an integer, got 'abc'"),
                      ({"iterations": 2.5}, "iterations must be an integer"), ({"iterations": True}, "iterations"),
                      ({"time_ms": 0}, "time_ms must be a number > 0"), ({"time_ms": "5"}, "time_ms must be a number or None"),
                      ({"explore": float("nan")}, "explore must be a number"), ({"seed": "x"}, "seed must be an integer")):
        with pytest.raises(AgentError, match=msg):
            make_agent("ismcts", **opts)
    with pytest.raises(AgentError, match="samples must be an integer >= 1"):
        make_agent("greedy", samples=0)
    with pytest.raises(AgentError, match="seed must be an integer or None"):
        make_agent("rulebot", seed=1.5)
    name, opts = parse_agent_spec("ismcts:iterations=20,rollout=rulebot,time_ms=5")
    a = make_agent(name, **opts)
    assert (a.iterations, a.rollout, a.time_ms) == (20, "rulebot", 5.0)


@pytest.mark.parametrize("name", ["rulebot", "greedy", "ismcts"])
def test_agents_that_read_the_game_say_so_and_refuse_to_act_without_it(name):
    a = make_agent(name, **FAST[name])
    assert a.needs_game
    g = Game.new(4, seed=0)
    with pytest.raises(AgentError, match="needs the game"):
        a.act(None, g.action_mask())


@pytest.mark.parametrize("name", ["rulebot", "greedy", "ismcts"])
def test_agents_pickle_for_worker_processes(name):
    a = make_agent(name, seed=5, **FAST[name])
    b = pickle.loads(pickle.dumps(a))
    g = mid_game()
    a.reset(1)
    b.reset(1)
    assert a.act(None, g.action_mask(), g.clone()) == b.act(None, g.action_mask(), g.clone())


# ----------------------------------------------------------------------------- whole games
@pytest.mark.parametrize("num_players", [3, 4])
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_agent_plays_legal_actions_through_whole_games(num_players, variant):
    agents = [make_agent(n, **FAST[n]) for n in ("rulebot", "greedy", "ismcts", "random")][:num_players]
    g = play(agents, num_players, seed=VARIANTS.index(variant) + 7 * num_players, variant=variant)
    assert g.is_over and not g.truncated


@pytest.mark.parametrize("name", ["rulebot", "greedy", "ismcts"])
def test_agents_are_deterministic_given_their_seeds(name):
    runs = []
    for _ in range(2):
        rec = []
        play([make_agent(name, **FAST[name]), make_agent("random"), make_agent("random")], 3, seed=11, record=rec)
        runs.append(rec)
    assert runs[0] == runs[1]


def test_ismcts_different_seeds_search_differently():
    g = mid_game()
    a, b = make_agent("ismcts", iterations=60, seed=1), make_agent("ismcts", iterations=60, seed=2)
    a.act(None, g.action_mask(), g)
    b.act(None, g.action_mask(), g)
    assert not np.allclose(a.last_stats["means"], b.last_stats["means"])


def test_compiled_game_loop_is_deterministic_and_rulebot_beats_random():
    """play_games: per-seat policies, reproducible from the seed; the rule bot wins most 4-player
    games against three random seats (a strength check, far from the measured ~99%)."""
    n = 40
    out = []
    for _ in range(2):
        sc, w, d = np.zeros((n, 4), np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
        _, T = Game.new(4).cards, Game.new(4).T
        play_games(n, 4, T, np.array([POLICY_RULEBOT, POLICY_RANDOM, POLICY_RANDOM, POLICY_RANDOM]), 5, 0, 0, sc, w, d)
        out.append((sc.copy(), w.copy(), d.copy()))
    assert all(np.array_equal(x, y) for x, y in zip(out[0], out[1]))
    assert np.mean(out[0][1] & 1) > 0.7


# ----------------------------------------------------------------------------- ISMCTS details
def test_ismcts_answers_a_forced_decision_without_search():
    g = Game.new(4, seed=0)
    while len(g.legal_actions()) != 1:
        g.step(g.legal_actions()[0])
    a = make_agent("ismcts", iterations=50)
    assert a.act(None, g.action_mask(), g) == int(g.legal_actions()[0])
    assert a.last_stats is None and a.tree.iterations == 0


def test_ismcts_budget_in_iterations_and_in_milliseconds():
    g = mid_game()
    a = make_agent("ismcts", iterations=37, seed=0)
    a.act(None, g.action_mask(), g)
    assert a.last_stats["iterations"] == 37 and a.last_stats["visits"].sum() == 37
    t = make_agent("ismcts", time_ms=30, seed=0)
    t.act(None, g.action_mask(), g)
    assert t.last_stats["iterations"] >= 16


@pytest.mark.parametrize("name,opts", [("ismcts", {"iterations": 80, "rollout": "random"}),
                                       ("ismcts", {"iterations": 40, "rollout": "rulebot"}),
                                       ("greedy", {"samples": 2})])
def test_search_never_reads_the_hidden_deck_order_or_dice(name, opts):
    """Two games that differ only in what no player sees give the same decision and (ismcts) the
    same statistics, with the same agent seed."""
    for seed in (3, 8):
        g = mid_game(seed=seed)
        h = reorder_hidden(g, seed)
        a, b = make_agent(name, seed=1, **opts), make_agent(name, seed=1, **opts)
        assert a.act(None, g.action_mask(), g) == b.act(None, h.action_mask(), h)
        if name == "ismcts":
            assert np.array_equal(a.last_stats["visits"], b.last_stats["visits"])
            assert np.allclose(a.last_stats["means"], b.last_stats["means"])


def test_search_leaves_the_game_it_is_given_unchanged():
    g = mid_game()
    before = g.state.copy()
    for name in ("ismcts", "greedy", "rulebot"):
        make_agent(name, **FAST[name]).act(None, g.action_mask(), g)
        assert np.array_equal(g.state, before)


# ----------------------------------------------------------------------------- the search parts alone
@pytest.mark.parametrize("variant", VARIANTS)
def test_determinize_resamples_only_the_hidden_parts(variant):
    g = Game.new(4, seed=2, variant=variant)
    for _ in range(60):
        g.step(g.legal_actions()[0])
    s = g.state.copy()
    determinize(s, g.T, seed_policy_rng(9))
    a, b = g.to_dict(), Game(s, g.cards, g.T).to_dict()
    for d in (a, b):
        d["engine"].pop("digest", None)           # seals the whole position, hidden parts included
    ge = int(g.T[TB.T_GAME_END])
    n = int(s[L.ISSUE_DECK_N])
    assert sorted(a["issue_deck"]) == sorted(b["issue_deck"]) and a["issue_deck"] != b["issue_deck"]
    assert sorted(a["events"]["deck"]) == sorted(b["events"]["deck"])
    if int(g.T[TB.T_VAR_SHUFFLE + int(s[L.VARIANT])]) == 0:
        assert list(s[L.ISSUE_DECK:L.ISSUE_DECK + n]).index(ge) == list(g.state[L.ISSUE_DECK:L.ISSUE_DECK + n]).index(ge)
    else:
        k = int(g.T[TB.T_VAR_SHUFFLE + int(s[L.VARIANT])]) + 1
        assert ge in s[L.ISSUE_DECK:L.ISSUE_DECK + k]
    for key in set(a) - {"issue_deck", "events", "rng"}:
        assert a[key] == b[key], key
    assert a["events"]["table"] == b["events"]["table"] and a["events"]["waiting_room"] == b["events"]["waiting_room"]


def test_tree_add_find_and_capacity():
    TF, TI = np.zeros((3, 3)), np.zeros((3, 2), np.int64)
    hk, hv, meta = np.full(8, -1, np.int64), np.zeros(8, np.int64), np.zeros(2, np.int64)
    tree_reset(TF, TI, hk, meta)
    assert tree_find(hk, hv, 0, 5) == -1
    c = tree_add(TF, TI, hk, hv, meta, 0, 5, 2)
    assert c == 1 and tree_find(hk, hv, 0, 5) == 1 and TI[1, 0] == 2 and TI[1, 1] == 5
    assert tree_find(hk, hv, 1, 5) == -1
    assert tree_add(TF, TI, hk, hv, meta, 1, 5, 0) == 2 and tree_find(hk, hv, 1, 5) == 2
    assert tree_add(TF, TI, hk, hv, meta, 0, 7, 0) == -1           # full


def test_uct_prefers_the_better_mean_then_the_less_visited():
    TF = np.array([[0, 0, 0], [10, 20, 8], [10, 20, 2], [2, 20, 1], [0, 1, 0]], np.float64)
    assert uct_score(TF, 1, 0.7) > uct_score(TF, 2, 0.7)
    assert uct_score(TF, 3, 0.7) > uct_score(TF, 2, 0.7)              # same mean 0.5 vs 0.2 + bonus
    assert uct_score(TF, 1, 0.0) == pytest.approx(0.8)
    assert uct_score(TF, 4, 0.7) > 1e29                                 # never visited: tried first


def test_progressive_widening_tries_the_rule_bots_choice_first():
    """Turn decisions offer hundreds of actions: a node widens as 1 + widen * sqrt(visits), and its
    first child is the rule bot's choice; widen=0 tries every legal action."""
    assert [widening_limit(v, 1.0) for v in (0, 1, 4, 100)] == [1, 2, 3, 11]
    assert widening_limit(100, 0.0) > 10 ** 6
    g = mid_game(decisions=400)
    while g.decision != "turn" or len(g.legal_actions()) < 20:
        g.step(int(bot_action(g.state, g.T, np.empty(L.MAX_LEGAL, np.int64), seed_policy_rng(0))))
    expected = int(bot_action(g.state, g.T, np.empty(L.MAX_LEGAL, np.int64), seed_policy_rng(0)))
    a = make_agent("ismcts", iterations=1, seed=0)
    a.act(None, g.action_mask(), g)
    assert a.last_stats["visits"][list(a.last_stats["actions"]).index(expected)] == 1
    a = make_agent("ismcts", iterations=100, seed=0)
    a.act(None, g.action_mask(), g)
    assert 1 < (a.last_stats["visits"] > 0).sum() <= widening_limit(99, 1.0)
    b = make_agent("ismcts", iterations=100, widen=0, seed=0)
    b.act(None, g.action_mask(), g)
    assert (b.last_stats["visits"] > 0).sum() == min(100, len(g.legal_actions()))


@pytest.mark.parametrize("policy", [POLICY_RANDOM, POLICY_RULEBOT])
def test_rollout_ends_the_game(policy):
    g = mid_game()
    s = g.state.copy()
    k = rollout(s, g.T, np.full(4, policy, np.int64), np.empty(L.MAX_LEGAL, np.int64), seed_policy_rng(0), 100000)
    assert k > 0 and s[L.GAME_OVER] in (1, 3)


def test_search_reward_in_the_solitaire_game_is_the_players_vp_and_the_win_at_the_level():
    """#22: `winners` always names the one solitaire player, so a win share told the search nothing;
    the reward is half the VP against the level plus half for a win (EN:838, EN:959)."""
    from v1919_env.core.search import outcome_rewards
    from v1919_env.core.scoring import N_SCORE_COLS

    out, r = np.zeros((L.MAX_PLAYERS, N_SCORE_COLS), np.int64), np.zeros(L.MAX_PLAYERS)
    g = Game.new(1, seed=3, target_vp=20)
    for vp, want in ((0, 0.0), (5, 0.125), (19, 0.475), (20, 1.0), (26, 1.15)):
        s = g.state.copy()
        s[L.SOLO_VP] = vp
        r[:] = -1
        outcome_rewards(s, g.T, out, r)
        assert r[0] == pytest.approx(want) and (r[1:] == 0).all()
    three = Game.new(3, seed=3)            # the other games keep the win shares
    s = three.state.copy()
    outcome_rewards(s, three.T, out, r)
    assert r[:3].sum() == pytest.approx(1.0)


def test_learned_feeds_a_version_1_checkpoint_the_prefix_it_was_trained_on():
    """The PPO weights shipped before the league observe version 1 (2012 values); version 2 appended
    seat_nation, so the agent gives them the prefix (docs/versioning.md)."""
    from agents.learned import V1_WEIGHTS, LearnedAgent
    from v1919_env.core.observe import OBS_SIZE, obs_slices

    agent = LearnedAgent(path=str(V1_WEIGHTS))
    assert agent.obs_size == obs_slices()["seat_nation"][0] < OBS_SIZE
    g = Game.new(4, seed=2)
    obs, mask = observe_seat(g, g.current_player)
    p = agent.action_probabilities(obs, mask)
    assert p.shape == (NUM_ACTIONS,) and abs(p.sum() - 1) < 1e-6 and p[mask == 0].sum() == 0
    # the appended slice cannot change what a version-1 policy plays
    other = obs.copy()
    other[agent.obs_size:] = 1.0 - other[agent.obs_size:]
    assert np.array_equal(agent.action_probabilities(other, mask), p)


def test_learned_rejects_a_checkpoint_of_another_observation_size(tmp_path):
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    from agents.learned import LearnedAgent

    class Env(gym.Env):
        observation_space = gym.spaces.Box(0, 1, (100,), np.float32)
        action_space = gym.spaces.Discrete(NUM_ACTIONS)

    MaskablePPO("MlpPolicy", Env(), n_steps=8, batch_size=8).save(tmp_path / "small.zip")
    with pytest.raises(ValueError, match=r"observes shape \(100,\)"):
        LearnedAgent(path=str(tmp_path / "small.zip"))


def test_learned_default_weights_follow_the_player_count(tmp_path, monkeypatch, caplog):
    """Without a path the agent plays the shipped weights of the game's player count, switching at the
    first decision; a count without shipped weights is played by the 4-player weights, with a warning."""
    import shutil

    import agents.learned as learned
    from agents.learned import LearnedAgent

    three = tmp_path / "three.zip"
    shutil.copy(learned.DEFAULT_WEIGHTS, three)
    monkeypatch.setitem(learned.SHIPPED_WEIGHTS, 3, three)
    monkeypatch.setitem(learned.SHIPPED_WEIGHTS, 2, tmp_path / "missing.zip")
    agent = LearnedAgent()
    assert agent.needs_game and agent.players == 4
    for n, path in ((3, str(three)), (4, str(learned.DEFAULT_WEIGHTS)), (2, str(learned.DEFAULT_WEIGHTS))):
        g = Game.new(n, seed=1)
        obs, mask = observe_seat(g, g.current_player)
        a = agent.act(obs, mask, game=g.clone())
        assert mask[a] and agent.players == n and agent.path == path
    assert "no shipped weights for the 2-player game" in caplog.text
