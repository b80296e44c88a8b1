"""The verifier page in headless Chromium, with and without its Python runtime.

With the runtime (a bundle written by `dicepost verify --bundle`, served over http as anyone
would serve it) the page runs the engine's own check under Pyodide and names, for every
lever a host holding the chain tip could pull, the same first difference as `dicepost
verify`. Without it (the page alone) it still checks the dice, flags what those catch, and
says in amber exactly what it did not check: never green.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import http.server
import io
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.dice import PROFILE_V2, receipt
from engine.held import receipts_file
from engine.selfplay import SelfPlay, play
from engine.verify import verify
from service import verify_bundle
from service.commands.verify import main
from tests.conftest import BROWSER
from tests.verify.conftest import copy, reseal, serialize
from tests.verify.test_v2_levers import (
    GAME_SEED,
    forge_last_step,
    not_a_bot,
    rolled_step,
    seat_text,
    set_receipts,
)

# CI must have the runtime (make test fetches it first): there, its absence fails.
if os.environ.get("CI") and not verify_bundle.has_runtime():
    raise RuntimeError("CI without the verifier's runtime: make pyodide did not fetch it")

pytestmark = BROWSER
needs_runtime = pytest.mark.skipif(not verify_bundle.has_runtime(),
                                   reason="the verifier's runtime is not fetched (make pyodide)")
DONE = "#summary[data-done=yes]"
ENGINE_TIMEOUT = 180_000  # Pyodide starts in a few seconds; the machine may be busy


@pytest.fixture(scope="module")
def game() -> SelfPlay:
    return play("universal", GAME_SEED, profile=PROFILE_V2, server_made=("bob",))


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

def serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """What `python -m http.server --directory folder` does, on a free port."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/"


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str, str]]:
    """The bundle as the command writes it, served: (folder, url, printed SHA-256)."""
    folder = tmp_path_factory.mktemp("bundle")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--bundle", str(folder)]) == 0
    printed = out.getvalue().splitlines()[-1]
    assert printed.startswith("bundle SHA-256 ")
    server, url = serve(folder)
    yield folder, url, printed.split()[-1]
    server.shutdown()


@pytest.fixture(scope="module")
def page_alone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The page saved alone (no verify-runtime/ beside it), served."""
    folder = tmp_path_factory.mktemp("alone")
    (folder / "index.html").write_bytes(verify_bundle.page_bytes())
    server, url = serve(folder)
    yield url
    server.shutdown()


def open_page(browser: Any, url: str) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    return context, page, errors


@pytest.fixture(scope="module")
def engine_page(browser: Any, bundle: tuple[Path, str, str]) -> Iterator[Any]:
    """One page of the served bundle for every lever: Pyodide starts once."""
    if not verify_bundle.has_runtime():
        pytest.skip("the verifier's runtime is not fetched (make pyodide)")
    context, page, errors = open_page(browser, bundle[1] + "index.html")
    yield page
    context.close()
    assert not errors, errors


@pytest.fixture(scope="module")
def bare_page(browser: Any, page_alone: str) -> Iterator[Any]:
    context, page, errors = open_page(browser, page_alone + "index.html")
    yield page
    context.close()
    assert not errors, errors


Check = Callable[..., tuple[str, str]]


def checker(page: Any, tmp_path: Path) -> Check:
    def go(record: dict[str, Any], commitment: str = "", seat: str = "", entropy: str = "",
           receipts: dict[str, Any] | None = None) -> tuple[str, str]:
        page.fill("#held-commitment", commitment)
        page.fill("#held-seat", seat)
        page.fill("#held-entropy", entropy)
        if receipts is not None:
            path = tmp_path / "receipts.json"
            path.write_bytes(serialize(receipts))
            page.set_input_files("#receipts-file", str(path))
        else:
            page.set_input_files("#receipts-file", [])
        path = tmp_path / f"record-{hashlib.sha256(serialize(record)).hexdigest()[:12]}.json"
        path.write_bytes(serialize(record))
        page.set_input_files("#record-file", str(path))
        page.wait_for_selector(DONE, timeout=ENGINE_TIMEOUT)
        return str(page.get_attribute("#summary", "data-status")), page.inner_text("#summary")
    return go


@pytest.fixture
def with_engine(engine_page: Any, tmp_path: Path) -> Check:
    return checker(engine_page, tmp_path)


@pytest.fixture
def without_engine(bare_page: Any, tmp_path: Path) -> Check:
    return checker(bare_page, tmp_path)


def first_place(record: dict[str, Any], **held: Any) -> str:
    """The CLI's first difference, as the page words it."""
    from engine.held import Held
    d = verify(record, held.get("held") or Held()).difference
    assert d is not None
    return f"First difference: {'step ' + str(d.step) if d.step else 'record'}, {d.where}:"


