"""A glossary on every stat string: each word of the ruleset's glossary in a note (`Mortar;
1/4/5`, `I2 M2 R0 S3 T5 A0`) is an <abbr> with its meaning as the tooltip, and the same
meanings stand in text below the table and in the results mail's roster, all read from
the ruleset's own glossary (the one the rules page shows)."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask
from markupsafe import escape

from engine import find_ruleset
from service.catalog import gloss, glossary_used
from tests.service.play import start


def test_every_stat_of_a_stat_string_is_glossed():
    universal = find_ruleset("universal").info.glossary
    assert [(run, word) for run, word, _ in gloss("Mortar, Runner; 1/4/5", universal)] == [
        ("Mortar", "Mortar"), (", ", ""), ("Runner", "Runner"), ("; ", ""), ("1/4/5", "EP/Pw/D")]
    jep1 = find_ruleset("jep1").info.glossary
    runs = gloss("warrior I2 M2 R0 S3 T5 A0 H3/3 reach 8; skills: berserk 2", jep1)
    assert [word for _, word, _ in runs if word] == [
        "warrior", "I", "M", "R", "S", "T", "A", "H", "reach", "skills", "berserk"]
    assert "".join(run for run, _, _ in runs) == "warrior I2 M2 R0 S3 T5 A0 H3/3 reach 8; skills: berserk 2"
    # A lone capital of a sentence is not a stat: only a letter with its number is.
    assert [w for _, w, _ in gloss("A unit of side A", jep1) if w] == []
    fivedice = find_ruleset("fivedice").info.glossary
    assert [w for _, w, _ in gloss("knight, skill 3, sword, plate", fivedice) if w] == [
        "knight", "skill", "sword", "plate"]
    assert [w for w, _ in glossary_used(["Zenith!: 2 civvies saved"],
                                        find_ruleset("heroes").info.glossary)] == ["civvie"]


def _abbrs(html: str) -> set[str]:
    return set(re.findall(r'<abbr title="[^"]+">([^<]+)</abbr>', html))


def test_the_player_page_glosses_the_notes_and_explains_them_in_text(app: Flask, client: Any) -> None:
    table = start(client, "jep1")
    page = client.get(f"/games/{table.id}/player/{table.tokens['alice']}").get_data(as_text=True)
    units = page.split("<h3>Your units</h3>")[1].split("</table>")[0]
    meaning = dict(find_ruleset("jep1").info.glossary)
    assert f'<abbr title="{escape(meaning["M"])}">M2</abbr>' in units
    assert {"I2", "M2", "warrior"} <= _abbrs(units)
    words = page.split('id="unit-words"')[1].split("</details>")[0]
    assert "What the words in the notes mean" in words
    assert f"<dd>{escape(meaning['M'])}</dd>" in words and "#words" in words
    game = client.get(f"/games/{table.id}").get_data(as_text=True)
    legend = game.split('<table class="legend cards">')[1].split("</table>")[0]
    assert {"I2", "M2", "warrior"} <= _abbrs(legend)
    assert 'id="legend-words"' in game and f"<dd>{escape(meaning['T'])}</dd>" in game


def test_a_universal_stat_line_is_glossed_on_the_game_page(app: Flask, client: Any) -> None:
    table = start(client)
    game = client.get(f"/games/{table.id}").get_data(as_text=True)
    stat_line = dict(find_ruleset("universal").info.glossary)["EP/Pw/D"]
    assert re.search(rf'<abbr title="{re.escape(str(escape(stat_line)))}">1/\d+/\d+</abbr>', game)
