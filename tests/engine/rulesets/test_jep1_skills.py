"""jep1 rulebook: skills (data/skills.json), used in the seed's two skill phases.

Seed: "The attacker may use a skill before rolling his attacks. After the attacker declares his
skills, the defender may use a skill before the attacker rolls attacks. A maximum of 2 skills can
be used in this phase for both attacker & defender." (and the same for PRE-DAMAGE SKILLS).
docs/rulesets/jep1.md: attack skills are named in orders; defence skills are standing orders of the unit.
"""

import pytest

from engine.dice import ScriptedDice
from engine.orders import OrderErrors
from engine.rulesets.jep1.exchange import exchange
from engine.rulesets.jep1.skills import SKILLS, SkillDataError, parse_skills

from .jep1_fixtures import RULES, play, state, unit


def run(att, dfn, faces, named=()):
    dice = ScriptedDice(faces)
    events = []
    result = exchange(att, dfn, False, list(named), False, dice, events)
    assert dice.unused == []
    return result, events


def guarded(uid, at, *skills, **stats):
    u = unit(uid, at, skills=skills, **stats)
    u.guard = list(skills)
    return u


def test_the_skills_file_ships_at_least_six_skills_of_every_phase_and_side():
    assert len(SKILLS) >= 6
    kinds = {(s.phase, s.side) for s in SKILLS.values()}
    assert kinds == {("pre-hit", "attack"), ("pre-hit", "defence"),
                     ("pre-damage", "attack"), ("pre-damage", "defence")}


def test_berserk_rolls_one_more_attack_die():
    """berserk (pre-hit, attack): M2 rolls three dice, 3 3 3 against one defence 7: two hits."""
    att = unit("A1", "c3", M=2, skills=("berserk",))
    result, _ = run(att, unit("B1", "c4", M=1), [1, 1, 1, 6, 1, 1], ["berserk"])
    assert result.attacks == [3, 3, 3] and len(result.hits) == 2
    assert att.uses["berserk"] == SKILLS["berserk"].uses - 1


def test_aim_adds_one_to_each_attack_die():
    """aim (pre-hit, attack): M1 rolls 3 → 3 + 1 + 1 = 5."""
    result, _ = run(unit("A1", "c3", M=1, skills=("aim",)), unit("B1", "c4", M=1), [3, 6], ["aim"])
    assert result.attacks == [5]


def test_lucky_rerolls_the_lowest_attack_die_and_the_new_roll_stands():
    """lucky: 1 and 5 → the 1 is rolled again (4): attack values 6 and 7."""
    result, _ = run(unit("A1", "c3", M=2, skills=("lucky",)), unit("B1", "c4", M=1),
                    [1, 5, 4, 6, 1], ["lucky"])
    assert sorted(result.attacks) == [6, 7]


def test_smash_adds_one_strength_to_the_damage_roll():
    """smash (pre-damage, attack): 1 + S3 + 1 = 5 reaches T5; without it 4 would not."""
    result, _ = run(unit("A1", "c3", M=1, S=3, skills=("smash",)), unit("B1", "c4", M=1, T=5),
                    [6, 1, 1], ["smash"])
    assert result.damage == 1


def test_pre_damage_skill_is_not_spent_without_a_hit():
    """'The attacker may use a skill before rolling his damage': no hit, no damage roll, no use."""
    att = unit("A1", "c3", M=1, skills=("smash",))
    result, _ = run(att, unit("B1", "c4", M=1), [1, 6], ["smash"])
    assert result.hits == [] and att.uses["smash"] == SKILLS["smash"].uses


def test_cruel_rerolls_the_lowest_damage_die():
    """cruel (pre-damage, attack): damage die 1 is rolled again (4): 4 + 3 reaches T6."""
    result, _ = run(unit("A1", "c3", M=1, S=3, skills=("cruel",)), unit("B1", "c4", M=1, T=6),
                    [6, 1, 1, 4], ["cruel"])
    assert result.damage_dice == [4] and result.damage == 1


def test_parry_as_standing_order_rolls_one_more_defence_die():
    """parry (pre-hit, defence), a standing order: M1 defends with two dice, 1 and 6 → 2 and 7."""
    dfn = guarded("B1", "c4", "parry", M=1)
    result, _ = run(unit("A1", "c3", M=1), dfn, [3, 1, 6])
    assert result.defences == [2, 7] and result.hits == []
    assert dfn.uses["parry"] == SKILLS["parry"].uses - 1


def test_dodge_rerolls_the_lowest_defence_die():
    result, _ = run(unit("A1", "c3", M=1), guarded("B1", "c4", "dodge", M=1), [3, 1, 6])
    assert result.defences == [7] and result.hits == []


def test_brace_adds_one_to_each_defence_die():
    """brace: defence 3 + 1 + 1 = 5 blocks the attack 4 (a plain 4 would not: ties hit)."""
    result, _ = run(unit("A1", "c3", M=1), guarded("B1", "c4", "brace", M=1), [3, 3])
    assert result.defences == [5] and result.hits == []


