"""The network-guided search (`guided`, agents/guided.py and agents/guided_kernels.py): legal actions
over whole games, determinism given a seed, no reading of hidden information, the exact values of
finished games in the tree, the tree's bookkeeping, the batched network evaluation, the player-count
check and the option errors."""
from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents import AgentError, make_agent, parse_agent_spec  # noqa: E402
from agents.guided import checkpoint_facts, solo_leaf_value  # noqa: E402
from agents.guided_kernels import F_PENDING, F_VALUE, F_VISITS, child_of  # noqa: E402
from agents.learned import DEFAULT_WEIGHTS, SHIPPED_CONFIGS, SHIPPED_WEIGHTS  # noqa: E402
from agents.seat import observe_seat  # noqa: E402
from v1919_env.game import Game  # noqa: E402
from v1919_env.rewards import terminal_rewards  # noqa: E402

from helpers.games import mid_game, play, reorder_hidden  # noqa: E402

FAST = {"iterations": 12, "batch_size": 4}


def last_decision(seed):
    """The last decision of a 4-player rule-bot game (it has an action that ends the game)."""
    g = Game.new(4, seed=seed)
    bots = [make_agent("rulebot") for _ in range(4)]
    last = None
    while not g.is_over:
        if len(g.legal_actions()) > 1:
            last = g.clone()
        g.step(bots[g.current_player].act(None, g.action_mask(), g.clone()))
    return last


@pytest.fixture(scope="module")
def guided():
    return make_agent("guided", seed=0, **FAST)


# ----------------------------------------------------------------------------- options
def test_options_are_validated_with_clear_errors():
    for opts, msg in (({"iterations": 0}, "iterations must be an integer >= 1"),
                      ({"batch_size": 0}, "batch_size must be an integer >= 1"),
                      ({"batch_size": 2.5}, "batch_size must be an integer"),
                      ({"time_ms": 0}, "time_ms must be a number > 0"),
                      ({"c_puct": -1}, "c_puct must be a number >= 0"),
                      ({"virtual_loss": -0.5}, "virtual_loss must be a number >= 0"),
                      ({"prior_temperature": 0}, "prior_temperature must be a number > 0"),
                      ({"temperature": -1}, "temperature must be a number >= 0"),
                      ({"fpu": "x"}, "fpu must be a number"),
                      ({"max_nodes": 1}, "max_nodes must be an integer >= 2"),
                      ({"seed": 1.5}, "seed must be an integer or None"),
                      ({"players": 5}, "players must be 2, 3, 4, 'any' or None"),
                      ({"players": True}, "players must be 2, 3, 4"),
                      ({"reward": "points"}, "reward must be one of win_loss, rank, score_margin"),
                      ({"reward": {"points": 1.0}}, "unknown kind 'points'"),
                      ({"reward": {"rank": "x"}}, "reward\\['rank'\\] must be a number"),
                      ({"path": "/no/such/file.zip"}, "option path: no checkpoint file"),
                      ({"path": 3}, "path must be a checkpoint path"),
                      ({"rollout_mix": 1.5}, "rollout_mix must be between 0 and 1"),
                      ({"rollout_mix": -0.1}, "rollout_mix must be a number >= 0"),
                      ({"rollout": "greedy"}, "rollout must be one of"),
                      ({"max_rollout": 0}, "max_rollout must be an integer >= 1"),
                      ({"heuristic_mix": -1}, "heuristic_mix must be a number >= 0"),
                      ({"rollout_mix": 0.6, "heuristic_mix": 0.5}, "rollout_mix \\+ heuristic_mix must be at most 1"),
                      ({"heuristic_scale": 0}, "heuristic_scale must be a number > 0"),
                      ({"bot_prior": 1.5}, "bot_prior must be between 0 and 1")):
        with pytest.raises(AgentError, match=msg):
            make_agent("guided", **opts)
    with pytest.raises(AgentError, match="no option 'iters'.*iterations"):
        make_agent("guided", iters=5)
    name, opts = parse_agent_spec("guided:iterations=20,batch_size=8,c_puct=2.5,time_ms=5,reward=rank,players=any,path=agents/weights/league_4p.zip")
    a = make_agent(name, **opts)
    assert (a.iterations, a.batch_size, a.c_puct, a.time_ms, a.reward, a.players) == (20, 8, 2.5, 5.0, {"rank": 1.0}, None)


