"""Game lifecycle: create (commitment published at once) and join (entropy, force).

The last join computes the salt G, runs setup (step 1) through engine.steps and opens
round 1, in the same transaction. Every function here owns its transaction; its tasks
are sent after COMMIT (service.tasks).
"""

from __future__ import annotations

import hmac
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from flask import current_app
from sqlalchemy import select
from sqlalchemy.orm import Session, joinedload
from sqlalchemy.orm.attributes import set_committed_value

from engine import ForceError, OptionError, Ruleset, UnknownRuleset, find_ruleset
from engine.dice import DEFAULT_CHAIN_LENGTH, NEW_GAME_PROFILE, game_salt, join_entropy, server_entropy
from engine.steps import run_setup, setup_inputs
from service import address_confirm, clock, entry, forces, urls
from service.audit import audit
from service.dice_keys import new_chain, step_dice
from service.errors import Conflict, Invalid, NotFound, Unauthorized
from service.fairdice import PROFILE_OPTION, TERMS_OPTION, game_profile, is_bound, is_v3, new_terms
from service.inputs import normal_address
from service.mail.outbox import enqueue
from service.messages import PRIVATE_OPTION
from service.models import Game, Seat
from service.progress import record_step, seat_facts
from service.rollback_chain import NO_ROLLBACK_OPTION, RESERVE_OPTION
from service.rollback_chain import RESERVE as ROLLBACK_RESERVE
from service.sendlimits import check_invitations, count_game_creation
from service.tokens import gm_token_of, new_game_id, new_token, token_hash

NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,31}$")
# Names a seat may not take: the GM's ("gm" is how messages name the GM, so a seat called
# so would read every private message) and names that pass for the table or the service.
# Compared without case, '_' or '-', so "The_GM" and "g-m" are refused too.
RESERVED_NAMES = frozenset({"gm", "thegm", "gamemaster", "host", "system", "admin", "all", "everyone",
                            "dicepost", "server", "nobody"})


def reserved_name(name: str) -> bool:
    return re.sub(r"[_-]", "", name).lower() in RESERVED_NAMES
HEX_RE = re.compile(r"^(?:[0-9a-fA-F]{2})+$")
MAX_CHAIN_LENGTH = 100_000
SERVICE_OPTIONS = ("chain_length", PROFILE_OPTION, NO_ROLLBACK_OPTION, RESERVE_OPTION, TERMS_OPTION,
                   PRIVATE_OPTION)


@dataclass(frozen=True)
class SeatSpec:
    name: str
    email: str | None = None
    force: dict[str, Any] | None = None


@dataclass(frozen=True)
class CreatedGame:
    id: str
    commitment: str
    gm_token: str
    invites: list[tuple[str, str]]  # (seat name, invite token), in seat order


@dataclass(frozen=True)
class Joined:
    game_id: str
    seat: str
    player_token: str
    started: bool


def ruleset_or_invalid(name: Any) -> Ruleset[Any]:
    """The ruleset at its newest revision, the one a new game is created under."""
    if not isinstance(name, str):
        raise Invalid("ruleset must be the id of a ruleset (text)", "ruleset")
    try:
        return find_ruleset(name)
    except UnknownRuleset as exc:
        raise Invalid(str(exc), "ruleset") from None


def check_options(ruleset: Ruleset[Any], given: Mapping[str, Any]) -> tuple[dict[str, Any], int]:
    """(the ruleset's options with defaults, the chain length); 422 naming a bad option."""
    rest = dict(given)
    length = rest.pop("chain_length", DEFAULT_CHAIN_LENGTH)
    if isinstance(length, bool) or not isinstance(length, int) or not 2 <= length <= MAX_CHAIN_LENGTH:
        raise Invalid(f"option chain_length: must be a whole number from 2 to {MAX_CHAIN_LENGTH}",
                      "options.chain_length")
    try:
        options = ruleset.options(rest)
    except OptionError as exc:
        raise Invalid(str(exc), f"options.{exc.name}") from None
    return options, length


