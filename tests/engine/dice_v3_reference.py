"""An independent reference of dicepost-dice/v3's derivations, written from docs/dice-spec.md
alone: no import of the engine, only hashlib, hmac, json and unicodedata. The test vectors
in the spec are what this prints (`python -m tests.engine.dice_v3_reference`), and
test_dice_v3_vectors.py checks the engine against both.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import unicodedata
from typing import Any

P = "dicepost-dice/v3"


def enc(*fields: str | int | bytes) -> bytes:
    out = b""
    for f in fields:
        b = f.encode() if isinstance(f, str) else f.to_bytes(8, "big") if isinstance(f, int) else f
        out += len(b).to_bytes(4, "big") + b
    return out


def H(*f: str | int | bytes) -> bytes:
    return hashlib.sha256(enc(*f)).digest()


def M(k: bytes, *f: str | int | bytes) -> bytes:
    return hmac.new(k, enc(*f), hashlib.sha256).digest()


def canonical(x: Any) -> bytes:
    return json.dumps(x, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def face(key: bytes, j: int, n: int) -> int:
    ctr = 0
    while True:
        block = M(key, P, "roll", j, n, ctr)
        for i in range(0, 32, 4):
            x = int.from_bytes(block[i:i + 4], "big")
            if x < 2**32 - 2**32 % n:
                return 1 + x % n
        ctr += 1


TIP = bytes(range(32))
GAME = "g-7f3a"
WORDS_TYPED = "  Roll  well,\n alice! "
TERMS = {"ruleset": "universal", "options": {"width": 8, "height": 8}, "seats": ["alice", "bob"],
         "bot": "greedy", "missed_turns": {"after": 2, "action": "bot", "unreachable_after": None}}
FORCE = {"units": [{"type": "Knight", "name": "Ser Ann"}]}
STEP1 = {"ruleset": "universal", "width": 8, "height": 8}
STEP2 = {"alice": "A1 attack B2\nA1 move c3", "bob": ""}
C1, C2 = b"\x11" * 32, b"\x22" * 32  # the digests C_t of two steps, as given


def vectors() -> dict[str, str]:
    links = [TIP]
    for _ in range(4):
        links.insert(0, H(P, "chain", links[0]))
    words = " ".join(unicodedata.normalize("NFC", WORDS_TYPED).split())
    alice = H(P, "words", GAME, "alice", words)
    bob = H(P, "server-made", links[0], GAME, "bob")
    salt = H(P, "players", GAME, "alice", alice, "bob", bob)
    terms = H(P, "terms", GAME, canonical(TERMS))
    k1 = M(links[1], P, "step", salt, 1, H(P, "inputs", canonical(STEP1)))
    k2 = M(links[2], P, "step", salt, 2, H(P, "inputs", canonical(STEP2)))
    bot = M(links[2], P, "bot", salt, 2, "bob")
    a0 = H(P, "record", GAME, links[0], terms, salt)
    a1 = H(P, "step", a0, 1, C1)
    a2 = H(P, "step", a1, 2, C2)
    return {
        "S_0": links[0].hex(), "S_1": links[1].hex(), "S_2": links[2].hex(),
        "words": words, "E_alice": alice.hex(), "E_bob": bob.hex(), "G": salt.hex(),
        "T": terms.hex(), "F_alice": H(P, "force", GAME, "alice", canonical(FORCE)).hex(),
        "D_1": H(P, "inputs", canonical(STEP1)).hex(), "K_1": k1.hex(),
        "step 1 d6": " ".join(str(face(k1, j, 6)) for j in range(10)),
        "D_2": H(P, "inputs", canonical(STEP2)).hex(), "K_2": k2.hex(),
        "step 2 d20": " ".join(str(face(k2, j, 20)) for j in range(5)),
        "B": bot.hex(), "bot d6": " ".join(str(face(bot, j, 6)) for j in range(6)),
        "R_alice": H(P, "receipt", GAME, 1, "alice", 2, STEP2["alice"]).hex(),
        "R_bob": H(P, "receipt", GAME, 1, "bob", 1, "").hex(),
        "A_0": a0.hex(), "A_1": a1.hex(), "A_2": a2.hex(),
    }


if __name__ == "__main__":
    for name, value in vectors().items():
        print(f"{name}: {value}")