def test_the_shipped_weights_are_known_by_the_configs_that_made_them(tmp_path):
    import yaml

    for n, ck in SHIPPED_WEIGHTS.items():
        cfg = yaml.safe_load(open(SHIPPED_CONFIGS[n]))
        assert checkpoint_facts(ck) == {"num_players": n, "reward": cfg["reward"]}
    assert checkpoint_facts(DEFAULT_WEIGHTS)["reward"] == {"win_loss": 1.0, "score_margin": 0.2}
    a = make_agent("guided", iterations=1)
    assert a.players is None and a.reward == {"win_loss": 1.0, "score_margin": 0.2}
    assert make_agent("guided", iterations=1, path=str(DEFAULT_WEIGHTS)).players == 4
    # a checkpoint in a run directory: the run's resolved config says what it was trained for
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "config.yaml").write_text("num_players: 3\nreward: {win_loss: 1.0, rank: 0.5}\n")
    ck = run / "checkpoints" / "final.zip"
    ck.write_bytes(DEFAULT_WEIGHTS.read_bytes())
    b = make_agent("guided", iterations=1, path=str(ck))
    assert b.players == 3 and b.reward == {"win_loss": 1.0, "rank": 0.5}
    loose = tmp_path / "loose.zip"
    loose.write_bytes(DEFAULT_WEIGHTS.read_bytes())
    c = make_agent("guided", iterations=1, path=str(loose))
    assert c.players is None and c.reward == {"win_loss": 1.0}


def test_the_shipped_compact_network_is_the_4_player_network_distilled(tmp_path):
    """agents/weights/compact_4p.zip (training.distill on the compact observation): known as a
    4-player network with its teacher's reward, a value per seat; it plays the shipped network's move in
    most decisions of a rule-bot game (its figures over 2,000 games: docs/expert_iteration.md)."""
    from agents.learned import COMPACT_WEIGHTS, LearnedAgent
    from agents.seat import observe_seat

    assert checkpoint_facts(COMPACT_WEIGHTS) == checkpoint_facts(DEFAULT_WEIGHTS)
    student, teacher = LearnedAgent(path=str(COMPACT_WEIGHTS)), LearnedAgent()
    assert student.obs_layout == "compact" and student.seat_values and student.needs_game
    g, bot = Game.new(4, seed=11), make_agent("rulebot")
    same = n = 0
    while not g.is_over:
        obs, mask = observe_seat(g, g.current_player)
        if mask.sum() > 1:
            same += student.act(obs, mask, g.clone()) == teacher.act(obs, mask)
            n += 1
        g.step(bot.act(obs, mask, g.clone()))
    assert n > 100 and same / n > 0.85
    assert make_agent("guided", iterations=1, path=str(COMPACT_WEIGHTS)).players == 4


def test_a_game_of_another_player_count_is_refused_unless_asked(guided):
    g = mid_game(num_players=3)
    four_only = make_agent("guided", path=str(DEFAULT_WEIGHTS), **FAST)
    with pytest.raises(AgentError, match="trained on 4-player games and this game has 3 players.*players='any'"):
        four_only.act(None, g.action_mask(), g.clone())
    with pytest.raises(AgentError, match="option players describes the checkpoint at path"):
        make_agent("guided", players=3)
    solo = Game.new(1, seed=0)
    four = make_agent("guided", path=str(DEFAULT_WEIGHTS), players="any", **FAST)
    with pytest.raises(AgentError, match="trained on games of 2-4 players and this is the solitaire game"):
        four.act(None, solo.action_mask(), solo)
    with pytest.raises(AgentError, match="needs the game"):
        guided.act(None, g.action_mask())


