"""Masked PPO on the compiled vector env, in one file (in the style of CleanRL's ppo.py).

    python training/examples/ppo_masked_vector.py --total-timesteps 500000 --num-envs 64
    python training/examples/ppo_masked_vector.py --help

The environment is `gymnasium.make_vec(GYM_ID, num_envs=N, vectorization_mode="vector_entry_point")`
(v1919_env.envs.vector_env.GymVectorEnv): N games stepped in one compiled call, one learning seat per
game (drawn per episode), the other seats played inside the call by compiled opponents (`--opponents`).
What this file adds to CleanRL's ppo.py, for this environment:

- Dict observations: obs["observation"] (float32, OBS_SIZE features) and obs["action_mask"] (int8, one
  per action id). The policy's logits of illegal actions are replaced by -1e8 before the categorical
  distribution, so sampling, log-probabilities and the entropy only see legal actions.
- Same-step auto-reset: when game b ends in a step, the observation that step returns for b is
  already the first one of b's next episode; the ended episode's last observation is
  infos["final_obs"][b] and its info (return, length, winner, scores) infos["final_info"]. The
  rollout therefore stores done_t = terminated | truncated as the boundary that GAE does not
  bootstrap across, and a *truncated* episode (the engine's safety cap) is bootstrapped from its
  final observation: gamma * V(final_obs) is added to that step's reward. A terminated one is not.
  A final observation's mask marks action 0 alone (nothing is played from it).
- GAE, clipped surrogate and clipped value loss, advantage normalisation, linear learning-rate
  annealing, optional target-KL early stop; one torch thread by default (more slowed training down
  on the 2-core machine, docs/training.md).
- At the end: a checkpoint (torch.save of the network's state dict with the arguments), and with
  `--eval-games G` the greedy policy plays G games against num_players - 1 copies of each
  `--eval-opponents` agent, G / num_players with the learner in each seat, and the win rate is
  printed with Wilson's 95% interval (a win shared by k seats counts 1/k, as in the tournaments).

It needs the `train` extra (torch). Results and speeds: docs/training.md, "A single-file PPO".
"""
from __future__ import annotations

import argparse
import math
import random
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.distributions.categorical import Categorical

import v1919_env  # noqa: F401  (registers the Gymnasium ids)
from v1919_env.envs.versions import GYM_ID, OBSERVATION_VERSION

MASKED_LOGIT = -1e8      # the logit of an illegal action: exp() of it is 0 in float32


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Masked PPO (CleanRL style) on the compiled Versailles 1919 vector env.",
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    flag = argparse.BooleanOptionalAction
    p.add_argument("--exp-name", default=Path(__file__).stem, help="the name of this experiment")
    p.add_argument("--seed", type=int, default=1, help="seed of the games, the network and the sampling")
    p.add_argument("--env-id", default=GYM_ID, help="a Gymnasium id with the compiled vector entry point")
    p.add_argument("--num-players", type=int, default=4, choices=(2, 3, 4))
    p.add_argument("--opponents", nargs="+", default=["rulebot", "random"],
                   help="compiled agents the other seats draw from, uniformly per seat and episode")
    p.add_argument("--reward", default="win_loss",
                   help="a reward kind (win_loss, rank, score_margin) or weights, e.g. win_loss=1,score_margin=0.2")
    p.add_argument("--torch-threads", type=int, default=1)
    # the algorithm
    p.add_argument("--total-timesteps", type=int, default=500_000, help="learner decisions over all games")
    p.add_argument("--learning-rate", type=float, default=2.5e-4)
    p.add_argument("--num-envs", type=int, default=64, help="games stepped together")
    p.add_argument("--num-steps", type=int, default=128, help="steps per game in each rollout")
    p.add_argument("--anneal-lr", action=flag, default=True, help="decay the learning rate linearly to 0")
    p.add_argument("--gamma", type=float, default=0.998, help="discount per learner decision (a game has ~100)")
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--norm-adv", action=flag, default=True, help="normalise advantages per minibatch")
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--clip-vloss", action=flag, default=True, help="clip the value loss as in the PPO paper's code")
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--target-kl", type=float, default=None, help="stop the epochs of an update above this KL")
    p.add_argument("--hidden", type=int, default=256, help="width of the shared layer (the heads get half)")
    # after training
    p.add_argument("--checkpoint", default=None, help="where to save the network (default runs/cleanrl/RUN/agent.pt)")
    p.add_argument("--eval-games", type=int, default=0,
                   help="games per evaluation opponent at the end, a multiple of --num-players (0: none)")
    p.add_argument("--eval-opponents", nargs="+", default=["rulebot"])
    args = p.parse_args(argv)
    args.batch_size = args.num_envs * args.num_steps
    args.minibatch_size = args.batch_size // args.num_minibatches
    args.num_iterations = max(1, math.ceil(args.total_timesteps / args.batch_size))
    if args.minibatch_size < 1:
        p.error("--num-minibatches is larger than num_envs * num_steps")
    if args.eval_games < 0 or args.eval_games % args.num_players:
        p.error(f"--eval-games must be a multiple of --num-players ({args.num_players})")
    return args


