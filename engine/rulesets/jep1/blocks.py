"""The defender's block assignment (seed, "ROLL TO HIT").

"Defender then chooses how the defense dice goes. If the attacker's attack value is
higher or equal to the defense value of the defender. Then a "hit" is scored."

Each defence value blocks at most one attack value. By the rule text a block needs a
defence value strictly above the attack value (attack >= defence is a hit). The seed's
own example has a defence 6 block an attack 6; option `ties_block` plays it that way.

Every hit rolls the same damage die, so the best a defender can do is block as many
attacks as possible; that is the assignment made here (no policy could do better).
"""

from __future__ import annotations

from collections.abc import Sequence


def blocks(defence: int, attack: int, ties_block: bool) -> bool:
    return defence > attack or (ties_block and defence == attack)


def assign_blocks(attacks: Sequence[int], defences: Sequence[int],
                  ties_block: bool) -> tuple[list[tuple[int, int]], list[int]]:
    """(blocked (attack, defence) pairs, attack values that hit), with the most blocks.

    Greedy over both lists ascending: each defence value, smallest first, takes the
    smallest attack still open if it can block it. A defence value that cannot block
    the smallest open attack can block none, so skipping it never loses a block.
    """
    open_attacks = sorted(attacks)
    pairs: list[tuple[int, int]] = []
    i = 0
    for d in sorted(defences):
        if i < len(open_attacks) and blocks(d, open_attacks[i], ties_block):
            pairs.append((open_attacks[i], d))
            i += 1
    hits = sorted(open_attacks[i:], reverse=True)
    return pairs, hits
