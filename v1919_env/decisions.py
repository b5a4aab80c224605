"""What is being decided, in the game's words: one sentence per kind of decision, naming the issue,
event, region or seat it is about, and the card's own text where a card decides. The one source of
these words for the web app, the terminal player and the replay (`decision_text(game)`); an action's
own words are `Game.describe` (v1919_env.actions.describe), which reads the same context from here.

No internal code (the decision names of `Game.decision`, e.g. `adv_issue`) reaches these texts; a
test plays whole random games of every player count and checks every text against them.
"""
from __future__ import annotations

from .core import layout as L
from .core.vocab import REGIONS

# {who}: the seat deciding; {issue}, {event}, {region}, {drawn}, {card}: its context (see _context).
SENTENCES = {
    "turn": "{who} to play: a political action (place influence, settle an issue or reclaim), a military "
            "action (deploy or demobilize a unit), or end the turn",
    "place2": "{who} places influence a second time this action (Place Influence)",
    "option": "{who} settles {issue}: choose how it is settled",
    "naval": "{who} settles {issue}: its naval counter goes with the UK's or the USA's flag",
    "event_cube": "{event} moves to the table and carries the influence icon: {who} may put one available cube on "
                  "it, to decide its conference effect later (the cube then goes to Exhausted)",
    "adv_issue": "{who} moves an issue from the waiting room to the table (its cubes go with it)",
    "adv_event": "{who} moves a waiting event to the table",
    "add_issue": "{who} adds an issue to the waiting room: a discard (the top one is free, the ones below cost "
                 "influence) or the top two of the deck, keeping one",
    "keep": "{who} drew {drawn}: keep one in the waiting room; the other is discarded",
    "modifier": "uprising check in {region}: {who} may change the roll by one",
    "affected": "uprising in {region}: {who} chooses the affected player among those tied",
    "uprising_issue": "uprising in {region}: {who} chooses the issue it unsettles",
    "bid": "bidding for {issue}: {who} raises the bid (units and influence) or passes",
    "draft": "strategy draft: {who} takes a strategy card",
    "optional": "{event}: its conference effect is optional; {who} accepts or declines it{card}",
    "choose_player": "{event}: {who} chooses a player{card}",
    "choose_region": "{event}: {who} chooses a region{card}",
    "branch": "{event}: {who} chooses one of the card's alternatives{card}",
    "sign": "{event}: {who} chooses whether Unrest goes up or down{card}",
    "unsettle": "{event}: {who} chooses a settled issue to unsettle{card}",
    "waiting_issue": "{event}: {who} chooses an issue in the waiting room{card}",
    "deploy": "{event}: {who} deploys a unit{card}",
    "demob": "{event}: {who} demobilizes a unit{card}",
    "mutiny": "mutiny: {who} has more units out than allowed and demobilizes one",
    "to_avail": "{event}: {who} may move a unit back to Available{card}",
    "to_exh": "{event}: {who} moves a deployed unit to Exhausted{card}",
    "choose_faction": "{who} chooses a faction: the weakest one to play on, or the bot that wins an equal bid",
}

# the same decisions in a few words, for a board's header and a move list
LABELS = {
    "turn": "a political or military action", "place2": "the second placement", "option": "settling {issue}",
    "naval": "the naval counter of {issue}", "event_cube": "a cube on {event}?", "adv_issue": "an issue to the table",
    "adv_event": "an event to the table", "add_issue": "an issue for the waiting room", "keep": "keep {drawn}",
    "modifier": "the uprising roll in {region}", "affected": "the player affected in {region}",
    "uprising_issue": "the issue lost in {region}", "bid": "a bid for {issue}", "draft": "a strategy card",
    "optional": "{event}: accept or decline", "choose_player": "{event}: a player", "choose_region": "{event}: a region",
    "branch": "{event}: an alternative", "sign": "{event}: Unrest up or down", "unsettle": "{event}: an issue to unsettle",
    "waiting_issue": "{event}: a waiting-room issue", "deploy": "{event}: a deployment", "demob": "{event}: a demobilization",
    "mutiny": "mutiny: a demobilization", "to_avail": "{event}: a unit to Available?",
    "to_exh": "{event}: a unit to Exhausted", "choose_faction": "a faction",
}


