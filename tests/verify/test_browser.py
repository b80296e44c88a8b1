"""The verifier page in a real headless Chromium (Debian's package, driven by Playwright).

Opened from disk with the network switched off (a saved page works offline), and served
by the /verify blueprint with `?record=<url>` (its Content-Security-Policy in force).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Blueprint, Flask, Response
from werkzeug.serving import make_server

from service import verify_bundle, verify_page
from tests.conftest import BROWSER, TEST_DOMAINS, migrated_sqlite
from tests.verify.conftest import PAGE, copy, play_rounds, serialize

pytestmark = BROWSER


@pytest.fixture
def offline_page(browser) -> Iterator[Any]:
    context = browser.new_context(offline=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(PAGE.as_uri())
    yield page
    context.close()
    assert not errors, errors


def rolls_in(record: dict[str, Any]) -> int:
    return sum(len(s["rolls"]) for s in record["steps"])


def load_file(page: Any, path: Path) -> str:
    page.set_input_files("#record-file", str(path))
    page.wait_for_selector("#summary[data-done=yes]", timeout=180_000)
    return str(page.get_attribute("#summary", "data-status"))


def test_a_saved_page_offline_shows_every_roll_green(offline_page, finished, tmp_path: Path) -> None:
    path = tmp_path / "record.json"
    path.write_bytes(serialize(finished))
    assert load_file(offline_page, path) == "partial"  # amber: the page cannot replay rules
    page = offline_page
    assert page.locator("tr.roll.ok").count() == rolls_in(finished) > 20
    assert page.locator("tr.roll.bad").count() == 0
    assert page.locator("tr.step.ok").count() == len(finished["steps"])
    assert page.locator("tr.step.bad").count() == 0
    summary = page.inner_text("#summary")
    assert "The dice check" in summary and "Every die checks" not in summary
    assert "Not checked on this page: the rules (die sizes, dropped or added rolls, events" in summary
    header = page.inner_text("#header-table")
    assert finished["commitment"] in header and finished["salt"] in header
    for player, entropy in finished["entropy"].items():
        assert f"entropy of {player}" in header and entropy in header


def test_a_tampered_record_shows_red_and_names_the_place(offline_page, finished, tmp_path: Path) -> None:
    record = copy(finished)
    step = record["steps"][2]
    roll = next(r for r in step["rolls"] if r["n"] > 1)
    genuine = roll["face"]
    roll["face"] = genuine % roll["n"] + 1
    path = tmp_path / "tampered.json"
    path.write_bytes(serialize(record))
    page = offline_page
    assert load_file(page, path) == "bad"
    assert (f"First difference: step 3, roll {roll['j']} face: expected {genuine}, found {roll['face']}"
            in page.inner_text("#summary"))
    bad = page.locator("tr.roll.bad")
    assert bad.count() == 1
    assert bad.get_attribute("data-t") == "3" and bad.get_attribute("data-j") == str(roll["j"])
    assert page.locator("tr.step.bad").count() == 1
    assert page.locator('tr.step.bad').get_attribute("data-t") == "3"
    assert page.locator("tr.roll.ok").count() == rolls_in(record) - 1


def test_a_damaged_state_hash_shows_red_at_its_step(offline_page, finished, tmp_path: Path) -> None:
    record = copy(finished)
    record["steps"][4]["state_hash"] = "0" * 64
    path = tmp_path / "damaged.json"
    path.write_bytes(serialize(record))
    assert load_file(offline_page, path) == "bad"
    assert "First difference: step 5, checksum" in offline_page.inner_text("#summary")
    assert offline_page.locator("tr.step.bad").get_attribute("data-t") == "5"


@pytest.fixture
def served(finished) -> Iterator[str]:
    app = Flask(__name__)
    app.register_blueprint(verify_page.bp)
    bad = copy(finished)
    bad["steps"][1]["key"] = "ab" * 32

    @app.get("/records/<name>.json")
    def records(name: str) -> Response:
        body = serialize({"good": finished, "bad": bad}[name])
        return Response(body, mimetype="application/json")

    api = Blueprint("api", __name__)  # the endpoint name of the service's record route

    @api.get("/api/games/<game_id>/record")
    def record(game_id: str) -> Response:
        return Response(serialize(finished), mimetype="application/json")

    app.register_blueprint(api)

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def test_the_served_page_loads_the_record_named_in_the_query(browser, served: str, finished) -> None:
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        page.goto(f"{served}/verify?record=/records/good.json")
        page.wait_for_selector("#summary[data-done=yes]", timeout=180_000)
        assert page.get_attribute("#summary", "data-status") == "partial", page.inner_text("#summary")
        summary = page.inner_text("#summary")
        if verify_bundle.has_runtime():  # the engine ran, under the page's own policy
            assert summary.startswith("Every check holds") and "Not compared with what you hold" in summary
            assert "bundle SHA-256" in page.inner_text("#bundle")
            assert verify_bundle.bundle_sha256() in page.inner_text("#bundle")
        assert page.locator("tr.roll.ok").count() == rolls_in(finished)
        assert page.input_value("#record-url") == "/records/good.json"

        page.goto(f"{served}/verify?record=/records/bad.json")
        page.wait_for_selector("#summary[data-status=bad]", timeout=60_000)
        assert "First difference: step 2, chain" in page.inner_text("#summary")
    finally:
        context.close()
    assert not errors, errors


def test_a_page_saved_to_disk_fetches_the_services_record_by_url(browser, served: str, finished) -> None:
    """The saved page has origin "null": the record endpoint's CORS header lets it read the record."""
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{PAGE.as_uri()}?record={served}/api/games/g1/record")
        page.wait_for_selector("#summary[data-done=yes]", timeout=180_000)
        assert page.get_attribute("#summary", "data-status") == "partial", page.inner_text("#summary")
        assert page.locator("tr.roll.ok").count() == rolls_in(finished)
        page.goto(f"{PAGE.as_uri()}?record={served}/records/good.json")  # no CORS header there
        page.wait_for_selector("#summary[data-status=bad]", timeout=60_000)
        assert "Cannot check this record" in page.inner_text("#summary")
    finally:
        context.close()


