"""The order form's check, asked with `choices`, names the options each list offers that
the rules would refuse with what is chosen elsewhere: the very answer Send would give that
set, for every ruleset (a marked option's set is refused, an unmarked one's accepted)."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from flask import Flask

from tests.service.play import start

SELECT = re.compile(r'<select name="([^"]+)" id="[^"]+" data-unit="([^"]+)"[^>]*>(.*?)</select>', re.S)
OPTION = re.compile(r'<option value="([^"]+)"')


def lists_of(client: Any, game: str, token: str) -> list[tuple[str, str, list[str]]]:
    """The player page's lists: field name, unit and the lines offered."""
    page = client.get(f"/games/{game}/player/{token}").get_data(as_text=True)
    return [(name, unit, [html.unescape(v) for v in OPTION.findall(body)])
            for name, unit, body in SELECT.findall(page)]


def check(client: Any, game: str, token: str, fields: dict[str, str], choices: bool) -> dict[str, Any]:
    form = {"round": "1", "units": "500", **fields, **({"choices": "1"} if choices else {})}
    answer = client.post(f"/games/{game}/player/{token}/check", data=form)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    return dict(answer.json)


@pytest.mark.parametrize("ruleset", ["universal", "jep1", "heroes", "fivedice"])
def test_marked_choices_are_those_send_would_refuse(sqlite_app: Flask, ruleset: str) -> None:
    client = sqlite_app.test_client()
    table = start(client, ruleset)
    seat = client.get(f"/api/games/{table.id}").json["expected"][0]
    token = table.tokens[seat]
    lists = lists_of(client, table.id, token)
    # The first unit's first order of each list chosen (a move and an attack, a move and a
    # facing ...): every other option is judged beside them.
    first_unit = lists[0][1]
    chosen = {name: offered[0] for name, unit, offered in lists if unit == first_unit and offered}
    answer = check(client, table.id, token, chosen, choices=True)
    assert answer["errors"] == []
    refused: dict[str, dict[str, str]] = answer["refused"]
    assert set(refused) <= {name for name, _, _ in lists}
    judged = 0
    for name, _unit, offered in lists:
        marked = refused.get(name, {})
        plain = [o for o in offered if o not in marked and o != chosen.get(name)][:2]
        for option in [*list(marked)[:2], *plain]:
            errors = check(client, table.id, token, {**chosen, name: option}, choices=False)["errors"]
            assert bool(errors) == (option in marked), (name, option, marked.get(option), errors)
            judged += 1
    assert judged > len(lists)
    if ruleset == "universal":  # one attack a side a round: every other unit's attacks marked
        attack = next(line for name, line in chosen.items() if " attack " in line)
        others = [(name, o) for name, unit, offered in lists if unit != first_unit for o in offered
                  if " attack " in o]
        assert others and all(refused[name][o].startswith("only one unit can attack each round") and
                               f"'{attack}'" in refused[name][o] for name, o in others)
