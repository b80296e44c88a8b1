"""One exchange: the seed's steps from PRE-HIT SKILLS to COUNT WOUNDS, for one attacker.

Melee and ranged share it ("For range attack, the system is generally the same"); they
differ only in which stats give the dice. Dice are asked for in this order, which the
rulebook tests script: attack dice, the attacker's re-rolls, defence dice, the
defender's re-rolls, then one damage die per hit and the attacker's damage re-rolls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.contract import Event
from engine.dice import Dice
from engine.rulesets.jep1.blocks import assign_blocks
from engine.rulesets.jep1.skills import PRE_DAMAGE, PRE_HIT, SKILLS, Boost, Skill
from engine.rulesets.jep1.units import Unit


@dataclass(frozen=True)
class Exchange:
    """What one exchange rolled and did; events say the same in words."""

    attacks: list[int]
    defences: list[int]
    blocked: list[tuple[int, int]]
    hits: list[int]
    damage_dice: list[int]
    damage: int
    wounds: int


def use_skills(unit: Unit, names: Sequence[str], phase: str, standing: bool,
               events: list[Event]) -> list[Skill]:
    """Spend one use of each named skill of this phase; a spent-out standing skill drops."""
    used: list[Skill] = []
    for name in names:
        skill = SKILLS[name]
        if skill.phase != phase:
            continue
        if unit.uses.get(name, 0) < 1:
            events.append(Event("skip", f"{unit.id} has no uses of {name} left.",
                                {"unit": unit.id, "skill": name}))
            continue
        unit.uses[name] -= 1
        used.append(skill)
        left = unit.uses[name]
        events.append(Event("skill", f"{unit.id} uses {name} ({left} left): {skill.text}",
                            {"unit": unit.id, "skill": name, "left": left}))
        if standing and left == 0:
            unit.guard.remove(name)
    return used


def roll_values(dice: Dice, count: int, bonus: int, rerolls: int, label: str) -> list[int]:
    """count d6, re-roll the lowest `rerolls` times (the new roll stands), add bonus to each."""
    faces = dice.roll_many(count, 6, label)
    for _ in range(min(rerolls, len(faces))):
        low = faces.index(min(faces))
        faces[low] = dice.roll(6, f"{label} re-roll lowest")
    return [f + bonus for f in faces]


def exchange(att: Unit, dfn: Unit, ranged: bool, named: Sequence[str], ties_block: bool,
             dice: Dice, events: list[Event]) -> Exchange:
    """Attacker `att` against `dfn`; `named` are the attack skills its order names."""
    # PRE-HIT SKILLS: "The attacker may use a skill ... After the attacker declares his
    # skills, the defender may use a skill"; the defender's are its standing orders.
    a_hit = Boost.of(use_skills(att, named, PRE_HIT, False, events))
    d_hit = Boost.of(use_skills(dfn, list(dfn.guard), PRE_HIT, True, events))
    a_stat, d_stat = (att.R, dfn.I) if ranged else (att.M, dfn.M)
    attacks = roll_values(dice, a_stat + a_hit.dice, a_stat + a_hit.each, a_hit.reroll,
                          f"{att.id} {'shot' if ranged else 'attack'} die")
    defences = roll_values(dice, d_stat + d_hit.dice, d_stat + d_hit.each, d_hit.reroll,
                           f"{dfn.id} defence die")
    blocked, hits = assign_blocks(attacks, defences, ties_block)
    events.append(Event(
        "roll",
        f"{att.id} {'shoots' if ranged else 'attacks'} {_values(attacks)} against {dfn.id}'s "
        f"defence {_values(defences)}: {len(blocked)} blocked, {len(hits)} hit{'s' * (len(hits) != 1)}.",
        {"attacker": att.id, "defender": dfn.id, "attacks": attacks, "defences": defences,
         "blocked": [list(p) for p in blocked], "hits": hits}))
    if not hits:
        return Exchange(attacks, defences, blocked, hits, [], 0, 0)
    # PRE-DAMAGE SKILLS, attacker first, then the defender's standing ones.
    a_dmg = Boost.of(use_skills(att, named, PRE_DAMAGE, False, events))
    d_dmg = Boost.of(use_skills(dfn, list(dfn.guard), PRE_DAMAGE, True, events))
    strength, toughness, armor = att.S + a_dmg.strength, dfn.T + d_dmg.toughness, dfn.A + d_dmg.armor
    # ROLL To Damage: one d6 + S per hit; "If the value is higher or equal, then 1 damage".
    faces = roll_values(dice, len(hits), 0, a_dmg.reroll, f"{att.id} damage die")
    damage = sum(1 for f in faces if f + strength >= toughness)
    # ARMOR BUFFER: "minus 1 damage for each armor value defender has".
    wounds = max(0, damage - armor)
    dfn.H = max(0, dfn.H - wounds)
    events.append(Event(
        "damage",
        f"{att.id} rolls damage {_values(faces)} + S{strength} against T{toughness}: {damage} damage, "
        f"armor {armor}, {wounds} wound{'s' * (wounds != 1)}; {dfn.id} has {dfn.H} health left.",
        {"attacker": att.id, "defender": dfn.id, "faces": faces, "strength": strength,
         "toughness": toughness, "armor": armor, "damage": damage, "wounds": wounds, "health": dfn.H}))
    if not dfn.alive:
        events.append(Event("death", f"{dfn.id} is dead.", {"unit": dfn.id, "square": dfn.at.name,
                                                             "by": att.id}))
    return Exchange(attacks, defences, blocked, hits, faces, damage, wounds)


def _values(values: Sequence[int]) -> str:
    return " ".join(str(v) for v in values) if values else "nothing"
