"""The JSON API's bodies: a pydantic model for every request and answer body. Routes
declare them with service.api_schema.operation, which checks each request body against
its model and builds /api/openapi.json from them.

The models say the *shape* of a body: types, required fields, fixed choices, unknown
fields where the service refuses them. What a value *means* (which rulesets, seat names,
options, durations and time zones exist) is judged by the service functions that the
web forms and mail commands share with the API, so each such check lives once.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, RootModel

from engine.orders import Role
from service.inputs import INT_MAX, INT_MIN
from service.schedule.policy import DAY_NAMES, NMR_ACTIONS, NmrAction

# ---------------------------------------------------------------------------- requests


class Body(BaseModel):
    """A request body: JSON types as they are (strict: "1" is not a number, 1 is not
    text, true is not 1); fields the service does not know are ignored."""

    model_config = ConfigDict(strict=True, extra="ignore")
    # Where a discriminated union sits (a field's name, "" for the body itself), with its
    # tags: pydantic puts the tag in an error's location there, which is no field of the body.
    tagged: ClassVar[dict[str, tuple[str, ...]]] = {}
    # The name the body's own fields are under in a refusal ("deadline_policy.duration").
    field_prefix: ClassVar[str] = ""


class Closed(Body):
    """A body whose unknown fields are refused (a typo must not pass unnoticed)."""

    model_config = ConfigDict(strict=True, extra="forbid")


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


def optional(description: str = "") -> Any:
    """A field that may be left out but is never null (its absence means "unchanged")."""
    return Field(None, description=description or None, json_schema_extra=_no_default)


Whole = Annotated[int, Field(ge=INT_MIN, le=INT_MAX)]
AtLeastOne = Annotated[int, Field(ge=1, le=INT_MAX)]
Duration = Annotated[str, Field(description="ISO 8601 (`PT48H`, `P1DT12H`) or words (`2 days`)")]
Clock = Annotated[str, Field(description="HH:MM, 24-hour", examples=["20:00"])]
JsonObject = dict[str, Any]


class SeatIn(Closed):
    name: str = Field(description="1 to 32 letters, digits, '_' or '-', starting with a letter")
    email: str | None = Field(None, description="where the invitation and the game's mail go")
    force: JsonObject | None = Field(None, description="its force (GET /api/rulesets/{id}/force-schema)")


class QuietHours(Closed):
    start: Clock
    end: Clock = Field(description="HH:MM, 24-hour; may be earlier than start (the quiet spans midnight)")


class MissedTurns(Closed):
    after: AtLeastOne = optional("consecutive misses before the action applies (default 1)")
    action: NmrAction = optional(f"what then happens: {', '.join(NMR_ACTIONS)} (default hold)")
    extend_by: Duration | None = Field(None, description="the extension of `extend` (default PT24H)")
    unreachable_after: AtLeastOne | None = Field(
        None, description="misses before the action for a seat whose mail bounces (default: `after`)")


class PolicyCommon(Closed):
    timezone: str = optional("IANA zone for calendar times, quiet hours and absence dates (default UTC)")
    quiet_hours: QuietHours | None = Field(None, description="no round closes inside")
    absence_limit: Duration | None = Field(None, description="the most absences may stretch one deadline "
                                                              "(default P7D; P0D: never)")
    missed_turns: MissedTurns | None = Field(None, description="what a missing player's turn brings")


class DurationPolicy(PolicyCommon):
    """Each round closes a fixed time after it opens."""

    kind: Literal["duration"]
    duration: Duration


class CalendarPolicy(PolicyCommon):
    """Each round closes on the first listed weekday at a wall-clock time that is at least
    `min_open` after it opened."""

    kind: Literal["calendar"]
    days: list[str] = Field(min_length=1, description=f"weekdays: {', '.join(DAY_NAMES)}")
    time: Clock
    min_open: Duration | None = Field(None, description="default PT12H")


class NoDeadline(PolicyCommon):
    """Rounds close when everyone is in, or when the GM says so."""

    kind: Literal["none"]


DeadlinePolicy = Annotated[DurationPolicy | CalendarPolicy | NoDeadline, Field(discriminator="kind")]
POLICY_KINDS = tuple(sorted(get_args(kind.model_fields["kind"].annotation)[0]
                            for kind in (DurationPolicy, CalendarPolicy, NoDeadline)))


class PolicyIn(RootModel[DeadlinePolicy]):
    """A deadline policy (docs/schedule.md), checked as a whole by the service."""

    model_config = ConfigDict(strict=True)
    tagged: ClassVar[dict[str, tuple[str, ...]]] = {"": POLICY_KINDS}
    field_prefix: ClassVar[str] = "deadline_policy"


class EntryIn(Body):
    min_reliability: int | None = Field(None, ge=0, le=100, description="the least reliability in percent a "
                                        "player must have (newcomers, too new for one, are admitted)")
    min_rating: float | None = Field(None, ge=-1000, le=1000, description="the least rating in the game's "
                                     "ruleset (an unrated player counts as 0)")
    max_running: int | None = Field(None, ge=0, le=1000, description="the most other running games a "
                                    "player may have")


class CreateGame(Body):
    tagged: ClassVar[dict[str, tuple[str, ...]]] = {"deadline_policy": POLICY_KINDS}

    ruleset: str = Field(description="the id of a ruleset (GET /api/rulesets)")
    seats: list[SeatIn] = Field(min_length=1, description="the seats, in turn order")
    title: str | None = Field(None, description="at most 200 characters; default: the ruleset's title")
    public: bool = Field(True, description="listed on the home page and readable by anyone")
    options: JsonObject = Field(default_factory=dict,
                                description="ruleset options (GET /api/rulesets), chain_length and "
                                            "no_rollback (true: the GM may never roll the game back; "
                                            "default: true for a public game) and gm_reads_private "
                                            "(true: the GM reads the private messages between players; "
                                            "default: false)")
    deadline_policy: DeadlinePolicy | None = Field(None, description="default: 48 hours, then they hold")
    gm_email: str | None = Field(None, description="the GM's address (optional): it gets the GM's links by "
                                 "mail once it confirms, and its \"Your games\" lists the game")
    entry: EntryIn | None = Field(None, description="who may take a seat (docs/players.md, \"Entry rules\"); "
                                  "a join that does not meet them is refused with 403 naming the rule")


class JoinIn(Body):
    invite_token: str | None = Field(None, description="the seat's invite token (401 without)")
    entropy: str | None = Field(None, description="hex, 16 to 64 bytes; default: made by the server")
    force: JsonObject | None = Field(None, description="the seat's force, if it brings its own")


class OrdersIn(Body):
    round: Whole = Field(description="the number of the round these orders are for")
    orders: str = Field(description="the order text, one order a line")
    ready: bool = optional("these are the player's final orders: the round may close once every expected "
                           "player is ready (false: it waits for this player until its deadline); "
                           "default: as the player last chose, remembered as the settings' wait")


class ForceCheckIn(Body):
    force: Any = Field(None, description="the force to judge (a JSON object)")
    options: JsonObject | None = Field(None, description="the game's options")


class ForceSchemaQuery(Body):
    options: str = optional("the game's options as JSON text")


class ExtendIn(Body):
    by: Duration | None = Field(None, description="how much later (give `by` or `until`)")
    until: str | None = Field(None, description="ISO 8601 time with its offset, e.g. 2026-12-01T18:00:00Z")


class ReplaceIn(Body):
    seat: str = Field(description="the name of a seat of this game")
    email: str | None = Field(None, description="where the invitation goes (else: the link is in the answer)")


class RemoveIn(Body):
    seat: str = Field(description="the name of a seat of this game")
    units: Literal["hold", "bot"] = Field("hold", description="its units hold for good, or the bot plays")


class AnnounceIn(Body):
    text: str = Field(description="the announcement, at most 2000 characters")


class WebhookIn(Body):
    url: str = Field(description="the webhook's address: a Discord or Slack webhook URL, or your receiver's "
                                 "(https, a public address; docs/notifications.md)")
    kind: Literal["discord", "slack", "json"] = Field(description="discord and slack: a chat message; json: "
                                                                  "the signed JSON event (Standard Webhooks)")


class RollbackIn(Body):
    round: int = Field(description="the resolved round to play again: the game goes back to its start; "
                                   "at most 3 rounds before the open one")
    reason: str = Field(description="why, 1 to 500 characters: every player reads it; the record keeps it")
    confirm: bool = Field(False, description="true: you confirm that the rounds from this one on are "
                                             "superseded and played again with new dice (refused without)")


class Absence(Closed):
    from_: str = Field(alias="from", description="first day away, YYYY-MM-DD")
    to: str = Field(description="last day away, YYYY-MM-DD")


MailPref = Literal["all", "results", "none"]
MessagePref = Literal["each", "digest", "none"]


class SettingsIn(Closed):
    """Only the settings given change; all are checked before anything is stored."""

    wait: bool = optional("keep the round open until its deadline even when everyone is in")
    reminder_lead: Duration = optional("how long before the deadline to be reminded (PT0S: never)")
    absences: list[Absence] = optional("days away: deadlines falling inside move past them")
    mail_pref: MailPref = optional("mail from this game: every mail, results only, or none")
    message_pref: MessagePref = optional("table talk by mail (within mail_pref): each message, "
                                         "a digest in the results mail, or none")
    zone: str | None = optional("the player's IANA time zone for mail (for every seat with this "
                                "address); null or empty: UTC and the game's zone")
    email: str = optional("the seat's address; giving one clears its bounce record")
    discord_id: str | None = optional("your Discord user id (17 to 20 digits), for an @mention when the "
                                      "game's Discord webhook says it is your move; null or empty: none")


class MessageIn(Body):
    to: str = Field(description="all (everyone at the table), gm, or the name of a seat (privately)")
    text: str = Field(description="the message, at most 2000 characters")


class TakeoverIn(Body):
    invite_token: str | None = Field(None, description="the invitation the GM's replace gave")


# ----------------------------------------------------------------------------- answers


class Answer(BaseModel):
    """An answer body, as the service writes it."""


class OrderLineError(Answer):
    line: int = Field(description="0: the text as a whole")
    text: str
    message: str
    others: list[int] = Field(description="the other lines a clash spans")


class Error(Answer):
    """Every refusal: what is wrong and the field it is about; refused orders list every bad line."""

    error: str | None = None
    field: str | None = None
    errors: list[OrderLineError] | None = None
    retry_after: int | None = Field(None, description="429: seconds to wait")


GameStatus = Literal["waiting", "active", "finished"]


class SeatInvite(Answer):
    name: str
    invite_token: str
    join_url: str


class GameCreated(Answer):
    id: str
    commitment: str = Field(description="S_0, the dice chain's commitment, published before anyone joins")
    gm_token: str
    seats: list[SeatInvite]


class Joined(Answer):
    player_token: str
    player_url: str


class PublicGame(Answer):
    id: str
    title: str
    ruleset: str
    status: GameStatus
    round: int | None
    commitment: str


class PublicGames(RootModel[list[PublicGame]]):
    pass


class SeatState(Answer):
    name: str
    joined: bool
    submitted: bool


class Game(Answer):
    id: str
    ruleset: str
    revision: int = Field(description="the rules revision the game plays to its end (/rules/<ruleset>/<n>)")
    title: str
    status: GameStatus
    round: int | None
    commitment: str
    seats: list[SeatState]
    expected: list[str]
    deadline: str | None
    winner: str | None
    outcome: JsonObject | None


class LegalOrder(Answer):
    """One legal order as a value: `text` is what to send."""

    text: str
    unit: str | None
    verb: str
    args: list[str]
    role: Role | None
    square: str | None
    target: str | None
    cost: str = Field(description="what giving it costs the unit beyond the order itself (its attack or "
                                  "defence this round, a modifier on its strikes); empty when nothing")


class OrdersView(Answer):
    round: int | None
    units: dict[str, list[str]]
    legal: dict[str, list[LegalOrder]]
    current: str


class OrdersAccepted(Answer):
    round: int
    accepted: list[str]
    version: int
    at: str
    ready: bool = Field(description="whether the sender is ready (their orders final)")
    receipt: str | None = Field(None, description="dicepost-dice/v2 games: keep it, it proves which text was "
                                                  "yours (dicepost verify --receipt)")


class Roll(Answer):
    step: int
    j: int
    n: int
    face: int
    label: str


class RoundView(Answer):
    round: int
    step: int
    events: list[Any]
    rolls: list[Roll]
    key: str = Field(description="the revealed key S_t")
    state_hash: str
    inputs: JsonObject


class RecordStep(Answer):
    t: int
    inputs: JsonObject
    key: str
    rolls: list[Roll]
    events: list[Any]
    state_hash: str
    inputs_digest: str
    step_key: str
    checksum: str


class Message(Answer):
    """A message at the table."""

    round: int
    from_: str = Field(alias="from")
    to: str = Field(description="all, gm or a seat's name")
    at: str
    text: str


class Sent(Message):
    """A message as stored (and mailed to its recipient seats)."""

    id: int


class LogEntry(Answer):
    at: str
    actor: str
    action: str
    detail: JsonObject


class Record(Answer):
    """The game record (dicepost-record/1, docs/fair-dice.md) for replay and verification;
    fields beyond these are kept and covered by its checksum."""

    model_config = ConfigDict(extra="allow")

    format: Literal["dicepost-record/1"]
    profile: str
    game_id: str
    ruleset: str
    revision: int = Field(description="the rules revision its setup names (a record without it: 1)")
    commitment: str
    chain_length: int
    players: list[str]
    entropy: dict[str, str]
    salt: str
    steps: list[RecordStep]
    outcome: JsonObject | None
    messages: list[Message] = Field(description="the table talk its reader may read")
    schedule_log: list[LogEntry]
    checksum: str


class RulesetOption(Answer):
    name: str
    default: Any
    doc: str
    kind: str
    choices: list[Any]
    minimum: int | None
    maximum: int | None


class RulesRevision(Answer):
    number: int
    changes: list[str] = Field(description="what the revision changed, in words")


class Ruleset(Answer):
    id: str
    title: str
    min_players: int
    max_players: int
    summary: str
    options: list[RulesetOption]
    revision: int = Field(description="the rules revision new games play")
    revisions: list[RulesRevision] = Field(description="every revision, oldest first")


class Rulesets(RootModel[list[Ruleset]]):
    pass


class ForceSchema(Answer):
    ruleset: str
    schema_: JsonObject = Field(alias="schema", description="JSON Schema of a force")
    default: JsonObject = Field(description="the force a first seat gets when it brings none")


class Refusal(Answer):
    field: str = Field(description="the path of the refused part, dotted")
    message: str


class ForceCost(Answer):
    spent: str
    budget: str
    over: bool


class ForceVerdict(Answer):
    ok: bool
    refusals: list[Refusal]
    cost: ForceCost | None


class Inbound(Answer):
    status: str
    detail: str
    inbound_id: int | None


class Document(RootModel[JsonObject]):
    pass


class MailFailing(Answer):
    since: str
    reason: str


class Settings(Answer):
    seat: str
    wait: bool
    reminder_lead: str
    absences: list[Absence]
    missed_in_a_row: int
    played_by: str = Field(description="human, bot, open or removed")
    mail_pref: MailPref
    message_pref: MessagePref
    email: str | None
    mail_failing: MailFailing | None = Field(description="since when and why mail to the address bounces")
    email_confirmed: bool = Field(description="whether the address confirmed: until it does, it gets only "
                                  "the confirmation link, and its time zone cannot be set")
    zone: str | None
    discord_id: str | None = Field(None, description="for @mentions by the game's Discord webhook")


class SeatTaken(Answer):
    seat: str
    player_token: str


class ConsoleSeat(Answer):
    name: str
    email: str | None
    played_by: str
    missed_in_a_row: int
    wait: bool
    submitted: bool
    expected: bool
    reminder_lead: str
    absences: list[Absence]
    mail_failing: MailFailing | None
    email_confirmed: bool = Field(description="whether the address confirmed: its mail waits until it does")


class FailedMail(Answer):
    id: int
    kind: str
    to: str
    seat: str | None
    attempts: int
    error: str
    created_at: str


class Damage(Answer):
    at: str
    problem: str


class Console(Answer):
    id: str
    title: str
    status: GameStatus
    round: int
    round_open: bool
    deadline: str | None
    deadline_local: str | None = Field(description="the deadline in the policy's zone")
    paused_at: str | None
    policy: DeadlinePolicy
    outcome: JsonObject | None
    seats: list[ConsoleSeat]
    audit: list[LogEntry]
    failed_mail: list[FailedMail]
    mail_backlog: dict[str, int] = Field(description="domain: mails held back for its pace")
    damaged: list[Damage] = Field(description="stored rows found damaged, to repair")


class Paused(Answer):
    action: Literal["gm_pause"]
    at: str
    deadline: str | None


class Resumed(Answer):
    action: Literal["gm_resume"]
    paused_seconds: int
    from_: str | None = Field(alias="from")
    deadline: str | None


class Extended(Answer):
    action: Literal["gm_extend"]
    round: int
    from_: str | None = Field(alias="from")
    to: str


class Resolving(Answer):
    action: Literal["gm_resolve_now"]
    round: int
    deadline: str | None


class Replaced(Answer):
    action: Literal["gm_replace"]
    seat: str
    email: str | None
    invite_token: str
    invite_url: str


class Removed(Answer):
    action: Literal["gm_remove"]
    seat: str
    units: Literal["hold", "bot"]


class Ended(Answer):
    action: Literal["gm_end_draw"]
    round: int
    outcome: JsonObject


class PolicySet(Answer):
    action: Literal["gm_set_policy"]
    policy: DeadlinePolicy = Field(description="the policy as stored (canonical)")
    changed: bool = Field(description="false: the policy was this already, so nothing was logged or mailed")


class WebhookView(Answer):
    id: int
    kind: Literal["discord", "slack", "json"]
    url: str = Field(description="shortened: the part of a chat webhook's URL that is its secret is left out")
    status: Literal["ok", "failing"] = Field(description="failing: nothing is posted until a test post gets "
                                                         "through (last_error says why)")
    failures: int = Field(description="failed posts in a row")
    last_error: str | None
    failing_since: str | None
    last_posted_at: str | None
    created_at: str


class WebhookAdded(WebhookView):
    secret: str | None = Field(description="json hooks: the signing secret (whsec_...), shown this once")


class WebhookList(Answer):
    webhooks: list[WebhookView]


class WebhookTested(Answer):
    result: str = Field(description="what the endpoint answered to the test post, in a line")
    webhook: WebhookView


class WebhookDeleted(Answer):
    deleted: int


class RolledBack(Answer):
    action: Literal["gm_rollback"]
    round: int = Field(description="the round open again for orders")
    rounds: list[int] = Field(description="the rounds superseded (they stay in the record)")
    reason: str
    links: list[int] = Field(description="the chain links the superseded rounds revealed")
    next_link: int = Field(description="the chain link the round played again takes, nobody has seen it")


class Announced(Answer):
    action: Literal["gm_announce"]
    text: str
