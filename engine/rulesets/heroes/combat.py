"""Attacks, strikes, ARM saves and knock-outs.

Seed, Combat Phase: "Roll Off adding either your (S) or (R) stats. and adding or
subtracting for modifiers. Consult your S.U.P.E.R. stat card to see what damage your Hero
has done. Roll for ARM." ARM: the defender's roll-off + U must be *higher* than the Dmg
("This is higher than the Dmg of 13 so he saves"); otherwise 1 Vitality is lost.

Our readings (docs/rulesets/heroes.md): ATT is the number of strikes per attack, each its
own roll-off; ARM is the number of save roll-offs per strike, any one of which saves; a
critical strike is only saved by a critical ARM roll ("only another Critical Hit can
negate your roll"); a failed ARM roll (a 1) never saves.
"""

from __future__ import annotations

from engine.contract import Event, InvariantError
from engine.dice import Dice
from engine.grid import square_name
from engine.rulesets.heroes.decks import items
from engine.rulesets.heroes.facing import attacks_back, is_ranged_shot
from engine.rulesets.heroes.rolloff import roll_off
from engine.rulesets.heroes.state import Figure, HeroesState

BACK, MOVED, ROOFTOP_RANGED, SAME_SPACE = 1, -1, -3, 1
ATTACK_ITEMS = ("dmg", "att", "reach")  # items that wear out, one use per attack


def is_ranged(f: Figure) -> bool:
    """Ranged figures reach 2 ahead: a ranged card, or a hero holding a gun."""
    return f.spec.ranged or f.has_item("reach")


def modifiers(state: HeroesState, attacker: Figure, target: Figure, moved: bool,
              ranged: bool) -> list[tuple[str, int]]:
    """The seed's "Generic Modifiers" that apply to this attack."""
    mods: list[tuple[str, int]] = []
    if attacker.square == target.square:
        mods.append(("same space", SAME_SPACE))
    elif attacks_back(attacker.square, target.square, target.facing):
        mods.append(("back", BACK))
    if moved:
        mods.append(("moved", MOVED))
    if ranged and (attacker.square in state.roofs or target.square in state.roofs):
        mods.append(("rooftop", ROOFTOP_RANGED))
    return mods


def attack(state: HeroesState, attacker: Figure, target: Figure, dice: Dice, events: list[Event],
           moved: bool = False) -> None:
    """One attack: ATT strikes, each rolled, looked up on the card and saved against."""
    ranged = attacker.spec.ranged or (
        attacker.has_item("reach") and is_ranged_shot(attacker.square, attacker.facing, target.square))
    stat_name = "R" if ranged else "S"
    stat = attacker.stat(stat_name)
    mods = modifiers(state, attacker, target, moved, ranged)
    modifier = sum(v for _, v in mods)
    strikes = attacker.spec.att + attacker.effects.get("extra_attack", 0) + attacker.item_total("att")
    bonus = attacker.effects.get("extra_damage", 0) + attacker.item_total("dmg")
    state.marks.append({"kind": "shot" if ranged else "attack",
                        "squares": [square_name(attacker.square), square_name(target.square)],
                        "side": attacker.owner if attacker.kind == "hero" else None})
    mod_text = "".join(f", {name} {v:+d}" for name, v in mods)
    for n in range(1, strikes + 1):
        if not target.active:
            break
        label = f"{attacker.id} strike {n} on {target.id}"
        roll = roll_off(dice, stat, label, modifier=modifier, policy=attacker.policy,
                        may_reroll="reroll" in attacker.effects)
        row = attacker.spec.strike_for(roll)
        head = f"{attacker.id} strikes {target.id} ({stat_name} {stat}{mod_text}): {roll.describe()}"
        data = {"attacker": attacker.id, "target": target.id, "dice": list(roll.dice),
                "total": roll.total, "strike": n}
        if row is None:
            events.append(Event("miss", head + ": a miss.", data))
            continue
        dmg = row.dmg + bonus
        strike = f"{head} → {row.name}, Dmg {dmg}"
        take_strike(state, target, dmg, roll.critical, dice, events, strike, data)
    _spend_items(state, attacker)


def take_strike(state: HeroesState, target: Figure, dmg: int, critical: bool, dice: Dice,
                events: list[Event], head: str, data: dict[str, object]) -> None:
    """ARM saves against one strike of Dmg dmg; a failed save costs 1 Vitality."""
    arm = target.spec.arm + target.item_total("arm")
    saves: list[str] = []
    for k in range(1, arm + 1):
        save = roll_off(dice, target.stat("U"), f"{target.id} ARM {k}", policy=target.policy,
                        may_reroll="reroll" in target.effects)
        saves.append(save.describe())
        if save.critical or (not save.fail and not critical and save.total > dmg):
            events.append(Event("save", f"{head}. {target.id} ARM {save.describe()}: saved.",
                                {**data, "dmg": dmg, "saved": True}))
            return
    target.vitality -= 1
    why = "; ".join(saves)
    events.append(Event("damage", f"{head}. {target.id} ARM {why}: no save, -1 Vitality "
                        f"({target.vitality} left).", {**data, "dmg": dmg, "saved": False}))
    if target.vitality <= 0:
        knock_out(state, target, events)


def free_weak_strike(state: HeroesState, enemy: Figure, runner: Figure, dice: Dice,
                     events: list[Event]) -> None:
    """"If you fail to run away, the enemy gets a free "Weak" strike against you. ARM saves
    as usual." No attack roll: the Dmg of the enemy's weakest row."""
    weak = enemy.spec.weak
    head = f"{enemy.id} gets a free {weak.name} on {runner.id}, Dmg {weak.dmg}"
    take_strike(state, runner, weak.dmg, False, dice, events, head,
                {"attacker": enemy.id, "target": runner.id, "free": True})


def knock_out(state: HeroesState, f: Figure, events: list[Event]) -> None:
    """Heroes go home to heal and sit out a round; henchmen leave; a nemesis waits."""
    f.vitality = 0
    if f.kind == "hero":
        if f.start is None:
            raise InvariantError(f"hero {f.id} has no starting square")
        f.square = f.start
        f.vitality = f.spec.vitality
        f.misses = state.next_turn_round(f.owner)
        f.effects.clear()
        events.append(Event("knockout", f"{f.id} is knocked out: back to its start corner "
                            f"{square_name(f.start)} with full Vitality, missing its turn in "
                            f"round {f.misses}.",
                            {"unit": f.id}))
    elif f.kind == "henchman":
        del state.figures[f.id]
        events.append(Event("defeat", f"{f.id} is defeated and leaves the board.", {"unit": f.id}))
    else:
        events.append(Event("down", f"{f.id} ({f.spec.name}) is at 0 Vitality and waits to be "
                            f"captured on {square_name(f.square)}.", {"unit": f.id}))


def _spend_items(state: HeroesState, f: Figure) -> None:
    """Items that last a number of attacks lose one use per attack made; a spent one goes
    to the items discard pile (reshuffled when the deck runs out)."""
    kept = []
    for item_id, uses in f.items:
        if uses is not None and items()[item_id].effect in ATTACK_ITEMS:
            uses -= 1
        if uses is None or uses > 0:
            kept.append([item_id, uses])
        else:
            state.items_discard.append(item_id)
    f.items = kept
