"""The lockstep search (agents/lockstep.py, agents/lockstep_kernels.py) and its compiled forward pass
(agents/compiled_net.py): a game's search is the same alone and among 256 others, and the same as the
`guided` agent's; the compiled network gives torch's outputs; a network with a value per seat is
evaluated once a leaf; a user's callable searches as a checkpoint does; bad input is refused."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents import make_agent  # noqa: E402
from agents.guided_kernels import F_VALUE, F_VISITS  # noqa: E402
from agents.batch_search import search  # noqa: E402
from agents.lockstep import Lockstep  # noqa: E402
from agents.seat import observe_seat  # noqa: E402
from v1919_env.actions import NUM_ACTIONS  # noqa: E402
from v1919_env.core.bots import seed_policy_rng  # noqa: E402
from v1919_env.core.layout import SEATING  # noqa: E402
from v1919_env.game import Game  # noqa: E402

from helpers.games import mid_game  # noqa: E402


def positions(n, num_players=4, seed=0):
    """n positions of random play, each with a choice to make."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        out.append(mid_game(seed=seed * 1000 + i, decisions=int(rng.integers(0, 120)), num_players=num_players))
    return out


def same(a, b):
    return (np.array_equal(a.actions, b.actions) and np.array_equal(a.visits, b.visits)
            and np.array_equal(a.priors, b.priors) and np.array_equal(a.values, b.values)
            and a.choice == b.choice and a.root_value == b.root_value and a.simulations == b.simulations)


@pytest.mark.parametrize("opts", [{"iterations": 12, "batch_size": 4, "root": "gumbel"},
                                  {"iterations": 12, "batch_size": 4, "rollout_mix": 0.5, "bot_prior": 0.3,
                                   "virtual_loss": 0.2}])
def test_a_game_searched_among_256_is_searched_as_alone(opts):
    """Determinism: every game's search depends on its position and seed only, not on the 255 games
    searched in the same steps (the compiled forward pass is batch-invariant)."""
    games = positions(256)
    together = search(games, seeds=range(256), **opts)
    for i in range(0, 256, 15):
        alone = search([games[i]], seeds=[i], **opts)[0]
        assert same(alone, together[i]), i
    assert len({r.choice for r in together}) > 1


@pytest.mark.parametrize("players", [2, 3])
def test_two_and_three_player_games_are_searched_as_alone(players):
    """The same in the 2- and 3-player games (their shipped networks; the 2-player game's USA faction
    decides for the player whose turn it is)."""
    games = positions(24, num_players=players, seed=players)
    together = search(games, seeds=range(24), iterations=10, batch_size=4, root="gumbel")
    for i in (0, 7, 23):
        assert same(search([games[i]], seeds=[i], iterations=10, batch_size=4, root="gumbel")[0], together[i])


def test_solitaire_games_are_searched_as_alone():
    """The solitaire game (the shipped solitaire network, the player's objective at the leaves)."""
    games = []
    for s in range(6):
        g = Game.new(1, seed=s)
        rng = np.random.default_rng(s)
        for _ in range(int(rng.integers(0, 40))):
            if g.is_over:
                break
            a = g.legal_actions()
            g.step(int(a[rng.integers(len(a))]))
        while not g.is_over and len(g.legal_actions()) < 2:
            g.step(int(g.legal_actions()[0]))
        if not g.is_over:
            games.append(g)
    together = search(games, seeds=range(len(games)), iterations=10, batch_size=4)
    for i in (0, len(games) - 1):
        assert same(search([games[i]], seeds=[i], iterations=10, batch_size=4)[0], together[i])


def test_the_agent_is_the_engine_with_one_game():
    """`guided` searches through the same engine: its visits and move are search()'s with its seed."""
    for opts in ({"iterations": 24, "batch_size": 8}, {"iterations": 24, "batch_size": 8, "root": "gumbel"}):
        g = mid_game(seed=11)
        a = make_agent("guided", seed=7, **opts)
        move = a.act(None, g.action_mask(), g.clone())
        r = search([g], seeds=[7], **opts)[0]
        assert np.array_equal(a.last_stats["visits"], r.visits) and move == int(r.actions[r.choice])


