"""dicepost-dice/v1, v2 and v3: the only source of randomness in dicepost (docs/fair-dice.md).

Everything here follows docs/dice-spec.md to the byte: a hash chain committed before
anyone joins, a salt from every player's entropy, one HMAC key per step, and
rejection-sampled faces numbered in the order the rules ask for them. v2 adds the values
that leave the host no choice: server-made entropy fixed by the commitment, the bot key
bound to the chain, and receipts for every accepted version. v3 adds the values a player
holds to account for the rest: the game's terms, their force, entropy from the words they
typed, and a running hash over the record's steps.

Every derivation takes the profile it runs under; a record names its profile, so a v1
record keeps verifying under v1. The default is v1 for the engine's own callers (tests,
self-play); the service passes each game's profile.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

PROFILE_V1 = "dicepost-dice/v1"
PROFILE_V2 = "dicepost-dice/v2"
PROFILE_V3 = "dicepost-dice/v3"
PROFILES = (PROFILE_V1, PROFILE_V2, PROFILE_V3)
PROFILE = PROFILE_V1
NEW_GAME_PROFILE = PROFILE_V3  # what every new game of the service uses
DEFAULT_CHAIN_LENGTH = 4096

Field = str | int | bytes
T = TypeVar("T")


def enc(*fields: Field) -> bytes:
    """Length-prefixed encoding: u32be(len(b)) || b for every field."""
    out = bytearray()
    for f in fields:
        if isinstance(f, bytes):
            b = f
        elif isinstance(f, bool):
            raise TypeError("booleans are not dice fields")
        elif isinstance(f, int):
            if not 0 <= f < 2**64:
                raise ValueError(f"integer field out of range: {f}")
            b = f.to_bytes(8, "big")
        elif isinstance(f, str):
            b = f.encode("utf-8")
        else:
            raise TypeError(f"unsupported field type {type(f).__name__}")
        out += len(b).to_bytes(4, "big") + b
    return bytes(out)


def H(*fields: Field) -> bytes:
    return hashlib.sha256(enc(*fields)).digest()


def M(key: bytes, *fields: Field) -> bytes:
    return hmac.new(key, enc(*fields), hashlib.sha256).digest()


def _refuse_float(_text: str) -> Any:
    raise TypeError("floats are not allowed in canonical JSON")


# Made once: json.dumps and json.loads build a new encoder or decoder on every call with
# arguments like these (the same objects, the same output).
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
_FLOAT_CHECK = json.JSONDecoder(parse_float=_refuse_float, parse_constant=_refuse_float)


def canonical(value: Any) -> bytes:
    """Canonical JSON bytes (sorted keys, no spaces, UTF-8). Floats are refused."""
    text = _ENCODER.encode(value)
    # Floats print differently across languages, so they can never be hashed inputs. Any
    # float value (NaN and infinities too) is written with a "." "e" or a name that only the
    # float hooks of the C parser see: much faster than walking the value in Python.
    _FLOAT_CHECK.decode(text)
    return text.encode("utf-8")


def state_hash(state: Any) -> str:
    """The SHA-256 (hex) of a JSON state's canonical form: what each step records."""
    return hashlib.sha256(canonical(state)).hexdigest()


def check_profile(profile: str) -> str:
    if profile not in PROFILES:
        raise ValueError(f"unknown dice profile {profile!r} (known: {', '.join(PROFILES)})")
    return profile


def chain(tip: bytes, n: int, profile: str = PROFILE) -> list[bytes]:
    """Return [S_0, S_1, ..., S_n] for the chain whose tip is S_n."""
    if len(tip) != 32:
        raise ValueError("the chain tip must be 32 bytes")
    # H(PROFILE, "chain", S) with the constant fields encoded once: the same bytes, without
    # enc()'s per-field checks, since the service walks the whole chain to reach each S_t.
    prefix = enc(check_profile(profile), "chain") + (32).to_bytes(4, "big")
    sha256 = hashlib.sha256
    links = [tip]
    link = tip
    for _ in range(n):
        link = sha256(prefix + link).digest()
        links.append(link)
    links.reverse()
    return links


def chain_link_ok(s_t: bytes, s_prev: bytes, profile: str = PROFILE) -> bool:
    """A revealed S_t checks against the previous link: H(PROFILE, "chain", S_t) == S_{t-1}."""
    return hmac.compare_digest(H(profile, "chain", s_t), s_prev)


