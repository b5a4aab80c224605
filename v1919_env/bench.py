"""`v1919 bench`: speed of uniformly random legal play (a script that prints figures, not a test).

Measures the batched kernel with the whole game loop compiled (batch 1, 256, 4096), the Python
`Game` facade (one call per decision), mean decisions per game, the cold compile time (fresh
cache in a subprocess) and the cached start time (a new process, warm cache); the 2-player and
solitaire games' batch-256 rates beside the 4-player game's; the agents' speed (rulebot
decisions/s, ismcts iterations/s from a mid-game position, and every agent's time per decision at
real game positions); the vector env's learner steps/s (64 and 256 games against random and rulebot opponents; alone with
`--vector`); random playouts through the OpenSpiel interface when pyspiel is installed.
"""
from __future__ import annotations

import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

_START_SNIPPET = ("import time; t=time.perf_counter(); from v1919_env.game import Game; import numpy as np; "
                  "g=Game.new(4, seed=1); r=np.random.default_rng(0)\n"
                  "while not g.is_over:\n a=g.legal_actions(); g.step(a[r.integers(len(a))])\n"
                  "from v1919_env.core.step import random_playout_batch, init_batch\n"
                  "from v1919_env.core.layout import STATE_SIZE\n"
                  "S=np.zeros((2, STATE_SIZE), np.int32); init_batch(S, g.T, 4, np.arange(2), 0, 0)\n"
                  "random_playout_batch(S, g.T, 1, 100000)\n"
                  "print(time.perf_counter()-t)")


def _progress(msg: str, quiet: bool) -> None:
    if not quiet:
        print(f"  .. {msg}", file=sys.stderr, flush=True)


def _timed_subprocess(env_extra: dict) -> float:
    env = dict(os.environ, **env_extra)
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _START_SNIPPET], env=env, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t
    return max(wall, float(out.stdout.strip().splitlines()[-1]))


_COMPILE_SNIPPET = ("import json, resource, sys, time\n"
                    "from agents.play import DEMO_LINEUP, parse_agents_arg\n"
                    "from agents.precompile import precompile\n"
                    "t = time.perf_counter()\n"
                    "out = precompile(parse_agents_arg(','.join(DEMO_LINEUP[:int(sys.argv[1])])), int(sys.argv[1]))\n"
                    "ru = resource.getrusage(resource.RUSAGE_SELF)\n"
                    "print(json.dumps({'stages': out, 'wall_s': time.perf_counter() - t, "
                    "'cpu_s': ru.ru_utime + ru.ru_stime}))")


COMPILE_MODES = (("numba default", {"V1919_LITERAL_DISPATCH": "1", "V1919_LINK_ONLY": "0"}),
                 ("one version per kernel", {"V1919_LITERAL_DISPATCH": "", "V1919_LINK_ONLY": "0"}),
                 ("+ callees linked only", {"V1919_LITERAL_DISPATCH": "", "V1919_LINK_ONLY": "1"}))
"""The cold compiles `v1919 bench --compile` compares: numba's default dispatch, one compiled version
per kernel (v1919_env/core/__init__.py), and callees compiled for linking only (core/link_only.py)."""


def bench_compile(num_players: int = 4, env_extra: dict | None = None) -> dict:
    """Cold compile of what `v1919 demo` runs (the rules core, then each demo agent's kernels), in a
    new process with an empty cache: per stage the kernels compiled and the seconds, and the whole
    process's wall-clock and CPU seconds (CPU is steadier on a busy machine). `env_extra`: one of
    COMPILE_MODES' environments."""
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, NUMBA_CACHE_DIR=d, **(env_extra or {}))
        t = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", _COMPILE_SNIPPET, str(num_players)], env=env,
                             capture_output=True, text=True, check=True)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res["process_wall_s"] = time.perf_counter() - t
    return res


_MOVE_LINE = re.compile(r"^\s*\d+  \S")