def parse_reward(spec: str):
    """'win_loss' -> 'win_loss'; 'win_loss=1,score_margin=0.2' -> {'win_loss': 1.0, 'score_margin': 0.2}."""
    if "=" not in spec:
        return spec
    return {k.strip(): float(w) for k, w in (part.split("=") for part in spec.split(","))}


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias_const: float = 0.0) -> nn.Linear:
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The logits with those of illegal actions (mask False) replaced by MASKED_LOGIT."""
    return torch.where(mask, logits, torch.full_like(logits, MASKED_LOGIT))


class Agent(nn.Module):
    """A shared first layer (the observation is ~2,000 features wide: read once), then separate
    policy and value heads."""

    def __init__(self, obs_size: int, num_actions: int, hidden: int = 256):
        super().__init__()
        self.trunk = nn.Sequential(layer_init(nn.Linear(obs_size, hidden)), nn.ReLU())
        self.actor = nn.Sequential(layer_init(nn.Linear(hidden, hidden // 2)), nn.ReLU(),
                                   layer_init(nn.Linear(hidden // 2, num_actions), std=0.01))
        self.critic = nn.Sequential(layer_init(nn.Linear(hidden, hidden // 2)), nn.ReLU(),
                                    layer_init(nn.Linear(hidden // 2, 1), std=1.0))

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(self.trunk(x)).squeeze(-1)

    def get_action_and_value(self, x, mask, action=None, greedy: bool = False):
        hidden = self.trunk(x)
        logits = masked_logits(self.actor(hidden), mask)
        probs = Categorical(logits=logits, validate_args=False)
        if action is None:
            action = logits.argmax(dim=-1) if greedy else probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(hidden).squeeze(-1)


def truncation_bootstrap(agent: Agent, infos: dict, truncations: np.ndarray, gamma: float) -> np.ndarray:
    """gamma * V(final observation) for the games whose episode was truncated in this step, 0 for the
    others (a terminated episode is worth nothing after its end). With same-step auto-reset the
    observation returned for such a game is the next episode's first one, so the ended episode's
    last observation is read from infos["final_obs"]."""
    bonus = np.zeros(len(truncations), np.float32)
    rows = np.flatnonzero(truncations)
    if len(rows):
        final = np.stack([infos["final_obs"][b]["observation"] for b in rows])
        with torch.no_grad():
            bonus[rows] = gamma * agent.get_value(torch.as_tensor(final, dtype=torch.float32)).numpy()
    return bonus


def compute_gae(rewards, values, dones, next_value, next_done, gamma: float, gae_lambda: float):
    """Advantages and returns over a rollout of shape (num_steps, num_envs). dones[t] is 1 where
    obs[t] is the first observation of a new episode (the step before it ended one): nothing is
    bootstrapped across it. next_value / next_done: the same for the observation after the rollout."""
    num_steps = rewards.shape[0]
    advantages = torch.zeros_like(rewards)
    lastgaelam = torch.zeros_like(next_value)
    for t in reversed(range(num_steps)):
        if t == num_steps - 1:
            nextnonterminal, nextvalues = 1.0 - next_done, next_value
        else:
            nextnonterminal, nextvalues = 1.0 - dones[t + 1], values[t + 1]
        delta = rewards[t] + gamma * nextvalues * nextnonterminal - values[t]
        advantages[t] = lastgaelam = delta + gamma * gae_lambda * nextnonterminal * lastgaelam
    return advantages, advantages + values


class Rollout:
    """The storage of one rollout, (num_steps, num_envs, ...) tensors as in CleanRL."""

    def __init__(self, num_steps: int, num_envs: int, obs_size: int, num_actions: int):
        self.obs = torch.zeros((num_steps, num_envs, obs_size))
        self.masks = torch.zeros((num_steps, num_envs, num_actions), dtype=torch.bool)
        self.actions = torch.zeros((num_steps, num_envs), dtype=torch.long)
        self.logprobs = torch.zeros((num_steps, num_envs))
        self.rewards = torch.zeros((num_steps, num_envs))
        self.dones = torch.zeros((num_steps, num_envs))
        self.values = torch.zeros((num_steps, num_envs))


def collect_rollout(envs, agent: Agent, buf: Rollout, next_obs: dict, next_done: torch.Tensor, gamma: float,
                    episodes: list):
    """Fill buf with num_steps steps of every game from (next_obs, next_done); append (return,
    length, won) of every episode that ends to `episodes`. Returns the (next_obs, next_done) after."""
    for step in range(buf.obs.shape[0]):
        buf.obs[step] = torch.as_tensor(next_obs["observation"])
        buf.masks[step] = torch.as_tensor(next_obs["action_mask"] != 0)
        buf.dones[step] = next_done
        with torch.no_grad():
            action, logprob, _, value = agent.get_action_and_value(buf.obs[step], buf.masks[step])
        buf.values[step], buf.actions[step], buf.logprobs[step] = value, action, logprob

        next_obs, reward, terminations, truncations, infos = envs.step(action.numpy())
        reward = np.asarray(reward, np.float32) + truncation_bootstrap(agent, infos, truncations, gamma)
        buf.rewards[step] = torch.as_tensor(reward)
        next_done = torch.as_tensor(np.logical_or(terminations, truncations), dtype=torch.float32)

        if "final_info" in infos:     # the episodes that ended in this step
            fin = infos["final_info"]
            for b in np.flatnonzero(infos["_final_info"]):
                won = bool("winner" in fin and fin["_winner"][b] and fin["winner"][b])
                episodes.append((float(fin["episode"]["r"][b]), int(fin["episode"]["l"][b]), won))
    return next_obs, next_done


def ppo_update(agent: Agent, optimizer, buf: Rollout, advantages, returns, args) -> dict:
    """CleanRL's PPO update over the flattened rollout; returns the last minibatch's losses."""
    b_obs = buf.obs.reshape(-1, buf.obs.shape[-1])
    b_masks = buf.masks.reshape(-1, buf.masks.shape[-1])
    b_actions, b_logprobs = buf.actions.reshape(-1), buf.logprobs.reshape(-1)
    b_advantages, b_returns, b_values = advantages.reshape(-1), returns.reshape(-1), buf.values.reshape(-1)
    b_inds = np.arange(args.batch_size)
    clipfracs = []
    for _epoch in range(args.update_epochs):
        np.random.shuffle(b_inds)
        for start in range(0, args.batch_size, args.minibatch_size):
            mb = b_inds[start:start + args.minibatch_size]
            _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb], b_masks[mb], b_actions[mb])
            logratio = newlogprob - b_logprobs[mb]
            ratio = logratio.exp()
            with torch.no_grad():
                old_approx_kl = (-logratio).mean()
                approx_kl = ((ratio - 1) - logratio).mean()
                clipfracs.append(((ratio - 1.0).abs() > args.clip_coef).float().mean().item())

            mb_advantages = b_advantages[mb]
            if args.norm_adv and len(mb) > 1:
                mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)
            pg_loss = torch.max(-mb_advantages * ratio,
                                -mb_advantages * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)).mean()
            if args.clip_vloss:
                v_unclipped = (newvalue - b_returns[mb]) ** 2
                v_clipped = b_values[mb] + torch.clamp(newvalue - b_values[mb], -args.clip_coef, args.clip_coef)
                v_loss = 0.5 * torch.max(v_unclipped, (v_clipped - b_returns[mb]) ** 2).mean()
            else:
                v_loss = 0.5 * ((newvalue - b_returns[mb]) ** 2).mean()
            entropy_loss = entropy.mean()
            loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef

            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
            optimizer.step()
        if args.target_kl is not None and approx_kl > args.target_kl:
            break
    y_pred, y_true = b_values.numpy(), b_returns.numpy()
    var_y = np.var(y_true)
    return {"pg_loss": pg_loss.item(), "v_loss": v_loss.item(), "entropy": entropy_loss.item(),
            "old_approx_kl": old_approx_kl.item(), "approx_kl": approx_kl.item(), "clipfrac": float(np.mean(clipfracs)),
            "explained_variance": float("nan") if var_y == 0 else float(1 - np.var(y_true - y_pred) / var_y)}


def wilson_interval(successes: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson's score interval of a proportion (95% by default)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    centre, half = p + z * z / (2 * n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, (centre - half) / (1 + z * z / n)), min(1.0, (centre + half) / (1 + z * z / n))


def evaluate(agent: Agent, env_id: str, num_players: int, opponent: str, games: int, seed: int) -> dict:
    """The greedy policy in `games` games against num_players - 1 copies of `opponent`: games /
    num_players with the learner in each seat (one vector env per seat, the first episode of each
    game counted). A win shared by k seats counts 1/k; an episode without scores (an illegal action:
    impossible here, the policy is masked) counts as a loss."""
    per_seat = games // num_players
    wins, totals = 0.0, []
    for seat in range(num_players):
        envs = gym.make_vec(env_id, num_envs=per_seat, vectorization_mode="vector_entry_point",
                            num_players=num_players, opponents=[opponent], seat=seat)
        obs, _ = envs.reset(seed=seed + seat)
        pending = np.ones(per_seat, bool)
        while pending.any():
            with torch.no_grad():
                action, _, _, _ = agent.get_action_and_value(torch.as_tensor(obs["observation"]),
                                                             torch.as_tensor(obs["action_mask"] != 0), greedy=True)
            obs, _, terminations, truncations, infos = envs.step(action.numpy())
            for b in np.flatnonzero(np.logical_or(terminations, truncations) & pending):
                pending[b] = False
                fin = infos["final_info"]
                if "_scores" in fin and fin["_scores"][b]:
                    scores = fin["scores"][b]
                    winners = sum(r["winner"] for r in scores)
                    wins += 1.0 / winners if scores[seat]["winner"] else 0.0
                    totals.append(scores[seat]["total"])
        envs.close()
    low, high = wilson_interval(wins, games)
    return {"opponent": opponent, "games": games, "wins": wins, "win_rate": wins / games, "low": low, "high": high,
            "mean_score": float(np.mean(totals)) if totals else float("nan")}


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    run_name = f"{args.env_id}__{args.exp_name}__{args.seed}__{int(time.time())}"
    torch.set_num_threads(args.torch_threads)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)

    envs = gym.make_vec(args.env_id, num_envs=args.num_envs, vectorization_mode="vector_entry_point",
                        num_players=args.num_players, opponents=args.opponents, reward=parse_reward(args.reward))
    obs_size = envs.single_observation_space["observation"].shape[0]
    num_actions = envs.single_action_space.n
    agent = Agent(obs_size, num_actions, args.hidden)
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    buf = Rollout(args.num_steps, args.num_envs, obs_size, num_actions)
    print(f"{run_name}: {args.num_envs} games of {args.num_players} players vs {args.opponents}, observation "
          f"{obs_size} (version {OBSERVATION_VERSION}), {num_actions} actions, {args.num_iterations} iterations of "
          f"{args.batch_size} steps", flush=True)

    global_step, episodes, all_episodes = 0, [], 0
    start_time, start_cpu = time.time(), time.process_time()
    next_obs, _ = envs.reset(seed=args.seed)
    next_done = torch.zeros(args.num_envs)
    for iteration in range(1, args.num_iterations + 1):
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = (1.0 - (iteration - 1.0) / args.num_iterations) * args.learning_rate
        next_obs, next_done = collect_rollout(envs, agent, buf, next_obs, next_done, args.gamma, episodes)
        global_step += args.batch_size
        with torch.no_grad():
            next_value = agent.get_value(torch.as_tensor(next_obs["observation"]))
        advantages, returns = compute_gae(buf.rewards, buf.values, buf.dones, next_value, next_done,
                                          args.gamma, args.gae_lambda)
        stats = ppo_update(agent, optimizer, buf, advantages, returns, args)

        sps = int(global_step / (time.time() - start_time))
        line = f"iter {iteration}/{args.num_iterations} global_step={global_step} SPS={sps}"
        if episodes:
            r, length, won = (np.array(x, np.float64) for x in zip(*episodes))
            line += (f" episodes={len(episodes)} episodic_return={r.mean():.3f} episodic_length={length.mean():.1f}"
                     f" win_rate={won.mean():.3f}")
            all_episodes += len(episodes)
            episodes = []
        line += " " + " ".join(f"{k}={v:.4g}" for k, v in stats.items())
        print(line, flush=True)
    train_seconds, cpu_seconds = time.time() - start_time, time.process_time() - start_cpu
    envs.close()
    sps = global_step / train_seconds
    print(f"SPS: {sps:.0f} ({global_step} steps in {train_seconds:.1f} s; {global_step / cpu_seconds:.0f} per second "
          f"of this process's CPU time; {all_episodes} episodes)", flush=True)

    path = Path(args.checkpoint) if args.checkpoint else Path("runs") / "cleanrl" / run_name / "agent.pt"
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model_state_dict": agent.state_dict(), "args": vars(args), "obs_size": obs_size,
                "num_actions": num_actions, "observation_version": OBSERVATION_VERSION, "global_step": global_step},
               path)
    print(f"checkpoint: {path}", flush=True)

    results = []
    for opponent in args.eval_opponents if args.eval_games else []:
        t0 = time.time()
        res = evaluate(agent, args.env_id, args.num_players, opponent, args.eval_games, seed=args.seed + 10_000)
        results.append(res)
        print(f"eval vs {args.num_players - 1}x {opponent}: win rate {100 * res['win_rate']:.1f}% "
              f"[{100 * res['low']:.1f}, {100 * res['high']:.1f}] of {res['games']} games ({res['wins']:g} wins, "
              f"seats rotated, greedy), mean score {res['mean_score']:.1f}, {time.time() - t0:.1f} s", flush=True)
    return {"sps": sps, "cpu_sps": global_step / cpu_seconds, "global_step": global_step, "checkpoint": str(path), "eval": results}


if __name__ == "__main__":
    main()
