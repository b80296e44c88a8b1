"""The GM console for people: every GM action reaches every player (mail of kind gm_news,
and a banner on the game's pages), announcements, extensions in words and in the game's
own zone, the deadline policy as a form with every problem at its field, the log in words."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from werkzeug.datastructures import MultiDict

from service.gm.news import news_items
from tests.service.schedule_world import DATABASES, START, World, database

DEADLINE = START + timedelta(hours=48)
BERLIN = {"kind": "duration", "duration": "PT48H", "timezone": "Europe/Berlin"}


@pytest.fixture(params=DATABASES)
def world(request, tmp_path):
    made = World(database(request, tmp_path)).start(BERLIN)
    made.setup_news = {r.id for r in made.outbox("gm_news")}  # the setup's own policy change
    return made


def page(world: World, path: str = "") -> str:
    return world.client.get(f"/games/{world.game_id}{path}").get_data(as_text=True)


def news(world: World) -> list[tuple[str, str]]:
    """Every GM action told by mail since the setup, (address, sentence): a mail gathers the
    actions of a few minutes, the setup's own policy change first in its mails."""
    return sorted((r.to_address, item["text"]) for r in world.outbox("gm_news")
                  for item in news_items(r.payload)[1 if r.id in world.setup_news else 0:])


def test_a_pause_is_mailed_to_every_player_and_shown_on_every_page(world):
    world.advance(hours=2)  # 14:00 UTC is 16:00 in Berlin (summer time)
    assert world.gm("POST", "pause").status_code == 200
    said = ("GM paused the game: no round closes until it resumes; the deadline was Wed 03 Jun 14:00")
    assert news(world) == [("blue@example.org", said), ("red@example.org", said)]
    for text in (page(world), page(world, f"/player/{world.tokens['red']}")):
        assert "Paused by the GM since Mon 01 Jun 16:00 (Europe/Berlin)." in text
        assert "Orders sent during the pause are kept, and they count when play resumes." in text
        assert "(<strong>paused</strong> by the GM)" in text
    game = page(world)
    assert "closes at" not in game and "its deadline (it was" in game
    player = page(world, f"/player/{world.tokens['red']}")
    assert "orders you send now are kept, and they count when play resumes" in player
    world.advance(hours=3)
    world.gm("POST", "resume")
    resumed = [t for _a, t in news(world) if "resumed" in t]
    assert resumed == ["GM resumed the game after a pause of 3 hours; deadline moved to Wed 03 Jun 17:00"] * 2
    text = page(world)
    assert "Paused by the GM" not in text and "Latest from the GM" in text


def test_a_player_who_wants_no_mail_gets_no_gm_news(world):
    world.settings("blue", {"mail_pref": "none"})
    world.gm("POST", "extend", {"by": "1 day"})
    assert [a for a, _t in news(world)] == ["red@example.org"]


def test_an_announcement_reaches_every_player_by_page_and_mail(world):
    base = f"/games/{world.game_id}/gm/{world.gm_token}"
    r = world.client.post(base + "/announce", data={"text": "Round 2 starts <b>late</b>: I am away."},
                          follow_redirects=True)
    assert "mailed to every player" in r.get_data(as_text=True)
    assert news(world)[0][1] == "GM announcement: Round 2 starts <b>late</b>: I am away."
    for text in (page(world), page(world, f"/player/{world.tokens['blue']}")):
        assert "From the GM" in text and "Round 2 starts &lt;b&gt;late&lt;/b&gt;: I am away." in text
    r = world.client.post(base + "/announce", data={"text": "  "}, follow_redirects=True)
    assert "text: write the announcement" in r.get_data(as_text=True)
    r = world.client.post(base + "/announce", data={"text": "x" * 2001}, follow_redirects=True)
    assert "at most 2000 characters" in r.get_data(as_text=True)
    assert len(news(world)) == 2


def test_the_gms_banners_expire_with_the_round_they_belong_to(world):
    base = f"/games/{world.game_id}/gm/{world.gm_token}"
    world.client.post(base + "/announce", data={"text": "Round 1 is a warm-up."})
    world.client.post(base + "/extend", data={"by": "12 hours"})
    for text in (page(world), page(world, f"/player/{world.tokens['red']}")):
        assert 'id="gm-announcement"' in text and 'id="gm-latest"' in text and "Round 1 is a warm-up." in text
    world.advance(hours=1)
    for seat in ("red", "blue"):
        assert world.submit(seat).status_code == 200
    assert world.steps() == 2  # round 2 is open: round 1's news is history, in the log only
    for text in (page(world), page(world, f"/player/{world.tokens['red']}")):
        assert 'id="gm-announcement"' not in text and 'id="gm-latest"' not in text
    world.client.post(base + "/announce", data={"text": "Round 2 now."})
    assert 'id="gm-announcement"' in page(world) and "Round 2 now." in page(world)


