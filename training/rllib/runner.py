"""The env runner of `v1919 train-rllib`: many games per compiled call, episodes built in bulk.

`VectorEnvRunner` is an RLlib `SingleAgentEnvRunner` whose env is the compiled vector env
(training/rllib/env.py: `ray.num_envs_per_env_runner` games, the opponents inside) and whose
sampling loop is its own: per step one forward pass of the module over every game's observation
(masked logits; the action sampled by Gumbel-max from the runner's seeded generator; its
log-probability kept for PPO), one compiled `step_all` over the games (the batch opponents, the
learner's current weights and the frozen snapshots, each run as one forward pass over the games
waiting on it), and the observations, masks, actions and rewards written into arrays
`[games, steps, ...]`. After the last step the arrays are cut into RLlib `SingleAgentEpisode`
chunks, numpy from the start: one per episode that ended (its last observation the final one,
with `end_mask`, action 0 alone; its `custom_data` the game's seat, seed, opponents and whether
the learner won) and one per game still running (its last observation the one the
next call starts from; the next chunk keeps the episode's id and `t_started`, so the chunks
concatenate). RLlib's per-step connectors and per-game Python loop are not run: they cost 10 to 30
times the compiled step (docs/rllib.md).

Why not `SingleAgentEnvRunner` over `GymVectorEnv` with `gym_env_vectorize_mode`: that loop
assumes next-step auto-reset (after a done step the env's next observation is the new episode's
first, and the action sent with it is ignored), while the vector env resets in the same step (the
observation returned with `done` already belongs to the next episode). Run together, each new
episode loses its first transition (it is played, but recorded as a reset) and every ended
episode's last observation is the next episode's first. tests/training/test_rllib_runner.py checks
the episodes of this runner against the games played.

Semantics kept from RLlib: `sample(num_timesteps=...)` (at least that many env steps: a whole
number of steps of every game), `sample(num_episodes=...)` (only complete episodes, the games
reset first), `sample()` (rollout_fragment_length steps per game), `explore=False` (the most
probable legal action), `random_actions=True` (uniform over the legal actions), the episode
metrics (return, length, and `learner_win_rate`, the share of ended episodes the learner won),
weights from the learner through `set_state`. RLlib's episode callbacks are not called.
"""
from __future__ import annotations

import math
import uuid

import numpy as np
import torch
from ray.rllib.core import DEFAULT_AGENT_ID, DEFAULT_MODULE_ID
from ray.rllib.core.columns import Columns
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
from ray.rllib.env.single_agent_episode import SingleAgentEpisode
from ray.rllib.env.utils.infinite_lookback_buffer import InfiniteLookbackBuffer
from ray.rllib.utils.metrics import (
    EPISODE_LEN_MAX,
    EPISODE_LEN_MEAN,
    EPISODE_LEN_MIN,
    EPISODE_RETURN_MAX,
    EPISODE_RETURN_MEAN,
    EPISODE_RETURN_MIN,
    SAMPLE_TIMER,
)

from agents.rllib_module import MASK_KEY, MASKED, OBS_KEY
from training.rllib.env import (
    LEARNER,
    SELF,
    make_vector_env,
    opponent_entries,
    runner_seed,
    snapshot_slots,
)
from v1919_env.envs.pettingzoo_env import end_mask

WIN_RATE = "learner_win_rate"        # metric: share of the ended episodes the learner won
EPISODES_CHUNK_STEPS = 64            # steps per rollout while sampling whole episodes
EPISODE_INFO = ("seat", "game_seed", "opponents", "winner", "illegal_action")   # custom_data of an ended episode


