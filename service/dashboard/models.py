"""One-time sign-in links for a player's dashboard (the `login_links` table).

Only the SHA-256 of a link's token is looked up; the token itself is never stored. The
mail that carries it re-derives it from the row's salt and the app's SECRET_KEY
(service.dashboard.links), so neither this table nor the outbox holds a usable link.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from service.models import Base, UTCDateTime, utcnow


class LoginLink(Base):
    __tablename__ = "login_links"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    email: Mapped[str] = mapped_column(String(320))  # lower-cased
    salt: Mapped[str] = mapped_column(String(32))  # hex; with SECRET_KEY gives the token
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    __table_args__ = (Index("ix_login_links_email_created", "email", "created_at"),)


