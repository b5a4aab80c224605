"""What the `v1919` commands of every layer share: the one-line usage error, argparse types (a seed, a
deck variant) and options (the solitaire game's). The command line itself is cli.py; the layers above
add their commands to it through the `v1919.commands` entry point and import these from here (nothing
imports cli.py)."""
from __future__ import annotations

import argparse


class UsageError(ValueError):
    """A command-line value that names nothing this build knows (printed without a traceback)."""


def seed_arg(text: str) -> int:
    """argparse type of a seed: an integer in 0..2**63-1 (the range Game.new takes)."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed is a non-negative integer, got {text!r}") from None
    if not 0 <= v < 2 ** 63:
        raise argparse.ArgumentTypeError(f"a seed is an integer in 0..2**63-1, got {v}")
    return v


VARIANT_HELP = ("deck variant: standard (default: GAME END under 20 issues, the shortest), longer (15), even_longer "
                "(10) or longest; the earlier ids short15 and long10 still work")


def check_variant(variant: str, card_set: str | None = None) -> None:
    """Raise UsageError unless the card set's board has this deck variant."""
    from .game import card_tables
    from .variants import variant_index

    try:
        variant_index(card_tables(card_set)[0], variant)
    except ValueError as e:
        raise UsageError(str(e)) from None


SOLITAIRE_HELP = ("the solitaire game only (1 player): --faction uk|france|usa, the faction the player starts "
                  "with (default: the one that goes last in a random turn order); --target-vp N, the level: the VP "
                  "the player needs to win (default 20, EN:959)")


def add_solitaire_options(parser: argparse.ArgumentParser) -> None:
    """--faction and --target-vp (checked by agents.arena.commands.solitaire_settings, so that a bad value is one line)."""
    parser.add_argument("--faction", default=None, metavar="uk|france|usa",
                        help="the faction the solitaire player starts with (default: the one that goes last)")
    parser.add_argument("--target-vp", default=None, metavar="N",
                        help="the solitaire level: the VP the player needs to win, 1..999 (default 20)")
