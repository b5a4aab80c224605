"""Distil a network into a new body (issue 39: a network for the compact observation) on the positions
the new network reaches itself (DAgger, Ross, Gordon and Bagnell 2011).

    python -m training.distill CONFIG.yaml [--out DIR] [--minutes M] [--resume] [--evaluate GAMES]

`games` games advance in lockstep. Each seat of a game is played, drawn per game from (seed, game
index), by the student (its most probable legal move, as `learned` plays it) with probability
`student_share`, else by the teacher sampling its policy at `teacher_temperature`. At every decision
with a choice, whoever makes it, the teacher's policy is the target: it goes with the student's
observation (`obs_layout`) and the mask into a ring buffer of `buffer` decisions; when a game ends its
decisions get every seat's outcome under the teacher's training reward, discounted by the decider's
decisions still to come (forced ones too), the targets of a value head per seat (`seat_values`, the
decider first, as `training.fit`'s). After every step of all the games the student takes
`updates_per_step` minibatches of the cross-entropy to the teacher's policy + value_coef x the value
error (AdamW, the rate decaying linearly to 0 over `decisions`). A step costs one teacher forward
pass and one student pass over every waiting game.

The run folder (default `$V1919_RUNS/distill/<name>`) holds `checkpoints/net.zip` (`learned:path=`,
`guided:path=`; written every `checkpoint_every` decisions and at the end), `config.yaml` (the player
count and reward, as a fit's), `progress.csv` (per window of steps: the student's agreement with the
teacher's most probable move and the KL to its policy on the new decisions, before they are trained
on; the value error) and `state.json`. `--resume` goes on from the saved student and game count, its
buffer filled again from new games.
"""
from __future__ import annotations

import argparse
import csv
import json
import logging
import time
from pathlib import Path
from typing import Annotated, ClassVar, Literal

import numpy as np
import yaml
from numba import njit
from pydantic import AfterValidator, Field

from v1919_env.actions import NUM_ACTIONS
from v1919_env.config_schema import Strict
from v1919_env.core.layout import GAME_OVER, MAX_LEGAL, MAX_PLAYERS, PENDING_PLAYER, SEATING, STATE_DTYPE, \
    STATE_SIZE
from v1919_env.core.observations import FULL, layout_of, observe_and_mask_as
from v1919_env.core.step import apply_action, init_game, legal

from .config import SEED_MAX, device_of_this_machine
from .fit import Arch, outputs
from .runs import out_dir
from .selfplay import RUN_NAME, ConfigError, read_model

logger = logging.getLogger(__name__)
ILLEGAL_LOGIT = -1.0e9
GAME_STRIDE = 1_000_003          # game g of a run is deal seed x GAME_STRIDE + g (as training.selfplay's)


class DistillConfig(Strict):
    """A distillation run (see the module docstring)."""
    KIND: ClassVar[str] = "distill"
    name: str | None = RUN_NAME
    seed: int = Field(0, ge=0, le=SEED_MAX, description=f"an integer in 0..{SEED_MAX}")
    num_players: int = Field(4, ge=2, le=4)
    variant: str = "standard"
    teacher: str | None = None                       # a MaskablePPO checkpoint (None: the shipped weights)
    arch: Arch = Field(default_factory=Arch)         # the student's body (training.fit's arch)
    obs_layout: Literal["full", "compact"] = "compact"
    seat_values: bool = True                          # the student's value head: one a seat (the search's)
    games: int = Field(256, ge=1, le=65536)          # games in lockstep
    decisions: int = Field(10_000_000, ge=1)          # recorded decisions in all (the learning-rate schedule)
    buffer: int = Field(2_000_000, ge=1)
    student_share: float = Field(0.5, ge=0, le=1)
    teacher_temperature: float = Field(1.0, gt=0)
    batch_size: int = Field(512, ge=1)
    updates_per_step: float = Field(1.0, ge=0)
    learning_rate: float = Field(1.0e-3, gt=0)
    weight_decay: float = Field(0.0, ge=0)
    value_coef: float = Field(0.5, ge=0)
    gamma: float = Field(0.998, ge=0, le=1)
    checkpoint_every: int = Field(1_000_000, ge=1)
    log_every: int = Field(100_000, ge=1)             # decisions between progress.csv rows
    device: Annotated[str, AfterValidator(device_of_this_machine)] = Field(
        "cpu", description="a torch device of this machine: cpu, auto, cuda or cuda:N")


