"""The `v1919 play`, `v1919 tournament` and `v1919 replay` commands (parsers live in agents/arena/cli.py).

Each returns the process exit code: 0 done, 1 the run failed, a replay did not reproduce its result
or a game was quit before its end (`q` or the end of the input at a human seat), 2 bad input (config,
agent names, record file), 130 interrupted by Ctrl-C, 143 ended by SIGTERM.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from ..base import AgentError

DEFAULT_TOURNAMENT_DIR = Path("runs") / "tournaments"
DEFAULT_LADDER_DIR = Path("runs") / "ladders"


class CommandError(ValueError):
    """A command-line value that is wrong; the CLI prints it as one line naming the option."""


def solitaire_settings(args, num_players: int) -> dict | None:
    """The solitaire Game.new settings of --faction and --target-vp ({"faction", "target_vp"}; None
    for a game of 2 to 4 players); CommandError naming the option for a bad value."""
    from v1919_env.core.layout import SOLO_DEFAULT_TARGET
    from v1919_env.game import SOLO_FACTION_NAMES

    faction, target = args.faction, args.target_vp
    if num_players != 1:
        for opt, v in (("--faction", faction), ("--target-vp", target)):
            if v is not None:
                raise CommandError(f"{opt}: a solitaire option (1 player), this game has {num_players} players")
        return None
    if faction is not None and faction.lower() not in SOLO_FACTION_NAMES:
        raise CommandError(f"--faction: one of {', '.join(SOLO_FACTION_NAMES)}, got {faction!r}")
    try:
        vp = SOLO_DEFAULT_TARGET if target is None else int(target)
    except ValueError:
        vp = None
    if vp is None or not 1 <= vp <= 999:
        raise CommandError(f"--target-vp: an integer in 1..999 (the VP the player needs to win), got {target!r}")
    return {"faction": None if faction is None else faction.lower(), "target_vp": vp}


def _err(msg: str) -> None:
    print(f"error: {msg}", file=sys.stderr)


def print_game(specs: list[dict], *, num_players: int, seed: int, variant: str = "standard",
               log: bool = True, record_path: str | None = None, solitaire: dict | None = None) -> int:
    """Play one game between the agents of `specs` and print it: the board, every decision (when
    `log`), the final board and the scoring table. Used by `v1919 play` and `v1919 demo`.
    `solitaire`: the 1-player game's {"faction", "target_vp"} (solitaire_settings)."""
    from v1919_env.game import Game
    from v1919_env.core.vocab import NATIONS

    from ..human import QuitGame
    from .play import build_agents, format_move, format_result, run_game
    from .precompile import after_compile, precompile_game
    from v1919_env.records import replay, write_record

    if record_path:
        problem = _unwritable(record_path)
        if problem:
            _err(f"--record {record_path}: {problem}")
            return 2
    try:
        agents = build_agents(specs)
    except AgentError as e:
        _err(str(e))
        return 2
    try:
        background = precompile_game(specs, num_players, seed, variant, solitaire)   # a line per stage that compiles
        agents = after_compile(agents, background)
        print(Game.new(num_players, seed=seed, variant=variant, **(solitaire or {})).render())
    except ValueError as e:                 # an unknown variant
        _err(str(e))
        return 2
    print()
    if num_players == 1:
        print(f"player: {specs[0]['label']} (the solitaire bots play the other two factions)")
    else:
        print("seats: " + ", ".join(f"{NATIONS[p].upper()} = {s['label']}" for p, s in enumerate(specs)))

    turn = [0]

    def show(game, step, seat, action):
        if game.turn != turn[0]:          # the same count as the board's header (Game.turn)
            print(f"-- turn {game.turn}: {game.seat_name(game.active_player)} is active")
            turn[0] = game.turn
        print(format_move(game, step, seat, action), flush=True)

    try:
        rec = run_game(agents, specs, num_players=num_players, seed=seed, variant=variant,
                       on_move=show if log else None, solitaire=solitaire)
    except QuitGame as e:
        print(f"\ngame ended: {e} at step {e.game.decisions_taken}; nothing is scored")
        return 1
    finally:
        for a in agents:
            a.close()
        background.close()
    print()
    print(replay(rec).render())
    print()
    print(format_result(rec))
    if record_path:
        with open(record_path, "a", encoding="utf-8") as fh:
            write_record(fh, rec)
        print(f"record appended to {record_path} (replay it: v1919 replay {record_path} --game 0)")
    return 0