def check_seats(ruleset: Ruleset[Any], seats: list[SeatSpec], options: Mapping[str, Any]) -> list[SeatSpec]:
    """The seats with their addresses in normal form; Invalid naming the first bad field."""
    info = ruleset.info
    if not info.min_players <= len(seats) <= info.max_players:
        raise Invalid(f"{info.id} is played by {info.min_players} to {info.max_players} players, "
                      f"not {len(seats)}", "seats")
    seen: set[str] = set()
    checked = []
    for i, seat in enumerate(seats):
        if not NAME_RE.match(seat.name):
            raise Invalid(f"seat name {seat.name!r}: 1 to 32 letters, digits, '_' or '-', "
                          "starting with a letter", f"seats[{i}].name")
        if reserved_name(seat.name):
            raise Invalid(f"seat name {seat.name!r} is reserved (it would pass for the game master, the "
                          "table or the service): choose another", f"seats[{i}].name")
        if seat.name.lower() in seen:
            raise Invalid(f"seat name {seat.name!r} is used twice", f"seats[{i}].name")
        seen.add(seat.name.lower())
        email = None if seat.email is None else normal_address(seat.email, f"seats[{i}].email")
        if seat.force is not None:
            given = {s.name: s.force for s in seats[:i] if s.force is not None}
            check_force(ruleset, seat.force, options, f"seats[{i}].force", given)
        checked.append(replace(seat, email=email))
    return checked


def check_force(ruleset: Ruleset[Any], force: Any, options: Mapping[str, Any], field: str,
                others: Mapping[str, Mapping[str, Any]] | None = None) -> None:
    verdict = forces.check(ruleset, force, options, others)
    if verdict.malformed:
        raise Invalid(verdict.malformed, field)
    if not verdict.ok:
        raise Invalid(f"force refused: {'; '.join(verdict.reasons)}", field)


def create_game(session: Session, ruleset_id: Any, title: str | None, seats: list[SeatSpec],
                options: Mapping[str, Any], public: bool, join_url: Any = None,
                deadline_policy: dict[str, Any] | None = None,
                entry_rules: entry.Rules | None = None, gm_email: Any = None) -> CreatedGame:
    """Draw the chain tip (the only OS randomness), publish S_0, invite every seat.

    join_url(game_id, invite_token) -> str, for the invitations' payload; entry_rules: who
    may take a seat (service.entry); gm_email: the GM's address, which gets the GM's links
    once it confirms (mail kind gm_links) and lists the game in its "Your games".
    """
    gm_address = None if gm_email in (None, "") else normal_address(gm_email, "gm_email")
    ruleset = ruleset_or_invalid(ruleset_id)
    given = dict(options)
    no_rollback = given.pop(NO_ROLLBACK_OPTION, public)
    if not isinstance(no_rollback, bool):
        raise Invalid(f"option {NO_ROLLBACK_OPTION}: true (the GM may never roll the game back) or false",
                      f"options.{NO_ROLLBACK_OPTION}")
    gm_reads = given.pop(PRIVATE_OPTION, False)
    if not isinstance(gm_reads, bool):
        raise Invalid(f"option {PRIVATE_OPTION}: true (the GM reads the private messages between players) "
                      "or false (only their sender and recipient do)", f"options.{PRIVATE_OPTION}")
    opts, length = check_options(ruleset, given)
    # A game that allows rollbacks keeps links beyond its most steps for the rounds played again.
    reserve = 0 if no_rollback else ROLLBACK_RESERVE
    seats = check_seats(ruleset, seats, opts)
    title = (title or "").strip() or f"{ruleset.info.title} game"
    if len(title) > 200:
        raise Invalid("title: at most 200 characters", "title")
    count_game_creation()
    with session.begin():
        addresses = [(s.email, f"seats[{i}].email") for i, s in enumerate(seats)] + [(gm_address, "gm_email")]
        check_invitations(session, addresses)
        address_confirm.ask(session, addresses)  # the invitations wait for it
        game_id = _free_game_id(session)
        gm_salt = secrets.token_hex(16) if gm_address else None
        gm_token = (gm_token_of(current_app.config["SECRET_KEY"], game_id, gm_salt) if gm_salt
                    else new_token())
        sealed, commitment, marks = new_chain(game_id, length + reserve, NEW_GAME_PROFILE)
        terms = new_terms(ruleset.info.id, ruleset.revision, opts, [s.name for s in seats], deadline_policy)
        game = Game(id=game_id, ruleset=ruleset.info.id, revision=ruleset.revision, title=title,
                    options={**opts, "chain_length": length, PROFILE_OPTION: NEW_GAME_PROFILE,
                             NO_ROLLBACK_OPTION: no_rollback, PRIVATE_OPTION: gm_reads,
                             **({RESERVE_OPTION: reserve} if reserve else {}), TERMS_OPTION: terms},
                    public=public, status="waiting",
                    sealed_tip=sealed, sealed_marks=marks, chain_length=length + reserve,
                    commitment=commitment,
                    current_round=0, gm_token_hash=token_hash(gm_token), created_at=clock.now(),
                    gm_email=gm_address, gm_salt=gm_salt,
                    deadline_policy=deadline_policy)  # checked by service.schedule.policy.checked_policy
        session.add(game)
        session.flush()
        entry.store_rules(session, game_id, entry_rules or entry.Rules())
        invites: list[tuple[str, str]] = []
        for i, spec in enumerate(seats):
            invite = new_token()
            seat = Seat(game_id=game_id, seat_index=i, name=spec.name, email=spec.email,
                        invite_token_hash=token_hash(invite), force=spec.force, mail_pref="all",
                        reply_token_salt=secrets.token_hex(16))
            session.add(seat)
            session.flush()
            invites.append((spec.name, invite))
            url = join_url(game_id, invite) if join_url else None
            enqueue(session, "invitation", {"join_url": url, "commitment": commitment, "title": title},
                    game=game, seat=seat)
        if gm_address:  # the links wait for the address to confirm (service.outbound.deliver)
            enqueue(session, "gm_links", {"gm_url": urls.absolute("gm.page", game_id=game_id, token=gm_token),
                                          "title": title}, game=game, to=gm_address)
        audit(session, game_id, "gm", "created",
              {"ruleset": ruleset.info.id, "seats": [s.name for s in seats], "commitment": commitment})
    return CreatedGame(game_id, commitment, gm_token, invites)


