"""service.progress.chain_link: the links kept in memory give exactly the chain's S_t."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from engine import chain
from service import progress


def test_every_link_of_chains_around_the_kept_interval() -> None:
    for length in (1, progress.EVERY - 1, progress.EVERY, progress.EVERY + 1, 3 * progress.EVERY + 7):
        tip = bytes([length % 256]) * 32
        game = cast(Any, SimpleNamespace(chain_tip=tip.hex(), chain_length=length))
        full = chain(tip, length)
        assert [progress.chain_link(game, t) for t in range(length + 1)] == full
        assert [progress.chain_link(game, t) for t in reversed(range(length + 1))] == full[::-1]