def server_entropy(commitment: bytes, game_id: str, player: str, profile: str = PROFILE_V2) -> bytes:
    """v2 and v3: the entropy of a seat that brought none, E_p = H(PROFILE, "server-made",
    S_0, game_id, p). Fixed by the commitment before anyone joins, so the host cannot draw it
    after seeing the other seats' entropy; it adds nothing to the salt, and says so."""
    return H(_bound(profile), "server-made", commitment, game_id, player)


def bot_key(s_t: bytes, salt: bytes, t: int, player: str, profile: str = PROFILE_V2) -> bytes:
    """v2 and v3: the key a bot playing `player` in round t-1 chooses with,
    B = M(S_t, PROFILE, "bot", G, t, p): secret until S_t is revealed with the results."""
    return M(s_t, _bound(profile), "bot", salt, t, player)


def receipt(game_id: str, round_number: int, player: str, version: int, text: str,
            profile: str = PROFILE_V2) -> bytes:
    """v2 and v3: R = H(PROFILE, "receipt", game_id, round, p, version, accepted_text)."""
    return H(_bound(profile), "receipt", game_id, round_number, player, version, text)


def _bound(profile: str) -> str:
    """A profile that has server-made entropy, bot keys and receipts (v2 on)."""
    if profile not in (PROFILE_V2, PROFILE_V3):
        raise ValueError(f"{check_profile(profile)} has no server-made entropy, bot keys or receipts")
    return profile


_HEX_ENTROPY = re.compile(r"(?:[0-9a-fA-F]{2}){16,64}\Z")


def join_words(text: str) -> str:
    """v3: the words a player typed after JOIN as they count: Unicode NFC, every run of
    white space one space, none at either end."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def words_entropy(game_id: str, player: str, words: str) -> bytes:
    """v3: the entropy of words a mail joiner typed, E_p = H(PROFILE, "words", game_id, p,
    join_words(words)): any words, recomputable by the player from what they sent."""
    return H(PROFILE_V3, "words", game_id, player, join_words(words))


def join_entropy(game_id: str, player: str, text: str) -> tuple[bytes | None, str]:
    """v3: what `JOIN <text>` gives a seat: (E_p, "hex") for one token of 32 to 128 hex
    digits (the bytes it spells), (E_p, "words") for any other words, (None, "none") for
    nothing (the seat then gets server_entropy)."""
    words = join_words(text)
    if not words:
        return None, "none"
    if _HEX_ENTROPY.match(words):
        return bytes.fromhex(words), "hex"
    return words_entropy(game_id, player, words), "words"


def terms_digest(game_id: str, terms: Any) -> bytes:
    """v3: T = H(PROFILE, "terms", game_id, canonical(terms)), the game's terms as a player
    holds them from the invitation on (ruleset, revision, options, seats, bot, missed turns)."""
    return H(PROFILE_V3, "terms", game_id, canonical(terms))


def force_digest(game_id: str, player: str, force: Any) -> bytes:
    """v3: F_p = H(PROFILE, "force", game_id, p, canonical(force)), the force a player
    joined with (its units, their names) as they hold it from the join on."""
    return H(PROFILE_V3, "force", game_id, player, canonical(force))


def step_hash_start(game_id: str, commitment: bytes, terms: bytes, salt: bytes) -> bytes:
    """v3: A_0 = H(PROFILE, "record", game_id, S_0, T, G), what the running step hash starts
    from: the game, its chain, its terms and everyone's entropy."""
    return H(PROFILE_V3, "record", game_id, commitment, terms, salt)


def step_hash_next(previous: bytes, t: int, step_digest: bytes) -> bytes:
    """v3: A_t = H(PROFILE, "step", A_{t-1}, t, C_t), C_t the SHA-256 of the canonical JSON
    of step t without its checksum field (the bytes its checksum spells): each results mail
    carries A_t, which pins every step up to t."""
    return H(PROFILE_V3, "step", previous, t, step_digest)


def game_salt(game_id: str, entropy: Mapping[str, bytes], profile: str = PROFILE) -> bytes:
    """G = H(PROFILE, "players", game_id, p1, E_p1, ...), players sorted by UTF-8 bytes."""
    fields: list[Field] = [check_profile(profile), "players", game_id]
    for player in sorted(entropy, key=lambda p: p.encode("utf-8")):
        e = entropy[player]
        if not 16 <= len(e) <= 64:
            raise ValueError(f"entropy of {player!r} must be 16 to 64 bytes, got {len(e)}")
        fields += [player, e]
    return H(*fields)


def inputs_digest(inputs: Any, profile: str = PROFILE) -> bytes:
    return H(check_profile(profile), "inputs", canonical(inputs))


