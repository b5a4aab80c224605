"""Issue 23: RLlib on the compiled vector env, without a Ray cluster (each test builds its parts in
this process): the masked RLModule (agents/rllib_module.py), the env runner's episodes checked
against the games played (replayed one by one through the single-game path), the opponents (the
learner's weights, frozen snapshots), RLlib's learner on those episodes, and why RLlib's stock
env runner does not fit the vector env (it assumes next-step auto-reset). Skipped without ray[rllib]."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")

from helpers.vector_env import ReplayedGame  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402

from agents.rllib_module import MASK_KEY, MASKED, OBS_KEY, MaskedPPOModule  # noqa: E402
from training.rllib.backend import module_spec, ppo_config  # noqa: E402
from training.rllib.config import config_from_dict  # noqa: E402
from training.rllib.runner import WIN_RATE, VectorEnvRunner, sample_actions  # noqa: E402
from v1919_env.actions import NUM_ACTIONS  # noqa: E402
from v1919_env.core.observe import OBS_SIZE  # noqa: E402
from v1919_env.envs.pettingzoo_env import end_mask  # noqa: E402
from v1919_env.envs.vector_env import GymVectorEnv  # noqa: E402
from v1919_env.envs.vector_kernels import COMPILED_POLICIES  # noqa: E402
from v1919_env.rewards import terminal_rewards  # noqa: E402

REWARD = {"win_loss": 1.0, "score_margin": 0.5}
TINY = {"trunk": [16], "pi": [8], "vf": [8]}


@pytest.fixture(autouse=True)
def _one_torch_thread():
    torch.set_num_threads(1)


def make_cfg(games=6, opponents=None, batch=None, **ppo):
    return config_from_dict({"seed": 5, "reward": REWARD, "policy": TINY,
                             "ray": {"num_env_runners": 0, "num_envs_per_env_runner": games},
                             "opponents": opponents or {"random": 0.5, "rulebot": 0.5},
                             "self_play": {"pool_size": 2},
                             "ppo": {"train_batch_size": batch or 8 * games, "minibatch_size": 4 * games, **ppo}},
                            "test")


def make_runner(cfg):
    return VectorEnvRunner(config=ppo_config(cfg))


def dict_batch(obs, masks):
    return {OBS_KEY: torch.as_tensor(obs), MASK_KEY: torch.as_tensor(masks)}


# ---------------------------------------------------------------------------------- the module
def test_the_module_masks_illegal_actions_and_its_inference_part_drops_the_value_layers():
    spec = module_spec(make_cfg())
    full = spec.build()
    assert isinstance(full, MaskedPPOModule)
    env = GymVectorEnv(num_envs=5, seed=1)
    obs, _ = env.reset()
    batch = {Columns.OBS: dict_batch(obs["observation"], obs["action_mask"])}
    out = full.forward_train(batch)
    logits = out[Columns.ACTION_DIST_INPUTS]
    legal = torch.as_tensor(obs["action_mask"]) > 0
    assert logits.shape == (5, NUM_ACTIONS) and bool((logits[~legal] == MASKED).all())
    assert bool(torch.isfinite(logits[legal]).all())
    dist = full.get_train_action_dist_cls().from_logits(logits)
    probs = torch.softmax(logits, -1)
    assert bool((probs[~legal] == 0).all()) and torch.allclose(probs.sum(-1), torch.ones(5))
    assert bool(torch.isfinite(dist.entropy()).all())
    values = full.compute_values(batch, embeddings=out[Columns.EMBEDDINGS])
    assert values.shape == (5,)
    assert torch.allclose(values, full.compute_values(batch))
    # a gradient step through the masked logits stays finite
    loss = -dist.logp(torch.as_tensor(np.argmax(obs["action_mask"], 1))).mean() + values.pow(2).mean()
    loss.backward()
    assert all(torch.isfinite(p.grad).all() for p in full.parameters() if p.grad is not None)

    spec.inference_only = True
    small = spec.build()
    assert not hasattr(small, "vf") and {k.split(".")[0] for k in small.state_dict()} == {"trunk", "pi"}
    state = full.get_state(inference_only=True)
    assert not any(k.startswith("vf.") for k in state)
    small.set_state(state)
    with torch.no_grad():
        assert torch.equal(small.forward_inference(batch)[Columns.ACTION_DIST_INPUTS], logits.detach())
    with pytest.raises(RuntimeError, match="no value layers"):
        small.compute_values(batch)
    # SB3's initialisation: the policy head starts almost uniform
    assert float(full.pi[-1].weight.detach().std()) < 0.02


def test_the_module_refuses_an_observation_without_the_mask():
    from gymnasium import spaces
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    bad = RLModuleSpec(module_class=MaskedPPOModule, observation_space=spaces.Box(0, 1, (OBS_SIZE,)),
                       action_space=spaces.Discrete(NUM_ACTIONS))
    with pytest.raises(ValueError, match="must be a Dict of 'observation' \\(or 'observations'\\) and 'action_mask'"):
        bad.build()


def test_sampled_actions_follow_the_masked_softmax():
    g = torch.Generator().manual_seed(0)
    p = torch.tensor([0.1, 0.0, 0.6, 0.3, 0.0])
    logits = torch.where(p > 0, torch.log(p.clamp(min=1e-30)), torch.full_like(p, MASKED)).expand(100_000, 5)
    counts = torch.bincount(sample_actions(logits, g), minlength=5).double() / 100_000
    assert counts[1] == 0 and counts[4] == 0
    assert torch.allclose(counts, p.double(), atol=0.01)


# ---------------------------------------------------------------------------------- the runner
def replay(ep, seed: int, seat: int, policies) -> ReplayedGame:
    """Check an episode (one game of the learner, from its start) against the single-game path:
    every observation and mask, the actions legal, no reward before the end; if it ended: the end
    where the game ends, the reward the weighted terminal reward of the final scores, the final
    observation and its end mask; if not: its last observation the game's position now."""
    ref = ReplayedGame(seed, seat, 4, policies)
    obs, masks = ep.get_observations()[OBS_KEY], ep.get_observations()[MASK_KEY]
    actions, rewards = ep.get_actions(), ep.get_rewards()
    assert len(obs) == len(masks) == len(ep) + 1 == len(actions) + 1
    for t, a in enumerate(actions):
        o, m = ref.observe()
        np.testing.assert_array_equal(obs[t], o)
        np.testing.assert_array_equal(masks[t], m)
        assert m[a] == 1
        ref.step(int(a))
        assert ref.game.is_over == (ep.is_done and t == len(actions) - 1)
    np.testing.assert_array_equal(obs[-1], ref.observe()[0])
    if not ep.is_done:
        np.testing.assert_array_equal(masks[-1], ref.observe()[1])
        assert not np.any(rewards)
        return ref
    scores = ref.game.scores()
    want = sum(w * terminal_rewards(scores, k)[ref.seat] for k, w in REWARD.items())
    assert rewards[-1] == pytest.approx(want, abs=1e-6)
    assert not np.any(rewards[:-1])
    np.testing.assert_array_equal(masks[-1], end_mask())
    assert ep.is_terminated and not ep.is_truncated
    assert ep.custom_data["winner"] == (want > 0)
    return ref


