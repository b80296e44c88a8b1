"""Request JSON with a nesting limit and numbers of any length: a deeply nested body or
a number of thousands of digits is a clear 400, not a crash.

`loads` is the same check for JSON typed into a form field (a force, options, a
deadline policy): too deep or too long a number is a json.JSONDecodeError, which those
forms already turn into a 422 naming the field.

Python's json module recurses once per level, so `[[[[...]]]]` a few thousand levels
deep (well within the 64 KiB body limit) raises RecursionError, which would be a 500.
The app's JSON provider counts the nesting first (outside strings; only when the text
has enough brackets to matter) and refuses bodies deeper than MAX_DEPTH levels with
400 and an error saying so. No request the service accepts needs more than a handful.

Python reads no integer of more than `sys.get_int_max_str_digits()` digits (4300): its
ValueError would say neither where nor what. The request body is then read again with
each such number as a `LongNumber`, which service.inputs refuses naming its field.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
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


@dataclass(frozen=True)
class LongNumber:
    """A number in request JSON too long to read as one."""

    digits: int


def _long_number(text: str) -> int | LongNumber:
    digits = len(text.lstrip("-"))
    return LongNumber(digits) if digits > sys.get_int_max_str_digits() else int(text)


def loads(text: str) -> Any:
    """json.loads, refusing nesting deeper than MAX_DEPTH and numbers too long to read
    with a json.JSONDecodeError."""
    if too_deep(text):
        raise json.JSONDecodeError(f"nested deeper than {MAX_DEPTH} levels", text, 0)
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # an integer too long for int()
        raise json.JSONDecodeError(f"a number has more than {sys.get_int_max_str_digits()} digits",
                                   text, 0) from None


class DepthLimitedJSONProvider(DefaultJSONProvider):
    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        text = s.decode("utf-8", "replace") if isinstance(s, bytes | bytearray) else s
        if too_deep(text):
            raise BadRequest(f"the JSON body nests deeper than {MAX_DEPTH} levels")
        try:
            return super().loads(s, **kwargs)
        except json.JSONDecodeError:
            raise
        except ValueError:  # a number too long for int(): read it again, marking each such number
            return json.loads(s, **{**kwargs, "parse_int": _long_number})
