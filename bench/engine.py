"""Engine bench: per ruleset and size, seeded bot games; only the resolution is timed.

Games are played by engine.selfplay (bots, untimed). Then every round of every game is
resolved again with engine.steps.run_round from the recorded state, inputs and step key,
`repeat` times; the best pass counts (the one least disturbed by other processes). The
dice floor is the time to compute the same faces (same keys, j and sides) with
engine.dice.face alone. Single thread, so the figures are for one core.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from bench.forces import Size, sizes
from bench.progress import Progress
from engine.dice import Dice, canonical, face
from engine.registry import ruleset_ids
from engine.selfplay import play
from engine.steps import run_round


@dataclass(frozen=True)
class Case:
    """One round to resolve: everything run_round takes, and the hash it must give."""

    ruleset: str
    revision: int
    state: dict[str, Any]
    inputs: dict[str, str]
    t: int
    key: bytes
    sides: tuple[int, ...]
    state_hash: str


def collect(size: Size, min_rounds: int, max_rounds: int = 200) -> tuple[list[Case], list[int]]:
    """Rounds of seeded bot games until there are min_rounds; also every state's JSON size."""
    cases: list[Case] = []
    state_sizes: list[int] = []
    seed = 0
    while len(cases) < min_rounds:
        game = play(size.ruleset, f"bench-{seed}", players=size.players, options=size.options,
                    forces=size.forces, max_rounds=max_rounds)
        seed += 1
        steps = game.record["steps"]
        for prev, step, result in zip(game.results[:-1], steps[1:], game.results[1:], strict=True):
            cases.append(Case(size.ruleset, game.record["revision"], prev.state, step["inputs"], step["t"],
                              bytes.fromhex(step["step_key"]), tuple(r["n"] for r in step["rolls"]),
                              result.state_hash))
        state_sizes += [len(canonical(r.state)) for r in game.results]
        if seed > 50 and not cases:
            break
    return cases, state_sizes


def time_rounds(cases: list[Case]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) spent inside run_round."""
    wall = cpu = 0.0
    clock, cpu_clock = time.perf_counter, time.process_time
    for c in cases:
        dice = Dice(c.key, c.t)
        start, start_cpu = clock(), cpu_clock()
        run_round(c.ruleset, c.state, c.inputs, c.t, dice, revision=c.revision)
        wall += clock() - start
        cpu += cpu_clock() - start_cpu
    return wall, cpu


def time_dice(cases: list[Case]) -> tuple[float, float]:
    start, start_cpu = time.perf_counter(), time.process_time()
    for c in cases:
        for j, n in enumerate(c.sides):
            face(c.key, j, n)
    return time.perf_counter() - start, time.process_time() - start_cpu


def check(cases: list[Case]) -> None:
    """The timed path gives the recorded states (a bench of a wrong result means nothing)."""
    for c in cases:
        result = run_round(c.ruleset, c.state, c.inputs, c.t, Dice(c.key, c.t), revision=c.revision)
        if result.state_hash != c.state_hash:
            raise RuntimeError(f"{c.ruleset} step {c.t}: replay differs from the recorded state")


def bench_size(size: Size, min_rounds: int, repeat: int) -> dict[str, Any]:
    row: dict[str, Any] = {"ruleset": size.ruleset, "size": size.label}
    if size.refused:
        return {**row, "refused": size.refused}
    cases, state_sizes = collect(size, min_rounds)
    check(cases)
    rounds = len(cases)
    rolls = sum(len(c.sides) for c in cases)
    timings = [time_rounds(cases) for _ in range(repeat)]
    wall, cpu = min(w for w, _ in timings), min(c for _, c in timings)
    dice_timings = [time_dice(cases) for _ in range(repeat)]
    dice_wall, dice_cpu = min(w for w, _ in dice_timings), min(c for _, c in dice_timings)
    return {**row, "rounds": rounds, "rolls": rolls, "seconds": wall, "cpu_seconds": cpu,
            "rounds_per_s": rounds / wall, "rounds_per_cpu_s": rounds / cpu, "rolls_per_s": rolls / wall,
            "us_per_round": 1e6 * wall / rounds, "cpu_us_per_round": 1e6 * cpu / rounds,
            "dice_us_per_round": 1e6 * dice_wall / rounds, "dice_cpu_us_per_round": 1e6 * dice_cpu / rounds,
            "dice_share": dice_cpu / cpu,
            "state_bytes_max": max(state_sizes),
            "state_bytes_median": sorted(state_sizes)[len(state_sizes) // 2]}


def run(rulesets: list[str] | None, min_rounds: int, repeat: int) -> list[dict[str, Any]]:
    todo = [s for rid in (rulesets or ruleset_ids()) for s in sizes(rid)]
    bar = Progress("engine", len(todo))
    rows = []
    for size in todo:
        bar.update(bar.done, f"{size.ruleset} {size.label}")
        rows.append(bench_size(size, min_rounds, repeat))
        bar.advance()
    bar.close()
    return rows