def bench_first_move(num_players: int = 4, timeout: float = 1800.0) -> dict:
    """`v1919 demo --players N` in a new process with an empty cache (V1919_CACHE): seconds from its
    start to its first printed move, and to each line it wrote on stderr before (the compile stages);
    the demo is stopped there."""
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, V1919_CACHE=d, PYTHONUNBUFFERED="1")
        env.pop("NUMBA_CACHE_DIR", None)
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "v1919_env.cli", "demo", "--players", str(num_players)],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines: list[tuple[float, str]] = []

        def read_stderr():
            for line in proc.stderr:
                lines.append((time.perf_counter() - t0, line.rstrip()))

        reader = threading.Thread(target=read_stderr, daemon=True)
        reader.start()
        first = None
        try:
            for line in proc.stdout:
                if _MOVE_LINE.match(line):
                    first = (time.perf_counter() - t0, line.rstrip())
                    break
                if time.perf_counter() - t0 > timeout:
                    break
        finally:
            proc.kill()
            proc.wait()
            reader.join(timeout=5)
    if first is None:
        raise RuntimeError("the demo printed no move: " + " / ".join(x for _, x in lines[-5:]))
    return {"first_move_s": first[0], "first_move": first[1],
            "stderr": [(round(t, 1), x) for t, x in lines if t <= first[0]]}


def format_compile(runs: list[dict], num_players: int, first: dict | None = None) -> list[str]:
    """The cold-compile table of `v1919 bench --compile` (one column per COMPILE_MODES entry)."""
    names = [m for m, _ in COMPILE_MODES]
    lines = [f"v1919 bench --compile: cold compile of `v1919 demo --players {num_players}` (a new process, empty "
             f"cache)", f"  {'stage':<30}" + "".join(f"{n:>26}" for n in names)]
    for k, st in enumerate(runs[-1]["stages"]):
        lines.append(f"  {st['stage'][:30]:<30}" + "".join(
            f"{r['stages'][k]['seconds']:>12.1f} s {r['stages'][k]['compiled']:>4} kernels" for r in runs))
    for key, what in (("wall_s", "all stages, wall-clock"), ("cpu_s", "the process, CPU")):
        lines.append(f"  {what:<30}" + "".join(f"{r[key]:>24.1f} s" for r in runs)
                     + f"   ({100 * (runs[-1][key] / runs[0][key] - 1):+.0f}%)")
    if first is not None:
        lines.append(f"  first move of `v1919 demo` (a new process, empty cache): {first['first_move_s']:.1f} s "
                     f"after its start")
        lines += [f"    {t:>6.1f} s  {x}" for t, x in first["stderr"]]
        lines.append(f"    {first['first_move_s']:>6.1f} s  {first['first_move'].strip()}")
    return lines


