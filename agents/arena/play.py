"""Play one game between agents, one per seat, and return its record (v1919_env/records.py).

    agents = [make_agent("random") for _ in range(4)]
    rec = run_game(agents, specs, num_players=4, seed=0)

For every decision the deciding seat gets its own observation and action mask (built by the
compiled core as the environments build them); agents with `needs_game` also get the game as their
seat may know it, never the real one: a copy whose hidden information (deck orders, dice) is
resampled (`Game.information_set`, i.e. `determinize`) with a seed the arena draws from the game
seed, which the agent neither chooses nor sees (`hand_off`). Nothing an agent does to it can change
the game being played, and reading its decks or its generator tells the agent nothing hidden. An agent that raises (in `act`, or in
`reset` before the first move), or returns anything but a legal action id, forfeits the game (see
v1919_env/records.py); `QuitGame` from the human agent is not a forfeit: it propagates to the caller
with the game attached.
"""
from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from v1919_env.actions import NUM_ACTIONS
from v1919_env.core import layout as L
from v1919_env.game import Game, hand_off_rng
from v1919_env.records import game_result, make_record

from ..base import Agent, AgentError, agent_names, make_agent, parse_agent_spec
from ..human import QuitGame
from ..seat import hand_off, observe_seat
from .clock import CallThread, Hung, SeatClock, TimeControl

OnMove = Callable[[Game, int, int, int], None]


def seat_spec(name: str, options: dict | None = None, label: str | None = None) -> dict:
    """The record's description of a seat's agent (its seed is added when the game is played)."""
    return {"label": label or name, "agent": name, "options": dict(options or {})}


def parse_agents_arg(text: str) -> list[dict]:
    """`"ismcts:iterations=200,rollout=rulebot,random,human"` -> one seat spec per agent: a
    comma-separated item with `=` and no `:` is one more option of the agent before it."""
    specs: list[list[str]] = []
    for item in (x.strip() for x in text.split(",")):
        if not item:
            raise AgentError(f"empty agent name in {text!r}")
        if "=" in item and ":" not in item:
            if not specs:
                raise AgentError(f"option {item!r} in {text!r} comes before any agent name")
            specs[-1].append(item)
        else:
            specs.append([item])
    out = []
    for parts in specs:
        name, opts = parse_agent_spec(parts[0] + ("," + ",".join(parts[1:]) if len(parts) > 1 else ""))
        out.append(seat_spec(name, opts, label=",".join(parts) if len(parts) > 1 or opts else None))
    return out


def build_agents(specs: list[dict]) -> list[Agent]:
    """One agent per seat spec, by registered name (AgentError lists the names and options)."""
    return [make_agent(s["agent"], **s["options"]) for s in specs]


def not_an_action_id(a) -> str | None:
    """Why what an agent's act() returned is not an action id at all (None if it is an integer): the
    same rule in process and in the process client (agents/arena/process/client.py), so 13.0, "13" or True
    forfeit however the agent runs."""
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
        return f"returned {a!r} ({type(a).__name__}), not an integer action id"
    return None


def _illegal(a, mask: np.ndarray) -> str | None:
    """Why `a` is not a legal action id under `mask` (None if it is)."""
    if not_an_action_id(a):
        return not_an_action_id(a)
    if not 0 <= int(a) < NUM_ACTIONS:
        return f"returned action {int(a)}, outside 0..{NUM_ACTIONS - 1}"
    if not mask[int(a)]:
        return f"returned action {int(a)}, which is not legal now"
    return None


