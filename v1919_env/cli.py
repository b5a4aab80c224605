"""The `v1919` command line."""
from __future__ import annotations

import argparse
import json
import sys


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


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="v1919", description="Versailles 1919 reinforcement-learning environment.")
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
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
