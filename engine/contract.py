"""The ruleset contract: what every rule system gives the engine and the service.

A ruleset is an object in the registry (`engine.registry`). Resolution is a pure
function of (state, orders, dice): the same three always give the same new state,
events and rolls, which is what makes replay and verification possible (diplomacy's
`process()`, boardgame.io's injected randomness). The service never sees a ruleset's
state type: it stores `dump(state)` (JSON) and its canonical hash.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar, Generic, Literal, Self, TypeVar, final

from engine.dice import Dice, Roll
from engine.eventwords import PLAIN_WORDS, EventWords
from engine.forcespec import ForceCost, ForceSpec
from engine.looks import ARROWS, PLAIN_ARROW, PLAIN_PIECE, MarkLook, PieceLook, arrow_look
from engine.orders import (
    MAX_LINE,
    Order,
    OrderError,
    OrderErrors,
    OrderProblem,
    Verb,
    parse_order_text,
)
from engine.teaching import Teaching

PlayerId = str
UnitId = str
Options = Mapping[str, Any]
JSON = dict[str, Any]
S = TypeVar("S")


class RulesError(Exception):
    """Base of the engine's typed errors."""


class InvariantError(RuntimeError):
    """A state the code's own logic rules out (a bug, never bad input): raised where an
    `assert` would vanish under `python -O`; not a RulesError, so nothing shows it as a refusal."""


class OptionError(RulesError):
    """A game option that is unknown or has a bad value; names the option."""

    def __init__(self, name: str, message: str) -> None:
        self.name = name
        super().__init__(f"option {name}: {message}")


class StateError(RulesError, ValueError):
    """A dumped state that a ruleset refuses to load: inconsistent, so playing on from it
    would go wrong later (a ValueError too, for callers that treat bad data as such)."""


class UnknownRevision(RulesError):
    """A revision of a ruleset that its history does not list."""

    def __init__(self, ruleset_id: str, revision: object, known: int) -> None:
        self.ruleset_id = ruleset_id
        self.revision = revision
        super().__init__(f"{ruleset_id} has no revision {revision!r}; its revisions are 1 to {known}")


class ForceError(RulesError):
    """A force (army, roster, hero pick) that the ruleset refuses, with every reason."""

    def __init__(self, player: str, reasons: Sequence[str]) -> None:
        self.player = player
        self.reasons = list(reasons)
        super().__init__(f"force of {player}: " + "; ".join(self.reasons))


@dataclass(frozen=True)
class OptionSpec:
    name: str
    default: Any
    doc: str
    kind: Literal["int", "bool", "choice", "str", "json"] = "int"
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    # kind "json": checks a JSON value and returns it normalised, raising OptionError
    # (named by the path of the bad field) for anything it refuses.
    check: Callable[[Any], Any] | None = field(default=None, compare=False, repr=False)

    def coerce(self, value: Any) -> Any:
        """Check one given value; raise OptionError naming this option."""
        if self.kind == "json":
            if self.check is None:
                raise InvariantError(f"option {self.name} of kind json needs a check")
            return self.check(value)
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            raise OptionError(self.name, f"must be true or false, not {value!r}")
        if self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise OptionError(self.name, f"must be a whole number, not {value!r}")
            if self.minimum is not None and value < self.minimum:
                raise OptionError(self.name, f"must be at least {self.minimum}")
            if self.maximum is not None and value > self.maximum:
                raise OptionError(self.name, f"must be at most {self.maximum}")
            return value
        if not isinstance(value, str):
            raise OptionError(self.name, f"must be text, not {value!r}")
        if self.kind == "choice" and value not in self.choices:
            raise OptionError(self.name, f"must be one of {', '.join(self.choices)}")
        return value


# Options every ruleset has (docs/rulesets/README.md, "Common to all").
COMMON_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("width", 12, "grid width in squares", minimum=4, maximum=52),
    OptionSpec("height", 12, "grid height in squares", minimum=4, maximum=52),
    OptionSpec("diagonals", True, "units may move diagonally", kind="bool"),
    OptionSpec(
        "turn_mode",
        "simultaneous",
        "simultaneous: every living player moves each round; alternating: one player a "
        "round, in seat order",
        kind="choice",
        choices=("simultaneous", "alternating"),
    ),
    OptionSpec("max_rounds", 0, "end the game as a draw after this many rounds (0: never)",
               minimum=0, maximum=10_000),
)


@dataclass(frozen=True)
class Revision:
    """One revision of a ruleset's rules: what it changed, in words a player reads on the
    rules page. A game plays under the revision it was created under, to its end."""

    number: int
    changes: tuple[str, ...]


