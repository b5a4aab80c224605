"""The agent interface and the registry of agents by name.

An agent is built by name with keyword options (`make_agent("rulebot", seed=1)`), gets
`reset(seed)` before each game, and for each decision returns a legal action id from
`act(observation, action_mask, game)`. `observation` and `action_mask` are the environments'
arrays for the deciding seat (float32 vector, int8 mask); `game`, for agents whose `needs_game` is
true, is the deciding seat's information set at that decision: a `v1919_env.game.Game` copy whose
hidden information (the deck orders, the dice) the arena has resampled with a seed of its own
(`Game.information_set`; run_game, tournaments, the ladder, `v1919 play`, the environments'
opponents and the OpenSpiel bot wrapper all hand it). Reading its decks or its generator tells an
agent nothing it could not see; a search agent still draws its own determinizations from it.
"""
from __future__ import annotations

import functools
import importlib
import inspect
import sys
from pathlib import Path
from typing import Any

import numpy as np


class AgentError(ValueError):
    """An unknown agent name or option, or an agent that cannot be built as asked."""


class Agent:
    """Base class of every agent. Subclasses set `name` and implement `act`; `needs_game = True`
    asks for the seat's information set as `game` at every decision. Register a subclass with
    `@register("name")` to build it by name (`make_agent`, specs in configs and on the command line)."""

    name: str = "?"
    needs_game: bool = False     # True when act() reads the Game (it is handed the seat's information set)

    def reset(self, seed: int | None = None) -> None:
        """Prepare for a new game; seed makes the agent's own choices reproducible."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, game=None) -> int:
        """The action id to play: one whose `action_mask` entry is 1.

        Args:
            observation: the deciding seat's observation (float32, `docs/observation.md`).
            action_mask: 0/1 over the 694 action ids, the legal ones now.
            game (Game | None): for agents with `needs_game = True`, the seat's information set (a copy of the
                game with the hidden deck orders and dice resampled), never the real game.

        Returns:
            A legal action id. Raising, or returning an illegal id, forfeits the game in
            `v1919 play`, tournaments and the ladder.
        """
        raise NotImplementedError

    time_left = None             # agents.arena.clock.TimeLeft before each decision, when the arena runs a clock

    def set_clock(self, time_left) -> None:
        """The arena's word, before a decision, of the time the agent has (agents.arena.clock.TimeLeft:
        game clock left, per-move limit, increment, what this decision may take)."""
        self.time_left = time_left

    def think_ms(self, own_ms: float | None) -> float | None:
        """The milliseconds a search with its own budget `own_ms` should take now: the less of it and
        the clock's budget (TimeLeft.budget_ms) when a clock runs; `own_ms` otherwise."""
        budget = None if self.time_left is None else self.time_left.budget_ms()
        if own_ms is None or budget is None:
            return own_ms
        return min(own_ms, budget)

    def close(self) -> None:
        """Release anything the agent holds (files, terminals, models)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def number_option(name: str, value, kind: type = int, minimum: float | None = None, above: float | None = None,
                  allow_none: bool = False):
    """An agent's numeric option, checked: the right type (no bools or strings), finite, at least
    `minimum` / more than `above`; else a ValueError naming the option."""
    if value is None and allow_none:
        return None
    what = "an integer" if kind is int else "a number"
    types = (int, np.integer) if kind is int else (int, float, np.integer, np.floating)
    if isinstance(value, bool) or not isinstance(value, types) or not np.isfinite(value):
        raise ValueError(f"option {name} must be {what}{' or None' if allow_none else ''}, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"option {name} must be {what} >= {minimum}, got {value!r}")
    if above is not None and not value > above:
        raise ValueError(f"option {name} must be {what} > {above}, got {value!r}")
    return kind(value)


def require_game(agent: Agent, game):
    """The Game an agent that reads it was given; a clear error when the caller passed none."""
    if game is None:
        raise AgentError(f"agent {agent.name!r} needs the game: call act(observation, action_mask, game=...) "
                         f"(environments pass it to agents whose needs_game is True)")
    return game


_REGISTRY: dict[str, type[Agent]] = {}
"""Agent classes by name. The built-in agents register when the `agents` package is imported, which
Python does before any of its modules (this one included); the agents of the layers above (the arena's
"process") register when first asked for by name (`_known`)."""

PLUGIN_GROUP = "v1919.agents"
"""Entry points (pyproject.toml) naming the module that registers an agent of a layer above this one;
only this project's distribution is read, so no installed package runs code by naming an agent."""


@functools.lru_cache(maxsize=1)
def _plugins() -> dict[str, str]:
    from importlib.metadata import entry_points

    return {ep.name: ep.value for ep in entry_points(group=PLUGIN_GROUP)
            if ep.dist is None or ep.dist.name.replace("_", "-").lower() == "v1919-env"}


def _known(name: str) -> bool:
    """Whether `name` is registered, importing the module an entry point names for it first."""
    if name not in _REGISTRY and name in _plugins():
        importlib.import_module(_plugins()[name].split(":")[0])
    return name in _REGISTRY


