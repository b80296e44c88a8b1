"""Every table of dicepost (SQLAlchemy 2), in one module so Alembic sees them all.

The database is the source of truth.

Secrets are never stored in the clear: the chain tip, the one secret value kept (never
served), is sealed with the seal key (service.dice_keys); every token is kept as its
SHA-256 (service.tokens).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    false,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, relationship

from service import clock


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes on every database (SQLite returns naive ones otherwise)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetimes are not stored; use service.clock.now()")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


# Constraints and indexes get predictable names, so a migration can name what it alters
# (SQLite's batch mode and PostgreSQL alike) instead of guessing a database's own names.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {dict[str, Any]: JSON, list[Any]: JSON}


class Game(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    ruleset: Mapped[str] = mapped_column(String(64))
    # The rules revision the game was created under and plays to its end (engine.registry).
    revision: Mapped[int] = mapped_column(Integer, server_default="1")
    title: Mapped[str] = mapped_column(String(200))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    public: Mapped[bool] = mapped_column(Boolean, default=True)
    status: Mapped[str] = mapped_column(String(16), default="waiting")  # waiting/active/finished
    sealed_tip: Mapped[str] = mapped_column(String(96))  # S_N sealed (service.dice_keys): never served
    # Every 64th link sealed (service.dice_keys): never served; read only by the resolution.
    sealed_marks: Mapped[bytes | None] = mapped_column(LargeBinary, deferred=True)
    chain_length: Mapped[int] = mapped_column(Integer)
    commitment: Mapped[str] = mapped_column(String(64))  # hex S_0
    salt: Mapped[str | None] = mapped_column(String(64))
    current_round: Mapped[int] = mapped_column(Integer, default=0)
    outcome: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    gm_token_hash: Mapped[str] = mapped_column(String(64))
    # The GM's address, lower-cased (optional): the GM's links are mailed there once it
    # confirms, and "Your games" signed in with it lists the game. With it, the GM token is
    # made from `gm_salt` and SECRET_KEY (service.gm.address), so it can be shown again.
    gm_email: Mapped[str | None] = mapped_column(String(320), index=True)
    gm_salt: Mapped[str | None] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)
    deadline_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    paused_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    deadline_policy: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # Chain links revealed by rounds a GM rolled back: the next step takes link t + this.
    links_skipped: Mapped[int] = mapped_column(Integer, server_default="0")

    seats: Mapped[list[Seat]] = relationship(back_populates="game", order_by="Seat.seat_index")

    __table_args__ = (Index("ix_games_public_status", "public", "status"),)


class Seat(Base):
    __tablename__ = "seats"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"))
    seat_index: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(32))  # the player id the engine uses
    email: Mapped[str | None] = mapped_column(String(320))
    invite_token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    player_token_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    joined_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    entropy: Mapped[str | None] = mapped_column(String(128))  # hex, public once joined
    entropy_source: Mapped[str | None] = mapped_column(String(8))  # player/server
    force: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    mail_pref: Mapped[str] = mapped_column(String(8), default="all")  # all/results/none
    # Table talk by mail: each message as it comes, a digest in the results mail, or none.
    message_pref: Mapped[str] = mapped_column(String(8), default="each", server_default="each")
    unsubscribe_token_hash: Mapped[str | None] = mapped_column(String(64))
    reply_token_salt: Mapped[str | None] = mapped_column(String(64))
    # Set when a newcomer takes the seat over: the newest message id then. The private
    # messages before it were the former player's (service.messages).
    private_from: Mapped[int | None] = mapped_column(Integer)
    discord_id: Mapped[str | None] = mapped_column(String(20))  # the player's, for @mentions in chat

    game: Mapped[Game] = relationship(back_populates="seats")

    __table_args__ = (
        UniqueConstraint("game_id", "seat_index", name="uq_seats_game_index"),
        UniqueConstraint("game_id", "name", name="uq_seats_game_name"),
    )


class Round(Base):
    __tablename__ = "rounds"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"))
    number: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="open")  # open/ready/resolved
    expected: Mapped[list[Any]] = mapped_column(JSON, default=list)
    opened_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)
    closes_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    resolved_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    __table_args__ = (
        UniqueConstraint("game_id", "number", name="uq_rounds_game_number"),
        Index("ix_rounds_status", "status"),
    )


class Submission(Base):
    """Every version of a player's orders is kept; the latest before the close counts."""

    __tablename__ = "submissions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat_id: Mapped[int] = mapped_column(ForeignKey("seats.id"))
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"))
    version: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    accepted: Mapped[str] = mapped_column(Text)  # normalized order text
    source: Mapped[str] = mapped_column(String(8))  # web/api/mail
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)

    __table_args__ = (UniqueConstraint("round_id", "seat_id", "version", name="uq_submissions_version"),)


