"""How fast the teacher searches: searched decisions per CPU second of the `guided` search at a given
number of simulations, the path before the lockstep engine against the engine, on the same positions
(`v1919 bench --selfplay`, docs/benchmarks.md).

Paths measured, each rule-free (the Gumbel root, the value head at the leaves) and with rule-bot
rollouts (the PUCT teacher of teacher_4p.yaml: rollout_mix 1, bot_prior 0.5):

- `per game, torch`: one game searched at a time, the network in torch once a seat a leaf: what
  `training.selfplay` did before the engine (the engine with one game and forward=torch searches
  exactly as that code did, same visits and moves);
- `lockstep, compiled`: every position searched in the same steps, the compiled forward pass;
- `lockstep, value per seat`: the same with a network that values every seat from the decider's row
  (one row a leaf; the shipped network given a SeatValueHead: for speed, its values untrained);
- `lockstep, compact`: the same on the compact observation (1,596 floats, docs/observation.md) with
  the shipped compact network (`agents/weights/compact_4p.zip`: the shipped body's size, a value per
  seat, distilled from the shipped network; `compact_net` another).

Each figure counts the searches of the positions given (`v1919 bench` gives 64 real positions: rule-bot
games, about one decision in twelve) repeated for at least `seconds` (the bench: in alternating rounds,
the median kept); with workers > 1 as many
processes search their own copies at once and the figure is their total. The engine also reports its forward pass's share of the time
and the rows a pass.
"""
from __future__ import annotations

import multiprocessing as mp
import time

import numpy as np

from v1919_env.bench import Section

SEARCHES = {"rule-free": {"root": "gumbel"}, "rule-bot rollouts": {"rollout_mix": 1.0, "bot_prior": 0.5}}
PATHS = ("per game, torch", "lockstep, compiled", "lockstep, value per seat", "lockstep, compact")


def seat_values_network(path: str) -> str:
    """The shipped 4-player network with a value head per seat (untrained columns: for speed only),
    saved once at `path`."""
    from pathlib import Path

    from sb3_contrib import MaskablePPO

    from agents.learned import DEFAULT_WEIGHTS

    from .policy import with_seat_values

    if not Path(path).is_file():
        with_seat_values(MaskablePPO.load(str(DEFAULT_WEIGHTS), device="cpu")).save(path)
    return path


def compact_network(path: str, body: dict | None = None) -> str:
    """An untrained network of `body` (default the shipped one's: trunk 256, heads 128) over the
    compact layout with a value head per seat (seed 0), saved at `path`: the speed of a body before
    it is trained (`measure(..., compact_net=path)`; a trained one costs the same)."""
    from sb3_contrib import MaskablePPO

    from .envs import SB3VectorEnv
    from .policy import policy_kwargs, with_seat_values

    body = body or {"trunk": [256], "pi": [128], "vf": [128], "activation": "relu"}
    env = SB3VectorEnv(num_envs=2, num_players=4, obs_layout="compact", seed=0)
    model = MaskablePPO("MlpPolicy", env, policy_kwargs=policy_kwargs({"policy": body}), n_steps=8, batch_size=16,
                        device="cpu", seed=0)
    with_seat_values(model).save(path)
    return path


def network_of(path_name: str, seat_net: str | None = None, compact_net: str | None = None) -> str | None:
    """The network a path searches (None: the shipped 4-player one): `seat_net` for the value per
    seat, `compact_net` (default the shipped compact network) for the compact path."""
    from agents.learned import COMPACT_WEIGHTS

    return {"lockstep, value per seat": seat_net,
            "lockstep, compact": compact_net or str(COMPACT_WEIGHTS)}.get(path_name)


def measure(path_name: str, search: str, positions: list, seconds: float, iterations: int = 32,
            seat_net: str | None = None, compact_net: str | None = None) -> dict:
    """Searched decisions per second and per CPU second of one path on `positions` (repeated for at
    least `seconds`), with the engine's forward share and rows a pass (lockstep paths); the networks
    as `network_of` gives them."""
    import torch

    from agents import make_agent
    from agents.batch_search import search as batch
    from agents.lockstep import Lockstep
    from v1919_env.core.bots import seed_policy_rng

    torch.set_num_threads(1)
    opts = {"iterations": iterations, "batch_size": 16, **SEARCHES[search]}
    if path_name == "per game, torch":
        agent = make_agent("guided", forward="torch", seed=0, **opts)

        def once():
            for g in positions:
                agent.act(None, g.action_mask(), g.clone())
            return {}
    else:
        from agents.guided import GuidedAgent

        net = network_of(path_name, seat_net, compact_net)
        extra = {"path": net, "players": 4} if net else {}
        agent = GuidedAgent(forward="compiled", **opts, **extra)
        eng = Lockstep(agent, len(positions), 4)             # made once, as a selfplay worker does

        def once():
            for i, g in enumerate(positions):
                eng.rng[i] = seed_policy_rng(i)
                eng.begin([i], g.state, g.T)
            t = eng.forward_seconds
            eng.run()
            return {"forward_s": eng.forward_seconds - t, "rows": eng.rows_evaluated, "passes": eng.steps}

        batch(positions[:1], **opts, **extra)            # compile and load outside the clock
    once()
    n, extra_t, t0, c0 = 0, {"forward_s": 0.0, "rows": 0, "passes": 0}, time.perf_counter(), time.process_time()
    while True:
        for k, v in once().items():
            extra_t[k] += v
        n += len(positions)
        if time.perf_counter() - t0 >= seconds:
            break
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    out = {"path": path_name, "search": search, "iterations": iterations, "searched": n,
           "searched_per_s": n / wall, "searched_per_cpu_s": n / cpu}
    if extra_t["passes"]:
        out["forward_share"] = extra_t["forward_s"] / wall
        out["rows_per_pass"] = extra_t["rows"] / extra_t["passes"]
    return out


