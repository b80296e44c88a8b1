"""Every page and every mail kind of an installed dicepost, rendered from outside the checkout.

Run by the python of the environment the wheel went into, from a folder of its own, with
the path of an already migrated SQLite file: `python render_all.py DB_FILE`. It uses only
what the wheel installed (and the standard library), plays a short game through the web
pages, the API and mail replies, and exits non-zero naming what failed: a package loaded
from elsewhere than the environment, a page that did not answer as expected (a missing
template is an exception here), a GET route no request reached, a mail kind that was
never sent, or a template file no page or mail loaded. The last line is a JSON summary.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from flask import Flask, request
from jinja2 import BaseLoader, Environment
from sqlalchemy import select, update


class Failed(Exception):
    pass


def check(ok: object, what: str) -> None:
    if not ok:
        raise Failed(what)


class RecordingLoader(BaseLoader):
    """The app's own loader, noting every template name it is asked for (includes too)."""

    def __init__(self, inner: BaseLoader) -> None:
        self.inner = inner
        self.names: set[str] = set()

    def get_source(self, environment: Environment, template: str) -> Any:
        self.names.add(template)
        return self.inner.get_source(environment, template)


def template_files(root: Traversable, prefix: str = "") -> Iterator[str]:
    for entry in root.iterdir():
        if entry.is_dir():
            yield from template_files(entry, f"{prefix}{entry.name}/")
        elif entry.name.endswith((".html", ".txt")):
            yield prefix + entry.name


def installed_here() -> None:
    """service, engine, worker and templates come from this environment, not a checkout."""
    import engine
    import service
    import templates
    import worker

    prefix = Path(sys.prefix).resolve()
    for module in (engine, service, templates, worker):
        where = Path(str(module.__file__)).resolve()
        check(where.is_relative_to(prefix), f"{module.__name__} was imported from {where}, not from {prefix}")


def make_app(db_file: str) -> tuple[Flask, RecordingLoader, set[str]]:
    from service import create_app

    app = create_app({"DATABASE_URL": f"sqlite:///{db_file}", "REDIS_URL": None, "TESTING": True,
                      "WTF_CSRF_ENABLED": False, "SECRET_KEY": "render-all", "BASE_URL": "http://dicepost.test",
                      # a club's own domain counts as confirmed: the second game's mail goes out at once
                      "CONFIRMED_DOMAINS": ("club.example",)})
    loader = RecordingLoader(app.jinja_env.loader)  # type: ignore[arg-type]
    app.jinja_env.loader = loader
    reached: set[str] = set()

    @app.after_request
    def note_rule(response: Any) -> Any:
        if request.url_rule is not None:
            reached.add(f"{request.method} {request.url_rule.rule}")
        return response

    return app, loader, reached


class Player:
    def __init__(self, client: Any, pages: dict[str, int]) -> None:
        self.client = client
        self.pages = pages

    def get(self, url: str, status: int = 200, **kw: Any) -> Any:
        return self.call("get", url, status, **kw)

    def post(self, url: str, status: int = 200, **kw: Any) -> Any:
        return self.call("post", url, status, **kw)

    def put(self, url: str, status: int = 200, **kw: Any) -> Any:
        return self.call("put", url, status, **kw)

    def call(self, method: str, url: str, status: int, **kw: Any) -> Any:
        r = getattr(self.client, method)(url, **kw)
        r.close()  # work a page hands to after its answer (the sign-in link's mail) runs now
        if r.status_code != status:  # the body only then: some answers are binary (engine.zip)
            raise Failed(f"{method.upper()} {url} answered {r.status_code}, not {status}: "
                         f"{r.get_data()[:300].decode(errors='replace')}")
        self.pages[f"{method.upper()} {url}"] = r.status_code
        return r


def stored(app: Flask) -> list[tuple[int, str, EmailMessage]]:
    """(stored mail id, outbox kind, parsed message) of every mail the embedded mailbox holds."""
    from service.db import session_scope
    from service.models import Outbox, StoredMail

    with session_scope(app) as s:
        rows = s.execute(select(StoredMail.id, Outbox.kind, StoredMail.raw)
                         .join(Outbox, Outbox.id == StoredMail.outbox_id).order_by(StoredMail.id))
        return [(i, kind, message_from_bytes(raw.encode(), policy=policy.default))  # type: ignore[misc]
                for i, kind, raw in rows]


