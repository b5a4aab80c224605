"""Every internal link of the documentation (docs/**/*.md and README.md) leads somewhere: a relative
link names a file that exists (a page, an image, a data file), and an anchor (`page.md#section`,
`#section`) names a heading of that page as the site's table of contents spells it. Links to the
web are not followed. The site's own build (test_docs_site.py) also checks the links inside docs/;
this test needs no MkDocs, and covers the README, which the site does not contain."""
from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import markdown_blocks as mb  # noqa: E402

ROOT = mb.ROOT
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF = re.compile(r"^\s*\[[^\]]+\]:\s*(\S+)", re.M)


def links(page: Path) -> list[str]:
    text = mb.strip_code(page.read_text(encoding="utf-8"))
    return LINK.findall(text) + REF_DEF.findall(text) + re.findall(r'(?:href|src)="([^"]+)"', text)


def broken(page: Path) -> list[str]:
    out = []
    for target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
            continue                                  # http:, https:, mailto:
        path, _, anchor = unquote(target).partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            out.append(f"{target}: no file {dest.relative_to(ROOT) if dest.is_relative_to(ROOT) else dest}")
            continue
        if page.is_relative_to(ROOT / "docs") and not dest.is_relative_to(ROOT / "docs"):
            out.append(f"{target}: outside docs/ (the site does not have it; link the repository path as code)")
            continue
        if anchor and dest.suffix == ".md" and anchor not in mb.anchors(dest):
            out.append(f"{target}: no heading with the anchor #{anchor} in {dest.relative_to(ROOT)}")
    return out


@pytest.mark.parametrize("page", [p.relative_to(ROOT).as_posix() for p in mb.PAGES])
def test_internal_links_resolve(page):
    assert broken(ROOT / page) == []


def test_the_checker_finds_a_broken_link_and_a_broken_anchor(tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\n## Some `code` here\n\n[ok](b.md#b-title) [bad](c.md) [bad2](b.md#nope) "
                               "[self](#some-code-here) `[not a link](x.md)`\n")
    (docs / "b.md").write_text("# B title\n")
    monkeypatch.setattr(mb, "ROOT", tmp_path)
    global ROOT
    old, ROOT = ROOT, tmp_path
    try:
        got = broken(docs / "a.md")
    finally:
        ROOT = old
    assert len(got) == 2 and got[0].startswith("c.md") and got[1].startswith("b.md#nope")