def replay_ended(ep) -> ReplayedGame:
    d = ep.custom_data
    return replay(ep, int(d["game_seed"]), int(d["seat"]), compiled_policies(d["opponents"]))


def compiled_policies(labels):
    return np.array([-1 if x == "learner" else COMPILED_POLICIES[x] for x in labels], np.int64)


def test_runner_episodes_are_the_games_played():
    """Several sample() calls of 4 games: the chunks of each episode join up (same id, the next
    chunk's first observation the last one's last), every ended episode replays exactly through
    the single-game path, the log-probabilities are the module's, and the steps add up."""
    cfg = make_cfg(games=4)
    runner = make_runner(cfg)
    chunks, steps = [], 0
    for _ in range(4):
        got = runner.sample(num_timesteps=4 * 37)
        assert sum(len(e) for e in got) == 4 * 37            # 37 steps of every game
        steps += 4 * 37
        chunks += got
    assert all(e.is_numpy for e in chunks)
    # the recorded log-probabilities are the module's masked log-softmax of the recorded actions
    e = chunks[0]
    o = e.get_observations()
    with torch.no_grad():
        lp = torch.log_softmax(runner.module.logits(dict_batch(o[OBS_KEY][:-1], o[MASK_KEY][:-1])), -1)
    want = lp.gather(1, torch.as_tensor(e.get_actions())[:, None])[:, 0].numpy()
    np.testing.assert_allclose(e.get_extra_model_outputs(Columns.ACTION_LOGP), want, rtol=1e-5, atol=1e-6)

    episodes: dict[str, object] = {}
    for c in chunks:                 # in sampling order: concat_episode checks ids, t and the joint
        if c.id_ in episodes:
            episodes[c.id_].concat_episode(c)
        else:
            assert c.t_started == 0           # every episode starts in this run (the games were fresh)
            episodes[c.id_] = c
    done = [e for e in episodes.values() if e.is_done]
    assert len(done) >= 4 and sum(len(e) for e in episodes.values()) == steps
    seen_bots = set()
    for ep in done:
        replay_ended(ep)
        seen_bots |= set(ep.custom_data["opponents"])
    assert seen_bots == {"learner", "random", "rulebot"}
    engine = runner._engine              # the running ones replay up to the position of their game now
    running = [b for b, i in enumerate(runner._ep_ids) if i in episodes]
    assert len(running) == 4
    for b in running:
        ep = episodes[runner._ep_ids[b]]
        assert not ep.is_done and not ep.custom_data        # the info arrives when the episode ends
        replay(ep, int(engine.game_seeds[b]), int(engine.seats[b]), engine.pol[b].copy())
    metrics = runner.get_metrics()
    assert metrics["num_episodes"].peek() == len(done)
    assert metrics[WIN_RATE].peek() == pytest.approx(np.mean([e.custom_data["winner"] for e in done]))
    assert metrics["episode_len_mean"].peek() == pytest.approx(np.mean([len(e) for e in done]))
    assert metrics["episode_return_mean"].peek() == pytest.approx(np.mean([e.get_return() for e in done]), abs=1e-6)


