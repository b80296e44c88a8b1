"""A player's turn: what the last round did to their units, and what they have to do now.

Built once from the stored step's events (the ruleset's own sentences, which carry the
dice) and read by both the player page and the results mail, so the two say the same.
An event concerns the player when its data names one of their units (before or after
the round) or the player; it is tagged by what it meant to them: a move, damage dealt
or taken, a unit lost, an enemy killed, a token gained, a civvie saved, an order skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from engine import Board, Order, find_ruleset
from engine.orders import units_in
from service import statecache
from service.models import Game, Round, Seat, Step
from service.render.grid_legend import natural_key
from service.submissions import latest_submissions
from service.views import board_of

# Data keys whose values name units (the rulesets' events use these).
UNIT_KEYS = ("unit", "attacker", "defender", "target", "by", "enemy", "winner", "hero")
PLAYER_KEYS = ("side", "player")
DEATHS = {"death", "defeat", "knockout", "eliminated", "down"}
TAGS = {  # tag → how the page and mail head it
    "move": "moved", "dealt": "dealt", "taken": "took", "loss": "lost", "kill": "killed",
    "token": "token", "saved": "saved", "skipped": "skipped", "attack": "attacked",
    "defence": "defended", "hold": "held", "note": "note",
}


@dataclass(frozen=True)
class Happening:
    """One event as it concerns the player: its tag, the ruleset's sentence (with the dice
    it names), the dice faces from its data, and the modifiers its data names."""

    tag: str
    text: str
    dice: tuple[int, ...] = ()
    modifiers: tuple[str, ...] = ()

    @property
    def heading(self) -> str:
        return TAGS.get(self.tag, self.tag)


@dataclass
class Tally:
    moves: int = 0
    dealt: int = 0
    taken: int = 0
    losses: int = 0
    kills: int = 0
    tokens: int = 0
    saved: int = 0
    skipped: int = 0

    def words(self) -> str:
        """'2 moves, 3 damage dealt, 1 unit lost', or 'nothing happened to your units'."""
        parts = [(self.moves, "move", "moves"), (self.dealt, "damage dealt", "damage dealt"),
                 (self.taken, "damage taken", "damage taken"), (self.losses, "unit lost", "units lost"),
                 (self.kills, "enemy killed", "enemies killed"),
                 (self.tokens, "token gained", "tokens gained"),
                 (self.saved, "civvie saved", "civvies saved"),
                 (self.skipped, "order skipped", "orders skipped")]
        said = [f"{n} {one if n == 1 else many}" for n, one, many in parts if n]
        return ", ".join(said) if said else "nothing happened to your units"


@dataclass
class TurnSummary:
    """Round `round` as `player` lived it, and the round now open for them."""

    round: int
    player: str
    happenings: list[Happening] = field(default_factory=list)
    tally: Tally = field(default_factory=Tally)
    # What to do now (empty when the game is over or the player has no orders to give).
    open_round: int | None = None
    you_move: bool = False
    closes_at: datetime | None = None
    without_orders: list[str] = field(default_factory=list)
    with_orders: list[str] = field(default_factory=list)
    # One commented example line per unit, to edit and send back (mail readers skip `#`).
    template: list[str] = field(default_factory=list)

    @property
    def headline(self) -> str:
        return f"Round {self.round}: {self.tally.words()}"


def _names(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            if isinstance(v, str):
                yield v


def _faces(data: Mapping[str, Any]) -> tuple[int, ...]:
    for key in ("faces", "dice", "attacks"):
        value = data.get(key)
        if isinstance(value, list) and all(isinstance(v, int) for v in value):
            return tuple(value)
    return ()


def modifiers(data: Mapping[str, Any]) -> tuple[str, ...]:
    """The modifiers an attack's data names, in words: '+1 die: B2 beside both'."""
    out = []
    attacker, defender = data.get("attacker"), data.get("defender")
    for helper in _names(data.get("helpers")):
        if helper != attacker:
            out.append(f"+1 die: {helper} beside both")
    for supporter in _names(data.get("supporters")):
        out.append(f"+1 die: {supporter} in support")
    for ally in _names(data.get("allies")):
        out.append(f"+1 defence: {ally} beside {defender}")
    bonus = data.get("defender_bonus")
    if isinstance(bonus, int) and bonus:
        out.append(f"+{bonus} defence: {defender} is a Defender")
    streak = data.get("in_a_row")
    if isinstance(streak, int) and streak:
        out.append(f"+{streak} defence: {attacker} attacks again in a row")
    for key, word in (("obscured", "target partly obscured"),):
        if data.get(key):
            out.append(word)
    return tuple(out)