FIRST_REVISION = Revision(1, ("The rules as this ruleset's page first read them.",))


@dataclass(frozen=True)
class RulesetInfo:
    id: str
    title: str
    min_players: int
    max_players: int
    summary: str
    options: tuple[OptionSpec, ...] = COMMON_OPTIONS
    seed: str = ""  # the title of the rules text this ruleset implements (docs/rulesets/<id>.md)
    shared_squares: bool = False  # True where figures may share a square (heroes: same space)
    # What the short words of stat lines and notes mean, for the rules page and tooltips.
    glossary: tuple[tuple[str, str], ...] = ()
    # Which of its events' kinds and data keys mean what to a player (engine.eventwords):
    # what the turn summary on the player page and in the results mail reads.
    events: EventWords = PLAIN_WORDS
    # Every revision of the rules, oldest first, numbered 1, 2, ...: a change to what setup,
    # the order parser or resolve does for existing state is a new one (AUTHORING.md).
    revisions: tuple[Revision, ...] = (FIRST_REVISION,)
    # How the game is won, a round's sequence, the limits and a worked example: the rules
    # page and the HELP mail open with it (engine.teaching).
    teaching: Teaching | None = None

    def __post_init__(self) -> None:
        numbers = [r.number for r in self.revisions]
        if (not numbers or numbers != list(range(1, len(numbers) + 1))
                or not all(r.changes for r in self.revisions)):
            raise ValueError(f"{self.id}: revisions must be numbered 1, 2, ... in order, "
                             f"each with its changes in words, not {numbers}")

    @property
    def revision(self) -> int:
        """The newest revision: the one a new game is created under."""
        return self.revisions[-1].number

    def revision_named(self, number: object) -> Revision:
        """The revision with this number, or UnknownRevision."""
        if (isinstance(number, int) and not isinstance(number, bool)
                and 1 <= number <= len(self.revisions)):
            return self.revisions[number - 1]
        raise UnknownRevision(self.id, number, self.revision)

    def option(self, name: str) -> OptionSpec:
        for spec in self.options:
            if spec.name == name:
                return spec
        raise OptionError(name, "is not an option of " + self.id)


@dataclass(frozen=True)
class Event:
    """Something that happened, as a sentence for people and data for pictures.

    kind is a short word ("move", "attack", "damage", "death", "skip", ...); data holds
    JSON (squares by name, unit ids) that pages and mails may draw from.
    """

    kind: str
    text: str
    data: JSON = field(default_factory=dict)

    def to_json(self) -> JSON:
        return {"kind": self.kind, "text": self.text, "data": self.data}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Event:
        return cls(str(d["kind"]), str(d["text"]), dict(d.get("data", {})))


@dataclass(frozen=True)
class Resolution(Generic[S]):
    state: S
    events: list[Event]
    rolls: list[Roll]


@dataclass(frozen=True)
class Outcome:
    """The end of a game: winners (empty for a draw) and why."""

    winners: tuple[PlayerId, ...]
    reason: str

    @property
    def draw(self) -> bool:
        return not self.winners

    def to_json(self) -> JSON:
        return {"winners": list(self.winners), "draw": self.draw, "reason": self.reason}


@dataclass(frozen=True)
class Piece:
    """One figure on the board, as pictures need it. The renderers draw it from its
    `look` alone; `label` is the badge written on it, and its accessible name is said
    from label, side, kind, square, health and note ("A1 (alice, unit) on b3, health 3/4")."""

    id: str
    square: str
    side: PlayerId | None  # None: run by the game (henchmen, civvies, nemeses)
    kind: str  # the ruleset's word for it, said in legends; engine.looks.UNIT_KIND for a plain figure
    label: str  # what to write on it, short ("A1", "Zen")
    health: int | None = None
    max_health: int | None = None
    facing: str | None = None  # one of engine.grid.DIRECTIONS
    note: str = ""  # a few words for tooltips and legends ("Runner, Support")
    look: PieceLook = PLAIN_PIECE


@dataclass(frozen=True)
class Mark:
    """One of last round's arrows (a move along squares, an attack from one square to
    another, ...): kind is the ruleset's word, look says how it is drawn."""

    kind: str
    squares: tuple[str, ...]
    side: PlayerId | None = None
    look: MarkLook = PLAIN_ARROW

    @classmethod
    def from_json(cls, d: Mapping[str, Any], looks: Mapping[str, MarkLook] = ARROWS) -> Mark:
        """A mark kept in a state as {"kind", "squares", "side"}, with the look declared
        for its kind (the stock arrows unless the ruleset gives its own)."""
        kind = str(d["kind"])
        return cls(kind, tuple(d["squares"]), d.get("side"), arrow_look(kind, looks))


