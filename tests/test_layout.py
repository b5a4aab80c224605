"""The tree shows the architecture (DESIGN.md 'Layout'): layers as packages, imports that flow down
only, no import cycle (imports inside functions included), a docstring on every package, the
documented entry points in place, and tests/ laid out like the code."""
from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from helpers.import_graph import ROOT, cycles, import_graph, project_modules

# Layers from the bottom up; a module may import its own layer (the graph has no cycle) and any below.
LAYERS = [
    ("core", ["v1919_env.core"]),                                  # the compiled rules
    ("cards", ["v1919_env.cards"]),                                # card data: load, validate, names
    ("vocabularies", ["v1919_env.actions", "v1919_env.decisions", "v1919_env.rewards", "v1919_env.seating",
                      "v1919_env.variants", "v1919_env.logs"]),
    ("positions and drawings", ["v1919_env.positions", "v1919_env.view.card_text", "v1919_env.view.text",
                                "v1919_env.view.scene", "v1919_env.view.svg", "v1919_env.view.raster"]),
    ("game", ["v1919_env.game"]),
    ("records and replay", ["v1919_env.records", "v1919_env.view.replay_html", "v1919_env.view"]),
    ("envs", ["v1919_env.envs"]),
    ("public surface", ["v1919_env", "v1919_env.compat", "v1919_env.openspiel_game", "v1919_env.versailles1919_v4"]),
    ("commands", ["v1919_env.arguments", "v1919_env.bench", "v1919_env.docs", "v1919_env.cli"]),   # the layers
    ("agents", ["agents"]),                            # above plug in through entry points (pyproject.toml)
    ("arena", ["agents.arena"]),
    ("training", ["training"]),
]


def layer_of(module: str) -> int:
    """Index in LAYERS of the longest prefix naming the module."""
    best, rank = "", None
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > len(best):
                best, rank = p, i
    assert rank is not None, f"{module} is in no layer of tests/test_layout.py"
    return rank


GRAPH = import_graph()


def test_there_is_no_import_cycle():
    assert cycles(GRAPH) == []


def test_imports_flow_down_the_layers():
    up = [f"{m} ({LAYERS[layer_of(m)][0]}) imports {d} ({LAYERS[layer_of(d)][0]})"
          for m, deps in sorted(GRAPH.items()) for d in sorted(deps) if layer_of(d) > layer_of(m)]
    assert up == []


def test_the_cli_is_imported_by_nothing():
    """The CLI is the one place that knows every command; no command's implementation imports it."""
    assert [m for m, deps in GRAPH.items() if "v1919_env.cli" in deps] == []


def test_the_checks_can_fail():
    """The graph sees imports inside functions and relative imports: a known one in each."""
    assert "v1919_env.view.text" in GRAPH["v1919_env.game"]               # `from .view.text import` in render()
    assert "v1919_env.core.layout" in GRAPH["v1919_env.core.step"]         # relative, module level
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]


@pytest.mark.parametrize("package", sorted(m for m, p in project_modules().items() if p.name == "__init__.py"))
def test_every_package_says_what_it_holds_and_may_import(package):
    doc = ast.get_docstring(ast.parse(project_modules()[package].read_text(encoding="utf-8")))
    assert doc and len(doc) > 80, f"{package}: no package docstring"
    assert "import" in doc, f"{package}: the docstring does not say what the package may import"


