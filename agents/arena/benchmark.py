"""`v1919 benchmark AGENT_SPEC`: one agent against the standard lineups, and the table users cite.

The standard lineups live here (`LINEUPS`), and only here: for each, the agent plays a tournament
(agents/tournament) against num_players - 1 copies of the lineup's opponent, its seat rotated
through every seat on duplicate deals (`duplicate: true`: the num_players games of a rotation share
one deal, so every deal is played from every seat and the luck of the deal and of the nation
cancels). Each lineup is its own resumable tournament directory under the output directory
(`<out>/<lineup>/games.jsonl`); every lineup uses the same base seed, so the agent meets every
lineup on the same deals. The figures, computed from the records alone (tournament/stats.py,
ladder.py), per lineup and over all of them:

- win rate (a shared win counts 1/k to each of the k winners) with Wilson's 95% interval (as many
  independent games would have; the interval with the deals as clusters, ladder.cluster_interval,
  is in the JSON);
- mean rank (1 = first, tied seats share the better rank);
- the agent's wall-clock ms per decision in act();
- the win rate per nation the agent was seated as.

Written as benchmark.json and benchmark.md in the output directory, and printed.

The strongest lineup is the guided search with rule-bot rollouts (the top of docs/ladder.md); it
needs torch (the train extra) and the shipped network weights (agents/weights). Where it cannot be
built, that lineup is skipped and the report says why.
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from ..base import AgentError, agent_names, make_agent, parse_agent_spec

LINEUPS: dict[str, str] = {
    "rulebot": "rulebot",
    "greedy": "greedy",
    "ismcts": "ismcts",
    "strongest": "guided:iterations=256,rollout_mix=1,bot_prior=0.5",
}
"""The standard lineups: name -> the opponent's agent spec (num_players - 1 copies of it sit at the
table with the benchmarked agent)."""

DEFAULT_GAMES = 96
"""Games per lineup by default: a multiple of 2, 3 and 4 (a whole number of seat rotations)."""
DEFAULT_OUT = Path("runs") / "benchmarks"


class BenchmarkError(ValueError):
    """Bad input to the benchmark (printed as one line)."""


def check_agent(spec: str) -> tuple[str, dict]:
    """(name, options) of an agent spec that builds and plays without a person; BenchmarkError if not."""
    try:
        name, opts = parse_agent_spec(spec)
    except AgentError as e:
        raise BenchmarkError(str(e) if str(e).startswith("agent spec") else f"agent spec {spec!r}: {e}") from None
    if name not in agent_names():
        raise BenchmarkError(f"unknown agent {name!r} in {spec!r}; agents: {', '.join(agent_names())}")
    reason = _unbuildable(name, opts)
    if reason is not None:
        raise BenchmarkError(f"agent {spec!r}: {reason}")
    return name, opts


def _unbuildable(name: str, opts: dict) -> str | None:
    """Why the agent cannot sit in a benchmark (None: it can)."""
    try:
        agent = make_agent(name, **opts)
    except AgentError as e:
        return str(e)
    except ImportError as e:        # learned / guided without torch
        return f"needs {e.name or 'a module that is not installed'} (pip install 'v1919-env[train]')"
    interactive = getattr(agent, "interactive", False)
    agent.close()
    if interactive:
        return "needs a person at the terminal; a benchmark cannot seat it"
    try:
        json.dumps(opts)
    except TypeError as e:
        return f"options must be plain values ({e})"
    return None


def check_games(games: int, num_players: int) -> None:
    """Games per lineup: a positive multiple of num_players (one deal is played in each of the
    num_players seat rotations)."""
    if num_players not in (2, 3, 4):
        raise BenchmarkError(f"--players: 2, 3 or 4, got {num_players}")
    if games <= 0 or games % num_players:
        lo = games - games % num_players if games > 0 else 0
        use = f"{lo} or {lo + num_players}" if lo else f"{num_players}"
        raise BenchmarkError(f"--games: a positive multiple of {num_players} per lineup (each deal is played with "
                             f"the seats rotated {num_players} times, so every seat is played equally), got {games}; "
                             f"use {use}")


def lineup_config(spec: str, lineup: str, opponent: str, num_players: int, games: int, seed: int,
                  workers: int | None, modules: list[str] | None = None):
    """The TournamentConfig of the agent against num_players - 1 copies of `opponent`."""
    from .tournament import config_from_dict

    oname, oopts = parse_agent_spec(opponent)
    label = spec.strip()
    opp_labels = [f"{lineup}-{k}" for k in range(1, num_players)]
    if label in opp_labels:
        label = f"agent:{label}"
    name, opts = parse_agent_spec(spec)
    raw = {"name": f"benchmark_{lineup}", "num_players": num_players, "games": games, "seed": seed,
           "duplicate": True, "agents": [{"name": name, "label": label, "options": opts}]
           + [{"name": oname, "label": lab, "options": oopts} for lab in opp_labels]}
    if workers is not None:
        raw["workers"] = workers
    if modules:
        raw["modules"] = list(modules)
    return config_from_dict(raw, f"benchmark_{lineup}")


def _clean(x):
    """JSON without NaN (null instead)."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    return x


