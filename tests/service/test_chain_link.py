"""service.dice_keys.chain_link: the links kept in memory, and the sealed marks, give
exactly the chain's S_t; marks that are not the game's own are refused."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import pytest
from flask import Flask

from engine import chain
from engine.dice import PROFILE_V1, PROFILE_V2
from service import dice_keys

LENGTHS = (1, dice_keys.EVERY - 1, dice_keys.EVERY, dice_keys.EVERY + 1, 3 * dice_keys.EVERY + 7)


def _game(key: bytes, length: int, options: dict[str, Any], profile: str, *, marks: bool) -> Any:
    tip = bytes([length % 256]) * 32
    gid = f"g{length}"
    game = SimpleNamespace(id=gid, chain_length=length, options=options,
                           sealed_tip=dice_keys.seal_tip(key, gid, tip))
    if marks:
        game.sealed_marks = dice_keys.seal_marks(key, gid, length, chain(tip, length, profile)[::dice_keys.EVERY])
    return cast(Any, game)


@pytest.mark.parametrize("marks", [False, True], ids=["from the tip", "from the sealed marks"])
def test_every_link_of_chains_around_the_kept_interval(sqlite_app: Flask, marks: bool) -> None:
    """Under each game's own profile: a v1 game (no profile in its options) and a v2 one."""
    key = bytes.fromhex(sqlite_app.config["SEAL_KEY"])
    for options, profile in (({}, PROFILE_V1), ({"dice_profile": PROFILE_V2}, PROFILE_V2)):
        for length in LENGTHS:
            game = _game(key, length, options, profile, marks=marks)
            full = chain(bytes([length % 256]) * 32, length, profile)
            with sqlite_app.app_context():
                assert [dice_keys.chain_link(game, t) for t in range(length + 1)] == full
                assert [dice_keys.chain_link(game, t) for t in reversed(range(length + 1))] == full[::-1]


def test_sealed_marks_hide_the_links_and_open_only_for_their_game() -> None:
    key, length = bytes(range(32)), 4 * dice_keys.EVERY
    links = chain(bytes([9]) * 32, length)
    marks = links[::dice_keys.EVERY]
    sealed = dice_keys.seal_marks(key, "g1", length, marks)
    assert len(sealed) == 32 * len(marks) + 16 and not any(m in sealed for m in marks)
    assert [dice_keys.open_mark(key, "g1", length, sealed, i) for i in range(len(marks))] == marks
    for wrong in ((bytes(32), "g1", length, sealed),  # another key
                  (key, "g2", length, sealed),  # moved to another game
                  (key, "g1", length + 1, sealed),  # another chain length
                  (key, "g1", length, sealed[:32] + bytes([sealed[32] ^ 1]) + sealed[33:])):  # altered
        with pytest.raises(dice_keys.SealError):
            dice_keys.open_mark(*wrong, 1)
    with pytest.raises(ValueError, match="has 5 marks"):
        dice_keys.seal_marks(key, "g1", length, marks[:-1])
