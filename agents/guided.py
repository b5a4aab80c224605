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
`ismcts`). The search runs on the lockstep engine (agents/lockstep.py) with one game, the engine that
self-play runs on many: the network is evaluated by compiled code for plain MLP policies
(agents/compiled_net.py, batch-invariant) or by torch (one thread; `forward`, `device`).
"""
from __future__ import annotations

import re
import time
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from v1919_env.core.bots import seed_policy_rng
from v1919_env.rewards import REWARD_KINDS

from .base import Agent, AgentError, number_option, register, require_game
from .guided_kernels import root_children
from .ismcts import rollout_policies
from .learned import COMPACT_WEIGHTS, DEFAULT_WEIGHTS, SHIPPED_CONFIGS, SHIPPED_WEIGHTS
from .lockstep import CallableNetwork, Lockstep, SearchResult
from .lockstep_kernels import SOLO_WIN_SCALE, solo_leaf_value  # noqa: F401  (re-exported)

FORWARDS = ("auto", "compiled", "torch")
"""How the network is evaluated: compiled (agents/compiled_net.py: exact, batch-invariant, CPU), torch
(any body, a GPU), auto (compiled when the policy is a plain MLP, else torch)."""
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
def checkpoint_facts(path: str | Path) -> dict:
    """{"num_players", "reward"} a checkpoint was trained with, where known: for the shipped weights
    (agents/weights, `learned.SHIPPED_WEIGHTS`) the training config that made them
    (`learned.SHIPPED_CONFIGS`); else the resolved `config.yaml` of the run directory holding it
    (runs/train/<name>/checkpoints/<x>.zip or runs/train/<name>/<x>.zip); {} otherwise."""
    p = Path(path).resolve()
    if p == COMPACT_WEIGHTS.resolve():          # distilled from the 4-player weights: their reward
        return {**checkpoint_facts(SHIPPED_WEIGHTS[4]), "num_players": 4}
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
    C_VISIT, C_SCALE); gumbel_scale: the Gumbel noise's scale (default 1; 0: no noise); forward: how the
    network is evaluated (FORWARDS: 'compiled', batch-invariant on the CPU, for plain MLP policies; 'torch';
    'auto' the first that applies); device: torch's device for the network ('cpu', 'auto': a GPU when torch
    sees one, 'cuda[:N]'; off the CPU the forward pass is torch's); network: a Python callable (observations,
    masks) -> (logits, a value per seat) searched instead of a checkpoint (agents.batch_search.search); seed."""

    needs_game = True
    C_PUCT, SOLO_C_PUCT, TIME_NODES = C_PUCT, SOLO_C_PUCT, TIME_NODES

    def __init__(self, iterations: int = 200, time_ms: float | None = None, batch_size: int = 16,
                 c_puct: float | None = None, fpu: float = 0.2, virtual_loss: float = 0.0,
                 prior_temperature: float = 1.0, temperature: float = 0.0, path: str | None = None,
                 players: int | str | None = None, reward=None,
                 max_nodes: int | None = None, rollout_mix: float = 0.0, rollout: str = "rulebot",
                 max_rollout: int = 20000, heuristic_mix: float = 0.0, heuristic_scale: float = 5.0,
                 bot_prior: float = 0.0, root: str = "puct", considered: int | None = None,
                 c_visit: float | None = None, c_scale: float | None = None, gumbel_scale: float | None = None,
                 forward: str = "auto", device: str = "cpu", network=None, seed: int | None = None):
        if root not in ROOTS:
            raise ValueError(f"option root must be one of {', '.join(ROOTS)}, got {root!r}")
        self.root = root
        if forward not in FORWARDS:
            raise ValueError(f"option forward must be one of {', '.join(FORWARDS)}, got {forward!r}")
        self.forward = forward
        if not isinstance(device, str) or not re.fullmatch(r"cpu|auto|cuda(:\d+)?", device):
            raise ValueError(f"option device must be cpu, auto (a GPU when torch sees one) or cuda[:N], got {device!r}")
        if device != "cpu" and forward == "compiled":
            raise ValueError("option forward=compiled runs on the CPU; give forward=torch (or auto) with a device")
        self.device = device
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
        if network is not None and (path is not None or not callable(network)):
            raise ValueError("option network must be a callable (observations, masks) -> (logits, values), "
                             "given instead of path")
        self._callable = network
        self.path = None if path is None else str(path)
        facts = {"reward": "win_loss"} if network is not None else checkpoint_facts(self.path or DEFAULT_WEIGHTS)
        if players is None:
            self.players = facts.get("num_players") if self.path is not None else None
        elif players == "any":
            self.players = None
        elif not isinstance(players, bool) and isinstance(players, (int, np.integer)) and 2 <= players <= 4:
            self.players = int(players)
        else:
            raise ValueError(f"option players must be 2, 3, 4, 'any' or None (the checkpoint's), got {players!r}")
        if players is not None and self.path is None and network is None:
            raise ValueError(f"option players describes the checkpoint at path; without path every game is "
                             f"searched with the shipped network for its player count, got players={players!r}")
        self._reward_option = None if reward is None else reward_spec(reward)
        self.reward = self._reward_option or self._trained_reward(facts)
        self._load()
        self.last_stats: dict | None = None
        self._result: SearchResult | None = None
        self.reset(seed)

    def _load(self) -> None:
        # the option's network (a checkpoint or a callable), or the shipped 4-player one
        self.net = self._network(self.path) if self._callable is None else CallableNetwork(self._callable)
        self._nets = {}                          # without a path: the shipped network per player count (1: solitaire)
        self._engines = {}                       # the one-game lockstep engine per player count

    @staticmethod
    def _trained_reward(facts: dict) -> dict[str, float]:
        """The reward a network was trained on, for finished games in the tree (the solitaire game has
        its own objective, so a solitaire network's is not used)."""
        trained = facts.get("reward", "win_loss")
        if facts.get("num_players") == 1 or not (isinstance(trained, Mapping) or trained in REWARD_KINDS):
            trained = "win_loss"
        return reward_spec(trained)

    def _network(self, path):
        from .learned import LearnedAgent

        try:
            net = LearnedAgent(path=path, device=self.torch_device())
        except ValueError as e:
            raise ValueError(f"option path: {e}") from e
        if net.rllib is not None:
            raise ValueError(f"option path: {net.path} is an RLlib checkpoint; guided needs a MaskablePPO .zip "
                             f"(it reads the value head)")
        return net

    def _net_for(self, g):
        """(network, reward kinds, reward weights) that search game g (`net_for_players`)."""
        return self.net_for_players(1 if g.solitaire else g.num_players)

    def torch_device(self) -> str:
        """The torch device of the network: `device`, with auto resolved (cuda when torch sees a GPU)."""
        if self.device != "auto":
            return self.device
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"

    def net_for_players(self, n: int):
        """(network, reward kinds, reward weights) that search games of n players (1: the solitaire
        game): the option's network, or without one the shipped weights for that count
        (`learned.SHIPPED_WEIGHTS`; solitaire.zip for the solitaire game), each with the reward it was
        trained on unless the `reward` option says otherwise."""
        key = None if self.path is not None or self._callable is not None or n == 4 else n
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
        if d.get("_callable") is not None:
            raise TypeError("a guided agent searching a Python callable (option network) cannot be sent to "
                            "another process; give a checkpoint path")
        d["net"] = None
        d["_nets"] = {}
        d["_engines"] = {}
        return d

    def __setstate__(self, d):
        self.__dict__.update(d)
        self._load()

    def reset(self, seed: int | None = None) -> None:
        s = self.seed if seed is None else seed
        s = 0 if s is None else int(s) & 0x7FFFFFFFFFFFFFFF
        self._rng = seed_policy_rng(s)
        self._pick_rng = np.random.default_rng(s)

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

    def engine(self, players: int) -> Lockstep:
        """The one-game lockstep engine (agents/lockstep.py) for games of `players` players (1: solitaire)."""
        if players not in self._engines:
            self._engines[players] = Lockstep(self, 1, players)
        return self._engines[players]

    def search(self, game) -> int:
        """Run the budget from `game` (never modified); returns the number of simulations."""
        nseats = self._check_game(game)
        eng = self.engine(1 if game.solitaire else nseats)
        eng.rng[0] = self._rng
        eng.begin([0], game.state, game.T)
        eng.step()                                   # the root first, alone
        if self.time_ms is None:
            eng.run()
        else:
            end = time.perf_counter() + self.think_ms(self.time_ms) / 1000.0       # the clock may cut it
            while eng.step():
                if time.perf_counter() >= end:
                    eng.stop([0])
        self._rng[:] = eng.rng[0]
        self._result = eng.result(0)
        self._tree = eng
        return self._result.simulations

    @property
    def NF(self) -> np.ndarray:
        """The last search's tree statistics (agents/guided_kernels.py's NF columns)."""
        return self._tree.NF[0]

    def root_stats(self, game, actions: np.ndarray) -> np.ndarray:
        """[len(actions), 3]: visits, prior and mean value (for the deciding seat) of each root action
        of the last search."""
        out = np.zeros((len(actions), 3), np.float64)
        t = self._tree
        root_children(t.NF[0], t.hk[0], t.hv[0], np.asarray(actions, np.int64), len(actions), game.current_player, out)
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
        r = self._result
        j = r.choice
        if r.considered is None and self.temperature > 0 and r.visits.sum() > 0:
            w = r.visits ** (1.0 / self.temperature)
            j = int(self._pick_rng.choice(len(acts), p=w / w.sum()))
        self.last_stats = {"simulations": r.simulations, "nodes": r.nodes, "full": r.full, "actions": r.actions,
                           "visits": r.visits, "priors": r.priors, "values": r.values, "root_value": r.root_value,
                           "considered": r.considered}
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
