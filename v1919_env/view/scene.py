"""The board picture as a list of drawing primitives (one drawing, several backends).

`board_scene(game)` lays out the whole table from the position (`Game.to_dict()`) and the card set
in use (names, regions, stars, option counters), so a user's own cards show as they are.
`board_svg.py` writes the scene as SVG, `board_raster.py` paints the same primitives into an
`H x W x 3` uint8 array. Drawing only: no rules here.

Elements that tests and the replay viewer look up carry a `cls` (SVG class) and `data`
(SVG data-* attributes), e.g. every influence cube on an issue is one `Rect` of class `cube`
with `data-slot` and `data-seat`.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

from v1919_env.core import layout as L
from v1919_env.core.tables import T_FIRST_DEP_COL, T_THRESH
from v1919_env.core.vocab import COUNTER_BASE, REGIONS
from v1919_env.decisions import decision_label
from v1919_env.view.card_text import event_text, issue_text, strategy_text

WIDTH, HEIGHT = 1280, 800        # even sizes: video encoders need them

NATION_COLORS = {"uk": "#c62828", "france": "#1565c0", "usa": "#2e7d32", "italy": "#ef6c00", "japan": "#6a1b9a"}
REGION_COLORS = {"europe": "#90a4ae", "balkans": "#a1887f", "middle_east": "#ffcc80", "pacific": "#80deea",
                 "africa": "#c5e1a5"}
TRACKLESS_COLOR = "#e0e0e0"       # league, reparations and GAME END issues
SHORT = {"uk": "UK", "france": "FR", "usa": "US", "italy": "IT", "japan": "JP"}
COUNTER_ABBR = dict(zip(COUNTER_BASE, ("SD", "GC", "GR", "IG", "BC", "N", "E")))
COUNTER_COLORS = dict(zip(COUNTER_BASE, ("#fff59d", "#b0bec5", "#bcaaa4", "#ffe0b2", "#ef9a9a", "#90caf9", "#ce93d8")))
INK, PAPER, GREY, EXHAUSTED, KEG, DECK_BG = "#212121", "#fafafa", "#757575", "#9e9e9e", "#6d4c41", "#eceff1"
STAR_COLOR = "#f9a825"


class Rect(NamedTuple):
    x: int
    y: int
    w: int
    h: int
    fill: str
    stroke: str | None = None
    width: int = 1
    cls: str | None = None
    data: tuple = ()
    title: str | None = None      # shown on hover (a card's text)


class Circle(NamedTuple):
    cx: int
    cy: int
    r: int
    fill: str
    stroke: str | None = None
    width: int = 1
    cls: str | None = None
    data: tuple = ()


class Text(NamedTuple):
    x: int
    y: int                        # baseline
    text: str
    size: int = 12
    fill: str = INK
    anchor: str = "start"         # start | middle | end
    bold: bool = False
    cls: str | None = None
    data: tuple = ()
    title: str | None = None      # shown on hover (a card's text)


class Poly(NamedTuple):
    points: tuple                 # ((x, y), ...)
    fill: str
    stroke: str | None = None
    cls: str | None = None
    data: tuple = ()


class Scene(NamedTuple):
    width: int
    height: int
    background: str
    items: list


def _fit(text: str, n: int) -> str:
    return text if len(text) <= n else text[:n - 1].rstrip() + "."


@lru_cache(maxsize=4096)
def _star(cx: int, cy: int, r: int) -> tuple:
    """Points of a five-pointed star (integers, so both backends draw the same pixels)."""
    pts = []
    for k in range(10):
        a = -math.pi / 2 + k * math.pi / 5
        rr = r if k % 2 == 0 else r * 0.45
        pts.append((round(cx + rr * math.cos(a)), round(cy + rr * math.sin(a))))
    return tuple(pts)


class _Board:
    """Builds the scene; one method per part of the table."""

    def __init__(self, game):
        self.g = game
        self.d = game.to_dict()
        self.items: list = []
        self.seats = list(self.d["players"])
        self.issues = {r["name"]: r for r in game.cards.raw["issues"]}
        self.event_cards = {r["name"]: r for r in game.cards.raw["events"]}
        self.strategies = {r["name"]: r for r in game.cards.raw["strategies"]}
        self.region_names = [r["name"] for r in game.cards.raw["board"]["regions"]["value"]]

    def add(self, item):
        self.items.append(item)

    # ------------------------------------------------------------------ header and decision
    def header(self):
        d, g = self.d, self.g
        self.add(Rect(0, 0, WIDTH, 36, "#263238"))
        self.add(Text(12, 24, f"Versailles 1919  |  turn {d['turn'] + 1}  |  {d['num_players']} players  |  "
                              f"{d['variant']}{'  |  negotiation' if d['negotiation'] else ''}  |  {d['card_set']}",
                      15, "#ffffff", bold=True))
        if g.is_over:
            win = [SHORT[r["nation"]] for r in g.scores() if r["winner"]]
            why = " (truncated)" if g.truncated else " (deadlock)" if g.deadlocked else ""
            msg = f"GAME OVER{why}: winner {', '.join(win) or '-'}"
            who = None
        else:
            who = d["pending"]["player"]
            tp = d.get("two_player")          # the 2-player game: the player may decide for the USA
            for_usa = f" for {tp['pending_for'].upper()}" if tp and tp["pending_for"] != who else ""
            msg = f"{who.upper()} decides{for_usa}: {self.decision_text()}"
        self.add(Text(WIDTH - 12, 24, msg, 15, NATION_COLORS.get(who, "#ffffff") if who else "#ffeb3b", "end",
                      True, "decision", (("decision", d["pending"]["decision"] if who else "game_over"),
                                         ("player", who or ""))))

    def decision_text(self) -> str:
        return decision_label(self.g)

    # ------------------------------------------------------------------ region tracks
    def tracks(self):
        g, d = self.g, self.d
        x0, y0, lab_w, keg_w, col_w, row_h = 10, 46, 108, 46, 70, 50
        first_dep = int(g.T[T_FIRST_DEP_COL])
        cols_x = [x0 + lab_w + keg_w + 6 + (c - 1) * col_w for c in range(1, 9)]
        self.add(Text(x0, y0 + 12, "Region tracks", 13, bold=True))
        self.add(Text(x0 + lab_w + keg_w // 2, y0 + 12, "kegs", 10, GREY, "middle"))
        for c, x in zip(range(1, 9), cols_x):
            th = int(g.T[T_THRESH + c])
            self.add(Text(x + col_w // 2, y0 + 12, f"{c}  ({th if th else 'X'})", 11, GREY, "middle"))
        top = y0 + 18
        for r, reg in enumerate(REGIONS):
            y = top + r * row_h
            rd = d["regions"][reg]
            self.add(Rect(x0, y, lab_w - 4, row_h - 4, REGION_COLORS[reg], INK))
            self.add(Text(x0 + 6, y + 28, self.region_names[r], 13, bold=True))
            self.add(Rect(x0 + lab_w, y, keg_w, row_h - 4, DECK_BG, INK))
            if rd["powder_keg"] == 0:
                self.keg(x0 + lab_w + 15, y + 14, reg, 0)
            for c, x in zip(range(1, 9), cols_x):
                fill = "#fbe9e7" if c <= 3 else "#e8f5e9" if c >= first_dep else PAPER
                self.add(Rect(x, y, col_w - 2, row_h - 4, fill, INK, cls="cell",
                              data=(("region", reg), ("column", c))))
                if rd["powder_keg"] == c:
                    self.keg(x + 4, y + 26, reg, c)
                if rd["unrest"] == c:
                    self.add(Circle(x + 34, y + 17, 11, INK, cls="unrest", data=(("region", reg), ("column", c))))
                    self.add(Text(x + 34, y + 21, "U", 11, "#ffffff", "middle", True))
            for p, seat in enumerate(self.seats):
                c = self.d["players"][seat]["military"]["deployed"].get(reg, 0)
                if c > 0:
                    self.add(Circle(cols_x[c - 1] + 12 + 15 * p, y + 36, 7, NATION_COLORS[seat], INK, cls="unit",
                                    data=(("region", reg), ("seat", seat), ("column", c))))

    def keg(self, x, y, reg, column):
        self.add(Rect(x, y, 16, 16, KEG, INK, cls="keg", data=(("region", reg), ("column", column))))

    # ------------------------------------------------------------------ issues
    def issue_cards(self):
        y0 = 312
        self.add(Text(10, y0 + 12, "On the table", 13, bold=True))
        self.add(Text(324, y0 + 12, "Waiting room", 13, bold=True))
        slots = self.d["table"] + self.d["waiting_room"]
        for sl, rec in enumerate(slots):
            x = 10 + sl * 150 + (14 if sl >= L.N_TABLE else 0)
            self.issue_card(x, y0 + 18, sl, rec)

    def issue_card(self, x, y, sl, rec):
        w, h = 146, 150
        if rec is None:
            self.add(Rect(x, y, w, h, DECK_BG, GREY, cls="issue", data=(("slot", sl), ("issue", ""))))
            self.add(Text(x + w // 2, y + 76, "(empty)", 11, GREY, "middle"))
            return
        card = self.issues[rec["issue"]]
        self.add(Rect(x, y, w, h, PAPER, INK, cls="issue", data=(("slot", sl), ("issue", rec["issue"])),
                      title=issue_text(card)))
        self.add(Rect(x, y, w, 16, REGION_COLORS.get(card["region"], TRACKLESS_COLOR), INK))
        reg = card["region"]
        reg_name = self.region_names[REGIONS.index(reg)] if reg in REGIONS else reg.replace("_", " ")
        self.add(Text(x + 4, y + 12, f"#{card['number']}  {reg_name}" + ("  no military" if card["no_military"]
                                                                            else ""), 10))
        words, lines = rec["issue"].split(), [""]
        for wd in words:
            if len(lines[-1]) + len(wd) + 1 > 21 and lines[-1]:
                lines.append("")
            lines[-1] = (lines[-1] + " " + wd).strip()
        for k, line in enumerate(lines[:2]):
            self.add(Text(x + 5, y + 31 + 14 * k, _fit(line, 21), 12, bold=True))
        for k in range(card["stars"]):
            self.add(Poly(_star(x + 10 + 13 * k, y + 60, 6), STAR_COLOR, INK, cls="star", data=(("slot", sl),)))
        for p, seat in enumerate(self.seats):
            n = rec["cubes"].get(seat, 0)
            ry = y + 74 + p * 17
            self.add(Text(x + 4, ry + 9, SHORT[seat], 9, NATION_COLORS[seat], bold=True))
            for k in range(n):
                cx = x + 22 + (k % 15) * 8
                self.add(Rect(cx, ry + 1, 7, 7 if n <= 15 else 5, NATION_COLORS[seat], cls="cube",
                              data=(("slot", sl), ("seat", seat))))

    # ------------------------------------------------------------------ events
    def events(self):
        ev = self.d["events"]
        y = 490
        self.add(Text(10, y + 12, "Event on the table", 13, bold=True))
        self.add(Text(284, y + 12, "Events waiting", 13, bold=True))
        t = ev["table"]
        self.event_card(10, y + 18, 260, t["event"] if t else None, "table")
        if t and t["cube"]:
            self.add(Rect(10 + 236, y + 18 + 10, 14, 14, NATION_COLORS[t["cube"]], INK, cls="event-cube",
                          data=(("seat", t["cube"]),)))
        for w, name in enumerate(ev["waiting_room"]):
            self.event_card(284 + w * 246, y + 18, 240, name, f"waiting{w}")

    def event_card(self, x, y, w, name, where):
        self.add(Rect(x, y, w, 34, "#fff8e1" if name else DECK_BG, INK, cls="event",
                      data=(("where", where), ("event", name or "")),
                      title=event_text(self.event_cards[name]) if name in self.event_cards else None))
        self.add(Text(x + 8, y + 22, _fit(name, 30) if name else "(none)", 13, INK if name else GREY, bold=bool(name)))

    # ------------------------------------------------------------------ happiness track
    def happiness(self):
        y, box = 560, 24
        self.add(Text(10, y + 12, "Happiness", 13, bold=True))
        untracked = {"usa"} if self.g.two_player else set()     # the 2-player USA has no marker (EN:779)
        legend = "   ".join(f"{SHORT[n]} {'-' if n in untracked else v}" for n, v in self.d["happiness"].items())
        self.add(Text(110, y + 12, legend, 12))
        zones = self.g.cards.raw["board"]["happiness_zones"]["value"]
        shades = ("#e8f5e9", "#fff9c4", "#ffebee")
        for v in range(31):
            zone = next(k for k, z in enumerate(zones) if z["min"] <= v <= z["max"])
            self.add(Rect(10 + v * box, y + 18, box - 1, 62, shades[min(zone, 2)], GREY))
            if v % 5 == 0:
                self.add(Text(10 + v * box + box // 2, y + 92, str(v), 10, GREY, "middle"))
        for k, (n, v) in enumerate(self.d["happiness"].items()):
            if n in untracked:
                continue
            self.add(Circle(10 + v * box + box // 2, y + 25 + k * 12, 5, NATION_COLORS[n], INK, cls="happy",
                            data=(("nation", n), ("value", v))))

    # ------------------------------------------------------------------ footer: decks, scores
    def footer(self):
        d, y = self.d, 668
        disc = d["issue_discards"][::-1][:3]
        self.add(Text(10, y + 12, f"Issue deck: {len(d['issue_deck'])} cards   |   discards (top first): "
                                  f"{', '.join(disc) or '-'}   |   event deck: {len(d['events']['deck'])}", 12))
        self.add(Text(10, HEIGHT - 10, "Track columns: number (uprising threshold; X: none). Red columns: powder kegs; "
                                       "green: deploy spaces. U: unrest marker.", 11, GREY))
        if self.g.is_over and self.g.solitaire:
            g = self.g
            self.add(Text(10, y + 36, f"Final: the player has {g.player_vp} VP of {g.target_vp}: "
                                      f"{'WON' if g.won else 'lost'}", 13, bold=True, cls="score",
                          data=(("total", g.player_vp),)))
        elif self.g.is_over:
            self.add(Text(10, y + 36, "Final scores", 13, bold=True))
            for k, r in enumerate(self.g.scores()):       # a row each: a line never runs into another
                self.add(Text(10, y + 52 + k * 16,
                              f"{r['nation'].upper()} {r['total']}  (issues {r['issues']}, flags {r['flags']}, "
                              f"strategy {r['strategy']}, happiness {r['happiness']})" + ("  WINNER" if r["winner"]
                                                                                        else ""),
                              12, NATION_COLORS[r["nation"]], bold=r["winner"], cls="score",
                              data=(("seat", r["nation"]), ("total", r["total"]))))

    # ------------------------------------------------------------------ players
    def players(self):
        decider = None if self.g.is_over else self.d["pending"]["player"]
        for p, seat in enumerate(self.seats):
            self.player(780, 44 + p * 189, seat, seat == decider)

    def player(self, x, y, seat, deciding):
        pd, col = self.d["players"][seat], NATION_COLORS[seat]
        w, h = 490, 185
        self.add(Rect(x, y, w, h, PAPER, col, 4 if deciding else 1, "player",
                      (("seat", seat), ("deciding", int(deciding)))))
        self.add(Text(x + 10, y + 20, seat.upper() + ("  (deciding)" if deciding else ""), 15, col, bold=True))
        strat = pd["strategy"] or "not drafted"
        status = f"happiness {self.d['happiness'][seat]}   |   strategy: {strat}"
        if self.g.two_player and seat == "usa":
            status = "run by the player whose turn it is: influence only"
        card = self.strategies.get(pd["strategy"]) if pd["strategy"] else None
        self.add(Text(x + w - 10, y + 20, status, 12, anchor="end", cls="strategy",
                      data=(("seat", seat), ("strategy", pd["strategy"] or "")),
                      title=strategy_text(card) if card else None))
        inf = pd["influence"]
        placed = self.g.cards.raw["board"]["influence_per_player"]["value"] - inf["available"] - inf["exhausted"]
        self.add(Text(x + 10, y + 40, "Influence", 11, GREY))
        kinds = [("inf-avail", col)] * inf["available"] + [("inf-exh", EXHAUSTED)] * inf["exhausted"] + \
            [("inf-placed", PAPER)] * placed
        for k, (cls, fill) in enumerate(kinds):
            self.add(Rect(x + 70 + k * 12, y + 31, 10, 10, fill, INK, cls=cls, data=(("seat", seat),)))
        self.add(Text(x + 260, y + 40, f"available {inf['available']}, exhausted {inf['exhausted']}, "
                                       f"on cards {placed}", 11))
        mil = pd["military"]
        self.add(Text(x + 10, y + 60, "Military", 11, GREY))
        units = [("mil-avail", col)] * mil["available"] + [("mil-exh", EXHAUSTED)] * mil["exhausted"] + \
            [("mil-deployed", PAPER)] * len(mil["deployed"]) + [("mil-demob", INK)] * mil["demobilized"]
        for k, (cls, fill) in enumerate(units):
            self.add(Circle(x + 76 + k * 16, y + 56, 6, fill, col, 2, cls, (("seat", seat),)))
        dep = ", ".join(f"{self.region_names[REGIONS.index(r)]} {c}" for r, c in mil["deployed"].items()) or "-"
        self.add(Text(x + 130, y + 60, f"available {mil['available']}, exhausted {mil['exhausted']}, "
                                       f"demobilized {mil['demobilized']}", 11))
        self.add(Text(x + 130, y + 74, _fit(f"deployed: {dep}", 58), 11))       # its own line: never clipped
        self.controlled(x, y + 90, seat)

    def controlled(self, x, y, seat):
        held = [r for r in self.d["settled"] if r["controller"] == seat]
        self.add(Text(x + 10, y, f"Controlled issues ({len(held)})", 11, GREY))
        per_col, line_h = 8, 11
        for k, rec in enumerate(held[:2 * per_col]):
            cx, cy = x + 10 + (k // per_col) * 240, y + 14 + (k % per_col) * line_h
            card = self.issues[rec["issue"]]
            self.add(Text(cx + 6, cy, str(card["stars"]), 10, anchor="end"))
            self.add(Poly(_star(cx + 13, cy - 4, 4), STAR_COLOR))
            self.add(Text(cx + 20, cy, _fit(rec["issue"], 15), 10, cls="controlled",
                          data=(("seat", seat), ("issue", rec["issue"])), title=issue_text(card)))
            self.add(Text(cx + 112, cy, _fit(rec["option"] or "-", 12), 10, GREY))
            self.counters(cx + 182, cy - 9, card, rec)
        if len(held) > 2 * per_col:
            self.add(Text(x + 480, y, f"+{len(held) - 2 * per_col} more", 10, GREY, "end"))

    def counters(self, x, y, card, rec):
        if rec["option"] is None:
            return
        opt = next(o for o in card["options"] if o["name"] == rec["option"])
        toks = []
        for c in opt["counters"]:
            flag = c.get("flag")
            for k in range(c["count"]):
                if flag == "uk_or_usa":      # UK-or-USA naval counters: the controller's choice, kept per issue
                    f = "uk" if k < rec.get("naval_uk", 0) else "usa"
                else:
                    f = flag
                toks.append((c["kind"], f))
        for k, (kind, flag) in enumerate(toks[:4]):
            self.add(Rect(x + k * 14, y, 13, 10, COUNTER_COLORS[kind], NATION_COLORS[flag] if flag else INK,
                          cls="counter", data=(("kind", kind), ("flag", flag or ""))))
            self.add(Text(x + k * 14 + 6, y + 8, COUNTER_ABBR[kind], 7, INK, "middle"))


def board_scene(game) -> Scene:
    """The whole table of `game` as drawing primitives (see the module docstring)."""
    b = _Board(game)
    b.header()
    b.tracks()
    b.issue_cards()
    b.events()
    b.happiness()
    b.footer()
    b.players()
    return Scene(WIDTH, HEIGHT, "#ffffff", b.items)

