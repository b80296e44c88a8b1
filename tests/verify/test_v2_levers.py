"""dicepost-dice/v2: every choice the host used to have is caught by `dicepost verify`.

Each test takes an honest v2 record played by bots (one seat with server-made entropy),
pulls one lever the way a host holding the chain tip could, recomputes everything a forger
can (the step re-run with the forged inputs, D_t, K_t, faces, events, state, checksums),
and checks that the CLI names the place, from the record alone or with what the player
holds (their commitment, entropy and receipts).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from engine.dice import PROFILE_V2, Dice, receipt, step_key
from engine.selfplay import SelfPlay, play
from engine.steps import run_round
from engine.verify import verify
from service.cli import main
from service.commands.verify import EXIT_DIFFERENT, EXIT_OK, command
from tests.verify.conftest import copy, reseal, serialize

GAME_SEED = "v2-levers"


@pytest.fixture(scope="module")
def game() -> SelfPlay:
    return play("universal", GAME_SEED, profile=PROFILE_V2, server_made=("bob",))


Run = Callable[..., tuple[int, dict[str, Any]]]


@pytest.fixture
def run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Run:
    """`dicepost verify FILE ARGS...` as the console script runs it, and its --json report;
    the text report must name the same first place as the JSON one."""
    def go(record: dict[str, Any], *args: str) -> tuple[int, dict[str, Any]]:
        path = tmp_path / "record.json"
        path.write_bytes(serialize(record))
        capsys.readouterr()
        code = main(["verify", str(path), *args])
        text = capsys.readouterr().out
        assert main(["verify", str(path), "--json", *args]) == code
        report: dict[str, Any] = json.loads(capsys.readouterr().out)
        d = report["first_difference"]
        if d:
            place = f"step {d['step']}" if d["step"] else "record"
            assert f"FAILED at {place}, {d['where']}:" in text, text
        else:
            assert text.splitlines()[-1].startswith("OK: every check holds"), text
        return code, report
    return go


def first(report: dict[str, Any]) -> tuple[int, str]:
    d = report["first_difference"]
    return d["step"], d["where"]


def seat_text(record: dict[str, Any], t: int) -> tuple[str, str]:
    """A seat with orders in step t and its input."""
    inputs = record["steps"][t - 1]["inputs"]
    seat = next(p for p in sorted(inputs) if inputs[p])
    return seat, inputs[seat]


def forge_last_step(game: SelfPlay, record: dict[str, Any], inputs: dict[str, str]) -> None:
    """What a host holding the tip does: re-run the last step with other inputs and write
    every value that follows from them."""
    t = len(record["steps"])
    step = record["steps"][t - 1]
    s_t = bytes.fromhex(step["key"])
    salt = bytes.fromhex(record["salt"])
    dice = Dice(step_key(s_t, salt, t, inputs, PROFILE_V2), t, PROFILE_V2)
    result = run_round("universal", game.results[t - 2].state, inputs, t, dice,
                       revision=record["revision"])
    step.update(result.summary())
    record["outcome"] = result.outcome
    reseal(record)


def not_a_bot(record: dict[str, Any], rnd: int, seat: str) -> None:
    """The host claims the seat played itself this round (no bot entry to recompute)."""
    record["bots"] = [b for b in record["bots"] if (b["round"], b["seat"]) != (rnd, seat)]


def set_receipts(record: dict[str, Any], rnd: int, seat: str, texts: list[str]) -> None:
    """The versions of (round, seat) as the host lists them: one receipt per text."""
    record["versions"] = [v for v in record["versions"] if (v["round"], v["seat"]) != (rnd, seat)]
    for i, text in enumerate(texts, start=1):
        record["versions"].append({"round": rnd, "seat": seat, "version": i, "at": "",
                                   "receipt": receipt(record["game_id"], rnd, seat, i, text).hex()})


def test_the_honest_v2_record_passes_with_everything_the_players_hold(game: SelfPlay,
                                                                       run: Run) -> None:
    r = game.record
    args = ["--commitment", r["commitment"], "--entropy", f"alice={r['entropy']['alice']}"]
    for v in r["versions"]:
        args += ["--receipt", f"{v['seat']}:{v['round']}:{v['version']}:{v['receipt']}"]
    code, report = run(r, *args)
    assert code == EXIT_OK, report["differences"]
    assert report["server_made"] == ["bob"]
    assert len(report["bots"]) == 2 * (len(r["steps"]) - 1)
    assert "commitment S_0" in report["held"] and "entropy of alice" in report["held"]
    assert sum(h.startswith("receipt of") for h in report["held"]) == len(r["versions"])


def test_honest_v2_records_of_every_ruleset_pass() -> None:
    for ruleset in ("universal", "jep1", "heroes", "fivedice"):
        v = verify(play(ruleset, "v2-all", profile=PROFILE_V2, server_made=("alice",),
                        max_rounds=40).record)
        assert v.ok, (ruleset, v.differences[:3])


def test_a_respelled_input_is_caught(game: SelfPlay, run: Run) -> None:
    """The same orders in capitals parse alike but give other dice: not the canonical text."""
    record = copy(game.record)
    t = len(record["steps"])
    seat, text = seat_text(record, t)
    inputs = {**record["steps"][t - 1]["inputs"], seat: text.upper()}
    not_a_bot(record, t - 1, seat)
    set_receipts(record, t - 1, seat, [text.upper()])
    forge_last_step(game, record, inputs)
    code, report = run(record)
    assert code == EXIT_DIFFERENT
    assert first(report) == (t, f"input of {seat}")
    assert report["first_difference"]["expected"] == f"the canonical text {text!r}"


def test_pass_for_nothing_is_caught(game: SelfPlay, run: Run) -> None:
    record = copy(game.record)
    t = len(record["steps"])
    seat, _text = seat_text(record, t)
    inputs = {**record["steps"][t - 1]["inputs"], seat: "pass"}
    not_a_bot(record, t - 1, seat)
    set_receipts(record, t - 1, seat, ["pass"])
    forge_last_step(game, record, inputs)
    code, report = run(record)
    assert code == EXIT_DIFFERENT and first(report) == (t, f"input of {seat}")


def test_a_stored_earlier_version_is_caught_by_the_record_and_by_the_players_receipt(
        game: SelfPlay, run: Run) -> None:
    """The player sent version 1 (no orders), then version 2 (the real text); the host
    resolves with version 1."""
    record = copy(game.record)
    t = len(record["steps"])
    rnd = t - 1
    seat, text = seat_text(record, t)
    not_a_bot(record, rnd, seat)
    set_receipts(record, rnd, seat, ["", text])
    honest_receipts = [v for v in record["versions"] if (v["round"], v["seat"]) == (rnd, seat)]
    forge_last_step(game, record, {**record["steps"][t - 1]["inputs"], seat: ""})
    code, report = run(record)
    assert code == EXIT_DIFFERENT and first(report) == (t, f"receipt of {seat} version 2")

    # Dropping version 2 from the list makes the record consistent again: only the
    # player's own receipt of version 2 shows what happened.
    set_receipts(record, rnd, seat, [""])
    reseal(record)
    assert run(record)[0] == EXIT_OK
    mine = honest_receipts[1]
    code, report = run(record, "--receipt",
                          f"{seat}:{rnd}:2:{mine['receipt']}")
    assert code == EXIT_DIFFERENT
    assert first(report) == (t, f"your receipt of {seat} version 2")
    assert report["first_difference"]["found"] == "not listed"


def test_a_text_other_than_the_players_latest_receipt_is_caught(game: SelfPlay,
                                                                  run: Run) -> None:
    record = copy(game.record)
    t = len(record["steps"])
    rnd = t - 1
    seat, text = seat_text(record, t)
    mine = receipt(record["game_id"], rnd, seat, 1, text).hex()
    not_a_bot(record, rnd, seat)
    set_receipts(record, rnd, seat, ["", ""])  # the host invents a later version 2
    forge_last_step(game, record, {**record["steps"][t - 1]["inputs"], seat: ""})
    assert run(record)[0] == EXIT_OK  # consistent in itself
    code, report = run(record, "--receipt", f"{seat}:{rnd}:1:{mine}")
    assert code == EXIT_DIFFERENT
    assert first(report) == (t, f"your receipt of {seat} version 1")


def test_a_changed_server_made_entropy_is_caught(game: SelfPlay, run: Run) -> None:
    record = copy(game.record)
    record["entropy"]["bob"] = "ab" * 32
    reseal(record)
    code, report = run(record)
    assert code == EXIT_DIFFERENT and first(report) == (0, "entropy of bob (server-made)")


def test_a_changed_bot_order_is_caught_and_named(game: SelfPlay, run: Run) -> None:
    record = copy(game.record)
    t = len(record["steps"])
    seat, text = seat_text(record, t)
    set_receipts(record, t - 1, seat, [""])
    forge_last_step(game, record, {**record["steps"][t - 1]["inputs"], seat: ""})
    code, report = run(record)
    assert code == EXIT_DIFFERENT and first(report) == (t, f"bot orders of {seat}")
    assert repr(text) in report["first_difference"]["expected"]


def test_a_swapped_chain_is_caught_by_the_pinned_commitment(game: SelfPlay, run: Run) -> None:
    """A whole game re-run on a new chain verifies in itself; the player's S_0 does not match."""
    other = play("universal", "another chain", profile=PROFILE_V2, server_made=("bob",)).record
    assert run(other)[0] == EXIT_OK
    code, report = run(other, "--commitment", game.record["commitment"])
    assert code == EXIT_DIFFERENT and first(report) == (0, "commitment")
    code, report = run(other, "--entropy",
                          f"alice={game.record['entropy']['alice']}")
    assert code == EXIT_DIFFERENT and first(report) == (0, "entropy of alice")


