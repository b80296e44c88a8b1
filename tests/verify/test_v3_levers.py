"""dicepost-dice/v3: every lever an audit of v2 pulled as the host, caught by `dicepost verify`
given only the affected player's own mails.

Each test takes an honest v3 game played by the engine (engine.selfplay: the seats send
orders as people do, the host's mails kept as the evidence blocks they carry), pulls one
lever the way a host holding the database, the seal key and the code could, recomputes
everything such a host can (the step re-run, D_t, K_t, faces, events, state, checksums,
receipts of what it wrote, the results mails' step hashes of the record it serves), and
runs the command on the forged record with the player's mails (.eml files, as a mail
program saves them). Where the record alone already shows the forgery, that is checked
too; where it does not, that is checked as well, to show the mails are what catches it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from engine.bots import bot_orders
from engine.dice import PROFILE_V3, Dice, receipt, server_entropy, step_key
from engine.held import joined_evidence, orders_evidence, results_evidence
from engine.record import step_hashes
from engine.registry import find_ruleset
from engine.selfplay import SelfPlay, play
from engine.steps import canonical_input, run_round, setup_revision
from engine.verify import round_state
from service.cli import main
from service.commands.verify import EXIT_DIFFERENT, EXIT_OK
from tests.verify.conftest import copy, reseal, serialize, write_mails

SEED = "v3-levers"
ROUNDS = 8
LAST = ROUNDS  # the last round: its results are the last step, ROUNDS + 1
WORDS = "the owl flies at midnight"


def game(ruleset: str = "jep1", **kwargs: Any) -> SelfPlay:
    g = play(ruleset, SEED, profile=PROFILE_V3, max_rounds=ROUNDS, **kwargs)
    assert len(g.record["steps"]) == ROUNDS + 1, "the game should last every round"
    return g


@functools.cache
def honest_game() -> SelfPlay:
    """jep1 (whose rules read a unit's lines in one order): alice joined with words, bob
    with none, alice sat out the last round."""
    return game(words={"alice": WORDS}, server_made=("bob",), idle={"alice": [LAST]})


@functools.cache
def sequence_game() -> SelfPlay:
    """universal, whose rules read a side's lines in the order written."""
    return game("universal")


@functools.cache
def handed_game() -> SelfPlay:
    """bob handed to the bot by the GM for the last round."""
    return game(handovers={"bob": (LAST, "gm")})


@pytest.fixture(scope="module")
def honest() -> SelfPlay:
    return honest_game()


@pytest.fixture(scope="module")
def in_sequence() -> SelfPlay:
    return sequence_game()


@pytest.fixture(scope="module")
def bot_game() -> SelfPlay:
    return handed_game()


@pytest.fixture(scope="module")
def policy_game() -> SelfPlay:
    """alice handed to the bot by the missed-turn policy (after 2 misses) from round 6."""
    return game(handovers={"alice": (6, "missed_turns")})


Run = Callable[..., tuple[int, dict[str, Any]]]


@pytest.fixture
def run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Run:
    """`dicepost verify FILE [--mails FOLDER]` as the console script runs it, with the
    player's mails written as .eml files; (exit status, --json report). The text report
    names the same first place."""
    def go(record: dict[str, Any], mails: Sequence[str] | None = None, seat: str = "") -> tuple[int, dict[str, Any]]:
        path = tmp_path / "record.json"
        path.write_bytes(serialize(record))
        args = [str(path)]
        if mails is not None:
            folder = tmp_path / f"mails-{len(list(tmp_path.iterdir()))}"
            write_mails(folder, list(mails), seat, record["game_id"])
            args += ["--mails", str(folder)]
        capsys.readouterr()
        code = main(["verify", *args])
        text = capsys.readouterr().out
        assert main(["verify", "--json", *args]) == code
        report: dict[str, Any] = json.loads(capsys.readouterr().out)
        d = report["first_difference"]
        if d:
            place = f"step {d['step']}" if d["step"] else "record"
            assert f"FAILED at {place}, {d['where']}:" in text, text
        else:
            assert text.splitlines()[-1].startswith(("OK: every check holds", "AMBER: every check holds")), text
        return code, report
    return go


def first(report: dict[str, Any]) -> tuple[int, str]:
    d = report["first_difference"]
    return (d["step"], d["where"]) if d else (-1, "")


# ---- what a forging host does --------------------------------------------------------------

def mails(g: SelfPlay, seat: str, record: dict[str, Any] | None = None,
          keep: Callable[[str], bool] = lambda _block: True) -> list[str]:
    """The seat's mails: what the game sent them but the results, then the results mails of
    `record` (the one the host served, after it forged it: it mailed those step hashes)."""
    served = record or g.record
    out = [b for b in g.held[seat] if "kind: results" not in b and keep(b)]
    return out + [results_evidence(served["game_id"], PROFILE_V3, t, a, None)
                  for t, a in enumerate(step_hashes(served)[1:], start=1)]


def forge_last_step(record: dict[str, Any], inputs: dict[str, str]) -> None:
    """Re-run the last step with other inputs and write every value that follows."""
    t = len(record["steps"])
    step = record["steps"][t - 1]
    ordered = {p: inputs[p] for p in record["players"]}
    dice = Dice(step_key(bytes.fromhex(step["key"]), bytes.fromhex(record["salt"]), t, ordered,
                         PROFILE_V3), t, PROFILE_V3)
    result = run_round(record["ruleset"], round_state(record, t - 1), ordered, t, dice,
                       revision=setup_revision(record["steps"][0]["inputs"]))
    step.update(result.summary())
    record["outcome"] = result.outcome
    reseal(record)


def set_versions(record: dict[str, Any], rnd: int, seat: str, texts: list[str]) -> list[bytes]:
    """The versions of (round, seat) as the host lists them; their receipts."""
    record["versions"] = [v for v in record["versions"] if (v["round"], v["seat"]) != (rnd, seat)]
    out = []
    for i, text in enumerate(texts, start=1):
        r = receipt(record["game_id"], rnd, seat, i, text, PROFILE_V3)
        record["versions"].append({"round": rnd, "seat": seat, "version": i, "at": "", "receipt": r.hex()})
        out.append(r)
    return out


def last_input(record: dict[str, Any], seat: str) -> str:
    return str(record["steps"][-1]["inputs"][seat])


def other_orders(record: dict[str, Any], seat: str, rnd: int = LAST) -> str:
    """Orders the host writes for a seat: legal, canonical, not what the record counts."""
    ruleset = find_ruleset(record["ruleset"])
    state = ruleset.load(round_state(record, rnd))
    counted = record["steps"][rnd]["inputs"][seat]
    offered = [o.format() for _u, orders in sorted(ruleset.legal_orders(state, seat).items()) for o in orders]
    for text in (bot_orders(ruleset, state, seat, "the host's"), *offered):
        written = canonical_input(ruleset, state, seat, text, PROFILE_V3)
        if written and written != counted:
            return written
    raise AssertionError(f"{seat} has no other orders in round {rnd}")


# ---- the honest games -------------------------------------------------------------------

@pytest.mark.parametrize("ruleset", ["universal", "jep1", "fivedice", "heroes"])
def test_the_honest_game_of_every_ruleset_is_green_with_every_players_mails(ruleset: str, run: Run) -> None:
    players = ("alice", "bob", "carol") if ruleset == "heroes" else ("alice", "bob")
    g = play(ruleset, SEED, players=players, profile=PROFILE_V3, max_rounds=6,
             words={"alice": WORDS}, server_made=("bob",), handovers={players[-1]: (4, "missed_turns")})
    assert run(g.record)[0] == EXIT_OK
    for seat in players:
        code, report = run(g.record, g.held[seat], seat)
        assert code == EXIT_OK, (seat, report["differences"][:3])
        assert report["cautions"] == []
        held = report["held"]
        assert {"commitment S_0", "terms T", f"force of {seat}"} <= set(held), held
        last = len(g.record["steps"])
        assert f"step hash of step {last} (your latest results mail)" in held
        assert any(h.startswith(f"every order of {seat} up to round {last - 1}") for h in held)


def test_the_honest_record_passes_with_the_mails_as_an_mbox(honest: SelfPlay, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    from tests.verify.conftest import mbox

    path, box = tmp_path / "record.json", tmp_path / "alice.mbox"
    path.write_bytes(serialize(honest.record))
    box.write_bytes(mbox(honest.held["alice"], "alice", honest.record["game_id"]))
    assert main(["verify", str(path), "--mails", str(box)]) == EXIT_OK
    out = capsys.readouterr().out
    assert "matches what you hold: entropy of alice" in out
    assert out.splitlines()[-1].startswith("OK: every check holds")


# ---- the levers --------------------------------------------------------------------------

def test_reordered_lines_are_not_the_canonical_text(honest: SelfPlay, run: Run) -> None:
    """The host reorders the last player's lines (they mean the same to jep1's rules) and
    hands back a receipt of the reordered text: the record alone shows it."""
    record = copy(honest.record)
    ruleset = find_ruleset("jep1")
    state = ruleset.load(round_state(record, LAST))
    units = sorted(ruleset.legal_orders(state, "bob"))
    sent = "\n".join([last_input(record, "bob"), *(f"{u} guard none" for u in units)])
    text = canonical_input(ruleset, state, "bob", sent, PROFILE_V3)
    reordered = "\n".join(reversed(text.splitlines()))
    assert len(text.splitlines()) > 1 and reordered != text
    (r,) = set_versions(record, LAST, "bob", [reordered])
    forge_last_step(record, {**record["steps"][-1]["inputs"], "bob": reordered})
    expected = (LAST + 1, "input of bob")
    assert first(run(record)[1]) == expected
    confirmation = orders_evidence(record["game_id"], PROFILE_V3, "bob", LAST, 1, r, sent, reordered, None)
    mine = [*mails(honest, "bob", record, keep=lambda b: f"round: {LAST}\n" not in b), confirmation]
    code, report = run(record, mine, "bob")
    assert code == EXIT_DIFFERENT and first(report) == expected
    assert report["first_difference"]["expected"] == f"the canonical text {text!r}"


Forged = tuple[dict[str, Any], list[str], str]  # the record the host serves, the seat's mails, the seat


def reordered_in_sequence() -> Forged:
    """universal: alice's last lines counted in another order, with a receipt of it, her own
    text quoted beside it in the confirmation."""
    g = sequence_game()
    record = copy(g.record)
    ruleset = find_ruleset("universal")
    state = ruleset.load(round_state(record, LAST))
    text = last_input(record, "alice")
    lines = text.splitlines()
    reordered = next(o for o in ("\n".join(lines[1:] + lines[:1]), "\n".join(reversed(lines)))
                     if o != text and canonical_input(ruleset, state, "alice", o, PROFILE_V3) == o)
    receipts = set_versions(record, LAST, "alice", [reordered])
    forge_last_step(record, {**record["steps"][-1]["inputs"], "alice": reordered})
    confirmation = orders_evidence(record["game_id"], PROFILE_V3, "alice", LAST, 1, receipts[0],
                                   g.sent[(LAST, "alice")], reordered, None)
    return record, [*mails(g, "alice", record, keep=lambda b: f"round: {LAST}\n" not in b), confirmation], "alice"


def test_reordered_lines_the_rules_read_in_sequence_are_caught_by_the_text_you_sent(
        in_sequence: SelfPlay, run: Run) -> None:
    """Where the rules read lines in the order written (universal), another order is other
    orders: the host that counts them, with a receipt of its text and your own text quoted
    beside it, passes the record alone, and fails against the text in your mail."""
    record, mine, seat = reordered_in_sequence()
    assert run(record)[0] == EXIT_OK  # consistent in itself
    code, report = run(record, mine, seat)
    assert code == EXIT_DIFFERENT and first(report) == (LAST + 1, "input of alice")
    text = last_input(in_sequence.record, "alice")
    assert report["first_difference"]["expected"].startswith(f"your orders as the rules read them, {text!r}")


def written_for_a_seat_that_sent_none() -> Forged:
    """alice sat out the last round; the host writes her orders, with a version and receipt."""
    g = honest_game()
    record = copy(g.record)
    assert last_input(record, "alice") == ""
    written = other_orders(record, "alice")
    set_versions(record, LAST, "alice", [written])
    forge_last_step(record, {**record["steps"][-1]["inputs"], "alice": written})
    return record, mails(g, "alice", record), "alice"


def test_orders_written_for_a_seat_that_sent_none_are_caught_by_its_mails(run: Run) -> None:
    """The record is consistent; alice's mails hold no receipt for that round."""
    record, mine, seat = written_for_a_seat_that_sent_none()
    assert run(record)[0] == EXIT_OK
    code, report = run(record, mine, seat)
    assert code == EXIT_DIFFERENT and first(report) == (LAST + 1, "input of alice")
    assert report["first_difference"]["expected"] == (
        f"no orders: your mails hold no receipt of alice for round {LAST}")


def entropy_chosen_for_a_seat_that_gave_none() -> Forged:
    """bob joined without entropy. The host gives his seat a value of its choosing, calls it
    his, and runs the whole game on it; it even tells bob that value at join."""
    forged = game(words={"alice": WORDS}, idle={"alice": [LAST]})  # bob's entropy is not server-made
    record = forged.record
    joined = joined_evidence(record["game_id"], PROFILE_V3, bytes.fromhex(record["commitment"]),
                             bytes.fromhex(_terms(record)), "bob", 1,
                             bytes.fromhex(record["entropy"]["bob"]), "server",
                             _force(record, "bob"), None, None)
    return record, [*mails(forged, "bob", keep=lambda b: "kind: joined" not in b), joined], "bob"


def test_entropy_chosen_for_a_seat_that_gave_none_is_caught_by_its_join_mail(run: Run) -> None:
    record, mine, seat = entropy_chosen_for_a_seat_that_gave_none()
    assert record["server_made"] == [] and run(record)[0] == EXIT_OK
    code, report = run(record, mine, seat)
    assert code == EXIT_DIFFERENT and first(report) == (0, "entropy of bob")
    assert report["first_difference"]["expected"] == "server-made: you gave none (your join mail)"


def test_the_server_made_value_for_entropy_a_player_gave_is_caught(honest: SelfPlay, run: Run) -> None:
    """alice gave words; the host runs the game with her seat server-made."""
    forged = game(server_made=("alice", "bob"), idle={"alice": [LAST]})
    code, report = run(forged.record, mails(honest, "alice", forged.record, keep=lambda b: "kind: joined" in b
                                            or "kind: invitation" in b), "alice")
    assert code == EXIT_DIFFERENT and first(report) == (0, "entropy of alice")
    assert report["first_difference"]["expected"].startswith("the entropy you hold")


def test_a_game_where_no_seat_brought_entropy_is_amber_never_plain_ok(run: Run, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    g = game(server_made=("alice", "bob"))
    code, report = run(g.record, g.held["alice"], "alice")
    assert code == EXIT_OK and report["ok"]
    assert any(c.startswith("only the host chose these dice") for c in report["cautions"])
    path = tmp_path / "r.json"
    path.write_bytes(serialize(g.record))
    capsys.readouterr()
    main(["verify", str(path)])
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("AMBER: every check holds") and "only the host chose these dice" in last


def hand_over_dropped() -> Forged:
    """The GM handed bob to the bot for the last round; the host drops the hand-over and
    writes bob's orders itself, with a version and receipt."""
    g = handed_game()
    record = copy(g.record)
    record["handovers"] = []
    written = other_orders(record, "bob")
    set_versions(record, LAST, "bob", [written])
    forge_last_step(record, {**record["steps"][-1]["inputs"], "bob": written})
    return record, mails(g, "bob", record), "bob"


def test_a_dropped_bot_hand_over_with_the_hosts_orders_is_caught_by_the_seats_mails(run: Run) -> None:
    record, mine, seat = hand_over_dropped()
    assert run(record)[0] == EXIT_OK
    code, report = run(record, mine, seat)
    assert code == EXIT_DIFFERENT and first(report) == (LAST + 1, "input of bob")


def test_other_orders_under_a_hand_over_are_caught_by_the_record_alone(bot_game: SelfPlay, run: Run) -> None:
    record = copy(bot_game.record)
    bots = last_input(record, "bob")
    forge_last_step(record, {**record["steps"][-1]["inputs"], "bob": other_orders(record, "bob")})
    code, report = run(record)
    assert code == EXIT_DIFFERENT and first(report) == (LAST + 1, "bot orders of bob")
    assert repr(bots) in report["first_difference"]["expected"]


def bot_kind_relabelled(seat: str = "alice") -> Forged:
    """The host plays the bot's rounds as the `random` bot instead of the game's."""
    forged = game(handovers={"bob": (LAST, "gm")}, bot_kind="random")
    return forged.record, mails(handed_game(), seat, forged.record, keep=lambda b: "kind: invitation" in b), seat


def test_a_relabelled_bot_kind_is_caught_by_the_terms_every_player_holds(run: Run) -> None:
    for seat in ("alice", "bob"):
        record, held, seat = bot_kind_relabelled(seat)
        assert record["terms"]["bot"] == "random" and run(record)[0] == EXIT_OK
        code, report = run(record, held, seat)
        assert code == EXIT_DIFFERENT and first(report) == (0, "terms")


def test_a_hand_over_the_missed_turn_policy_did_not_make_is_caught_by_the_record_alone(
        policy_game: SelfPlay, run: Run) -> None:
    """The policy hands a seat to the bot after 2 missed rounds; bob missed none, yet the host
    says the policy handed him over for the last round and plays him as the bot."""
    record = copy(policy_game.record)
    record["handovers"].append({"round": LAST, "seat": "bob", "to": "bot", "by": "missed_turns", "at": ""})
    set_versions(record, LAST, "bob", [])
    ruleset = find_ruleset("jep1")
    state = ruleset.load(round_state(record, LAST))
    s_t = bytes.fromhex(record["steps"][-1]["key"])
    from engine.dice import bot_key

    made = canonical_input(ruleset, state, "bob", bot_orders(
        ruleset, state, "bob", kind="greedy", key=bot_key(s_t, bytes.fromhex(record["salt"]), LAST + 1, "bob",
                                                          PROFILE_V3), profile=PROFILE_V3), PROFILE_V3)
    forge_last_step(record, {**record["steps"][-1]["inputs"], "bob": made})
    code, report = run(record)
    assert code == EXIT_DIFFERENT and first(report) == (LAST + 1, "handover of bob to the bot")
    assert report["first_difference"]["found"] == "0"

    # Said to be the GM's, it is listed and passes the record alone; bob's mails hold his
    # receipt of that round: the seat was his.
    record["handovers"][-1]["by"] = "gm"
    reseal(record)
    assert run(record)[0] == EXIT_OK
    code, report = run(record, mails(policy_game, "bob", record), "bob")
    assert code == EXIT_DIFFERENT
    assert first(report)[0] == LAST + 1 and first(report)[1].startswith("your receipt of bob version")


def test_the_policys_own_hand_over_passes_with_its_misses_counted(policy_game: SelfPlay, run: Run) -> None:
    code, report = run(policy_game.record, policy_game.held["alice"], "alice")
    assert code == EXIT_OK, report["differences"][:3]
    assert {(b["round"], b["seat"]) for b in report["bots"]} == {(r, "alice") for r in range(6, LAST + 1)}


def truncated() -> Forged:
    """The host serves the record with its last three rounds dropped: it verifies in itself."""
    g = honest_game()
    record = copy(g.record)
    del record["steps"][-3:]
    record["outcome"] = None
    record["versions"] = [v for v in record["versions"] if v["round"] < LAST - 2]
    reseal(record)
    return record, mails(g, "bob"), "bob"


def test_a_truncated_record_is_caught_by_the_latest_results_mail(run: Run) -> None:
    record, mine, seat = truncated()
    assert run(record)[0] == EXIT_OK
    code, report = run(record, mine, seat)
    assert code == EXIT_DIFFERENT and first(report) == (0, "steps")
    assert report["first_difference"]["expected"] == f"at least {LAST + 1} steps (your results mail of step {LAST + 1})"


def test_a_record_rewritten_after_the_results_mail_is_caught_by_its_step_hash(honest: SelfPlay, run: Run) -> None:
    """After mailing the last results, the host lists a later version of bob's orders and
    re-resolves the round with it: consistent in itself, but not the step alice was sent."""
    record = copy(honest.record)
    written = other_orders(record, "bob")
    set_versions(record, LAST, "bob", [last_input(record, "bob"), written])
    forge_last_step(record, {**record["steps"][-1]["inputs"], "bob": written})
    assert run(record)[0] == EXIT_OK
    code, report = run(record, mails(honest, "alice"), "alice")
    assert code == EXIT_DIFFERENT and first(report) == (LAST + 1, "step hash")


def unit_renamed() -> Forged:
    """The host renames one of alice's units and plays the game from there: the rules do not
    care, the dice differ, and alice's join mail pins her force."""
    ruleset = find_ruleset("universal")
    force = ruleset.default_force(0, ruleset.options())
    renamed = {"units": [{**u, "name": "Sprinter"} if u["name"] == "Runner" else u for u in force["units"]]}
    forged = game("universal", forces={"alice": renamed})
    return forged.record, mails(sequence_game(), "alice", forged.record,
                                keep=lambda b: "kind: invitation" in b or "kind: joined" in b), "alice"


def test_a_renamed_unit_in_the_setup_is_caught_by_the_force_its_player_joined_with(run: Run) -> None:
    record, held, seat = unit_renamed()
    assert run(record)[0] == EXIT_OK
    code, report = run(record, held, seat)
    assert code == EXIT_DIFFERENT and first(report) == (1, "inputs forces alice")


def test_other_options_are_caught_by_the_terms_and_the_setup(honest: SelfPlay, run: Run) -> None:
    forged = game(options={"width": 14}, words={"alice": WORDS}, server_made=("bob",), idle={"alice": [LAST]})
    code, report = run(forged.record, mails(honest, "bob", forged.record,
                                            keep=lambda b: "kind: invitation" in b), "bob")
    assert code == EXIT_DIFFERENT and first(report) == (0, "terms")
    # The terms kept as they were, the setup changed: the record alone shows it.
    record = copy(honest.record)
    record["terms"] = {**record["terms"], "options": {**record["terms"]["options"], "width": 14}}
    reseal(record)
    assert first(run(record)[1]) == (1, "inputs options")


def _terms(record: dict[str, Any]) -> str:
    from engine.dice import terms_digest

    return terms_digest(record["game_id"], record["terms"]).hex()


def _force(record: dict[str, Any], seat: str) -> bytes:
    from engine.dice import force_digest

    return force_digest(record["game_id"], seat, record["steps"][0]["inputs"]["forces"][seat])


def test_server_made_entropy_is_the_commitments(honest: SelfPlay) -> None:
    r = honest.record
    assert r["entropy"]["bob"] == server_entropy(bytes.fromhex(r["commitment"]), r["game_id"], "bob",
                                                 PROFILE_V3).hex()


# Levers the browser verifier is played with too (test_v3_page.py), with the place both
# verifiers name first.
BROWSER_LEVERS: dict[str, tuple[Callable[[], Forged], tuple[int, str]]] = {
    "lines reordered": (reordered_in_sequence, (LAST + 1, "input of alice")),
    "orders for a seat that sent none": (written_for_a_seat_that_sent_none, (LAST + 1, "input of alice")),
    "entropy chosen": (entropy_chosen_for_a_seat_that_gave_none, (0, "entropy of bob")),
    "hand-over dropped": (hand_over_dropped, (LAST + 1, "input of bob")),
    "bot kind relabelled": (bot_kind_relabelled, (0, "terms")),
    "record truncated": (truncated, (0, "steps")),
    "unit renamed": (unit_renamed, (1, "inputs forces alice")),
}


def test_rounds_after_the_latest_mail_given_are_amber_not_ok(honest: SelfPlay, run: Run) -> None:
    """alice gives her mails up to the results of step 5 only: the later rounds are not
    compared with them, and the command says so instead of OK."""
    def early(block: str) -> bool:
        number = next((int(line.split(": ")[1]) for line in block.splitlines()
                       if line.startswith(("step: ", "round: "))), 0)
        return number <= (5 if "kind: results" in block else 4)

    code, report = run(honest.record, [b for b in honest.held["alice"] if early(b)], "alice")
    assert code == EXIT_OK and report["ok"]
    assert report["cautions"] == ["round 5 and later: not compared with your mails (the latest results mail "
                                  "you gave is of step 5; give your later mails to check them)"]
    assert any(h.startswith("every order of alice up to round 4") for h in report["held"])


def test_a_replacement_players_rounds_are_not_the_first_players(honest: SelfPlay, run: Run) -> None:
    """bob's seat went to a replacement player from round 5: bob's own mails speak for the
    rounds before only, and the hand-over is listed for the table."""
    def bobs(block: str) -> bool:
        return not any(line.startswith("round: ") and int(line.split(": ")[1]) >= 5 for line in block.splitlines()
                       if "kind: orders" in block)

    mine = [b for b in honest.held["bob"] if bobs(b)]
    code, report = run(honest.record, mine, "bob")
    assert code == EXIT_DIFFERENT and first(report) == (6, "input of bob")  # round 5: no receipt of his
    record = copy(honest.record)
    record["handovers"].append({"round": 5, "seat": "bob", "to": "player", "by": "replacement", "at": ""})
    reseal(record)
    code, report = run(record, mine, "bob")
    assert code == EXIT_OK, report["differences"][:2]
    assert report["handovers"] == [{"round": 5, "seat": "bob", "to": "player", "by": "replacement", "at": ""}]
