"""The app's Jinja environment reads `a.b` as Jinja's own does: dicts' items by item (without
raising first), dicts' own attributes, objects' attributes, and what is missing."""

from __future__ import annotations

from dataclasses import dataclass

import jinja2
import pytest

from service.render.jinja_env import Environment


@dataclass
class Piece:
    label: str

    def __getitem__(self, key: str) -> str:
        return f"item {key}"


class Keyed(dict):  # type: ignore[type-arg]
    extra = "attribute"


EXPRESSIONS = ["d.a", "d.items", "d.keys is defined", "d.get('a')", "d.missing is defined",
               "d.missing", "d.nested.b", "d.nested.c is defined", "d.__class__.__name__",
               "p.label", "p.other", "k.extra", "k.a", "k.items", "t.real", "s.upper()", "n.x is defined",
               "d[\"items\"]", "d.copy", "d['a']"]


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_dotted_reads_are_jinjas(expression: str) -> None:
    values = {"d": {"a": 1, "items": 2, "copy": 3, "nested": {"b": "x"}}, "p": Piece("A1"),
              "k": Keyed(a=5, extra="item"), "t": 3, "s": "abc", "n": None}
    source = "{{ " + expression + " }}"
    ours = Environment.__new__(Environment)  # Flask's needs an app; getattr does not
    jinja2.Environment.__init__(ours, autoescape=True)
    plain = jinja2.Environment(autoescape=True)
    assert ours.from_string(source).render(values) == plain.from_string(source).render(values)


def test_the_app_uses_it() -> None:
    from service import create_app

    app = create_app({"DATABASE_URL": "sqlite://", "REDIS_URL": None, "SECRET_KEY": "x"})
    assert isinstance(app.jinja_env, Environment)
