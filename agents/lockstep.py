"""The lockstep search: the `guided` search of many games at once, one forward pass per step for the
leaves of all of them.

Each game has its own tree, generator and schedule (a row of every array); a step runs the compiled
kernels of agents/lockstep_kernels.py over every game still searching: each plans its next chunk of
simulations (the root alone first, then `batch_size` at a time; the Gumbel root's sequential halving
picks the root action of each simulation), selects its leaves, and after one forward pass over all
leaves backs up and moves its schedule on. Python runs once per step of the whole batch, never per
game or per simulation. A game's chunks and generator are the same whatever runs beside it, so its
search gives the same visits alone and in a batch, provided the network's output for a leaf does
not depend on the other leaves of the pass: the compiled forward pass (agents/compiled_net.py,
`forward="compiled"`, the default for plain MLP policies) guarantees that; torch (`forward="torch"`,
the path for other bodies and for a GPU) is not batch-invariant, so there a game may differ in the
low bits of a value, and rarely in a visit, with the batch around it.

`GuidedAgent` (agents/guided.py) is this engine with one game; `training.selfplay` runs a whole shard
of teacher games through one engine; `agents.batch_search.search` searches a batch of positions with
a user's own network.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from v1919_env.actions import NUM_ACTIONS
from v1919_env.core.bots import seed_policy_rng
from v1919_env.core.layout import MAX_LEGAL, MAX_PLAYERS, STATE_DTYPE, STATE_SIZE
from v1919_env.core.observations import layout_of
from v1919_env.core.observe import OBS_SIZE

from .compiled_net import scratch as net_scratch
from .guided_kernels import (META_SIZE, M_FULL, M_NODES, M_SIMULATIONS, NF_COLS, NI_COLS, OBS_COMPACT, OBS_DECIDER,
                             OBS_SEATS)
from .lockstep_kernels import (C_GUMBEL, C_KC, C_M, C_N, C_PHASE, CTL_COLS, PH_DONE, PH_GUMBEL, PH_IDLE, PH_PUCT,
                               PH_ROOT, compiled_forward, leaf_values, lockstep_active, lockstep_advance,
                               lockstep_backup, lockstep_begin, lockstep_finish, lockstep_plan, lockstep_select)

MAX_DEPTH = 512                # tree depth cap (a deeper leaf is evaluated without expanding it)


@dataclass
class SearchResult:
    """One finished search: the legal root actions and, for each, its visits, prior and mean value
    for the deciding seat; the engine's move (index into actions); the Gumbel root's considered
    actions (a mask, None under PUCT); the root's value for the deciding seat after its own
    evaluation; simulations, tree nodes and full-tree events."""
    actions: np.ndarray
    visits: np.ndarray
    priors: np.ndarray
    values: np.ndarray
    choice: int
    considered: np.ndarray | None
    root_value: float
    simulations: int
    nodes: int
    full: int


class Lockstep:
    """Search arrays for up to `games` games of `players` players (1: the solitaire game) under the
    options of `agent` (a GuidedAgent) and with its network for that player count."""

    def __init__(self, agent, games: int, players: int, forward: str | None = None):
        self.agent = agent
        self.G, self.K = int(games), agent.batch_size
        self.players = players
        self.solo = players == 1
        self.nseats = 1 if self.solo else players
        self.net, self.kinds, self.weights = agent.net_for_players(players)
        compact = getattr(self.net, "obs_layout", "full") == "compact"
        self.width = self.net.obs_size if self.solo or compact else OBS_SIZE
        self.forward = forward or agent.forward
        on_cpu = getattr(self.net, "device", "cpu") == "cpu"     # a network on a GPU runs in torch there
        self.compiled = self.net.compiled_policy() if self.forward in ("auto", "compiled") and on_cpu else None
        if self.forward == "compiled" and self.compiled is None:
            raise ValueError(f"forward=compiled: the network {self.net.path} is not a plain MLP policy (a chain of "
                             f"Linear and ReLU/Tanh layers over a flat observation); use forward=torch")
        # a network that values every seat from the decider's row is evaluated once a leaf; the others
        # once a seat (each row valued for its own seat)
        self.relative = bool(self.net.seat_values) and not self.solo
        self.rows = 1 if self.relative or self.solo else self.nseats
        self.obs_mode = (OBS_DECIDER if self.relative else OBS_SEATS) | (OBS_COMPACT if compact else 0)
        self.iterations = -1 if agent.time_ms is not None else agent.iterations
        cap = agent.max_nodes or (agent.TIME_NODES if agent.time_ms is not None else 64 * (agent.iterations + 1))
        size = 1
        while size < 2 * cap + 2:
            size *= 2
        G, K, S = self.G, self.K, STATE_SIZE
        self.NF = np.zeros((G, cap, NF_COLS), np.float64)
        self.NI = np.zeros((G, cap, NI_COLS), np.int64)
        self.hk = np.full((G, size), -1, np.int64)
        self.hv = np.zeros((G, size), np.int64)
        self.meta = np.zeros((G, META_SIZE), np.int64)
        self.rng = np.concatenate([seed_policy_rng(g) for g in range(G)]).reshape(G, 1)   # callers seed their games
        self.roots = np.zeros((G, S), STATE_DTYPE)
        self.ctl = np.zeros((G, CTL_COLS), np.int64)
        self.root_value = np.zeros(G, np.float64)
        self.gacts = np.zeros((G, MAX_LEGAL), np.int64)
        self.gidx = np.zeros((G, MAX_LEGAL), np.int64)
        self.gcons = np.zeros((G, MAX_LEGAL), np.int64)
        self.glogits, self.ggumbel, self.gscore = (np.zeros((G, MAX_LEGAL)) for _ in range(3))
        self.S = np.zeros((G, K, S), STATE_DTYPE)
        self.R = np.zeros((G, K, S), STATE_DTYPE)
        self.paths = np.zeros((G, K, MAX_DEPTH), np.int64)
        self.plen, self.leaf, self.status, self.deciders, self.nlegal, self.botact = (
            np.zeros((G, K), np.int64) for _ in range(6))
        self.forced = np.full((G, K), -1, np.int64)
        self.obs = np.zeros((G, K, self.rows, self.width), np.float32)
        self.masks = np.zeros((G, K, self.rows, NUM_ACTIONS), np.int8)
        self.legal = np.zeros((G, K, MAX_LEGAL), np.int64)
        self.term, self.values, self.rollz, self.heurz = (np.zeros((G, K, MAX_PLAYERS)) for _ in range(4))
        self.raw = np.zeros((G, K, MAX_PLAYERS), np.float32)
        self.probs = np.zeros((G, K, NUM_ACTIONS), np.float32)
        self.active = np.zeros(G, np.int64)
        self.buf = np.zeros(MAX_LEGAL, np.int64)
        self.z = np.zeros(MAX_LEGAL, np.float64)
        self.hidden = net_scratch()
        self.stats = np.zeros((MAX_LEGAL, 3), np.float64)
        self.fscore = np.zeros(MAX_LEGAL, np.float64)
        self.steps = 0                     # steps taken (forward passes), rows they evaluated, seconds in them
        self.rows_evaluated = 0
        self.forward_seconds = 0.0

    # ------------------------------------------------------------------ driving
    def begin(self, slots, states: np.ndarray, T) -> None:
        """Start a search in each game slot of `slots` from the matching row of `states` (game arrays)."""
        slots = np.asarray(slots, np.int64).reshape(-1)
        states = np.asarray(states, STATE_DTYPE).reshape(len(slots), STATE_SIZE)
        self.T = T
        lockstep_begin(slots, len(slots), self.roots, T, states, self.NF, self.NI, self.hk, self.meta, self.ctl,
                       self.gacts, self.buf)

    def searching(self) -> np.ndarray:
        """The game slots whose search is not finished."""
        ph = self.ctl[:, C_PHASE]
        return np.flatnonzero((ph == PH_ROOT) | (ph == PH_PUCT) | (ph == PH_GUMBEL))

    def done(self) -> np.ndarray:
        """The game slots whose search is finished and not yet collected (`result`)."""
        return np.flatnonzero(self.ctl[:, C_PHASE] == PH_DONE)

    def stop(self, slots) -> None:
        """End the searches of these slots after their last step (a time budget)."""
        self.ctl[np.asarray(slots, np.int64), C_PHASE] = PH_DONE

    def step(self) -> int:
        """One step of every searching game; returns how many games stepped."""
        a = self.agent
        na = lockstep_active(self.ctl, self.active)
        if na == 0:
            return 0
        act = self.active
        lockstep_plan(act, na, self.ctl, self.K, self.gacts, self.gidx, self.forced)
        c_puct = a.c_puct if a.c_puct is not None else (a.SOLO_C_PUCT if self.solo else a.C_PUCT)
        lockstep_select(act, na, self.ctl, self.roots, self.T, self.NF, self.NI, self.hk, self.hv, self.meta, c_puct,
                        a.fpu, a.virtual_loss, 1.0 / a.prior_temperature, self.rng, self.nseats, self.kinds,
                        self.weights, self.S, self.paths, self.plen, self.leaf, self.status, self.deciders, self.obs,
                        self.masks, self.legal, self.nlegal, self.term, self.buf, a._policies,
                        a.max_rollout if a.rollout_mix > 0.0 else 0, self.R, self.rollz,
                        a.heuristic_scale if a.heuristic_mix > 0.0 else 0.0, self.heurz, a.bot_prior > 0.0,
                        self.botact, self.forced, self.obs_mode)
        t0 = time.perf_counter()
        self.rows_evaluated += self._forward(na)
        self.forward_seconds += time.perf_counter() - t0
        leaf_values(act, na, self.ctl, self.status, self.term, self.raw, self.relative, self.nseats, self.solo,
                    self.S, self.deciders, a.rollout_mix, a.heuristic_mix, self.rollz, self.heurz, a.bot_prior, self.botact, self.probs,
                    self.legal, self.nlegal, self.values)
        lockstep_backup(act, na, self.ctl, self.NF, self.NI, self.hk, self.hv, self.meta, self.paths, self.plen,
                        self.leaf, self.status, self.values, self.probs, self.deciders, self.legal, self.nlegal)
        lockstep_advance(act, na, self.ctl, self.NF, self.hk, self.hv, self.gacts, self.glogits, self.ggumbel,
                         self.gidx, self.gscore, self.gcons, self.root_value, self.iterations, a.root == "gumbel",
                         a.considered, 1.0 / a.prior_temperature, a.gumbel_scale, a.c_visit, a.c_scale, self.rng)
        self.steps += 1
        return na

    def _forward(self, na: int) -> int:
        """The network on this step's leaves (compiled or torch); returns the rows evaluated."""
        if self.compiled is not None:
            c = self.compiled
            return compiled_forward(self.active, na, self.ctl, self.status, self.obs, self.legal, self.nlegal, self.deciders,
                             self.rows, c.weights, c.layers, c.program, c.n_in, self.probs, self.raw, self.z,
                             *self.hidden)
        act = self.active[:na]
        kc = self.ctl[act, C_KC]
        take = np.zeros((self.G, self.K), bool)
        take[act] = np.arange(self.K)[None, :] < kc[:, None]
        take &= self.status == 0
        gi, ki = np.nonzero(take)
        if len(gi) == 0:
            return 0
        obs = self.obs[gi, ki]
        e, ns, rows = len(gi), self.nseats, self.rows
        p, v = self.net.evaluate_batch(obs.reshape(e * rows, -1), self.masks[gi, ki].reshape(e * rows, NUM_ACTIONS))
        if self.relative:                     # one row a leaf, a value for every relative seat
            self.probs[gi, ki] = p
            self.raw[gi, ki, :ns] = np.asarray(v).reshape(e, -1)[:, :ns]
        else:
            d = self.deciders[gi, ki] if rows > 1 else np.zeros(e, np.int64)
            self.probs[gi, ki] = p.reshape(e, rows, NUM_ACTIONS)[np.arange(e), d]
            self.raw[gi, ki, :ns] = v.reshape(e, ns)
        return e * rows

    def run(self) -> None:
        """Step until no game is searching."""
        while self.step():
            pass

    def result(self, g: int) -> SearchResult:
        """The finished search of slot g (its slot is then free)."""
        if self.ctl[g, C_PHASE] != PH_DONE:
            raise ValueError(f"game slot {g} has no finished search")
        a = self.agent
        n = int(self.ctl[g, C_N])
        choice = lockstep_finish(g, self.ctl, self.NF, self.hk, self.hv, self.gacts, self.glogits, self.ggumbel,
                                 self.gcons, a.c_visit, a.c_scale, self.stats, self.fscore)
        st = self.stats[:n]
        considered = None
        if self.ctl[g, C_GUMBEL]:
            considered = np.zeros(n, bool)
            considered[self.gcons[g, :self.ctl[g, C_M]]] = True
        self.ctl[g, C_PHASE] = PH_IDLE
        meta = self.meta[g]
        return SearchResult(self.gacts[g, :n].copy(), st[:, 0].copy(), st[:, 1].copy(), st[:, 2].copy(), int(choice),
                            considered, float(self.root_value[g]), int(meta[M_SIMULATIONS]), int(meta[M_NODES]),
                            int(meta[M_FULL]))


