"""Shared checks for the board picture: what a position says vs what a drawing shows."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter

import numpy as np

from v1919_env.game import Game


def random_record(seed: int, num_players: int = 4, negotiation: bool = False) -> dict:
    """A plain replay record of a uniformly random game played to the end."""
    g = Game.new(num_players, seed=seed, negotiation=negotiation)
    rng = np.random.default_rng(seed)
    acts = []
    while not g.is_over:
        legal = g.legal_actions()
        a = int(legal[rng.integers(len(legal))])
        acts.append(a)
        g.step(a)
    return {"seed": seed, "num_players": num_players, "variant": "standard", "negotiation": negotiation,
            "actions": acts}


def game_at(record: dict, step: int, card_set=None) -> Game:
    g = Game.new(record["num_players"], seed=record["seed"], variant=record["variant"],
                 negotiation=record["negotiation"], card_set=card_set)
    for a in record["actions"][:step]:
        g.step(a)
    return g


def expected(g: Game) -> dict:
    """What the position says (read from to_dict, not from the drawing code)."""
    d = g.to_dict()
    out = {"cubes": Counter(), "units": set(), "unrest": {}, "kegs": {}, "issues": {}, "events": {},
           "happiness": dict(d["happiness"]), "inf": Counter(), "mil": Counter(), "strategy": {},
           "controlled": set()}
    for sl, rec in enumerate(d["table"] + d["waiting_room"]):
        out["issues"][sl] = rec["issue"] if rec else ""
        for seat, n in (rec["cubes"] if rec else {}).items():
            out["cubes"][(sl, seat)] = n
    for reg, r in d["regions"].items():
        out["unrest"][reg] = r["unrest"]
        out["kegs"][reg] = r["powder_keg"]
    for seat, p in d["players"].items():
        for reg, col in p["military"]["deployed"].items():
            out["units"].add((reg, seat, col))
        out["inf"][("inf-avail", seat)] = p["influence"]["available"]
        out["inf"][("inf-exh", seat)] = p["influence"]["exhausted"]
        for kind in ("available", "exhausted", "demobilized"):
            out["mil"][(kind, seat)] = p["military"][kind]
        out["strategy"][seat] = p["strategy"] or ""
    for rec in d["settled"]:
        out["controlled"].add((rec["controller"], rec["issue"]))
    ev = d["events"]
    out["events"]["table"] = ev["table"]["event"] if ev["table"] else ""
    for w, name in enumerate(ev["waiting_room"]):
        out["events"][f"waiting{w}"] = name or ""
    out["event_cube"] = ev["table"]["cube"] if ev["table"] and ev["table"]["cube"] else None
    out["decision"] = ("game_over", "") if g.is_over else (d["pending"]["decision"], d["pending"]["player"])
    return out


def drawn(svg_text: str) -> dict:
    """What an SVG drawing of the board shows, read from its elements' classes and data attributes."""
    root = ET.fromstring(svg_text)
    els = [e.attrib for e in root.iter() if e.get("class")]
    by = lambda c: [a for a in els if a["class"] == c]  # noqa: E731
    mil_kind = {"mil-avail": "available", "mil-exh": "exhausted", "mil-demob": "demobilized"}
    out = {"cubes": Counter((int(a["data-slot"]), a["data-seat"]) for a in by("cube")),
           "units": {(a["data-region"], a["data-seat"], int(a["data-column"])) for a in by("unit")},
           "unrest": {a["data-region"]: int(a["data-column"]) for a in by("unrest")},
           "kegs": {a["data-region"]: int(a["data-column"]) for a in by("keg")},
           "issues": {int(a["data-slot"]): a["data-issue"] for a in by("issue")},
           "events": {a["data-where"]: a["data-event"] for a in by("event")},
           "happiness": {a["data-nation"]: int(a["data-value"]) for a in by("happy")},
           "inf": Counter((a["class"], a["data-seat"]) for a in els if a["class"] in ("inf-avail", "inf-exh")),
           "mil": Counter((mil_kind[a["class"]], a["data-seat"]) for a in els if a["class"] in mil_kind),
           "strategy": {a["data-seat"]: a["data-strategy"] for a in by("strategy")},
           "controlled": {(a["data-seat"], a["data-issue"]) for a in by("controlled")}}
    cubes = by("event-cube")
    out["event_cube"] = cubes[0]["data-seat"] if cubes else None
    dec = by("decision")[0]
    out["decision"] = (dec["data-decision"], dec["data-player"])
    return out


def assert_drawing_matches(g: Game, svg_text: str, where: str = "") -> None:
    want, got = expected(g), drawn(svg_text)
    for key in want:
        w, h = want[key], got[key]
        if isinstance(w, Counter):
            w, h = +w, +h
        assert w == h, f"{where} {key}: position says {w}, drawing shows {h}"


def hex_rgb(color: str) -> tuple:
    return tuple(int(color[i:i + 2], 16) for i in (1, 3, 5))


def cubes_in_pixels(img: np.ndarray, card_box: tuple, color: str, skip_left: int = 20) -> int:
    """Cubes of one colour drawn inside an issue card, counted from the pixels alone: the most
    separate runs of that colour along any pixel row (the seat's row of cubes), left labels skipped."""
    x, y, w, h = card_box
    patch = img[y:y + h, x + skip_left:x + w].astype(int)
    mask = (np.abs(patch - np.array(hex_rgb(color))).sum(axis=2) <= 12)
    starts = mask[:, 1:] & ~mask[:, :-1]
    return int((starts.sum(axis=1) + mask[:, 0]).max()) if mask.size else 0
