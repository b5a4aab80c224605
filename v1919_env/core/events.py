"""Event cards: an interpreter for the effect bytecode compiled by core/tables.py from the
card data (crisis and conference effects of all 46 events, data/SCHEMA.md)."""
from __future__ import annotations

from numba import njit

from .actions import (A_ACCEPT, A_BRANCH, A_CHOOSE_ISSUE, A_CHOOSE_PLAYER, A_CHOOSE_REGION, A_DEMOB, A_DEPLOY,
                      A_SIGN, A_TO_AVAIL, A_TO_EXH)
from .board import (add_keg, change_happiness, clockwise, count_counters, decide, deployed_count, demobilize_unit,
                    exhaust_avail, has_unit, is_usa_faction, issues_controlled, move_unrest, pop, push,
                    push_mutiny_if_needed, random_region, recover_exhausted, remove_keg, settled_issue_region, top)
from .layout import (D_BRANCH, D_CHOOSE_PLAYER, D_CHOOSE_REGION, D_DEMOB, D_DEPLOY, D_OPTIONAL, D_SIGN,
                     D_TO_AVAIL, D_TO_EXH, D_UNSETTLE, D_WAITING_ISSUE, DEP_COL, EV_CUR, EV_ITER, EV_REG, EV_REGMASK,
                     EV_SIGN, EV_STAGE, F_A0, HAPPY, INF_AVAIL, ISSUE_CTRL, KEG, ISSUE_OPT, MAX_PLAYERS, MIL_AVAIL,
                     MIL_EXH, MODE, MODE_SOLO, N_ISSUES, N_REGIONS, N_SLOTS, N_TABLE, NUM_PLAYERS, P_BID, P_EVENT,
                     P_OPTION, P_SWITCH, P_UPRISING, RET, SETTLE_GAINED, SETTLING, SLOT_CUBES, SLOT_ISSUE)
from .tables import (EV_LEN, OP_BRANCH_END, OP_CHOICE, OP_CHOOSE_PLAYER, OP_CHOOSE_REGIONS, OP_CLEAR_WAITING,
                     OP_DEMOB_ACTION, OP_DEPLOY_ACTION, OP_END, OP_EXHAUST, OP_HAPPY, OP_IF_NO_COUNTERS, OP_KEG,
                     OP_MIL_TO_AVAIL, OP_MIL_TO_EXH, OP_RECOVER, OP_UNREST, OP_UNSETTLE, OP_UPRISING, OPW,
                     ORDER_STARTING, R_ANY, R_CHOSEN, R_GAINED, R_ONE_OF, R_RANDOM, R_SETTLED, T_EV_CODE,
                     T_EV_OPTIONAL, T_FIRST_DEP_COL, T_GAME_END, T_ISSUE_CAT, T_KEG_MAX, W_ALL, W_CHOSEN, W_DECIDER,
                     W_EACH, W_LOWEST_HAPPY, W_MOST_ISSUES, W_SETTLED_CTRL)
from .turn import can_deploy, legal_demobilize, legal_deploy, do_deploy

# frame: a0 event, a1 part (0 crisis, 1 conference), a2 pc, a3 decider, a4 chosen player,
#        a5 chosen-regions mask, a6 1 = the optional effect was accepted


@njit(cache=True, _nrt=False)
def _row(T, e, part, pc):
    return T_EV_CODE + ((e * 2 + part) * EV_LEN + pc) * OPW


@njit(cache=True, _nrt=False)
def _who_mask(s, T, f, who):
    """Seats an op applies to (the seat now acting inside an each-player op)."""
    n = s[NUM_PLAYERS]
    if who == W_DECIDER:
        return 1 << s[f + F_A0 + 3]
    if who == W_CHOSEN:
        return 1 << s[f + F_A0 + 4] if s[f + F_A0 + 4] >= 0 else 0
    if who == W_EACH:
        if s[EV_ITER] >= 0:
            return 1 << s[EV_CUR]
        return (1 << n) - 1
    if who == W_ALL:
        return (1 << n) - 1
    if who == W_SETTLED_CTRL:
        i = s[SETTLING]
        if i >= 0 and s[ISSUE_CTRL + i] >= 0:
            return 1 << s[ISSUE_CTRL + i]
        return 0
    m, best = 0, 0
    for p in range(n):
        if who == W_LOWEST_HAPPY and is_usa_faction(s, p):
            continue        # the 2-player USA has no happiness (EN:779)
        v = s[HAPPY + p] if who == W_LOWEST_HAPPY else -issues_controlled(s, p)
        if m == 0 or v < best:
            m, best = 1 << p, v
        elif v == best:
            m |= 1 << p
    if who == W_MOST_ISSUES and best == 0:
        return 0            # nobody controls an issue: nobody has the most (project ruling P-12)
    return m


