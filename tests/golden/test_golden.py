"""Every revision of every ruleset plays its golden games exactly as pinned."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.registry import rulesets
from tests.golden.golden import HERE, check, files, games_of, path_of, read

FILES = files()


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_a_golden_game_replays_exactly_as_pinned(path: Path) -> None:
    problems = check(read(path))
    assert not problems, "\n".join(problems)


def test_every_revision_of_every_ruleset_has_its_golden_games() -> None:
    """Two seats moving at once and the most seats (up to 3) moving in turn, for each
    revision a ruleset lists."""
    missing = [str(path_of(r.info.id, rev.number, game.name).relative_to(HERE))
               for r in rulesets() for rev in r.info.revisions for game in games_of(r.info.id)
               if not path_of(r.info.id, rev.number, game.name).exists()]
    assert not missing, f"no golden record: {missing} (python -m tests.golden RULESET)"
    for path in FILES:
        golden = read(path)
        assert path == path_of(golden["ruleset"], golden["revision"], golden["name"])
        assert golden["record"]["profile"] == "dicepost-dice/v2"
        assert golden["record"]["bots"], "played by the bots"
