"""A readable text rendering of the board (drawing only; no rules here)."""
from __future__ import annotations

from v1919_env.core import layout as L
from v1919_env.core.tables import T_ISSUE_STARS, T_THRESH
from v1919_env.core.vocab import NATIONS, REGIONS
from v1919_env.decisions import decision_label

_SHORT = {"uk": "UK", "france": "FR", "usa": "US", "italy": "IT", "japan": "JP"}


def _cubes(g, sl):
    s = g.state
    parts = [f"{_SHORT[NATIONS[p]]}{int(s[L.SLOT_CUBES + sl * L.MAX_PLAYERS + p])}" for p in range(g.num_factions)
             if s[L.SLOT_CUBES + sl * L.MAX_PLAYERS + p] > 0]
    return " ".join(parts) or "-"


def decider(g) -> str:
    """Who takes the pending decision: the seat ('nobody' once the game is over); in the 2-player
    game 'UK for USA' when a player decides for the USA faction; in the solitaire game the faction
    the player controls, with 'for the UK bot' when the bot rules leave the player a bot's choice."""
    if g.is_over:
        return "nobody"
    if g.solitaire:
        who = g.seat_name(g.solo_faction)
        return who if g.acting_for == g.solo_faction else f"{who} for the {g.seat_name(g.acting_for)} bot"
    who = g.seat_name(g.current_player)
    return f"{who} for {g.seat_name(g.acting_for)}" if g.two_player and g.acting_for != g.current_player else who


def solitaire_line(g) -> str:
    """The solitaire game's state in one line: the player's faction and VP, the factions' strengths."""
    st = "  ".join(f"{_SHORT[n]} {v}" for n, v in zip(NATIONS, g.faction_strengths()))
    return (f"Solitaire: the player controls {g.seat_name(g.solo_faction)} | VP {g.player_vp} of {g.target_vp}"
            f" | faction strength {st}")


def render_text(g) -> str:
    s, T = g.state, g.T
    np_ = g.num_factions          # the players, and the 2-player game's USA faction
    out = []
    over = " - GAME OVER" + (" (truncated)" if g.truncated else "") if g.is_over else ""
    players = "solitaire" if g.solitaire else f"{g.num_players} players"
    out.append(f"Versailles 1919 | {players} | turn {g.turn} | active "
               f"{g.seat_name(g.active_player)} | deciding: {decision_label(g)}, by {decider(g)}{over}")
    if g.solitaire:
        out.append(solitaire_line(g))
    untracked = {L.USA_FACTION} if g.two_player else set()       # the 2-player USA has no happiness (EN:779)
    if g.solitaire:                  # no Italian or Japanese happiness in the solitaire game (EN:866)
        untracked = {NATIONS.index("italy"), NATIONS.index("japan")}
    out.append("Happiness: " + "  ".join(f"{_SHORT[n]} {'-' if k in untracked else int(s[L.HAPPY + k])}"
                                         for k, n in enumerate(NATIONS)))
    out.append("")
    out.append("Players      influence(av/ex)  military(av/ex/demob)  deployed                 strategy")
    for p in range(np_):
        dep = ", ".join(f"{REGIONS[r]}@{int(s[L.DEP_COL + p * L.N_REGIONS + r])}" for r in range(L.N_REGIONS)
                        if s[L.DEP_COL + p * L.N_REGIONS + r] > 0) or "-"
        st = int(s[L.PLAYER_STRAT + p])
        out.append(f"  {NATIONS[p]:<10} {int(s[L.INF_AVAIL + p]):>6}/{int(s[L.INF_EXH + p]):<10}"
                   f"{int(s[L.MIL_AVAIL + p]):>6}/{int(s[L.MIL_EXH + p])}/{int(s[L.MIL_DEMOB + p]):<11}"
                   f" {dep:<24} {g.names.strategy_at(st) if st >= 0 else '-'}")
    out.append("")
    out.append("Region tracks (columns 1-8; K powder keg, * unrest, letters = units, threshold below)")
    for r in range(L.N_REGIONS):
        cells = []
        for c in range(1, 9):
            mark = "."
            if s[L.KEG + r] >= c:
                mark = "K"
            if s[L.UNREST + r] == c:
                mark = "*"
            for p in range(np_):
                if s[L.DEP_COL + p * L.N_REGIONS + r] == c:
                    mark = _SHORT[NATIONS[p]][0]
            cells.append(mark)
        out.append(f"  {REGIONS[r]:<12} [{' '.join(cells)}]  unrest {int(s[L.UNREST + r])}")
    out.append("  " + " " * 12 + " " + " ".join(str(int(T[T_THRESH + c])) if T[T_THRESH + c] else "X"
                                                for c in range(1, 9)))
    out.append("")
    for title, rng in (("On the table", range(L.N_TABLE)), ("Waiting room", range(L.N_TABLE, L.N_SLOTS))):
        out.append(f"{title}:")
        for sl in rng:
            i = g.slot_issue(sl)
            if i is None:
                out.append(f"  [{sl}] (empty)")
            else:
                out.append(f"  [{sl}] {g.names.issue_at(i)} ({int(T[T_ISSUE_STARS + i])}*)  cubes: {_cubes(g, sl)}")
    ev = int(s[L.EV_TABLE])
    cube = int(s[L.EV_CUBE])
    out.append("Event on the table: " + (g.names.event_at(ev) + (f" (cube: {g.seat_name(cube)})" if cube >= 0 else "")
                                         if ev >= 0 else "-"))
    out.append("Events waiting: " + ", ".join(g.names.event_at(int(e)) for e in s[L.EV_WAIT:L.EV_WAIT + 2] if e >= 0))
    disc = [g.names.issue_at(int(x)) for x in s[L.ISSUE_DISC:L.ISSUE_DISC + int(s[L.ISSUE_DISC_N])]][::-1][:3]
    out.append(f"Issue deck: {int(s[L.ISSUE_DECK_N])} cards | discards (top first): {', '.join(disc) or '-'}")
    out.append("")
    out.append("Settled issues:")
    for p in range(np_):
        held = [f"{g.names.issue_at(i)} ({int(T[T_ISSUE_STARS + i])}*)" for i in range(L.N_ISSUES)
                if s[L.ISSUE_CTRL + i] == p]
        out.append(f"  {NATIONS[p]:<10} {', '.join(held) or '-'}")
    if g.is_over and g.solitaire:
        out.append("")
        out.append(f"Final: the player has {g.player_vp} VP of {g.target_vp}: {'WON' if g.won else 'lost'} (EN:959)")
    elif g.is_over:
        out.append("")
        out.append("Final scores: " + "  ".join(
            f"{r['nation']} {r['total']} (issues {r['issues']}, flags {r['flags']}, strategy {r['strategy']}, "
            f"happiness {r['happiness']}){' WINNER' if r['winner'] else ''}" for r in g.scores()))
    return "\n".join(out)


RENDER_MODES = ["ansi", "human", "rgb_array"]
"""The environments' render modes (their metadata and their render_mode check)."""


def render_mode_output(game, mode: str | None):
    """The environments' render(): None (no rendering), 'ansi' returns the text, 'human' prints it,
    'rgb_array' returns the board picture as an H x W x 3 uint8 array (the drawing of `Game.to_svg()`)."""
    if mode is None:
        return None
    if game is None:
        raise RuntimeError("call reset() before render()")
    if mode == "rgb_array":
        from v1919_env.view.raster import board_rgb
        return board_rgb(game)
    text = game.render()
    if mode == "human":
        print(text)
        return None
    return text
