"""The verifier page under Pyodide checks records written before rules revisions green, as
revision 1, and names the revision it ran each record under."""

from __future__ import annotations

from typing import Any

import pytest

from engine.verify import parse_record
from tests.conftest import BROWSER
from tests.verify.test_browser_runtime import (  # noqa: F401 (the fixtures)
    Check,
    bundle,
    engine_page,
    needs_runtime,
    with_engine,
)
from tests.verify.test_records_before_revisions import OLD

# The service's records of each ruleset, as main wrote them before revisions.
pytestmark = BROWSER
RECORDS = ["demo-universal-2p", "demo-jep1-2p", "demo-fivedice-2p", "demo-heroes-2p"]


@needs_runtime
@pytest.mark.parametrize("name", RECORDS)
def test_a_record_from_before_revisions_is_green_as_revision_one(
        name: str, with_engine: Check, engine_page: Any) -> None:  # noqa: F811
    record = parse_record((OLD / f"{name}.json").read_bytes())
    status, text = with_engine(record, record["commitment"])
    assert status == "ok", text
    assert text.startswith(f"Every check holds: {len(record['steps'])} steps")
    game = engine_page.inner_text("#header-table tbody tr:first-child")
    assert f"{record['game_id']} ({record['ruleset']}, rules revision 1)" in game

