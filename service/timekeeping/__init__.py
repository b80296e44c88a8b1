"""The schedule applied to stored games: deadlines when rounds open, the early close,
due rounds and missed turns, reminders, and each seat's schedule settings.

The rules themselves live in service.schedule (no Flask, no database); this package reads
and writes the tables, and is called from the lifecycle (round opening, submission), the
sweeper and the GM console. Its own tables (seat_schedule, round_schedule) keep the
lifecycle's tables untouched.

- state: each seat's and round's schedule rows, the game's policy, who is expected and in.
- open_close: a round opens (deadline set, bots write orders) and closes (early once
  everyone is in, or when claimed for resolution).
- due: what the sweeper finds due: deadlines and missed turns, held-back early closes,
  reminders; `sweep_schedule` runs one pass.

The deadline of a round is `rounds.closes_at` (games.deadline_at is left unused: a copy
would go stale). Row locks are taken in one order so that no two writers wait on each
other: game, then round, then seat rows (GM actions); round, then seat rows (submit, the
sweeper, player settings); the sweeper never locks a game row.
"""