def test_quick_extensions_in_words_and_until_a_time_in_the_games_zone(world):
    base = f"/games/{world.game_id}/gm/{world.gm_token}"
    world.client.post(base + "/extend", data={"by": "12 hours"})
    assert world.deadline() == DEADLINE + timedelta(hours=12)
    world.client.post(base + "/extend", data={"by": "1 day"})
    assert world.deadline() == DEADLINE + timedelta(hours=36)
    world.client.post(base + "/extend", data={"by": "PT1H"})
    assert world.deadline() == DEADLINE + timedelta(hours=37)
    world.client.post(base + "/extend", data={"until_local": "2026-06-10T20:00"})  # Berlin wall clock
    assert world.deadline() == datetime(2026, 6, 10, 18, tzinfo=UTC)
    r = world.client.post(base + "/extend", data={"by": "a while"}, follow_redirects=True)
    assert "is not an ISO 8601 duration" in r.get_data(as_text=True)
    log = page(world)
    assert "GM extended round 1: deadline moved from Wed 03 Jun 14:00 to Thu 04 Jun 02:00." in log
    assert "&#34;from&#34;" not in log and '"from"' not in log  # words, not the stored JSON


def test_the_policy_form_names_every_problem_at_its_field_and_keeps_what_was_typed(world):
    base = f"/games/{world.game_id}/gm/{world.gm_token}"
    r = world.client.post(base + "/policy", data={
        "policy_preset": "custom", "policy_kind": "calendar", "policy_time": "8pm",
        "policy_timezone": "Europe/Berlin", "policy_quiet_start": "23:00", "policy_quiet_end": "",
        "policy_missed_after": "2", "policy_missed_action": "bot"}, follow_redirects=True)
    text = r.get_data(as_text=True)
    assert "The policy was not changed: 3 problems to fix" in text
    assert 'id="policy_days-error">tick at least one day' in text
    assert "expected HH:MM (24-hour), got &#39;8pm&#39;" in text and 'value="8pm"' in text
    assert 'id="policy_quiet_end-error"' in text
    assert world.game().deadline_policy == world.game().deadline_policy | {"kind": "duration"}
    calendar = [("policy_preset", "custom"), ("policy_kind", "calendar"), ("policy_days", "mon"),
                ("policy_days", "thu"), ("policy_time", "20:00"), ("policy_timezone", "Europe/Berlin")]
    # The missed-turn policy is part of the terms the seated players hold: it stays as joined.
    r = world.client.post(base + "/policy", data=MultiDict([
        *calendar, ("policy_missed_after", "2"), ("policy_missed_action", "bot"),
        ("policy_extend_by", "12 hours")]), follow_redirects=True)
    assert "the missed-turn policy is part of the game&#39;s terms" in r.get_data(as_text=True)
    assert world.game().deadline_policy["kind"] == "duration"
    r = world.client.post(base + "/policy", data=MultiDict([
        *calendar, ("policy_missed_after", "1"), ("policy_missed_action", "hold"),
        ("policy_extend_by", "1 day")]), follow_redirects=True)
    policy = world.game().deadline_policy
    assert (policy["kind"], policy["days"], policy["time"]) == ("calendar", ["mon", "thu"], "20:00")
    assert policy["missed_turns"] == {"after": 1, "action": "hold", "extend_by": "P1D"}
    said = [t for _a, t in news(world) if "policy" in t]
    assert said[0] == ("GM changed the deadline policy for rounds opened from now on: Rounds close Mon & Thu "
                       "at 20:00 (Europe/Berlin); after 1 missed round in a row, their units hold.")
    console = r.get_data(as_text=True)
    assert "Rounds close Mon &amp; Thu at 20:00 (Europe/Berlin)" in console
    assert 'value="1 day"' in console  # the form shows durations in words


def test_console_times_are_to_the_minute_in_the_games_zone(world):
    world.advance(seconds=12.345678)
    world.gm("POST", "pause")
    text = world.client.get(f"/games/{world.game_id}/gm/{world.gm_token}").get_data(as_text=True)
    assert "paused</strong> since Mon 01 Jun 14:00 (Europe/Berlin)" in text
    assert "Wed 03 Jun 14:00 (Europe/Berlin)</time> · Wed 03 Jun 12:00 (UTC)" in text
    visible = re.sub(r"<[^>]+>", "", text.split("Stored entry")[0])  # the JSON only behind its disclosure
    assert ".345678" not in visible and ":12" not in visible


def test_an_opened_seat_reads_as_open_on_the_game_page(world):
    joined = re.compile(r'<span class="side side-\d">(\w+)</span></td><td data-label="Joined">([^<]*)</td>')
    assert dict(joined.findall(page(world))) == {"red": "yes", "blue": "yes"}
    assert world.gm("POST", "replace", {"seat": "red"}).status_code == 200
    assert dict(joined.findall(page(world))) == {"red": "open: waiting for a new player", "blue": "yes"}
    assert world.gm("POST", "remove", {"seat": "blue", "units": "bot"}).status_code == 200
    assert dict(joined.findall(page(world)))["blue"] == "no longer played (the bot plays it)"
