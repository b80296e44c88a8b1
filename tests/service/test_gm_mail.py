"""Replacing and removing players reaches mail too: old mail tokens stop working, and a
newcomer can take the seat by answering the invitation with JOIN."""

from __future__ import annotations

import pytest

from service.inbound.receive import receive
from tests.mail.mail_world import MailPlayer, stored_mail
from tests.service.schedule_world import World


@pytest.fixture
def world(tmp_path):
    return World(tmp_path).start({"kind": "duration", "duration": "PT48H"})


def player(world: World, address: str) -> MailPlayer:
    def send(raw: bytes):
        with world.app.app_context():
            return receive(raw)
    return MailPlayer(address, stored_mail(world.app), send)


def test_a_removed_player_can_no_longer_send_orders_by_mail(world):
    blue = player(world, "blue@example.org")
    start = blue.latest("started")
    assert world.gm("POST", "remove", {"seat": "blue", "units": "hold"}).status_code == 200
    blue.reply(start, world.legal_order("blue"))
    blue.reply(start, "STATUS")
    assert world.round(1).status == "open"
    assert world.audit("submitted") == []


def test_a_newcomer_joins_an_open_seat_by_mail(world):
    r = world.gm("POST", "replace", {"seat": "blue", "email": "newcomer@example.org"})
    assert r.status_code == 200
    newcomer = player(world, "newcomer@example.org")
    invitation = newcomer.latest("Invitation")
    assert "A seat is open for you" in str(invitation.get_body(("plain",)).get_content())
    newcomer.reply(invitation, "JOIN")
    assert [e.detail["seat"] for e in world.audit("seat_claimed")] == ["blue"]
    world.submit("red")
    assert world.round_number() == 1  # blue is played in person again and is waited for
    answer = newcomer.inbox()[-1]
    assert "You now play blue" in str(answer.get_body(("plain",)).get_content())
    newcomer.reply(answer, world.legal_order("blue"))
    assert world.round_number() == 2
