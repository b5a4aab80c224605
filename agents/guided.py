"""`guided`: information-set search guided by a trained network (PUCT with the policy's priors, the
value head at the leaves instead of rollouts, or with `rollout_mix` mixed with rule-bot rollouts).

Each simulation determinizes the root (`v1919_env.core.tree.determinize`, as `ismcts` does: deck
orders and the dice generator resampled from what every player sees, so the dice and draws inside
the tree come from the copy's generator, never the real game's), descends by PUCT among the
children legal in that copy, and stops at the first node not expanded yet or at the end of the
game. Simulations run in batches of `batch_size` (a simulation's pending visits lower the
exploration term of the nodes it passed for the rest of the batch, and with `virtual_loss` their
value, so a batch spreads out); all leaves of a batch go through one
forward pass of the network: the decider's row gives the priors of the new node's children, and
one row per seat gives the value vector (the value head predicts a seat's own return from its own
observation) that is backed up; a finished game backs up every seat's exact reward under the
reward the network was trained on. In the solitaire game the search plays the player's objective
as `ismcts` does (`core.search.solo_value`: the VP against the level, and the win): a finished game
backs up that value, a leaf the same value of an estimated final VP (`solo_leaf_value`), with the
bots' decisions made by their rules inside the game; it needs a solitaire network (the shipped
`solitaire.zip` by default). The answer is the most visited root action (ties: the better
mean value, then the higher prior, then the first legal), or with `temperature` > 0 an action drawn
with probability proportional to visits ** (1 / temperature).

With `root=gumbel` the root follows Gumbel MuZero (Danihelka et al. 2022, "Policy improvement by
planning with Gumbel"): `considered` actions (default 16) are sampled without replacement from the
prior by Gumbel-top-k (the highest g + log prior, g a Gumbel(0, 1) variable per action times
`gumbel_scale`), then sequential halving spends the simulations at the root: each phase gives every
remaining action max(1, budget // (phases x remaining)) simulations (phases = ceil(log2
considered)), then keeps the better half (at least two) by g + log prior + sigma(q), sigma(q) =
(c_visit + the most visits of a root child) x c_scale x q, q the child's mean value; phases go on
with two actions until the budget is spent. The move is the best of the most visited actions by
that score (the Gumbel variables make it a sample: `temperature` is not used; gumbel_scale=0 makes
it deterministic). Below the root the tree is the PUCT tree. It needs a simulation budget
(`iterations`), not `time_ms`.

The tree, the selection and the backup are compiled (agents/guided_kernels.py; the tree's (parent,
action) index, its node allocation and the determinization are v1919_env/core/tree.py's, shared with
`ismcts`); the network runs in torch (one thread) through `LearnedAgent.evaluate_batch`.
"""
from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from v1919_env.actions import NUM_ACTIONS
from v1919_env.core.bots import seed_policy_rng
from v1919_env.core.layout import MAX_LEGAL, MAX_PLAYERS, SOLO_TARGET, SOLO_VP, STATE_SIZE, STATE_DTYPE
from v1919_env.core.observe import OBS_SIZE
from v1919_env.rewards import REWARD_KINDS

from .base import Agent, AgentError, number_option, register, require_game
from .guided_kernels import (F_VALUE, F_VISITS, META_SIZE, M_FULL, M_NODES, M_SIMULATIONS, NF_COLS, NI_COLS, ST_EVAL,
                             guided_backup, guided_select, gumbel_rank, gumbel_root, gumbel_scores, root_children,
                             tree_clear)
from .ismcts import rollout_policies
from .learned import DEFAULT_WEIGHTS, SHIPPED_CONFIGS, SHIPPED_WEIGHTS

MAX_DEPTH = 512                # tree depth cap (a deeper leaf is evaluated without expanding it)
TIME_NODES = 1 << 17           # tree capacity with a time budget (iterations: 64 nodes per simulation)