def load_config(path: str | Path | None = None, raw: dict | None = None, **overrides) -> DistillConfig:
    cfg = read_model(DistillConfig, path, raw, overrides)
    from v1919_env.game import card_tables
    from v1919_env.variants import variant_index

    try:
        variant_index(card_tables(None)[0], cfg.variant)
    except ValueError as e:
        raise ConfigError(f"variant: {e}") from None
    if cfg.teacher is not None and not Path(cfg.teacher).is_file():
        raise ConfigError(f"teacher: no checkpoint file at {cfg.teacher!r}")
    return cfg


# ----------------------------------------------------------------------------- kernels
@njit(cache=True)
def new_game(s, T, num_players, seed, variant):
    init_game(s, T, num_players, seed, variant, 0)


@njit(cache=True)
def prepare(S, T, rows, layout, full, small, masks, seats, made, buf):
    """Bring each game of `rows` to its next decision with a choice (a forced move is played: it only
    counts in `made`, the decisions per seat), and write the decider's seat, its full observation, its
    observation in `layout` and its mask. Returns the rows whose game is over (-1 elsewhere)."""
    over = np.full(rows.shape[0], -1, np.int64)
    for j in range(rows.shape[0]):
        b = rows[j]
        s = S[b]
        while s[GAME_OVER] == 0:
            n = legal(s, T, buf)
            if n > 1:
                break
            made[b, s[PENDING_PLAYER]] += 1
            apply_action(s, T, buf[0])
        if s[GAME_OVER] != 0:
            over[j] = b
            continue
        p = s[PENDING_PLAYER]
        seats[b] = p
        observe_and_mask_as(s, T, p, full[b], masks[b], buf, FULL)
        if layout != FULL:
            observe_and_mask_as(s, T, p, small[b], masks[b], buf, layout)
    return over


@njit(cache=True)
def play(S, T, actions, seats, made):
    for b in range(S.shape[0]):
        made[b, seats[b]] += 1
        apply_action(S[b], T, actions[b])


# ----------------------------------------------------------------------------- the buffer
class Buffer:
    """A ring of recorded decisions: the student's observation (float16), the mask, the teacher's
    policy (float16), the value targets [MAX_PLAYERS] once the game has ended (`known`)."""

    def __init__(self, size: int, width: int):
        self.obs = np.zeros((size, width), np.float16)
        self.mask = np.zeros((size, NUM_ACTIONS), bool)
        self.target = np.zeros((size, NUM_ACTIONS), np.float16)
        self.values = np.zeros((size, MAX_PLAYERS), np.float32)
        self.known = np.zeros(size, bool)
        self.owner = np.full(size, -1, np.int64)      # the game that wrote the slot (a later one may reuse it)
        self.pos, self.filled = 0, 0

    def add(self, obs, mask, target, owner) -> np.ndarray:
        n = len(obs)
        idx = (self.pos + np.arange(n)) % len(self.obs)
        self.obs[idx], self.mask[idx], self.target[idx] = obs, mask, target
        self.known[idx], self.owner[idx] = False, owner
        self.pos = int((self.pos + n) % len(self.obs))
        self.filled = min(len(self.obs), self.filled + n)
        return idx


class _Games:
    """Bookkeeping of the games in lockstep: which game each row plays, its seats' players, and the
    buffer slots of its decisions (slot, seat, the seat's decisions made before it)."""

    def __init__(self, cfg: DistillConfig, T, variant: int, first_game: int):
        self.cfg, self.T, self.variant = cfg, T, variant
        b = cfg.games
        self.S = np.zeros((b, STATE_SIZE), STATE_DTYPE)
        self.made = np.zeros((b, MAX_PLAYERS), np.int64)
        self.game = np.zeros(b, np.int64)
        self.student = np.zeros((b, MAX_PLAYERS), bool)
        self.recs: list[list[tuple[np.ndarray, int, int]]] = [[] for _ in range(b)]
        self.next_game = first_game
        for row in range(b):
            self.start(row)

    def start(self, row: int) -> None:
        g = self.next_game
        self.next_game += 1
        seed = self.cfg.seed * GAME_STRIDE + g
        new_game(self.S[row], self.T, self.cfg.num_players, seed, self.variant)
        self.made[row] = 0
        self.game[row] = g
        self.student[row] = np.random.default_rng([self.cfg.seed, g]).random(MAX_PLAYERS) < self.cfg.student_share
        self.recs[row] = []