def summary_row(records: list[dict], labels: list[str], label: str) -> dict:
    """The benchmarked agent's figures over these records (labels: every label seated in them)."""
    from .ladder import cluster_interval, nation_table
    from .tournament.stats import agent_rows

    row = next(r for r in agent_rows(records, labels) if r["agent"] == label)
    _, dlo, dhi, _ = cluster_interval(records, label)
    nations = nation_table(records, labels)[label]
    return {"games": row["games"], "wins": row["wins"], "win_rate": row["win_rate"], "win_low": row["win_low"],
            "win_high": row["win_high"], "deals_low": dlo, "deals_high": dhi, "mean_rank": row["mean_rank"],
            "ms_per_decision": row["ms_per_decision"], "cpu_ms_per_decision": row["cpu_ms_per_decision"],
            "forfeits": row["forfeits"],
            "nations": {nat: {"win_rate": rate, "games": n} for nat, (rate, n) in nations.items()}}


NATION_TITLES = {"uk": "UK", "france": "France", "usa": "USA", "italy": "Italy"}


def _ms(x) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.2f}" if x >= 1 else f"{x:.3f}"


def benchmark_table(result: dict) -> str:
    """The Markdown table of a benchmark result (one row per lineup, then all lineups together)."""
    from v1919_env.core.vocab import PLAYER_NATIONS

    nations = PLAYER_NATIONS[result["num_players"]]
    head = ("| lineup | opponents | games | win rate | 95% interval | mean rank | ms / decision | "
            + " | ".join(f"as {NATION_TITLES.get(n, n)}" for n in nations) + " |")
    lines = [head, "|" + "---|" * (7 + len(nations))]

    def pct(x):
        return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}%"

    rows = [(r["lineup"], f"{result['num_players'] - 1} x {r['opponent']}", r) for r in result["lineups"]]
    if len(result["lineups"]) > 1:
        rows.append(("all", "", result["overall"]))
    for name, opp, r in rows:
        nat = " | ".join(f"{pct(r['nations'].get(n, {}).get('win_rate'))} ({r['nations'].get(n, {}).get('games', 0)})"
                         for n in nations)
        lines.append(f"| {name} | {opp} | {r['games']} | {pct(r['win_rate'])} | [{100 * r['win_low']:.1f}, "
                     f"{100 * r['win_high']:.1f}] | {r['mean_rank']:.2f} | {_ms(r['ms_per_decision'])} | {nat} |")
    return "\n".join(lines)


