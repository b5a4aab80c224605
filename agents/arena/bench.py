"""The agents' lines of `v1919 bench` (entry point `v1919.bench`, pyproject.toml): rule-bot decisions/s
and ISMCTS iterations/s (`agents`), every agent's time per decision at real game positions
(`agents_real_positions`) and, alone with `--compile`, the cold compile of `v1919 demo` stage by stage
and its first move (`compile`)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

from v1919_env.bench import Section, _play_for, _progress, _repeat
from v1919_env.core.bots import POLICY_RULEBOT, play_games
from v1919_env.game import Game, card_tables

from ..base import AgentError, make_agent, parse_agent_spec
from ..seat import observe_seat


_COMPILE_SNIPPET = ("import json, resource, sys, time\n"
                    "from agents.arena.play import DEMO_LINEUP, parse_agents_arg\n"
                    "from agents.arena.precompile import precompile\n"
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



def mid_game_position(num_players: int, seed: int = 0, decisions: int = 150):
    """A position after `decisions` random decisions, at a decision with a real choice (the search
    benchmarks start here)."""
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


def _run_compile(num_players: int, seconds: float, quiet: bool) -> dict:
    n = max(2, num_players)
    runs = {}
    for name, env in COMPILE_MODES:
        _progress(f"cold compile, {name} (a new process, empty cache; a minute or more)", quiet)
        runs[name] = bench_compile(n, env)
    _progress("the demo's first move (a new process, empty cache)", quiet)
    return {"num_players": n, "modes": runs, "first_move": bench_first_move(n)}


def _run_agents(num_players: int, seconds: float, quiet: bool) -> dict:
    return bench_agents(card_tables(None)[1], num_players, seconds)


def _format_agents(a: dict) -> list[str]:
    return [f"  rulebot, every seat, compiled loop: {a['rulebot_decisions_per_s']:,.0f} decisions/s "
            f"({a['rulebot_decisions_per_game']:.0f} decisions per game)",
            f"  ismcts from a mid-game position ({a['search_position_legal']} legal actions after "
            f"{a['search_position_decisions']} decisions): {a['ismcts_random_iterations_per_s']:,.0f} "
            f"iterations/s with random rollouts, {a['ismcts_rulebot_iterations_per_s']:,.0f} with rulebot rollouts"]


SECTIONS = (
    Section("agents", _run_agents, _format_agents, progress="agents: rulebot games, ismcts iterations"),
    Section("agents_real_positions", lambda n, seconds, quiet: bench_agents_at_real_positions(n, seconds),
            format_real_positions, progress="agents at real game positions: " + ", ".join(REAL_POSITION_AGENTS),
            players=(2, 3, 4)),
    Section("compile", _run_compile,
            lambda r: format_compile(list(r["modes"].values()), r["num_players"], r["first_move"]),
            flag="compile", help="only the cold compile of `v1919 demo`, stage by stage, numba's default dispatch "
                                 "against one version per kernel (two new processes; minutes)"),
)
"""What this layer adds to `v1919 bench` (pyproject.toml's `v1919.bench` entry point names it)."""
