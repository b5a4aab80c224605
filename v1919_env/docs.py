"""Generated documentation tables (observation layout, action segments): `python -m v1919_env.docs`."""
from __future__ import annotations

from pathlib import Path


def observation_table() -> str:
    """Every slice of the observation vector as a Markdown table."""
    from .core.layout import DECISION_NAMES
    from .core.observe import OBS_SIZE, obs_slices
    from .envs.versions import OBSERVATION_VERSION
    rows = [f"# Observation layout ({OBS_SIZE} float32 values)", "",
            f"Observation version {OBSERVATION_VERSION} (`v1919_env.envs.versions`; docs/versioning.md says when it "
            "changes). Generated from `v1919_env/core/observe.py` (`python -m v1919_env.docs`). Seats are relative: "
            "index 0 is the observing seat, then the others clockwise; a fifth index, where present, means "
            "'nobody'.", "", "| slice | offset | size | content |", "|---|---|---|---|"]
    for name, (off, n, desc) in obs_slices().items():
        rows.append(f"| {name} | {off} | {n} | {desc} |")
    rows += ["", "Decision kinds (index in the `decision` slice): "
             + ", ".join(f"{k} {v}" for k, v in sorted(DECISION_NAMES.items())) + "."]
    return "\n".join(rows + [""] + _compact_table()) + "\n"


def _compact_table() -> list[str]:
    """The compact layout's slices (core/observe_compact.py)."""
    from .core.observe_compact import COMPACT_SIZE, compact_slices
    from .envs.versions import COMPACT_OBSERVATION_VERSION
    rows = [f"## The compact layout ({COMPACT_SIZE} float32 values)", "",
            f"Compact observation version {COMPACT_OBSERVATION_VERSION}. Every environment takes "
            "`obs_layout='compact'` (the default, `'full'`, is the table above). The same public view, as rows "
            "of entities a network can share weights over: a row per relative seat, region, issue card (by "
            "card index, 0-52) and event card (0-45). Every float follows from the full observation of the same "
            "seat (`tests/core/test_observe_compact.py` derives it slice by slice at every step of random "
            "games); left out are the 'nobody' columns of unsettled issues and the counters of each settled "
            "issue one by one (they follow from its card, option and naval flag; their totals are in "
            "`counters_in_play`). Each issue's and event's row says which slot it sits in and each drawn issue "
            "whether it is the first or the second: the actions name slots (`place`, `settle`, "
            "`advance_issue`, `advance_event`) and `keep` names the first or second drawn issue (version 1 "
            "said only table or waiting room, and a network could not tell which issue an action meant). "
            f"About 115 of the {COMPACT_SIZE} floats are nonzero in a 4-player game (the full observation: about 160 of 2,032). "
            "Generated from `v1919_env/core/observe_compact.py`.", "",
            "| slice | offset | size | content |", "|---|---|---|---|"]
    for name, (off, n, desc) in compact_slices().items():
        rows.append(f"| {name} | {off} | {n} | {desc} |")
    return rows


def actions_doc() -> str:
    """docs/actions.md: the segment table, the index convention, the decisions and turn order."""
    from .actions import SOURCES, segment_table
    from .core.layout import DECISION_NAMES
    from v1919_env.core.vocab import REGIONS
    sources = "\n".join(f"| {kind} | " + ", ".join(f"{k} {n}" for k, n in enumerate(names)) + " |"
                         for kind, names in SOURCES.items())
    decisions = "\n".join(f"| {k} | {name} |" for k, name in sorted(DECISION_NAMES.items()))
    return f"""# Action space

Generated from `v1919_env/core/actions.py` (`python -m v1919_env.docs`).

{segment_table()}

## One index convention

`encode(kind, **params)` (and positions, and `Game.issue_name` / `event_name` / `strategy_name` /
`option_name`) take names wherever a number is taken (`v1919_env/cards/names.py`):

- **Cards by their printed number, 1-based** (issues 1..53, events 1..46, strategy cards 1..10: the
  `choose_issue` and `draft` parameters, positions, the name helpers) **or by name** (or data id, any
  case): `encode("choose_issue", issue="Fiume")`, `encode("draft", strategy="Global Trade")`,
  `g.issue_name(13)`.
- **Everything else counts from 0** in a fixed order, or is named: regions 0..4 in board order
  ({", ".join(REGIONS)}) or by name; seats 0..3 = UK, France, USA, Italy or by nation; an issue's options
  0..3 in card order (or by name in positions and `option_name`); slots, branches and the other small
  choices from 0. `reclaim`'s `recall` is a region bit mask or a list of regions.
- `decode` gives the numbers `encode` takes (cards by their printed number, 1-based); only the state array
  and the core hold cards 0-based (card number - 1).

Unit sources: each segment numbers only the places a unit can come from for it; the names work in all:

| segment | source numbers |
|---|---|
{sources}

`deploy`: `encode("deploy", source="available", region="europe", column=6)`; a unit already deployed
moves with `source=<its region>`.

**Declining** an optional choice is always `accept` with `yes=0`: an optional conference event, the
event cube, and an event's "may move a unit to Available" (the `to_avail` decision offers
`unit_to_available` for each unit that may move, and `accept yes=0` to move none).

## The turn

A turn is one political action (`place`, `settle`, `reclaim`, or `pass_political` when none is
legal) and at most one military action (`deploy`, `demobilize`, or `end_turn` to take none), in either
order. **The turn ends by itself once both are done**: after a political action and a military
action the next player clockwise is active with no further action; `end_turn` is offered only
while the military action is still open, and it ends the turn at once (it declines the military
action).

Turn order follows the **seating** (`Game.new(seating=...)`, default UK, France, USA, Italy
clockwise): turns, bidding (from the affected player or old controller, clockwise), the strategy
draft's ties (closest clockwise to the active player), die-modifier announcements (clockwise after
the active player, the active player last), mutinies and "starting / ending with you" effects.
**Roll-offs**: players tied for an uprising roll one die each in seat order, clockwise from the UK
(seat 0); only those tied for the high roll roll again (EN:581, ruling P-14).

## Decisions

`Game.decision`, `info["decision"]` and the observation's `decision` slice name the pending decision:

| code | name |
|---|---|
{decisions}

{SEAT_NOTE}
"""


def write(root: Path | None = None) -> None:
    root = root or Path(__file__).resolve().parent.parent / "docs"
    root.mkdir(exist_ok=True)
    (root / "observation.md").write_text(observation_table())
    (root / "actions.md").write_text(actions_doc())


SEAT_NOTE = ("Seats in actions are absolute (0 UK, 1 France, 2 USA, 3 Italy: `choose_player`, `transfer`), "
             "as in OpenSpiel, while the observation is relative to the observing seat (the others follow "
             "clockwise by the seating); its `my_nation` slice gives the observer's absolute seat, so a "
             "policy shared by all seats can map the two.")


if __name__ == "__main__":
    write()
