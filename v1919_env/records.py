"""Game records: one JSON object per game (a line of a `.jsonl` file) that replays the game exactly.

A record holds everything that defines the game and its outcome:

    format, version        "v1919-game-record", 1
    game                   index of the game (in its tournament; 0 for a single game)
    seed, num_players, variant, negotiation, card_set ({"label", "digest", "path"}; path null = the shipped
                           set; the content digest, CardSet.digest, is checked on replay when present)
    seats                  per seat: {"label", "agent", "options", "seed"} (the agent spec and its seed)
    actions                every action id, in order
    result                 {"scores": Game.scores() per seat, "ranks", "winners", "forfeit", "truncated",
                            "decisions"}
    timing                 per seat: decisions taken, wall-clock and CPU seconds spent choosing (the first
                           decisions in a process include loading compiled code; not checked on replay)
    tournament             {"name", "fingerprint"} when a tournament played it
    solitaire              {"faction", "target_vp"}: a 1-player game's Game.new settings, when not the
                           defaults (absent, as in records written before it: faction None, target 20)
    seating                the nations clockwise from seat 0 (Game.new's `seating`), when not the seat
                           order (absent: the seat order, as in records written before it)
    digest                 SHA-256 (16 hex digits) of the record's canonical JSON without it and without
                           timing (record_digest; the same game gives the same digest): a record edited after
                           it was written (a setting flipped, a seat's agent or label changed, a result
                           rewritten) does not replay as exact. It catches edits, not forgery: anyone can
                           recompute it (absent in records written before it)

`read_games` and `parse_lines` check every record (`check_record`): each field's type and range, the
game's settings by the rules Game.new applies; a RecordError names the line and the field at fault.

Ranks follow the rules' tie-break (total, then happiness, then issues controlled; EN:765-769,
`v1919_env.rewards.ranking_key`): a seat's rank is 1 + the number of seats strictly ahead, so tied
seats share a rank. A seat whose agent raised or chose an illegal action forfeits: the game stops
there, `forfeit` says who, why and at which step, the forfeiting seat is ranked last and the others
are ranked among themselves by the scores at that moment. `winners` are the seats ranked 1.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from v1919_env.actions import NUM_ACTIONS
from v1919_env.cards.names import is_int
from v1919_env.core.layout import SOLO_DEFAULT_TARGET
from v1919_env.core.vocab import NATIONS, VARIANT_ALIASES, VARIANTS
from v1919_env.game import Game, check_players_and_seed, solo_config
from v1919_env.rewards import ranking_key
from v1919_env.seating import parse_seating
from v1919_env.variants import canonical_variant

RECORD_FORMAT = "v1919-game-record"
RECORD_VERSION = 1
REQUIRED_FIELDS = ("game", "seed", "num_players", "variant", "negotiation", "card_set", "seats", "actions",
                   "result")
RESULT_FIELDS = ("scores", "ranks", "winners", "forfeit", "truncated", "decisions")
# the fields of a score row that the printed result reads (a record may lack fields added later)
SCORE_FIELDS = ("seat", "nation", "issues", "flags", "strategy", "happiness", "total")
SOLO_SCORE_FIELDS = ("seat", "nation", "total", "target_vp", "winner", "strengths")
FORFEIT_FIELDS = ("seat", "label", "step", "reason")


class RecordError(ValueError):
    """A game record that cannot be read, or a replay that does not reproduce its recorded result."""


def game_result(game: Game, forfeit: dict | None = None) -> dict:
    """The `result` field of a record for `game` as it stands (final when it is over)."""
    scores = game.scores()
    out_seat = None if forfeit is None else forfeit["seat"]
    n = len(scores)
    if out_seat is None:
        ranks = [s["rank"] for s in scores]
    else:   # the forfeiting seat last, the others ranked among themselves
        keys = [ranking_key(s) for s in scores]
        ranks = [n if p == out_seat else
                 1 + sum(1 for q in range(n) if q != out_seat and keys[q] > keys[p]) for p in range(n)]
    return {"scores": scores, "ranks": ranks, "winners": [p for p in range(n) if ranks[p] == 1],
            "forfeit": forfeit, "truncated": bool(game.truncated), "decisions": game.decisions_taken}


def make_record(*, game_index: int, seed: int, num_players: int, variant: str, negotiation: bool,
                card_set_label: str, card_set_path: str | None, seats: list[dict], actions: list[int],
                result: dict, timing: dict | None = None, tournament: dict | None = None,
                card_set_digest: str | None = None, solitaire: dict | None = None,
                seating: list[str] | None = None) -> dict:
    """A record as a plain dict (see the module docstring for the fields)."""
    rec = {"format": RECORD_FORMAT, "version": RECORD_VERSION, "game": int(game_index), "seed": int(seed),
           "num_players": int(num_players), "variant": variant, "negotiation": bool(negotiation),
           "card_set": {"label": card_set_label, "path": card_set_path},
           "seats": seats, "actions": [int(a) for a in actions], "result": result}
    if card_set_digest is not None:
        rec["card_set"]["digest"] = card_set_digest
    if timing is not None:
        rec["timing"] = timing
    if tournament is not None:
        rec["tournament"] = tournament
    if solitaire:
        rec["solitaire"] = {"faction": solitaire.get("faction"),
                            "target_vp": int(solitaire.get("target_vp", SOLO_DEFAULT_TARGET))}
    if seating is not None and list(seating) != list(NATIONS[:len(seating)]):
        rec["seating"] = list(seating)
    rec["digest"] = record_digest(rec)
    return rec


def record_digest(rec: dict) -> str:
    """The `digest` of a record: SHA-256 of its canonical JSON (sorted keys, no spaces) without the
    digest itself and the timing (which differs run to run), 16 hex digits."""
    body = json.dumps({k: v for k, v in rec.items() if k not in ("digest", "timing")}, sort_keys=True,
                      separators=(",", ":"))
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]


def write_record(fh, record: dict) -> None:
    """Append one record as a JSON line and flush it to disk (an interrupted run keeps it)."""
    fh.write(json.dumps(record, separators=(",", ":")) + "\n")
    fh.flush()


def check_record(rec, where: str = "record") -> dict:
    """Check a decoded record's format, version and every field's type and range (the game's settings
    by the rules Game.new applies); returns it or raises RecordError naming the field."""
    if not isinstance(rec, dict):
        raise RecordError(f"{where}: expected a JSON object, got {type(rec).__name__}")
    if rec.get("format") != RECORD_FORMAT:
        raise RecordError(f"{where}: format is {rec.get('format')!r}, expected {RECORD_FORMAT!r}")
    if not is_int(rec.get("version")) or rec["version"] != RECORD_VERSION:
        raise RecordError(f"{where}: version {rec.get('version')!r} is not supported (this reader: "
                          f"{RECORD_VERSION})")
    _require(rec, REQUIRED_FIELDS, where, "")
    _check_settings(rec, where)
    _check_seats(rec["seats"], rec["num_players"], where)
    _check_result(rec["result"], rec["num_players"], where)
    for key in ("timing", "tournament"):
        if rec.get(key) is not None:
            _object(rec[key], where, key)
    if "digest" in rec and not isinstance(rec["digest"], str):
        raise _bad(where, "digest", "a string of 16 hex digits", rec["digest"])
    return rec


def _check_settings(rec: dict, where: str) -> None:
    """Check what a replay starts from: game, seed, num_players, variant, negotiation, card_set,
    solitaire (the rules Game.new applies) and the actions (a list of action ids); RecordError otherwise."""
    _int_in(rec["game"], 0, None, where, "game")
    try:
        check_players_and_seed(rec["num_players"], rec["seed"])
    except ValueError as e:
        raise RecordError(f"{where}: {e}") from None
    n = rec["num_players"]
    if not isinstance(rec["variant"], str) or canonical_variant(rec["variant"]) not in VARIANTS:
        raise _bad(where, "variant", f"one of {', '.join(VARIANTS)} (earlier ids: {', '.join(VARIANT_ALIASES)})",
                   rec["variant"])
    if not isinstance(rec["negotiation"], bool):
        raise _bad(where, "negotiation", "true or false", rec["negotiation"])
    if n == 1 and rec["negotiation"]:
        raise _bad(where, "negotiation", "false in the solitaire game (num_players 1)", rec["negotiation"])
    cs = _object(rec["card_set"], where, "card_set", ("label", "path"))
    _string(cs["label"], where, "card_set.label")
    if cs["path"] is not None:
        _string(cs["path"], where, "card_set.path", "a card-set path or null (the shipped set)")
    if cs.get("digest") is not None:
        _string(cs["digest"], where, "card_set.digest")
    _check_solitaire(rec, n, where)
    if "seating" in rec:
        try:
            parse_seating(rec["seating"], n)
        except ValueError as e:
            raise RecordError(f"{where}: {e}") from e
    _check_actions(rec["actions"], where)


def _check_solitaire(rec: dict, num_players: int, where: str) -> None:
    solo = rec.get("solitaire", {"faction": None, "target_vp": SOLO_DEFAULT_TARGET})
    if not isinstance(solo, dict) or set(solo) != {"faction", "target_vp"}:
        raise RecordError(f"{where}: solitaire must be an object with faction and target_vp, got {_show(solo)}")
    try:
        solo_config(num_players == 1, solo["faction"], solo["target_vp"], False)
    except ValueError as e:
        raise RecordError(f"{where}: solitaire.{e}") from e


def _check_actions(acts, where: str) -> None:
    if not isinstance(acts, list):
        raise _bad(where, "actions", "a list of action ids", acts)
    if all(type(a) is int for a in acts) and (not acts or 0 <= min(acts) and max(acts) < NUM_ACTIONS):
        return
    k = next(k for k, a in enumerate(acts) if not is_int(a) or not 0 <= a < NUM_ACTIONS)
    raise _bad(where, f"actions[{k}]", f"an action id (an integer in 0..{NUM_ACTIONS - 1})", acts[k])


def _check_seats(seats, num_players: int, where: str) -> None:
    _list(seats, num_players, where, "seats")
    for p, seat in enumerate(seats):
        _object(seat, where, f"seats[{p}]", ("label",))
        _string(seat["label"], where, f"seats[{p}].label")
        if "agent" in seat:
            _string(seat["agent"], where, f"seats[{p}].agent", "an agent name")
        if "options" in seat:
            _object(seat["options"], where, f"seats[{p}].options")
        if seat.get("seed") is not None:
            _int_in(seat["seed"], 0, None, where, f"seats[{p}].seed")


def _check_result(res, num_players: int, where: str) -> None:
    _object(res, where, "result", RESULT_FIELDS)
    fields = SOLO_SCORE_FIELDS if num_players == 1 else SCORE_FIELDS
    for p, row in enumerate(_list(res["scores"], num_players, where, "result.scores")):
        _object(row, where, f"result.scores[{p}]", fields)
    for p, rank in enumerate(_list(res["ranks"], num_players, where, "result.ranks")):
        _int_in(rank, 1, num_players, where, f"result.ranks[{p}]")
    for k, seat in enumerate(_list(res["winners"], None, where, "result.winners")):
        _int_in(seat, 0, num_players - 1, where, f"result.winners[{k}]")
    if res["forfeit"] is not None:
        f = _object(res["forfeit"], where, "result.forfeit", FORFEIT_FIELDS)
        _int_in(f["seat"], 0, num_players - 1, where, "result.forfeit.seat")
        _int_in(f["step"], 0, None, where, "result.forfeit.step")
        _string(f["label"], where, "result.forfeit.label")
        _string(f["reason"], where, "result.forfeit.reason")
    if not isinstance(res["truncated"], bool):
        raise _bad(where, "result.truncated", "true or false", res["truncated"])
    _int_in(res["decisions"], 0, None, where, "result.decisions")


def _show(value) -> str:
    """A value for an error message, cut to a readable length."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _bad(where: str, field: str, want: str, value) -> RecordError:
    return RecordError(f"{where}: {field} must be {want}, got {_show(value)}")


