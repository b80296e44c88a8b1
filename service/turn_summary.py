"""A player's turn: what the last round did to their units, and what they have to do now.

Built once from the stored step's events (the ruleset's own sentences, which carry the
dice) and read by both the player page and the results mail, so the two say the same.
An event concerns the player when its data names one of their units (before or after
the round) or the player; it is tagged by what it meant to them: a move, damage dealt
or taken, a unit lost, an enemy killed, an order skipped, or a tag of the ruleset's own.
Which kinds and data keys mean what is the ruleset's declaration (engine.eventwords).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from weakref import WeakKeyDictionary

from sqlalchemy import select
from sqlalchemy.orm import Session

from engine import Board, Order, find_ruleset
from engine.eventwords import PLAIN_WORDS, EventWords
from engine.orders import MAX_LINE, OrderErrors, units_in
from service import statecache
from service.models import Game, Seat, Step
from service.render.grid_legend import natural_key
from service.render.sentences import plain
from service.timekeeping.missed_news import table_news
from service.timekeeping.state import seat_schedule
from service.views import board_at, round_latest, round_numbered, steps_to

TAGS = {  # tag → how the page and mail head it (a ruleset's tagged events bring their own)
    "move": "moved", "dealt": "dealt", "taken": "took", "loss": "lost", "kill": "killed",
    "skipped": "skipped", "attack": "attacked", "defence": "defended", "note": "note",
}


@dataclass(frozen=True)
class Happening:
    """One event as it concerns the player: its tag, the ruleset's sentence (with the dice
    it names), the dice faces from its data, and the modifiers its data names."""

    tag: str
    text: str
    dice: tuple[int, ...] = ()
    modifiers: tuple[str, ...] = ()
    heading: str = ""

    def __post_init__(self) -> None:
        if not self.heading:
            object.__setattr__(self, "heading", TAGS.get(self.tag, self.tag))


@dataclass
class Tally:
    moves: int = 0
    dealt: int = 0
    taken: int = 0
    losses: int = 0
    kills: int = 0
    skipped: int = 0
    # The ruleset's counted tags (EventWords.tagged), in its order: tag → (one, many, count).
    counted: dict[str, tuple[str, str, int]] = field(default_factory=dict)

    def count(self, tag: str) -> int:
        return self.counted[tag][2] if tag in self.counted else 0

    def words(self) -> str:
        """'2 moves, 3 damage dealt, 1 unit lost', or 'nothing happened to your units'."""
        parts = [(self.moves, "move", "moves"), (self.dealt, "damage dealt", "damage dealt"),
                 (self.taken, "damage taken", "damage taken"), (self.losses, "unit lost", "units lost"),
                 (self.kills, "enemy killed", "enemies killed"),
                 *((n, one, many) for one, many, n in self.counted.values()),
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
    resolving: bool = False  # the open round is closed and its resolution under way
    sent: bool = False  # the player has orders of their own in the open round
    ready: bool = True  # ... and says they are final (not waiting for the deadline)
    bot_plays: bool = False  # the bot plays the seat (it missed turns): its orders stand
    # Who missed a round and what the policy did, who took their seat back (missed_news).
    news: list[str] = field(default_factory=list)
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


def classify(event: Mapping[str, Any], mine: set[str], player: str,
             words: EventWords = PLAIN_WORDS) -> Happening | None:
    """The event as it concerns `player` (whose units are `mine`), or None, read with the
    ruleset's event words."""
    kind = str(event.get("kind", ""))
    text = plain(str(event.get("text", "")))
    data: Mapping[str, Any] = event.get("data") or {}
    named = {n for key in words.unit_keys for n in _names(data.get(key))}
    ours = bool(named & mine) or any(data.get(k) == player for k in words.player_keys)
    if not ours:
        return None
    dice, mods = words.faces(data), words.named_modifiers(data)
    if kind in words.losses:
        return Happening("loss" if data.get("unit") in mine else "kill", text, dice, mods)
    tagged = words.tag_of(kind, data)
    if tagged is not None:
        return Happening(tagged.tag, text, dice, heading=tagged.heading)
    if kind == "skip":
        return Happening("skipped", text)
    amounts = words.amounts(kind, data)
    dealt = any(who in mine for who, _, _ in amounts)
    taken = any(whom in mine for _, whom, _ in amounts)
    if dealt and taken:  # both ways at once (a skirmish): the side that started it dealt
        return Happening("dealt" if amounts[0][0] in mine else "taken", text, dice, mods)
    if dealt:
        return Happening("dealt", text, dice, mods)
    if taken:
        return Happening("taken", text, dice, mods)
    if kind in words.moves:
        return Happening("move", text)
    if kind in words.attacks:
        who = data.get("defender") if kind in words.counters else data.get("attacker")
        return Happening("attack" if who in mine else "defence", text, dice, mods)
    return Happening("note", text, dice, mods)