def run_game(agents: list[Agent], specs: list[dict], *, num_players: int, seed: int, variant: str = "standard",
             negotiation: bool = False, card_set: str | None = None, agent_seeds: list[int] | None = None,
             game_index: int = 0, tournament: dict | None = None, on_move: OnMove | None = None,
             solitaire: dict | None = None, clocks: list | None = None) -> dict:
    """Play a game to its end (or to a forfeit) and return its record. on_move(game, step, seat,
    action) is called before each action is applied. QuitGame propagates with `.game` set.
    `solitaire`: {"faction", "target_vp"} of a 1-player game (Game.new's; None: the defaults).
    `clocks`: one agents.arena.clock.TimeControl (or its dict, or None: no clock) per seat; a seat with a
    clock is told its time left before each decision, its overruns are judged by the control's
    policy, and one that does not answer in time (plus the grace) forfeits as hung (agents/arena/clock.py).
    The record's timing holds every decision's milliseconds (`decision_ms`, in the order of the
    decisions, a forfeiting one included) and, with clocks, `clock` (controls, overruns, time left)."""
    if len(agents) != num_players or len(specs) != num_players:
        raise ValueError(f"need one agent per seat ({num_players}), got {len(agents)} agents, {len(specs)} specs")
    controls = _controls(clocks, num_players)
    game = Game.new(num_players, seed=seed, variant=variant, negotiation=negotiation, card_set=card_set,
                    **(solitaire or {}))
    seeds = [int(s) for s in agent_seeds] if agent_seeds is not None else \
        [int(x) for x in np.random.SeedSequence([int(seed), 1]).generate_state(num_players)]
    forfeit = None
    for p, (agent, s) in enumerate(zip(agents, seeds)):
        try:
            agent.reset(s)
            new_game = getattr(agent, "new_game", None)        # an agent that wants its seat (a process bot)
            if new_game is not None:
                new_game({"game": int(game_index), "seat": p, "num_players": num_players,
                          "players": [game.seat_name(q).lower() for q in range(num_players)],
                          "variant": variant, "negotiation": bool(negotiation), "card_set": game.cards.label,
                          "clock": None if controls[p] is None else controls[p].to_dict()})
        except QuitGame as e:
            e.game = game
            raise
        except Exception as e:                      # a failing reset forfeits the game before its first move
            forfeit = {"seat": p, "label": specs[p]["label"], "step": 0,
                       "reason": getattr(e, "forfeit_reason", None) or f"reset raised {type(e).__name__}: {e}",
                       "action": None}
            break
    buf = np.empty(L.MAX_LEGAL, np.int64)
    hand = hand_off_rng(seed)
    actions: list[int] = []
    seconds = [0.0] * num_players           # wall-clock time in act()
    cpu = [0.0] * num_players               # CPU time in act(), this process's (and a process bot's own)
    decisions = [0] * num_players
    decision_ms: list[float] = []
    seat_clocks = [SeatClock(c) if c is not None else None for c in controls]
    threads = {p: CallThread() for p, c in enumerate(controls) if c is not None}
    overruns: list[dict] = []
    hung = None
    fallback_rng = np.random.default_rng([int(seed) & ((1 << 63) - 1), 0xFA11])
    while forfeit is None and not game.is_over:
        p = game.current_player
        obs, mask = observe_seat(game, p, buf)
        agent = agents[p]
        clock = seat_clocks[p]
        told = None
        if clock is not None:
            told = clock.start()
            set_clock = getattr(agent, "set_clock", None)
            if set_clock is not None:
                set_clock(told)
        copy = hand_off(game, p, hand) if agent.needs_game else None
        t0, c0 = time.perf_counter(), time.process_time()
        own = getattr(agent, "cpu_seconds", None)       # a process bot: its own processes' CPU (sandbox.py)
        own0 = own() if own is not None else None
        over = False
        try:
            if clock is None:
                a = agent.act(obs, mask, copy)
                took = time.perf_counter() - t0
            else:
                wait = None if told.allowed_ms is None else (told.allowed_ms + clock.control.grace_ms) / 1000.0
                a, took = threads[p].call(lambda: agent.act(obs, mask, copy), wait)
                over = clock.stop(1000.0 * took, told)
            why = _illegal(a, mask)
        except QuitGame as e:
            e.game = game
            raise
        except Hung:
            took = time.perf_counter() - t0
            why = (f"did not answer within {told.allowed_ms:.0f} ms (its time) + {clock.control.grace_ms:.0f} ms "
                   f"(the grace): hung")
            a, hung = None, p
            abort = getattr(agent, "abort", None)   # a process bot: end it (its call then returns)
            if abort is not None:
                try:
                    abort()
                except Exception:
                    pass
        except Exception as e:                      # any agent failure forfeits the game
            took = time.perf_counter() - t0
            why = getattr(e, "forfeit_reason", None) or f"raised {type(e).__name__}: {e}"
            a = None
        seconds[p] += took
        cpu[p] += time.process_time() - c0
        own1 = own() if own0 is not None else None
        if own1 is not None:
            cpu[p] += own1 - own0
        decisions[p] += 1
        decision_ms.append(round(1000.0 * took, 3))
        if over and why is None:
            event = {"step": len(actions), "seat": p, "label": specs[p]["label"], "ms": round(1000.0 * took, 3),
                     "allowed_ms": round(told.allowed_ms, 3), "action": int(a)}
            if clock.control.overrun == "forfeit":
                why = f"overran its clock: {1000.0 * took:.0f} ms for a decision, {told.allowed_ms:.0f} ms allowed"
            else:
                a = fallback_move(game, clock.control.fallback, fallback_rng, buf)
                event["fallback"] = int(a)
            overruns.append(event)
        if why is not None:
            forfeit = {"seat": p, "label": specs[p]["label"], "step": len(actions), "reason": why,
                       "action": int(a) if isinstance(a, (int, np.integer)) and not isinstance(a, bool) else None}
            break
        a = int(a)
        if on_move is not None:
            on_move(game, len(actions), p, a)
        game.step(a)
        actions.append(a)
    for t in threads.values():
        t.close()
    seats = [dict(s, seed=sd) for s, sd in zip(specs, seeds)]
    timing = {"decisions": decisions, "seconds": [round(x, 6) for x in seconds],
              "cpu_seconds": [round(x, 6) for x in cpu], "decision_ms": decision_ms}
    if any(c is not None for c in controls):
        timing["clock"] = {"controls": [None if c is None else c.to_dict() for c in controls],
                           "left_ms": [None if c is None or c.left_ms is None else round(c.left_ms, 3)
                                       for c in seat_clocks],
                           "overruns": overruns, "hung": hung}
    rec = make_record(game_index=game_index, seed=seed, num_players=num_players, variant=variant,
                      negotiation=negotiation, card_set_label=game.cards.label,
                      card_set_digest=game.cards.digest,
                      card_set_path=None if card_set is None else str(card_set), seats=seats, actions=actions,
                      result=game_result(game, forfeit),
                      timing=timing,
                      tournament=tournament, solitaire=solitaire)
    for p, agent in enumerate(agents):          # agents that want the end of the game (a process bot)
        game_over = getattr(agent, "game_over", None)
        if game_over is not None and p != hung:
            try:
                game_over(rec)
            except Exception:                   # the game is over and recorded; a failing goodbye changes nothing
                pass
    return rec