def text_of(msg: EmailMessage) -> str:
    part = msg.get_body(("plain",))
    check(part is not None, f"mail {msg['Subject']!r} has no text part")
    return str(part.get_content())  # type: ignore[union-attr]


def raw_mail(to: str, body: str, message_id: str, sender: str) -> bytes:
    return (f"From: {sender}\r\nTo: {to}\r\nSubject: Re: dicepost\r\nMessage-ID: {message_id}\r\n"
            f"\r\n{body}\r\n").encode()


def play(app: Flask, web: Player) -> None:
    from service.db import session_scope
    from service.inbound.receive import Outcome
    from service.inbound.receive import receive as receive_here
    from service.outbound.deliver import deliver

    def receive(raw: bytes) -> Outcome:
        with app.app_context():
            return receive_here(raw)
    from service.models import Outbox, Seat

    api = web
    # The home page, and a game made with its form (the page shows the invitations once).
    home = web.get("/").get_data(as_text=True)
    check('name="ruleset"' in home, "the home page has no game form")
    made = web.post("/games", 303, data={"ruleset": "universal", "title": "Form game", "public": "on",
                                         "seats": "carol\ndave", "options": "width = 8"})
    created = web.get(made.headers["Location"])
    joins = re.findall(r'href="http://dicepost\.test(/games/\w+/join/[^"]+)"', created.get_data(as_text=True))
    check(len(joins) == 2, f"the created page shows {len(joins)} invitation links, not 2")
    web.get(joins[0])
    web.post(joins[0], 303, data={"force": ""})
    web.get(joins[0] + "/done")
    Player(app.test_client(), web.pages).get(joins[0], 409)  # another browser: the seat is taken
    web.get("/games/no-such-game", 404)  # the error page

    # A mail game through the API: invitations, the start mail, then replies by mail.
    r = api.post("/api/games", 201, json={
        "ruleset": "universal", "title": "Mail duel", "public": True,
        "seats": [{"name": n, "email": f"{n}@example.org"} for n in ("alice", "bob")],
        "options": {"width": 8, "height": 8, "max_rounds": 1}})
    game = r.get_json()
    gid, gm = game["id"], game["gm_token"]
    # Each address confirms by its link (a page with a button); the game's mail then goes to it.
    confirms = [m for _i, kind, m in stored(app) if kind == "confirm_address"]
    check(len(confirms) == 2, f"{len(confirms)} confirmation mails, not one to each of 2 addresses")
    for mail in confirms:
        link = re.search(r"http://dicepost\.test(/confirm/\S+)", text_of(mail))
        check(link, "the confirmation mail holds no link")
        web.get(link[1])  # type: ignore[index]
        web.post(link[1], 303)  # type: ignore[index]
        web.get(link[1])  # type: ignore[index]
    tokens = {}
    for seat in game["seats"]:
        j = api.post(f"/api/games/{gid}/join", json={"invite_token": seat["invite_token"]})
        tokens[seat["name"]] = j.get_json()["player_token"]
    auth = {"Authorization": f"Bearer {tokens['alice']}"}
    gm_auth = {"Authorization": f"Bearer {gm}"}
    for url in (f"/api/games/{gid}", f"/api/games/{gid}/record", "/api/games", "/api/rulesets",
                "/api/openapi.json"):
        api.get(url)
    schema = api.get("/api/rulesets/universal/force-schema").get_json()
    check(schema["ruleset"] == "universal" and schema["default"], "the force schema names no default force")
    api.get(f"/api/games/{gid}/orders", headers=auth)
    api.get(f"/api/games/{gid}/gm", headers=gm_auth)
    api.get(f"/api/games/{gid}/webhooks", headers=gm_auth)
    api.get(f"/api/games/{gid}/settings", headers=auth)

    start = next(m for _i, kind, m in stored(app) if kind == "results" and m["To"].addresses[0].username == "alice")
    reply_to = str(start["Reply-To"].addresses[0].addr_spec)
    outcomes = [receive(raw_mail(reply_to, "A1 fly a1", "<r1@render>", "alice@example.org")),  # refused orders
                receive(raw_mail(reply_to, "STATUS", "<r2@render>", "alice@example.org")),
                receive(raw_mail(reply_to, "HELP", "<r3@render>", "alice@example.org")),
                receive(raw_mail("dicepost@dicepost.localhost", "pass", "<r4@render>", "who@else.example"))]
    check(all(o.status != "failed" for o in outcomes), f"a mail reply failed: {outcomes}")
    with session_scope(app) as s, s.begin():
        alice = s.scalars(select(Seat).where(Seat.game_id == gid, Seat.name == "alice")).one()
        # Reminders are sent by the deadline sweep, which needs a clock hours ahead: one row by hand.
        s.add(Outbox(game_id=gid, seat_id=alice.id, kind="reminder", to_address=alice.email,
                     message_id=f"<{gid}.reminder.render@dicepost.test>", status="pending",
                     payload={"round": 1, "deadline": "2026-12-01T00:00:00+00:00", "lead": "PT12H",
                              "title": "Mail duel"}))
        alice_seat = alice.id
    api.post(f"/api/games/{gid}/gm/announce", json={"text": "Good luck, both."}, headers=gm_auth)  # gm_news
    receive(raw_mail(reply_to, "MSG bob\nHello, bob.", "<r7@render>", "alice@example.org"))  # message
    receive(raw_mail(reply_to, "AWAY 2026-12-24 2026-12-27", "<r8@render>", "alice@example.org"))  # absence
    with session_scope(app) as s:
        pending = list(s.scalars(select(Outbox.id).where(Outbox.status == "pending")))
    with app.app_context():
        for oid in pending:
            deliver(oid)

    # The pages of a running game, then the last round played by mail: results and game over.
    web.get(f"/games/{gid}")
    web.get(f"/games/{gid}/player/{tokens['alice']}")
    web.get(f"/games/{gid}/player/{tokens['alice']}/schedule")
    # The player page's zone form: a refusal at its field, then a zone kept.
    web.post(f"/games/{gid}/player/{tokens['alice']}/zone", 422, data={"zone": "Mars/Base"})
    web.post(f"/games/{gid}/player/{tokens['alice']}/zone", 302, data={"zone": "Europe/Berlin"})
    held = web.get(f"/games/{gid}/player/{tokens['alice']}/receipts.json")
    check(held.mimetype == "application/json" and held.get_json()["commitment"] == game["commitment"],
          "the player's receipts file is not JSON holding the game's commitment")
    web.get(f"/games/{gid}/gm/{gm}")
    web.get(f"/games/{gid}/gm/{gm}/confirm/end")  # the step before a draw
    # A spectator link, made on the GM's page and opened: it goes on to the game page.
    web.post(f"/games/{gid}/gm/{gm}/spectators", 303, data={"label": "a fan"})
    watch = re.search(r'href="http://dicepost\.test(/games/\w+/watch/[^"]+)"',
                      web.get(f"/games/{gid}/gm/{gm}").get_data(as_text=True))
    check(watch, "the GM page lists no spectator link")
    Player(app.test_client(), web.pages).get(watch[1], 303)  # type: ignore[index]
    # A spectator follows the mail duel: the ask, the link's page, confirmed before the last round.
    asked = web.post(f"/games/{gid}/follow", 303, data={"email": "fan@example.org"})
    web.get(asked.headers["Location"])
    ask = next(m for _i, kind, m in stored(app) if kind == "follow")
    follow_link = re.search(r"http://dicepost\.test(/follow/[\w.]+)", text_of(ask))
    check(follow_link, "the follow mail holds no follow link")
    web.get(follow_link[1])  # type: ignore[index]
    web.post(follow_link[1], 303, data={"action": "follow"})  # type: ignore[index]
    receive(raw_mail(reply_to, "pass", "<r5@render>", "alice@example.org"))
    bob_start = next(m for _i, kind, m in stored(app) if kind == "results" and m["To"].addresses[0].username == "bob")
    receive(raw_mail(str(bob_start["Reply-To"].addresses[0].addr_spec), "pass", "<r6@render>", "bob@example.org"))
    web.get(f"/games/{gid}/rounds/1")
    web.get(f"/games/{gid}/rounds")  # every round and key check
    web.post(follow_link[1], 303, data={"action": "stop"})  # type: ignore[index]
    api.get(f"/api/games/{gid}/rounds/1")
    web.get(f"/games/{gid}")

    # A seat handed to a newcomer by the GM of a second game: the take-over page.
    r = api.post("/api/games", 201, json={"ruleset": "universal", "gm_email": "gm@club.example",
                                            "seats": [{"name": "erin", "email": "erin@club.example"},
                                                      {"name": "fred"}]})
    second = r.get_json()
    for seat in second["seats"]:
        api.post(f"/api/games/{second['id']}/join", json={"invite_token": seat["invite_token"]})
    done = api.post(f"/api/games/{second['id']}/gm/replace", json={"seat": "erin"},
                    headers={"Authorization": f"Bearer {second['gm_token']}"}).get_json()
    invite = str(done["invite_url"]).rsplit("/", 1)[1]
    web.get(f"/games/{second['id']}/takeover/{invite}")
    # A private game's link from a mail to a player, opened in a fresh browser.
    from service import access
    from service.models import Game
    hidden = api.post("/api/games", 201, json={"ruleset": "universal", "public": False,
                                                "seats": [{"name": "gil"}, {"name": "hal"}]}).get_json()
    api.post(f"/api/games/{hidden['id']}/join", json={"invite_token": hidden["seats"][0]["invite_token"]})
    with app.test_request_context(), session_scope(app) as s:
        gil = s.scalars(select(Seat).where(Seat.game_id == hidden["id"], Seat.name == "gil")).one()
        opened = access.open_url(s.get(Game, hidden["id"]), gil, "web.game")
    check("/open/" in opened, f"a private game's mail link is not an open link: {opened}")
    Player(app.test_client(), web.pages).get(opened.removeprefix("http://dicepost.test"), 303)
    # The same open seat in the lobby and on the game page, taken by a visitor.
    web.get("/lobby?show=open")
    web.get(f"/games/{second['id']}")
    taken = web.post(f"/games/{second['id']}/seats/erin/take", 303)
    web.get(taken.headers["Location"])

    # Sign-in by mail, then the player's own pages.
    web.get("/signin")
    asked = web.post("/signin", 303, data={"email": "alice@example.org"})
    web.get(asked.headers["Location"])  # the notice, after the redirect
    login = [m for _i, kind, m in stored(app) if kind == "login"]
    check(login, "no sign-in mail was sent")
    link = re.search(r"http://dicepost\.test(/signin/[\w.-]+)", text_of(login[-1]))
    check(link, "the sign-in mail holds no sign-in link")
    web.get(link[1])  # type: ignore[index]
    web.post(link[1], 302)  # type: ignore[index]
    web.get("/me")
    web.get(f"/me/play/{alice_seat}")
    web.post("/me/away", 303, data={"clear": "1"})
    web.post("/me/profile", 422, data={"handle": "admin"})  # the refusal at its field
    web.post("/me/profile", 302, data={"handle": "Alice-Plays", "public": "on"})
    web.get("/players/alice-plays")  # her public page

    # A tournament: the director's form, page and seating, its public page, CSV and bundle.
    import hashlib

    web.get("/tournaments/new")
    made = web.post("/tournaments/new", 303, data={
        "title": "Cup", "ruleset": "universal", "rounds": "1", "size": "2", "seating": "random",
        "entrants": "Ann <ann@example.org>\nBen <ben@example.org>", "no_rollback": "on",
        "commitment": hashlib.sha256(b"seed").hexdigest()})
    director = made.headers["Location"]
    web.get(director)
    web.post(director, 303, data={"seed": "seed"})
    web.get(director)
    tid = director.split("/")[2]
    web.get(f"/tournaments/{tid}")
    web.get(f"/tournaments/{tid}/standings.csv")
    web.get(f"/tournaments/{tid}/bundle.json")

    # The mail still waiting (the GM's gathered news is held a few minutes): due now, sent.
    with session_scope(app) as s, s.begin():
        s.execute(update(Outbox).where(Outbox.status == "pending").values(next_attempt_at=None))
        pending = list(s.scalars(select(Outbox.id).where(Outbox.status == "pending")))
    with app.app_context():
        for oid in pending:
            deliver(oid)

    # Every stored mail in the mailbox, and the mail settings pages its links lead to.
    from service.web.mailbox import KEY_PARAM, mailbox_key

    mails = stored(app)
    local = {"base_url": "http://127.0.0.1/"}  # served on loopback, as `dicepost run` serves it
    web.get(f"/mailbox?{KEY_PARAM}={mailbox_key(app)}", 302, **local)  # the printed link: its key becomes a cookie
    web.get("/mailbox", **local)
    check(web.get("/mailbox/newest", **local).json == {"newest": max(mail_id for mail_id, _, _ in mails)},
          "/mailbox/newest does not name the newest mail")
    for mail_id, _kind, _msg in mails:
        web.get(f"/mailbox/{mail_id}", **local)
    results_id = next(i for i, kind, _m in mails if kind == "results")
    check(web.get(f"/mailbox/{results_id}/attachments/0", **local).mimetype == "application/json",
          "the results mail's record is not attached as application/json")
    footer = next(text_of(m) for _i, kind, m in mails if kind == "results")
    for name in ("preferences", "unsubscribe"):
        found = re.search(rf"http://dicepost\.test(/mail/{name}/[\w.-]+)", footer)
        check(found, f"the results mail has no {name} link")
        web.get(found[1])  # type: ignore[index]

    # The verifier is served as the packaged file, byte for byte.
    page = resources.files("templates").joinpath("verify", "verifier.html").read_bytes()
    check(web.get("/verify").data == page, "/verify is not the packaged verifier page")
    web.get("/verify/verifier.html")
    # Its runtime beside it: the engine always, SHA256SUMS naming every file of the bundle.
    from service import verify_bundle

    sums = web.get(f"/{verify_bundle.MANIFEST}").data
    check(sums == verify_bundle.bundle_files()[verify_bundle.MANIFEST],
          f"/{verify_bundle.MANIFEST} is not the installed bundle's")
    check(web.get(f"/{verify_bundle.RUNTIME}/engine.zip").data[:2] == b"PK", "the runtime's engine.zip is no zip")
    web.get(f"/{verify_bundle.RUNTIME}/no-such-file", 404)
    # The rules pages: the index links every ruleset's page.
    index = web.get("/rules").get_data(as_text=True)
    for ruleset in ("universal", "jep1", "fivedice", "heroes"):
        check(f'href="/rules/{ruleset}"' in index, f"/rules does not link /rules/{ruleset}")
        web.get(f"/rules/{ruleset}")
        web.get(f"/rules/{ruleset}/1")
    web.get("/rules/chess", 404)
    web.get("/healthz")
    # The installable app: its manifest, icons, service worker and the notifications page.
    manifest = web.get("/manifest.webmanifest").get_json(force=True)
    for icon in manifest["icons"]:
        web.get(icon["src"])
    web.get("/sw.js")
    web.get("/notifications")


