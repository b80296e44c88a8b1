"""The domain tells every notification channel each event once, in the transaction that
makes it, with public news apart from private (service.notify)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from flask import Flask
from sqlalchemy.orm import Session

from service import notify
from service.notify import News
from tests.service.schedule_world import World


@dataclass
class Recorder:
    """A channel that keeps what it is told."""

    name: str = "recorder"
    told: list[News] = field(default_factory=list)

    def queue(self, session: Session, news: News) -> None:
        self.told.append(news)

    def lost(self, app: Flask) -> int:
        return 0


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    channel = Recorder()
    monkeypatch.setattr(notify, "CHANNELS", (*notify.CHANNELS, channel))
    return channel


def events(recorder: Recorder) -> list[tuple[str, Any]]:
    return [(n.event, n.to) for n in recorder.told]


def test_a_game_from_start_to_end_tells_each_event(tmp_path: Any, recorder: Recorder) -> None:
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H"})
    assert [n.event for n in recorder.told] == ["gm_news", "game_started", "round_opened"]
    assert recorder.told[0].data["action"] == "gm_set_policy"  # before the joins
    opened = recorder.told[2]
    assert opened.data["round"] == 1 and opened.data["expected"] == ["red", "blue"]
    assert opened.data["deadline"] == world.deadline().isoformat()  # type: ignore[union-attr]
    assert opened.public

    world.advance(hours=40)
    world.sweep()
    reminders = [n for n in recorder.told if n.event == "reminder"]
    assert reminders and reminders[0].data["waiting"] == ["red", "blue"]
    assert reminders[0].key == f"reminder.1.{world.deadline().isoformat()}"  # type: ignore[union-attr]

    recorder.told.clear()
    world.gm("POST", "pause")
    world.gm("POST", "resume")
    assert [(n.event, n.data["action"]) for n in recorder.told] == [("gm_news", "gm_pause"),
                                                                    ("gm_news", "gm_resume")]
    assert "UTC" in recorder.told[1].data["text"]

    recorder.told.clear()
    world.submit("red")
    world.submit("blue")
    assert [n.event for n in recorder.told][:2] == ["round_resolved", "round_opened"]
    assert recorder.told[0].data == {"round": 1, "step": 2}

    recorder.told.clear()
    assert world.gm("POST", "end").status_code == 200
    assert [n.event for n in recorder.told] == ["game_over"]
    assert recorder.told[0].data["outcome"]["draw"] is True


def test_table_talk_is_public_only_when_it_is_to_everyone(tmp_path: Any, recorder: Recorder) -> None:
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H"})
    recorder.told.clear()
    for to in ("all", "blue"):
        r = world.client.post(f"/api/games/{world.game_id}/messages", json={"to": to, "text": f"hi {to}"},
                              headers={"Authorization": f"Bearer {world.tokens['red']}"})
        assert r.status_code == 201, r.json
    assert events(recorder) == [("message", None), ("message", ("blue",))]
    assert recorder.told[0].data["text"] == "hi all"


def test_a_replacement_news_names_no_address(tmp_path: Any, recorder: Recorder) -> None:
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H"})
    recorder.told.clear()
    r = world.gm("POST", "replace", {"seat": "blue", "email": "newcomer@example.org"})
    assert r.status_code == 200, r.json
    assert [n.event for n in recorder.told] == ["gm_news"]
    assert "newcomer" not in repr(recorder.told[0].data)


def test_an_unknown_event_is_refused() -> None:
    with pytest.raises(ValueError, match="no event 'bogus'"):
        notify.notify(None, "g", "bogus", {})  # type: ignore[arg-type]
