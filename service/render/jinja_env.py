"""The Jinja environment of the pages and mails: Flask's, with `a.b` on a plain dict
looked up without raising.

Jinja reads `a.b` as the attribute `b` of `a` first and, when there is none, as the item
`a["b"]`; the templates read dicts that way throughout (the context's values, the design
tokens `ds`), so each such read raised and caught an AttributeError. A plain dict has no
attributes but its class's, so for a name that is not one of those the item comes first
here: the same value, or the same undefined, as before.
"""

from __future__ import annotations

from typing import Any

from flask.templating import Environment as FlaskEnvironment

_DICT_ATTRIBUTES = frozenset(dir(dict))


class Environment(FlaskEnvironment):
    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)