# ----------------------------------------------------------------------------- the solitaire game
def test_a_leaf_of_the_solitaire_is_valued_by_the_objective_of_its_estimated_final_vp():
    """solo_value (half the VP against the level, half the win) of the VP so far plus the value head's
    VP still to come; the win a logistic around the level."""
    v = [solo_leaf_value(vp, 20, x) for vp, x in ((0, 0.0), (10, 9.5), (40, 0.0))]
    assert v[0] == pytest.approx(0.5 / (1 + np.exp(19.5 / 2)))            # no VP, none to come: ~0
    assert v[1] == pytest.approx(0.5 * 19.5 / 20 + 0.25)                   # 19.5 expected: a coin flip for the win
    assert v[2] == pytest.approx(0.5 * 40 / 20 + 0.5, abs=1e-4)            # far above the level: the whole win
    assert np.all(np.diff([solo_leaf_value(vp, 20, 0.0) for vp in range(40)]) > 0)
    assert solo_leaf_value(5, 20, -3.0) == solo_leaf_value(5, 20, 0.0)     # no VP are ever lost


def test_plays_a_whole_solitaire_game_on_the_shipped_solitaire_weights():
    """Without a path the solitaire game is searched with the shipped solitaire network (it also reads
    the solitaire features), the player's objective at the leaves and the ends."""
    assert SHIPPED_WEIGHTS[1].is_file()
    agent = make_agent("guided", seed=0, **FAST)
    g = Game.new(1, seed=2, target_vp=20)
    while not g.is_over:
        mask = g.action_mask()
        a = agent.act(None, mask, g.clone())
        assert mask[a]
        g.step(a)
    assert not g.truncated and g.player_vp >= 0
    assert agent.last_stats["simulations"] == FAST["iterations"]
    assert agent._net_for(g)[0].solitaire and not agent.net.solitaire     # the 4-player network stays for other games
    four = mid_game(num_players=4)
    assert four.action_mask()[agent.act(None, four.action_mask(), four.clone())]


def test_a_solitaire_network_is_refused_in_a_game_of_players():
    solo = make_agent("guided", path=str(SHIPPED_WEIGHTS[1]), **FAST)
    g = mid_game(num_players=4)
    with pytest.raises(AgentError, match="trained on the solitaire game and this is a 4-player game"):
        solo.act(None, g.action_mask(), g.clone())


# ----------------------------------------------------------------------------- whole games
def test_plays_legal_actions_through_a_whole_4_player_game():
    agents = [make_agent("guided", **FAST), make_agent("rulebot"), make_agent("learned"), make_agent("random")]
    g = play(agents, 4, seed=5)
    assert g.is_over and not g.truncated


@pytest.mark.parametrize("num_players", [2, 3])
def test_searches_each_player_count_with_its_shipped_network_or_any_when_told_to(num_players):
    default = make_agent("guided", **FAST)
    agents = [default] + [make_agent("rulebot") for _ in range(num_players - 1)]
    g = play(agents, num_players, seed=num_players, variant="short15")
    assert g.is_over
    net = default._net_for(g)[0]
    assert Path(net.path).resolve() == SHIPPED_WEIGHTS[num_players].resolve() and net is not default.net
    forced = make_agent("guided", path=str(DEFAULT_WEIGHTS), players="any", **FAST)
    agents = [forced] + [make_agent("rulebot") for _ in range(num_players - 1)]
    g = play(agents, num_players, seed=num_players, variant="short15")
    assert g.is_over and forced._net_for(g)[0] is forced.net


def test_same_seed_same_game_and_different_batch_sizes_each_replay():
    for batch in (1, 5):
        runs = []
        for _ in range(2):
            rec = []
            play([make_agent("guided", iterations=10, batch_size=batch, seed=3)] +
                 [make_agent("rulebot") for _ in range(3)], 4, seed=2, record=rec, variant="short15")
            runs.append(rec)
        assert runs[0] == runs[1]


def test_one_simulation_per_batch_has_no_pending_visits_to_weigh():
    """With batch_size=1 every simulation is backed up before the next starts: the virtual loss never
    applies, and the search is the sequential one whatever its value."""
    g = mid_game(seed=6)
    stats = []
    for vl in (0.0, 1.0, 5.0):
        a = make_agent("guided", iterations=30, batch_size=1, virtual_loss=vl, seed=2)
        a.act(None, g.action_mask(), g.clone())
        stats.append((a.last_stats["visits"].tolist(), a.last_stats["values"].tolist()))
    assert stats[0] == stats[1] == stats[2]
    b = make_agent("guided", iterations=30, batch_size=10, virtual_loss=5.0, seed=2)
    b.act(None, g.action_mask(), g.clone())
    assert b.last_stats["visits"].tolist() != stats[0][0]   # in batches it does (the test can fail)


