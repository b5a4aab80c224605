"""The provenance report of a card set (`v1919 data report`): how many fields come from the rules,
a worked example, a public source or an estimate, and every estimated field with its reasoning.
"""
from __future__ import annotations

from v1919_env.cards.load import CardSet
from v1919_env.cards.validate import PROVENANCE_KINDS


def _walk_provenance(raw: dict):
    """Yield (field path, provenance entry) for every provenance-carrying field."""
    for t, v in raw["board"].items():
        yield f"board.{t}", v["provenance"]
        if isinstance(v["value"], list):
            for x in v["value"]:
                if isinstance(x, dict) and "provenance" in x:
                    yield f"board.{t}[column {x.get('column')}]", x["provenance"]
    for r in raw["issues"]:
        for f, p in r["provenance"].items():
            yield f"issue #{r['number']} {r['name']}.{f}", p
        for o in r.get("options") or []:
            for f, p in o["provenance"].items():
                yield f"issue #{r['number']} {r['name']} / {o['name']}.{f}", p
    for r in raw["events"]:
        for f, p in r["provenance"].items():
            yield f"event #{r['number']} {r['name']}.{f}", p
    for r in raw["strategies"]:
        for f, p in r["provenance"].items():
            yield f"strategy #{r['number']} {r['name']}.{f}", p
        for i, p in enumerate(r["condition_provenance"]):
            yield f"strategy #{r['number']} {r['name']}.conditions[{i}]", p


def provenance_report(cs: CardSet, list_estimated: bool = True) -> str:
    """Counts per card type and per provenance kind, then every estimated field with its reasoning."""
    raw = cs.raw
    lines = [f"card set {cs.label} ({cs.source})",
             f"cards: {len(raw['issues'])} issues, {len(raw['events'])} events, "
             f"{len(raw['strategies'])} strategies; board tables: {len(raw['board'])}", ""]
    counts = {k: 0 for k in PROVENANCE_KINDS}
    by_section: dict[str, dict[str, int]] = {}
    estimated = []
    for path, p in _walk_provenance(raw):
        sec = path.split(" ")[0].split(".")[0]
        counts[p["kind"]] += 1
        by_section.setdefault(sec, {k: 0 for k in PROVENANCE_KINDS})[p["kind"]] += 1
        if p["kind"] == "estimated":
            estimated.append((path, p["reasoning"]))
    lines.append(f"{'fields by provenance':<22}" + "".join(f"{k:>11}" for k in PROVENANCE_KINDS) + f"{'total':>8}")
    for sec, c in by_section.items():
        lines.append(f"  {sec:<20}" + "".join(f"{c[k]:>11}" for k in PROVENANCE_KINDS) + f"{sum(c.values()):>8}")
    lines.append(f"  {'all':<20}" + "".join(f"{counts[k]:>11}" for k in PROVENANCE_KINDS)
                 + f"{sum(counts.values()):>8}")
    if list_estimated:
        lines += ["", f"estimated fields ({len(estimated)}):"]
        lines += [f"  {path}: {why}" for path, why in estimated]
    return "\n".join(lines)
