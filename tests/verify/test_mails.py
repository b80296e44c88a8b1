"""What a player holds, read from their own mails (engine.held), and `dicepost receipt`.

The mails are real ones: an .eml file as a mail program saves it (multipart, the text part
quoted-printable), an mbox of several, a mail forwarded inside another. Bad input is one
clear line naming the file, never a traceback.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.dice import PROFILE_V3, receipt
from engine.held import (
    BEGIN,
    END,
    HeldError,
    held_from_mails,
    orders_evidence,
    read_mails,
    results_evidence,
)
from engine.selfplay import SelfPlay, play
from service.cli import main
from service.commands.verify import EXIT_DIFFERENT, EXIT_OK, EXIT_UNREADABLE
from tests.verify.conftest import mail, mbox, serialize, write_mails

EXIT_USAGE = 2


@pytest.fixture(scope="module")
def game() -> SelfPlay:
    return play("jep1", "mails", profile=PROFILE_V3, max_rounds=4, words={"alice": "by the mill"})


def test_the_mails_give_everything_the_player_holds(game: SelfPlay, tmp_path: Path) -> None:
    files = [(p.name, p.read_bytes()) for p in write_mails(tmp_path, game.held["alice"], "alice")]
    held = held_from_mails(files, game.record["game_id"])
    r = game.record
    assert held.commitment == bytes.fromhex(r["commitment"])
    assert held.entropy == {"alice": bytes.fromhex(r["entropy"]["alice"])}
    assert held.sources == {"alice": "words"} and held.words == {"alice": "by the mill"}
    assert held.mine == {"alice"} and held.first_round == {"alice": 1}
    assert sorted((s, rnd, v) for s, rnd, v, _r in held.receipts) == sorted(
        (v["seat"], v["round"], v["version"]) for v in r["versions"] if v["seat"] == "alice")
    assert held.latest_step == len(r["steps"]) and held.mails == len(files) == held.evidence
    assert held.sent[("alice", 1, 1)] == game.sent[(1, "alice")]
    assert held.conflicts == []


def test_an_mbox_and_a_forwarded_mail_read_alike(game: SelfPlay) -> None:
    from email import policy
    from email.message import EmailMessage
    from email.parser import BytesParser

    gid = game.record["game_id"]
    as_box = held_from_mails([("alice.mbox", mbox(game.held["alice"], "alice", gid))], gid)
    wrapper = EmailMessage()
    wrapper["From"], wrapper["To"], wrapper["Subject"] = "alice@example.org", "me@example.org", "Fwd"
    wrapper.set_content("Have a look.\n")
    inner = BytesParser(policy=policy.default).parsebytes(mail(game.held["alice"][-1], "alice", 1, gid))
    wrapper.add_attachment(inner)  # message/rfc822, as mail programs forward a mail whole
    forwarded = held_from_mails([("fwd.eml", wrapper.as_bytes())], gid)
    assert as_box.latest_step == forwarded.latest_step == len(game.record["steps"])
    assert as_box.mails == len(game.held["alice"])


def test_a_block_quoted_in_a_reply_is_not_read_again() -> None:
    block = results_evidence("g", PROFILE_V3, 3, b"\x01" * 32, None)
    quoted = "".join(f"> {line}\n" for line in block.splitlines())
    blocks, count = read_mails([("reply.eml", mail(quoted, "alice", 1, "g"))])
    assert blocks == [] and count == 1


def test_mails_of_another_game_only_are_said_so(game: SelfPlay) -> None:
    with pytest.raises(HeldError, match="hold no dicepost evidence of game other .*they hold evidence of "
                                        + game.record["game_id"]):
        held_from_mails([("a.mbox", mbox(game.held["alice"], "alice"))], "other")


@pytest.mark.parametrize(("name", "data", "words"), [
    ("record.json", b'{"format": "dicepost-record/1"}', "record.json is not a mail"),
    ("photo.jpg", bytes(range(256)) * 4, "photo.jpg is not a mail"),
    ("empty.eml", b"", "empty.eml is empty"),
])
def test_a_file_that_is_not_a_mail_is_named(name: str, data: bytes, words: str) -> None:
    with pytest.raises(HeldError, match=words):
        read_mails([(name, data)])


def test_a_truncated_mbox_is_named_with_its_message(game: SelfPlay) -> None:
    data = mbox(game.held["alice"], "alice", game.record["game_id"])
    with pytest.raises(HeldError, match=r"alice.mbox is cut off: the mbox does not end with a whole line"):
        read_mails([("alice.mbox", data[:-7])])
    # cut at a line's end, inside the last mail's evidence block
    cut = data[:data.rindex(END.encode())]
    with pytest.raises(HeldError, match=r"alice.mbox, message \d+: the evidence block from line \d+ is cut off"):
        read_mails([("alice.mbox", cut)])
    # cut after the text part, before the mail's parts close
    cut = data[:data.rindex(b"Content-Type: text/html")]
    with pytest.raises(HeldError, match=r"alice.mbox, message \d+ is cut off: its MIME parts do not close"):
        read_mails([("alice.mbox", cut)])


def test_a_bad_line_in_a_block_is_named() -> None:
    text = f"{BEGIN}\nformat: dicepost-held/1\nthis is not a value\n{END}\n"
    with pytest.raises(HeldError, match=r"x.eml: line 3 of the evidence block \(line 9 of the text\) is not 'key: value'"):
        read_mails([("x.eml", mail(text, "alice", 1))])


def test_a_bad_value_is_named_with_its_mail() -> None:
    block = results_evidence("g", PROFILE_V3, 3, b"\x01" * 32, None).replace("hash: 01", "hash: zz")
    with pytest.raises(HeldError, match=r"r\.eml: hash: expected lowercase hex of 32 bytes"):
        held_from_mails([("r.eml", mail(block, "alice", 1, "g"))], "g")


def test_two_step_hashes_for_one_step_are_a_finding(game: SelfPlay, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The host mailed two players (or one player twice) different results for one step."""
    gid = game.record["game_id"]
    blocks = [*game.held["alice"], results_evidence(gid, PROFILE_V3, 2, b"\x07" * 32, None)]
    folder = tmp_path / "mails"
    write_mails(folder, blocks, "alice", gid)
    record = tmp_path / "record.json"
    record.write_bytes(serialize(game.record))
    assert main(["verify", str(record), "--mails", str(folder)]) == EXIT_DIFFERENT
    out = capsys.readouterr().out
    assert "FAILED at record, your mails: expected one value of each thing they hold, found the step " \
           "hash of step 2:" in out