def test_pickles_for_worker_processes(guided):
    b = pickle.loads(pickle.dumps(guided))
    g = mid_game()
    guided.reset(1)
    b.reset(1)
    assert guided.act(None, g.action_mask(), g.clone()) == b.act(None, g.action_mask(), g.clone())
    assert np.array_equal(guided.last_stats["visits"], b.last_stats["visits"])


# ----------------------------------------------------------------------------- the search
def test_budget_and_tree_bookkeeping():
    g = mid_game()
    a = make_agent("guided", iterations=37, batch_size=8, seed=0)
    before = g.state.copy()
    a.act(None, g.action_mask(), g)
    assert np.array_equal(g.state, before)                    # the game it is given is left alone
    st = a.last_stats
    assert st["simulations"] == 37 and a.NF[0, F_VISITS] == 37
    assert st["visits"].sum() == 36                            # the first simulation evaluates the root
    assert np.all(a.NF[:st["nodes"], F_PENDING] == 0)          # every virtual loss was taken back
    assert abs(st["priors"].sum() - 1.0) < 1e-6                # root children hold the policy's priors
    probs = a.net.action_probabilities(*observe_seat(g, g.current_player))
    assert np.allclose(st["priors"], probs[st["actions"]], atol=1e-5)
    t = make_agent("guided", time_ms=20, batch_size=4, seed=0)
    t.act(None, g.action_mask(), g)
    assert t.last_stats["simulations"] >= 5


def test_a_leaf_value_mixes_the_value_head_with_a_rule_bot_rollout():
    """With rollout_mix w a leaf is worth (1 - w) x the value head + w x the result of playing its copy
    out by the rule bots (the rollout's finished game, scored with the training reward); w = 0 plays
    no rollout."""
    from v1919_env.core.layout import GAME_OVER

    g = mid_game(seed=4)
    w = 0.25
    a = make_agent("guided", iterations=1, rollout_mix=w, seed=5)
    a.search(g)                                     # one simulation: the root is the leaf
    scratch = a.engine(4)
    end = g.clone()
    end.state[:] = scratch.R[0, 0]
    assert end.state[GAME_OVER] != 0 and end.is_over       # the rollout played the copy to the end
    scores = end.scores()
    exact = np.array(terminal_rewards(scores, "win_loss")) + 0.2 * np.array(terminal_rewards(scores, "score_margin"))
    assert np.allclose(scratch.rollz[0, 0, :4], exact)
    obs = np.stack([observe_seat(g, p)[0] for p in range(4)])
    masks = np.stack([observe_seat(g, p)[1] for p in range(4)])
    _, head = a.net.evaluate_batch(obs, masks)
    assert np.allclose(a.NF[0, F_VALUE:F_VALUE + 4], (1 - w) * head.ravel() + w * exact, atol=1e-5)
    b = make_agent("guided", iterations=1, seed=5)
    b.search(g)
    assert np.allclose(b.NF[0, F_VALUE:F_VALUE + 4], head.ravel(), atol=1e-5)
    assert not b.engine(4).R.any()                            # no rollout without a mix


