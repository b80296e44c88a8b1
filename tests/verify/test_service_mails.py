"""An honest game of every ruleset played through the service, one player by mail and one on
the web, checked by `dicepost verify --mails` with nothing but the mails each player got.

alice joins by replying `JOIN` and some words, and sends her orders by replying to her
results mails, in lower case and (where the rules read them alike) in another order; bob
joins on the web with his browser's entropy and sends his orders through the order form.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from engine import bot_orders, find_ruleset, ruleset_ids
from engine.dice import PROFILE_V3, words_entropy
from engine.held import held_from_mails
from engine.orders import OrderErrors
from engine.steps import canonical_input
from service.cli import main
from service.commands.verify import EXIT_OK
from service.db import session_scope
from service.inbound.receive import receive
from service.views import latest_step
from tests.mail.mail_world import MailPlayer, parse, stored_mail, text_of

WORDS = "purple walrus  1987 under the stairs"
BROWSER_ENTROPY = "5e" * 32
ROUNDS = 3


def written(ruleset: Any, state: Any, seat: str, text: str) -> str:
    """The orders as a person might type them: lower case, the lines reversed where the rules
    read them alike (the canonical text is then the same)."""
    lines = [line.lower() for line in text.splitlines()]
    for attempt in ("\n".join(reversed(lines)), "\n".join(lines)):
        try:
            if canonical_input(ruleset, state, seat, attempt, PROFILE_V3) == canonical_input(
                    ruleset, state, seat, text, PROFILE_V3):
                return attempt
        except OrderErrors:
            continue
    return text


def orders_now(app: Flask, game_id: str, ruleset_id: str, revision: int, seat: str, rnd: int) -> str:
    with session_scope(app) as s:
        step = latest_step(s, game_id)
        assert step is not None
        state_json = step.state
    ruleset = find_ruleset(ruleset_id, revision)
    state = ruleset.load(state_json)
    text = bot_orders(ruleset, state, seat, f"service-mails-{rnd}") or "pass"
    return written(ruleset, state, seat, text) if text != "pass" else text


def play(app: Flask, ruleset_id: str) -> tuple[str, dict[str, list[bytes]]]:
    client = app.test_client()
    created = client.post("/api/games", json={
        "ruleset": ruleset_id, "title": f"Honest {ruleset_id}",
        "seats": [{"name": n, "email": f"{n}@example.org"} for n in ("alice", "bob")]})
    assert created.status_code == 201, created.json
    game_id = created.json["id"]
    invites = {s["name"]: s["invite_token"] for s in created.json["seats"]}

    def send(raw: bytes) -> Any:
        with app.app_context():
            return receive(raw)

    alice = MailPlayer("alice@example.org", stored_mail(app), send)
    out = alice.reply(alice.latest("Invitation"), f"JOIN {WORDS}")
    assert out.status == "processed", out
    joined = client.post(f"/games/{game_id}/join/{invites['bob']}",
                         data={"entropy": BROWSER_ENTROPY, "force": ""}, follow_redirects=True)
    assert joined.status_code == 200
    page = joined.get_data(as_text=True)
    assert BROWSER_ENTROPY in page and "made by your browser" in page
    found = re.search(rf"/games/{game_id}/player/([A-Za-z0-9_-]+)", page)
    assert found is not None
    bob_page = f"/games/{game_id}/player/{found.group(1)}"

    alice_joined = text_of(alice.latest("You have joined"))
    assert words_entropy(game_id, "alice", WORDS).hex() in alice_joined
    assert "purple walrus 1987 under the stairs" in alice_joined

    subject = "The game has started"
    for rnd in range(1, ROUNDS + 1):
        status = client.get(f"/api/games/{game_id}").json
        if status["status"] != "active":
            break
        assert status["round"] == rnd
        revision = status["revision"]
        if "alice" in status["expected"]:
            text = orders_now(app, game_id, ruleset_id, revision, "alice", rnd)
            out = alice.reply(alice.latest(subject), text)
            assert out.status == "processed" and "orders stored" in out.detail, out
            confirmation = text_of(alice.latest(f"Orders stored for round {rnd}"))
            assert "-----BEGIN DICEPOST EVIDENCE-----" in confirmation
            assert all(f"sent: {line}".rstrip() in confirmation for line in text.splitlines())
        if "bob" in status["expected"]:
            text = orders_now(app, game_id, ruleset_id, revision, "bob", rnd)
            r = client.post(bob_page, data={"round": str(rnd), "free": text})
            assert r.status_code == 303, r.get_data(as_text=True)[:500]
        subject = f"Round {rnd} results"

    mails = {p: [m.as_bytes() for m in MailPlayer(f"{p}@example.org", stored_mail(app), send).inbox()]
             for p in ("alice", "bob")}
    return game_id, mails


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_an_honest_game_through_the_service_verifies_with_each_players_mails(
        sqlite_app: Flask, tmp_path: Path, ruleset_id: str) -> None:
    game_id, mails = play(sqlite_app, ruleset_id)
    record = sqlite_app.test_client().get(f"/api/games/{game_id}/record").json
    assert record["profile"] == PROFILE_V3
    assert record["entropy_source"] == {"alice": "words", "bob": "browser"}
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    for seat, raw in mails.items():
        folder = tmp_path / seat
        folder.mkdir()
        for i, data in enumerate(raw):
            (folder / f"{i:03d}.eml").write_bytes(data)
        held = held_from_mails([(f.name, f.read_bytes()) for f in sorted(folder.iterdir())], game_id)
        assert held.conflicts == [] and held.mine == {seat}
        assert held.terms is not None and held.commitment == bytes.fromhex(record["commitment"])
        assert held.latest_step == len(record["steps"])
        assert held.receipts, f"{seat} holds no receipt"
        # the latest results mail's "check these dice" link holds what that mail holds
        latest, texts = held.latest_step, [text_of(parse(m)) for m in raw]
        link = f"terms={held.terms.hex()}&t={latest}&step_hash={held.step_hashes[latest].hex()}"
        assert any(link in text for text in texts), seat
        assert main(["verify", str(path), "--mails", str(folder)]) == EXIT_OK, seat
