"""Setup (EN 'Setup'): decks, table, waiting room, happiness, powder kegs, unrest, cubes and units."""
from __future__ import annotations

import numpy as np
from numba import njit

from .board import push, rand_below, rng_seed
from .stack import stack_empty
from .layout import (ACTIVE, BID_HIGH, EV_CUBE, EV_DECK, EV_DECK_N, EV_REG, EV_TABLE, EV_WAIT, FIRST_PLAYER, HAPPY,
                     INF_AVAIL, ISSUE_CTRL, ISSUE_DECK, ISSUE_DECK_N, ISSUE_DISC, ISSUE_DISC_N, ISSUE_OPT, KEG,
                     MAX_PLAYERS, MIL_AVAIL, N_EV_WAIT, N_EVENTS, N_ISSUES, N_NATIONS, N_REGIONS, N_SLOTS,
                     N_STRATEGIES, NEGOTIATION, NUM_PLAYERS, PLAYER_STRAT, P_TURN, RET, SEATING, SETTLING, SLOT_ISSUE,
                     STATE_VERSION, STRAT_DEALT, UNREST, UP_REGION, VARIANT, VERSION, EV_ITER, MODE, MODE_SOLO,
                     MODE_TWO, SOLO_DEFAULT_TARGET, SOLO_FACTION, SOLO_TARGET, TURN_OWNER)
from .tables import (T_GAME_END, T_HAPPY_START, T_INFLUENCE, T_KEG_START, T_MILITARY, T_N_SETUP_DISC, T_N_TABLE,
                     T_N_WAITING, T_N_WAITING_SOLO, T_STRAT_EXTRA, T_UNREST_START, T_VAR_BELOW, T_VAR_HAPPY,
                     T_VAR_SHUFFLE)