def finish(games: _Games, row: int, buf: Buffer, cards, reward: dict, gamma: float) -> None:
    """Game `row` is over: its decisions still in the buffer get every seat's discounted outcome."""
    from v1919_env.game import Game
    from v1919_env.rewards import terminal_rewards

    s = games.S[row]
    scores = Game(s.copy(), cards, games.T).scores()
    final = sum(w * np.asarray(terminal_rewards(scores, k), np.float64) for k, w in reward.items())
    n = len(final)
    order = [int(x) for x in s[SEATING:SEATING + n]]                 # seats clockwise
    rel = {p: [final[order[(order.index(p) + k) % n]] for k in range(n)] + [0.0] * (MAX_PLAYERS - n)
           for p in range(n)}
    for idx, p, before in games.recs[row]:
        if buf.owner[idx] == games.game[row]:
            left = games.made[row, p] - before
            buf.values[idx] = np.asarray(rel[p], np.float32) * np.float32(gamma ** left)
            buf.known[idx] = True


# ----------------------------------------------------------------------------- the run
def _masked_logits(policy, obs, mask):
    import torch

    logits, values = outputs(policy, torch.as_tensor(obs, dtype=torch.float32))
    return logits.masked_fill(~torch.as_tensor(mask), ILLEGAL_LOGIT), values


def _models(cfg: DistillConfig, resume_from: Path | None):
    """(teacher model, student model, teacher path)."""
    import torch
    from sb3_contrib import MaskablePPO

    from agents.learned import DEFAULT_WEIGHTS, SHIPPED_WEIGHTS

    from .fit import new_body
    from .policy import with_seat_values

    torch.set_num_threads(1)
    path = cfg.teacher or str(DEFAULT_WEIGHTS if cfg.num_players == 4 else SHIPPED_WEIGHTS[cfg.num_players])
    teacher = MaskablePPO.load(path, device=cfg.device)
    if int(teacher.observation_space.shape[0]) != layout_of("full")[1]:
        raise ConfigError(f"teacher: {path} is not a network of the full observation")
    teacher.policy.set_training_mode(False)
    if resume_from is not None:
        student = MaskablePPO.load(str(resume_from), device=cfg.device)
    else:
        student = new_body(MaskablePPO.load(path, device=cfg.device), cfg.arch.model_dump(), cfg.obs_layout,
                           cfg.seed)
        if cfg.seat_values:
            with_seat_values(student)
    return teacher, student, path