def test_documented_entry_points_import():
    """README's entry points: the package's envs, Game, the Gymnasium ids, the compat adapters and
    `python -m training` (the layout may move everything else)."""
    code = ("import gymnasium, v1919_env, v1919_env.compat, v1919_env.game\n"
            "from v1919_env import env, gym_env, raw_env, solitaire_env, Game\n"
            "from v1919_env.game import Game as G2\n"
            "from v1919_env.compat import SelfPlayEnv, parallel_env, torchrl_env, rllib_env\n"
            "assert Game is G2\n"
            "for i in ('Versailles1919-v4', 'Versailles1919Solitaire-v4', 'Versailles1919SelfPlay-v4'):\n"
            "    gymnasium.spec(i)\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, "-m", "training", "--help"], cwd=ROOT, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and r.stdout.startswith("usage: python -m training"), r.stderr


def test_openspiel_registration_import():
    pyspiel = pytest.importorskip("pyspiel")
    import v1919_env.openspiel_game  # noqa: F401  (the documented import registers the game)

    assert "versailles1919" in pyspiel.registered_names()


def test_tests_mirror_the_packages():
    """Every test file sits in a folder named after the package it tests (or at the top for the
    project and the CLI, examples/ for the rules' worked examples, docs/ for the documentation site)."""
    folders = {"core", "cards", "positions", "envs", "view", "agents", "training", "examples", "helpers", "docs"}
    stray = [p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("*.py")
             if p.parent != ROOT / "tests" and p.relative_to(ROOT / "tests").parts[0] not in folders]
    assert stray == []
    for f in folders - {"examples", "helpers"}:
        pkg = ROOT / "v1919_env" / f if (ROOT / "v1919_env" / f).is_dir() else ROOT / f
        assert pkg.is_dir(), f"tests/{f}/ mirrors no package"


def _python(code: str) -> str:
    """What a new interpreter running `code` in the checkout prints (it must succeed)."""
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_the_environment_package_imports_nothing_above_it():
    """v1919_env, its commands included, runs without importing agents or training: they plug into the
    `v1919` command through entry points, which load only when the parser is built."""
    code = ("import sys, importlib, pkgutil, v1919_env\n"
            "for m in pkgutil.walk_packages(v1919_env.__path__, 'v1919_env.'):\n"
            "    if m.name not in ('v1919_env.openspiel_game', 'v1919_env.envs.openspiel_game'):\n"
            "        importlib.import_module(m.name)\n"
            "print(sorted({n.split('.')[0] for n in sys.modules} & {'agents', 'training'}))")
    assert _python(code) == "[]"


def test_the_entry_points_name_what_exists():
    from importlib.metadata import entry_points

    from v1919_env.bench import SECTION_GROUP, Section
    from v1919_env.cli import COMMAND_GROUP, build_parser

    groups = {g: {ep.name: ep for ep in entry_points(group=g)} for g in (COMMAND_GROUP, SECTION_GROUP, "v1919.agents")}
    assert set(groups[COMMAND_GROUP]) == set(groups[SECTION_GROUP]) == {"arena", "training"}
    assert all(isinstance(s, Section) for ep in groups[SECTION_GROUP].values() for s in ep.load())
    assert set(groups["v1919.agents"]) == {"process"}
    commands = build_parser()._subparsers._group_actions[0].choices
    assert {"data", "bench", "demo", "play", "serve", "tournament", "ladder", "replay", "benchmark",
            "nation-balance", "train", "train-rllib"} == set(commands)


def test_an_agent_of_the_arena_is_built_by_name_without_importing_the_arena():
    code = ("import sys\nfrom agents import agent_names, make_agent\n"
            "assert 'agents.arena' not in sys.modules and 'process' in agent_names()\n"
            "bot = make_agent('process', cmd='true')\n"
            "print(type(bot).__module__)")
    assert _python(code) == "agents.arena.process.bot"


def test_the_arenas_old_import_paths_work_with_a_deprecation_warning():
    """`agents.play`, `agents.tournament.config`, ... were the arena's paths before it had a package: for one
    version they give the same module objects, with a warning naming the new path."""
    code = ("import warnings; warnings.simplefilter('error', DeprecationWarning)\n"
            "import agents, agents.arena.play, agents.arena.tournament.config as new\n"
            "try:\n    import agents.play\nexcept DeprecationWarning as w:\n    print(w)\n"
            "warnings.simplefilter('ignore')\n"
            "import agents.play, agents.tournament.config as old\n"
            "from agents.tournament import load_config\n"
            "from agents import process\n"
            "print(agents.play is agents.arena.play, old is new, load_config is new.load_config,\n"
            "      process is agents.arena.process)")
    assert _python(code).splitlines() == [
        "agents.play moved to agents.arena.play (the arena's own package); the old path goes in 0.3.0",
        "True True True True"]
    r = subprocess.run([sys.executable, "-m", "agents.process.client", "--help"], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0 and "usage: python -m agents.arena.process.client" in r.stdout, r.stderr
    assert "FutureWarning: python -m agents.process.client: the module moved to agents.arena.process.client" in r.stderr
