"""The single-file masked PPO example (training/examples/ppo_masked_vector.py, issue 23): run as a real
script for a tiny budget, and its pieces checked one by one: the same-step auto-reset handling
(GAE does not bootstrap across an episode's end, a truncated episode is bootstrapped from
infos["final_obs"], a terminated one is not) against a scripted vector env, the masked
distribution, and a rollout on the real compiled vector env."""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

torch = pytest.importorskip("torch")

from v1919_env.actions import NUM_ACTIONS  # noqa: E402
from v1919_env.core.observe import OBS_SIZE  # noqa: E402
from v1919_env.envs.versions import GYM_ID  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "training" / "examples" / "ppo_masked_vector.py"


@pytest.fixture(scope="module")
def ppo():
    """The script as a module (its main() runs only under __main__)."""
    torch.set_num_threads(1)
    spec = importlib.util.spec_from_file_location("ppo_masked_vector", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_script_trains_prints_sps_evaluates_and_saves_its_checkpoint(tmp_path, ppo):
    ckpt = tmp_path / "ckpt" / "agent.pt"
    cmd = [sys.executable, str(SCRIPT), "--total-timesteps", "2048", "--num-envs", "8", "--num-steps", "64",
           "--num-minibatches", "2", "--update-epochs", "1", "--seed", "3", "--eval-games", "8",
           "--eval-opponents", "rulebot", "random", "--checkpoint", str(ckpt)]
    r = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    out = r.stdout
    assert re.search(r"^iter 4/4 global_step=2048 SPS=\d+ ", out, re.M), out
    sps = re.search(r"^SPS: (\d+) \(2048 steps in [\d.]+ s; (\d+) per second of this process's CPU time; "
                    r"(\d+) episodes\)$", out, re.M)
    assert sps and int(sps.group(1)) > 0 and int(sps.group(2)) > 0, out
    assert f"checkpoint: {ckpt}" in out
    for opp in ("rulebot", "random"):
        m = re.search(rf"^eval vs 3x {opp}: win rate ([\d.]+)% \[([\d.]+), ([\d.]+)\] of 8 games", out, re.M)
        assert m, out
        rate, low, high = map(float, m.groups())
        assert 0.0 <= low <= rate <= high <= 100.0
    assert not (tmp_path / "runs").exists()          # --checkpoint was honoured
    saved = torch.load(ckpt, weights_only=False)
    assert saved["obs_size"] == OBS_SIZE and saved["num_actions"] == NUM_ACTIONS and saved["global_step"] == 2048
    assert saved["args"]["env_id"] == GYM_ID and saved["args"]["seed"] == 3
    agent = ppo.Agent(OBS_SIZE, NUM_ACTIONS, saved["args"]["hidden"])
    agent.load_state_dict(saved["model_state_dict"])           # the checkpoint is the network, whole
    envs = gymnasium.make_vec(GYM_ID, num_envs=4, vectorization_mode="vector_entry_point", num_players=4)
    obs, _ = envs.reset(seed=0)
    with torch.no_grad():
        action, _, _, _ = agent.get_action_and_value(torch.as_tensor(obs["observation"]),
                                                     torch.as_tensor(obs["action_mask"] != 0), greedy=True)
    assert all(obs["action_mask"][b, a] for b, a in enumerate(action.tolist()))
    envs.close()


def test_flags_are_checked(ppo):
    with pytest.raises(SystemExit):
        ppo.parse_args(["--eval-games", "10", "--num-players", "4"])     # not a multiple of the players
    args = ppo.parse_args(["--total-timesteps", "1000", "--num-envs", "4", "--num-steps", "100"])
    assert (args.batch_size, args.minibatch_size, args.num_iterations) == (400, 100, 3)
    assert ppo.parse_reward("win_loss") == "win_loss"
    assert ppo.parse_reward("win_loss=1,score_margin=0.2") == {"win_loss": 1.0, "score_margin": 0.2}


# ---------------------------------------------------------------- same-step auto-reset, scripted

LIVE_VALUE, TRUNC_FINAL_VALUE, TERM_FINAL_VALUE = 1.0, 10.0, 7.0


class ScriptedVectorEnv(gymnasium.vector.VectorEnv):
    """Two games with Gymnasium's same-step auto-reset and infos built by VectorEnv._add_info, as in
    GymVectorEnv. Game 0: episodes of 3 steps, reward 1 on the last, terminated (its final
    observation would be worth TERM_FINAL_VALUE: it must not be used). Game 1: episodes of 4 steps,
    reward 0.5 each, truncated (its final observation is worth TRUNC_FINAL_VALUE). Every observation
    returned is worth LIVE_VALUE; actions 1 and 2 are the legal ones."""

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP}

    def __init__(self):
        self.num_envs = 2
        self.single_observation_space = spaces.Dict({"observation": spaces.Box(-100, 100, (3,), np.float32),
                                                     "action_mask": spaces.Box(0, 1, (4,), np.int8)})
        self.single_action_space = spaces.Discrete(4)
        self.t = np.zeros(2, int)
        self.mask = np.array([[0, 1, 1, 0]] * 2, np.int8)

    def _obs(self):
        return {"observation": np.full((2, 3), LIVE_VALUE, np.float32), "action_mask": self.mask.copy()}

    def reset(self, *, seed=None, options=None):
        self.t[:] = 0
        return self._obs(), {}

    def step(self, actions):
        assert set(np.asarray(actions).tolist()) <= {1, 2}, actions           # only legal actions are played
        self.t += 1
        rewards = np.array([1.0 if self.t[0] == 3 else 0.0, 0.5])
        terminated = np.array([self.t[0] == 3, False])
        truncated = np.array([False, self.t[1] == 4])
        infos = {}
        for b, final_value in ((0, TERM_FINAL_VALUE), (1, TRUNC_FINAL_VALUE)):
            if terminated[b] or truncated[b]:
                final = {"observation": np.full(3, final_value, np.float32), "action_mask": np.eye(4, dtype=np.int8)[0]}
                info = {"episode": {"r": 1.0 if b == 0 else 2.0, "l": int(self.t[b])}, "winner": b == 0}
                infos = self._add_info(infos, {"final_obs": final, "final_info": info}, b)
                self.t[b] = 0
        return self._obs(), rewards, terminated, truncated, infos