def test_the_command_names_a_bad_mail_and_exits_2(game: SelfPlay, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "record.json"
    record.write_bytes(serialize(game.record))
    empty = tmp_path / "empty"
    empty.mkdir()
    junk = tmp_path / "junk.eml"
    junk.write_bytes(b"\x00\x01garbage")
    for args, words in (([str(empty)], f"{empty} holds no .eml files"),
                        ([str(junk)], f"{junk} is not a mail")):
        capsys.readouterr()
        assert main(["verify", str(record), "--mails", *args]) == EXIT_UNREADABLE
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err
    assert main(["verify", str(record), "--mails", str(tmp_path / "nowhere")]) == EXIT_USAGE
    assert "does not exist" in capsys.readouterr().err


def test_the_receipt_command_gives_the_confirmations_receipt(game: SelfPlay, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """From the text the player sent and the record, or from the text as it counts."""
    r = game.record
    rnd = 2
    version, mine = max((v["version"], v["receipt"]) for v in r["versions"]
                        if (v["round"], v["seat"]) == (rnd, "alice"))
    sent = tmp_path / "sent.txt"
    sent.write_text(game.sent[(rnd, "alice")].replace("\n", "\r\n") + "\r\n", encoding="utf-8")
    path = tmp_path / "record.json"
    path.write_bytes(serialize(r))
    capsys.readouterr()
    assert main(["receipt", r["game_id"], str(rnd), "alice", str(version), str(sent), "--record", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == f"receipt {mine}"
    counted = tmp_path / "counted.txt"
    counted.write_text(r["steps"][rnd]["inputs"]["alice"] + "\n", encoding="utf-8")
    assert main(["receipt", r["game_id"], str(rnd), "alice", str(version), str(counted)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"receipt {mine}"
    # the sent text taken as it counts is another text: another receipt
    assert main(["receipt", r["game_id"], str(rnd), "alice", str(version), str(sent)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] != f"receipt {mine}"


def test_the_receipt_command_gives_the_spec_vector(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.engine.dice_v3_reference import STEP2, vectors

    text = tmp_path / "t.txt"
    text.write_text(STEP2["alice"], encoding="utf-8")
    assert main(["receipt", "g-7f3a", "1", "alice", "2", str(text)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"receipt {vectors()['R_alice']}"
    assert receipt("g-7f3a", 1, "alice", 2, STEP2["alice"], PROFILE_V3).hex() == vectors()["R_alice"]


def test_the_receipt_command_refuses_bad_input_in_one_line(game: SelfPlay, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    r = game.record
    path = tmp_path / "record.json"
    path.write_bytes(serialize(r))
    bad = tmp_path / "bad.txt"
    bad.write_text("A1 fly to the moon\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["receipt", r["game_id"], "1", "alice", "1", str(bad), "--record", str(path)]) == 1
    assert "line 1:" in capsys.readouterr().err
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"\xff\xfe")
    for args, words in ((["other-game", "1", "alice", "1", str(bad), "--record", str(path)], "not 'other-game'"),
                        ([r["game_id"], "99", "alice", "1", str(bad), "--record", str(path)], "no round 99"),
                        ([r["game_id"], "1", "zed", "1", str(bad), "--record", str(path)], "no seat 'zed'"),
                        ([r["game_id"], "1", "alice", "1", str(binary)], "is not UTF-8 text")):
        assert main(["receipt", *args]) == EXIT_USAGE
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err, err


def test_a_confirmation_whose_receipt_is_not_of_its_own_text_is_a_finding(game: SelfPlay) -> None:
    gid = game.record["game_id"]
    wrong = orders_evidence(gid, PROFILE_V3, "alice", 1, 9, b"\x02" * 32, "x", "A1 move c3", None)
    held = held_from_mails([("a.eml", mail(wrong, "alice", 1, gid)),
                            ("b.eml", mail(game.held["alice"][0], "alice", 2, gid))], gid)
    assert held.conflicts and "not the receipt of the text the mail says counts" in held.conflicts[0]


def test_the_honest_record_with_the_mails_is_ok(game: SelfPlay, tmp_path: Path) -> None:
    record = tmp_path / "record.json"
    record.write_bytes(serialize(game.record))
    folder = tmp_path / "bob"
    write_mails(folder, game.held["bob"], "bob", game.record["game_id"])
    assert main(["verify", str(record), "--mails", str(folder), "--mails",
                 str(write_mails(tmp_path / "alice", game.held["alice"], "alice")[0])]) == EXIT_OK


def test_the_docs_example_block_is_read_and_its_receipt_is_of_its_text() -> None:
    """docs/fair-dice.md shows the evidence block of a confirmation: it reads, and its
    receipt is the v3 vector's, of the text it says counts."""
    import re

    from engine.held import held_from_blocks, read_blocks
    from tests.conftest import ROOT
    from tests.engine.dice_v3_reference import vectors

    doc = (ROOT / "docs" / "fair-dice.md").read_text(encoding="utf-8")
    (text,) = re.findall(rf"```\n({re.escape(BEGIN)}\n.*?{re.escape(END)}\n)```", doc, re.S)
    held = held_from_blocks(read_blocks(text, "fair-dice.md"), "g-7f3a")
    assert held.conflicts == [] and held.receipts == [("alice", 1, 2, bytes.fromhex(vectors()["R_alice"]))]
    assert held.sent[("alice", 1, 2)] == "a1 move c3\nA1 attack B2"


def test_the_hand_check_in_the_docs_reads_v3_records(game: SelfPlay, tmp_path: Path) -> None:
    from tests.verify.test_fair_dice_doc import hand_check
    from tests.verify.test_fair_dice_doc import run as run_script

    script = tmp_path / "check_dice.py"
    script.write_text(hand_check(), encoding="utf-8")
    path = tmp_path / "record.json"
    path.write_bytes(serialize(game.record))
    done = run_script(script, path)
    assert done.returncode == 0, done.stderr
