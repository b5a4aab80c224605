"""`gymnasium.make_vec` on the registered id gives the compiled vector env (issue 23's first item):
dict observations with the action masks, same-step auto-reset; the sync mode still vectorizes the
single env."""
from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import v1919_env  # noqa: F401  (registers the ids)
from v1919_env.actions import IllegalActionError
from v1919_env.envs.vector_env import GymVectorEnv
from v1919_env.envs.vector_kernels import COMPILED_POLICIES
from v1919_env.envs.versions import GYM_ID, SOLITAIRE_GYM_ID
from v1919_env.rewards import terminal_rewards


def _masked_random(rng, masks):
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def test_make_vec_vector_entry_point_is_the_compiled_vector_env():
    envs = gymnasium.make_vec(GYM_ID, num_envs=6, vectorization_mode="vector_entry_point", num_players=3,
                              opponents=("random", "rulebot"), seed=0)
    assert isinstance(envs, GymVectorEnv) and envs.num_envs == 6
    obs, _ = envs.reset(seed=1)
    assert obs["observation"].shape[0] == 6 and obs["action_mask"].dtype == np.int8
    rng, ended = np.random.default_rng(0), 0
    for _ in range(2000):
        obs, rewards, terminated, truncated, infos = envs.step(_masked_random(rng, obs["action_mask"]))
        done = terminated | truncated
        if done.any():
            ended += int(done.sum())
            assert infos["_final_obs"][done].all()                                 # same-step auto-reset
            assert all(infos["final_obs"][b]["action_mask"].any() for b in np.flatnonzero(done))
            assert (obs["action_mask"][done].sum(axis=1) > 0).all()                 # the new games' masks
        if ended >= 3:
            break
    assert ended >= 3
    envs.close()


def test_make_vec_defaults_to_the_vector_entry_point_and_sync_still_works():
    assert isinstance(gymnasium.make_vec(GYM_ID, num_envs=2, num_players=4), GymVectorEnv)
    sync = gymnasium.make_vec(GYM_ID, num_envs=2, vectorization_mode="sync", num_players=4, seat=0)
    assert isinstance(sync, gymnasium.vector.SyncVectorEnv)
    obs, _ = sync.reset(seed=0)
    assert obs["action_mask"].shape[0] == 2
    sync.close()


@pytest.mark.parametrize("bad", [694, -1, 2 ** 62])
@pytest.mark.parametrize("make", ["vector", "solitaire"])
def test_the_compiled_vector_envs_raise_for_an_id_outside_the_action_space(make, bad):
    """The README's action rule in every env: an id outside 0..693 raises IllegalActionError naming
    the game, as Game.step, the single envs and the sync vector env do; nothing is stepped."""
    if make == "vector":
        envs = gymnasium.make_vec(GYM_ID, num_envs=3, num_players=4, seed=0)
    else:
        envs = gymnasium.make_vec(SOLITAIRE_GYM_ID, num_envs=3, seed=0)
    obs, _ = envs.reset(seed=2)
    acts = np.argmax(obs["action_mask"], axis=1)
    acts[2] = bad
    before = envs.engine.S.copy()
    with pytest.raises(IllegalActionError, match=f"game 2: action id {bad} is out of range"):
        envs.step(acts)
    assert np.array_equal(envs.engine.S, before)


def test_the_sync_vector_env_raises_for_the_same_ids():
    sync = gymnasium.make_vec(GYM_ID, num_envs=2, vectorization_mode="sync", num_players=4)
    obs, _ = sync.reset(seed=0)
    acts = np.argmax(obs["action_mask"], axis=1)
    acts[1] = 694
    with pytest.raises(IllegalActionError, match="out of range"):
        sync.step(acts)


SHARED = dict(num_players=4, opponents=("random", "rulebot"), opponent_weights=(0.25, 0.75), seat=None,
              reward={"win_loss": 1.0, "score_margin": 0.2}, illegal_penalty=-2.0, score_info=False,
              variant="longer", seating=["uk", "usa", "italy", "france"])