def sample_actions(logits: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """One action per row of (masked) logits, drawn from their softmax by inverting its cumulative
    sum (one uniform number per row: 6x cheaper than Gumbel-max over 694 actions). Where float
    rounding lands on an id of probability 0 (u at the very top of the sum), the row takes its most
    probable action instead."""
    probs = torch.softmax(logits, dim=-1)
    cum = torch.cumsum(probs, dim=-1)
    u = torch.rand((cum.shape[0], 1), generator=generator) * cum[:, -1:]
    a = torch.searchsorted(cum, u, right=True)[:, 0].clamp_(max=cum.shape[1] - 1)
    zero = probs.gather(1, a[:, None])[:, 0] == 0
    if bool(zero.any()):
        a[zero] = torch.argmax(logits[zero], dim=-1)
    return a


class ModulePolicy:
    """An RLModule's policy as a batch opponent of the vector env: `act_batch(obs, masks)` samples
    every game's action from the masked softmax in one forward pass."""

    def __init__(self, module, label: str, generator: torch.Generator):
        self.module = module
        self.label = label
        self.generator = generator

    def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits = self.module.logits({OBS_KEY: torch.from_numpy(obs), MASK_KEY: torch.from_numpy(masks)})
            return sample_actions(logits, self.generator).numpy()


class VectorEnvRunner(SingleAgentEnvRunner):
    """See the module docstring. env_config: training.rllib.env.env_config."""

    def __init__(self, *, config, **kwargs):
        if config.batch_mode != "truncate_episodes":
            raise ValueError(f"VectorEnvRunner samples with batch_mode='truncate_episodes', got {config.batch_mode!r}")
        torch.set_num_threads(1)
        self._snapshots: dict[str, ModulePolicy] = {}
        self._snapshots_set: set[str] = set()
        super().__init__(config=config, **kwargs)

    # ------------------------------------------------------------------ env, module, opponents
    def make_env(self) -> None:
        if self.env is not None:
            self.env.close()
        self.env = make_vector_env(self.config.env_config, self.config.num_envs_per_env_runner, self.worker_index or 0)
        self.num_envs = self.env.num_envs
        self._engine = self.env.engine
        self._needs_initial_reset = True
        if getattr(self, "module", None) is not None:
            self._set_pool()

    def make_module(self) -> None:
        super().make_module()
        seed = runner_seed(self.config.env_config.get("seed", 0), self.worker_index or 0)
        self._generator = torch.Generator().manual_seed(seed)
        self._learner_policy = ModulePolicy(self.module, LEARNER, self._generator)
        if self.env is not None:
            self._set_pool()

    def _set_pool(self) -> None:
        """The vector env's opponents: compiled agents, the learner's weights, the snapshot slots."""
        c = self.config.env_config
        ratios = dict(c.get("opponents", {"random": 1.0}))
        slots = snapshot_slots(int(c.get("pool_size", 1))) if ratios.get(SELF, 0) > 0 else []
        if set(slots) != set(self._snapshots):
            spec = self.config.get_rl_module_spec(env=self.env, spaces=self.get_spaces(), inference_only=True)
            self._snapshots = {s: ModulePolicy(spec.build(), s, self._generator) for s in slots}
            self._snapshots_set = set()
        opponents, weights = opponent_entries(ratios, self._learner_policy, list(self._snapshots.values()))
        self._engine.set_opponents(opponents, weights)
        self._needs_initial_reset = True

    def set_snapshots(self, states: dict) -> None:
        """Load frozen snapshot weights {slot: module state (inference part)} (pushed by the driver,
        training/rllib/backend.py); slots this runner does not play (no `self` ratio) are skipped."""
        for slot, state in states.items():
            if slot in self._snapshots:
                self._snapshots[slot].module.set_state(state)
                self._snapshots_set.add(slot)

    def get_snapshot_states(self) -> dict:
        """{slot: module state} of the snapshot slots (for checks)."""
        return {s: p.module.get_state() for s, p in self._snapshots.items()}

    # ------------------------------------------------------------------ sampling
    def sample(self, *, num_timesteps: int | None = None, num_episodes: int | None = None, explore: bool | None = None,
               random_actions: bool = False, force_reset: bool = False) -> list[SingleAgentEpisode]:
        if self.env is None:
            raise ValueError(f"{self} has no env (the driver's env runner when remote env runners sample)")
        if num_timesteps is not None and num_episodes is not None:
            raise ValueError("sample: give num_timesteps or num_episodes, not both")
        missing = sorted(set(self._snapshots) - self._snapshots_set)
        if missing:
            raise RuntimeError(f"snapshot slot(s) {', '.join(missing)} have no weights yet: the driver pushes them "
                               f"with set_snapshots() (training/rllib/backend.py push_snapshots)")
        explore = self.config.explore if explore is None else bool(explore)
        if num_timesteps is None and num_episodes is None:
            num_timesteps = self.config.get_rollout_fragment_length(self.worker_index) * self.num_envs
        with self.metrics.log_time(SAMPLE_TIMER):
            if num_episodes is None:
                if force_reset or self._needs_initial_reset:
                    self._reset()
                chunks = self._rollout(max(1, math.ceil(num_timesteps / self.num_envs)), explore, random_actions)
                episodes = [e for _, e in chunks]
                done = sum(e.is_done for e in episodes)
            else:
                episodes = self._whole_episodes(int(num_episodes), explore, random_actions)
                done = len(episodes)
        steps = sum(len(e) for e in episodes)
        self._log_env_steps(metric=self._metrics_num_env_steps_sampled, num_steps=steps)
        self._increase_sampled_metrics(steps, done)
        return episodes

    def _reset(self) -> None:
        """Start a new episode in every game."""
        obs, masks = self._engine.reset_all()
        self._obs, self._masks = obs.copy(), masks.copy()
        self._ep_ids = [uuid.uuid4().hex for _ in range(self.num_envs)]
        self._ep_t = [0] * self.num_envs
        self._needs_initial_reset = False

    def _act(self, obs: np.ndarray, masks: np.ndarray, explore: bool, random_actions: bool):
        """(actions, their log-probabilities, the masked logits) for a batch of observations."""
        with torch.no_grad():
            m = torch.from_numpy(masks)
            if random_actions:
                logits = torch.where(m > 0, torch.zeros(m.shape), torch.full(m.shape, MASKED))
            else:
                logits = self.module.logits({OBS_KEY: torch.from_numpy(obs), MASK_KEY: m})
            logp_all = torch.log_softmax(logits, dim=-1)
            a = sample_actions(logits, self._generator) if explore else torch.argmax(logits, dim=-1)
            logp = logp_all.gather(1, a[:, None])[:, 0]
        return a.numpy(), logp.numpy(), logits

    def _rollout(self, steps: int, explore: bool, random_actions: bool) -> list[tuple[int, SingleAgentEpisode]]:
        """Play `steps` steps of every game; the episode chunks as (game, episode)."""
        n, eng = self.num_envs, self._engine
        obs = np.empty((n, steps + 1) + self._obs.shape[1:], np.float32)
        masks = np.empty((n, steps + 1) + self._masks.shape[1:], np.int8)
        actions = np.empty((n, steps), np.int64)
        logp = np.empty((n, steps), np.float32)
        rewards = np.empty((n, steps), np.float32)
        ended = np.zeros((n, steps), np.int8)               # 1 terminated, 2 truncated at that step
        keep_dist = bool(self.config.use_kl_loss) if hasattr(self.config, "use_kl_loss") else False
        dist = np.empty((n, steps, masks.shape[2]), np.float32) if keep_dist else None
        finals: dict[tuple[int, int], tuple[np.ndarray, dict]] = {}
        obs[:, 0], masks[:, 0] = self._obs, self._masks
        o, m = self._obs, self._masks
        for t in range(steps):
            a, lp, logits = self._act(o, m, explore, random_actions)
            actions[:, t], logp[:, t] = a, lp
            if dist is not None:
                dist[:, t] = logits.numpy()
            o, m, r, _term, trunc, fin = eng.step_all(a)
            obs[:, t + 1], masks[:, t + 1], rewards[:, t] = o, m, r
            for b, (fo, _fm, info) in fin.items():
                ended[b, t] = 2 if trunc[b] else 1
                finals[b, t] = (fo, info)
                self._log_episode(info)
        self._obs, self._masks = obs[:, steps].copy(), masks[:, steps].copy()
        return self._cut(obs, masks, actions, logp, rewards, ended, dist, finals)

    def _cut(self, obs, masks, actions, logp, rewards, ended, dist, finals) -> list[tuple[int, SingleAgentEpisode]]:
        """The rollout's arrays as episode chunks (see the module docstring)."""
        n, steps = actions.shape
        done_at: list[list[int]] = [[] for _ in range(n)]
        for b, t in zip(*(x.tolist() for x in np.nonzero(ended))):
            done_at[b].append(t)
        fin_mask = end_mask()[None]
        out = []
        for b in range(n):
            s = 0
            for t in done_at[b]:
                fo, info = finals[b, t]
                o = {OBS_KEY: np.concatenate([obs[b, s:t + 1], fo[None]]),
                     MASK_KEY: np.concatenate([masks[b, s:t + 1], fin_mask])}
                ep = self._episode(b, o, s, t + 1, actions, logp, rewards, dist, int(ended[b, t]))
                ep.custom_data.update({k: info[k] for k in EPISODE_INFO if k in info})
                out.append((b, ep))
                self._ep_ids[b], self._ep_t[b] = uuid.uuid4().hex, 0
                s = t + 1
            if s < steps:
                o = {OBS_KEY: obs[b, s:], MASK_KEY: masks[b, s:]}
                out.append((b, self._episode(b, o, s, steps, actions, logp, rewards, dist, 0)))
                self._ep_t[b] += steps - s
        return out

    def _episode(self, b, o, s, e, actions, logp, rewards, dist, how: int) -> SingleAgentEpisode:
        """Game b's steps s..e-1 (observations s..e) as a numpy SingleAgentEpisode."""
        extra = {Columns.ACTION_LOGP: InfiniteLookbackBuffer(logp[b, s:e])}
        if dist is not None:
            extra[Columns.ACTION_DIST_INPUTS] = InfiniteLookbackBuffer(dist[b, s:e])
        return SingleAgentEpisode(
            self._ep_ids[b], observations=InfiniteLookbackBuffer(o),
            infos=InfiniteLookbackBuffer([{} for _ in range(e - s + 1)]),
            actions=InfiniteLookbackBuffer(actions[b, s:e]), rewards=InfiniteLookbackBuffer(rewards[b, s:e]),
            terminated=how == 1, truncated=how == 2, extra_model_outputs=extra, t_started=self._ep_t[b],
            len_lookback_buffer=0)

    def _whole_episodes(self, count: int, explore: bool, random_actions: bool) -> list[SingleAgentEpisode]:
        """At least `count` complete episodes (every game reset first; the unfinished ones dropped)."""
        self._reset()
        open_: dict[int, SingleAgentEpisode] = {}
        done: list[SingleAgentEpisode] = []
        while len(done) < count:
            for b, ep in self._rollout(EPISODES_CHUNK_STEPS, explore, random_actions):
                if b in open_ and open_[b].id_ == ep.id_:
                    open_[b].concat_episode(ep)
                    ep = open_.pop(b)
                if ep.is_done:
                    done.append(ep)
                else:
                    open_[b] = ep
        self._needs_initial_reset = True
        return done

    def _log_episode(self, info: dict) -> None:
        """Metrics of an ended episode: RLlib's return and length statistics (no duration: the
        games of a runner advance together) and the learner's win rate."""
        length, ret = info["episode"]["l"], info["episode"]["r"]
        win = max(1, math.ceil(self.config.metrics_num_episodes_for_smoothing / (self.config.num_env_runners or 1)))
        log = self.metrics.log_value
        for key, value in ((EPISODE_LEN_MEAN, length), (EPISODE_RETURN_MEAN, ret),
                           (("agent_episode_return_mean", DEFAULT_AGENT_ID), ret),
                           (("module_episode_return_mean", DEFAULT_MODULE_ID), ret),
                           (WIN_RATE, float(bool(info.get("winner", False))))):
            log(key, value, window=win)
        for key, value, how in ((EPISODE_LEN_MIN, length, "min"), (EPISODE_LEN_MAX, length, "max"),
                                (EPISODE_RETURN_MIN, ret, "min"), (EPISODE_RETURN_MAX, ret, "max")):
            log(key, value, reduce=how, window=win)