NOT_CHECKED = ("Not checked on this page: the rules (die sizes, dropped or added rolls, events, states, "
               "outcome), canonical inputs, bot orders, receipts")


# ---- the levers ------------------------------------------------------------------------

def respelled(game: SelfPlay) -> dict[str, Any]:
    record = copy(game.record)
    t = len(record["steps"])
    seat, text = seat_text(record, t)
    not_a_bot(record, t - 1, seat)
    set_receipts(record, t - 1, seat, [text.upper()])
    forge_last_step(game, record, {**record["steps"][t - 1]["inputs"], seat: text.upper()})
    return record


def earlier_version(game: SelfPlay) -> tuple[dict[str, Any], dict[str, Any]]:
    """The host resolves with version 1 and lists only it; the player holds version 2."""
    record = copy(game.record)
    t = len(record["steps"])
    rnd = t - 1
    seat, text = seat_text(record, t)
    not_a_bot(record, rnd, seat)
    set_receipts(record, rnd, seat, [""])
    forge_last_step(game, record, {**record["steps"][t - 1]["inputs"], seat: ""})
    mine = [{"round": rnd, "version": v, "at": "", "receipt": receipt(record["game_id"], rnd, seat, v, x).hex()}
            for v, x in ((1, ""), (2, text))]
    return record, receipts_file(record["game_id"], record["commitment"], seat,
                                 record["entropy"][seat], mine)


def server_made_changed(game: SelfPlay) -> dict[str, Any]:
    record = copy(game.record)
    record["entropy"]["bob"] = "ab" * 32
    return reseal(record)


def bot_order_changed(game: SelfPlay) -> dict[str, Any]:
    record = copy(game.record)
    t = len(record["steps"])
    seat, _text = seat_text(record, t)
    set_receipts(record, t - 1, seat, [""])
    forge_last_step(game, record, {**record["steps"][t - 1]["inputs"], seat: ""})
    return record


def die_size_forged(game: SelfPlay) -> dict[str, Any]:
    record = copy(game.record)
    record["steps"][rolled_step(record)]["rolls"][1]["n"] = 20
    return reseal(record)


def roll_dropped(game: SelfPlay) -> dict[str, Any]:
    record = copy(game.record)
    del record["steps"][rolled_step(record)]["rolls"][1]
    return reseal(record)


def events_forged(game: SelfPlay) -> dict[str, Any]:
    record = copy(game.record)
    record["steps"][rolled_step(record)]["events"][0]["text"] = "Nothing happened."
    return reseal(record)


def other_chain() -> dict[str, Any]:
    return play("universal", "another chain", profile=PROFILE_V2, server_made=("bob",)).record


# Levers the dice alone catch (the page without its runtime turns red too) and those only
# the rules replay catches (amber without the runtime, naming what was not checked).
DICE_LEVERS = {"server-made entropy": server_made_changed, "die size": die_size_forged,
               "dropped roll": roll_dropped}
RULE_LEVERS = {"respelled input": respelled, "bot order": bot_order_changed, "events": events_forged}


@needs_runtime
def test_an_honest_record_with_the_players_link_is_green(game: SelfPlay, with_engine: Check) -> None:
    r = game.record
    status, text = with_engine(r, r["commitment"], "alice", r["entropy"]["alice"])
    assert status == "ok", text
    assert text.startswith(f"Every check holds: {len(r['steps'])} steps")
    assert "replayed events and state hashes" in text and "bot orders, receipts" in text
    assert "matches what you hold: commitment S_0, entropy of alice" in text


@needs_runtime
def test_an_honest_record_without_what_the_player_holds_is_amber(game: SelfPlay, with_engine: Check) -> None:
    status, text = with_engine(game.record)
    assert status == "partial" and text.startswith("Every check holds")
    assert "Not compared with what you hold: enter the commitment S₀" in text


