"""The full check of a game record: every die, then every rule (docs/fair-dice.md).

`verify(record)` checks, in this order, and names the first thing that differs:

1. the record's shape: format, profile, players, lowercase hex of the right lengths;
2. the salt G from the game id and every player's entropy (docs/dice-spec.md "Salt");
3. for every step t: the revealed S_t against the previous link (H(S_t) = S_{t-1},
   from the commitment S_0), the inputs' digest D_t, the step key K_t, and every roll
   (its step, its number j, its sides n, and its face recomputed by rejection sampling);
4. the same step re-run through the engine (`engine.stepcheck`) under the rules revision
   the setup names (1 when it names none; the record's `revision` must say the same): the
   rolls the rules ask for, with their labels, every event and the state hash;
5. each step's checksum, the outcome and the record's checksum.

A `dicepost-dice/v2` record (the record names its profile) is also checked for what v2
binds (docs/dice-spec.md): every seat marked server-made has the entropy fixed by S_0;
every input is the canonical text of its orders (parse, then format: a respelling or
`pass` for "" is named); every seat the bot played has the orders the bot makes with the
bound key; the latest version's receipt of every seat and round is the receipt of the
step's input. With what a player holds (`Held`: the commitment they were shown, their
entropy, their receipts) it also checks that the record is the game they joined and that
it counts the latest text they were given a receipt for. Server-made seats, bot rounds
and GM actions are listed in the report either way.

A `dicepost-dice/v3` record is checked for what v3 binds too: the canonical text sorted by
the ruleset's reading order; the seats read in the record's `players` order; no orders for
a seat the round does not expect; the terms (and the setup document against them); the
bot's rounds from the hand-overs (each by the GM, listed, or by the missed-turn policy,
whose misses are counted), every one of them recomputed; the running step hash A_t. With
what a player holds from their mails (engine.held) also: the terms T and their force,
where their entropy came from ("I gave none" against a seat the record says brought its
own, and the reverse; words recomputed), every input of their seat without one of their
receipts ("these are all my orders"), the text they sent as the rules read it, and the
step hash of their latest results mail (a shorter or different record fails). A game where
no seat brought its own entropy is said in `cautions`: the checks hold, but only the host
chose its dice.

Checks 1-3 and 5's checksums are exactly what the browser page
(templates/verify/verifier.html) does with WebCrypto, in the same order and with the same
names for places, so both verifiers name the same first difference for anything but the
rules. Checking goes on past a difference where it can (every step gets a row), and the
rules replay goes on from the recomputed state; a record whose shape is broken stops at
the broken place.

Pure standard library: the CLI (`dicepost verify`) only reads the file or URL.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.bots import bot_orders
from engine.contract import InvariantError, RulesError
from engine.dice import (
    PROFILE_V2,
    PROFILE_V3,
    PROFILES,
    Dice,
    H,
    bot_key,
    face,
    force_digest,
    game_salt,
    inputs_digest,
    receipt,
    server_entropy,
    step_hash_next,
    step_hash_start,
    step_key,
    terms_digest,
    words_entropy,
)
from engine.gmlog import action_text
from engine.held import Held
from engine.orders import OrderErrors
from engine.record import CHECKSUM, RECORD_FORMAT, V2_FIELDS, V3_LISTS, checksum, profile_fields
from engine.registry import find_ruleset
from engine.rollbacks import Played, history, rollback_text, shape_problem
from engine.stepcheck import (
    Difference,
    RecordError,
    compare_step,
    run_recorded_step,
    same_json,
    show_json,
)
from engine.steps import canonical_input, setup_revision
from engine.strictjson import parse_strict

__all__ = ["Held", "RecordError", "RollRow", "StepRow", "Verification", "parse_record", "round_state",
           "verify"]

RECORD_FIELDS = ("format", "profile", "game_id", "ruleset", "commitment", "chain_length",
                 "players", "entropy", "salt", "steps", CHECKSUM)
OPTIONAL_RECORD_FIELDS = ("outcome", "revision", "rollbacks")
STEP_FIELDS = ("t", "key", "inputs", "inputs_digest", "step_key", "rolls", "events",
               "state_hash", CHECKSUM)
STEP_OPTIONAL = ("link",)  # the chain link, when a rollback made it other than t
ROLL_FIELDS = ("step", "j", "n", "face", "label")
BOT_KINDS = ("greedy", "random")
TERMS_FIELDS = ("bot", "missed_turns", "options", "ruleset", "seats")
TERMS_OPTIONAL = ("revision",)
MISSED_TURN_ACTIONS = ("hold", "extend", "bot", "replace")
HANDOVER_BY = {"bot": ("gm", "missed_turns"), "player": ("player", "replacement")}
HOST_ONLY = ("only the host chose these dice: no seat brought its own entropy (every seat's is "
             "server-made), so whoever picked the chain's tip knew the salt before publishing "
             "the commitment")
MAX_SIDES = 2**32 - 1
BotRounds = dict[int, dict[str, str]]  # round -> seat -> the bot's kind
Versions = dict[tuple[int, str], list[tuple[int, bytes]]]  # (round, seat) -> [(version, receipt)]
_HEX = re.compile(r"(?:[0-9a-f]{2})+\Z")


@dataclass(frozen=True)
class RollRow:
    j: int
    n: Any
    face: Any  # as recorded
    expected: int | None  # recomputed from K_t, None when n is not a die
    label: Any
    ok: bool

    def to_json(self) -> dict[str, Any]:
        return {"j": self.j, "n": self.n, "face": self.face, "expected": self.expected,
                "label": self.label, "ok": self.ok}


@dataclass
class StepRow:
    """One line of the table: None means not checked (an earlier break, or no replay)."""

    t: int
    link: int = 0  # the chain link S_l that keyed the step's dice (t unless a rollback came before)
    superseded: int | None = None  # the rollback (from 1) that superseded the step; None: it stands
    revealed: str = ""  # S_t hex as recorded
    chain: bool | None = None
    inputs_digest: str = ""  # D_t recomputed
    step_key: str = ""  # K_t recomputed
    keys: bool | None = None  # recorded D_t and K_t match recomputation
    rolls: list[RollRow] = field(default_factory=list)
    rules: bool | None = None  # events, labels and state hash after replay
    events: int | None = None
    state_hash: str = ""
    checksum: bool | None = None
    step_hash: str = ""  # v3: A_t recomputed
    differences: int = 0

    @property
    def rolls_ok(self) -> bool:
        return all(r.ok for r in self.rolls)

    @property
    def ok(self) -> bool:
        return self.differences == 0 and None not in (self.chain, self.keys, self.rules,
                                                        self.checksum)

    def to_json(self) -> dict[str, Any]:
        return {"t": self.t, "link": self.link, "superseded": self.superseded,
                "key": self.revealed, "chain": self.chain,
                "inputs_digest": self.inputs_digest, "step_key": self.step_key,
                "keys": self.keys, "rolls_ok": self.rolls_ok, "rules": self.rules,
                "events": self.events, "state_hash": self.state_hash,
                "checksum": self.checksum, "step_hash": self.step_hash, "ok": self.ok,
                "rolls": [r.to_json() for r in self.rolls]}


@dataclass
class Verification:
    game_id: str = ""
    ruleset: str = ""
    revision: int | None = None  # the rules revision the setup names (1 if it names none)
    commitment: str = ""
    salt: str = ""  # recomputed from the entropy
    salt_ok: bool | None = None
    steps: list[StepRow] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)  # fields only the checksum covers
    replayed: bool = False  # every step went through the engine
    complete: bool = False  # checking reached the record checksum
    final_state: dict[str, Any] | None = None
    profile: str = ""
    server_made: list[str] = field(default_factory=list)  # seats whose entropy adds nothing
    bots: list[dict[str, Any]] = field(default_factory=list)  # {round, seat, kind}
    gm_actions: list[Any] = field(default_factory=list)  # listed, not checkable
    held: list[str] = field(default_factory=list)  # what the player's own values confirmed
    terms: str = ""  # v3: T recomputed from the record's terms
    handovers: list[dict[str, Any]] = field(default_factory=list)  # v3: as the record lists them
    rollbacks: list[str] = field(default_factory=list)  # each rollback in words (engine.rollbacks)
    # What holds but weakens what the checks mean, or was left out for want of what the
    # player holds: the verifiers say it in amber, never plain OK.
    cautions: list[str] = field(default_factory=list)

    @property
    def difference(self) -> Difference | None:
        return self.differences[0] if self.differences else None

    @property
    def ok(self) -> bool:
        return not self.differences and self.complete and self.replayed

    @property
    def rolls(self) -> int:
        return sum(len(s.rolls) for s in self.steps)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok, "game_id": self.game_id, "ruleset": self.ruleset,
            "revision": self.revision, "commitment": self.commitment, "salt": self.salt,
            "salt_ok": self.salt_ok,
            "first_difference": self.difference.to_json() if self.difference else None,
            "differences": [d.to_json() for d in self.differences],
            "unchecked": self.unchecked, "replayed": self.replayed, "profile": self.profile,
            "server_made": self.server_made, "bots": self.bots, "gm_actions": self.gm_actions,
            "gm_action_texts": [action_text(a) for a in self.gm_actions],
            "held": self.held, "terms": self.terms, "handovers": self.handovers,
            "rollbacks": self.rollbacks,
            "cautions": self.cautions,
            "steps": [s.to_json() for s in self.steps],
        }


class _Stop(Exception):
    """The record is broken where checking cannot go on."""


def parse_record(data: bytes | str) -> Any:
    """Read a record's JSON strictly, as the page does (engine.strictjson)."""
    return parse_strict(data, "the record")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class _Checker:
    def __init__(self, record: Any, held: Held | None) -> None:
        self.record = record
        self.held = held or Held()
        self.v = Verification()
        self.row: StepRow | None = None
        self.profile = ""
        self.commitment = b""
        self.bot_rounds: dict[int, dict[str, str]] = {}
        self.versions: dict[tuple[int, str], list[tuple[int, bytes]]] = {}
        self.players: list[str] = []
        self.terms: dict[str, Any] = {}
        self.terms_t = b""
        # v3: seat -> [(first round, by)] in round order: who plays the seat from then on
        self.turns: dict[str, list[tuple[int, str, str]]] = {}
        self.misses: dict[str, int] = {}  # v3: the seat's missed rounds in a row so far
        self.step_hash = b""  # v3: A_t so far
        self.played: list[Played] = []  # every step in the order its link was revealed
        # rollback (from 1) -> the bot rounds and versions of the rounds it superseded
        self.superseded: dict[int, tuple[BotRounds, Versions]] = {}

    def diff(self, step: int, where: str, expected: str, found: Any) -> None:
        difference = Difference(step, where, expected, show_json(found))
        if difference in self.v.differences:  # the replay meets a face the dice check named
            return
        self.v.differences.append(difference)
        if self.row is not None and step == self.row.t:
            self.row.differences += 1

    def stop(self, step: int, where: str, expected: str, found: Any) -> _Stop:
        self.diff(step, where, expected, found)
        return _Stop()

    def hex(self, node: Mapping[str, Any], key: str, step: int, where: str,
            sizes: range = range(32, 33)) -> bytes:
        value = node.get(key)
        want = (f"{sizes.start} bytes" if len(sizes) == 1
                else f"{sizes.start} to {sizes.stop - 1} bytes")
        if (not isinstance(value, str) or not _HEX.match(value)
                or len(value) // 2 not in sizes):
            raise self.stop(step, where, f"lowercase hex of {want}",
                            "missing" if key not in node else value)
        return bytes.fromhex(value)

    # -- the record as a whole ---------------------------------------------------------

    def header(self) -> tuple[bytes, bytes, list[str]]:
        r = self.record
        if not isinstance(r, dict):
            raise self.stop(0, "record", "a JSON object", type(r).__name__)
        for key in RECORD_FIELDS:
            if key not in r:
                raise self.stop(0, key, "a field", "missing")
        if r["format"] != RECORD_FORMAT:
            raise self.stop(0, "format", RECORD_FORMAT, r["format"])
        if r["profile"] not in PROFILES:
            raise self.stop(0, "profile", " or ".join(PROFILES), r["profile"])
        self.profile = self.v.profile = r["profile"]
        for key in ("game_id", "ruleset"):
            if not isinstance(r[key], str) or not r[key]:
                raise self.stop(0, key, "text", r[key])
        self.v.game_id, self.v.ruleset = r["game_id"], r["ruleset"]
        commitment = self.hex(r, "commitment", 0, "commitment")
        self.commitment = commitment
        self.v.commitment = commitment.hex()
        players = r["players"]
        if (not isinstance(players, list) or not players
                or not all(isinstance(p, str) and p for p in players)
                or len(set(players)) != len(players)):
            raise self.stop(0, "players", "a list of distinct player ids", players)
        entropy = r["entropy"]
        if not isinstance(entropy, dict) or sorted(entropy) != sorted(players):
            raise self.stop(0, "entropy", "one entropy per player: " + ", ".join(players),
                            sorted(entropy) if isinstance(entropy, dict) else entropy)
        values = {p: self.hex(entropy, p, 0, f"entropy of {p}", range(16, 65)) for p in players}
        self.players = players
        self.held_header(commitment, values)
        self.profile_header(players, values)
        recorded_salt = self.hex(r, "salt", 0, "salt")
        salt = game_salt(r["game_id"], values, self.profile)
        self.v.salt = salt.hex()
        self.v.salt_ok = recorded_salt == salt
        if not self.v.salt_ok:
            self.diff(0, "salt", f"G from game_id and entropy = {salt.hex()}", recorded_salt.hex())
        steps = r["steps"]
        if not isinstance(steps, list):
            raise self.stop(0, "steps", "a list of steps", steps)
        self.played = self.history(r, steps)
        n = r["chain_length"]
        if not _is_int(n) or not len(self.played) <= n < 2**32:
            raise self.stop(0, "chain_length", f"a whole number of at least {len(self.played)} steps", n)
        self.hex(r, CHECKSUM, 0, CHECKSUM)
        if self.profile == PROFILE_V3:
            self.v3_start(commitment, salt)
        return commitment, salt, players

    def history(self, r: dict[str, Any], steps: list[Any]) -> list[Played]:
        """The steps in the order their links were revealed: the record's own, or with its
        rollbacks the whole history checked (engine.rollbacks)."""
        if "rollbacks" not in r and not any(isinstance(s, dict) and "link" in s for s in steps):
            return [Played(s, t, t, None, None) for t, s in enumerate(steps, start=1)]
        problem = shape_problem(r)
        played: list[Played] = []
        if problem is None:
            played, problem = history(r)
        if problem is not None:
            raise self.stop(problem.step, problem.where, problem.expected, problem.found)
        self.v.rollbacks = [rollback_text(k, rb) for k, rb in enumerate(r.get("rollbacks", []), start=1)]
        return played

    def profile_header(self, players: list[str], entropy: dict[str, bytes]) -> None:
        """What the record's profile adds to the header."""
        if self.profile == PROFILE_V3:
            self.v3_header(players, entropy)
        elif self.profile == PROFILE_V2:
            self.v2_header(players, entropy)
        if self.profile in (PROFILE_V2, PROFILE_V3) and all(p in self.v.server_made for p in players):
            self.v.cautions.append(HOST_ONLY)

    def v3_start(self, commitment: bytes, salt: bytes) -> None:
        """A_0: the game, its chain, its terms and everyone's entropy."""
        self.step_hash = step_hash_start(self.v.game_id, commitment, self.terms_t, salt)

    def held_header(self, commitment: bytes, entropy: dict[str, bytes]) -> None:
        """The commitment and entropy the player holds against the record's."""
        for conflict in self.held.conflicts:  # the host told the player two things
            self.diff(0, "your mails", "one value of each thing they hold", conflict)
        if self.held.commitment is not None:
            if self.held.commitment != commitment:
                self.diff(0, "commitment", f"the commitment you hold, {self.held.commitment.hex()}",
                          commitment.hex())
            else:
                self.v.held.append("commitment S_0")
        for p, mine in sorted(self.held.entropy.items()):
            if p not in entropy:
                self.diff(0, f"entropy of {p}", "your seat in the record", "no such seat")
            elif entropy[p] != mine:
                self.diff(0, f"entropy of {p}", f"the entropy you hold, {mine.hex()}",
                          entropy[p].hex())
            else:
                self.v.held.append(f"entropy of {p}")

    def v2_header(self, players: list[str], entropy: dict[str, bytes],
                  lists: tuple[str, ...] = V2_FIELDS) -> None:
        """The lists of v2 (and v3, whose `lists` have no `bots`): server-made seats
        (recomputed here), bot rounds and versions (kept for the steps), GM actions (listed)."""
        r = self.record
        for key in lists:
            if not isinstance(r.get(key), list):
                raise self.stop(0, key, f"a list ({self.profile.rpartition('/')[2]} records carry it, "
                                "empty or not)", r.get(key, "missing"))
        for p in r["server_made"]:
            if p not in entropy:
                self.diff(0, "server_made", "seats of the game", p)
                continue
            made = server_entropy(self.commitment, self.v.game_id, p, self.profile)
            self.v.server_made.append(p)
            if entropy[p] != made:
                self.diff(0, f"entropy of {p} (server-made)",
                          f"H(server-made, S_0, game_id, {p}) = {made.hex()}", entropy[p].hex())
        self.bot_rounds, self.versions = self.round_lists(r, "", players, "bots" in lists, True)
        for k, rb in enumerate(r.get("rollbacks") or [], start=1):
            if isinstance(rb, dict):  # its shape is checked with the steps
                self.superseded[k] = self.round_lists(rb, f"rollback {k} ", players, "bots" in lists, False)
        self.v.gm_actions = list(r["gm_actions"])
        steps = r.get("steps")
        resolved = len(steps) - 1 if isinstance(steps, list) else 0
        for rnd, seat in sorted(self.versions):
            if rnd > resolved:
                self.diff(0, f"versions of {seat} in round {rnd}", "resolved rounds only",
                          f"round {rnd}")
        for rnd, seat in sorted(self.held.latest()):
            if rnd > resolved:
                self.diff(0, f"your receipt of {seat} in round {rnd}", "a resolved round",
                          f"round {rnd} is not resolved in this record")

    def round_lists(self, node: Mapping[str, Any], where: str, players: list[str], bots: bool,
                    listed: bool) -> tuple[BotRounds, Versions]:
        """The bot rounds and versions a record (or one of its rollbacks, whose rounds were
        superseded) lists; `listed`: shown in the report."""
        bot_rounds: BotRounds = {}
        versions: Versions = {}
        for key in ("bots", "versions") if where else ():
            if not isinstance(node.get(key, []), list):
                raise self.stop(0, f"{where}{key}", "a list", node.get(key))
        for i, bot in enumerate(node.get("bots", []) if bots else []):
            if (not isinstance(bot, dict) or sorted(bot) != ["kind", "round", "seat"]
                    or not _is_int(bot["round"]) or bot["round"] < 1
                    or bot["seat"] not in players or bot["kind"] not in BOT_KINDS):
                raise self.stop(0, f"{where}bots {i}", "{round, seat, kind} of a seat the bot played",
                                bot)
            bot_rounds.setdefault(bot["round"], {})[bot["seat"]] = bot["kind"]
            if listed:
                self.v.bots.append(dict(bot))
        for i, ver in enumerate(node.get("versions", [])):
            if (not isinstance(ver, dict) or sorted(ver) != ["at", "receipt", "round", "seat",
                                                             "version"]
                    or not _is_int(ver["round"]) or ver["round"] < 1
                    or not _is_int(ver["version"]) or ver["version"] < 1
                    or ver["seat"] not in players or not isinstance(ver["at"], str)):
                raise self.stop(0, f"{where}versions {i}", "{round, seat, version, at, receipt}", ver)
            r_hex = self.hex(ver, "receipt", 0, f"{where}versions {i} receipt")
            same = versions.setdefault((ver["round"], ver["seat"]), [])
            if any(v == ver["version"] for v, _ in same):
                self.diff(0, f"{where}versions {i}", "each version once", ver)
            same.append((ver["version"], r_hex))
        for same in versions.values():
            same.sort()
        return bot_rounds, versions

    def v3_header(self, players: list[str], entropy: dict[str, bytes]) -> None:
        """The v3 fields: the terms (against the digest the player holds), the lists as in
        v2 without `bots`, and the hand-overs (the bot's rounds follow from them)."""
        r = self.record
        self.v3_terms(players)
        latest, steps = self.held.latest_step, r.get("steps")
        if isinstance(steps, list) and latest > len(steps):
            self.diff(0, "steps", f"at least {latest} steps (your results mail of step {latest})",
                      f"{len(steps)} steps")
        self.v2_header(players, entropy, V3_LISTS)
        self.v3_entropy(entropy)
        for i, h in enumerate(r["handovers"]):
            if (not isinstance(h, dict) or sorted(h) != ["at", "by", "round", "seat", "to"]
                    or not _is_int(h["round"]) or h["round"] < 1 or h["seat"] not in players
                    or h["to"] not in HANDOVER_BY or h["by"] not in HANDOVER_BY[h["to"]]
                    or not isinstance(h["at"], str)):
                raise self.stop(0, f"handovers {i}", "{round, seat, to (bot or player), by, at}", h)
            turns = self.turns.setdefault(h["seat"], [])
            now = turns[-1][1] if turns else "player"
            if turns and h["round"] < turns[-1][0]:
                self.diff(0, f"handovers {i}", "hand-overs in round order", h)
            elif now == h["to"] and h["by"] != "replacement":
                self.diff(0, f"handovers {i}", f"a change of who plays {h['seat']}",
                          f"{h['seat']} is played by the {now} already")
            turns.append((h["round"], h["to"], h["by"]))
            self.v.handovers.append(dict(h))
        steps = r.get("steps")
        resolved = len(steps) - 1 if isinstance(steps, list) else 0
        for seat, turns in sorted(self.turns.items()):
            for rnd, _to, _by in turns:
                if rnd > resolved + 1:
                    self.diff(0, f"handovers of {seat}", "rounds resolved or open",
                              f"round {rnd}")

    def v3_terms(self, players: list[str]) -> None:
        r = self.record
        terms = r.get("terms")
        if (not isinstance(terms, dict)
                or not set(TERMS_FIELDS) <= set(terms) <= {*TERMS_FIELDS, *TERMS_OPTIONAL}):
            raise self.stop(0, "terms", "{" + ", ".join(TERMS_FIELDS) + "[, revision]}", terms)
        if terms["ruleset"] != self.v.ruleset:
            self.diff(0, "terms ruleset", self.v.ruleset, terms["ruleset"])
        if terms["seats"] != players:
            self.diff(0, "terms seats", show_json(players), terms["seats"])
        if terms["bot"] not in BOT_KINDS:
            self.diff(0, "terms bot", " or ".join(BOT_KINDS), terms["bot"])
        if not isinstance(terms["options"], dict):
            self.diff(0, "terms options", "the game's options", terms["options"])
        policy = terms["missed_turns"]
        if policy is not None and (
                not isinstance(policy, dict)
                or sorted(policy) != ["action", "after", "unreachable_after"]
                or policy["action"] not in MISSED_TURN_ACTIONS
                or not _is_int(policy["after"]) or policy["after"] < 1
                or not (policy["unreachable_after"] is None
                        or (_is_int(policy["unreachable_after"]) and policy["unreachable_after"] >= 1))):
            raise self.stop(0, "terms missed_turns",
                            "null or {after, action, unreachable_after}", policy)
        try:
            self.terms_t = terms_digest(self.v.game_id, terms)
        except (TypeError, ValueError) as exc:
            raise self.stop(0, "terms", "JSON without floats", f"error: {exc}") from None
        self.terms = terms
        self.v.terms = self.terms_t.hex()
        if self.held.terms is not None:
            if self.held.terms != self.terms_t:
                self.diff(0, "terms", f"the terms you hold, T = {self.held.terms.hex()}",
                          f"T = {self.terms_t.hex()}")
            else:
                self.v.held.append("terms T")

    def v3_entropy(self, entropy: dict[str, bytes]) -> None:
        """Where each seat's entropy came from, against what the player says they gave."""
        for p, source in sorted(self.held.sources.items()):
            if p not in entropy:
                continue
            made = p in self.v.server_made
            if source == "server" and not made:
                self.diff(0, f"entropy of {p}", "server-made: you gave none (your join mail)",
                          "entropy the record says the player gave")
            elif source != "server" and made:
                self.diff(0, f"entropy of {p}", f"the entropy you gave ({source})", "marked server-made")
            elif source == "server":
                self.v.held.append(f"entropy of {p} (server-made: you gave none)")
        for p, words in sorted(self.held.words.items()):
            if p in entropy and words_entropy(self.v.game_id, p, words) != entropy[p]:
                self.diff(0, f"entropy of {p}", f"from the words you typed, "
                          f"{words_entropy(self.v.game_id, p, words).hex()}", entropy[p].hex())

    def plays(self, seat: str, rnd: int) -> tuple[str, str]:
        """v3: who plays `seat` in round `rnd` ("player" or "bot") and the hand-over's `by`."""
        now = ("player", "")
        for first, to, by in self.turns.get(seat, []):
            if first <= rnd:
                now = (to, by)
        return now

    def first_round(self, seat: str) -> int:
        """v3: the first round the holder of this seat plays: their join's, or a replacement's
        after it."""
        return self.held.first_round.get(seat, 1)

    def replaced(self, seat: str, rnd: int) -> bool:
        """v3: a replacement took the seat after its holder joined, before round `rnd`."""
        first = self.first_round(seat)
        return any(by == "replacement" and first < r <= rnd for r, _to, by in self.turns.get(seat, []))

    # -- one step: the dice ------------------------------------------------------------

    def step_dice(self, t: int, step: Any, previous: bytes, salt: bytes,
                  players: list[str], link: int) -> tuple[bytes, bytes]:
        """Check step t's chain link (S_link: t, unless a rollback came before), inputs, key
        and rolls; return (S_link, K_t)."""
        if self.row is None:
            raise InvariantError("step_dice before the step's row")
        row = self.row
        if not isinstance(step, dict):
            raise self.stop(t, "step", "a JSON object", step)
        for key in STEP_FIELDS:
            if key not in step:
                raise self.stop(t, key, "a field", "missing")
        for key in sorted(step):
            if key not in (*STEP_FIELDS, *STEP_OPTIONAL):
                self.diff(t, f"field {key}", "no such field", step[key])
        if not _is_int(step["t"]) or step["t"] != t:
            raise self.stop(t, "t", str(t), step["t"])
        s_t = self.hex(step, "key", t, "key (S_t)")
        row.revealed = s_t.hex()
        hashed = H(self.profile, "chain", s_t)
        row.chain = hashed == previous
        if not row.chain:
            self.diff(t, "chain", f"H(S_{link}) = S_{link - 1} = {previous.hex()}",
                      f"H(S_{link}) = {hashed.hex()}")
        inputs = step["inputs"]
        self.inputs_shape(t, inputs, players)
        try:
            d_t = inputs_digest(inputs, self.profile)
        except (TypeError, ValueError) as exc:  # a record handed over as a dict, not parsed
            raise self.stop(t, "inputs", "JSON without floats", f"error: {exc}") from None
        k_t = step_key(s_t, salt, t, inputs, self.profile)
        row.inputs_digest, row.step_key = d_t.hex(), k_t.hex()
        recorded_d = self.hex(step, "inputs_digest", t, "inputs_digest (D_t)")
        recorded_k = self.hex(step, "step_key", t, "step_key (K_t)")
        row.keys = True
        if recorded_d != d_t:
            row.keys = False
            self.diff(t, "inputs_digest (D_t)", f"H(inputs) = {d_t.hex()}", recorded_d.hex())
        if recorded_k != k_t:
            row.keys = False
            self.diff(t, "step_key (K_t)", f"M(S_{t}, step, G, {t}, D_{t}) = {k_t.hex()}",
                      recorded_k.hex())
        rolls = step["rolls"]
        if not isinstance(rolls, list):
            raise self.stop(t, "rolls", "a list of rolls", rolls)
        for j, roll in enumerate(rolls):
            row.rolls.append(self.roll(t, j, roll, k_t))
        return s_t, k_t

    def inputs_shape(self, t: int, inputs: Any, players: list[str]) -> None:
        if t == 1:
            if not isinstance(inputs, dict):
                raise self.stop(t, "inputs", "the setup document", inputs)
            if inputs.get("ruleset") != self.v.ruleset:
                self.diff(t, "inputs ruleset", self.v.ruleset, inputs.get("ruleset", "missing"))
            if inputs.get("players") != players:
                self.diff(t, "inputs players", show_json(players), inputs.get("players", "missing"))
            try:
                self.v.revision = setup_revision(inputs)
            except RulesError:
                self.diff(t, "inputs revision", "a whole number from 1", inputs["revision"])
                return
            stated = self.record.get("revision", self.v.revision)
            if not _is_int(stated) or stated != self.v.revision:
                self.diff(0, "revision", f"{self.v.revision}, the setup's", stated)
            if self.profile == PROFILE_V3:
                self.v3_setup(t, inputs)
            return
        if (not isinstance(inputs, dict) or sorted(inputs) != sorted(players)
                or not all(isinstance(v, str) for v in inputs.values())):
            raise self.stop(t, "inputs", "every player's order text: " + ", ".join(players), inputs)

    def v3_setup(self, t: int, inputs: dict[str, Any]) -> None:
        """The setup document against the terms, and each force the player holds."""
        if not same_json(inputs.get("options"), self.terms.get("options")):
            self.diff(t, "inputs options", f"the terms' options {show_json(self.terms.get('options'))}",
                      inputs.get("options", "missing"))
        if inputs.get("revision") != self.terms.get("revision"):
            self.diff(t, "inputs revision", f"the terms' revision {self.terms.get('revision')}",
                      inputs.get("revision", "missing"))
        forces = inputs.get("forces")
        for p, mine in sorted(self.held.forces.items()):
            force = forces.get(p) if isinstance(forces, dict) else None
            try:
                theirs = force_digest(self.v.game_id, p, force)
            except (TypeError, ValueError):
                theirs = b""
            if theirs != mine:
                self.diff(t, f"inputs forces {p}", f"the force you joined with, F = {mine.hex()}",
                          f"F = {theirs.hex()}" if theirs else show_json(force))
            else:
                self.v.held.append(f"force of {p}")

    def roll(self, t: int, j: int, roll: Any, k_t: bytes) -> RollRow:
        where = f"roll {j}"
        if not isinstance(roll, dict):
            raise self.stop(t, where, "a JSON object", roll)
        for key in ROLL_FIELDS:
            if key not in roll:
                raise self.stop(t, f"{where} {key}", "a field", "missing")
        ok = True
        for key in sorted(roll):
            if key not in ROLL_FIELDS:
                ok = False
                self.diff(t, f"{where} field {key}", "no such field", roll[key])
        for key, want in (("step", t), ("j", j)):
            if not _is_int(roll[key]) or roll[key] != want:
                ok = False
                self.diff(t, f"{where} {key}", str(want), roll[key])
        n = roll["n"]
        expected = None
        if not _is_int(n) or not 1 <= n <= MAX_SIDES:
            ok = False
            self.diff(t, f"{where} n", f"1 to {MAX_SIDES} sides", n)
        else:
            expected = face(k_t, j, n, self.profile)
            if not _is_int(roll["face"]) or roll["face"] != expected:
                ok = False
                self.diff(t, f"{where} face", str(expected), roll["face"])
        if not isinstance(roll["label"], str):
            ok = False
            self.diff(t, f"{where} label", "text", roll["label"])
        return RollRow(j, n, roll["face"], expected, roll["label"], ok)

    # -- one step: the rules -----------------------------------------------------------

    def bound_inputs(self, t: int, step: dict[str, Any], state: dict[str, Any] | None,
                     s_t: bytes, salt: bytes) -> None:
        """Round t-1's inputs (v2 and v3): canonical, the bot's where the bot played, each
        one the text of its seat's latest receipt (and of the latest receipt the player
        holds); under v3 also none for a seat the round does not expect, the hand-overs'
        grounds, and the player's own texts and "these are all my orders"."""
        rnd = t - 1
        bots = dict(self.bot_rounds.get(rnd, {}))
        if self.profile == PROFILE_V3:
            bots = {p: str(self.terms["bot"]) for p in self.players if self.plays(p, rnd)[0] == "bot"}
        ruleset: Any = None
        loaded: Any = None
        if state is not None:
            try:
                ruleset = find_ruleset(self.v.ruleset, self.v.revision)
                loaded = ruleset.load(state)
            except (RulesError, KeyError, ValueError, TypeError) as exc:
                self.diff(t, "inputs", "a state to read the orders against", f"error: {exc}")
                return
            bots = self.rules_inputs(t, step["inputs"], ruleset, loaded, bots, s_t, salt)
        if self.profile == PROFILE_V3:
            self.v.bots += [{"round": rnd, "seat": p, "kind": kind} for p, kind in sorted(bots.items())]
        for p in self.players:
            self.seat_input(t, p, step["inputs"].get(p, ""), p in bots and self.profile == PROFILE_V3,
                            ruleset, loaded)

    def rules_inputs(self, t: int, inputs: dict[str, str], ruleset: Any, loaded: Any,
                     bots: dict[str, str], s_t: bytes, salt: bytes) -> dict[str, str]:
        """What the rules say of round t-1's inputs; the seats the bot played (v3: the
        expected ones of those handed to it)."""
        v3 = self.profile == PROFILE_V3
        expected = list(ruleset.expected(loaded))
        for p, text in sorted(inputs.items()):
            if v3 and text and p not in expected:
                self.diff(t, f"input of {p}", f"no orders: round {t - 1} does not expect {p}", repr(text))
                continue
            try:
                canon = canonical_input(ruleset, loaded, p, text, self.profile)
            except OrderErrors as exc:
                self.diff(t, f"input of {p}", "orders that parse", f"{text!r} ({exc})")
                continue
            if canon != text:
                self.diff(t, f"input of {p}", f"the canonical text {canon!r}", repr(text))
        if v3:
            bots = {p: kind for p, kind in bots.items() if p in expected}
            self.v3_handovers(t, t - 1, expected, inputs)
        for p, kind in sorted(bots.items()):
            # bot_orders keeps only lines the ruleset accepts, so this parses
            made = canonical_input(ruleset, loaded, p, bot_orders(
                ruleset, loaded, p, kind=kind,  # type: ignore[arg-type]
                key=bot_key(s_t, salt, t, p, self.profile), profile=self.profile), self.profile)
            if made != inputs.get(p):
                self.diff(t, f"bot orders of {p}", f"what the bot makes with its bound key: {made!r}",
                          repr(inputs.get(p)))
        return bots

    def seat_input(self, t: int, p: str, text: str, bot: bool, ruleset: Any, loaded: Any) -> None:
        """One seat's input against the versions the record lists and the receipts the
        player holds (`bot`: v3, the bot played the seat)."""
        rnd = t - 1
        listed = self.versions.get((rnd, p), [])
        held = self.held.latest()
        if bot:
            if listed:
                self.diff(t, f"versions of {p} in round {rnd}", "none: the bot played the seat",
                          f"{len(listed)} listed")
        elif listed:
            version, recorded = listed[-1]
            want = receipt(self.v.game_id, rnd, p, version, text, self.profile)
            if recorded != want:
                self.diff(t, f"receipt of {p} version {version}",
                          f"the receipt of the input, {want.hex()}", recorded.hex())
        elif text:
            self.diff(t, f"receipt of {p}", "a version with a receipt for the counted input",
                      "no version listed")
        if (text and not bot and (rnd, p) not in held and self.profile == PROFILE_V3
                and self.all_mine(p, rnd)):
            self.diff(t, f"input of {p}", f"no orders: your mails hold no receipt of {p} for "
                      f"round {rnd}", repr(text))
        if (rnd, p) not in held:
            return
        mine_version, mine = held[(rnd, p)]
        if bot:
            self.diff(t, f"your receipt of {p} version {mine_version}",
                      "your orders to count: the seat was yours that round",
                      f"the bot playing {p} (handed over by {self.plays(p, rnd)[1]})")
            return
        recorded_receipts = dict(listed)
        last = listed[-1][0] if listed else None
        if recorded_receipts.get(mine_version) != mine:
            self.diff(t, f"your receipt of {p} version {mine_version}",
                      f"listed in the record as {mine.hex()}",
                      recorded_receipts[mine_version].hex()
                      if mine_version in recorded_receipts else "not listed")
        elif last != mine_version:
            self.diff(t, f"version of {p}", f"your latest receipt, version {mine_version}",
                      f"version {last}, for which you hold no receipt")
        elif receipt(self.v.game_id, rnd, p, mine_version, text, self.profile) != mine:
            self.diff(t, f"input of {p}", f"the text of your receipt of version {mine_version}",
                      repr(text))
        elif self.own_text(t, p, mine_version, text, ruleset, loaded):
            self.v.held.append(f"receipt of {p}, round {rnd}, version {mine_version}")

    def own_text(self, t: int, p: str, version: int, text: str, ruleset: Any, loaded: Any) -> bool:
        """v3: the text the player sent (their confirmation mail) as the rules read it is the
        input; True when it is, or when there is nothing to compare."""
        sent = self.held.sent.get((p, t - 1, version))
        if sent is None or loaded is None or self.profile != PROFILE_V3:
            return True
        try:
            canon = canonical_input(ruleset, loaded, p, sent, self.profile)
        except OrderErrors as exc:
            self.diff(t, f"input of {p}", "your text of version "
                      f"{version} (your mail) to parse", f"{sent!r} ({exc})")
            return False
        if canon != text:
            self.diff(t, f"input of {p}", f"your orders as the rules read them, {canon!r} "
                      f"(your text of version {version}, in your mail)", repr(text))
            return False
        return True

    def all_mine(self, p: str, rnd: int) -> bool:
        """v3: the player's mails hold every order of seat p in round rnd: p is theirs, they
        held it that round, and a later results mail shows the round closed."""
        return (p in self.held.mine and self.first_round(p) <= rnd < self.held.latest_step
                and not self.replaced(p, rnd))

    def v3_handovers(self, t: int, rnd: int, expected: list[str], inputs: dict[str, str]) -> None:
        """A hand-over to the bot by the missed-turn policy needs the misses it counts; then
        this round's misses are counted for the next."""
        policy = self.terms.get("missed_turns") or {}
        for p in self.players:
            first, to, by = next(((r, to, by) for r, to, by in self.turns.get(p, []) if r == rnd),
                                 (0, "", ""))
            if first and to == "bot" and by == "missed_turns":
                if policy.get("action") != "bot":
                    self.diff(t, f"handover of {p} to the bot", "a missed-turn policy that hands "
                              "seats to the bot (the terms)", f"action {policy.get('action')}")
                else:
                    need = min(policy["after"], policy.get("unreachable_after") or policy["after"])
                    if self.misses.get(p, 0) < need:
                        self.diff(t, f"handover of {p} to the bot",
                                  f"{need} missed round{'s' * (need != 1)} in a row before round "
                                  f"{rnd} (the missed-turn policy)", f"{self.misses.get(p, 0)}")
        for p in expected:
            missed = (self.plays(p, rnd)[0] == "player" and not self.versions.get((rnd, p))
                      and not inputs.get(p))
            self.misses[p] = self.misses.get(p, 0) + 1 if missed else 0

    def step_rules(self, t: int, step: dict[str, Any], state: dict[str, Any] | None,
                   k_t: bytes) -> tuple[dict[str, Any] | None, Any]:
        """Re-run step t; return the recomputed state and outcome (state None: stop)."""
        if self.row is None:
            raise InvariantError("step_rules before the step's row")
        inputs = step["inputs"]
        if self.profile == PROFILE_V3 and t > 1:  # the seats in the players' order, always
            inputs = {p: inputs[p] for p in self.players}
        try:
            # step 1 runs under the revision its setup names; later ones only after it did
            result = run_recorded_step(self.v.ruleset, state, inputs, t,
                                       Dice(k_t, t, self.profile), revision=self.v.revision or 1)
        except (OrderErrors, RulesError, KeyError, ValueError, TypeError) as exc:
            self.row.rules = False
            self.diff(t, "rules", "the step to run", f"error: {exc}")
            return None, None
        self.row.events = len(result.events)
        self.row.state_hash = result.state_hash
        difference = compare_step(t, result, step)
        self.row.rules = difference is None
        if difference:
            self.diff(difference.step, difference.where, difference.expected, difference.found)
        return result.state, result.outcome

    def next_step_hash(self, t: int, step: dict[str, Any]) -> None:
        """A_t from A_{t-1} and the step, against the one the player's results mail holds."""
        if self.row is None:
            raise InvariantError("next_step_hash before the step's row")
        self.step_hash = step_hash_next(self.step_hash, t, bytes.fromhex(checksum(step)))
        self.row.step_hash = self.step_hash.hex()
        mine = self.held.step_hashes.get(t)
        if mine is None:
            return
        if mine != self.step_hash:
            self.diff(t, "step hash", f"the step hash of your results mail of step {t}, {mine.hex()}",
                      self.step_hash.hex())
        elif t == self.held.latest_step:
            self.v.held.append(f"step hash of step {t} (your latest results mail)")

    def v3_end(self, steps: int) -> None:
        """What the player's mails could not speak for: rounds after their latest results mail."""
        latest = self.held.latest_step
        if self.held.mine and latest and steps > latest:
            self.v.cautions.append(
                f"round {latest} and later: not compared with your mails (the latest results mail "
                f"you gave is of step {latest}; give your later mails to check them)")
        for seat in sorted(self.held.mine):
            if latest > 1 and seat in self.players:
                self.v.held.append(f"every order of {seat} up to round {latest - 1}: yours (your mails), the "
                                   "bot's or none")

    def run(self) -> Verification:
        v = self.v
        try:
            commitment, salt, players = self.header()
        except _Stop:
            return v
        previous = commitment
        state: dict[str, Any] | None = None
        replaying = True
        outcome: Any = None
        steps: list[Any] = self.record["steps"]
        # The line of play as it stood: the state after each of its steps (a rollback cuts it).
        line: list[tuple[dict[str, Any] | None, Any]] = []
        live = self.held, self.bot_rounds, self.versions
        for played in self.played:
            t, step = played.t, played.step
            self.row = StepRow(t, played.link, None if played.rollback is None else played.rollback + 1)
            v.steps.append(self.row)
            if played.rollback is None:
                self.held, self.bot_rounds, self.versions = live
            else:  # a superseded round: checked against what was listed for it, not the player's receipts
                self.held = Held()
                self.bot_rounds, self.versions = self.superseded.get(played.rollback + 1, ({}, {}))
            state = line[t - 2][0] if t > 1 and replaying else None
            try:
                previous, k_t = self.step_dice(t, step, previous, salt, players, played.link)
            except _Stop:
                return v
            if self.profile in (PROFILE_V2, PROFILE_V3) and t > 1:
                self.bound_inputs(t, step, state if replaying else None, previous, salt)
            if replaying:
                state, outcome = self.step_rules(t, step, state, k_t)
                replaying = state is not None
            line.append((state, outcome))
            if played.cuts is not None:
                del line[int(self.record["rollbacks"][played.cuts]["round"]):]
            recorded = step[CHECKSUM]
            self.row.checksum = recorded == checksum(step)
            if not self.row.checksum:
                self.diff(t, CHECKSUM, checksum(step), recorded)
            if self.profile == PROFILE_V3:
                self.next_step_hash(played.link, step)
        self.held, self.bot_rounds, self.versions = live
        self.row = None
        if line:
            state, outcome = line[-1]
        v.replayed = replaying
        v.final_state = state if v.replayed else None
        record = self.record
        if v.replayed and "outcome" in record and not same_json(record["outcome"], outcome):
            self.diff(len(steps), "outcome", show_json(outcome), record["outcome"])
        if self.profile == PROFILE_V3:
            self.v3_end(len(steps))
        known = (*RECORD_FIELDS, *OPTIONAL_RECORD_FIELDS, *profile_fields(self.profile))
        v.unchecked = sorted(k for k in record if k not in known)
        if record[CHECKSUM] != checksum(record):
            self.diff(0, CHECKSUM, checksum(record), record[CHECKSUM])
        v.complete = True
        return v


def verify(record: Any, held: Held | None = None) -> Verification:
    """Check everything a record claims, and against what the player holds if given; see
    the module doc for the order of checks."""
    return _Checker(record, held).run()


def round_state(record: Any, rnd: int) -> dict[str, Any]:
    """The state round `rnd` was played from: steps 1 to `rnd` of the record run through the
    engine as recorded (whether the record holds is `verify`'s to say). A RecordError when
    the record has no such round or cannot be run that far."""
    try:
        steps = record["steps"]
        profile = record["profile"]
        salt = bytes.fromhex(record["salt"])
        players = list(record["players"])
        ruleset = str(record["ruleset"])
        if profile not in PROFILES or not isinstance(steps, list) or not steps:
            raise ValueError("not a record")
        revision = setup_revision(steps[0]["inputs"])
    except (KeyError, TypeError, ValueError, RulesError) as exc:
        raise RecordError(f"the record cannot be replayed: {exc}") from None
    if not 1 <= rnd <= len(steps):
        raise RecordError(f"the record has no round {rnd}: its {len(steps)} steps reach round "
                          f"{len(steps)}")
    state: dict[str, Any] | None = None
    for t, step in enumerate(steps[:rnd], start=1):
        try:
            inputs = step["inputs"]
            if profile == PROFILE_V3 and t > 1:
                inputs = {p: inputs[p] for p in players}
            dice = Dice(step_key(bytes.fromhex(step["key"]), salt, t, inputs, profile), t, profile)
            state = run_recorded_step(ruleset, state, inputs, t, dice, revision=revision).state
        except (OrderErrors, RulesError, KeyError, ValueError, TypeError) as exc:
            raise RecordError(f"the record cannot be replayed to round {rnd}: step {t}: {exc}") from None
    if state is None:
        raise InvariantError("a round with no state")
    return state
