"""Mutated card sets (hypothesis): each either is rejected at load with a CardDataError or loads and
plays random games to the end with every invariant holding; never another exception, a crash or a
hang. The cases run in batches in a subprocess (tests/helpers/card_fuzz_worker.py) with a timeout, so a
segfault or a hang fails the test and names the case instead of killing the run.

V1919_CARD_FUZZ_CASES (default 80) sets the number of cases for a longer run.
"""
from __future__ import annotations

import copy
import hashlib
import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from v1919_env.cards import SECTIONS, STANDARD_DIR, load_card_set

WORKER = Path(__file__).resolve().parents[1] / "helpers" / "card_fuzz_worker.py"
BATCH = 40
N_CASES = int(os.environ.get("V1919_CARD_FUZZ_CASES", "80"))
TIMEOUT_S = 300                        # per batch; a batch takes well under a minute
SHIPPED = load_card_set().export()
SECTION_WEIGHTS = ["board"] * 4 + ["events"] * 3 + ["issues"] * 2 + ["strategies"] * 2 + ["card_set"]
HOW = ["junk", "junk", "extreme", "nudge", "nudge", "nudge", "drop", "add", "swap", "swap", "swap"]
BORING = ("provenance", "condition_provenance", "text", "quote", "source", "reasoning", "url", "note")

EXTREME_INTS = st.sampled_from([-1, 0, 1, 2, 5, 9, 31, 53, 255, 10 ** 6, -10 ** 6, 2 ** 31, -2 ** 31 - 1, 2 ** 63,
                                10 ** 30, -10 ** 30])
JUNK = st.one_of(st.none(), st.booleans(), EXTREME_INTS, st.integers(-3, 12), st.floats(allow_nan=True),
                 st.text(max_size=8), st.sampled_from(["x", "europe", "uk", "each_player", "chosen", "naval", ""]),
                 st.lists(st.integers(-2, 9), max_size=3), st.dictionaries(st.text(max_size=4), st.integers(),
                                                                           max_size=2))


def _paths(x, path=(), boring_ok=False):
    """Every (container path, key) below x; provenance and texts only when boring_ok."""
    items = x.items() if isinstance(x, dict) else enumerate(x) if isinstance(x, list) else ()
    for k, v in items:
        if not boring_ok and k in BORING:
            continue
        yield path + (k,)
        yield from _paths(v, path + (k,), boring_ok)


def _get(d, path):
    for k in path:
        d = d[k]
    return d


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _mutate(data, d: dict) -> str:
    """Apply one mutation to d in place; return what it did."""
    how = data.draw(st.sampled_from(HOW), label="how")
    section = data.draw(st.sampled_from(SECTION_WEIGHTS), label="section")
    paths = sorted(_paths(d[section], (section,), data.draw(st.integers(0, 9)) == 0), key=repr)
    if how == "nudge":
        paths = [p for p in paths if _is_int(_get(d, p))]
    elif how == "swap":
        # the same field of two cards, or the values of two board tables
        paths = [p for p in paths if len(p) >= 3 and (section != "board" or p[2] == "value")]
    if not paths:
        return "nothing"
    path = data.draw(st.sampled_from(paths), label="path")
    parent, key = _get(d, path[:-1]), path[-1]
    cur = parent[key]
    if how == "drop":
        del parent[key]
    elif how == "add":
        if isinstance(cur, dict):
            extra = data.draw(st.sampled_from(sorted(cur, key=str) + ["zzz"]))
            cur[f"{extra}_" if data.draw(st.booleans()) else extra] = data.draw(JUNK)
        elif isinstance(cur, list):
            cur.append(copy.deepcopy(data.draw(st.sampled_from(cur))) if cur and data.draw(st.booleans())
                       else data.draw(JUNK))
        else:
            parent[key] = [cur, cur]
    elif how == "nudge":
        parent[key] = cur + data.draw(st.sampled_from([-3, -2, -1, 1, 2, 3]))
    elif how == "extreme":
        parent[key] = data.draw(EXTREME_INTS)
    elif how == "swap":
        if section == "board":
            other = ("board", data.draw(st.sampled_from(sorted(d["board"]))), "value") + path[3:]
        else:
            other = (section, data.draw(st.integers(0, len(d[section]) - 1))) + path[2:]
        try:
            oparent = _get(d, other[:-1])
            oparent[other[-1]], parent[key] = parent[key], oparent[other[-1]]
        except (KeyError, IndexError, TypeError):
            parent[key] = data.draw(JUNK)          # the other card has no such field
        return f"swap {'.'.join(map(str, path))} <-> {'.'.join(map(str, other))}"
    else:
        parent[key] = data.draw(JUNK)
    return f"{how} {'.'.join(map(str, path))}"


