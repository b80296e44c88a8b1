"""Schedule state kept beside the lifecycle's tables, one row per seat or round when needed.

A missing row means the defaults, so games created before these tables existed behave.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Integer, String, false
from sqlalchemy.orm import Mapped, mapped_column

from service.models import Base

# Who plays a seat: its person, the engine's bot, nobody (open for a replacement: units hold),
# or nobody for good (removed by the GM: units hold).
CONTROLLERS = ("human", "bot", "open", "removed")


class SeatSchedule(Base):
    __tablename__ = "seat_schedule"

    seat_id: Mapped[int] = mapped_column(ForeignKey("seats.id"), primary_key=True)
    wait: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    reminder_lead_seconds: Mapped[int | None] = mapped_column(Integer)  # None: the default 12 h
    absences: Mapped[list[Any]] = mapped_column(JSON, default=list)
    misses: Mapped[int] = mapped_column(Integer, default=0, server_default="0")  # consecutive missed rounds
    controller: Mapped[str] = mapped_column(String(8), default="human", server_default="human")


class RoundSchedule(Base):
    __tablename__ = "round_schedule"

    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"), primary_key=True)
    # the missed-turn extension was used (a round is extended at most once)
    extended: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
