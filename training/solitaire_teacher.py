"""The solitaire game's imitation teacher (config `pretrain` with `num_players: 1`): a search agent
(`ismcts` by default, which searches the player's VP and the win at the level) plays whole
solitaire games and every decision is recorded as the solitaire vector env's learner sees it: the
observation with the solitaire features, the mask, the teacher's action, and the value target,
the discounted return of the training reward from that decision on (reward 'vp': the VP scored
from this step to the end, each discounted by gamma per decision, as PPO's critic is trained;
'win_loss': gamma ** (decisions to come) x +1 / -1). The rule bot is no teacher here: it plays for
a faction, not for the player's VP.

The games are played by `workers` spawned processes (a search agent is Python around compiled
kernels: about 5 ms per decision at 200 iterations on this project's 2-core machine); game k of a
run has seed `seed * 1_000_003 + k`, so the data is a function of the config.
"""
from __future__ import annotations

import multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from .teacher import TeacherData

GAMES_PER_TASK = 4


def _play_games(spec: str, seeds: list[int], solitaire: dict, reward: str, gamma: float,
                obs_layout: str = "full") -> dict:
    """Play solitaire games with the teacher `spec`; the arrays of all their decisions."""
    from agents.base import make_agent, parse_agent_spec
    from agents.seat import observe_seat
    from v1919_env.envs.solitaire_features import solo_features
    from v1919_env.game import Game

    name, opts = parse_agent_spec(spec)
    obs, masks, acts, rets, vps = [], [], [], [], []
    for seed in seeds:
        agent = make_agent(name, **{"seed": seed, **opts})
        g = Game.new(1, seed=seed, **solitaire)
        gains = []
        while not g.is_over:
            o, m = observe_seat(g, 0, obs_layout=obs_layout)
            legal = g.legal_actions()
            a = int(legal[0]) if len(legal) == 1 else int(agent.act(o, m, g.clone()))
            obs.append(np.concatenate([o, solo_features(g)]).astype(np.float16))
            masks.append(m.astype(bool))
            acts.append(a)
            before = g.player_vp
            g.step(a)
            gains.append(float(g.player_vp - before))
        agent.close()
        n = len(gains)
        r = np.zeros(n, np.float64)
        if reward == "vp":
            r[:] = gains
        elif n:
            r[-1] = 1.0 if g.won else -1.0
        ret, g_t = np.zeros(n, np.float32), 0.0
        for t in range(n - 1, -1, -1):             # G_t = r_t + gamma G_{t+1}
            g_t = r[t] + gamma * g_t
            ret[t] = g_t
        rets.extend(ret.tolist())
        vps.append(g.player_vp)
    return {"obs": np.asarray(obs, np.float16), "masks": np.asarray(masks, bool), "actions": np.asarray(acts, np.int64),
            "returns": np.asarray(rets, np.float32), "vp": vps}


def solitaire_teacher_decisions(teacher: str, decisions: int, reward: str, gamma: float, seed: int,
                                solitaire: dict, workers: int = 1, progress: bool = False,
                                obs_layout: str = "full") -> TeacherData:
    """At least `decisions` recorded decisions (whole games) of the search agent `teacher` (an agent
    spec, e.g. "ismcts:iterations=200") in the solitaire game; `teacher_win_share` is the share of
    the games it won at the level. obs_layout: the observations' layout ('full' or 'compact')."""
    from tqdm import tqdm

    parts, n, k, won, games = [], 0, 0, 0, 0
    target = solitaire.get("target_vp", 20)
    bar = tqdm(total=decisions, unit="decision", unit_scale=True, disable=not progress, desc=f"{teacher} solitaire")

    def take(part: dict) -> None:
        nonlocal n, won, games
        parts.append(part)
        n += len(part["actions"])
        games += len(part["vp"])
        won += sum(v >= target for v in part["vp"])
        bar.update(len(part["actions"]))

    def next_seeds() -> list[int]:
        nonlocal k
        seeds = [seed * 1_000_003 + k + j for j in range(GAMES_PER_TASK)]
        k += GAMES_PER_TASK
        return seeds

    if workers <= 1:
        while n < decisions:
            take(_play_games(teacher, next_seeds(), solitaire, reward, gamma, obs_layout))
    else:       # results are taken in submission order, so the data does not depend on the timing
        with ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn")) as pool:
            queue = [pool.submit(_play_games, teacher, next_seeds(), solitaire, reward, gamma, obs_layout) for _ in range(workers)]
            while n < decisions:
                take(queue.pop(0).result())
                queue.append(pool.submit(_play_games, teacher, next_seeds(), solitaire, reward, gamma, obs_layout))
            for f in queue:
                f.cancel()
    bar.close()
    cat = {key: np.concatenate([p[key] for p in parts]) for key in ("obs", "masks", "actions", "returns")}
    return TeacherData(cat["obs"], cat["masks"], cat["actions"], cat["returns"], games, won / max(1, games))
