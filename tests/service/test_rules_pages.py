"""The rules in the app: one page a ruleset, from the help structure the HELP mail uses too."""

from __future__ import annotations

from typing import Any

from flask import Flask
from markupsafe import escape

from service.catalog import rules_help


def _html(r: Any) -> str:
    return r.get_data(as_text=True)


def test_every_ruleset_has_a_rules_page_with_its_verbs_options_and_words(sqlite_app: Flask) -> None:
    client = sqlite_app.test_client()
    index = _html(client.get("/rules"))
    for ruleset in ("universal", "jep1", "fivedice", "heroes"):
        assert f'href="/rules/{ruleset}"' in index
        r = client.get(f"/rules/{ruleset}")
        assert r.status_code == 200
        page = _html(r)
        rules = rules_help(ruleset)
        assert rules.title in page and "How to play" in page
        for verb in rules.verbs:  # every verb with its example
            assert f"<code>{verb.usage}</code>" in page and f"<code>{verb.example}</code>" in page
        for option in rules.options:
            assert f"<code>{option['name']}</code>" in page
        for word, meaning in rules.glossary:
            assert f'<abbr title="{escape(meaning)}">{escape(word)}</abbr>' in page
    assert "EP/Pw/D" in _html(client.get("/rules/universal"))
    missing = client.get("/rules/chess")
    assert missing.status_code == 404 and "no ruleset" in _html(missing)


def test_the_help_mail_lists_the_same_verbs_as_the_rules_page() -> None:
    from service.outbound.context import order_help

    class Game:
        ruleset = "jep1"
        revision = 1

    assert order_help(Game()) == rules_help("jep1").order_lines  # type: ignore[arg-type]
    assert order_help(Game())[-1] == "pass  - submit no orders this round: every unit holds"


def test_each_rules_page_opens_with_how_to_win_a_round_the_limits_and_a_worked_example(sqlite_app: Flask) -> None:
    """The page teaches before it lists: how you win, a round's steps, how far units move and
    what they may attack, then a round played by the engine with its dice (the numbers are
    those of a real resolution: catalog.worked_example plays it)."""
    from engine.registry import find_ruleset

    client = sqlite_app.test_client()
    for ruleset in ("universal", "jep1", "fivedice", "heroes"):
        page = _html(client.get(f"/rules/{ruleset}"))
        rules = find_ruleset(ruleset)
        teaching = rules.info.teaching
        assert teaching is not None
        fresh = teaching.example(rules)  # played again here, not read from the page's cache
        assert fresh is not None
        win, example, options = (page.index(s) for s in ('id="win"', 'id="example"', 'id="options-h"'))
        assert win < example < options
        worked = page[example:options]  # the position before and after, drawn from the engine's boards
        assert worked.count("<svg") == 2 and "Before the round" in worked and "After the round" in worked
        assert fresh.before is not None and fresh.after is not None
        assert all(f">{p.label}<" in worked for p in fresh.after.pieces)
        assert str(escape(teaching.win)) in page
        for text in (*teaching.sequence, *teaching.limits, *fresh.events):
            assert str(escape(text)) in page
        for label, face in fresh.dice:
            assert f"<li>{escape(label)}: <strong>{face}</strong></li>" in page
    universal = _html(client.get("/rules/universal"))
    assert "2 squares (a Runner 3)" in universal and "costs 1.5 squares" in universal
    assert "One unit per side attacks a round" in universal
    assert "2 damage" in universal  # the example's attack, 6 4 3 against D 5
    jep1 = _html(client.get("/rules/jep1"))
    assert "Units act one at a time in the order of action" in jep1
    assert "A melee defender that lives strikes back at once" in jep1
    fivedice = _html(client.get("/rules/fivedice"))
    assert "Placing the dice: every living unit rolls five dice" in fivedice
    assert "places them (aggressive): attack 6+6 = 12" in fivedice
