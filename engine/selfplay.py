"""A whole game played by bots inside the engine, producing a real game record.

Used by the contract test, the verifier's tests and the engine benchmark. The chain
tip and entropy come from the seed (via the dice hash), so a seed names one game; the
service instead draws them from the operating system.

Under dicepost-dice/v3 the seats are played as people play them: each sends its orders
(a bot's choice, keyed by the seed, written with the lines shuffled and in lower case, as
a person might), now and then a first version it then replaces, and gets a receipt of the
canonical text; a seat handed to the game's bot (`handovers`) is then played by the bot
with the bound key, and misses the rounds the missed-turn policy counts first. Each seat's
mails are kept as the evidence blocks they would carry (`SelfPlay.held`, engine.held).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.bots import BotKind, bot_orders
from engine.contract import JSON, PlayerId, Ruleset
from engine.dice import (
    PROFILE,
    PROFILE_V2,
    PROFILE_V3,
    Dice,
    H,
    bot_key,
    chain,
    check_profile,
    force_digest,
    game_salt,
    receipt,
    server_entropy,
    step_key,
    terms_digest,
    words_entropy,
)
from engine.held import invitation_evidence, joined_evidence, orders_evidence, results_evidence
from engine.orders import OrderErrors
from engine.record import build_record, step_hashes
from engine.registry import find_ruleset
from engine.steps import (
    StepResult,
    canonical_input,
    round_inputs,
    run_round,
    run_setup,
    setup_inputs,
)

HandedBy = Literal["gm", "missed_turns"]


@dataclass
class SelfPlay:
    record: dict[str, Any]
    results: list[StepResult]
    # v3: each seat's mails, as the evidence blocks they carry, in the order sent
    held: dict[str, list[str]] = field(default_factory=dict)
    # v3: (round, seat) -> the text the seat's player sent for their latest version
    sent: dict[tuple[int, str], str] = field(default_factory=dict)

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
    words: Mapping[str, str] | None = None,
    handovers: Mapping[str, tuple[int, HandedBy]] | None = None,
    bot_kind: BotKind = "greedy",
    missed_turns: int = 2,
    idle: Mapping[str, Sequence[int]] | None = None,
    revision: int | None = None,
) -> SelfPlay:
    """A whole game of bots under the ruleset's `revision` (None: the newest). Under v2
    (`profile`), the bots choose with the bound key, the inputs are canonical, every bot
    order set gets a version and its receipt, and the `server_made` seats get the entropy
    the service gives a seat that brings none.

    Under v3 the seats play as people (module doc): `words` gives a seat's entropy from the
    words it typed after JOIN; `handovers` hands a seat to the game's bot (`bot_kind`) from a
    round on, by the GM or by the missed-turn policy (after `missed_turns` missed rounds,
    which the seat then misses first); `idle` names rounds a seat sends nothing in."""
    check_profile(profile)
    if profile == PROFILE_V3:
        return _play_v3(ruleset_id, seed, players, options, forces, max_rounds, server_made,
                        words or {}, handovers or {}, bot_kind, missed_turns, idle or {}, revision)
    v2 = profile == PROFILE_V2
    ruleset, links, game_id, inputs = _start(ruleset_id, seed, players, options, forces, max_rounds, profile,
                                             revision)
    n = len(links) - 1
    entropy = {p: (server_entropy(links[0], game_id, p) if v2 and p in server_made
                   else H(profile, "selfplay-entropy", seed, p)[:16]) for p in players}
    salt = game_salt(game_id, entropy, profile)

    bot_rounds: list[dict[str, Any]] = []
    versions: list[dict[str, Any]] = []

    def orders(t: int, state: Any, expected: list[str]) -> dict[str, str]:
        texts: dict[str, str] = {}
        for p in expected:
            kind = (bots or {}).get(p, "greedy")
            if v2:
                text = bot_orders(ruleset, state, p, kind=kind, key=bot_key(links[t], salt, t, p))
                texts[p] = canonical_input(ruleset, state, p, text)
                bot_rounds.append({"round": t - 1, "seat": p, "kind": kind})
                versions.append({"round": t - 1, "seat": p, "version": 1, "at": "",
                                 "receipt": receipt(game_id, t - 1, p, 1, texts[p]).hex()})
            else:
                texts[p] = bot_orders(ruleset, state, p, seed, kind)
        return texts

    results = _rounds(ruleset, inputs, links, salt, profile, max_rounds, orders)
    result = results[-1]
    steps = [{**r.summary(), "key": links[r.t].hex()} for r in results]
    extra: dict[str, Any] = {"outcome": result.outcome}
    if v2:
        extra.update(server_made=[p for p in players if p in server_made], bots=bot_rounds,
                     versions=versions, gm_actions=[])
    record = build_record(game_id=game_id, ruleset=ruleset_id, commitment=links[0],
                          players=players, entropy=entropy, salt=salt, steps=steps,
                          chain_length=n, extra=extra, profile=profile)
    return SelfPlay(record, results)


def _rounds(ruleset: Ruleset[Any], inputs: JSON, links: list[bytes], salt: bytes, profile: str,
            max_rounds: int, orders: Callable[[int, Any, list[str]], dict[str, str]]) -> list[StepResult]:
    """Set up, then play rounds until the game ends or `max_rounds` have been played: step t
    takes `orders(t, state, expected)`, the seats' texts (a seat left out sends nothing)."""
    players = [str(p) for p in inputs["players"]]
    results = [run_setup(inputs, Dice(step_key(links[1], salt, 1, inputs, profile), 1, profile))]
    t = 1
    while results[-1].outcome is None and t <= max_rounds:
        t += 1
        before = results[-1]
        inputs_t = round_inputs(players, orders(t, ruleset.load(before.state), before.expected))
        results.append(run_round(ruleset.info.id, before.state, inputs_t, t,
                                 Dice(step_key(links[t], salt, t, inputs_t, profile), t, profile),
                                 revision=ruleset.revision))
    return results


