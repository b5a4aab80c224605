"""The arena's `v1919` subcommands: demo, play, serve, tournament, ladder, replay, benchmark and
nation-balance. `v1919_env/cli.py` finds `add_commands` through the `v1919.commands` entry point
(pyproject.toml); each command's module is imported only when it runs."""
from __future__ import annotations

import argparse
import sys
import textwrap

from v1919_env.arguments import VARIANT_HELP, add_solitaire_options, check_variant, seed_arg


def add_commands(sub) -> tuple[type[Exception], ...]:
    """Add the arena's subcommands to `v1919`'s subparsers; the errors its commands raise for bad
    input (printed as one line, never a traceback)."""
    from ..base import AgentError
    from .commands import CommandError

    demo = sub.add_parser("demo", help="play a full game between the baseline bots and print it",
                          epilog="example: v1919 demo --players 3 --seed 7   or   v1919 demo --agents rulebot,random,"
                                 "random,random")
    demo.add_argument("--players", type=int, default=None, choices=(1, 2, 3, 4),
                      help="1 (the solitaire game: one player against the rule bots), 2, 3 or 4 (default: 4, or "
                           "as many as --agents names)")
    demo.add_argument("--agents", default=None, help="agents per seat, as for `v1919 play` (default: the baseline "
                                                     "registered bots, agents.arena.play.DEMO_LINEUP)")
    demo.add_argument("--seed", type=seed_arg, default=0, help="game seed, 0..2**63-1")
    demo.add_argument("--variant", default="standard", help=VARIANT_HELP)
    demo.add_argument("--log", action=argparse.BooleanOptionalAction, default=True,
                      help="print every decision (default) or only the boards and scores")
    add_solitaire_options(demo)
    demo.set_defaults(func=_cmd_demo)
    _add_agent_commands(sub)
    _add_benchmark_command(sub)
    _add_nation_balance_command(sub)
    return AgentError, CommandError


def ray_address_arg(text: str) -> str:
    """argparse type of --ray's ADDRESS: local, auto or HOST:PORT (agents/arena/tournament/ray_pool.py)."""
    from .tournament.ray_pool import address_arg

    return address_arg(text)


def add_ray_option(parser: argparse.ArgumentParser, help_text: str) -> None:
    """--ray [ADDRESS]: games on Ray (agents/arena/tournament/ray_pool.py); a bare --ray gives "local"."""
    parser.add_argument("--ray", nargs="?", const="local", default=None, type=ray_address_arg, metavar="ADDRESS",
                        help=help_text)


def _cmd_demo(args) -> int:
    from .commands import cmd_demo

    check_variant(args.variant)
    return cmd_demo(args)


def _cmd_agents(args) -> int:
    """play / tournament / replay: implemented in agents/arena/commands.py (imported only when run)."""
    from . import commands

    return getattr(commands, f"cmd_{args.cmd}")(args)


def _cmd_serve(args) -> int:
    """`v1919 serve`: agents/arena/web/serve.py (imports the web extra only when run)."""
    from .web.serve import cmd_serve

    return cmd_serve(args)


def _cmd_replay(args) -> int:
    """`v1919 replay`: printed by agents/arena/commands.py, or written as an HTML viewer with --html."""
    if args.html is None:
        return _cmd_agents(args)
    from v1919_env.view.replay_html import ReplayError, ReplayMismatch, write_replay_html_from_file
    if args.to is not None and args.to < 0:
        print(f"error: --to: a step number (0 or more), got {args.to}", file=sys.stderr)
        return 2
    try:
        rec, out = write_replay_html_from_file(args.file, args.game, args.html, args.to or 0)
    except ReplayError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1 if isinstance(e, ReplayMismatch) else 2
    print(f"wrote {out}: game {rec['game']}, {len(rec['actions'])} decisions; open it in a browser")
    return 0


