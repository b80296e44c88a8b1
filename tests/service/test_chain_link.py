"""service.dice_keys.chain_link: the links kept in memory give exactly the chain's S_t."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from flask import Flask

from engine import chain
from engine.dice import PROFILE_V1, PROFILE_V2
from service import dice_keys


def test_every_link_of_chains_around_the_kept_interval(sqlite_app: Flask) -> None:
    """Under each game's own profile: a v1 game (no profile in its options) and a v2 one."""
    key = bytes.fromhex(sqlite_app.config["SEAL_KEY"])
    for options, profile in (({}, PROFILE_V1), ({"dice_profile": PROFILE_V2}, PROFILE_V2)):
        for length in (1, dice_keys.EVERY - 1, dice_keys.EVERY, dice_keys.EVERY + 1,
                       3 * dice_keys.EVERY + 7):
            tip = bytes([length % 256]) * 32
            game = cast(Any, SimpleNamespace(id=f"g{length}", chain_length=length, options=options,
                                             sealed_tip=dice_keys.seal_tip(key, f"g{length}", tip)))
            full = chain(tip, length, profile)
            with sqlite_app.app_context():
                assert [dice_keys.chain_link(game, t) for t in range(length + 1)] == full
                assert [dice_keys.chain_link(game, t) for t in reversed(range(length + 1))] == full[::-1]
