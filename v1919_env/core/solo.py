"""The solitaire game (EN 'Solitaire Rules', EN:832-966): the bots inside the kernel, the faction
switch, and the game's configuration.

One player (seat 0) plays against two bot factions; it controls one of the UK, France and the USA
at a time (`SOLO_FACTION`). A decision for a bot faction is narrowed to what the bot priorities
allow (over core/botrules.py, the rules shared with the `rulebot` agent): the turn, the second
placement and the fixed choices are built directly (`bot_legal`, the hot path: a bot's turn never
lists every legal action), the other decisions' legal lists are narrowed (`solo_filter`). When the
priorities leave exactly one action, the kernel takes it (`solo_auto`, called by the driver); when
they leave a choice ("player's choice", "when in doubt you choose", EN:910), the player takes it
from the narrowed list: the decision's `PENDING_FACTION` is then the bot's. The bots' region die
(EN:898) is the game's own die, so the game stays a function of its seed and the player's actions.

What the bots decide themselves (rule, then the code):
- turn: military priority 1 before the political action when it holds at the start of the turn,
  else after it; priority 2 (demobilize) likewise; then settle the highest-PIV issue it wins, place
  the minimum to lead on two issues, reclaim (six cubes and its exhausted units), settle an issue the
  other bot wins, or pass (EN:894-908);
- the option of an issue it wins (highest PIV, then least unhappiness, EN:916), its UK-or-USA naval
  flag (the one that is its icon), the issue it advances (one it wins, else one without influence,
  EN:918), drawing (the top card, EN:920), the uprising die modifier (EN:926), its bid (EN:930-945,
  core/uprising.py `solo_bid_proc`), optional events (performed, EN:917).
Everything else a bot faction meets (event choices, the second issue of the pair, ties) is the
player's.
"""
from __future__ import annotations

from numba import njit

from .actions import (A_ACCEPT, A_ADD_ISSUE, A_ADV_ISSUE, A_CHOOSE_PLAYER, A_DEMOB, A_DEPLOY, A_END_TURN, A_FLAG,
                      A_KEEP, A_OPTION, A_PASS_POLITICAL, A_PLACE, A_SETTLE)
from .board import clockwise, decide, faction_strengths, pop, roll_die, slot_leader, slot_total, top
from .botrules import (_demob_gain, _deploy_id, _slot_piv, bot_deploy_col, bot_modifier, bot_reclaim, counter_value,
                       deploy_rank, happiness_to_forced_demob, option_value)
from .layout import (ACTIVE, D_ADD_ISSUE, D_ADV_ISSUE, D_CHOOSE_FACTION, D_KEEP, D_MODIFIER, D_NAVAL, D_OPTION,
                     D_OPTIONAL, D_PLACE2, D_TURN, F_A0, FIRST_PLAYER, INF_AVAIL, MIL_DONE, MODE, MODE_SOLO,
                     N_NATIONS, N_REGIONS, N_SLOTS, N_TABLE, PENDING, PENDING_FACTION, POL_DONE, SLOT_ISSUE,
                     SOLO_FACTION, SOLO_FACTIONS, SOLO_TARGET)
from .tables import T_FIRST_DEP_COL, T_ISSUE_NOPT, T_OPT_HAPPY
from .turn import NO_SLOT, SCRATCH, cheapest_other, legal_demobilize, need_to_lead, place_needs


UK_FLAG, USA_FLAG = 0, 2     # nations of the UK-or-USA naval counter's two flags


# ----------------------------------------------------------------------------- configuration
@njit(cache=True, _nrt=False)
def solo_configure(s, faction, target):
    """Before play (after the seating is set): the player's starting faction (-1: the rules' default,
    the faction that goes last, EN:872) and the VP level that wins (EN:959-961). A chosen faction
    goes last: the first player is the next faction clockwise."""
    if faction < 0:
        faction = clockwise(s, s[FIRST_PLAYER], SOLO_FACTIONS - 1)
    else:
        s[FIRST_PLAYER] = clockwise(s, faction, 1)
        s[ACTIVE] = s[FIRST_PLAYER]
    s[SOLO_FACTION] = faction
    s[SOLO_TARGET] = target


# ----------------------------------------------------------------------------- the faction switch
@njit(cache=True, _nrt=False)
def weakest_factions(s, T):
    """Bit mask of the factions with the lowest Faction Strength (EN:951)."""
    st = faction_strengths(s, T)
    low, m = 1 << 30, 0
    for q in range(SOLO_FACTIONS):
        v = st[q]
        if v < low:
            low, m = v, 1 << q
        elif v == low:
            m |= 1 << q
    return m


@njit(cache=True, _nrt=False)
def legal_switch(s, T, out):
    m = weakest_factions(s, T)
    n = 0
    for q in range(SOLO_FACTIONS):
        if (m >> q) & 1:
            out[n] = A_CHOOSE_PLAYER + q
            n += 1
    return n


