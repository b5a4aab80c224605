"""Primitive state operations shared by every rule area: dice, the frame stack, decisions,
unrest and powder kegs, happiness, military units, influence and counters."""
from __future__ import annotations

import numpy as np
from numba import njit

from .layout import (DEMOB_NEXT, DEP_COL, FORCED, FORCED_N, FORCED_POS, FRAME_W, F_A0, F_PROC, F_STEP, HAPPY,
                     INF_AVAIL, INF_EXH, ISSUE_CTRL, ISSUE_NAVAL_UK, ISSUE_OPT, KEG, MAX_FRAMES, MAX_PLAYERS,
                     MIL_AVAIL, MIL_DEMOB, MIL_EXH, MODE, MODE_SOLO, MODE_TWO, N_ISSUES, N_REGIONS, NUM_PLAYERS,
                     ACTIVE, PENDING, PENDING_FACTION, PENDING_PLAYER, P_MUTINY, RNG, SEATING, SETTLING, SLOT_CUBES,
                     SP, STACK, TURN_OWNER, UNREST, USA_FACTION)
from .tables import (MAX_DEMOB, T_DEMOB_LAST, T_DEMOB_N, T_DEMOB_VAL, T_HAPPY_MAX, T_ISSUE_CAT, T_ISSUE_STARS,
                     T_KEG_MAX, T_MILITARY, T_OPT_CTR, T_OPT_NAVAL, T_REGION_OF_DIE, T_TRACK_COLS, T_UNITS_ALLOWED)
from .vocab import N_COUNTERS, counter_slot

SOLO_ICONS = np.array([[counter_slot(k, f) for k, f in row] for row in (
    (("naval", "uk"), ("bolshevik_containment", None), ("empire", "uk")),                 # UK (EN:847)
    (("german_containment", None), ("german_reparations", None), ("empire", "france")),   # France (EN:846)
    (("self_determination", None), ("industrial_growth", None), ("naval", "usa")))],      # USA (EN:848)
    np.int64)
"""The solitaire factions' strategy icons (COUNTERS slots), one row per faction; France's "German
Economy" is the German Reparations counter (card inventory, EN:846)."""

MASK32 = np.uint64(0xFFFFFFFF)


# ----------------------------------------------------------------------------- random numbers
@njit(cache=True, _nrt=False)
def splitmix64(seed):
    """A well-mixed, never-zero 64-bit generator state from an integer seed."""
    z = np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    if z == np.uint64(0):
        z = np.uint64(1)
    return z


@njit(cache=True, _nrt=False)
def _policy_next(r):
    """One xorshift64 step of a policy's own generator (uint64), never the game's."""
    r ^= r << np.uint64(13)
    r ^= r >> np.uint64(7)
    r ^= r << np.uint64(17)
    return r


@njit(cache=True, _nrt=False)
def _policy_index(r, n):
    """The index in [0, n) that generator output r draws: its top 31 bits modulo n (both fit 32 bits, so
    a 32-bit remainder: the same value as the 64-bit one, several times faster)."""
    return np.int64(np.uint32(r >> np.uint64(33)) % np.uint32(n))


@njit(cache=True, _nrt=False)
def rng_seed(s, seed):
    """Seed the in-state xorshift64* generator (splitmix64 of the seed; never zero)."""
    z = splitmix64(seed)
    s[RNG] = np.int32(np.int64(z & MASK32) - (np.int64(1) << 32) if (z & MASK32) >= np.uint64(1 << 31)
                      else np.int64(z & MASK32))
    hi = z >> np.uint64(32)
    s[RNG + 1] = np.int32(np.int64(hi) - (np.int64(1) << 32) if hi >= np.uint64(1 << 31) else np.int64(hi))


@njit(cache=True, _nrt=False)
def _rng_next(s):
    lo = np.uint64(np.int64(s[RNG]) & 0xFFFFFFFF)
    hi = np.uint64(np.int64(s[RNG + 1]) & 0xFFFFFFFF)
    x = (hi << np.uint64(32)) | lo
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    nlo = np.int64(x & MASK32)
    nhi = np.int64(x >> np.uint64(32))
    s[RNG] = np.int32(nlo - (1 << 32) if nlo >= (1 << 31) else nlo)
    s[RNG + 1] = np.int32(nhi - (1 << 32) if nhi >= (1 << 31) else nhi)
    return x * np.uint64(0x2545F4914F6CDD1D)


