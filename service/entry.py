"""Entry rules: who may take a seat of a game, set by its creator (docs/players.md, "Entry
rules"): a minimum reliability, a minimum rating in the game's ruleset, and a most games
a player may already have running. Checked when a seat is taken with its invitation (web,
API, mail) and when a visitor takes an open seat from the lobby; each refusal names the
rule's field and says what the player has.

A newcomer ("new": too few rounds for a reliability) passes a reliability floor: they are
unknown, not unreliable. A player without a rating in the ruleset counts as a newcomer's
rating, 0, against a rating floor.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from service.errors import Forbidden, Invalid
from service.models import EntryRules, Game
from service.players import history, running_games
from service.ratings import rating_of

FIELDS = ("min_reliability", "min_rating", "max_running")
MAX_RUNNING = 1000
RATING_BOUND = 1000.0


@dataclass(frozen=True)
class Rules:
    min_reliability: int | None = None  # percent
    min_rating: float | None = None
    max_running: int | None = None

    @property
    def any(self) -> bool:
        return any(v is not None for v in (self.min_reliability, self.min_rating, self.max_running))

    def words(self) -> list[str]:
        out = []
        if self.min_reliability is not None:
            out.append(f"reliability at least {self.min_reliability}% (newcomers welcome)")
        if self.min_rating is not None:
            out.append(f"rating at least {self.min_rating:g}")
        if self.max_running is not None:
            out.append(f"at most {self.max_running} other running "
                       + ("game" if self.max_running == 1 else "games"))
        return out


def _number(value: Any, field: str, low: float, high: float, whole: bool) -> float | int | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        number = (int(value) if whole else float(value)) if isinstance(value, str) else value
    except ValueError:
        number = None
    if (isinstance(number, bool) or not isinstance(number, int | float)
            or (whole and not isinstance(number, int)) or not low <= number <= high or number != number):
        kind = "a whole number" if whole else "a number"
        raise Invalid(f"{field}: {kind} from {low:g} to {high:g}, or empty for no limit", field)
    return number


def checked_rules(given: Mapping[str, Any] | None) -> Rules:
    """The rules from a form or an API body (each field empty/absent: no limit); a refusal
    names its field."""
    given = given or {}
    reliability = _number(given.get("min_reliability"), "min_reliability", 0, 100, True)
    rating = _number(given.get("min_rating"), "min_rating", -RATING_BOUND, RATING_BOUND, False)
    running = _number(given.get("max_running"), "max_running", 0, MAX_RUNNING, True)
    return Rules(None if reliability is None else int(reliability),
                 None if rating is None else float(rating),
                 None if running is None else int(running))


def store_rules(session: Session, game_id: str, rules: Rules) -> None:
    if rules.any:
        session.add(EntryRules(game_id=game_id, min_reliability=rules.min_reliability,
                               min_rating=rules.min_rating, max_running=rules.max_running))


def rules_of(session: Session, game_id: str) -> Rules:
    row = session.get(EntryRules, game_id)
    return Rules() if row is None else Rules(row.min_reliability, row.min_rating, row.max_running)


def rules_by_game(session: Session, game_ids: Iterable[str]) -> dict[str, Rules]:
    ids = list(game_ids)
    if not ids:
        return {}
    return {row.game_id: Rules(row.min_reliability, row.min_rating, row.max_running)
            for row in session.scalars(select(EntryRules).where(EntryRules.game_id.in_(ids)))}


def check_entry(session: Session, game: Game, address: str | None) -> None:
    """Refuse (403, naming the rule's field) a player the game's entry rules keep out."""
    rules = rules_of(session, game.id)
    if not rules.any:
        return
    if not address:
        raise Forbidden("email: this game admits players by their record, which is kept by address: "
                        "sign in to Your games with your address (or ask the creator for an invitation "
                        "to it) and take the seat again", "email")
    if rules.min_reliability is not None:
        record = history(session, address)
        if record.reliability is not None and record.reliability < rules.min_reliability:
            raise Forbidden(f"min_reliability: this game asks for a reliability of at least "
                            f"{rules.min_reliability}%; yours is {record.reliability}% "
                            f"({record.missed} of {record.rounds} rounds missed)", "min_reliability")
    if rules.min_rating is not None:
        rating = rating_of(session, address, game.ruleset)
        if (rating if rating is not None else 0.0) < rules.min_rating:
            yours = "unrated (counted as 0)" if rating is None else f"{rating:.1f}"
            raise Forbidden(f"min_rating: this game asks for a {game.ruleset} rating of at least "
                            f"{rules.min_rating:g}; yours is {yours}", "min_rating")
    if rules.max_running is not None:
        running = running_games(session, address, besides=game.id)
        if running > rules.max_running:
            raise Forbidden(f"max_running: this game admits players with at most {rules.max_running} "
                            f"other running games; you have {running}", "max_running")