def test_whole_episodes_greedy_and_the_default_fragment():
    cfg = make_cfg(games=4)
    runner = make_runner(cfg)
    eps = runner.sample(num_episodes=5)
    assert len(eps) >= 5 and all(e.is_done and e.t_started == 0 for e in eps)
    for ep in eps:
        replay_ended(ep)
    # explore=False: the most probable legal action
    greedy = runner.sample(num_episodes=1, explore=False)[0]
    o = greedy.get_observations()
    with torch.no_grad():
        lg = runner.module.logits(dict_batch(o[OBS_KEY][:-1], o[MASK_KEY][:-1]))
    np.testing.assert_array_equal(greedy.get_actions(), torch.argmax(lg, -1).numpy())
    # random actions: legal, spread over the legal ids
    rnd = runner.sample(num_timesteps=200, random_actions=True)
    for e in rnd:
        m = e.get_observations()[MASK_KEY]
        assert all(m[t, a] == 1 for t, a in enumerate(e.get_actions()))
    # sample() alone: rollout_fragment_length steps per game, train_batch_size in all
    assert sum(len(e) for e in runner.sample()) == cfg["ppo"]["train_batch_size"]


def test_the_stock_env_runner_loses_the_first_transition_of_every_auto_reset_episode():
    """Why VectorEnvRunner: RLlib's SingleAgentEnvRunner over the vector env (gymnasium's
    vector_entry_point) records the observation that comes with an episode's end as the next
    episode's reset, as with next-step auto-reset; the vector env resets in the same step, so the
    step played from that observation is recorded as a reset and lost. One game, three episodes."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    assert GymVectorEnv.metadata["autoreset_mode"].name == "SAME_STEP"
    pc = (PPOConfig().environment(lambda c: GymVectorEnv(num_envs=c.get("num_envs", 1), seed=3, score_info=False),
                                  disable_env_checking=True)
          .env_runners(num_env_runners=0, num_envs_per_env_runner=1, gym_env_vectorize_mode="vector_entry_point")
          .rl_module(rl_module_spec=module_spec(make_cfg())))
    stock = SingleAgentEnvRunner(config=pc)
    played = record_lengths(stock.env.unwrapped.engine)
    got = [len(e) for e in stock.sample(num_episodes=3)]
    assert len(played) == 3
    assert got == [played[0], played[1] - 1, played[2] - 1]

    ours = make_runner(make_cfg(games=1, opponents={"random": 1.0}))
    played = record_lengths(ours._engine)
    assert [len(e) for e in ours.sample(num_episodes=3)] == played[:3]


def record_lengths(engine) -> list:
    """Make the vector env record the length of every episode it ends (a list, filled as it plays)."""
    played, step_all = [], engine.step_all

    def recording(actions):
        out = step_all(actions)
        played.extend(info["episode"]["l"] for _, _, info in out[5].values())
        return out

    engine.step_all = recording
    return played


# ---------------------------------------------------------------------------------- opponents
def test_snapshot_and_learner_opponents_are_batch_policies_with_pushed_weights():
    cfg = make_cfg(games=8, opponents={"self": 0.6, "learner": 0.2, "rulebot": 0.2})
    runner = make_runner(cfg)
    with pytest.raises(RuntimeError, match="snapshot slot\\(s\\) past0, past1 have no weights"):
        runner.sample(num_timesteps=8)
    spec = module_spec(cfg)
    spec.inference_only = True
    pushed = {s: spec.build().get_state() for s in ("past0", "past1")}
    runner.set_snapshots(pushed)
    for slot, state in runner.get_snapshot_states().items():
        assert all(np.array_equal(state[k], pushed[slot][k]) for k in state)
    labels = set(runner._engine._code_labels.values())
    assert {"learner", "past0", "past1", "rulebot"} <= labels
    assert runner._learner_policy.module is runner.module        # the learner's current weights
    eps = runner.sample(num_episodes=6)
    assert {x for e in eps for x in e.custom_data["opponents"]} >= {"past0", "past1"}
    assert all(len(e) > 10 for e in eps)
    # a new learner state reaches the `learner` opponent with the module (RLlib's weight sync)
    state = runner.module.get_state()
    state = {k: v + 1.0 for k, v in state.items()}
    runner.set_state({"rl_module": state, "weights_seq_no": 7})
    assert np.array_equal(runner._learner_policy.module.get_state()["pi.0.bias"], state["pi.0.bias"])


# ---------------------------------------------------------------------------------- the learner
@pytest.mark.parametrize("kl_coeff", [0.0, 0.2])
def test_rllibs_ppo_learner_trains_on_the_runner_episodes(kl_coeff):
    """RLlib's PPO learner (the project's subclass: SB3's Adam epsilon) takes the runner's episodes: the weights move,
    the losses are finite; with the KL term on, the runner ships its logits and the first
    minibatch's KL to the learner's own logits is 0 (the two passes agree)."""
    cfg = make_cfg(games=8, batch=256, kl_coeff=kl_coeff)
    pc = ppo_config(cfg)
    runner = VectorEnvRunner(config=pc)
    eps = runner.sample(num_timesteps=256)
    assert (Columns.ACTION_DIST_INPUTS in eps[0].extra_model_outputs) == (kl_coeff > 0)
    learner = pc.build_learner(env=None, spaces=runner.get_spaces())
    assert learner.get_optimizer("default_policy").defaults["eps"] == 1e-5       # SB3's Adam epsilon
    before = learner.get_state(components="rl_module")["rl_module"]["default_policy"]
    before = {k: v.copy() for k, v in before.items()}
    res = learner.update(episodes=eps, timesteps={"num_env_steps_sampled_lifetime": 256}, num_epochs=1,
                         minibatch_size=256)
    after = learner.get_state(components="rl_module")["rl_module"]["default_policy"]
    assert any(not np.array_equal(before[k], after[k]) for k in before)
    stats = res["default_policy"]
    assert np.isfinite(stats["total_loss"].peek()) and np.isfinite(stats["entropy"].peek())
    if kl_coeff > 0:
        assert abs(stats["mean_kl_loss"].peek()) < 1e-5