@njit(cache=True, _nrt=False)
def _iter_seat(s, f, order, k):
    """k-th seat of an each-player op, clockwise: starting with, or ending with, the decider (rulings A-40)."""
    return clockwise(s, s[f + F_A0 + 3], k if order == ORDER_STARTING else k + 1)


@njit(cache=True, _nrt=False)
def start_event(s, e, part, decider):
    """Push the crisis (part 0) or conference (part 1) effects of event e, decided by `decider`."""
    s[EV_ITER] = -1
    s[EV_CUR] = decider
    s[EV_REG] = -1
    s[EV_SIGN] = 0
    s[EV_STAGE] = 0
    push(s, P_EVENT, e, part, 0, decider, -1)


@njit(cache=True, _nrt=False)
def _ops_feasible(s, T, f, start, p):
    """Can p pay every cost and do every action of the op list starting at `start`? (Costs and
    actions that cannot be done make an optional effect or a branch unavailable.)"""
    e, part = s[f + F_A0], s[f + F_A0 + 1]
    pc = start
    while pc < EV_LEN:
        b = _row(T, e, part, pc)
        op = T[b]
        if op == OP_END or op == OP_BRANCH_END or op == OP_CHOICE:
            return True
        if op == OP_EXHAUST and T[b + 3] == 1 and s[INF_AVAIL + p] < T[b + 2]:
            return False
        # the 2-player USA may take a military choice; it does nothing (EN:812)
        if op == OP_DEMOB_ACTION and not has_unit(s, T, p) and not is_usa_faction(s, p):
            return False
        if op == OP_DEPLOY_ACTION and not can_deploy(s, T, p) and not is_usa_faction(s, p):
            return False
        if op == OP_UNSETTLE and _unsettle_candidates(s, T, T[b + 1]) == 0:
            return False
        if op == OP_KEG and _keg_regions(s, T, T[b + 1], T[b + 2]) == 0:
            return False
        pc += 1
    return True


@njit(cache=True, _nrt=False)
def _keg_regions(s, T, code, delta):
    """Regions named by a region code whose powder keg can move by delta (a keg to remove, or room
    for one more). Codes resolved later (die, settled issue, earlier choice) count as every region."""
    full = (1 << N_REGIONS) - 1
    if code < N_REGIONS:
        cand = 1 << code
    elif code == R_ANY:
        cand = full
    elif code >= R_ONE_OF:
        cand = code - R_ONE_OF
    else:
        return full
    m = 0
    for r in range(N_REGIONS):
        if (cand >> r) & 1 and (s[KEG + r] < T[T_KEG_MAX] if delta > 0 else s[KEG + r] > 0):
            m |= 1 << r
    return m


@njit(cache=True, _nrt=False)
def _unsettle_candidates(s, T, catmask):
    n = 0
    for i in range(N_ISSUES):
        if s[ISSUE_CTRL + i] >= 0 and i != T[T_GAME_END] and (catmask >> T[T_ISSUE_CAT + i]) & 1:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def _branch_end(T, e, part, choice_pc):
    """pc just after a choice's last branch."""
    b = _row(T, e, part, choice_pc)
    pc = T[b + 4 + T[b + 3] - 1]
    while pc < EV_LEN:
        r = _row(T, e, part, pc)
        if T[r] == OP_BRANCH_END and T[r + 1] == choice_pc:
            return pc + 1
        pc += 1
    return EV_LEN - 1


@njit(cache=True, _nrt=False)
def _feasible_branches(s, T, f, choice_pc, p):
    e, part = s[f + F_A0], s[f + F_A0 + 1]
    b = _row(T, e, part, choice_pc)
    m = 0
    for k in range(T[b + 3]):
        if _ops_feasible(s, T, f, T[b + 4 + k], p):
            m |= 1 << k
    return m