def _amounts(kind: str, data: Mapping[str, Any]) -> list[tuple[str | None, str | None, int]]:
    """(who dealt, who took, how much) for an event that does damage."""
    if kind == "counter":  # the defender strikes the attacker
        who, whom = data.get("defender"), data.get("attacker")
    else:
        who, whom = data.get("attacker"), data.get("defender") or data.get("target")
    out: list[tuple[str | None, str | None, int]] = []
    if "wounds" in data:
        amount = data.get("wounds")
    elif kind == "damage" and "dmg" in data:  # a strike that got through: 1 Vitality
        amount = 0 if data.get("saved") else 1
    else:
        amount = data.get("damage")
    if isinstance(amount, int) and amount and whom is not None and (who is not None):
        out.append((str(who), str(whom), amount))
    back = data.get("back_damage")
    if isinstance(back, int) and back and who is not None and whom is not None:
        out.append((str(whom), str(who), back))
    return out


def classify(event: Mapping[str, Any], mine: set[str], player: str) -> Happening | None:
    """The event as it concerns `player` (whose units are `mine`), or None."""
    kind = str(event.get("kind", ""))
    text = str(event.get("text", ""))
    data: Mapping[str, Any] = event.get("data") or {}
    named = {n for key in UNIT_KEYS for n in _names(data.get(key))}
    ours = bool(named & mine) or any(data.get(k) == player for k in PLAYER_KEYS)
    if not ours:
        return None
    dice, mods = _faces(data), modifiers(data)
    if kind in DEATHS:
        unit = data.get("unit")
        if unit in mine:
            return Happening("loss", text, dice, mods)
        return Happening("kill", text, dice, mods)
    if kind == "token":
        return Happening("token", text)
    if kind == "save" and "civvie" in data:
        return Happening("saved", text, dice)
    if kind == "skip":
        return Happening("skipped", text)
    if kind == "hold":
        return Happening("hold", text)
    amounts = _amounts(kind, data)
    if any(who in mine for who, _, _ in amounts):
        return Happening("dealt", text, dice, mods)
    if any(whom in mine for _, whom, _ in amounts):
        return Happening("taken", text, dice, mods)
    if kind in ("move", "climb", "run", "charge", "retreat"):
        return Happening("move", text)
    if kind in ("attack", "shot", "melee", "roll", "miss", "spell", "strike back", "counter", "save"):
        who = data.get("defender") if kind == "counter" else data.get("attacker")
        return Happening("attack" if who in mine else "defence", text, dice, mods)
    return Happening("note", text, dice, mods)


COUNTED = {"move": "moves", "loss": "losses", "kill": "kills", "token": "tokens", "saved": "saved",
           "skipped": "skipped"}  # tag → the Tally field it counts


def _count(tally: Tally, happening: Happening, event: Mapping[str, Any], mine: set[str]) -> None:
    if happening.tag in COUNTED:
        name = COUNTED[happening.tag]
        setattr(tally, name, getattr(tally, name) + 1)
    for who, whom, amount in _amounts(str(event.get("kind", "")), event.get("data") or {}):
        if who in mine:
            tally.dealt += amount
        if whom in mine:
            tally.taken += amount


def units_of(board: Board | None, player: str) -> set[str]:
    return {p.id for p in board.pieces if p.side == player} if board else set()


def summarize(round_number: int, player: str, events: Sequence[Mapping[str, Any]],
              before: Board | None, after: Board | None) -> TurnSummary:
    """What round `round_number` did to `player`'s units (those on either board)."""
    mine = units_of(before, player) | units_of(after, player)
    summary = TurnSummary(round=round_number, player=player)
    for event in events:
        happening = classify(event, mine, player)
        if happening is None:
            continue
        summary.happenings.append(happening)
        _count(summary.tally, happening, event, mine)
    return summary


def ordered_units(legal: Mapping[str, Sequence[Order]], accepted: str) -> tuple[list[str], list[str]]:
    """(units with an order in `accepted` (a canonical text), units without one), each in
    label order."""
    named = units_in(accepted)
    units = sorted(legal, key=natural_key)
    return [u for u in units if u in named], [u for u in units if u not in named]