def _require(obj: dict, keys, where: str, field: str) -> dict:
    missing = [k for k in keys if k not in obj]
    if missing:
        raise RecordError(f"{where}: missing field(s) {', '.join(f'{field}.{k}' if field else k for k in missing)}")
    return obj


def _object(value, where: str, field: str, keys=()) -> dict:
    if not isinstance(value, dict):
        raise _bad(where, field, "an object" + (f" (fields: {', '.join(keys)})" if keys else ""), value)
    return _require(value, keys, where, field)


def _list(value, length: int | None, where: str, field: str) -> list:
    if not isinstance(value, list) or length is not None and len(value) != length:
        raise _bad(where, field, "a list" + ("" if length is None else f" of {length} (one per seat)"), value)
    return value


def _string(value, where: str, field: str, want: str = "a string") -> str:
    if not isinstance(value, str):
        raise _bad(where, field, want, value)
    return value


def _int_in(value, lo: int, hi: int | None, where: str, field: str, span: str | None = None) -> int:
    if not is_int(value) or value < lo or hi is not None and value > hi:
        raise _bad(where, field, f"an integer in {span or (f'{lo}..{hi}' if hi is not None else f'{lo}..')}", value)
    return value


def parse_lines(text: str, source: str = "records") -> tuple[list[dict], int]:
    """Records of a JSONL text and the length of its valid prefix. A last line (no newline after
    it) that does not parse is a write cut short: it ends the prefix; any other bad line raises."""
    records, pos = [], 0
    lines = text.split("\n")
    for k, line in enumerate(lines, 1):
        last = k == len(lines)
        if line.strip():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                if last:
                    break
                raise RecordError(f"{source}, line {k}: not JSON ({e.msg})") from e
            records.append(check_record(rec, f"{source}, line {k}"))
        pos = min(len(text), pos + len(line) + 1)
    return records, pos


