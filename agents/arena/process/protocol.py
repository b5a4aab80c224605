"""The bot protocol (docs/protocol.md): one JSON object per line over the bot's stdin (the arena's
messages) and stdout (the bot's), versioned; the building and the checking of every message.

The arena sends   hello, new_game, decide, game_over, quit, and error (why it stops talking);
the bot sends     hello (to hello), ready (to new_game), action (to decide), and any number of
                  info lines (ignored but counted) before an answer.

`check_reply(line, expected)` turns a line from the bot into its message, or raises ProtocolError
whose message says exactly what is wrong with it (the arena records it as the forfeit reason).
"""
from __future__ import annotations

import json
import math

PROTOCOL = "v1919-bot"
VERSION = 1
OMITTABLE = ("observation", "position", "names")    # decide fields a bot may ask not to be sent
MAX_INFO_LINES = 1000                                # info lines a bot may send before one answer
MAX_INFO_BYTES = 1 << 20                             # and their bytes in all
MAX_DEPTH = 32                                       # how deep a message's arrays and objects may nest


class ProtocolError(ValueError):
    """A message that breaks the protocol; the text says which rule."""


def encode(msg: dict) -> bytes:
    """One message as a line of JSON (UTF-8, no NaN, ends with a newline)."""
    return (json.dumps(msg, separators=(",", ":"), allow_nan=False) + "\n").encode("utf-8")


def _short(text: str, n: int = 80) -> str:
    return repr(text if len(text) <= n else text[:n] + "...")


def parse(line: bytes | str, sender: str = "bot") -> dict:
    """A line as a message object: JSON, an object, with a string `type`."""
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ProtocolError(f"the {sender} sent a line that is not UTF-8 ({e.reason} at byte {e.start})") from None
    text = line.strip()
    if not text:
        raise ProtocolError(f"the {sender} sent an empty line")
    try:
        msg = json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(f"{c} is not JSON")))
    except ValueError as e:
        raise ProtocolError(f"the {sender} sent a line that is not JSON ({e}): {_short(text)}") from None
    except RecursionError:
        raise ProtocolError(f"the {sender} sent JSON nested more than {MAX_DEPTH} levels deep") from None
    if sender == "bot" and _depth(msg) > MAX_DEPTH:      # (the arena's own messages are not checked)
        raise ProtocolError(f"the {sender} sent JSON nested more than {MAX_DEPTH} levels deep")
    if not isinstance(msg, dict):
        raise ProtocolError(f"the {sender} sent JSON that is not an object ({type(msg).__name__}): {_short(text)}")
    if not isinstance(msg.get("type"), str):
        raise ProtocolError(f"the {sender}'s message has no string field 'type': {_short(text)}")
    return msg


def _depth(value) -> int:
    """How deep arrays and objects nest in a decoded message (iterative: no recursion limit)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        v, d = todo.pop()
        if isinstance(v, (dict, list)):
            deepest = max(deepest, d)
            if d <= MAX_DEPTH:
                todo.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v)
                            if isinstance(x, (dict, list)))
    return deepest


def _field(msg: dict, key: str, kinds, what: str, optional: bool = False):
    if key not in msg:
        if optional:
            return None
        raise ProtocolError(f"the bot's {msg['type']!r} message lacks the field {key!r} ({what})")
    v = msg[key]
    if isinstance(v, bool) and bool not in (kinds if isinstance(kinds, tuple) else (kinds,)) or not isinstance(v, kinds):
        raise ProtocolError(f"the bot's {msg['type']!r} message has {key}={v!r}; it must be {what}")
    return v


def check_reply(line: bytes | str, expected: str) -> dict:
    """The bot's message on `line` when the arena waits for `expected` ('hello', 'ready' or 'action');
    an 'info' message is returned as it is (the caller reads on). ProtocolError otherwise."""
    msg = parse(line)
    kind = msg["type"]
    if kind == "info":
        return msg
    if kind != expected:
        raise ProtocolError(f"the bot sent a {kind!r} message where the protocol expects {expected!r}"
                            + (" (or 'info')" if expected else ""))
    if kind == "hello":
        if msg.get("protocol") != PROTOCOL:
            raise ProtocolError(f"the bot's hello names protocol {msg.get('protocol')!r}, not {PROTOCOL!r}")
        v = _field(msg, "version", int, f"the protocol version it speaks, an integer ({VERSION})")
        if v != VERSION:
            raise ProtocolError(f"the bot speaks protocol version {v}; this arena speaks version {VERSION}")
        _field(msg, "name", str, "a string naming the bot")
        _field(msg, "bot_version", str, "a string, the bot's own version", optional=True)
        _field(msg, "options", dict, "an object of the options the bot took", optional=True)
        omit = _field(msg, "omit", list, f"a list of decide fields it does not want, among {list(OMITTABLE)}",
                      optional=True) or []
        bad = [x for x in omit if x not in OMITTABLE]
        if bad:
            raise ProtocolError(f"the bot's hello asks to omit {bad!r}; only {list(OMITTABLE)} may be omitted")
    elif kind == "action":
        _field(msg, "id", int, "an integer, one of the legal action ids of the decide message")
    return msg


# ----------------------------------------------------------------------------- the arena's messages
def hello(options: dict | None, engine_version: str) -> dict:
    return {"type": "hello", "protocol": PROTOCOL, "version": VERSION, "game": "versailles1919",
            "engine": engine_version, "options": dict(options or {})}


def new_game(info: dict) -> dict:
    return {"type": "new_game", **info}


def decide(*, step: int, seat: int, game, observation, legal_ids, time_left, omit=()) -> dict:
    """The decide message for `seat` from `game`, the seat's information set (a determinized copy:
    its position's deck orders and generator are a resample, not the real ones)."""
    msg = {"type": "decide", "step": int(step), "seat": int(seat), "acting_for": int(game.acting_for),
           "decision": game.decision, "legal": [int(a) for a in legal_ids],
           "time": None if time_left is None else time_left.to_dict()}
    if "names" not in omit:
        msg["names"] = [game.describe(int(a)) for a in legal_ids]
    if "observation" not in omit:
        msg["observation"] = [float(x) if math.isfinite(x) else 0.0 for x in observation.tolist()]
    if "position" not in omit:
        msg["position"] = game.to_dict()
    return msg


def game_over(rec: dict, seat: int) -> dict:
    res = rec["result"]
    return {"type": "game_over", "seat": int(seat), "ranks": res["ranks"], "winners": res["winners"],
            "scores": [s["total"] for s in res["scores"]], "forfeit": res["forfeit"],
            "decisions": res["decisions"]}


def quit_message() -> dict:
    return {"type": "quit"}


def error(message: str) -> dict:
    return {"type": "error", "message": message}
