"""A unit's three actions in one round (Movement, Attack, Defence) and what spends them.

"Each character has three actions (Movement, Attack, Defense); you can drop one of
these actions (your choice) to do something else, e.g. use an item, switch a weapon."
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.rulesets.fivedice.allocation import Placement
from engine.rulesets.fivedice.gear import BARE_HANDS, GEAR, Weapon
from engine.rulesets.fivedice.state import Unit


class Skip(Exception):
    """An order that is no longer legal when its unit's turn comes; the message says why."""


@dataclass(slots=True)
class Turn:
    """What one unit has left this round, and the dice it placed."""

    placement: Placement
    # "SKILL LEVEL 0: ... only one action in addition to move used for either attack or
    # defense": attack and defence are then one action, spending one spends both.
    single: bool
    move: bool = True
    attack: bool = True
    defence: bool = True
    dropped: bool = False  # an action already dropped for an item or a weapon switch

    def has(self, action: str) -> bool:
        return bool(getattr(self, action))

    def spend(self, action: str) -> None:
        if self.single and action in ("attack", "defence"):
            self.attack = self.defence = False
        else:
            setattr(self, action, False)


def melee_weapon(unit: Unit) -> Weapon:
    """The wielded weapon if it is a melee weapon; otherwise the unit fights bare-handed."""
    if unit.wielded is None:
        return BARE_HANDS
    w = GEAR.weapons[unit.wielded]
    return BARE_HANDS if w.ranged else w


def defence_total(unit: Unit, turn: Turn) -> int:
    """Defence dice (while the defence action is unspent) + defence stat + armor bonus.

    "A unit whose defence is spent defends with stat + armor alone" (docs/rulesets/fivedice.md).
    """
    armor = unit.sheet.armor_gear
    dice = turn.placement.total("defence") if turn.defence else 0
    return dice + unit.sheet.defence + (armor.bonus if armor else 0)


def attack_total(unit: Unit, turn: Turn, bonus: int) -> int:
    """Attack dice + attack stat + the weapon's (or spell's) bonus."""
    return turn.placement.total("attack") + unit.sheet.attack + bonus


def movement_losses(cost: int, mp: int) -> int | None:
    """How many of attack/defence a move of this cost loses; None when it is too far.

    "Up to Movement Points: able to use Attack and Defense. Up to double Movement
    Points: loose either Attack or Defence (Player's choice). Up to three-times
    Movement Points: loose Attack and Defence."
    """
    if cost <= mp:
        return 0
    if cost <= 2 * mp:
        return 1
    if cost <= 3 * mp:
        return 2
    return None


def need_attack(turn: Turn) -> None:
    if not turn.attack:
        raise Skip("its attack is already spent this round")
