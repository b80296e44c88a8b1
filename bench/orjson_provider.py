"""Flask's JSON through orjson, for measuring it against the standard library's (bench.servers)."""

from __future__ import annotations

from typing import Any

import orjson
from flask.json.provider import DefaultJSONProvider


class OrjsonProvider(DefaultJSONProvider):
    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return orjson.dumps(obj, default=self.default).decode()

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return orjson.loads(s)
