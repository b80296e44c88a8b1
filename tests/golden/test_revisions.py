"""Changing a rule: in place it fails the golden records; as a new revision the games of
the old one verify as before and new games play the new one (docs/rulesets/AUTHORING.md)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.contract import UnknownRevision
from engine.registry import find_ruleset
from engine.selfplay import play
from engine.verify import verify
from tests.golden.golden import check, read, write_new
from tests.golden.scratch import SCRATCH, MoraleInPlace, MoraleRevised, Scratch, registered


@pytest.fixture(scope="module")
def pinned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scratch ruleset's revision 1 pinned by its golden games, in a folder of their own."""
    root = tmp_path_factory.mktemp("golden")
    with registered(Scratch()):
        for path in write_new(SCRATCH, root=root):
            assert check(read(path)) == []
    return root


def golden_files(root: Path) -> list[Path]:
    return sorted(root.glob(f"{SCRATCH}/r*.json"))


def test_a_rule_changed_in_place_fails_the_golden_records(pinned: Path) -> None:
    with registered(MoraleInPlace()):
        for path in golden_files(pinned):
            golden = read(path)
            problems = check(golden)
            assert len(problems) == 1, problems
            assert problems[0].startswith(f"{SCRATCH} revision 1, game {golden['name']}, step 2: ")
            pinned_rolls = golden["steps"][1]["rolls"]
            assert f"{pinned_rolls + 1} dice rolled, pinned {pinned_rolls}" in problems[0]
            assert "(first: roll 0 label: now morale, recorded " in problems[0]
            assert not verify(golden["record"]).ok  # and the games players hold no longer verify


def test_as_a_new_revision_old_games_verify_and_new_games_play_it(pinned: Path, tmp_path: Path) -> None:
    root = tmp_path / "golden"
    shutil.copytree(pinned, root)
    with registered(MoraleRevised()):
        for path in golden_files(root):
            golden = read(path)
            assert check(golden) == []
            v = verify(golden["record"])
            assert v.ok and v.revision == 1
        assert find_ruleset(SCRATCH).revision == 2
        new = play(SCRATCH, "after the change")
        assert new.record["revision"] == 2 and new.record["steps"][0]["inputs"]["revision"] == 2
        assert new.record["steps"][1]["rolls"][0]["label"] == "morale"
        v = verify(new.record)
        assert v.ok and v.revision == 2
        old = play(SCRATCH, "after the change", revision=1)  # a game created before it
        assert old.record["revision"] == 1 and old.record["steps"][1]["rolls"][0]["label"] != "morale"

        written = write_new(SCRATCH, root=root)
        assert [p.name for p in written] == ["r2-2p-simultaneous.json", "r2-3p-alternating.json"]
        assert all(check(read(p)) == [] for p in written)
        before = {p: p.read_bytes() for p in golden_files(root)}
        for revision in (1, 2):
            with pytest.raises(FileExistsError, match="never rewritten"):
                write_new(SCRATCH, revision, root=root)
        assert {p: p.read_bytes() for p in golden_files(root)} == before


def test_each_revision_is_one_ruleset_kept_and_an_unknown_one_is_refused() -> None:
    with registered(MoraleRevised()):
        first, second = find_ruleset(SCRATCH, 1), find_ruleset(SCRATCH, 2)
        assert (first.revision, second.revision) == (1, 2)
        assert find_ruleset(SCRATCH, 1) is first and find_ruleset(SCRATCH) is second
        assert type(first) is MoraleRevised and first.info is second.info
        for wrong in (0, 3):
            with pytest.raises(UnknownRevision, match=f"{SCRATCH} has no revision {wrong}; its revisions are 1 to 2"):
                find_ruleset(SCRATCH, wrong)
    with registered(Scratch()):  # the same id again: its revisions are its own
        assert find_ruleset(SCRATCH, 1).revision == 1
        with pytest.raises(UnknownRevision):
            find_ruleset(SCRATCH, 2)
