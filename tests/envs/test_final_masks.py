"""Issue 20: the mask of an observation from which nothing is played (a finished episode's last
observation, the vector env's auto-reset final observations) marks action 0 alone (end_mask), so
that CleanRL-style code masking its logits with -inf still builds a torch Categorical on it."""
from __future__ import annotations

import numpy as np
import pytest

import v1919_env
from v1919_env.actions import NUM_ACTIONS
from v1919_env.compat import SelfPlayEnv
from v1919_env.envs.solitaire_gym import SolitaireEnv
from v1919_env.envs.vector_env import GymVectorEnv
from helpers.vector_env import random_actions

torch = pytest.importorskip("torch")
torch.set_num_threads(1)


def masked_categorical(mask) -> torch.distributions.Categorical:
    """What CleanRL's masked PPO does: logits of the masked-out actions set to -inf."""
    mask = torch.as_tensor(np.asarray(mask, bool))
    logits = torch.where(mask, torch.zeros(mask.shape), torch.tensor(-float("inf")))
    return torch.distributions.Categorical(logits=logits, validate_args=True)


def test_an_all_zero_mask_is_what_crashes_a_masked_categorical():
    mask = np.zeros(NUM_ACTIONS, bool)
    with pytest.raises(ValueError):
        masked_categorical(mask)
    mask[0] = True
    assert masked_categorical(mask).sample().item() == 0


def test_the_gymnasium_vector_envs_final_observations_have_a_usable_mask():
    env = GymVectorEnv(num_envs=4, seed=None)
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(0)
    finals = 0
    for _ in range(2000):
        obs, rewards, term, trunc, infos = env.step(random_actions(obs["action_mask"], rng))
        masked_categorical(obs["action_mask"])
        for b in np.flatnonzero(term | trunc):
            final = infos["final_obs"][b]
            assert np.flatnonzero(final["action_mask"]).tolist() == [0]
            assert env.single_observation_space.contains(final)
            masked_categorical(final["action_mask"]).log_prob(torch.tensor(0))
            finals += 1
        if finals >= 2:
            break
    assert finals >= 2
    env.close()


def _play_to_the_end(env, seed):
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while True:
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if term or trunc:
            return obs, info


@pytest.mark.parametrize("make", [lambda: v1919_env.gym_env(num_players=3), lambda: SolitaireEnv(),
                                  lambda: SelfPlayEnv(num_players=3)], ids=["gym", "solitaire", "self_play"])
def test_a_finished_games_last_observation_has_a_usable_mask(make):
    env = make()
    obs, info = _play_to_the_end(env, seed=4)
    assert np.flatnonzero(obs["action_mask"]).tolist() == [0] == np.flatnonzero(env.action_masks()).tolist()
    masked_categorical(obs["action_mask"])
    masked_categorical(env.action_masks())
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)                                  # the fill action is never played


def test_gymnasium_vector_obs_mode_action_masks_after_the_end():
    env = v1919_env.gym_env(num_players=3, obs_mode="vector")
    assert not env.action_masks().any()              # before reset(): no observation, no mask
    _play_to_the_end(env, seed=6)
    masked_categorical(env.action_masks())