class CallableNetwork:
    """A user's network as the engine's evaluator: `fn(observations, masks) -> (logits, values)`,
    observations [E, OBS_SIZE] float32 (the deciding seat's, as the environments give them; in the
    compact layout, [E, COMPACT_SIZE], when `fn.obs_layout` is 'compact'), masks [E, NUM_ACTIONS] int8
    (its legal actions); logits [E, NUM_ACTIONS] (illegal ones are ignored), values [E, players] for
    every seat in the observation's order (the decider, then clockwise)."""

    solitaire, rllib, seat_values = False, None, True

    def __init__(self, fn):
        self.fn = fn
        self.path = f"<callable {getattr(fn, '__name__', type(fn).__name__)}>"
        self.obs_layout = getattr(fn, "obs_layout", "full")
        try:
            self.obs_size = layout_of(self.obs_layout)[1]
        except ValueError as e:
            raise ValueError(f"network {self.path}: {e}") from None

    def compiled_policy(self):
        return None

    def evaluate_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        e = len(observations)
        out = self.fn(observations, action_masks)
        if not isinstance(out, tuple) or len(out) != 2:
            raise ValueError(f"network {self.path}: must return (logits, values), got {type(out).__name__}")
        logits, values = (np.asarray(_numpy(x), np.float64) for x in out)
        if logits.shape != (e, NUM_ACTIONS):
            raise ValueError(f"network {self.path}: logits must have shape ({e}, {NUM_ACTIONS}), got {logits.shape}")
        if values.ndim != 2 or values.shape[0] != e:
            raise ValueError(f"network {self.path}: values must have shape ({e}, players), got {values.shape}")
        legal = action_masks.astype(bool)
        z = np.where(legal, logits, -np.inf)
        z -= z.max(1, keepdims=True)
        p = np.where(legal, np.exp(z), 0.0)
        return (p / p.sum(1, keepdims=True)).astype(np.float32), values.astype(np.float32)

    def close(self) -> None:
        pass


def _numpy(x):
    return x.detach().cpu().numpy() if hasattr(x, "detach") else x
