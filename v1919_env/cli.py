"""The `v1919` command line."""
from __future__ import annotations

import argparse
import json
import os
import sys

from .arguments import UsageError, check_variant  # noqa: F401  (check_variant: its old home was this module)
from .logs import show_logs_on_terminal


COMMAND_GROUP = "v1919.commands"
"""Entry points (pyproject.toml) of the layers above: `add_commands(subparsers)` adds a layer's
subcommands and returns the exception types its commands raise for bad input. The arena's
(agents/arena/cli.py: demo, play, serve, tournament, ladder, replay, benchmark, nation-balance) and
training's (training/cli.py: train, train-rllib); this module imports neither."""


def _user_errors(extra=()) -> tuple[type[Exception], ...]:
    """Errors caused by what the user asked for: printed as one line, never as a traceback."""
    from .actions import IllegalActionError
    from .cards import CardDataError
    from v1919_env.positions.write import PositionError

    return (UsageError, CardDataError, PositionError, IllegalActionError, FileNotFoundError, IsADirectoryError,
            PermissionError, *extra)


def _add_layer_commands(sub) -> tuple[type[Exception], ...]:
    """The subcommands of the layers above (COMMAND_GROUP entry points, by name: arena, training)."""
    from importlib.metadata import entry_points

    errors: list[type[Exception]] = []
    for ep in sorted(entry_points(group=COMMAND_GROUP), key=lambda e: e.name):
        errors += list(ep.load()(sub) or ())
    return tuple(errors)


def _cmd_data(args) -> int:
    from .cards import CardDataError, load_card_set, provenance_report

    try:
        cs = load_card_set(args.cards)
    except CardDataError as e:
        print(f"invalid card set: {e}", file=sys.stderr)
        return 2
    if args.data_cmd == "report":
        print(provenance_report(cs, list_estimated=not args.summary))
    elif args.data_cmd == "export":
        json.dump(cs.export(), sys.stdout, indent=1, ensure_ascii=False)
        print()
    elif args.data_cmd == "validate":
        print(f"ok: {cs.label} ({len(cs.raw['issues'])} issues, {len(cs.raw['events'])} events, "
              f"{len(cs.raw['strategies'])} strategies)")
    return 0


def _cmd_bench(args) -> int:
    from .bench import main as bench_main

    return bench_main(args)


def build_parser() -> argparse.ArgumentParser:
    from . import __version__
    from .envs.versions import ENV_VERSION, OBSERVATION_VERSION

    p = argparse.ArgumentParser(prog="v1919", description="Versailles 1919 reinforcement-learning environment.")
    p.add_argument("--version", action="version", version=f"v1919 {__version__} (environments v{ENV_VERSION}, "
                                                          f"observation v{OBSERVATION_VERSION})")
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data", help="inspect the card set: report, export, validate")
    dsub = d.add_subparsers(dest="data_cmd", required=True)
    for name, hlp in (("report", "counts per card type and provenance kind; every estimated field"),
                      ("export", "print the card set as one JSON object"),
                      ("validate", "check a card set and say why it is rejected")):
        c = dsub.add_parser(name, help=hlp)
        c.add_argument("--cards", default=None, help="card-set folder or JSON file (default: the shipped set)")
        if name == "report":
            c.add_argument("--summary", action="store_true", help="counts only, without the estimated fields")
        c.set_defaults(func=_cmd_data)
    b = sub.add_parser("bench", help="speed of random play: batched kernel, facade, compile and start times")
    b.add_argument("--players", type=int, default=4, choices=(1, 2, 3, 4),
                   help="1 (solitaire), 2, 3 or 4 (default 4); the solitaire and 2-player rates are printed beside "
                        "the 4-player one")
    b.add_argument("--seconds", type=float, default=3.0, help="minimum time per measurement")
    b.add_argument("--json", action="store_true", help="print one JSON object")
    b.add_argument("--no-cold", action="store_true", help="skip the cold-compile measurement (minutes)")
    b.add_argument("--env", action="store_true", help="also measure the PettingZoo AEC and Gymnasium envs")
    b.add_argument("--vector", action="store_true", help="only the vector env: learner steps/s at 64 and 256 games "
                   "against random and rulebot opponents")
    from .bench import sections
    for sec in sections():
        if sec.flag:
            b.add_argument(f"--{sec.flag}", action="store_true", help=sec.help)
    b.set_defaults(func=_cmd_bench)
    p.user_errors = _user_errors(_add_layer_commands(sub))
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    show_logs_on_terminal()
    try:
        return args.func(args)
    except BrokenPipeError:             # output piped into `head` and the like
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except parser.user_errors as e:
        print(f"{parser.prog}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
