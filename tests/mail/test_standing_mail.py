"""STANDING by mail: set, list and clear a unit's standing orders; a bad line is refused
with the unit or word it names, and nothing changes."""

from __future__ import annotations

from service.db import session_scope
from service.standing import standing_of
from tests.mail.mail_world import text_of
from tests.mail.test_inbound import _mail


def _standing(game, name: str) -> dict[str, str]:
    with session_scope(game.app) as s:
        return standing_of(s, s.merge(game.seat(name)))


def test_standing_by_mail(mail_game):
    to = mail_game.reply_to("alice")
    out = mail_game.send(_mail(to, "STANDING A1 hold", mid="<s1@c>"))
    assert (out.status, out.detail) == ("processed", "standing orders set")
    answer = text_of(mail_game.players["alice"].latest("Status of round 1"))
    assert "  A1 hold: the unit stays where it is" in answer
    assert "The words here: hold (the unit stays where it is); attack (" in answer
    mail_game.send(_mail(to, "standing a2 attack", mid="<s2@c>"))
    assert _standing(mail_game, "alice") == {"A1": "hold", "A2": "attack"}

    out = mail_game.send(_mail(to, "STANDING B1 hold", mid="<s3@c>"))
    assert out.detail.startswith("STANDING refused: unit: B1 is not one of your units (A1, A2")
    out = mail_game.send(_mail(to, "STANDING A1 dance", mid="<s4@c>"))
    assert out.detail == ("STANDING refused: kind: dance is not a standing order here; write one of "
                          "hold, attack, none. Nothing was changed.")
    out = mail_game.send(_mail(to, "STANDING A1", mid="<s5@c>"))
    assert "write STANDING UNIT WORD" in out.detail
    mail_game.send(_mail(to, "STANDING A1 none", mid="<s6@c>"))
    assert _standing(mail_game, "alice") == {"A2": "attack"}
    mail_game.send(_mail(to, "STANDING", mid="<s7@c>"))
    assert "  A2 attack: close combat" in text_of(mail_game.players["alice"].latest("Status of round 1"))
    assert _standing(mail_game, "bob") == {}
