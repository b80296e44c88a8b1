"""A game's chat and JSON webhooks, against a real HTTP receiver in the test process: each
event reaches a discord, a slack and a json hook with the documented payload (the json
one signed as Standard Webhooks says, verified with its library), one post a minute with
the news collapsed, 429 and Retry-After honoured, a dead hook marked failing and shown to
the GM, and nothing private in any post (docs/notifications.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from standardwebhooks import Webhook as Verifier
from standardwebhooks.webhooks import WebhookVerificationError

from service.db import session_scope
from service.models import Tournament, TournamentGame, Webhook, WebhookEvent
from tests.notify.receiver import Receiver, Request, receiving
from tests.service.schedule_world import World

RED_DISCORD = "123456789012345678"
PRIVATE = "meet me behind the hill, blue"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with receiving() as r:
        yield r


class Table(World):
    """A World whose GM adds webhooks before the players join."""

    secret = ""
    invites: dict[str, str]

    def create(self, public: bool = True) -> Table:
        r = self.client.post("/api/games", json={
            "ruleset": "universal", "public": public, "title": "Hill fight",
            "seats": [{"name": s, "email": f"{s}@example.org"} for s in ("red", "blue")]})
        assert r.status_code == 201, r.json
        self.game_id, self.gm_token = r.json["id"], r.json["gm_token"]
        self.invites = {s["name"]: s["invite_token"] for s in r.json["seats"]}
        assert self.gm("PUT", "policy", {"kind": "duration", "duration": "PT48H"}).status_code == 200
        return self

    def hook(self, url: str, kind: str) -> Any:
        return self.client.post(f"/api/games/{self.game_id}/webhooks", json={"url": url, "kind": kind},
                                headers={"Authorization": f"Bearer {self.gm_token}"})

    def join(self, seat: str) -> None:
        j = self.client.post(f"/api/games/{self.game_id}/join", json={"invite_token": self.invites[seat]})
        assert j.status_code == 200, j.json
        self.tokens[seat] = j.json["player_token"]

    def hooks(self) -> list[dict[str, Any]]:
        r = self.client.get(f"/api/games/{self.game_id}/webhooks",
                            headers={"Authorization": f"Bearer {self.gm_token}"})
        assert r.status_code == 200, r.json
        return r.json["webhooks"]  # type: ignore[no-any-return]

    def say(self, seat: str, to: str, text: str) -> None:
        r = self.client.post(f"/api/games/{self.game_id}/messages", json={"to": to, "text": text},
                             headers={"Authorization": f"Bearer {self.tokens[seat]}"})
        assert r.status_code == 201, r.json

    def minute(self) -> None:
        """A minute on, and a sweep (which rings each hook whose minute has come)."""
        self.advance(seconds=61)
        self.sweep()


def hooked(tmp_path: Any, receiver: Receiver, kinds: tuple[str, ...] = ("discord", "slack", "json"),
           start: datetime | None = None) -> Table:
    table = (Table(tmp_path, start) if start else Table(tmp_path)).create()
    for kind in kinds:
        r = table.hook(f"{receiver.url}/{kind}", kind)
        assert r.status_code == 201, r.json
        if kind == "json":
            assert r.json["secret"].startswith("whsec_")
            table.secret = r.json["secret"]
        else:
            assert r.json["secret"] is None
    return table


def events_of(req: Request) -> list[str]:
    body = req.json()
    if "embeds" in body:
        return [e["title"] for e in body["embeds"]]
    if "blocks" in body:
        return [b["text"]["text"] for b in body["blocks"] if b["type"] == "header"]
    return [e["type"] for e in body["data"]["events"]]


def verified(table: Table, req: Request) -> dict[str, Any]:
    """The json post's body, its signature checked with the Standard Webhooks library: the
    library signs the post's id, time and body with the secret and the header must hold it.
    (Its `verify` also refuses a time five minutes from the real clock's: the tests' clock
    moves days; `test_every_event_reaches_each_kind_of_hook` calls `verify` on a post made
    at the real time.)"""
    verifier = Verifier(table.secret)
    at = datetime.fromtimestamp(int(req.headers["webhook-timestamp"]), UTC)
    assert verifier.sign(req.headers["webhook-id"], at, req.body) in req.headers["webhook-signature"].split(" ")
    return json.loads(req.body)  # type: ignore[no-any-return]


def test_every_event_reaches_each_kind_of_hook(tmp_path: Any, receiver: Receiver) -> None:
    table = hooked(tmp_path, receiver, start=datetime.now(UTC))
    table.join("red")
    assert table.settings("red", {"discord_id": RED_DISCORD}).json["discord_id"] == RED_DISCORD
    table.join("blue")  # the game starts: started and round 1 open, in one post a hook

    for kind in ("discord", "slack", "json"):
        assert len(receiver.at(f"/{kind}")) == 1, kind
    deadline = table.deadline()
    assert deadline is not None
    first = receiver.at("/json")[0]
    doc = Verifier(table.secret).verify(first.body, first.headers)  # posted at the real time
    assert doc == verified(table, first)
    with pytest.raises(WebhookVerificationError):
        Verifier(table.secret).verify(first.body.replace(b"Hill", b"Mill"), first.headers)
    assert doc["type"] == "dicepost.news"
    assert doc["data"]["game"] == {"id": table.game_id, "title": "Hill fight",
                                   "url": f"http://dicepost.test/games/{table.game_id}"}
    started, opened = doc["data"]["events"]
    assert started["type"] == "game_started" and started["seats"] == ["red", "blue"]
    assert opened["type"] == "round_opened" and opened["round"] == 1
    assert opened["expected"] == ["red", "blue"] and opened["deadline"] == deadline.isoformat()
    assert "Orders from red and blue." in opened["text"]
    assert deadline.strftime("%a %d %b %Y %H:%M UTC") in opened["text"]
    assert first.headers["webhook-id"].startswith("msg_")

    discord = receiver.at("/discord")[0].json()
    assert [e["title"] for e in discord["embeds"]] == ["Hill fight: the game has started",
                                                        "Hill fight: round 1 is open"]
    assert discord["content"] == f"<@{RED_DISCORD}>: your move"
    assert discord["allowed_mentions"] == {"parse": [], "users": [RED_DISCORD]}
    slack = receiver.at("/slack")[0].json()
    assert events_of(receiver.at("/slack")[0]) == ["Hill fight: the game has started", "Hill fight: round 1 is open"]
    assert "Orders from red and blue." in slack["blocks"][3]["text"]["text"]

    # GM news and public table talk, within the minute: held, then posted together.
    table.gm("POST", "pause")
    table.gm("POST", "resume")
    table.say("red", "all", "good luck, all")
    table.say("red", "blue", PRIVATE)
    assert len(receiver.at("/json")) == 1  # the minute is not over
    table.minute()
    doc = verified(table, receiver.at("/json")[1])
    assert [(e["type"], e.get("action")) for e in doc["data"]["events"]] == [
        ("gm_news", "gm_pause"), ("gm_news", "gm_resume"), ("message", None)]
    assert doc["data"]["events"][2]["text"] == "good luck, all" and doc["data"]["events"][2]["from"] == "red"
    assert events_of(receiver.at("/discord")[1]) == ["Hill fight: news from the GM", "Hill fight: news from the GM",
                                                     "Hill fight: red to everyone"]
    assert "GM paused the game" in receiver.at("/slack")[1].json()["blocks"][1]["text"]["text"]

    # The reminder at the lead (12 hours before the deadline): who is still to move.
    table.submit("blue")
    table.clock.set(deadline - timedelta(hours=11))
    table.sweep()
    doc = verified(table, receiver.at("/json")[2])
    (reminder,) = doc["data"]["events"]
    assert reminder["type"] == "reminder" and reminder["waiting"] == ["red"]
    assert "Waiting on red." in reminder["text"]
    assert receiver.at("/discord")[2].json()["content"] == f"<@{RED_DISCORD}>: your move"
    table.minute()
    table.minute()
    assert len(receiver.at("/json")) == 3  # told once, however often the sweeper passes

    # The round resolves: its summary and page, and round 2 opens.
    table.submit("red")
    table.minute()
    doc = verified(table, receiver.at("/json")[3])
    resolved, reopened = doc["data"]["events"]
    assert resolved["type"] == "round_resolved" and resolved["round"] == 1 and resolved["step"] == 2
    assert resolved["url"] == f"http://dicepost.test/games/{table.game_id}/rounds/1"
    assert reopened["type"] == "round_opened" and reopened["round"] == 2
    embed = receiver.at("/discord")[3].json()["embeds"][0]
    assert embed["url"] == resolved["url"] and "round's page" in embed["description"]

    # The GM ends it: game over.
    assert table.gm("POST", "end").status_code == 200
    table.minute()
    doc = verified(table, receiver.at("/json")[4])
    assert [e["type"] for e in doc["data"]["events"]] == ["game_over"]
    assert doc["data"]["events"][0]["outcome"]["draw"] is True
    assert events_of(receiver.at("/slack")[4]) == ["Hill fight: game over, a draw"]

    # Nothing private in any post: no token, no address, no private message, no player link.
    secrets = [table.gm_token, *table.tokens.values(), *table.invites.values(), table.secret]
    for req in receiver.requests:
        text = req.body.decode()
        assert PRIVATE not in text and "example.org" not in text
        assert not any(s in text for s in secrets), req.path
        assert "/play" not in text and "token" not in text.lower()
    assert {h["status"] for h in table.hooks()} == {"ok"}


def test_a_game_of_an_anonymous_tournament_mentions_nobody(tmp_path: Any, receiver: Receiver) -> None:
    """Entrants are seats only until the tournament ends: a Discord @mention would name the
    person behind a seat, so the post says whose move it is by seat name alone."""
    table = hooked(tmp_path, receiver, kinds=("discord",))
    table.join("red")
    assert table.settings("red", {"discord_id": RED_DISCORD}).json["discord_id"] == RED_DISCORD
    with session_scope(table.app) as s, s.begin():
        s.add(Tournament(id="cup", title="Cup", ruleset="universal", options={}, rounds=1, size=2,
                         seating="random", commitment="0" * 64, entrants=[], anonymous=True,
                         director_token_hash="0" * 64))
        s.flush()
        s.add(TournamentGame(game_id=table.game_id, tournament_id="cup", round=1, table=1, seats={}))
    table.join("blue")  # the game starts: round 1 open, red must move
    [post] = receiver.at("/discord")
    assert RED_DISCORD not in post.body.decode() and "<@" not in post.body.decode()
    assert post.json()["allowed_mentions"] == {"parse": [], "users": []}


def test_a_429_is_honoured_with_the_same_post_after_retry_after(tmp_path: Any, receiver: Receiver) -> None:
    table = hooked(tmp_path, receiver, ("json",))
    receiver.answer("/json", 429, {"Retry-After": "300"})
    table.join("red")
    table.join("blue")
    (refused,) = receiver.at("/json")
    table.minute()
    table.advance(minutes=3)
    table.sweep()
    assert len(receiver.at("/json")) == 1  # four minutes: the five asked for are not over
    assert table.hooks()[0]["last_error"].startswith("429")
    table.advance(minutes=1)
    table.sweep()
    again = receiver.at("/json")[1]
    assert again.headers["webhook-id"] == refused.headers["webhook-id"]  # the same post: a receiver may drop it
    assert again.json()["data"]["events"] == refused.json()["data"]["events"]
    assert table.hooks()[0]["status"] == "ok" and table.hooks()[0]["last_error"] is None


def test_discords_retry_after_in_the_body_counts_too(tmp_path: Any, receiver: Receiver) -> None:
    table = hooked(tmp_path, receiver, ("discord",))
    receiver.answer("/discord", 429, {"Content-Type": "application/json"},
                    json.dumps({"message": "You are being rate limited.", "retry_after": 120.5}).encode())
    table.join("red")
    table.join("blue")
    table.minute()
    assert len(receiver.at("/discord")) == 1
    table.advance(seconds=61)
    table.sweep()
    assert len(receiver.at("/discord")) == 2


def test_a_dead_hook_is_marked_failing_and_shown_on_the_gm_page(tmp_path: Any, receiver: Receiver) -> None:
    table = hooked(tmp_path, receiver, ("discord", "slack"))
    receiver.answer("/discord", 404, {}, b'{"message": "Unknown Webhook", "code": 10015}')
    table.join("red")
    table.join("blue")
    hooks = {h["kind"]: h for h in table.hooks()}
    assert hooks["discord"]["status"] == "failing" and hooks["discord"]["last_error"].startswith("404")
    assert hooks["slack"]["status"] == "ok"
    html = table.client.get(f"/games/{table.game_id}/gm/{table.gm_token}").get_data(as_text=True)
    assert "<strong class=\"bad\">failing</strong>" in html and "404: the endpoint refuses our posts" in html
    table.gm("POST", "pause")
    table.minute()
    assert len(receiver.at("/discord")) == 1  # nothing more to a failing hook
    assert len(receiver.at("/slack")) == 2

    # The GM's test post gets through: the hook works again.
    r = table.client.post(f"/api/games/{table.game_id}/webhooks/{hooks['discord']['id']}/test",
                          headers={"Authorization": f"Bearer {table.gm_token}"})
    assert r.status_code == 200 and r.json["result"] == "204: delivered"
    assert r.json["webhook"]["status"] == "ok"


def test_a_hook_failing_again_and_again_backs_off_then_fails(tmp_path: Any, receiver: Receiver) -> None:
    table = hooked(tmp_path, receiver, ("slack",))
    for _ in range(8):
        receiver.answer("/slack", 500, {}, b"oops")
    table.join("red")
    table.join("blue")
    waits = []
    for _ in range(7):
        hook = table.hooks()[0]
        assert hook["status"] == "ok"
        with session_scope(table.app) as s:
            row = s.get(Webhook, hook["id"])
            assert row is not None and row.next_post_at is not None
            waits.append(row.next_post_at - table.clock.now())
        table.clock.set(table.clock.now() + waits[-1])
        table.sweep()
    assert waits == [timedelta(seconds=30 * 2 ** n) for n in range(7)]
    hook = table.hooks()[0]
    assert hook["status"] == "failing" and "8 failures in a row" in hook["last_error"]
    assert len({r.body for r in receiver.at("/slack")}) == 1  # the same post each time
    with session_scope(table.app) as s:
        assert {e.status for e in s.scalars(select(WebhookEvent))} == {"failed"}


def test_refusals_name_the_field(tmp_path: Any, receiver: Receiver) -> None:
    table = Table(tmp_path).create()
    r = table.hook(f"{receiver.url}/x", "teams")
    assert r.status_code == 422 and r.json["field"] == "kind"
    r = table.hook("ftp://example.org/x", "json")
    assert r.status_code == 422 and r.json["field"] == "url"
    r = table.client.post(f"/api/games/{table.game_id}/webhooks", json={"url": "x", "kind": "json"},
                          headers={"Authorization": f"Bearer {table.invites['red']}"})
    assert r.status_code == 401
    r = table.client.get(f"/api/games/{table.game_id}/webhooks")
    assert r.status_code == 401
    r = table.settings  # a player's discord id: digits only
    table.join("red")
    bad = table.settings("red", {"discord_id": "@red"})
    assert bad.status_code == 422 and bad.json["field"] == "discord_id"


def test_full_mode_allows_only_public_https(tmp_path: Any, receiver: Receiver) -> None:
    table = Table(tmp_path).create()
    table.app.config["WEBHOOKS_LOOPBACK"] = False
    for url in (f"{receiver.url}/json", "https://127.0.0.1/x", "https://10.1.2.3/x", "https://[::1]/x",
                "https://169.254.169.254/latest", "http://93.184.215.14/x"):
        r = table.hook(url, "json")
        assert r.status_code == 422 and r.json["field"] == "url", url
    table.app.config["WEBHOOKS_LOOPBACK"] = True
    assert table.hook(f"{receiver.url}/json", "json").status_code == 201


def test_a_deleted_hook_gets_nothing_more(tmp_path: Any, receiver: Receiver) -> None:
    table = hooked(tmp_path, receiver, ("json",))
    hook_id = table.hooks()[0]["id"]
    r = table.client.delete(f"/api/games/{table.game_id}/webhooks/{hook_id}",
                            headers={"Authorization": f"Bearer {table.gm_token}"})
    assert r.status_code == 200 and r.json == {"deleted": hook_id}
    table.join("red")
    table.join("blue")
    assert receiver.requests == [] and table.hooks() == []


def test_a_player_sets_their_discord_id_on_the_settings_page(tmp_path: Any) -> None:
    table = Table(tmp_path).create()
    table.join("red")
    url = f"/games/{table.game_id}/player/{table.tokens['red']}/schedule"
    form = {"reminder_lead": "PT12H", "mail_pref": "all", "discord_id": "not digits"}
    bad = table.client.post(url, data=form)
    assert bad.status_code == 422 and "discord_id: a Discord user id is 17 to 20 digits" in bad.get_data(as_text=True)
    assert table.settings("red").json["discord_id"] is None
    assert table.client.post(url, data={**form, "discord_id": RED_DISCORD}).status_code == 303
    assert table.settings("red").json["discord_id"] == RED_DISCORD
    assert f'value="{RED_DISCORD}"' in table.client.get(url).get_data(as_text=True)
    table.client.post(url, data={**form, "discord_id": ""})
    assert table.settings("red").json["discord_id"] is None


def test_the_gm_page_adds_tests_and_deletes_a_hook(tmp_path: Any, receiver: Receiver) -> None:
    table = Table(tmp_path).create()
    page = f"/games/{table.game_id}/gm/{table.gm_token}"
    r = table.client.post(f"{page}/webhooks", data={"url": f"{receiver.url}/json", "kind": "json"})
    assert r.status_code == 303 and r.headers["Location"].endswith("#webhooks")
    html = table.client.get(page).get_data(as_text=True)
    assert "The json webhook is added" in html and "whsec_" in html  # the secret, this once
    assert "whsec_" not in table.client.get(page).get_data(as_text=True)
    hook_id = table.hooks()[0]["id"]
    table.client.post(f"{page}/webhooks/{hook_id}/test")
    assert "The test post: 204: delivered" in table.client.get(page).get_data(as_text=True)
    (test,) = receiver.at("/json")
    assert test.json()["data"]["events"][0]["type"] == "test"
    r = table.client.post(f"{page}/webhooks", data={"url": "https://10.0.0.1/x", "kind": "slack"})
    html = table.client.get(page).get_data(as_text=True)
    assert "url: 10.0.0.1 is not a public address" in html
    table.client.post(f"{page}/webhooks/{hook_id}/delete")
    assert table.hooks() == []
