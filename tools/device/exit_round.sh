#!/usr/bin/env bash
# One round of expert iteration with the Gumbel teacher on a lent machine (docs/expert_iteration.md,
# "Round 3: a Gumbel root"), inside a fixed wall time:
#   1. the missing Python packages from the wheels in .whl/ (only when they do not import already);
#   2. the numba kernels compiled once in this process's cache (V1919_CACHE inside the repo), so that
#      the spawned workers load them;
#   3. teacher self-play (training.selfplay, TEACHER config) on WORKERS processes; no shard starts
#      after MINUTES (or later than the time split allows), those in flight finish;
#   4. the fit (training.fit, FIT config: device auto, the GPU) to the improved-policy target on all
#      the new games;
#   5. the fitted network alone against three rule bots, GAMES games on EVAL_WORKERS processes
#      (training.head_to_head: deals 7,310,000 + i // 4 rotated through the seats, the deals of the
#      docs' 2,000-game baseline, 41.8% [39.6, 44.0] for the shipped network);
#   6. to $OUT: net.zip, fit.json, selfplay.json (the run's figures and its visit statistics),
#      head_to_head.json, log.txt.
# Local check on CPU with tiny numbers:
#   OUT=/tmp/out MINUTES=0.5 WORKERS=1 EVAL_WORKERS=1 GAMES=8 TOTAL_S=400 bash tools/device/exit_round.sh
set -u -o pipefail

# ---- the time split (seconds of wall time, the machine's start not counted)
TOTAL_S=${TOTAL_S:-540}        # everything, the copies to $OUT included
MINUTES=${MINUTES:-4.5}        # teacher self-play: no shard starts after this many minutes
TAIL_S=${TAIL_S:-45}           # after that: the shards in flight finish, the pool closes
FIT_S=${FIT_S:-140}            # the fit's hard limit (loading the shards included)
EVAL_S=${EVAL_S:-45}           # head_to_head's hard limit
RESERVE_S=${RESERVE_S:-10}     # the copies to $OUT and slack
WARM_S=${WARM_S:-150}          # the compile's hard limit
# ---- the work
WORKERS=${WORKERS:-15}
EVAL_WORKERS=${EVAL_WORKERS:-16}
GAMES=${GAMES:-2000}
TEACHER=${TEACHER:-configs/experiments/expert_iteration/teacher/teacher_4p_r3_gumbel.yaml}
FIT=${FIT:-configs/experiments/expert_iteration/fit/fit_4p_r3_gumbel.yaml}
PY=${PY:-python3}
RUN=${RUN:-runs/exit_round}    # data and fit under here (runs/ is ignored)
OUT=${OUT:?OUT: the folder for the results}

mkdir -p "$OUT" "$RUN"
exec > >(tee -a "$OUT/log.txt") 2>&1
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
export V1919_CACHE=${V1919_CACHE:-$PWD/$RUN/numba_cache}
left() { echo $((TOTAL_S - SECONDS)); }
stamp() { echo "== [$SECONDS s] $*"; }
stamp "exit_round: TOTAL_S=$TOTAL_S MINUTES=$MINUTES WORKERS=$WORKERS GAMES=$GAMES TEACHER=$TEACHER FIT=$FIT"

