"""Done when: a game whose players go quiet still moves on by its rules to its end, and
everyone is reminded once per deadline while they still play in person."""

from __future__ import annotations

from collections import Counter

from tests.service.schedule_world import World


def test_a_game_whose_players_go_quiet_still_ends(tmp_path):
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H",
                                   "missed_turns": {"after": 2, "action": "bot"}},
                                  options={"max_rounds": 6})
    for _ in range(12):
        if world.game().status == "finished":
            break
        world.advance(hours=36)
        world.sweep()  # reminders, 12 hours before each deadline
        world.advance(hours=12)
        world.sweep()  # the deadline
    game = world.game()
    assert game.status == "finished", game.current_round
    assert game.outcome is not None
    # rounds 1 and 2 were missed in person (reminded once each), then the bot played both seats
    assert sorted(e.detail["seat"] for e in world.audit("seat_to_bot")) == ["blue", "red"]
    reminded = Counter((r.to_address, r.payload["round"]) for r in world.outbox("reminder"))
    assert reminded == {(f"{s}@example.org", n): 1 for s in ("red", "blue") for n in (1, 2)}
    closed = [e.detail["round"] for e in world.audit("deadline_closed")]
    assert closed == list(range(1, len(closed) + 1))
