"""A fifth ruleset that exists only in the tests (skirmish.py, rules in RULES.md): the
proof that docs/rulesets/AUTHORING.md is enough to write one. `registered()` makes it
findable by id for the length of a test, without making it part of the shipped registry."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from engine.registry import register, unregister
from tests.fifth_ruleset.skirmish import SkirmishRuleset

SKIRMISH = SkirmishRuleset()


@contextmanager
def registered() -> Iterator[SkirmishRuleset]:
    register(SKIRMISH)
    try:
        yield SKIRMISH
    finally:
        unregister(SKIRMISH.info.id)
