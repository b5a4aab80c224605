"""Issue 12: `v1919_env.compat.parallel_env` / TurnParallelEnv, the turn-based game as a PettingZoo
ParallelEnv (for AgileRL's multi-agent algorithms; tests/envs/test_compat_agilerl.py runs them)."""
import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

from v1919_env.actions import IllegalActionError
from v1919_env.compat import parallel_env
from v1919_env.rewards import terminal_rewards


def play(env, seed, others=lambda rng, a, info: 0):
    """A game with random legal moves for the mover and others(...) for every other agent; the
    summed rewards, the number of steps, the mover sequence."""
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = {a: 0.0 for a in env.agents}
    movers = []
    while env.agents:
        legal = {a: np.flatnonzero(info[a]["action_mask"]) for a in env.agents}
        mover = env.aec.agent_selection
        assert all(list(legal[a]) == [0] for a in env.agents if a != mover)
        movers.append(mover)
        acts = {a: int(rng.choice(legal[a])) if a == mover else others(rng, a, info) for a in env.agents}
        obs, rew, term, trunc, info = env.step(acts)
        assert set(obs) == set(rew) == set(term) == set(info)
        for a, r in rew.items():
            totals[a] += r
    return totals, movers


def test_parallel_env_passes_pettingzoos_parallel_api_test():
    parallel_api_test(parallel_env(3, illegal_action="penalize"), num_cycles=300)


def test_only_the_movers_action_counts_and_every_seat_gets_its_final_reward():
    env = parallel_env(4, reward="rank")
    totals, movers = play(env, 7)
    want = terminal_rewards(env.aec.game.scores(), "rank")
    assert [totals[a] for a in env.possible_agents] == pytest.approx(want)
    # the other agents' actions are ignored, even ids illegal for them: the same game
    noise = np.random.default_rng(99)
    totals2, movers2 = play(parallel_env(4, reward="rank"), 7, others=lambda rng, a, info: int(noise.integers(694)))
    assert movers2 == movers and totals2 == totals
    assert env.agents == [] and len(set(movers)) == 4


def test_an_illegal_move_raises_and_changes_nothing():
    env = parallel_env(3)
    obs, info = env.reset(seed=3)
    mover = env.aec.agent_selection
    before = env.aec.game.state.copy()
    bad = int(np.flatnonzero(info[mover]["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        env.step({a: bad for a in env.agents})
    assert np.array_equal(env.aec.game.state, before)
    with pytest.raises(ValueError, match="is to move"):
        env.step({a: 0 for a in env.agents if a != mover})
    with pytest.raises(ValueError, match="obs_mode"):
        parallel_env(3, obs_mode="dict")
