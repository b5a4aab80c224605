"""The code blocks and links of the documentation pages (docs/*.md, README.md), read the way the tests
in this folder need them. Not a test module: test_docs_code.py and test_docs_links.py import it.

Markers (HTML comments, invisible on the site and on GitHub, on the line before a block):

- `<!-- not-run: REASON -->`: a block meant to run that the tests do not run (a training run, a
  long tournament, a command that needs a cluster); the reason is required.
- `<!-- output -->`: the block that follows (```text) is the output of the block before it; every
  non-blank line of it, `...` lines aside, must appear in that output, in order.
- `<!-- file: NAME -->`: the block that follows is a file the reader saves as NAME (a module, a
  config); the tests write it into the page's scratch folder before any block runs, and do not run it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)\s*(?P<info>[^`]*)$")
MARKER = re.compile(r"^\s*<!--\s*(?P<kind>not-run|output|file)\s*(?::\s*(?P<reason>.*?))?\s*-->\s*$")
SHELL = {"bash", "sh", "shell", "console"}
# a shell block whose every command is one of the project's: `v1919 ...`, `python ...` (the venv's
# bin/ on PATH); anything else (pip, ray start, cc, git) is a setup step the tests leave alone
COMMAND = re.compile(r"^(?:PYTHONPATH=\S+\s+)?(?:\.venv/bin/)?(?:v1919|python3?)(?:\s|$)")


@dataclass
class Block:
    page: Path
    line: int                      # 1-based line of the opening fence
    lang: str
    code: str
    not_run: str | None = None     # the reason, when marked
    output: "Block | None" = None  # the expected output shown after it
    is_output: bool = False
    file: str | None = None        # the name it is saved as (a `file:` marker): written, not run
    extra: dict = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    def commands(self) -> list[str]:
        """The shell block's commands: comments dropped, continued lines joined."""
        out, cur = [], ""
        for raw in self.code.splitlines():
            line = raw.rstrip()
            if not cur and (not line.strip() or line.lstrip().startswith("#")):
                continue
            if line.endswith("\\"):
                cur += line[:-1] + " "
                continue
            out.append((cur + line).strip())
            cur = ""
        if cur:
            out.append(cur.strip())
        return out

    @property
    def runnable(self) -> bool:
        """A block meant to run: Python, or a shell block of the project's commands only."""
        if self.is_output or self.file is not None:
            return False
        if self.lang in ("python", "py"):
            return True
        if self.lang in SHELL:
            cmds = self.commands()
            return bool(cmds) and all(COMMAND.match(c) for c in cmds)
        return False


def blocks(page: Path) -> list[Block]:
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    pending: tuple[str, str | None] | None = None
    while i < len(lines):
        m = FENCE.match(lines[i])
        mk = MARKER.match(lines[i])
        if mk:
            pending = (mk["kind"], mk["reason"])
            i += 1
            continue
        if not m:
            if lines[i].strip():
                pending = None
            i += 1
            continue
        indent, fence, info = m["indent"], m["fence"], m["info"].strip()
        lang = info.split()[0].lower() if info else ""
        body, j = [], i + 1
        while j < len(lines) and not (lines[j].strip().startswith(fence[:3]) and lines[j].strip().strip(fence[0]) == ""):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j].lstrip())
            j += 1
        b = Block(page, i + 1, lang, "\n".join(body) + "\n")
        if pending and pending[0] == "not-run":
            b.not_run = pending[1] or ""
        elif pending and pending[0] == "file":
            b.file = (pending[1] or "").strip()
        elif pending and pending[0] == "output":
            b.is_output = True
            prev = next((p for p in reversed(found) if not p.is_output), None)
            if prev is not None:
                prev.output = b
        found.append(b)
        pending = None
        i = j + 1
    return found


def strip_code(text: str) -> str:
    """The page without its fenced blocks and inline code (where links are not links)."""
    out, fence = [], None
    for line in text.splitlines():
        m = FENCE.match(line)
        if fence is None and m:
            fence = m["fence"]
            out.append("")
            continue
        if fence is not None:
            if line.strip().startswith(fence[:3]) and line.strip().strip(fence[0]) == "":
                fence = None
            out.append("")
            continue
        out.append(re.sub(r"`[^`\n]*`", "``", line))
    return "\n".join(out)


def anchors(page: Path) -> set[str]:
    """The anchors a page has on the site: its headings' ids as Python-Markdown's toc extension
    makes them (what MkDocs uses), and explicit ids (`{#id}`, `id="..."`)."""
    import markdown

    text = page.read_text(encoding="utf-8")
    md = markdown.Markdown(extensions=["toc", "attr_list", "tables", "fenced_code"])
    md.convert(text)
    out: set[str] = set()

    def walk(tokens):
        for tok in tokens:
            out.add(tok["id"])
            walk(tok["children"])

    walk(md.toc_tokens)
    out |= set(re.findall(r"\{#([\w-]+)\}", text)) | set(re.findall(r'id="([\w-]+)"', text))
    return out
