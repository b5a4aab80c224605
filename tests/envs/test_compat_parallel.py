"""Issue 12: `v1919_env.compat.parallel_env` / TurnParallelEnv, the turn-based game as a PettingZoo
ParallelEnv (for AgileRL's multi-agent algorithms; tests/envs/test_compat_agilerl.py runs them)."""
from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from pettingzoo.test import parallel_api_test, parallel_seed_test

from v1919_env.actions import IllegalActionError
from v1919_env.compat import TurnParallelEnv, parallel_env
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


class Counted(TurnParallelEnv):
    """TurnParallelEnv that records how many steps each episode took and which ones ended."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.steps, self.ended = [], []

    def reset(self, seed=None, options=None):
        self.steps.append(0)
        return super().reset(seed=seed, options=options)

    def step(self, actions):
        out = super().step(actions)
        self.steps[-1] += 1
        if not self.agents:
            self.ended.append(len(self.steps) - 1)
        return out


@pytest.mark.parametrize("players, mode", [(3, "raise"), (4, "penalize"), (2, "raise")])
def test_dict_mode_passes_pettingzoos_parallel_api_test_with_whole_games(players, mode):
    """The test samples each agent's action from obs["action_mask"]: the mover plays legal moves,
    the others (all-zero masks) send action 0, and both of the test's episodes run to the end."""
    env = Counted(players, obs_mode="dict", illegal_action=mode)
    parallel_api_test(env, num_cycles=5000)
    assert len(env.steps) == 3 and env.ended == [1, 2]          # reset(seed=0), then two whole games
    assert min(env.steps[1:]) > 200 and env.aec.game.is_over and not env.aec._penalized


def test_dict_mode_passes_pettingzoos_parallel_seed_test_and_replays_whole_games():
    """parallel_seed_test samples unmasked actions and stops after its first step (its
    `any(terminations)` tests the dict's keys), so it passes with 'penalize' (an illegal mover's
    id ends the game) and checks one step; whole seeded games are compared here."""
    parallel_seed_test(lambda: parallel_env(3, obs_mode="dict", illegal_action="penalize"))

    def run(seed):
        env = parallel_env(3, obs_mode="dict")
        out = [env.reset(seed=seed)]
        for k, a in enumerate(env.agents):
            env.action_space(a).seed(seed + k)
        while env.agents:
            out.append(env.step({a: env.action_space(a).sample(mask=out[-1][0][a]["action_mask"])
                                 for a in env.agents}))
        return out

    first, again = run(3), run(3)
    assert len(first) > 200 and data_equivalence(first, again)
    assert not data_equivalence(first[:50], run(4)[:50])


def test_dict_mode_observations_hold_the_movers_mask_and_zeros_for_the_others():
    env = parallel_env(4, obs_mode="dict")
    obs, info = env.reset(seed=8)
    rng = np.random.default_rng(8)
    steps = 0
    while env.agents:
        mover = env.aec.agent_selection
        for a in env.agents:
            assert env.observation_space(a).contains(obs[a]) and obs[a]["action_mask"].dtype == np.int8
            legal = env.aec.game.legal_actions() if a == mover else []
            assert np.flatnonzero(obs[a]["action_mask"]).tolist() == sorted(int(x) for x in legal)
        assert info[mover]["decision"] == env.aec.game.decision
        obs, rew, term, trunc, info = env.step({mover: int(rng.choice(np.flatnonzero(obs[mover]["action_mask"])))})
        steps += 1
    assert steps > 200 and all(term.values())
    assert all(not o["action_mask"].any() for o in obs.values()) and all("scores" in i for i in info.values())


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
        parallel_env(3, obs_mode="box")
