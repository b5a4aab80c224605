"""The vector env (v1919_env.envs.vector_env): the same games as the single env's compiled random
opponents, rewards from the final scoring, auto-reset, seeding, illegal actions, external batch
policies and the Gymnasium VectorEnv view."""
from __future__ import annotations

import numpy as np
import pytest

from v1919_env.actions import NUM_ACTIONS
from v1919_env.core.observe import OBS_SIZE
from v1919_env.envs.gymnasium_env import OpponentError
from v1919_env.rewards import terminal_rewards
from v1919_env.envs.vector_env import GymVectorEnv, VectorEnv, reward_weights
from helpers.vector_env import MANUAL_SEATING, ReplayedGame, random_actions


@pytest.mark.parametrize("num_players, opponents, seating", [
    (2, ["random"], None), (2, ["rulebot"], None), (3, ["random"], None), (3, ["rulebot"], ["uk", "usa", "france"]),
    (4, ["random"], None), (4, ["rulebot"], None), (4, ["random", "rulebot"], None),
    (4, ["random", "rulebot"], MANUAL_SEATING)])
def test_same_games_as_the_single_env_and_the_compiled_bots(num_players, opponents, seating):
    env = VectorEnv(num_envs=6, num_players=num_players, seed=11, opponents=opponents, seating=seating)
    obs = env.reset()

    def reference(b):
        pols = None if opponents == ["random"] else env.pol[b].copy()
        return ReplayedGame(int(env.game_seeds[b]), int(env.seats[b]), num_players, pols, seating)

    refs = [reference(b) for b in range(6)]
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(400):
        masks = env.action_masks()
        for b, ref in enumerate(refs):
            o, m = ref.observe()
            np.testing.assert_array_equal(obs[b], o)
            np.testing.assert_array_equal(masks[b], m.astype(bool))
        acts = random_actions(masks, rng)
        obs, rewards, dones, infos = env.step(acts)
        for b, ref in enumerate(refs):
            ref.step(int(acts[b]))
            if dones[b]:
                assert ref.game.is_over
                sc = ref.game.scores()
                assert rewards[b] == pytest.approx(terminal_rewards(sc, "win_loss")[ref.seat])
                assert infos[b]["scores"] == sc
                np.testing.assert_array_equal(infos[b]["terminal_observation"], ref.observe()[0])
                refs[b] = reference(b)
                finished += 1
            else:
                assert not ref.game.is_over and rewards[b] == 0.0
    assert finished >= 1


def test_every_row_has_a_legal_action_after_auto_reset_and_episodes_end():
    env = VectorEnv(num_envs=16, seed=3, reward="rank")
    env.reset()
    rng = np.random.default_rng(1)
    ends, lengths = 0, []
    for _ in range(600):
        masks = env.action_masks()
        assert masks.dtype == bool and masks.shape == (16, NUM_ACTIONS)
        assert masks.any(axis=1).all()
        _, rewards, dones, infos = env.step(random_actions(masks, rng))
        for b in np.flatnonzero(dones):
            ends += 1
            assert -1.0 <= rewards[b] <= 1.0
            assert infos[b]["episode"]["l"] > 10
            lengths.append(infos[b]["episode"]["l"])
            assert infos[b]["TimeLimit.truncated"] is False
            assert len(infos[b]["opponents"]) == 4 and infos[b]["opponents"][infos[b]["seat"]] == "learner"
    assert ends >= 10
    assert len(set(env.seats.tolist())) > 1          # seat drawn per episode


def test_seeding_replays_and_different_seeds_differ():
    def run(seed):
        env = VectorEnv(num_envs=4, seed=None)
        env.seed(seed)
        obs = [env.reset().copy()]
        rng = np.random.default_rng(5)
        for _ in range(200):
            o, r, d, _ = env.step(random_actions(env.action_masks(), rng))
            obs.append(o.copy())
        return np.stack(obs), env.game_seeds.copy()

    a, sa = run(7)
    b, sb = run(7)
    c, sc = run(8)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(sa, sb)
    assert not np.array_equal(sa, sc) and not np.array_equal(a, c)


def test_fixed_seat_and_weighted_opponents():
    env = VectorEnv(num_envs=8, seat=2, seed=0, opponents=["random"], opponent_weights=[3.0])
    env.reset()
    assert (env.seats == 2).all()
    assert (env.pol[:, 2] == -1).all() and (env.pol[:, [0, 1, 3]] == 0).all()