def _start(ruleset_id: str, seed: str, players: Sequence[str], options: Mapping[str, Any] | None,
           forces: Mapping[str, Mapping[str, Any]] | None, max_rounds: int,
           profile: str, revision: int | None) -> tuple[Ruleset[Any], list[bytes], str, JSON]:
    """The ruleset at its revision, the chain (S_0 .. S_N) from the seed, the game id and the
    setup document."""
    ruleset = find_ruleset(ruleset_id, revision)
    opts = ruleset.options(options)
    chosen = {p: dict((forces or {}).get(p) or ruleset.default_force(i, opts))
              for i, p in enumerate(players)}
    links = chain(H(profile, "selfplay-tip", seed), max_rounds + 2, profile)
    return ruleset, links, f"selfplay-{ruleset_id}-{seed}", setup_inputs(ruleset_id, opts, players, chosen,
                                                                         ruleset.revision)


def _as_written(ruleset: Ruleset[Any], state: Any, player: PlayerId, text: str,
                shuffler: Dice) -> str:
    """The orders as a person might write them: in lower case, the lines shuffled, where the
    rules read them alike (else as they were)."""
    lines = [line.lower() for line in text.splitlines()]
    for attempt in (shuffler.shuffle(lines, "written"), lines):
        written = "\n".join(attempt)
        try:
            if (canonical_input(ruleset, state, player, written, PROFILE_V3)
                    == canonical_input(ruleset, state, player, text, PROFILE_V3)):
                return written
        except OrderErrors:
            continue
    return text


