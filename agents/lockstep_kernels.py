"""Compiled kernels of the lockstep search (agents/lockstep.py): the `guided` search of many games
at once, each game with its own tree, generator and schedule, advanced one step of the whole batch
per call.

A step is: `lockstep_plan` (each searching game's next chunk of simulations: the root alone, then
`batch_size` at a time, with the Gumbel root's sequential halving choosing each simulation's root
action), `lockstep_select` (agents/guided_kernels.py's `guided_select` for every game), one forward
pass over every game's leaves (`compiled_forward` here, or torch in Python), `leaf_values` (a leaf's
value vector and priors from the network's outputs, rollouts, the heuristic and the rule bot's
prior), `lockstep_backup` (`guided_backup` for every game) and `lockstep_advance` (the schedule:
the root's value, the Gumbel root's sampling and halving, the end of a search). `lockstep_finish`
gives a finished search's root statistics and its move. A game's arrays are its own slice of every
array, so what a game does never depends on the games beside it.

Control columns (ctl[g]): the phase, the simulations left, the root's deciding seat, its legal
actions, the Gumbel root's considered count, budget, phase count, remaining actions, the current
phase's length and position, and this step's chunk.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from v1919_env.core.board import seat_position
from v1919_env.core.layout import NUM_PLAYERS, PENDING_PLAYER, SEATING, SOLO_TARGET, SOLO_VP
from v1919_env.core.step import legal

from .compiled_net import P_TRUNK0, heads
from .guided_kernels import (F_VALUE, F_VISITS, ST_EVAL, guided_backup, guided_select, gumbel_rank, gumbel_root,
                             gumbel_scores, root_children, tree_clear)

PH_IDLE, PH_ROOT, PH_PUCT, PH_GUMBEL, PH_DONE = 0, 1, 2, 3, 4
C_PHASE, C_LEFT, C_SEAT, C_N, C_M, C_BUDGET, C_PHASES, C_R, C_L, C_POS, C_KC, C_GUMBEL = range(12)
CTL_COLS = 12
UNBOUNDED = 1 << 62         # simulations left of a search on a time budget (the driver stops it)
SOLO_WIN_SCALE = 2.0
"""VP: the spread of the logistic that turns an estimated final VP into a chance of reaching the level."""


@njit(cache=True)
def solo_leaf_value(vp, target, value):
    """The solitaire objective (`core.search.solo_value`: half the VP against the level, half the
    win) of a leaf, from the VP scored so far and the value head's estimate of the VP still to come
    (a solitaire network is trained on reward 'vp'). The win is uncertain there, so its half is a
    logistic of the estimated final VP around the level (spread SOLO_WIN_SCALE), not a step. The
    value head predicts the discounted VP (gamma < 1), so the estimate is low late in a long game;
    that only shifts leaves of one search alike."""
    t = max(float(target), 1.0)
    final = float(vp) + max(float(value), 0.0)
    return 0.5 * final / t + 0.5 / (1.0 + np.exp(-(final - t + 0.5) / SOLO_WIN_SCALE))


@njit(cache=True)
def lockstep_begin(slots, n, roots, T, states, NF, NI, hk, meta, ctl, gacts, buf):
    """Start a search in each game slots[i] from states[i]: the root copied, an empty tree, the root's
    legal actions and seat; the first step evaluates the root alone."""
    for i in range(n):
        g = slots[i]
        roots[g, :] = states[i, :]
        tree_clear(NF[g], NI[g], hk[g], meta[g])
        ctl[g, :] = 0
        k = legal(roots[g], T, buf)
        for j in range(k):
            gacts[g, j] = buf[j]
        ctl[g, C_N] = k
        ctl[g, C_SEAT] = roots[g, PENDING_PLAYER]
        ctl[g, C_PHASE] = PH_ROOT


@njit(cache=True)
def lockstep_active(ctl, out):
    """out[:n] = the games searching (phase root, PUCT or Gumbel); returns n."""
    n = 0
    for g in range(ctl.shape[0]):
        ph = ctl[g, C_PHASE]
        if ph == PH_ROOT or ph == PH_PUCT or ph == PH_GUMBEL:
            out[n] = g
            n += 1
    return n


@njit(cache=True)
def lockstep_plan(active, na, ctl, K, gacts, gidx, forced):
    """This step's chunk of each active game (ctl[g, C_KC]) and the root action forced on each of its
    simulations (forced[g, j]; -1: PUCT at the root)."""
    for i in range(na):
        g = active[i]
        ph = ctl[g, C_PHASE]
        if ph == PH_ROOT:
            k = 1
            forced[g, 0] = -1
        elif ph == PH_PUCT:
            k = min(K, ctl[g, C_LEFT])
            for j in range(k):
                forced[g, j] = -1
        else:                  # sequential halving: round robin over the remaining actions, best first
            pos, r = ctl[g, C_POS], ctl[g, C_R]
            k = min(K, ctl[g, C_L] - pos)
            for j in range(k):
                forced[g, j] = gacts[g, gidx[g, (pos + j) % r]]
        ctl[g, C_KC] = k


@njit(cache=True)
def lockstep_select(active, na, ctl, roots, T, NF, NI, hk, hv, meta, c_puct, fpu, vloss, prior_power, rng, nseats,
                    kinds, weights, S, paths, plen, leaf, status, deciders, obs, masks, legal_ids, nlegal, term, buf,
                    policies, max_rollout, R, rollz, heur_scale, heurz, want_bot, botact, forced, obs_mode):
    """`guided_select` for this step's chunk of every active game, on the game's own arrays."""
    for i in range(na):
        g = active[i]
        guided_select(roots[g], T, ctl[g, C_KC], NF[g], NI[g], hk[g], hv[g], meta[g], c_puct, fpu, vloss,
                      prior_power, rng[g], nseats, kinds, weights, S[g], paths[g], plen[g], leaf[g], status[g],
                      deciders[g], obs[g], masks[g], legal_ids[g], nlegal[g], term[g], buf, policies, max_rollout,
                      R[g], rollz[g], heur_scale, heurz[g], want_bot, botact[g], forced[g], obs_mode)


@njit(cache=True, _nrt=False)
def compiled_forward(active, na, ctl, status, obs, legal_ids, nlegal, deciders, rows, W, layers, program, n_in,
                     probs, raw, z, s1, s2, s3, s4, nz):
    """The network (agents/compiled_net.py) on every evaluated leaf of this step: probs[g, k] over the
    legal actions from the decider's row; with `rows` seats the value raw[g, k, p] of seat p from seat
    p's row (the policy head runs for the decider's row alone), with one row (the decider's) the
    value head's outputs raw[g, k, :] for every relative seat. Returns the rows evaluated."""
    start = program[P_TRUNK0]
    rows_done = 0
    for i in range(na):
        g = active[i]
        for k in range(ctl[g, C_KC]):
            if status[g, k] != ST_EVAL:
                continue
            d = deciders[g, k] if rows > 1 else 0
            for p in range(rows):
                heads(obs[g, k, p], n_in, start, W, layers, program, p == d, legal_ids[g, k], nlegal[g, k],
                      probs[g, k], z, s1, s2, s3, s4, nz, raw[g, k, p:] if rows > 1 else raw[g, k])
            rows_done += rows
    return rows_done


@njit(cache=True)
def leaf_values(active, na, ctl, status, term, raw, relative, nseats, solo, S, deciders, w_roll, w_heur, rollz,
                heurz, bot_prior, botact, probs, legal_ids, nlegal, values):
    """values[g, k] (one per seat) of this step's simulations: a finished game's exact values, else
    the network's (raw[g, k, p] for seat p; with `relative` raw[g, k, r] is for the seat r places
    clockwise of the decider, as the observation orders seats; the solitaire objective of its VP
    estimate in the solitaire game), mixed with the
    rollout's and the heuristic's by their weights; with bot_prior > 0 that share of an evaluated
    leaf's prior goes to the rule bot's choice."""
    for i in range(na):
        g = active[i]
        for k in range(ctl[g, C_KC]):
            if status[g, k] != ST_EVAL:
                values[g, k, :] = term[g, k, :]
                continue
            values[g, k, :] = 0.0
            if solo:
                values[g, k, 0] = solo_leaf_value(S[g, k, SOLO_VP], S[g, k, SOLO_TARGET], raw[g, k, 0])
            elif relative:
                s = S[g, k]
                n = s[NUM_PLAYERS]
                me = seat_position(s, deciders[g, k])
                for r in range(nseats):
                    values[g, k, s[SEATING + (me + r) % n]] = raw[g, k, r]
            else:
                for p in range(nseats):
                    values[g, k, p] = raw[g, k, p]
            if w_roll > 0.0 or w_heur > 0.0:
                for p in range(values.shape[2]):
                    values[g, k, p] = ((1.0 - w_roll - w_heur) * values[g, k, p] + w_roll * rollz[g, k, p]
                                       + w_heur * heurz[g, k, p])
            if bot_prior > 0.0:
                for j in range(nlegal[g, k]):
                    a = legal_ids[g, k, j]
                    probs[g, k, a] = probs[g, k, a] * (1.0 - bot_prior)
                b = botact[g, k]
                probs[g, k, b] = probs[g, k, b] + bot_prior


@njit(cache=True)
def lockstep_backup(active, na, ctl, NF, NI, hk, hv, meta, paths, plen, leaf, status, values, probs, deciders,
                    legal_ids, nlegal):
    """`guided_backup` of this step's chunk of every active game."""
    for i in range(na):
        g = active[i]
        guided_backup(ctl[g, C_KC], NF[g], NI[g], hk[g], hv[g], meta[g], paths[g], plen[g], leaf[g], status[g],
                      values[g], probs[g], deciders[g], legal_ids[g], nlegal[g])


@njit(cache=True)
def _start_phase(ctl, g):
    """The next sequential-halving phase: each remaining action gets max(1, budget // (phases x
    remaining)) simulations, at most the simulations left."""
    r = ctl[g, C_R]
    v = max(1, ctl[g, C_BUDGET] // (ctl[g, C_PHASES] * r))
    ctl[g, C_L] = min(r * v, ctl[g, C_LEFT])
    ctl[g, C_POS] = 0
    ctl[g, C_PHASE] = PH_GUMBEL


@njit(cache=True)
def lockstep_advance(active, na, ctl, NF, hk, hv, gacts, glogits, ggumbel, gidx, gscore, gcons, root_value,
                     iterations, gumbel, considered, prior_power, gscale, c_visit, c_scale, rng):
    """After a step's backup: the root's value once it is evaluated and the start of the PUCT or the
    Gumbel schedule (Gumbel-top-k of the root actions, agents/guided_kernels.py), then the simulations
    left and the halving after each phase; a search whose budget is spent is PH_DONE. iterations < 0:
    a time budget (the driver ends the search)."""
    for i in range(na):
        g = active[i]
        ph = ctl[g, C_PHASE]
        seat = ctl[g, C_SEAT]
        if ph == PH_ROOT:
            root_value[g] = NF[g, 0, F_VALUE + seat] / max(1.0, NF[g, 0, F_VISITS])
            n = ctl[g, C_N]
            if gumbel and n > 1:
                gumbel_root(NF[g], hk[g], hv[g], gacts[g], n, prior_power, gscale, rng[g], glogits[g], ggumbel[g])
                for j in range(n):
                    gidx[g, j] = j
                    gscore[g, j] = ggumbel[g, j] + glogits[g, j]
                gumbel_rank(gidx[g], n, gscore[g])
                m = min(considered, n)
                for j in range(m):
                    gcons[g, j] = gidx[g, j]
                ctl[g, C_GUMBEL] = 1
                ctl[g, C_M] = m
                ctl[g, C_BUDGET] = iterations - 1
                ctl[g, C_LEFT] = iterations - 1
                ctl[g, C_PHASES] = max(1, int(np.ceil(np.log2(m)))) if m > 1 else 1
                ctl[g, C_R] = m
                if ctl[g, C_LEFT] > 0:
                    _start_phase(ctl, g)
                else:
                    ctl[g, C_PHASE] = PH_DONE
            else:
                ctl[g, C_LEFT] = UNBOUNDED if iterations < 0 else iterations - 1
                ctl[g, C_PHASE] = PH_PUCT if ctl[g, C_LEFT] > 0 else PH_DONE
        elif ph == PH_PUCT:
            ctl[g, C_LEFT] -= ctl[g, C_KC]
            if ctl[g, C_LEFT] <= 0:
                ctl[g, C_PHASE] = PH_DONE
        elif ph == PH_GUMBEL:
            ctl[g, C_POS] += ctl[g, C_KC]
            if ctl[g, C_POS] >= ctl[g, C_L]:
                ctl[g, C_LEFT] -= ctl[g, C_L]
                r = ctl[g, C_R]
                gumbel_scores(NF[g], hk[g], hv[g], gacts[g], ctl[g, C_N], gidx[g], r, seat, glogits[g], ggumbel[g],
                              c_visit, c_scale, gscore[g])
                gumbel_rank(gidx[g], r, gscore[g])
                ctl[g, C_R] = min(r, max(2, r // 2))
                if ctl[g, C_LEFT] > 0:
                    _start_phase(ctl, g)
                else:
                    ctl[g, C_PHASE] = PH_DONE


@njit(cache=True)
def lockstep_finish(g, ctl, NF, hk, hv, gacts, glogits, ggumbel, gcons, c_visit, c_scale, stats, fscore):
    """A finished search of game g: stats[:n] = (visits, prior, mean value for the deciding seat) of
    each legal root action, and the index of the move: among the Gumbel root's considered actions the
    most visited, ties by the final score g + logits + sigma(q) (fscore[:m]) then the first considered;
    under PUCT the most visited, ties by mean value, prior, then the first legal."""
    n, seat = ctl[g, C_N], ctl[g, C_SEAT]
    root_children(NF[g], hk[g], hv[g], gacts[g], n, seat, stats)
    if ctl[g, C_GUMBEL] != 0:
        m = ctl[g, C_M]
        gumbel_scores(NF[g], hk[g], hv[g], gacts[g], n, gcons[g], m, seat, glogits[g], ggumbel[g], c_visit, c_scale,
                      fscore)
        best = 0
        for i in range(1, m):
            a, b = gcons[g, i], gcons[g, best]
            if stats[a, 0] > stats[b, 0] or (stats[a, 0] == stats[b, 0] and fscore[i] > fscore[best]):
                best = i
        return gcons[g, best]
    best = 0
    for j in range(1, n):
        for c in (0, 2, 1):
            if stats[j, c] != stats[best, c]:
                if stats[j, c] > stats[best, c]:
                    best = j
                break
    return best