@njit(cache=True, _nrt=False)
def _shuffle(s, arr, n):
    for i in range(n - 1, 0, -1):
        j = rand_below(s, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t


@njit(cache=True, _nrt=False)
def new_game(s, T, num_players, seed, variant, negotiation):
    """Fill s with a fresh game (2, 3 or 4 players) and push the first turn; the caller runs it.

    The seats sit in seat order (UK, France, USA, Italy clockwise); the caller may change SEATING
    before play (Game.new's `seating`): nothing before the first decision depends on it.
    The 2-player game (EN:771-830) keeps three factions on the board: the UK and France, and the USA
    (seat USA_FACTION) with its influence cubes only; its happiness marker stays out of play.
    The solitaire game (num_players 1, EN:860-875) is set up for three factions with two waiting-room
    issues, no strategy cards and no Italian or Japanese happiness (those markers stay at 0, out of
    play: zero happiness never moves); the player starts as the faction that goes last, which
    `solo_configure` (core/solo.py) may change before play."""
    s[:] = 0
    s[VERSION] = STATE_VERSION
    two = num_players == 2
    solo = num_players == 1
    factions = 3 if (two or solo) else num_players      # factions with pieces on the board
    armies = 3 if solo else num_players                 # factions with military units
    s[MODE] = MODE_TWO if two else (MODE_SOLO if solo else 0)
    s[NUM_PLAYERS] = factions
    s[VARIANT] = variant
    s[NEGOTIATION] = negotiation
    rng_seed(s, seed)
    first = rand_below(s, armies)               # a random starting Active Player (EN:155)
    s[FIRST_PLAYER] = first
    s[ACTIVE] = first
    s[TURN_OWNER] = first if two else 0
    if solo:
        s[SOLO_FACTION] = (first + factions - 1) % factions   # the faction that goes last (EN:872)
        s[SOLO_TARGET] = SOLO_DEFAULT_TARGET
    for n in range(N_NATIONS):
        # non-players always start at 20; players per the deck variant (EN:200); solitaire: no Italy or Japan
        if n < armies:
            s[HAPPY + n] = T[T_VAR_HAPPY + variant]
        elif not solo:
            s[HAPPY + n] = T[T_HAPPY_START]
    for p in range(MAX_PLAYERS):
        s[PLAYER_STRAT + p] = -1
        s[SEATING + p] = p if p < s[NUM_PLAYERS] else -1
        if p < s[NUM_PLAYERS]:
            s[INF_AVAIL + p] = T[T_INFLUENCE]
        if p < armies:
            s[MIL_AVAIL + p] = T[T_MILITARY]
    for r in range(N_REGIONS):
        s[UNREST + r] = T[T_UNREST_START]
        s[KEG + r] = T[T_KEG_START]
    for i in range(N_ISSUES):
        s[ISSUE_CTRL + i] = -1
        s[ISSUE_OPT + i] = -1
    # issues: 2 on the table, 3 waiting, 1 discarded; GAME END under the top of the deck (EN:170-188)
    ge = T[T_GAME_END]
    pool = stack_empty(N_ISSUES, np.int64)       # N_ISSUES - 1 used
    k = 0
    for i in range(N_ISSUES):
        if i != ge:
            pool[k] = i
            k += 1
    _shuffle(s, pool, k)
    pos = 0
    for sl in range(N_SLOTS):
        s[SLOT_ISSUE + sl] = -1
    for sl in range(T[T_N_TABLE] + (T[T_N_WAITING_SOLO] if solo else T[T_N_WAITING])):
        s[SLOT_ISSUE + sl] = pool[pos]
        pos += 1
    for _ in range(T[T_N_SETUP_DISC]):
        s[ISSUE_DISC + s[ISSUE_DISC_N]] = pool[pos]
        s[ISSUE_DISC_N] += 1
        pos += 1
    rest = k - pos
    below = T[T_VAR_BELOW + variant]
    mix = T[T_VAR_SHUFFLE + variant]
    n = 0
    if mix > 0:
        # the longest game: GAME END shuffled with five issues at the bottom (EN:188)
        bottom = stack_empty(N_ISSUES, np.int64)     # mix + 1 used
        for j in range(mix):
            bottom[j] = pool[pos + j]
        bottom[mix] = ge
        _shuffle(s, bottom, mix + 1)
        for j in range(mix + 1):
            s[ISSUE_DECK + n] = bottom[j]
            n += 1
        start = pos + mix
    else:
        for j in range(min(below, rest)):
            s[ISSUE_DECK + n] = pool[pos + j]
            n += 1
        s[ISSUE_DECK + n] = ge
        n += 1
        start = pos + min(below, rest)
    for j in range(start, k):
        s[ISSUE_DECK + n] = pool[j]
        n += 1
    s[ISSUE_DECK_N] = n
    # events: 1 on the table, 2 waiting, the rest the deck (EN:190)
    evs = stack_empty(N_EVENTS, np.int64)
    for j in range(N_EVENTS):
        evs[j] = j
    _shuffle(s, evs, N_EVENTS)
    s[EV_TABLE] = evs[0]
    dealt = 1 + N_EV_WAIT
    for w in range(N_EV_WAIT):
        s[EV_WAIT + w] = evs[1 + w]
    for j in range(dealt, N_EVENTS):
        s[EV_DECK + j - dealt] = evs[j]
    s[EV_DECK_N] = N_EVENTS - dealt
    s[EV_CUBE] = -1
    # strategy cards: one more than the number of players, face up (EN:202)
    st = stack_empty(N_STRATEGIES, np.int64)
    for j in range(N_STRATEGIES):
        st[j] = j
    _shuffle(s, st, N_STRATEGIES)
    for j in range(MAX_PLAYERS + 1):
        s[STRAT_DEALT + j] = st[j] if j < num_players + T[T_STRAT_EXTRA] and not solo else -1   # EN:866
    s[SETTLING] = -1
    s[BID_HIGH] = -1
    s[UP_REGION] = -1
    s[EV_ITER] = -1
    s[EV_REG] = -1
    s[RET] = -1
    push(s, P_TURN, -1, 0)