def _play_v3(ruleset_id: str, seed: str, players: Sequence[str], options: Mapping[str, Any] | None,
             forces: Mapping[str, Mapping[str, Any]] | None, max_rounds: int,
             server_made: Sequence[str], words: Mapping[str, str],
             handovers: Mapping[str, tuple[int, HandedBy]], bot_kind: BotKind,
             missed_turns: int, idle: Mapping[str, Sequence[int]], revision: int | None) -> SelfPlay:
    profile = PROFILE_V3
    ruleset, links, game_id, inputs = _start(ruleset_id, seed, players, options, forces, max_rounds, profile,
                                             revision)
    n = len(links) - 1
    by_policy = any(by == "missed_turns" for _r, by in handovers.values())
    terms: dict[str, Any] = {"ruleset": ruleset_id, "options": dict(inputs["options"]),
                             "seats": list(players), "bot": bot_kind,
                             "missed_turns": {"after": missed_turns, "action": "bot" if by_policy else "hold",
                                              "unreachable_after": None}}
    if "revision" in inputs:
        terms["revision"] = inputs["revision"]
    terms_t = terms_digest(game_id, terms)
    sources: dict[str, str] = {}
    entropy: dict[str, bytes] = {}
    for p in players:
        if p in server_made:
            entropy[p], sources[p] = server_entropy(links[0], game_id, p, profile), "server"
        elif p in words:
            entropy[p], sources[p] = words_entropy(game_id, p, words[p]), "words"
        else:
            entropy[p], sources[p] = H(profile, "selfplay-entropy", seed, p)[:16], "api"
    salt = game_salt(game_id, entropy, profile)
    held: dict[str, list[str]] = {p: [
        invitation_evidence(game_id, profile, links[0], terms_t, p, None),
        joined_evidence(game_id, profile, links[0], terms_t, p, 1, entropy[p], sources[p],
                        force_digest(game_id, p, inputs["forces"][p]), words.get(p), None)]
        for p in players}
    sent_texts: dict[tuple[int, str], str] = {}

    versions: list[dict[str, Any]] = []

    def orders(t: int, state: Any, expected: list[str]) -> dict[str, str]:
        rnd = t - 1
        texts: dict[str, str] = {}
        for p in expected:
            start, by = handovers.get(p, (0, "gm"))
            if start and rnd >= start:
                texts[p] = canonical_input(ruleset, state, p, bot_orders(
                    ruleset, state, p, kind=bot_kind, key=bot_key(links[t], salt, t, p, profile),
                    profile=profile), profile)
                continue
            if (start and by == "missed_turns" and rnd >= start - missed_turns) or rnd in idle.get(p, ()):
                continue  # the player sends nothing (the missed-turn policy counts the misses)
            shuffler = Dice(H(profile, "selfplay-written", seed, rnd, p), 0, profile)
            own = bot_orders(ruleset, state, p, seed)
            # every third round a first version, replaced before the round closed
            for version, text in enumerate(["pass", own] if rnd % 3 == 0 else [own], start=1):
                written = _as_written(ruleset, state, p, text, shuffler)
                counted = canonical_input(ruleset, state, p, written, profile)
                r = receipt(game_id, rnd, p, version, counted, profile)
                versions.append({"round": rnd, "seat": p, "version": version, "at": "", "receipt": r.hex()})
                held[p].append(orders_evidence(game_id, profile, p, rnd, version, r, written, counted, None))
                texts[p] = counted
                sent_texts[(rnd, p)] = written
        return texts

    results = _rounds(ruleset, inputs, links, salt, profile, max_rounds, orders)
    result = results[-1]
    steps = [{**r.summary(), "key": links[r.t].hex()} for r in results]
    extra: dict[str, Any] = {
        "outcome": result.outcome, "terms": terms,
        "server_made": [p for p in players if p in server_made],
        "handovers": [{"round": r, "seat": p, "to": "bot", "by": by, "at": ""}
                      for p, (r, by) in sorted(handovers.items(), key=lambda kv: (kv[1][0], kv[0]))],
        "versions": versions, "gm_actions": []}
    record = build_record(game_id=game_id, ruleset=ruleset_id, commitment=links[0],
                          players=players, entropy=entropy, salt=salt, steps=steps,
                          chain_length=n, extra=extra, profile=profile)
    for t, a in enumerate(step_hashes(record)[1:], start=1):
        for p in players:
            held[p].append(results_evidence(game_id, profile, t, a, None))
    return SelfPlay(record, results, held, sent_texts)