class Step(Base):
    __tablename__ = "steps"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"))
    t: Mapped[int] = mapped_column(Integer)
    inputs: Mapped[dict[str, Any]] = mapped_column(JSON)
    inputs_digest: Mapped[str] = mapped_column(String(64))
    key: Mapped[str] = mapped_column(String(64))  # hex S_t, revealed with the step
    link: Mapped[int | None] = mapped_column(Integer)  # the chain link of `key` when not t (after a rollback)
    state: Mapped[dict[str, Any]] = mapped_column(JSON)
    state_hash: Mapped[str] = mapped_column(String(64))
    events: Mapped[list[Any]] = mapped_column(JSON)
    rolls: Mapped[list[Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)

    __table_args__ = (UniqueConstraint("game_id", "t", name="uq_steps_game_t"),)


class Rollback(Base):
    """A GM's rollback to the start of an earlier round: its entry of the record
    (engine.rollbacks), with the superseded steps and their rounds' versions as they stood."""

    __tablename__ = "rollbacks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    round: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)
    entry: Mapped[dict[str, Any]] = mapped_column(JSON)


class Outbox(Base):
    """Mail to send: inserted in the same transaction as the change it reports."""

    __tablename__ = "outbox"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str | None] = mapped_column(ForeignKey("games.id"))
    seat_id: Mapped[int | None] = mapped_column(ForeignKey("seats.id"))
    kind: Mapped[str] = mapped_column(String(16))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    message_id: Mapped[str] = mapped_column(String(255), unique=True)
    to_address: Mapped[str | None] = mapped_column(String(320))
    status: Mapped[str] = mapped_column(String(8), default="pending")  # pending/sending/sent/failed
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    next_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    __table_args__ = (Index("ix_outbox_status_next", "status", "next_attempt_at"),)


class StoredMail(Base):
    """The embedded mailbox: sent mail kept for viewing in the web app."""

    __tablename__ = "stored_mail"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    outbox_id: Mapped[int | None] = mapped_column(ForeignKey("outbox.id"))
    to: Mapped[str] = mapped_column(String(320))
    subject: Mapped[str] = mapped_column(String(998))
    raw: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)


class InboundMail(Base):
    __tablename__ = "inbound_mail"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    message_id: Mapped[str] = mapped_column(String(998), unique=True)
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    received_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)
    status: Mapped[str] = mapped_column(String(10), default="stored")  # stored/processed/refused
    result: Mapped[str | None] = mapped_column(Text)
    game_id: Mapped[str | None] = mapped_column(ForeignKey("games.id"))

    __table_args__ = (Index("ix_inbound_mail_status", "status"),)


class AuditLog(Base):
    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str | None] = mapped_column(ForeignKey("games.id"))
    at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)
    actor: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(64))
    detail: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)

    __table_args__ = (Index("ix_audit_log_game_at", "game_id", "at"),)


class LoginLink(Base):
    """One-time sign-in link for a player's dashboard.

    Only the SHA-256 of a link's token is looked up; the token itself is never stored. The
    mail that carries it re-derives it from the row's salt and the app's SECRET_KEY
    (service.signin), so neither this table nor the outbox holds a usable link.
    """

    __tablename__ = "login_links"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    email: Mapped[str] = mapped_column(String(320))  # lower-cased
    salt: Mapped[str] = mapped_column(String(32))  # hex; with SECRET_KEY gives the token
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    __table_args__ = (Index("ix_login_links_email_created", "email", "created_at"),)


class SignIn(Base):
    """A dashboard sign-in (service.sign_ins): the SHA-256 of the secret its session cookie
    holds. Signing out deletes the row, and with it every copy of the cookie."""

    __tablename__ = "sign_ins"

    secret_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    email: Mapped[str] = mapped_column(String(320), index=True)  # lower-cased
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)


