"""Teacher decisions for the imitation warm start: whole games of a compiled agent (the rule bot) in
every seat, each decision recorded as the deciding seat sees it (the learner's observation and
action mask), with the teacher's action and the seat's discounted final reward (the value target).

    data = teacher_decisions("rulebot", decisions=200_000, num_players=4, reward=..., gamma=0.995)
    data.obs (float16 [n, OBS_SIZE], or the compact size), data.masks (bool [n, NUM_ACTIONS]), data.actions, data.returns

The games run in a compiled loop (`play_and_record`, one call per chunk of games); decisions with a
single legal action are skipped (nothing to imitate: the learner has no choice there either).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from v1919_env.actions import NUM_ACTIONS
from v1919_env.core.bots import policy_action, seed_policy_rng
from v1919_env.core.layout import GAME_OVER, MAX_LEGAL, PENDING_PLAYER, STATE_SIZE, STATE_DTYPE
from v1919_env.core.observations import layout_of, observe_and_mask_as
from v1919_env.core.step import apply_action, init_game, legal

GAMES_PER_CHUNK = 64


@njit(cache=True)
def play_and_record(S, T, num_players, seeds, variant, code, obs, masks, actions, seats, games, left, layout):
    """Play game g from seeds[g] into S[g] with compiled policy `code` in every seat; record each
    decision with two or more legal actions (observation and mask of the deciding seat, its action,
    seat, game index g and its number of decisions still to come for that seat, `left`). Stops before
    a game that might not fit in the output arrays; a game that still overflows them, or that the
    engine's safety cap stopped, is dropped. Observations in `layout` (core/observations.py). Returns
    (decisions recorded, games played)."""
    buf = np.empty(MAX_LEGAL, np.int64)
    cap = obs.shape[0]
    n = 0
    for g in range(seeds.shape[0]):
        if cap - n < 4096:           # longer than any game's multi-choice decisions (EN: game end)
            return n, g
        s = S[g]
        init_game(s, T, num_players, seeds[g], variant, 0)
        rng = seed_policy_rng(seeds[g] + 1)      # the policy's generator, apart from the dice
        start = n
        overflow = False
        while s[GAME_OVER] == 0:
            p = s[PENDING_PLAYER]
            k = legal(s, T, buf)
            a = policy_action(s, T, code, buf, rng)
            if k > 1 and n < cap:
                observe_and_mask_as(s, T, p, obs[n], masks[n], buf, layout)
                actions[n] = a
                seats[n] = p
                games[n] = g
                n += 1
            elif k > 1:
                overflow = True
            apply_action(s, T, a)
        if overflow or s[GAME_OVER] == 2:
            n = start       # a game stopped by the engine's safety cap, or too long to keep: not imitated
            continue
        count = np.zeros(num_players, np.int64)
        for j in range(n - 1, start - 1, -1):
            left[j] = count[seats[j]]
            count[seats[j]] += 1
    return n, seeds.shape[0]


@dataclass
class TeacherData:
    """Recorded teacher decisions (arrays of equal length) and how many games produced them."""
    obs: np.ndarray          # float16 [n, observation size] (the full layout, or the compact one)
    masks: np.ndarray        # bool [n, NUM_ACTIONS]
    actions: np.ndarray      # int64 [n]
    returns: np.ndarray      # float32 [n]: gamma ** (seat's decisions to come) * seat's final reward
    games: int
    teacher_win_share: float   # mean number of winners per game / num_players (a check on the data)

    def __len__(self) -> int:
        return len(self.actions)


def teacher_decisions(teacher: str, decisions: int, num_players: int, reward, gamma: float, seed: int,
                      variant: str = "standard", progress: bool = False, obs_layout: str = "full") -> TeacherData:
    """About `decisions` recorded decisions (whole games only) of `teacher` in every seat, observed in
    `obs_layout` ('full' or 'compact')."""
    from tqdm import tqdm

    from v1919_env.game import Game, card_tables
    from v1919_env.rewards import terminal_rewards
    from v1919_env.variants import variant_index
    from v1919_env.envs.vector_env import reward_weights
    from v1919_env.envs.vector_kernels import COMPILED_POLICIES

    if teacher not in COMPILED_POLICIES:
        raise ValueError(f"teacher: {teacher!r} is not a compiled agent; choose from {', '.join(COMPILED_POLICIES)}")
    weights = reward_weights(reward)
    cards, T = card_tables(None)
    var = variant_index(cards, variant)
    code = COMPILED_POLICIES[teacher]
    rng = np.random.default_rng(seed)
    chunk = GAMES_PER_CHUNK * 600
    layout, size = layout_of(obs_layout)
    buf_obs = np.zeros((chunk + 4096, size), np.float32)
    buf_mask = np.zeros((chunk + 4096, NUM_ACTIONS), np.int8)
    acts, seats, games, left = (np.zeros(chunk + 4096, np.int64) for _ in range(4))
    out_obs = np.empty((decisions, size), np.float16)
    out_mask = np.empty((decisions, NUM_ACTIONS), bool)
    out_act = np.empty(decisions, np.int64)
    out_ret = np.empty(decisions, np.float32)
    n_out, n_games, winners = 0, 0, 0
    bar = tqdm(total=decisions, unit="decision", unit_scale=True, disable=not progress, desc=f"{teacher} games")
    while n_out < decisions:
        seeds = rng.integers(0, 2 ** 62, size=GAMES_PER_CHUNK, dtype=np.int64)
        S = np.zeros((GAMES_PER_CHUNK, STATE_SIZE), STATE_DTYPE)
        n, g = play_and_record(S, T, num_players, seeds, var, code, buf_obs, buf_mask, acts, seats, games, left,
                               layout)
        final = np.zeros((g, num_players), np.float32)
        for k in range(g):
            scores = Game(S[k], cards, T).scores()
            winners += sum(bool(x["winner"]) for x in scores)
            for kind, w in weights.items():
                final[k] += w * np.asarray(terminal_rewards(scores, kind), np.float32)
        take = min(n, decisions - n_out)
        sl = slice(n_out, n_out + take)
        out_obs[sl] = buf_obs[:take]
        out_mask[sl] = buf_mask[:take].view(bool)
        out_act[sl] = acts[:take]
        out_ret[sl] = final[games[:take], seats[:take]] * np.power(gamma, left[:take]).astype(np.float32)
        n_out += take
        n_games += g
        bar.update(take)
    bar.close()
    return TeacherData(out_obs, out_mask, out_act, out_ret, n_games, winners / max(1, n_games * num_players))