def test_illegal_action_ends_the_episode_with_the_penalty_and_leaves_the_game_untouched():
    env = VectorEnv(num_envs=3, seed=2, illegal_penalty=-2.5)
    env.reset()
    masks = env.action_masks().copy()
    acts = np.argmax(masks, axis=1)
    bad = int(np.flatnonzero(~masks[1])[0])
    acts[1] = bad
    state_before = env.S[1].copy()
    seed_before = int(env.game_seeds[1])
    obs_before = env._obs[env._buf][1].copy()
    _, rewards, dones, infos = env.step(acts)
    assert dones.tolist() == [False, True, False]
    assert rewards[1] == -2.5 and infos[1]["illegal_action"] is True
    assert infos[1]["game_seed"] == seed_before
    np.testing.assert_array_equal(infos[1]["terminal_observation"], obs_before)
    assert not np.array_equal(env.S[1], state_before)          # a new episode started
    assert env.action_masks()[1].any()


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="num_envs"):
        VectorEnv(num_envs=0)
    with pytest.raises(ValueError, match="not a compiled agent"):
        VectorEnv(num_envs=2, opponents=["nobody"])
    with pytest.raises(ValueError, match="opponent_weights"):
        VectorEnv(num_envs=2, opponents=["random"], opponent_weights=[-1])
    with pytest.raises(ValueError, match="seat"):
        VectorEnv(num_envs=2, seat=4)
    with pytest.raises(ValueError, match="reward kind"):
        VectorEnv(num_envs=2, reward={"wins": 1.0})
    env = VectorEnv(num_envs=2)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(2, np.int64))
    env.reset()
    with pytest.raises(ValueError, match="actions must be 2 integer"):
        env.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="actions must be 2 integer"):
        env.step(np.zeros(2, np.float32))
    assert reward_weights({"win_loss": 1, "score_margin": 0.5}) == {"win_loss": 1.0, "score_margin": 0.5}


class NumpyRandomBatch:
    """An external batch policy (stands in for a network): random legal actions, records its calls."""

    label = "np-random"

    def __init__(self, seed=0, illegal=False):
        self.rng = np.random.default_rng(seed)
        self.calls = []
        self.illegal = illegal

    def act_batch(self, obs, masks):
        assert obs.shape == (len(masks), OBS_SIZE) and masks.any(axis=1).all()
        self.calls.append(len(masks))
        a = random_actions(masks, self.rng)
        if self.illegal:
            a[:] = np.argmin(masks, axis=1)
        return a


def test_external_batch_policies_play_their_seats_in_batches():
    ext = NumpyRandomBatch()
    env = VectorEnv(num_envs=32, seed=4, opponents=["random", ext], opponent_weights=[1, 1])
    env.reset()
    rng = np.random.default_rng(2)
    ends = 0
    for _ in range(300):
        _, rewards, dones, infos = env.step(random_actions(env.action_masks(), rng))
        ends += int(dones.sum())
        for b in np.flatnonzero(dones):
            assert set(infos[b]["opponents"]) <= {"learner", "random", "np-random"}
        assert (env.who == env.seats).all()       # every game waits on its learner after a step
    assert ends > 0 and sum(ext.calls) > 300
    assert max(ext.calls) > 1                     # one call serves many games


def test_replacing_the_pool_keeps_running_games_on_their_policy():
    first, second = NumpyRandomBatch(1), NumpyRandomBatch(2)
    env = VectorEnv(num_envs=8, seed=5, opponents=[first])
    env.reset()
    env.set_opponents([second])
    rng = np.random.default_rng(3)
    for _ in range(30):
        env.step(random_actions(env.action_masks(), rng))
    assert len(first.calls) > 0 and len(second.calls) == 0    # no episode has ended yet
    while not len(second.calls):
        env.step(random_actions(env.action_masks(), rng))


def test_an_external_policy_choosing_an_illegal_action_is_an_opponent_error():
    env = VectorEnv(num_envs=4, seed=6, opponents=[NumpyRandomBatch(illegal=True)])
    with pytest.raises(OpponentError, match="illegal action"):
        env.reset()
        rng = np.random.default_rng(0)
        for _ in range(10):
            env.step(random_actions(env.action_masks(), rng))


def test_gymnasium_vector_view():
    env = GymVectorEnv(num_envs=5, seed=None)
    obs, infos = env.reset(seed=9)
    assert env.observation_space.contains(obs)
    assert obs["observation"].shape == (5, OBS_SIZE) and obs["action_mask"].shape == (5, NUM_ACTIONS)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        obs, rewards, term, trunc, infos = env.step(random_actions(obs["action_mask"], rng))
        assert obs["action_mask"].any(axis=1).all()
        if (term | trunc).any():
            done = term | trunc
            np.testing.assert_array_equal(infos["_final_obs"], done)
            for b in np.flatnonzero(done):
                assert infos["final_obs"][b]["observation"].shape == (OBS_SIZE,)
                assert infos["final_info"]["episode"]["l"][b] > 0
            ended += int(done.sum())
    assert ended > 0
    env.close()


def test_the_vector_env_imports_without_torch():
    import subprocess
    import sys

    code = ("import sys, v1919_env.envs.vector_env, v1919_env.envs.vector_kernels\n"
            "print('torch' in sys.modules, 'stable_baselines3' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