def distill(cfg: DistillConfig, out: str | Path, minutes: float | None = None, resume: bool = False,
            progress: bool = True) -> dict:
    """Run the distillation (module docstring) until `cfg.decisions` recorded decisions in all, or
    `minutes` of this call; returns the run's state (also state.json)."""
    import torch
    import torch.nn.functional as F
    from tqdm import tqdm

    from agents.guided import checkpoint_facts, reward_spec
    from v1919_env.game import card_tables
    from v1919_env.variants import variant_index

    out = Path(out)
    ck = out / "checkpoints" / "net.zip"
    state_file = out / "state.json"
    if resume:
        if not state_file.is_file() or not ck.is_file():
            raise ConfigError(f"--resume: no run to resume in {out} (state.json and checkpoints/net.zip)")
        state = json.loads(state_file.read_text())
        if state["config"] != cfg.model_dump():
            raise ConfigError(f"--resume: the config differs from the run's in {out}")
    else:
        if state_file.exists():
            raise ConfigError(f"{out} holds a run already: --resume to go on, or another --out")
        state = {"config": cfg.model_dump(), "decisions": 0, "games_started": 0, "steps": 0, "seconds": 0.0}
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    teacher, student, teacher_path = _models(cfg, ck if resume else None)
    reward = reward_spec(checkpoint_facts(teacher_path).get("reward"))
    (out / "config.yaml").write_text(yaml.safe_dump({"num_players": cfg.num_players, "reward": reward,
                                                     "distill": cfg.model_dump()}, sort_keys=False))
    cards, T = card_tables(None)
    layout, width = layout_of(cfg.obs_layout)
    full_w = layout_of("full")[1]
    games = _Games(cfg, T, variant_index(cards, cfg.variant), state["games_started"])
    B = cfg.games
    full = np.zeros((B, full_w), np.float32)
    small = full if layout == FULL else np.zeros((B, width), np.float32)
    masks = np.zeros((B, NUM_ACTIONS), np.int8)
    seats = np.zeros(B, np.int64)
    scratch = np.empty(MAX_LEGAL, np.int64)
    buf = Buffer(cfg.buffer, width)
    rng = np.random.default_rng([cfg.seed, state["steps"]])
    policy = student.policy
    opt = torch.optim.AdamW(policy.parameters(), lr=cfg.learning_rate, weight_decay=cfg.weight_decay)
    done0 = state["decisions"]

    def rate():
        return max(0.0, 1.0 - state["decisions"] / cfg.decisions)

    log_path = out / "progress.csv"
    new_log = not log_path.is_file()
    log_file = log_path.open("a", newline="")
    log = csv.writer(log_file)
    if new_log:
        log.writerow(["decisions", "games", "seconds", "agreement", "kl", "value_mse", "learning_rate"])
    window = {"agree": 0.0, "kl": 0.0, "n": 0, "vmse": 0.0, "vn": 0}
    clock, credit = {"last": time.perf_counter()}, 0.0
    deadline = None if minutes is None else clock["last"] + 60.0 * minutes
    next_ck = (state["decisions"] // cfg.checkpoint_every + 1) * cfg.checkpoint_every
    next_log = (state["decisions"] // cfg.log_every + 1) * cfg.log_every
    all_rows = np.arange(B)
    bar = tqdm(total=cfg.decisions, initial=done0, unit="decision", unit_scale=True, desc=f"distill {cfg.name}",
               disable=not progress, mininterval=5)
    try:
        rows = all_rows
        start_steps = state["steps"]
        while state["decisions"] < cfg.decisions and (deadline is None or state["steps"] == start_steps
                                                      or time.perf_counter() < deadline):
            while True:                              # every game at a decision with a choice
                over = prepare(games.S, T, rows, layout, full, small, masks, seats, games.made, scratch)
                ended = over[over >= 0]
                if not len(ended):
                    break
                for row in ended:
                    finish(games, int(row), buf, cards, reward, cfg.gamma)
                    games.start(int(row))
                rows = ended
            rows = all_rows
            m = masks.view(bool)
            with torch.no_grad():
                t_logits, _ = _masked_logits(teacher.policy, full, m)
                target = torch.softmax(t_logits, 1)
                policy.set_training_mode(False)
                s_logits, _ = _masked_logits(policy, small, m)
            s_best = s_logits.argmax(1).numpy()
            t_best = t_logits.argmax(1).numpy()
            window["agree"] += float((s_best == t_best).sum())
            window["kl"] += float((target * (torch.log(target.clamp_min(1e-12)) - torch.log_softmax(s_logits, 1))
                                   ).sum().item())
            window["n"] += B
            if cfg.teacher_temperature == 1.0:
                probs = target.numpy().astype(np.float64)
            else:
                probs = torch.softmax(t_logits / cfg.teacher_temperature, 1).numpy().astype(np.float64)
            u = rng.random(B)[:, None]
            sampled = np.minimum((np.cumsum(probs, 1) < u * probs.sum(1, keepdims=True)).sum(1), NUM_ACTIONS - 1)
            sampled = np.where(m[all_rows, sampled], sampled, t_best)      # (rounding at the top of the sum)
            by_student = games.student[all_rows, seats]
            actions = np.where(by_student, s_best, sampled).astype(np.int64)
            idx = buf.add(small, m, target.numpy(), games.game)
            for b in range(B):
                games.recs[b].append((int(idx[b]), int(seats[b]), int(games.made[b, seats[b]])))
            play(games.S, T, actions, seats, games.made)
            state["decisions"] += B
            state["steps"] += 1
            bar.update(B)
            credit += cfg.updates_per_step
            policy.set_training_mode(True)
            while credit >= 1.0 and buf.filled >= cfg.batch_size:
                credit -= 1.0
                k = np.sort(rng.integers(0, buf.filled, cfg.batch_size))
                logits, values = _masked_logits(policy, buf.obs[k], buf.mask[k])
                tgt = torch.as_tensor(buf.target[k].astype(np.float32))
                loss = -(tgt * torch.log_softmax(logits, 1)).sum(1).mean()
                known = torch.as_tensor(buf.known[k])
                if known.any():
                    vt = torch.as_tensor(buf.values[k])
                    v = values if values.dim() == 2 else values[:, None]
                    vmse = F.mse_loss(v[known], vt[known][:, :v.shape[1]])
                    loss = loss + cfg.value_coef * vmse
                    window["vmse"] += float(vmse.item())
                    window["vn"] += 1
                for g in opt.param_groups:
                    g["lr"] = cfg.learning_rate * rate()
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
            if state["decisions"] >= next_log:
                next_log += cfg.log_every
                row = [state["decisions"], games.next_game, round(state["seconds"] + time.perf_counter() - clock["last"], 1),
                       window["agree"] / window["n"], window["kl"] / window["n"],
                       window["vmse"] / window["vn"] if window["vn"] else "", cfg.learning_rate * rate()]
                log.writerow(row)
                log_file.flush()
                bar.set_postfix_str(f"agree {row[3]:.3f} kl {row[4]:.3f}", refresh=False)
                window = {"agree": 0.0, "kl": 0.0, "n": 0, "vmse": 0.0, "vn": 0}
            if state["decisions"] >= next_ck:
                next_ck += cfg.checkpoint_every
                _save(student, ck, state, games, clock, state_file)
    finally:
        bar.close()
        log_file.close()
    _save(student, ck, state, games, clock, state_file)
    logger.info(f"{state['decisions']:,} decisions in {state['seconds']:.0f} s; checkpoint {ck}")
    return {**state, "checkpoint": str(ck)}


def _save(student, ck: Path, state: dict, games: _Games, clock: dict, state_file: Path) -> None:
    """The student and the run's state, each written to a temporary name and renamed; the games in
    flight are not kept (a resumed run starts new ones after them)."""
    from .shards import write_atomic

    tmp = ck.with_name("net.tmp.zip")
    student.save(str(tmp))
    tmp.replace(ck)
    now = time.perf_counter()
    state["seconds"] += now - clock["last"]
    clock["last"] = now
    state["games_started"] = int(games.next_game)
    write_atomic(state_file, json.dumps(state, indent=2))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.distill", description=__doc__.split("\n\n")[0])
    ap.add_argument("config")
    ap.add_argument("--out", default=None, help="run directory (default $V1919_RUNS/distill/<name>)")
    ap.add_argument("--minutes", type=float, default=None, help="stop after this many minutes (then --resume)")
    ap.add_argument("--resume", action="store_true", help="go on from the run in --out")
    ap.add_argument("--evaluate", type=int, default=0, metavar="GAMES",
                    help="then play the student alone against three rule bots, GAMES games, seats rotated")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        cfg = load_config(args.config)
        if args.minutes is not None and not args.minutes > 0:
            raise ConfigError(f"--minutes: a positive number, got {args.minutes}")
        if args.evaluate < 0 or args.evaluate % cfg.num_players:
            raise ConfigError(f"--evaluate: a multiple of the player count {cfg.num_players} (whole deals), "
                              f"got {args.evaluate}")
        out = out_dir(args.out, "distill", cfg.name)
        res = distill(cfg, out, args.minutes, args.resume, progress=not args.no_progress)
    except (ConfigError, ValueError) as e:
        raise SystemExit(f"error: {e}")
    if args.evaluate:
        from .fit import evaluate

        res["evaluation"] = evaluate(res["checkpoint"], args.evaluate, cfg.num_players)
        (Path(out) / "evaluation.json").write_text(json.dumps(res["evaluation"], indent=2))
    print(json.dumps({k: v for k, v in res.items() if k != "config"}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