def _free_game_id(session: Session) -> str:
    while True:
        game_id = new_game_id()
        if session.get(Game, game_id) is None:
            return game_id


def parse_entropy(value: Any) -> bytes | None:
    """A player's entropy: hex of 16 to 64 bytes, or None to have the server make one."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not HEX_RE.match(value) or not 16 <= len(value) // 2 <= 64:
        raise Invalid("entropy must be hex of 16 to 64 bytes (32 to 128 hex digits)", "entropy")
    return bytes.fromhex(value)


def _mail_entropy(game: Game, seat: Seat, text: str) -> tuple[bytes | None, str]:
    """A mail joiner's entropy from the words after JOIN: under v3 any words (hex of 16 to
    64 bytes stands for itself); before, hex only."""
    if not is_v3(game):
        value = parse_entropy(text.strip() or None)
        return value, "hex" if value is not None else "server"
    value, kind = join_entropy(game.id, seat.name, text)
    return value, "server" if kind == "none" else kind


def seat_by_invite(session: Session, game_id: str, invite_token: Any) -> tuple[Game, Seat]:
    """The game (row-locked on PostgreSQL) and the seat an invite token opens; 404 / 401."""
    if not isinstance(invite_token, str) or not invite_token:
        raise Unauthorized("invite_token is missing", "invite_token")
    game = session.get(Game, game_id, with_for_update=True)
    if game is None:
        raise NotFound(f"no game {game_id!r}")
    seat = session.scalars(select(Seat).where(
        Seat.game_id == game_id, Seat.invite_token_hash == token_hash(invite_token))).first()
    if seat is None:
        raise Unauthorized("this invite token does not open a seat of this game", "invite_token")
    return game, seat


def seat_by_token(session: Session, game_id: str, token: str | None) -> Seat:
    """The seat a player token belongs to; 404 for an unknown game, 401 for a bad token.

    The game and its seats are read in one statement (callers read seat.game and
    game.seats next), and the seat keeps the game loaded: the identity map forgets a
    row nobody holds.
    """
    game = session.get(Game, game_id, options=[joinedload(Game.seats)])
    if game is None:
        raise NotFound(f"no game {game_id!r}")
    if not token:
        raise Unauthorized("a player token is needed (Authorization: Bearer <player_token>)")
    wanted = token_hash(token)
    seat = next((s for s in game.seats
                 if s.player_token_hash and hmac.compare_digest(s.player_token_hash, wanted)), None)
    if seat is None:
        raise Unauthorized("this player token is not valid for this game")
    set_committed_value(seat, "game", game)  # seat.game without asking the database again
    return seat


def seat_by_id(session: Session, game_id: str, seat_id: int) -> tuple[Game, Seat]:
    """The game (row-locked on PostgreSQL) and one of its seats by id; 404."""
    game = session.get(Game, game_id, with_for_update=True)
    seat = session.get(Seat, seat_id)
    if game is None or seat is None or seat.game_id != game.id:
        raise NotFound(f"no such seat in game {game_id!r}")
    return game, seat


def held_forces(game: Game, seat: Seat | None) -> dict[str, Mapping[str, Any]]:
    """The forces the game's other seats hold (given at creation or at joining), by name:
    what a joining seat's force may not take twice where the rules have one of a thing."""
    return {s.name: dict(s.force) for s in game.seats
            if s.force is not None and (seat is None or s.id != seat.id)}


