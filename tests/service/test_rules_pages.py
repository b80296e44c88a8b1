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
