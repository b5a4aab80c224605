"""`max_cycles` (issue 32): PettingZoo's option of its butterfly and MPE games, in the AEC and the parallel
env. PettingZoo's own `max_cycles_test` checks it with unmasked random actions and assumes every agent
moves once per cycle, round robin; here the same player often decides several times in a row and most
ids are illegal at a time, so the checks below are that test's with masked actions and decision counts."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test

from v1919_env import versailles1919_v4 as mod


def _masked(rng, mask) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("n", [1, 4, 37])
def test_the_parallel_env_ends_after_max_cycles_steps(n):
    par = mod.parallel_env(max_cycles=n, obs_mode="dict")
    obs, _ = par.reset(seed=n)
    rng, steps = np.random.default_rng(0), 0
    while par.agents:
        mover = next(a for a in par.agents if obs[a]["action_mask"].any())
        obs, rewards, term, trunc, infos = par.step({mover: _masked(rng, obs[mover]["action_mask"])})
        steps += 1
        assert steps <= n
    assert steps == n and all(trunc.values()) and not any(term.values())
    assert all(r == 0.0 for r in rewards.values())
    assert all(infos[a]["decision"] == "game_over" and "scores" in infos[a] for a in infos)


@pytest.mark.parametrize("n", [4, 25])
def test_the_aec_env_truncates_every_agent_after_max_cycles_moves_then_one_dead_step_each(n):
    env = mod.env(max_cycles=n)
    env.reset(seed=3)
    rng, moves, dead = np.random.default_rng(1), 0, Counter()
    for agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        if term or trunc:
            assert trunc and not term and rew == 0.0
            dead[agent] += 1
            env.step(None)
            continue
        env.step(_masked(rng, obs["action_mask"]))
        moves += 1
    assert moves == n and dead == Counter(env.possible_agents)


def test_a_game_shorter_than_max_cycles_ends_as_usual():
    env = mod.env(num_players=2, max_cycles=100_000)
    env.reset(seed=0)
    rng, ends = np.random.default_rng(2), {}
    for agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        if term or trunc:
            ends[agent] = (term, trunc, info)
        env.step(None if term or trunc else _masked(rng, obs["action_mask"]))
    assert set(ends) == set(env.possible_agents)
    assert all(term and not trunc and "scores" in info for term, trunc, info in ends.values())


def test_max_cycles_keeps_the_api_tests_and_refuses_bad_values():
    api_test(mod.env(max_cycles=30), num_cycles=60)
    parallel_api_test(mod.parallel_env(max_cycles=30, obs_mode="dict"), num_cycles=60)
    for bad in (0, -1, 1.5, True, "4"):
        with pytest.raises(ValueError, match="max_cycles must be None or a positive integer"):
            mod.env(max_cycles=bad)
