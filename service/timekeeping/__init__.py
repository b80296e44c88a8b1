"""The schedule applied to stored games: deadlines when rounds open, the early close,
due rounds and missed turns, reminders, and each seat's schedule settings.

The rules themselves live in service.schedule (no Flask, no database); this package reads
and writes the tables, and is called from the lifecycle (round opening, submission), the
sweeper and the GM console. Its own tables (seat_schedule, round_schedule) keep the
lifecycle's tables untouched.
"""
