"""Tournament configs (YAML): reading and validation, with errors that name the field.

    name: quick                 # a title for the reports (default: the file's stem)
    num_players: 4              # 2, 3 or 4
    variant: standard           # the board's deck variants
    negotiation: false
    card_set: null              # a card-set folder or JSON file; null = the shipped set
    games: 96                   # a multiple of the schedule's period (agents/tournament/schedule.py)
    seed: 0                     # base seed: game k's seeds derive from (seed, k)
    duplicate: false            # true: the games of a schedule block (one set of agents, seats rotated)
                                # share one deal (game seed), so every deal is played from every seat
    workers: 2                  # worker processes (default: every core); 0 plays in this process
    modules: []                 # modules to import first (agents of your own, registered by name)
    agents:                     # at least num_players; labels must be unique
      - random                                   # a name, or a spec string "name:key=value,..."
      - {name: ismcts, label: ismcts-200, options: {iterations: 200}}
"""
from __future__ import annotations

import hashlib
import importlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..base import AgentError, agent_names, make_agent, parse_agent_spec
from .schedule import schedule_period

TOP_KEYS = ("name", "num_players", "variant", "negotiation", "card_set", "games", "seed", "duplicate", "workers",
            "modules",
            "agents")
AGENT_KEYS = ("name", "label", "options")


class ConfigError(ValueError):
    """A tournament config that cannot be run; the message names the field at fault."""


