"""The flat action space: named segments, their sizes and base ids (one source of truth).

An action id is `BASE_<SEGMENT> + offset`; the offset packs the segment's parameters in
the order listed (row-major). `v1919_env.actions` gives encode/decode/describe over it.

| segment | parameters | meaning |
|---|---|---|
| end_turn | - | decline the optional military action and end the turn |
| pass_political | - | no political action is legal (rulings A-28) |
| place | slot 0-4, n 1-15 | put n available cubes on the issue in slot (0-1 table, 2-4 waiting room) |
| settle | slot 0-1 | settle the table issue in slot |
| reclaim | n 0-6, recall mask 0-31 | take n cubes from Exhausted, all exhausted units, and the deployed units of the regions in mask |
| deploy | source 0-5, region 0-4, column 5-8 | deploy a unit from Available (0) or from region source-1 |
| demobilize | source 0-6 | demobilize a unit from Available (0), Exhausted (1) or region source-2 |
| option | o 0-3 | choose the option of the issue being settled / won |
| naval_flag | uk, usa | flag of a UK-or-USA naval counter |
| decline / accept | - | for optional effects and the event cube (decline = 0, accept = 1) |
| advance_issue | waiting slot 0-2 | move that waiting issue to the table |
| advance_event | waiting slot 0-1 | move that waiting event to the table |
| add_issue | 0-2 discard position, 3 draw two | step 4 of settling |
| keep | 0-1 | keep the first or the second drawn issue |
| modifier | -1, 0, +1 | uprising die modifier announcement |
| choose_player | seat 0-3 | |
| choose_region | region 0-4 | |
| choose_issue | issue number 1-53 | |
| bid_pass | - | pass in a bidding war (final) |
| bid | in-region unit 0-1, available units 0-3, influence 0-15 | a complete offer |
| draft | strategy number 1-10 | pick a strategy card |
| branch | 0-3 | pick a branch of an event choice |
| sign | remove, add | add-or-remove effects |
| unit_to_available | source 0-5 | move an Exhausted (0) or region source-1 unit to Available |
| unit_to_exhausted | region 0-4 | move your unit deployed there to Exhausted |
| transfer | seat 0-3, n 1-6 | negotiation variant: n of your available cubes to Exhausted, that seat reclaims n |
"""
from __future__ import annotations

import numpy as np

SEGMENTS = (
    ("end_turn", ()),
    ("pass_political", ()),
    ("place", (("slot", 5), ("n", 15))),
    ("settle", (("slot", 2),)),
    ("reclaim", (("n", 7), ("recall", 32))),
    ("deploy", (("source", 6), ("region", 5), ("column", 4))),
    ("demobilize", (("source", 7),)),
    ("option", (("option", 4),)),
    ("naval_flag", (("flag", 2),)),
    ("accept", (("yes", 2),)),
    ("advance_issue", (("slot", 3),)),
    ("advance_event", (("slot", 2),)),
    ("add_issue", (("source", 4),)),
    ("keep", (("which", 2),)),
    ("modifier", (("delta", 3),)),
    ("choose_player", (("seat", 4),)),
    ("choose_region", (("region", 5),)),
    ("choose_issue", (("issue", 53),)),
    ("bid_pass", ()),
    ("bid", (("in_region", 2), ("available", 4), ("influence", 16))),
    ("draft", (("strategy", 10),)),
    ("branch", (("branch", 4),)),
    ("sign", (("add", 2),)),
    ("unit_to_available", (("source", 6),)),
    ("unit_to_exhausted", (("region", 5),)),
    ("transfer", (("seat", 4), ("n", 6))),
)

SEGMENT_SIZE = {}
SEGMENT_BASE = {}
_n = 0
for _name, _params in SEGMENTS:
    _size = 1
    for _p, _k in _params:
        _size *= _k
    SEGMENT_BASE[_name] = _n
    SEGMENT_SIZE[_name] = _size
    _n += _size
NUM_ACTIONS = _n

# Constants for the numba kernels (read as compile-time globals).
A_END_TURN = SEGMENT_BASE["end_turn"]
A_PASS_POLITICAL = SEGMENT_BASE["pass_political"]
A_PLACE = SEGMENT_BASE["place"]
A_SETTLE = SEGMENT_BASE["settle"]
A_RECLAIM = SEGMENT_BASE["reclaim"]
A_DEPLOY = SEGMENT_BASE["deploy"]
A_DEMOB = SEGMENT_BASE["demobilize"]
A_OPTION = SEGMENT_BASE["option"]
A_FLAG = SEGMENT_BASE["naval_flag"]
A_ACCEPT = SEGMENT_BASE["accept"]
A_ADV_ISSUE = SEGMENT_BASE["advance_issue"]
A_ADV_EVENT = SEGMENT_BASE["advance_event"]
A_ADD_ISSUE = SEGMENT_BASE["add_issue"]
A_KEEP = SEGMENT_BASE["keep"]
A_MODIFIER = SEGMENT_BASE["modifier"]
A_CHOOSE_PLAYER = SEGMENT_BASE["choose_player"]
A_CHOOSE_REGION = SEGMENT_BASE["choose_region"]
A_CHOOSE_ISSUE = SEGMENT_BASE["choose_issue"]
A_BID_PASS = SEGMENT_BASE["bid_pass"]
A_BID = SEGMENT_BASE["bid"]
A_DRAFT = SEGMENT_BASE["draft"]
A_BRANCH = SEGMENT_BASE["branch"]
A_SIGN = SEGMENT_BASE["sign"]
A_TO_AVAIL = SEGMENT_BASE["unit_to_available"]
A_TO_EXH = SEGMENT_BASE["unit_to_exhausted"]
A_TRANSFER = SEGMENT_BASE["transfer"]


class IllegalActionError(ValueError):
    """An action that is not legal now (or not an action id at all); the game is left unchanged."""


def action_id(action) -> int:
    """The one rule for what an action id is, shared by `Game`, both environments and the batch
    kernels: a Python `int` or a numpy integer (a 0-d integer array too, as policies return),
    in 0..NUM_ACTIONS-1. Anything else (a float, a string, None, a bool) raises IllegalActionError."""
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        action = action[()]
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise IllegalActionError(f"an action must be an integer id (int or numpy integer), got "
                                 f"{action!r} of type {type(action).__name__}")
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise IllegalActionError(f"action id {a} is out of range 0..{NUM_ACTIONS - 1}")
    return a


def action_ids(actions, batch: int) -> np.ndarray:
    """A batch of action ids for the batch kernels: a 1-d integer array (or list of ints) of length
    `batch`, returned as int64; anything else raises IllegalActionError naming what is wrong."""
    arr = np.asarray(actions)
    if arr.dtype.kind not in "iu" or arr.ndim != 1:
        raise IllegalActionError(f"batch actions must be a 1-d integer array, got dtype {arr.dtype} "
                                 f"with shape {arr.shape}")
    if len(arr) != batch:
        raise IllegalActionError(f"batch actions have length {len(arr)}, the batch has {batch} games")
    return arr.astype(np.int64, copy=False)
