"""tools/README.md lists every script under tools/ with the first line of its module docstring, the
one line that says what the script is for."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_tool_says_what_it_is_for_and_is_listed():
    readme = (ROOT / "tools" / "README.md").read_text(encoding="utf-8")
    for path in sorted((ROOT / "tools").glob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        assert doc, f"{path.name}: no module docstring"
        first = doc.splitlines()[0].strip()
        assert len(first) >= 30 and first[-1] in ".?:)", f"{path.name}: the first line is no sentence: {first!r}"
        assert f"| `{path.name}` | {first} |" in readme, f"tools/README.md does not list {path.name} with {first!r}"
