"""Every code block of the documentation (docs/*.md, README.md) that is meant to run runs here:
Python blocks (a page's blocks in order, in one interpreter, sharing their names, as a reader
pasting them would) and shell blocks made only of the project's commands (`v1919 ...`,
`python ...`), each in a scratch folder that sees the repository's configs/, tools/ and training/.
Where the page shows the output (a ```text block after `<!-- output -->`), its lines must appear in
what the block printed. Blocks too long for a test run (training runs, long tournaments, clusters)
carry `<!-- not-run: REASON -->` on the line before them; they are counted, never run
(docs/writing_docs.md). Pages not written here whose blocks are all long runs are listed in
PAGES_NOT_RUN with the reason.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import markdown_blocks as mb  # noqa: E402

ROOT = mb.ROOT
# pages whose blocks are all long runs and that carry no markers (written by others)
PAGES_NOT_RUN = {
    "docs/expert_iteration.md": "every block is a self-play, fit or 2,000-game run of the expert-iteration study",
    "docs/ladder.md": "written by `v1919 ladder --doc`; its one block is the 560-game ladder run itself",
}
TIMEOUT = 420          # per page; a cold numba cache compiles the kernels a page needs first

RUNNER = textwrap.dedent('''
    import contextlib, io, json, sys, traceback
    blocks = json.load(open(sys.argv[1]))
    ns = {"__name__": "__main__"}
    results = []
    for code in blocks:
        out = io.StringIO()
        status = "ok"
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code, "<block>", "exec"), ns)
        except ModuleNotFoundError as e:
            top = (e.name or "").split(".")[0]
            status = ("missing:" + top if top not in ("v1919_env", "agents", "training") else "error")
            if status == "error":
                out.write(traceback.format_exc())
            else:
                out.write(str(e))
        except BaseException:
            status = "error"
            out.write(traceback.format_exc())
        results.append({"status": status, "out": out.getvalue()[-200000:]})
        if status == "error":
            break
    json.dump(results, open(sys.argv[2], "w"))
''')


def _pages_with_blocks():
    out = []
    for page in mb.PAGES:
        rel = page.relative_to(ROOT).as_posix()
        if any(b.runnable for b in mb.blocks(page)):
            out.append(rel)
    return out


def _scratch(tmp_path: Path) -> Path:
    for name in ("configs", "tools", "training"):
        (tmp_path / name).symlink_to(ROOT / name)
    return tmp_path


def _env() -> dict:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("MPLBACKEND", "Agg")
    return env


def check_output(block: mb.Block, printed: str) -> None:
    """Every line of the shown output (`...` lines aside) appears in what was printed, in order."""
    if block.output is None:
        return
    lines = [ln.strip() for ln in printed.splitlines()]
    at = 0
    for want in block.output.code.splitlines():
        want = want.strip()
        if not want or want == "...":
            continue
        while at < len(lines) and want not in lines[at]:
            at += 1
        assert at < len(lines), (f"{block.where}: the page shows {want!r} in its output "
                                 f"({block.output.where}), the block did not print it:\n{printed[-3000:]}")
        at += 1


def run_shell(block: mb.Block, cwd: Path) -> str:
    script = "set -e\n" + "\n".join(c.replace(".venv/bin/", "") for c in block.commands())
    # a session of its own, so a command that runs too long goes with its worker processes
    proc = subprocess.Popen(["bash", "-c", script], cwd=cwd, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"{block.where}: still running after {TIMEOUT} s: too long for a test "
                    "(mark it <!-- not-run: REASON -->)")
    assert proc.returncode == 0, f"{block.where}: exit {proc.returncode}\n{out[-3000:]}\n{err[-3000:]}"
    return out + err


def run_python(blocks: list[mb.Block], cwd: Path) -> list[str]:
    src, res = cwd / "_blocks.json", cwd / "_results.json"
    src.write_text(json.dumps([b.code for b in blocks]))
    runner = cwd / "_runner.py"
    runner.write_text(RUNNER)
    proc = subprocess.Popen([sys.executable, str(runner), str(src), str(res)], cwd=cwd, env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"{blocks[0].page.name}: its Python blocks ran past {TIMEOUT} s")
    r = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    assert r.returncode == 0 and res.exists(), f"the runner failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    outs = []
    for b, got in zip(blocks, json.loads(res.read_text())):
        if got["status"].startswith("missing:"):
            # an optional extra this machine lacks (the CI installs them all): the rest of the page
            # may depend on it, so stop here and say so
            pytest.skip(f"{b.where}: needs {got['status'][8:]} ({got['out']})")
        assert got["status"] == "ok", f"{b.where} raised:\n{got['out']}"
        outs.append(got["out"])
    return outs


@pytest.mark.parametrize("page", _pages_with_blocks())
def test_the_page_s_code_blocks_run(page, tmp_path):
    if page in PAGES_NOT_RUN:
        pytest.skip(f"{page}: not run: {PAGES_NOT_RUN[page]}")
    found = mb.blocks(ROOT / page)
    todo = [b for b in found if b.runnable and b.not_run is None]
    if not todo:
        return
    cwd = _scratch(tmp_path)
    for b in found:
        if b.file:
            assert "/" not in b.file and not b.file.startswith("."), f"{b.where}: file name {b.file!r}"
            (cwd / b.file).write_text(b.code, encoding="utf-8")
    for b in todo:
        if b.lang in mb.SHELL:
            check_output(b, run_shell(b, cwd))
    py = [b for b in todo if b.lang not in mb.SHELL]
    if py:
        for b, out in zip(py, run_python(py, cwd)):
            check_output(b, out)


def test_blocks_not_run_are_marked_with_a_reason_and_counted(capsys):
    """The count of blocks meant to run that the tests leave alone, by page; every marker says why,
    and a marker stands before a block meant to run (not a YAML or JSON example)."""
    run, not_run, problems = 0, {}, []
    for page in mb.PAGES:
        rel = page.relative_to(ROOT).as_posix()
        for b in mb.blocks(page):
            if b.not_run is not None:
                if not b.not_run.strip():
                    problems.append(f"{b.where}: a not-run marker without a reason")
                if not b.runnable:
                    problems.append(f"{b.where}: a not-run marker before a block that would not run anyway")
                not_run.setdefault(rel, []).append(b.not_run)
            elif b.runnable and rel in PAGES_NOT_RUN:
                not_run.setdefault(rel, []).append(PAGES_NOT_RUN[rel])
            elif b.runnable:
                run += 1
            if b.output is not None and not b.runnable:
                problems.append(f"{b.where}: an output shown after a block that does not run")
    assert problems == []
    total = sum(len(v) for v in not_run.values())
    with capsys.disabled():
        print(f"\ndocs code blocks: {run} run, {total} not run "
              + ", ".join(f"{k}: {len(v)}" for k, v in sorted(not_run.items())))
    assert run >= 10
