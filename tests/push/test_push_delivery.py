"""Web push end to end against a push service in the test process: the payload is decrypted
with the subscription's own keys and the VAPID token is checked, as a browser's push
service would; dead subscriptions are dropped, refusals retried with backoff."""

from __future__ import annotations

import json
import struct
from datetime import timedelta

from service import push
from tests.push.conftest import PushWorld


def test_a_push_reaches_the_browser_encrypted_for_it_and_signed(tmp_path, service):
    world = PushWorld(tmp_path).start()
    phone = service.browser("alice-phone")
    r = world.subscribe(phone, "red")
    assert r.status_code == 200, r.json
    assert r.json["scopes"] == [r.json["on"]]
    world.news("red", "results", key="round-1", title="Round 1 results")
    [message] = world.received(service, phone)
    assert message["title"] == "Round 1 results"
    assert message["game"] == world.game_id and message["url"].endswith(f"/games/{world.game_id}")
    assert message["events"] == ["results"]
    [row] = world.pushes()
    assert (row.status, row.attempts) == ("sent", 1)
    # Another browser cannot read it: its keys are not the ones this push was made for.
    other = service.browser("someone-else")
    try:
        other.decrypt(service.for_browser(phone)[0].body)
        raise AssertionError("decrypted with the wrong keys")
    except Exception as exc:  # cryptography's InvalidTag
        assert type(exc).__name__ == "InvalidTag"


def test_each_event_once_per_browser_even_with_two_scopes_and_a_second_queue(tmp_path, service):
    """One notification per event per channel."""
    world = PushWorld(tmp_path).start()
    phone = service.browser("phone")
    assert world.subscribe(phone, "red").status_code == 200
    assert world.client.post("/push/subscribe", json={"subscription": phone.subscription(), "all": True}
                             ).status_code == 401  # not signed in: only the token's seat
    world.news("red", "turn", key="r1")
    world.news("red", "turn", key="r1")  # the same news again (a second sweeper, say)
    assert len(world.received(service, phone)) == 1
    assert [p.status for p in world.pushes()] == ["sent"]


def test_a_gone_subscription_is_dropped(tmp_path, service):
    world = PushWorld(tmp_path).start()
    phone = service.browser("phone")
    world.subscribe(phone, "red")
    service.answers = [(410, {})]
    world.news("red", "results", key="one")
    [row] = world.pushes()
    assert row.status == "skipped" and "gone (410)" in (row.last_error or "")
    assert world.news("red", "results", key="two") == []  # nothing left to push to
    assert len(service.received) == 1


def test_429_waits_for_retry_after_then_the_sweeper_rings_again(tmp_path, service):
    world = PushWorld(tmp_path).start()
    phone = service.browser("phone")
    world.subscribe(phone, "red")
    service.answers = [(429, {"Retry-After": "600"})]
    world.news("red", "turn", key="r1")
    [row] = world.pushes()
    assert row.status == "pending" and row.next_attempt_at is not None
    assert row.next_attempt_at - world.clock.now() >= timedelta(seconds=600)
    world.advance(seconds=300)
    world.sweep()
    assert len(service.received) == 1  # not before the push service's Retry-After
    world.advance(seconds=301)
    assert world.sweep()["push"] == 1
    assert [m["title"] for m in world.received(service, phone)] == ["Your turn"] * 2
    assert [(p.status, p.attempts) for p in world.pushes()] == [("sent", 2)]


def test_a_refusal_fails_the_push_for_good(tmp_path, service):
    world = PushWorld(tmp_path).start()
    phone = service.browser("phone")
    world.subscribe(phone, "red")
    service.answers = [(403, {})]  # the push service refused our key
    world.news("red", "turn", key="r1")
    [row] = world.pushes()
    assert row.status == "failed" and "403" in (row.last_error or "")


def test_turning_off_from_the_notification_forgets_the_browser(tmp_path, service):
    world = PushWorld(tmp_path).start()
    phone = service.browser("phone")
    world.subscribe(phone, "red")
    # The notification's "Turn off" button posts the endpoint with no CSRF token and no session.
    world.app.config["WTF_CSRF_ENABLED"] = True
    r = world.client.post("/push/unsubscribe", json={"endpoint": phone.endpoint})
    assert r.status_code == 200 and r.json == {"removed": 1, "scopes": []}
    assert world.news("red", "turn", key="r1") == []
    assert service.received == []


def test_bad_subscriptions_are_refused_naming_the_field(tmp_path, service):
    world = PushWorld(tmp_path).start()
    phone = service.browser("phone")
    bad = phone.subscription()
    bad["keys"]["p256dh"] = "AAAA"
    r = world.client.post("/push/subscribe", json={"subscription": bad, "game_id": world.game_id,
                                                   "token": world.tokens["red"]})
    assert r.status_code == 422 and "keys.p256dh" in r.json["error"]
    r = world.client.post("/push/subscribe", data="not json", content_type="application/json")
    assert r.status_code == 422
    inside = phone.subscription()
    inside["endpoint"] = "https://10.1.2.3/push"  # SSRF: not a public address
    r = world.client.post("/push/subscribe", json={"subscription": inside, "game_id": world.game_id,
                                                   "token": world.tokens["red"]})
    assert r.status_code == 422 and "not a public address" in r.json["error"]
    r = world.client.post("/push/subscribe", json={"subscription": phone.subscription(), "game_id": world.game_id,
                                                   "token": "wrong"})
    assert r.status_code == 401


def test_the_manifest_and_icons_make_the_app_installable(tmp_path):
    world = PushWorld(tmp_path)
    r = world.client.get("/manifest.webmanifest")
    assert r.status_code == 200 and r.mimetype == "application/manifest+json"
    manifest = json.loads(r.data)
    assert manifest["display"] == "standalone" and manifest["start_url"] and manifest["name"] == "dicepost"
    sizes = {}
    for entry in manifest["icons"]:
        got = world.client.get(entry["src"])
        assert got.status_code == 200 and got.mimetype == entry["type"]
        if entry["type"] == "image/png":
            assert got.data[:8] == b"\x89PNG\r\n\x1a\n"
            sizes[entry["sizes"]] = struct.unpack(">II", got.data[16:24])
    assert sizes == {"192x192": (192, 192), "512x512": (512, 512)}
    sw = world.client.get("/sw.js")
    assert sw.status_code == 200 and sw.mimetype == "text/javascript"
    assert "connect-src 'self'" in sw.headers["Content-Security-Policy"]
    page = world.client.get("/")
    assert "manifest-src 'self'" in page.headers["Content-Security-Policy"]
    assert b'rel="manifest"' in page.data


def test_the_vapid_key_is_made_once_and_kept(tmp_path):
    from service.config import vapid_key

    first = vapid_key({}, str(tmp_path))["VAPID_PRIVATE_KEY"]
    assert first == vapid_key({}, str(tmp_path))["VAPID_PRIVATE_KEY"]
    assert oct((tmp_path / "vapid_private_key").stat().st_mode & 0o777) == "0o600"
    assert vapid_key({"DATABASE_URL": "postgresql://x/y"}, str(tmp_path / "other"))["VAPID_PRIVATE_KEY"] == ""
    try:
        vapid_key({"DICEPOST_VAPID_PRIVATE_KEY": "short"}, str(tmp_path))
        raise AssertionError("a bad key was taken")
    except ValueError as exc:
        assert "DICEPOST_VAPID_PRIVATE_KEY" in str(exc)
    assert push.collapse([("turn", {"title": "t", "url": "u", "game": "g"})])["count"] == 1
