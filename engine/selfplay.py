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
from engine.dice import (
    PROFILE,
    PROFILE_V2,
    Dice,
    H,
    bot_key,
    chain,
    check_profile,
    game_salt,
    receipt,
    server_entropy,
    step_key,
)
from engine.record import build_record
from engine.registry import find_ruleset
from engine.steps import (
    StepResult,
    canonical_input,
    round_inputs,
    run_round,
    run_setup,
    setup_inputs,
)


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
    profile: str = PROFILE,
    server_made: Sequence[str] = (),
    revision: int | None = None,
) -> SelfPlay:
    """A whole game of bots under the ruleset's `revision` (None: the newest). Under v2
    (`profile`), the bots choose with the bound key, the inputs are canonical, every bot
    order set gets a version and its receipt, and the `server_made` seats get the entropy
    the service gives a seat that brings none."""
    check_profile(profile)
    v2 = profile == PROFILE_V2
    ruleset = find_ruleset(ruleset_id, revision)
    opts = ruleset.options(options)
    chosen = {p: dict((forces or {}).get(p) or ruleset.default_force(i, opts))
              for i, p in enumerate(players)}
    n = max_rounds + 2
    links = chain(H(profile, "selfplay-tip", seed), n, profile)
    game_id = f"selfplay-{ruleset_id}-{seed}"
    entropy = {p: (server_entropy(links[0], game_id, p) if v2 and p in server_made
                   else H(profile, "selfplay-entropy", seed, p)[:16]) for p in players}
    salt = game_salt(game_id, entropy, profile)

    results: list[StepResult] = []
    bot_rounds: list[dict[str, Any]] = []
    versions: list[dict[str, Any]] = []
    inputs = setup_inputs(ruleset_id, opts, players, chosen, ruleset.revision)
    result = run_setup(inputs, Dice(step_key(links[1], salt, 1, inputs, profile), 1, profile))
    results.append(result)
    t = 1
    while result.outcome is None and t <= max_rounds:
        t += 1
        state = ruleset.load(result.state)
        texts: dict[str, str] = {}
        for p in result.expected:
            kind = (bots or {}).get(p, "greedy")
            if v2:
                text = bot_orders(ruleset, state, p, kind=kind, key=bot_key(links[t], salt, t, p))
                texts[p] = canonical_input(ruleset, state, p, text)
                bot_rounds.append({"round": t - 1, "seat": p, "kind": kind})
                versions.append({"round": t - 1, "seat": p, "version": 1, "at": "",
                                 "receipt": receipt(game_id, t - 1, p, 1, texts[p]).hex()})
            else:
                texts[p] = bot_orders(ruleset, state, p, seed, kind)
        inputs_t = round_inputs(players, texts)
        result = run_round(ruleset_id, result.state, inputs_t, t,
                           Dice(step_key(links[t], salt, t, inputs_t, profile), t, profile),
                           revision=ruleset.revision)
        results.append(result)
    steps = [{**r.summary(), "key": links[r.t].hex()} for r in results]
    extra: dict[str, Any] = {"outcome": result.outcome}
    if v2:
        extra.update(server_made=[p for p in players if p in server_made], bots=bot_rounds,
                     versions=versions, gm_actions=[])
    record = build_record(game_id=game_id, ruleset=ruleset_id, commitment=links[0],
                          players=players, entropy=entropy, salt=salt, steps=steps,
                          chain_length=n, extra=extra, profile=profile)
    return SelfPlay(record, results)
