"""The game record (`dicepost-record/1`): everything needed to recompute every roll.

Built in one place so that the service's `/record`, the engine's self-play and the
verifiers (`engine.verify`, `dicepost verify`, the page at `/verify`) agree on its shape.

Top level: format, profile, game_id, ruleset, revision (the rules revision the setup
document names; a record written before rulesets had revisions has neither and is
revision 1), commitment (S_0 hex), chain_length, players (seat order), entropy {player:
hex}, salt (G hex), steps, outcome (null while the game goes on), checksum. Each step:
t, inputs, key (the revealed S_t hex), inputs_digest (D_t hex), step_key (K_t hex), rolls
[{step, j, n, face, label}], events, state_hash, checksum.

A `dicepost-dice/v2` record also holds (docs/dice-spec.md, v2):
- `server_made`: the seats that joined without entropy (theirs is H(.., "server-made", S_0,
  game_id, p), recomputed by the verifiers);
- `bots`: [{round, seat, kind}] for every round a seat's orders were the bot's (chosen with
  the bound key, recomputed by the verifiers);
- `versions`: [{round, seat, version, at, receipt}] for every accepted version of every
  seat's orders (the texts of superseded versions stay private; the latest version's
  receipt is checked against the step's input);
- `gm_actions`: [{round, action, actor, at, detail}] every GM action that changed a round,
  and every extension the GM's missed-turn policy made (`round`: the one it bore on, named
  in its detail or open at that time; listed by the verifiers, not checkable: the player
  must trust or dispute them).

A `dicepost-dice/v3` record holds `server_made`, `versions` and `gm_actions` as v2 does
(versions: the players' own, never a bot's), and instead of `bots`:
- `terms`: {ruleset, revision (where the setup names one), options, seats, bot,
  missed_turns}: what every player holds the digest T of from the invitation on
  (engine.dice.terms_digest); the setup document must agree with it;
- `handovers`: [{round, seat, to, by, at}]: from `round` on, `seat` is played by the bot
  (`to` "bot", `by` "gm" or "missed_turns") or by a person again (`to` "player", `by`
  "player" for its own player, "replacement" for a new one). The rounds the bot played
  follow from them, and the verifiers recompute the bot's orders for each.
Its steps carry no new field: the running step hash A_t (`step_hashes`) is derived, as
D_t and K_t are, and each results mail carries the latest.

A game a GM rolled back (any profile) also holds `rollbacks` (engine.rollbacks): [{round,
at, by, reason, steps, versions, bots}], each with the steps it superseded, whole; a step
resolved after a rollback carries `link`, the chain link that keyed it (docs/dice-spec.md,
"Rollbacks").

`inputs_digest` and `step_key` are derived values, written so a player checking by hand
can compare each stage (docs/dice-spec.md) and a verifier can say which stage differs. The two
`checksum`s are plain SHA-256 over the canonical JSON of the rest of the step / record:
they catch a damaged or carelessly edited record, even in the parts a browser cannot
recompute without the rules (events, labels, state hashes). They do NOT stop a forger,
who can recompute them; what stops a forger is the committed chain (dice) and the
replay through the engine (rules).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from engine.dice import (
    DEFAULT_CHAIN_LENGTH,
    PROFILE,
    PROFILE_V2,
    PROFILE_V3,
    canonical,
    inputs_digest,
    step_hash_next,
    step_hash_start,
    step_key,
    terms_digest,
)
from engine.steps import setup_revision

RECORD_FORMAT = "dicepost-record/1"
CHECKSUM = "checksum"
V2_FIELDS = ("server_made", "bots", "versions", "gm_actions")
V3_LISTS = ("server_made", "handovers", "versions", "gm_actions")
V3_FIELDS = ("terms", *V3_LISTS)


def profile_fields(profile: str) -> tuple[str, ...]:
    """The fields a record of this profile carries beyond the v1 ones."""
    return {PROFILE_V2: V2_FIELDS, PROFILE_V3: V3_FIELDS}.get(profile, ())


def checksum(node: Mapping[str, Any]) -> str:
    """SHA-256 hex of the canonical JSON of `node` without its own `checksum` field."""
    return hashlib.sha256(canonical({k: v for k, v in node.items() if k != CHECKSUM})).hexdigest()


def seal_step(step: Mapping[str, Any], salt: bytes, profile: str = PROFILE) -> dict[str, Any]:
    """A step with its derived D_t, K_t and checksum (recomputed, never trusted)."""
    out = {k: v for k, v in step.items() if k != CHECKSUM}
    s_t = bytes.fromhex(str(step["key"]))
    t = int(step["t"])
    out["inputs_digest"] = inputs_digest(step["inputs"], profile).hex()
    out["step_key"] = step_key(s_t, salt, t, step["inputs"], profile).hex()
    out[CHECKSUM] = checksum(out)
    return out


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
    outcome: Mapping[str, Any] | None = None,
    extra: Mapping[str, Any] | None = None,
    profile: str = PROFILE,
) -> dict[str, Any]:
    """steps: each {"t", "inputs", "key" (hex S_t), "rolls", "events", "state_hash"}.

    `extra` fields are kept (the verifiers list them as not checked by the rules) and
    covered by the record checksum; an `outcome` given in `extra` is the same as the
    `outcome` argument. A v2 record always carries the V2_FIELDS and a v3 record the
    V3_LISTS (empty lists when nothing happened), so a verifier can tell "none" from "left
    out"; a v3 record's `terms` come in `extra`.
    """
    record: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "profile": profile,
        "game_id": game_id,
        "ruleset": ruleset,
        "commitment": commitment.hex(),
        "chain_length": chain_length,
        "players": list(players),
        "entropy": {p: entropy[p].hex() for p in players},
        "salt": salt.hex(),
        "steps": [seal_step(s, salt, profile) for s in steps],
        "outcome": dict(outcome) if outcome is not None else None,
    }
    if steps:
        record["revision"] = setup_revision(steps[0]["inputs"])
    if profile == PROFILE_V2:
        record.update({k: [] for k in V2_FIELDS})
    elif profile == PROFILE_V3:
        record.update({k: [] for k in V3_LISTS})
    record.update({k: v for k, v in (extra or {}).items() if k != CHECKSUM})
    record[CHECKSUM] = checksum(record)
    return record


def step_hashes(record: Mapping[str, Any]) -> list[bytes]:
    """[A_0, A_1, ..., A_n] of a v3 record (docs/dice-spec.md, v3): A_t is what the results
    mail of step t carries. Values are taken as the record states them (a verifier checks
    them first); raises KeyError or ValueError on a record without them."""
    a = step_hash_start(str(record["game_id"]), bytes.fromhex(record["commitment"]),
                        terms_digest(str(record["game_id"]), record["terms"]),
                        bytes.fromhex(record["salt"]))
    out = [a]
    for t, step in enumerate(record["steps"], start=1):
        a = step_hash_next(a, t, bytes.fromhex(checksum(step)))
        out.append(a)
    return out
