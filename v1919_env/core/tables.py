"""Card and board facts as one read-only int64 vector `T` for the kernels, with named offsets.

Built from a validated CardSet (v1919_env.cards); the kernels never hard-code a card fact.
Event effects are compiled here into a small bytecode the event interpreter runs
(core/events.py); strategy conditions into fixed-width rows (core/scoring.py).
"""
from __future__ import annotations

import numpy as np

from .actions import SEGMENTS
from .layout import N_EVENTS, N_ISSUES, N_REGIONS, N_STRATEGIES
from .vocab import CATEGORIES, COUNTER_BASE, N_COUNTERS, NATIONS, REGIONS

MAX_OPTIONS = dict(dict(SEGMENTS)["option"])["option"]      # options per issue: the option action segment (4)

MAX_DEMOB = 12
EV_LEN = 48           # bytecode rows per event part
OPW = 8               # ints per bytecode row
MAX_COND = 6
CONDW = 6

_off = 0
_names: list[tuple[str, int]] = []


def _t(name: str, n: int = 1) -> int:
    global _off
    o = _off
    _names.append((name, n))
    _off += n
    return o


# issues (index = number - 1)
T_ISSUE_CAT = _t("issue_cat", N_ISSUES)
T_ISSUE_STARS = _t("issue_stars", N_ISSUES)
T_ISSUE_NOMIL = _t("issue_no_military", N_ISSUES)
T_ISSUE_NOPT = _t("issue_n_options", N_ISSUES)
T_GAME_END = _t("game_end_issue")
T_OPT_UNREST = _t("option_unrest", N_ISSUES * MAX_OPTIONS * N_REGIONS)
T_OPT_HAPPY = _t("option_happiness", N_ISSUES * MAX_OPTIONS * len(NATIONS))
T_OPT_CTR = _t("option_counters", N_ISSUES * MAX_OPTIONS * N_COUNTERS)
T_OPT_NAVAL = _t("option_naval_choice", N_ISSUES * MAX_OPTIONS)
# board
T_THRESH = _t("uprising_threshold", 9)          # by column 1..8, 0 = 'X'
T_DEP_INF = _t("deploy_influence_back", 9)
T_DEP_HAPPY = _t("deploy_happiness_lost", 9)
T_DEP_DM = _t("deploy_die_modifier", 9)
T_DEP_BID = _t("deploy_bid_strength", 9)
T_FIRST_DEP_COL = _t("first_deploy_column")
T_REGION_OF_DIE = _t("region_of_die", 7)        # die 1..6 -> region index, -1 nothing
T_DEMOB_N = _t("demob_n", 5)                    # by player count: number of spaces before the last box
T_DEMOB_VAL = _t("demob_val", 5 * MAX_DEMOB)
T_DEMOB_LAST = _t("demob_last_box")
T_UNITS_ALLOWED = _t("units_allowed", 31)
T_HAPPY_VP = _t("happiness_vp", 5 * 4)
T_KEG_MAX = _t("powder_keg_max")
T_UNREST_START = _t("unrest_start")
T_KEG_START = _t("keg_start")
T_HAPPY_MAX = _t("happiness_max")
T_HAPPY_START = _t("happiness_start")
T_SIGN = _t("signing_threshold")
T_ZERO_VP = _t("happiness_zero_vp")
T_FLAG_VP = _t("flag_counter_vp")
T_INFLUENCE = _t("influence_per_player")
T_MILITARY = _t("military_per_player")
T_N_TABLE = _t("table_issues")
T_N_WAITING = _t("waiting_issues")
T_N_WAITING_SOLO = _t("waiting_issues_solo")
T_N_SETUP_DISC = _t("setup_discards")
T_STRAT_EXTRA = _t("strategy_cards_extra")
T_RECLAIM_MAX = _t("reclaim_max")
T_MUTINY_BOX = _t("mutiny_box")
T_TRANSFER_MAX = _t("negotiation_transfer_max")
T_TRACK_COLS = _t("track_columns")
N_DISC_PICKS = 3                 # discard positions 1-3 (EN:362-370); the action segment has one more: draw two
T_DISC_COST = _t("discard_pick_costs", N_DISC_PICKS)
T_VAR_BELOW = _t("variant_below_game_end", 4)
T_VAR_SHUFFLE = _t("variant_shuffle_with", 4)
T_VAR_HAPPY = _t("variant_player_happiness", 4)
# events
T_EV_ICON = _t("event_influence_icon", N_EVENTS)
T_EV_OPTIONAL = _t("event_conference_optional", N_EVENTS)
T_EV_CODE = _t("event_code", N_EVENTS * 2 * EV_LEN * OPW)
# strategies
T_STRAT_NCOND = _t("strategy_n_conditions", N_STRATEGIES)
T_STRAT_COND = _t("strategy_conditions", N_STRATEGIES * MAX_COND * CONDW)
T_SIZE = _off
T_LAYOUT = tuple(_names)