def test_a_leaf_value_mixes_in_greedys_evaluation_at_the_next_turn_decision():
    """With heuristic_mix h the leaf's copy is played on by the rule bot to the next turn decision and
    each seat is worth tanh(d / heuristic_scale), d its victory-point estimate minus the best other
    seat's (greedy's evaluation, core.search.evaluate); the leaf backs up (1 - w - h) x the value head
    + w x the rollout + h x that, and a rollout goes on from the position the heuristic valued."""
    from v1919_env.core.layout import D_PLACE2, D_TURN, MAX_PLAYERS, PENDING
    from v1919_env.core.scoring import N_SCORE_COLS
    from v1919_env.core.search import evaluate

    checked = 0
    for seed in range(4, 10):
        g = mid_game(seed=seed)
        h, scale = 0.6, 4.0
        a = make_agent("guided", iterations=1, heuristic_mix=h, heuristic_scale=scale, seed=5)
        a.search(g)                                  # one simulation: the root is the leaf
        scratch = a.engine(4)
        copy = g.clone()
        copy.state[:] = scratch.R[0, 0]
        if copy.is_over:
            continue
        assert copy.state[PENDING] in (D_TURN, D_PLACE2)
        out = np.zeros((MAX_PLAYERS, N_SCORE_COLS), np.int64)
        expect = np.tanh(np.array([evaluate(copy.state, copy.T, p, out) for p in range(4)]) / scale)
        assert np.allclose(scratch.heurz[0, 0, :4], expect)
        assert len(set(np.sign(expect))) > 1                  # a leader and the others
        obs = np.stack([observe_seat(g, p)[0] for p in range(4)])
        masks = np.stack([observe_seat(g, p)[1] for p in range(4)])
        _, head = a.net.evaluate_batch(obs, masks)
        assert np.allclose(a.NF[0, F_VALUE:F_VALUE + 4], (1 - h) * head.ravel() + h * expect, atol=1e-5)
        both = make_agent("guided", iterations=1, heuristic_mix=0.5, rollout_mix=0.5, heuristic_scale=scale, seed=5)
        both.search(g)
        s2 = both.engine(4)
        assert np.allclose(s2.heurz[0, 0], scratch.heurz[0, 0])    # the same copy, the same bot replies
        end = g.clone()
        end.state[:] = s2.R[0, 0]
        assert end.is_over                                         # ... then played out
        assert np.allclose(both.NF[0, F_VALUE:F_VALUE + 4], 0.5 * s2.heurz[0, 0, :4] + 0.5 * s2.rollz[0, 0, :4])
        checked += 1
    assert checked >= 3


def test_bot_prior_moves_a_share_of_each_prior_to_the_rule_bots_choice():
    """With bot_prior b the root's children get (1 - b) x the network's prior, and the rule bot's choice
    at the root b more (renormalized over the legal actions)."""
    g = mid_game(seed=4)
    acts = g.legal_actions()
    assert len(acts) > 2
    bot = make_agent("rulebot").act(None, g.action_mask(), g.clone())
    plain = make_agent("guided", iterations=1, seed=5)
    plain.search(g)
    b = 0.3
    mixed = make_agent("guided", iterations=1, bot_prior=b, seed=5)
    mixed.search(g)
    p0, p1 = plain.root_stats(g, acts)[:, 1], mixed.root_stats(g, acts)[:, 1]
    assert p0.sum() == pytest.approx(1.0) and p1.sum() == pytest.approx(1.0)
    want = (1 - b) * p0 + b * (acts == bot)
    assert np.allclose(p1, want, atol=1e-6)


def test_the_heuristic_is_refused_in_the_solitaire_game():
    a = make_agent("guided", heuristic_mix=0.5, **FAST)
    solo = Game.new(1, seed=0)
    with pytest.raises(AgentError, match="heuristic_mix values positions of a game of players"):
        a.act(None, solo.action_mask(), solo)


def test_forced_decision_is_answered_without_search(guided):
    g = Game.new(4, seed=0)
    while len(g.legal_actions()) != 1:
        g.step(g.legal_actions()[0])
    guided.last_stats = None
    assert guided.act(None, g.action_mask(), g) == int(g.legal_actions()[0])
    assert guided.last_stats is None


def test_finished_games_in_the_tree_carry_their_exact_rewards():
    """At a game's last decision the action that ends it is backed up with every seat's real reward
    under the training reward (win_loss + 0.2 x score_margin), the same in every determinization."""
    checked = 0
    for seed in (0, 2, 5):
        g = last_decision(seed)
        ends = []
        for a in g.legal_actions():
            h = g.clone()
            h.step(int(a))
            if h.is_over:
                ends.append((int(a), h.scores()))
        assert ends, "the last decision has an action that ends the game"
        # fpu < 0: every root child is visited before any is visited twice
        agent = make_agent("guided", iterations=len(g.legal_actions()) + 20, batch_size=4, fpu=-10.0, seed=1)
        agent.act(None, g.action_mask(), g.clone())
        for a, scores in ends:
            exact = np.array(terminal_rewards(scores, "win_loss")) + 0.2 * np.array(terminal_rewards(scores, "score_margin"))
            c = child_of(agent.engine(4).hk[0], agent.engine(4).hv[0], 0, a)
            n = agent.NF[c, F_VISITS]
            assert n >= 1
            assert np.allclose(agent.NF[c, F_VALUE:F_VALUE + 4] / n, exact, atol=1e-9)
            checked += 1
    assert checked >= 3