def write_benchmark(result: dict, out: Path) -> tuple[Path, Path]:
    """benchmark.json and benchmark.md in `out`."""
    js, md = out / "benchmark.json", out / "benchmark.md"
    js.write_text(json.dumps(_clean(result), indent=1) + "\n")
    n = result["num_players"]
    text = [f"# Benchmark: {result['agent']}", "",
            f"{result['agent']} against the standard lineups (agents/arena/benchmark.py), {n} players, "
            f"{result['games_per_lineup']} games per lineup on {result['games_per_lineup'] // n} duplicate deals "
            f"(each deal played in every seat rotation), " + _deals_words(result), "",
            "```bash", result["command"], "```", "",
            benchmark_table(result), "",
            f"Fair share: {100 / n:.1f}% (an agent as strong as its opponents). Win rate: a shared win counts 1/k to "
            f"each of the k winners; the interval is Wilson's 95% score interval (the interval with the deals as "
            f"clusters is in benchmark.json). Mean rank: 1 = first. ms / decision: the agent's own wall-clock "
            f"time in act(). As a nation: the agent's win rate seated as that nation (its games there).", ""]
    if result.get("interrupted"):
        text += [f"Interrupted: the games played so far ({result['interrupted']}).", ""]
    if result["skipped"]:
        text += ["Skipped: " + "; ".join(f"{k} ({v})" for k, v in result["skipped"].items()) + ".", ""]
    md.write_text("\n".join(text))
    return js, md


def _deals_words(result: dict) -> str:
    """How the deals were drawn, for the report."""
    if result.get("deals") == "secret":
        return ("secret deals (a bot process plays: the seeds are also drawn from each lineup folder's deal.key, "
                "so a new run deals other games).")
    return f"base seed {result['seed']}."


def run_benchmark(spec: str, num_players: int = 4, games: int = DEFAULT_GAMES, seed: int = 0, out=None,
                  workers: int | None = None, ray: str | None = None, progress: bool = True,
                  lineups: list[str] | None = None, command: str = "", modules: list[str] | None = None) -> dict:
    """Play the agent `spec` against the standard lineups (or those named in `lineups`) and write
    benchmark.json and benchmark.md in `out` (default runs/benchmarks/<spec>); returns the result.
    `modules`: modules that register an agent of your own, as a tournament config's `modules`: found
    here but imported only in the agent's bot processes (docs/tournaments.md).
    Raises BenchmarkError on bad input; tournament errors (TournamentError, TournamentInterrupted on
    SIGTERM) pass through. After Ctrl-C the report covers the games played so far, and the result
    says "interrupted" (the same command resumes)."""
    from .precompile import precompile
    import signal

    from .tournament import ConfigError, TournamentError, TournamentInterrupted, finished_games, play_games

    from .tournament.config import locate_module

    check_games(games, num_players)
    for m in modules or []:
        if locate_module(m) is None:        # (never imported here: its agents run as bot processes)
            raise BenchmarkError(f"--module: cannot import {m!r}: ModuleNotFoundError: No module named {m!r}")
    if not modules:                         # else the tournament config checks it in a bot process
        check_agent(spec)
    names = list(LINEUPS) if lineups is None else list(lineups)
    unknown = [x for x in names if x not in LINEUPS]
    if unknown or not names:
        raise BenchmarkError(f"--lineups: names among {', '.join(LINEUPS)}, got {', '.join(unknown) or 'none'}")
    if workers is not None and workers < 0:
        raise BenchmarkError(f"--workers: 0 or more, got {workers}")
    out = Path(out) if out is not None else DEFAULT_OUT / "".join(c if c.isalnum() or c in "-_.=" else "_"
                                                                  for c in spec.strip())
    if out.exists() and not out.is_dir():
        raise BenchmarkError(f"--out: {out} is a file, not a directory")
    skipped: dict[str, str] = {}
    configs = {}
    for lineup in names:
        opponent = LINEUPS[lineup]
        oname, oopts = parse_agent_spec(opponent)
        reason = _unbuildable(oname, oopts)
        if reason is not None:
            skipped[lineup] = f"{opponent}: {reason}"
            continue
        try:
            configs[lineup] = lineup_config(spec, lineup, opponent, num_players, games, seed, workers, modules)
        except ConfigError as e:
            raise BenchmarkError(f"lineup {lineup}: {e}") from None
    for lineup, reason in skipped.items():
        print(f"skipping lineup {lineup}: {reason}", file=sys.stderr)
    if not configs:
        raise BenchmarkError("no lineup can be played: " + "; ".join(f"{k}: {v}" for k, v in skipped.items()))
    for lineup, cfg in configs.items():      # another benchmark's games in a lineup directory: refused before any game
        try:
            finished_games(cfg, out / lineup, repair=False)
        except TournamentError as e:
            raise BenchmarkError(str(e)) from None
    first = next(iter(configs.values()))
    precompile([a for cfg in configs.values() for a in cfg.agents], num_players, first.variant, builtin_only=True)
    per_lineup, all_records, all_labels, failed, interrupted = [], [], [], {}, None
    for k, (lineup, cfg) in enumerate(configs.items(), 1):
        print(f"lineup {k}/{len(configs)} {lineup}: {cfg.labels[0]} against {num_players - 1} x {LINEUPS[lineup]}, "
              f"{games} games -> {out / lineup}", file=sys.stderr)
        try:
            run = play_games(cfg, out / lineup, workers=workers, progress=progress, ray=ray)
        except TournamentInterrupted as e:
            if e.signal != signal.SIGINT:       # SIGTERM: asked to end, no report
                raise
            interrupted, run = e, {"failed": {}}     # Ctrl-C: the report of the games so far
        for i, msg in run["failed"].items():
            failed[f"{lineup}:{i}"] = msg
        records = finished_games(cfg, out / lineup, repair=False)
        if records:
            row = summary_row(records, cfg.labels, cfg.labels[0])
            per_lineup.append({"lineup": lineup, "opponent": LINEUPS[lineup], **row})
            all_records += records
            all_labels += [lab for lab in cfg.labels if lab not in all_labels]
        if interrupted is not None:
            break
    label = first.labels[0]
    result = {"agent": spec.strip(), "num_players": num_players, "games_per_lineup": games, "seed": seed,
              "deals": "secret" if first.secret_deals else "seeded",
              "fair_share": 1.0 / num_players, "command": command or f"v1919 benchmark {spec}",
              "lineups": per_lineup,
              "overall": summary_row(all_records, all_labels, label) if all_records else None,
              "skipped": skipped, "failed": failed}
    if interrupted is not None:
        result["interrupted"] = str(interrupted)
    if all_records:
        write_benchmark(result, out)
    result["out"] = str(out)
    return result