def rolled_step(record: dict[str, Any]) -> int:
    return next(i for i, s in enumerate(record["steps"]) if i and len(s["rolls"]) >= 3)


def test_a_forged_die_size_is_caught(game: SelfPlay, run: Run) -> None:
    record = copy(game.record)
    i = rolled_step(record)
    roll = record["steps"][i]["rolls"][1]
    roll["n"] = 20
    reseal(record)
    code, report = run(record)
    assert code == EXIT_DIFFERENT
    assert first(report) == (i + 1, "roll 1 face")  # the face of a d20 under K_t differs
    assert (i + 1, "roll 1 n") in [(d["step"], d["where"]) for d in report["differences"]]


def test_a_dropped_roll_is_caught(game: SelfPlay, run: Run) -> None:
    record = copy(game.record)
    i = rolled_step(record)
    del record["steps"][i]["rolls"][1]
    reseal(record)
    code, report = run(record)
    assert code == EXIT_DIFFERENT and first(report) == (i + 1, "roll 1 j")


def test_forged_events_are_caught(game: SelfPlay, run: Run) -> None:
    record = copy(game.record)
    i = rolled_step(record)
    record["steps"][i]["events"][0]["text"] = "Nothing happened."
    reseal(record)
    code, report = run(record)
    assert code == EXIT_DIFFERENT and first(report) == (i + 1, "event 0")