def _add_tournament_run_options(p: argparse.ArgumentParser, default_dir: str) -> None:
    """Where and how a tournament's games are played (`tournament` and `ladder`)."""
    p.add_argument("--out", default=None, help=f"output directory (default: {default_dir}/<config name>)")
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: the config's; 0: in this "
                                                           "process)")
    add_ray_option(p, "play the games on Ray: one worker per CPU of a local Ray instance started for the run "
                      "(--ray alone: with --workers CPUs, default the config's) or of the cluster at ADDRESS (auto: the "
                      "one `ray start` runs on this machine; HOST:PORT: its head; at most --workers workers if given)")
    p.add_argument("--report-only", action="store_true", help="only recompute the reports from games.jsonl")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _add_agent_commands(sub) -> None:
    raw = argparse.RawDescriptionHelpFormatter

    def wrap(text: str) -> str:
        return textwrap.fill(text, 88)

    pl = sub.add_parser(
        "play", help="play one game between agents (bots or you) and print it move by move",
        formatter_class=raw,
        description=wrap("Play one game, one agent per seat (1 agent: the solitaire game against the rule bots; 2, 3 "
                         "or 4 agents: 2, 3 or 4 players; in the 2-player game each player also runs the USA "
                         "faction on its turn), printed move by move "
                         "(step, seat, decision, description), then the final board and scoring table."),
        epilog="agents are registered names with options: name:key=value,key=value\n"
               "example:\n  v1919 play --agents rulebot,ismcts:iterations=200,random,human --seed 7\n"
               "  (the human seat types the number of an action; b shows the board, q quits)")
    pl.add_argument("--agents", required=True, help="comma-separated agents, one per seat (UK, France, USA, Italy); "
                                                    "one agent plays the solitaire game")
    pl.add_argument("--seed", type=seed_arg, default=0, help="game seed, 0..2**63-1 (the agents' seeds derive from it)")
    pl.add_argument("--variant", default="standard",
                    help=VARIANT_HELP)
    pl.add_argument("--log", action=argparse.BooleanOptionalAction, default=True,
                    help="print every decision (default) or only the boards and scores")
    add_solitaire_options(pl)
    pl.add_argument("--record", metavar="FILE", default=None, help="append the game's record (JSON line) to FILE")
    pl.set_defaults(func=_cmd_agents)
    sv = sub.add_parser(
        "serve", help="play and watch games in the browser: a local web app (needs the web extra)",
        formatter_class=raw,
        description=wrap("A web app for games in the browser: start a game (1-4 players, each seat you or a bot), "
                         "the board as the SVG picture, the legal actions by name, the bots' moves one by one. "
                         "Games are kept in an SQLite file: a reload or a restart resumes them. Bound to "
                         "127.0.0.1; another address needs --allow-remote and a token (docs/web.md)."),
        epilog="example:\n  v1919 serve                        # then open http://127.0.0.1:8000/\n"
               "  v1919 serve --agent rulebot --agent ismcts:iterations=400\n"
               "  v1919 serve --records runs/tournaments/quick   # watch a tournament's games (its games.jsonl)")
    sv.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1, this machine only)")
    sv.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    sv.add_argument("--db", default="~/.v1919/web.sqlite3", help="the SQLite file of the games "
                                                                 "(default ~/.v1919/web.sqlite3)")
    sv.add_argument("--agent", action="append", metavar="SPEC",
                    help="an agent spec the new-game page offers (repeat; default: rulebot, random, greedy, "
                         "ismcts, ismcts:iterations=1000); the browser can only seat these")
    sv.add_argument("--bot-delay", type=float, default=0.4, help="seconds between the bots' moves (default 0.4)")
    sv.add_argument("--analysis", default=None, metavar="SPEC",
                    help="the search agent of the analysis on request (ismcts or guided; default "
                         "ismcts:iterations=2000)")
    sv.add_argument("--records", action="append", metavar="FILE",
                    help="a records file (.jsonl: a tournament's, a ladder's, `play --record`'s) the watch page "
                         "offers, followed as it grows (repeat)")
    sv.add_argument("--allow-remote", action="store_true", help="allow a --host other machines can reach "
                                                                "(every request then needs the token)")
    sv.add_argument("--token", default=None, help="the token requests need (default: none on 127.0.0.1; one "
                                                  "made and printed with --allow-remote)")
    sv.set_defaults(func=_cmd_serve)
    t = sub.add_parser(
        "tournament", help="many seeded games between agents in worker processes: win rates and OpenSkill ratings",
        formatter_class=raw,
        description=wrap("Run the tournament a YAML config describes (agents and options, players, variant, games, "
                         "base seed, workers); every agent plays every seat equally often. Writes games.jsonl (one "
                         "record per game, appended as games finish), results.md, results.csv and ratings.png. Running "
                         "the same command again resumes an interrupted tournament. A win shared by k tied winners "
                         "counts 1/k to each."),
        epilog="example:\n  v1919 tournament configs/tournament/quick.yaml --out runs/tournaments/quick\n"
               "  v1919 tournament configs/tournament/quick.yaml --out runs/tournaments/quick --report-only\n"
               "  v1919 tournament configs/tournament/full_4p.yaml --ray auto      # on a Ray cluster (docs/distributed.md)")
    t.add_argument("config", help="tournament config (YAML); see configs/tournament/")
    _add_tournament_run_options(t, "runs/tournaments")
    t.set_defaults(func=_cmd_agents)
    la = sub.add_parser(
        "ladder", help="every agent against every other on duplicate deals: docs/ladder.md's report",
        formatter_class=raw,
        description=wrap("Play a tournament config (with `duplicate: true` every deal is played from every seat, so "
                         "the luck of the deal and of the nation cancels) and write the ladder: win rates with 95% "
                         "intervals over deals, against independent games' intervals, mean rank, the Luce rating "
                         "(its order is the win rates' in a balanced schedule), the head-to-head matrix (PNG), "
                         "per-nation win rates and time per decision (agents/arena/ladder.py). Resumable as a tournament."),
        epilog="example:\n  v1919 ladder configs/ladder/ladder_4p.yaml --doc docs/ladder.md\n"
               "  v1919 ladder configs/ladder/ladder_4p.yaml --ray auto          # on a Ray cluster")
    la.add_argument("config", help="tournament config (YAML) with duplicate: true; see configs/ladder/")
    _add_tournament_run_options(la, "runs/ladders")
    la.add_argument("--doc", default=None, metavar="MD", help="also write the report as this Markdown file (its "
                                                              "PNG under images/ beside it), e.g. docs/ladder.md")
    la.add_argument("--bootstrap", type=int, default=200, help="deal resamples for the rating's interval (200)")
    la.set_defaults(func=_cmd_agents)
    r = sub.add_parser(
        "replay", help="replay a recorded game move by move and check it reproduces its result",
        formatter_class=raw,
        description=wrap("Replay a game record (a line of games.jsonl, or of a `v1919 play --record` file) move by "
                         "move, print the board at the end, and check that the replay reproduces the recorded scores, "
                         "ranks and winners exactly (exit code 1 and the differences if not)."),
        epilog="example:\n  v1919 replay runs/tournaments/quick/games.jsonl --game 3 --to 120")
    r.add_argument("file", help="a JSONL file of game records")
    r.add_argument("--game", type=int, default=None, help="game index (the record's `game` field; default: the first)")
    r.add_argument("--to", type=int, default=None, metavar="STEP", help="stop after STEP actions (no result check)")
    r.add_argument("--quiet", action="store_true", help="do not print the moves")
    r.add_argument("--html", metavar="OUT.html", default=None,
                   help="write the game as a self-contained HTML replay viewer instead (opens at --to STEP)")
    r.set_defaults(func=_cmd_replay)


