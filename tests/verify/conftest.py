"""Shared pieces of the verifier tests: a finished self-played game, and the page's JS in Node."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import pytest

from engine.record import checksum, seal_step
from engine.selfplay import play

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "templates" / "verify" / "verifier.html"
JS = Path(__file__).resolve().parent / "js"
NODE = shutil.which("node") or "/usr/bin/node"


def serialize(record: Any) -> bytes:
    """A record as the service sends it: compact JSON, UTF-8."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()


def copy(record: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(record))


def reseal(record: dict[str, Any]) -> dict[str, Any]:
    """What a forger would do after an edit: recompute D_t, K_t and every checksum."""
    salt = bytes.fromhex(record["salt"])
    record["steps"] = [seal_step(s, salt, record["profile"]) for s in record["steps"]]
    record["checksum"] = checksum(record)
    return record


def node(script: str, *args: str, stdin: Any = None) -> str:
    proc = subprocess.run([NODE, str(JS / script), *args], input=None if stdin is None else json.dumps(stdin),
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, f"node {script} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def js_compute(cases: list[dict[str, Any]]) -> list[Any]:
    """Run cases through the page's own core script (see js/compute.mjs)."""
    out: list[Any] = json.loads(node("compute.mjs", stdin={"html": str(PAGE), "cases": cases}))
    assert len(out) == len(cases)
    return out


def js_verify(texts: list[bytes]) -> list[dict[str, Any]]:
    return js_compute([{"op": "verify", "text": base64.b64encode(t).decode()} for t in texts])


@pytest.fixture(scope="session")
def finished() -> dict[str, Any]:
    """A whole game of the universal ruleset, played to its end by bots."""
    record = play("universal", "verify-suite", max_rounds=60).record
    assert record["outcome"] is not None, "the fixture game should finish"
    return record


def join_game(client: Any) -> tuple[str, dict[str, str]]:
    """Through the service's JSON API: create a game and join both seats; (id, player tokens)."""
    created = client.post("/api/games", json={"ruleset": "universal", "seats": [
        {"name": "red", "email": "red@example.org"}, {"name": "blue", "email": "blue@example.org"}]})
    assert created.status_code == 201, created.json
    game_id = created.json["id"]
    tokens = {}
    for seat in created.json["seats"]:
        joined = client.post(f"/api/games/{game_id}/join", json={"invite_token": seat["invite_token"]})
        assert joined.status_code == 200, joined.json
        tokens[seat["name"]] = joined.json["player_token"]
    return game_id, tokens


def play_rounds(client: Any, rounds: int, game: tuple[str, dict[str, str]] | None = None) -> str:
    """Through the service's JSON API only: create a game, join both seats, play rounds."""
    game_id, players = game or join_game(client)
    tokens = {name: {"Authorization": f"Bearer {token}"} for name, token in players.items()}
    for _ in range(rounds):
        for headers in tokens.values():
            view = client.get(f"/api/games/{game_id}/orders", headers=headers).json
            if view["round"] is None:
                return game_id
            line = next(sorted(options)[0] for _, options in sorted(view["units"].items()) if options)
            put = client.put(f"/api/games/{game_id}/orders", headers=headers,
                             json={"round": view["round"], "orders": line})
            assert put.status_code == 200, put.json
    return game_id


def mail(block: str, seat: str, n: int, game_id: str = "") -> bytes:
    """A mail as the service sends one: a text part around the evidence block and an HTML one
    beside it (quoted-printable, as most mailers write them)."""

    kind = next((line.split(": ", 1)[1] for line in block.splitlines() if line.startswith("kind: ")), "mail")
    msg = EmailMessage()
    msg["From"] = "dicepost <game@dicepost.example>"
    msg["To"] = f"{seat}@example.org"
    msg["Subject"] = f"[dicepost] {game_id} {kind} {n}"
    msg["Date"] = format_datetime(datetime(2026, 6, 1, tzinfo=UTC) + timedelta(hours=n))
    msg["Message-ID"] = f"<{n}.{seat}@dicepost.example>"
    text = (f"Hello {seat},\n\nthis is mail {n} of game {game_id}: é, ü and a long line "
            + "that a mailer would fold " * 6 + "\n\nKeep this mail: it is your evidence.\n\n"
            + block + "\n-- \ndicepost\n")
    msg.set_content(text, cte="quoted-printable")
    msg.add_alternative(f"<p>Hello {seat}, mail {n}.</p>", subtype="html")
    return msg.as_bytes()


def write_mails(folder: Path, blocks: list[str], seat: str, game_id: str = "") -> list[Path]:
    """One .eml file a mail, as a mail program saves them."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for n, block in enumerate(blocks, start=1):
        path = folder / f"{n:03d}.eml"
        path.write_bytes(mail(block, seat, n, game_id))
        paths.append(path)
    return paths


def mbox(blocks: list[str], seat: str, game_id: str = "") -> bytes:
    """The same mails in one mbox file (mboxrd: body lines "From " escaped)."""
    out = b""
    for n, block in enumerate(blocks, start=1):
        body = re.sub(rb"(?m)^(>*From )", rb">\1", mail(block, seat, n, game_id))
        out += b"From game@dicepost.example Mon Jun  1 00:00:00 2026\n" + body.replace(b"\r\n", b"\n")
        out += b"\n" if out.endswith(b"\n") else b"\n\n"
    return out
