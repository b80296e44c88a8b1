"""Scheduling rules with no Flask and no database: deadline policies, deadlines, absences,
reminders and missed turns. The service's sweeper and GM console call these with the time
from service.clock."""

from service.schedule.deadlines import (
    Absence,
    extended_deadline,
    outside_quiet_hours,
    parse_absences,
    resumed_deadline,
    round_deadline,
    rule_deadline,
    stretch_for_absences,
)
from service.schedule.durations import DurationError, format_duration, parse_duration
from service.schedule.nmr import MissedTurnPlan, next_misses, plan_missed_turns, seat_action
from service.schedule.policy import DEFAULT_POLICY, DeadlinePolicy, PolicyError, parse_policy, policy_to_json
from service.schedule.reminders import DEFAULT_LEAD, parse_lead, reminder_due, reminder_key

__all__ = [
    "DEFAULT_LEAD", "DEFAULT_POLICY", "Absence", "DeadlinePolicy", "DurationError",
    "MissedTurnPlan", "PolicyError", "extended_deadline", "format_duration",
    "next_misses", "outside_quiet_hours", "parse_absences", "parse_duration", "parse_lead", "parse_policy",
    "plan_missed_turns", "policy_to_json", "reminder_due", "reminder_key", "resumed_deadline",
    "round_deadline", "rule_deadline", "seat_action", "stretch_for_absences",
]