class MailBounce(Base):
    """A bounce or delivery report that came back for one of our mails (service.inbound.bounces)."""

    __tablename__ = "mail_bounces"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    address: Mapped[str] = mapped_column(String(320))  # lower-cased
    seat_id: Mapped[int | None] = mapped_column(ForeignKey("seats.id"))
    outbox_id: Mapped[int | None] = mapped_column(ForeignKey("outbox.id"))
    at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)
    hard: Mapped[bool] = mapped_column(Boolean)
    status: Mapped[str] = mapped_column(String(16))  # the enhanced status code, 5.1.1
    diagnostic: Mapped[str] = mapped_column(String(500))

    __table_args__ = (Index("ix_mail_bounces_address_at", "address", "at"),)


class FailingAddress(Base):
    """An address mail no longer reaches: nothing but sign-in links goes to it until the
    player gives an address again."""

    __tablename__ = "failing_addresses"

    address: Mapped[str] = mapped_column(String(320), primary_key=True)  # lower-cased
    since: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)
    reason: Mapped[str] = mapped_column(String(500))
    seat_id: Mapped[int | None] = mapped_column(ForeignKey("seats.id"))  # the seat whose mail bounced

class ConfirmedAddress(Base):
    """An address whose owner showed they read it (service.address_confirm): they pressed a
    confirmation link, signed in by mail, or wrote from it. Game mail goes only to these."""

    __tablename__ = "confirmed_addresses"

    address: Mapped[str] = mapped_column(String(320), primary_key=True)  # lower-cased
    confirmed_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)
    how: Mapped[str] = mapped_column(String(16))  # link | sign-in | mail


class PlayerZone(Base):
    """The time zone a player reads mail in, one per address (as "Your games" groups seats
    by address): every mail to a seat with this address gives its times in it, UTC beside."""

    __tablename__ = "player_zones"

    address: Mapped[str] = mapped_column(String(320), primary_key=True)  # lower-cased
    zone: Mapped[str] = mapped_column(String(64))  # an IANA name (service.zones)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)


class TableMessage(Base):
    """Talk at the table: from a seat or the GM, to everyone ("all"), the GM ("gm") or one
    seat (its name). A private message is shown only to its sender, its recipient and the
    GM (service.messages)."""

    __tablename__ = "table_messages"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"))
    sender: Mapped[str] = mapped_column(String(32))  # a seat's name, or "gm"
    recipient: Mapped[str] = mapped_column(String(32))  # "all", "gm" or a seat's name
    round: Mapped[int] = mapped_column(Integer)  # the game's round when it was sent (0: before round 1)
    text: Mapped[str] = mapped_column(Text)
    source: Mapped[str] = mapped_column(String(8))  # web | mail | api
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)

    __table_args__ = (Index("ix_table_messages_game_id_id", "game_id", "id"),)


class MessageRead(Base):
    """The newest message a seat has seen on its page (for the unread count)."""

    __tablename__ = "message_reads"

    seat_id: Mapped[int] = mapped_column(ForeignKey("seats.id"), primary_key=True)
    last_id: Mapped[int] = mapped_column(Integer)


class Follower(Base):
    """A spectator following a public game by mail (service.follow): a mail per resolved
    round once the address confirmed it. The link's token is derived from the row's salt
    and SECRET_KEY; only its SHA-256 is kept. Stopping deletes the row."""

    __tablename__ = "followers"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"))
    email: Mapped[str] = mapped_column(String(320))  # lower-cased
    salt: Mapped[str] = mapped_column(String(32))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)
    confirmed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # A private game is followed only through a spectator link; revoking it stops the mail.
    spectator_id: Mapped[int | None] = mapped_column(ForeignKey("spectators.id"))

    __table_args__ = (UniqueConstraint("game_id", "email", name="uq_followers_game_email"),)


class Spectator(Base):
    """A read-only link to a game's pages, record and mail-following, made by its GM
    (service.access): what opens a private game to someone who does not play it. The link's
    token is derived from the row's salt and SECRET_KEY (so the GM's page can show it
    again); only its SHA-256 is kept. Revoking stamps `revoked_at`: the link stops at once."""

    __tablename__ = "spectators"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"))
    label: Mapped[str] = mapped_column(String(80))  # who the GM made it for, shown on the GM page only
    salt: Mapped[str] = mapped_column(String(32))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    __table_args__ = (Index("ix_spectators_game_id", "game_id"),)


