"""What the two tree searches share, `ismcts` (core/search.py) and `guided` (agents/guided_kernels.py):
the determinization of the hidden information and the flat-array search tree's index.

- `determinize(s, T, rng)`: hidden information resampled in place (the compiled counterpart of
  `Game.determinize`, with the same constraints), from a canonical order so that the result does
  not depend on the hidden order it replaces (`canonical_shuffle`). greedy, the solitaire
  evaluation and `Game.determinize` use it too.
- The tree: node 0 is the root; node statistics are rows of arrays each search lays out its own way
  (ismcts: visits, availability and reward; guided: visits, prior, pending visits and a value per
  seat), and a child is found by (parent, action id) in an open-addressing hash table: hk holds
  the keys parent * ACTION_KEY + action (-1: an empty slot), hv the child's node; the table has a
  power-of-two size of at least twice the nodes it may hold. meta[TREE_NODES] counts the nodes in
  use. `tree_start` empties the table, `tree_find` looks a child up, `tree_room` says whether n
  more nodes fit, and `tree_insert` allocates the next node and links it under (parent, action);
  the search then fills the node's row.

The root-selection rule is each search's own: UCT over availability counts in ismcts
(`core.search.uct_score`), PUCT or the Gumbel root in guided (its `root` option).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .botrules import policy_below
from .layout import (EV_DECK, EV_DECK_N, FORCED_N, FORCED_POS, ISSUE_DECK, ISSUE_DECK_N, N_EVENTS, N_ISSUES, RNG,
                     VARIANT)
from .stack import stack_empty
from .tables import T_GAME_END, T_VAR_SHUFFLE

ACTION_KEY = 1024          # > number of action ids
SORT_RANGE = max(N_ISSUES, N_EVENTS)      # > every card id a deck holds
TREE_NODES = 0             # meta[TREE_NODES]: nodes in use (node 0, the root, is always there)


# ----------------------------------------------------------------------------- determinization
@njit(cache=True)
def canonical_shuffle(s, start, n, rng):
    """Sort s[start:start+n], then Fisher-Yates shuffle it with rng: the result depends only on
    the multiset of values and rng, never on the order it replaces. The sort counts the values
    (card ids are below SORT_RANGE; an insertion sort otherwise): the same order, in linear time."""
    cnt = stack_empty(SORT_RANGE, np.int64)
    for v in range(SORT_RANGE):
        cnt[v] = 0
    small = True
    for i in range(n):
        v = s[start + i]
        if v < 0 or v >= SORT_RANGE:
            small = False
            break
        cnt[v] += 1
    if small:
        i = start
        for v in range(SORT_RANGE):
            for _ in range(cnt[v]):
                s[i] = v
                i += 1
    else:
        for i in range(1, n):
            x = s[start + i]
            j = i - 1
            while j >= 0 and s[start + j] > x:
                s[start + j + 1] = s[start + j]
                j -= 1
            s[start + j + 1] = x
    for i in range(n - 1, 0, -1):
        j = policy_below(rng, i + 1)
        t = s[start + i]
        s[start + i] = s[start + j]
        s[start + j] = t


@njit(cache=True, _nrt=False)
def copy_state(dst, src):
    """dst[:] = src element by element (numba's slice assignment from another array goes through a
    temporary against overlap: six times slower for a game state)."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True)
def determinize(s, T, rng):
    """Resample in place what no player sees: the issue deck order (GAME END keeps its public depth;
    in the longest variant it stays among the bottom mix + 1 cards, EN:188), the event deck order
    and the dice (a new generator seed; queued forced dice are dropped)."""
    ge = T[T_GAME_END]
    n = s[ISSUE_DECK_N]
    mix = T[T_VAR_SHUFFLE + s[VARIANT]]
    at = -1
    for j in range(n):
        if s[ISSUE_DECK + j] == ge:
            at = j
    if at < 0:
        canonical_shuffle(s, ISSUE_DECK, n, rng)
    elif mix > 0:
        k = min(mix + 1, n)
        canonical_shuffle(s, ISSUE_DECK, k, rng)
        canonical_shuffle(s, ISSUE_DECK + k, n - k, rng)
    else:
        # GAME END at its known depth: shuffle the cards below it and above it as one pool
        for j in range(at, n - 1):
            s[ISSUE_DECK + j] = s[ISSUE_DECK + j + 1]
        canonical_shuffle(s, ISSUE_DECK, n - 1, rng)
        for j in range(n - 1, at, -1):
            s[ISSUE_DECK + j] = s[ISSUE_DECK + j - 1]
        s[ISSUE_DECK + at] = ge
    canonical_shuffle(s, EV_DECK, s[EV_DECK_N], rng)
    for h in range(2):
        s[RNG + h] = policy_below(rng, 0x7FFFFFFF) + 1
    s[FORCED_POS] = s[FORCED_N]


# ----------------------------------------------------------------------------- the tree's index
@njit(cache=True)
def tree_slot(hk, key):
    """The home slot of a key in the hash table hk (Fibonacci hashing)."""
    mask = hk.shape[0] - 1
    return np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) & mask


@njit(cache=True)
def tree_start(hk, meta):
    """An empty index and one node in use, the root (the search resets the root's row)."""
    hk[:] = -1
    meta[TREE_NODES] = 1


@njit(cache=True)
def tree_find(hk, hv, node, a):
    """Child of node reached by action a, or -1."""
    key = node * ACTION_KEY + a
    mask = hk.shape[0] - 1
    h = tree_slot(hk, key)
    while hk[h] != -1:
        if hk[h] == key:
            return hv[h]
        h = (h + 1) & mask
    return -1


@njit(cache=True)
def tree_room(hk, meta, cap, n):
    """True when n more nodes fit: at most cap nodes (the rows of the node arrays), and the hash
    table at most half full."""
    m = meta[TREE_NODES] + n
    return m <= cap and 2 * m <= hk.shape[0]


@njit(cache=True)
def tree_insert(hk, hv, meta, cap, node, a):
    """Allocate the next node as the child of node for action a and index it; the caller fills its
    row. -1 when the tree is full (tree_room(hk, meta, cap, 1) is false)."""
    if not tree_room(hk, meta, cap, 1):
        return -1
    c = meta[TREE_NODES]
    meta[TREE_NODES] = c + 1
    key = node * ACTION_KEY + a
    mask = hk.shape[0] - 1
    h = tree_slot(hk, key)
    while hk[h] != -1:
        h = (h + 1) & mask
    hk[h] = key
    hv[h] = c
    return c