@njit(cache=True, _nrt=False)
def rand_below(s, n):
    """Uniform integer in [0, n) from the in-state generator."""
    r = _rng_next(s) >> np.uint64(32)
    return np.int64((r * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, _nrt=False)
def roll_die(s):
    """A d6: the next forced result if any (scenario replays), else the generator."""
    if s[FORCED_POS] < s[FORCED_N]:
        v = s[FORCED + s[FORCED_POS]]
        s[FORCED_POS] += 1
        return np.int64(v)
    return rand_below(s, 6) + 1


@njit(cache=True, _nrt=False)
def shuffle_range(s, start, n):
    """Fisher-Yates shuffle of s[start:start+n] with the in-state generator."""
    for i in range(n - 1, 0, -1):
        j = rand_below(s, i + 1)
        t = s[start + i]
        s[start + i] = s[start + j]
        s[start + j] = t


@njit(cache=True, _nrt=False)
def random_region(s, T):
    """Random Region (EN:126): die 1-5 names a region, 6 means nothing (-1)."""
    return T[T_REGION_OF_DIE + roll_die(s)]


@njit(cache=True, _nrt=False)
def settled_issue_region(s, T):
    """'The Region of the Issue being Settled' (-1: no issue is being settled). League and
    Reparations issues have no track of their own and count as Europe (ruling P-03, IT:1471)."""
    i = s[SETTLING]
    if i < 0:
        return -1
    c = T[T_ISSUE_CAT + i]
    return c if c < N_REGIONS else 0


# ----------------------------------------------------------------------------- frames and decisions
@njit(cache=True, _nrt=False)
def push(s, proc, a0=0, a1=0, a2=0, a3=0, a4=0, a5=0, a6=0, a7=0):
    sp = s[SP]
    if sp >= MAX_FRAMES:
        raise RuntimeError("frame stack overflow")
    b = STACK + sp * FRAME_W
    s[b + F_PROC] = proc
    s[b + F_STEP] = 0
    s[b + F_A0] = a0
    s[b + F_A0 + 1] = a1
    s[b + F_A0 + 2] = a2
    s[b + F_A0 + 3] = a3
    s[b + F_A0 + 4] = a4
    s[b + F_A0 + 5] = a5
    s[b + F_A0 + 6] = a6
    s[b + F_A0 + 7] = a7
    s[SP] = sp + 1


@njit(cache=True, _nrt=False)
def pop(s):
    s[SP] -= 1


@njit(cache=True, _nrt=False)
def top(s):
    """Offset of the top frame."""
    return STACK + (s[SP] - 1) * FRAME_W


@njit(cache=True, _nrt=False)
def decide(s, kind, player):
    """Make `player` the one to decide a `kind` decision; the driver then returns to the caller.

    A decision of the 2-player game's USA faction goes to the player whose turn it is (EN:791); in the
    solitaire game the one player (seat 0) takes every decision that reaches it, for whichever faction
    (the bots' own are taken inside the kernel, core/solo.py)."""
    s[PENDING] = kind
    s[PENDING_FACTION] = player
    if s[MODE] == MODE_SOLO:
        s[PENDING_PLAYER] = 0
    else:
        s[PENDING_PLAYER] = s[TURN_OWNER] if is_usa_faction(s, player) else player


# ----------------------------------------------------------------------------- seats
@njit(cache=True, _nrt=False)
def seat_position(s, p):
    """Where seat p sits at the table: its index in the clockwise SEATING (0 for seat 0)."""
    for i in range(s[NUM_PLAYERS]):
        if s[SEATING + i] == p:
            return i
    return -1


@njit(cache=True, _nrt=False)
def is_usa_faction(s, p):
    """True for the USA of the 2-player game: influence only, run by the player whose turn it is (EN:777-830)."""
    return s[MODE] == MODE_TWO and p == USA_FACTION


@njit(cache=True, _nrt=False)
def n_players(s):
    """Players who take turns, bid, draft and score (the factions on the board less the 2-player USA)."""
    return 2 if s[MODE] == MODE_TWO else s[NUM_PLAYERS]


@njit(cache=True, _nrt=False)
def turn_player(s):
    """The player whose turn it is (in the 2-player game also during its USA political action)."""
    return s[TURN_OWNER] if s[MODE] == MODE_TWO else s[ACTIVE]


@njit(cache=True, _nrt=False)
def clockwise(s, p, k):
    """The k-th player clockwise from seat p (k >= 0; k = 0 is p), by the table's seating. Every
    turn order of the rules (turns, bidding, draft ties, modifiers, 'starting/ending with you',
    mutinies) goes through here: seats are nations, the seating says who sits next to whom."""
    return s[SEATING + (seat_position(s, p) + k) % s[NUM_PLAYERS]]


# ----------------------------------------------------------------------------- happiness
@njit(cache=True, _nrt=False)
def change_happiness(s, T, nation, delta):
    """Happiness moves within 0..30; 0 is permanent (EN:396-398). The 2-player USA has none (EN:779)."""
    if is_usa_faction(s, nation):
        return
    h = s[HAPPY + nation]
    if h == 0 or delta == 0:
        return
    h += delta
    hmax = T[T_HAPPY_MAX]
    if h > hmax:
        h = hmax
    if h < 0:
        h = 0
    s[HAPPY + nation] = h


@njit(cache=True, _nrt=False)
def units_in_play(s, T, p):
    """Units not demobilized (the happiness limit counts all of them, rulings A-37); the 2-player USA
    has none (EN:779)."""
    if is_usa_faction(s, p):
        return 0
    return T[T_MILITARY] - s[MIL_DEMOB + p]


@njit(cache=True, _nrt=False)
def over_unit_limit(s, T, p):
    """A player may never have more units than the happiness zone allows (EN:533, rulings A-37)."""
    return units_in_play(s, T, p) > T[T_UNITS_ALLOWED + s[HAPPY + p]]


@njit(cache=True, _nrt=False)
def push_mutiny_if_needed(s, T):
    """After a happiness loss: start the mutiny procedure if any seat is over its limit (rulings A-10)."""
    for p in range(s[NUM_PLAYERS]):
        if over_unit_limit(s, T, p):
            push(s, P_MUTINY)
            return True
    return False


# ----------------------------------------------------------------------------- region tracks
@njit(cache=True, _nrt=False)
def unit_at(s, r, col):
    """Seat with a unit in region r, column col, or -1."""
    for p in range(s[NUM_PLAYERS]):
        if s[DEP_COL + p * N_REGIONS + r] == col:
            return p
    return -1


@njit(cache=True, _nrt=False)
def unrest_cap(s, T, r):
    """Rightmost column unrest may occupy: left of the leftmost military unit (EN:484)."""
    cap = T[T_TRACK_COLS]
    for p in range(s[NUM_PLAYERS]):
        c = s[DEP_COL + p * N_REGIONS + r]
        if c > 0 and c - 1 < cap:
            cap = c - 1
    return cap


@njit(cache=True, _nrt=False)
def move_unrest(s, T, r, delta):
    """Move unrest; it never enters or passes a powder keg or military space, excess ignored (EN:404)."""
    u = s[UNREST + r]
    if delta > 0:
        cap = unrest_cap(s, T, r)
        u = min(u + delta, max(cap, u))
    elif delta < 0:
        u = max(u + delta, s[KEG + r] + 1)
        u = min(u, s[UNREST + r])
    gained = u - s[UNREST + r]
    s[UNREST + r] = u
    return gained


@njit(cache=True, _nrt=False)
def add_keg(s, T, r):
    """Powder keg +1 (max column 3); unrest is pushed right of it (EN:449)."""
    if s[KEG + r] < T[T_KEG_MAX]:
        s[KEG + r] += 1
    if s[UNREST + r] <= s[KEG + r]:
        s[UNREST + r] = s[KEG + r] + 1


@njit(cache=True, _nrt=False)
def remove_keg(s, r):
    """Powder keg -1: column k to k-1, column 1 to its start box; at the start box ignored (rulings A-22)."""
    if s[KEG + r] > 0:
        s[KEG + r] -= 1


@njit(cache=True, _nrt=False)
def reset_unrest_after_uprising(s, T, r):
    """Uprising step 5: powder keg +1, unrest just right of it (EN:611-616)."""
    if s[KEG + r] < T[T_KEG_MAX]:
        s[KEG + r] += 1
    s[UNREST + r] = s[KEG + r] + 1


@njit(cache=True, _nrt=False)
def cap_unrest_at_units(s, T, r):
    """After a deploy: shift unrest left of the military (EN:484)."""
    cap = unrest_cap(s, T, r)
    if s[UNREST + r] > cap:
        s[UNREST + r] = cap


# ----------------------------------------------------------------------------- influence and military
@njit(cache=True, _nrt=False)
def exhaust_avail(s, p, n):
    """Move up to n available cubes to Exhausted; returns the number moved."""
    k = min(n, s[INF_AVAIL + p])
    s[INF_AVAIL + p] -= k
    s[INF_EXH + p] += k
    return k


@njit(cache=True, _nrt=False)
def recover_exhausted(s, p, n):
    """Move up to n exhausted cubes to Available; returns the number moved."""
    k = min(n, s[INF_EXH + p])
    s[INF_EXH + p] -= k
    s[INF_AVAIL + p] += k
    return k


@njit(cache=True, _nrt=False)
def deployed_mask(s, p):
    """Bit r set when p has a unit deployed in region r."""
    m = 0
    for r in range(N_REGIONS):
        if s[DEP_COL + p * N_REGIONS + r] > 0:
            m |= 1 << r
    return m


@njit(cache=True, _nrt=False)
def deployed_count(s, p):
    m, n = deployed_mask(s, p), 0
    while m:
        m &= m - 1
        n += 1
    return n


@njit(cache=True, _nrt=False)
def demobilize_unit(s, T, p, source, mutiny):
    """Take a unit from source (0 Available, 1 Exhausted, 2+r region r) to the demobilize track.

    Normal demobilization takes the highest free space, a mutiny the '1' box (EN:509-537)."""
    if source == 0:
        s[MIL_AVAIL + p] -= 1
    elif source == 1:
        s[MIL_EXH + p] -= 1
    else:
        s[DEP_COL + p * N_REGIONS + source - 2] = 0
    s[MIL_DEMOB + p] += 1
    np_ = s[NUM_PLAYERS]
    if mutiny or s[DEMOB_NEXT] >= T[T_DEMOB_N + np_]:
        gain = T[T_DEMOB_LAST]
    else:
        gain = T[T_DEMOB_VAL + np_ * MAX_DEMOB + s[DEMOB_NEXT]]
        s[DEMOB_NEXT] += 1
    change_happiness(s, T, p, gain)


@njit(cache=True, _nrt=False)
def has_unit(s, T, p):
    return units_in_play(s, T, p) > 0


# ----------------------------------------------------------------------------- issues and counters
@njit(cache=True, _nrt=False)
def slot_leader(s, slot):
    """Seat with strictly the most cubes on a slot's issue, or -1."""
    best, who, tie = 0, -1, False
    for p in range(s[NUM_PLAYERS]):
        c = s[SLOT_CUBES + slot * MAX_PLAYERS + p]
        if c > best:
            best, who, tie = c, p, False
        elif c == best and c > 0:
            tie = True
    return -1 if tie else who


@njit(cache=True, _nrt=False)
def slot_total(s, slot):
    t = 0
    for p in range(s[NUM_PLAYERS]):
        t += s[SLOT_CUBES + slot * MAX_PLAYERS + p]
    return t


@njit(cache=True, _nrt=False)
def _option_counter(s, T, i, o, slot):
    """Counters of one slot (vocab.COUNTERS) that option o of issue i placed (its UK-or-USA naval
    counters by the flags chosen)."""
    n = T[T_OPT_CTR + (i * 4 + o) * N_COUNTERS + slot]
    if slot == 5:      # naval_uk
        n += s[ISSUE_NAVAL_UK + i]
    elif slot == 7:    # naval_usa
        n += T[T_OPT_NAVAL + i * 4 + o] - s[ISSUE_NAVAL_UK + i]
    return n


@njit(cache=True, _nrt=False)
def issue_counter(s, T, i, slot):
    """Number of counters of one slot (vocab.COUNTERS) on settled issue i."""
    o = s[ISSUE_OPT + i]
    if o < 0 or s[ISSUE_CTRL + i] < 0:
        return 0
    return _option_counter(s, T, i, o, slot)


@njit(cache=True, _nrt=False)
def counters_of_kind(s, T, i, kind):
    """Counters of a base kind (vocab.COUNTER_BASE index) on settled issue i, any flag."""
    if kind < 5:
        return issue_counter(s, T, i, kind)
    n = 0
    base = 5 if kind == 5 else 10
    for f in range(5):
        n += issue_counter(s, T, i, base + f)
    return n


@njit(cache=True, _nrt=False)
def count_counters(s, T, kind, cat_mask):
    """Counters of a base kind on all settled issues (of the categories in cat_mask; -1 all)."""
    n = 0
    for i in range(N_ISSUES):
        if s[ISSUE_CTRL + i] >= 0 and (cat_mask < 0 or (cat_mask >> T[T_ISSUE_CAT + i]) & 1):
            n += counters_of_kind(s, T, i, kind)
    return n


@njit(cache=True, _nrt=False)
def issues_controlled(s, p):
    n = 0
    for i in range(N_ISSUES):
        if s[ISSUE_CTRL + i] == p:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def star_total(s, T, p):
    n = 0
    for i in range(N_ISSUES):
        if s[ISSUE_CTRL + i] == p:
            n += T[T_ISSUE_STARS + i]
    return n


@njit(cache=True, _nrt=False)
def issues_in_region(s, T, p, r):
    n = 0
    for i in range(N_ISSUES):
        if s[ISSUE_CTRL + i] == p and T[T_ISSUE_CAT + i] == r:
            n += 1
    return n



@njit(cache=True, _nrt=False)
def is_solo_icon(p, slot):
    """True if a counter of COUNTERS slot `slot` is one of solitaire faction p's strategy icons (EN:844)."""
    if p >= SOLO_ICONS.shape[0]:
        return False
    return SOLO_ICONS[p, 0] == slot or SOLO_ICONS[p, 1] == slot or SOLO_ICONS[p, 2] == slot


@njit(cache=True, _nrt=False)
def _icons_on(s, T, i, o, p):
    """Counters of solitaire faction p's strategy icons that option o of issue i placed."""
    return _option_counter(s, T, i, o, SOLO_ICONS[p, 0]) + _option_counter(s, T, i, o, SOLO_ICONS[p, 1]) + \
        _option_counter(s, T, i, o, SOLO_ICONS[p, 2])


@njit(cache=True, _nrt=False)
def faction_strengths(s, T):
    """Solitaire Faction Strength (EN:856) of the three factions, in one pass over the issues: stars
    of the issues each controls, plus 1 for each of its strategy icons on any settled issue, whoever
    controls it."""
    v0, v1, v2 = 0, 0, 0
    for i in range(N_ISSUES):
        q = s[ISSUE_CTRL + i]
        if q < 0:
            continue
        if q == 0:
            v0 += T[T_ISSUE_STARS + i]
        elif q == 1:
            v1 += T[T_ISSUE_STARS + i]
        elif q == 2:
            v2 += T[T_ISSUE_STARS + i]
        o = s[ISSUE_OPT + i]
        if o >= 0:
            v0 += _icons_on(s, T, i, o, 0)
            v1 += _icons_on(s, T, i, o, 1)
            v2 += _icons_on(s, T, i, o, 2)
    return v0, v1, v2


@njit(cache=True, _nrt=False)
def faction_strength(s, T, p):
    """Solitaire Faction Strength (EN:856) of faction p (0 UK, 1 France, 2 USA)."""
    return faction_strengths(s, T)[p]