COUNTED = {"move": "moves", "loss": "losses", "kill": "kills", "skipped": "skipped"}  # tag → Tally field


def _count(tally: Tally, happening: Happening, event: Mapping[str, Any], mine: set[str],
           words: EventWords) -> None:
    if happening.tag in COUNTED:
        name = COUNTED[happening.tag]
        setattr(tally, name, getattr(tally, name) + 1)
    elif happening.tag in tally.counted:
        one, many, n = tally.counted[happening.tag]
        tally.counted[happening.tag] = (one, many, n + 1)
    for who, whom, amount in words.amounts(str(event.get("kind", "")), event.get("data") or {}):
        if who in mine:
            tally.dealt += amount
        if whom in mine:
            tally.taken += amount


def units_of(board: Board | None, player: str) -> set[str]:
    return {p.id for p in board.pieces if p.side == player} if board else set()


def summarize(round_number: int, player: str, events: Sequence[Mapping[str, Any]],
              before: Board | None, after: Board | None, words: EventWords = PLAIN_WORDS) -> TurnSummary:
    """What round `round_number` did to `player`'s units (those on either board), read
    with the ruleset's event words."""
    mine = units_of(before, player) | units_of(after, player)
    summary = TurnSummary(round=round_number, player=player)
    summary.tally.counted = {t.tag: (t.one, t.many, 0) for t in words.tagged if t.one}
    for event in events:
        happening = classify(event, mine, player, words)
        if happening is None:
            continue
        summary.happenings.append(happening)
        _count(summary.tally, happening, event, mine, words)
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
        summary.template = [template_line(u, legal[u]) for u in sorted(legal, key=natural_key)]
    return summary


def template_line(unit: str, orders: Sequence[Order]) -> str:
    """The order template's commented line for one unit: its first legal order and, after
    a second '#' (so the line still parses once the first is taken off), what that order
    costs the unit, or else what its other orders that cost more do (`Order.cost`, each
    with its first example), as long as the line stays one the parser takes."""
    if not orders:
        return f"# {unit} holds: nothing it can do"
    first = orders[0]
    line = f"# {first.format()}"
    if first.cost:
        return f"{line}  # {first.cost}"[:MAX_LINE]
    examples: dict[str, Order] = {}
    for order in orders:
        if order.cost:
            examples.setdefault(order.cost, order)
    notes = [f"{o.format()} {cost}" for cost, o in examples.items()]
    kept: list[str] = []
    for note in notes:
        candidate = f"{line}  # mind: " + "; ".join([*kept, note])
        if len(candidate) > MAX_LINE:
            break
        kept.append(note)
    return f"{line}  # mind: " + "; ".join(kept) if kept else line


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
            return None if ": done" in text else plain(text)
        if data.get("side") == player and "order" not in data and "unit" not in data:
            return plain(text)  # the player's orders as a whole were set aside
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


# A stored step never changes, so its state's digest (the statecache key: the state's
# JSON, digested) is taken once per loaded Step, not once per player and per use.
_digests: WeakKeyDictionary[Step, bytes] = WeakKeyDictionary()
_digests_lock = threading.Lock()