def register(name: str):
    """Class decorator: make an agent class available as `make_agent(name, ...)`."""

    def deco(cls: type[Agent]) -> type[Agent]:
        if name in _REGISTRY and _REGISTRY[name] is not cls:
            raise AgentError(f"agent name {name!r} is already registered by {_REGISTRY[name].__name__}")
        cls.name = name
        _REGISTRY[name] = cls
        _ORIGIN[name] = sys._getframe(1).f_code.co_filename        # the file whose code registered it
        return cls

    return deco


def agent_names() -> list[str]:
    """Names of every registered agent (and of those an entry point registers on first use), sorted."""
    return sorted(set(_REGISTRY) | set(_plugins()))


def is_builtin(name: str) -> bool:
    """True for the agents this package ships: registered by code of a file of this package, and every
    function the class defines compiled from one. A class's `__module__` proves nothing (a user's class
    may claim any name, and `inspect.getfile` believes it)."""
    if not _known(name):
        return False
    files = [_ORIGIN.get(name, "<unknown>")]
    files += [f.__code__.co_filename for f in vars(_REGISTRY[name]).values() if hasattr(f, "__code__")]
    return all(_ours(f) for f in files)


def _ours(filename: str) -> bool:
    p = Path(filename)
    return p.suffix == ".py" and p.is_absolute() and p.resolve().is_relative_to(_HERE)


_HERE = Path(__file__).resolve().parent
_ORIGIN: dict[str, str] = {}


def agent_problem(name: str, options: dict, cmd: bool = False) -> tuple[str, str] | None:
    """What stops `name` with `options` from taking a seat in a tournament, as (the field at fault:
    "name", "options", "cmd" or "" for the entry, the sentence), or None: a registered agent that builds
    with its options and closes, plays without a person, and whose options are plain data (they
    travel to the workers and into the records)."""
    import json

    if not _known(name):
        return "name", f"unknown agent {name!r}; agents: {', '.join(agent_names())}"
    try:
        agent = make_agent(name, **options)
    except AgentError as e:
        return ("cmd" if cmd else "options"), str(e).removeprefix("agent 'process': option cmd: ")
    except (Exception, SystemExit) as e:       # an agent of a user's module failing in its constructor
        return "", f"building agent {name!r} raised {type(e).__name__}: {e}"
    interactive = getattr(agent, "interactive", False)
    try:
        agent.close()
    except (Exception, SystemExit) as e:
        return "", f"agent {name!r}: close() raised {type(e).__name__}: {e}"
    if interactive:
        return "name", f"{name!r} needs a person at the terminal; a tournament cannot seat it"
    try:
        json.dumps(options)
    except TypeError as e:
        return "options", f"values must be plain YAML scalars, lists or mappings ({e})"
    return None


def agent_options(name: str) -> dict[str, Any]:
    """The keyword options of an agent with their defaults (inspect.Parameter.empty when required)."""
    if not _known(name):
        raise AgentError(f"unknown agent {name!r}; agents: {', '.join(agent_names())}")
    sig = inspect.signature(_REGISTRY[name].__init__)
    return {k: p.default for k, p in list(sig.parameters.items())[1:]
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def make_agent(name: str, **options) -> Agent:
    """Build an agent by its registered name.

    Args:
        name: `random`, `rulebot`, `greedy`, `ismcts`, `guided`, `learned`, `human`, `process`, or
            any name a module of yours registered with `@register(name)` (`agent_names()` lists them).
        **options (Any): the agent's keyword options (`agent_options(name)` lists them with their
            defaults), e.g. `iterations=200`, `seed=1`.

    Returns:
        The agent; call `reset(seed)` before each game and `act(observation, action_mask, game)`
        at each decision.

    Raises:
        AgentError: an unknown name or option (the message lists what exists), or options the
            agent refuses.

    Example:
        ```python
        from agents import make_agent
        bot = make_agent("ismcts", iterations=200, seed=1)
        # the same from a spec string, as in v1919 play and the configs:
        name, options = parse_agent_spec("ismcts:iterations=200,seed=1")
        bot = make_agent(name, **options)
        ```
    """
    opts = agent_options(name)
    bad = sorted(set(options) - set(opts))
    if bad:
        raise AgentError(f"agent {name!r} has no option {', '.join(map(repr, bad))}; its options: "
                         f"{', '.join(f'{k}={v!r}' if v is not inspect.Parameter.empty else k for k, v in opts.items()) or 'none'}")
    try:
        return _REGISTRY[name](**options)
    except (TypeError, ValueError) as e:
        raise AgentError(f"agent {name!r}: {e}") from e


def parse_agent_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """'ismcts:iterations=200,rollout=rulebot' -> ('ismcts', {'iterations': 200, 'rollout': 'rulebot'})."""
    name, colon, rest = spec.strip().partition(":")
    if colon and not rest.strip():
        raise AgentError(f"agent spec {spec!r}: a ':' and no options after it; write {name.strip()!r} or '{name.strip()}:key=value,...'")
    opts: dict[str, Any] = {}
    for part in filter(None, (x.strip() for x in rest.split(";" if ";" in rest else ","))):
        k, eq, v = part.partition("=")
        if not eq or not k.strip():
            raise AgentError(f"agent option {part!r} in {spec!r} is not key=value")
        opts[k.strip()] = _parse_value(v.strip())
    return name.strip(), opts


def _parse_value(v: str):
    low = v.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for conv in (int, float):
        try:
            return conv(v)
        except ValueError:
            pass
    return v