def test_the_compiled_forward_pass_gives_torchs_outputs():
    """Same moves and visits with forward=compiled and forward=torch on the shipped network, root
    values within float32 rounding (the compiled pass adds in another order)."""
    games = positions(12, seed=1)
    c = search(games, iterations=16, batch_size=4, forward="compiled")
    t = search(games, iterations=16, batch_size=4, forward="torch")
    for x, y in zip(c, t):
        assert np.array_equal(x.visits, y.visits) and x.choice == y.choice
        assert np.allclose(x.priors, y.priors, atol=2e-6) and x.root_value == pytest.approx(y.root_value, abs=2e-5)


SEARCH_DIGEST = "32006faeef2beea5"


def test_the_search_records_are_pinned():
    """The root's actions, visits and move of 16 positions under the Gumbel root and PUCT, on the
    shipped network and the compact one, hashed: a change made for speed must leave every record
    the same (docs/benchmarks.md lists the changes checked this way)."""
    import hashlib

    from agents.learned import COMPACT_WEIGHTS

    games = positions(16, seed=5)
    h = hashlib.sha256()
    for net in ({}, {"path": str(COMPACT_WEIGHTS), "players": 4}):
        for opts in ({"iterations": 24, "batch_size": 8, "root": "gumbel"}, {"iterations": 16, "batch_size": 4}):
            for r in search(games, seeds=range(16), **opts, **net):
                h.update(np.asarray(r.actions, np.int64).tobytes() + np.asarray(r.visits, np.int64).tobytes()
                         + np.int64(r.choice).tobytes())
    assert h.hexdigest()[:16] == SEARCH_DIGEST


@pytest.fixture(scope="module")
def seat_net(tmp_path_factory):
    """The shipped 4-player network with a value head per seat (columns: the decider, then clockwise)
    whose columns are made distinct."""
    import torch
    from sb3_contrib import MaskablePPO

    from agents.learned import DEFAULT_WEIGHTS
    from training.policy import with_seat_values

    m = with_seat_values(MaskablePPO.load(str(DEFAULT_WEIGHTS), device="cpu"))
    with torch.no_grad():
        m.policy.value_net.bias += torch.tensor([0.0, 0.3, -0.2, 0.1])
    path = tmp_path_factory.mktemp("seat") / "seat.zip"
    m.save(str(path))
    return str(path)


def test_a_value_per_seat_is_read_once_a_leaf_from_the_deciders_row(seat_net):
    """A SeatValuesPolicy checkpoint: one row a leaf (the decider's observation), its outputs mapped to
    the seats clockwise from the decider; compiled and torch agree; the policy is the shipped one."""
    from agents.learned import LearnedAgent

    net = LearnedAgent(path=seat_net)
    assert net.seat_values and net.compiled_policy().seat_values
    g = mid_game(seed=5)
    obs, mask = observe_seat(g, g.current_player)
    _, v = net.evaluate_batch(obs[None], mask[None])
    seats = [int(x) for x in g.state[SEATING:SEATING + 4]]
    me = seats.index(g.current_player)
    order = [seats[(me + r) % 4] for r in range(4)]
    for fw in ("compiled", "torch"):
        a = make_agent("guided", iterations=1, path=seat_net, players=4, forward=fw, seed=1)
        a.search(g)                                        # one simulation: the root is the leaf
        eng = a.engine(4)
        assert eng.rows == 1 and eng.relative
        for r, p in enumerate(order):
            assert a.NF[0, F_VALUE + p] == pytest.approx(float(v[0, r]), abs=2e-5)
    shipped = LearnedAgent()
    assert np.allclose(net.action_probabilities(obs, mask), shipped.action_probabilities(obs, mask))


