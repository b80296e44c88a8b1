"""The game's dice keys: the secret chain tip and the links S_t derived from it.

The only module that reads or makes a game's chain tip. The tip is drawn once when the
game is created (`new_chain`: only the commitment S_0 is published); each step's dice
are keyed by S_t, revealed with the step.

At rest the tip is sealed with the seal key (SEAL_KEY: DICEPOST_SEAL_KEY, or the embedded
default's instance/seal_key), so a copy of the database alone reveals no future die:

    pad    = HMAC-SHA256(seal key, "dicepost tip pad" || game id)
    sealed = (tip XOR pad) || HMAC-SHA256(seal key, "dicepost tip tag" || game id || tip XOR pad)[:16]

The tag refuses a wrong key (and a sealed tip moved to another game) instead of opening
a different chain.

Every EVERY-th link of the chain (the marks S_0, S_EVERY, S_2*EVERY, ...) is sealed with
the game too, made once with the chain, so that S_t costs at most EVERY hashes in any
process instead of the walk from the tip (4,096 links by default). Mark i is padded on
its own, so reading one opens one; the tag covers every mark, the chain's length and the
stride:

    pad_i  = HMAC-SHA256(seal key, "dicepost marks pad" || game id || u32be(i))
    sealed = (mark_0 XOR pad_0) || ... || HMAC-SHA256(seal key, "dicepost marks tag" || game id
             || u32be(length) || u32be(EVERY) || the padded marks)[:16]

The marks are trusted no more than the tip: a resolution checks the S_t it derives
against the link revealed before it (H(S_t) == S_{t-1}) before any die is rolled.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any, Protocol

from flask import current_app
from sqlalchemy import Connection, inspect, text

from engine import Dice, chain, step_key
from engine.contract import InvariantError
from service import caches
from service.fairdice import options_profile

SEALED_HEX = 96  # 32 bytes sealed + a 16-byte tag
_TAG_BYTES = 16
EVERY = 64  # the stride of the sealed marks


class SealError(Exception):
    """The seal key does not open a sealed tip: it is not the key the tip was sealed with."""


def _mac(key: bytes, label: bytes, *parts: bytes) -> bytes:
    return hmac.new(key, label + b"".join(parts), hashlib.sha256).digest()


def seal_tip(seal_key: bytes, game_id: str, tip: bytes) -> str:
    """The tip as stored: hex of the padded tip and its tag."""
    gid = game_id.encode("utf-8")
    body = bytes(a ^ b for a, b in zip(tip, _mac(seal_key, b"dicepost tip pad", gid), strict=True))
    return (body + _mac(seal_key, b"dicepost tip tag", gid, body)[:_TAG_BYTES]).hex()


def open_tip(seal_key: bytes, game_id: str, sealed: str) -> bytes:
    """The tip S_N back from its sealed form; SealError for a wrong key."""
    raw = bytes.fromhex(sealed)
    body, tag = raw[:-_TAG_BYTES], raw[-_TAG_BYTES:]
    gid = game_id.encode("utf-8")
    expected = _mac(seal_key, b"dicepost tip tag", gid, body)[:_TAG_BYTES]
    if len(body) != 32 or not hmac.compare_digest(tag, expected):
        raise SealError(f"the seal key does not open game {game_id}'s chain tip")
    return bytes(a ^ b for a, b in zip(body, _mac(seal_key, b"dicepost tip pad", gid), strict=True))


def app_seal_key() -> bytes:
    return bytes.fromhex(current_app.config["SEAL_KEY"])


def new_chain(game_id: str, length: int, profile: str) -> tuple[str, str, bytes]:
    """(the sealed tip S_length, the commitment S_0 in hex, the sealed marks): the only OS
    randomness of a game."""
    tip, key = secrets.token_bytes(32), app_seal_key()
    links = chain(tip, length, profile)
    marks = links[::EVERY]
    _marks().put((tip, length, profile), marks)
    return seal_tip(key, game_id, tip), links[0].hex(), seal_marks(key, game_id, length, marks)


def _mark_pad(seal_key: bytes, gid: bytes, i: int) -> bytes:
    return _mac(seal_key, b"dicepost marks pad", gid, i.to_bytes(4, "big"))


def _marks_tag(seal_key: bytes, gid: bytes, length: int, body: bytes) -> bytes:
    return _mac(seal_key, b"dicepost marks tag", gid, length.to_bytes(4, "big"),
                EVERY.to_bytes(4, "big"), body)[:_TAG_BYTES]


def seal_marks(seal_key: bytes, game_id: str, length: int, marks: list[bytes]) -> bytes:
    """The marks [S_0, S_EVERY, ...] of a chain of `length` links as stored with the game."""
    if len(marks) != length // EVERY + 1:
        raise ValueError(f"a chain of {length} links has {length // EVERY + 1} marks, not {len(marks)}")
    gid = game_id.encode("utf-8")
    body = b"".join(bytes(a ^ b for a, b in zip(m, _mark_pad(seal_key, gid, i), strict=True))
                    for i, m in enumerate(marks))
    return body + _marks_tag(seal_key, gid, length, body)


def open_mark(seal_key: bytes, game_id: str, length: int, sealed: bytes, i: int) -> bytes:
    """Mark i (S_{i*EVERY}) back from the sealed marks; SealError for a wrong key, or marks
    moved from another game or made for another length or stride."""
    body, tag = sealed[:-_TAG_BYTES], sealed[-_TAG_BYTES:]
    gid = game_id.encode("utf-8")
    if (len(body) != 32 * (length // EVERY + 1)
            or not hmac.compare_digest(tag, _marks_tag(seal_key, gid, length, body))):
        raise SealError(f"the seal key does not open game {game_id}'s chain marks")
    return bytes(a ^ b for a, b in zip(body[32 * i:32 * i + 32], _mark_pad(seal_key, gid, i), strict=True))


def seal_problem(conn: Connection, seal_key: bytes, source: str) -> str | None:
    """Why the seal key cannot serve this database (one line), or None when it opens the
    tips there (tried on the newest game; a database without games takes any key)."""
    found = inspect(conn)
    if not found.has_table("games") or "sealed_tip" not in {c["name"] for c in found.get_columns("games")}:
        return None  # the schema is not at head: the schema check says what to do
    row = conn.execute(text("SELECT id, sealed_tip FROM games ORDER BY created_at DESC, id LIMIT 1")).first()
    if row is None:
        return None
    try:
        open_tip(seal_key, row[0], row[1])
    except (SealError, ValueError):
        return (f"the seal key from {source} does not open the chain tips in this database "
                f"(game {row[0]}): start with the key they were sealed with; a new key would "
                "leave every game without its dice")
    return None


# The marks of games without sealed marks (made before them, or their row read without
# the column), kept in this process's memory only (they are as secret as the tip: never
# logged or served), so such a game walks its chain from the tip (4,096 links, ~2 ms)
# once per process. Keyed by the tip itself; about 2.2 KB a game.
def _marks() -> caches.Cache[tuple[bytes, int, str], list[bytes]]:
    return caches.named("chain marks", 1024)


def _chain_marks(tip: bytes, length: int, profile: str) -> list[bytes]:
    """[S_0, S_EVERY, S_2*EVERY, ...] of the chain whose tip is S_length."""
    return _marks().get((tip, length, profile), lambda: chain(tip, length, profile)[::EVERY])


class ChainGame(Protocol):
    """What S_t and the dice read of a game: a `Game`, or the resolution's columns of it."""

    @property
    def id(self) -> str: ...
    @property
    def chain_length(self) -> int: ...
    @property
    def sealed_tip(self) -> str: ...
    @property
    def salt(self) -> str | None: ...
    @property
    def options(self) -> dict[str, Any]: ...
    @property
    def links_skipped(self) -> int: ...