C_PUCT = 1.5
"""The default exploration constant in the games of players (values: returns of about -1..1)."""
SOLO_C_PUCT = 0.1
"""The default in the solitaire game: its value (`solo_value`) moves 0.025 per VP, so at 1.5 the
search only followed the priors (64 simulations on a PPO network: 2.8 VP a game, as the network
alone); 0.02-0.3 gave 5.2-5.7 VP over 30 games (issue 22, docs/agents.md)."""
ROOTS = ("puct", "gumbel")
"""Root selection rules: PUCT as below the root, or Gumbel-top-k with sequential halving."""
CONSIDERED = 16
"""Actions the Gumbel root considers by default (m in Danihelka et al. 2022)."""
C_VISIT, C_SCALE = 50.0, 0.1
"""sigma(q) = (C_VISIT + max visits) x C_SCALE x q: the Gumbel root's (and the paper's) defaults, q a
return of about -1..1."""
SOLO_WIN_SCALE = 2.0
"""VP: the spread of the logistic that turns an estimated final VP into a chance of reaching the level."""


def solo_leaf_value(vp: np.ndarray, target: np.ndarray, value: np.ndarray) -> np.ndarray:
    """The solitaire objective (`core.search.solo_value`: half the VP against the level, half the
    win) of a leaf, from the VP scored so far and the value head's estimate of the VP still to come
    (a solitaire network is trained on reward 'vp'). The win is uncertain there, so its half is a
    logistic of the estimated final VP around the level (spread SOLO_WIN_SCALE), not a step. The
    value head predicts the discounted VP (gamma < 1), so the estimate is low late in a long game;
    that only shifts leaves of one search alike."""
    t = np.maximum(np.asarray(target, np.float64), 1.0)
    final = np.asarray(vp, np.float64) + np.maximum(np.asarray(value, np.float64), 0.0)
    return 0.5 * final / t + 0.5 / (1.0 + np.exp(-(final - t + 0.5) / SOLO_WIN_SCALE))


def checkpoint_facts(path: str | Path) -> dict:
    """{"num_players", "reward"} a checkpoint was trained with, where known: for the shipped weights
    (agents/weights, `learned.SHIPPED_WEIGHTS`) the training config that made them
    (`learned.SHIPPED_CONFIGS`); else the resolved `config.yaml` of the run directory holding it
    (runs/train/<name>/checkpoints/<x>.zip or runs/train/<name>/<x>.zip); {} otherwise."""
    p = Path(path).resolve()
    for n, shipped in SHIPPED_WEIGHTS.items():
        if p == shipped.resolve():
            cfg = Path(__file__).resolve().parents[1] / SHIPPED_CONFIGS[n]
            return {"num_players": n, **(_config_facts(cfg) if cfg.is_file() else {})}
    for d in (p.parent, p.parent.parent):
        cfg = d / "config.yaml"
        if cfg.is_file():
            return _config_facts(cfg)
    return {}


def _config_facts(cfg: Path) -> dict:
    """{"num_players", "reward"} of a training config file, where it gives them ({} if unreadable)."""
    import yaml

    try:
        raw = yaml.safe_load(cfg.read_text()) or {}
    except yaml.YAMLError:
        return {}
    return {k: raw[k] for k in ("num_players", "reward") if k in raw}


def reward_spec(reward) -> dict[str, float]:
    """A reward option (a kind of v1919_env.rewards or a mapping {kind: weight}) as {kind: weight}."""
    if isinstance(reward, str) and reward in REWARD_KINDS:
        reward = {reward: 1.0}
    if not isinstance(reward, Mapping) or not reward:
        raise ValueError(f"option reward must be one of {', '.join(REWARD_KINDS)}, a mapping {{kind: weight}} or "
                         f"None (the checkpoint's training reward), got {reward!r}")
    out = {}
    for k, w in reward.items():
        if k not in REWARD_KINDS:
            raise ValueError(f"option reward: unknown kind {k!r}; kinds: {', '.join(REWARD_KINDS)}")
        out[k] = number_option(f"reward[{k!r}]", w, float)
    return out


