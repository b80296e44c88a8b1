"""The verifier page on dicepost-dice/v3 records: its JavaScript (in Node) names the same places
as `dicepost verify` for what it checks itself (the dice, the terms, the step hashes), and in
Chromium, with its runtime, it reads the player's .eml files (chosen or dropped) and turns
red on the levers they catch; without it, it says in amber that the mails were not read.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.held import Held, held_from_mails
from engine.record import step_hashes
from engine.selfplay import SelfPlay
from engine.verify import verify
from tests.conftest import BROWSER
from tests.verify.conftest import copy, js_compute, reseal, serialize, write_mails
from tests.verify.test_browser_runtime import (  # noqa: F401 (fixtures)
    DONE,
    ENGINE_TIMEOUT,
    bare_page,
    bundle,
    engine_page,
    needs_runtime,
    open_page,
    page_alone,
)
from tests.verify.test_v3_levers import (
    BROWSER_LEVERS,
    LAST,
    forge_last_step,
    game,
    other_orders,
    set_versions,
)

pytestmark = BROWSER


@pytest.fixture(scope="module")
def v3() -> SelfPlay:
    return game(words={"alice": "a hat of stars"}, server_made=("bob",), idle={"alice": [LAST]})


def js(record: dict[str, Any], held: dict[str, Any] | None = None) -> dict[str, Any]:
    (out,) = js_compute([{"op": "verify", "text": base64.b64encode(serialize(record)).decode(),
                          "held": held or {}}])
    return out


def py(record: dict[str, Any], held: dict[str, Any] | None = None) -> Any:
    h = held or {}
    return verify(record, Held(terms=bytes.fromhex(h["terms"]) if "terms" in h else None,
                               step_hashes={int(t): bytes.fromhex(a) for t, a in h.get("step_hashes", {}).items()}))


def test_the_pages_javascript_checks_v3_dice_terms_and_step_hashes_as_the_command(v3: SelfPlay) -> None:
    r = v3.record
    out, v = js(r), py(r)
    assert out["ok"] and v.ok and out["unchecked"] == []
    assert out["terms"] == v.terms and out["server_made"] == ["bob"]
    assert [s["step_hash"] for s in out["steps"]] == [a.hex() for a in step_hashes(r)[1:]] == \
        [s.step_hash for s in v.steps]


def test_the_pages_javascript_names_what_the_link_holds_as_the_command(v3: SelfPlay) -> None:
    r = v3.record
    last = len(r["steps"])
    truncated = copy(r)
    del truncated["steps"][-2:]
    reseal(truncated)
    rewritten = copy(r)
    written = other_orders(rewritten, "bob")
    set_versions(rewritten, LAST, "bob", [written])
    forge_last_step(rewritten, {**rewritten["steps"][-1]["inputs"], "bob": written})
    mine = {"terms": py(r).terms, "step_hashes": {str(last): step_hashes(r)[last].hex()}}
    cases = [(truncated, mine, (0, "steps")), (rewritten, mine, (last, "step hash")),
             (r, {"terms": "ab" * 32}, (0, "terms"))]
    for record, held, place in cases:
        out, v = js(record, held), py(record, held)
        assert v.difference is not None and (v.difference.step, v.difference.where) == place
        assert out["differences"][0] == v.difference.to_json(), (place, out["differences"][:2])
    assert js(r, mine)["held"] == ["terms T", f"step hash of step {last} (your latest results mail)"]


def test_the_pages_javascript_says_only_the_host_chose_the_dice() -> None:
    r = game(server_made=("alice", "bob")).record
    out, v = js(r), py(r)
    assert out["ok"] and out["cautions"] == v.cautions and v.cautions[0].startswith("only the host chose")


# ---- in Chromium --------------------------------------------------------------------------

def settled(page: Any) -> None:
    """Wait for the check under way, if any, to give its headline."""
    page.wait_for_selector("#summary:not([data-done=no])", timeout=ENGINE_TIMEOUT)


def check(page: Any, tmp_path: Path, record: dict[str, Any], mail_files: list[Path],
          drop: bool = False) -> tuple[str, str]:
    """Load the mails (chosen, or dropped on the page as a player would), then the record.
    New mails check the record loaded before again: that check ends before the record is
    loaded, so the headline read is this record's."""
    if drop:
        payload = [{"name": p.name, "mimeType": "message/rfc822",
                    "buffer": base64.b64encode(p.read_bytes()).decode()} for p in mail_files]
        page.evaluate("""async (files) => {
            const dt = new DataTransfer();
            for (const f of files) {
              const bytes = Uint8Array.from(atob(f.buffer), (c) => c.charCodeAt(0));
              dt.items.add(new File([bytes], f.name, { type: f.mimeType }));
            }
            document.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
        }""", payload)
    else:
        page.set_input_files("#mails-file", [str(p) for p in mail_files])
    count = f"{len(mail_files)} mail file{'s' * (len(mail_files) != 1)}:"
    page.wait_for_function("(count) => document.querySelector('#mails-list').textContent.startsWith(count)",
                           arg=count)
    settled(page)
    path = tmp_path / f"record-{hashlib.sha256(serialize(record)).hexdigest()[:12]}.json"
    path.write_bytes(serialize(record))
    page.set_input_files("#record-file", str(path))
    page.wait_for_selector(DONE, timeout=ENGINE_TIMEOUT)
    return str(page.get_attribute("#summary", "data-status")), page.inner_text("#summary")


