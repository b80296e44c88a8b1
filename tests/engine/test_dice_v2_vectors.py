"""Every dicepost-dice/v2 test vector of docs/dice-spec.md, byte for byte."""

from engine.dice import (
    PROFILE_V2,
    Dice,
    bot_key,
    chain,
    chain_link_ok,
    face,
    game_salt,
    inputs_digest,
    receipt,
    server_entropy,
    step_key,
)

TIP = bytes(range(32))
GAME = "g-7f3a"
STEP1 = {"ruleset": "universal", "width": 8, "height": 8}
STEP2 = {"alice": "A1 move c3\nA1 attack B2", "bob": ""}


def links() -> list[bytes]:
    return chain(TIP, 4, PROFILE_V2)


def entropy() -> dict[str, bytes]:
    return {"alice": b"\xa1" * 16, "bob": server_entropy(links()[0], GAME, "bob")}


def salt() -> bytes:
    return game_salt(GAME, entropy(), PROFILE_V2)


def test_chain_vectors() -> None:
    s0, s1, s2, _s3, s4 = links()
    assert s4 == TIP
    assert s0.hex() == "14a5a669302772c4d3f6f4c6981865b252f035f62755896d894915f88bf1d3d3"
    assert s1.hex() == "a2a500b1f13e3b86924fa52dea5482360732f3924795b487b5e8aae812bef719"
    assert s2.hex() == "6138016942f63f3733697e521ad1d6df3dca140e95f753a36e4e17df0e043069"
    assert chain_link_ok(s1, s0, PROFILE_V2) and not chain_link_ok(s1, s0)  # v1 link differs


def test_server_made_entropy_vector() -> None:
    assert entropy()["bob"].hex() == "d50d22c93ec48c6975553fe8fbbe5135bf92bee200ba9dcb2cdf81c2a0084531"


def test_salt_vector() -> None:
    assert salt().hex() == "f75b60aba6f72465a8c7a78c454d7599947cca268cf6bbfd243feca68f100ae7"


def test_step1_vectors() -> None:
    assert inputs_digest(STEP1, PROFILE_V2).hex() == (
        "1b28de80a3fde52f947d5f06f75e43ad68480c140d190f31468a7f8a7e6399e5")
    k1 = step_key(links()[1], salt(), 1, STEP1, PROFILE_V2)
    assert k1.hex() == "ef7387c2700d3df7edf6ba171563c987920d42292e8b89e3ed379122078135aa"
    assert [face(k1, j, 6, PROFILE_V2) for j in range(10)] == [1, 2, 6, 1, 6, 6, 2, 3, 1, 5]
    dice = Dice(k1, 1, PROFILE_V2)
    assert [dice.roll(6, "v2") for _ in range(10)] == [1, 2, 6, 1, 6, 6, 2, 3, 1, 5]


def test_step2_vectors() -> None:
    assert inputs_digest(STEP2, PROFILE_V2).hex() == (
        "871137dcc631c43ccfff6528c79a2bec5929a7506ce2ec064508755b9d8ec4cc")
    k2 = step_key(links()[2], salt(), 2, STEP2, PROFILE_V2)
    assert k2.hex() == "8569087e7507b975c74a4fc71c5e73c5f28238629b47ed0edd7ac1210e9c4cd6"
    assert [face(k2, j, 20, PROFILE_V2) for j in range(5)] == [15, 6, 20, 2, 5]


def test_bot_key_vector() -> None:
    b = bot_key(links()[2], salt(), 2, "bob")
    assert b.hex() == "1ffa7b1fbd1d3289324d29a1e68a7e2f5040170adcc1691d55740d165d397240"
    assert [face(b, j, 6, PROFILE_V2) for j in range(6)] == [5, 4, 3, 6, 3, 6]


def test_receipt_vectors() -> None:
    assert receipt(GAME, 1, "alice", 2, STEP2["alice"]).hex() == (
        "498c4b330dcf6b9be4303820c51acda680df8fdc9f1cefe002b15c30c81d76cc")
    assert receipt(GAME, 1, "bob", 1, "").hex() == (
        "326b0fb83c3ab7e842949fb15be3c0cd6d389daf13253dacd08979ba9a6515df")