def test_tough_adds_one_toughness_against_the_damage_roll():
    """tough (pre-damage, defence): 1 + S3 = 4 no longer reaches T4 + 1."""
    result, _ = run(unit("A1", "c3", M=1, S=3), guarded("B1", "c4", "tough", M=1, T=4), [6, 1, 1])
    assert result.damage == 0


def test_shield_adds_one_armor_against_the_damage_roll():
    """shield (pre-damage, defence): two damage less armor 0 + 1 is one wound."""
    dfn = guarded("B1", "c4", "shield", M=1, T=4, H=3)
    result, _ = run(unit("A1", "c3", M=2, S=3), dfn, [6, 6, 1, 6, 6])
    assert (result.damage, result.wounds, dfn.H) == (2, 1, 2)


def test_attacker_declares_before_the_defender():
    """'After the attacker declares his skills, the defender may use a skill'."""
    _, events = run(unit("A1", "c3", M=1, skills=("aim",)), guarded("B1", "c4", "parry", M=1),
                    [1, 6, 6], ["aim"])
    assert [e.data["unit"] for e in events if e.kind == "skill"] == ["A1", "B1"]


def test_standing_skill_drops_when_its_uses_run_out():
    """Uses are counted per game: parry has 2; after two defences it is gone from the guard."""
    dfn = guarded("B1", "c4", "parry", M=1)
    for _ in range(2):
        run(unit("A1", "c3", M=1), dfn, [1, 6, 6])
    assert dfn.uses["parry"] == 0 and dfn.guard == []
    result, _ = run(unit("A1", "c3", M=1), dfn, [1, 6])
    assert len(result.defences) == 1


def test_guard_order_sets_standing_skills_that_persist_into_later_rounds():
    s = state(unit("A1", "c3", skills=("parry",)), unit("B1", "c9"))
    after = play(s, {"alice": "A1 guard parry"}, []).state
    assert after.unit("A1").guard == ["parry"]
    later = play(after, {"alice": "A1 move c4"}, []).state
    assert later.unit("A1").guard == ["parry"]
    cleared = play(later, {"alice": "A1 guard none"}, []).state
    assert cleared.unit("A1").guard == []


def test_standing_skill_defends_against_an_attack_in_a_later_round():
    s = state(unit("A1", "c3", M=1, skills=("parry",)), unit("B1", "c4", M=1, tie=1))
    guarded_state = play(s, {"alice": "A1 guard parry"}, []).state
    res = play(guarded_state, {"bob": "B1 attack A1"}, [3, 1, 6,   # B1 4 against A1 2 7 (parry)
                                                         1, 6])     # A1 strikes back: 2 against 7
    assert res.state.unit("A1").uses["parry"] == SKILLS["parry"].uses - 1


@pytest.mark.parametrize("line, message", [
    ("A1 attack B1 with berserk aim lucky", "at most 2 pre-hit skills a side"),
    ("A1 attack B1 with parry", "parry is a defence skill"),
    ("A1 attack B1 with smash", "does not know smash"),
    ("A1 attack B1 with berserk berserk", "named only once"),
    ("A1 attack B1 berserk", "name skills after 'with'"),
    ("A1 attack B1 with", "at least one skill"),
    ("A1 guard berserk", "berserk is an attack skill"),
    ("A1 guard parry none", "'guard none' stands alone"),
    ("A1 attack B1 with fireball", "there is no skill 'fireball'"),
])
def test_skill_orders_that_are_refused(line, message):
    s = state(unit("A1", "c3", skills=("berserk", "aim", "lucky", "parry")), unit("B1", "c4"))
    with pytest.raises(OrderErrors, match=message):
        play(s, {"alice": line}, [])


def test_skill_without_uses_left_is_refused():
    a1 = unit("A1", "c3", skills=("berserk",))
    a1.uses["berserk"] = 0
    with pytest.raises(OrderErrors, match="berserk has no uses left"):
        play(state(a1, unit("B1", "c4")), {"alice": "A1 attack B1 with berserk"}, [])


def test_skills_file_entry_with_an_effect_that_does_nothing_in_its_phase_is_rejected():
    bad = {"skills": [{"name": "x", "phase": "pre-damage", "side": "defence", "effect": "dice",
                       "amount": 1, "uses": 1, "cost": 1}]}
    with pytest.raises(SkillDataError, match="skill 1 \\(x\\): effect 'dice' does nothing"):
        parse_skills(bad)


# -- The strike back "through the same steps", and when standing defence skills are spent

