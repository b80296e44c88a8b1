"""The explicit list of rule systems (python-chess's VARIANTS): nothing registers itself."""

from __future__ import annotations

from typing import Any

from engine.contract import RulesError, Ruleset


class UnknownRuleset(RulesError):
    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"unknown ruleset {name!r}; known: {', '.join(ruleset_ids())}")


def _build() -> list[Ruleset[Any]]:
    # Imported here so engine.contract stays importable by the rulesets themselves.
    from engine.rulesets.fivedice import FivediceRuleset
    from engine.rulesets.heroes import HeroesRuleset
    from engine.rulesets.jep1 import Jep1Ruleset
    from engine.rulesets.universal import UniversalRuleset

    return [UniversalRuleset(), Jep1Ruleset(), FivediceRuleset(), HeroesRuleset()]


_RULESETS: list[Ruleset[Any]] | None = None


def rulesets() -> list[Ruleset[Any]]:
    global _RULESETS
    if _RULESETS is None:
        _RULESETS = _build()
    return _RULESETS


def ruleset_ids() -> list[str]:
    return [r.info.id for r in rulesets()]


def find_ruleset(name: str) -> Ruleset[Any]:
    for r in rulesets():
        if r.info.id == name:
            return r
    raise UnknownRuleset(name)
