"""The rules' own sentences as a player reads them.

An event's text is stored in the game's hashed record exactly as the rules wrote it, so a
wording fix there would be a rules revision. What pages and mails show goes through
`plain` instead: a count of one reads "1 square", "1 die", whatever the sentence said.
"""

from __future__ import annotations

import re

# The plural nouns the rulesets put after a number, and their singulars.
SINGULAR = {"squares": "square", "civvies": "civvie", "wounds": "wound", "points": "point",
            "rounds": "round", "dice": "die", "hits": "hit", "uses": "use", "strikes": "strike",
            "attacks": "attack", "units": "unit", "rolls": "roll", "steps": "step", "actions": "action"}
# A lone 1 (not 21, 1.5, 3/1 or "3 x 1", where the noun counts the product) before one of them.
_ONE = re.compile(r"(?<![\d.,/])(?<!x )\b1 (" + "|".join(SINGULAR) + r")\b")


def plain(text: str) -> str:
    """The sentence with "1 squares" read as "1 square" (and the like)."""
    return _ONE.sub(lambda m: "1 " + SINGULAR[m.group(1)], text)