class ValueIsFeatureZero:
    """A stand-in agent: V(x) = x[0], the first legal action."""

    def get_value(self, x):
        return x[:, 0].clone()

    def get_action_and_value(self, x, mask, action=None, greedy=False):
        if action is None:
            action = mask.int().argmax(dim=-1)
        return action, torch.zeros(len(x)), torch.zeros(len(x)), self.get_value(x)


def expected_returns(num_steps: int, gamma: float) -> np.ndarray:
    """Discounted returns of the scripted games written out step by step (independent of GAE)."""
    out = np.zeros((num_steps, 2))
    ends = {0: (3, "terminated", 1.0), 1: (4, "truncated", 0.5)}
    for b, (length, how, reward) in ends.items():
        for t in range(num_steps):
            g, disc = 0.0, 1.0
            for j in range(t, num_steps):
                kj = j % length
                g += disc * (reward if (b == 1 or kj == length - 1) else 0.0)
                disc *= gamma
                if kj == length - 1:             # the episode ends at step j
                    if how == "truncated":
                        g += disc * TRUNC_FINAL_VALUE
                    break
            else:
                g += disc * LIVE_VALUE           # the rollout ends first: bootstrap from the next observation
            out[t, b] = g
    return out


def test_same_step_autoreset_bootstraps_truncated_episodes_only_and_never_across_an_end(ppo):
    num_steps, gamma = 10, 0.9
    envs, agent = ScriptedVectorEnv(), ValueIsFeatureZero()
    buf = ppo.Rollout(num_steps, 2, 3, 4)
    obs, _ = envs.reset()
    episodes = []
    next_obs, next_done = ppo.collect_rollout(envs, agent, buf, obs, torch.zeros(2), gamma, episodes)
    # dones[t] marks the observations that start a new episode
    assert buf.dones[:, 0].tolist() == [0, 0, 0, 1, 0, 0, 1, 0, 0, 1]
    assert buf.dones[:, 1].tolist() == [0, 0, 0, 0, 1, 0, 0, 0, 1, 0]
    assert next_done.tolist() == [0, 0]
    # the truncation step's reward carries gamma * V(final_obs)
    np.testing.assert_allclose(buf.rewards[3, 1].item(), 0.5 + gamma * TRUNC_FINAL_VALUE, rtol=1e-6)
    np.testing.assert_allclose(buf.rewards[2, 0].item(), 1.0)          # terminated: no bootstrap
    assert sorted(episodes) == sorted([(1.0, 3, True)] * 3 + [(2.0, 4, False)] * 2)
    with torch.no_grad():
        next_value = agent.get_value(torch.as_tensor(next_obs["observation"]))
    _, returns = ppo.compute_gae(buf.rewards, buf.values, buf.dones, next_value, next_done, gamma, 1.0)
    np.testing.assert_allclose(returns.numpy(), expected_returns(num_steps, gamma), rtol=1e-5)