def cmd_benchmark(args) -> int:
    """`v1919 benchmark AGENT_SPEC`: exit 0 done, 1 some games failed, 2 bad input, 130/143 stopped."""
    import shlex

    from .tournament import TournamentError, TournamentInterrupted

    def err(msg: str) -> None:
        print(f"error: {msg}", file=sys.stderr)

    lineups = None if args.lineups is None else [x.strip() for x in args.lineups.split(",") if x.strip()]
    games = DEFAULT_GAMES if args.games is None else args.games
    parts = [args.agent, "--players", str(args.players), "--games", str(games)]
    parts += ["--seed", str(args.seed)] if args.seed else []
    parts += ["--lineups", args.lineups] if args.lineups else []
    for m in args.module or []:
        parts += ["--module", m]
    command = "v1919 benchmark " + " ".join(shlex.quote(a) for a in parts)
    try:
        result = run_benchmark(args.agent, num_players=args.players, games=games, seed=args.seed, out=args.out,
                               workers=args.workers, ray=args.ray, progress=not args.no_progress, lineups=lineups,
                               command=command, modules=args.module)
    except BenchmarkError as e:
        err(str(e))
        return 2
    except TournamentInterrupted as e:
        print(str(e), file=sys.stderr)
        return 128 + e.signal
    except TournamentError as e:
        err(str(e))
        return 2
    if result.get("interrupted"):
        print(result["interrupted"], file=sys.stderr)
    if result["overall"] is None:
        if result.get("interrupted"):
            return 130
        err("no game was played")
        return 1
    print(benchmark_table(result))
    out = Path(result["out"])
    print(f"fair share {100 / result['num_players']:.1f}%; report: {out / 'benchmark.md'}, {out / 'benchmark.json'}")
    if result["deals"] == "secret":
        print("secret deals: a bot process plays, so a new run deals other games (docs/tournaments.md `deals`)")
    if result.get("interrupted"):
        return 130
    if result["failed"]:
        err(f"{len(result['failed'])} game(s) failed and were not recorded (rerun the same command to retry): "
            + "; ".join(f"{k}: {v}" for k, v in list(result["failed"].items())[:5]))
        return 1
    return 0