def _cmd_benchmark(args) -> int:
    """`v1919 benchmark`: agents/arena/benchmark.py (imported only when run)."""
    from .benchmark import cmd_benchmark

    return cmd_benchmark(args)


def _add_benchmark_command(sub) -> None:
    """`v1919 benchmark AGENT_SPEC`: the agent against the standard lineups (agents/arena/benchmark.py LINEUPS)."""
    bm = sub.add_parser(
        "benchmark", help="one agent against the standard lineups on duplicate deals: the table to cite",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.fill("Play the agent against each standard lineup (num_players - 1 copies of rulebot, "
                                  "of greedy, of the default ismcts, and of the strongest agent, guided with rule-bot "
                                  "rollouts; agents/arena/benchmark.py), its seat rotated on duplicate deals, and print "
                                  "and write (benchmark.json, benchmark.md) its win rate with a 95% interval, mean "
                                  "rank, time per decision and win rate per nation. Resumable: the same command "
                                  "plays only the missing games.", 88),
        epilog="example:\n  v1919 benchmark ismcts:iterations=400 --players 4 --games 96\n"
               "  v1919 benchmark greedy --lineups rulebot,greedy --games 48 --out runs/benchmarks/greedy")
    bm.add_argument("agent", metavar="AGENT_SPEC", help="the agent: name:key=value,... as for `v1919 play`")
    bm.add_argument("--players", type=int, default=4, metavar="N", help="2, 3 or 4 (default 4)")
    bm.add_argument("--games", type=int, default=None, metavar="G", help="games per lineup, a multiple of N (default 96)")
    bm.add_argument("--seed", type=seed_arg, default=0, help="base seed of the deals (default 0)")
    bm.add_argument("--lineups", default=None, metavar="NAMES", help="comma-separated lineups to play (default all: "
                                                                     "rulebot,greedy,ismcts,strongest)")
    bm.add_argument("--module", action="append", default=None, metavar="M", help="a module to import first, which "
                    "registers the agent (repeat for several; as a tournament config's modules)")
    bm.add_argument("--out", default=None, metavar="DIR", help="output directory (default runs/benchmarks/<spec>)")
    bm.add_argument("--workers", type=int, default=None, help="worker processes (default: every core; 0: in this "
                                                              "process)")
    add_ray_option(bm, "play the games on Ray: local (a Ray instance started for the run; a bare --ray), auto or "
                       "HOST:PORT; name AGENT_SPEC before a bare --ray")
    bm.add_argument("--no-progress", action="store_true", help="no progress bar")
    bm.set_defaults(func=_cmd_benchmark)


