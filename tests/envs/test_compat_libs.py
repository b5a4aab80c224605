"""Issue 12: each RL library's own documented loop on the environments (the `compat` extra).
A library that is not installed skips its test. Illegal actions raise wherever the library lets
the env keep its default (illegal_action='raise'), so a loop that ignored the mask would fail."""
import numpy as np
import pytest

import v1919_env
from helpers.compat import masked_aec_moves
from v1919_env.rewards import terminal_rewards


@pytest.fixture(autouse=True)
def _one_torch_thread():
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)


def test_tianshou_pettingzoo_env_collects_masked_random_episodes():
    pytest.importorskip("tianshou")
    from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector
    from tianshou.env import DummyVectorEnv
    from tianshou.env.pettingzoo_env import PettingZooEnv

    envs = DummyVectorEnv([lambda: PettingZooEnv(v1919_env.env(num_players=3)) for _ in range(2)])
    space = envs.action_space[0]
    policy = MultiAgentPolicy({a: MARLRandomDiscreteMaskedOffPolicyAlgorithm(space).policy
                               for a in ("uk", "france", "usa")})
    collector = Collector(policy, envs)
    stats = collector.collect(n_episode=2, reset_before_collect=True)
    assert stats.n_collected_episodes == 2
    # tianshou's reward vector carries every seat's final reward on the last step: zero-sum, the
    # winners positive (1 for a sole winner, shared on a tie: the random players are not seeded)
    final = collector.buffer.rew[collector.buffer.done.nonzero()[0]]
    assert len(final) == 2 and all(abs(r.sum()) < 1e-9 and r.max() > 0 > r.min() for r in final)


def test_torchrl_pettingzoo_wrapper_rolls_out_with_the_action_mask():
    pytest.importorskip("torchrl")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    from v1919_env.compat import torchrl_env
    from v1919_env.envs.pettingzoo_env import decision_name

    with pytest.raises(TypeError):        # the default infos hold strings: torchrl cannot tensorise them
        PettingZooWrapper(env=v1919_env.env(), use_mask=True)
    env = torchrl_env(num_players=3, seed=0)
    assert set(env.group_map) == {"uk", "france", "usa"}
    check_env_specs(env)
    td = env.rollout(400, break_when_any_done=True)      # random actions drawn from the masked spec
    n = td.batch_size[0]
    assert n > 100
    acting = [td["uk", "mask"][:, 0], td["france", "mask"][:, 0], td["usa", "mask"][:, 0]]
    assert all(int(sum(m[i] for m in acting)) == 1 for i in range(n))     # one nation decides each step
    codes = td["next", "uk", "info", "decision"].flatten().long().tolist()
    assert {decision_name(c) for c in codes} >= {"waiting", "turn"}


def test_supersuit_box_wrappers_apply_to_the_vector_observation():
    ss = pytest.importorskip("supersuit")
    from pettingzoo.test import api_test

    env = v1919_env.env(num_players=3, obs_mode="vector")
    env = ss.frame_stack_v1(ss.normalize_obs_v0(ss.dtype_v0(env, np.float32), env_min=0.0, env_max=1.0), 2)
    size = v1919_env.env(obs_mode="vector").observation_space("uk").shape[0]
    assert env.observation_space("uk").shape == (2 * size,)
    api_test(env, num_cycles=100)
    moves = 0
    for _agent, obs, info in masked_aec_moves(env, 3, lambda o, i: i["action_mask"]):   # raises if a mask were wrong
        assert obs.shape == (2 * size,) and 0.0 <= obs.min() and obs.max() <= 1.0
        moves += 1
    assert moves > 100
    assert not env.agents


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
def test_rllib_ppo_with_action_masking_trains_an_iteration():
    """RLlib's own multi-agent PPO loop (parameter sharing, the project's masked RLModule,
    agents/rllib_module.py, reading the "observations" key) on rllib_env, with illegal actions raising (rllib_env's default 'penalize' is what
    lets RLlib's env check pass; test_rllib_env_passes_rllibs_env_check)."""
    pytest.importorskip("ray.rllib")
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from agents.rllib_module import MaskedPPOModule

    from v1919_env.compat import rllib_env

    env = rllib_env({"num_players": 3})
    obs, _ = env.reset(seed=0)
    (agent, o), = obs.items()
    assert set(o) == {"observations", "action_mask"} and o["action_mask"].dtype == np.float32

    ray.init(address="local", num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        register_env("v1919_compat_test", rllib_env)
        module = RLModuleSpec(module_class=MaskedPPOModule, model_config={"trunk": [16], "pi": [], "vf": []})
        config = (PPOConfig()
                  # RLlib's env check steps unmasked random actions: off, so that an illegal action raises
                  .environment("v1919_compat_test", env_config={"num_players": 3, "illegal_action": "raise"},
                               disable_env_checking=True)
                  .multi_agent(policies={"shared"}, policy_mapping_fn=lambda aid, *args, **kwargs: "shared")
                  .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": module}))
                  .env_runners(num_env_runners=0)
                  .training(train_batch_size_per_learner=256, minibatch_size=128, num_epochs=1))
        algo = config.build_algo()
        try:
            result = algo.train()
        finally:
            algo.stop()
    finally:
        ray.shutdown()
    assert result["training_iteration"] == 1
    assert result["env_runners"]["num_env_steps_sampled"] >= 256
    assert np.isfinite(result["learners"]["shared"]["total_loss"])


def test_rllib_env_returns_every_seat_final_reward():
    pytest.importorskip("ray.rllib")
    from v1919_env.compat import rllib_env

    env = rllib_env({"num_players": 3, "illegal_action": "raise"})
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(1)
    totals = {a: 0.0 for a in ("uk", "france", "usa")}
    while True:
        (agent, o), = obs.items() if len(obs) == 1 else [next(iter(obs.items()))]
        obs, rew, term, trunc, _ = env.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
        for a, r in rew.items():
            totals[a] += r
        if term["__all__"] or trunc["__all__"]:
            break
    want = terminal_rewards(env.env.unwrapped.game.scores(), "win_loss")
    assert [totals[a] for a in ("uk", "france", "usa")] == pytest.approx(want)


def test_rllib_env_passes_rllibs_env_check():
    pytest.importorskip("ray.rllib")
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    from v1919_env.compat import rllib_env

    check_multiagent_environments(rllib_env({"num_players": 3}))
