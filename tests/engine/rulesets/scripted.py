"""Resolve one round with exactly the scripted faces: the heart of every rulebook test."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeVar

from engine.contract import Event, Resolution, Ruleset
from engine.dice import ScriptedDice

S = TypeVar("S")


def resolve_scripted(rules: Ruleset[S], state: S, orders: Mapping[str, str],
                     faces: list[int]) -> Resolution[S]:
    """Parse each player's order text against the state, resolve, and insist that every
    scripted face was rolled (a face left over means the test's arithmetic is wrong)."""
    parsed = {p: rules.parse_orders(state, p, text) for p, text in orders.items()}
    dice = ScriptedDice(faces)
    res = rules.resolve(state, parsed, dice)
    assert dice.unused == [], f"faces left over: {dice.unused}"
    return res


def event_texts(events: Iterable[Event], kind: str | None = None) -> list[str]:
    return [e.text for e in events if kind is None or e.kind == kind]

