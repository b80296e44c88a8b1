"""The page's JavaScript against docs/dice-spec.md and against the Python engine on random inputs."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from engine.dice import H, M, canonical, chain_link_ok, enc, face_and_words, game_salt, step_key
from tests.verify.conftest import PAGE, js_compute, node

CASES = 3000


def test_dice_md_vectors_in_the_pages_javascript() -> None:
    assert node("dice_vectors.mjs", str(PAGE)).strip() == "ok 15"


def test_v2_vectors_in_the_pages_javascript() -> None:
    assert node("dice_v2_vectors.mjs", str(PAGE)).strip() == "ok 15"


ALPHABET = ("abcXYZ019 _-\"\\/\n\t\r\b\f\x00\x01\x1f\x7f\u00e9\u00df\u2028\u2029\u0394\u4e2d"
            "\ufb01\ufffd\uffff\U0001f600\U0001f3b2\U00010000\U0010ffff")


def text(rng: random.Random, longest: int = 12) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, longest)))


def json_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(7 if depth < 3 else 4)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.choice([0, 1, -1, 2**53 - 1, -(2**53 - 1), rng.randint(-(2**53 - 1), 2**53 - 1)])
    if kind in (2, 3):
        return text(rng)
    if kind == 4:
        return [json_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {text(rng, 4): json_value(rng, depth + 1) for _ in range(rng.randint(0, 5))}


def field(rng: random.Random) -> tuple[Any, dict[str, str]]:
    kind = rng.randrange(3)
    if kind == 0:
        s = text(rng)
        return s, {"s": s}
    if kind == 1:
        i = rng.choice([0, 1, 2**32, 2**53 + 1, 2**64 - 1, rng.randrange(2**64)])
        return i, {"i": str(i)}
    b = rng.randbytes(rng.randint(0, 70))
    return b, {"b": b.hex()}


def sides(rng: random.Random) -> int:
    return rng.choice([1, 2, 3, 6, 7, 10, 12, 20, 100, 2**31 + 1, 2**32 - 1, 3 * 2**30 + 1,
                       rng.randint(1, 64), rng.randint(1, 2**32 - 1)])


def test_python_and_javascript_agree_on_random_inputs() -> None:
    rng = random.Random(6)
    cases: list[dict[str, Any]] = []
    expected: list[Any] = []
    for _ in range(CASES):
        pairs = [field(rng) for _ in range(rng.randint(0, 5))]
        values, tagged = [v for v, _ in pairs], [t for _, t in pairs]
        cases.append({"op": "enc", "fields": tagged})
        expected.append(enc(*values).hex())
        cases.append({"op": "H", "fields": tagged})
        expected.append(H(*values).hex())
        # WebCrypto refuses empty HMAC keys; docs/dice-spec.md's keys are always 32 bytes.
        key = rng.randbytes(rng.choice([1, 16, 32, 64, 65, 100]))
        cases.append({"op": "M", "key": key.hex(), "fields": tagged})
        expected.append(M(key, *values).hex())
        value = json_value(rng)
        cases.append({"op": "canonical", "value": value})
        expected.append(canonical(value).hex())
        link = rng.randbytes(32)
        cases.append({"op": "chain", "link": link.hex()})
        expected.append(H("dicepost-dice/v1", "chain", link).hex())
        assert chain_link_ok(link, bytes.fromhex(expected[-1]))
        entropy = {text(rng, 6) or "p": rng.randbytes(rng.randint(16, 64)) for _ in range(rng.randint(1, 5))}
        game_id = text(rng) or "g"
        cases.append({"op": "salt", "game_id": game_id, "entropy": {p: e.hex() for p, e in entropy.items()}})
        salt = game_salt(game_id, entropy)
        expected.append(salt.hex())
        s_t, t, inputs = rng.randbytes(32), rng.randint(1, 5000), json_value(rng)
        cases.append({"op": "step_key", "s_t": s_t.hex(), "salt": salt.hex(), "t": t, "inputs": inputs})
        k_t = step_key(s_t, salt, t, inputs)
        expected.append(k_t.hex())
        dice = [(rng.randint(0, 300), sides(rng)) for _ in range(rng.randint(1, 4))]
        cases.append({"op": "faces", "key": k_t.hex(), "dice": dice})
        expected.append([list(face_and_words(k_t, j, n)) for j, n in dice])
    got = js_compute(cases)
    mismatches = [(c, e, g) for c, e, g in zip(cases, expected, got, strict=True) if e != g]
    assert not mismatches, f"{len(mismatches)} of {len(cases)} differ; first: {mismatches[0]}"
    rejections = sum(words > 1 for e in expected if isinstance(e, list) for _, words in e)
    assert rejections > 50, "the random dice should exercise rejection sampling"


def test_code_point_order_is_not_utf16_order() -> None:
    # U+FFFF sorts before U+1F600 by code point, after it by UTF-16 unit (0xD83D).
    value = {"\U0001f600": 1, "\uffff": 2, "a": 3}
    assert js_compute([{"op": "canonical", "value": value}]) == [canonical(value).hex()]
    assert canonical(value).decode().index("\uffff") < canonical(value).decode().index("\U0001f600")


def gm_actions() -> list[Any]:
    """Every worded action with its placeholders filled, and the shapes that fall back to JSON."""
    import string

    from engine.gmlog import ACTION_WORDS

    fills: list[Any] = ["2026-01-02T10:00:00+00:00", ["bob", "carol"], None, 3, True, [], ["a", None, 2]]
    out: list[Any] = []
    for i, (name, words) in enumerate(ACTION_WORDS.items()):
        keys = [k for _text, k, _spec, _conv in string.Formatter().parse(words) if k]
        detail = {k: fills[(i + j) % len(fills)] for j, k in enumerate(keys)}
        out.append({"round": i or None, "action": name, "actor": ("gm", "service", "blue")[i % 3],
                    "at": "2026-01-01T10:00:00+00:00", "detail": detail})
    out += [
        {"round": 2, "action": "gm_extend", "actor": "gm", "at": "x", "detail": {"from": "a"}},  # a key missing
        {"round": 2, "action": "gm_extend", "actor": None, "at": "x", "detail": {"from": "a", "to": "b", "z": 1}},
        {"round": 4, "action": "something_new", "actor": "", "at": "x",
         "detail": {"b": [1, {"y": None, "x": "é\n"}], "a": "it's \"quoted\""}},
        {"round": 1, "action": "seat_to_bot", "actor": "gm", "at": "x", "detail": {"seat": {"k": "it's"}}},
        {"round": 1, "action": "gm_pause", "detail": "not a mapping"},
        {"action": "constructor", "actor": "toString", "detail": {}},
        {},
        "a bare string", 7, None, ["gm_pause", {"b": 1, "a": 2}],
    ]
    return out


def test_the_pages_gm_action_words_are_the_commands() -> None:
    """Without the runtime the page words each GM action itself: the same text as engine.gmlog."""
    from engine.gmlog import action_text

    actions = gm_actions()
    assert js_compute([{"op": "gm_action_text", "action": a} for a in actions]) == [action_text(a) for a in actions]


def test_v3_vectors_in_the_pages_javascript(tmp_path: Path) -> None:
    from tests.engine import dice_v3_reference as ref
    from tests.engine.test_dice_v3_vectors import VECTORS

    path = tmp_path / "v3.json"
    path.write_text(json.dumps({"vectors": VECTORS, "inputs": {
        "game": ref.GAME, "terms": ref.TERMS, "force": ref.FORCE, "step1": ref.STEP1, "step2": ref.STEP2,
        "c1": ref.C1.hex(), "c2": ref.C2.hex()}}), encoding="utf-8")
    assert node("dice_v3_vectors.mjs", str(PAGE), str(path)).strip() == "ok 21"
