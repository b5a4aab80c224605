"""AlphaZero from scratch with the lockstep search and your own network, in one file.

    python training/examples/alphazero_lockstep.py [--iterations 6] [--games 64] [--simulations 16]

Each iteration plays `--games` 4-player games against each other, every seat searched by
`agents.batch_search.search` (the Gumbel root, `--simulations` a decision) with the current network:
one call of the network a step for the leaves of every game, the decider's observation in, logits
and a value for every seat (the decider first) out. A leaf's value mixes the value head with a random
playout (`--rollout-mix`, 0.5), which gives the search something to find while the value head knows
nothing yet (0: the value head alone, as AlphaZero). The network is then fitted to the root's visit
distributions and to every seat's final reward (win_loss) of the games, as AlphaZero does, and
evaluated alone (its most probable move) against three `random` agents, seats rotated over whole
deals, with a Wilson 95% interval. A torch MLP, one CPU thread; a few minutes on a laptop core.
`--obs-layout compact` gives the network the compact observation (1,596 floats instead of 2,032,
docs/observation.md): a smaller first layer, faster passes.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np
import torch
from torch import nn

from agents import make_agent
from agents.batch_search import search
from agents.seat import observe_seat
from v1919_env.actions import NUM_ACTIONS
from v1919_env.core.layout import SEATING
from v1919_env.core.observations import layout_of
from v1919_env.game import Game
from v1919_env.rewards import terminal_rewards

PLAYERS = 4


class Net(nn.Module):
    """The decider's observation -> (logits over the action ids, a value per seat: the decider first)."""

    def __init__(self, hidden: int = 256, obs_layout: str = "full"):
        super().__init__()
        self.obs_layout = obs_layout
        size = layout_of(obs_layout)[1]
        self.body = nn.Sequential(nn.Linear(size, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.policy = nn.Linear(hidden, NUM_ACTIONS)
        self.value = nn.Linear(hidden, PLAYERS)

    def forward(self, obs):
        h = self.body(obs)
        return self.policy(h), torch.tanh(self.value(h))


def callable_of(net: Net):
    """The network as search() takes it: numpy in, numpy out, no gradients."""
    def evaluate(obs: np.ndarray, masks: np.ndarray):
        with torch.no_grad():
            logits, values = net(torch.from_numpy(obs))
        return logits.numpy(), values.numpy()
    return evaluate


def self_play(net: Net, games: int, simulations: int, seed: int, rollout_mix: float = 0.0):
    """Whole games, every seat searched; returns (observations, visit targets, masks, value targets)."""
    evaluate = callable_of(net)
    live = [Game.new(PLAYERS, seed=seed + i) for i in range(games)]
    rows = [[] for _ in live]                   # per game: (obs, mask, visit distribution, deciding seat)
    step = 0
    while True:
        for g in live:                          # a decision with one legal action is no decision
            while not g.is_over and len(g.legal_actions()) == 1:
                g.step(int(g.legal_actions()[0]))
        todo = [i for i, g in enumerate(live) if not g.is_over]
        if not todo:
            break
        res = search([live[i] for i in todo], evaluate, seeds=[seed + 7919 * step + i for i in todo],
                     iterations=simulations, batch_size=8, root="gumbel", rollout_mix=rollout_mix,
                     rollout="random", obs_layout=net.obs_layout)
        for i, r in zip(todo, res):
            g = live[i]
            obs, mask = observe_seat(g, g.current_player, obs_layout=net.obs_layout)
            pi = np.zeros(NUM_ACTIONS, np.float32)
            pi[r.actions] = r.visits / r.visits.sum()
            rows[i].append((obs, mask.astype(bool), pi, g.current_player))
            g.step(int(r.actions[r.choice]))
        step += 1
    obs, masks, pis, values = [], [], [], []
    for g, rs in zip(live, rows):
        final = np.asarray(terminal_rewards(g.scores(), "win_loss"), np.float32)
        seating = [int(x) for x in g.state[SEATING:SEATING + PLAYERS]]    # seats clockwise
        for o, m, pi, seat in rs:
            me = seating.index(seat)
            obs.append(o)
            masks.append(m)
            pis.append(pi)
            values.append([final[seating[(me + k) % PLAYERS]] for k in range(PLAYERS)])
    return (np.asarray(obs), np.asarray(pis), np.asarray(masks), np.asarray(values, np.float32))


def train(net: Net, opt, data, epochs: int, batch: int = 256, seed: int = 0) -> float:
    """Cross-entropy to the visit distribution + squared error of every seat's value; the mean loss."""
    obs, pis, masks, values = (torch.from_numpy(x) for x in data)
    rng = np.random.default_rng(seed)
    losses = []
    for _ in range(epochs):
        order = rng.permutation(len(obs))
        for k in range(0, len(order), batch):
            sl = torch.from_numpy(order[k:k + batch])
            logits, v = net(obs[sl])
            logp = torch.log_softmax(logits.masked_fill(~masks[sl], -1e9), dim=-1)
            loss = -(pis[sl] * logp).sum(1).mean() + ((v - values[sl]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return float(np.mean(losses))


def evaluate_alone(net: Net, deals: int, seed: int) -> tuple[float, tuple[float, float], int]:
    """The network's most probable move in one seat against three `random`, every deal played with the
    network in each seat; its share of the wins (a tie split) and the Wilson 95% interval."""
    wins, n = 0.0, 0
    for d in range(deals):
        for mine in range(PLAYERS):
            g = Game.new(PLAYERS, seed=seed + d)
            rnd = [make_agent("random", seed=seed + 10 * d + p) for p in range(PLAYERS)]
            while not g.is_over:
                p = g.current_player
                obs, mask = observe_seat(g, p, obs_layout=net.obs_layout)
                if p == mine:
                    with torch.no_grad():
                        logits, _ = net(torch.from_numpy(obs[None]))
                    a = int(np.argmax(np.where(mask.astype(bool), logits[0].numpy(), -np.inf)))
                else:
                    a = rnd[p].act(obs, mask, g)
                g.step(a)
            winners = [s["seat"] for s in g.scores() if s["winner"]]
            wins += 1.0 / len(winners) if mine in winners else 0.0
            n += 1
    return wins / n, wilson(wins, n), n


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, c - h), min(1.0, c + h)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iterations", type=int, default=6)
    ap.add_argument("--games", type=int, default=64, help="self-play games an iteration")
    ap.add_argument("--simulations", type=int, default=16, help="simulations a searched decision")
    ap.add_argument("--epochs", type=int, default=2, help="passes over an iteration's data")
    ap.add_argument("--rollout-mix", type=float, default=0.5,
                    help="weight of a random playout in a leaf's value (the rest: the value head); 0: pure AlphaZero")
    ap.add_argument("--eval-deals", type=int, default=25, help="deals of the evaluation (4 games each)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--obs-layout", choices=("full", "compact"), default="full",
                    help="the network's observation (compact: 1,596 floats)")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    net = Net(obs_layout=args.obs_layout)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    rate, ci, n = evaluate_alone(net, args.eval_deals, 1_000_000)
    print(f"iteration 0: vs 3 random {rate:.1%} [{ci[0]:.1%}, {ci[1]:.1%}] of {n} games (untrained)", flush=True)
    for it in range(1, args.iterations + 1):
        t0 = time.perf_counter()
        data = self_play(net, args.games, args.simulations, args.seed + 100_000 * it, args.rollout_mix)
        t1 = time.perf_counter()
        loss = train(net, opt, data, args.epochs, seed=args.seed + it)
        rate, ci, n = evaluate_alone(net, args.eval_deals, 1_000_000)
        print(f"iteration {it}: {len(data[0]):,} searched decisions in {t1 - t0:.0f} s "
              f"({len(data[0]) / (t1 - t0):,.0f}/s), loss {loss:.3f}, vs 3 random {rate:.1%} "
              f"[{ci[0]:.1%}, {ci[1]:.1%}] of {n} games", flush=True)


if __name__ == "__main__":
    main()