def test_gae_with_lambda_below_one_stops_at_episode_ends(ppo):
    """One game, rewards 1 at every step, an episode boundary before step 2 (dones[2] = 1): the
    advantages of steps 0-1 do not see what comes after it."""
    rewards = torch.ones(4, 1)
    values = torch.zeros(4, 1)
    dones = torch.tensor([[0.0], [0.0], [1.0], [0.0]])
    adv, ret = ppo.compute_gae(rewards, values, dones, torch.zeros(1), torch.zeros(1), 0.5, 0.5)
    # step 1 ends its episode: adv = 1; step 0: 1 + 0.25 * 1; steps 2-3: the same pattern, bootstrapped with 0
    np.testing.assert_allclose(adv[:, 0].numpy(), [1.25, 1.0, 1.25, 1.0])
    np.testing.assert_allclose(ret.numpy(), adv.numpy())


def test_the_masked_distribution_only_sees_legal_actions(ppo):
    torch.manual_seed(0)
    agent = ppo.Agent(OBS_SIZE, NUM_ACTIONS, 32)
    x = torch.randn(3, OBS_SIZE)
    mask = torch.zeros(3, NUM_ACTIONS, dtype=torch.bool)
    mask[0, [5, 9]] = True
    mask[1, 0] = True                                  # a final observation's mask: action 0 alone
    mask[2, :] = True
    for _ in range(20):
        action, logprob, entropy, _ = agent.get_action_and_value(x, mask)
        assert mask[torch.arange(3), action].all()
        assert torch.isfinite(logprob).all() and torch.isfinite(entropy).all()
    _, logprob, entropy, _ = agent.get_action_and_value(x, mask, torch.tensor([5, 0, 3]))
    assert abs(logprob[1].item()) < 1e-6 and abs(entropy[1].item()) < 1e-6      # certain
    assert entropy[0].item() <= np.log(2) + 1e-6 < entropy[2].item()
    _, illegal_logprob, _, _ = agent.get_action_and_value(x, mask, torch.tensor([6, 1, 3]))
    assert illegal_logprob[0].item() < -1e6 and illegal_logprob[1].item() < -1e6
    greedy, _, _, _ = agent.get_action_and_value(x, mask, greedy=True)
    assert greedy[1].item() == 0 and greedy[0].item() in (5, 9)


def test_a_rollout_on_the_compiled_vector_env_plays_legal_actions_and_counts_every_ended_game(ppo):
    torch.manual_seed(0)
    envs = gymnasium.make_vec(GYM_ID, num_envs=6, vectorization_mode="vector_entry_point", num_players=3,
                              opponents=["rulebot", "random"], seed=0)
    agent = ppo.Agent(OBS_SIZE, NUM_ACTIONS, 32)
    buf = ppo.Rollout(160, 6, OBS_SIZE, NUM_ACTIONS)
    obs, _ = envs.reset(seed=5)
    episodes = []
    _, next_done = ppo.collect_rollout(envs, agent, buf, obs, torch.zeros(6), 0.99, episodes)
    envs.close()
    assert buf.masks.gather(2, buf.actions.unsqueeze(-1)).all()            # every action was legal
    ended = int(buf.dones[1:].sum() + next_done.sum())
    assert ended == len(episodes) >= 3
    assert all(-1.0 <= r <= 1.0 and length > 0 for r, length, _ in episodes)
    assert all((r > 0) <= won and won <= (r >= 0) for r, _, won in episodes)   # win_loss: a win pays > 0 (0 if all tie)