def _unwritable(path: str) -> str | None:
    """Why a record cannot be appended to `path` (None: it can), checked before the game is played."""
    p = Path(path)
    if p.is_dir():
        return "is a directory"
    if not p.parent.is_dir():
        return f"its folder {str(p.parent)!r} does not exist"
    if not p.exists():
        return None if os.access(p.parent, os.W_OK) else "its folder is not writable"
    if not p.is_file():
        return "is not a regular file"
    try:
        with open(p, "a", encoding="utf-8"):
            pass
    except OSError as e:
        return e.strerror or str(e)
    return None


def cmd_play(args) -> int:
    from .play import parse_agents_arg

    try:
        specs = parse_agents_arg(args.agents)
    except AgentError as e:
        _err(str(e))
        return 2
    if len(specs) not in (1, 2, 3, 4):
        _err(f"--agents: name 1 (solitaire), 2, 3 or 4 agents, one per seat (got {len(specs)}: "
             f"{', '.join(s['label'] for s in specs)})")
        return 2
    solitaire = solitaire_settings(args, len(specs))
    return print_game(specs, num_players=len(specs), seed=args.seed, variant=args.variant, log=args.log,
                      record_path=args.record, solitaire=solitaire)


def cmd_demo(args) -> int:
    """`v1919 demo`: one game between the baseline bots (agents.arena.play.DEMO_LINEUP, random
    in place of any that is missing), or between the agents of --agents."""
    from .play import default_lineup, parse_agents_arg

    if args.agents is not None:
        try:
            specs = parse_agents_arg(args.agents)
        except AgentError as e:
            _err(str(e))
            return 2
        if len(specs) not in (1, 2, 3, 4) or args.players not in (None, len(specs)):
            _err(f"--agents: name {args.players or '1, 2, 3 or 4'} agents, one per seat (got {len(specs)})")
            return 2
    else:
        specs, notes = default_lineup(args.players or 4)
        for note in notes:
            print(f"note: {note}", file=sys.stderr)
    solitaire = solitaire_settings(args, len(specs))
    return print_game(specs, num_players=len(specs), seed=args.seed, variant=args.variant, log=args.log,
                      solitaire=solitaire)


def _run_tournament(args, kind: str, default_dir: Path):
    """Load the config, play the missing games (unless --report-only); (cfg, out, exit code), or
    (None, None, code) when nothing more should be done (a bad config, an error, SIGTERM)."""
    import signal

    from v1919_env.logs import show_logs_on_terminal

    from .precompile import precompile
    from .tournament import ConfigError, TournamentError, TournamentInterrupted, load_config, play_games

    show_logs_on_terminal()             # the runner logs "resuming: ..." at INFO

    try:
        cfg = load_config(args.config)
    except ConfigError as e:
        _err(str(e))
        return None, None, 2
    if args.workers is not None and args.workers < 0:
        _err(f"--workers: must be 0 or more, got {args.workers}")
        return None, None, 2
    out = Path(args.out) if args.out else default_dir / Path(args.config).stem
    code = 0
    if not args.report_only:
        print(f"{kind} {cfg.name}: {cfg.games} games, {cfg.num_players} players, agents "
              f"{', '.join(cfg.labels)} -> {out}")
        # compiled once here, before the workers start (each would compile the same kernels itself); the
        # agents of a user's module run only in the workers, where a crash forfeits one game
        precompile(cfg.agents, cfg.num_players, cfg.variant, builtin_only=True)
        try:
            run = play_games(cfg, out, workers=args.workers, progress=not args.no_progress,
                             ray=getattr(args, "ray", None))
        except TournamentInterrupted as e:
            print(str(e), file=sys.stderr)
            code = 128 + e.signal               # 130 after Ctrl-C, 143 after SIGTERM
            if e.signal == signal.SIGTERM:      # asked to end: no report
                return None, None, code
        except TournamentError as e:
            _err(str(e))
            return None, None, 2
        else:
            where = ""
            if run.get("nodes"):
                where = f" on {len(run['nodes'])} Ray node(s): " + ", ".join(
                    f"{node[:12]} {n}" for node, n in sorted(run["nodes"].items()))
            print(f"played {run['played']} games in {run['seconds']:.1f} s ({run['kept']} kept from before){where}")
            if run["failed"]:
                _err(f"{len(run['failed'])} game(s) failed and were not recorded (rerun to retry): " +
                     "; ".join(f"game {k}: {v}" for k, v in sorted(run["failed"].items())[:5]))
                code = 1
    return cfg, out, code


