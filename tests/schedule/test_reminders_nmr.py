from datetime import UTC, datetime, timedelta

import pytest

from service.schedule.nmr import MissedTurnPlan, next_misses, plan_missed_turns, seat_action
from service.schedule.policy import NmrPolicy
from service.schedule.reminders import DEFAULT_LEAD, parse_lead, reminder_due, reminder_key

OPEN = datetime(2026, 6, 1, 12, tzinfo=UTC)
DEADLINE = OPEN + timedelta(hours=48)


def test_reminder_due_window():
    lead = DEFAULT_LEAD
    assert lead == timedelta(hours=12)
    assert not reminder_due(DEADLINE - timedelta(hours=12, seconds=1), OPEN, DEADLINE, lead)
    assert reminder_due(DEADLINE - timedelta(hours=12), OPEN, DEADLINE, lead)
    assert reminder_due(DEADLINE - timedelta(seconds=1), OPEN, DEADLINE, lead)
    assert not reminder_due(DEADLINE, OPEN, DEADLINE, lead)


def test_reminder_skipped_when_its_moment_is_before_the_round_opened():
    short = OPEN + timedelta(hours=6)
    assert not reminder_due(OPEN + timedelta(hours=1), OPEN, short, DEFAULT_LEAD)
    assert reminder_due(OPEN + timedelta(hours=1), OPEN, short, timedelta(hours=5, minutes=30))


def test_reminder_off_and_no_deadline():
    assert not reminder_due(DEADLINE - timedelta(minutes=1), OPEN, DEADLINE, timedelta(0))
    assert not reminder_due(DEADLINE - timedelta(minutes=1), OPEN, None, DEFAULT_LEAD)


def test_reminder_key_is_unique_per_seat_round_and_deadline():
    a = reminder_key(7, 3, DEADLINE)
    assert a == "7.r3.20260603T120000Z"
    assert a == reminder_key(7, 3, DEADLINE.astimezone(__import__("zoneinfo").ZoneInfo("Asia/Tokyo")))
    assert len({a, reminder_key(8, 3, DEADLINE), reminder_key(7, 4, DEADLINE),
                reminder_key(7, 3, DEADLINE + timedelta(hours=1))}) == 4


def test_parse_lead():
    assert parse_lead("PT6H") == timedelta(hours=6)
    assert parse_lead("PT0S") == timedelta(0)
    with pytest.raises(ValueError, match="reminder_lead: at most P14D"):
        parse_lead("P15D")
    with pytest.raises(ValueError, match="reminder_lead: 'soon' is not"):
        parse_lead("soon")


def test_hold_is_the_default():
    assert seat_action(NmrPolicy(), 1) == "hold"
    assert seat_action(NmrPolicy(), 50) == "hold"
    assert plan_missed_turns(NmrPolicy(), {"red": 0, "blue": 4}, False) == MissedTurnPlan(
        actions={"red": "hold", "blue": "hold"})


@pytest.mark.parametrize("action", ["bot", "replace"])
def test_action_after_k_consecutive_misses(action):
    policy = NmrPolicy(after=2, action=action)
    assert seat_action(policy, 1) == "hold"
    assert seat_action(policy, 2) == action
    plan = plan_missed_turns(policy, {"red": 0, "blue": 1}, False)
    assert not plan.extend
    assert plan.seats("hold") == ["red"]
    assert plan.seats(action) == ["blue"]


def test_extend_once_then_hold():
    policy = NmrPolicy(after=2, action="extend")
    assert plan_missed_turns(policy, {"red": 0}, False) == MissedTurnPlan(actions={"red": "hold"})
    assert plan_missed_turns(policy, {"red": 0, "blue": 1}, False) == MissedTurnPlan(extend=True)
    after = plan_missed_turns(policy, {"red": 0, "blue": 1}, True)
    assert not after.extend
    assert after.seats("hold") == ["blue", "red"]


def test_next_misses_resets_and_counts():
    assert next_misses({"red": 2, "blue": 1, "green": 3}, {"red"}, {"blue"}) == {"red": 0, "blue": 2, "green": 3}
    assert next_misses({}, set(), {"red"}) == {"red": 1}


def test_a_seat_whose_mail_bounces_gets_the_action_sooner():
    """missed_turns.unreachable_after: a seat that gets no mail (its address bounces) is handed
    on after that many misses, everyone else after `after`."""
    policy = NmrPolicy(after=3, action="bot", unreachable_after=1)
    assert seat_action(policy, 1) == "hold"
    assert seat_action(policy, 1, unreachable=True) == "bot"
    plan = plan_missed_turns(policy, {"red": 0, "blue": 0}, False, unreachable={"blue"})
    assert plan.seats("bot") == ["blue"] and plan.seats("hold") == ["red"]
    # Without the option an unreachable seat waits like the others.
    assert seat_action(NmrPolicy(after=3, action="bot"), 1, unreachable=True) == "hold"


def test_unreachable_after_is_read_checked_and_written_back():
    from service.schedule.policy import PolicyError, parse_policy, policy_to_json

    policy = parse_policy({"kind": "none", "missed_turns": {"after": 2, "action": "replace",
                                                            "unreachable_after": 1}})
    assert policy.missed_turns.unreachable_after == 1
    assert policy_to_json(policy)["missed_turns"]["unreachable_after"] == 1
    assert "unreachable_after" not in policy_to_json(parse_policy({"kind": "none"}))["missed_turns"]
    with pytest.raises(PolicyError, match=r"missed_turns\.unreachable_after"):
        parse_policy({"kind": "none", "missed_turns": {"unreachable_after": 0}})