@njit(cache=True, _nrt=False)
def switch_proc(s, T, kind, a):
    """An issue is being unsettled: the player takes the weakest faction now, the player choosing
    among tied ones (EN:949-953); strengths still count the issue for its controller (rulings A-33)."""
    if kind == D_CHOOSE_FACTION:
        s[SOLO_FACTION] = a - A_CHOOSE_PLAYER
        pop(s)
        return
    m = weakest_factions(s, T)
    if m & (m - 1) == 0:
        q = 0
        while not (m >> q) & 1:
            q += 1
        s[SOLO_FACTION] = q
        pop(s)
        return
    decide(s, D_CHOOSE_FACTION, s[SOLO_FACTION])


# ----------------------------------------------------------------------------- the bots' choices
@njit(cache=True, _nrt=False)
def _keep_best(buf, n, key, lo, hi):
    """Keep the ids of buf[:n] in [lo, hi) whose key[id - lo] is the largest (key < -2**29: drop)."""
    best = -(1 << 30)
    for j in range(n):
        if lo <= buf[j] < hi and key[buf[j] - lo] > best:
            best = key[buf[j] - lo]
    k = 0
    if best <= -(1 << 29):
        return 0
    for j in range(n):
        if lo <= buf[j] < hi and key[buf[j] - lo] == best:
            buf[k] = buf[j]
            k += 1
    return k


@njit(cache=True, _nrt=False)
def _only(buf, a):
    buf[0] = a
    return 1


@njit(cache=True, _nrt=False)
def _bot_military(s, T, p, out):
    """The military actions the bot wants now (EN:896-898) into out; 0 if none: deploys in the
    best-ranked regions (a die decides between several, `solo_auto`), else, 1 or 2 happiness from a
    forced demobilization with a 2+ space free, the demobilizations (which unit: the player's)."""
    best, k = -(1 << 30), 0
    for r in range(N_REGIONS):
        c = bot_deploy_col(s, T, p, r)
        if c < T[T_FIRST_DEP_COL]:       # none, or a column no deploy action reaches
            continue
        v = deploy_rank(s, T, p, r)
        if v > best:
            best, k = v, 0
        if v == best:
            out[k] = _deploy_id(T, 0, r, c)
            k += 1
    if k > 0:
        return k
    if happiness_to_forced_demob(s, T, p) <= 2 and _demob_gain(s, T) >= 2:
        return legal_demobilize(s, p, out, 0, A_DEMOB)
    return 0


@njit(cache=True, _nrt=False)
def _bot_political(s, T, p, out):
    """The political actions the bot may take (EN:903-908): settle a table issue it wins (highest
    PIV; ties the player's), else a first placement of the minimum to lead on an issue that has an
    affordable partner (the pair is the player's), else reclaim, else settle an issue the other bot
    wins (the player's choice of two), else pass."""
    best, k = -(1 << 30), 0
    for sl in range(N_TABLE):
        if s[SLOT_ISSUE + sl] >= 0 and slot_total(s, sl) > 0 and slot_leader(s, sl) == p:
            v = _slot_piv(s, T, p, sl)
            if v > best:
                best, k = v, 0
            if v == best:
                out[k] = A_SETTLE + sl
                k += 1
    if k > 0:
        return k
    # a first placement is legal when the second can follow (core/turn.py legal_place_first)
    avail = s[INF_AVAIL + p]
    place_needs(s, p, out)
    need = out[SCRATCH:SCRATCH + N_SLOTS]
    for s1 in range(N_SLOTS):
        c = need[s1]
        if c == NO_SLOT:
            continue
        best2 = cheapest_other(need, s1)
        if c <= min(avail - best2, 15) and best2 <= min(15, avail - c):
            out[k] = A_PLACE + s1 * 15 + c - 1
            k += 1
    if k > 0:
        return k
    a = bot_reclaim(s, T, p)      # (all exhausted cubes up to six, no deployed unit: always legal)
    if a >= 0:
        return _only(out, a)
    me = s[SOLO_FACTION]
    for sl in range(N_TABLE):
        if s[SLOT_ISSUE + sl] >= 0 and slot_total(s, sl) > 0:
            q = slot_leader(s, sl)
            if q >= 0 and q != p and q != me:
                out[k] = A_SETTLE + sl
                k += 1
    if k > 0:
        return k
    return _only(out, A_PASS_POLITICAL)


@njit(cache=True, _nrt=False)
def _bot_turn(s, T, p, out):
    """EN:899: the military action before the political one when its criteria hold at the start of
    the turn, else checked again after it; one military action per turn."""
    if s[MIL_DONE] == 0:
        k = _bot_military(s, T, p, out)
        if k > 0:
            return k
    if s[POL_DONE] == 0:
        return _bot_political(s, T, p, out)
    return _only(out, A_END_TURN)