# --- event bytecode
OP_END, OP_UPRISING, OP_UNREST, OP_KEG, OP_HAPPY, OP_EXHAUST, OP_RECOVER, OP_CHOOSE_PLAYER, OP_CHOOSE_REGIONS, \
    OP_CHOICE, OP_UNSETTLE, OP_CLEAR_WAITING, OP_MIL_TO_EXH, OP_MIL_TO_AVAIL, OP_DEMOB_ACTION, OP_DEPLOY_ACTION, \
    OP_IF_NO_COUNTERS, OP_JUMP, OP_BRANCH_END = range(19)
OPCODES = {"uprising_check": OP_UPRISING, "unrest": OP_UNREST, "powder_keg": OP_KEG, "happiness": OP_HAPPY,
           "exhaust_influence": OP_EXHAUST, "recover_influence": OP_RECOVER, "choose_player": OP_CHOOSE_PLAYER,
           "choose_regions": OP_CHOOSE_REGIONS, "choice": OP_CHOICE, "unsettle": OP_UNSETTLE,
           "clear_waiting_issue": OP_CLEAR_WAITING, "military_to_exhausted": OP_MIL_TO_EXH,
           "military_to_available": OP_MIL_TO_AVAIL, "demobilize_action": OP_DEMOB_ACTION,
           "deploy_action": OP_DEPLOY_ACTION, "if_no_counters": OP_IF_NO_COUNTERS}
W_DECIDER, W_CHOSEN, W_EACH, W_SETTLED_CTRL, W_LOWEST_HAPPY, W_MOST_ISSUES, W_ALL = range(7)
WHO_CODES = {"decider": W_DECIDER, "chosen_player": W_CHOSEN, "each_player": W_EACH,
             "settled_controller": W_SETTLED_CTRL, "lowest_happiness": W_LOWEST_HAPPY,
             "most_issues": W_MOST_ISSUES, "all": W_ALL}
ORDER_ENDING, ORDER_STARTING = 0, 1
R_HIGHEST, R_SETTLED, R_RANDOM, R_ANY, R_CHOSEN, R_GAINED, R_ONE_OF = 10, 11, 12, 13, 14, 15, 32
REGION_CODES = {"highest": R_HIGHEST, "settled_issue": R_SETTLED, "random": R_RANDOM, "any": R_ANY,
                "chosen": R_CHOSEN, "settled_issue_gained": R_GAINED}
NO_COUNTER = -1

# --- strategy condition rows: kind, p1..p5
C_COUNTERS, C_REGIONS_UNREST, C_MILITARY, C_HAPPY_X2, C_TREATY, C_ISSUES, C_ISSUE_REGIONS = range(1, 8)
COND_CODES = {"counters": C_COUNTERS, "regions_unrest": C_REGIONS_UNREST, "military": C_MILITARY,
              "happiness_x2": C_HAPPY_X2, "treaty": C_TREATY, "issues": C_ISSUES, "issue_regions": C_ISSUE_REGIONS}
ANY_FLAG = -1


def _region_code(r) -> int:
    if isinstance(r, dict):
        return R_ONE_OF + sum(1 << REGIONS.index(x) for x in r["one_of"])
    if r in REGIONS:
        return REGIONS.index(r)
    return REGION_CODES[r]


def _counter_code(c) -> int:
    return NO_COUNTER if c is None else COUNTER_BASE.index(c)


def _cat_mask(cats) -> int:
    cats = cats if isinstance(cats, list) else [cats]
    return sum(1 << CATEGORIES.index(c) for c in cats)