def step_link(game: ChainGame, t: int) -> int:
    """The chain link that keys step t: t, plus the links rounds rolled back revealed (a
    step resolved after a rollback takes the next link nobody has seen)."""
    return t + (game.links_skipped or 0)


def chain_link(game: ChainGame, t: int) -> bytes:
    """S_t, derived from the secret tip (S_N) sealed with the game: from the sealed mark at
    or above t when the game's row was read with its marks, else from the tip."""
    length = game.chain_length
    if not 0 <= t <= length:
        raise ValueError(f"step {t} is beyond the dice chain of {length} links")
    key, profile = app_seal_key(), options_profile(game.options)
    above = -(-t // EVERY) * EVERY  # the first mark at or above t
    if above > length:
        start = open_tip(key, game.id, game.sealed_tip)
    elif (marks := vars(game).get("sealed_marks")) is not None:  # loaded: never a query here
        start = open_mark(key, game.id, length, marks, above // EVERY)
    else:
        start = _chain_marks(open_tip(key, game.id, game.sealed_tip), length, profile)[above // EVERY]
    return chain(start, min(above, length) - t, profile)[0]


def step_dice(game: ChainGame, t: int, inputs: Any) -> tuple[Dice, bytes]:
    """The dice of step t and the link S_l that keys them (l = step_link(game, t))."""
    if game.salt is None:
        raise InvariantError(f"game {game.id} has no salt: it is made when the last seat is filled")
    s_t = chain_link(game, step_link(game, t))
    profile = options_profile(game.options)
    return Dice(step_key(s_t, bytes.fromhex(game.salt), t, inputs, profile), t, profile), s_t