def add_next(summary: TurnSummary, open_round: int | None, you_move: bool,
             closes_at: datetime | None, legal: Mapping[str, Sequence[Order]], accepted: str) -> TurnSummary:
    """What to do now: the open round, its deadline and which units still have no order."""
    summary.open_round, summary.you_move = open_round, you_move
    summary.closes_at = closes_at.replace(tzinfo=UTC) if closes_at and closes_at.tzinfo is None else closes_at
    if you_move:
        summary.with_orders, summary.without_orders = ordered_units(legal, accepted)
        summary.template = [f"# {legal[u][0].format()}" if legal[u] else f"# {u} holds: nothing it can do"
                            for u in sorted(legal, key=natural_key)]
    return summary


@dataclass(frozen=True)
class OrderOutcome:
    """One accepted order line of a round and what became of it."""

    line: str
    done: bool
    why: str = ""  # the ruleset's sentence when it was skipped


def _skip_for(line: str, player: str, skips: Sequence[Mapping[str, Any]]) -> str | None:
    for event in skips:
        data: Mapping[str, Any] = event.get("data") or {}
        text = str(event.get("text", ""))
        if data.get("order") == line or line in text:
            return None if ": done" in text else text
        if data.get("side") == player and "order" not in data and "unit" not in data:
            return text  # the player's orders as a whole were set aside
    return None


def order_outcomes(inputs: Mapping[str, Any], events: Sequence[Mapping[str, Any]]
                   ) -> dict[str, list[OrderOutcome]]:
    """Every player's accepted lines of the round, each done or skipped (and why)."""
    skips = [e for e in events if e.get("kind") == "skip"]
    out: dict[str, list[OrderOutcome]] = {}
    for player, text in inputs.items():
        lines = [x.strip() for x in str(text or "").splitlines() if x.strip()]
        out[player] = []
        for line in lines:
            why = _skip_for(line, player, skips)
            out[player].append(OrderOutcome(line, why is None, why or ""))
    return out


def countdown(closes_at: datetime, now: datetime) -> str:
    """'2 days 3 hours', '45 minutes', 'now': how long until the deadline."""
    left = int((closes_at - now).total_seconds())
    if left <= 0:
        return "now"
    days, rest = divmod(left, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    parts = [(days, "day"), (hours, "hour")] if days else [(hours, "hour"), (minutes, "minute")]
    said = [f"{n} {word}{'s' if n != 1 else ''}" for n, word in parts if n]
    return " ".join(said) or "less than a minute"


def legal_of(game: Game, step: Step, player: str) -> dict[str, list[Order]]:
    """The player's legal orders per unit in the state after `step` (cached per state)."""
    ruleset = find_ruleset(game.ruleset)
    return dict(statecache.legal_orders(game.ruleset, step.state, player,
                                        lambda: ruleset.legal_orders(ruleset.load(step.state), player)))


def seat_turn(session: Session, game: Game, seat: Seat, t: int | None = None) -> TurnSummary | None:
    """The summary of step `t` (default: the latest) for `seat`, with the round it opened
    as the player sees it now; None before setup. After setup alone its round is 0."""
    query = select(Step).where(Step.game_id == game.id)
    query = query.where(Step.t.in_((t - 1, t))) if t is not None else query.order_by(Step.t.desc()).limit(2)
    steps = {s.t: s for s in session.scalars(query)}
    if not steps:
        return None
    step = steps[max(steps)]
    if step.t < 2:  # only the setup: nothing has happened yet, round 1 is what to do
        summary = TurnSummary(round=0, player=seat.name)
    else:
        summary = summarize(step.t - 1, seat.name, step.events, board_of(game, steps.get(step.t - 1)),
                            board_of(game, step))
    rnd = session.scalars(select(Round).where(Round.game_id == game.id, Round.number == step.t)).first()
    if rnd is None or game.status != "active":
        return summary
    moves = seat.name in rnd.expected
    latest = latest_submissions(session, rnd.id).get(seat.id) if rnd.status == "open" else None
    legal = legal_of(game, step, seat.name) if moves else {}
    return add_next(summary, rnd.number, moves and rnd.status == "open", rnd.closes_at, legal,
                    latest.accepted if latest else "")
