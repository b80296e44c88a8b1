"""The points cost of a stat line: the seed prices nothing, so this table is ours.

Why these prices (docs/rulesets/jep1.md repeats the table):
- M buys a die AND +1 on every die, in attack, defence and every strike back, so its
  worth grows faster than its level: the marginal price rises 3, 4, 5, 6, 7, 8.
- R grows the same way but only when shooting, and never defends: a point cheaper per
  level (2, 3, 4, 5, 6, 7).
- A cancels a whole damage in every exchange, the strongest single point: 8 each.
- H is one more wound to take: 4 each. S and T shift one d6 comparison by one face: 3 each.
- I orders the round and rolls the dice against shots: 2 each.
- Reach up to the seed's default 8 is free; each square beyond costs 1 (shorter is no refund).
- A skill costs its `cost` in data/skills.json.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.rulesets.jep1.skills import SKILLS
from engine.rulesets.jep1.units import DEFAULT_REACH

# stat → (lowest, highest) a unit may have.
LIMITS: dict[str, tuple[int, int]] = {
    "I": (0, 6), "M": (1, 6), "R": (0, 6), "S": (0, 8), "T": (1, 12), "A": (0, 3), "H": (1, 10),
    "reach": (1, 16),
}
FLAT = {"I": 2, "S": 3, "T": 3, "A": 8, "H": 4}
# Marginal prices: level n costs the sum of the first n entries.
RISING = {"M": (3, 4, 5, 6, 7, 8), "R": (2, 3, 4, 5, 6, 7)}


def stat_cost(stat: str, value: int) -> int:
    if stat in RISING:
        return sum(RISING[stat][:value])
    if stat == "reach":
        return max(0, value - DEFAULT_REACH)
    return FLAT[stat] * value


def unit_cost(stats: Mapping[str, int], skills: list[str]) -> int:
    """Points for a stat line (every stat in LIMITS) and its skills."""
    return sum(stat_cost(s, stats[s]) for s in LIMITS) + sum(SKILLS[k].cost for k in skills)