class _Assembler:
    def __init__(self, where: str):
        self.rows: list[list[int]] = []
        self.where = where

    def emit(self, *vals) -> int:
        row = [int(v) for v in vals] + [0] * (OPW - len(vals))
        self.rows.append(row)
        if len(self.rows) > EV_LEN:
            raise ValueError(f"{self.where}: effect too long for the bytecode ({EV_LEN} rows)")
        return len(self.rows) - 1

    def ops(self, ops: list) -> None:
        for op in ops:
            self.op(op)

    def op(self, op: dict) -> None:
        kind = OPCODES[op["op"]]
        who = WHO_CODES.get(op.get("who", "decider"), W_DECIDER)
        order = ORDER_STARTING if op.get("order") == "starting_with_decider" else ORDER_ENDING
        if kind == OP_UPRISING:
            self.emit(kind, _region_code(op["region"]), op.get("modifier", 0),
                      _counter_code(op.get("modifier_per_counter")), op.get("otherwise_unrest", 0),
                      1 if op.get("otherwise_when") == "no_unsettle" else 0)
        elif kind == OP_UNREST:
            self.emit(kind, _region_code(op["region"]), op["delta"], 1 if op.get("sign") == "choose" else 0,
                      _counter_code(op.get("per_counter")))
        elif kind == OP_KEG:
            self.emit(kind, _region_code(op["region"]), op["delta"])
        elif kind == OP_HAPPY:
            self.emit(kind, who, op["delta"], 1 if op.get("per") == "deployed_unit" else 0, order)
        elif kind == OP_EXHAUST:
            self.emit(kind, who, op["amount"], 1 if op.get("cost") else 0, order)
        elif kind == OP_RECOVER:
            self.emit(kind, who, op["amount"], _counter_code(op.get("per_counter")), order)
        elif kind == OP_CHOOSE_PLAYER:
            self.emit(kind)
        elif kind == OP_CHOOSE_REGIONS:
            self.emit(kind, op["count"])
        elif kind == OP_CHOICE:
            branches = op["branches"]
            if len(branches) > 4:
                raise ValueError(f"{self.where}: a choice has at most 4 branches")
            at = self.emit(kind, who, order, len(branches))
            starts = []
            for b in branches:
                starts.append(len(self.rows))
                self.ops(b)
                self.emit(OP_BRANCH_END, at)
            row = self.rows[at]
            for i, st in enumerate(starts):
                row[4 + i] = st
        elif kind == OP_UNSETTLE:
            self.emit(kind, _cat_mask(op["categories"]))
        elif kind == OP_CLEAR_WAITING:
            self.emit(kind)
        elif kind in (OP_MIL_TO_EXH, OP_MIL_TO_AVAIL, OP_DEMOB_ACTION, OP_DEPLOY_ACTION):
            self.emit(kind, who, order)
        elif kind == OP_IF_NO_COUNTERS:
            at = self.emit(kind, _counter_code(op["counter"]), _cat_mask(op["category"]))
            self.ops(op["then"])
            self.rows[at][3] = len(self.rows)


def compile_effects(ops: list, where: str) -> np.ndarray:
    """Compile an effect list (data/SCHEMA.md) to bytecode rows [EV_LEN, OPW]."""
    asm = _Assembler(where)
    asm.ops(ops)
    asm.emit(OP_END)
    out = np.zeros((EV_LEN, OPW), np.int64)
    out[:len(asm.rows)] = asm.rows
    return out


def _condition_row(c: dict) -> list[int]:
    k = COND_CODES[c["kind"]]
    vp = c.get("vp", 0)
    if k == C_COUNTERS:
        flag = c.get("flag")
        return [k, COUNTER_BASE.index(c["counter"]), NATIONS.index(flag) if flag in NATIONS else ANY_FLAG, vp]
    if k == C_REGIONS_UNREST:
        return [k, 1 if c["compare"] == "ge4" else 0, vp]
    if k == C_TREATY:
        nations = c["nations"] if isinstance(c["nations"], list) else [c["nations"]]
        return [k, sum(1 << NATIONS.index(n) for n in nations), int(c["signs"]), vp]
    if k == C_ISSUES:
        return [k, _cat_mask(c["category"]), 1 if c["controller"] == "self" else 0, vp]
    return [k, vp]


