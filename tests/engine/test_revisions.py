"""Rules revisions in the engine: what a ruleset declares, what a setup names."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.contract import FIRST_REVISION, Revision, RulesError
from engine.registry import find_ruleset, rulesets
from engine.steps import setup_inputs, setup_revision


def test_every_shipped_ruleset_lists_its_revisions_with_their_changes() -> None:
    for ruleset in rulesets():
        info = ruleset.info
        assert [r.number for r in info.revisions] == list(range(1, info.revision + 1))
        assert all(r.changes and all(c.strip() for c in r.changes) for r in info.revisions)
        assert ruleset.revision == info.revision  # the registry's instance plays the newest


def test_revisions_are_numbered_from_one_in_order_each_with_its_changes() -> None:
    info = find_ruleset("universal").info
    for wrong in ((Revision(2, ("x",)),), (FIRST_REVISION, Revision(3, ("x",))),
                  (FIRST_REVISION, Revision(2, ())), ()):
        with pytest.raises(ValueError, match="revisions must be numbered 1, 2"):
            replace(info, revisions=wrong)


def test_the_setup_document_names_the_revision_and_one_without_it_is_revision_one() -> None:
    inputs = setup_inputs("universal", {}, ["a", "b"], {"a": {}, "b": {}}, 3)
    assert inputs["revision"] == 3 and setup_revision(inputs) == 3
    del inputs["revision"]
    assert setup_revision(inputs) == 1
    for wrong in (0, -1, "2", 2.0, True, None):
        with pytest.raises(RulesError, match="the setup's revision must be a whole number from 1"):
            setup_revision({**inputs, "revision": wrong})
