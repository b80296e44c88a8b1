"""Every dicepost-dice/v3 test vector of docs/dice-spec.md, byte for byte: the engine against
the table, and the table against an independent reference (dice_v3_reference.py)."""

from __future__ import annotations

import re

import pytest

from engine.dice import (
    PROFILE_V3,
    Dice,
    bot_key,
    chain,
    chain_link_ok,
    face,
    force_digest,
    game_salt,
    inputs_digest,
    join_entropy,
    join_words,
    receipt,
    server_entropy,
    step_hash_next,
    step_hash_start,
    step_key,
    terms_digest,
    words_entropy,
)
from tests.conftest import ROOT
from tests.engine import dice_v3_reference as ref

VECTORS = {
    "S_0": "eb3a137f061d859b7087b981df81763696f8caf0eeef78eef3927dfc7ba39c73",
    "S_1": "4781bb03141ff275f9cf230f386c30db2d343fbe3a9e1d92e06987369b89c3ff",
    "S_2": "3e212b98316a521d7079202ad9a8aa178a9de4dfe08b7246ceac790a58255656",
    "words": "Roll well, alice!",
    "E_alice": "44a2185ecffa2491c5948590ff0470a08ade4ea5c4e661458e76d4eff2b83862",
    "E_bob": "774ee0ce414f5f9ddb86bae05dfeee70af7ef65f5075623fb2ddcdeaec981bcb",
    "G": "e2ece72ead5593a9032e43f43e06bf7cddf9385d81680fc0e58ee3b7cfcc9554",
    "T": "dfc40d206348bb0a1b3158c921750d2c79227846ca67b418495b0c18a87f11b2",
    "F_alice": "5dfda61efec763c68cdeb584b83ad0fc15787b0aa2de81f4cae9f41c5c6d06ea",
    "D_1": "1b4eeead61f5e4b90d58d7c2205620299095ed7c1283bd09649ff783892532c2",
    "K_1": "3f3c0d754adfb52eaa020e73154fd4df4fc291d0abcb8bd7cf0c058d24e79eca",
    "step 1 d6": "6 1 6 1 6 2 4 2 6 6",
    "D_2": "5ea7741c17601c0361b3b7704bee3529bfe52783c2da8434298707404b875ab9",
    "K_2": "5becd2324176076a014809b6a83a4c17e82bb542f552c69340f8859e1968e095",
    "step 2 d20": "3 3 18 6 16",
    "B": "b06071bbd10fad9358d63d537b1a5c5c21529ed53b05ccbc4f5e384edfc19d47",
    "bot d6": "1 2 4 6 3 6",
    "R_alice": "b6d521c9fd034978f958e383bfcde48947b3f837d7a2c2d82eb0376055898da2",
    "R_bob": "03cdfd35916259207436b6c05b86fcea81815cb3fe13a1933084c190e9684641",
    "A_0": "d7dafb593f89fa233e10fc5e5d85867344ae9c7178bf476367fe0ce1132772ac",
    "A_1": "5311796762bba7d42e4f331b5722132c52bc0da984be8afc81ffdb9900f0fdfd",
    "A_2": "653f8e763327716240fab46b131ed24ecfc48ff33770c9a566efef5bb685fc7a",
}


def engine_vectors() -> dict[str, str]:
    links = chain(ref.TIP, 4, PROFILE_V3)
    alice, source = join_entropy(ref.GAME, "alice", ref.WORDS_TYPED)
    assert source == "words" and alice is not None
    bob = server_entropy(links[0], ref.GAME, "bob", PROFILE_V3)
    salt = game_salt(ref.GAME, {"alice": alice, "bob": bob}, PROFILE_V3)
    terms = terms_digest(ref.GAME, ref.TERMS)
    k1 = step_key(links[1], salt, 1, ref.STEP1, PROFILE_V3)
    k2 = step_key(links[2], salt, 2, ref.STEP2, PROFILE_V3)
    bot = bot_key(links[2], salt, 2, "bob", PROFILE_V3)
    dice = Dice(k1, 1, PROFILE_V3)
    a0 = step_hash_start(ref.GAME, links[0], terms, salt)
    a1 = step_hash_next(a0, 1, ref.C1)
    return {
        "S_0": links[0].hex(), "S_1": links[1].hex(), "S_2": links[2].hex(),
        "words": join_words(ref.WORDS_TYPED), "E_alice": alice.hex(), "E_bob": bob.hex(),
        "G": salt.hex(), "T": terms.hex(), "F_alice": force_digest(ref.GAME, "alice", ref.FORCE).hex(),
        "D_1": inputs_digest(ref.STEP1, PROFILE_V3).hex(), "K_1": k1.hex(),
        "step 1 d6": " ".join(str(dice.roll(6, "v3")) for _ in range(10)),
        "D_2": inputs_digest(ref.STEP2, PROFILE_V3).hex(), "K_2": k2.hex(),
        "step 2 d20": " ".join(str(face(k2, j, 20, PROFILE_V3)) for j in range(5)),
        "B": bot.hex(), "bot d6": " ".join(str(face(bot, j, 6, PROFILE_V3)) for j in range(6)),
        "R_alice": receipt(ref.GAME, 1, "alice", 2, ref.STEP2["alice"], PROFILE_V3).hex(),
        "R_bob": receipt(ref.GAME, 1, "bob", 1, "", PROFILE_V3).hex(),
        "A_0": a0.hex(), "A_1": a1.hex(), "A_2": step_hash_next(a1, 2, ref.C2).hex(),
    }


def test_the_reference_gives_the_table() -> None:
    assert ref.vectors() == VECTORS


@pytest.mark.parametrize("name", list(VECTORS))
def test_the_engine_gives_the_table(name: str) -> None:
    assert engine_vectors()[name] == VECTORS[name]


def test_the_spec_shows_every_vector() -> None:
    spec = (ROOT / "docs" / "dice-spec.md").read_text(encoding="utf-8")
    v3 = spec[spec.index("# dicepost-dice/v3"):]
    for name, value in VECTORS.items():
        assert value in v3, name


def test_v3_links_differ_from_v2_links() -> None:
    s0, s1 = chain(ref.TIP, 4, PROFILE_V3)[:2]
    assert chain_link_ok(s1, s0, PROFILE_V3) and not chain_link_ok(s1, s0)


def test_join_reads_hex_as_bytes_words_as_words_and_nothing_as_none() -> None:
    assert join_entropy("g", "p", "  " + "AB" * 16 + " ") == (b"\xab" * 16, "hex")
    assert join_entropy("g", "p", "ab" * 15) == (words_entropy("g", "p", "ab" * 15), "words")  # too short
    assert join_entropy("g", "p", " \n\t ") == (None, "none")
    # the same words, however spaced and composed, give the same entropy
    assert join_entropy("g", "p", "Cafe\u0301  du\nmonde")[0] == words_entropy("g", "p", "Café du monde")
    assert re.fullmatch(r"[0-9a-f]{64}", words_entropy("g", "p", "x").hex())