def read_games(path) -> list[dict]:
    """Every game record of a JSONL file, as plain dicts, in file order."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise RecordError(f"cannot read {p}: {e.strerror}") from e
    records, good = parse_lines(text, str(p))
    if text[good:].strip():
        raise RecordError(f"{p}: the last line is incomplete (an interrupted write?)")
    return records


def new_game(rec: dict) -> Game:
    """The recorded game at its start (checks that the card set is the recorded one)."""
    cs = rec["card_set"]
    g = Game.new(rec["num_players"], seed=rec["seed"], variant=rec["variant"],
                 negotiation=rec["negotiation"], card_set=cs.get("path"), seating=rec.get("seating"),
                 **rec.get("solitaire", {}))
    if g.cards.label != cs.get("label"):
        raise RecordError(f"game {rec['game']} was played with card set {cs.get('label')!r}, "
                          f"this one is {g.cards.label!r}")
    if cs.get("digest") not in (None, g.cards.digest):
        raise RecordError(f"game {rec['game']} was played with cards whose content digest is {cs['digest']!r}; "
                          f"{cs.get('path') or 'the shipped set'} now has {g.cards.digest!r} (edited since?)")
    return g


def replay(rec: dict, to_step: int | None = None,
           on_move: Callable[[Game, int, int, int], None] | None = None) -> Game:
    """Replay the recorded actions (the first `to_step` of them) and return the game;
    on_move(game, step, seat, action) is called before each action is applied."""
    g = new_game(rec)
    acts = rec["actions"] if to_step is None else rec["actions"][:max(0, int(to_step))]
    for k, a in enumerate(acts):
        if g.is_over:
            raise RecordError(f"game {rec['game']}: the game ended after {k} actions but the record has "
                              f"{len(rec['actions'])}")
        if on_move is not None:
            on_move(g, k, g.current_player, a)
        try:
            g.step(a)
        except ValueError as e:
            raise RecordError(f"game {rec['game']}, step {k}: recorded action {a} is not legal: {e}") from e
    return g


def result_differences(rec: dict, game: Game) -> list[str]:
    """How the result of the replayed `game` differs from the recorded one (empty: identical)."""
    want = rec["result"]
    forfeit = want.get("forfeit")
    diffs = []
    if "digest" in rec and rec["digest"] != record_digest(rec):
        diffs.append(f"digest: recorded {rec['digest']!r}, the record's content gives {record_digest(rec)!r} (the "
                     f"record was edited after it was written)")
    if forfeit is None and not game.is_over:
        diffs.append(f"the recorded actions end at step {game.decisions_taken} but the game is not over")
    if forfeit is not None and game.is_over:
        diffs.append("the record has a forfeit but the replayed game is over")
    got = game_result(game, forfeit)
    for key in ("decisions", "truncated", "ranks", "winners"):
        if got[key] != want.get(key):
            diffs.append(f"{key}: recorded {want.get(key)!r}, replayed {got[key]!r}")
    for p, (a, b) in enumerate(zip(want.get("scores", []), got["scores"])):
        for field in sorted(a):         # the recorded fields (a newer build may report more)
            if a.get(field) != b.get(field):
                diffs.append(f"seat {p} {field}: recorded {a.get(field)!r}, replayed {b.get(field)!r}")
    if len(want.get("scores", [])) != len(got["scores"]):
        diffs.append(f"scores: recorded {len(want.get('scores', []))} seats, replayed {len(got['scores'])}")
    return diffs


def find_game(records: list[dict], index: int | None) -> dict:
    """The record with game index `index` (None: the first one)."""
    if not records:
        raise RecordError("the file holds no game")
    if index is None:
        return records[0]
    for rec in records:
        if rec["game"] == index:
            return rec
    have = sorted(r["game"] for r in records)
    raise RecordError(f"no game {index} in the file ({len(have)} game{'s' if len(have) > 1 else ''}: "
                      f"{index_ranges(have)})")


def index_ranges(indices: list[int]) -> str:
    """Sorted game indices as runs: [0, 1, 2, 5, 7, 8] -> '0-2, 5, 7-8'."""
    runs: list[list[int]] = []
    for i in indices:
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)
