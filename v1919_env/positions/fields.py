"""Checked reading of single position fields: every error is a PositionError naming the field."""
from __future__ import annotations

import numpy as np

from v1919_env.cards.names import names_of, seat_index
from v1919_env.core.vocab import NATIONS


class PositionError(ValueError):
    """A malformed position; the message names the field at fault."""


def err(field, msg):
    raise PositionError(f"{field}: {msg}")


def as_int(v, field, lo, hi) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
        err(field, f"expected an integer in {lo}..{hi}, got {v!r}")
    return int(v)


def as_bool(v, field) -> bool:
    if not isinstance(v, (bool, np.bool_)):
        err(field, f"expected true or false, got {v!r}")
    return bool(v)


def as_list(v, field: str) -> list:
    if not isinstance(v, list):
        err(field, f"expected a list, got {type(v).__name__}")
    return v


def check_keys(d, allowed, field):
    if not isinstance(d, dict):
        err(field, f"expected an object, got {type(d).__name__}")
    extra = set(d) - set(allowed)
    if extra:
        err(field, f"unknown field(s) {sorted(extra)}; allowed: {sorted(allowed)}")


def seat(v, np_, field, allow_none=False) -> int:
    """A seat given by nation or seat number; None -> -1 where allowed."""
    if v is None and allow_none:
        return -1
    try:
        return seat_index(v, np_, field)
    except ValueError:
        err(field, f"expected one of {list(NATIONS[:np_])}, got {v!r}")


class Lookup:
    """The card set's name lookups (v1919_env.cards.names) raising PositionError."""

    def __init__(self, g):
        self.names = names_of(g.cards)

    def _call(self, fn, *args):
        try:
            return fn(*args)
        except PositionError:
            raise
        except ValueError as e:
            raise PositionError(str(e)) from None

    def issue(self, v, field):
        return self._call(self.names.issue, v, field)

    def event(self, v, field):
        return self._call(self.names.event, v, field)

    def strategy(self, v, field):
        return self._call(self.names.strategy, v, field)

    def option(self, i, v, field):
        return self._call(self.names.option, i, v, field)
