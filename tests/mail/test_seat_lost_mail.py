"""A player the GM replaces or removes is told by mail, at the address the seat had, and
their old links stop; the newcomer's mail goes to the newcomer's address."""

from __future__ import annotations

from email import message_from_string
from email.policy import default

from sqlalchemy import select

from service.db import session_scope
from service.models import StoredMail
from tests.service.schedule_world import World


def _mails(world: World, to: str) -> list[tuple[str, str]]:
    with session_scope(world.app) as s:
        rows = s.execute(select(StoredMail.subject, StoredMail.raw).where(StoredMail.to == to)
                         .order_by(StoredMail.id)).all()
    return [(subject, " ".join(message_from_string(raw, policy=default).get_body(("plain",)).get_content().split()))
            for subject, raw in rows]


def test_a_replaced_and_a_removed_player_are_told_by_mail(tmp_path):
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H"}, seats=("red", "blue", "green"))
    world.advance(minutes=10)
    assert world.gm("POST", "pause").status_code == 200  # its news gathers a few minutes
    assert world.gm("POST", "replace", {"seat": "red", "email": "carol@example.org"}).status_code == 200
    assert world.gm("POST", "remove", {"seat": "blue", "units": "hold"}).status_code == 200
    world.advance(minutes=4)
    world.sweep()
    # The news gathered for the seat never goes to its former player: it would carry the seat's tokens.
    assert not any("GM paused" in s for s, _t in _mails(world, "red@example.org") + _mails(world, "blue@example.org"))
    assert any("GM paused the game, and 2 more changes" in s for s, _t in _mails(world, "green@example.org"))

    red = [(s, t) for s, t in _mails(world, "red@example.org") if "no longer play" in s]
    assert [s for s, _t in red] == ["[Universal skirmish game] You no longer play red in Universal skirmish game"]
    assert ("The game master of Universal skirmish game gave your seat, red, to a new player in round 1: "
            "you no longer play it.") in red[0][1]
    assert "Your player link and the mail tokens of your earlier mails no longer work" in red[0][1]
    assert world.client.get(f"/games/{world.game_id}/player/{world.tokens['red']}").status_code == 401
    blue = [t for s, t in _mails(world, "blue@example.org") if "no longer play" in s]
    assert len(blue) == 1 and "removed you from the game in round 1: you no longer play blue." in blue[0]
    assert not any("no longer play" in s for s, _t in _mails(world, "green@example.org"))
    assert any("Invitation" in s for s, _t in _mails(world, "carol@example.org"))  # the newcomer's
