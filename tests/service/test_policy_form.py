"""The deadline policy as a form: presets, words for durations, every problem at its field."""

from __future__ import annotations

from werkzeug.datastructures import MultiDict

from service.schedule.form import form_values, policy_from_form
from service.schedule.policy import NMR_ACTIONS
from service.schedule.words import NMR_LABELS, describe_policy


def test_every_missed_turn_action_has_words() -> None:
    assert set(NMR_LABELS) == set(NMR_ACTIONS)


def test_a_preset_takes_the_chosen_zone() -> None:
    policy, problems = policy_from_form({"policy_preset": "monthu", "policy_timezone": "Europe/Berlin"})
    assert problems == {}
    assert policy is not None
    assert (policy["kind"], policy["days"], policy["time"], policy["timezone"]) == (
        "calendar", ["mon", "thu"], "20:00", "Europe/Berlin")
    assert policy_from_form({"policy_preset": "48h"})[0]["duration"] == "P2D"  # type: ignore[index]
    assert policy_from_form({}) == (None, {})  # no policy fields: the default policy


def test_the_full_form_in_words_round_trips() -> None:
    form = MultiDict([("policy_preset", "custom"), ("policy_kind", "duration"),
                      ("policy_duration", "36 hours"), ("policy_timezone", "America/New_York"),
                      ("policy_quiet_start", "23:00"), ("policy_quiet_end", "07:30"),
                      ("policy_absence_limit", "3 days"), ("policy_missed_after", "2"),
                      ("policy_missed_action", "bot"), ("policy_extend_by", "12 hours")])
    policy, problems = policy_from_form(form)
    assert problems == {} and policy is not None
    assert policy["duration"] == "P1DT12H" and policy["absence_limit"] == "P3D"
    assert policy["missed_turns"] == {"after": 2, "action": "bot", "extend_by": "PT12H"}
    values = form_values(policy)
    assert values["policy_duration"] == "1 day 12 hours" and values["policy_extend_by"] == "12 hours"
    assert policy_from_form(MultiDict(values))[0] == policy
    assert describe_policy(policy) == (
        "Each round closes 1 day 12 hours after it opens; never between 23:00 and 07:30 "
        "(America/New_York); after 2 missed rounds in a row, the bot plays them.")


def test_every_problem_is_named_at_its_field() -> None:
    form = MultiDict([("policy_preset", "custom"), ("policy_kind", "calendar"), ("policy_time", "7pm"),
                      ("policy_timezone", "Mars/Olympus"), ("policy_quiet_start", "22:00"),
                      ("policy_quiet_end", "22:00"), ("policy_absence_limit", "a while"),
                      ("policy_missed_after", "0"), ("policy_missed_action", "shoot")])
    policy, problems = policy_from_form(form)
    assert policy is None
    assert set(problems) == {"policy_days", "policy_time", "policy_timezone", "policy_quiet_start",
                             "policy_absence_limit", "policy_missed_after", "policy_missed_action"}
    assert problems["policy_time"] == "expected HH:MM (24-hour), got '7pm'"
    assert problems["policy_timezone"] == "unknown IANA time zone 'Mars/Olympus'"
    assert "'a while' is not a duration" in problems["policy_absence_limit"]