@pytest.fixture
def fresh(engine_page: Any) -> Iterator[Any]:  # noqa: F811
    """The shared page with nothing held but what a test gives it."""
    engine_page.fill("#held-commitment", "")
    engine_page.fill("#held-seat", "")
    engine_page.fill("#held-entropy", "")
    engine_page.set_input_files("#receipts-file", [])
    settled(engine_page)
    yield engine_page


@needs_runtime
def test_the_honest_v3_record_with_the_players_dropped_mails_is_green(v3: SelfPlay, fresh: Any,
                                                                       tmp_path: Path) -> None:
    files = write_mails(tmp_path / "alice", v3.held["alice"], "alice", v3.record["game_id"])
    status, text = check(fresh, tmp_path, v3.record, files, drop=True)
    assert status == "ok", text
    assert "matches what you hold: commitment S_0" in text and "terms T" in text
    assert f"step hash of step {LAST + 1} (your latest results mail)" in text
    fresh.screenshot(path=str(tmp_path / "v3-mails-1280.png"), full_page=True)


@needs_runtime
@pytest.mark.parametrize("lever", list(BROWSER_LEVERS))
def test_each_lever_turns_the_page_red_with_the_players_mails_naming_the_commands_place(
        lever: str, fresh: Any, tmp_path: Path) -> None:
    """The same forgeries as test_v3_levers.py, the same mails: the page, running the engine,
    names the first difference `dicepost verify --mails` names."""
    build, (step, where) = BROWSER_LEVERS[lever]
    record, blocks, seat = build()
    files = write_mails(tmp_path / seat, blocks, seat, record["game_id"])
    held = held_from_mails([(f.name, f.read_bytes()) for f in files], record["game_id"])
    d = verify(record, held).difference
    assert d is not None and (d.step, d.where) == (step, where)
    status, text = check(fresh, tmp_path, record, files)
    assert status == "bad", text
    assert text.startswith(f"First difference: {d.place}: expected {d.expected}"), (text, str(d))


@needs_runtime
def test_a_mail_that_cannot_be_read_is_named_on_the_page(v3: SelfPlay, fresh: Any, tmp_path: Path) -> None:
    junk = tmp_path / "holiday.eml"
    junk.write_bytes(b"\x89PNG\r\n\x1a\n not a mail")
    status, text = check(fresh, tmp_path, v3.record, [junk])
    assert status == "bad" and "holiday.eml is not a mail" in text, text


@needs_runtime
def test_a_game_where_no_seat_brought_entropy_is_amber_on_the_page(fresh: Any, tmp_path: Path) -> None:
    g = game(server_made=("alice", "bob"))
    files = write_mails(tmp_path / "alice", g.held["alice"], "alice", g.record["game_id"])
    status, text = check(fresh, tmp_path, g.record, files)
    assert status == "partial", text
    assert text.startswith("Every check holds") and "But only the host chose these dice" in text


def test_without_the_runtime_the_mails_are_said_not_read(v3: SelfPlay, bare_page: Any,  # noqa: F811
                                                          tmp_path: Path) -> None:
    files = write_mails(tmp_path / "alice", v3.held["alice"], "alice", v3.record["game_id"])
    status, text = check(bare_page, tmp_path, v3.record, files)
    assert status == "partial", text
    assert f"(your {len(files)} mails are not read)" in text and "hand-overs" in text
    assert "the terms, step hashes" in text
    bare_page.set_input_files("#mails-file", [])
