"""`v1919 serve`'s application (Starlette): new games against any offered agent, the board as the
project's SVG, the legal actions by their readable names, the bots' moves one by one, live over a
WebSocket; games kept in SQLite (store.py) and rebuilt by replaying their actions.

What the browser gets is `public_view`: a function of what every seat can see (the board, the
moves so far, the legal actions of a human seat to move). The game's seed, its deck orders and its
generator never leave the server (tests/agents/arena/web/test_web_app.py checks the payloads against a game whose
hidden information was resampled). Every message from the browser is checked (`Room.check`): one
that is malformed, stale, out of turn or illegal gets an error and changes nothing.
"""
from __future__ import annotations

import asyncio
import difflib
import hmac
import itertools
import json
import logging
import secrets
from contextlib import asynccontextmanager
from urllib.parse import urlsplit

import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from agents.base import Agent, AgentError, make_agent, parse_agent_spec
from agents.arena.play import hand_off, observe_seat, seat_spec
from v1919_env.core.vocab import NATIONS
from v1919_env.game import Game, card_tables
from v1919_env.decisions import decision_label, decision_text
from v1919_env.records import RecordError, game_result, make_record
from v1919_env.variants import variant_names
from v1919_env.seating import parse_seating, seating_names
from v1919_env.view.replay_html import ReplayError, replay_html
from v1919_env.view.scene import board_scene
from v1919_env.view.svg import scene_parts, scene_svg

from . import page
from .analysis import DEFAULT_ANALYSIS, AnalysisWorker, check_analysis_spec
from .places import action_place, drawn_places
from .store import Store
from .watch import Watched

log = logging.getLogger(__name__)

DEFAULT_AGENTS = ("rulebot", "random", "greedy", "ismcts", "ismcts:iterations=1000")
"""The agent specs the new-game page offers unless `v1919 serve --agent` names others."""
HUMAN = "human"
TOKEN_NEEDED = "this server needs its token: open the address it printed (…?token=…)"
LOG_MOVES = 12          # the moves the payload lists (the newest last)
MAX_MESSAGE = 4096      # characters: a browser message is a small JSON object


SEATINGS = {n: [["uk"] + list(p) for p in itertools.permutations(NATIONS[1:n])] for n in (2, 3, 4)}
"""The clockwise orders the new-game page offers, UK first (a seating is a cycle: any rotation is the same)."""


class Refused(ValueError):
    """A browser request or message that is refused; its text is the error the browser shows."""