def test_a_winning_last_move_is_found():
    """Seed 2's last decision: ending the game now wins it for the seat deciding; the search plays it."""
    g = last_decision(2)
    p = g.current_player
    win_now = []
    for a in g.legal_actions():
        h = g.clone()
        h.step(int(a))
        if h.is_over and h.scores()[p]["winner"]:
            win_now.append(int(a))
    assert win_now
    assert make_agent("guided", iterations=200, seed=0).act(None, g.action_mask(), g.clone()) in win_now


def test_search_never_reads_the_hidden_deck_order_or_dice():
    for seed in (3, 8):
        g = mid_game(seed=seed)
        h = reorder_hidden(g, seed)
        a, b = make_agent("guided", seed=1, **FAST), make_agent("guided", seed=1, **FAST)
        assert a.act(None, g.action_mask(), g) == b.act(None, h.action_mask(), h)
        assert np.array_equal(a.last_stats["visits"], b.last_stats["visits"])
        assert np.allclose(a.last_stats["values"], b.last_stats["values"])


def test_temperature_samples_by_visits_with_the_agents_seed():
    g = mid_game(seed=4)
    picks = []
    for seed in range(2):
        a = make_agent("guided", iterations=40, temperature=1.0, seed=seed)
        picks.append([a.act(None, g.action_mask(), g.clone()) for _ in range(6)])
    again = make_agent("guided", iterations=40, temperature=1.0, seed=0)
    assert [again.act(None, g.action_mask(), g.clone()) for _ in range(6)] == picks[0]
    legal = set(g.legal_actions().tolist())
    assert all(x in legal for p in picks for x in p)


# ----------------------------------------------------------------------------- the network
def test_batched_evaluation_matches_one_row_at_a_time(guided):
    net = guided.net
    g = mid_game()
    rows = [observe_seat(g, p) for p in range(4)]
    obs = np.stack([o for o, _ in rows])
    masks = np.stack([m for _, m in rows])
    probs, values = net.evaluate_batch(obs, masks)
    d = g.current_player
    assert probs.shape == (4, masks.shape[1]) and values.shape == (4,)
    assert np.allclose(probs[d], net.action_probabilities(obs[d], masks[d]), atol=1e-5)
    for p in range(4):
        if p != d:
            assert not probs[p].any()                   # an empty mask: no policy row
        one_p, one_v = net.evaluate_batch(obs[p:p + 1], masks[p:p + 1])
        assert abs(one_v[0] - values[p]) < 1e-5
    import torch
    with torch.no_grad():
        ref = net.model.policy.predict_values(torch.from_numpy(obs[:, :net.obs_size])).numpy().reshape(-1)
    assert np.allclose(values, ref, atol=1e-5)


# ----------------------------------------------------------------------------- OpenSpiel
@pytest.mark.parametrize("which", ["pyspiel", "python"])
def test_plays_through_both_openspiel_evaluate_bots(which):
    pyspiel = pytest.importorskip("pyspiel")
    from agents.openspiel_bot import AgentBot

    game = pyspiel.load_game("versailles1919", {"players": 4, "variant": "short15"})
    runs = []
    for _ in range(2):
        bots = [AgentBot("guided:iterations=6,batch_size=3", seed=4)] + [AgentBot("rulebot", seed=k) for k in range(3)]
        if which == "pyspiel":
            returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 11)
        else:
            from open_spiel.python.algorithms import evaluate_bots
            returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(11))
        assert len(returns) == 4 and abs(sum(returns)) < 1e-9 and max(returns) > 0
        runs.append(list(returns))
    assert runs[0] == runs[1]                     # seeded: the same game twice