@pytest.fixture(scope="module")
def compiled():
    """Compile (or load) the kernels here, so the subprocess timeouts measure the fuzz alone."""
    subprocess.run([sys.executable, "-c", f"import card_fuzz_worker as w; w.play_case({str(STANDARD_DIR)!r}, 0)"],
                   cwd=WORKER.parent, check=True, capture_output=True, timeout=1200)


def _run_batch(cases: list[tuple[Path, list[str]]]) -> list[dict]:
    try:
        p = subprocess.run([sys.executable, str(WORKER)] + [str(c[0]) for c in cases], capture_output=True,
                           text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        last = json.loads(out.strip().splitlines()[-1])["case"] if out.strip() else 0
        pytest.fail(f"hang: no result in {TIMEOUT_S} s, last case started {last}: {cases[last][1]}")
    recs = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    done = [r for r in recs if "result" in r]
    if p.returncode != 0:
        k = recs[-1]["case"] if recs else 0
        pytest.fail(f"worker exit {p.returncode} in case {k} (mutations {cases[k][1]}):\n{p.stderr[-3000:]}")
    assert len(done) == len(cases)
    return done


def _generate(n: int) -> list[tuple[bytes, list[str]]]:
    """Up to n distinct mutated card sets drawn by hypothesis (one example each; compressed JSON), with
    what was done to each."""
    cases, seen = [], set()

    @settings(max_examples=2 * n, deadline=None, derandomize=True, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def collect(data):
        d = copy.deepcopy(SHIPPED)
        what = [_mutate(data, d) for _ in range(data.draw(st.integers(1, 2), label="mutations"))]
        text = json.dumps(d).encode()       # NaN and huge ints as JSON can carry them
        h = hashlib.sha1(text).digest()
        if h not in seen and len(cases) < n:
            seen.add(h)
            cases.append((zlib.compress(text), what))

    collect()
    return cases


CASES = _generate(N_CASES)


@pytest.mark.parametrize("batch", range(0, len(CASES), BATCH), ids=lambda b: f"cases{b}")
def test_mutated_card_sets_load_and_play_soundly_or_are_rejected(compiled, tmp_path, batch):
    cases = []
    for k, (text, what) in enumerate(CASES[batch:batch + BATCH]):
        path = tmp_path / f"case{batch + k}.json"
        path.write_bytes(zlib.decompress(text))
        cases.append((path, what))
    done = _run_batch(cases)
    for r in done:
        assert r["result"] in ("rejected", "played"), r
        if r["result"] == "rejected":
            assert r["error"].startswith(SECTIONS + ("card set",)), r     # names the section and field
    played = [r for r in done if r["result"] == "played"]
    print(f"cases {batch}..{batch + len(done) - 1}: {len(played)} loaded and played soundly "
          f"({sum(r['games'] for r in played)} games, {sum(r['decisions'] for r in played)} decisions, "
          f"{sum(r['truncated'] for r in played)} truncated), {len(done) - len(played)} rejected with CardDataError")


def test_the_fuzz_reaches_both_outcomes():
    """The mutations are neither all fatal nor all harmless (else the fuzz would test one path only)."""
    from v1919_env.cards import CardDataError, validate_card_set
    outcomes = set()
    for text, _ in CASES:
        try:
            validate_card_set(json.loads(zlib.decompress(text)))
            outcomes.add("loads")
        except CardDataError:
            outcomes.add("rejected")
    assert outcomes == {"loads", "rejected"}