def cmd_tournament(args) -> int:
    from .tournament import TournamentError, report
    from .tournament.report import markdown_table

    cfg, out, code = _run_tournament(args, "tournament", DEFAULT_TOURNAMENT_DIR)
    if cfg is None:
        return code
    try:
        rows = report(cfg, out)
    except TournamentError as e:
        _err(str(e))
        return code or 2
    print(markdown_table(rows))
    print(f"reports: {out / 'results.md'}, {out / 'results.csv'}, {out / 'ratings.png'}; games: {out / 'games.jsonl'}")
    return code


def cmd_ladder(args) -> int:
    """`v1919 ladder CONFIG`: the tournament of the config (duplicate deals when it says
    `duplicate: true`), then the ladder report (agents/arena/ladder.py) in the output directory and, with
    --doc, as that Markdown file."""
    from .ladder import write_ladder
    from .tournament import TournamentError, finished_games

    if args.bootstrap < 0:
        _err(f"--bootstrap: the number of deal resamples, 0 or more, got {args.bootstrap}")
        return 2
    cfg, out, code = _run_tournament(args, "ladder", DEFAULT_LADDER_DIR)
    if cfg is None:
        return code
    try:
        records = finished_games(cfg, out, repair=False)
    except TournamentError as e:
        _err(str(e))
        return code or 2
    if not records:
        _err(f"{out}: no finished game to report")
        return code or 2
    command = f"v1919 ladder {args.config}" + (f" --doc {args.doc}" if args.doc else "")
    rows = write_ladder(records, cfg, out, doc=args.doc, command=command, bootstrap=args.bootstrap)
    print(f"{'agent':<16} {'games':>5} {'win rate':>9} {'95% (deals)':>15} {'mean rank':>9} {'rating':>7}")
    for r in rows:
        print(f"{r['agent']:<16} {r['games']:>5} {100 * r['win_rate']:>8.1f}% [{100 * r['dup_low']:>5.1f}, "
              f"{100 * r['dup_high']:>5.1f}] {r['mean_rank']:>9.2f} {r['rating']:>7.0f}")
    print(f"ladder: {out / 'ladder.md'}, {out / 'ladder.csv'}, {out / 'head_to_head.png'}"
          + (f"; {args.doc}" if args.doc else ""))
    return code


def _solitaire_note(rec: dict) -> str:
    """The header's note of a solitaire record's settings (none for other games or older records)."""
    solo = rec.get("solitaire")
    if not solo:
        return ""
    return f", solitaire faction {solo['faction'] or 'last in turn order'}, target {solo['target_vp']} VP"


def cmd_replay(args) -> int:
    from .play import format_move, format_result
    from v1919_env.records import RecordError, find_game, read_games, replay, result_differences

    if args.to is not None and args.to < 0:
        _err(f"--to: a step number (0 or more), got {args.to}")
        return 2
    try:
        rec = find_game(read_games(args.file), args.game)
    except RecordError as e:
        _err(str(e))
        return 2
    n = len(rec["actions"])
    print(f"game {rec['game']}: {rec['num_players']} players, seed {rec['seed']}, variant {rec['variant']}, "
          f"card set {rec['card_set']['label']}, {n} actions" + _solitaire_note(rec))
    print("seats: " + ", ".join(f"{s['label']} (seed {s.get('seed')})" for s in rec["seats"]))

    def show(game, step, seat, action):
        print(format_move(game, step, seat, action))

    try:
        g = replay(rec, to_step=args.to, on_move=None if args.quiet else show)
    except RecordError as e:
        _err(f"the record does not replay: {e}")
        return 1
    print()
    print(g.render())
    print()
    if args.to is not None and args.to < n:
        print(f"stopped after step {args.to} of {n}; the result is checked only on a full replay")
        return 0
    diffs = result_differences(rec, g)
    if diffs:
        _err(f"the replay of game {rec['game']} does NOT reproduce the recorded result:\n  " + "\n  ".join(diffs))
        return 1
    print(format_result(rec))
    print(f"ok: the replay reproduces the recorded result of game {rec['game']} exactly")
    return 0