def state_digest(step: Step) -> bytes:
    """statecache.digest(step.state), once per Step object."""
    with _digests_lock:
        found = _digests.get(step)
    if found is None:
        found = statecache.digest(step.state)
        with _digests_lock:
            _digests[step] = found
    return found


def legal_of(game: Game, step: Step, player: str) -> dict[str, list[Order]]:
    """The player's legal orders per unit in the state after `step` (cached per state, as
    statecache.legal_orders keeps them: fresh lists each call)."""
    ruleset = find_ruleset(game.ruleset, game.revision)
    found = statecache.cached_by("legal", (game.ruleset, game.revision, state_digest(step), player),
                                 lambda: ruleset.legal_orders(ruleset.load(step.state), player))
    return {unit: list(lines) for unit, lines in found.items()}


def fitting_first(game: Game, step: Step, player: str,
                  legal: Mapping[str, Sequence[Order]]) -> dict[str, list[Order]]:
    """Each unit's legal orders with, first, one the rules accept beside the first orders
    of the units before it (the ruleset's own parser reads each set), so the order
    template, every line uncommented, is a set the rules take (universal: one attack a
    side, the other units move). A unit with none that fits keeps its own order."""
    ruleset = find_ruleset(game.ruleset, game.revision)

    def work() -> dict[str, list[Order]]:
        state = ruleset.load(step.state)
        chosen: list[str] = []
        out: dict[str, list[Order]] = {}
        for unit in sorted(legal, key=natural_key):
            orders = list(legal[unit])
            for n, order in enumerate(orders):
                try:
                    ruleset.parse_orders(state, player, "\n".join([*chosen, order.format()]))
                except OrderErrors:
                    continue
                chosen.append(order.format())
                orders.insert(0, orders.pop(n))
                break
            out[unit] = orders
        return out

    found = statecache.cached_by("template", (game.ruleset, game.revision, state_digest(step), player), work)
    return {unit: list(lines) for unit, lines in found.items()}


def seat_turn(session: Session, game: Game, seat: Seat, t: int | None = None) -> TurnSummary | None:
    """The summary of step `t` (default: the latest) for `seat`, with the round it opened
    as the player sees it now; None before setup. After setup alone its round is 0."""
    if t is not None:
        steps = steps_to(session, game.id, t)
    else:
        query = select(Step).where(Step.game_id == game.id).order_by(Step.t.desc()).limit(2)
        steps = {s.t: s for s in session.scalars(query)}
    if not steps:
        return None
    step = steps[max(steps)]
    if step.t < 2:  # only the setup: nothing has happened yet, round 1 is what to do
        summary = TurnSummary(round=0, player=seat.name)
    else:
        before = board_at(session, game, steps.get(step.t - 1))
        summary = summarize(step.t - 1, seat.name, step.events, before, board_at(session, game, step),
                            find_ruleset(game.ruleset, game.revision).info.events)
    rnd = round_numbered(session, game.id, step.t)
    summary.news = table_news(session, game.id, {summary.round} | ({rnd.number} if rnd else set()), seat.name)
    if rnd is None or game.status != "active":
        return summary
    moves = seat.name in rnd.expected
    latest = round_latest(session, rnd.id).get(seat.id) if rnd.status == "open" else None
    own = latest if latest is not None and latest.source != "bot" else None  # the bot's are not yours
    legal = legal_of(game, step, seat.name) if moves else {}
    row = seat_schedule(session, seat, create=False)
    summary.resolving, summary.sent, summary.ready = rnd.status == "ready", own is not None, not row.wait
    summary.bot_plays = row.controller == "bot"
    fitting = fitting_first(game, step, seat.name, legal) if legal else legal
    return add_next(summary, rnd.number, moves and rnd.status == "open", rnd.closes_at, fitting,
                    own.accepted if own else "")