def step_key(s_t: bytes, salt: bytes, t: int, inputs: Any, profile: str = PROFILE) -> bytes:
    """K_t = M(S_t, PROFILE, "step", G, t, D_t)."""
    return M(s_t, profile, "step", salt, t, inputs_digest(inputs, profile))


_ROLL_HEADS = {p: enc(p, "roll") for p in PROFILES}
_U64_LEN = (8).to_bytes(4, "big")  # the length prefix of an integer field


def face_and_words(key: bytes, j: int, n: int, profile: str = PROFILE) -> tuple[int, int]:
    """The face of roll j with n sides, and how many 32-bit words were read to get it."""
    if n < 1 or n >= 2**32:
        raise ValueError(f"a die needs 1 to 2^32-1 sides, got {n}")
    if isinstance(j, bool) or isinstance(n, bool):
        raise TypeError("booleans are not dice fields")
    if not 0 <= j < 2**64:
        raise ValueError(f"integer field out of range: {j}")
    limit = 2**32 - (2**32 % n)
    read = 0
    ctr = 0
    # M(key, PROFILE, "roll", j, n, ctr) with the constant fields encoded once (enc's bytes).
    try:
        roll_head = _ROLL_HEADS[profile]
    except KeyError:
        raise ValueError(check_profile(profile)) from None
    head = roll_head + _U64_LEN + j.to_bytes(8, "big") + _U64_LEN + n.to_bytes(8, "big") + _U64_LEN
    while True:
        block = hmac.new(key, head + ctr.to_bytes(8, "big"), hashlib.sha256).digest()
        for i in range(8):
            x = int.from_bytes(block[4 * i : 4 * i + 4], "big")
            read += 1
            if x < limit:
                return 1 + (x % n), read
        ctr += 1


def face(key: bytes, j: int, n: int, profile: str = PROFILE) -> int:
    """Face of roll j with n sides under step key K_t (rejection sampling, no bias)."""
    return face_and_words(key, j, n, profile)[0]


@dataclass(frozen=True, slots=True)
class Roll:
    """One logged roll: which step, its number j, sides n, the face and who rolled what."""

    step: int
    j: int
    n: int
    face: int
    label: str

    def to_json(self) -> dict[str, Any]:
        # Spelled out: dataclasses.asdict was the slowest part of recording a step.
        return {"step": self.step, "j": self.j, "n": self.n, "face": self.face, "label": self.label}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Roll:
        return cls(int(data["step"]), int(data["j"]), int(data["n"]), int(data["face"]),
                   str(data.get("label", "")))


class DiceExhausted(Exception):
    """A scripted die was asked for more rolls than the test scripted."""


class Dice:
    """Numbered, logged rolls for one step. Rules ask; the log records every answer."""

    def __init__(self, key: bytes, step: int, profile: str = PROFILE) -> None:
        self.key = key
        self.step = step
        self.profile = check_profile(profile)
        self.rolls: list[Roll] = []

    def _face(self, j: int, n: int) -> int:
        return face(self.key, j, n, self.profile)

    def roll(self, n: int, label: str) -> int:
        """Roll one n-sided die; j is the number of rolls made so far in this step."""
        j = len(self.rolls)
        value = self._face(j, n)
        self.rolls.append(Roll(self.step, j, n, value, label))
        return value

    def roll_many(self, count: int, n: int, label: str) -> list[int]:
        return [self.roll(n, f"{label} #{i + 1}") for i in range(count)]

    def shuffle(self, items: Sequence[T], label: str) -> list[T]:
        """Fisher-Yates exactly as docs/dice-spec.md: for i = m-1..1 swap i with face-1 of a d(i+1)."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            k = self.roll(i + 1, f"{label} shuffle") - 1
            out[i], out[k] = out[k], out[i]
        return out


class ScriptedDice(Dice):
    """Dice that return the given faces in order, for rulebook tests worked out by hand."""

    def __init__(self, faces: Iterable[int], step: int = 1) -> None:
        super().__init__(b"\0" * 32, step)
        self._faces = list(faces)

    def _face(self, j: int, n: int) -> int:
        if j >= len(self._faces):
            raise DiceExhausted(f"roll {j} (d{n}) was not scripted")
        value = self._faces[j]
        if not 1 <= value <= n:
            raise ValueError(f"scripted face {value} is not on a d{n} (roll {j})")
        return value

    @property
    def unused(self) -> list[int]:
        return self._faces[len(self.rolls):]
