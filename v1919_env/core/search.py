"""Search kernels for the `greedy` and `ismcts` agents: the ismcts tree's node statistics, the UCT
selection rule, the information-set MCTS iteration loop and a one-ply lookahead.

Each part is a separate compiled function so it can be swapped and tested alone:
- `determinize(s, T, rng)` (core/tree.py, shared with the `guided` search): hidden information
  resampled in place, from a canonical order;
- the tree: the index of nodes by (parent, action id), an open-addressing hash table, is core/tree.py's
  (`tree_find`, `tree_insert`, shared with `guided`); here `tree_reset` and `tree_add` keep per node
  visits, availability (SO-ISMCTS: how often the action was legal when its parent was reached) and
  the reward sum of the seat that chose it;
- `uct_score`: the selection rule;
- `rollout` (core/bots.py): random or rule-bot play to the end;
- `ismcts_iterate`: determinize, descend, expand one node, roll out, back up.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .bots import bot_action, piv, policy_below, rollout
from .layout import (D_PLACE2, D_TURN, GAME_OVER, INF_AVAIL, MAX_PLAYERS, MIL_AVAIL, MODE, MODE_SOLO, N_SLOTS,
                     NUM_PLAYERS, PENDING, PENDING_PLAYER, SLOT_ISSUE, SOLO_TARGET, SOLO_VP)
from .board import n_players, slot_leader, slot_total
from .scoring import N_SCORE_COLS, SC_TOTAL, final_scores, winners
from .step import apply_action, legal
from .tree import copy_state, determinize, tree_find, tree_insert, tree_start

# tree arrays: F[node] = (visits, availability, reward sum); I[node] = (seat that chose, action)
TF_VISITS, TF_AVAIL, TF_REWARD = 0, 1, 2
TI_SEAT, TI_ACTION = 0, 1
MAX_PATH = 4096

# greedy evaluation weights (docs/agents.md)
W_LEAD = 0.5               # share of the PIV of an issue the seat now leads (table or waiting room)
W_INFLUENCE = 0.15         # per available influence cube
W_UNIT = 0.5               # per available military unit


# ----------------------------------------------------------------------------- the tree
@njit(cache=True)
def tree_reset(TF, TI, hk, meta):
    """An empty tree holding only the root (node 0)."""
    tree_start(hk, meta)   # meta[0]: nodes in use
    TF[0, :] = 0.0
    TI[0, TI_SEAT] = -1
    TI[0, TI_ACTION] = -1
    meta[1] = 0        # iterations run


@njit(cache=True)
def tree_add(TF, TI, hk, hv, meta, node, a, seat):
    """New child of node for action a chosen by seat; -1 when the tree is full."""
    c = tree_insert(hk, hv, meta, TF.shape[0], node, a)
    if c < 0:
        return -1
    TF[c, :] = 0.0
    TI[c, TI_SEAT] = seat
    TI[c, TI_ACTION] = a
    return c


@njit(cache=True)
def uct_score(TF, c, explore):
    """UCB1 with the availability count in place of the parent's visits (SO-ISMCTS)."""
    v = TF[c, TF_VISITS]
    if v <= 0.0:
        return 1e30
    return TF[c, TF_REWARD] / v + explore * np.sqrt(np.log(max(TF[c, TF_AVAIL], 1.0)) / v)


@njit(cache=True)
def solo_value(s):
    """The solitaire player's result in [0, 1] and a little beyond: half for its VP against the level,
    half for winning (EN:959: the player wins with target_vp or more; more VP still beat a high
    score, EN:838). In the solitaire game `winners` always names the one player, so a win share
    would tell a search nothing."""
    vp, target = s[SOLO_VP], max(1, s[SOLO_TARGET])
    return 0.5 * vp / target + (0.5 if vp >= target else 0.0)


@njit(cache=True)
def outcome_rewards(s, T, out, r):
    """r[p] = p's share of the win (1/k for each of k tied winners, 0 for the others); in the
    solitaire game r[0] = solo_value (the player's VP and the win at the level)."""
    if s[MODE] == MODE_SOLO:
        for p in range(MAX_PLAYERS):
            r[p] = 0.0
        r[0] = solo_value(s)
        return
    final_scores(s, T, out)
    w = winners(s, T, out)
    k = 0
    for p in range(s[NUM_PLAYERS]):
        k += (w >> p) & 1
    for p in range(MAX_PLAYERS):
        r[p] = (1.0 / k) if (p < s[NUM_PLAYERS] and (w >> p) & 1 and k > 0) else 0.0


# ----------------------------------------------------------------------------- ISMCTS
@njit(cache=True)
def widening_limit(visits, widen):
    """Children a node may have after `visits` visits (progressive widening: 1 + widen * sqrt(visits));
    unlimited when widen <= 0."""
    if widen <= 0.0:
        return 1 << 30
    return 1 + np.int64(widen * np.sqrt(visits))


