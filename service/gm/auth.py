"""Who may act: the GM by the game's gm_token, a player by their player token."""

from __future__ import annotations

from sqlalchemy.orm import Session

from service.errors import NotFound, Unauthorized
from service.models import Game
from service.tokens import same_hash


def gm_game(session: Session, game_id: str, token: str | None, lock: bool = True) -> Game:
    """The game whose gm_token this is (row-locked for the action); 404 / 401 otherwise."""
    game = session.get(Game, game_id, with_for_update=lock)
    if game is None:
        raise NotFound(f"no game {game_id!r}")
    if not token:
        raise Unauthorized("the GM token is needed (Authorization: Bearer <gm_token>)", "gm_token")
    if not same_hash(token, game.gm_token_hash):
        raise Unauthorized("this GM token is not valid for this game", "gm_token")
    return game
