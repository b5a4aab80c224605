"""Compiled kernels of the vector environment (v1919_env.envs.vector_env): a whole vector step over N
games in one call. Each game gets the learner's action (illegal: the episode ends with the
penalty, the game untouched), its compiled seats are played up to the learner's next decision,
a finished game is scored, rewarded and restarted (its next episode drawn from the env's own
generator), and the learner's observation and mask are written into preallocated arrays.

Each game has a row of seat policy codes `pol[b, seat]`:
- `LEARNER` (-1): the learning seat; the kernels stop when it must decide;
- `POLICY_RANDOM` (0), `POLICY_RULEBOT` (1) of v1919_env.core.bots: compiled agents, played
  inside the kernels (`COMPILED_POLICIES` by name);
- `external_code(k)` (-2 - k): external policy k (a neural opponent); the kernels stop when it
  must decide and count the game as waiting, so that the caller can batch one forward pass over
  every game waiting on it and hand the actions to `vector_continue`.

Per-game bookkeeping lives in one int64 table `G[b, G_*]`: seat, seed, who decides, episode
length, the record of the episode that ended (seat, seed, length, learner won), and how many legal actions the learner has, listed in `legal_ids[b]` so
that the next step checks the learner's action without generating them again. `fin_pol` and
`fin_scores` keep the ended episode's seat codes and score table (core.scoring.score_table) until
the next call (infos are built from them); `ends[b]` (int8, contiguous for the caller) says how
this call ended game b's episode (RUNNING, TERMINATED, TRUNCATED, ILLEGAL). Each game also has its own policy
generator `rng[b]` (xorshift64 state, never zero; seed * 2 + 1), separate from the game's dice,
so a game replays from its seed whatever the opponents draw.

Episodes are drawn from `ep_rng` (uint64[1], splitmix64 counter): the game seed, the learner's
seat (unless fixed), and each opponent seat's pool entry by cumulative weight.

The solitaire game (`cfg[CFG_PLAYERS] == 1`): the learner is the player (seat 0, every decision
is its own; the bots play inside the core), there are no opponents, and the observation row is the
core observation followed by the solitaire features (`write_solo_features`, the layout of
v1919_env.envs.solitaire_features.SOLO_FEATURES); the reward is the VP scored in the step
(`SOLO_REWARD_VP`) or +1 / -1 at the end, won / lost at the level (`SOLO_REWARD_WIN_LOSS`).

Like the rules core, the kernels run without numba's reference counting (`_nrt=False`, see
core/stack.py): their scratch arrays live on the stack.

This module lives outside v1919_env/core/ so that editing it does not recompile the rules core;
it still caches in the core's folder (keyed by the core's sources), so a new core recompiles it.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from v1919_env.core.board import faction_strengths, n_players
from v1919_env.core.bots import POLICY_NAMES, policy_action
from v1919_env.core.layout import (GAME_OVER, MAX_LEGAL, MAX_PLAYERS, PENDING_FACTION, PENDING_PLAYER, SEATING,
                                   SOLO_FACTION, SOLO_FACTIONS, SOLO_TARGET, SOLO_VP)
from v1919_env.core.observations import COMPACT, COMPACT_SIZE, observe_and_mask_as, observe_as
from v1919_env.core.observe import OBS_SIZE
from v1919_env.core.scoring import SC_CONTROLLED, SC_LEVEL, SC_TOTAL, score_table
from v1919_env.core.setup import new_game
from v1919_env.core.solo import solo_configure
from v1919_env.core.stack import stack_empty
from v1919_env.core.step import apply_action, legal, run, try_step
from v1919_env.rewards import REWARD_KINDS

LEARNER = -1
COMPILED_POLICIES = {name: code for code, name in enumerate(POLICY_NAMES)}
"""Compiled agents the kernels play (v1919_env.core.bots policy codes), by agent name."""

# G columns (G_FIN_VP: the solitaire player's final VP)
G_SEAT, G_SEED, G_WHO, G_LEN, G_FIN_SEAT, G_FIN_SEED, G_FIN_LEN, G_FIN_WIN, G_NLEGAL, G_FIN_VP = range(10)
G_COLS = 10
# ends[b] (int8, one per game): what this call did to the game's episode
RUNNING, TERMINATED, TRUNCATED, ILLEGAL = 0, 1, 2, 3
# cfg entries (int64)
CFG_PLAYERS, CFG_VARIANT, CFG_NEGOTIATION, CFG_SEAT, CFG_SEATING = 0, 1, 2, 3, 4
# seating: the players clockwise, -1 = the setup's order; then the solitaire game's starting faction
# (-1: the rules' default), level and reward kind
CFG_SOLO_FACTION = CFG_SEATING + MAX_PLAYERS
CFG_SOLO_TARGET, CFG_SOLO_REWARD = CFG_SOLO_FACTION + 1, CFG_SOLO_FACTION + 2
CFG_LAYOUT = CFG_SOLO_FACTION + 3          # the observation layout (core/observations.py FULL, COMPACT)
CFG_SIZE = CFG_SOLO_FACTION + 4
SOLO_REWARD_VP, SOLO_REWARD_WIN_LOSS = 0, 1
SOLO_FEATURE_COUNT = 11               # v1919_env.envs.solitaire_features.SOLO_FEATURES
SOLO_SCALE, SOLO_HIGH = 20.0, 50.0    # v1919_env.envs.solitaire_features
# reward kinds as the kernel numbers them (rw rows: kind, weight)
RW_WIN_LOSS, RW_RANK, RW_SCORE_MARGIN = (REWARD_KINDS.index(k) for k in ("win_loss", "rank", "score_margin"))


def external_code(slot: int) -> int:
    """Seat code of external policy slot `slot` (0, 1, ...)."""
    return -2 - slot


@njit(cache=True, _nrt=False)
def write_solo_features(s, T, out):
    """The solitaire features (solitaire_features.solo_features, in its order) into out[0:11]: the
    controlled faction and the faction the decision is for (one-hot), the VP, the level and the
    three faction strengths, each / SOLO_SCALE, capped at SOLO_HIGH."""
    out[:SOLO_FEATURE_COUNT] = 0.0
    out[s[SOLO_FACTION]] = 1.0
    if s[GAME_OVER] == 0:
        out[3 + s[PENDING_FACTION]] = 1.0
    out[6] = min(s[SOLO_VP] / SOLO_SCALE, SOLO_HIGH)
    out[7] = min(s[SOLO_TARGET] / SOLO_SCALE, SOLO_HIGH)
    st = faction_strengths(s, T)
    for f in range(SOLO_FACTIONS):
        out[8 + f] = min(st[f] / SOLO_SCALE, SOLO_HIGH)


@njit(cache=True, _nrt=False)
def observe_learner(s, T, seat, out, layout):
    """The learner's observation row: the core observation in `layout`, then (a solitaire row is
    wider) the solitaire features."""
    size = COMPACT_SIZE if layout == COMPACT else OBS_SIZE
    observe_as(s, T, seat, out[:size], layout)
    if out.shape[0] > size:
        write_solo_features(s, T, out[size:])


@njit(cache=True, _nrt=False)
def advance(s, T, pol, buf, rng):
    """Play the compiled seats of one game until a learner or external seat must decide (returns
    that seat) or the game ends (returns -1)."""
    while s[GAME_OVER] == 0:
        p = s[PENDING_PLAYER]
        code = pol[p]
        if code < 0:
            return p
        apply_action(s, T, policy_action(s, T, code, buf, rng))
    return -1


@njit(cache=True, _nrt=False)
def _ep_next(ep_rng):
    """Next output of the episode generator (splitmix64)."""
    ep_rng[0] += np.uint64(0x9E3779B97F4A7C15)
    z = ep_rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, _nrt=False)
def terminal_reward(s, seat, kinds, weights, sc, win):
    """The learner's terminal reward in finished game s: sum of weights[j] times the reward of kind
    kinds[j] (REWARD_KINDS index), each as v1919_env.rewards.terminal_rewards computes it from
    Game.scores(). sc: the game's score table (core.scoring.score_table), win: its winners bit mask."""
    n = n_players(s)
    key = stack_empty(MAX_PLAYERS, np.int64)     # the rules' ranking key (rewards.ranking_key)
    total_all = 0
    for p in range(n):
        key[p] = (sc[p, SC_TOTAL] * 64 + sc[p, SC_LEVEL]) * 64 + sc[p, SC_CONTROLLED]
        total_all += sc[p, SC_TOTAL]
    r = 0.0
    for j in range(kinds.shape[0]):
        kind = kinds[j]
        if kind == RW_WIN_LOSS:
            k = 0
            for p in range(n):
                k += (win >> p) & 1
            if k == n:
                v = 0.0
            elif (win >> seat) & 1:
                v = 1.0 / k
            else:
                v = -1.0 / (n - k)
        elif kind == RW_RANK:
            better, same = 0, 0
            for p in range(n):
                if key[p] > key[seat]:
                    better += 1
                elif key[p] == key[seat]:
                    same += 1
            v = 0.0
            for q in range(better, better + same):   # tied places share the average of their values
                v += 1.0 - 2.0 * q / (n - 1)
            v = v / same
        else:
            mine = sc[seat, SC_TOTAL]
            v = min(1.0, max(-1.0, (mine - (total_all - mine) / (n - 1)) / 50.0))
        r += weights[j] * v
    return r