@pytest.mark.parametrize("mode", ["sync", "vector_entry_point"])
def test_the_same_keyword_arguments_mean_the_same_in_every_mode(mode):
    """The issue's call, and every keyword the compiled vector env takes but `seed`: a pool of compiled
    opponents drawn per seat with the weights, the seat drawn per episode, a weighted reward, the
    penalty, no scores in the infos, the variant and the seating."""
    same_step = {"vector_kwargs": {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP}} if mode == "sync" \
        else {}                                             # the compiled vector env's autoreset, in both
    envs = gymnasium.make_vec(GYM_ID, 4, vectorization_mode=mode, **SHARED, **same_step)
    obs, _ = envs.reset(seed=3)
    rng, seats, ended, penalized = np.random.default_rng(0), set(), 0, False
    for _ in range(4000):
        acts = _masked_random(rng, obs["action_mask"])
        if not penalized:                                   # one illegal (in range) id: the penalty
            acts[0] = int(np.flatnonzero(obs["action_mask"][0] == 0)[0])
        obs, rewards, terminated, truncated, infos = envs.step(acts)
        done = terminated | truncated
        if not penalized:
            assert done[0] and rewards[0] == -2.0
            penalized = True
            continue
        for b in np.flatnonzero(done):
            info = infos["final_info"]
            assert "scores" not in info
            seats.add(int(info["seat"][b]))
            assert -1.0 - 0.2 <= rewards[b] <= 1.0 + 0.2
            ended += 1
        if ended >= 12 and len(seats) >= 2:
            break
    assert len(seats) >= 2 and ended >= 12
    envs.close()


def test_the_single_env_draws_its_opponents_from_the_pool_with_the_weights():
    env = gymnasium.make(GYM_ID, num_players=4, opponents=("random", "rulebot"), opponent_weights=(0.2, 0.8)).unwrapped
    draws = []
    for s in range(60):
        env.reset(seed=s)
        draws += [o for k, o in enumerate(env.opponents) if k != env.seat]
    share = np.mean([d == COMPILED_POLICIES["rulebot"] for d in draws])
    assert 0.65 < share < 0.92
    with pytest.raises(ValueError, match="'greedy' is not a compiled agent"):
        gymnasium.make(GYM_ID, opponents=("greedy",))
    with pytest.raises(ValueError, match="seed: the single env is seeded by reset"):
        gymnasium.make(GYM_ID, seed=0)
    with pytest.raises(ValueError, match="reward weight of 'win_loss' must be a finite number, got nan"):
        gymnasium.make(GYM_ID, reward={"win_loss": float("nan")})


def test_the_single_env_pays_the_weighted_reward_the_vector_env_pays():
    env = gymnasium.make(GYM_ID, num_players=3, opponents=("rulebot",), reward={"win_loss": 1.0, "score_margin": 0.5})
    obs, _ = env.reset(seed=5)
    rng = np.random.default_rng(1)
    while True:
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if term or trunc:
            break
    seat = env.unwrapped.seat
    expected = terminal_rewards(info["scores"], "win_loss")[seat] + 0.5 * terminal_rewards(info["scores"],
                                                                                            "score_margin")[seat]
    assert r == pytest.approx(expected)


def test_final_info_episode_is_right_where_gymnasium_1_2_2s_wrapper_is_one_short():
    """Gymnasium 1.2.2's vector RecordEpisodeStatistics assumes next-step autoreset: under same-step
    autoreset (this env's) every episode after a game's first is reported one step short, its first
    reward dropped (fixed upstream in PR #1624). `infos["final_info"]["episode"]` is right."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    envs = RecordEpisodeStatistics(gymnasium.make_vec(GYM_ID, num_envs=2, num_players=2, opponents=("random",)))
    obs, _ = envs.reset(seed=4)
    rng, steps, episodes = np.random.default_rng(3), np.zeros(2, int), [[], []]
    while min(len(e) for e in episodes) < 3:
        obs, rewards, terminated, truncated, infos = envs.step(_masked_random(rng, obs["action_mask"]))
        steps += 1
        for b in np.flatnonzero(terminated | truncated):
            ours = int(infos["final_info"]["episode"]["l"][b])
            wrapper = int(infos["episode"]["l"][b])
            episodes[b].append((int(steps[b]), ours, wrapper))
            steps[b] = 0
    for per_game in episodes:
        assert all(true == ours for true, ours, _ in per_game)
        assert per_game[0][2] == per_game[0][0]                          # a game's first episode: right
        fixed = all(true == wrapper for true, _, wrapper in per_game[1:])
        short = all(wrapper == true - 1 for true, _, wrapper in per_game[1:])
        assert short if gymnasium.__version__ == "1.2.2" else (fixed or short)