def event_in_play(game):
    """(event index 0-based, part: 0 crisis, 1 conference) of the event being resolved, else None."""
    s = game.state
    for k in range(int(s[L.SP]) - 1, -1, -1):
        f = L.STACK + k * L.FRAME_W
        if int(s[f + L.F_PROC]) == L.P_EVENT:
            return int(s[f + L.F_A0]), int(s[f + L.F_A0 + 1])
    return None


def drawn_issues(game) -> tuple[int, int] | None:
    """The two issues (0-based) drawn to keep one, while that is the pending decision."""
    if game.is_over or int(game.state[L.PENDING]) != L.D_KEEP:
        return None
    return int(game.state[L.DRAWN]), int(game.state[L.DRAWN + 1])


def event_text(game, e: int, part: int) -> str:
    """The card text of event `e`'s crisis (part 0) or conference (part 1) effect."""
    card = game.cards.raw["events"][e]
    return card.get(("crisis", "conference")[part], {}).get("text", "")


def _who(game) -> str:
    """The deciding side: the seat; in the 2-player game the faction it decides for (the USA's own
    decisions); in the solitaire game the player's faction, and the bot it decides for (EN:949-953)."""
    if game.solitaire:
        me = game.seat_name(game.solo_faction)
        return me if game.acting_for == game.solo_faction else f"{me} (for the {game.seat_name(game.acting_for)} bot)"
    return game.seat_name(game.acting_for if game.two_player else game.current_player)


def _context(game) -> dict:
    s = game.state
    ev = event_in_play(game)
    ctx = {"who": _who(game), "issue": "an issue", "event": "the event", "region": "a region", "drawn": "two issues", "card": ""}
    issue = game.option_issue()
    if issue is None and int(s[L.SETTLING]) >= 0:
        issue = int(s[L.SETTLING])
    if game.decision == "bid":
        issue = int(s[L.BID_ISSUE])
    if issue is not None and issue >= 0:
        ctx["issue"] = game.names.issue_at(issue)
    if ev is not None:
        ctx["event"] = game.names.event_at(ev[0])
        text = event_text(game, *ev)
        ctx["card"] = f'. The card: "{text}"' if text else ""
    elif game.decision == "event_cube" and int(s[L.EV_TABLE]) >= 0:
        ctx["event"] = game.names.event_at(int(s[L.EV_TABLE]))
    r = game.uprising_region()
    if r is not None:
        ctx["region"] = REGIONS[r].replace("_", " ").title()
    d = drawn_issues(game)
    if d is not None:
        ctx["drawn"] = f"{game.names.issue_at(d[0])} and {game.names.issue_at(d[1])}"
    return ctx


def decision_text(game) -> str:
    """The pending decision as a sentence ("the game is over" at the end)."""
    if game.is_over:
        return "the game is over"
    return SENTENCES.get(game.decision, "{who} decides").format(**_context(game))


def decision_label(game) -> str:
    """The pending decision in a few words ("game over" at the end)."""
    if game.is_over:
        return "game over"
    ctx = _context(game)
    if game.decision == "keep":
        ctx["drawn"] = ctx["drawn"].replace(" and ", " or ")
    return LABELS.get(game.decision, "a decision").format(**ctx)


def accept_words(game, yes: bool) -> str:
    """What accepting or declining does at the pending decision (the `accept` actions)."""
    d, ctx = game.decision, _context(game)
    if d == "event_cube":
        return f"put a cube on {ctx['event']}" if yes else f"put no cube on {ctx['event']}"
    if d == "optional":
        return f"accept {ctx['event']}'s conference effect" if yes else f"decline {ctx['event']}'s conference effect"
    if d == "to_avail":
        return "move a unit back to Available" if yes else "move no unit"
    return "accept" if yes else "decline"
