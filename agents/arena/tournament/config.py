"""Tournament configs (YAML): reading and validation, with errors that name the field.

    name: quick                 # a title for the reports (default: the file's stem)
    num_players: 4              # 2, 3 or 4
    variant: standard           # the board's deck variants
    negotiation: false
    card_set: null              # a card-set folder or JSON file; null = the shipped set
    games: 96                   # a multiple of the schedule's period (agents/arena/tournament/schedule.py)
    seed: 0                     # base seed: game k's seeds derive from (seed, k) (and the folder's key: deals)
    deals: auto                 # secret: seeds also drawn from a key kept in the folder (no bot can derive them);
                                # seeded: from (seed, k) alone; auto: secret when a seat is a bot process
    duplicate: false            # true: the games of a schedule block (one set of agents, seats rotated)
                                # share one deal (game seed), so every deal is played from every seat
    workers: 2                  # worker processes (default: every core); 0 plays in this process
    modules: []                 # modules that register agents of your own (run only in their bot processes,
                                # unless isolate: none trusts them into the arena)
    sandbox: auto               # bot processes in a sandbox (docs/protocol.md): auto, strict or none
    isolate: auto               # which agents play as bot processes, handed only the protocol's messages
                                # (docs/protocol.md): auto = the agents the modules register, all, or none
    clock:                      # time control of every seat (agents/arena/clock.py); default: none
      base_ms: 60000            #   each seat's game clock at the start (null: none)
      increment_ms: 200         #   added at each of its decisions
      move_ms: 5000             #   the most one decision may take (null: no per-move limit)
      overrun: forfeit          #   or fallback: the fallback move is played and the overrun recorded
      fallback: rulebot         #   the fallback move: rulebot, random or first
      grace_ms: 1000            #   past its time, how long an agent that has not answered is waited for (then: hung)
    agents:                     # at least num_players; labels must be unique
      - random                                   # a name, or a spec string "name:key=value,..."
      - {name: ismcts, label: ismcts-200, options: {iterations: 200}}
      - {name: ismcts, label: ismcts-1s, options: {time_ms: 1000}, clock: {move_ms: 1500}}   # its own clock fields
"""
from __future__ import annotations

import hashlib
import importlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Optional

import yaml
from pydantic import Field, model_validator

from v1919_env import config_schema
from v1919_env.config_schema import FieldError, Name, Strict, name_field, one_of, read_config

from ...base import AgentError, agent_problem, is_builtin, parse_agent_spec
from .schedule import schedule_period


class ConfigError(config_schema.ConfigError):
    """A tournament config that cannot be run; the message names the field at fault."""