@pytest.fixture
def live_service(tmp_path: Path) -> Iterator[tuple[str, Any]]:
    """The real app (SQLite), served over HTTP, its BASE_URL the server's own address."""
    from service import create_app

    server = make_server("127.0.0.1", 0, Flask(__name__), threaded=True)
    base = f"http://127.0.0.1:{server.server_port}"
    app = create_app({"DATABASE_URL": migrated_sqlite(tmp_path / "live.sqlite3"), "TESTING": True,
                      "WTF_CSRF_ENABLED": False, "SECRET_KEY": "test", "BASE_URL": base,
                      "CONFIRMED_DOMAINS": TEST_DOMAINS})
    server.app = app
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield base, app
    server.shutdown()


def test_the_services_check_these_dice_links_open_a_green_verifier(browser, live_service) -> None:
    base, app = live_service
    client = app.test_client()
    game_id = play_rounds(client, 2)
    record = client.get(f"/api/games/{game_id}/record").json
    context = browser.new_context()
    page = context.new_page()
    try:
        for where in (f"/games/{game_id}", f"/games/{game_id}/rounds/1"):
            page.goto(base + where)
            page.get_by_role("link", name="Check these dice").first.click()
            page.wait_for_selector("#summary[data-done=yes]", timeout=180_000)
            assert page.url.startswith(f"{base}/verify?record=")
            assert page.get_attribute("#summary", "data-status") == "partial", page.inner_text("#summary")
            assert page.locator("tr.step.ok").count() == len(record["steps"]) >= 3
            assert page.locator("tr.roll.ok").count() == rolls_in(record)
            # No differences: said in green, never a numbered red "none"; and a way back to the game.
            assert page.locator("#differences").is_hidden() and page.locator("#differences li").count() == 0
            assert page.locator("#no-differences").is_visible()
            assert page.evaluate("getComputedStyle(document.querySelector('#no-differences')).color") \
                == "rgb(24, 117, 58)"
            page.get_by_role("link", name="Back to the game").click()
            assert page.url == f"{base}/games/{game_id}"
    finally:
        context.close()


def test_the_player_pages_link_carries_what_the_player_holds_and_turns_green(browser, live_service) -> None:
    """The link's fragment holds the commitment, the seat and its entropy; with the runtime
    the page checks everything and says the record matches them (red brought entropy of its
    own: a game where no seat did is amber, only the host chose its dice)."""
    base, app = live_service
    client = app.test_client()
    created = client.post("/api/games", json={"ruleset": "universal", "seats": [
        {"name": "red", "email": "red@example.org"}, {"name": "blue", "email": "blue@example.org"}]}).json
    tokens = {}
    for seat in created["seats"]:
        own = {"entropy": "5e" * 16} if seat["name"] == "red" else {}
        joined = client.post(f"/api/games/{created['id']}/join",
                             json={"invite_token": seat["invite_token"], **own})
        tokens[seat["name"]] = joined.json["player_token"]
    record = client.get(f"/api/games/{created['id']}/record").json
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{base}/games/{created['id']}/player/{tokens['red']}")
        href = page.get_attribute("#check-dice", "href")
        assert href is not None and "#commitment=" + record["commitment"] in href
        assert f"&seat=red&entropy={record['entropy']['red']}" in href
        page.click("#check-dice")
        page.wait_for_selector("#summary[data-done=yes]", timeout=180_000)
        assert page.input_value("#held-commitment") == record["commitment"]
        summary = page.inner_text("#summary")
        if verify_bundle.has_runtime():
            assert page.get_attribute("#summary", "data-status") == "ok", summary
            assert "matches what you hold: commitment S_0, entropy of red" in summary
        else:
            assert page.get_attribute("#summary", "data-status") == "partial", summary
    finally:
        context.close()