def _controls(clocks, num_players: int) -> list:
    """One active TimeControl or None per seat, from run_game's `clocks`."""
    if clocks is None:
        return [None] * num_players
    if len(clocks) != num_players:
        raise ValueError(f"need one clock per seat ({num_players}), got {len(clocks)}")
    out = []
    for c in clocks:
        if isinstance(c, dict):
            c = TimeControl.from_dict(c)
        out.append(c if c is not None and c.active else None)
    return out


def fallback_move(game: Game, kind: str, rng: np.random.Generator, buf: np.ndarray) -> int:
    """The move the arena plays for a seat that overran under `overrun: fallback`: the compiled rule
    bot's choice (on the seat's information set), a uniformly drawn legal action, or the first."""
    legal_ids = game.legal_actions()
    if kind == "first":
        return int(legal_ids[0])
    if kind == "random":
        return int(rng.choice(legal_ids))
    from v1919_env.core.bots import bot_action, seed_policy_rng

    copy = game.information_set(game.current_player, int(rng.integers(1 << 62)))
    return int(bot_action(copy.state, copy.T, buf, seed_policy_rng(int(rng.integers(1 << 62)))))


# ---------------------------------------------------------------------- printing (play, demo, replay)
def format_move(game: Game, step: int, seat: int, action: int) -> str:
    """One printed line per decision: step, seat, decision (and, in the 2-player game, 'for USA' when the
    seat decides for the USA faction; in the solitaire game the player's faction, and 'for the X bot'
    on a bot's choice), description."""
    who = f"{game.seat_name(seat):<7}"
    if game.solitaire:
        from v1919_env.view.text import decider
        who = f"{decider(game):<7}"
    elif game.two_player and game.acting_for != seat:
        who += f" for {game.seat_name(game.acting_for)}"
    return f"{step:>5}  {who} [{game.decision}] {game.describe(action)}"


