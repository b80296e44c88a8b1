"""Every dicepost-dice/v1 test vector of docs/dice-spec.md, byte for byte."""

import pytest

from engine.dice import (
    PROFILE,
    Dice,
    H,
    ScriptedDice,
    canonical,
    chain,
    chain_link_ok,
    enc,
    face,
    face_and_words,
    game_salt,
    inputs_digest,
    state_hash,
    step_key,
)

TIP = bytes(range(32))
STEP1 = {"ruleset": "universal", "width": 8, "height": 8}
STEP2 = {"alice": "A1 move c3\nA1 attack B2", "bob": ""}
ENTROPY = {"alice": b"\xa1" * 16, "bob": b"\xb0" * 16}


def links() -> list[bytes]:
    return chain(TIP, 4)


def test_enc_vector() -> None:
    assert enc("ab", 1).hex() == "000000026162000000080000000000000001"


def test_chain_vectors() -> None:
    s0, s1, s2, s3, s4 = links()
    assert s4 == TIP
    assert s3.hex() == "6454c6336e8e6bcfbdbaea42f6e87c2a4025cc2fe1913061d812b56a3c598f41"
    assert s2.hex() == "227ef3799fd4d94ad2e4ed4c6dfc13e885507c0dc2e1f0c05489467f7ff8d743"
    assert s1.hex() == "c8065188fa991c5e95451a77e47636542a4c638233a96c252c8bf3d8c468fddb"
    assert s0.hex() == "5e2370dfbd97933de2834a5d0d689f5346c08a3287ff6cf7dbc10ed7d89132d5"
    assert chain_link_ok(s1, s0) and not chain_link_ok(s2, s0)


def test_salt_vector() -> None:
    g = game_salt("g-7f3a", ENTROPY)
    assert g.hex() == "49544ca718f7f6fc79209a6898e6f76e918673f064159f3deab05d123757014a"


def test_step1_vectors() -> None:
    s1 = links()[1]
    g = game_salt("g-7f3a", ENTROPY)
    assert inputs_digest(STEP1).hex() == "1c670bbd2337166293ef969b7e530d114db484ead4cefa5445bcf5ffbc40e85c"
    k1 = step_key(s1, g, 1, STEP1)
    assert k1.hex() == "db4278561aa2ef35a1ad89f9878f55eff1812d7b867024730f78e5faf70cd39d"
    assert [face(k1, j, 6) for j in range(10)] == [5, 6, 5, 1, 1, 1, 4, 3, 4, 2]


def test_step2_vectors() -> None:
    s2 = links()[2]
    g = game_salt("g-7f3a", ENTROPY)
    assert inputs_digest(STEP2).hex() == "4448abab1b1eb30850daa10734ff795f120fc3360aeb82deca9cc2180d91a21f"
    k2 = step_key(s2, g, 2, STEP2)
    assert k2.hex() == "83b2390af1efcbd098f597d3f28217d398dc3d0f2d79f9fd48860874fabc61ff"
    assert [face(k2, j, 20) for j in range(5)] == [7, 17, 14, 15, 2]
    assert face(k2, 5, 6) == 3
    assert face_and_words(k2, 0, 2**31 + 1) == (568002283, 3)


def test_dice_object_numbers_and_logs_rolls() -> None:
    k1 = step_key(links()[1], game_salt("g-7f3a", ENTROPY), 1, STEP1)
    dice = Dice(k1, 1)
    faces = [dice.roll(6, f"test {i}") for i in range(10)]
    assert faces == [5, 6, 5, 1, 1, 1, 4, 3, 4, 2]
    assert [(r.step, r.j, r.n, r.face) for r in dice.rolls][:2] == [(1, 0, 6, 5), (1, 1, 6, 6)]
    assert dice.rolls[3].label == "test 3"


def test_shuffle_follows_dice_md() -> None:
    """for i = m-1 down to 1: next roll with n = i+1, k = face-1, swap items i and k."""
    dice = ScriptedDice([1, 3, 2])  # d4 -> k=0, d3 -> k=2, d2 -> k=1
    assert dice.shuffle(["a", "b", "c", "d"], "deck") == ["d", "b", "c", "a"]
    assert [r.n for r in dice.rolls] == [4, 3, 2]


def test_canonical_json_sorts_and_refuses_floats() -> None:
    assert canonical({"b": 1, "a": "é"}) == '{"a":"é","b":1}'.encode()
    with pytest.raises(TypeError):
        canonical({"x": 1.5})
    assert len(state_hash({"a": 1})) == 64


def test_scripted_dice_refuse_impossible_faces() -> None:
    with pytest.raises(ValueError):
        ScriptedDice([7]).roll(6, "x")


def test_h_uses_profile() -> None:
    assert H(PROFILE, "chain", TIP) == links()[3]
