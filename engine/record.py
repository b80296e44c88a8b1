"""The game record (`dicepost-record/1`): everything needed to recompute every roll.

Built in one place so that the service's `/record`, the engine's self-play and the
verifiers agree on its shape.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.dice import DEFAULT_CHAIN_LENGTH, PROFILE

RECORD_FORMAT = "dicepost-record/1"


def build_record(
    *,
    game_id: str,
    ruleset: str,
    commitment: bytes,
    players: Sequence[str],
    entropy: Mapping[str, bytes],
    salt: bytes,
    steps: Sequence[Mapping[str, Any]],
    chain_length: int = DEFAULT_CHAIN_LENGTH,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """steps: each {"t", "inputs", "key" (hex S_t), "rolls", "events", "state_hash"}."""
    record: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "profile": PROFILE,
        "game_id": game_id,
        "ruleset": ruleset,
        "commitment": commitment.hex(),
        "chain_length": chain_length,
        "players": list(players),
        "entropy": {p: entropy[p].hex() for p in players},
        "salt": salt.hex(),
        "steps": [dict(s) for s in steps],
    }
    record.update(extra or {})
    return record
