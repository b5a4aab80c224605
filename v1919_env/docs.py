"""Generated documentation tables (observation layout, action segments): `python -m v1919_env.docs`."""
from __future__ import annotations

from pathlib import Path


def observation_table() -> str:
    """Every slice of the observation vector as a Markdown table."""
    from .core.layout import DECISION_NAMES
    from .core.observe import OBS_SIZE, obs_slices
    rows = [f"# Observation layout ({OBS_SIZE} float32 values)", "",
            "Generated from `v1919_env/core/observe.py` (`python -m v1919_env.docs`). Seats are relative: "
            "index 0 is the observing seat, then the others clockwise; a fifth index, where present, means "
            "'nobody'.", "", "| slice | offset | size | content |", "|---|---|---|---|"]
    for name, (off, n, desc) in obs_slices().items():
        rows.append(f"| {name} | {off} | {n} | {desc} |")
    rows += ["", "Decision kinds (index in the `decision` slice): "
             + ", ".join(f"{k} {v}" for k, v in sorted(DECISION_NAMES.items())) + "."]
    return "\n".join(rows) + "\n"


def write(root: Path | None = None) -> None:
    from .actions import segment_table
    root = root or Path(__file__).resolve().parent.parent / "docs"
    root.mkdir(exist_ok=True)
    (root / "observation.md").write_text(observation_table())
    (root / "actions.md").write_text("# Action space\n\nGenerated from `v1919_env/core/actions.py`.\n\n"
                                     + segment_table() + "\n\n" + SEAT_NOTE + "\n")


SEAT_NOTE = ("Seats in actions are absolute (0 UK, 1 France, 2 USA, 3 Italy: `choose_player`, `transfer`), "
             "as in OpenSpiel, while the observation is relative to the observing seat; its `my_nation` "
             "slice gives the observer's absolute seat, so a policy shared by all seats can map the two.")


if __name__ == "__main__":
    write()