def _int(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Refused(f"{what} must be an integer, got {json.dumps(value)}")
    return value


def check_new_game(body, offered: tuple[str, ...]) -> dict:
    """The settings of a new game from the browser's request {"num_players": 1-4, "variant": ...,
    "seats": ["human" or an offered agent spec, one per seat], "links": true for a link per human seat
    (people on other machines)}; Refused otherwise."""
    if not isinstance(body, dict):
        raise Refused("a new game is a JSON object {num_players, variant, seats}")
    unknown = sorted(set(body) - {"num_players", "variant", "seats", "seating", "links"})
    if unknown:
        raise Refused(f"unknown field(s) {', '.join(unknown)}")
    n = _int(body.get("num_players"), "num_players")
    if n not in (1, 2, 3, 4):
        raise Refused(f"num_players must be 1, 2, 3 or 4, got {n}")
    variant = body.get("variant", "standard")
    names = variant_names(card_tables()[0])
    if variant not in names:
        raise Refused(f"variant must be one of {', '.join(names)}, got {json.dumps(variant)}")
    seats = body.get("seats")
    if not isinstance(seats, list) or len(seats) != n:
        raise Refused(f"seats must be a list of {n} entries (\"human\" or an agent), got {json.dumps(seats)}")
    for p, s in enumerate(seats):
        if s != HUMAN and s not in offered:
            raise Refused(f"seat {p}: {json.dumps(s)} is not offered; choose \"human\" or one of "
                          f"{', '.join(offered)}")
    seating = body.get("seating")
    if seating is not None:
        if n == 1:
            raise Refused("seating: the solitaire game has no seating")
        try:
            seating = seating_names(parse_seating(seating, n))
        except ValueError as e:
            raise Refused(str(e)) from None
    links = body.get("links", False)
    if not isinstance(links, bool):
        raise Refused(f"links must be true or false, got {json.dumps(links)}")
    if links and HUMAN not in seats:
        raise Refused("links: a link is for a human seat; no seat is human")
    settings = {"num_players": n, "variant": variant, "seats": list(seats), "seating": seating,
                "seed": secrets.randbits(63)}
    if links:           # a key per human seat: its link moves that seat only (never sent in a state)
        settings["seat_keys"] = [secrets.token_urlsafe(12) if s == HUMAN else None for s in seats]
    return settings


def seats_of_key(settings: dict, key: str | None) -> frozenset | None:
    """The seats a tab may move: every human seat in a game without links (a hot seat); in a game
    with links, the seat whose key the tab's address carries, or none (a spectator)."""
    keys = settings.get("seat_keys")
    if keys is None:
        return None
    return frozenset(p for p, k in enumerate(keys) if k is not None and key is not None
                     and hmac.compare_digest(k.encode(), key.encode()))


def new_game(settings: dict) -> Game:
    """The game of `settings` at its start."""
    return Game.new(settings["num_players"], seed=settings["seed"], variant=settings["variant"],
                    seating=settings.get("seating"))


def seat_names(game: Game) -> list[str]:
    """The nation of each seat; in the solitaire game the faction the player controls now."""
    if game.solitaire:
        return [game.seat_name(game.solo_faction)]
    return [game.seat_name(p) for p in range(game.num_players)]


def svg_patch(old: list[str], new: list[str]) -> list:
    """How to build the SVG pieces `new` from `old`: a list of [i, j] (old's pieces i..j-1, kept) and
    lists of new pieces, in order. A move changes a few dozen of the board's ~1,000 pieces."""
    ops = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            ops.append([i1, i2])
        elif j2 > j1:
            ops.append(new[j1:j2])
    return ops


def public_view(gid: str, settings: dict, game: Game, moves: list[dict], parts: bool = False) -> dict:
    """The payload of a game's state for the browser: only what every seat sees. `moves` are the
    moves so far ({step, seat, player, action, name}). Never the seed, the decks or the generator.
    A legal action with a place on the board carries it ("place": the class and data attributes of
    the SVG elements that choose it, agents/arena/web/places.py). With `parts`, the picture is its pieces
    (`svg_parts`, for Room.state_for) instead of one string (`svg`)."""
    seats = settings["seats"]
    over = bool(game.is_over)
    to_move = None if over else int(game.current_player)
    human_turn = to_move is not None and seats[to_move] == HUMAN
    scene = board_scene(game)
    legal = game.legal_actions() if human_turn else []
    places = drawn_places(game, scene, legal)
    view = {
        "type": "state", "game": gid, "step": len(moves), "num_players": game.num_players,
        "variant": settings["variant"], "seating": game.seating if game.num_players > 1 else None,
        "seats": [{"seat": p, "name": name, "player": seats[p]} for p, name in enumerate(seat_names(game))],
        "over": over, "to_move": to_move, "human_to_move": human_turn,
        "turn": int(game.turn), "decision": None if over else game.decision,
        "decision_text": decision_text(game),
        "solitaire": ({"vp": int(game.player_vp), "target": int(game.target_vp)} if game.solitaire else None),
        "legal": [dict({"action": int(a), "name": game.describe(int(a))},
                       **({"place": places[int(a)]} if int(a) in places else {})) for a in legal],
        "last_move": moves[-1] if moves else None,
        "log": moves[-LOG_MOVES:],
        "scores": game.scores() if over else None,
    }
    if parts:
        view["svg_parts"] = scene_parts(scene)
    else:
        view["svg"] = scene_svg(scene)
    return view


class Room:
    """A game being played: its Game, its moves, its bots, the browsers watching it. One lock orders
    every change; a bot's move is chosen in a worker thread and applied under the lock."""

    def __init__(self, gid: str, settings: dict, actions: list[int], store: Store, bot_delay: float,
                 analyst: AnalysisWorker | None = None):
        self.gid, self.settings, self.store, self.bot_delay = gid, settings, store, bot_delay
        self.game = new_game(settings)
        self.moves: list[dict] = []
        for a in actions:
            self._apply(a)
        self.agents: dict[int, Agent] = {}
        self.lock = asyncio.Lock()
        self.sockets: set[WebSocket] = set()
        self.sent: dict[WebSocket, list[str]] = {}     # the SVG pieces each open tab holds
        self.tab_seats: dict[WebSocket, frozenset | None] = {}   # the seats each tab may move (seats_of_key)
        self.driver: asyncio.Task | None = None
        self.failure: str | None = None
        self.analyst = analyst                   # the server's analysis process (None: no analysis)
        self.analysis_lock = asyncio.Lock()      # one analysis of this game at a time

    def _apply(self, action: int) -> None:
        g = self.game
        p = int(g.current_player)
        self.moves.append({"step": len(self.moves), "seat": p, "name": g.seat_name(p),
                           "player": self.settings["seats"][p], "action": int(action),
                           "move": g.describe(int(action)), "place": action_place(g, int(action))})
        g.step(int(action))

    def record(self, action: int) -> None:
        """Store the action of the current step, then play it."""
        self.store.add_move(self.gid, len(self.moves), action)
        self._apply(action)

    def undo_step(self, seats: frozenset | None = None) -> int | None:
        """The step of the last human move (an undo goes back to just before it); None if none, or
        once the game is over: its record (with the seed, hence every deck order and die) is then
        public, so reopening the game would let a player replay it knowing the future."""
        if self.game.is_over:
            return None
        return next((m["step"] for m in reversed(self.moves) if m["player"] == HUMAN
                     and (seats is None or m["seat"] in seats)), None)

    def undo(self, step: int) -> None:
        """Take back the moves from `step` on: the store forgets them, the game is replayed to it, the
        bots are built afresh."""
        self.store.drop_moves(self.gid, step)
        actions = [m["action"] for m in self.moves[:step]]
        self.game = new_game(self.settings)
        self.moves = []
        for a in actions:
            self._apply(a)
        for agent in self.agents.values():
            agent.close()
        self.agents, self.failure = {}, None

    def position_at(self, step: int) -> dict:
        """The public board before move `step` (0..len(moves); len(moves): now), read-only: every
        move to it is public, and the picture shows what every seat sees (never the seed or a deck)."""
        g = new_game(self.settings)
        for m in self.moves[:step]:
            g.step(m["action"])
        return {"step": step, "svg": scene_svg(board_scene(g)), "decision": decision_label(g),
                "move": self.moves[step] if step < len(self.moves) else None}

    def state_for(self, ws, view: dict, seats: frozenset | None = None) -> dict:
        """The state message for one tab from view(parts=True): the whole picture the first time,
        then only how it changed (`svg_patch`, svg_patch()) from what that tab holds."""
        msg = dict(view)
        if "seat_keys" in self.settings:      # this tab's seats: a link's own, or none (watching)
            msg["you"] = sorted(seats or ())
            msg["human_to_move"] = msg["human_to_move"] and msg["to_move"] in (seats or ())
            msg["can_undo"] = self.undo_step(seats) is not None
            if not msg["human_to_move"]:
                msg["legal"] = []
        new = msg.pop("svg_parts")
        old = self.sent.get(ws)
        msg["svg_parts" if old is None else "svg_patch"] = new if old is None else svg_patch(old, new)
        self.sent[ws] = new
        return msg

    def view(self, parts: bool = False) -> dict:
        v = public_view(self.gid, self.settings, self.game, self.moves, parts)
        v["can_undo"] = self.undo_step() is not None
        if self.failure:
            v["failure"] = self.failure
        return v

    def record_of_game(self) -> dict:
        """The game's record (v1919_env.records; `v1919 replay --html` opens it). It holds the seed,
        hence the decks: the server gives it only once the game is over."""
        g, seats = self.game, self.settings["seats"]
        specs = [seat_spec(HUMAN, {}, "human (browser)") if s == HUMAN else seat_spec(*parse_agent_spec(s), label=s)
                 for s in seats]
        return make_record(game_index=0, seed=self.settings["seed"], num_players=self.settings["num_players"],
                           variant=self.settings["variant"], negotiation=False, card_set_label=g.cards.label,
                           card_set_path=None, card_set_digest=g.cards.digest, seats=specs,
                           actions=[m["action"] for m in self.moves], result=game_result(g),
                           seating=self.settings.get("seating"))

    def bot_to_move(self) -> bool:
        g = self.game
        return not g.is_over and self.settings["seats"][int(g.current_player)] != HUMAN and self.failure is None

    # ---------------------------------------------------------------- the browser's messages
    def check(self, text, seats: frozenset | None = None) -> tuple[str, int]:
        """What a browser message asks: ("act", a) for {"type": "act", "step": k, "seat": p, "action":
        a}, refused unless it is for the current step, from the human seat to move and legal; ("undo",
        j) for {"type": "undo", "step": k}, back to just before the last human move (step j);
        ("analyze", k) for {"type": "analyze", "step": k}. Refused for anything else."""
        if not isinstance(text, str):
            raise Refused("messages are JSON text")
        if len(text) > MAX_MESSAGE:
            raise Refused(f"message longer than {MAX_MESSAGE} characters")
        try:
            msg = json.loads(text)
        except ValueError:
            raise Refused("malformed message: not JSON") from None
        if isinstance(msg, dict) and msg.get("type") in ("undo", "analyze"):
            unknown = sorted(set(msg) - {"type", "step"})
            if unknown:
                raise Refused(f"malformed message: unknown field(s) {', '.join(unknown)}")
            step = _int(msg.get("step"), "step")
            if step != len(self.moves):
                raise Refused(f"stale message: it is for step {step}, the game is at step {len(self.moves)}")
            if msg["type"] == "analyze":
                return "analyze", step
            back = self.undo_step(seats)
            if back is None and self.game.is_over:
                raise Refused("the game is over: its moves are final (its record, with the seed, is public now)")
            if back is None:
                raise Refused("nothing to undo: no human move yet")
            return "undo", back
        if not isinstance(msg, dict) or msg.get("type") != "act":
            raise Refused('malformed message: expected {"type": "act", "step": k, "seat": p, "action": a}, '
                          '{"type": "undo", "step": k} or {"type": "analyze", "step": k}')
        unknown = sorted(set(msg) - {"type", "step", "seat", "action"})
        if unknown:
            raise Refused(f"malformed message: unknown field(s) {', '.join(unknown)}")
        step, seat, action = (_int(msg.get(k), k) for k in ("step", "seat", "action"))
        g = self.game
        if step != len(self.moves):
            raise Refused(f"stale message: it is for step {step}, the game is at step {len(self.moves)}")
        if g.is_over:
            raise Refused("the game is over")
        p = int(g.current_player)
        if self.settings["seats"][p] != HUMAN:
            raise Refused(f"out of turn: {g.seat_name(p)} (a bot, {self.settings['seats'][p]}) is to move")
        if seat != p:
            raise Refused(f"out of turn: {g.seat_name(p)} (seat {p}) is to move, not seat {seat}")
        if seats is not None and p not in seats:
            raise Refused(f"not your seat: {g.seat_name(p)} is played from its own link"
                          + ("" if seats else " (this tab watches: open a seat's link to play)"))
        mask = g.action_mask()
        if not 0 <= action < mask.shape[0] or not mask[action]:
            raise Refused(f"illegal action {action}: not one of the {len(g.legal_actions())} legal actions now")
        return "act", action

    async def analysis(self, step: int) -> dict:
        """The analysis of the position at `step` (agents/arena/web/analysis.py): the search runs on the
        information set of the seat to move, outside the game's lock."""
        async with self.analysis_lock:
            async with self.lock:
                if step != len(self.moves):
                    raise Refused(f"stale message: it is for step {step}, the game is at step {len(self.moves)}")
                g = self.game
                info = None if g.is_over else hand_off(
                    g, int(g.current_player), np.random.default_rng([self.settings["seed"], 0xA7A1, step]))
                actions = [m["action"] for m in self.moves]
            if self.analyst is None:
                raise AgentError("this server runs no analysis")
            try:
                return await self.analyst.analyze(self.gid, self.settings["num_players"], self.settings["seed"],
                                                  info, new_game(self.settings), actions, step)
            except Exception as e:      # reported to the browser that asked; the game is not touched
                raise AgentError(f"{type(e).__name__}: {e}") from e

    # ---------------------------------------------------------------- the bots
    def _agent(self, p: int) -> Agent:
        if p not in self.agents:
            name, opts = parse_agent_spec(self.settings["seats"][p])
            agent = make_agent(name, **opts)
            seeds = np.random.SeedSequence([self.settings["seed"], 1]).generate_state(self.settings["num_players"])
            agent.reset(int(seeds[p]))
            self.agents[p] = agent
        return self.agents[p]

    def _bot_action(self, p: int, step: int) -> int:
        """Seat p's bot's action (run in a worker thread while the room's lock is held)."""
        agent = self._agent(p)
        obs, mask = observe_seat(self.game, p)
        copy = None
        if agent.needs_game:    # its information set, from a generator of the server's (never the agent's)
            copy = hand_off(self.game, p, np.random.default_rng([self.settings["seed"], 0x5EA7, step]))
        a = agent.act(obs, mask, copy)
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)) or \
                not 0 <= int(a) < mask.shape[0] or not mask[int(a)]:
            raise AgentError(f"returned {a!r}, not a legal action")
        return int(a)

    async def drive(self) -> None:
        """Play the bots' moves one by one, telling every browser after each, until a human is to move."""
        while True:
            async with self.lock:
                if not self.bot_to_move():
                    return
                p, step = int(self.game.current_player), len(self.moves)
                try:
                    a = await run_in_threadpool(self._bot_action, p, step)
                except Exception as e:      # a bot that fails stops the game here, said to the browsers
                    log.exception("game %s: the bot of seat %d failed", self.gid, p)
                    self.failure = f"the bot of {self.game.seat_name(p)} ({self.settings['seats'][p]}) failed: {e}"
                else:
                    self.record(a)
            await self.broadcast()
            await asyncio.sleep(self.bot_delay)

    def kick(self) -> None:
        """Start the bots' driver unless it runs or no bot is to move."""
        if self.bot_to_move() and (self.driver is None or self.driver.done()):
            self.driver = asyncio.create_task(self.drive())

    async def broadcast(self) -> None:
        view = self.view(parts=True)
        for ws in list(self.sockets):
            try:
                await ws.send_json(self.state_for(ws, view, self.tab_seats.get(ws)))
            except Exception:       # a closed tab
                self.sockets.discard(ws)
                self.sent.pop(ws, None)

    async def close(self) -> None:
        if self.driver is not None and not self.driver.done():
            self.driver.cancel()
        for agent in self.agents.values():
            agent.close()
        if self.analyst is not None:
            self.analyst.forget(self.gid)


