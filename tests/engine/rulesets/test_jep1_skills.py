"""jep1 rulebook: skills (data/skills.json), used in the seed's two skill phases.

Seed: "The attacker may use a skill before rolling his attacks. After the attacker declares his
skills, the defender may use a skill before the attacker rolls attacks. A maximum of 2 skills can
be used in this phase for both attacker & defender." (and the same for PRE-DAMAGE SKILLS).
RULES.md: attack skills are named in orders; defence skills are standing orders of the unit.
"""

import pytest

from engine.dice import ScriptedDice
from engine.orders import OrderErrors
from engine.rulesets.jep1.exchange import exchange
from engine.rulesets.jep1.skills import SKILLS, SkillDataError, parse_skills

from .jep1_fixtures import play, state, unit


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