def format_result(rec: dict) -> str:
    """The final scoring table of a record, one row per seat, with ranks, winners and any forfeit."""
    res = rec["result"]
    if rec["num_players"] == 1:
        return "\n".join(_solitaire_rows(rec) + _result_footer(rec))
    w = max(22, 1 + max(len(seat["label"]) for seat in rec["seats"]))      # whole labels: options included
    rows = [f"{'seat':<8}{'agent':<{w}}{'issues':>7}{'flags':>7}{'strategy':>9}{'happiness':>10}{'total':>7}"
            f"{'rank':>6}"]
    for s, seat, rank in zip(res["scores"], rec["seats"], res["ranks"]):
        tag = "  winner" if s["seat"] in res["winners"] else ""
        rows.append(f"{s['nation']:<8}{seat['label']:<{w}}{s['issues']:>7}{s['flags']:>7}{s['strategy']:>9}"
                    f"{s['happiness']:>10}{s['total']:>7}{rank:>6}{tag}")
    return "\n".join(rows + _result_footer(rec))


def _result_footer(rec: dict) -> list[str]:
    """A forfeit (if any), the decisions, how the game ended and the card set."""
    res, rows = rec["result"], []
    f = res["forfeit"]
    if f is not None:
        rows.append(f"forfeit: seat {f['seat']} ({f['label']}) at step {f['step']}: {f['reason']}")
    end = "truncated by the safety cap" if res["truncated"] else "game over"
    rows.append(f"({res['decisions']} decisions; {end}; card set {rec['card_set']['label']})")
    return rows


def _solitaire_rows(rec: dict) -> list[str]:
    """The solitaire game's result: the player's VP against the level, the faction it ended with and
    the factions' strengths (EN:955-961)."""
    s = rec["result"]["scores"][0]
    outcome = "won" if s["winner"] else "lost"
    strengths = ", ".join(f"{n.upper()} {v}" for n, v in s["strengths"].items())
    return [f"player ({rec['seats'][0]['label']}): {s['total']} VP of {s['target_vp']} -> {outcome}; "
            f"controls {s['nation'].upper()} at the end; faction strength {strengths}"]


# ---------------------------------------------------------------------- the demo's default line-up
DEMO_LINEUP = ("ismcts:iterations=200", "rulebot", "greedy", "rulebot")
"""The baseline bots (a 3-player demo seats the first three), with a search budget small enough that
the demo takes seconds; in early 8-game tournaments rulebot and greedy beat ismcts at this budget."""
DEMO_SOLITAIRE = ("ismcts:iterations=200",)
"""The solitaire demo's player: ismcts searches the player's objective (core.search.solo_value) and
scores the most VP of the agents, 17.7 a game and 42% of games won at level 20, in about 2 s a game
(tools/solitaire_agents.py, docs/agents.md)."""


def default_lineup(num_players: int, preferred=None) -> tuple[list[dict], list[str]]:
    """Seat specs for the demo: the preferred agents (default: DEMO_LINEUP, DEMO_SOLITAIRE for one
    player), each replaced by `random` when its name is not registered or its options are refused;
    returns (specs, notes about each replacement)."""
    if preferred is None:
        preferred = DEMO_SOLITAIRE if num_players == 1 else DEMO_LINEUP
    specs, notes = [], []
    for text in preferred[:num_players]:
        name, opts = parse_agent_spec(text)
        try:
            if name not in agent_names():
                raise AgentError(f"agent {name!r} is not registered")
            make_agent(name, **opts).close()
            specs.append(seat_spec(name, opts, label=text if opts else None))
        except AgentError as e:
            notes.append(f"{text}: {e}; random plays instead")
            specs.append(seat_spec("random"))
    return specs, notes
