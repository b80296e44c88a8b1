"""Rate limiting of token guessing: refused requests per client address (the limits library).

Every token the service hands out (player, GM, invitation, unsubscribe, mail reply)
is 24+ random bytes, so guessing one is hopeless; the limit makes trying expensive
and visible anyway. One shared budget per client address counts the answers a guess
gets, 401, 403 and 404, across every route. Only those answers are counted and only
those are refused: after RATELIMIT_AUTH_FAILURES (default 30 per minute) of them, that
address's refused requests answer 429 with Retry-After until the window moves on, while
its requests that succeed (a valid token) go on as usual. So a guesser on a shared
address (a school, a carrier's NAT, a reverse proxy) never locks its honest players out.
The check runs after the view, on its answer; a refused request changes nothing, so
answering it 429 instead hides only what the refusal would have said.

The client's address is REMOTE_ADDR, or behind DICEPOST_PROXY_HOPS reverse proxies the
address they saw (werkzeug's ProxyFix, which trusts exactly that many X-Forwarded-*
entries, so a client cannot choose its address by sending the header itself).

Storage: Redis in full mode (REDIS_URL, keys under REDIS_PREFIX, so every web process
shares the counts), memory in embedded mode (one process). If Redis is unreachable the
request goes through rather than failing the service: the tokens' entropy is the real
protection.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass

from flask import Flask, Response, current_app, jsonify, request
from limits import RateLimitItem, parse
from limits.storage import storage_from_string
from limits.strategies import MovingWindowRateLimiter
from werkzeug.exceptions import TooManyRequests
from werkzeug.middleware.proxy_fix import ProxyFix
from werkzeug.wrappers import Response as BaseResponse

log = logging.getLogger(__name__)

DEFAULT_AUTH_FAILURES = "30 per minute"
GUESS_ANSWERS = (401, 403, 404)
EXTENSION = "dicepost.limiter"


def counts_as_guess(response: Response) -> bool:
    return response.status_code in GUESS_ANSWERS


@dataclass(frozen=True)
class GuessLimit:
    budget: str
    item: RateLimitItem
    limiter: MovingWindowRateLimiter

    def refused(self, address: str) -> int | None:
        """Count one refused request; the seconds to wait when the budget is spent, else None."""
        try:
            if self.limiter.hit(self.item, "refused", address):
                return None
            reset = self.limiter.get_window_stats(self.item, "refused", address).reset_time
        except Exception:  # storage down: let the request through (see the module's docstring)
            log.warning("the rate limit's storage is unreachable; not counting", exc_info=True)
            return None
        return max(1, math.ceil(reset - time.time()))

    def message(self) -> str:
        return (f"too many refused requests from your address ({self.budget}); "
                "try again after the number of seconds in the Retry-After header")


def client_address() -> str:
    return request.remote_addr or "unknown"


def _limit_refusals(response: Response) -> BaseResponse:
    limit: GuessLimit | None = current_app.extensions.get(EXTENSION)
    if limit is None or not counts_as_guess(response):
        return response
    wait = limit.refused(client_address())
    if wait is None:
        return response
    if request.path.startswith("/api/"):
        refusal: BaseResponse = jsonify({"error": limit.message()})
        refusal.status_code = 429
    else:
        refusal = TooManyRequests(limit.message()).get_response()
    refusal.headers["Retry-After"] = str(wait)
    return refusal


def trust_proxies(app: Flask, hops: int) -> None:
    """Take the client's address (and scheme, host, prefix) from `hops` reverse proxies."""
    if hops > 0:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops,  # type: ignore[method-assign]
                                x_host=hops, x_prefix=hops)


def init_app(app: Flask) -> GuessLimit | None:
    trust_proxies(app, int(app.config.get("PROXY_HOPS") or 0))
    app.after_request(_limit_refusals)
    if not app.config.get("RATELIMIT_ENABLED", True):
        return None
    redis_url = app.config.get("REDIS_URL")
    budget = str(app.config.get("RATELIMIT_AUTH_FAILURES") or DEFAULT_AUTH_FAILURES)
    if redis_url:
        storage = storage_from_string(redis_url, key_prefix=f"{app.config.get('REDIS_PREFIX', '')}limits")
    else:
        storage = storage_from_string("memory://")
    limit = GuessLimit(budget, parse(budget), MovingWindowRateLimiter(storage))
    app.extensions[EXTENSION] = limit
    return limit
