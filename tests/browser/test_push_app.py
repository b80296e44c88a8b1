"""The installable app in Debian's chromium: the manifest is read without errors, the service
worker registers and controls the player page, a push the host made (encrypted for a
subscription and decrypted by the test's push service) shows a notification, its tap opens
this browser's player page, and that page is still readable offline.

Headless chromium reaches no real push service, so the push is handed to the service worker
through the DevTools protocol (ServiceWorker.deliverPushMessage), and the tap is a
notificationclick event dispatched in the worker (the browser's own window opening is
recorded there: a window may only be opened by a real click)."""

from __future__ import annotations

import json
import time
from typing import Any

from service import push
from service.db import session_scope
from service.models import Game, Seat
from tests.browser.conftest import BROWSER
from tests.push.receiver import PushService

pytestmark = BROWSER


def wait(predicate: Any, what: str, timeout: float = 20.0) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_installable_push_shows_and_opens_the_player_page(served, pages, shot):
    base, app = served
    client = app.test_client()
    r = client.post("/api/games", json={"ruleset": "universal", "title": "Pushed",
                                        "seats": [{"name": "red", "email": "red@example.org"},
                                                  {"name": "blue", "email": "blue@example.org"}]})
    game_id, tokens = r.json["id"], {}
    for seat in r.json["seats"]:
        joined = client.post(f"/api/games/{game_id}/join", json={"invite_token": seat["invite_token"]})
        tokens[seat["name"]] = joined.json["player_token"]
    player_url = f"{base}/games/{game_id}/player/{tokens['red']}"

    page = pages.new()
    context = page.context
    context.grant_permissions(["notifications"], origin=base)
    cdp = context.new_cdp_session(page)
    registrations: dict[str, str] = {}
    cdp.on("ServiceWorker.workerRegistrationUpdated",
           lambda e: registrations.update({r["scopeURL"]: r["registrationId"] for r in e["registrations"]}))
    cdp.send("ServiceWorker.enable")
    page.goto(player_url)
    page.evaluate("navigator.serviceWorker.ready")
    wait(lambda: page.evaluate("navigator.serviceWorker.ready.then(r => r.active.state)") == "activated",
         "the service worker to activate")
    # The manifest: read by the browser without errors, with its icons.
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["errors"] == [], manifest["errors"]
    data = json.loads(manifest["data"])
    assert data["display"] == "standalone" and {i["sizes"] for i in data["icons"]} >= {"192x192", "512x512"}
    page.reload()  # now under the worker's control, the page hands it its own link for the game
    assert page.evaluate("navigator.serviceWorker.controller !== null")
    assert page.locator("#push").is_visible()
    shot(page, "push-player-page", page.locator("#push"))

    # A push as the host makes it: queued for a subscription, encrypted, POSTed to the push
    # service, which decrypts it; the service worker gets that payload.
    service = PushService()
    try:
        phone = service.browser("red")
        # What the page's "Notify me" button posts once the browser subscribed (headless
        # chromium has no push service to subscribe with: the test's keys stand in).
        subscribed = page.evaluate("""(sub) => {
            const d = document.getElementById("push").dataset;
            return fetch(d.subscribe, {method: "POST", headers: {"Content-Type": "application/json",
                "X-CSRFToken": d.csrf}, body: JSON.stringify(Object.assign({subscription: sub},
                JSON.parse(d.seat)))}).then(r => r.json().then(j => [r.status, j]));
        }""", phone.subscription())
        assert subscribed[0] == 200 and subscribed[1]["on"].startswith("seat:"), subscribed
        with app.app_context(), session_scope(app) as s, s.begin():
            game = s.get(Game, game_id)
            seat = next(x for x in game.seats if x.name == "red")
            assert isinstance(seat, Seat)
            # (not "your turn": this page is open in front of red, and says so every 30 s)
            push.queue(s, game, seat, push.News("message", "m1", "Message from blue", "Shall we draw?",
                                                f"{base}/games/{game_id}"))
        with app.app_context():
            [payload] = service.messages(phone, push.application_server_key())
    finally:
        service.close()
    registration = wait(lambda: registrations.get(base + "/"), "the worker's registration")
    cdp.send("ServiceWorker.deliverPushMessage",
             {"origin": base + "/", "registrationId": registration, "data": json.dumps(payload)})
    shown = wait(lambda: page.evaluate("""navigator.serviceWorker.ready.then(r => r.getNotifications())
        .then(ns => ns.map(n => ({title: n.title, body: n.body, url: n.data.url,
                                  actions: n.actions.map(a => a.action)})))"""), "the notification")
    assert shown == [{"title": "Message from blue", "body": "Shall we draw?", "url": player_url,
                      "actions": ["open", "off"]}]

    # The tap: the worker's click handler, with the window it opens recorded (the player
    # page is not open in any tab now, so it opens one rather than focusing it).
    page.goto(f"{base}/games/{game_id}")
    [worker] = context.service_workers
    opened = worker.evaluate("""async () => {
        const opened = [];
        self.clients.openWindow = async (url) => { opened.push(url); return null; };
        const [n] = await self.registration.getNotifications();
        self.dispatchEvent(new NotificationEvent("notificationclick", {notification: n, action: ""}));
        for (let i = 0; i < 100 && !opened.length; i++) await new Promise(r => setTimeout(r, 20));
        return {opened, left: (await self.registration.getNotifications()).length};
    }""")
    assert opened == {"opened": [player_url], "left": 0}
    tab = pages.new()
    tab.goto(opened["opened"][0])
    assert "red in Pushed" in tab.inner_text("h2")

    # Offline, the last player page viewed is still there.
    page.goto(player_url)
    context.set_offline(True)
    try:
        page.reload()
        assert "red in Pushed" in page.inner_text("h2")
    finally:
        context.set_offline(False)
    # The page's own polls failed while offline, as they should: those are not script errors.
    pages.errors[:] = [e for e in pages.errors if "ERR_INTERNET_DISCONNECTED" not in e]
