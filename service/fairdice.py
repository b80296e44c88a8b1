"""What a game's dice profile asks of the service (docs/dice-spec.md, docs/fair-dice.md).

A game keeps the profile it was created under in its options (`dice_profile`; a game
without one was created under v1), so its record keeps verifying as it was played. Under
dicepost-dice/v2 and v3 the service has no choice left: a seat without entropy gets the
value fixed by S_0, a round's input is the canonical text (`pass` is ""; v3 sorts the
lines by the rules' reading order), a bot chooses with the bound key, and every accepted
version has a receipt, recomputed from the stored row whenever it is shown (the answer,
the player page, the confirmation mail, the record). A v3 game also fixes its terms at
creation (`terms` in its options: what the invitation's digest T is of) and records each
hand-over of a seat to the bot and back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from engine.contract import Ruleset
from engine.dice import PROFILE_V1, PROFILE_V2, PROFILE_V3, receipt, terms_digest
from engine.orders import Order
from service.models import AuditLog, Game, Round, Seat, Submission
from service.schedule.policy import parse_policy

PROFILE_OPTION = "dice_profile"
TERMS_OPTION = "terms"  # v3: the terms fixed at creation
BOUND = (PROFILE_V2, PROFILE_V3)  # profiles with server-made entropy, bot keys and receipts
BOT_KIND = "greedy"  # the only bot the service plays
# Schedule and GM entries that change what a round's inputs are or when it closes.
# deadline_extended is the GM's missed-turn policy extending a round on its own;
# standing_orders says a version of a seat's orders was its player's standing orders;
# absence_declared a player's days away (service.absence), which may stretch deadlines.
ROUND_CHANGING = ("gm_pause", "gm_resume", "gm_extend", "gm_resolve_now", "gm_replace",
                  "gm_remove", "gm_end_draw", "gm_set_policy", "seat_to_bot", "seat_opened",
                  "seat_claimed", "deadline_extended", "gm_rollback", "standing_orders",
                  "absence_declared")
# Kept out of the public record: a replacement player's address.
PRIVATE_DETAIL = ("email",)


def game_profile(game: Game) -> str:
    return options_profile(game.options)


def options_profile(options: Mapping[str, Any] | None) -> str:
    """The fair-dice profile a game's options name (v1 when they name none)."""
    return str((options or {}).get(PROFILE_OPTION, PROFILE_V1))


def is_bound(game: Game) -> bool:
    """The game plays v2 or v3: server-made entropy fixed by S_0, bot keys and receipts."""
    return game_profile(game) in BOUND


def is_v3(game: Game) -> bool:
    return game_profile(game) == PROFILE_V3


def new_terms(ruleset: str, revision: int, options: Mapping[str, Any], seats: Sequence[str],
              deadline_policy: Any) -> dict[str, Any]:
    """A v3 game's terms (engine.record), fixed when it is created: `options` as the setup
    document will name them, the missed-turn policy the game starts with (the GM may change
    it until the first seat joins: service.gm.actions.set_policy)."""
    return {"ruleset": ruleset, "revision": revision, "options": dict(options), "seats": list(seats),
            "bot": BOT_KIND, "missed_turns": missed_turns_terms(deadline_policy)}


def missed_turns_terms(deadline_policy: Any) -> dict[str, Any]:
    """The missed-turn policy as the terms state it: what a hand-over to the bot by the
    policy must follow (the verifiers count the misses it needs)."""
    nmr = parse_policy(deadline_policy).missed_turns
    return {"after": nmr.after, "action": nmr.action, "unreachable_after": nmr.unreachable_after}


def game_terms(game: Game) -> dict[str, Any]:
    return dict((game.options or {})[TERMS_OPTION])


def terms_hex(game: Game) -> str:
    """T of a v3 game (the invitation and join mails carry it); "" for an older game."""
    if not is_v3(game):
        return ""
    return terms_digest(game.id, game_terms(game)).hex()


def counted_orders(profile: str, ruleset: Ruleset[Any], state: Any, seat: str,
                   orders: Sequence[Order]) -> list[Order]:
    """A seat's orders in the order they count: v3 sorts them, stably, by the rules'
    reading key (engine.steps.canonical_input), so no reordering of lines the rules read
    alike gives the host another text to choose; before v3, as the player wrote them."""
    if profile != PROFILE_V3:
        return list(orders)
    return sorted(orders, key=lambda o: ruleset.reading_key(state, seat, o))


def input_text(game: Game, accepted: str) -> str:
    """The text of an accepted version as a step's input: v2 writes no orders as ""."""
    return profile_input_text(game_profile(game), accepted)


def profile_input_text(profile: str, accepted: str) -> str:
    return "" if profile in BOUND and accepted == "pass" else accepted


def receipt_hex(game: Game, round_number: int, seat_name: str, version: int, accepted: str) -> str:
    """The receipt of one accepted version (v2, v3); "" for a v1 game, which has none."""
    return options_receipt_hex(game.id, game.options, round_number, seat_name, version, accepted)


def options_receipt_hex(game_id: str, options: Mapping[str, Any] | None, round_number: int, seat_name: str,
                        version: int, accepted: str) -> str:
    """receipt_hex from the game's id and options alone (a caller that read only those columns)."""
    profile = options_profile(options)
    if profile not in BOUND:
        return ""
    return receipt(game_id, round_number, seat_name, version, profile_input_text(profile, accepted),
                   profile).hex()


