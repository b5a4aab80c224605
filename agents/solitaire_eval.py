"""The solitaire player's objective for the search agents (`greedy`): the rules' agents score a
faction, but the solitaire player scores VP when its faction is the sole strongest and every faction
controls an issue at the start of its turns (EN:877-881, docs/solitaire.md).

`solitaire_evaluate` is the position's value for the player: W_SOLO_VP per VP scored, plus the
controlled faction's margin over the strongest other faction (strength, EN:856, plus W_SOLO_LEAD x
the PIV of each table or waiting-room issue it leads, as the greedy evaluation counts leads), plus
W_SOLO_CTRL per faction that controls an issue. `solitaire_lookahead` scores one action of the player.
"""
from __future__ import annotations

import numpy as np

from v1919_env.core.board import faction_strengths, issues_controlled, slot_leader, slot_total
from v1919_env.core.botrules import piv
from v1919_env.core.bots import bot_action, policy_below
from v1919_env.core.layout import (D_PLACE2, GAME_OVER, N_SLOTS, PENDING, SLOT_ISSUE, SOLO_FACTION, SOLO_FACTIONS,
                                   SOLO_VP)
from v1919_env.core.search import W_LEAD, finish_replies
from v1919_env.core.step import apply_action, legal
from v1919_env.core.tree import copy_state, determinize

W_SOLO_VP = 10.0       # per VP the player has scored: what the game counts
W_SOLO_LEAD = W_LEAD   # share of the PIV of an issue a faction leads in a slot (the greedy evaluation's)
W_SOLO_CTRL = 1.0      # per faction controlling an issue (the second half of the VP condition, EN:880)
NO_SEAT = -1           # finish_replies(p=NO_SEAT): the rule bot plays on to the next turn decision


def faction_estimates(s, T) -> list[float]:
    """Per solitaire faction: its strength plus W_SOLO_LEAD x the PIV of each slot issue it leads."""
    est = [float(v) for v in faction_strengths(s, T)]
    for sl in range(N_SLOTS):
        i = s[SLOT_ISSUE + sl]
        if i >= 0 and slot_total(s, sl) > 0:
            q = slot_leader(s, sl)
            if 0 <= q < SOLO_FACTIONS:
                est[q] += W_SOLO_LEAD * piv(s, T, q, i)
    return est


def solitaire_evaluate(s, T) -> float:
    """The solitaire player's value of position s (see the module docstring)."""
    est = faction_estimates(s, T)
    f = int(s[SOLO_FACTION])
    margin = est[f] - max(est[q] for q in range(SOLO_FACTIONS) if q != f)
    ctrl = sum(1 for q in range(SOLO_FACTIONS) if issues_controlled(s, q) > 0)
    return W_SOLO_VP * float(s[SOLO_VP]) + margin + W_SOLO_CTRL * ctrl


def play_to_next_turn(s, T, buf, rng) -> None:
    """Play the rule bot (for the player's later decisions too) until a new turn decision or the end:
    the bots' turns run inside the kernel, and the player's VP are scored as its turn begins."""
    finish_replies(s, T, NO_SEAT, buf, rng)
    while s[GAME_OVER] == 0 and s[PENDING] == D_PLACE2:      # finish the placement the action began
        apply_action(s, T, bot_action(s, T, buf, rng))
        finish_replies(s, T, NO_SEAT, buf, rng)


def solitaire_greedy_action(root, T, samples: int, rng, s, acts, buf) -> int:
    """One-ply lookahead for the solitaire player: each legal action on `samples` determinized copies,
    played on by the rule bot to the next turn decision (play_to_next_turn), scored by
    solitaire_evaluate; the best mean wins, ties go to the rule bot's choice, else drawn with rng."""
    n = legal(root, T, acts)
    if n <= 1:
        return int(acts[0]) if n == 1 else -1
    prior = int(bot_action(root, T, buf, rng))
    best, best_a, ties = -np.inf, int(acts[0]), 0
    for j in range(n):
        a = int(acts[j])
        tot = 0.0
        for _ in range(samples):
            copy_state(s, root)
            determinize(s, T, rng)
            apply_action(s, T, a)
            play_to_next_turn(s, T, buf, rng)
            tot += solitaire_evaluate(s, T)
        v = tot / samples
        if v > best + 1e-9:
            best, best_a, ties = v, a, 1
        elif v > best - 1e-9 and best_a != prior:
            ties += 1
            if a == prior or policy_below(rng, ties) == 0:
                best_a = a
    return best_a