@needs_runtime
@pytest.mark.parametrize("lever", [*DICE_LEVERS, *RULE_LEVERS])
def test_each_lever_turns_the_page_red_and_names_the_place(game: SelfPlay, with_engine: Check,
                                                           lever: str) -> None:
    record = {**DICE_LEVERS, **RULE_LEVERS}[lever](game)
    status, text = with_engine(record, record["commitment"])
    assert status == "bad", text
    assert text.startswith(first_place(record)), (text, first_place(record))


@needs_runtime
def test_a_stored_earlier_version_is_caught_by_the_players_receipts_file(game: SelfPlay,
                                                                         with_engine: Check) -> None:
    from engine.held import read_receipts

    record, mine = earlier_version(game)
    status, text = with_engine(record, record["commitment"])
    assert status == "ok", text  # consistent in itself: only the receipt shows it
    status, text = with_engine(record, receipts=mine)
    assert status == "bad", text
    assert text.startswith(first_place(record, held=read_receipts(serialize(mine))))
    assert "your receipt of" in text and "version 2" in text


@needs_runtime
def test_a_swapped_chain_is_caught_by_the_commitment_in_the_link(game: SelfPlay, with_engine: Check) -> None:
    other = other_chain()
    status, text = with_engine(other, game.record["commitment"])
    assert status == "bad"
    assert text.startswith("First difference: record, commitment: expected the commitment you hold, "
                           + game.record["commitment"])


@pytest.mark.parametrize("lever", list(DICE_LEVERS))
def test_without_the_runtime_the_dice_levers_still_turn_red(game: SelfPlay, without_engine: Check,
                                                            lever: str) -> None:
    record = DICE_LEVERS[lever](game)
    status, text = without_engine(record)
    assert status == "bad", text
    assert text.startswith(first_place(record)), text


@pytest.mark.parametrize("lever", list(RULE_LEVERS))
def test_without_the_runtime_the_rule_levers_are_amber_naming_what_was_not_checked(
        game: SelfPlay, without_engine: Check, lever: str) -> None:
    status, text = without_engine(RULE_LEVERS[lever](game))
    assert status == "partial", text
    assert "Every" not in text
    assert NOT_CHECKED in text and "its runtime is not beside it" in text


def test_without_the_runtime_the_commitment_in_the_link_still_catches_a_swapped_chain(
        game: SelfPlay, without_engine: Check) -> None:
    status, text = without_engine(other_chain(), game.record["commitment"])
    assert status == "bad" and text.startswith("First difference: record, commitment:")


def test_without_the_runtime_an_earlier_version_is_amber_saying_receipts_were_not_compared(
        game: SelfPlay, without_engine: Check) -> None:
    record, mine = earlier_version(game)
    status, text = without_engine(record, receipts=mine)
    assert status == "partial" and "(your 2 receipts are not compared)" in text
    assert "matches what you hold: commitment S_0, entropy of" in text


def test_the_link_fragment_fills_what_the_player_holds(browser: Any, page_alone: str,
                                                       game: SelfPlay) -> None:
    r = game.record
    context, page, errors = open_page(
        browser, f"{page_alone}index.html#commitment={r['commitment']}&seat=alice&entropy={r['entropy']['alice']}")
    try:
        assert page.input_value("#held-commitment") == r["commitment"]
        assert page.input_value("#held-seat") == "alice"
        assert page.input_value("#held-entropy") == r["entropy"]["alice"]
        assert "never reaches a server" in page.inner_text("#held-note")
    finally:
        context.close()
    assert not errors, errors


@needs_runtime
def test_the_bundle_served_by_http_server_checks_an_honest_record_green(
        browser: Any, bundle: tuple[Path, str, str], game: SelfPlay, tmp_path: Path) -> None:
    folder, url, printed = bundle
    sums = (folder / verify_bundle.MANIFEST).read_bytes()
    assert hashlib.sha256(sums).hexdigest() == printed == verify_bundle.bundle_sha256()
    listed = dict(reversed(line.split("  ", 1)) for line in sums.decode().splitlines())
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert sorted(listed) == [f for f in files if f != verify_bundle.MANIFEST]
    for path, digest in listed.items():
        assert hashlib.sha256((folder / path).read_bytes()).hexdigest() == digest, path
    r = game.record
    context, page, errors = open_page(
        browser, f"{url}index.html#commitment={r['commitment']}&seat=alice&entropy={r['entropy']['alice']}")
    try:
        status, text = checker(page, tmp_path)(r, r["commitment"], "alice", r["entropy"]["alice"])
        assert status == "ok", text
        assert printed in page.inner_text("#bundle")
        page.screenshot(path=str(tmp_path / "bundle-1280.png"), full_page=True)
        page.set_viewport_size({"width": 390, "height": 844})
        page.screenshot(path=str(tmp_path / "bundle-390.png"), full_page=False)
    finally:
        context.close()
    assert not errors, errors