def main(db_file: str) -> dict[str, Any]:
    installed_here()
    app, loader, reached = make_app(db_file)
    pages: dict[str, int] = {}
    play(app, Player(app.test_client(), pages))

    routes = {f"GET {r.rule}" for r in app.url_map.iter_rules()
              if "GET" in (r.methods or ()) and r.endpoint != "static"}
    check(not routes - reached, f"GET routes no request reached: {sorted(routes - reached)}")
    files = set(template_files(resources.files("templates")))
    # Sent byte for byte, never through Jinja; and a macro library that no page or mail
    # imports (tests/verify renders it directly): loaded here so it is known to compile.
    served_raw = {"verify/verifier.html"}
    macro_libraries = {"verify/_reveal.html"}
    # The bounce notice needs a bounce this run does not make (tests/mail/test_bounces.py
    # sends it); compiled here so the installed package is known to hold it.
    bounce_only = {"email/unreachable.html", "email/unreachable.txt"}
    for name in macro_libraries | bounce_only:
        app.jinja_env.get_template(name)
    unused = files - served_raw - bounce_only - loader.names
    check(not unused, f"templates no page or mail loaded: {sorted(unused)}")
    kinds = {name.removesuffix(".txt").split("/", 1)[1] for name in files
             if name.startswith("email/") and name.endswith(".txt") and not name.startswith("email/_")}
    sent = {kind for _i, kind, _m in stored(app)}
    kinds.discard("unreachable")
    check(not kinds - sent, f"mail kinds never sent: {sorted(kinds - sent)}")
    return {"pages": len(pages), "templates": sorted(loader.names), "mail_kinds": sorted(sent)}


if __name__ == "__main__":
    try:
        summary = main(sys.argv[1])
    except Failed as exc:
        print(f"FAILED: {exc}", file=sys.stderr)
        sys.exit(1)
    print(json.dumps(summary))
