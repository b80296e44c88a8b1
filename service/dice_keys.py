"""The game's dice keys: the secret chain tip and the links S_t derived from it.

The only module that reads or makes a game's chain tip. The tip is drawn once when the
game is created (`new_chain`: only the commitment S_0 is published); each step's dice
are keyed by S_t, revealed with the step.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from typing import Any

from engine import Dice, chain, step_key
from engine.contract import InvariantError
from service.fairdice import game_profile
from service.models import Game


def new_chain(length: int, profile: str) -> tuple[str, str]:
    """(the secret tip S_length, the commitment S_0), both hex: the only OS randomness of a game."""
    tip = secrets.token_bytes(32)
    return tip.hex(), chain(tip, length, profile)[0].hex()


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
    """S_t, derived from the secret tip (S_N) stored with the game."""
    if not 0 <= t <= game.chain_length:
        raise ValueError(f"step {t} is beyond the dice chain of {game.chain_length} links")
    tip, length = bytes.fromhex(game.chain_tip), game.chain_length
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