def _repeat(fn, seconds: float, rounds: int = 5) -> tuple[float, float, dict]:
    """Run fn(budget) `rounds` times; (median rate, best rate, totals) of its (decisions, games, dt)."""
    rates, tot = [], {"decisions": 0, "games": 0, "seconds": 0.0}
    for _ in range(rounds):
        d, g, dt = fn(seconds / rounds)
        rates.append((d / dt, g / dt))
        tot["decisions"] += d
        tot["games"] += g
        tot["seconds"] += dt
    rates.sort()
    return rates[len(rates) // 2], rates[-1], tot


def _play_for(play, budget: float):
    """Call `play()` (returns steps, games) until `budget` seconds have passed: (steps, games, seconds)."""
    steps = games = 0
    t0 = time.perf_counter()
    while True:
        k, n = play()
        steps += k
        games += n
        dt = time.perf_counter() - t0
        if dt >= budget:
            return steps, games, dt


def bench_batched(T, num_players: int, batch: int, seconds: float, seed: int = 0) -> dict:
    """Random games played to the end by the compiled loop, `batch` games per call. decisions: the
    actions the random policy takes (in the solitaire game the player's only); all_decisions: the
    game's decision counter (in the solitaire game also the bots' decisions the kernel takes)."""
    from .core.layout import DECISIONS, STATE_SIZE
    from .core.step import init_batch, random_playout_batch

    S = np.zeros((batch, STATE_SIZE), np.int32)
    state = {"round": 0, "all": 0}

    def play():
        r = state["round"]
        state["round"] += 1
        init_batch(S, T, num_players, np.arange(batch, dtype=np.int64) + seed * 1_000_003 + r * batch, 0, 0)
        k = random_playout_batch(S, T, seed + r, 1_000_000)
        state["all"] += int(S[:, DECISIONS].sum())
        return k, batch

    med, best, tot = _repeat(lambda budget: _play_for(play, budget), seconds)
    return {"batch": batch, "decisions_per_s": med[0], "games_per_s": med[1], "best_decisions_per_s": best[0],
            "best_games_per_s": best[1], "decisions_per_game": tot["decisions"] / tot["games"], "games": tot["games"],
            "all_decisions_per_game": state["all"] / max(state["round"] * batch, 1)}


def bench_facade(num_players: int, seconds: float, seed: int = 0) -> dict:
    """The Python facade: one legal_actions() and one step() call per decision."""
    from .game import Game

    rng = random.Random(seed)          # the policy's own cost kept small: this measures the facade
    state = {"games": 0}

    def play():
        g = Game.new(num_players, seed=seed + state["games"])
        state["games"] += 1
        while not g.is_over:
            acts = g.legal_actions()
            g.step(acts[int(rng.random() * len(acts))])
        return g.decisions_taken, 1

    med, best, tot = _repeat(lambda budget: _play_for(play, budget), seconds)
    return {"decisions_per_s": med[0], "games_per_s": med[1], "best_decisions_per_s": best[0], "games": tot["games"]}


def bench_envs(num_players: int, seconds: float, seed: int = 0) -> dict:
    """AEC env steps/s (observation and mask built every step, random legal actions) and the
    Gymnasium env's steps/s (learner seat random; opponents random)."""
    from . import env as aec_env
    from v1919_env.envs.gymnasium_env import Versailles1919Env

    rng = random.Random(seed)
    e = aec_env(num_players)
    state = {"k": 0}

    def aec_game():
        e.reset(seed=seed + state["k"])
        state["k"] += 1
        steps = 0
        for _agent in e.agent_iter():
            obs, rew, term, trunc, info = e.last()
            if term or trunc:
                e.step(None)
                continue
            legal_ids = obs["action_mask"].nonzero()[0]
            e.step(int(legal_ids[int(rng.random() * len(legal_ids))]))
            steps += 1
        return steps, 1

    def aec(budget):
        return _play_for(aec_game, budget)

    aec(0.0)
    med_a, best_a, tot_a = _repeat(aec, seconds)
    genv = Versailles1919Env(num_players=num_players)

    def gym_game():
        obs, info = genv.reset(seed=seed + state["k"])
        state["k"] += 1
        steps, done = 0, False
        while not done:
            legal_ids = obs["action_mask"].nonzero()[0]
            obs, r, term, trunc, info = genv.step(int(legal_ids[int(rng.random() * len(legal_ids))]))
            done = term or trunc
            steps += 1
        return steps, 1

    def gym(budget):
        return _play_for(gym_game, budget)

    gym(0.0)
    med_g, best_g, tot_g = _repeat(gym, seconds)
    from pettingzoo.test import performance_benchmark
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        performance_benchmark(aec_env(num_players))
    return {"aec_steps_per_s": med_a[0], "aec_best_steps_per_s": best_a[0],
            "gym_steps_per_s": med_g[0], "gym_best_steps_per_s": best_g[0],
            "pettingzoo_performance_benchmark": buf.getvalue().strip()}


VECTOR_SIZES = (64, 256)
VECTOR_OPPONENTS = ("random", "rulebot")


def bench_vector_env(num_players: int, seconds: float, sizes=VECTOR_SIZES, opponents=VECTOR_OPPONENTS,
                     seed: int = 0, rounds: int = 9) -> list[dict]:
    """Learner steps/s of the vector env (v1919_env.envs.vector_env) for each number of games in `sizes`
    against each compiled opponent: one step = VectorEnv.step (SB3 protocol: the learner's actions,
    the opponents' decisions up to its next ones, rewards, auto-reset, infos, observations and
    masks). Two envs per row, stepped in alternating rounds (so both see the same machine load):
    the default (`steps_per_s`) and score_info=False (`no_score_info_steps_per_s`: no Python
    scoring of ended games). Rates are learner steps per second of the process's CPU time (one
    core; time waiting for a busy machine's CPU excluded), medians of `rounds` rounds after 200
    warm-up steps; `*_wall` are the same per wall-clock second, `best_*` the best round. The
    learner's actions (uniformly random legal) are drawn outside the timed calls."""
    from v1919_env.envs.vector_env import VectorEnv
    from v1919_env.envs.vector_kernels import G_NLEGAL

    def play(env, rng, budget) -> tuple[int, float, float]:
        n, rows = env.num_envs, np.arange(env.num_envs)
        steps, cpu, wall = 0, 0.0, 0.0
        while steps == 0 or cpu < budget:
            pick = (rng.random(n) * env.G[:, G_NLEGAL]).astype(np.int64)   # from the learner's legal list
            acts = env._legal[rows, pick].astype(np.int64)
            c, w = time.thread_time(), time.perf_counter()
            env.step(acts)
            cpu += time.thread_time() - c
            wall += time.perf_counter() - w
            steps += n
        return steps, cpu, wall

    variants = (("steps_per_s", True), ("no_score_info_steps_per_s", False))
    out = []
    for opp in opponents:
        for n in sizes:
            row = {"num_envs": n, "opponent": opp}
            envs = [VectorEnv(num_envs=n, num_players=num_players, opponents=[opp], seed=seed, score_info=si)
                    for _, si in variants]
            rngs = [np.random.default_rng(seed) for _ in variants]
            for env, rng in zip(envs, rngs):
                env.reset()
                for _ in range(200):                 # the games' phases spread out (all start at turn 1)
                    play(env, rng, 0.0)
            res = [[] for _ in variants]
            for _ in range(rounds):
                for k, (env, rng) in enumerate(zip(envs, rngs)):
                    res[k].append(play(env, rng, seconds / rounds / len(variants)))
            for (key, _), r in zip(variants, res):
                cpu_rates = sorted(st / c for st, c, _ in r)
                wall_rates = sorted(st / w for st, _, w in r)
                row[key] = cpu_rates[len(r) // 2]
                row["best_" + key] = cpu_rates[-1]
                row[key + "_wall"] = wall_rates[len(r) // 2]
            out.append(row)
    return out


def format_vector(rows: list[dict]) -> list[str]:
    """Table lines of bench_vector_env's rows."""
    lines = ["  vector env, VectorEnv.step with observations + masks, rewards, auto-reset (learner steps per CPU "
             "second, one core; goal 500,000 at 256 games vs random):",
             f"    {'opponents':<11}{'games':>6}{'steps/s':>11}{'(wall)':>11}{'without scores in infos':>25}"
             f"{'(wall)':>11}"]
    for r in rows:
        lines.append(f"    {r['opponent']:<11}{r['num_envs']:>6}{r['steps_per_s']:>11,.0f}"
                     f"{r['steps_per_s_wall']:>11,.0f}{r['no_score_info_steps_per_s']:>25,.0f}"
                     f"{r['no_score_info_steps_per_s_wall']:>11,.0f}")
    return lines


def bench_render(num_players: int, seconds: float, seed: int = 0) -> dict:
    """Board pictures of every position of a random game, in order (as a video records them):
    SVG documents/s (Game.to_svg) and rgb_array frames/s (Pillow; needs the render extra)."""
    from v1919_env.envs.conformance import play_random
    from .game import Game

    g = Game.new(num_players, seed=seed)
    positions = [g.clone()]
    play_random(g, np.random.default_rng(seed), lambda game, _prev: positions.append(game.clone()))
    state = {"k": 0}

    def rate(draw):
        def play():
            for _ in range(20):
                draw(positions[state["k"] % len(positions)])
                state["k"] += 1
            return 20, 0
        return _repeat(lambda budget: _play_for(play, budget), seconds)[0][0]

    res = {"positions": len(positions), "svg_per_s": rate(Game.to_svg)}
    try:
        from v1919_env.view.raster import board_rgb
        board_rgb(positions[0])
    except ImportError as e:
        res["rgb_array_per_s"], res["rgb_array_note"] = None, str(e)
        return res
    res["rgb_array_per_s"] = rate(board_rgb)
    res["frame_shape"] = list(board_rgb(positions[0]).shape)
    return res


def bench_openspiel(num_players: int, seconds: float, seed: int = 0) -> dict:
    """Random playouts through the OpenSpiel interface (openspiel_game.py; needs the openspiel
    extra): the deal, then legal_actions() and apply_action() per decision, every call via pyspiel."""
    try:
        import pyspiel

        from v1919_env.envs import openspiel_game
    except ImportError as e:
        return {"decisions_per_s": None, "note": str(e)}
    game = pyspiel.load_game(openspiel_game.SHORT_NAME, {"players": num_players})
    rng = random.Random(seed)
    state = {"games": 0}

    def play():
        st = game.new_initial_state()
        st.apply_action(seed + state["games"])
        state["games"] += 1
        k = 0
        while not st.is_terminal():
            acts = st.legal_actions()
            st.apply_action(acts[int(rng.random() * len(acts))])
            k += 1
        return k, 1

    play()
    med, best, _ = _repeat(lambda budget: _play_for(play, budget), seconds)
    return {"decisions_per_s": med[0], "games_per_s": med[1], "best_decisions_per_s": best[0]}


def bench_modes(T, seconds: float, res: dict) -> list[dict]:
    """The 2-player and solitaire games at batch 256 beside the 4-player game's rate (each measured
    here unless `res`, the run so far, is that game's run): the issue's goal is within 2x of the
    4-player decisions/s. The solitaire game's decisions are the player's; `all_decisions_per_game`
    adds the bots' (taken inside the kernel)."""
    four = res["batched"][1] if res["num_players"] == 4 else bench_batched(T, 4, 256, seconds)
    out = []
    for n, label in ((2, "2-player game"), (1, "solitaire game")):
        r = res["batched"][1] if res["num_players"] == n else bench_batched(T, n, 256, seconds)
        out.append({"label": label, "num_players": n, "decisions_per_s": r["decisions_per_s"],
                    "games_per_s": r["games_per_s"], "decisions_per_game": r["decisions_per_game"],
                    "all_decisions_per_game": r["all_decisions_per_game"],
                    "ratio_to_4p": r["decisions_per_s"] / four["decisions_per_s"],
                    # the kernel's rate counting the bots' decisions too (equal to the above outside solitaire)
                    "all_ratio_to_4p": (r["decisions_per_s"] * r["all_decisions_per_game"] / r["decisions_per_game"]
                                        / four["decisions_per_s"]),
                    "games_ratio_to_4p": r["games_per_s"] / four["games_per_s"]})
    return out


def mid_game_position(num_players: int, seed: int = 0, decisions: int = 150):
    """A position after `decisions` random decisions, at a decision with a real choice (the search
    benchmarks start here)."""
    from .game import Game

    g = Game.new(num_players, seed=seed)
    rng = np.random.default_rng(seed)
    while not g.is_over and (g.decisions_taken < decisions or len(g.legal_actions()) < 2):
        acts = g.legal_actions()
        g.step(acts[rng.integers(len(acts))])
    return g


def bench_agents(T, num_players: int, seconds: float, seed: int = 0) -> dict:
    """The agents' speed on one core: rule-bot decisions/s (every seat a rule bot, whole games in the
    compiled loop); ISMCTS iterations/s from a mid-game position with random and with rule-bot
    rollouts. Every agent's time per decision at real positions: bench_agents_at_real_positions."""
    from agents import make_agent
    from .core.bots import POLICY_RULEBOT, play_games

    n = 8
    sc, win, dec = np.zeros((n, 4), np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    pol = np.full(4, POLICY_RULEBOT, np.int64)
    state = {"round": 0}

    def rulebot_games():
        state["round"] += 1
        return play_games(n, num_players, T, pol, seed + state["round"] * n, 0, 0, sc, win, dec), n

    rulebot_games()
    med_r, best_r, tot_r = _repeat(lambda budget: _play_for(rulebot_games, budget), seconds)
    g = mid_game_position(num_players, seed)
    res = {"rulebot_decisions_per_s": med_r[0], "rulebot_best_decisions_per_s": best_r[0],
           "rulebot_decisions_per_game": tot_r["decisions"] / tot_r["games"],
           "search_position_decisions": g.decisions_taken, "search_position_legal": len(g.legal_actions())}
    for rollout in ("random", "rulebot"):
        agent = make_agent("ismcts", iterations=200, rollout=rollout, seed=seed)
        agent.search(g)
        med, best, _ = _repeat(lambda budget: _play_for(lambda: (agent.search(g), 0), budget), seconds)
        res[f"ismcts_{rollout}_iterations_per_s"] = med[0]
        res[f"ismcts_{rollout}_best_iterations_per_s"] = best[0]
    return res


REAL_POSITION_AGENTS = ("random", "rulebot", "greedy", "ismcts:iterations=200", "ismcts:iterations=1000", "learned",
                        "guided:iterations=256", "guided:iterations=256,rollout_mix=1",
                        "guided:iterations=256,rollout_mix=1,bot_prior=0.5")
"""The agents `v1919 bench` times at real game positions (`learned` and `guided` only where their weights
and torch are)."""


def real_positions(num_players: int, count: int = 60, seed: int = 0) -> list:
    """`count` positions of whole rulebot games (every seat the rule bot), spread evenly over each
    game: about one decision in twelve, from the first decision to the last, so the mix of
    decisions (turns, bids, events, drafts) and legal-action counts is the one agents meet."""
    from agents import make_agent
    from .game import Game

    rng, out, k = np.random.default_rng(seed), [], 0
    while len(out) < count:
        g = Game.new(num_players, seed=seed + k)
        bots = [make_agent("rulebot", seed=seed + k * 8 + p) for p in range(num_players)]
        k += 1
        while not g.is_over and len(out) < count:
            if rng.random() < 1 / 12:
                out.append(g.clone())
            g.step(bots[g.current_player].act(None, g.action_mask(), g.clone()))
    return out


def bench_agents_at_real_positions(num_players: int, seconds: float, positions: int = 60, seed: int = 0,
                                   specs=REAL_POSITION_AGENTS) -> dict:
    """Time per decision of each agent over the same real positions (`real_positions`): every agent
    decides at every position (the first pass also compiles), then again in rounds until `seconds`
    have passed; mean and median milliseconds per decision, and decisions/s from the mean."""
    from agents import AgentError, make_agent, parse_agent_spec
    from agents.play import observe_seat

    games = real_positions(num_players, positions, seed)
    views = [(g, *observe_seat(g, g.current_player)) for g in games]
    res = {"positions": len(games), "mean_legal": float(np.mean([int(m.sum()) for _, _, m in views])),
           "decisions_into_games": [int(g.decisions_taken) for g in games], "agents": {}}
    for text in specs:
        name, opts = parse_agent_spec(text)
        try:
            agent = make_agent(name, seed=seed, **opts)
            agent.reset(seed)
            for g, obs, mask in views:              # compiles, loads weights
                agent.act(obs, mask, g.clone() if agent.needs_game else None)
        except (AgentError, ImportError, OSError, ValueError) as e:
            res["agents"][text] = {"skipped": f"{type(e).__name__}: {e}"}
            continue
        times = []
        t_end = time.perf_counter() + seconds
        while not times or time.perf_counter() < t_end:
            for g, obs, mask in views:
                game = g.clone() if agent.needs_game else None
                t0 = time.perf_counter()
                agent.act(obs, mask, game)
                times.append(time.perf_counter() - t0)
        agent.close()
        mean = float(np.mean(times))
        res["agents"][text] = {"decisions": len(times), "mean_ms": 1e3 * mean,
                               "median_ms": 1e3 * float(np.median(times)), "decisions_per_s": 1 / mean}
    return res


def format_real_positions(r: dict) -> list[str]:
    """The `v1919 bench` lines of `bench_agents_at_real_positions`."""
    lines = [f"  agents at {r['positions']} real positions (rulebot games, about one decision in twelve; "
             f"{r['mean_legal']:.0f} legal actions on average), time per decision:"]
    for text, a in r["agents"].items():
        if "skipped" in a:
            lines.append(f"    {text:<24} not measured ({a['skipped'][:80]})")
        else:
            lines.append(f"    {text:<24} {a['mean_ms']:>9.3f} ms mean {a['median_ms']:>9.3f} ms median "
                         f"{a['decisions_per_s']:>12,.0f} decisions/s")
    return lines


def run(num_players: int = 4, seconds: float = 3.0, cold: bool = True, quiet: bool = False,
        envs: bool = False) -> dict:
    """All benchmark figures as one dict (see the module docstring)."""
    from .game import card_tables

    _progress("warming up (compiles on the first run on this machine)", quiet)
    cs, T = card_tables(None)
    bench_batched(T, num_players, 2, 0.0)
    bench_facade(num_players, 0.0)
    res = {"num_players": num_players, "card_set": cs.label, "batched": []}
    for b in (1, 256, 4096):
        _progress(f"batched kernel, batch {b}", quiet)
        res["batched"].append(bench_batched(T, num_players, b, seconds))
    _progress("facade (one Python call per decision)", quiet)
    res["facade"] = bench_facade(num_players, seconds)
    tot_d = sum(r["decisions_per_game"] * r["games"] for r in res["batched"])
    res["decisions_per_game"] = tot_d / sum(r["games"] for r in res["batched"])
    _progress("game modes: the 2-player and solitaire games beside the 4-player game, batch 256", quiet)
    res["modes"] = bench_modes(T, seconds, res)
    if cold:
        _progress("cold compile in a fresh cache (a subprocess; takes a few minutes)", quiet)
        with tempfile.TemporaryDirectory() as d:
            res["compile_s_cold"] = _timed_subprocess({"NUMBA_CACHE_DIR": d})
    else:
        res["compile_s_cold"] = None
    _progress("cached start in a new process", quiet)
    res["start_s_cached"] = _timed_subprocess({})
    _progress("agents: rulebot games, ismcts iterations", quiet)
    res["agents"] = bench_agents(T, num_players, seconds)
    if num_players >= 2:               # the solitaire agents: tools/solitaire_agents.py
        _progress("agents at real game positions: " + ", ".join(REAL_POSITION_AGENTS), quiet)
        res["agents_real_positions"] = bench_agents_at_real_positions(num_players, seconds)
    if num_players >= 2:               # the vector env has 2 to 4 players
        _progress("vector env: 64 and 256 games, learner steps against random and rulebot opponents", quiet)
        res["vector_env"] = bench_vector_env(num_players, seconds)
    _progress("board pictures: SVG and rgb_array frames", quiet)
    res["render"] = bench_render(num_players, seconds)
    if num_players >= 3:
        _progress("OpenSpiel: random playouts through pyspiel", quiet)
        res["openspiel"] = bench_openspiel(num_players, seconds)
    if envs:
        _progress("PettingZoo AEC and Gymnasium environments", quiet)
        res["envs"] = bench_envs(num_players, seconds)
    return res


def format_table(res: dict) -> str:
    players = "the solitaire game" if res["num_players"] == 1 else f"{res['num_players']} players"
    lines = [f"v1919 bench: {players}, uniformly random legal play, one core ({res['card_set']})",
             f"  {'mode':<28}{'decisions/s':>14}{'games/s':>12}"]
    for r in res["batched"]:
        lines.append(f"  {'batched kernel, batch ' + str(r['batch']):<28}{r['decisions_per_s']:>14,.0f}"
                     f"{r['games_per_s']:>12,.1f}")
    f = res["facade"]
    lines.append(f"  {'Game facade (Python loop)':<28}{f['decisions_per_s']:>14,.0f}{f['games_per_s']:>12,.1f}")
    lines.append(f"  mean decisions per game: {res['decisions_per_game']:.1f}")
    for m in res.get("modes", ()):
        bots = (f", {m['all_decisions_per_game']:.0f} with the bots'; counting the bots' decisions "
                f"{m['all_ratio_to_4p']:.2f}x" if m["num_players"] == 1 else "")
        lines.append(f"  {m['label']}, batch 256: {m['decisions_per_s']:,.0f} decisions/s, {m['games_per_s']:,.1f} "
                     f"games/s ({m['decisions_per_game']:.0f} decisions per game; {m['ratio_to_4p']:.2f}x the "
                     f"4-player decisions/s{bots}; goal 0.5x or more; {m['games_ratio_to_4p']:.2f}x its games/s)")
    if res["compile_s_cold"] is not None:
        lines.append(f"  cold compile (fresh cache, whole first game): {res['compile_s_cold']:.1f} s")
    lines.append(f"  cached start (new process to first game played): {res['start_s_cached']:.2f} s")
    lines.append("  (rates: median of 5 rounds; the JSON also has the best round)")
    a = res.get("agents")
    if a:
        lines.append(f"  rulebot, every seat, compiled loop: {a['rulebot_decisions_per_s']:,.0f} decisions/s "
                     f"({a['rulebot_decisions_per_game']:.0f} decisions per game)")
        lines.append(f"  ismcts from a mid-game position ({a['search_position_legal']} legal actions after "
                     f"{a['search_position_decisions']} decisions): {a['ismcts_random_iterations_per_s']:,.0f} "
                     f"iterations/s with random rollouts, {a['ismcts_rulebot_iterations_per_s']:,.0f} with rulebot rollouts")
    if res.get("agents_real_positions"):
        lines += format_real_positions(res["agents_real_positions"])
    if res.get("vector_env"):
        lines += format_vector(res["vector_env"])
    r = res.get("render")
    if r:
        raster = (f"{r['rgb_array_per_s']:,.0f} rgb_array frames/s {tuple(r['frame_shape'])}"
                  if r["rgb_array_per_s"] is not None else f"no rgb_array ({r['rgb_array_note']})")
        lines.append(f"  board pictures over a game's {r['positions']} positions: {r['svg_per_s']:,.0f} SVG/s, "
                     f"{raster}")
    o = res.get("openspiel")
    if o:
        lines.append(f"  OpenSpiel interface (pyspiel calls, random playouts): {o['decisions_per_s']:,.0f} "
                     f"decisions/s, {o['games_per_s']:,.1f} games/s" if o["decisions_per_s"] is not None
                     else f"  OpenSpiel interface: not measured ({o['note']})")
    if "envs" in res:
        e = res["envs"]
        lines.append(f"  PettingZoo AEC env, observation + mask every step: {e['aec_steps_per_s']:,.0f} steps/s")
        lines.append(f"  Gymnasium env (one learning seat, random opponents): {e['gym_steps_per_s']:,.0f} steps/s")
        lines.append("  pettingzoo.test.performance_benchmark: " + " | ".join(e["pettingzoo_performance_benchmark"]
                                                                            .splitlines()))
    return "\n".join(lines)


def check_args(args) -> str | None:
    """Why the parsed `v1919 bench` options cannot run (a one-line usage error), or None."""
    if args.players not in (1, 2, 3, 4):
        return f"--players: 1, 2, 3 or 4, got {args.players}"
    if not math.isfinite(args.seconds) or args.seconds <= 0:
        return f"--seconds: a positive number of seconds (the least time per measurement), got {args.seconds}"
    if getattr(args, "vector", False) and args.players < 2:
        return "--vector: the vector env has 2 to 4 players"
    if getattr(args, "selfplay", False) and args.players != 4:
        return "--selfplay: the teacher search is measured in the 4-player game"
    only = [f"--{k}" for k in ("vector", "compile", "selfplay") if getattr(args, k, False)]
    if len(only) >= 2:
        return f"{' and '.join(only)} each measure one thing alone: give one of them"
    for k in ("env", "no_cold"):
        if only and getattr(args, k, False):
            return f"--{k.replace('_', '-')}: an option of the full bench, not of {only[0]}"
    return None


def main(args) -> int:
    problem = check_args(args)
    if problem is not None:
        print(f"v1919 bench: error: {problem}", file=sys.stderr)
        return 2
    if getattr(args, "compile", False):          # only the cold compile, numba's default against ours
        n = max(2, args.players)
        runs = []
        for name, env in COMPILE_MODES:
            _progress(f"cold compile, {name} (a new process, empty cache; a minute or more)", args.json)
            runs.append(bench_compile(n, env))
        _progress("the demo's first move (a new process, empty cache)", args.json)
        first = bench_first_move(n)
        res = {"num_players": n, "compile": {m: r for (m, _), r in zip(COMPILE_MODES, runs)}, "first_move": first}
        print(json.dumps(res) if args.json else "\n".join(format_compile(runs, n, first)))
        return 0
    if getattr(args, "selfplay", False):         # only the teacher search's throughput
        from training.throughput import bench_selfplay, format_selfplay

        res = {"num_players": 4, "selfplay": bench_selfplay(real_positions(4, 64), args.seconds, quiet=args.json)}
        text = "\n".join(["v1919 bench --selfplay: searched decisions, one core a worker"]
                         + format_selfplay(res["selfplay"]))
    elif getattr(args, "vector", False):         # only the vector env figures
        res = {"num_players": args.players, "vector_env": bench_vector_env(args.players, args.seconds)}
        text = "\n".join([f"v1919 bench --vector: {args.players} players, one core"] + format_vector(res["vector_env"]))
    else:
        res = run(args.players, args.seconds, cold=not args.no_cold, quiet=args.json, envs=args.env)
        text = format_table(res)
    print(json.dumps(res) if args.json else text)
    return 0