# ----------------------------------------------------------------------------- legal actions
@njit(cache=True, _nrt=False)
def legal_event(s, T, kind, out):
    f = top(s)
    n = 0
    if kind == D_OPTIONAL:
        out[0] = A_ACCEPT
        out[1] = A_ACCEPT + 1
        return 2
    if kind == D_CHOOSE_PLAYER:
        for q in range(s[NUM_PLAYERS]):
            out[n] = A_CHOOSE_PLAYER + q
            n += 1
        return n
    if kind == D_CHOOSE_REGION:
        for r in range(N_REGIONS):
            if (s[EV_REGMASK] >> r) & 1:
                out[n] = A_CHOOSE_REGION + r
                n += 1
        return n
    if kind == D_SIGN:
        out[0] = A_SIGN
        out[1] = A_SIGN + 1
        return 2
    if kind == D_BRANCH:
        m = _feasible_branches(s, T, f, s[f + F_A0 + 2], s[EV_CUR])
        for k in range(4):
            if (m >> k) & 1:
                out[n] = A_BRANCH + k
                n += 1
        return n
    if kind == D_UNSETTLE:
        b = _row(T, s[f + F_A0], s[f + F_A0 + 1], s[f + F_A0 + 2])
        for i in range(N_ISSUES):
            if s[ISSUE_CTRL + i] >= 0 and i != T[T_GAME_END] and (T[b + 1] >> T[T_ISSUE_CAT + i]) & 1:
                out[n] = A_CHOOSE_ISSUE + i
                n += 1
        return n
    if kind == D_WAITING_ISSUE:
        for w in range(N_TABLE, N_SLOTS):
            if s[SLOT_ISSUE + w] >= 0:
                out[n] = A_CHOOSE_ISSUE + s[SLOT_ISSUE + w]
                n += 1
        return n
    q = s[EV_CUR]
    if kind == D_TO_EXH:
        for r in range(N_REGIONS):
            if s[DEP_COL + q * N_REGIONS + r] > 0:
                out[n] = A_TO_EXH + r
                n += 1
        return n
    if kind == D_TO_AVAIL:
        out[0] = A_ACCEPT            # decline: move nothing
        n = 1
        if s[MIL_EXH + q] > 0:
            out[n] = A_TO_AVAIL
            n += 1
        for r in range(N_REGIONS):
            if s[DEP_COL + q * N_REGIONS + r] > 0:
                out[n] = A_TO_AVAIL + 1 + r
                n += 1
        return n
    if kind == D_DEMOB:
        return legal_demobilize(s, q, out, 0, A_DEMOB)
    if kind == D_DEPLOY:
        return legal_deploy(s, T, q, out, 0)
    return 0


# ----------------------------------------------------------------------------- the interpreter
@njit(cache=True, _nrt=False)
def _regions_of(s, T, f, code):
    """Resolve a region code that needs no decision to a mask (0: nothing happens)."""
    if code < N_REGIONS:
        return 1 << code
    if code == R_SETTLED:
        r = settled_issue_region(s, T)
        return 1 << r if r >= 0 else 0
    if code == R_RANDOM:
        r = random_region(s, T)
        return 1 << r if r >= 0 else 0
    if code == R_CHOSEN:
        return s[f + F_A0 + 5]
    if code == R_GAINED:
        return s[SETTLE_GAINED]
    return -1        # needs a choice


@njit(cache=True, _nrt=False)
def _next(s, f):
    s[f + F_A0 + 2] += 1
    s[EV_REG] = -1
    s[EV_SIGN] = 0
    s[EV_STAGE] = 0


@njit(cache=True, _nrt=False)
def _iterate(s, T, f, order, want):
    """Advance an each-player op to the next seat for which want(seat) holds; False when done.

    want: 0 any seat, 1 seats with a deployed unit, 2 seats with an exhausted or deployed unit."""
    n = s[NUM_PLAYERS]
    while True:
        k = s[EV_ITER] + 1
        if k >= n:
            s[EV_ITER] = -1
            return False
        s[EV_ITER] = k
        p = _iter_seat(s, f, order, k)
        s[EV_CUR] = p
        dep = 0
        for r in range(N_REGIONS):
            if s[DEP_COL + p * N_REGIONS + r] > 0:
                dep += 1
        if want == 0 or (want == 1 and dep > 0) or (want == 2 and dep + s[MIL_EXH + p] > 0):
            return True