def seat_receipts(session: Session, game: Game, seat: Seat) -> list[dict[str, Any]]:
    """Every version the seat sent, oldest first: round, version, time and receipt (v2, v3)."""
    if not is_bound(game):
        return []
    rows = session.execute(
        select(Round.number, Submission.version, Submission.created_at, Submission.accepted)
        .join(Round, Round.id == Submission.round_id)
        .where(Submission.seat_id == seat.id, Submission.source != "bot")
        .order_by(Round.number, Submission.version)).all()
    return [{"round": n, "version": v, "at": at.isoformat(),
             "receipt": receipt_hex(game, n, seat.name, v, accepted)} for n, v, at, accepted in rows]


def record_fields(session: Session, game: Game, seats: Sequence[Seat], resolved: int,
                  snapshot: bool = False) -> dict[str, Any]:
    """The v2 and v3 fields of the record (engine.record): server-made seats, bot rounds (v3:
    the terms and the hand-overs instead), every version of the resolved rounds with its
    receipt (v3: the players' own), and the GM actions that changed a round. Rounds still
    open are left out: a receipt of a short order text could be guessed, and the orders of
    an open round are secret. `snapshot`: the record as it stood when round `resolved` was
    resolved (GM actions after that left out)."""
    names = {s.id: s.name for s in seats}
    rows = session.execute(
        select(Round.number, Submission.seat_id, Submission.version, Submission.created_at,
               Submission.accepted, Submission.source)
        .join(Round, Round.id == Submission.round_id)
        .where(Round.game_id == game.id, Round.number <= resolved)
        .order_by(Round.number, Submission.seat_id, Submission.version)).all()
    versions = []
    own = []  # v3: the players' own versions, not the bot's
    latest: dict[tuple[int, str], str] = {}
    for number, seat_id, version, at, accepted, source in rows:
        seat = names.get(seat_id)
        if seat is None:
            continue
        versions.append({"round": number, "seat": seat, "version": version, "at": at.isoformat(),
                         "receipt": receipt_hex(game, number, seat, version, accepted)})
        latest[(number, seat)] = source
        if source != "bot":
            own.append(versions[-1])
    server_made = [s.name for s in seats if s.entropy_source == "server"]
    actions = gm_actions(session, game, resolved if snapshot else None)
    if is_v3(game):  # the players' own versions; the bot's rounds follow from the hand-overs
        return {"terms": game_terms(game), "server_made": server_made,
                "handovers": handovers(session, game, resolved + 1), "versions": own, "gm_actions": actions}
    bots = [{"round": number, "seat": seat, "kind": BOT_KIND}
            for (number, seat), source in sorted(latest.items()) if source == "bot"]
    return {"server_made": server_made, "bots": bots, "versions": versions, "gm_actions": actions}


HANDOVER_ACTIONS = ("seat_to_bot", "seat_claimed", "seat_back")


def handovers(session: Session, game: Game, until: int) -> list[dict[str, Any]]:
    """v3: each change of who plays a seat, from the round it takes effect on (up to round
    `until`): to the bot by the GM or the missed-turn policy, back to its player by their own
    orders, to a replacement player."""
    rows = session.execute(
        select(AuditLog.actor, AuditLog.at, AuditLog.action, AuditLog.detail)
        .where(AuditLog.game_id == game.id, AuditLog.action.in_(HANDOVER_ACTIONS))
        .order_by(AuditLog.id)).all()
    out = []
    for actor, at, action, detail in rows:
        detail = dict(detail or {})
        first = detail.get("round" if action == "seat_back" else "from_round")
        if not isinstance(first, int) or first > until:
            continue
        if action == "seat_to_bot":
            out.append({"round": first, "seat": detail.get("seat"), "to": "bot",
                        "by": "gm" if actor == "gm" else "missed_turns", "at": at.isoformat()})
        elif action == "seat_back":
            out.append({"round": first, "seat": detail.get("seat"), "to": "player", "by": "player",
                        "at": at.isoformat()})
        else:
            out.append({"round": first, "seat": detail.get("seat"), "to": "player", "by": "replacement",
                        "at": at.isoformat()})
    return out


def gm_actions(session: Session, game: Game, until: int | None = None) -> list[dict[str, Any]]:
    """The ROUND_CHANGING entries, each with the round it bore on: the one its detail names,
    else the round open then (told by the log's order, not its times, which may be equal).
    `until`: stop when round `until` was resolved (0: when the game started)."""
    rows = session.execute(
        select(AuditLog.action, AuditLog.actor, AuditLog.at, AuditLog.detail)
        .where(AuditLog.game_id == game.id, AuditLog.action.in_((*ROUND_CHANGING, "started", "resolved")))
        .order_by(AuditLog.id)).all()
    current: int | None = None  # no round is open before the game starts
    out: list[dict[str, Any]] = []
    # Round `until` was resolved last at its latest entry (a rollback may have it resolved twice).
    stop = max((i for i, (action, _a, _t, detail) in enumerate(rows)
                if until is not None and _done(action, detail) == until), default=None)
    for i, (action, actor, at, detail) in enumerate(rows):
        detail = dict(detail or {})
        if action in ("started", "resolved"):
            if i == stop:
                break
            current = (_done(action, detail) or 0) + 1
            continue
        out.append({"round": detail.get("round", current), "action": action, "actor": actor,
                    "at": at.isoformat(),
                    "detail": {k: v for k, v in detail.items() if k not in PRIVATE_DETAIL}})
        if action == "gm_rollback":  # the round rolled back to is open again
            current = int(detail.get("round") or 0)
    return out


def _done(action: str, detail: Any) -> int | None:
    """The round a "started" (0) or "resolved" entry closed; None for any other entry."""
    if action == "started":
        return 0
    if action == "resolved":
        return int((detail or {}).get("round") or 0)
    return None
