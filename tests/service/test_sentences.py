"""Event sentences as players read them: stored as the rules wrote them (hashed in the
record), shown with a count of one in the singular."""

from __future__ import annotations

from service.render.sentences import plain
from service.turn_summary import classify, order_outcomes


def test_a_count_of_one_reads_singular_and_nothing_else_changes() -> None:
    assert plain("B1 on c4 is out of reach (1 squares of movement left)") == (
        "B1 on c4 is out of reach (1 square of movement left)")
    assert plain("A1 attacks B1 with 1 dice (6) against defence 5: 0 damage") == (
        "A1 attacks B1 with 1 die (6) against defence 5: 0 damage")
    assert plain("Z1 (alice) saved 1 civvies") == "Z1 (alice) saved 1 civvie"
    for kept in ("costs 1.5 squares", "21 squares away", "within 3 x 1 squares", "0 wounds", "11 points"):
        assert plain(kept) == kept


def test_the_turn_report_and_the_orders_outcome_read_the_plain_sentence() -> None:
    """jep1's skip "(1 squares of movement left)" stays so in the record; the report says "1 square"."""
    skip = {"kind": "skip", "text": "'A1 attack B1' skipped: B1 on c6 is out of reach (1 squares of "
                                    "movement left)", "data": {"unit": "A1", "order": "A1 attack B1"}}
    happening = classify(skip, {"A1"}, "alice")
    assert happening is not None and happening.text.endswith("(1 square of movement left)")
    outcome = order_outcomes({"alice": "A1 attack B1"}, [skip])["alice"][0]
    assert not outcome.done and outcome.why.endswith("(1 square of movement left)")
    assert skip["text"].endswith("(1 squares of movement left)")  # the stored event is untouched