@njit(cache=True, _nrt=False)
def _bot_second_placement(s, T, p, out):
    """The second placement: the minimum to lead on any other issue it can afford."""
    q = s[ACTIVE]
    first = s[top(s) + F_A0]
    kmax = min(s[INF_AVAIL + q], 15)
    k = 0
    for sl in range(N_SLOTS):
        if sl == first or s[SLOT_ISSUE + sl] < 0:
            continue
        c = need_to_lead(s, sl, p)
        if need_to_lead(s, sl, q) <= c <= kmax:
            out[k] = A_PLACE + sl * 15 + c - 1
            k += 1
    return k


@njit(cache=True, _nrt=False)
def _bot_options(s, T, p, buf, n):
    """EN:916: the highest-PIV options, then the least unhappiness for the bot; ties the player's."""
    i = s[top(s) + F_A0]
    key = buf[n:n + 4]
    for o in range(4):
        key[o] = -(1 << 30)
    for o in range(max(1, T[T_ISSUE_NOPT + i])):
        key[o] = option_value(s, T, p, i, o) * 1000 + T[T_OPT_HAPPY + (i * 4 + o) * N_NATIONS + p]
    return _keep_best(buf, n, key, A_OPTION, A_OPTION + 4)


@njit(cache=True, _nrt=False)
def _bot_flags(s, T, p, buf, n):
    """A UK-or-USA naval counter: the flag that is the bot's icon; France has neither (the player's)."""
    vu, va = counter_value(s, T, p, 5 + UK_FLAG), counter_value(s, T, p, 5 + USA_FLAG)
    if vu > va:
        return _only(buf, A_FLAG)
    if va > vu:
        return _only(buf, A_FLAG + 1)
    return n


@njit(cache=True, _nrt=False)
def _bot_advance(s, buf, n, p):
    """EN:918: an issue the bot wins, else one with no influence, else any (the player's among them)."""
    key = buf[n:n + 3]
    for w in range(3):
        sl = N_TABLE + w
        if s[SLOT_ISSUE + sl] < 0:
            key[w] = -(1 << 30)
        elif slot_total(s, sl) > 0 and slot_leader(s, sl) == p:
            key[w] = 2
        elif slot_total(s, sl) == 0:
            key[w] = 1
        else:
            key[w] = 0
    return _keep_best(buf, n, key, A_ADV_ISSUE, A_ADV_ISSUE + 3)


@njit(cache=True, _nrt=False)
def is_bot_decision(s):
    """True when the pending decision is for a bot faction of the solitaire game."""
    return s[MODE] == MODE_SOLO and s[PENDING_FACTION] != s[SOLO_FACTION]


@njit(cache=True, _nrt=False)
def bot_legal(s, T, out):
    """A bot faction's decision that the bot rules narrow without the full legal list: what they
    allow, built directly into out (the count); -1 for the other decisions (`solo_filter` narrows
    their legal list). The lists are the legal actions the bot rules keep, in the legal list's order."""
    k = s[PENDING]
    p = s[PENDING_FACTION]
    if k == D_TURN:
        return _bot_turn(s, T, p, out)
    if k == D_PLACE2:
        return _bot_second_placement(s, T, p, out)
    if k == D_ADD_ISSUE:
        return _only(out, A_ADD_ISSUE + 3)       # EN:920: the bot never takes from the discards
    if k == D_KEEP:
        return _only(out, A_KEEP)                # EN:920: the top card stays, the next is discarded
    if k == D_MODIFIER:
        return _only(out, bot_modifier(s, T, p))
    return -1


@njit(cache=True, _nrt=False)
def solo_filter(s, T, buf, n):
    """Narrow the legal actions buf[:n] of a bot faction's decision that `bot_legal` does not build
    to what the bot rules allow (in place); returns the new count. The player's own decisions are
    left as they are."""
    if not is_bot_decision(s):
        return n
    k = s[PENDING]
    p = s[PENDING_FACTION]
    if k == D_OPTION:
        return _bot_options(s, T, p, buf, n)
    if k == D_NAVAL:
        return _bot_flags(s, T, p, buf, n)
    if k == D_ADV_ISSUE:
        return _bot_advance(s, buf, n, p)
    if k == D_OPTIONAL:
        return _only(buf, A_ACCEPT + 1)          # EN:917: optional events must be performed
    return n


@njit(cache=True, _nrt=False)
def solo_auto(s, T, buf, n):
    """The action the kernel takes by itself for a bot's decision whose filtered legal list is
    buf[:n], or -1 when the player must choose. Deploys tied between regions are settled by a die
    per region, rerolling ties (EN:898)."""
    if not is_bot_decision(s):
        return -1
    if n == 1:
        return buf[0]
    if s[PENDING] != D_TURN:
        return -1
    for j in range(n):
        if not A_DEPLOY <= buf[j] < A_DEMOB:
            return -1
    best_a, best_d = -1, -1
    for j in range(n):
        d = roll_die(s)
        while d == best_d:
            best_d = roll_die(s)
            d = roll_die(s)
        if d > best_d:
            best_a, best_d = buf[j], d
    return best_a

