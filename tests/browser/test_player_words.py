"""The player page's sentences stay true as the game goes on: the edge a seat started from
is the setup's (not where its units stand now), and the deadline's sentence never gives two
zones as "your time" (the player's own zone is set; this device is in another)."""

from __future__ import annotations

from typing import Any

from service.db import session_scope
from service.models import PlayerZone
from tests.browser.conftest import BROWSER, PHONE

pytestmark = BROWSER


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _furthest_up(api: Any, game_id: str, token: str) -> str:
    """Each unit's move that ends on the highest row free yet (rows count up from the bottom edge)."""
    legal = api.get(f"/api/games/{game_id}/orders", headers=_bearer(token)).json["legal"]
    lines, taken = [], set()
    for orders in legal.values():
        moves = [o for o in orders if o["verb"] == "move" and o["square"] and o["square"] not in taken]
        if moves:
            best = max(moves, key=lambda o: int(o["square"][1:]))
            taken.add(best["square"])
            lines.append(best["text"])
    return "\n".join(lines)


def test_the_home_edge_is_the_setups_and_one_sentence_has_one_your_time(served, pages) -> None:
    base, app = served
    api = app.test_client()
    made = api.post("/api/games", json={"ruleset": "universal", "options": {"width": 6, "height": 6},
                                        "seats": [{"name": "red", "email": "red@example.org"}, {"name": "blue"}]})
    assert made.status_code == 201, made.json
    game_id, gm = made.json["id"], made.json["gm_token"]
    tokens = {s["name"]: api.post(f"/api/games/{game_id}/join", json={"invite_token": s["invite_token"]})
              .json["player_token"] for s in made.json["seats"]}
    for number in (1, 2):  # red's units march up past the middle of the grid
        sent = api.put(f"/api/games/{game_id}/orders", headers=_bearer(tokens["red"]),
                       json={"round": number, "orders": _furthest_up(api, game_id, tokens["red"])})
        assert sent.status_code == 200, sent.json
        assert api.post(f"/api/games/{game_id}/gm/resolve", headers=_bearer(gm)).status_code == 200
    with session_scope(app) as s, s.begin():
        s.add(PlayerZone(address="red@example.org", zone="America/New_York"))

    page = pages.new(viewport=PHONE, timezone="Asia/Tokyo")
    page.goto(f"{base}/games/{game_id}/player/{tokens['red']}")
    you = page.inner_text("p.you")
    assert "starting from the bottom edge" in you, you  # seat 0 deploys on the bottom edge
    sentence = page.locator("#todo p", has_text="needs your orders").inner_text()
    assert sentence.count("your time") == 1, sentence
    assert "America/New_York, your time" in sentence and "on this device:" in sentence
    assert "Asia/Tokyo" in sentence