def test_the_strike_back_uses_the_standing_strike_back_skills():
    """Seed, PASS PRIORITY: "If defender is alive, the priority is passed & the current
    defender is the new attacker" and docs/rulesets/jep1.md: the strike back runs "through the same
    steps": the unit striking back may use its attack skills, named in its standing orders
    for strike backs.

    B1 stands ready to strike back with berserk. A1 (I 3, acts first) attacks: 1 + M1 = 2
    against B1's 6 + 1 = 7, blocked. B1 strikes back with berserk: two dice, 3 3 → 4 4,
    against A1's 1 + 1 = 2: two hits; damage 1 1 + S3 = 4 against T4: 2 damage, no armor,
    2 wounds: A1 has 1 health left."""
    s = state(unit("A1", "c2", I=3, M=1), unit("B1", "c3", M=1, skills=("berserk",)))
    res = play(s, {"alice": "A1 attack B1", "bob": "B1 strike back with berserk"},
               [1, 6, 3, 3, 1, 1, 1])
    assert res.state.unit("A1").H == 1
    assert res.state.unit("B1").uses["berserk"] == SKILLS["berserk"].uses - 1
    assert res.state.unit("B1").strike == ["berserk"]


def test_a_standing_shield_is_kept_when_armour_already_cancels_the_damage():
    """docs/rulesets/jep1.md: "A standing defence skill is used by policy (default: only when it can
    change the outcome, so it is not spent when armour alone already cancels the damage)."
    Seed, ARMOR BUFFER: "if defender has a armor value of 1 as well then no damage is taken".

    A1 (M1) has one attack die: at most one hit, one damage, which B1's armor 1 cancels.
    A1 hits (6 + 1 = 7 against 1 + 1 = 2) and rolls damage 6 + S3 = 9 against T4: 1
    damage, armor 1, no wound. B1's shield (+1 armor) could change nothing: it is kept."""
    att, dfn = unit("A1", "c3", M=1), guarded("B1", "c4", "shield", M=1, A=1)
    result, events = run(att, dfn, [6, 1, 6])
    assert result.wounds == 0 and dfn.uses["shield"] == SKILLS["shield"].uses
    assert [e.text for e in events if e.kind == "guard kept"] == [
        "B1 keeps shield: it cannot change the outcome of this exchange."]


def test_a_standing_shield_is_spent_when_it_can_stop_a_wound():
    """The same shield against A1 with M2: two hits can make two damage, one through armor
    1, so the shield can change the outcome and is spent: 6 6 + 1 = 7 7 against 1 1 + 1 =
    2 2, two hits; damage 6 6 + S3 = 9 9 against T4: 2 damage, armor 1 + 1 = 2: no wound."""
    att, dfn = unit("A1", "c3", M=2), guarded("B1", "c4", "shield", M=2, A=1)
    result, _ = run(att, dfn, [6, 6, 1, 1, 6, 6])
    assert result.wounds == 0 and dfn.uses["shield"] == SKILLS["shield"].uses - 1


def test_a_standing_parry_is_kept_against_an_attack_that_cannot_wound():
    """Pre-hit: A1's best damage die, 6 + S1 = 7, cannot reach B1's T8, so no roll of the
    dice can wound and B1's parry (an extra defence die) is kept: one defence die only."""
    att, dfn = unit("A1", "c3", M=1, S=1), guarded("B1", "c4", "parry", M=1, T=8)
    result, _ = run(att, dfn, [6, 1, 6])
    assert result.defences == [2] and dfn.uses["parry"] == SKILLS["parry"].uses


def test_guard_always_spends_the_skill_in_every_exchange():
    """The policy `always` (`B1 guard shield always`): the shield is spent even where it
    changes nothing (the position of the kept-shield case)."""
    s = state(unit("A1", "c3", M=1, I=3), unit("B1", "c4", M=1, A=1, skills=("shield",)))
    res = play(s, {"alice": "A1 attack B1", "bob": "B1 guard shield always"},
               [6, 1, 6, 1, 6])
    assert res.state.unit("B1").uses["shield"] == SKILLS["shield"].uses - 1
    assert RULES.dump(res.state)["units"][1]["guard_when"] == "always"


def test_the_form_offers_two_skills_of_a_phase_and_strike_back_orders():
    """Seed: "A maximum of 2 skills can be used in this phase for both attacker & defender":
    a unit knowing berserk and aim (both pre-hit attack) is offered the two together, for
    its attack and for its strike backs; a third pre-hit skill would be one too many."""
    s = state(unit("A1", "c2", skills=("berserk", "aim", "lucky", "parry", "dodge")),
              unit("B1", "c3"))
    lines = [o.format() for o in RULES.legal_orders(s, "alice")["A1"]]
    assert "A1 attack B1 with berserk aim" in lines
    assert "A1 strikeback berserk aim" in lines
    assert "A1 guard parry dodge" in lines and "A1 guard parry dodge always" in lines
    assert not any(line.endswith("with berserk aim lucky") for line in lines)
    for line in lines:
        assert RULES.parse_orders(s, "alice", line)
