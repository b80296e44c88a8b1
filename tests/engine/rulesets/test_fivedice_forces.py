"""fivedice: combat sheets, preset rosters, the points budget and deployment."""

from __future__ import annotations

from typing import Any

import pytest

from engine.contract import ForceError, OptionError
from engine.dice import ScriptedDice
from engine.rulesets.fivedice.forces import PRESETS

from .fivedice_fixtures import RULES

OPTIONS = RULES.options({})
SOLDIER = {"attack": 3, "initiative": 2, "defence": 3, "skill": 1, "movement": 3, "life": 10,
           "weapons": ["sword"], "armor": "leather"}


def refusals(force: Any, **options: Any) -> list[str]:
    return RULES.validate_force(force, RULES.options(options))


def test_sheet_cost_table() -> None:
    """Ours (the seed has no point-buy): attack 3, initiative 2, defence 3, skill 4,
    movement 2 and life 1 point each, plus the gear. Soldier: 9 + 4 + 9 + 4 + 6 + 16 +
    sword 3 + leather 2 = 53."""
    assert PRESETS["soldier"].cost == 53
    assert PRESETS["knight"].cost == 12 + 4 + 12 + 12 + 4 + 18 + 3 + 6 + 2


def test_default_force_fits_the_default_budget() -> None:
    force = RULES.default_force(0, OPTIONS)
    assert force == {"units": [{"preset": "knight"}, {"preset": "soldier"}, {"preset": "archer"},
                               {"preset": "mage"}]}
    assert refusals(force) == []


def test_a_custom_sheet_is_accepted() -> None:
    assert refusals({"units": [SOLDIER, {"preset": "mage"}]}) == []


def test_over_budget_is_refused_with_the_costs() -> None:
    assert refusals({"units": [{"preset": "champion"}, {"preset": "knight"}]}, points=150) == [
        "the force costs 173 points (champion 100, knight 73), over the budget of 150"]


def test_every_bad_field_is_named() -> None:
    bad = {**SOLDIER, "skill": 6, "weapons": ["sword", "lance"], "armor": "tin", "colour": "red"}
    assert refusals({"units": [{"preset": "knight"}, bad]}) == [
        "unit 2: unknown field colour (fields: name, attack, initiative, defence, skill, "
        "movement, life, weapons, armor, spells, items)",
        "unit 2: skill must be between 0 and 5, not 6",
        "unit 2: 'lance' is not a weapon (axe, crossbow, dagger, greatsword, longbow, "
        "shortbow, spear, staff, sword)",
        "unit 2: armor 'tin' is not one of chain, leather, plate",
    ]


def test_unknown_preset_and_bad_shapes() -> None:
    assert refusals({"units": [{"preset": "dragon"}]}) == [
        "unit 1: preset 'dragon' is not one of archer, brute, champion, knight, mage, scout, "
        "soldier, spearman"]
    assert refusals({"units": []}) == ["units must be a list of at least 1 unit"]
    assert refusals({"units": ["knight"], "army": 1}) == [
        "unknown field army (a force has: units)", "unit 1: must be an object with preset, or a sheet"]


def test_a_force_must_fit_its_deployment_zone() -> None:
    """Two rows of the board less the corners: 2 × (12 − 4) = 16 units on 12 × 12."""
    assert refusals({"units": [{"preset": "scout"}] * 17}, points=5000) == [
        "at most 16 units, not 17 (the deployment zone of 16 squares)"]


def test_setup_deploys_units_with_side_letters_on_opposite_edges() -> None:
    """Unit ids: side letter (A for seat 0, B seat 1) + number; seat 0 at the bottom."""
    forces = {p: RULES.default_force(i, OPTIONS) for i, p in enumerate(["ann", "ben"])}
    state = RULES.setup(["ann", "ben"], forces, OPTIONS, ScriptedDice([]))
    placed = {u.id: (u.player, u.square.name) for u in state.units}
    assert placed == {"A1": ("ann", "f2"), "A2": ("ann", "g2"), "A3": ("ann", "e2"),
                      "A4": ("ann", "h2"), "B1": ("ben", "f11"), "B2": ("ben", "g11"),
                      "B3": ("ben", "e11"), "B4": ("ben", "h11")}
    a1 = state.unit("A1")
    assert a1 is not None and (a1.life, a1.wielded, a1.items) == (18, "sword", ["potion"])


def test_setup_refuses_a_bad_force() -> None:
    with pytest.raises(ForceError) as err:
        RULES.setup(["ann", "ben"], {"ann": {"units": []}, "ben": RULES.default_force(1, OPTIONS)},
                    OPTIONS, ScriptedDice([]))
    assert str(err.value) == "force of ann: units must be a list of at least 1 unit"


def test_ruins_map_is_symmetric_and_leaves_the_deployment_zones_free() -> None:
    """Option `map` ruins: walls and half cover in the middle, the same for every seat
    under a half turn; `open` is bare."""
    from engine.grid import Square
    from engine.rulesets.fivedice.terrain import battlefield, deployment_zone

    terrain = battlefield(12, 12, "ruins")
    assert sorted(terrain.values()) == ["cover"] * 4 + ["wall"] * 2
    assert all(terrain[Square(11 - sq.col, 11 - sq.row)] == kind for sq, kind in terrain.items())
    zones = {sq for seat in range(4) for sq in deployment_zone(seat, 4, 12, 12)}
    assert not zones & set(terrain)
    assert battlefield(12, 12, "open") == {}


def test_four_players_deploy_on_four_edges_without_corners() -> None:
    from engine.rulesets.fivedice.terrain import deployment_zone

    zones = [deployment_zone(seat, 4, 12, 12) for seat in range(4)]
    assert [len(z) for z in zones] == [16, 16, 16, 16]
    assert len({sq for z in zones for sq in z}) == 64
    assert zones[2][0].name == "b6" and zones[3][0].name == "k6"


@pytest.mark.parametrize(("points", "units"), [(10, ["recruit"]), (50, ["recruit"]), (120, ["knight"]),
                                               (130, ["knight", "soldier"]),
                                               (250, ["knight", "soldier", "archer", "mage"])])
def test_the_default_force_always_fits_the_budget(points: int, units: list[str]) -> None:
    """The default force is valid whatever the budget: knight (73), soldier (53), archer
    (53), mage (60) while they fit, else one recruit."""
    options = RULES.options({"points": points})
    force = RULES.default_force(0, options)
    assert RULES.validate_force(force, options) == []
    assert [u.get("preset", u.get("name")) for u in force["units"]] == units


def test_the_smallest_grid_holds_four_units_a_seat() -> None:
    options = RULES.options({"width": 6, "height": 6})
    assert RULES.validate_force(RULES.default_force(0, options), options) == []
    with pytest.raises(OptionError, match="option width: must be at least 6"):
        RULES.options({"width": 5})
