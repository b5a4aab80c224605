"""The solitaire bots' action lists that the kernel builds directly (core/solo.py `bot_legal`, the
fast path that never lists every legal action) are legal: on every bot decision of random games in
every variant they are a non-empty selection of the rules' legal list, in its order."""
from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from v1919_env.core import layout as L
from v1919_env.core.board import _policy_next
from v1919_env.core.solo import bot_legal, is_bot_decision, solo_auto
from v1919_env.core.step import _dispatch, _legal_rules, legal
from v1919_env.game import Game, card_tables, variant_names


@njit(cache=True)
def _direct_list(s, T, buf, rules):
    """1: the bot's decision has a direct list and it is a non-empty subsequence of the rules' legal
    list; -1: it is not; 0: no direct list for this decision."""
    k = bot_legal(s, T, buf)
    if k < 0:
        return 0
    n = _legal_rules(s, T, rules)
    j = 0
    for i in range(n):
        if j < k and rules[i] == buf[j]:
            j += 1
    return 1 if k > 0 and j == k else -1


@njit(cache=True)
def _check_game(s, T, seed, buf, rules):
    """Random play (the driver's solitaire loop, stepping the bots' decisions one by one); returns
    (bot decisions built directly, the first bad one's PENDING or 0)."""
    r = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)
    checked = 0
    while s[L.GAME_OVER] == 0:
        n = legal(s, T, buf)
        r = _policy_next(r)
        a = buf[np.int64((r >> np.uint64(33)) % np.uint64(n))]
        kind = s[L.PENDING]
        s[L.PENDING] = 0
        s[L.DECISIONS] += 1
        while s[L.GAME_OVER] == 0:
            if s[L.PENDING] != 0:
                if not is_bot_decision(s):
                    break
                ok = _direct_list(s, T, buf, rules)
                if ok < 0:
                    return checked, s[L.PENDING]
                checked += ok
                a = solo_auto(s, T, buf, legal(s, T, buf))
                if a < 0:
                    break                          # the player decides for the bot: legal() above
                kind = s[L.PENDING]
                s[L.PENDING] = 0
                s[L.DECISIONS] += 1
            _dispatch(s, T, kind, a)
            kind = 0
            a = -1
    return checked, 0


@pytest.mark.parametrize("faction", [None, "uk", "france", "usa"])
def test_direct_bot_lists_are_legal_selections(faction):
    cs, T = card_tables()
    buf = np.empty(L.MAX_LEGAL, np.int64)
    rules = np.empty(L.MAX_LEGAL, np.int64)
    total = 0
    for k, v in enumerate(variant_names(cs)):
        for seed in range(3):
            g = Game.new(num_players=1, seed=100 * k + seed, variant=v, faction=faction)
            checked, bad = _check_game(g.state, T, 7 * seed + k, buf, rules)
            assert bad == 0, f"variant {v}, seed {seed}: a bot list of decision kind {bad} is not legal"
            total += checked
    assert total > 500
