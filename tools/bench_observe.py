"""Micro-benchmark of the observation writer and the random opponents' decisions (a speed check of the vector env's inner loop).

Micro-benchmark of the core's observation writer (core/observe.py: observe) and of the random
opponents' decisions (legal list + random choice + apply_action), on states taken from a running
vector env (4 players against random opponents, the phases of the games spread out).

    python tools/bench_observe.py [--players 4] [--seconds 2]

Prints ns per call (medians of rounds, CPU time of this thread):
- observe, hot: one state and one output buffer over and over (all in L1);
- observe, vector: 256 states into a [256, OBS_SIZE] buffer, two buffers alternating, as
  vector_kernels does (the buffers and states come from L2/L3);
- legal: the legal list of the pending decision (256 states);
- random decision: legal + random choice + apply_action on copies of the states (what a random
  opponent seat costs in the vector step), per decision.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from v1919_env.core import layout as L
from v1919_env.core.bots import random_action
from v1919_env.core.observe import OBS_SIZE, observe
from v1919_env.core.step import apply_action
from v1919_env.decision_costs import legal_all
from v1919_env.envs.vector_env import VectorEnv
from v1919_env.envs.vector_kernels import G_NLEGAL


def sample_states(num_players: int, games: int = 256, snapshots: int = 4, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """(states [snapshots * games, STATE_SIZE], seats deciding) from a vector env against random."""
    env = VectorEnv(num_envs=games, num_players=num_players, opponents=["random"], seed=seed, score_info=False)
    env.reset()
    rng = np.random.default_rng(seed)
    rows = np.arange(games)
    out, seats = [], []
    for k in range(200 + 50 * snapshots):
        pick = (rng.random(games) * env.G[:, G_NLEGAL]).astype(np.int64)
        env.step(env._legal[rows, pick].astype(np.int64))
        if k >= 200 and (k - 200) % 50 == 0:
            out.append(env.S.copy())
            seats.append(env.who.copy())
    return np.concatenate(out), np.concatenate(seats)


@njit(cache=False)
def _observe_hot(S, T, seats, reps, out):
    for _ in range(reps):
        for i in range(S.shape[0]):
            observe(S[i], T, seats[i], out)


@njit(cache=False)
def _touch(s):
    """Read the whole state (in the vector step the state is hot: the game was just played)."""
    t = 0
    for x in s:
        t += x
    return t


@njit(cache=False)
def _observe_vector(S, T, seats, reps, A, B, obs):
    n = A.shape[0]
    t = 0
    for r in range(reps):
        dst = A if r % 2 == 0 else B
        for i in range(S.shape[0]):
            t += _touch(S[i])
            if obs:
                observe(S[i], T, seats[i], dst[i % n])
    return t


@njit(cache=False)
def _random_decisions(S, T, reps, buf, rng):
    """reps random decisions in each game of S (a finished game is left alone); returns how many."""
    k = 0
    for i in range(S.shape[0]):
        s = S[i]
        for _ in range(reps):
            if s[L.GAME_OVER] != 0:
                break
            apply_action(s, T, random_action(s, T, buf, rng))
            k += 1
    return k


def timed(fn, *args, seconds: float, rounds: int = 7) -> float:
    """Median CPU seconds per call of fn(*args) over rounds of about seconds/rounds each."""
    fn(*args)
    per = []
    for _ in range(rounds):
        c, calls = time.thread_time(), 0
        while calls == 0 or time.thread_time() - c < seconds / rounds:
            fn(*args)
            calls += 1
        per.append((time.thread_time() - c) / calls)
    return sorted(per)[rounds // 2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=2.0, help="per figure")
    args = ap.parse_args()
    env = VectorEnv(num_envs=1, num_players=args.players)
    T = env.T
    S, seats = sample_states(args.players)
    live = S[:, L.GAME_OVER] == 0
    S, seats = np.ascontiguousarray(S[live]), np.ascontiguousarray(seats[live])
    seats = np.where(seats >= 0, seats, 0)
    m = S.shape[0]
    buf = np.empty(L.MAX_LEGAL, np.int64)
    hot = S[:64].copy()
    out = np.zeros(OBS_SIZE, np.float32)
    A = np.zeros((256, OBS_SIZE), np.float32)
    B = np.zeros((256, OBS_SIZE), np.float32)
    vec = S[:256].copy()
    sec = args.seconds
    touch = timed(_observe_vector, vec, T, seats[:256], 2, A, B, False, seconds=sec) / 512
    res = {
        "observe hot": timed(_observe_hot, hot, T, seats[:64], 20, out, seconds=sec) / (64 * 20),
        "observe vector (256 x 2 buffers, hot state)":
            timed(_observe_vector, vec, T, seats[:256], 2, A, B, True, seconds=sec) / 512 - touch,
        "legal": timed(legal_all, S, T, 4, seconds=sec) / (4 * m),
    }
    work, rng = S.copy(), np.ones(1, np.uint64)       # games go on from call to call (restarted when all end)
    per = []
    for _ in range(7):
        c, k = time.thread_time(), 0
        while time.thread_time() - c < sec / 7:
            k += _random_decisions(work, T, 8, buf, rng)
            if (work[:, L.GAME_OVER] != 0).mean() > 0.5:
                work[:] = S
        per.append((time.thread_time() - c) / max(k, 1))
    res["random decision (legal + choice + apply)"] = sorted(per)[3]
    print(f"bench_observe: {args.players} players, {m} states")
    for k, v in res.items():
        print(f"  {k:<44}{v * 1e9:>9,.0f} ns")


if __name__ == "__main__":
    main()
