"""Issue 12: AgileRL's own documented multi-agent training function on `v1919_env.compat.parallel_env`
(its AsyncPettingZooVecEnv, MADDPG, `train_multi_agent_off_policy`), and the IPPO path that
AgileRL 2.58 cannot run with action masks.

AgileRL pins pettingzoo<1.27 and tensordict 0.13 (torchrl 0.14 of the compat extra needs 0.14), so
this runs in a venv of its own (.ci/versions); skipped where AgileRL is not installed."""
import numpy as np
import pytest

pytest.importorskip("agilerl")
torch = pytest.importorskip("torch")

NET = {"encoder_config": {"hidden_size": [32]}, "head_config": {"hidden_size": [16]}}


@pytest.fixture
def vec_env():
    from agilerl.vector.pz_async_vec_env import AsyncPettingZooVecEnv

    from v1919_env.compat import parallel_env

    torch.set_num_threads(1)
    # illegal_action="raise" (the default): an action outside the mask fails the env worker and the run
    env = AsyncPettingZooVecEnv([lambda: parallel_env(num_players=3) for _ in range(2)])
    env.reset(seed=0)
    yield env
    env.close(terminate=True)


def _spaces(env):
    return ([env.single_observation_space(a) for a in env.agents], [env.single_action_space(a) for a in env.agents],
            list(env.agents))


def test_agilerl_maddpg_trains_with_its_documented_training_function(vec_env):
    from agilerl.algorithms import MADDPG
    from agilerl.components.replay_buffer import ReplayBuffer
    from agilerl.training.train_multi_agent_off_policy import train_multi_agent_off_policy

    obs_spaces, act_spaces, ids = _spaces(vec_env)
    agent = MADDPG(observation_spaces=obs_spaces, action_spaces=act_spaces, agent_ids=ids, vect_noise_dim=2,
                   device="cpu", net_config=NET, batch_size=64, learn_step=4)
    weights = [p.detach().clone() for p in agent.actors[ids[0]].parameters()]
    pop, fitnesses = train_multi_agent_off_policy(vec_env, "versailles1919", "MADDPG", [agent], ReplayBuffer(10_000),
                                                  max_steps=400, evo_steps=200, eval_steps=40, verbose=False)
    assert int(np.ravel(pop[0].steps)[-1]) >= 400
    assert np.isfinite(np.asarray(fitnesses, dtype=float)).all()
    after = list(pop[0].actors[ids[0]].parameters())
    assert any(not torch.equal(a, b) for a, b in zip(weights, after))          # it learned


def test_agilerl_ippo_cannot_read_array_action_masks(vec_env):
    """AgileRL 2.58's IPPO.extract_action_masks tests `None in [masks]`, which raises for numpy
    masks (what its own AsyncPettingZooVecEnv stacks). Strict: when AgileRL fixes it this test
    fails, and docs/compat.md and the README are to be updated."""
    from agilerl.algorithms import IPPO

    obs_spaces, act_spaces, ids = _spaces(vec_env)
    agent = IPPO(observation_spaces=obs_spaces, action_spaces=act_spaces, agent_ids=ids, device="cpu",
                 net_config=NET, batch_size=64, learn_step=128)
    obs, info = vec_env.reset(seed=1)
    with pytest.raises(ValueError, match="truth value of an array"):
        agent.get_action(obs=obs, infos=info)
