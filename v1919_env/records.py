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

Ranks follow the rules' tie-break (total, then happiness, then issues controlled; EN:765-769,
`v1919_env.rewards.ranking_key`): a seat's rank is 1 + the number of seats strictly ahead, so tied
seats share a rank. A seat whose agent raised or chose an illegal action forfeits: the game stops
there, `forfeit` says who, why and at which step, the forfeiting seat is ranked last and the others
are ranked among themselves by the scores at that moment. `winners` are the seats ranked 1.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from v1919_env.core.layout import SOLO_DEFAULT_TARGET
from v1919_env.game import Game, solo_config
from v1919_env.rewards import ranking_key

RECORD_FORMAT = "v1919-game-record"
RECORD_VERSION = 1
REQUIRED_FIELDS = ("game", "seed", "num_players", "variant", "negotiation", "card_set", "seats", "actions",
                   "result")


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
                card_set_digest: str | None = None, solitaire: dict | None = None) -> dict:
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
    return rec


def write_record(fh, record: dict) -> None:
    """Append one record as a JSON line and flush it to disk (an interrupted run keeps it)."""
    fh.write(json.dumps(record, separators=(",", ":")) + "\n")
    fh.flush()


def check_record(rec, where: str = "record") -> dict:
    """Check a decoded record's format, version and fields; returns it or raises RecordError."""
    if not isinstance(rec, dict):
        raise RecordError(f"{where}: expected a JSON object, got {type(rec).__name__}")
    if rec.get("format") != RECORD_FORMAT:
        raise RecordError(f"{where}: format is {rec.get('format')!r}, expected {RECORD_FORMAT!r}")
    if rec.get("version") != RECORD_VERSION:
        raise RecordError(f"{where}: version {rec.get('version')!r} is not supported (this reader: "
                          f"{RECORD_VERSION})")
    missing = [k for k in REQUIRED_FIELDS if k not in rec]
    if missing:
        raise RecordError(f"{where}: missing field(s) {', '.join(missing)}")
    solo = rec.get("solitaire", {"faction": None, "target_vp": None})
    if not isinstance(solo, dict) or set(solo) != {"faction", "target_vp"}:
        raise RecordError(f"{where}: solitaire must be an object with faction and target_vp, got {solo!r}")
    if "solitaire" in rec:
        try:
            solo_config(True, solo["faction"], solo["target_vp"], False)
        except ValueError as e:
            raise RecordError(f"{where}: solitaire.{e}") from e
    return rec


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
                 negotiation=rec["negotiation"], card_set=cs.get("path"), **rec.get("solitaire", {}))
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
    span = f"{have[0]}..{have[-1]}" if len(have) > 1 else str(have[0])
    raise RecordError(f"no game {index} in the file (games: {span}, {len(have)} in all)")