@njit(cache=True, _nrt=False)
def event_proc(s, T, kind, a):
    """Run one event part from its pc until a decision is needed or it ends."""
    f = top(s)
    e, part = s[f + F_A0], s[f + F_A0 + 1]
    dec = s[f + F_A0 + 3]
    if s[f + F_A0 + 2] == 0 and s[EV_STAGE] == 0 and kind == 0 and part == 1 and s[f + F_A0 + 6] == 0 \
            and T[T_EV_OPTIONAL + e] == 1:
        # "Optional" conference events may be declined (EN:330); one that cannot be paid is skipped
        if not _ops_feasible(s, T, f, 0, dec):
            pop(s)
            return
        s[EV_STAGE] = 9
        decide(s, D_OPTIONAL, dec)
        return
    if kind == D_OPTIONAL:
        s[EV_STAGE] = 0
        if a - A_ACCEPT == 0:
            pop(s)
            return
        s[f + F_A0 + 6] = 1
        kind = 0
    while True:
        pc = s[f + F_A0 + 2]
        b = _row(T, e, part, pc)
        op = T[b]
        if op == OP_END or pc >= EV_LEN:
            s[EV_ITER] = -1
            pop(s)
            # mutinies follow the event applied in full (rulings A-10)
            push_mutiny_if_needed(s, T)
            return
        if op == OP_UPRISING:
            _next(s, f)
            push(s, P_UPRISING, T[b + 1], T[b + 2], T[b + 3], T[b + 4], T[b + 5], dec)
            return
        if op == OP_UNREST or op == OP_KEG:
            code = T[b + 1]
            if s[EV_REG] < 0 and kind != D_CHOOSE_REGION:
                m = _regions_of(s, T, f, code)
                if m < 0:
                    s[EV_REGMASK] = (1 << N_REGIONS) - 1 if code == R_ANY else code - R_ONE_OF
                    if op == OP_KEG and (s[EV_REGMASK] & _keg_regions(s, T, code, T[b + 2])) != 0:
                        # only regions where the keg can move are offered (project ruling P-01)
                        s[EV_REGMASK] &= _keg_regions(s, T, code, T[b + 2])
                    decide(s, D_CHOOSE_REGION, dec)
                    return
                s[EV_REG] = m + 64          # +64: a resolved mask (0 allowed)
            if kind == D_CHOOSE_REGION:
                s[EV_REG] = (1 << (a - A_CHOOSE_REGION)) + 64
                kind = 0
            delta = T[b + 2]
            if op == OP_UNREST and T[b + 3] == 1:
                if kind == D_SIGN:
                    s[EV_SIGN] = 1 if a - A_SIGN == 1 else -1
                    kind = 0
                if s[EV_SIGN] == 0:
                    decide(s, D_SIGN, dec)
                    return
                delta = delta * s[EV_SIGN]
            if op == OP_UNREST and T[b + 4] >= 0:
                delta = delta * count_counters(s, T, T[b + 4], -1)
            m = s[EV_REG] - 64
            for r in range(N_REGIONS):
                if (m >> r) & 1:
                    if op == OP_UNREST:
                        move_unrest(s, T, r, delta)
                    elif delta > 0:
                        add_keg(s, T, r)
                    else:
                        remove_keg(s, r)
            _next(s, f)
            continue
        if op == OP_HAPPY or op == OP_EXHAUST or op == OP_RECOVER:
            m = _who_mask(s, T, f, T[b + 1])
            for p in range(s[NUM_PLAYERS]):
                if (m >> p) & 1:
                    if op == OP_HAPPY:
                        d = T[b + 2] * (deployed_count(s, p) if T[b + 3] == 1 else 1)
                        change_happiness(s, T, p, d)
                    elif op == OP_EXHAUST:
                        exhaust_avail(s, p, T[b + 2])
                    else:
                        k = T[b + 2] * (count_counters(s, T, T[b + 3], -1) if T[b + 3] >= 0 else 1)
                        recover_exhausted(s, p, k)
            _next(s, f)
            continue
        if op == OP_CHOOSE_PLAYER:
            if kind == D_CHOOSE_PLAYER:
                s[f + F_A0 + 4] = a - A_CHOOSE_PLAYER
                kind = 0
                _next(s, f)
                continue
            decide(s, D_CHOOSE_PLAYER, dec)
            return
        if op == OP_CHOOSE_REGIONS:
            if kind == D_CHOOSE_REGION:
                s[f + F_A0 + 5] |= 1 << (a - A_CHOOSE_REGION)
                kind = 0
            chosen = s[f + F_A0 + 5]
            c = 0
            for r in range(N_REGIONS):
                c += (chosen >> r) & 1
            if c < T[b + 1]:
                s[EV_REGMASK] = ((1 << N_REGIONS) - 1) & ~chosen
                decide(s, D_CHOOSE_REGION, dec)
                return
            _next(s, f)
            continue
        if op == OP_CHOICE:
            who = T[b + 1]
            if kind == D_BRANCH:
                s[f + F_A0 + 2] = T[b + 4 + a - A_BRANCH]
                s[EV_STAGE] = 0
                kind = 0
                continue
            if s[EV_STAGE] == 0:
                s[EV_STAGE] = 1
                if who == W_EACH:
                    s[EV_ITER] = -1
                    if not _iterate(s, T, f, T[b + 2], 0):
                        s[f + F_A0 + 2] = _branch_end(T, e, part, pc)
                        s[EV_STAGE] = 0
                        continue
                else:
                    q = dec if who == W_DECIDER else s[f + F_A0 + 4]
                    s[EV_CUR] = q
            m = _feasible_branches(s, T, f, pc, s[EV_CUR])
            if m == 0 or m & (m - 1) == 0:
                # no choice to make: the only branch that can be paid is taken
                if m == 0:
                    s[f + F_A0 + 2] = _branch_end(T, e, part, pc)
                    s[EV_STAGE] = 0
                    continue
                k = 0
                while not (m >> k) & 1:
                    k += 1
                s[f + F_A0 + 2] = T[b + 4 + k]
                s[EV_STAGE] = 0
                continue
            decide(s, D_BRANCH, s[EV_CUR])
            return
        if op == OP_BRANCH_END:
            cpc = T[b + 1]
            cb = _row(T, e, part, cpc)
            if T[cb + 1] == W_EACH and _iterate(s, T, f, T[cb + 2], 0):
                s[f + F_A0 + 2] = cpc      # next seat chooses
                s[EV_STAGE] = 1
                continue
            s[EV_ITER] = -1
            s[f + F_A0 + 2] = _branch_end(T, e, part, cpc)
            s[EV_STAGE] = 0
            continue
        if op == OP_UNSETTLE:
            if s[EV_STAGE] == 2:
                # back from bidding: the winner picks an option (rulings A-07b)
                s[EV_STAGE] = 3
                w = s[RET]
                if w >= 0:
                    push(s, P_OPTION, s[EV_REG], w, 0, 0)
                    return
            if s[EV_STAGE] == 3:
                _next(s, f)
                continue
            if kind == D_UNSETTLE and s[MODE] == MODE_SOLO:
                # solitaire: the player switches faction before the issue leaves its controller
                # (EN:951, rulings A-33); the unsettle goes on when the switch is done
                s[EV_REG] = a - A_CHOOSE_ISSUE
                s[EV_STAGE] = 4
                push(s, P_SWITCH)
                return
            if kind == D_UNSETTLE or s[EV_STAGE] == 4:
                i = a - A_CHOOSE_ISSUE if kind == D_UNSETTLE else s[EV_REG]
                prev = s[ISSUE_CTRL + i]
                s[ISSUE_CTRL + i] = -1
                s[ISSUE_OPT + i] = -1
                s[EV_REG] = i
                s[EV_STAGE] = 2
                cat = T[T_ISSUE_CAT + i]
                push(s, P_BID, i, cat if cat < N_REGIONS else -1, prev)
                return
            if _unsettle_candidates(s, T, T[b + 1]) == 0:
                _next(s, f)
                continue
            decide(s, D_UNSETTLE, dec)
            return
        if op == OP_CLEAR_WAITING:
            if kind == D_WAITING_ISSUE:
                i = a - A_CHOOSE_ISSUE
                for w in range(N_TABLE, N_SLOTS):
                    if s[SLOT_ISSUE + w] == i:
                        for p in range(MAX_PLAYERS):
                            s[INF_AVAIL + p] += s[SLOT_CUBES + w * MAX_PLAYERS + p]
                            s[SLOT_CUBES + w * MAX_PLAYERS + p] = 0
                kind = 0
                _next(s, f)
                continue
            any_w = False
            for w in range(N_TABLE, N_SLOTS):
                if s[SLOT_ISSUE + w] >= 0:
                    any_w = True
            if not any_w:
                _next(s, f)
                continue
            decide(s, D_WAITING_ISSUE, dec)
            return
        if op == OP_MIL_TO_EXH or op == OP_MIL_TO_AVAIL or op == OP_DEMOB_ACTION:
            who = T[b + 1]
            if op == OP_MIL_TO_EXH and who == W_ALL:
                for p in range(s[NUM_PLAYERS]):
                    for r in range(N_REGIONS):
                        if s[DEP_COL + p * N_REGIONS + r] > 0:
                            s[DEP_COL + p * N_REGIONS + r] = 0
                            s[MIL_EXH + p] += 1
                _next(s, f)
                continue
            if kind == D_TO_EXH:
                p = s[EV_CUR]
                s[DEP_COL + p * N_REGIONS + a - A_TO_EXH] = 0
                s[MIL_EXH + p] += 1
                kind = 0
            elif kind == D_TO_AVAIL:
                p = s[EV_CUR]
                if a >= A_TO_AVAIL:
                    src = a - A_TO_AVAIL
                    if src == 0:
                        s[MIL_EXH + p] -= 1
                    else:
                        s[DEP_COL + p * N_REGIONS + src - 1] = 0
                    s[MIL_AVAIL + p] += 1
                kind = 0
            elif kind == D_DEMOB:
                demobilize_unit(s, T, s[EV_CUR], a - A_DEMOB, False)
                kind = 0
            nested = who == W_EACH and s[EV_ITER] >= 0 and s[EV_STAGE] != 2
            if who == W_EACH and not nested:
                # an each-player op of its own: every seat in turn
                if s[EV_STAGE] == 0:
                    s[EV_STAGE] = 2
                    s[EV_ITER] = -1
                want = 1 if op == OP_MIL_TO_EXH else (2 if op == OP_MIL_TO_AVAIL else 0)
                if s[EV_STAGE] == 2:
                    if _iterate(s, T, f, T[b + 2], want):
                        s[EV_STAGE] = 2
                        p = s[EV_CUR]
                        if op == OP_DEMOB_ACTION and not has_unit(s, T, p):
                            continue
                        decide(s, D_TO_EXH if op == OP_MIL_TO_EXH else (D_TO_AVAIL if op == OP_MIL_TO_AVAIL
                                                                       else D_DEMOB), p)
                        return
                    _next(s, f)
                    continue
            # a single seat (decider, chosen player, or the seat choosing a branch)
            if s[EV_STAGE] != 5:
                p = s[EV_CUR] if nested else (dec if who == W_DECIDER else s[f + F_A0 + 4])
                s[EV_CUR] = p
                if p >= 0 and ((op == OP_DEMOB_ACTION and has_unit(s, T, p)) or
                               (op != OP_DEMOB_ACTION and deployed_count(s, p) + s[MIL_EXH + p] > 0)):
                    s[EV_STAGE] = 5
                    decide(s, D_TO_EXH if op == OP_MIL_TO_EXH else (D_TO_AVAIL if op == OP_MIL_TO_AVAIL
                                                                   else D_DEMOB), p)
                    return
            _next(s, f)
            continue
        if op == OP_DEPLOY_ACTION:
            if kind == D_DEPLOY:
                x = a - A_DEPLOY
                do_deploy(s, T, dec, x // (N_REGIONS * 4), (x // 4) % N_REGIONS, x % 4 + T[T_FIRST_DEP_COL])
                kind = 0
                _next(s, f)
                continue
            if not can_deploy(s, T, dec):
                _next(s, f)
                continue
            s[EV_CUR] = dec
            decide(s, D_DEPLOY, dec)
            return
        if op == OP_IF_NO_COUNTERS:
            if count_counters(s, T, T[b + 1], T[b + 2]) == 0:
                s[f + F_A0 + 2] += 1
            else:
                s[f + F_A0 + 2] = T[b + 3]
            continue
        raise ValueError("event: unknown op")
