"""The explicit list of rule systems (python-chess's VARIANTS): nothing registers itself.

`register` adds one more by hand (a ruleset that ships elsewhere, or a test's own), and
`unregister` takes it away again: everything that finds a ruleset by id (setup, rounds,
replay, verify, the service) then finds it, while the shipped list stays as it is.

A game plays one revision of its ruleset to its end: `find_ruleset(id, revision)` gives
the ruleset as it plays under that revision (made once, then kept), `find_ruleset(id)` the
newest, which new games get.
"""

from __future__ import annotations

from typing import Any

from engine.contract import RulesError, Ruleset, RulesetInfo


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
_OLDER: dict[tuple[str, int], Ruleset[Any]] = {}  # (id, revision) → the ruleset at it


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
    _forget(ruleset.info.id)


def unregister(ruleset_id: str) -> None:
    """Take a ruleset added by `register` away again; a shipped one cannot be (ValueError)."""
    if any(r.info.id == ruleset_id for r in _shipped()):
        raise ValueError(f"{ruleset_id!r} is a shipped ruleset")
    _ADDED[:] = [r for r in _ADDED if r.info.id != ruleset_id]
    _forget(ruleset_id)


def _forget(ruleset_id: str) -> None:
    for key in [k for k in _OLDER if k[0] == ruleset_id]:
        del _OLDER[key]


def ruleset_ids() -> list[str]:
    return [r.info.id for r in rulesets()]


def _newest(name: str) -> Ruleset[Any]:
    for r in _shipped():
        if r.info.id == name:
            return r
    for r in _ADDED:
        if r.info.id == name:
            return r
    raise UnknownRuleset(name)


def find_ruleset(name: str, revision: int | None = None) -> Ruleset[Any]:
    """The ruleset with this id as it plays under `revision` (None: the newest, what a new
    game gets); UnknownRuleset, or UnknownRevision for a revision it does not list."""
    newest = _newest(name)
    if revision is None or revision == newest.revision:
        return newest
    key = (name, revision)
    if key not in _OLDER:
        _OLDER[key] = newest.at_revision(revision)
    return _OLDER[key]


def ruleset_info(name: str) -> RulesetInfo:
    """What a ruleset says of itself (title, options, glossary, event words, its revisions):
    the same for every revision of it."""
    return _newest(name).info
