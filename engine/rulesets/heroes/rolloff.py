"""The 3d20 roll-off, "Rolling Off" in the seed, and the re-roll rules of the S.U.P.E.R. card.

    "On a roll of a 1 you've failed at your task. On a roll of a 20 you've succeeded
    critically (If this is an opposed roll, only another Critical Hit can negate your
    roll)! If you happen to roll both a 1 and a 20, they cancel out and you take the
    value of the third dice. ... If 2 dice are valued between 2 and 10 take the LOWEST
    valued dice. ... If 2 dice are valued between 11 and 19 take the HIGHEST valued dice."

With three dice in 2..19, at least two fall on one side of 10/11, so "the lowest of
the two low dice" is the lowest die and "the highest of the two high dice" the highest.

Re-rolls happen after the first throw and before the Result is read: a stat of 1 MUST
re-roll its highest die; a stat of 5 or more MAY re-roll its lowest die, as the roller's
policy says (docs/rulesets/heroes.md default `auto`: when the lowest die is the one being taken, or is a 1).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.dice import Dice

POLICIES = ("auto", "lowest", "never")
REROLL_STAT = 5  # "Any S.U.P.E.R. stat of 5 or greater allows the lowest dice to be re-rolled."
FORCED_STAT = 1  # "Any S.U.P.E.R. stat of 1 must re-roll the highest dice."


@dataclass(frozen=True, slots=True)
class Reading:
    """What three dice say: fail, critical, or the value of the Result."""

    value: int  # the Result: the die taken (1 for a fail, 20 for a critical)
    fail: bool = False
    critical: bool = False


def read_dice(dice: tuple[int, ...]) -> Reading:
    """The seed's reading of three d20."""
    rest = list(dice)
    if 1 in rest and 20 in rest:
        # "they cancel out and you take the value of the third dice"
        rest.remove(1)
        rest.remove(20)
        return read_single(rest[0])
    if 1 in rest:
        return Reading(1, fail=True)
    if 20 in rest:
        return Reading(20, critical=True)
    low = [d for d in rest if d <= 10]
    return Reading(min(rest)) if len(low) >= 2 else Reading(max(rest))


def read_single(die: int) -> Reading:
    if die == 1:
        return Reading(1, fail=True)
    if die == 20:
        return Reading(20, critical=True)
    return Reading(die)


@dataclass(frozen=True, slots=True)
class RollOff:
    """One roll-off: the dice thrown, the dice after re-rolls, the Result and the total."""

    thrown: tuple[int, ...]
    dice: tuple[int, ...]  # after re-rolls
    rerolls: tuple[str, ...]  # "highest 17→4", "lowest 3→12": what was re-rolled, in order
    reading: Reading
    stat: int
    modifier: int

    @property
    def fail(self) -> bool:
        return self.reading.fail

    @property
    def critical(self) -> bool:
        return self.reading.critical

    @property
    def result(self) -> int:
        return self.reading.value

    @property
    def total(self) -> int:
        return self.reading.value + self.stat + self.modifier

    def reaches(self, target: int) -> bool:
        """A test "of target or greater": a 1 always fails, a 20 always succeeds."""
        return not self.fail and (self.critical or self.total >= target)

    def exceeds(self, target: int) -> bool:
        """A test "higher than target"."""
        return self.reaches(target + 1)

    def describe(self) -> str:
        dice = ",".join(map(str, self.thrown))
        extra = "".join(f", re-rolled {r}" for r in self.rerolls)
        if self.fail:
            return f"rolled {dice}{extra}: a 1, failed"
        if self.critical:
            return f"rolled {dice}{extra}: a natural 20, critical (total {self.total})"
        mod = f" {self.modifier:+d}" if self.modifier else ""
        return f"rolled {dice}{extra}: Result {self.result} + {self.stat}{mod} = {self.total}"


def wants_lowest_reroll(dice: tuple[int, ...], policy: str) -> bool:
    """Whether a roller allowed to re-roll its lowest die does so under this policy."""
    if policy == "never":
        return False
    if policy == "lowest":
        return True
    lowest = min(dice)
    if lowest == 1:
        return True
    reading = read_dice(dice)
    return not reading.critical and reading.value == lowest


def roll_off(dice: Dice, stat: int, label: str, *, modifier: int = 0, policy: str = "auto",
             may_reroll: bool = False) -> RollOff:
    """Roll 3d20 for `label`, apply the stat's re-roll rules, read the Result.

    may_reroll grants the lowest-die re-roll whatever the stat (a (*) action's re-roll).
    """
    thrown = tuple(dice.roll(20, f"{label} d20 #{i + 1}") for i in range(3))
    current = list(thrown)
    notes: list[str] = []
    if stat <= FORCED_STAT:
        i = current.index(max(current))
        new = dice.roll(20, f"{label} stat 1 re-roll of the highest die")
        notes.append(f"highest {current[i]}→{new}")
        current[i] = new
    if (stat >= REROLL_STAT or may_reroll) and wants_lowest_reroll(tuple(current), policy):
        i = current.index(min(current))
        new = dice.roll(20, f"{label} re-roll of the lowest die")
        notes.append(f"lowest {current[i]}→{new}")
        current[i] = new
    final = tuple(current)
    return RollOff(thrown, final, tuple(notes), read_dice(final), stat, modifier)


def contest_key(r: RollOff) -> tuple[int, int]:
    """Ranks roll-offs in an opposed roll: a critical beats anything but another critical
    (two criticals negate each other: a tie whatever the stats); a fail loses to anything."""
    if r.critical:
        return (2, 0)
    if r.fail:
        return (0, 0)
    return (1, r.total)