class GmRead(Base):
    """The newest message the GM has seen on the GM page (for the GM's unread count)."""

    __tablename__ = "gm_reads"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    last_id: Mapped[int] = mapped_column(Integer)


class PushSubscription(Base):
    """A browser's web push subscription (service.push) for one seat, or for every seat of
    an address ("Your games"). One browser (endpoint) may hold several scopes."""

    __tablename__ = "push_subscriptions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    endpoint: Mapped[str] = mapped_column(Text)
    endpoint_hash: Mapped[str] = mapped_column(String(64))  # SHA-256 of endpoint: a short key
    p256dh: Mapped[str] = mapped_column(String(128))
    auth: Mapped[str] = mapped_column(String(64))
    seat_id: Mapped[int | None] = mapped_column(ForeignKey("seats.id"))
    address: Mapped[str | None] = mapped_column(String(320))  # lower-cased; every seat with it
    scope: Mapped[str] = mapped_column(String(340))  # "seat:<id>" or "all:<address>"
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)

    __table_args__ = (
        UniqueConstraint("endpoint_hash", "scope", name="uq_push_subscriptions_endpoint_scope"),
        Index("ix_push_subscriptions_seat", "seat_id"),
        Index("ix_push_subscriptions_address", "address"),
    )


class PushOutbox(Base):
    """A push to send to one browser: inserted with the news, delivered after COMMIT."""

    __tablename__ = "push_outbox"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    endpoint_hash: Mapped[str] = mapped_column(String(64))
    game_id: Mapped[str | None] = mapped_column(ForeignKey("games.id"))
    seat_id: Mapped[int | None] = mapped_column(ForeignKey("seats.id"))
    event: Mapped[str] = mapped_column(String(16))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    key: Mapped[str] = mapped_column(String(255), unique=True)  # one push per event per browser
    status: Mapped[str] = mapped_column(String(8), default="pending")  # pending/sending/sent/failed/skipped
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    next_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    __table_args__ = (Index("ix_push_outbox_status_next", "status", "next_attempt_at"),
                      Index("ix_push_outbox_endpoint", "endpoint_hash", "status"))


class SeatPresence(Base):
    """When a seat's player page last said it was open and in view (service.push: no
    "your turn" push to a player who is looking at the game)."""

    __tablename__ = "seat_presence"

    seat_id: Mapped[int] = mapped_column(ForeignKey("seats.id"), primary_key=True)
    seen_at: Mapped[datetime] = mapped_column(UTCDateTime())


# Schedule state kept beside the lifecycle's tables, one row per seat or round when needed.
# A missing row means the defaults, so games created before these tables existed behave.

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


class StandingOrder(Base):
    """A player's standing order for one unit (engine.standing): used in any round they send none."""

    __tablename__ = "standing_orders"

    seat_id: Mapped[int] = mapped_column(ForeignKey("seats.id"), primary_key=True)
    unit: Mapped[str] = mapped_column(String(16), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    set_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)


class RatedGame(Base):
    """A finished game's place in the ratings (service.ratings): written with the game's end
    (pending: the worker's to do), then its verdict, rated or unrated with the reason."""

    __tablename__ = "rated_games"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    finished_at: Mapped[datetime] = mapped_column(UTCDateTime())  # the ratings' order, then game id
    status: Mapped[str] = mapped_column(String(8), default="pending")  # pending/rated/unrated
    reason: Mapped[str | None] = mapped_column(String(300))  # why unrated

    __table_args__ = (Index("ix_rated_games_status", "status"),)


class PlayerRating(Base):
    """A player's OpenSkill rating in one ruleset, the fold of their rated games (service.ratings)."""

    __tablename__ = "player_ratings"

    address: Mapped[str] = mapped_column(String(320), primary_key=True)  # lower-cased
    ruleset: Mapped[str] = mapped_column(String(64), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)  # rated games played


class PlayerProfile(Base):
    """A player's public page under a handle of their choosing (service.players): opt-in,
    one per address; the address is never shown."""

    __tablename__ = "player_profiles"

    address: Mapped[str] = mapped_column(String(320), primary_key=True)  # lower-cased
    handle: Mapped[str] = mapped_column(String(32), unique=True)  # compared lower-cased
    public: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)