@register("guided")
class GuidedAgent(Agent):
    """iterations: simulations per decision (used when time_ms is None); time_ms: milliseconds per
    decision instead (at least one batch; at most the arena clock's budget, Agent.think_ms); batch_size: leaves per forward pass; c_puct: the PUCT
    exploration constant (None: C_PUCT, values are returns of about -1..1; in the solitaire game
    SOLO_C_PUCT, where a VP is worth 0.025 of value); fpu: an unvisited child's value is its
    parent's mean minus fpu; virtual_loss: a pending simulation (one of the batch not yet backed
    up) counts as a visit at the child's mean minus virtual_loss (0: it only lowers the exploration
    term); prior_temperature: the priors are the policy ** (1 / prior_temperature), renormalized
    (> 1 flattens the policy's confident priors); temperature: 0 plays the most visited action,
    > 0 samples by visits ** (1 / temperature); path: a MaskablePPO .zip (None: the shipped weights for
    the game's player count, as `learned`); players: the player count the checkpoint at path was
    trained for (None: read it from the checkpoint, see checkpoint_facts; 'any': play any count
    without checking; only with path); reward: the reward of finished games in the tree
    (None: the checkpoint's training reward, else a kind or {kind: weight}); max_nodes: tree
    capacity (None: 64 per simulation, or TIME_NODES with time_ms); rollout_mix: the weight of a
    rollout in a leaf's value, (1 - rollout_mix) x the value head + rollout_mix x the result of
    playing the leaf out (0: the value head alone, no rollout; 1: the rollout alone, as ismcts);
    rollout: the rollout policy of every seat ('rulebot' or 'random', core.bots); max_rollout:
    decisions per rollout before it is cut (scored as it stands); heuristic_mix: the weight of greedy's
    evaluation in a leaf's value (the value head gets 1 - rollout_mix - heuristic_mix): the leaf is
    played on by the rule bot to the next turn decision and each seat valued tanh(d / heuristic_scale),
    d its victory-point estimate minus the best other seat's (games of players only); bot_prior: the
    share of a leaf's prior moved to the rule bot's choice there (0: the network's priors alone); root:
    'puct' (default) or 'gumbel' (Gumbel-top-k and sequential halving at the root, module docstring;
    needs iterations, not time_ms); considered: the actions the Gumbel root samples (default
    CONSIDERED); c_visit, c_scale: its sigma(q) = (c_visit + max visits) x c_scale x q (defaults
    C_VISIT, C_SCALE); gumbel_scale: the Gumbel noise's scale (default 1; 0: no noise); seed."""

    needs_game = True

    def __init__(self, iterations: int = 200, time_ms: float | None = None, batch_size: int = 16,
                 c_puct: float | None = None, fpu: float = 0.2, virtual_loss: float = 0.0,
                 prior_temperature: float = 1.0, temperature: float = 0.0, path: str | None = None,
                 players: int | str | None = None, reward=None,
                 max_nodes: int | None = None, rollout_mix: float = 0.0, rollout: str = "rulebot",
                 max_rollout: int = 20000, heuristic_mix: float = 0.0, heuristic_scale: float = 5.0,
                 bot_prior: float = 0.0, root: str = "puct", considered: int | None = None,
                 c_visit: float | None = None, c_scale: float | None = None, gumbel_scale: float | None = None,
                 seed: int | None = None):
        if root not in ROOTS:
            raise ValueError(f"option root must be one of {', '.join(ROOTS)}, got {root!r}")
        self.root = root
        self.considered = number_option("considered", considered, int, minimum=1, allow_none=True)
        self.c_visit = number_option("c_visit", c_visit, float, minimum=0, allow_none=True)
        self.c_scale = number_option("c_scale", c_scale, float, above=0, allow_none=True)
        self.gumbel_scale = number_option("gumbel_scale", gumbel_scale, float, minimum=0, allow_none=True)
        given = [k for k, v in (("considered", considered), ("c_visit", c_visit), ("c_scale", c_scale),
                                ("gumbel_scale", gumbel_scale)) if v is not None]
        if root != "gumbel" and given:
            raise ValueError(f"option {given[0]} is an option of root=gumbel (the Gumbel root); give root=gumbel "
                             f"or leave it out")
        if root == "gumbel" and time_ms is not None:
            raise ValueError("option root=gumbel spends a known simulation budget by sequential halving: give "
                             "iterations, not time_ms")
        self.considered = CONSIDERED if self.considered is None else self.considered
        self.c_visit = C_VISIT if self.c_visit is None else self.c_visit
        self.c_scale = C_SCALE if self.c_scale is None else self.c_scale
        self.gumbel_scale = 1.0 if self.gumbel_scale is None else self.gumbel_scale
        self.iterations = number_option("iterations", iterations, int, minimum=1)
        self.time_ms = number_option("time_ms", time_ms, float, above=0, allow_none=True)
        self.batch_size = number_option("batch_size", batch_size, int, minimum=1)
        self.c_puct = number_option("c_puct", c_puct, float, minimum=0, allow_none=True)
        self.fpu = number_option("fpu", fpu, float)
        self.virtual_loss = number_option("virtual_loss", virtual_loss, float, minimum=0)
        self.prior_temperature = number_option("prior_temperature", prior_temperature, float, above=0)
        self.temperature = number_option("temperature", temperature, float, minimum=0)
        self.max_nodes = number_option("max_nodes", max_nodes, int, minimum=2, allow_none=True)
        self.seed = number_option("seed", seed, int, allow_none=True)
        self.rollout_mix = number_option("rollout_mix", rollout_mix, float, minimum=0)
        if self.rollout_mix > 1.0:
            raise ValueError(f"option rollout_mix must be between 0 and 1, got {rollout_mix!r}")
        self.heuristic_mix = number_option("heuristic_mix", heuristic_mix, float, minimum=0)
        if self.rollout_mix + self.heuristic_mix > 1.0:
            raise ValueError(f"options rollout_mix + heuristic_mix must be at most 1 (the value head gets the rest), "
                             f"got {rollout_mix!r} + {heuristic_mix!r}")
        self.heuristic_scale = number_option("heuristic_scale", heuristic_scale, float, above=0)
        self.bot_prior = number_option("bot_prior", bot_prior, float, minimum=0)
        if self.bot_prior > 1.0:
            raise ValueError(f"option bot_prior must be between 0 and 1, got {bot_prior!r}")
        self._policies = rollout_policies(rollout)
        self.rollout = rollout
        self.max_rollout = number_option("max_rollout", max_rollout, int, minimum=1)
        if path is not None and not isinstance(path, (str, Path)):
            raise ValueError(f"option path must be a checkpoint path or None, got {path!r}")
        self.path = None if path is None else str(path)
        facts = checkpoint_facts(self.path or DEFAULT_WEIGHTS)
        if players is None:
            self.players = facts.get("num_players") if self.path is not None else None
        elif players == "any":
            self.players = None
        elif not isinstance(players, bool) and isinstance(players, (int, np.integer)) and 2 <= players <= 4:
            self.players = int(players)
        else:
            raise ValueError(f"option players must be 2, 3, 4, 'any' or None (the checkpoint's), got {players!r}")
        if players is not None and self.path is None:
            raise ValueError(f"option players describes the checkpoint at path; without path every game is "
                             f"searched with the shipped network for its player count, got players={players!r}")
        self._reward_option = None if reward is None else reward_spec(reward)
        self.reward = self._reward_option or self._trained_reward(facts)
        self._load()
        cap = self.max_nodes or (TIME_NODES if self.time_ms is not None else 64 * (self.iterations + 1))
        self.NF = np.zeros((cap, NF_COLS), np.float64)
        self.NI = np.zeros((cap, NI_COLS), np.int64)
        size = 1
        while size < 2 * cap + 2:
            size *= 2
        self.hk = np.full(size, -1, np.int64)
        self.hv = np.zeros(size, np.int64)
        self.meta = np.zeros(META_SIZE, np.int64)
        self._buf = np.empty(MAX_LEGAL, np.int64)
        self._scratch = {}
        self.last_stats: dict | None = None
        self._root_value, self._gumbel = 0.0, None
        self.reset(seed)

    def _load(self) -> None:
        self.net = self._network(self.path)      # the option's network, or the shipped 4-player one
        self._nets = {}                          # without a path: the shipped network per player count (1: solitaire)

    @staticmethod
    def _trained_reward(facts: dict) -> dict[str, float]:
        """The reward a network was trained on, for finished games in the tree (the solitaire game has
        its own objective, so a solitaire network's is not used)."""
        trained = facts.get("reward", "win_loss")
        if facts.get("num_players") == 1 or not (isinstance(trained, Mapping) or trained in REWARD_KINDS):
            trained = "win_loss"
        return reward_spec(trained)

    @staticmethod
    def _network(path):
        from .learned import LearnedAgent

        try:
            net = LearnedAgent(path=path)
        except ValueError as e:
            raise ValueError(f"option path: {e}") from e
        if net.rllib is not None:
            raise ValueError(f"option path: {net.path} is an RLlib checkpoint; guided needs a MaskablePPO .zip "
                             f"(it reads the value head)")
        return net

    def _net_for(self, g):
        """(network, reward kinds, reward weights) that search this game: the option's network, or
        without one the shipped weights for the game's player count (`learned.SHIPPED_WEIGHTS`;
        solitaire.zip for the solitaire game), each with the reward it was trained on unless the
        `reward` option says otherwise."""
        n = 1 if g.solitaire else g.num_players
        key = None if self.path is not None or n == 4 else n
        if key not in self._nets:
            net = self.net
            if key is not None:
                p = SHIPPED_WEIGHTS[n]
                if not p.is_file():
                    what = "solitaire" if n == 1 else f"{n}-player"
                    raise AgentError(f"guided: no shipped {what} weights ({p}); train them with "
                                     f"`v1919 train {SHIPPED_CONFIGS[n]}` and give path=...")
                net = self._network(str(p))
            reward = self._reward_option or self._trained_reward(checkpoint_facts(net.path))
            self._nets[key] = (net, np.asarray([REWARD_KINDS.index(k) for k in reward], np.int64),
                               np.asarray(list(reward.values()), np.float64))
        return self._nets[key]

    def __getstate__(self):             # the network is rebuilt from its path (tournament workers)
        d = dict(self.__dict__)
        d["net"] = None
        d["_nets"] = {}
        d["_scratch"] = {}
        return d

    def __setstate__(self, d):
        self.__dict__.update(d)
        self._load()

    def reset(self, seed: int | None = None) -> None:
        s = self.seed if seed is None else seed
        s = 0 if s is None else int(s) & 0x7FFFFFFFFFFFFFFF
        self._rng = seed_policy_rng(s)
        self._pick_rng = np.random.default_rng(s)

    # ------------------------------------------------------------------ the search
    def _arrays(self, k: int, nseats: int, width: int) -> dict:
        key = (k, nseats, width)
        if key not in self._scratch:
            self._scratch[key] = {
                "S": np.zeros((k, STATE_SIZE), STATE_DTYPE), "paths": np.zeros((k, MAX_DEPTH), np.int64),
                "plen": np.zeros(k, np.int64), "leaf": np.zeros(k, np.int64), "status": np.zeros(k, np.int64),
                "deciders": np.zeros(k, np.int64), "obs": np.zeros((k, nseats, width), np.float32),
                "masks": np.zeros((k, nseats, NUM_ACTIONS), np.int8), "legal": np.zeros((k, MAX_LEGAL), np.int64),
                "nlegal": np.zeros(k, np.int64), "term": np.zeros((k, MAX_PLAYERS), np.float64),
                "values": np.zeros((k, MAX_PLAYERS), np.float64), "probs": np.zeros((k, NUM_ACTIONS), np.float32),
                "R": np.zeros((k, STATE_SIZE), STATE_DTYPE), "rollz": np.zeros((k, MAX_PLAYERS), np.float64),
                "heurz": np.zeros((k, MAX_PLAYERS), np.float64), "botact": np.zeros(k, np.int64),
                "forced": np.full(k, -1, np.int64)}
        return self._scratch[key]

    def _batch(self, game, k: int, nseats: int, forced=None) -> None:
        """k simulations: select, one forward pass over the evaluated leaves, backup. forced: the root
        action of each simulation (the Gumbel root), or None (PUCT)."""
        net, kinds, weights = self._net_for(game)
        a = self._arrays(k, nseats, net.obs_size if game.solitaire else OBS_SIZE)
        a["forced"][:] = -1 if forced is None else forced
        c_puct = self.c_puct if self.c_puct is not None else (SOLO_C_PUCT if game.solitaire else C_PUCT)
        guided_select(game.state, game.T, k, self.NF, self.NI, self.hk, self.hv, self.meta, c_puct, self.fpu,
                      self.virtual_loss, 1.0 / self.prior_temperature, self._rng, nseats, kinds, weights,
                      a["S"], a["paths"], a["plen"], a["leaf"], a["status"], a["deciders"], a["obs"], a["masks"],
                      a["legal"], a["nlegal"], a["term"], self._buf, self._policies,
                      self.max_rollout if self.rollout_mix > 0.0 else 0, a["R"], a["rollz"],
                      self.heuristic_scale if self.heuristic_mix > 0.0 else 0.0, a["heurz"], self.bot_prior > 0.0, a["botact"],
                      a["forced"])
        values, probs = a["values"], a["probs"]
        values[:] = a["term"]
        ev = np.flatnonzero(a["status"] == ST_EVAL)
        if len(ev):
            obs = a["obs"][ev]
            p, v = net.evaluate_batch(obs.reshape(-1, obs.shape[2]), a["masks"][ev].reshape(-1, NUM_ACTIONS))
            v = v.reshape(len(ev), nseats)
            values[ev, :] = 0.0
            if game.solitaire:
                leaves = a["S"][ev]
                values[ev, 0] = solo_leaf_value(leaves[:, SOLO_VP], leaves[:, SOLO_TARGET], v[:, 0])
            else:
                values[ev, :nseats] = v
            w, h = self.rollout_mix, self.heuristic_mix
            if w > 0.0 or h > 0.0:
                values[ev] = (1.0 - w - h) * values[ev] + w * a["rollz"][ev] + h * a["heurz"][ev]
            probs[ev] = p.reshape(len(ev), nseats, NUM_ACTIONS)[np.arange(len(ev)), a["deciders"][ev]]
            if self.bot_prior > 0.0:                 # a share of the prior to the rule bot's choice
                probs[ev] *= 1.0 - self.bot_prior
                probs[ev, a["botact"][ev]] += self.bot_prior
        guided_backup(k, self.NF, self.NI, self.hk, self.hv, self.meta, a["paths"], a["plen"], a["leaf"], a["status"],
                      values, probs, a["deciders"], a["legal"], a["nlegal"])

    def _check_game(self, g) -> int:
        """The number of seats the search values (1 in the solitaire game); AgentError for a game the
        network was not trained for."""
        net = self._net_for(g)[0]
        name = Path(net.path).name
        if g.solitaire != net.solitaire:
            trained = "the solitaire game" if net.solitaire else "games of 2-4 players"
            game = "the solitaire game" if g.solitaire else f"a {g.num_players}-player game"
            raise AgentError(f"guided: the network {name} was trained on {trained} and this is {game}; give a "
                             f"checkpoint trained for it (path=...)")
        if g.solitaire:
            if self.heuristic_mix > 0.0:
                raise AgentError("guided: heuristic_mix values positions of a game of players (victory points "
                                 "against the other seats); the solitaire game has one player, so give "
                                 "heuristic_mix=0 there")
            return 1
        n = g.num_players
        if self.players is not None and n != self.players:
            raise AgentError(f"guided: the network {name} was trained on {self.players}-player games and this game "
                             f"has {n} players (its priors and values would be for a game it never saw); give a "
                             f"checkpoint trained for {n} players (path=...), or players='any' to search with it anyway")
        return n

    def search(self, game) -> int:
        """Run the budget from `game` (never modified); returns the number of simulations."""
        nseats = self._check_game(game)
        tree_clear(self.NF, self.NI, self.hk, self.meta)
        self._batch(game, 1, nseats)             # the root first, alone
        seat = game.current_player
        self._root_value = float(self.NF[0, F_VALUE + seat] / max(1.0, self.NF[0, F_VISITS]))
        self._gumbel = None
        if self.root == "gumbel" and len(game.legal_actions()) > 1:
            self._search_gumbel(game, nseats)
        elif self.time_ms is None:
            left = self.iterations - 1
            while left > 0:
                k = min(self.batch_size, left)
                self._batch(game, k, nseats)
                left -= k
        else:
            end = time.perf_counter() + self.think_ms(self.time_ms) / 1000.0       # the clock may cut it
            while True:
                self._batch(game, self.batch_size, nseats)
                if time.perf_counter() >= end:
                    break
        return int(self.meta[M_SIMULATIONS])

    def _search_gumbel(self, game, nseats: int) -> None:
        """The Gumbel root (module docstring): Gumbel-top-k over the legal root actions, then sequential
        halving of the iterations - 1 simulations left after the root's own evaluation. Leaves
        self._gumbel = (legal actions, considered indices, their final scores, chosen index)."""
        acts = np.asarray(game.legal_actions(), np.int64)
        n, seat = len(acts), game.current_player
        logits, g, score = np.zeros(n), np.zeros(n), np.zeros(n)
        gumbel_root(self.NF, self.hk, self.hv, acts, n, 1.0 / self.prior_temperature, self.gumbel_scale, self._rng,
                    logits, g)
        idx = np.arange(n, dtype=np.int64)
        score[:] = g + logits
        gumbel_rank(idx, n, score)
        m = min(self.considered, n)
        considered = idx[:m].copy()
        budget = left = self.iterations - 1
        phases = max(1, int(np.ceil(np.log2(m)))) if m > 1 else 1
        r = m
        while left > 0:
            v = max(1, budget // (phases * r))
            plan = np.tile(acts[idx[:r]], v)[:left]        # round robin, the best-scored first
            for s0 in range(0, len(plan), self.batch_size):
                chunk = plan[s0:s0 + self.batch_size]
                self._batch(game, len(chunk), nseats, chunk)
            left -= len(plan)
            gumbel_scores(self.NF, self.hk, self.hv, acts, n, idx, r, seat, logits, g, self.c_visit, self.c_scale, score)
            gumbel_rank(idx, r, score)
            r = min(r, max(2, r // 2))
        final = considered.copy()
        fs = np.zeros(m)
        gumbel_scores(self.NF, self.hk, self.hv, acts, n, final, m, seat, logits, g, self.c_visit, self.c_scale, fs)
        st = self.root_stats(game, acts)
        vis = st[final, 0]
        best = max(range(m), key=lambda i: (vis[i], fs[i], -i))
        self._gumbel = (acts, considered, fs, int(final[best]))

    def root_stats(self, game, actions: np.ndarray) -> np.ndarray:
        """[len(actions), 3]: visits, prior and mean value (for the deciding seat) of each root action."""
        out = np.zeros((len(actions), 3), np.float64)
        root_children(self.NF, self.hk, self.hv, np.asarray(actions, np.int64), len(actions), game.current_player, out)
        return out

    def act(self, observation, action_mask, game=None) -> int:
        g = require_game(self, game)
        acts = g.legal_actions()
        if len(acts) == 0:
            raise ValueError("the game is over: no legal action")
        if len(acts) == 1:
            self._check_game(g)
            return int(acts[0])
        self.search(g)
        st = self.root_stats(g, acts)
        visits = st[:, 0]
        considered = None
        if self._gumbel is not None:
            _, cons, _, j = self._gumbel
            considered = np.zeros(len(acts), bool)
            considered[cons] = True
        elif self.temperature > 0 and visits.sum() > 0:
            w = visits ** (1.0 / self.temperature)
            j = int(self._pick_rng.choice(len(acts), p=w / w.sum()))
        else:
            j = max(range(len(acts)), key=lambda i: (st[i, 0], st[i, 2], st[i, 1], -i))
        self.last_stats = {"simulations": int(self.meta[M_SIMULATIONS]), "nodes": int(self.meta[M_NODES]),
                           "full": int(self.meta[M_FULL]), "actions": acts, "visits": visits.copy(),
                           "priors": st[:, 1].copy(), "values": st[:, 2].copy(), "root_value": self._root_value,
                           "considered": considered}
        return int(acts[j])

    def close(self) -> None:
        for net in {id(x): x for x in [self.net] + [v[0] for v in self._nets.values()] if x is not None}.values():
            net.close()

    def __repr__(self) -> str:
        budget = f"time_ms={self.time_ms}" if self.time_ms is not None else f"iterations={self.iterations}"
        return (f"GuidedAgent({budget}, batch_size={self.batch_size}, c_puct={self.c_puct}, fpu={self.fpu}, "
                f"rollout_mix={self.rollout_mix}, rollout={self.rollout!r}, heuristic_mix={self.heuristic_mix}, "
                f"heuristic_scale={self.heuristic_scale}, bot_prior={self.bot_prior}, "
                f"virtual_loss={self.virtual_loss}, prior_temperature={self.prior_temperature}, "
                f"temperature={self.temperature}, root={self.root!r}"
                + (f", considered={self.considered}, c_visit={self.c_visit}, c_scale={self.c_scale}, "
                   f"gumbel_scale={self.gumbel_scale}" if self.root == "gumbel" else "")
                + f", path={self.path!r}, seed={self.seed!r})")
