"""Thousands of active games in seconds: one game made by the service, then cloned row for row.

Creating a game through the service (create, then every seat joins: the chain of 4,096
links, setup, a dozen statements in three transactions) is too dear to repeat thousands of
times. Here the template is made by the service itself (over HTTP),
and each clone is the template's rows copied in SQL, every table the service wrote for
it (the game, its seats, step 1, round 1, schedules, audit rows, outbox rows, ...),
with what the service would have made different in each game made new:

- a new game id (service.tokens.new_game_id) everywhere the template's id appears, in
  any column or inside any text or JSON value (links, audit payloads, Message-IDs);
- new invite, player and GM tokens (their SHA-256 stored, as the service does), and new
  reply-token salts and Message-ID keys;
- the same chain tip sealed for the new id (service.dice_keys.seal_tip), so the
  commitment S_0 and the revealed S_1 are the template's;
- each seat's server-made entropy and the game's salt G computed for the new id, as
  `join` does (engine.dice.server_entropy, game_salt).

The state of step 1 is the template's: setup is deterministic for one force and options
(the universal ruleset draws no setup dice for open terrain), so a clone is what the
service would have written for that game but for its own chain tip; its record
verifies (tests/bench/test_scale_parts.py runs engine.verify on one).
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import JSON, Engine, Integer, Table, select, text

from engine.dice import PROFILE_V1, game_salt, server_entropy
from service.dice_keys import EVERY, open_mark, open_tip, seal_marks, seal_tip
from service.fairdice import PROFILE_OPTION
from service.models import Base
from service.tokens import new_game_id, new_token, token_hash

KEY_HEX = re.compile(r"[0-9a-f]{16}")
OWNERS = ("game_id", "seat_id", "round_id", "outbox_id")  # columns that tie a row to one game


@dataclass(frozen=True)
class Template:
    """A game the service made, with the secrets it answered with."""

    id: str
    invites: list[str]  # invite tokens in seat order
    players: list[str]  # player tokens in seat order
    gm_token: str


@dataclass(frozen=True)
class Clone:
    id: str
    invites: list[str]
    players: list[str]
    gm_token: str


def _rows(conn: Any, table: Table, owned: dict[str, set[Any]]) -> list[dict[str, Any]]:
    """The template's rows of `table` (owned: the template's ids by owner column)."""
    if table.name == "games":
        cond = table.c.id.in_(owned["game_id"])
    else:
        cols = [c for c in OWNERS if c in table.c]
        if not cols:
            return []
        cond = table.c[cols[0]].in_(owned[cols[0]])
    return [dict(r._mapping) for r in conn.execute(select(table).where(cond).order_by(*table.primary_key))]


def template_rows(engine: Engine, game_id: str) -> list[tuple[Table, list[dict[str, Any]]]]:
    """Every row of the template game, table by table in foreign-key order."""
    owned: dict[str, set[Any]] = {"game_id": {game_id}, "seat_id": set(), "round_id": set(),
                                  "outbox_id": set()}
    out = []
    with engine.connect() as conn:
        for table in Base.metadata.sorted_tables:
            rows = _rows(conn, table, owned)
            if not rows:
                continue
            owner = {"seats": "seat_id", "rounds": "round_id", "outbox": "outbox_id"}.get(table.name)
            if owner:
                owned[owner] |= {r["id"] for r in rows}
            out.append((table, rows))
    return out


def _serial(table: Table) -> bool:
    return "id" in table.c and table.c.id.primary_key and isinstance(table.c.id.type, Integer)


def new_ids(conn: Any, table: Table, count: int) -> list[int]:
    return [int(r[0]) for r in conn.execute(
        text("SELECT nextval(pg_get_serial_sequence(:t, 'id')) FROM generate_series(1, :n)"),
        {"t": table.name, "n": count})]


def replaced(value: Any, swaps: dict[str, str]) -> Any:
    """value with every template string in swaps replaced, inside text, lists and objects."""
    if isinstance(value, str):
        for old, new in swaps.items():
            if old in value:
                value = value.replace(old, new)
        return value
    if isinstance(value, list):
        return [replaced(v, swaps) for v in value]
    if isinstance(value, dict):
        return {replaced(k, swaps): replaced(v, swaps) for k, v in value.items()}
    return value


def message_id(template_value: str, swaps: dict[str, str]) -> str:
    """`<scope.kind.key@domain>` for the clone: its scope, a new key where the service drew one."""
    local, domain = template_value[1:-1].rsplit("@", 1)
    scope, kind, key = local.split(".", 2)
    key = secrets.token_hex(8) if KEY_HEX.fullmatch(key) else replaced(key, swaps)
    return f"<{replaced(scope, swaps)}.{kind}.{key}@{domain}>"


class Cloner:
    def __init__(self, engine: Engine, seal_key: bytes, template: Template) -> None:
        self.engine = engine
        self.seal_key = seal_key
        self.template = template
        self.rows = template_rows(engine, template.id)
        game = self.rows[0][1][0]
        self.tip = open_tip(seal_key, template.id, game["sealed_tip"])
        self.length = int(game["chain_length"])
        self.marks = ([open_mark(seal_key, template.id, self.length, game["sealed_marks"], i)
                       for i in range(self.length // EVERY + 1)] if game["sealed_marks"] else None)
        self.profile = str((game["options"] or {}).get(PROFILE_OPTION, PROFILE_V1))
        self.taken = {template.id}
        # Which columns of each template row hold a template id or token: only those are rewritten.
        secrets_ = [template.id, template.gm_token, *template.invites, *template.players]
        self.swapped = [[{k for k, v in r.items() if any(x in json.dumps(v, default=str) for x in secrets_)}
                         for r in rows] for _table, rows in self.rows]

    def _game_id(self) -> str:
        while True:
            gid = new_game_id()
            if gid not in self.taken:
                self.taken.add(gid)
                return gid

    def clone(self, count: int, batch: int = 500) -> list[Clone]:
        """`count` clones, committed `batch` at a time."""
        out: list[Clone] = []
        while len(out) < count:
            out += self._batch(min(batch, count - len(out)))
        return out

    def _batch(self, count: int) -> list[Clone]:
        t = self.template
        clones = [Clone(self._game_id(), [new_token() for _ in t.invites], [new_token() for _ in t.players],
                        new_token()) for _ in range(count)]
        swaps = [{t.id: c.id, t.gm_token: c.gm_token, **dict(zip(t.invites, c.invites, strict=True)),
                  **dict(zip(t.players, c.players, strict=True))} for c in clones]
        with self.engine.begin() as conn:
            maps: dict[str, list[dict[Any, Any]]] = {}  # owner column -> per clone {template id: clone id}
            for (table, rows), swapped in zip(self.rows, self.swapped, strict=True):
                if _serial(table):
                    ids = iter(new_ids(conn, table, count * len(rows)))
                    id_maps = [{r["id"]: next(ids) for r in rows} for _ in clones]
                    owner = {"seats": "seat_id", "rounds": "round_id", "outbox": "outbox_id"}.get(table.name)
                    if owner:
                        maps[owner] = id_maps
                else:
                    id_maps = [{} for _ in clones]
                new_rows = [self._row(table, r, cols, i, c, swaps[i], id_maps[i], maps)
                            for i, c in enumerate(clones) for r, cols in zip(rows, swapped, strict=True)]
                copy_rows(conn, table, new_rows)
        return clones

    def _row(self, table: Table, row: dict[str, Any], cols: set[str], i: int, clone: Clone,
             swaps: dict[str, str], own_ids: dict[Any, Any],
             maps: dict[str, list[dict[Any, Any]]]) -> dict[str, Any]:
        new = {k: replaced(v, swaps) if k in cols else v for k, v in row.items()}
        if own_ids:
            new["id"] = own_ids[row["id"]]
        for col in ("seat_id", "round_id", "outbox_id"):
            if col in new and new[col] is not None and col in maps:
                new[col] = maps[col][i][row[col]]
        if table.name == "games":
            new["sealed_tip"] = seal_tip(self.seal_key, clone.id, self.tip)
            if self.marks is not None:
                new["sealed_marks"] = seal_marks(self.seal_key, clone.id, self.length, self.marks)
            new["gm_token_hash"] = token_hash(clone.gm_token)
            new["salt"] = self._salt(clone) if row["salt"] else row["salt"]
        elif table.name == "seats":
            seat = row["seat_index"]
            new["invite_token_hash"] = token_hash(clone.invites[seat])
            if row["player_token_hash"]:
                new["player_token_hash"] = token_hash(clone.players[seat])
            new["reply_token_salt"] = secrets.token_hex(16)
            if row["entropy"] and row["entropy_source"] == "server" and self.profile != PROFILE_V1:
                new["entropy"] = self._entropy(clone, row["name"]).hex()
        elif table.name == "outbox":
            new["message_id"] = message_id(row["message_id"], swaps)
        return new

    def _entropy(self, clone: Clone, name: str) -> bytes:
        return server_entropy(self._commitment(), clone.id, name, self.profile)

    def _commitment(self) -> bytes:
        return bytes.fromhex(self.rows[0][1][0]["commitment"])

    def _salt(self, clone: Clone) -> str:
        seats = next(rows for table, rows in self.rows if table.name == "seats")
        entropy = {s["name"]: (self._entropy(clone, s["name"]) if s["entropy_source"] == "server"
                               and self.profile != PROFILE_V1 else bytes.fromhex(s["entropy"]))
                   for s in seats}
        return game_salt(clone.id, entropy, self.profile).hex()


def copy_rows(conn: Any, table: Table, rows: list[dict[str, Any]]) -> None:
    """rows into table by COPY (one round trip; the JSON columns as their text)."""
    names = [c.name for c in table.columns]
    json_cols = {c.name for c in table.columns if isinstance(c.type, JSON)}
    cursor = conn.connection.dbapi_connection.cursor()
    columns = ", ".join(f'"{n}"' for n in names)
    with cursor.copy(f'COPY "{table.name}" ({columns}) FROM STDIN') as copy:
        for row in rows:
            copy.write_row([json.dumps(row[n]) if n in json_cols and row[n] is not None else row[n]
                            for n in names])


def tables_of(rows: Iterable[tuple[Table, list[dict[str, Any]]]]) -> dict[str, int]:
    """Rows per table of a template (what each clone copies)."""
    return {table.name: len(r) for table, r in rows}
