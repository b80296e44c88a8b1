"""Whole games played by the engine's bot for every seat through the JSON API (in process,
SQLite): cheap finished games for the players' history and ratings."""

from __future__ import annotations

from typing import Any

from flask import Flask

from tests.service.play import Table, start


def play_out(app: Flask, client: Any, seats: dict[str, str], seed: str, max_rounds: int = 60,
             **extra: Any) -> Table:
    """Start a universal game with these seats (name -> address) and let the bot play every
    seat until it ends; the finished table."""
    body = {"ruleset": "universal", "title": f"Rated {seed}", "public": True,
            "options": {"max_rounds": max_rounds},
            "seats": [{"name": n, "email": a} for n, a in seats.items()], **extra}
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.json
    table = Table(client, r.json["id"], {**r.json, "ruleset": "universal"})
    for seat in table.created["seats"]:
        r = client.post(f"/api/games/{table.id}/join", json={"invite_token": seat["invite_token"]})
        assert r.status_code == 200, r.json
        table.tokens[seat["name"]] = r.json["player_token"]
    for _ in range(max_rounds + 2):
        status = table.status()
        if status["status"] == "finished":
            return table
        done = {s["name"] for s in status["seats"] if s["submitted"]}
        for name in status["expected"]:
            if name not in done:
                r = table.put(name, table.bot(app, name, seed))
                assert r.status_code == 200, r.json
    raise AssertionError(f"game {table.id} did not end")


__all__ = ["play_out", "start"]
