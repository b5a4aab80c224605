"""The project's import graph read from the source: every `import` and `from ... import` statement,
at module level or inside a function, resolved to the project module it names.

    python tests/helpers/import_graph.py      # prints each module's imports, then any cycle

Implicit imports of parent packages (importing `a.b.c` runs `a/__init__.py` first) are not edges:
they are how Python loads packages, not a dependency a module declares.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("v1919_env", "agents", "training")


def project_modules(root: Path = ROOT) -> dict[str, Path]:
    """Dotted name -> file of every module of the three packages."""
    mods = {}
    for pkg in PACKAGES:
        for p in (root / pkg).rglob("*.py"):
            parts = p.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            mods[".".join(parts)] = p
    return mods


def _targets(name: str, path: Path, node, mods) -> list[str]:
    """The project modules an import statement names (the longest known prefix of each name)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            pkg = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
            pkg = pkg[:len(pkg) - (node.level - 1)]
            base = ".".join(pkg + ([node.module] if node.module else []))
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
    out = []
    for m in names:
        while m and m not in mods:
            m = m.rpartition(".")[0]
        if m and m != name:
            out.append(m)
    return out


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the project modules it imports anywhere in its source."""
    mods = project_modules(root)
    graph = {}
    for name, path in mods.items():
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                deps.update(_targets(name, path, node, mods))
        graph[name] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


if __name__ == "__main__":
    g = import_graph()
    for m in sorted(g):
        print(f"{m} -> {', '.join(sorted(g[m])) or '-'}")
    found = cycles(g)
    for c in found:
        print("cycle:", " <-> ".join(c))
    print(f"{len(found)} cycles in {len(g)} modules")
