"""The record each reader downloads: the public one holds the public talk, a player's the
private messages they sent or got too, the GM's the GM's own; every variant verifies,
and the messages change nothing the dice chain or the replay covers."""

from __future__ import annotations

import json
from typing import Any

from click.testing import CliRunner

from engine.verify import parse_record, verify
from service.commands.verify import read_source
from tests.service.schedule_world import World


def _talk(world: World) -> None:
    for seat, to, text in (("red", "all", "good luck"), ("red", "blue", "red to blue"),
                           ("blue", "gm", "blue to the GM"), ("green", "red", "green to red")):
        r = world.client.post(f"/games/{world.game_id}/player/{world.tokens[seat]}/messages",
                              data={"to": to, "text": text})
        assert r.status_code == 303
    gm = world.client.post(f"/games/{world.game_id}/gm/{world.gm_token}/messages",
                           data={"to": "green", "text": "GM to green"})
    assert gm.status_code == 303


def _record(world: World, token: str | None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = world.app.test_client().get(f"/api/games/{world.game_id}/record", headers=headers)
    assert r.status_code == 200, r.json
    return parse_record(r.data)


def test_each_reader_gets_its_messages_and_every_record_verifies(tmp_path: Any) -> None:
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H"}, seats=("red", "blue", "green"))
    _talk(world)  # round 1
    for seat in ("red", "blue", "green"):
        assert world.submit(seat).status_code == 200
    assert world.steps() == 2
    r = world.client.post(f"/games/{world.game_id}/player/{world.tokens['blue']}/messages",
                          data={"to": "red", "text": "round 2: blue to red"})
    assert r.status_code == 303
    for seat in ("red", "blue", "green"):
        assert world.submit(seat).status_code == 200
    assert world.steps() == 3

    said = {who: [(m["round"], m["from"], m["to"], m["text"]) for m in _record(world, token)["messages"]]
            for who, token in (("public", None), ("red", world.tokens["red"]), ("blue", world.tokens["blue"]),
                               ("gm", world.gm_token))}
    public = [(1, "red", "all", "good luck")]
    assert said["public"] == public
    assert said["red"] == [*public, (1, "red", "blue", "red to blue"), (1, "green", "red", "green to red"),
                           (2, "blue", "red", "round 2: blue to red")]
    assert said["blue"] == [*public, (1, "red", "blue", "red to blue"), (1, "blue", "gm", "blue to the GM"),
                            (2, "blue", "red", "round 2: blue to red")]
    # The GM's: the public talk and the GM's own (this game lets the GM read no private talk between seats).
    assert said["gm"] == [*public, (1, "blue", "gm", "blue to the GM"), (1, "gm", "green", "GM to green")]

    records = [_record(world, t) for t in (None, world.tokens["red"], world.gm_token)]
    for record in records:
        result = verify(record)
        assert result.ok, result.differences
    # The messages are outside the chain: the steps are the same bytes in every variant.
    assert len({json.dumps(r["steps"], sort_keys=True) for r in records}) == 1
    assert len({r["checksum"] for r in records}) == 3  # each record's own checksum covers its messages


def test_dicepost_verify_sends_the_token_for_a_private_record(tmp_path: Any, monkeypatch: Any) -> None:
    """`--token` (or DICEPOST_TOKEN) goes out as a Bearer header, never in the URL."""
    seen: list[tuple[str, str | None]] = []

    class Answer:
        def __enter__(self) -> Answer:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def read(self, _n: int) -> bytes:
            return b"{}"

    def fake_urlopen(request: Any, timeout: float) -> Answer:
        seen.append((request.full_url, request.get_header("Authorization")))
        return Answer()

    monkeypatch.setattr("urllib.request.urlopen", fake_urlopen)
    assert read_source("http://dicepost.test/api/games/g/record", token="tok-1") == b"{}"
    assert seen == [("http://dicepost.test/api/games/g/record", "Bearer tok-1")]
    from service.commands.verify import command
    CliRunner().invoke(command, ["http://dicepost.test/api/games/g/record"], env={"DICEPOST_TOKEN": "tok-2"})
    assert seen[-1] == ("http://dicepost.test/api/games/g/record", "Bearer tok-2")
