"""Shooting: like close combat, but the target does not strike back.

"Range combat is similar to close combat with the differences that the attacker will
not be countered by the attacked so only the attack damage is resolved against the
defender's defenses. There has to be a line of sight and the weapon has to be in range
for this to work. If the line of sight is obscured partly (50%) the defender gets a +5
to defense this also counts when shooting over a creature occupied filed."
"""

from __future__ import annotations

from engine.grid import Sight, distance
from engine.rulesets.fivedice.actions import Skip, attack_total, defence_total, need_attack
from engine.rulesets.fivedice.context import RoundContext
from engine.rulesets.fivedice.gear import GEAR
from engine.rulesets.fivedice.state import Unit

OBSCURED_BONUS = 5
MIN_SHOT = 2  # ours: a bow is not used on an adjacent enemy; that is close combat


def sight_between(ctx: RoundContext, shooter: Unit, target: Unit) -> Sight:
    """Line of sight, every other living unit and half-cover square obscuring it partly."""
    others = [u.square for u in ctx.state.units if u.alive and u is not shooter and u is not target]
    sight = ctx.state.grid.sight(shooter.square, target.square, others)
    if not sight.clear:
        raise Skip(f"no line of sight to {target.id}: {', '.join(s.name for s in sight.blockers)} "
                   f"blocks it")
    return sight


def shoot(ctx: RoundContext, shooter: Unit, target_id: str) -> None:
    turn = ctx.turns[shooter.id]
    need_attack(turn)
    target = ctx.enemy_target(shooter, target_id)
    weapon = GEAR.weapons[shooter.wielded] if shooter.wielded else None
    if weapon is None or not weapon.ranged:
        raise Skip(f"{shooter.id} wields no ranged weapon")
    dist = distance(shooter.square, target.square)
    if dist < MIN_SHOT:
        raise Skip(f"{target.id} is adjacent: a ranged weapon needs {MIN_SHOT} squares or more")
    if dist > weapon.reach:
        raise Skip(f"{target.id} is {dist} squares away; {weapon.name} reaches {weapon.reach}")
    sight = sight_between(ctx, shooter, target)

    turn.spend("attack")
    hit = attack_total(shooter, turn, weapon.bonus)
    guard = defence_total(target, ctx.turns[target.id])
    cover = ""
    if sight.partly_obscured:
        guard += OBSCURED_BONUS
        cover = f" (+{OBSCURED_BONUS}, line obscured by {', '.join(s.name for s in sight.obscurers)})"
    damage = max(0, hit - guard)
    ctx.log("shot", f"{shooter.id} shoots {target.id} with {weapon.name}: attack {hit} against "
                    f"defence {guard}{cover}, {damage} damage.",
            attacker=shooter.id, target=target.id, damage=damage, obscured=sight.partly_obscured)
    ctx.mark("shot", [shooter.square, target.square], shooter)
    ctx.wound(target, damage, f"shot by {shooter.id}")
