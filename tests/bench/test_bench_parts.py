"""The bench's pure parts (no timing is asserted anywhere): sizes every ruleset can field,
order choice, percentiles, the replayed rounds equal the recorded ones, the report renders."""

from __future__ import annotations

import random

import pytest

from bench.engine import bench_size, check, collect
from bench.forces import sizes
from bench.load import choose, percentile
from bench.report import render
from bench.targets import all_targets
from engine.registry import ruleset_ids


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_every_ruleset_fields_every_bench_size(ruleset_id: str) -> None:
    for size in sizes(ruleset_id):
        assert not size.refused, f"{ruleset_id} {size.label}: {size.refused}"


def test_replayed_rounds_match_the_recorded_states() -> None:
    size = sizes("universal")[0]
    cases, state_sizes = collect(size, 5)
    assert len(cases) >= 5 and state_sizes
    check(cases)  # raises if run_round gives another state than the game recorded


def test_choose_one_attack_and_moves_to_distinct_squares() -> None:
    def attack(unit: str, target: str) -> dict[str, str]:
        return {"text": f"{unit} attack {target}", "role": "attack", "target": target}

    def move(unit: str, square: str) -> dict[str, str]:
        return {"text": f"{unit} move {square}", "role": "move", "square": square}

    units = {"A1": [attack("A1", "B1"), move("A1", "c3")],
             "A2": [attack("A2", "B2"), move("A2", "c3"), move("A2", "d3")], "A3": [move("A3", "c3")]}
    lines = choose(units, random.Random(0))
    assert sum(" attack " in line for line in lines) == 1
    targets = [line.split()[-1] for line in lines if " move " in line]
    assert len(targets) == len(set(targets))


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 99) == 99.0
    assert percentile([3.0], 99) == 3.0


def test_the_report_renders_and_judges_the_engine_targets() -> None:
    row = bench_size(sizes("universal")[0], 3, 1)
    results = {"machine": {"date": "d", "command": "c", "nproc": 2, "cpu": "x", "load_at_start": "0 0 0",
                           "versions": {"python": "3"}},
               "engine": [row]}
    text = render(results)
    assert "universal" in text and "Targets" in text
    assert any("64 KB" in target for target, _, _ in all_targets(results))
