"""Absolute links to this package's pages (for mail and API answers)."""

from __future__ import annotations

from service.urls import absolute


def takeover_url(game_id: str, invite: str) -> str:
    return absolute("gm.takeover", game_id=game_id, invite=invite)


def gm_page_url(game_id: str, gm_token: str) -> str:
    return absolute("gm.page", game_id=game_id, token=gm_token)
