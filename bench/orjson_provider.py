"""Flask's JSON through orjson, for measuring it against the standard library's (bench.servers)."""

from __future__ import annotations

from typing import Any

import orjson
from flask.json.provider import DefaultJSONProvider


class OrjsonProvider(DefaultJSONProvider):
    def dumps(self, obj: Any, **kwargs: Any) -> str:
        # Typed here so mypy --strict passes where orjson is not installed (then it is Any).
        encoded: bytes = orjson.dumps(obj, default=self.default)
        return encoded.decode()

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return orjson.loads(s)
