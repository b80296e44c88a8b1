"""Request JSON with a nesting limit: a deeply nested body is a clear 400, not a crash.

`loads` is the same check for JSON typed into a form field (a force, options, a
deadline policy): too deep is a json.JSONDecodeError, which those forms already turn
into a 422 naming the field.

Python's json module recurses once per level, so `[[[[...]]]]` a few thousand levels
deep (well within the 64 KiB body limit) raises RecursionError, which would be a 500.
The app's JSON provider counts the nesting first (outside strings; only when the text
has enough brackets to matter) and refuses bodies deeper than MAX_DEPTH levels with
400 and an error saying so. No request the service accepts needs more than a handful.
"""

from __future__ import annotations

import json
from typing import Any

from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import BadRequest

MAX_DEPTH = 64


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether JSON text nests arrays/objects more than `limit` levels (strings skipped)."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def loads(text: str) -> Any:
    """json.loads, refusing nesting deeper than MAX_DEPTH with a json.JSONDecodeError."""
    if too_deep(text):
        raise json.JSONDecodeError(f"nested deeper than {MAX_DEPTH} levels", text, 0)
    return json.loads(text)


class DepthLimitedJSONProvider(DefaultJSONProvider):
    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        text = s.decode("utf-8", "replace") if isinstance(s, bytes | bytearray) else s
        if too_deep(text):
            raise BadRequest(f"the JSON body nests deeper than {MAX_DEPTH} levels")
        return super().loads(s, **kwargs)
