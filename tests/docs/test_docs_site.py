"""The documentation site (mkdocs.yml, docs/) builds with `mkdocs build --strict`: every page in the
nav exists, every link and anchor inside docs/ resolves, and every API reference page finds the
objects it names (mkdocstrings). Skipped only where MkDocs is not installed (the `docs` extra)."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def _mkdocs():
    try:
        import material  # noqa: F401
        import mkdocs  # noqa: F401
        import mkdocstrings  # noqa: F401
    except ImportError as e:
        pytest.skip(f"the docs extra is not installed ({e.name} missing): pip install -e '.[docs]'")


def test_the_site_builds_strict(tmp_path):
    _mkdocs()
    site = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)], cwd=ROOT,
                       capture_output=True, text=True, timeout=300, env={**__import__("os").environ,
                                                                          "NO_MKDOCS_2_WARNING": "1"})
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-6000:]
    assert (site / "index.html").exists() and (site / "api" / "game" / "index.html").exists()
    html = (site / "api" / "game" / "index.html").read_text(encoding="utf-8")
    assert "legal_actions" in html and "doc-function" in html, "the API reference rendered no functions"
    # nothing is fetched from another site when a page opens: no web fonts, no scripts or styles from a CDN
    remote = [f"{p.relative_to(site)}: {m}" for p in site.rglob("*.html")
              for m in re.findall(r'<(?:link|script)[^>]+(?:href|src)="(https?://[^"]+)"', p.read_text(encoding="utf-8"))]
    assert remote == [], remote[:5]


def _nav_pages(node) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [p for x in node for p in _nav_pages(x)]
    if isinstance(node, dict):
        return [p for v in node.values() for p in _nav_pages(v)]
    return []


def test_every_page_is_in_the_nav():
    """A page left out of the nav cannot be found from the site's menu (the build only warns)."""
    cfg = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    nav = set(_nav_pages(cfg["nav"]))
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert pages - nav == set() and nav - pages == set()


def test_the_docs_extra_is_installed_by_ci():
    assert "docs" in (ROOT / "pyproject.toml").read_text().split("[project.optional-dependencies]")[1]
    assert ",docs]" in (ROOT / ".ci" / "run").read_text()
    assert shutil.which("bash")