# ---- 1. packages
if ! $PY -c "import sb3_contrib, pydantic, gymnasium, yaml, tqdm" 2>/dev/null; then
  stamp "installing the wheels of .whl/"
  ls .whl/*.whl >/dev/null 2>&1 || { echo "error: packages missing and no wheels in .whl/"; exit 2; }
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    || { echo "error: the wheels did not install"; exit 2; }
  export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
$PY - <<'EOF' || { echo "error: the packages do not import"; exit 2; }
import sys, numpy, numba, torch, sb3_contrib, pydantic, gymnasium
print(f"python {sys.version.split()[0]}, numpy {numpy.__version__}, numba {numba.__version__}, torch {torch.__version__}, "
      f"cuda {torch.cuda.is_available()}, sb3_contrib {sb3_contrib.__version__}, pydantic {pydantic.__version__}, "
      f"gymnasium {gymnasium.__version__}, cores {__import__('os').cpu_count()}")
EOF

# ---- 2. the numba kernels, once, in this process's cache
stamp "compiling the kernels (cache $V1919_CACHE)"
timeout -k 5 "$WARM_S" $PY - "$TEACHER" "$RUN/warm" <<'EOF' || { echo "error: the compile failed or ran out of time"; exit 3; }
import shutil, sys, time
t0 = time.perf_counter()
from training import selfplay
from training.head_to_head import play_games
import yaml
raw = yaml.safe_load(open(sys.argv[1]))
raw.update(name="warm", games=1, games_per_shard=1, variant="short15", seats={"teacher": 0.5, "rulebot": 0.25, "network": 0.25},
           search={**raw["search"], "iterations": 4, "batch_size": 2})
shutil.rmtree(sys.argv[2], ignore_errors=True)
selfplay.generate(selfplay.load_config(raw=raw), sys.argv[2], workers=1, progress=False)
play_games("learned", "rulebot", 0, 4, 4, 7_310_000)
print(f"compiled and warmed in {time.perf_counter() - t0:.1f} s")
EOF

# ---- 3. teacher self-play for a fixed wall time
NAME=$(basename "$TEACHER" .yaml)
DATA=$RUN/selfplay/$NAME
HARD=$(( $(left) - FIT_S - EVAL_S - RESERVE_S ))
MIN=$($PY -c "print(max(0.0, min($MINUTES, ($HARD - $TAIL_S) / 60)))")
stamp "self-play: $WORKERS workers, no shard starts after $MIN min, stopped at $HARD s at the latest -> $DATA"
[ "$HARD" -gt 20 ] || { echo "error: no time left for self-play ($HARD s)"; exit 4; }
timeout -s INT -k 10 "$HARD" $PY -m training.selfplay "$TEACHER" --workers "$WORKERS" --minutes "$MIN" --out "$DATA" \
  > "$RUN/selfplay_totals.json"
echo "self-play exit $?: $(cat "$RUN/selfplay_totals.json")"
$PY - "$DATA" "$RUN/selfplay_totals.json" "$OUT/selfplay.json" <<'EOF' || echo "warning: no self-play summary"
import json, sys
from training.visit_stats import visit_stats
try:
    totals = json.loads(open(sys.argv[2]).read())
except (OSError, ValueError):
    totals = None                       # stopped by the hard limit: the shards on disk are complete
s = {"totals": totals, "visits": visit_stats(sys.argv[1])}
open(sys.argv[3], "w").write(json.dumps(s, indent=2) + "\n")
print(json.dumps(s))
EOF

# ---- 4. the fit on all the new games
FITDIR=$RUN/fit/$(basename "$FIT" .yaml)
FIT_LIMIT=$(( $(left) - EVAL_S - RESERVE_S ))
stamp "fit: $FIT on $DATA, at most $FIT_LIMIT s -> $FITDIR"
timeout -k 5 "$FIT_LIMIT" $PY -m training.fit "$FIT" --data "$DATA" --out "$FITDIR" > "$RUN/fit_summary.json"
echo "fit exit $?"
cp "$FITDIR/fit.json" "$OUT/fit.json" && cp "$FITDIR/checkpoints/net.zip" "$OUT/net.zip" \
  || { echo "error: no fitted network"; exit 5; }

# ---- 5. the fitted network alone against three rule bots
EVAL_LIMIT=$(( $(left) - RESERVE_S ))
stamp "head_to_head: $GAMES games on $EVAL_WORKERS workers, at most $EVAL_LIMIT s"
timeout -k 5 "$EVAL_LIMIT" $PY -m training.head_to_head "learned:path=$FITDIR/checkpoints/net.zip" rulebot \
  --games "$GAMES" --workers "$EVAL_WORKERS" --out "$OUT/head_to_head.json" > /dev/null
echo "head_to_head exit $?: $(cat "$OUT/head_to_head.json" 2>/dev/null | tr -d '\n ')"
stamp "done"
ls -la "$OUT"
