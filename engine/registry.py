"""The explicit list of rule systems (python-chess's VARIANTS): nothing registers itself.

`register` adds one more by hand (a ruleset that ships elsewhere, or a test's own), and
`unregister` takes it away again: everything that finds a ruleset by id (setup, rounds,
replay, verify, the service) then finds it, while the shipped list stays as it is.
"""

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


_SHIPPED: list[Ruleset[Any]] | None = None
_ADDED: list[Ruleset[Any]] = []


def _shipped() -> list[Ruleset[Any]]:
    global _SHIPPED
    if _SHIPPED is None:
        _SHIPPED = _build()
    return _SHIPPED


def rulesets() -> list[Ruleset[Any]]:
    """The shipped rulesets, then any added by `register`."""
    return [*_shipped(), *_ADDED]


def register(ruleset: Ruleset[Any]) -> None:
    """Make this ruleset findable by its id; an id already taken is refused (ValueError)."""
    if ruleset.info.id in ruleset_ids():
        raise ValueError(f"a ruleset with id {ruleset.info.id!r} is registered already")
    _ADDED.append(ruleset)


def unregister(ruleset_id: str) -> None:
    """Take a ruleset added by `register` away again; a shipped one cannot be (ValueError)."""
    if any(r.info.id == ruleset_id for r in _shipped()):
        raise ValueError(f"{ruleset_id!r} is a shipped ruleset")
    _ADDED[:] = [r for r in _ADDED if r.info.id != ruleset_id]


def ruleset_ids() -> list[str]:
    return [r.info.id for r in rulesets()]


def find_ruleset(name: str) -> Ruleset[Any]:
    for r in _shipped():
        if r.info.id == name:
            return r
    for r in _ADDED:
        if r.info.id == name:
            return r
    raise UnknownRuleset(name)
