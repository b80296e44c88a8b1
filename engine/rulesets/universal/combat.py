"""Attacks and counterattacks (docs/rulesets/universal.md, "Attack", "Counterattack", "Attacking in row",
"Capture", and the unit types).

Pure helpers over a State: `attack_plan` counts dice and defence from the board as it is
when the attack comes; `fewest_dice` scores a roll; `attack` rolls, applies damage and
returns the events. Rolls are made in a fixed order (attack dice, then counterattack
dice), each labelled, so a record shows what every die was for.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.contract import Event
from engine.dice import Dice
from engine.grid import distance

from .state import State, Unit

DIE = 6
TOKEN_STATS = (1, 0, 5)  # "Defeating enemy create 1/0/5 token for attacker side"


@dataclass(frozen=True)
class AttackPlan:
    dice: int
    defence: int
    helpers: tuple[str, ...]  # characters adjacent to both, the attacker itself first
    supporters: tuple[str, ...]  # Support allies adjacent to the attacker only
    penalty: int  # -1 on the total per supporting unit
    allies: tuple[str, ...]  # the defender's allies adjacent to it (+1 defence each)
    defender_bonus: int  # the Defender type's +2 per enemy adjacent to both
    in_a_row: int  # "attacking in row" bonus


def can_hit(state: State, unit: Unit, target: Unit) -> str | None:
    """Why `unit` cannot strike `target` from where they stand, or None if it can."""
    dist = distance(unit.square, target.square)
    if state.options.get("unit_types") and not unit.has("mortar"):
        low, high = state.attack_range(unit)
        if (low, high) != (1, 1):
            # A custom type's declared range, like the Mortar's (no line of sight needed).
            if dist < low:
                return f"{unit.id} hits only enemies at least {low} squares away, not {target.id}"
            if high is not None and dist > high:
                return f"{target.id} is {dist} squares away, beyond {unit.id}'s range of {high}"
            return None
    if unit.has("mortar"):
        # "Mortar: +3 power, can't hit enemy within 3 squares" (no line of sight needed)
        if dist <= 3:
            return f"{unit.id} is a Mortar and can't hit {target.id} within 3 squares"
        limit = int(state.options.get("mortar_max_range", 0))
        if limit and dist > limit:
            return f"{target.id} is {dist} squares away, beyond the Mortar range of {limit}"
        return None
    if dist != 1:
        return f"{target.id} at {target.square.name} is not adjacent to {unit.id} at {unit.square.name}"
    return None


def attack_plan(state: State, attacker: Unit, defender: Unit) -> AttackPlan:
    a, d = attacker.square, defender.square
    helpers = [attacker.id]
    extra = 0  # custom types' "support_dice" of the attacker's allies that add a die
    house = bool(state.options.get("unit_types"))
    supporters: list[str] = []
    allies: list[str] = []
    enemies_both = 0
    for u in state.units.values():
        if u is attacker or u is defender:
            continue
        near_a = distance(u.square, a) == 1
        near_d = distance(u.square, d) == 1
        if near_a and near_d:
            # "For each character adjacent to both attacker and defender ... add one dice."
            helpers.append(u.id)
            if u.side != defender.side:
                enemies_both += 1
            if house and u.side == attacker.side:
                extra += state.bonus(u, "support_dice")
        elif near_a and u.side == attacker.side and u.has("support"):
            # "Support: Can support attack when non-adjacent to enemy, but -1 attack"
            supporters.append(u.id)
            if house:
                extra += state.bonus(u, "support_dice")
        if near_d and u.side == defender.side:
            allies.append(u.id)
    streak = state.streaks.get(attacker.side)
    in_a_row = streak[1] + 1 if streak and streak[0] == attacker.id else 0
    bonus = 2 * enemies_both if defender.has("defender") else 0
    if not house:
        dice = max(0, attacker.power - 1 + len(helpers) + len(supporters))
        defence = defender.d
    else:
        bonus += state.bonus(defender, "defence_per_enemy") * enemies_both
        dice = max(0, state.power(attacker, "attacking") - 1 + len(helpers) + len(supporters)
                   + extra)
        defence = state.defence(defender, "defending")
    return AttackPlan(dice, defence + len(allies) + bonus + in_a_row, tuple(helpers),
                      tuple(supporters), len(supporters), tuple(allies), bonus, in_a_row)


def fewest_dice(faces: list[int], target: int, penalty: int = 0) -> tuple[int, int]:
    """(dice used, damage): the fewest dice, highest first, whose sum - penalty reaches
    the target; damage is the unused dice, 0 when all of them fall short."""
    total = -penalty
    for used, value in enumerate(sorted(faces, reverse=True), start=1):
        total += value
        if total >= target:
            return used, len(faces) - used
    return len(faces), 0


def counter_dice(state: State, defender: Unit, attacker: Unit) -> int:
    """"Defender roll dices equal to his power -1 (additional -1 if non-adjacent to attacker)"."""
    far = 0 if distance(defender.square, attacker.square) == 1 else 1
    return max(0, state.power(defender, "counterattacking") - 1 - far)


def attack(state: State, attacker: Unit, defender: Unit, dice: Dice) -> tuple[list[Event], int]:
    """Resolve one attack on `state` in place; returns the events and the damage dealt."""
    plan = attack_plan(state, attacker, defender)
    faces = dice.roll_many(plan.dice, DIE, f"{attacker.id} attacks {defender.id}")
    used, damage = fewest_dice(faces, plan.defence, plan.penalty)
    text = (f"{attacker.id} attacks {defender.id} with {plan.dice} dice "
            f"{_faces(faces)}{f' -{plan.penalty} (support)' if plan.penalty else ''} against "
            f"defence {plan.defence}: {damage} damage")
    events = [Event("attack", text, {
        "attacker": attacker.id, "defender": defender.id, "from": attacker.square.name,
        "to": defender.square.name, "faces": faces, "used": used, "damage": damage,
        "defence": plan.defence, "helpers": list(plan.helpers), "supporters": list(plan.supporters),
        "allies": list(plan.allies), "defender_bonus": plan.defender_bonus,
        "in_a_row": plan.in_a_row})]
    if damage:
        events += wound(state, defender, damage, attacker)
        return events, damage
    events += counterattack(state, defender, attacker, dice)
    return events, 0


def counterattack(state: State, defender: Unit, attacker: Unit, dice: Dice) -> list[Event]:
    """"If no damage is dealt, roll for counterattack" - no adjacency bonuses either way."""
    # A unit with a range of its own (the Mortar, a custom type's) counterattacks within it.
    ranged = defender.has("mortar") or state.attack_range(defender) != (1, 1)
    reason = can_hit(state, defender, attacker) if ranged else None
    n = counter_dice(state, defender, attacker)
    if reason or n == 0:
        why = reason or (f"{defender.id} has no counterattack dice "
                         f"(Pw {state.power(defender, 'counterattacking')})")
        return [Event("counter", f"No counterattack: {why}.",
                      {"defender": defender.id, "attacker": attacker.id, "dice": 0})]
    faces = dice.roll_many(n, DIE, f"{defender.id} counterattacks {attacker.id}")
    target = state.defence(attacker, "attacking")
    used, damage = fewest_dice(faces, target)
    events = [Event("counter", f"{defender.id} counterattacks {attacker.id} with {n} dice "
                    f"{_faces(faces)} against defence {target}: {damage} damage",
                    {"defender": defender.id, "attacker": attacker.id, "faces": faces,
                     "used": used, "damage": damage, "defence": target})]
    if damage:
        events += wound(state, attacker, damage, defender)
    return events


def wound(state: State, victim: Unit, damage: int, killer: Unit) -> list[Event]:
    """Take EP; at 0 the character is defeated and, unless it was a token, the killer's
    side gets a 1/0/5 token on its square."""
    victim.ep = max(0, victim.ep - damage)
    if victim.ep:
        return [Event("damage", f"{victim.id} has {victim.ep} EP left",
                      {"unit": victim.id, "ep": victim.ep})]
    del state.units[victim.id]
    events = [Event("defeat", f"{victim.id} is defeated by {killer.id}",
                    {"unit": victim.id, "by": killer.id, "square": victim.square.name})]
    if victim.token:
        return events
    side = killer.side
    number = state.next_number[side]
    state.next_number[side] = number + 1
    ep, pw, d = TOKEN_STATS
    token = Unit(f"{state.letter(side)}{number}", side, victim.square, ep, ep, pw, d, (), True, "token")
    state.units[token.id] = token
    events.append(Event("token", f"{token.id}, a 1/0/5 token of {side}, takes {victim.square.name}",
                        {"unit": token.id, "side": side, "square": victim.square.name}))
    return events


def _faces(faces: list[int]) -> str:
    return "(" + ", ".join(map(str, faces)) + ")" if faces else "(none)"
