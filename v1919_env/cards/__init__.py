"""Card and board data: the shipped card set (data/), loading (`load`), validation (`validate`),
the provenance report (`provenance`) and the one index convention for naming cards, regions and
seats (`names`). May import only `v1919_env.core` (its layouts bound what a card set may hold).

`load_card_set()` returns the shipped set; `load_card_set(path)` a user's set (a folder of
the five JSON files, or one JSON file with the sections as keys, the shape of
`v1919 data export`). `validate_card_set` is the one gate between a file and the rules core:
every field's type, every number against what the compiled core can hold (`kernel_limits`:
table sizes, action segments, observation slices), and the fields that must agree with each
other. Anything else is rejected by `CardDataError` naming the section, the card (number and
name) and the field path. See data/SCHEMA.md.
"""
from v1919_env.cards.load import (DATA_DIR, STANDARD_DIR, CardSet, content_digest, file_state, load_card_set,
                                  read_card_set)
from v1919_env.cards.provenance import provenance_report
from v1919_env.cards.validate import SECTIONS, CardDataError, kernel_limits, validate_card_set

__all__ = ["CardDataError", "CardSet", "DATA_DIR", "SECTIONS", "STANDARD_DIR", "content_digest", "file_state",
           "kernel_limits", "load_card_set", "provenance_report", "read_card_set", "validate_card_set"]
