"""A whole game played by bots inside the engine, producing a real game record.

Used by the contract test, the verifier's tests and the engine benchmark. The chain
tip and entropy come from the seed (via the dice hash), so a seed names one game; the
service instead draws them from the operating system.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.bots import BotKind, bot_orders
from engine.dice import PROFILE, Dice, H, chain, game_salt, step_key
from engine.record import build_record
from engine.registry import find_ruleset
from engine.steps import StepResult, round_inputs, run_round, run_setup, setup_inputs


@dataclass
class SelfPlay:
    record: dict[str, Any]
    results: list[StepResult]

    @property
    def final(self) -> StepResult:
        return self.results[-1]


def play(
    ruleset_id: str,
    seed: str,
    players: Sequence[str] = ("alice", "bob"),
    options: Mapping[str, Any] | None = None,
    forces: Mapping[str, Mapping[str, Any]] | None = None,
    max_rounds: int = 200,
    bots: Mapping[str, BotKind] | None = None,
) -> SelfPlay:
    ruleset = find_ruleset(ruleset_id)
    opts = ruleset.options(options)
    chosen = {p: dict((forces or {}).get(p) or ruleset.default_force(i, opts))
              for i, p in enumerate(players)}
    n = max_rounds + 2
    links = chain(H(PROFILE, "selfplay-tip", seed), n)
    entropy = {p: H(PROFILE, "selfplay-entropy", seed, p)[:16] for p in players}
    game_id = f"selfplay-{ruleset_id}-{seed}"
    salt = game_salt(game_id, entropy)

    results: list[StepResult] = []
    inputs = setup_inputs(ruleset_id, opts, players, chosen)
    result = run_setup(inputs, Dice(step_key(links[1], salt, 1, inputs), 1))
    results.append(result)
    t = 1
    while result.outcome is None and t <= max_rounds:
        t += 1
        state = ruleset.load(result.state)
        texts = {p: bot_orders(ruleset, state, p, seed, (bots or {}).get(p, "greedy"))
                 for p in result.expected}
        inputs_t = round_inputs(players, texts)
        result = run_round(ruleset_id, result.state, inputs_t, t,
                           Dice(step_key(links[t], salt, t, inputs_t), t))
        results.append(result)
    steps = [{**r.summary(), "key": links[r.t].hex()} for r in results]
    record = build_record(game_id=game_id, ruleset=ruleset_id, commitment=links[0],
                          players=players, entropy=entropy, salt=salt, steps=steps,
                          chain_length=n, extra={"outcome": result.outcome})
    return SelfPlay(record, results)
