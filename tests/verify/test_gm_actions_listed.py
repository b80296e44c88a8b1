"""`dicepost verify` lists every GM action that changed a round (early resolve, extension,
replacement, bot takeover), with the round it bore on, who did it and when, and every
server-made seat: the things a player must judge for themselves, since no hash can."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.service.schedule_world import World
from tests.service.test_cli import invoke


def test_the_command_lists_each_gm_action_by_round_and_each_server_made_seat(tmp_path: Path) -> None:
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H"})
    world.submit("red", world.legal_order("red"))
    assert world.gm("POST", "extend", {"by": "PT6H"}).status_code == 200
    assert world.gm("POST", "resolve").status_code == 200
    assert world.round_number() == 2
    replaced = world.gm("POST", "replace", {"seat": "blue", "email": "newcomer@example.org"})
    assert replaced.status_code == 200, replaced.json
    taken = world.client.post(f"/api/games/{world.game_id}/takeover",
                              json={"invite_token": replaced.json["invite_token"]})
    assert taken.status_code == 200, taken.json
    world.submit("red", world.legal_order("red"))
    assert world.gm("POST", "remove", {"seat": "blue", "units": "bot"}).status_code == 200
    assert world.round_number() == 3

    record: dict[str, Any] = world.client.get(f"/api/games/{world.game_id}/record").json
    listed = [(a["round"], a["action"], a["actor"]) for a in record["gm_actions"]]
    assert listed == [(None, "gm_set_policy", "gm"), (1, "gm_extend", "gm"), (1, "gm_resolve_now", "gm"), (2, "seat_opened", "gm"),
                      (2, "gm_replace", "gm"), (2, "seat_claimed", "blue"), (2, "seat_to_bot", "gm"),
                      (2, "gm_remove", "gm")]
    assert "newcomer@example.org" not in json.dumps(record["gm_actions"])  # no address made public
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    done = invoke("verify", str(path))
    assert done.exit_code == 0, done.stdout
    lines = [line for line in done.stdout.splitlines() if line.startswith(("GM action", "server-made"))]
    extend = next(a for a in record["gm_actions"] if a["action"] == "gm_extend")
    assert lines[:2] == ["server-made entropy: red (fixed by the commitment; it adds nothing to the salt)",
                         "server-made entropy: blue (fixed by the commitment; it adds nothing to the salt)"]
    assert lines[2].startswith("GM action: before round 1: deadline policy changed (by the GM, at ")
    lines = lines[:2] + lines[3:]
    assert lines[2] == (f"GM action: round 1: deadline moved from {extend['detail']['from']} to "
                        f"{extend['detail']['to']} (by the GM, at {extend['at']})")
    assert lines[3].startswith("GM action: round 1: resolved early (its deadline was ")
    assert lines[4].startswith("GM action: round 2: seat blue opened for a replacement player (by the GM, at ")
    assert lines[6].startswith("GM action: round 2: seat blue taken by a replacement player (by blue, at ")
    assert lines[7].startswith("GM action: round 2: seat blue handed to the bot (by the GM, at ")
    assert lines[8].startswith("GM action: round 2: player of seat blue removed (their units: bot) (by the GM")
    assert "played by the bot: blue in round 2 (orders recomputed)" in done.stdout
    # The same words in the report the verifier page reads (engine.browser runs this check).
    report = json.loads(invoke("verify", "--json", str(path)).stdout)
    assert [f"GM action: {t}" for t in report["gm_action_texts"]] == [
        line for line in done.stdout.splitlines() if line.startswith("GM action")]
