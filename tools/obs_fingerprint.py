"""Fingerprint of observations, legal-action lists and random play: run before and after a speed change to prove it changes no output.

Fingerprint of the core's observations, legal-action lists and random play, to check that a speed
change of core/observe.py, the legal-action code or v1919_env/envs/vector_kernels.py changes no output.

    python tools/obs_fingerprint.py            # prints one hash per case and a combined hash
    python tools/obs_fingerprint.py --quick    # fewer games and steps

Two kinds of cases:
- `vector`: VectorEnv (2, 3, 4 players; random opponents, and random + rulebot) stepped with
  learner actions drawn from its legal list by a fixed generator; hashes every step's
  observations, masks, actions, rewards, dones and the ended episodes' final observations.
- `core`: whole games (solitaire, 2, 3, 4 players, with and without negotiation) played by
  uniformly random legal actions; at every decision the legal list (in order) and the
  observation of every seat are hashed inside a compiled loop.
Compare the printed hashes before and after a change: any difference is a changed output.
"""
from __future__ import annotations

import argparse
import hashlib
import time

import numpy as np
from numba import njit

from v1919_env.core.actions import NUM_ACTIONS
from v1919_env.core import layout as L
from v1919_env.core.board import _policy_next
from v1919_env.core.observe import OBS_SIZE, observe
from v1919_env.core.step import apply_action, legal
from v1919_env.game import Game
from v1919_env.envs.vector_env import VectorEnv


def vector_case(num_players: int, opponents, weights, games: int, steps: int, seed: int = 7) -> str:
    """Hash of a VectorEnv run (see the module docstring)."""
    env = VectorEnv(num_envs=games, num_players=num_players, opponents=opponents, opponent_weights=weights,
                    seed=seed, score_info=False)
    h = hashlib.blake2b(digest_size=16)
    obs = env.reset()
    rng = np.random.default_rng(seed)
    rows = np.arange(games)
    from v1919_env.envs.vector_kernels import G_NLEGAL
    for _ in range(steps):
        masks = env.action_masks()
        h.update(obs.tobytes())
        h.update(np.packbits(masks).tobytes())
        pick = (rng.random(games) * env.G[:, G_NLEGAL]).astype(np.int64)
        acts = env._legal[rows, pick].astype(np.int64)
        if rng.random() < 0.01:                  # now and then an illegal action (episode ends)
            b = int(rng.integers(games))         # an id in range that is not legal (out of range raises)
            acts[b] = np.setdiff1d(np.arange(NUM_ACTIONS), env._legal[b, :env.G[b, G_NLEGAL]])[0]
        h.update(acts.tobytes())
        obs, rewards, dones, infos = env.step(acts)
        h.update(rewards.tobytes())
        h.update(dones.tobytes())
        for b in np.flatnonzero(dones):
            h.update(np.asarray(infos[b]["terminal_observation"]).tobytes())
    h.update(env.S.tobytes())
    return h.hexdigest()


@njit(cache=False)
def _fnv(h, words):
    for x in words:
        h = (h ^ np.uint64(x)) * np.uint64(0x100000001B3)
    return h


@njit(cache=False)
def _play_hash(s, T, seed, max_decisions):
    """Play s to the end by random legal actions, hashing every decision's legal list and every
    seat's observation (seats 0..NUM_PLAYERS-1)."""
    buf = np.empty(L.MAX_LEGAL, np.int64)
    out = np.empty(OBS_SIZE, np.float32)
    bits = out.view(np.uint32)
    h = np.uint64(0xCBF29CE484222325)
    r = np.uint64(seed) * np.uint64(2) + np.uint64(1)
    k = 0
    while True:
        for seat in range(s[L.NUM_PLAYERS]):
            observe(s, T, seat, out)
            h = _fnv(h, bits)
        if s[L.GAME_OVER] != 0 or k >= max_decisions:
            break
        n = legal(s, T, buf)
        h = _fnv(h, buf[:n])
        r = _policy_next(r)
        apply_action(s, T, buf[np.int64((r >> np.uint64(33)) % np.uint64(n))])
        k += 1
    return h


def core_case(num_players: int, negotiation: bool, games: int, max_decisions: int) -> str:
    """Hash of `games` random games (see the module docstring)."""
    h = hashlib.blake2b(digest_size=16)
    for g in range(games):
        game = Game.new(num_players, seed=1000 + g, negotiation=negotiation)
        v = _play_hash(game.state, game.T, g, max_decisions)
        h.update(int(v).to_bytes(8, "little"))
        h.update(game.state.tobytes())
    return h.hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="16 games x 300 steps, 10 core games per case")
    args = ap.parse_args()
    games, steps, core_games = (16, 300, 10) if args.quick else (64, 2000, 60)
    t0 = time.perf_counter()
    total = hashlib.blake2b(digest_size=16)
    cases = []
    for n in (2, 3, 4):
        cases.append((f"vector {n}p random", lambda n=n: vector_case(n, ["random"], None, games, steps)))
        cases.append((f"vector {n}p random+rulebot",
                      lambda n=n: vector_case(n, ["random", "rulebot"], [0.7, 0.3], games, steps // 4)))
    for n in (1, 2, 3, 4):
        for neg in ((False,) if n == 1 else (False, True)):
            cases.append((f"core {n}p negotiation={neg}",
                          lambda n=n, neg=neg: core_case(n, neg, core_games, 100000)))
    for name, fn in cases:
        d = fn()
        total.update(d.encode())
        print(f"{name:<34} {d}", flush=True)
    print(f"{'combined':<34} {total.hexdigest()}   ({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
