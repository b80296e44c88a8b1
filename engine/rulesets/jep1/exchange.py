"""One exchange: the seed's steps from PRE-HIT SKILLS to COUNT WOUNDS, for one attacker.

Melee and ranged share it ("For range attack, the system is generally the same"); they
differ only in which stats give the dice. Dice are asked for in this order, which the
rulebook tests script: attack dice, the attacker's re-rolls, defence dice, the
defender's re-rolls, then one damage die per hit and the attacker's damage re-rolls.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement

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


def use_skills(unit: Unit, names: Sequence[str], phase: str, standing: list[str] | None,
               events: list[Event]) -> list[Skill]:
    """Spend one use of each named skill of this phase; a spent-out skill drops from the
    standing order it came from (`standing`: the unit's guard or strike back list)."""
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
        if standing is not None and left == 0 and name in standing:
            standing.remove(name)
    return used


def _wounds(faces: Sequence[int], strength: int, toughness: int, armor: int) -> int:
    return max(0, sum(1 for f in faces if f + strength >= toughness) - armor)


def _changes_damage(hits: int, strength: int, base: Boost, more: Boost, dfn: Unit) -> bool:
    """Whether a defender's pre-damage boost `more`, on top of `base`, gives fewer wounds
    for at least one way the damage dice can fall."""
    t0, a0 = dfn.T + base.toughness, dfn.A + base.armor
    t1, a1 = t0 + more.toughness, a0 + more.armor
    return any(_wounds(faces, strength, t0, a0) != _wounds(faces, strength, t1, a1)
               for faces in combinations_with_replacement(range(1, 7), hits))


def _can_wound(att: Unit, dfn: Unit, attack_dice: int, named: Sequence[str]) -> bool:
    """Whether this attack can wound at all, whatever the dice: every attack die a hit, every
    damage die a 6 with the attacker's named strength skills, against the defender's T and
    A. If not, no pre-hit defence skill can change the outcome."""
    strength = att.S + sum(SKILLS[n].amount for n in named if SKILLS[n].phase == PRE_DAMAGE
                           and SKILLS[n].effect == "strength" and att.uses.get(n, 0) > 0)
    return 6 + strength >= dfn.T and attack_dice > dfn.A


def _guard(dfn: Unit, phase: str, useful: Callable[[list[str], str], bool],
           events: list[Event]) -> list[Skill]:
    """The defender's standing skills of this phase, by its policy: every one ("always"),
    or only those that can change the outcome (the default), in the order of its guard."""
    names = [n for n in dfn.guard if SKILLS[n].phase == phase]
    if dfn.guard_when != "always":
        chosen: list[str] = []
        for name in names:
            if dfn.uses.get(name, 0) > 0 and useful(chosen, name):
                chosen.append(name)
        kept = [n for n in names if n not in chosen and dfn.uses.get(n, 0) > 0]
        if kept:
            events.append(Event("guard kept", f"{dfn.id} keeps {', '.join(kept)}: it cannot "
                                "change the outcome of this exchange.",
                                {"unit": dfn.id, "skills": kept}))
        names = chosen
    return use_skills(dfn, names, phase, dfn.guard, events)


def roll_values(dice: Dice, count: int, bonus: int, rerolls: int, label: str) -> list[int]:
    """count d6, re-roll the lowest `rerolls` times (the new roll stands), add bonus to each."""
    faces = dice.roll_many(count, 6, label)
    for _ in range(min(rerolls, len(faces))):
        low = faces.index(min(faces))
        faces[low] = dice.roll(6, f"{label} re-roll lowest")
    return [f + bonus for f in faces]


def exchange(att: Unit, dfn: Unit, ranged: bool, named: Sequence[str], ties_block: bool,
             dice: Dice, events: list[Event], standing_attack: bool = False) -> Exchange:
    """Attacker `att` against `dfn`; `named` are the attack skills its order names (its
    standing strike back skills when `standing_attack`)."""
    from_list = att.strike if standing_attack else None
    # PRE-HIT SKILLS: "The attacker may use a skill ... After the attacker declares his
    # skills, the defender may use a skill"; the defender's are its standing orders.
    a_hit = Boost.of(use_skills(att, named, PRE_HIT, from_list, events))
    a_stat, d_stat = (att.R, dfn.I) if ranged else (att.M, dfn.M)
    can_wound = _can_wound(att, dfn, a_stat + a_hit.dice, named)
    d_hit = Boost.of(_guard(dfn, PRE_HIT, lambda chosen, name: can_wound, events))
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
    a_dmg = Boost.of(use_skills(att, named, PRE_DAMAGE, from_list, events))
    hit_strength = att.S + a_dmg.strength
    d_dmg = Boost.of(_guard(dfn, PRE_DAMAGE, lambda chosen, name: _changes_damage(
        len(hits), hit_strength, Boost.of([SKILLS[n] for n in chosen]), Boost.of([SKILLS[name]]),
        dfn), events))
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