class EntryRules(Base):
    """Who may take a seat of a game (service.entry): set by its creator, shown in the lobby."""

    __tablename__ = "entry_rules"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    min_reliability: Mapped[int | None] = mapped_column(Integer)  # percent
    min_rating: Mapped[float | None] = mapped_column(Float)
    max_running: Mapped[int | None] = mapped_column(Integer)  # games the player already has running


class Webhook(Base):
    """A chat or JSON webhook a GM added to a game (service.webhooks): where its news goes,
    and how its delivery fares (failing as a bouncing address is)."""

    __tablename__ = "webhooks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"))
    kind: Mapped[str] = mapped_column(String(8))  # discord/slack/json
    url: Mapped[str] = mapped_column(Text)
    secret_sealed: Mapped[str | None] = mapped_column(String(160))  # json: the signing secret, sealed
    status: Mapped[str] = mapped_column(String(8), default="ok")  # ok/failing
    failures: Mapped[int] = mapped_column(Integer, default=0)  # in a row
    last_error: Mapped[str | None] = mapped_column(Text)
    failing_since: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # No post before this: a minute after the last, a retry's backoff, or a 429's Retry-After.
    next_post_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime())  # a deliverer holds it
    last_posted_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)


class WebhookEvent(Base):
    """One piece of news for one webhook: inserted with the change it reports, posted with
    the others waiting (one post a minute at most); `batch` is the post's webhook-id."""

    __tablename__ = "webhook_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    webhook_id: Mapped[int] = mapped_column(ForeignKey("webhooks.id", ondelete="CASCADE"))
    event: Mapped[str] = mapped_column(String(16))
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    key: Mapped[str | None] = mapped_column(String(120))  # queued once per webhook
    status: Mapped[str] = mapped_column(String(8), default="pending")  # pending/sending/sent/failed
    batch: Mapped[str | None] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    __table_args__ = (
        UniqueConstraint("webhook_id", "key", name="uq_webhook_events_webhook_key"),
        Index("ix_webhook_events_webhook_status", "webhook_id", "status"),
    )


Index("ix_webhooks_game", Webhook.game_id)


class Tournament(Base):
    """A director's tournament (service.tournaments): its entrants, the committed seed of the
    seating draw (engine.tournament), revealed at seating, and the director's options."""

    __tablename__ = "tournaments"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    title: Mapped[str] = mapped_column(String(200))
    ruleset: Mapped[str] = mapped_column(String(64))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)  # the games' ruleset options
    rounds: Mapped[int] = mapped_column(Integer)
    size: Mapped[int] = mapped_column(Integer)  # seats a table
    seating: Mapped[str] = mapped_column(String(8))  # random | rating
    commitment: Mapped[str] = mapped_column(String(64))  # SHA-256 of the director's seed, hex
    seed: Mapped[str | None] = mapped_column(Text)  # revealed at seating
    bands: Mapped[list[Any] | None] = mapped_column(JSON)  # rating seating: entrants best first
    entrants: Mapped[list[Any]] = mapped_column(JSON)  # [{"name", "email"}], in the published order
    anonymous: Mapped[bool] = mapped_column(Boolean, default=False)
    no_pause: Mapped[bool] = mapped_column(Boolean, default=False)
    no_rollback: Mapped[bool] = mapped_column(Boolean, default=True)
    no_absence: Mapped[bool] = mapped_column(Boolean, default=False)
    deadline_policy: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    director_token_hash: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(8), default="entry")  # entry | seated
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=clock.now)


class TournamentGame(Base):
    """One table of a tournament round: its game and which entrant sits in each seat."""

    __tablename__ = "tournament_games"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id"))
    round: Mapped[int] = mapped_column(Integer)
    table: Mapped[int] = mapped_column(Integer)
    seats: Mapped[dict[str, Any]] = mapped_column(JSON)  # seat name -> entrant index


Index("ix_seats_game", Seat.game_id)
Index("ix_submissions_round_seat", Submission.round_id, Submission.seat_id)
Index("ix_outbox_game", Outbox.game_id)


def add_once(session: Session, row: Any, existing: Any) -> bool:
    """Add `row` unless the query `existing` finds its twin: queued by us, or by a racing
    transaction (then the unique index refuses the insert, rolled back to a savepoint)."""
    if session.scalar(existing) is not None:
        return False
    try:
        with session.begin_nested():
            session.add(row)
    except IntegrityError:
        return False
    return True