def build(cs) -> np.ndarray:
    """The flat table vector for a card set `cs` (a validated v1919_env.cards.CardSet; read-only)."""
    t, raw = cs.tables, cs.raw
    T = np.zeros(T_SIZE, np.int64)
    T[T_ISSUE_CAT:T_ISSUE_CAT + N_ISSUES] = t["issue_category"]
    T[T_ISSUE_STARS:T_ISSUE_STARS + N_ISSUES] = t["issue_stars"]
    T[T_ISSUE_NOMIL:T_ISSUE_NOMIL + N_ISSUES] = t["issue_no_military"]
    T[T_ISSUE_NOPT:T_ISSUE_NOPT + N_ISSUES] = t["issue_n_options"]
    T[T_GAME_END] = t["game_end_issue"]
    T[T_OPT_UNREST:T_OPT_UNREST + t["option_unrest"].size] = t["option_unrest"].ravel()
    T[T_OPT_HAPPY:T_OPT_HAPPY + t["option_happiness"].size] = t["option_happiness"].ravel()
    T[T_OPT_CTR:T_OPT_CTR + t["option_counters"].size] = t["option_counters"].ravel()
    T[T_OPT_NAVAL:T_OPT_NAVAL + t["option_naval_choice"].size] = t["option_naval_choice"].ravel()
    T[T_THRESH:T_THRESH + 9] = t["uprising_threshold"]
    T[T_DEP_INF:T_DEP_INF + 9] = t["deploy_influence_back"]
    T[T_DEP_HAPPY:T_DEP_HAPPY + 9] = t["deploy_happiness_lost"]
    T[T_DEP_DM:T_DEP_DM + 9] = t["deploy_die_modifier"]
    T[T_DEP_BID:T_DEP_BID + 9] = t["deploy_bid_strength"]
    T[T_FIRST_DEP_COL] = t["first_deploy_column"]
    T[T_REGION_OF_DIE:T_REGION_OF_DIE + 7] = -1
    for r, die in enumerate(t["region_die"]):
        T[T_REGION_OF_DIE + die] = r
    for np_ in range(1, 5):
        vals = [int(v) for v, four in zip(t["demob_value"], t["demob_4p_only"]) if np_ == 4 or not four]
        T[T_DEMOB_N + np_] = len(vals)
        T[T_DEMOB_VAL + np_ * MAX_DEMOB:T_DEMOB_VAL + np_ * MAX_DEMOB + len(vals)] = vals
    T[T_DEMOB_LAST] = t["demob_last_box"]
    T[T_UNITS_ALLOWED:T_UNITS_ALLOWED + 31] = t["units_allowed"]
    T[T_HAPPY_VP:T_HAPPY_VP + 20] = t["happiness_vp"].ravel()
    for off, k in ((T_KEG_MAX, "powder_keg_max_column"), (T_UNREST_START, "unrest_start_column"),
                   (T_KEG_START, "powder_keg_start"), (T_HAPPY_MAX, "happiness_max"),
                   (T_HAPPY_START, "happiness_start"), (T_SIGN, "signing_threshold"),
                   (T_ZERO_VP, "happiness_zero_vp"), (T_FLAG_VP, "flag_counter_vp"),
                   (T_INFLUENCE, "influence_per_player"), (T_MILITARY, "military_per_player"),
                   (T_N_TABLE, "table_issues"), (T_N_WAITING, "waiting_issues"),
                   (T_N_WAITING_SOLO, "waiting_issues_solo"), (T_N_SETUP_DISC, "setup_discards"),
                   (T_STRAT_EXTRA, "strategy_cards_extra"), (T_RECLAIM_MAX, "reclaim_max"),
                   (T_MUTINY_BOX, "mutiny_box"), (T_TRANSFER_MAX, "negotiation_transfer_max"),
                   (T_TRACK_COLS, "track_columns")):
        T[off] = t[k]
    T[T_DISC_COST:T_DISC_COST + N_DISC_PICKS] = t["discard_pick_costs"]
    for i, v in enumerate(raw["board"]["deck_variants"]["value"]):
        T[T_VAR_BELOW + i] = v["below_game_end"]
        T[T_VAR_SHUFFLE + i] = v["shuffle_game_end_with"]
        T[T_VAR_HAPPY + i] = v["player_happiness"]
    for ev in raw["events"]:
        e = ev["number"] - 1
        T[T_EV_ICON + e] = int(ev["influence_icon"])
        T[T_EV_OPTIONAL + e] = int(ev["conference"]["optional"])
        for part, key in ((0, "crisis"), (1, "conference")):
            code = compile_effects(ev[key]["effects"], f"event #{ev['number']} {ev['name']} {key}")
            base = T_EV_CODE + ((e * 2 + part) * EV_LEN) * OPW
            T[base:base + EV_LEN * OPW] = code.ravel()
    for st in raw["strategies"]:
        k = st["number"] - 1
        if len(st["conditions"]) > MAX_COND:
            raise ValueError(f"strategy #{st['number']}: at most {MAX_COND} conditions")
        T[T_STRAT_NCOND + k] = len(st["conditions"])
        for j, c in enumerate(st["conditions"]):
            row = _condition_row(c)
            base = T_STRAT_COND + (k * MAX_COND + j) * CONDW
            T[base:base + len(row)] = row
    T.setflags(write=False)
    return T

