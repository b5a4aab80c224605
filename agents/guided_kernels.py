"""Compiled kernels of the `guided` agent (agents/guided.py): the tree, PUCT selection with virtual
loss over determinized copies, and the backup of per-seat value vectors.

One search batch is two compiled calls around one network forward pass in Python:

1. `guided_select` runs K simulations: each copies the root, determinizes it
   (`v1919_env.core.tree.determinize`, as ismcts does: deck orders and the dice generator
   resampled from what every player sees, so later dice and draws come from the copy's own
   generator), descends by PUCT among the children legal in this copy, and stops at the first
   node not yet expanded (its observation from every seat's point of view and the decider's mask
   are written out for the network) or at the end of the game (the exact terminal reward of every
   seat is written out); each node on the way gets one pending visit, which lowers its exploration
   term (and with a virtual loss its value) for the next simulations of the batch, so that they
   spread out.
2. Python evaluates all leaves of the batch in one forward pass (priors from the decider's row,
   values from every seat's row).
3. `guided_backup` expands each evaluated leaf (one child per legal action, holding its prior),
   removes the pending visits and adds the value vector to every node on the path.

The Gumbel root (`root=gumbel`, Danihelka et al. 2022, "Policy improvement by planning with
Gumbel"): `gumbel_root` draws a Gumbel(0, 1) variable g(a) per legal root action from the search's
own generator and gives the root logits (log prior); `gumbel_rank` orders actions by a score, so the
m actions with the highest g + logits are a sample without replacement from the prior (Gumbel-top-k);
sequential halving then forces the root action of each simulation (`guided_select`'s `forced`), and
after each phase `gumbel_scores` (g + logits + sigma(q), sigma(q) = (c_visit + max visits) x c_scale
x q) and `gumbel_rank` keep the better half. Below the root the tree is the PUCT tree.

Tree layout (flat arrays): node 0 is the root; a child is found by (parent, action) in the
open-addressing hash table of v1919_env/core/tree.py (`tree_find`, `tree_insert`: the index and
the node allocation, shared with the ismcts tree; meta[M_NODES] counts the nodes). NF[node] =
(visits, prior, pending visits, value sum of seat 0 .. MAX_PLAYERS-1); NI[node] = (seat that
chose it, its action, expanded flag). Nodes are keyed by the action history, which is public: one
node stands for an information set (single-observer ISMCTS); the legal actions of a node may
differ between determinizations, so selection only considers the children legal in the current
copy and renormalizes their priors; a legal action with no child (not legal when the node was
expanded) gets one with prior 1/n.

This module lives outside v1919_env/core/ (the core's cache folder is keyed by the core's sources,
so a new core recompiles these kernels too); what both searches share (the determinization and the
tree's index) is core/tree.py, below both.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from v1919_env.core.botrules import policy_below
from v1919_env.core.bots import bot_action, rollout
from v1919_env.core.layout import GAME_OVER, MAX_PLAYERS, MODE, MODE_SOLO, PENDING_PLAYER
from v1919_env.core.observations import COMPACT, COMPACT_SIZE, FULL, observe_and_mask_as
from v1919_env.core.observe import OBS_SIZE
from v1919_env.core.scoring import N_SCORE_COLS, SCORE_TABLE_COLS, score_table
from v1919_env.core.search import evaluate, finish_replies, solo_value
from v1919_env.core.step import apply_action, legal
from v1919_env.core.tree import TREE_NODES, copy_state, determinize, tree_find, tree_insert, tree_room, tree_start
from v1919_env.envs.vector_kernels import terminal_reward, write_solo_features

# NF columns (float64)
F_VISITS, F_PRIOR, F_PENDING, F_VALUE = 0, 1, 2, 3
NF_COLS = F_VALUE + MAX_PLAYERS
# NI columns (int64); I_KID0, I_NKIDS: the block of consecutive children the node's expansion made
# (one a legal action, in their order; 0 children when the tree ran out of room during it)
I_SEAT, I_ACTION, I_EXPANDED, I_KID0, I_NKIDS = 0, 1, 2, 3, 4
NI_COLS = 5
# leaf status written by guided_select
ST_EVAL, ST_TERMINAL = 0, 1
# what guided_select writes for the network at an evaluated leaf
OBS_SEATS, OBS_DECIDER, OBS_COMPACT = 0, 1, 2
"""Every seat's observation and mask (networks whose value head values the row's own seat), or the
deciding seat's alone in row 0 (networks that value every seat from the decider's row); with the
OBS_COMPACT bit set, in the compact layout (core/observe_compact.py)."""
# meta entries
M_NODES, M_SIMULATIONS, M_FULL = TREE_NODES, 1, 2
META_SIZE = 3


@njit(cache=True)
def tree_clear(NF, NI, hk, meta):
    """An empty tree holding only the root (node 0, not expanded)."""
    tree_start(hk, meta)
    NF[0, :] = 0.0
    NI[0, I_SEAT] = -1
    NI[0, I_ACTION] = -1
    NI[0, I_EXPANDED] = 0
    NI[0, I_NKIDS] = 0
    meta[M_SIMULATIONS] = 0
    meta[M_FULL] = 0


child_of = tree_find     # the child of node reached by action a, or -1 (core/tree.py's hash table)


@njit(cache=True)
def add_child(NF, NI, hk, hv, meta, node, a, seat, prior):
    """A new child of node for action a chosen by seat, with its prior; -1 when the tree is full."""
    c = tree_insert(hk, hv, meta, NF.shape[0], node, a)
    if c < 0:
        meta[M_FULL] += 1
        return -1
    NF[c, :] = 0.0
    NF[c, F_PRIOR] = prior
    NI[c, I_SEAT] = seat
    NI[c, I_ACTION] = a
    NI[c, I_EXPANDED] = 0
    NI[c, I_NKIDS] = 0
    return c


@njit(cache=True)
def puct_choose(NF, NI, hk, hv, meta, node, seat, acts, n, c_puct, fpu, vloss, prior_power, kids):
    """(child, action) maximizing Q + U over the n legal actions of this copy at node, from the
    deciding seat's values. Q: the child's mean value for that seat; an unvisited child's is the
    node's own mean for the seat minus `fpu`; a child's pending visits (simulations of this batch
    still to be backed up) count as visits at that Q minus `vloss` (virtual loss; 0: they only
    lower U). U = c_puct * P * sqrt(1 + sum of the legal children's visits, pending included) /
    (1 + the child's visits, pending included), P the prior ** prior_power renormalized over the
    legal children. A legal action without a child gets one (prior 1/n). (-1, -1) when there is
    none (the tree is full). kids: scratch of at least n (the children found, looked up once)."""
    psum = 0.0
    total = 0.0
    k0, nk = NI[node, I_KID0], NI[node, I_NKIDS]
    for j in range(n):
        if j < nk and NI[k0 + j, I_ACTION] == acts[j]:    # the expansion's child for this action
            c = k0 + j
        else:
            c = child_of(hk, hv, node, acts[j])
        if c < 0:
            c = add_child(NF, NI, hk, hv, meta, node, acts[j], seat, 1.0 / n)
        kids[j] = c
        if c >= 0:
            psum += NF[c, F_PRIOR] if prior_power == 1.0 else NF[c, F_PRIOR] ** prior_power
            total += NF[c, F_VISITS] + NF[c, F_PENDING]
    if NF[node, F_VISITS] > 0.0:
        q0 = NF[node, F_VALUE + seat] / NF[node, F_VISITS] - fpu
    else:
        q0 = -fpu
    sq = np.sqrt(total + 1.0)
    if psum <= 0.0:
        psum = 1.0
    best, best_c, best_a = -1e300, -1, -1
    for j in range(n):
        c = kids[j]
        if c < 0:
            continue
        nv = NF[c, F_VISITS]
        pend = NF[c, F_PENDING]
        q = NF[c, F_VALUE + seat] / nv if nv > 0.0 else q0
        if pend > 0.0:
            q = (q * nv + pend * (q - vloss)) / (nv + pend)
        prior = NF[c, F_PRIOR] if prior_power == 1.0 else NF[c, F_PRIOR] ** prior_power
        sc = q + c_puct * (prior / psum) * sq / (1.0 + nv + pend)
        if sc > best:
            best, best_c, best_a = sc, c, acts[j]
    return best_c, best_a


@njit(cache=True)
def end_values(s, T, nseats, kinds, weights, sc, out):
    """out[p] = the value of finished game s for seat p: in the solitaire game out[0] is
    `core.search.solo_value` (as for ismcts), else the terminal reward of v1919_env.rewards weighted
    by kinds/weights (0 for seats >= nseats)."""
    if s[MODE] == MODE_SOLO:                       # the solitaire objective: VP and the win at the level
        out[:] = 0.0
        out[0] = solo_value(s)
        return
    win = score_table(s, T, sc)
    for p in range(MAX_PLAYERS):
        out[p] = terminal_reward(s, p, kinds, weights, sc, win) if p < nseats else 0.0


@njit(cache=True)
def heuristic_values(r, T, nseats, kinds, weights, scale, buf, rng, sc, fs, out):
    """out[p] = greedy's evaluation of position r for seat p, as a value: r is first played on by the
    rule bot (in place) until a turn decision comes up or the game ends, as greedy finishes the
    replies of an action (`core.search.finish_replies`, here for no seat in particular); a finished game is
    valued by `end_values`, else out[p] = tanh(d / scale) with d seat p's victory-point estimate
    minus the best other seat's (`core.search.evaluate`, what greedy maximizes)."""
    finish_replies(r, T, -1, buf, rng)
    if r[GAME_OVER] != 0:
        end_values(r, T, nseats, kinds, weights, sc, out)
        return
    for p in range(MAX_PLAYERS):
        out[p] = np.tanh(evaluate(r, T, p, fs) / scale) if p < nseats else 0.0


@njit(cache=True)
def guided_select(root, T, K, NF, NI, hk, hv, meta, c_puct, fpu, vloss, prior_power, rng, nseats, kinds, weights,
                  S, paths, plen, leaf, status, deciders, obs, masks, legal_ids, nlegal, term, buf,
                  policies, max_rollout, R, rollz, heur_scale, heurz, want_bot, botact, forced, obs_mode):
    """K simulations from the root position (never modified), each on its own determinized copy
    S[k]: descend by `puct_choose` (decisions with one legal action are stepped through without a
    node) to the first unexpanded node (status ST_EVAL: obs[k, p] and masks[k, p] the observation and
    mask of every seat p < nseats, legal_ids[k, :nlegal[k]] the legal actions) or to the end of the
    game (ST_TERMINAL: term[k, p] the terminal reward of seat p, v1919_env.rewards weighted by
    kinds/weights; in the solitaire game term[k, 0] is `core.search.solo_value`, as for ismcts).
    With obs_mode OBS_DECIDER only the deciding seat's observation and mask are written, in
    obs[k, 0] and masks[k, 0]. deciders[k] is the seat deciding at an ST_EVAL leaf. paths[k, :plen[k]] are the nodes passed (each
    now has one more pending visit), leaf[k] the last one. With max_rollout > 0 an ST_EVAL leaf is
    also played out on a copy (R[k]) by `policies` (core.bots.rollout, per seat) for at most
    max_rollout decisions, and rollz[k, p] is that game's value for seat p (`end_values`; a rollout
    cut before the end is scored as it stands). With heur_scale > 0 the copy is first valued by
    `heuristic_values` (heurz[k]), and a rollout goes on from where that stopped. With want_bot,
    botact[k] is the rule bot's choice at an ST_EVAL leaf (for a prior that favours it). forced[k] >= 0
    is the root action simulation k takes (the Gumbel root's sequential halving) when the root is
    expanded and it is legal in the copy; -1: PUCT at the root too."""
    sc = np.zeros((MAX_PLAYERS, SCORE_TABLE_COLS), np.int64)
    fs = np.zeros((MAX_PLAYERS, N_SCORE_COLS), np.int64)
    kids = np.empty(buf.shape[0], np.int64)
    maxd = paths.shape[1]
    for k in range(K):
        s = S[k]
        copy_state(s, root)
        determinize(s, T, rng)
        node = 0
        depth = 0
        while True:
            if s[GAME_OVER] != 0:
                status[k] = ST_TERMINAL
                end_values(s, T, nseats, kinds, weights, sc, term[k])
                break
            n = legal(s, T, buf)
            if n == 1:
                apply_action(s, T, buf[0])
                continue
            c, a = -1, -1
            if NI[node, I_EXPANDED] != 0 and depth < maxd:
                f = forced[k] if node == 0 and depth == 0 else -1
                if f >= 0:
                    ok = False
                    for j in range(n):
                        if buf[j] == f:
                            ok = True
                    if ok:
                        c = child_of(hk, hv, 0, f)
                        if c < 0:
                            c = add_child(NF, NI, hk, hv, meta, 0, f, s[PENDING_PLAYER], 1.0 / n)
                        a = f if c >= 0 else -1
                    else:
                        f = -1
                if f < 0:
                    c, a = puct_choose(NF, NI, hk, hv, meta, node, s[PENDING_PLAYER], buf, n, c_puct, fpu, vloss,
                                       prior_power, kids)
            if c < 0:
                status[k] = ST_EVAL
                deciders[k] = s[PENDING_PLAYER]
                nlegal[k] = n
                for j in range(n):
                    legal_ids[k, j] = buf[j]
                decider_only = (obs_mode & OBS_DECIDER) != 0
                layout = COMPACT if (obs_mode & OBS_COMPACT) != 0 else FULL
                size = COMPACT_SIZE if layout == COMPACT else OBS_SIZE
                for p in range(1 if decider_only else nseats):
                    who = s[PENDING_PLAYER] if decider_only else p
                    observe_and_mask_as(s, T, who, obs[k, p, :size], masks[k, p], buf, layout)
                    if obs.shape[2] > size:        # a solitaire network also reads the solitaire features
                        write_solo_features(s, T, obs[k, p, size:])
                if want_bot:
                    botact[k] = bot_action(s, T, buf, rng)
                r = R[k]
                if heur_scale > 0.0 or max_rollout > 0:
                    copy_state(r, s)
                if heur_scale > 0.0:
                    heuristic_values(r, T, nseats, kinds, weights, heur_scale, buf, rng, sc, fs, heurz[k])
                if max_rollout > 0:
                    rollout(r, T, policies, buf, rng, max_rollout)
                    end_values(r, T, nseats, kinds, weights, sc, rollz[k])
                break
            NF[c, F_PENDING] += 1.0
            paths[k, depth] = c
            depth += 1
            apply_action(s, T, a)
            node = c
        leaf[k] = node
        plen[k] = depth


@njit(cache=True)
def guided_backup(K, NF, NI, hk, hv, meta, paths, plen, leaf, status, values, probs, deciders, legal_ids, nlegal):
    """Expand each evaluated leaf not yet expanded (a child per legal action of its copy, the prior
    probs[k, a] renormalized over them; nothing when the tree has no room for all), then take the
    pending visits off the path and add values[k] (one value per seat) to every node on it and the root."""
    for k in range(K):
        node = leaf[k]
        if status[k] == ST_EVAL and NI[node, I_EXPANDED] == 0:
            n = nlegal[k]
            if tree_room(hk, meta, NF.shape[0], n):
                tot = 0.0
                for j in range(n):
                    tot += probs[k, legal_ids[k, j]]
                k0, made = meta[M_NODES], 0
                for j in range(n):
                    a = legal_ids[k, j]
                    p = probs[k, a] / tot if tot > 0.0 else 1.0 / n
                    # (no lookup first: children are made only under expanded nodes, so this one has none)
                    if add_child(NF, NI, hk, hv, meta, node, a, deciders[k], p) >= 0:
                        made += 1
                NI[node, I_EXPANDED] = 1
                NI[node, I_KID0] = k0
                NI[node, I_NKIDS] = n if made == n and meta[M_NODES] == k0 + n else 0
            else:
                meta[M_FULL] += 1
        for d in range(plen[k]):
            c = paths[k, d]
            NF[c, F_VISITS] += 1.0
            NF[c, F_PENDING] -= 1.0
            for p in range(MAX_PLAYERS):
                NF[c, F_VALUE + p] += values[k, p]
        NF[0, F_VISITS] += 1.0
        for p in range(MAX_PLAYERS):
            NF[0, F_VALUE + p] += values[k, p]
        meta[M_SIMULATIONS] += 1


@njit(cache=True)
def root_children(NF, hk, hv, actions, n, seat, out):
    """out[j] = (visits, prior, mean value for seat) of the root child for actions[j] (zeros if none)."""
    for j in range(n):
        c = child_of(hk, hv, 0, actions[j])
        if c < 0:
            out[j, 0] = 0.0
            out[j, 1] = 0.0
            out[j, 2] = 0.0
        else:
            out[j, 0] = NF[c, F_VISITS]
            out[j, 1] = NF[c, F_PRIOR]
            out[j, 2] = NF[c, F_VALUE + seat] / NF[c, F_VISITS] if NF[c, F_VISITS] > 0.0 else 0.0


# ----------------------------------------------------------------------------- the Gumbel root
@njit(cache=True)
def gumbel_root(NF, hk, hv, actions, n, prior_power, gscale, rng, logits, gumbel):
    """For the n legal root actions: logits[j] = log of the root child's prior ** prior_power,
    renormalized over them (a missing child counts 1/n); gumbel[j] = gscale x a Gumbel(0, 1)
    variable from the search's generator rng (-log(-log(u)), u uniform in (0, 1))."""
    psum = 0.0
    for j in range(n):
        c = child_of(hk, hv, 0, actions[j])
        p = NF[c, F_PRIOR] if c >= 0 else 1.0 / n
        logits[j] = p ** prior_power
        psum += logits[j]
    if psum <= 0.0:
        psum = 1.0
    for j in range(n):
        logits[j] = np.log(max(logits[j] / psum, 1e-30))
        u = (policy_below(rng, 1 << 30) + 0.5) / float(1 << 30)
        gumbel[j] = gscale * -np.log(-np.log(u))


@njit(cache=True)
def gumbel_scores(NF, hk, hv, actions, n, idx, r, seat, logits, gumbel, c_visit, c_scale, out):
    """out[i] = gumbel + logits + sigma(q) of root action actions[idx[i]], i < r: q its child's mean
    value for seat (unvisited: the root's mean value), sigma(q) = (c_visit + the most visits of a
    root child among the n legal actions) x c_scale x q."""
    maxv = 0.0
    for j in range(n):
        c = child_of(hk, hv, 0, actions[j])
        if c >= 0 and NF[c, F_VISITS] > maxv:
            maxv = NF[c, F_VISITS]
    v0 = NF[0, F_VALUE + seat] / NF[0, F_VISITS] if NF[0, F_VISITS] > 0.0 else 0.0
    for i in range(r):
        j = idx[i]
        c = child_of(hk, hv, 0, actions[j])
        q = NF[c, F_VALUE + seat] / NF[c, F_VISITS] if c >= 0 and NF[c, F_VISITS] > 0.0 else v0
        out[i] = gumbel[j] + logits[j] + (c_visit + maxv) * c_scale * q


@njit(cache=True)
def gumbel_rank(idx, r, score):
    """Order idx[:r] (and score[:r] with it) by score, highest first; ties keep their order."""
    for i in range(1, r):
        x, y = idx[i], score[i]
        k = i - 1
        while k >= 0 and score[k] < y:
            idx[k + 1] = idx[k]
            score[k + 1] = score[k]
            k -= 1
        idx[k + 1] = x
        score[k + 1] = y