@njit(cache=True, _nrt=False)
def _new_episode(b, S, T, cfg, pool_codes, pool_cum, ep_rng, pol, rng, G, buf):
    """Start game b's next episode (seed, seat and opponents drawn from ep_rng) and play its
    compiled seats up to the first learner or external decision."""
    n = cfg[CFG_PLAYERS]
    seed = np.int64(_ep_next(ep_rng) >> np.uint64(2))
    seat = cfg[CFG_SEAT]
    if seat < 0:
        seat = np.int64(_ep_next(ep_rng) % np.uint64(n))
    pol[b, :] = LEARNER
    for p in range(n):
        if p != seat:
            u = (_ep_next(ep_rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
            j = 0
            while j < pool_cum.shape[0] - 1 and not u < pool_cum[j]:
                j += 1
            pol[b, p] = pool_codes[j]
    s = S[b]
    # as Game.new: the setup, the seating, the solitaire's faction and level, then play to a decision
    new_game(s, T, n, seed, cfg[CFG_VARIANT], cfg[CFG_NEGOTIATION])
    if cfg[CFG_SEATING] >= 0:
        for i in range(SOLO_FACTIONS if n == 1 else n):
            s[SEATING + i] = cfg[CFG_SEATING + i]
    if n == 1:
        solo_configure(s, cfg[CFG_SOLO_FACTION], cfg[CFG_SOLO_TARGET])
    run(s, T, 0, -1)
    rng[b] = np.uint64(seed) * np.uint64(2) + np.uint64(1)
    G[b, G_SEAT] = seat
    G[b, G_SEED] = seed
    G[b, G_LEN] = 0
    G[b, G_WHO] = advance(s, T, pol[b], buf, rng[b:b + 1])


@njit(cache=True, _nrt=False)
def _end_episode(b, status, S, T, cfg, kinds, weights, penalty, pol, G, rewards, ends, fin_obs, fin_pol, fin_scores):
    """Record game b's ended episode (status TERMINATED, TRUNCATED or ILLEGAL): its reward, the
    learner's final observation, the episode record and the final score table (the solitaire
    game: the player's VP, won at the level; its reward adds to the step's VP reward)."""
    s = S[b]
    seat = G[b, G_SEAT]
    observe_learner(s, T, seat, fin_obs[b], cfg[CFG_LAYOUT])
    G[b, G_FIN_VP] = s[SOLO_VP]
    if status == ILLEGAL:
        rewards[b] = penalty
        G[b, G_FIN_WIN] = 0
    elif cfg[CFG_PLAYERS] == 1:
        won = s[SOLO_VP] >= s[SOLO_TARGET]
        G[b, G_FIN_WIN] = 1 if won else 0
        if cfg[CFG_SOLO_REWARD] == SOLO_REWARD_WIN_LOSS:
            rewards[b] += 1.0 if won else -1.0
    else:
        win = score_table(s, T, fin_scores[b])
        rewards[b] = terminal_reward(s, seat, kinds, weights, fin_scores[b], win)
        G[b, G_FIN_WIN] = (win >> seat) & 1
    ends[b] = status
    G[b, G_FIN_SEAT] = seat
    G[b, G_FIN_SEED] = G[b, G_SEED]
    G[b, G_FIN_LEN] = G[b, G_LEN]
    for p in range(pol.shape[1]):
        fin_pol[b, p] = pol[b, p]


@njit(cache=True, _nrt=False)
def _settle(b, S, T, cfg, pool_codes, pool_cum, ep_rng, kinds, weights, penalty, pol, rng, G, masks, rewards, ends,
            fin_obs, fin_pol, fin_scores, legal_ids, buf):
    """After game b's seats have played: end and restart a finished game, then list the learner's
    legal actions and write its mask (the observation comes after, `_observe`); returns
    1 if the game now waits on an external seat (nothing written)."""
    if G[b, G_WHO] < 0:
        status = TRUNCATED if S[b, GAME_OVER] == 2 else TERMINATED
        _end_episode(b, status, S, T, cfg, kinds, weights, penalty, pol, G, rewards, ends, fin_obs, fin_pol,
                     fin_scores)
        _new_episode(b, S, T, cfg, pool_codes, pool_cum, ep_rng, pol, rng, G, buf)
    if _waits(G, b):
        return 1
    n = legal(S[b], T, buf)
    m = masks[b]
    m[:] = 0
    for j in range(n):
        m[buf[j]] = 1
        legal_ids[b, j] = buf[j]
    G[b, G_NLEGAL] = n
    return 0


@njit(cache=True, _nrt=False)
def _waits(G, b):
    """True when game b waits on an external seat (not on its learner)."""
    w = G[b, G_WHO]
    return w >= 0 and w != G[b, G_SEAT]


@njit(cache=True, _nrt=False)
def _observe(b, S, T, cfg, G, obs):
    """The learner's observation of game b unless it waits on an external seat. The kernels call it in
    a pass of its own after the games' play: one loop that both played and observed ran 14-28% slower
    (docs/benchmarks.md)."""
    if not _waits(G, b):
        observe_learner(S[b], T, G[b, G_WHO], obs[b], cfg[CFG_LAYOUT])


@njit(cache=True, _nrt=False)
def vector_reset(S, T, cfg, pool_codes, pool_cum, ep_rng, kinds, weights, penalty, pol, rng, G, obs, masks, rewards,
                 ends, fin_obs, fin_pol, fin_scores, legal_ids):
    """A new episode in every game; returns how many wait on an external seat."""
    buf = stack_empty(MAX_LEGAL, np.int64)
    waiting = 0
    for b in range(S.shape[0]):
        ends[b] = RUNNING
        rewards[b] = 0.0
        _new_episode(b, S, T, cfg, pool_codes, pool_cum, ep_rng, pol, rng, G, buf)
        waiting += _settle(b, S, T, cfg, pool_codes, pool_cum, ep_rng, kinds, weights, penalty, pol, rng, G, masks,
                           rewards, ends, fin_obs, fin_pol, fin_scores, legal_ids, buf)
    for b in range(S.shape[0]):
        _observe(b, S, T, cfg, G, obs)
    return waiting


@njit(cache=True, _nrt=False)
def first_out_of_range(actions, n):
    """The first game whose action id is outside 0..n-1, or -1 (the README's action rule, checked
    before any game is stepped: a numpy check took 2% of a 64-game step, this 0.2%)."""
    for b in range(actions.shape[0]):
        if actions[b] < 0 or actions[b] >= n:
            return b
    return -1


@njit(cache=True, _nrt=False)
def vector_step(S, T, actions, cfg, pool_codes, pool_cum, ep_rng, kinds, weights, penalty, pol, rng, G, obs, masks,
                rewards, ends, fin_obs, fin_pol, fin_scores, legal_ids):
    """One learner action per game (actions[b]), everything else of the vector step in one call
    (see the module docstring); returns how many games wait on an external seat. Three passes over
    the games: their play, then (in game order, as the episodes are drawn) their ends, starts and
    masks, then the observations."""
    buf = stack_empty(MAX_LEGAL, np.int64)
    for b in range(S.shape[0]):
        ends[b] = RUNNING
        rewards[b] = 0.0
        G[b, G_LEN] += 1
        s = S[b]
        a = actions[b]
        ok = False
        if G[b, G_WHO] == G[b, G_SEAT]:         # (not after an external seat's OpponentError)
            for j in range(G[b, G_NLEGAL]):    # the legal actions _settle listed for this decision
                if legal_ids[b, j] == a:
                    ok = True
                    break
        if ok:
            vp = s[SOLO_VP]
            apply_action(s, T, a)
            G[b, G_WHO] = advance(s, T, pol[b], buf, rng[b:b + 1])
            if cfg[CFG_PLAYERS] == 1 and cfg[CFG_SOLO_REWARD] == SOLO_REWARD_VP:
                rewards[b] = s[SOLO_VP] - vp          # the VP scored in this step (EN:877-881)
        else:
            ends[b] = ILLEGAL                        # ended in the next pass, the game untouched
    waiting = 0
    for b in range(S.shape[0]):
        if ends[b] == ILLEGAL:
            _end_episode(b, ILLEGAL, S, T, cfg, kinds, weights, penalty, pol, G, rewards, ends, fin_obs, fin_pol,
                         fin_scores)
            _new_episode(b, S, T, cfg, pool_codes, pool_cum, ep_rng, pol, rng, G, buf)
        waiting += _settle(b, S, T, cfg, pool_codes, pool_cum, ep_rng, kinds, weights, penalty, pol, rng, G, masks,
                           rewards, ends, fin_obs, fin_pol, fin_scores, legal_ids, buf)
    for b in range(S.shape[0]):
        _observe(b, S, T, cfg, G, obs)
    return waiting


@njit(cache=True, _nrt=False)
def vector_continue(S, T, rows, actions, bad, cfg, pool_codes, pool_cum, ep_rng, kinds, weights, penalty, pol, rng, G,
                    obs, masks, rewards, ends, fin_obs, fin_pol, fin_scores, legal_ids):
    """External seats' actions: actions[k] for the seat game rows[k] waits on. A legal one is
    applied and the game goes on as in vector_step; an illegal one sets bad[k] = 1 and leaves the
    game unchanged. Returns how many of rows still wait on an external seat."""
    buf = stack_empty(MAX_LEGAL, np.int64)
    waiting = 0
    for k in range(rows.shape[0]):
        b = rows[k]
        s = S[b]
        bad[k] = 0
        if s[GAME_OVER] == 0 and try_step(s, T, actions[k], buf):
            G[b, G_WHO] = advance(s, T, pol[b], buf, rng[b:b + 1])
            waiting += _settle(b, S, T, cfg, pool_codes, pool_cum, ep_rng, kinds, weights, penalty, pol, rng, G,
                               masks, rewards, ends, fin_obs, fin_pol, fin_scores, legal_ids, buf)
        else:
            bad[k] = 1
            waiting += 1
    for k in range(rows.shape[0]):
        _observe(rows[k], S, T, cfg, G, obs)
    return waiting


@njit(cache=True, _nrt=False)
def observe_rows(S, T, rows, seats, obs, masks, layout):
    """obs[k], masks[k] = observation (in `layout`) of seat seats[k] in game rows[k] and its action
    mask (zeros unless that seat decides now)."""
    buf = stack_empty(MAX_LEGAL, np.int64)
    for k in range(rows.shape[0]):
        observe_and_mask_as(S[rows[k]], T, seats[k], obs[k], masks[k], buf, layout)