def test_a_bundle_is_the_same_bytes_each_time(tmp_path: Path) -> None:
    assert verify_bundle.engine_zip() == verify_bundle.engine_zip.__wrapped__()
    a, b = tmp_path / "a", tmp_path / "b"
    assert verify_bundle.write_bundle(a) == verify_bundle.write_bundle(b)
    assert (a / verify_bundle.MANIFEST).read_bytes() == (b / verify_bundle.MANIFEST).read_bytes()


def with_gm_actions(game: SelfPlay) -> dict[str, Any]:
    """GM actions no hash can check: the verifiers list them for the table to judge."""
    record = copy(game.record)
    record["gm_actions"] = [
        {"round": 1, "action": "gm_extend", "actor": "gm", "at": "2026-01-01T10:00:00+00:00",
         "detail": {"from": "2026-01-02T10:00:00+00:00", "to": "2026-01-03T10:00:00+00:00"}},
        {"round": 2, "action": "seat_to_bot", "actor": "gm", "at": "2026-01-04T10:00:00+00:00",
         "detail": {"seat": "bob"}}]
    return reseal(record)


def gm_rows(page: Any) -> list[str]:
    rows = page.locator("#header-table tr", has_text="GM action")
    return [rows.nth(i).locator("td").last.inner_text() for i in range(rows.count())]


@needs_runtime
def test_the_page_lists_gm_actions_in_the_commands_words(game: SelfPlay, with_engine: Check,
                                                         engine_page: Any) -> None:
    from engine.gmlog import action_text

    record = with_gm_actions(game)
    status, text = with_engine(record, record["commitment"])
    assert status == "ok", text
    assert gm_rows(engine_page) == [action_text(a) for a in record["gm_actions"]]
    assert gm_rows(engine_page)[0] == ("round 1: deadline moved from 2026-01-02T10:00:00+00:00 to "
                                       "2026-01-03T10:00:00+00:00 (by the GM, at 2026-01-01T10:00:00+00:00)")


def test_without_the_runtime_gm_actions_are_listed_in_the_same_words(game: SelfPlay, without_engine: Check,
                                                                      bare_page: Any) -> None:
    """The page words them itself (its port of engine.gmlog), not raw JSON."""
    from engine.gmlog import action_text

    record = with_gm_actions(game)
    status, _text = without_engine(record)
    assert status == "partial"
    assert gm_rows(bare_page) == [action_text(a) for a in record["gm_actions"]]
    assert gm_rows(bare_page)[1] == "round 2: seat bob handed to the bot (by the GM, at 2026-01-04T10:00:00+00:00)"


@pytest.fixture
def bundle_without_runtime(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[str]:
    """A build without npm: the bundle has the page, the engine and SHA256SUMS only."""
    caches = (verify_bundle.runtime_files, verify_bundle.bundle_files)
    for cache in caches:
        cache.cache_clear()
    monkeypatch.setattr(verify_bundle, "has_runtime", lambda: False)
    folder = tmp_path / "bundle"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--bundle", str(folder)]) == 0
    assert "without its Python runtime" in out.getvalue()
    listed = (folder / verify_bundle.MANIFEST).read_text().splitlines()
    assert [line.split("  ")[1] for line in listed] == ["index.html", "verify-runtime/engine.zip"]
    server, url = serve(folder)
    yield url
    server.shutdown()
    for cache in caches:
        cache.cache_clear()


def test_a_bundle_built_without_npm_says_in_amber_what_it_did_not_check(
        browser: Any, bundle_without_runtime: str, game: SelfPlay, tmp_path: Path) -> None:
    context, page, errors = open_page(browser, bundle_without_runtime + "index.html")
    try:
        r = game.record
        status, text = checker(page, tmp_path)(r, r["commitment"])
        assert status == "partial", text
        assert NOT_CHECKED in text and "its bundle has no Python runtime (built without npm)" in text
        assert "bundle SHA-256" in page.inner_text("#bundle")
    finally:
        context.close()
    assert not errors, errors