def _worker(args):
    return measure(*args)


def bench_selfplay(positions: list, seconds: float = 3.0, workers=(1, 2), iterations: int = 32,
                   quiet: bool = False, rounds: int = 3) -> list[dict]:
    """Every path and search (module docstring) on `positions` (4-player games) with 1 and 2 worker
    processes; one row each. Each (search, workers) group measures its paths in `rounds` alternating
    rounds of `seconds` / `rounds` each, so that a machine whose speed drifts (a shared host's does,
    by up to a half within minutes) slows every path alike: a row is its median round, and its `x`
    the median of its rounds' ratios to the per-game path's."""
    import tempfile

    def once(path_name, search, secs, w, seat):
        args = (path_name, search, positions, secs, iterations, seat)
        if w == 1:
            res = [measure(*args)]
        else:
            with mp.get_context("spawn").Pool(w) as pool:
                res = pool.map(_worker, [args] * w)
        return {**res[0], "workers": w, "searched_per_s": sum(r["searched_per_s"] for r in res),
                "searched_per_cpu_s": float(np.mean([r["searched_per_cpu_s"] for r in res]))}

    with tempfile.TemporaryDirectory() as d:
        seat = seat_values_network(f"{d}/seat_values.zip")
        rows = []
        for search in SEARCHES:
            for w in workers:
                runs = {p: [] for p in PATHS}
                for k in range(rounds):
                    for path_name in PATHS:
                        if not quiet:
                            print(f"  selfplay: {search}, {w} worker(s), round {k + 1}/{rounds}: {path_name}",
                                  flush=True)
                        runs[path_name].append(once(path_name, search, seconds / rounds, w, seat))
                base = [r["searched_per_cpu_s"] for r in runs[PATHS[0]]]
                for path_name in PATHS:
                    rs = runs[path_name]
                    mid = sorted(rs, key=lambda r: r["searched_per_cpu_s"])[len(rs) // 2]
                    x = float(np.median([r["searched_per_cpu_s"] / b for r, b in zip(rs, base)]))
                    rows.append({**mid, "x": x, "rounds": rounds})
    return rows


def format_selfplay(rows: list[dict]) -> list[str]:
    base = {(r["search"], r["workers"]): r["searched_per_cpu_s"] for r in rows if r["path"] == PATHS[0]}
    rounds = rows[0].get("rounds", 1)
    lines = [f"  teacher search, {rows[0]['iterations']} simulations, 4 players, real positions "
             "(searched decisions; x: per CPU second against the per-game torch path"
             + (f"; each row the median of {rounds} alternating rounds):" if rounds > 1 else "):"),
             f"  {'search':<19}{'path':<26}{'workers':>8}{'/s':>9}{'/CPU s':>9}{'x':>7}{'forward':>9}{'rows/pass':>10}"]
    for r in rows:
        fwd = f"{r['forward_share']:.0%}" if "forward_share" in r else "-"
        rp = f"{r['rows_per_pass']:.0f}" if "rows_per_pass" in r else "-"
        x = r.get("x", r["searched_per_cpu_s"] / base[(r["search"], r["workers"])])
        lines.append(f"  {r['search']:<19}{r['path']:<26}{r['workers']:>8}{r['searched_per_s']:>9,.0f}"
                     f"{r['searched_per_cpu_s']:>9,.0f}{x:>7.1f}{fwd:>9}{rp:>10}")
    return lines


def _run_section(num_players: int, seconds: float, quiet: bool) -> list[dict]:
    from agents.arena.bench import real_positions

    return bench_selfplay(real_positions(4, 64), seconds, quiet=quiet)


SECTIONS = (Section("selfplay", _run_section,
                    lambda rows: ["v1919 bench --selfplay: searched decisions, one core a worker"] + format_selfplay(rows),
                    players=(4,), flag="selfplay",
                    help="only the teacher search: searched decisions per CPU second at 32 simulations, one game at "
                         "a time against the lockstep engine, 1 and 2 workers"),)
"""What training adds to `v1919 bench` (pyproject.toml's `v1919.bench` entry point names it)."""