def test_a_callable_network_searches_every_game_and_gets_one_row_a_leaf():
    """search() with a user's function: called once a step for every game's leaves, each row the
    decider's observation; its values (decider first) reach the seats clockwise from the decider."""
    calls = []

    def net(obs, masks):
        calls.append(len(obs))
        assert obs.shape[1:] == (2032,) and masks.shape[1:] == (NUM_ACTIONS,)
        assert (masks.sum(1) >= 2).all()                     # the decider's mask, with a choice
        return np.zeros((len(obs), NUM_ACTIONS)), np.tile([0.5, -0.1, -0.2, -0.3], (len(obs), 1))

    games = positions(10, seed=2)
    res = search(games, net, iterations=9, batch_size=4)
    assert len(calls) == 3 and calls[0] == 10                 # the roots, then two steps of 4 leaves a game
    assert max(calls) <= 40
    for r in res:
        assert r.visits.sum() == 8 and r.root_value == pytest.approx(0.5)
        assert np.allclose(r.priors[r.priors > 0], 1.0 / len(r.actions))
    a = make_agent("guided", iterations=1, network=net)
    g = games[0]
    a.search(g)
    seats = [int(x) for x in g.state[SEATING:SEATING + 4]]
    me = seats.index(g.current_player)
    for r, want in enumerate([0.5, -0.1, -0.2, -0.3]):
        assert a.NF[0, F_VALUE + seats[(me + r) % 4]] == pytest.approx(want)
    assert a.NF[0, F_VISITS] == 1


def test_bad_input_is_refused_with_the_field_named():
    g = mid_game(seed=3)
    with pytest.raises(ValueError, match="option forward must be one of auto, compiled, torch"):
        make_agent("guided", forward="gpu")
    with pytest.raises(ValueError, match="option device must be cpu, auto"):
        make_agent("guided", device="tpu")
    with pytest.raises(ValueError, match="forward=compiled runs on the CPU"):
        make_agent("guided", device="cuda", forward="compiled")
    assert make_agent("guided", device="auto").torch_device() in ("cpu", "cuda")
    with pytest.raises(ValueError, match="option network must be a callable"):
        make_agent("guided", network=3)
    with pytest.raises(ValueError, match="same player count"):
        search([g, Game.new(3, seed=1)], iterations=4)
    with pytest.raises(ValueError, match="not time_ms"):
        search([g], time_ms=10)
    over = Game.new(4, seed=1)
    while not over.is_over:
        over.step(int(over.legal_actions()[0]))
    with pytest.raises(ValueError, match="a game is over"):
        search([over], iterations=4)
    with pytest.raises(ValueError, match=r"logits must have shape \(1, 694\)"):
        search([g], lambda o, m: (np.zeros((len(o), 5)), np.zeros((len(o), 4))), iterations=2)
    with pytest.raises(ValueError, match="must return \\(logits, values\\)"):
        search([g], lambda o, m: None, iterations=2)
    with pytest.raises(ValueError, match="2 games and 1 seeds"):
        search([g, g], seeds=[1], iterations=2)


def test_the_engine_steps_games_at_their_own_pace():
    """Games start and finish their searches in different steps (selfplay begins a game's next search
    as soon as its last one ends); a finished slot is collected once."""
    a = make_agent("guided", iterations=8, batch_size=4, seed=0)
    eng = Lockstep(a, 3, 4)
    games = positions(3, seed=4)
    for i, g in enumerate(games[:2]):
        eng.rng[i] = seed_policy_rng(i)
        eng.begin([i], g.state, g.T)
    eng.step()
    eng.rng[2] = seed_policy_rng(2)
    eng.begin([2], games[2].state, games[2].T)
    finished = []
    while eng.step():
        for i in eng.done():
            finished.append((i, eng.result(i)))
    for i in eng.done():
        finished.append((i, eng.result(i)))
    assert sorted(i for i, _ in finished) == [0, 1, 2]
    late = search([games[2]], seeds=[2], iterations=8, batch_size=4)[0]
    assert same(dict(finished)[2], late)
    with pytest.raises(ValueError, match="no finished search"):
        eng.result(0)


def test_a_bad_obs_layout_for_search_is_one_clear_error():
    def net(obs, masks):
        return np.zeros((len(obs), NUM_ACTIONS)), np.zeros((len(obs), 4))

    g = positions(1, seed=3)
    with pytest.raises(ValueError, match="network <callable net>: obs_layout must be one of 'full', 'compact'"):
        search(g, net, obs_layout="tiny", iterations=2)
    with pytest.raises(ValueError, match="obs_layout is for a callable network"):
        search(g, obs_layout="compact", iterations=2)