def test_bad_player_values_are_usage_errors_naming_the_option(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text("{}")
    for args, needle in ((["--commitment", "zz"], "--commitment"),
                         (["--entropy", "alice"], "SEAT=HEX"),
                         (["--receipt", "alice:1:x:00"], "SEAT:ROUND:VERSION:HEX")):
        result = CliRunner().invoke(command, [str(path), *args])
        assert result.exit_code == 2 and needle in result.output, result.output


def test_the_record_reader_refuses_duplicate_keys_and_proto() -> None:
    from engine.verify import RecordError, parse_record

    with pytest.raises(RecordError, match="'game_id' twice"):
        parse_record('{"game_id": "a", "game_id": "b"}')
    with pytest.raises(RecordError, match="__proto__"):
        parse_record('{"steps": [], "__proto__": {"ok": true}}')


def test_the_hand_check_in_the_docs_reads_v2_records(game: SelfPlay, tmp_path: Path) -> None:
    from tests.verify.test_fair_dice_doc import hand_check
    from tests.verify.test_fair_dice_doc import run as run_script

    script = tmp_path / "check_dice.py"
    script.write_text(hand_check(), encoding="utf-8")
    path = tmp_path / "record.json"
    path.write_bytes(serialize(game.record))
    assert run_script(script, path).returncode == 0
    forged = copy(game.record)
    forged["entropy"]["bob"] = "ab" * 32
    path.write_bytes(serialize(forged))
    bad = run_script(script, path)
    assert bad.returncode != 0 and "bob" in bad.stderr


def test_the_page_checks_the_dice_of_v2_records_and_their_server_made_entropy(game: SelfPlay) -> None:
    from tests.verify.conftest import js_verify

    forged = copy(game.record)
    forged["entropy"]["bob"] = "ab" * 32
    reseal(forged)
    honest, bad = js_verify([serialize(game.record), serialize(forged)])
    assert honest["ok"], honest["differences"][:3]
    assert honest["unchecked"] == []  # the v2 lists are known fields, not "checksum only"
    first_bad = bad["differences"][0]
    assert (first_bad["step"], first_bad["where"]) == (0, "entropy of bob (server-made)")


def test_the_page_reads_json_as_the_command_does() -> None:
    from tests.verify.conftest import js_verify

    dup, proto = js_verify([b'{"game_id": "a", "game_id": "b"}',
                            b'{"a": [1, {"b": 2}], "__proto__": {"ok": true}}'])
    assert not dup["readable"] and "'game_id' twice" in dup["error"]
    assert not proto["readable"] and "__proto__" in proto["error"]


def test_the_page_checks_what_the_player_holds_with_the_commands_names(game: SelfPlay) -> None:
    """The commitment and entropy from the link: the same places and words as --commitment
    and --entropy, from the page's JavaScript alone."""
    import base64

    from engine.held import Held
    from tests.verify.conftest import js_compute

    other = play("universal", "another chain", profile=PROFILE_V2, server_made=("bob",)).record
    mine = game.record
    cases = [({"commitment": mine["commitment"]}, other),
             ({"entropy": {"alice": mine["entropy"]["alice"]}}, other),
             ({"entropy": {"carol": mine["entropy"]["alice"]}}, mine),
             ({"commitment": mine["commitment"], "entropy": {"alice": mine["entropy"]["alice"]}}, mine)]
    out = js_compute([{"op": "verify", "text": base64.b64encode(serialize(r)).decode(), "held": held}
                      for held, r in cases])
    for (held, record), js in zip(cases, out, strict=True):
        py = verify(record, Held(commitment=bytes.fromhex(held["commitment"]) if "commitment" in held else None,
                                 entropy={p: bytes.fromhex(e) for p, e in held.get("entropy", {}).items()}))
        assert js["differences"] == [d.to_json() for d in py.differences], (held, js["differences"])
        assert js["held"] == py.held
    assert out[0]["differences"][0]["where"] == "commitment"
    assert out[2]["differences"][0]["found"] == "no such seat"
    assert out[3]["ok"] and out[3]["held"] == ["commitment S_0", "entropy of alice"]
