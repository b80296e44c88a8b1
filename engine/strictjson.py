"""The one strict JSON reader of records and receipts files, read alike by the command and
the verifier page (whose JavaScript refuses the same things): UTF-8, no duplicate keys, no
`__proto__` key (a JavaScript reader would set the prototype, not a field), no floats or
NaN, whole numbers below 2^53 (what every language reads alike), no lone surrogates."""

from __future__ import annotations

import json
from typing import Any

from engine.dice import canonical
from engine.stepcheck import RecordError

__all__ = ["SAFE_INTEGER", "parse_strict"]

SAFE_INTEGER = 2**53


def parse_strict(data: bytes | str, what: str = "the record") -> Any:
    """JSON text read strictly; anything refused is a RecordError starting with `what`."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RecordError(f"{what} is not UTF-8 text: {exc}") from None

    def whole(text: str) -> int:
        n = int(text)
        if abs(n) >= SAFE_INTEGER:
            raise RecordError(f"{what} holds the number {text}; it may hold |n| < 2^53 only")
        return n

    def no_float(text: str) -> Any:
        raise RecordError(f"{what} holds the number {text}; it may hold whole numbers only")

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key == "__proto__":
                raise RecordError(f"{what} has the key '__proto__', which the page cannot read "
                                  "as a field")
            if key in out:
                raise RecordError(f"{what} has the key {key!r} twice in one object")
            out[key] = value
        return out

    try:
        value = json.loads(data, object_pairs_hook=no_duplicates, parse_float=no_float,
                           parse_constant=no_float, parse_int=whole)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{what} is not JSON: {exc}") from None
    except RecursionError:
        raise RecordError(f"{what} nests too deeply") from None
    try:
        canonical(value)
    except UnicodeEncodeError:
        raise RecordError(f"{what} holds text that is not Unicode (a lone surrogate)") from None
    return value