class Rooms:
    """The games open in this server process, loaded from the store on first use."""

    def __init__(self, store: Store, bot_delay: float, analysis: str = DEFAULT_ANALYSIS):
        self.store, self.bot_delay, self.analysis = store, bot_delay, analysis
        self.rooms: dict[str, Room] = {}
        self.analyst: AnalysisWorker | None = None      # started with the server (lifespan)

    def get(self, gid: str) -> Room | None:
        if gid not in self.rooms:
            found = self.store.load(gid)
            if found is None:
                return None
            if self.analyst is None:
                self.analyst = AnalysisWorker(self.analysis, warm=False)
            self.rooms[gid] = Room(gid, found[0], found[1], self.store, self.bot_delay, self.analyst)
        return self.rooms[gid]

    def new(self, settings: dict) -> Room:
        gid = secrets.token_urlsafe(12)
        self.store.add_game(gid, settings)
        return self.get(gid)

    async def close(self) -> None:
        for room in self.rooms.values():
            await room.close()
        if self.analyst is not None:
            self.analyst.close()


def _same_origin(headers) -> bool:
    """A browser's WebSocket from another site carries that site's Origin: refuse it."""
    origin = headers.get("origin")
    return origin is None or urlsplit(origin).netloc == headers.get("host")


def create_app(db_path: str, *, agents: tuple[str, ...] = DEFAULT_AGENTS, token: str | None = None,
               allowed_hosts: list[str] | None = None, bot_delay: float = 0.4,
               analysis: str = DEFAULT_ANALYSIS, records: list | None = None,
               warm_analysis: bool = False) -> Starlette:
    """The application over the SQLite file `db_path`. `agents`: the specs the browser may seat
    (checked here: each builds); `token`: when set, every request needs it (?token=, or the cookie
    the first page sets); `allowed_hosts`: the Host headers accepted (DNS rebinding); `bot_delay`:
    seconds between the bots' moves, so that a person can follow them; `analysis`: the search agent
    spec of the analysis (ismcts or guided); `records`: records files (or tournament directories)
    the watch pages offer."""
    for spec in agents:
        name, opts = parse_agent_spec(spec)
        if name == HUMAN:
            raise AgentError('"human" is the browser\'s seat, not an agent to offer')
        make_agent(name, **opts).close()
    offered = tuple(agents)
    analysis = check_analysis_spec(analysis)       # every setting checked before the file is made
    watched = Watched(records or [])
    rooms = Rooms(Store(db_path), bot_delay, analysis)

    def authorized(conn) -> bool:
        if token is None:
            return True
        given = conn.query_params.get("token") or conn.cookies.get("v1919_token") or ""
        return hmac.compare_digest(given.encode(), token.encode())

    def with_cookie(request: Request, response: Response) -> Response:
        if token is not None and request.query_params.get("token"):
            response.set_cookie("v1919_token", token, httponly=True, samesite="strict")
        return response

    def refuse(status: int, text: str, request: Request | None = None) -> Response:
        """The error as JSON for the API and the WebSocket, as a page for an address a person opens."""
        if request is not None and not request.url.path.startswith("/api/"):
            return HTMLResponse(page.message_html(status, text), status_code=status)
        return JSONResponse({"error": text}, status_code=status)

    async def index(request: Request) -> Response:
        if not authorized(request):
            return refuse(403, TOKEN_NEEDED, request)
        return with_cookie(request, HTMLResponse(page.index_html(offered, variant_names(card_tables()[0]),
                                                                 rooms.store.list_games(), SEATINGS,
                                                                 len(watched.paths))))

    async def new_game(request: Request) -> Response:
        if not authorized(request):
            return refuse(403, "token needed")
        try:
            body = json.loads(await request.body())
        except ValueError:
            return refuse(400, "a new game is a JSON object {num_players, variant, seats}")
        try:
            settings = check_new_game(body, offered)
        except Refused as e:
            return refuse(400, str(e))
        room = rooms.new(settings)
        out = {"game": room.gid, "url": f"/game/{room.gid}"}
        if "seat_keys" in settings:       # a link per human seat, to hand to each player (the token with it)
            names = seat_names(room.game)
            extra = f"&token={token}" if token is not None else ""
            out["links"] = {names[p]: f"/game/{room.gid}?seat={k}{extra}"
                            for p, k in enumerate(settings["seat_keys"]) if k is not None}
            out["url"] = next(iter(out["links"].values()))
        return JSONResponse(out, status_code=201)

    def guarded(find):
        """A route of one thing of the path: the token checked, then handler(request, thing) with
        thing = find(request), or 404 with find's message when it returns a str."""
        def decorate(handler):
            async def route(request: Request) -> Response:
                if not authorized(request):
                    return refuse(403, TOKEN_NEEDED, request)
                thing = find(request)
                if isinstance(thing, str):
                    return refuse(404, thing, request)
                return await handler(request, thing)
            return route
        return decorate

    def the_game(request: Request):
        gid = request.path_params["gid"]
        return rooms.get(gid) or f"no game {gid!r}"

    def the_file(request: Request):
        k = request.path_params["k"]
        return k if 0 <= k < len(watched.paths) else "no such records file"

    for_a_game, for_a_watched_file = guarded(the_game), guarded(the_file)

    @for_a_game
    async def game_page(request: Request, room: Room) -> Response:
        return with_cookie(request, HTMLResponse(page.game_html(room.gid)))

    @for_a_game
    async def game_state(request: Request, room: Room) -> Response:
        return JSONResponse(room.view())

    @for_a_game
    async def game_record(request: Request, room: Room) -> Response:
        if not room.game.is_over:
            return refuse(409, "the record is given when the game is over (it holds the seed, hence the decks)")
        return Response(json.dumps(room.record_of_game()) + "\n", media_type="application/jsonl",
                        headers={"Content-Disposition": f'attachment; filename="v1919-{room.gid}.jsonl"'})

    @for_a_game
    async def game_moves(request: Request, room: Room) -> Response:
        return JSONResponse({"moves": room.moves})

    @for_a_game
    async def game_position(request: Request, room: Room) -> Response:
        step = request.path_params["step"]
        if not 0 <= step <= len(room.moves):
            return refuse(404, f"no step {step}: the game is at step {len(room.moves)}")
        return JSONResponse(await run_in_threadpool(room.position_at, step))

    async def watch_index(request: Request) -> Response:
        if not authorized(request):
            return refuse(403, TOKEN_NEEDED, request)
        files = await run_in_threadpool(lambda: [watched.listing(k) for k in range(len(watched.paths))])
        return with_cookie(request, HTMLResponse(page.watch_index_html(files)))

    @for_a_watched_file
    async def watch_file(request: Request, k: int) -> Response:
        return with_cookie(request, HTMLResponse(page.watch_file_html(k, str(watched.paths[k]))))

    @for_a_watched_file
    async def watch_listing(request: Request, k: int) -> Response:
        return JSONResponse(await run_in_threadpool(watched.listing, k))

    @for_a_watched_file
    async def watch_results(request: Request, k: int) -> Response:
        path = watched.results(k)
        if path is None:
            return refuse(404, "no results.md or ladder.md beside this records file", request)
        text = await run_in_threadpool(path.read_text, "utf-8")
        return with_cookie(request, HTMLResponse(page.text_html(path.name, text)))

    @for_a_watched_file
    async def watch_game(request: Request, k: int) -> Response:
        try:
            games = await run_in_threadpool(watched.games, k)
        except (RecordError, OSError) as e:
            return refuse(422, str(e))
        pos = request.path_params["pos"]
        if not 0 <= pos < len(games):
            return refuse(404, f"the file holds {len(games)} games, not a game at position {pos}")
        try:
            back = (f"/watch/{k}", "back to the games")
            return HTMLResponse(await run_in_threadpool(replay_html, games[pos], 0, back))
        except (RecordError, ReplayError) as e:
            return refuse(422, f"game at position {pos} does not replay: {e}")

    @for_a_watched_file
    async def watch_live(request: Request, k: int) -> Response:
        """A game of file k's tournament still being played: the replay viewer of its moves so far, at
        the last one, following the game (page.LIVE_SCRIPT) until it ends."""
        game = request.path_params["game"]
        live = await run_in_threadpool(watched.live_game, k, game)
        if live is None:
            return refuse(404, f"game {game} is not being played now (a finished game is in the list of games)")
        try:
            html = await run_in_threadpool(replay_html, live, len(live["actions"]), (f"/watch/{k}", "back to the games"))
        except ReplayError as e:
            return refuse(422, f"game {game} in progress does not replay: {e}")
        return HTMLResponse(html.replace("</body>", page.live_script(k, game, len(live["actions"])) + "</body>"))

    @for_a_watched_file
    async def watch_live_moves(request: Request, k: int) -> Response:
        live = await run_in_threadpool(watched.live_game, k, request.path_params["game"])
        return JSONResponse({"playing": live is not None, "decisions": None if live is None else len(live["actions"])})

    async def game_socket(ws: WebSocket) -> None:
        if not authorized(ws) or not _same_origin(ws.headers):
            await ws.close(code=4403)
            return
        room = rooms.get(ws.path_params["gid"])
        if room is None:
            await ws.close(code=4404)
            return
        await ws.accept()
        room.sockets.add(ws)
        room.tab_seats[ws] = seats = seats_of_key(room.settings, ws.query_params.get("seat"))
        try:
            await ws.send_json(room.state_for(ws, room.view(parts=True), seats))
            room.kick()
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                try:
                    async with room.lock:
                        kind, value = room.check(msg.get("text"), seats)
                        if kind == "act":
                            room.record(value)
                        elif kind == "undo":
                            room.undo(value)
                    if kind == "analyze":
                        await ws.send_json(await room.analysis(value))
                        continue
                except Refused as e:
                    await ws.send_json({"type": "error", "error": str(e), "step": len(room.moves)})
                    continue
                except AgentError as e:         # the analysis' search failed: said to this browser
                    log.exception("game %s: the analysis failed", room.gid)
                    await ws.send_json({"type": "error", "error": f"the analysis failed: {e}", "step": len(room.moves)})
                    continue
                await room.broadcast()
                room.kick()
        except WebSocketDisconnect:
            pass
        finally:
            room.sockets.discard(ws)
            room.sent.pop(ws, None)
            room.tab_seats.pop(ws, None)

    @asynccontextmanager
    async def lifespan(app):
        if warm_analysis and rooms.analyst is None:    # `v1919 serve`: the analysis process starts with the
            rooms.analyst = AnalysisWorker(rooms.analysis, warm=True)    # server and compiles at once
        yield
        await rooms.close()

    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts)] if allowed_hosts else []
    app = Starlette(routes=[
        Route("/", index),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{gid}", game_state),
        Route("/api/games/{gid}/record", game_record),
        Route("/api/games/{gid}/moves", game_moves),
        Route("/api/games/{gid}/at/{step:int}", game_position),
        Route("/game/{gid}", game_page),
        WebSocketRoute("/ws/{gid}", game_socket),
        Route("/watch", watch_index),
        Route("/watch/{k:int}", watch_file),
        Route("/watch/{k:int}/live/{game:int}", watch_live),
        Route("/api/watch/{k:int}/live/{game:int}", watch_live_moves),
        Route("/watch/{k:int}/{pos:int}", watch_game),
        Route("/watch/{k:int}/results", watch_results),
        Route("/api/watch/{k:int}", watch_listing),
    ], middleware=middleware, lifespan=lifespan)
    app.state.rooms = rooms
    return app
