"""What the GM console shows: the schedule's state of a game and its audit entries."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from service.address_confirm import is_confirmed
from service.audit import schedule_entries
from service.gm.auth import gm_game
from service.integrity import damage_reports
from service.mail.outbox import backlog, failed_mail, failing
from service.schedule.durations import format_duration
from service.schedule.policy import policy_to_json
from service.timekeeping.state import open_round, policy_of, reminder_lead, seat_schedule, submitted_names


def console_json(session: Session, game_id: str, token: str | None) -> dict[str, Any]:
    with session.begin():
        game = gm_game(session, game_id, token, lock=False)
        rnd = open_round(session, game) if game.status == "active" else None
        done = submitted_names(session, game, rnd) if rnd else set()
        policy = policy_of(game)
        seats = []
        for seat in game.seats:
            row = seat_schedule(session, seat, create=False)
            seats.append({"name": seat.name, "email": seat.email, "played_by": row.controller,
                          "missed_in_a_row": row.misses, "wait": row.wait, "submitted": seat.name in done,
                          "expected": bool(rnd and seat.name in rnd.expected),
                          "reminder_lead": format_duration(reminder_lead(row)),
                          "absences": row.absences or [],
                          "mail_failing": (None if (dead := failing(session, seat.email)) is None else
                                           {"since": dead.since.isoformat(), "reason": dead.reason}),
                          "email_confirmed": is_confirmed(session, seat.email)})
        return {
            "id": game.id, "title": game.title, "status": game.status, "round": game.current_round,
            "round_open": rnd is not None,
            "deadline": rnd.closes_at.isoformat() if rnd and rnd.closes_at else None,
            "deadline_local": (rnd.closes_at.astimezone(policy.zone).isoformat()  # the policy's zone
                               if rnd and rnd.closes_at else None),
            "paused_at": game.paused_at.isoformat() if game.paused_at else None,
            "policy": policy_to_json(policy), "outcome": game.outcome,
            "seats": seats, "audit": schedule_entries(session, game.id),
            "failed_mail": [{"id": f.id, "kind": f.kind, "to": f.to_address, "seat": f.seat,
                             "attempts": f.attempts, "error": f.error, "created_at": f.created_at.isoformat()}
                            for f in failed_mail(session, game.id)],
            "mail_backlog": backlog(session, game.id),  # domain -> mails held back
            "damaged": damage_reports(session, game.id),  # service.integrity: rows to repair
        }