def join(session: Session, game_id: str, invite_token: Any, entropy: Any = None,
         force: Any = None, seat_id: int | None = None, via: str = "api",
         join_words: str | None = None) -> Joined:
    """seat_id: a seat proven another way than by its invite (a signed mail token).
    via: where the entropy was given ("browser", "api"); join_words: a mail joiner's words
    after JOIN (hex of 16 to 64 bytes is that entropy, other words make it; v3)."""
    given_entropy = parse_entropy(entropy)
    with session.begin():
        if seat_id is None:
            game, seat = seat_by_invite(session, game_id, invite_token)
        else:
            game, seat = seat_by_id(session, game_id, seat_id)
        if seat.joined_at is not None:
            raise Conflict(f"seat {seat.name} has already joined this game", "invite_token")
        entry.check_entry(session, game, seat.email)
        ruleset = find_ruleset(game.ruleset, game.revision)
        opts = ruleset.options({k: v for k, v in game.options.items() if k not in SERVICE_OPTIONS})
        others = held_forces(game, seat)
        if force is not None:
            check_force(ruleset, force, opts, "force", others)
            seat.force = dict(force)
        elif seat.force is None:
            seat.force = ruleset.default_force_beside(seat.seat_index, opts, others)
        source = via if given_entropy is not None else "server"
        words = None
        if join_words is not None:
            given_entropy, source = _mail_entropy(game, seat, join_words)
            if source == "words":
                words = join_words
        # v2: a seat without entropy gets the value S_0 fixed before anyone joined, never
        # bytes drawn after the host has seen the other seats' entropy.
        s_0, profile = bytes.fromhex(game.commitment), game_profile(game)
        raw = (given_entropy if given_entropy is not None
               else server_entropy(s_0, game.id, seat.name, profile) if is_bound(game)
               else secrets.token_bytes(32))
        seat.entropy = raw.hex()
        # v3 names where a player's own entropy came from (engine.held.ENTROPY_SOURCES)
        seat.entropy_source = source if is_v3(game) or source == "server" else "player"
        player_token = new_token()
        seat.player_token_hash = token_hash(player_token)
        seat.joined_at = clock.now()
        audit(session, game.id, seat.name, "joined", {"entropy_source": seat.entropy_source})
        if is_v3(game):
            enqueue(session, "joined", {"round": 1, "source": seat.entropy_source, "words": words},
                    game=game, seat=seat)
        started = all(s.joined_at is not None for s in game.seats)
        if started:
            _start(session, game, ruleset, opts)
    return Joined(game_id, seat.name, player_token, started)


def _start(session: Session, game: Game, ruleset: Ruleset[Any],
           opts: dict[str, Any]) -> None:
    """Salt from every entropy, then step 1 (setup) and round 1."""
    seats = list(game.seats)
    entropy = {s.name: bytes.fromhex(s.entropy or "") for s in seats}
    game.salt = game_salt(game.id, entropy, game_profile(game)).hex()
    players = [s.name for s in seats]
    inputs = setup_inputs(ruleset.info.id, opts, players, {s.name: s.force or {} for s in seats},
                          game.revision)
    dice, s_1 = step_dice(game, 1, inputs)
    try:
        result = run_setup(inputs, dice)
    except ForceError as exc:
        raise Invalid(str(exc), "force") from None
    game.status = "active"
    record_step(session, game, seat_facts(session, game), result, s_1, game_profile(game))
    audit(session, game.id, "service", "started", {"salt": game.salt})
