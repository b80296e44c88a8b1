"""The verifier page checks a record with a GM's rollback as `dicepost verify` does: with its
runtime all green (amber only for the API's joiners' server-made entropy), naming the rollback and marking the superseded steps; a superseded round
dropped, or a round played again with a link already revealed, red at the command's first
difference, with the runtime and without it (the links are the dice's to check)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import BROWSER
from tests.service.schedule_world import World
from tests.service.test_rollback import REASON, dropped_round, reused_link, rolled_back
from tests.verify.test_browser_runtime import (  # noqa: F401 (the fixtures)
    Check,
    bare_page,
    bundle,
    engine_page,
    first_place,
    page_alone,
    with_engine,
    without_engine,
)

pytestmark = BROWSER


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    world = World(tmp_path_factory.mktemp("rollback")).start(
        {"kind": "duration", "duration": "PT48H"}, options={"no_rollback": False})
    return rolled_back(world)


def test_the_page_checks_a_rollback_and_catches_both_forgeries(
        with_engine: Check, record: dict[str, Any], engine_page: Any) -> None:  # noqa: F811 (fixtures)
    status, text = with_engine(record, commitment=record["commitment"])
    # amber only because the API's joiners brought no entropy of their own
    assert status == "partial" and text.startswith("Every check holds: 5 steps"), text
    head = engine_page.inner_text("#header-table")
    assert "rollback 1: to the start of round 2 by gm" in head and REASON in head
    steps = engine_page.inner_text("#steps-table")
    assert steps.count("superseded by rollback 1") == 2 and "(link S_5)" in steps
    for forged in (dropped_round(record), reused_link(record)):
        status, text = with_engine(forged, commitment=record["commitment"])
        assert status == "bad" and text.startswith(first_place(forged)), text


def test_the_page_alone_catches_both_forgeries_by_the_links(
        without_engine: Check, record: dict[str, Any]) -> None:  # noqa: F811 (the fixture)
    status, text = without_engine(record, commitment=record["commitment"])
    assert status == "partial", text
    for forged in (dropped_round(record), reused_link(record)):
        status, text = without_engine(forged, commitment=record["commitment"])
        assert status == "bad" and text.startswith(first_place(forged)), text
        assert "link" in text