def _cmd_nation_balance(args) -> int:
    from .nation_balance import run

    return run(args)


def _add_nation_balance_command(sub) -> None:
    """`v1919 nation-balance`: agents/arena/nation_balance.py."""
    nb = sub.add_parser(
        "nation-balance", help="how often each nation wins when every seat plays the same agent",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.fill("Identical agents in every seat, so any difference between the nations comes from "
                                  "the game, not from skill: each nation's win rate with its Wilson 95% interval and "
                                  "mean score. Compiled agents (rulebot, random) play in the compiled loop; "
                                  "any other agent is measured from the records of a tournament whose seats all "
                                  "play it (--records). docs/nation_balance.md holds the figures.", 88),
        epilog="example:\n  v1919 nation-balance --games 4000 --players 4 --agents rulebot\n"
               "  v1919 nation-balance --records runs/tournaments/nation_balance_guided_4p")
    nb.add_argument("--games", type=int, default=4000, help="games per player count and agent (default 4000)")
    nb.add_argument("--players", type=int, nargs="+", default=[3, 4], choices=(2, 3, 4),
                    help="player counts (default 3 4)")
    nb.add_argument("--agents", nargs="+", default=["rulebot", "random"],
                    help="compiled agents (rulebot, random), each in every seat (default rulebot random)")
    nb.add_argument("--seed", type=seed_arg, default=0, help="the first game's seed, 0..2**63-1 (default 0)")
    nb.add_argument("--records", default=None, metavar="FILE",
                    help="instead: the nations' win rates in game records (a .jsonl, or a tournament's output "
                         "directory) whose seats all play one agent")
    nb.set_defaults(func=_cmd_nation_balance)
