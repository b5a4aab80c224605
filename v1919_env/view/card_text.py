"""The texts of the cards, from the card data (v1919_env/cards/data), as a board shows them on hover:
an issue's region, stars and each option's effects; an event's crisis and conference texts; a
strategy card's scoring conditions. A value the rules texts did not give (provenance `estimated`,
docs/rulings.md) is marked with an asterisk, and the text says what the asterisk means.
"""
from __future__ import annotations

ESTIMATED = "* estimated: the rules texts do not give this value (docs/rulings.md)"


def _words(key: str) -> str:
    return key.replace("_", " ")


def _mark(prov: dict, *fields: str) -> str:
    return "*" if any((prov.get(f) or {}).get("kind") == "estimated" for f in fields) else ""


def _effects(opt: dict) -> str:
    parts = [f"Unrest {_words(r).title()} {v:+d}" for r, v in opt.get("unrest", {}).items()]
    parts += [f"{n.upper()} happiness {v:+d}" for n, v in opt.get("happiness", {}).items()]
    for c in opt.get("counters", []):
        flag = f" ({_words(c['flag']).upper()})" if c.get("flag") else ""
        parts.append(f"{c.get('count', 1)} {_words(c['kind'])} counter{'s' if c.get('count', 1) > 1 else ''}{flag}")
    return "; ".join(parts) or "no effect"


def issue_text(card: dict) -> str:
    """An issue card: number, name, region, stars, and each option with its effects."""
    prov = card.get("provenance", {})
    region = "" if card["region"] == "none" else f"{_words(card['region']).title()}{_mark(prov, 'region')}, "
    head = (f"#{card['number']}{_mark(prov, 'number')} {card['name']}: {region}"
            f"{card['stars']}{_mark(prov, 'stars')} stars"
            + (", no military" + _mark(prov, "no_military") if card.get("no_military") else ""))
    lines = [head]
    for opt in card.get("options", []):
        op = opt.get("provenance", {})
        lines.append(f"- {opt['name']}: {_effects(opt)}{_mark(op, 'unrest', 'happiness', 'counters')}")
    return _with_note(lines)


def event_text(card: dict) -> str:
    """An event card: its name, crisis and conference texts, and the influence icon."""
    prov = card.get("provenance", {})
    lines = [f"#{card['number']}{_mark(prov, 'number')} {card['name']}"
             + (f" (influence icon{_mark(prov, 'influence_icon')})" if card.get("influence_icon") else "")]
    for part in ("crisis", "conference"):
        if card.get(part):
            lines.append(f"{part.title()}{_mark(prov, part)}: {card[part].get('text', '')}")
    return _with_note(lines)


def _condition(c: dict) -> str:
    """One scoring condition in words (the kinds of v1919_env/cards/data/SCHEMA.md)."""
    vp = f"{c['vp']} VP" if "vp" in c else ""
    kind = c["kind"]
    if kind == "counters":
        flag = f" ({_words(c['flag']).upper()} flag)" if c.get("flag") else ""
        return f"{vp} per {_words(c['counter'])} counter{flag} on the settled issues"
    if kind == "regions_unrest":
        return f"{vp} per region with Unrest {'3 or less' if c['compare'] == 'le3' else '4 or more'}"
    if kind == "military":
        return f"{vp} per own unit not demobilized"
    if kind == "treaty":
        nations = " and ".join(n.upper() for n in c["nations"])
        return f"{vp} if {nations} {'sign' if c.get('signs') else 'refuse to sign'}"
    if kind == "happiness_x2":
        return "your happiness VP count double"
    if kind == "issues":
        whose = "you control" if c.get("controller") == "self" else "settled"
        return f"{vp} per {_words(c.get('category', ''))} issue {whose}"
    if kind == "issue_regions":
        return f"{vp} per region in which you control an issue"
    return f"{vp} ({_words(kind)})".strip()


def strategy_text(card: dict) -> str:
    """A strategy card: its name and scoring conditions."""
    marks = "".join("*" for p in card.get("condition_provenance", []) if (p or {}).get("kind") == "estimated")
    lines = [f"{card['name']}{'*' if marks else ''}"] + [f"- {_condition(c)}" for c in card.get("conditions", [])]
    return _with_note(lines)


def _with_note(lines: list[str]) -> str:
    text = "\n".join(lines)
    return text + "\n" + ESTIMATED if "*" in text else text
