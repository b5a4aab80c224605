"""Names shared by the data files, the core and the adapters (one source of truth).

Index order matters: the core stores regions, nations and counters by these indices.
"""

REGIONS = ("europe", "balkans", "middle_east", "pacific", "africa")
"""Region tracks in board row order, which is also the random-region die order (data/board.json)."""

CATEGORIES = REGIONS + ("league", "reparations", "none")
"""Issue categories: the five tracks, then the two trackless families, then GAME END's 'none'."""
CAT_LEAGUE = CATEGORIES.index("league")
CAT_REPARATIONS = CATEGORIES.index("reparations")
CAT_NONE = CATEGORIES.index("none")

NATIONS = ("uk", "france", "usa", "italy", "japan")
"""The five nations with a happiness marker; players are the first 2-4 of them (EN:157-162)."""
PLAYER_NATIONS = {1: ("uk", "france", "usa"), 2: ("uk", "france"), 3: ("uk", "france", "usa"),
                  4: ("uk", "france", "usa", "italy")}

VARIANTS = ("standard", "longer", "even_longer", "longest")
"""Deck variants (EN:180-200) in the order of the board data's deck_variants: GAME END under 20
issues (the shortest game, IT:1255), under 15 ("a more intense experience"), under 10 ("an even
longer game"), shuffled with the bottom five ("the longest game")."""
VARIANT_ALIASES = {"short15": "longer", "long10": "even_longer"}
"""Earlier ids, still accepted everywhere a variant is named (Game.new, positions, CLI, configs)."""

COUNTER_BASE = ("self_determination", "german_containment", "german_reparations",
                "industrial_growth", "bolshevik_containment", "naval", "empire")
FLAGGED_COUNTERS = ("naval", "empire")

COUNTERS = ("self_determination", "german_containment", "german_reparations",
            "industrial_growth", "bolshevik_containment") + tuple(
    f"{kind}_{nation}" for kind in FLAGGED_COUNTERS for nation in NATIONS)
"""Placed strategy counters, one slot per kind and flag (15 slots)."""
N_COUNTERS = len(COUNTERS)


def counter_slot(kind: str, flag: str | None = None) -> int:
    """Index in COUNTERS of a counter kind (and flag for naval/empire)."""
    return COUNTERS.index(f"{kind}_{flag}" if kind in FLAGGED_COUNTERS else kind)
