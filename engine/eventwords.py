"""The words of a ruleset's events that tell a player what a round did to them.

The service's turn summary (the player page and the results mail) reads every event
through the ruleset's `EventWords` (`RulesetInfo.events`) and never knows a ruleset's
event kinds or data keys itself. The defaults are the plain words most rulesets use
(`unit`, `attacker`, `defender`, `damage`, `faces`; kinds `move`, `attack`, `death`,
`skip`); a ruleset names its own beside them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Tagged:
    """Events of `kind` (and, when `key` is set, only those whose data has it) stand under
    their own heading. With `one` and `many` they are counted in the round's headline
    ("1 token gained", "2 civvies saved")."""

    kind: str
    tag: str  # a short name, for the page's styles
    heading: str  # what the page and mail write before the event's sentence
    key: str | None = None
    one: str = ""
    many: str = ""


@dataclass(frozen=True)
class Modifier:
    """A data key whose value names a modifier of a roll, and the phrase to print for it.
    A list of unit ids gives one phrase per id (`{name}`; ids equal to the data's `unless`
    key are left out); any other value that is not empty, zero or false gives one phrase
    (`{n}`: the value). `{attacker}` and `{defender}` are the data's."""

    key: str
    phrase: str
    unless: str | None = None

    def phrases(self, data: Mapping[str, Any]) -> list[str]:
        value = data.get(self.key)
        who = {"attacker": data.get("attacker"), "defender": data.get("defender")}
        if isinstance(value, (list, tuple)):
            skip = data.get(self.unless) if self.unless else None
            return [self.phrase.format(name=v, **who) for v in value if isinstance(v, str) and v != skip]
        return [self.phrase.format(n=value, **who)] if value else []


@dataclass(frozen=True)
class EventWords:
    """Which event kinds and data keys mean what to the player whose units they name."""

    # Data keys whose values name units (a unit id or a list of them), and the player.
    unit_keys: tuple[str, ...] = ("unit", "attacker", "defender", "target", "by")
    player_keys: tuple[str, ...] = ("side", "player")
    # Kinds: a unit removed (`unit`; an enemy killed for the player of `by`), a move,
    # an attack made or suffered, and the attacks in which the defender strikes back.
    losses: tuple[str, ...] = ("death",)
    moves: tuple[str, ...] = ("move",)
    attacks: tuple[str, ...] = ("attack",)
    counters: tuple[str, ...] = ()
    # Data keys: the damage `attacker` dealt to `defender` (or `target`), the first one
    # present counts; damage the defender dealt back at once; the dice the sentence names.
    damage_keys: tuple[str, ...] = ("damage",)
    back_keys: tuple[str, ...] = ()
    one_damage: tuple[str, ...] = ()  # kinds of which every event is 1 damage
    dice_keys: tuple[str, ...] = ("faces",)
    tagged: tuple[Tagged, ...] = ()
    modifiers: tuple[Modifier, ...] = ()

    def faces(self, data: Mapping[str, Any]) -> tuple[int, ...]:
        for key in self.dice_keys:
            value = data.get(key)
            if isinstance(value, list) and all(isinstance(v, int) for v in value):
                return tuple(value)
        return ()

    def named_modifiers(self, data: Mapping[str, Any]) -> tuple[str, ...]:
        return tuple(p for m in self.modifiers for p in m.phrases(data))

    def tag_of(self, kind: str, data: Mapping[str, Any]) -> Tagged | None:
        for t in self.tagged:
            if t.kind == kind and (t.key is None or t.key in data):
                return t
        return None

    def amounts(self, kind: str, data: Mapping[str, Any]) -> list[tuple[str, str, int]]:
        """(who dealt, who took, how much) for an event that does damage."""
        if kind in self.counters:
            who, whom = data.get("defender"), data.get("attacker")
        else:
            who, whom = data.get("attacker"), data.get("defender") or data.get("target")
        if who is None or whom is None:
            return []
        amount: Any = 1 if kind in self.one_damage else next(
            (data[k] for k in self.damage_keys if k in data), None)
        out = []
        if isinstance(amount, int) and amount:
            out.append((str(who), str(whom), amount))
        for key in self.back_keys:
            back = data.get(key)
            if isinstance(back, int) and back:
                out.append((str(whom), str(who), back))
        return out


PLAIN_WORDS = EventWords()