@dataclass
class TournamentConfig:
    name: str
    num_players: int
    agents: list[dict]                  # seat specs: {"label", "agent", "options"}
    games: int
    seed: int = 0
    variant: str = "standard"
    negotiation: bool = False
    card_set: str | None = None
    workers: int = field(default_factory=lambda: os.cpu_count() or 1)
    modules: list[str] = field(default_factory=list)
    duplicate: bool = False             # duplicate deals: a schedule block's games share their game seed

    @property
    def labels(self) -> list[str]:
        return [a["label"] for a in self.agents]

    def defining(self) -> dict:
        """What defines every game (not the game count or the workers): games made under the same
        definition are interchangeable, so a run can resume or be extended."""
        d = {"num_players": self.num_players, "variant": self.variant, "negotiation": self.negotiation,
             "card_set": self.card_set, "seed": self.seed, "modules": self.modules, "agents": self.agents}
        if self.duplicate:          # (absent otherwise: tournaments made before the key keep their fingerprint)
            d["duplicate"] = True
        return d

    def fingerprint(self) -> str:
        text = json.dumps(self.defining(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def to_yaml(self) -> str:
        d = {"name": self.name, **self.defining(), "games": self.games, "workers": self.workers}
        d["agents"] = [{"name": a["agent"], "label": a["label"], "options": a["options"]} for a in self.agents]
        return yaml.safe_dump(d, sort_keys=False)


def _expect(value, kinds, where: str, what: str):
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        raise ConfigError(f"{where}: expected {what}, got {value!r} ({type(value).__name__})")
    return value


def _agent_entry(entry, k: int) -> dict:
    where = f"agents[{k}]"
    if isinstance(entry, str):
        try:
            name, opts = parse_agent_spec(entry)
        except AgentError as e:
            raise ConfigError(f"{where}: {e}") from e
        label = entry.strip()
    elif isinstance(entry, dict):
        bad = sorted(set(entry) - set(AGENT_KEYS))
        if bad:
            raise ConfigError(f"{where}: unknown key(s) {', '.join(map(repr, bad))}; known: {', '.join(AGENT_KEYS)}")
        if "name" not in entry:
            raise ConfigError(f"{where}.name: missing (the registered agent name)")
        name = _expect(entry["name"], (str,), f"{where}.name", "an agent name")
        opts = _expect(entry.get("options") or {}, (dict,), f"{where}.options", "a mapping of option: value")
        label = _expect(entry.get("label", name), (str,), f"{where}.label", "a string")
        if not all(isinstance(o, str) for o in opts):
            raise ConfigError(f"{where}.options: option names must be strings")
    else:
        raise ConfigError(f"{where}: expected an agent name, a spec string or a mapping with name/label/options, "
                          f"got {entry!r}")
    if name not in agent_names():
        raise ConfigError(f"{where}.name: unknown agent {name!r}; agents: {', '.join(agent_names())}")
    try:
        agent = make_agent(name, **opts)
    except AgentError as e:
        raise ConfigError(f"{where}.options: {e}") from e
    interactive = getattr(agent, "interactive", False)
    agent.close()
    if interactive:
        raise ConfigError(f"{where}.name: {name!r} needs a person at the terminal; a tournament cannot seat it")
    try:
        json.dumps(opts)
    except TypeError as e:
        raise ConfigError(f"{where}.options: values must be plain YAML scalars, lists or mappings ({e})") from e
    return {"label": label, "agent": name, "options": opts}


def config_from_dict(raw, name: str = "tournament") -> TournamentConfig:
    """Validate a decoded config (see the module docstring) and build the TournamentConfig."""
    if not isinstance(raw, dict):
        raise ConfigError(f"the config must be a mapping of the keys {', '.join(TOP_KEYS)}, got {type(raw).__name__}")
    bad = sorted(set(raw) - set(TOP_KEYS))
    if bad:
        raise ConfigError(f"unknown key(s) {', '.join(map(repr, bad))}; known: {', '.join(TOP_KEYS)}")
    for key in ("num_players", "games", "agents"):
        if key not in raw:
            raise ConfigError(f"{key}: missing")
    modules = _expect(raw.get("modules") or [], (list,), "modules", "a list of module names")
    for k, m in enumerate(modules):
        _expect(m, (str,), f"modules[{k}]", "a module name")
        try:
            importlib.import_module(m)
        except ImportError as e:
            raise ConfigError(f"modules[{k}]: cannot import {m!r}: {e}") from e
    n = _expect(raw["num_players"], (int,), "num_players", "2, 3 or 4")
    if n not in (2, 3, 4):
        raise ConfigError(f"num_players: must be 2, 3 or 4, got {n}")
    games = _expect(raw["games"], (int,), "games", "a positive integer")
    if games < 1:
        raise ConfigError(f"games: must be at least 1, got {games}")
    workers = _expect(raw.get("workers", os.cpu_count() or 1), (int,), "workers", "a number of processes (0: none)")
    if workers < 0:
        raise ConfigError(f"workers: must be 0 or more, got {workers}")
    card_set = raw.get("card_set")
    if card_set is not None:
        _expect(card_set, (str,), "card_set", "a card-set path or null")
    seed = _expect(raw.get("seed", 0), (int,), "seed", "an integer in 0..2**63-1")
    if not 0 <= seed < 2 ** 63:         # the range of Game.new's seeds and of `v1919 play --seed`
        raise ConfigError(f"seed: must be an integer in 0..2**63-1, got {seed}")
    cfg = TournamentConfig(
        name=_expect(raw.get("name", name), (str,), "name", "a string"), num_players=n, agents=[], games=games,
        seed=seed,
        variant=_expect(raw.get("variant", "standard"), (str,), "variant", "a variant name"),
        negotiation=_expect(raw.get("negotiation", False), (bool,), "negotiation", "true or false"),
        card_set=card_set, workers=workers, modules=list(modules),
        duplicate=_expect(raw.get("duplicate", False), (bool,), "duplicate", "true or false"))
    from v1919_env.game import card_tables
    from v1919_env.variants import variant_index
    try:
        cs, _ = card_tables(card_set)
    except Exception as e:          # CardDataError, a missing file
        raise ConfigError(f"card_set: {e}") from e
    try:
        variant_index(cs, cfg.variant)
    except ValueError as e:
        raise ConfigError(f"variant: {e}") from None
    entries = _expect(raw["agents"], (list,), "agents", "a list of agents")
    cfg.agents = [_agent_entry(e, k) for k, e in enumerate(entries)]
    if len(cfg.agents) < n:
        raise ConfigError(f"agents: {len(cfg.agents)} agent(s) for {n} seats; list at least {n} (the same agent "
                          f"twice needs two labels, e.g. {{name: random, label: random-2}})")
    labels = cfg.labels
    dup = sorted({x for x in labels if labels.count(x) > 1})
    if dup:
        raise ConfigError(f"agents: label(s) {', '.join(map(repr, dup))} used twice; give each entry its own label")
    period = schedule_period(len(cfg.agents), n)
    if games % period:
        lo = games - games % period
        raise ConfigError(f"games: {games} is not a multiple of the schedule period {period} ({len(cfg.agents)} "
                          f"agents, {n} seats), so the seats would not be balanced; use "
                          f"{lo or period}{'' if not lo else f' or {lo + period}'}")
    return cfg


def read_yaml_config(path, build, error=None):
    """Read a YAML config file and build it with `build(raw, name=stem)`; a file that cannot be read,
    is not YAML or is refused by `build` raises `error` (default ConfigError) prefixed by its path."""
    error = error or ConfigError
    p = Path(path)
    try:
        raw = yaml.safe_load(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise error(f"cannot read {p}: {e.strerror}") from e
    except yaml.YAMLError as e:
        raise error(f"{p}: not valid YAML: {e}") from e
    try:
        return build(raw, name=p.stem)
    except error as e:
        raise error(f"{p}: {e}") from e


def load_config(path) -> TournamentConfig:
    """Read and validate a YAML tournament config (ConfigError names the field at fault)."""
    return read_yaml_config(path, config_from_dict)
