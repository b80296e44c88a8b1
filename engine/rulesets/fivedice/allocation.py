"""Placing the five dice on the combat sheet: 2 Attack, 1 Initiative, 2 Defence, shifted
as the unit's skill level allows, chosen by the unit's policy.

The seed lets the player place dice after seeing them; by post that is a policy
written in advance (docs/rulesets/README.md, "Common to all"), and the engine makes the best legal
placement for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

from engine.contract import InvariantError

AREAS = ("attack", "initiative", "defence")
Counts = tuple[int, int, int]  # dice on (attack, initiative, defence)

# Levels 1 to 4 each add to the one below (our reading: "allowed" widens the choice).
# Level 5 is its own set: "all dice can be freely arranged, but at least one dice has to
# be assigned to each attack initiative and defense value", so the lower levels' shifts
# that empty the initiative are not kept.
_LEVEL_ADDS: dict[int, tuple[Counts, ...]] = {
    # "SKILL LEVEL 0/1: no dice are shifted"
    0: ((2, 1, 2),),
    1: (),
    # "SKILL LEVEL 2: dice shifted is the initiative to the two attack or defense"
    2: ((3, 0, 2), (2, 0, 3)),
    # "SKILL LEVEL 3: ... the initiative dice and one additional dice" (same direction)
    3: ((4, 0, 1), (1, 0, 4)),
    # "SKILL LEVEL 4: ... also allowing an attack or defense dice to be moved to the initiative"
    4: ((1, 2, 2), (2, 2, 1)),
    # "SKILL LEVEL 5: all dice can be freely arranged, but at least one dice ... to each"
    5: tuple((a, i, 5 - a - i) for a in range(1, 4) for i in range(1, 4) if 5 - a - i >= 1),
}


def legal_counts(skill: int) -> tuple[Counts, ...]:
    """Every (attack, initiative, defence) dice count a skill level may use, in a fixed order."""
    if skill >= 5:
        return _LEVEL_ADDS[5]
    out: list[Counts] = []
    for level in range(skill + 1):
        out.extend(c for c in _LEVEL_ADDS[level] if c not in out)
    return tuple(out)


POLICIES: dict[str, tuple[str, ...]] = {
    "aggressive": ("attack", "initiative", "defence"),
    "defensive": ("defence", "attack", "initiative"),
}
DEFAULT_POLICY = ("balanced",)


def normalize_policy(words: tuple[str, ...]) -> tuple[str, ...]:
    """`priority attack` → ("priority", "attack", "initiative", "defence"): the areas
    not named follow in sheet order."""
    if words[0] != "priority":
        return (words[0],)
    named = tuple(words[1:])
    return ("priority", *named, *(a for a in AREAS if a not in named))


@dataclass(frozen=True)
class Placement:
    attack: tuple[int, ...]
    initiative: tuple[int, ...]
    defence: tuple[int, ...]

    def total(self, area: str) -> int:
        return sum(getattr(self, area))

    def describe(self) -> str:
        parts = []
        for area in AREAS:
            dice = getattr(self, area)
            parts.append(f"{area} {'+'.join(map(str, dice))} = {sum(dice)}" if dice else f"{area} none")
        return ", ".join(parts)


def _key(p: Placement, policy: tuple[str, ...]) -> tuple[int, ...]:
    if policy[0] == "balanced":
        # The weaker of attack and defence as high as possible; then initiative, so
        # dice leave the initiative area only when that raises the weaker side.
        a, d = p.total("attack"), p.total("defence")
        return (min(a, d), p.total("initiative"), a + d, a)
    order = POLICIES.get(policy[0]) or policy[1:]
    return tuple(p.total(area) for area in order)


def _placements(dice: tuple[int, ...], counts: Counts) -> list[Placement]:
    """Every way to put these (sorted, highest first) dice into the counted areas."""
    a, i, _ = counts
    out = []
    idx = range(len(dice))
    for ini in combinations(idx, i):
        rest = [k for k in idx if k not in ini]
        for att in combinations(rest, a):
            out.append(Placement(tuple(dice[k] for k in att), tuple(dice[k] for k in ini),
                                 tuple(dice[k] for k in rest if k not in att)))
    return out


@lru_cache(maxsize=4096)
def _best(dice: tuple[int, ...], skill: int, policy: tuple[str, ...]) -> Placement:
    best: Placement | None = None
    best_key: tuple[int, ...] = ()
    for counts in legal_counts(skill):
        for p in _placements(dice, counts):
            key = _key(p, policy)
            if best is None or key > best_key:
                best, best_key = p, key
    if best is None:
        raise InvariantError("no allocation to choose from")
    return best


def allocate(dice: list[int], skill: int, policy: tuple[str, ...]) -> Placement:
    """The best legal placement of these dice for the policy (first found on a tie)."""
    return _best(tuple(sorted(dice, reverse=True)), skill, normalize_policy(policy))
