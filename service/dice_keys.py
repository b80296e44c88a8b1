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
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from collections import OrderedDict
from typing import Any

from flask import current_app
from sqlalchemy import Connection, inspect, text

from engine import Dice, chain, step_key
from engine.contract import InvariantError
from service.fairdice import game_profile
from service.models import Game

SEALED_HEX = 96  # 32 bytes sealed + a 16-byte tag
_TAG_BYTES = 16


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


def new_chain(game_id: str, length: int, profile: str) -> tuple[str, str]:
    """(the sealed tip S_length, the commitment S_0 in hex): the only OS randomness of a game."""
    tip = secrets.token_bytes(32)
    return seal_tip(app_seal_key(), game_id, tip), chain(tip, length, profile)[0].hex()


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


# Every EVERY-th link of a game's chain, kept in this process's memory only (they are as
# secret as the tip: never stored, logged or served), so each round hashes at most EVERY
# links instead of walking the chain from the tip (4,096 links by default, ~1.6 ms).
# Keyed by the tip itself; a bounded LRU (about 2.2 KB a game).
EVERY = 64
_MARKS_KEPT = 1024
_marks: OrderedDict[tuple[bytes, int, str], list[bytes]] = OrderedDict()
_marks_lock = threading.Lock()


def _chain_marks(tip: bytes, length: int, profile: str) -> list[bytes]:
    """[S_0, S_EVERY, S_2*EVERY, ...] of the chain whose tip is S_length."""
    key = (tip, length, profile)
    with _marks_lock:
        if key in _marks:
            _marks.move_to_end(key)
            return _marks[key]
    marks = chain(tip, length, profile)[::EVERY]
    with _marks_lock:
        _marks[key] = marks
        while len(_marks) > _MARKS_KEPT:
            _marks.popitem(last=False)
    return marks


def chain_link(game: Game, t: int) -> bytes:
    """S_t, derived from the secret tip (S_N) sealed with the game."""
    if not 0 <= t <= game.chain_length:
        raise ValueError(f"step {t} is beyond the dice chain of {game.chain_length} links")
    tip, length = open_tip(app_seal_key(), game.id, game.sealed_tip), game.chain_length
    above = -(-t // EVERY) * EVERY  # the first kept link at or above t
    profile = game_profile(game)
    start = _chain_marks(tip, length, profile)[above // EVERY] if above <= length else tip
    return chain(start, min(above, length) - t, profile)[0]


def step_dice(game: Game, t: int, inputs: Any) -> tuple[Dice, bytes]:
    """The dice of step t and the link S_t that keys them."""
    if game.salt is None:
        raise InvariantError(f"game {game.id} has no salt: it is made when the last seat is filled")
    s_t = chain_link(game, t)
    profile = game_profile(game)
    return Dice(step_key(s_t, bytes.fromhex(game.salt), t, inputs, profile), t, profile), s_t