@dataclass
class TournamentConfig:
    """A checked tournament (or ladder) config, as `load_config` and `config_from_dict` return it:
    `agents` holds one entry per agent (`label`, `agent` name, `options`, and its clock and process
    fields), `workers` the worker processes (every core by default), `duplicate` whether the games
    of a schedule block share one deal (the ladder). `fingerprint()` identifies the games it defines
    (a tournament directory refuses another config's games)."""

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
    clock: dict | None = None           # the tournament's time control (agents/arena/clock.py TimeControl fields)
    trusted_modules: bool = False       # isolate: none: the workers import the modules and run their agents
    deals: str = "auto"                 # secret, seeded, or auto (secret when a seat is a bot process)

    @property
    def secret_deals(self) -> bool:
        """Whether the game seeds are keyed by the tournament's secret (runner.deal_key)."""
        return self.deals == "secret" or (self.deals == "auto" and any(a["agent"] == "process" for a in self.agents))

    @property
    def worker_modules(self) -> list[str]:
        """The modules a worker imports: none unless trusted (a module's agents run as bot processes)."""
        return list(self.modules) if self.trusted_modules else []

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
        if self.secret_deals:       # (likewise)
            d["deals"] = "secret"
        if self.clock is not None:  # (likewise; an agent's own clock is in its entry, only when set)
            d["clock"] = self.clock
        return d

    def seat_clock(self, agent: dict) -> dict | None:
        """The time control of an agent's seat: the tournament's, the agent's own fields over it
        (None: no clock)."""
        from ..clock import TimeControl

        if self.clock is None and agent.get("clock") is None:
            return None
        tc = TimeControl.from_dict(self.clock).over(agent.get("clock"))
        return tc.to_dict() if tc.active else None

    def fingerprint(self) -> str:
        text = json.dumps(self.defining(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def to_yaml(self) -> str:
        d = {"name": self.name, **self.defining(), "games": self.games, "workers": self.workers}
        d["agents"] = [{"name": a["agent"], "label": a["label"], "options": a["options"],
                        **({"clock": a["clock"]} if a.get("clock") else {})} for a in self.agents]
        return yaml.safe_dump(d, sort_keys=False)


class ClockEntry(Strict):
    """A time control (agents/arena/clock.py TimeControl); in an agent entry, the fields it sets are laid
    over the tournament's."""

    base_ms: Optional[float] = Field(None, gt=0, description="each seat's game clock at the start, in ms "
                                                             "(null: no game clock)")
    increment_ms: float = Field(0, ge=0, description="ms added to the game clock at each of the seat's decisions")
    move_ms: Optional[float] = Field(None, gt=0, description="the most one decision may take, in ms (null: no "
                                                             "per-move limit)")
    overrun: Literal["forfeit", "fallback"] = Field("forfeit", description="forfeit, or fallback (the fallback move "
                                                                           "is played, the overrun recorded)")
    fallback: Literal["rulebot", "random", "first"] = Field("rulebot", description="the move played on an overrun "
                                                                                   "under overrun: fallback")
    grace_ms: float = Field(1000, ge=0, description="ms past its time that an agent that has not answered is waited "
                                                    "for before it forfeits as hung")


_PROCESS_FIELDS = ("memory_mb", "cpu_s", "max_procs", "disk_mb", "files")     # a cmd entry's ProcessAgent options


class AgentEntry(Strict):
    """A seat's agent: a registered name, a label (unique in the tournament) and its options; a
    spec string "name:key=value,..." stands for {name, options} labelled by the string itself; or
    a bot command `cmd` (docs/protocol.md: one process per game, with its limits; `options` are sent
    to the bot in the hello), labelled by the command unless a label is given."""

    name: Optional[str] = Field(None, description="a registered agent name (or cmd instead)")
    cmd: Optional[Name] = Field(None, description="a bot's command line, run as a process per game that speaks "
                                                  "the bot protocol (docs/protocol.md), instead of name")
    memory_mb: Optional[int] = Field(None, ge=16, description="a cmd bot's memory limit in MiB, all its processes "
                                                              "together (default 4096)")
    cpu_s: Optional[int] = Field(None, ge=1, description="a cmd bot's CPU seconds per game, all its processes together "
                                                         "(default: none)")
    max_procs: Optional[int] = Field(None, ge=1, description="how many processes a cmd bot may have at once "
                                                             "(default 64)")
    disk_mb: Optional[int] = Field(None, ge=1, description="the size of a cmd bot's private /tmp in MiB (default 64)")
    files: Optional[list[str]] = Field(None, description="more files or folders a cmd bot may read (its sandbox "
                                                         "shows them read-only)")
    label: Optional[Name] = Field(None, description="a non-empty string (default: the name)")
    options: Optional[dict[str, Any]] = Field(None, description="a mapping of option: value")
    clock: Optional[ClockEntry] = Field(None, description="this agent's own time-control fields, over the "
                                                          "tournament's clock")

    @model_validator(mode="before")
    @classmethod
    def _spec(cls, entry):
        if isinstance(entry, str):
            try:
                name, options = parse_agent_spec(entry)
            except AgentError as e:
                raise ValueError(str(e)) from None
            return {"name": name, "label": entry.strip(), "options": options}
        if not isinstance(entry, dict):
            raise ValueError(f"expected an agent name, a spec string or a mapping with name/label/options, "
                             f"got {entry!r}")
        return entry

    @model_validator(mode="after")
    def _name_or_cmd(self):
        if self.name is None and self.cmd is None:
            raise FieldError("name", "missing: give a registered agent name, or cmd (a bot command)")
        if self.name is not None and self.cmd is not None:
            raise FieldError("cmd", "give either name (a registered agent) or cmd (a bot command), not both")
        set_ = [k for k in _PROCESS_FIELDS if getattr(self, k) is not None]
        if self.cmd is None and set_:
            raise FieldError(set_[0], "limits apply to bot commands (cmd) only")
        return self

    def seat(self) -> dict:
        """The seat spec of the entry: {"label", "agent", "options"} (and "clock" when set)."""
        if self.cmd is not None:
            opts = {"cmd": self.cmd, **({"options": self.options} if self.options else {}),
                    **{k: getattr(self, k) for k in _PROCESS_FIELDS if getattr(self, k) is not None}}
            spec = {"label": self.label or self.cmd, "agent": "process", "options": opts}
        else:
            spec = {"label": self.label or self.name, "agent": self.name, "options": self.options or {}}
        if self.clock is not None:
            spec["clock"] = self.clock.model_dump(exclude_unset=True)
        return spec


def _agents_schema(schema: dict) -> None:
    schema["items"] = {"anyOf": [{"type": "string", "description": "an agent name or spec 'name:key=value,...'"},
                                 schema["items"]]}


class TournamentFile(Strict):
    """A tournament config as written (the module docstring)."""

    name: Optional[Name] = name_field("a title for the reports")
    num_players: one_of(2, 3, 4) = Field(description="2, 3 or 4")
    variant: str = Field("standard", description="the name of a deck variant")
    negotiation: bool = False
    card_set: Optional[str] = Field(None, description="a card-set folder or JSON file, or null (the shipped set)")
    games: int = Field(ge=1, description="a positive integer, a multiple of the schedule period")
    seed: int = Field(0, ge=0, le=2 ** 63 - 1, description="an integer in 0..2**63-1 (game k's seeds derive from "
                                                            "(seed, k))")
    duplicate: bool = Field(False, description="true or false (true: the games of a schedule block share one deal)")
    deals: Literal["auto", "secret", "seeded"] = Field(
        "auto", description="secret = the game seeds are also drawn from a key kept in the tournament's folder (no bot "
                            "can derive them), seeded = from seed and the game's number alone (reproducible from the "
                            "config; for agents you trust), auto = secret when a seat is a bot process")
    workers: Optional[int] = Field(None, ge=0, description="a number of worker processes (0: none; null: every "
                                                          "core)")
    modules: list[str] = Field([], description="a list of modules that register agents of your own (imported only "
                                               "in their bot processes unless isolate is none)")
    sandbox: Literal["auto", "strict", "none"] = Field(
        "auto", description="how bot processes run: auto = in a sandbox where this host can make one (else a warning), "
                            "strict = refuse to run without one, none = bare (bots you trust) (docs/protocol.md)")
    isolate: Literal["auto", "all", "none"] = Field(
        "auto", description="which agents play as bot processes through the reference client, handed only the "
                            "protocol's messages, so that nothing of this process (the real game) is in their "
                            "reach: auto = the agents of the modules (not this package's), all, none")
    clock: Optional[ClockEntry] = Field(None, description="the time control of every seat (null: none)")
    agents: list[AgentEntry] = Field(json_schema_extra=_agents_schema,
                                     description="at least num_players agents, labels unique")

    @model_validator(mode="after")
    def _runs(self):
        if self.isolate == "none":            # trusted: the modules run here and in the workers
            for k, m in enumerate(self.modules):
                try:
                    importlib.import_module(m)
                except (Exception, SystemExit) as e:      # ImportError, or the module's own code failing
                    raise FieldError(f"modules[{k}]", f"cannot import {m!r}: {type(e).__name__}: {e}") from None
        else:
            for k, m in enumerate(self.modules):
                if locate_module(m) is None:
                    raise FieldError(f"modules[{k}]", f"cannot import {m!r}: ModuleNotFoundError: No module named "
                                                      f"{m!r}")
        from v1919_env.game import card_tables
        from v1919_env.variants import variant_index

        try:
            cs, _ = card_tables(self.card_set)
        except Exception as e:          # CardDataError, a missing file
            raise FieldError("card_set", str(e)) from None
        try:
            variant_index(cs, self.variant)
        except ValueError as e:
            raise FieldError("variant", str(e)) from None
        elsewhere = {}
        for k, a in enumerate(self.agents):
            seat = a.seat()
            if self.isolate != "none" and self.modules and not is_builtin(seat["agent"]) and a.cmd is None:
                elsewhere[k] = seat                 # an agent of the modules: checked in a bot process
            else:
                _check_agent(seat, f"agents[{k}]", cmd=a.cmd is not None)
        if self.isolate != "none" and self.modules:
            _check_out_of_process(elsewhere, self.modules, self.sandbox)
        n, m = self.num_players, len(self.agents)
        if m < n:
            raise FieldError("agents", f"{m} agent(s) for {n} seats; list at least {n} (the same agent twice needs "
                                       f"two labels, e.g. {{name: random, label: random-2}})")
        labels = [a.seat()["label"] for a in self.agents]
        dup = sorted({x for x in labels if labels.count(x) > 1})
        if dup:
            raise FieldError("agents", f"label(s) {', '.join(map(repr, dup))} used twice; give each entry its own "
                                       f"label")
        period = schedule_period(m, n)
        if self.games % period:
            lo = self.games - self.games % period
            raise FieldError("games", f"{self.games} is not a multiple of the schedule period {period} ({m} agents, "
                                      f"{n} seats), so the seats would not be balanced; use "
                                      f"{lo or period}{'' if not lo else f' or {lo + period}'}")
        return self


def _check_agent(seat: dict, where: str, cmd: bool = False) -> None:
    """A seat's agent checked here (base.agent_problem); FieldError names the field at fault."""
    problem = agent_problem(seat["agent"], seat["options"], cmd=cmd)
    if problem is not None:
        field_, msg = problem
        raise FieldError(f"{where}.{field_}" if field_ else where, msg)


def _check_out_of_process(seats: dict[int, dict], modules: list[str], sandbox: str) -> None:
    """The agents of the modules, checked without importing them here: the reference client imports the
    modules and checks each seat (`--check`) in a bot process, sandboxed as the games will be (a module
    runs no code in the arena's processes: issue 41)."""
    from ..process import sandbox as SB

    argv = _client_argv(modules, "--check", json.dumps([{"name": s["agent"], "options": s["options"]}
                                                         for s in seats.values()]))
    try:
        if SB.plan(sandbox) != "none":
            argv = SB.command(argv, files=_module_roots(modules))
    except ValueError as e:
        raise FieldError("sandbox", str(e)) from None
    try:
        r = subprocess.run(argv, capture_output=True, timeout=300, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise FieldError("modules", "checking the agents of the modules took more than 300 s") from None
    try:
        out = json.loads(r.stdout.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        tail = r.stderr.decode(errors="replace").strip()[-300:]
        raise FieldError("modules", f"checking the agents of the modules failed (exit {r.returncode}): {tail}") \
            from None
    if out.get("module") is not None:
        k, msg = out["module"]
        raise FieldError(f"modules[{k}]", msg)
    for k, problem in zip(seats, out["seats"]):
        if problem is not None:
            field_, msg = problem
            raise FieldError(f"agents[{k}].{field_}" if field_ else f"agents[{k}]", msg)


def _client_argv(modules: list[str], *args: str) -> list[str]:
    """The reference client's command line with `args`, the folders of the modules on its path."""
    boot = ("import json, sys; sys.path[:0] = json.loads(sys.argv[1]); from agents.arena.process.client import main; "
            "sys.exit(main(sys.argv[2:]))")
    cmd = [sys.executable, "-c", boot, json.dumps(_module_roots(modules)), *args]
    for m in modules:
        cmd += ["--module", m]
    return cmd


def isolated(seat: dict, isolate: str, modules: list[str], sandbox: str = "auto") -> dict:
    """The seat as it plays under `isolate`: an agent to isolate becomes a bot process running it
    through the reference client (agents/arena/process/client.py) with the same label, options and clock,
    in the sandbox (`sandbox`: the tournament's mode, given to every bot process).
    A bot in this process can reach the real game through the interpreter (gc, other threads'
    frames: docs/tournaments.md); a bot process is handed only the seat's information set."""
    if seat["agent"] == "process":
        return seat if sandbox == "auto" else {**seat, "options": {**seat["options"], "sandbox": sandbox}}
    if isolate == "none" or (isolate == "auto" and is_builtin(seat["agent"])):
        return seat
    cmd = _client_argv(modules, seat["agent"])
    roots = _module_roots(modules)
    out = {"label": seat["label"], "agent": "process",
           "options": {"cmd": cmd, **({"options": seat["options"]} if seat["options"] else {}),
                       **({"files": roots} if roots else {}), **({"sandbox": sandbox} if sandbox != "auto" else {})}}
    if "clock" in seat:
        out["clock"] = seat["clock"]
    return out


def locate_module(module: str):
    """The import spec of `module`, found on sys.path without running it or its packages (None: none)."""
    from importlib.machinery import PathFinder

    path = None
    spec = None
    for part in module.split("."):
        if not part.isidentifier():
            return None
        spec = PathFinder.find_spec(part, path)
        if spec is None:
            return None
        path = spec.submodule_search_locations
    return spec


def _module_roots(modules: list[str]) -> list[str]:
    """The folders the modules are imported from (the bot process imports them from there), found
    without running them."""
    roots = []
    for m in modules:
        spec = locate_module(m.split(".")[0])
        path = spec and (spec.origin if spec.origin not in (None, "namespace") else
                         next(iter(spec.submodule_search_locations or []), None))
        if not path:
            continue
        p = Path(path).resolve()
        root = str(p.parent.parent if p.name == "__init__.py" else p.parent)      # a package, or a module file
        if root not in roots:
            roots.append(root)
    return roots


def config_from_dict(raw, name: str = "tournament") -> TournamentConfig:
    """Validate a decoded config (see the module docstring) and build the TournamentConfig."""
    if not isinstance(raw, dict):
        keys = ", ".join(TournamentFile.model_fields)
        raise ConfigError(f"the config must be a mapping of the keys {keys}, got {type(raw).__name__}")
    t = config_schema.validate(TournamentFile, raw, ConfigError)
    return TournamentConfig(
        name=t.name if t.name is not None else name, num_players=t.num_players,
        agents=[isolated(a.seat(), t.isolate, t.modules, t.sandbox) for a in t.agents],
        games=t.games, seed=t.seed, variant=t.variant, negotiation=t.negotiation, card_set=t.card_set,
        workers=t.workers if t.workers is not None else os.cpu_count() or 1, modules=list(t.modules),
        duplicate=t.duplicate, clock=None if t.clock is None else t.clock.model_dump(),
        trusted_modules=t.isolate == "none", deals=t.deals)


def load_config(path) -> TournamentConfig:
    """Read and validate a YAML tournament config (ConfigError names the field at fault)."""
    return read_config(path, config_from_dict, ConfigError)
