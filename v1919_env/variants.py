"""Deck variant ids (vocab.VARIANTS) and their aliases (vocab.VARIANT_ALIASES), read from a card set."""
from __future__ import annotations

from v1919_env.core.vocab import VARIANT_ALIASES


def canonical_variant(variant):
    """The current id of a variant id or alias (anything else is returned unchanged)."""
    return VARIANT_ALIASES.get(variant, variant) if isinstance(variant, str) else variant


def variant_names(cs) -> list[str]:
    """The card set's deck variants, by their current ids, in index order."""
    return [canonical_variant(v["id"]) for v in cs.raw["board"]["deck_variants"]["value"]]


def variant_index(cs, variant) -> int:
    """Index of a variant id or alias; ValueError naming the choices otherwise."""
    names = variant_names(cs)
    v = canonical_variant(variant)
    if not isinstance(v, str) or v not in names:
        aliases = ", ".join(f"{a} = {b}" for a, b in VARIANT_ALIASES.items())
        raise ValueError(f"unknown variant {variant!r}; choose one of {names} (aliases: {aliases})")
    return names.index(v)