@njit(cache=True)
def ismcts_iterate(root, T, iters, TF, TI, hk, hv, meta, explore, widen, policies, max_rollout, rng, s, buf, buf2,
                   path):
    """Run `iters` iterations from the root position (never modified): each determinizes a copy,
    descends by UCT over the legal actions, adds one node, finishes with the compiled rollout of
    `policies` (per seat: random or rule bot) and backs the win shares up. A node gains a child
    only while it has fewer than widening_limit(its visits) children among the legal actions; the
    rule bot's choice is tried first, then untried actions at random. Decisions with one legal
    action are stepped through without a node. Returns the iterations run."""
    out = np.zeros((MAX_PLAYERS, N_SCORE_COLS), np.int64)
    r = np.zeros(MAX_PLAYERS, np.float64)
    for _ in range(iters):
        copy_state(s, root)
        determinize(s, T, rng)
        node = 0
        depth = 0
        expanded = False
        while s[GAME_OVER] == 0 and not expanded and depth < MAX_PATH:
            n = legal(s, T, buf)
            if n == 1:
                apply_action(s, T, buf[0])
                continue
            seat = s[PENDING_PLAYER]
            untried = 0
            best, best_c, best_a = -1e300, -1, -1
            for j in range(n):
                c = tree_find(hk, hv, node, buf[j])
                if c < 0:
                    untried += 1
                else:
                    TF[c, TF_AVAIL] += 1.0
                    sc = uct_score(TF, c, explore)
                    if sc > best:
                        best, best_c, best_a = sc, c, buf[j]
            if untried > 0 and n - untried < widening_limit(TF[node, TF_VISITS], widen):
                a = bot_action(s, T, buf2, rng)
                if tree_find(hk, hv, node, a) >= 0:
                    k = policy_below(rng, untried)
                    for j in range(n):
                        if tree_find(hk, hv, node, buf[j]) < 0:
                            if k == 0:
                                a = buf[j]
                                break
                            k -= 1
                c = tree_add(TF, TI, hk, hv, meta, node, a, seat)
                if c < 0:
                    break                     # the tree is full: roll out from here
                TF[c, TF_AVAIL] = 1.0
                apply_action(s, T, a)
                path[depth] = c
                depth += 1
                expanded = True
            elif best_c >= 0:
                apply_action(s, T, best_a)
                path[depth] = best_c
                depth += 1
                node = best_c
            else:
                break
        rollout(s, T, policies, buf, rng, max_rollout)
        outcome_rewards(s, T, out, r)
        for d in range(depth):
            c = path[d]
            TF[c, TF_VISITS] += 1.0
            TF[c, TF_REWARD] += r[TI[c, TI_SEAT]]
        TF[0, TF_VISITS] += 1.0
        meta[1] += 1
    return iters


@njit(cache=True)
def root_child_stats(TF, hk, hv, actions, n, out):
    """out[j] = (visits, mean reward) of the root child for actions[j] (0, 0 if never tried)."""
    for j in range(n):
        c = tree_find(hk, hv, 0, actions[j])
        if c < 0:
            out[j, 0] = 0.0
            out[j, 1] = 0.0
        else:
            out[j, 0] = TF[c, TF_VISITS]
            out[j, 1] = TF[c, TF_REWARD] / max(TF[c, TF_VISITS], 1.0)


# ----------------------------------------------------------------------------- greedy one-ply lookahead
@njit(cache=True)
def vp_estimate(s, T, q, out):
    """Victory-point estimate of seat q (out: final_scores of s, already filled): its current final
    score (issues, own-flag counters, strategy card, happiness standing), W_LEAD x the PIV of each
    issue in a slot it leads, W_INFLUENCE per available cube, W_UNIT per available unit."""
    v = float(out[q, SC_TOTAL])
    for sl in range(N_SLOTS):
        if s[SLOT_ISSUE + sl] >= 0 and slot_total(s, sl) > 0 and slot_leader(s, sl) == q:
            v += W_LEAD * piv(s, T, q, s[SLOT_ISSUE + sl])
    v += W_INFLUENCE * s[INF_AVAIL + q] + W_UNIT * s[MIL_AVAIL + q]
    return v


@njit(cache=True)
def evaluate(s, T, p, out):
    """Greedy evaluation for seat p: its VP estimate minus the best other seat's."""
    final_scores(s, T, out)
    mine = vp_estimate(s, T, p, out)
    best = -1e300
    for q in range(n_players(s)):          # the 2-player USA cannot win (EN:829)
        if q != p:
            v = vp_estimate(s, T, q, out)
            if v > best:
                best = v
    return mine - best


@njit(cache=True)
def finish_replies(s, T, p, buf, rng):
    """Play the other seats' decisions by the rule bot until p must decide again, a turn decision
    comes up or the game ends (the replies inside the procedure an action starts: bids, uprising
    and event choices)."""
    while s[GAME_OVER] == 0 and s[PENDING_PLAYER] != p and s[PENDING] != D_TURN and s[PENDING] != D_PLACE2:
        apply_action(s, T, bot_action(s, T, buf, rng))


@njit(cache=True)
def greedy_action(root, T, samples, rng, s, acts, buf):
    """One-ply lookahead for the seat to decide: every legal action is applied to `samples`
    determinized copies (the chance it triggers is sampled, never read from the real game), the
    other seats' replies inside the procedure it starts are played by the rule bot
    (`finish_replies`), and the position is scored by `evaluate`; the best mean wins; among equal
    means the rule bot's choice, else one drawn with rng. Returns the action id."""
    n = legal(root, T, acts)
    if n <= 1:
        return acts[0] if n == 1 else -1
    p = root[PENDING_PLAYER]
    prior = bot_action(root, T, buf, rng)
    out = np.zeros((MAX_PLAYERS, N_SCORE_COLS), np.int64)
    best, best_a, ties = -1e300, acts[0], 0
    for j in range(n):
        tot = 0.0
        for _ in range(samples):
            copy_state(s, root)
            determinize(s, T, rng)
            apply_action(s, T, acts[j])
            finish_replies(s, T, p, buf, rng)
            tot += evaluate(s, T, p, out)
        v = tot / samples
        if v > best + 1e-9:
            best, best_a, ties = v, acts[j], 1
        elif v > best - 1e-9 and best_a != prior:
            ties += 1
            if acts[j] == prior or policy_below(rng, ties) == 0:
                best_a = acts[j]
    return best_a