@dataclass(frozen=True)
class Board:
    width: int
    height: int
    terrain: dict[str, str]
    pieces: list[Piece]
    marks: list[Mark] = field(default_factory=list)
    legend: dict[str, str] = field(default_factory=dict)  # terrain kind → description
    sides: list[PlayerId] = field(default_factory=list)  # seat order, for colours

    def to_json(self) -> JSON:
        return asdict(self)


class Ruleset(ABC, Generic[S]):
    """A rule system. Subclasses are stateless: all game state lives in S.

    One instance plays one revision of the rules (`revision`): the registry's instance plays
    the newest, and `at_revision` gives the one of an older revision, whose game keeps it to
    its end. Code that a revision changed branches on `self.revision`.
    """

    info: ClassVar[RulesetInfo]
    verbs: ClassVar[tuple[Verb, ...]]
    _revision: int | None = None  # None: the newest, info.revision

    @property
    def revision(self) -> int:
        """The revision of the rules this instance plays."""
        return self.info.revision if self._revision is None else self._revision

    def at_revision(self, number: int) -> Self:
        """This ruleset as it plays under revision `number` (UnknownRevision for one that
        `info.revisions` does not list): the same class, with `revision` set. Use
        `engine.registry.find_ruleset(id, number)`, which makes each once."""
        self.info.revision_named(number)
        other = copy.copy(self)
        other._revision = number
        return other

    # -- configuration ---------------------------------------------------------
    def options(self, given: Options | None = None) -> dict[str, Any]:
        """Every option with its default filled in; raises OptionError naming a bad one."""
        given = dict(given or {})
        out: dict[str, Any] = {}
        for spec in self.info.options:
            out[spec.name] = spec.coerce(given.pop(spec.name)) if spec.name in given else spec.default
        if given:
            raise OptionError(sorted(given)[0], f"is not an option of {self.info.id}")
        return out

    @abstractmethod
    def force_spec(self, options: Options) -> ForceSpec:
        """The fields of a force in this game (engine.forcespec): what validate_force reads
        it with and what force_schema publishes."""

    def force_schema(self, options: Options) -> JSON:
        """A JSON Schema of a force in this game, for a force-builder form (the checks
        beyond its fields, such as the budget, are named in its description)."""
        return self.force_spec(options).schema()

    @abstractmethod
    def validate_force(self, force: Mapping[str, Any], options: Options) -> list[str]:
        """Every reason this force is refused; empty when it is fine: what force_spec
        refuses, then the ruleset's own checks on the force it read."""

    def force_cost(self, force: Mapping[str, Any], options: Options) -> ForceCost | None:
        """What this force costs against the game's budget, for a force builder's running
        total; None where the ruleset has no budget or the force's fields do not read."""
        return None

    @abstractmethod
    def default_force(self, seat: int, options: Options) -> JSON:
        """The force a player gets when they bring none (seat counts from 0)."""

    def force_clashes(self, force: Mapping[str, Any], others: Mapping[PlayerId, Mapping[str, Any]],
                      options: Options) -> list[str]:
        """What this force takes that another seat's force already holds, where the rules
        have one of a thing (a hero card, a corner tile): refusals naming the field
        (engine.forcespec.Refusal). `others`: the forces the other seats hold, by seat name.
        Most rulesets let every side field what it likes: none."""
        return []

    def default_force_beside(self, seat: int, options: Options,
                             others: Mapping[PlayerId, Mapping[str, Any]]) -> JSON:
        """The force a player who brings none gets, when the other seats hold `others`:
        the seat's default_force, unless a ruleset with one of a thing picks a free one."""
        return self.default_force(seat, options)

    def entrants(self, options: Options) -> dict[str, JSON]:
        """Named forces a balance report pits against each other (engine.balance): by
        default the distinct default forces of the first seats; a ruleset may name others
        (a hero card each, a few one-type armies)."""
        out: dict[str, JSON] = {}
        for seat in range(max(2, self.info.min_players)):
            force = self.default_force(seat, options)
            if force not in out.values():
                out[f"seat {seat + 1} default"] = force
        return out

    @abstractmethod
    def setup(
        self,
        players: Sequence[PlayerId],
        forces: Mapping[PlayerId, Mapping[str, Any]],
        options: Options,
        dice: Dice,
    ) -> S:
        """Step 1: place forces, roll what the rules roll before round 1."""

    # -- each round -------------------------------------------------------------
    @abstractmethod
    def round_number(self, state: S) -> int:
        """The round the state is waiting for (1 after setup)."""

    @abstractmethod
    def expected(self, state: S) -> list[PlayerId]:
        """Who must submit orders this round (empty once the game is over)."""

    @abstractmethod
    def legal_orders(self, state: S, player: PlayerId) -> dict[UnitId, list[Order]]:
        """Each of the player's units → the orders it may be given now, each on its own
        (web form, mail summary, bots, taps on the grid), in the order a form lists them.
        Made with `Verb.order` of one of `verbs`, so each has its role, square and target;
        `parse_orders` accepts each one's `format()` alone as an equal order (the contract
        test checks both). A player who moves this round but has nothing to do gets a unit
        with an empty list, or no entry."""

    @abstractmethod
    def check_order(self, state: S, player: PlayerId, order: Order) -> str | None:
        """Why this well-formed order (its verb one of `verbs` or `pass`, its words of the
        declared kinds) cannot be given now, or None if it can: a sentence for the player,
        without a line number (the parser adds it). `pass` (unit None) must get None: the
        parser itself checks that it stands alone."""

    def order_checker(self, state: S, player: PlayerId) -> Callable[[Order], str | None]:
        """The judge of one order text's lines, made once per text: `parse_orders` asks it
        about each well-formed line in the order written. Override it to work out once what
        every line needs (who moves this round), or to judge a line after the lines before
        it (a scratch board each accepted move updates); the default asks `check_order`."""
        return lambda order: self.check_order(state, player, order)

    def check_order_set(self, state: S, player: PlayerId, orders: Sequence[Order]) -> list[OrderProblem]:
        """Problems of the whole set that no line has alone (two moves for one unit): each an
        `OrderProblem` on the line to change (`Order.line`; None for the set as a whole),
        with the other lines it clashes with in `others`. Asked only once every line has
        passed `order_checker`, with `pass` already removed; empty when the set is fine."""
        return []

    @final
    def parse_orders(self, state: S, player: PlayerId, text: str) -> list[Order]:
        """The orders of a text (each with its `line`; [] for `pass`), or OrderErrors with an
        `OrderError` (line, that line's text, message, other lines) for every bad line: first
        every line's own problems (`verbs`, then `order_checker`), and only when there are
        none, the set's (`check_order_set`). The one parser of every ruleset: rulesets refine
        it through those three, never by overriding it."""
        orders = parse_order_text(text, self.verbs, self.order_checker(state, player))
        problems = self.check_order_set(state, player, orders)
        if problems:
            lines = text.splitlines()

            def shown(n: int | None) -> str:
                return lines[n - 1].strip()[:MAX_LINE] if n and 0 < n <= len(lines) else ""
            raise OrderErrors([OrderError(p.line or 0, shown(p.line), p.message, p.others)
                               for p in problems])
        return orders

    def reading_key(self, state: S, player: PlayerId, order: Order) -> tuple[int | str, ...]:
        """Where the rules read this line among the seat's others: the canonical text
        (dicepost-dice/v3, engine.steps.canonical_input) sorts a seat's lines stably by it.
        Lines with equal keys keep the player's order, so give equal keys to lines the rules
        read in sequence, and each other line the one place the rules act on it (by unit,
        then phase). The default, () for every line, keeps the order written: right for a
        ruleset that reads every line in sequence, never wrong, but it leaves a host the
        choice among orderings that mean the same orders."""
        return ()

    @abstractmethod
    def resolve(self, state: S, orders: Mapping[PlayerId, Sequence[Order]], dice: Dice) -> Resolution[S]:
        """Pure: the same state, orders and dice always give the same Resolution."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """The result once the game is over, else None."""

    # -- pictures and storage ----------------------------------------------------
    @abstractmethod
    def board(self, state: S) -> Board: ...

    @abstractmethod
    def dump(self, state: S) -> JSON:
        """The state as JSON (no floats); its canonical hash is what steps record."""

    @abstractmethod
    def load(self, data: Mapping[str, Any]) -> S: ...

    def bot_orders(self, state: S, player: PlayerId, dice: Dice) -> list[Order] | None:
        """A ruleset's own good play for the greedy bot, in the order to write them (made
        with `Verb.order`); None to use the generic one (engine.bots), which attacks when
        it can and else moves towards the nearest enemy, by the verbs' roles."""
        return None
